import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing
import WireProtocol

/// `state_dir` under crashes, planted links and a full disk: every file stays readable,
/// nothing is written through a link, and no version goes backwards (issue 8, cases 10, 11).
@Suite(.serialized) struct StateDirectoryTests {
    static let widget = "counter"

    /// An app with the group `group.mine`, and a widget whose every pull after 100 ms updates.
    static func config(_ daemon: TestDaemon) throws -> String {
        let command = try ScriptedExtension.command(.answer, in: daemon.directory, reload: "never")
        return """
            [apps.mine]
            command = ["/bin/sleep", "1000"]
            groups = ["group.mine"]

            [extensions.\(widget)]
            app = "mine"
            point = "widget"
            command = \(command)

            [extensions.\(widget).refresh]
            \(ExtensionProtocolTests.pullsUpdate)
            """
    }

    static func defaults(_ daemon: TestDaemon, _ arguments: [String]) throws -> ControlResponse {
        let operation = try #require(DefaultsOperation(rawValue: arguments[0]))
        let value = arguments.count > 2 ? JSONValue.number(try #require(Double(arguments[2]))) : nil
        return try daemon.control(.defaults(DefaultsRequest(group: "group.mine", operation: operation, key: arguments[1], value: value)))
    }

    static func pull(_ daemon: TestDaemon) throws -> PullReport? {
        try daemon.control(.pull(PullRequest(name: widget))).pull
    }

    /// Every file below `state_dir` whose name ends with `suffix`.
    static func files(_ daemon: TestDaemon, endingWith suffix: String) -> [String] {
        let root = daemon.stateDirectory
        let names = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        return names.filter { $0.hasSuffix(suffix) }.map { root + "/" + $0 }
    }

    /// The inode of `path` (0: none).
    static func inode(_ path: String) -> UInt {
        var info = stat()
        return lstat(path, &info) == 0 ? UInt(info.st_ino) : 0
    }

    @Test func twentySIGKILLsDuringWritesLeaveReadableFilesAndNoVersionBelowTheLastAcknowledged() throws {
        var daemon = try TestDaemon()
        try daemon.writeConfig(try Self.config(daemon))
        var random = SeededRandom(seed: 8_011)
        var acknowledgedCount = 0
        var acknowledgedVersion: UInt64 = 0
        // Round 20 only checks what the 20th kill left.
        for round in 0...20 {
            // What the kill left; a started daemon's own writes go through the same names.
            let leftovers = Self.files(daemon, endingWith: ".tmp").map { ($0, Self.inode($0)) }
            try daemon.start()
            for (file, inode) in leftovers { #expect(Self.inode(file) != inode, "round \(round): \(file) left over") }
            #expect(eventually(timeout: 5) { Self.files(daemon, endingWith: ".tmp").isEmpty }, "round \(round): \(Self.files(daemon, endingWith: ".tmp"))")
            for file in Self.files(daemon, endingWith: ".json") {
                let data = try Data(contentsOf: URL(fileURLWithPath: file))
                #expect((try? JSONSerialization.jsonObject(with: data)) != nil, "round \(round): \(file) is not JSON")
            }
            let stored = try Self.defaults(daemon, ["get", "count"]).message.flatMap(Int.init) ?? 0
            #expect(stored >= acknowledgedCount, "round \(round): count \(stored) < acknowledged \(acknowledgedCount)")
            let first = try #require(try Self.pull(daemon))
            #expect(first.version >= acknowledgedVersion, "round \(round): version \(first.version) < acknowledged \(acknowledgedVersion)")
            if first.result == "newData" { #expect(first.version > acknowledgedVersion) }
            acknowledgedVersion = max(acknowledgedVersion, first.version)
            guard round < 20 else { break }

            // Writes until the daemon is gone; it is killed after a random 50–400 ms.
            let process = try #require(daemon.process)
            let delay = Double.random(in: 0.05...0.4, using: &random)
            let killer = Thread {
                Thread.sleep(forTimeInterval: delay); process.signal(SIGKILL)
            }
            killer.start()
            var next = stored
            while true {
                next += 1
                guard let set = try? Self.defaults(daemon, ["set", "count", "\(next)"]), set.ok else { break }
                acknowledgedCount = next
                guard let report = try? Self.pull(daemon) else { break }
                acknowledgedVersion = max(acknowledgedVersion, report.version)
                Thread.sleep(forTimeInterval: 0.11)
            }
            #expect(process.wait(timeout: 5) != nil)
            daemon = TestDaemon(restarting: daemon)
        }
        #expect(acknowledgedVersion > 20 && acknowledgedCount > 20)
    }

    @Test func aLinkPlantedAtATemporaryNameIsNeverFollowed() throws {
        let daemon = try TestDaemon()
        try daemon.writeConfig(try Self.config(daemon))
        try daemon.start()
        #expect(try Self.defaults(daemon, ["set", "a", "1"]).ok)
        let target = try daemon.directory.write("target", "untouched")
        let planted = [daemon.stateDirectory + "/defaults/group.mine.json.tmp", daemon.stateDirectory + "/enabled.json.tmp"]
        for link in planted { #expect(symlink(target, link) == 0) }

        #expect(try Self.defaults(daemon, ["set", "a", "2"]).ok)
        #expect(try daemon.control(.disable(NameSelection([Self.widget]))).ok)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "untouched")
        for link in planted {
            var info = stat()
            #expect(lstat(link, &info) != 0, "\(link) is still there")
        }
        let defaults = try String(contentsOfFile: daemon.stateDirectory + "/defaults/group.mine.json", encoding: .utf8)
        #expect(defaults.contains("\"a\":2"), "\(defaults)")
    }

    @Test func leftoverTemporaryFilesAreRemovedAtStart() throws {
        let daemon = try TestDaemon()
        try daemon.writeConfig(try Self.config(daemon))
        try daemon.start()
        #expect(try Self.defaults(daemon, ["set", "a", "1"]).ok)
        #expect(daemon.stop() == 0)
        let target = try daemon.directory.write("target", "untouched")
        let leftovers = ["/extensions/\(Self.widget).json.tmp", "/defaults/group.mine.json.tmp", "/enabled.json.tmp"]
            .map { daemon.stateDirectory + $0 }
        try "{\"torn".write(toFile: leftovers[0], atomically: false, encoding: .utf8)
        try "{".write(toFile: leftovers[1], atomically: false, encoding: .utf8)
        #expect(symlink(target, leftovers[2]) == 0)

        let restarted = TestDaemon(restarting: daemon)
        try restarted.start()
        #expect(Self.files(restarted, endingWith: ".tmp").isEmpty)
        var info = stat()
        #expect(lstat(leftovers[2], &info) != 0)
        let cleanups = try restarted.control(.events(LogRequest(lines: 100))).events?.filter { $0.kind == .cleanup } ?? []
        #expect(cleanups.filter { $0.message.contains(".tmp") }.count == 3, "\(cleanups)")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "untouched")
    }
}
