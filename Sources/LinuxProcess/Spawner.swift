import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// Starts processes with the C spawner: the child is set up entirely in C
/// between fork and exec, and any failure up to exec comes back as a
/// ``SpawnError`` naming the step instead of a child that dies silently.
public enum Spawner {
    /// Starts `request` and returns the running child.
    ///
    /// The child gets an empty signal mask and default dispositions, its own
    /// session, SIGKILL as parent-death signal (armed for the calling thread),
    /// its cgroup, `oom_score_adj`, credentials, working directory, stdin from
    /// `/dev/null`, the given stdout/stderr, the extension socket at fd 3, and
    /// no other descriptor; a PID namespace of its own when asked for and root.
    public static func spawn(_ request: SpawnRequest) throws(SpawnError) -> SpawnedProcess {
        let executablePath = try ExecutableLookup.resolve(request.executable, environment: request.environment)
        let path = try CStringList([executablePath], what: "executable")
        let argv = try CStringList([request.executable] + request.arguments, what: "argument")
        let envp = try CStringList(try environmentEntries(request.environment), what: "environment")
        let workingDirectory = try request.workingDirectory.map { (directory) throws(SpawnError) in
            try CStringList([directory], what: "working directory")
        }
        var credentials = try Credentials.resolve(user: request.user, group: request.group)
        if !request.supplementaryGroups.isEmpty {
            let base = credentials ?? Credentials(uid: getuid(), gid: getgid(), groups: [getgid()])
            credentials = Credentials(uid: base.uid, gid: base.gid, groups: base.groups + request.supplementaryGroups.filter { !base.groups.contains($0) })
        }
        var seccompProgram: UnsafeRawPointer?
        if request.sandbox?.denySystemCalls == true {
            seccompProgram = ext_seccomp_deny_list()
            guard seccompProgram != nil else { throw SpawnError(.seccompProgram, "for this architecture", errno: errno) }
        }

        var taskFiles: CStringList?
        var taskDirectories: [Int32] = []
        var taskDescriptors: [Int32] = []
        var cgroupDirectory: Int32 = -1
        defer { if cgroupDirectory >= 0 { close(cgroupDirectory) } }
        switch request.cgroup {
        case .inherit:
            break
        case .cloneInto(let directory):
            cgroupDirectory = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard cgroupDirectory >= 0 else { throw SpawnError(.openCgroup, directory, errno: errno) }
        case .joinBeforeExec(let files):
            taskFiles = try CStringList(files.map(\.relativePath), what: "cgroup tasks path")
            taskDirectories = files.map(\.directory)
        case .joinOpened(let files, let descriptors):
            taskFiles = try CStringList(files.map(\.relativePath), what: "cgroup tasks path")
            taskDescriptors = descriptors
        }

        var cRequest = ext_spawn_request()
        cRequest.path = path.first
        cRequest.argv = UnsafePointer(argv.pointers)
        cRequest.envp = UnsafePointer(envp.pointers)
        cRequest.working_directory = workingDirectory?.first
        cRequest.cgroup_directory_fd = cgroupDirectory
        cRequest.cgroup_task_files = taskFiles?.constPointers
        cRequest.set_oom_score_adj = request.oomScoreAdjustment == nil ? 0 : 1
        cRequest.oom_score_adj = request.oomScoreAdjustment ?? 0
        cRequest.set_credentials = credentials == nil ? 0 : 1
        cRequest.uid = credentials?.uid ?? 0
        cRequest.gid = credentials?.gid ?? 0
        cRequest.stdout_fd = request.standardOutput ?? -1
        cRequest.stderr_fd = request.standardError ?? -1
        cRequest.extension_fd = request.extensionSocket ?? -1
        cRequest.new_pid_namespace = request.pidNamespaceWhenRoot && (credentials?.uid ?? geteuid()) == 0 ? 1 : 0
        cRequest.no_new_privs = request.sandbox == nil ? 0 : 1
        cRequest.isolate_network = request.sandbox?.isolateNetwork == true ? 1 : 0
        cRequest.landlock_ruleset_fd = request.sandbox?.fileSystem?.fileDescriptor ?? -1
        cRequest.seccomp_program = seccompProgram

        var result = ext_spawn_result()
        let groups = credentials?.groups ?? []
        let status = groups.withUnsafeBufferPointer { buffer in
            cRequest.groups = buffer.baseAddress
            cRequest.group_count = buffer.count
            return taskDirectories.withUnsafeBufferPointer { directories in
                cRequest.cgroup_task_directories = directories.isEmpty ? nil : directories.baseAddress
                return taskDescriptors.withUnsafeBufferPointer { descriptors in
                    cRequest.cgroup_task_fds = descriptors.isEmpty ? nil : descriptors.baseAddress
                    return ext_spawn(&cRequest, &result)
                }
            }
        }
        // Keep the strings alive until the child has exec'ed.
        withExtendedLifetime((path, argv, envp, workingDirectory, taskFiles, request.sandbox)) {}
        guard status == 0 else {
            throw failure(of: result, request: request, executablePath: executablePath)
        }
        let uid = credentials?.uid ?? geteuid()
        return SpawnedProcess(
            descriptor: ProcessDescriptor(adopting: result.pidfd, pid: result.pid),
            mayLeaveItsGroup: uid == geteuid() || (uid == 0 && cRequest.new_pid_namespace == 0))
    }

