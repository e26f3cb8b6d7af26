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
    private var rulesets: [String: (inputs: SandboxRules.Inputs, rules: [Landlock.Rule], ruleset: Landlock.Ruleset)] = [:]
    /// Data directories made since start, by extension, with the owner they were given: a
    /// relaunch checks that the directory is still there instead of making it again.
    private var dataDirectoryOwners: [String: DirectoryOwner?] = [:]
    package let volumes: DiskVolumes
    private let events: EventLog
    /// Directories whose `disk_max` the kernel cannot enforce, told once as an event.
    private var unboundedTold: Set<String> = []

    /// The variable that lowers the Landlock ABI the daemon uses (0: as if the kernel had none).
    static let landlockOverrideVariable = "EXTENSIOND_LANDLOCK_ABI"

    package init(configuration: Configuration, groups: GroupStore, runsAsRoot: Bool, events: EventLog) {
        self.groups = groups
        self.events = events
        stateDirectory = configuration.supervisor.stateDirectory
        volumes = DiskVolumes(stateDirectory: stateDirectory, runsAsRoot: runsAsRoot)
        settings = configuration.supervisor
        identities =
            runsAsRoot
            ? IdentityBook(stateDirectory: stateDirectory, range: settings.userRange) { events.record(.error, nil, $0) }
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

    /// Prepares the launch of `process`, whose executable is `executable` (resolved).
    package func prepare(_ process: some IsolatedProcess, executable: String) throws(IsolationError) -> IsolatedLaunch {
        let mountsBefore = volumes.mounts
        let definition = process.definition
        let app = definition.extensionSpec.map(\.app) ?? (process.kind == .app ? process.name : nil)
        var launch = IsolatedLaunch(user: definition.launch.user, group: definition.launch.group)
        let appGroups = app.flatMap { apps[$0]?.groups } ?? []

        var containers: [String: String] = [:]
        for group in appGroups {
            let gid = try identities?.gid(ofGroup: group)
            launch.supplementaryGroups += gid.map { [$0] } ?? []
            let size = apps.values.filter { $0.groups.contains(group) }.map(\.diskMax.bytes).max() ?? 0
            do {
                let path = try groups.container(group, gid: gid)
                try bound(path, name: "groups/" + group, size: size, owner: gid.map { (0, $0) }, what: "group container \(group)")
                // Again: the mount's root is a directory of its own.
                containers[group] = try groups.container(group, gid: gid)
            } catch {
                throw .storage("group container \(group): \(error)")
            }
        }
        if !containers.isEmpty {
            launch.environment[ExtensionEnvironment.groupContainersVariable] = ExtensionEnvironment.encodeGroupContainers(containers)
        }
        // A configured group alone keeps the app's own uid: it must never mean root.
        if let app, let identities, launch.user == nil {
            let uid = try identities.uid(ofApp: app)
            launch.user = "\(uid)"
            launch.group = launch.group ?? "\(uid)"
        }

        var writable = Array(containers.values)
        if process.kind == .extension {
            let dataDirectory = try self.dataDirectory(of: process.name, launch: launch, size: definition.extensionSpec?.diskMax.bytes ?? 0)
            launch.environment[ExtensionEnvironment.dataDirectoryVariable] = dataDirectory
            launch.environment["TMPDIR"] = dataDirectory + "/tmp"
            launch.environment["HOME"] = dataDirectory
            writable.append(dataDirectory)
        }

        // A volume mounted afresh is a new directory to Landlock, though it looks the same.
        if volumes.mounts != mountsBefore { rulesets.removeValue(forKey: process.name) }
        let sandbox = definition.extensionSpec?.sandbox ?? (process.kind == .app ? apps[process.name]?.sandbox : nil)
        if let sandbox, sandbox.enabled {
            launch.sandbox = try self.sandbox(sandbox, for: process, executable: executable, writable: writable, notices: &launch.notices)
        }
        return launch
    }

    /// `<state_dir>/data/<id>`, 0700 and the extension's own, with `tmp` in it.
    private func dataDirectory(of id: String, launch: IsolatedLaunch, size: UInt64) throws(IsolationError) -> String {
        let owner: (uid: uid_t, gid: gid_t)?
        do throws(SpawnError) {
            owner = try Credentials.resolve(user: launch.user, group: launch.group).map { ($0.uid, $0.gid) }
        } catch {
            throw .storage("\(error)")
        }
        let directory = stateDirectory + "/data/" + id
        let directoryOwner = owner.map { DirectoryOwner(uid: $0.uid, gid: $0.gid) }
        if let made = dataDirectoryOwners[id], made == directoryOwner, access(directory + "/tmp", F_OK) == 0 {
            return directory
        }
        do {
            try FileSystem.ownedDirectory(stateDirectory + "/data", owner: nil, mode: 0o711)
            try FileSystem.ownedDirectory(directory, owner: owner, mode: 0o700)
            try bound(directory, name: "data/" + id, size: size, owner: owner, what: "data directory of \(id)")
            try FileSystem.ownedDirectory(directory, owner: owner, mode: 0o700)
            try FileSystem.ownedDirectory(directory + "/tmp", owner: owner, mode: 0o700)
        } catch {
            throw .storage("data directory of \(id): \(error)")
        }
        dataDirectoryOwners[id] = directoryOwner
        return directory
    }

    /// Bounds `directory` to `size` bytes by a volume; where the kernel cannot, refuses the
    /// launch while the directory holds `size` or more (and says so once as an event).
    private func bound(_ directory: String, name: String, size: UInt64, owner: (uid: uid_t, gid: gid_t)?, what: String) throws(SystemError) {
        guard let unbounded = try volumes.bound(directory, name: name, size: size, owner: owner, reserve: settings.stateReserve.bytes) else { return }
        if unboundedTold.insert(directory).inserted {
            events.record(.error, nil, reason: "disk_max", "disk_max of the \(what) is checked at launch only, not by the kernel: \(unbounded)")
        }
        let used = DiskVolumes.usage(of: directory)
        guard used < size else {
            throw SystemError("the \(what) holds \(used) bytes, not below its disk_max of \(size); not starting it", errno: EDQUOT)
        }
    }

    private func sandbox(
        _ settings: SandboxSettings, for process: some IsolatedProcess, executable: String, writable: [String], notices: inout [String]
    ) throws(IsolationError) -> SpawnSandbox {
        var ruleset: Landlock.Ruleset?
        if landlockABI > 0 {
            let inputs = SandboxRules.Inputs(
                executable: executable, command: process.definition.launch.command,
                writable: writable + settings.write, readable: settings.read)
            let cached = rulesets[process.name]
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
                rulesets[process.name] = (inputs, rules, ruleset!)
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

/// The owner a directory was given.
private struct DirectoryOwner: Equatable {
    var uid: uid_t
    var gid: gid_t
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
