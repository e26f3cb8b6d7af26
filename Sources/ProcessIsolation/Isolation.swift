/// Who a process runs as and what it may reach: users and groups, group containers and
/// shared defaults (their writes coalesced and budgeted), data directories and their
/// sizes (`disk_max` volumes), sandbox rules (Landlock, seccomp).
///
/// This module owns preparing a launch's identity and sandbox, and setting aside what a
/// removed app left (``RemovedApps``). It must not spawn, signal or
/// track processes (Processes does), nor know extensions' protocol.
import DaemonSupport
import EventLoop
import ExtensiondConfig
import Glibc
import LinuxProcess
import Sockets
import WireProtocol

/// Who a process runs as and what it may reach (docs/SECURITY.md): the app's uid for an
/// app and its extensions, its groups' gids, the group containers, an extension's private
/// data directory, their sizes (``DiskVolumes``), and the sandbox its configuration asks for.
///
/// Everything is prepared in the daemon before the spawn; the spawner only applies it.
package final class Isolation {
    /// `nil` when the daemon is not root: every process then runs as the daemon's user.
    package let identities: IdentityBook?
    package let groups: GroupStore
    private let stateDirectory: String
    private var settings: SupervisorSettings
    private var apps: [String: AppSpec] = [:]
    /// The Landlock ABI used: the kernel's, or lower when the daemon's environment asks
    /// (`EXTENSIOND_LANDLOCK_ABI`, to see how it behaves on an older kernel).
    package let landlockABI: Int
    /// One ruleset per process, rebuilt when what its rules derive from changes (a reload,
    /// a new program): a relaunch then reads neither the program's ELF headers nor paths.
    /// A volume mounted afresh is a new directory to Landlock, though it looks the same: each
    /// ruleset keeps how often its writable directories were mounted.
    private var rulesets: [String: (inputs: SandboxRules.Inputs, mounts: [Int], rules: [Landlock.Rule], ruleset: Landlock.Ruleset)] = [:]
    /// Data directories made since start, by extension, with the owner they were given: a
    /// relaunch checks that the directory is still there instead of making it again.
    private var dataDirectoryOwners: [String: DirectoryOwner?] = [:]
    package let volumes: DiskVolumes
    private let events: EventLog
    /// Directories whose `disk_max` the kernel cannot enforce, told once as an event.
    private var unboundedTold: Set<String> = []

    /// The variable that lowers the Landlock ABI the daemon uses (0: as if the kernel had none).
    static let landlockOverrideVariable = "EXTENSIOND_LANDLOCK_ABI"

    /// `volumeWork` makes and mounts `disk_max` volumes beside the loop (`nil`: on it);
    /// `files` writes `identities.json`.
    package init(
        configuration: Configuration, groups: GroupStore, runsAsRoot: Bool, events: EventLog, volumeWork: BlockingWorker?,
        files: DurableFiles, clock: any CoordinatorClock
    ) {
        self.groups = groups
        self.events = events
        stateDirectory = configuration.supervisor.stateDirectory
        volumes = DiskVolumes(stateDirectory: stateDirectory, runsAsRoot: runsAsRoot, work: volumeWork)
        settings = configuration.supervisor
        identities =
            runsAsRoot
            ? IdentityBook(stateDirectory: stateDirectory, range: settings.userRange, files: files, clock: clock, events: events)
            : nil
        let requested = getenv(Self.landlockOverrideVariable).flatMap { Int(String(cString: $0)) }
        landlockABI = min(Landlock.kernelABI, requested ?? .max)
        apply(configuration)
    }

    /// A new configuration; `user_range` changes take effect at the next start.
    package func apply(_ configuration: Configuration) {
        let range = settings.userRange
        settings = configuration.supervisor
        settings.userRange = range
        apps = Dictionary(configuration.apps.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Prepares the launch of `process`, whose executable is `executable` (resolved). Returns
    /// `nil` while a volume of it (`disk_max`) is being made and mounted beside the loop, or
    /// while the ids it was just given are being written to disk: `whenReady` runs on the
    /// loop once they are, to prepare the launch again.
    package func prepare(
        _ process: some IsolatedProcess, executable: String, whenReady: @escaping () -> Void
    ) throws(IsolationError) -> IsolatedLaunch? {
        var launch = try identity(of: process)
        let ids = launch.supplementaryGroups + (launch.user.flatMap { UInt32($0) }.map { [$0] } ?? [])
        switch identities?.durability(of: ids, ready: whenReady) ?? .written {
        case .written: break
        case .writing: return nil
        case .failed(let error): throw .storage("the ids of \(process.name) could not be recorded: \(error)")
        }
        guard let writable = try storage(of: process, &launch, ahead: false, whenReady: whenReady) else { return nil }
        if let sandbox = sandboxSettings(of: process), sandbox.enabled {
            launch.sandbox = try self.sandbox(sandbox, for: process, executable: executable, writable: writable, notices: &launch.notices)
        }
        return launch
    }

    /// What the first launch of `process` (run as `executable`) needs, made ahead of it
    /// (after a config is applied): its volumes made and mounted beside the loop, then, on
    /// the loop, its data directory's own files and its sandbox's Landlock ruleset. A volume
    /// that could not be made is reported now and kept for the launch, which reports it
    /// without trying again; what else fails is left for the launch.
    package func prepareAhead(_ process: some IsolatedProcess, executable: String) {
        // Its volume was being made when its app was removed.
        guard appOf(process).map({ apps[$0] != nil }) ?? true, var launch = try? identity(of: process) else { return }
        let writable: [String]?
        do throws(IsolationError) {
            writable = try storage(of: process, &launch, ahead: true) { [weak self] in self?.prepareAhead(process, executable: executable) }
        } catch {
            events.record(.error, process.name, reason: "disk_max", "preparing the first launch ahead: \(error)")
            return
        }
        guard let writable, let settings = sandboxSettings(of: process), settings.enabled else { return }
        _ = try? sandbox(settings, for: process, executable: executable, writable: writable, notices: &launch.notices)
    }

    private func sandboxSettings(of process: some IsolatedProcess) -> SandboxSettings? {
        process.definition.extensionSpec?.sandbox ?? (process.kind == .app ? apps[process.name]?.sandbox : nil)
    }

    /// Who `process` runs as: its configured user and group, else its app's uid, and its app's groups.
    private func identity(of process: some IsolatedProcess) throws(IsolationError) -> IsolatedLaunch {
        let definition = process.definition
        var launch = IsolatedLaunch(user: definition.launch.user, group: definition.launch.group)
        let app = appOf(process)
        for group in app.flatMap({ apps[$0]?.groups }) ?? [] {
            if let gid = try identities?.gid(ofGroup: group) { launch.supplementaryGroups.append(gid) }
        }
        // A configured group alone keeps the app's own uid: it must never mean root.
        if let app, let identities, launch.user == nil {
            let uid = try identities.uid(ofApp: app)
            launch.user = "\(uid)"
            launch.group = launch.group ?? "\(uid)"
        }
        return launch
    }

    private func appOf(_ process: some IsolatedProcess) -> String? {
        process.definition.extensionSpec.map(\.app) ?? (process.kind == .app ? process.name : nil)
    }

    /// The group containers and data directory of `process`, bounded, in `launch`'s
    /// environment; returns the directories it may write, or `nil` while a volume is being
    /// made (`whenReady` follows, once). `ahead` of a launch, volume failures are kept for it.
    private func storage(
        of process: some IsolatedProcess, _ launch: inout IsolatedLaunch, ahead: Bool, whenReady: @escaping () -> Void
    ) throws(IsolationError) -> [String]? {
        var waiting = false
        var containers: [String: String] = [:]
        for group in appOf(process).flatMap({ apps[$0]?.groups }) ?? [] {
            let gid = try identities?.gid(ofGroup: group)
            let size = apps.values.filter { $0.groups.contains(group) }.map(\.diskMax.bytes).max() ?? 0
            do {
                let path = try groups.container(group, gid: gid)
                let owner = gid.map { DirectoryOwner(uid: 0, gid: $0) }
                guard
                    try bound(
                        path, name: "groups/" + group, size: size, owner: owner, what: "group container \(group)", ahead: ahead,
                        whenReady: waiting ? nil : whenReady)
                else {
                    waiting = true
                    continue
                }
                // Again: the mount's root is a directory of its own.
                containers[group] = try groups.container(group, gid: gid)
            } catch {
                throw .storage("group container \(group): \(error)")
            }
        }
        if !containers.isEmpty {
            launch.environment[ExtensionEnvironment.groupContainersVariable] = ExtensionEnvironment.encodeGroupContainers(containers)
        }
        var writable = Array(containers.values)
        if process.kind == .extension {
            let size = process.definition.extensionSpec?.diskMax.bytes ?? 0
            guard
                let dataDirectory = try self.dataDirectory(
                    of: process.name, launch: launch, size: size, ahead: ahead, whenReady: waiting ? nil : whenReady)
            else { return nil }
            launch.environment[ExtensionEnvironment.dataDirectoryVariable] = dataDirectory
            launch.environment["TMPDIR"] = dataDirectory + "/tmp"
            launch.environment["HOME"] = dataDirectory
            writable.append(dataDirectory)
        }
        return waiting ? nil : writable
    }

    /// `<state_dir>/data/<id>`, 0700 and the extension's own, with `tmp` in it; `nil` while
    /// its volume is being made.
    private func dataDirectory(
        of id: String, launch: IsolatedLaunch, size: UInt64, ahead: Bool, whenReady: (() -> Void)?
    ) throws(IsolationError) -> String? {
        let owner: DirectoryOwner?
        do throws(SpawnError) {
            owner = try Credentials.resolve(user: launch.user, group: launch.group).map { DirectoryOwner(uid: $0.uid, gid: $0.gid) }
        } catch {
            throw .storage("\(error)")
        }
        let directory = stateDirectory + "/data/" + id
        if let made = dataDirectoryOwners[id], made == owner, access(directory + "/tmp", F_OK) == 0 {
            return directory
        }
        let ids = owner.map { (uid: $0.uid, gid: $0.gid) }
        do {
            try FileSystem.ownedDirectory(stateDirectory + "/data", owner: nil, mode: 0o711)
            try FileSystem.ownedDirectory(directory, owner: ids, mode: 0o700)
            guard
                try bound(
                    directory, name: "data/" + id, size: size, owner: owner, what: "data directory of \(id)", ahead: ahead,
                    whenReady: whenReady)
            else { return nil }
            try FileSystem.ownedDirectory(directory, owner: ids, mode: 0o700)
            try FileSystem.ownedDirectory(directory + "/tmp", owner: ids, mode: 0o700)
        } catch {
            throw .storage("data directory of \(id): \(error)")
        }
        dataDirectoryOwners[id] = owner
        return directory
    }

    /// Bounds `directory` to `size` bytes by a volume; where the kernel cannot, refuses the
    /// launch while the directory holds `size` or more (and says so once as an event).
    /// `false` while the volume is being made, or ahead of a launch once its failure was told.
    private func bound(
        _ directory: String, name: String, size: UInt64, owner: DirectoryOwner?, what: String, ahead: Bool, whenReady: (() -> Void)?
    ) throws(SystemError) -> Bool {
        let readiness = try volumes.bound(
            directory, name: name, size: size, owner: owner, reserve: settings.stateReserve.bytes, ahead: ahead, whenReady: whenReady)
        guard case .unbounded(let unbounded) = readiness else { return readiness == .mounted }
        if unboundedTold.insert(directory).inserted {
            events.record(.error, nil, reason: "disk_max", "disk_max of the \(what) is checked at launch only, not by the kernel: \(unbounded)")
        }
        let used = DiskVolumes.usage(of: directory)
        guard used < size else {
            throw SystemError("the \(what) holds \(used) bytes, not below its disk_max of \(size); not starting it", errno: EDQUOT)
        }
        return true
    }

    private func sandbox(
        _ settings: SandboxSettings, for process: some IsolatedProcess, executable: String, writable: [String], notices: inout [String]
    ) throws(IsolationError) -> SpawnSandbox {
        var ruleset: Landlock.Ruleset?
        if landlockABI > 0 {
            let inputs = SandboxRules.Inputs(
                executable: executable, command: process.definition.launch.command,
                writable: writable + settings.write, readable: settings.read)
            let mounts = writable.map(volumes.mountCount)
            let cached = rulesets[process.name].flatMap { $0.mounts == mounts ? $0 : nil }
            if let cached, cached.inputs == inputs {
                ruleset = cached.ruleset
            } else {
                let rules = SandboxRules.rules(inputs)
                if let cached, cached.rules == rules, cached.inputs.grantsSameDirectories(as: inputs) {
                    ruleset = cached.ruleset
                } else {
                    do {
                        ruleset = try Landlock.Ruleset(abi: landlockABI, rules: rules)
                    } catch {
                        throw .sandbox("\(error)")
                    }
                }
                rulesets[process.name] = (inputs, mounts, rules, ruleset!)
            }
        } else if self.settings.sandboxRequired {
            throw .sandbox(
                "Landlock is not available in this kernel (it is missing or not in the lsm= boot list), so the file-system "
                    + "sandbox cannot be set up; not starting it. Set supervisor.sandbox_required = false to start it "
                    + "with no_new_privs and the seccomp filter only, or [\(process.kind.rawValue)s.\(process.name).sandbox] enabled = false")
        } else {
            notices.append("started without a file-system sandbox: Landlock is not available in this kernel (supervisor.sandbox_required = false)")
        }
        return SpawnSandbox(fileSystem: ruleset, denySystemCalls: true, isolateNetwork: !settings.network)
    }

    /// Who processes run as and what sandbox is available, in words (start-up log, `version`).
    package var summary: String {
        let users =
            identities == nil
            ? "not root: every process runs as the daemon's uid \(geteuid()), without per-app users or group walls"
            : "per-app users from \(settings.userRange.lowerBound)-\(settings.userRange.upperBound)"
        let landlock = landlockABI > 0 ? "Landlock ABI \(landlockABI)" : "no Landlock (sandbox_required = \(settings.sandboxRequired))"
        return users + "; " + landlock
    }

    /// A process removed from the configuration: its ruleset is closed.
    package func forget(_ name: String) {
        rulesets.removeValue(forKey: name)
        dataDirectoryOwners.removeValue(forKey: name)
    }
}

/// What ``Isolation/prepare(_:executable:)`` decided for one launch.
package struct IsolatedLaunch {
    package var user: String?
    package var group: String?
    package var supplementaryGroups: [UInt32] = []
    /// Added to the process's environment.
    package var environment: [String: String] = [:]
    package var sandbox: SpawnSandbox?
    /// Recorded as events: what of the sandbox is missing.
    package var notices: [String] = []
}

/// Why a process could not be isolated as configured; it is not started.
package enum IsolationError: Error, CustomStringConvertible {
    case noFreeID(String, ClosedRange<UInt32>)
    case storage(String)
    case sandbox(String)

    package var description: String {
        switch self {
        case .noFreeID(let what, let range):
            "no free id left in supervisor.user_range \(range.lowerBound)-\(range.upperBound) for \(what)"
        case .storage(let message): message
        case .sandbox(let message): "sandbox: \(message)"
        }
    }
}
