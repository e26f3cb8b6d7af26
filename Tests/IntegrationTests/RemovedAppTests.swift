import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing
import WireProtocol

/// An app removed from the config (issue 19, case 14): what it left (snapshots, data
/// directories, group containers, shared defaults, its uid) is set aside tagged with the
/// removed app, so that a new app given the same id starts fresh; it is purged by
/// `supervisorctl purge APP`, or after `removed_data_keep`.
@Suite struct RemovedAppTests {
    static func config(_ widget: String, app: Bool) -> String {
        guard app else { return "" }
        return """
            [apps.a]
            command = ["/bin/sleep", "1000"]
            groups = ["group.a"]

            [extensions."a.w"]
            app = "a"
            point = "widget"
            command = \(widget)

            [extensions."a.w".refresh]
            pull_cooldown = "0s"
            """
    }

    static func identities(_ daemon: TestDaemon) throws -> [String: UInt32] {
        try JSONCoding.decode([String: UInt32].self, from: Array(Data(contentsOf: URL(fileURLWithPath: daemon.stateDirectory + "/identities.json"))))
    }

    static func defaultsValue(_ daemon: TestDaemon) throws -> String? {
        try daemon.control(.defaults(DefaultsRequest(group: "group.a", operation: .get, key: "k"))).message
    }

    /// Uses the app: a snapshot, shared defaults, a file in its container.
    static func use(_ daemon: TestDaemon) throws -> PullReport? {
        let report = try daemon.control(.pull(PullRequest(name: "a.w"))).pull
        #expect(try daemon.control(.defaults(DefaultsRequest(group: "group.a", operation: .set, key: "k", value: .number(1)))).ok)
        return report
    }

    @Test func aNewAppWithARemovedOnesIdStartsFreshUntilThePurge() throws {
        let daemon = try TestDaemon()
        let widget = try ScriptedExtension.command(.answer, in: daemon.directory)
        try daemon.writeConfig(Self.config(widget, app: true))
        try daemon.start()
        #expect(try Self.use(daemon)?.version == 1)
        #expect(try Self.defaultsValue(daemon) == "1")
        let state = daemon.stateDirectory
        let oldUID = try #require(try Self.identities(daemon)["app:a"])

        // Removed: everything it left is set aside, tagged.
        try daemon.writeConfig(Self.config(widget, app: false))
        #expect(try daemon.control(.reload).ok)
        let kept = state + "/removed/a"
        #expect(FileManager.default.fileExists(atPath: kept + "/removed.json"))
        #expect(FileManager.default.fileExists(atPath: kept + "/defaults/group.a.json"))
        #expect(!FileManager.default.fileExists(atPath: state + "/defaults/group.a.json"))
        #expect(try Self.identities(daemon)["removed:app:a"] == oldUID)

        // A new app with the same id: a fresh snapshot history, no defaults, another uid.
        try daemon.writeConfig(Self.config(widget, app: true))
        #expect(try daemon.control(.reload).ok)
        let value = try Self.defaultsValue(daemon)
        #expect(value != "1", "the removed app's defaults came back: \(value ?? "nil")")
        let fresh = try daemon.control(.pull(PullRequest(name: "a.w"))).pull
        #expect(fresh?.version == 1, "the removed app's snapshot came back: version \(fresh?.version ?? 0) \(fresh?.error ?? "")")
        let newUID = try #require(try Self.identities(daemon)["app:a"])
        #expect(newUID != oldUID)

        // Purged: the kept data and the old uid go; a second purge has nothing to do.
        let purge = try daemon.supervisorctl(["purge", "a"])
        #expect(purge.exitCode == 0, "\(purge.stderr)")
        #expect(!FileManager.default.fileExists(atPath: kept))
        #expect(try Self.identities(daemon)["removed:app:a"] == nil && Self.identities(daemon)["app:a"] == newUID)
        #expect(try daemon.supervisorctl(["purge", "a"]).exitCode != 0)
        let events = try daemon.control(.events(LogRequest(lines: 200))).events ?? []
        #expect(events.contains { $0.kind == .cleanup && $0.message.contains("set aside the data of removed app a") })
    }

    @Test func removedDataIsPurgedAfterItsKeepingTime() throws {
        let daemon = try TestDaemon(supervisor: "removed_data_keep = \"0s\"")
        let widget = try ScriptedExtension.command(.answer, in: daemon.directory)
        try daemon.writeConfig(Self.config(widget, app: true), supervisor: "removed_data_keep = \"0s\"")
        try daemon.start()
        _ = try Self.use(daemon)
        try daemon.writeConfig(Self.config(widget, app: false), supervisor: "removed_data_keep = \"0s\"")
        #expect(try daemon.control(.reload).ok)
        #expect(!FileManager.default.fileExists(atPath: daemon.stateDirectory + "/removed/a"))
        #expect(!FileManager.default.fileExists(atPath: daemon.stateDirectory + "/defaults/group.a.json"))
        #expect(try Self.identities(daemon)["removed:app:a"] == nil && Self.identities(daemon)["app:a"] == nil)
    }
}
