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
        tree = CgroupTree(memoryRoot: sandbox.memoryDirectory, pidsRoot: sandbox.pidsDirectory)
        try tree.prepare()
    }
}

/// Starts `/bin/sh -c script` in `group`, with an extension-like oom_score_adj.
func spawnShell(_ script: String, in group: ControlGroup, output: Int32? = nil) throws -> SpawnedProcess {
    try Spawner.spawn(SpawnRequest(
        executable: "/bin/sh", arguments: ["-c", script],
        cgroup: group.spawnPlacement, oomScoreAdjustment: 1000, standardOutput: output
    ))
}

/// Kills and reaps a child the test started, whatever state it is in.
func reap(_ process: SpawnedProcess) {
    try? process.descriptor.send(signal: SIGKILL)
    _ = try? process.descriptor.waitForExit()
}

/// A connected socket pair (close-on-exec), closed at the end of the test.
final class OutputChannel {
    let readEnd: Int32
    private(set) var writeEnd: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
        readEnd = fds[0]
        writeEnd = fds[1]
    }

    /// Reads until `count` lines have arrived or the writers are gone.
    func readLines(_ count: Int) -> [String] {
        if writeEnd >= 0 { close(writeEnd); writeEnd = -1 }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.filter({ $0 == UInt8(ascii: "\n") }).count < count {
            let result = read(readEnd, &byte, 1)
            if result < 0 && errno == EINTR { continue }
            if result <= 0 { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    deinit {
        close(readEnd)
        if writeEnd >= 0 { close(writeEnd) }
    }
}

/// The text of a file, or nil when it cannot be read.
func fileText(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(fd, &chunk, chunk.count)
        if count <= 0 { return String(decoding: bytes, as: UTF8.self) }
        bytes += chunk[..<count]
    }
}

/// Whether `pid` is gone or only a zombie (this container's init does not reap orphans).
func isNotRunning(_ pid: pid_t) -> Bool {
    guard let stat = fileText("/proc/\(pid)/stat"), let state = stat.split(separator: ")").last?.split(separator: " ").first else {
        return true
    }
    return state == "Z" || state == "X"
}

func directoryExists(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
}
