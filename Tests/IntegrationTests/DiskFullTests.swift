import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Glibc
import Testing

/// `state_dir` on a file system that fills up (issue 8, item 10): a real tmpfs mounted
/// at the test daemon's `state_dir` and filled by the test. Every failed save is an event
/// and a `status` line, versions never go backwards, captured output is dropped in whole
/// lines and counted, and a deleted log file is not kept allocated.
@Suite(.serialized) struct DiskFullTests {
    /// Prints numbered lines of 100 bytes of padding every 5 ms.
    static let talker = """
        [hosts.talker]
        command = ["/bin/sh", "-c", "i=0; while :; do i=$((i+1)); echo \\"line $i \(String(repeating: "x", count: 100))\\"; sleep 0.005; done"]
        """

    @Test func failedSavesAreEventsAndStatusLinesAndNoVersionGoesBackwards() throws {
        let daemon = try TestDaemon()
        let disk = try Tmpfs(at: daemon.stateDirectory, size: 4 << 20)
        defer { disk.unmount() }
        let blank = try ScriptedExtension.command(.noContent, in: daemon.directory)
        try daemon.writeConfig(
            try StateDirectoryTests.config(daemon) + """

                [extensions.blank]
                app = "mine"
                point = "widget"
                command = \(blank)
                """)
        try daemon.start()
        var acknowledged = try #require(try StateDirectoryTests.pull(daemon)).version
        #expect(try StateDirectoryTests.defaults(daemon, ["set", "a", "1"]).ok)

        try disk.fill()
        let refused = try StateDirectoryTests.defaults(daemon, ["set", "a", "2"])
        #expect(!refused.ok && (refused.error ?? "").contains("could not save the shared defaults"), "\(refused)")
        acknowledged = try pull(daemon, times: 5, after: acknowledged)
        #expect(try daemon.control(.start(NameSelection(["blank"]))).ok)
        #expect(
            try eventually(timeout: 10) {
                try error(daemon, "counter")?.contains("could not save the snapshot") == true
                    && error(daemon, "blank")?.contains("could not save hasContent") == true
                    && error(daemon, "mine")?.contains("the shared defaults of group.mine could not be saved") == true
            }, "status: \((try? daemon.control(.status(NameSelection(["counter", "blank", "mine"]))).status) ?? nil ?? [])")
        let failures = try storageEvents(daemon).filter { $0.kind == .error }
        #expect(failures.contains { $0.name == "counter" && $0.message.contains("No space left on device") }, "\(failures)")
        #expect(failures.contains { $0.name == "blank" && $0.message.contains("hasContent") }, "\(failures)")
        #expect(failures.contains { $0.name == nil && $0.message.contains("group.mine") }, "\(failures)")
        #expect(failures.count == 3, "one event per failing save, not one per retry: \(failures)")

