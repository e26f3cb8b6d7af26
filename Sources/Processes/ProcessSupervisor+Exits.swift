import Cgroup
import ControlProtocol
import EventLoop
import ExtensiondPolicy
import Glibc
import LinuxProcess
import WireProtocol

/// How runs end: exits, and what follows them (the group's removal, a restart with
/// backoff).
extension ProcessSupervisor {
    // MARK: Exits

    func runExited(_ process: SupervisedProcess, _ exit: ChildExit) {
        guard let run = process.run else { return }
        end(run, of: process, .exited(exit))
    }

    /// How a run ended.
    enum RunEnd {
        /// Its main process exited and was reaped.
        case exited(ChildExit)
        /// Its main process was not reaped within ``exitBound`` of SIGKILL.
        case notReaped

        var description: String {
            switch self {
            case .exited(let exit): exit.description
            case .notReaped: "not reaped after SIGKILL"
            }
        }
        var isClean: Bool {
            if case .exited(let exit) = self { exit.exited && exit.status == 0 } else { false }
        }
        var mainReaped: Bool {
            if case .exited = self { true } else { false }
        }
        /// The journal fields of the exit.
        var figures: [(String, String)] {
            if case .exited(let exit) = self { [(exit.exited ? "EXIT_STATUS" : "EXIT_SIGNAL", "\(exit.status)")] } else { [] }
        }
    }

    /// Settles the end of `run`.
    func end(_ run: ProcessRun, of process: SupervisedProcess, _ how: RunEnd) {
        let ranFor = MonotonicInstant.current().since(run.launchedAt)
        oomNoticed(process)
        if let peak = try? run.group.memoryPeak() { process.statistics.peakMemoryBytes = max(process.statistics.peakMemoryBytes, peak) }
        retire(run, of: process, mainReaped: how.mainReaped)
        let reason = run.stopReason ?? .exited
        events.record(
            .exit, process.name, reason: reason.rawValue, "pid \(run.pid) \(how.description) after \(ranFor.formatted)",
            figures: [("PID", "\(run.pid)")] + how.figures + [("RUN_US", "\(ranFor.wholeMicroseconds)")])
        if run.stopReason == nil && !how.isClean {
            process.lastError = how.description
        }
        if run.stopReason?.isRequested == true {
            process.state = .stopped
        } else {
            settleAfterExit(process, ranFor: ranFor, reason: reason)
        }
        for completion in run.onEnd { completion() }
        onRunEnded?(process, reason)
    }

    /// Ends `run`: whatever is left in its group is killed, its output taken in, its
    /// watches dropped and its group removed once empty: all of it for the daemon's stop,
    /// a removal or a host's or app's stop by hand, else its run directories only (v1:
    /// memory), the others being kept for the next run. An extension stopped by hand keeps
    /// them as it had them before its first launch (``makeKeptGroupAhead(_:)``): else its
    /// relaunch makes all five groups again (bench/README.md, "The launch floor, seventh
    /// pass").
    func retire(_ run: ProcessRun, of process: SupervisedProcess, mainReaped: Bool) {
        killEverything(of: run, process: process, mainReaped: mainReaped)
        run.cancelWatches()
        process.run = nil
        let keeps = ![.shutdown, .removed].contains(run.stopReason) && (run.stopReason != .manual || process.kind == .extension)
        if !keeps { keptLimits[process.name] = nil }
        // Killed processes usually go at once; they may need a while longer (never waited
        // for on the loop), and the group is removed when they have.
        removals.remove(run.group, of: process.name, keepingKept: keeps)
    }

    /// Removes the cgroup directories a run of `process` kept (the process is removed
    /// from the configuration, or the daemon stops), once nothing runs in them.
    package func removeKeptGroup(of process: SupervisedProcess) {
        guard !process.isAlive, !isLaunching(process), keptLimits.removeValue(forKey: process.name) != nil else { return }
        keptAhead.remove(process.name)
        let group = tree.existingGroup(Self.cgroupKind(process.kind), id: process.name)
        guard group.hasKeptDirectories else { return }
        removals.remove(group, of: process.name)
    }

    /// The group of a launch that failed: removed now, or, when that fails too (out of
    /// descriptors: removal reads directories), as soon as it can be.
    func discard(_ group: ControlGroup, of process: SupervisedProcess) {
        keptLimits[process.name] = nil
        do {
            try group.remove()
        } catch {
            removals.remove(group, of: process.name)
        }
    }

    /// After an exit the daemon did not ask for: restart with backoff, give up, or rest.
    func settleAfterExit(_ process: SupervisedProcess, ranFor: Duration, reason: StopReason) {
        guard process.definition.restart != nil else {
            process.state = .exited
            return
        }
        switch process.restartPolicy.processExited(afterRunning: ranFor, using: &random) {
        case .restart(let delay):
            process.state = .backoff
            events.record(.restart, process.name, reason: reason.rawValue, "restarting in \(delay.formatted)")
            process.restartTimer = loop.addTimer(after: delay) { [unowned self, unowned process] in
                process.restartTimer = nil
                try? self.start(process)
            }
        case .fatal:
            process.state = .fatal
            events.record(
                .fatal, process.name, reason: reason.rawValue, "failed to start \(process.restartPolicy.maxRetries + 1) times in a row; start it by hand")
        }
    }
}
