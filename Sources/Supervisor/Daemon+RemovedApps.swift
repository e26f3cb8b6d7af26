import DaemonSupport

/// What removed apps leave in `state_dir`, and the state a reload writes (``RemovedApps``).
extension Daemon {
    /// Sets aside what apps removed from the config left, and purges what was kept long
    /// enough, before anything of a new app with a removed one's id runs.
    func settleRemovedApps() {
        removedApps.settle(configuration, nowMs: WallClock.nowMilliseconds()) { [events] line in
            events.record(line.hasPrefix("error: ") ? .error : .cleanup, nil, line)
        }
    }

    package func whenStateRecorded(then body: @escaping (String?) -> Void) {
        removedApps.whenRecorded { error in body(error.map { "\($0)" }) }
    }

    package func purgeRemovedApp(_ app: String) -> String? {
        removedApps.purge(app)
    }
}
