import DaemonSupport
import ExtensiondPolicy

#if canImport(Glibc)
import Glibc
#endif

/// Stops the daemon asks for: `terminate` (or SIGTERM), then SIGKILL after `stop_timeout`.
extension ProcessSupervisor {
    /// Asks `process` to stop: `terminate` to a ready extension, SIGTERM otherwise; the
    /// whole cgroup is killed after the grace period. `then` runs once it is down. A process
    /// whose spawn is under way is stopped once its run exists (or its spawn failed).
    package func stop(_ process: SupervisedProcess, reason: StopReason, then completion: (() -> Void)? = nil) {
        process.restartTimer = nil
        guard let run = process.run else {
            guard !deferStop(of: process, reason: reason, then: completion) else { return }
            let waited = awaitingVolumes.removeValue(forKey: process.name) != nil
            if waited || process.state == .backoff || process.state == .fatal || process.state == .exited { process.state = .stopped }
            completion?()
            return
        }
        if let completion { run.onEnd.append(completion) }
        guard run.stopReason == nil || run.killTimer == nil else { return }
        // A frozen run could not take `terminate` or SIGTERM.
        resume(process)
        run.stopReason = run.stopReason ?? reason
        run.stopAskedAt = .current()
        if let channel = run.channel, channel.isOpen, process.state == .idle || process.state == .running {
            channel.send(.terminate)
        } else {
            try? run.process.descriptor.send(signal: SIGTERM)
        }
        run.killTimer = loop.addTimer(after: process.definition.stopTimeout) { [unowned self, unowned process] in
            self.killAfterGrace(process)
        }
    }

    /// A run still there `stop_timeout` after it was asked to stop is killed, and the kill
    /// is counted under the stop's reason like any other: every SIGKILL is on record.
    private func killAfterGrace(_ process: SupervisedProcess) {
        guard let reason = process.run?.stopReason else { return }
        kill(
            process, reason: reason,
            message: "no exit within stop_timeout (\(process.definition.stopTimeout.formatted)) after it was asked to stop (\(reason)): killed")
    }
}