        // Room again: the retries succeed and say so, and the status lines clear.
        disk.free()
        #expect(try StateDirectoryTests.defaults(daemon, ["set", "a", "3"]).ok)
        #expect(try error(daemon, "mine") == nil)
        #expect(
            try eventually(timeout: 10) {
                try error(daemon, "counter") == nil && error(daemon, "blank") == nil
            }, "\((try? error(daemon, "counter")) ?? nil ?? "") | \((try? error(daemon, "blank")) ?? nil ?? "")")
        let recoveries = try storageEvents(daemon).filter { $0.kind == .cleanup }
        #expect(Set(recoveries.map { $0.name ?? "group.mine" }) == ["counter", "blank", "group.mine"], "\(recoveries)")

        // Full again, then killed: the restarted daemon shows no version below one a
        // host was given, although the last snapshots never reached the disk.
        try disk.fill()
        acknowledged = try pull(daemon, times: 5, after: acknowledged)
        daemon.process?.signal(SIGKILL)
        #expect(daemon.process?.wait(timeout: 5) != nil)
        let restarted = TestDaemon(restarting: daemon)
        try restarted.start()
        let first = try #require(try StateDirectoryTests.pull(restarted))
        #expect(first.version >= acknowledged, "version \(first.version) after \(acknowledged) was acknowledged")
        if first.result == "newData" { #expect(first.version > acknowledged) }
        #expect(try StateDirectoryTests.defaults(restarted, ["get", "a"]).message == "3")
        disk.free()
        #expect(restarted.stop() == 0)
    }

    @Test func aVersionFileThatCannotBeMadeIsAnEventAndAStatusLine() throws {
        let daemon = try TestDaemon()
        let disk = try Tmpfs(at: daemon.stateDirectory, size: 4 << 20)
        defer { disk.unmount() }
        let config = try StateDirectoryTests.config(daemon)
        try daemon.writeConfig(config)
        try daemon.start()
        try disk.fill()
        // An extension added while the disk is full gets no version file.
        let late = try ScriptedExtension.command(.answer, in: daemon.directory, reload: "never")
        try daemon.writeConfig(
            config + """

                [extensions.late]
                app = "mine"
                point = "widget"
                command = \(late)

                [extensions.late.refresh]
                \(ExtensionProtocolTests.pullsUpdate)
                """)
        #expect(try daemon.control(.reload).ok)
        #expect(try error(daemon, "late")?.contains("could not record version") == true)
        #expect(try storageEvents(daemon).contains { $0.kind == .error && $0.name == "late" && $0.message.contains("late.version") })

        disk.free()
        var acknowledged: UInt64 = 0
        #expect(
            try eventually(timeout: 10) {
                acknowledged = max(acknowledged, try daemon.control(.pull(PullRequest(name: "late"))).pull?.version ?? 0)
                return try error(daemon, "late") == nil
            })
        #expect(daemon.stop() == 0)
        let restarted = TestDaemon(restarting: daemon)
        try restarted.start()
        let first = try #require(try restarted.control(.pull(PullRequest(name: "late"))).pull)
        #expect(first.version >= acknowledged && acknowledged > 0, "version \(first.version) after \(acknowledged)")
        #expect(restarted.stop() == 0)
    }

    @Test func outputThatCannotBeWrittenIsDroppedInWholeLinesAndCounted() throws {
        let daemon = try TestDaemon(config: Self.talker, supervisor: "log_max_size = \"64M\"")
        let disk = try Tmpfs(at: daemon.stateDirectory, size: 4 << 20)
        defer { disk.unmount() }
        try daemon.start()
        let log = daemon.stateDirectory + "/logs/talker.log"
        #expect(eventually(timeout: 10) { lines(of: log).count >= 20 })

        try disk.fill()
        #expect(try eventually(timeout: 10) { try outputEvents(daemon).contains { $0.message.contains("dropping stdout lines") } })
        usleep(300_000)
        disk.free()
        var dropped: (lines: Int, bytes: Int)?
        #expect(
            try eventually(timeout: 10) {
                dropped = try outputEvents(daemon).lazy.compactMap(Self.droppedCount).first
                return dropped != nil
            }, "\((try? outputEvents(daemon)) ?? [])")
        usleep(200_000)
        #expect(daemon.stop() == 0)

        // Every line in the file is whole, and the gaps in the numbering are exactly the
        // lines the event counted.
        let written = lines(of: log)
        var numbers: [Int] = []
        for line in written {
            let fields = line.split(separator: " ")
            #expect(fields.count == 4 && fields[1] == "line" && fields[3].count == 100 && fields[3].allSatisfy { $0 == "x" }, "torn line: \(line)")
            if fields.count == 4, let number = Int(fields[2]) { numbers.append(number) }
        }
        let gaps = zip(numbers, numbers.dropFirst()).map { $1 - $0 - 1 }
        #expect(gaps.allSatisfy { $0 >= 0 })
        let missing = gaps.reduce(0, +)
        #expect(missing > 0 && missing == dropped?.lines, "\(missing) lines missing, \(dropped.map { "\($0.lines)" } ?? "none") reported")
        // A dropped line is its stamp (27 bytes), a space, "line N " and the padding.
        #expect((dropped?.bytes ?? 0) > missing * 100)
    }

    @Test func aDeletedLogFileIsNotKeptOpen() throws {
        let daemon = try TestDaemon(config: Self.talker, supervisor: "log_max_size = \"64M\"")
        try daemon.start()
        let pid = try #require(daemon.process?.pid)
        let log = daemon.stateDirectory + "/logs/talker.log"
        #expect(eventually(timeout: 10) { lines(of: log).count >= 5 })
        #expect(unlink(log) == 0)
        #expect(eventually(timeout: 5) { lines(of: log).count >= 5 }, "the daemon writes to a new file under the name")
        #expect(deletedFiles(openBy: pid).isEmpty, "\(deletedFiles(openBy: pid))")
    }

    // MARK: Helpers

    /// Pulls `times` times, 300 ms apart (every pull after 100 ms updates); returns the
    /// highest version acknowledged, which never fell below `previous`.
    private func pull(_ daemon: TestDaemon, times: Int, after previous: UInt64) throws -> UInt64 {
        var highest = previous
        for _ in 0..<times {
            let report = try #require(try StateDirectoryTests.pull(daemon))
            #expect(report.version >= highest, "version \(report.version) after \(highest)")
            highest = max(highest, report.version)
            usleep(300_000)
        }
        return highest
    }

    private func error(_ daemon: TestDaemon, _ name: String) throws -> String? {
        try daemon.control(.status(NameSelection([name]))).status?.first?.error
    }

    private func storageEvents(_ daemon: TestDaemon) throws -> [EventRecord] {
        try daemon.control(.events(LogRequest(lines: 200))).events?.filter { $0.reason == "storage" } ?? []
    }

    private func outputEvents(_ daemon: TestDaemon) throws -> [EventRecord] {
        try daemon.control(.events(LogRequest(lines: 200))).events?.filter { $0.reason == "output" && $0.name == "talker" } ?? []
    }

    /// "dropped N stdout line(s) (M bytes) …" as (N, M).
    private static func droppedCount(_ event: EventRecord) -> (lines: Int, bytes: Int)? {
        let words = event.message.split(separator: " ")
        guard words.count > 4, words[0] == "dropped", let lines = Int(words[1]),
            let bytes = Int(words[4].dropFirst())
        else { return nil }
        return (lines, bytes)
    }

    private func lines(of path: String) -> [Substring] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n")
    }

    /// The files `pid` holds open that no longer have a name.
    private func deletedFiles(openBy pid: pid_t) -> [String] {
        let directory = "/proc/\(pid)/fd"
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).compactMap { fd in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + fd)).flatMap { $0.hasSuffix(" (deleted)") ? $0 : nil }
        }
    }
}

/// A tmpfs of `size` bytes mounted at a directory for one test (the tests run as root),
/// which the test fills and frees; unmounted when released.
final class Tmpfs {
    let path: String
    private var filler: String { path + "/filler" }

    init(at path: String, size: Int) throws {
        self.path = path
        mkdir(path, 0o755)
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(size),mode=755") == 0 else {
            throw TestSupportError("mount a tmpfs at \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit { unmount() }

    /// Detaches the file system (the daemon may still have files open on it); idempotent.
    func unmount() {
        umount2(path, Int32(MNT_DETACH))
    }

    /// Writes a file until the file system has no room left.
    func fill() throws {
        let fd = open(filler, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw TestSupportError("open \(filler): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0x66, count: 4096)
        while true {
            let written = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 { break }
        }
        guard errno == ENOSPC else { throw TestSupportError("fill \(path): \(String(cString: strerror(errno)))") }
    }

    func free() {
        unlink(filler)
    }
}
