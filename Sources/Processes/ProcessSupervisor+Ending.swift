import Cgroup
import ControlProtocol
import EventLoop
import ExtensiondPolicy
import Glibc
import LinuxProcess
import WireProtocol

/// How runs end: stops and kills (the only sender of SIGKILL), exits, and what follows
/// them (the group's removal, a restart with backoff).
extension ProcessSupervisor {
    // MARK: Stopping

    /// Asks `process` to stop: `terminate` to a ready extension, SIGTERM otherwise; the
    /// whole cgroup is killed after the grace period. `then` runs once it is down.
    package func stop(_ process: SupervisedProcess, reason: StopReason, then completion: (() -> Void)? = nil) {
        process.restartTimer = nil
        guard let run = process.run else {
            if process.state == .backoff || process.state == .fatal || process.state == .exited { process.state = .stopped }
            completion?()
            return
        }
        if let completion { run.onEnd.append(completion) }
        guard run.stopReason == nil || run.killTimer == nil else { return }
        run.stopReason = run.stopReason ?? reason
        if let channel = run.channel, process.state == .idle || process.state == .running {
            channel.send(.terminate)
        } else {
            try? run.process.descriptor.send(signal: SIGTERM)
        }
        run.killTimer = try? loop.addTimer(after: process.definition.stopTimeout) { [unowned self, unowned process] in
            self.killRun(of: process)
        }
    }

    /// Kills the whole run of `process` now and counts the kill under `reason`. `message`,
    /// when given, is recorded as the kill event (the pressure responder records its own,
    /// with the kill's figures, once the group is empty). Returns when the first signal
    /// was sent; `nil` without a run.
    @discardableResult
    package func kill(_ process: SupervisedProcess, reason: StopReason, message: String?) -> MonotonicInstant? {
        guard let run = process.run else { return nil }
        run.stopReason = reason
        process.statistics.kills[reason, default: 0] += 1
        if let message { events.record(.kill, process.name, reason: reason.rawValue, message) }
        return killRun(of: process)
    }

    /// SIGKILL to everything of the run, then ``exitBound`` for its main process to be
    /// reaped before the run is given up, so that every stop ends.
    @discardableResult
    private func killRun(of process: SupervisedProcess) -> MonotonicInstant? {
        guard let run = process.run else { return nil }
        run.killTimer = nil
        let signalled = killEverything(of: run, process: process, mainReaped: false)
        if run.abandonTimer == nil {
            run.abandonTimer = try? loop.addTimer(after: Self.exitBound) { [unowned self, unowned process] in
                self.abandon(process)
            }
        }
        return signalled
    }

    /// The only sender of SIGKILL: to the main process through its pidfd (unless it was
    /// reaped: its pid may be reused), to everything in the run's cgroup, and to every
    /// descendant of those that left the cgroup, each through a pidfd. Descendants are
    /// found through /proc before anyone dies, since a dead parent's children are
    /// reparented. An escape is recorded as a kill event. Returns when the first signal
    /// was sent.
    @discardableResult
    private func killEverything(of run: ProcessRun, process: SupervisedProcess, mainReaped: Bool) -> MonotonicInstant {
        let members = Set((try? run.group.processes()) ?? [])
        let roots = mainReaped ? members : members.union([run.pid])
        // Walking /proc costs about a millisecond on the pressure path: only for runs that can leave.
        var escaped = run.process.mayLeaveItsGroup ? ProcessTree.descendants(of: roots).subtracting(members) : []
        if !mainReaped, !members.contains(run.pid), ProcessTree.entry(of: run.pid)?.isRunning == true { escaped.insert(run.pid) }

        // Pidfds first, while the parent links still hold: once the main process dies its
        // children are reparented, and a pid checked later could be a new process's.
        let family = roots.union(escaped)
        let outsiders = escaped.subtracting([run.pid]).sorted().compactMap { pid -> ProcessDescriptor? in
            guard let descriptor = try? ProcessDescriptor.open(pid: pid),
                  let parent = ProcessTree.entry(of: pid)?.parent, family.contains(parent) else { return nil }
            return descriptor
        }

        if !mainReaped { _ = try? run.process.descriptor.send(signal: SIGKILL) }
        let signalled = MonotonicInstant.current()
        do {
            try run.group.kill()
        } catch {
            events.record(.error, process.name, "kill \(run.group): \(error)")
        }
        for descriptor in outsiders {
            _ = try? descriptor.send(signal: SIGKILL)
        }
        if !escaped.isEmpty {
            let pids = escaped.sorted().map { $0 == run.pid ? "\($0) (the main process)" : "\($0)" }.joined(separator: ", ")
            events.record(.kill, process.name, reason: (run.stopReason ?? .exited).rawValue,
                          "pid \(pids) had left \(run.group): killed through pidfd")
        }
        return signalled
    }

    /// How long a run may take to be reaped after SIGKILL before it is given up.
    static let exitBound = Duration.seconds(2)

    /// Ends a run whose main process was not reaped within ``exitBound`` of SIGKILL (stuck
    /// in the kernel): the stop that waits for it returns, and the state says it is down.
    private func abandon(_ process: SupervisedProcess) {
        guard let run = process.run else { return }
        events.record(.error, process.name, "pid \(run.pid) was not reaped within \(Self.exitBound.formatted) of SIGKILL: its run is given up")
        end(run, of: process, .notReaped)
    }

    // MARK: Exits

    func runExited(_ process: SupervisedProcess, _ exit: ChildExit) {
        guard let run = process.run else { return }
        end(run, of: process, .exited(exit))
    }

    /// How a run ended.
    private enum RunEnd {
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
    private func end(_ run: ProcessRun, of process: SupervisedProcess, _ how: RunEnd) {
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
        process.groupRemoval = try? loop.addTimer(after: Self.removalInterval) { [unowned self, unowned process] in
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
            process.restartTimer = try? loop.addTimer(after: delay) { [unowned self, unowned process] in
                process.restartTimer = nil
                try? self.start(process)
            }
        case .fatal:
            process.state = .fatal
            events.record(.fatal, process.name, reason: reason.rawValue, "failed to start \(process.restartPolicy.maxRetries + 1) times in a row; start it by hand")
        }
    }
}
