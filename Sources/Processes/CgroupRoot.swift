import Cgroup
import DaemonSupport
import EventLoop
import ExtensiondConfig
import Glibc
import Logging

/// extensiond's cgroup tree as found at start-up, and whether its root is the daemon's
/// alone (so that a hard limit on it touches nothing else).
package struct CgroupRoot {
    package let tree: CgroupTree
    let isOwned: Bool

    /// Finds the tree, claims it (refused while another daemon owns it), sets the backstop
    /// where the root is ours, and clears what a crashed predecessor left behind in it
    /// (recorded in `events`).
    ///
    /// A cgroup delegated to the daemon (systemd's service cgroup, `supervisor.cgroup`)
    /// is its tree's root. Otherwise (started from a shell) the tree goes into a child of
    /// the daemon's own cgroup named after its runtime directory, so that two daemons
    /// started side by side never see, let alone clean up, each other's groups.
    package init(_ settings: SupervisorSettings, events: EventLog, logger: Logger) throws(CgroupError) {
        // Under systemd the service's own cgroup limits belong to systemd, which resets
        // them on every daemon-reload: MemoryMax= in the unit is the backstop there.
        let systemdOwnsRoot = settings.cgroup == nil && getenv("INVOCATION_ID") != nil
        let delegated = settings.cgroup != nil || systemdOwnsRoot
        let ownChild = delegated ? nil : CgroupTree.childName(runtimeDirectory: settings.runtimeDirectory)
        tree = try CgroupTree.detect(configuredRoot: settings.cgroup, ownChild: ownChild)
        try tree.claim()
        for stale in try tree.removeStaleGroups() {
            let outcome = stale.failure.map { "could not be removed: \($0)" } ?? "removed"
            events.record(
                .cleanup, stale.id, "stale \(stale.kind.rawValue) cgroup from a previous run: killed \(stale.killedProcesses.count) process(es), \(outcome)")
        }
        let shared = try tree.root.processes().contains { $0 != getpid() }
        isOwned = settings.cgroup != nil || (!shared && !systemdOwnsRoot)
        if !isOwned, settings.memoryBudget != nil {
            let reason =
                systemdOwnsRoot
                ? "systemd owns the service's cgroup (set MemoryMax= in a drop-in)"
                : "\(tree.root) is shared with other processes (set supervisor.cgroup to give extensiond its own)"
            logger.notice("no hard limit set at memory_budget: \(reason)")
        }
        try setBackstop(for: settings.memoryBudget)
    }

    /// The tree's hard limit at the budget plus room for the daemon itself (it lives in
    /// the tree too), so that the watermarks, not the kernel, act first; `nil` lifts it.
    /// Nothing happens where the root is not ours.
    package func setBackstop(for budget: ByteSize?) throws(CgroupError) {
        guard isOwned else { return }
        try tree.setMemoryBackstop(budget.map { $0.bytes + max(16 << 20, $0.bytes / 20) })
    }
}
