import ControlProtocol
import ExtensiondTestSupport
import Foundation
import WireProtocol

/// A real daemon (in its own cgroup sandbox) with the app `test.app` that owns every
/// extension the test configures.
final class ExtensionTestBed {
    private(set) var daemon: TestDaemon

    static let app = "test.app"

    init() throws {
        daemon = try TestDaemon()
    }

    deinit {
        daemon.stop(timeout: 5)
    }

    /// Where ``ScriptedExtension`` counts the updates of the extension `name`.
    func countFile(_ name: String) -> String {
        daemon.sharedDirectory + "/" + name + ".updates"
    }

    /// A ``ScriptedExtension`` command; see ``ScriptedExtension/command(_:in:countFile:delay:reload:)``.
    func command(_ behaviour: ScriptedExtension.Behaviour, countFile: String? = nil, delay: Double = 0, reload: String = "atEnd") throws -> String {
        try ScriptedExtension.command(behaviour, in: daemon.directory, countFile: countFile, delay: delay, reload: reload)
    }

    /// Writes the config (the app, then `extensions`; `supervisor`: more `[supervisor]`
    /// lines) and starts the daemon.
    func start(_ extensions: String, supervisor: String = "") throws {
        try writeConfig(extensions, supervisor: supervisor)
        try daemon.start()
    }

    /// Writes the config: the app, then `extensions`. Every extension may write the count
    /// files in the shared directory; the rest of its sandbox is the default one.
    func writeConfig(_ extensions: String, supervisor: String = "") throws {
        let app = "[apps.\"\(Self.app)\"]\ncommand = [\"/bin/sleep\", \"1000\"]\n\n"
        let sandbox = "[defaults.sandbox]\nwrite = [\"\(daemon.sharedDirectory)\"]\n\n"
        try daemon.writeConfig(sandbox + app + extensions, supervisor: supervisor)
    }

    /// Stops the daemon, runs `whileStopped`, and starts a new one on the same config and directories.
    func restart(whileStopped: () throws -> Void = {}) throws {
        guard let code = daemon.stop(), code == 0 else { throw TestSupportError("the daemon did not stop cleanly") }
        try whileStopped()
        daemon = TestDaemon(restarting: daemon)
        try daemon.start()
    }

    /// `[extensions.<id>]` of `test.app` with `point`, `command`, other `settings` lines and
    /// a `[refresh]` table of `refresh` lines.
    static func extensionTable(_ id: String, point: String = "widget", command: String, settings: String = "", refresh: String = "") -> String {
        """
        [extensions."\(id)"]
        app = "\(app)"
        point = "\(point)"
        command = \(command)
        \(settings)

        [extensions."\(id)".refresh]
        \(refresh)


        """
    }

    // MARK: The control socket

    /// `supervisorctl pull` as a report; fails the test's expectations through a thrown error.
    func pull(_ id: String, mode: DisplayMode = .compact) throws -> PullReport {
        let response = try daemon.control(.pull(PullRequest(name: id, mode: mode)))
        guard let report = response.pull else { throw TestSupportError("pull \(id) failed: \(response.error ?? "no report")") }
        return report
    }

    func control(_ request: ControlRequest) throws -> ControlResponse {
        try daemon.control(request)
    }

    /// The extension's line of `status`.
    func status(_ id: String) throws -> ProcessStatus? {
        try control(.status(NameSelection([id]))).status?.first
    }

    /// The extension's line of `stats`.
    func stats(_ id: String) throws -> ProcessStats? {
        try control(.stats(NameSelection([id]))).stats?.processes.first
    }

    /// The extension's events and output, for the message of a failed expectation.
    func diagnostics(_ id: String) -> String {
        let events = (try? control(.events(LogRequest(lines: 500))).events) ?? []
        let output = (try? control(.tail(TailRequest(name: id, lines: 50))).lines) ?? []
        return (events.filter { $0.name == id }.map { "event \($0.kind) \($0.reason ?? "-"): \($0.message)" } + output)
            .joined(separator: "\n")
    }

    /// The reasons of the `kind` events of `name`, oldest first.
    func eventReasons(_ kind: EventKind, of name: String) throws -> [String] {
        let events = try control(.events(LogRequest(lines: 500))).events ?? []
        return events.filter { $0.kind == kind && $0.name == name }.compactMap(\.reason)
    }
}

extension PullReport {
    /// The snapshot's `pid` field (``ScriptedExtension``): which process produced it.
    var pid: Int? { snapshot?.field("pid") }
    /// The snapshot's `n` field (``ScriptedExtension``): updates answered by that process.
    var answered: Int? { snapshot?.field("n") }
}

extension JSONValue {
    /// The integer at `key` of an object.
    func field(_ key: String) -> Int? {
        guard case .object(let fields) = self else { return nil }
        return fields[key]?.intValue
    }
}
