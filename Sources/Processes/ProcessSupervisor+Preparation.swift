import LinuxProcess

/// Launches prepared ahead of demand, and launches that wait for their process's volumes
/// (made beside the loop, ``ProcessIsolation/DiskVolumes``).
extension ProcessSupervisor {
    /// Prepares what the first launch of `process` needs ahead of it: its volumes, data
    /// directory and sandbox rules (``Isolation/prepareAhead(_:executable:)``).
    package func prepareAhead(_ process: SupervisedProcess) {
        let launch = process.definition.launch
        guard !process.isAlive, let executable = launch.command.first,
            let resolved = try? ExecutableLookup.resolve(executable, environment: baseEnvironment.merging(launch.environment) { $1 })
        else { return }
        isolation.prepareAhead(process, executable: resolved)
    }

    func volumesReady(_ process: SupervisedProcess) {
        guard let extraArguments = awaitingVolumes.removeValue(forKey: process.name) else { return }
        do throws(LaunchError) {
            try start(process, extraArguments: extraArguments)
        } catch {
            onDeferredLaunchFailed?(process, error)
        }
    }
}
