import Glibc

/// What a host that does not read may make the daemon hold (docs/PROTOCOL.md, Limits).
enum HostLimits {
    /// Queued bytes past which a host's pushes are held back, the latest per extension.
    static let coalesceAfter = 1 << 20
    /// Queued and held bytes past which a host is disconnected.
    static let perHost = 8 << 20
    /// Queued and held bytes of all hosts together past which the one furthest behind is
    /// disconnected.
    static let total = 32 << 20
    /// How long a disconnected host has to read its `error` before the socket is closed.
    static let farewellTimeout = Duration.seconds(10)

    /// Hosts connected at once: half of the open-file limit, less 16 for the daemon's own,
    /// so that control.sock and launches keep their descriptors whatever hosts do.
    static func connections() -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 16 }
        return max(1, Int(min(limit.rlim_cur, 1 << 20)) / 2 - 16)
    }
}
