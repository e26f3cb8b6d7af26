import Cgroup
import ExtensiondTestSupport
import LinuxProcess

#if canImport(Glibc)
import Glibc
#endif

/// A v1 tree in a fresh sandbox; the sandbox kills and removes everything when released.
struct LegacyFixture {
    let sandbox: CgroupSandbox
    let tree: CgroupTree

    init() throws {
        sandbox = try CgroupSandbox()
        tree = CgroupTree(memoryRoot: sandbox.memoryDirectory, pidsRoot: sandbox.pidsDirectory, freezerRoot: sandbox.freezerDirectory)
        try tree.prepare()
    }
}

/// Starts `/bin/sh -c script` in `group`, with an extension-like oom_score_adj.
func spawnShell(_ script: String, in group: ControlGroup, output: Int32? = nil) throws -> SpawnedProcess {
    try Spawner.spawn(
        SpawnRequest(
            executable: "/bin/sh", arguments: ["-c", script],
            cgroup: group.spawnPlacement, oomScoreAdjustment: 1000, standardOutput: output
        ))
}

/// Kills and reaps a child the test started, whatever state it is in.
func reap(_ process: SpawnedProcess) {
    try? process.descriptor.send(signal: SIGKILL)
    _ = try? process.descriptor.waitForExit()
}

/// Whether `pid` is gone or only a zombie (this container's init does not reap orphans).
func isNotRunning(_ pid: pid_t) -> Bool {
    guard let stat = readTextFile("/proc/\(pid)/stat"), let state = stat.split(separator: ")").last?.split(separator: " ").first else {
        return true
    }
    return state == "Z" || state == "X"
}

func directoryExists(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
}
