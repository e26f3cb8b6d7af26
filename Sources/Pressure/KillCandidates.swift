import ControlProtocol
import EventLoop
import ExtensiondPolicy
import Processes

/// How the daemon's processes look to ``KillPolicy``: band, priority, last use and memory.
enum KillCandidates {
    /// The band of a process of `kind` in `state`. An extension that has not sent `ready`
    /// yet counts as active: it is doing the work of starting, which a kill would waste.
    static func band(kind: ProcessKind, state: ProcessState) -> KillBand {
        switch kind {
        case .host: .host
        case .app: .backgroundApp
        case .extension:
            switch state {
            case .suspended: .suspendedExtension
            case .idle: .idleExtension
            default: .activeExtension
            }
        }
    }

    /// The running processes that may be killed at `level`, with their cgroup's usage as
    /// their memory, its growth since an extension last became idle or active (or since
    /// its launch, while it starts), and the later of their launch and `lastUsed` as their
    /// last use.
    /// Processes the responder has already killed (their exit not yet handled) are left
    /// out, so that a victim is never chosen twice.
    static func killable(
        in registry: ProcessRegistry, at level: PressureLevel, lastUsed: (SupervisedProcess) -> MonotonicInstant?
    ) -> [KillCandidate] {
        registry.ordered.compactMap { process in
            guard let run = process.run, run.stopReason?.isPressureKill != true else { return nil }
            let band = band(kind: process.kind, state: process.state)
            guard band.isKillable(at: level) else { return nil }
            let lastUsed = max(lastUsed(process) ?? run.launchedAt, run.launchedAt)
            let usage = run.memoryUsage() ?? 0
            return KillCandidate(
                id: process.name, band: band, priority: process.definition.extensionSpec?.priority ?? 0,
                lastUsed: lastUsed.policyInstant, residentBytes: usage, growthBytes: run.growth(to: usage)
            )
        }
    }
}
