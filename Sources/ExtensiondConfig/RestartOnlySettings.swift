extension Configuration {
    /// This configuration with the `[supervisor]` keys that only a restart applies (the
    /// sockets, the state, the cgroup tree, the metrics listener and the identities are set
    /// up at start) kept at their `running` values, and the keys among them it changes
    /// (`supervisor.runtime_dir`, …): what a reload applies, and what waits.
    public func keepingRestartOnlySettings(of running: SupervisorSettings) -> (configuration: Configuration, waitingForRestart: [String]) {
        var applied = self
        var waiting: [String] = []
        func keep<Value: Equatable>(_ key: String, _ setting: WritableKeyPath<SupervisorSettings, Value>) {
            guard supervisor[keyPath: setting] != running[keyPath: setting] else { return }
            waiting.append("supervisor." + key)
            applied.supervisor[keyPath: setting] = running[keyPath: setting]
        }
        keep("runtime_dir", \.runtimeDirectory)
        keep("state_dir", \.stateDirectory)
        keep("cgroup", \.cgroup)
        keep("metrics_listen", \.metricsListen)
        keep("user_range", \.userRange)
        return (applied, waiting)
    }
}
