import DaemonSupport

/// The kernel OOM killer's order for what the daemon runs (DESIGN §3): extensions first,
/// then hosts and apps, the daemon last. The unit protects the daemon with a negative
/// `OOMScoreAdjust=`; its children must not inherit that protection.
enum OOMScore {
    /// An extension is always the kernel's first choice.
    static let extensions: Int32 = 1000

    /// Hosts and apps: the kernel's default 0 when the daemon runs protected (a negative
    /// score it would otherwise pass on), else `nil` to inherit the daemon's own (lowering
    /// a score needs CAP_SYS_RESOURCE, which a test machine may not grant).
    static let hostsAndApps: Int32? = (daemonScore ?? 0) < 0 ? 0 : nil

    private static var daemonScore: Int32? {
        FileSystem.read("/proc/self/oom_score_adj")
            .flatMap { Int32(String(decoding: $0, as: UTF8.self).filter { !$0.isWhitespace }) }
    }
}
