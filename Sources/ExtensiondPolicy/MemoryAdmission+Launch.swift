/// Launches a host asked for (a pull, subscribe or execute of a widget that is not
/// running), admitted against memory (POLICIES.md, "Admission"): one whose recorded peak
/// would take the working set to `low` first frees that much by the kill policy (idle and
/// suspended extensions only), then waits, bounded by ``launchWait``, for a reading that
/// leaves it room; past that its requests fail with an error naming memory (a pull is
/// answered from the cache). It never pushes the tree past `low` blindly.
extension MemoryAdmission {
    /// What to do with a launch a host asked for.
    public enum LaunchDecision: Sendable, Hashable {
        /// Launch now.
        case launch
        /// Free this many bytes by the kill policy first (an episode that counts the launch's
        /// peak as charged), then read the tree and ask again.
        case free(bytes: UInt64)
        /// Read the tree at this instant and ask again.
        case wait(until: Instant)
        /// Do not launch: the requests fail with this error.
        case refuse(String)
    }

    /// How long a launch may wait for memory before its requests fail.
    public static let launchWait: Duration = .seconds(5)
    /// How often a waiting launch reads the tree again.
    public static let launchRecheck: Duration = .milliseconds(250)

    /// The decision at `now` on launching extension `id`, whose cgroup peaked at `peak`
    /// bytes (`nil`: never ran, nothing to go by), first asked for at `askedAt`; `freed`:
    /// whether memory was already freed for it.
    public func launchDecision(of id: String, peak: UInt64?, askedAt: Instant, freed: Bool, now: Instant) -> LaunchDecision {
        let bytes = bytesToFree(beforeLaunching: peak)
        guard bytes > 0 else { return .launch }
        guard freed else { return .free(bytes: bytes) }
        let deadline = askedAt + Self.launchWait
        guard now < deadline else {
            return .refuse(
                "not enough memory to launch \(id): its recorded peak (\(Self.mebibytes(peak ?? 0))) would take the tree's working set "
                    + "(\(Self.mebibytes(workingSet ?? 0))) past pressure.low (\(Self.mebibytes(thresholds?.lowBytes ?? 0))), "
                    + "and no memory was freed within \(Self.launchWait)")
        }
        return .wait(until: min(deadline, now + Self.launchRecheck))
    }

    private static func mebibytes(_ bytes: UInt64) -> String {
        "\(bytes >> 20) MiB"
    }
}
