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
        events.record(.exit, process.name, reason: reason.rawValue, "pid \(run.pid) \(how.description) after \(ranFor.formatted)",
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
    /// watches dropped and its group removed once empty.
    func retire(_ run: ProcessRun, of process: SupervisedProcess, mainReaped: Bool) {
        killEverything(of: run, process: process, mainReaped: mainReaped)
        // Killed processes usually go at once; on a busy machine they may need a while
        // longer, and the group is removed when they have.
        let empty = (try? run.group.waitUntilEmpty(timeout: .milliseconds(100))) ?? false
        run.cancelWatches()
        process.run = nil
        if empty {
            removeGroup(run.group, of: process)
        } else {
            removeWhenEmpty(run.group, of: process, attemptsLeft: Self.removalAttempts)
        }
    }

    /// Tries to remove a killed group every ``removalInterval`` until it succeeds or
    /// the attempts run out (then records the error; the next start's stale-group
    /// cleanup takes it).
    private func removeWhenEmpty(_ group: ControlGroup, of process: SupervisedProcess, attemptsLeft: Int) {
        guard attemptsLeft > 0, (try? group.isEmpty()) != true else {
            process.groupRemoval = nil
            return removeGroup(group, of: process)
        }
        process.groupRemoval = loop.addTimer(after: Self.removalInterval) { [unowned self, unowned process] in
            _ = try? group.kill()
            self.removeWhenEmpty(group, of: process, attemptsLeft: attemptsLeft - 1)
        }
    }

    /// The group of a launch that failed: removed now, or, when that fails too (out of
    /// descriptors: removal reads directories), as soon as it can be.
    func discard(_ group: ControlGroup, of process: SupervisedProcess) {
        do {
            try group.remove()
        } catch {
            removeWhenEmpty(group, of: process, attemptsLeft: Self.removalAttempts)
        }
    }

    private func removeGroup(_ group: ControlGroup, of process: SupervisedProcess) {
        do {
            try group.remove()
        } catch {
            events.record(.error, process.name, "remove \(group): \(error)")
        }
    }

    /// 10 s in all for killed processes to leave their group.
    private static let removalAttempts = 200
    private static let removalInterval = Duration.milliseconds(50)

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
            events.record(.fatal, process.name, reason: reason.rawValue, "failed to start \(process.restartPolicy.maxRetries + 1) times in a row; start it by hand")
        }
    }
}
