import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Glibc
import Testing
import WireProtocol

/// The daemon at its open-file limit: no busy loop, control.sock answers, and a launch
/// that fails for want of descriptors leaves no cgroup behind (issue 8, case 6).
@Suite struct DescriptorExhaustionTests {
    /// Sets the running daemon's soft open-file limit (`ulimit -Sn`; raising the hard one needs CAP_SYS_RESOURCE).
    static func limitFiles(_ daemon: TestDaemon, to count: Int) throws {
        let pid = try #require(daemon.process?.pid)
        let result = try runCommand("/usr/bin/prlimit", ["--pid", "\(pid)", "--nofile=\(count):"], in: daemon.directory)
        #expect(result.exitCode == 0, "\(result.stderr)")
    }

    static func openFiles(_ daemon: TestDaemon) throws -> Int {
        let pid = try #require(daemon.process?.pid)
        return try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
    }

    /// User plus system CPU time of `pid`, in clock ticks.
    static func cpuTicks(_ pid: pid_t) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
        return try #require(Int(fields[11])) + (try #require(Int(fields[12])))
    }

    /// Started with 56 stray descriptors, as a parent (here the test runner, whose parallel
    /// tests hold descriptors without FD_CLOEXEC when it spawns) may leak into it: kept, they
    /// alone left the daemon past the limit below, and control.sock silent (1 of 3 runs).
    @Test func a120HostsAt64FilesNeitherSpinNorSilenceTheControlSocket() throws {
        let daemon = try TestDaemon()
        let stray = (0..<56).map { _ in open("/dev/null", O_RDONLY | O_CLOEXEC) }
        defer { for fd in stray { close(fd) } }
        try daemon.start(passing: stray)
        #expect(try Self.openFiles(daemon) < 32, "inherited descriptors kept")
        try Self.limitFiles(daemon, to: 64)
        var hosts: [Int32] = []
        defer { for fd in hosts { close(fd) } }
        for _ in 0..<120 {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(daemon.hostSocket.utf8)) }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            #expect(connected == 0)
            hosts.append(fd)
        }
        let pid = try #require(daemon.process?.pid)
        Thread.sleep(forTimeInterval: 0.5)
        let before = try Self.cpuTicks(pid)
        Thread.sleep(forTimeInterval: 2)
        let spent = try Self.cpuTicks(pid) - before
        #expect(spent < 40, "the daemon used \(spent) ticks of CPU in 2 s with 120 hosts connected")
        #expect(try Self.openFiles(daemon) <= 64)

        let started = Date()
        #expect(try daemon.control(.status(NameSelection([]))).ok)
        #expect(Date().timeIntervalSince(started) < 1)
        let events = try daemon.control(.events(LogRequest(lines: 100))).events ?? []
        #expect(events.filter { $0.reason == "host-limit" }.count == 1, "\(events)")

        // Once the hosts go, a new one is served.
        for fd in hosts { close(fd) }
        hosts.removeAll()
        #expect(try eventually { try Self.openFiles(daemon) < 40 })
        let host = try daemon.connectHost()
        try host.send(.list(.init(id: RequestID(rawValue: 1))))
        if case .extensions = try host.receive() {} else { Issue.record("no answer to list") }
    }

    @Test func aLaunchThatRunsOutOfDescriptorsLeavesNoCgroup() throws {
        let daemon = try TestDaemon()
        let command = try ScriptedExtension.command(.answer, in: daemon.directory)
        try daemon.writeConfig(
            """
            [apps.mine]
            command = ["/bin/sleep", "1000"]

            [extensions.starved]
            app = "mine"
            point = "widget"
            command = \(command)
            """)
        try daemon.start()
        // Its data volume is made beside the loop first: each launch below then runs at once.
        let data = daemon.stateDirectory + "/data/starved"
        #expect(eventually(timeout: 60) { DiskQuotaTests.mounts(below: daemon.stateDirectory).contains(data) })
        let group = daemon.sandbox.memoryDirectory + "/extensions/starved"
        var failures = 0
        // Every limit from "no descriptor at all" to "enough": each launch step runs out once.
        let open = try Self.openFiles(daemon)
        for extra in 0...8 {
            try Self.limitFiles(daemon, to: open + extra)
            // At the lowest limits the request itself is refused: nothing was launched.
            let answer = try? daemon.control(.start(NameSelection(["starved"])))
            try Self.limitFiles(daemon, to: 4096)
            guard let started = answer else { continue }
            if started.ok {
                #expect(try daemon.control(.stop(NameSelection(["starved"]))).ok)
            } else {
                failures += 1
            }
            // Removed at once, or as soon as descriptors are back (removal reads directories).
            #expect(
                eventually { !FileManager.default.fileExists(atPath: group) },
                "limit \(open + extra): \(started.error ?? "")\n\((try? daemon.control(.events(LogRequest(lines: 10))).events?.map(\.message)) ?? [])")
        }
        #expect(failures > 0)
        #expect(try daemon.control(.start(NameSelection(["starved"]))).ok)
    }

    /// The descriptor table is grown at start for every configured process running at once
    /// (8 descriptors each): grown later, while a thread or a spawned child shares it, each
    /// doubling waits for an RCU grace period.
    @Test func theDescriptorTableHoldsEveryConfiguredProcessFromTheStart() throws {
        let extensions = (0..<300).map { "\n\n[extensions.e\($0)]\napp = \"a\"\npoint = \"widget\"\ncommand = [\"/bin/true\"]" }
        let daemon = try TestDaemon(config: "[apps.a]\ncommand = [\"/bin/sleep\", \"1000\"]" + extensions.joined())
        try daemon.start()
        let pid = try #require(daemon.process?.pid)
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let size = status.split(separator: "\n").first { $0.hasPrefix("FDSize:") }.flatMap { Int($0.split(separator: "\t").last ?? "") }
        #expect(try #require(size) >= 64 + 8 * 301)
        #expect(daemon.stop() == 0)
    }
}
