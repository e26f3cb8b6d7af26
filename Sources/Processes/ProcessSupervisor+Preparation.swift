import LinuxProcess

/// Launches prepared ahead of demand, and launches that wait for their process's volumes
/// (made beside the loop, ``ProcessIsolation/DiskVolumes``).
extension ProcessSupervisor {
    /// Prepares what the first launch of `process` needs ahead of it: its volumes, data
    /// directory and sandbox rules (``Isolation/prepareAhead(_:executable:)``), and an
    /// extension's kept cgroup directories (``makeKeptGroupAhead(_:)``).
    package func prepareAhead(_ process: SupervisedProcess) {
        let launch = process.definition.launch
        guard !process.isAlive, !isLaunching(process), let executable = launch.command.first,
            let resolved = try? ExecutableLookup.resolve(executable, environment: baseEnvironment.merging(launch.environment) { $1 })
        else { return }
        isolation.prepareAhead(process, executable: resolved)
        makeKeptGroupAhead(process)
    }

    /// v1: an extension's pids, freezer, cpu and cpuacct groups, with their limits, as a run
    /// that ended on its own leaves them (``retire(_:of:mainReaped:)``): its first launch
    /// then makes only its memory group. Their `mkdir`s and limits were the largest part of
    /// a first launch (bench/README.md, "The launch floor, sixth pass"). What fails here is
    /// left for the launch, which makes what is missing.
    private func makeKeptGroupAhead(_ process: SupervisedProcess) {
        guard process.kind == .extension, keptLimits[process.name] == nil else { return }
        let limits = process.definition.limits.cgroupLimits
        let kind = Self.cgroupKind(process.kind)
        do {
            guard try tree.makeKeptDirectories(kind, id: process.name, limits: limits) else { return }
            keptLimits[process.name] = limits
            keptAhead.insert(process.name)
        } catch {
            // Not left half made: the launch makes the group whole.
            try? tree.existingGroup(kind, id: process.name).remove()
        }
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
