import ExtensiondPolicy

/// An extension that closed its end of fd 3 can no longer be asked anything: its run ends
/// (reason `closed`), SIGTERM then SIGKILL after `stop_timeout`, rather than at a deadline
/// that may never come.
extension ProcessSupervisor {
    /// An exiting process closes fd 3 before its pidfd says it exited; a run still alive
    /// this long after the close is not exiting, and its exit keeps its own reason otherwise.
    static let exitAfterCloseBound = Duration.milliseconds(100)

    func channelClosed(_ process: SupervisedProcess) {
        guard let run = process.run, run.stopReason == nil else { return }
        run.channelClosedTimer = loop.addTimer(after: Self.exitAfterCloseBound) { [unowned self, unowned process, unowned run] in
            run.channelClosedTimer = nil
            guard process.run === run, run.stopReason == nil, !run.process.descriptor.hasExited else { return }
            self.stop(process, reason: .channelClosed)
        }
    }
}