    private static func environmentEntries(_ environment: [String: String]) throws(SpawnError) -> [String] {
        for name in environment.keys where name.isEmpty || name.utf8.contains(UInt8(ascii: "=")) {
            throw SpawnError(.invalidArgument, "environment variable \(name.debugDescription)", reason: "a name must be non-empty and without '='")
        }
        // In byte order, as deterministic as `String`'s, whose comparison of canonical
        // forms was half the cost of the environment (bench/README.md, "The launch floor,
        // sixth pass").
        return environment.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map { "\($0.key)=\($0.value)" }
    }

    /// Names the failed step with what it acted on.
    private static func failure(of result: ext_spawn_result, request: SpawnRequest, executablePath: String) -> SpawnError {
        let child = executablePath
        let subject: (SpawnError.Step, String) =
            switch result.failed_step {
            case EXT_SPAWN_STEP_PIPE: (.reportPipe, "for \(child)")
            case EXT_SPAWN_STEP_SLOTS: (.descriptorSlots, child)
            case EXT_SPAWN_STEP_CLONE: (.clone, cloneSubject(request.cgroup, child: child))
            case EXT_SPAWN_STEP_PIDFD: (.processDescriptor, child)
            case EXT_SPAWN_STEP_SIGNALS: (.resetSignals, result.detail > 0 ? "\(child) (signal \(result.detail))" : child)
            case EXT_SPAWN_STEP_SETSID: (.newSession, child)
            case EXT_SPAWN_STEP_PARENT_DEATH: (.parentDeathSignal, child)
            case EXT_SPAWN_STEP_CGROUP: (.joinCgroup, taskFile(request.cgroup, index: Int(result.detail)))
            case EXT_SPAWN_STEP_OOM_SCORE_ADJ: (.oomScoreAdjustment, "\(request.oomScoreAdjustment ?? 0)")
            case EXT_SPAWN_STEP_SETGROUPS: (.supplementaryGroups, "of user \(request.user ?? "\(getuid())")")
            case EXT_SPAWN_STEP_SETGID: (.groupID, request.group ?? request.user ?? "")
            case EXT_SPAWN_STEP_SETUID: (.userID, request.user ?? "")
            case EXT_SPAWN_STEP_CHDIR: (.workingDirectory, request.workingDirectory ?? "")
            case EXT_SPAWN_STEP_STDIO: (.standardIO, child)
            case EXT_SPAWN_STEP_EXTENSION_FD: (.extensionSocket, child)
            case EXT_SPAWN_STEP_CLOSE_FDS: (.closeDescriptors, child)
            case EXT_SPAWN_STEP_NETWORK: (.isolateNetwork, child)
            case EXT_SPAWN_STEP_NO_NEW_PRIVS: (.noNewPrivileges, child)
            case EXT_SPAWN_STEP_LANDLOCK: (.landlock, "\(child) (ABI \(request.sandbox?.fileSystem?.abi ?? 0))")
            case EXT_SPAWN_STEP_SECCOMP: (.seccomp, child)
            default: (.exec, child)
            }
        return SpawnError(subject.0, subject.1, errno: result.error)
    }

    private static func cloneSubject(_ placement: SpawnRequest.CgroupPlacement, child: String) -> String {
        if case .cloneInto(let directory) = placement { return "\(child) into cgroup \(directory)" }
        return child
    }

    private static func taskFile(_ placement: SpawnRequest.CgroupPlacement, index: Int) -> String {
        switch placement {
        case .joinBeforeExec(let files) where files.indices.contains(index), .joinOpened(let files, _) where files.indices.contains(index):
            files[index].path
        default:
            "#\(index)"
        }
    }
}
