import ControlProtocol
import Foundation
import HostProtocol

/// Where a host-protocol test runs, as hummingbird's `.router`/`.live`: the same test body
/// (parameterized with `@Test(arguments: HostTestSetup.allCases)`) meets
/// - `.inProcess`: the daemon's own extension coordinator and host server in the test
///   process, on a virtual clock, with simulated extensions: time moves only when the test
///   waits, so a wait of a minute costs nothing and timing is exact;
/// - `.live`: a real `extensiond` (``TestDaemon``) with real extension processes
///   (``ScriptedExtension``): time is real, waits sleep or poll up to a deadline.
///
/// docs/TESTING.md says which suites run where.
public enum HostTestSetup: String, CaseIterable, Sendable, CustomStringConvertible {
    case inProcess
    case live

    public var description: String { rawValue }

    /// Starts a world serving `host.sock` with the extensions of `test.app`, followed in
    /// the config by `more` (e.g. a `[types]` table).
    public func start(_ extensions: [TestExtension], more: String = "") throws -> any HostWorld {
        switch self {
        case .inProcess: try InProcessHostWorld(extensions, more: more)
        case .live: try LiveHostWorld(extensions, more: more)
        }
    }
}

/// An extension of the app `test.app` that behaves as ``behaviour`` says: run by
/// ``ScriptedExtension`` in `.live`, simulated to the same answers in `.inProcess`.
public struct TestExtension: Sendable {
    public static let app = "test.app"

    public var id: String
    /// `widget` or `action`.
    public var point: String
    public var behaviour: ScriptedExtension.Behaviour
    /// How long each update takes before its answer.
    public var delay: Duration
    /// The reload hint of every `result` (`atEnd` or `never`).
    public var reload: String
    /// More lines of its `[extensions."id"]` table, and the lines of its `[refresh]` table.
    public var settings: String
    public var refresh: String

    public init(
        _ id: String, _ behaviour: ScriptedExtension.Behaviour = .answer, point: String = "widget", delay: Duration = .zero,
        reload: String = "atEnd", settings: String = "", refresh: String = ""
    ) {
        self.id = id
        self.point = point
        self.behaviour = behaviour
        self.delay = delay
        self.reload = reload
        self.settings = settings
        self.refresh = refresh
    }

    /// The config both setups load: the app, then each extension's tables, then `more`.
    /// Every extension may write its count file into `shared` (``ScriptedExtension``).
    static func config(_ extensions: [TestExtension], more: String, scriptsIn directory: TemporaryDirectory, shared: String) throws -> String {
        var text = "[defaults.sandbox]\nwrite = [\"\(shared)\"]\n\n[apps.\"\(app)\"]\ncommand = [\"/bin/sleep\", \"1000\"]\n\n"
        for spec in extensions {
            let seconds = Double(spec.delay.components.seconds) + Double(spec.delay.components.attoseconds) * 1e-18
            let command = try ScriptedExtension.command(
                spec.behaviour, in: directory, countFile: shared + "/" + spec.id + ".updates", delay: seconds, reload: spec.reload)
            text += """
                [extensions."\(spec.id)"]
                app = "\(app)"
                point = "\(spec.point)"
                command = \(command)
                \(spec.settings)

                [extensions."\(spec.id)".refresh]
                \(spec.refresh)


                """
        }
        return text + more
    }
}

/// `host.sock` with extensions behind it, in one of the two setups; see ``HostTestSetup``.
/// Every wait of a test goes through the world, so that it means the same in both.
public protocol HostWorld: AnyObject {
    var setup: HostTestSetup { get }
    /// A new host connection.
    func connectHost() throws -> TestHost
    /// The first message on `host` that `matching` accepts, within `limit` of the world's
    /// time (the others stay queued on `host`); throws when none comes.
    func receive(on host: TestHost, within limit: Duration, matching: (SupervisorToHost) -> Bool) throws -> SupervisorToHost
    /// Lets `duration` of the world's time pass.
    func advance(by duration: Duration) throws
    /// Whether `condition` holds within `limit` of the world's time (checked as time passes).
    func until(within limit: Duration, _ condition: () throws -> Bool) throws -> Bool
    /// The world's time since it started (virtual in process).
    var elapsed: Duration { get throws }
    /// The world's wall-clock time (virtual in process), in milliseconds since the epoch.
    var wallMilliseconds: Int64 { get throws }
    /// The updates widget `id` was sent, oldest first, as `<reason>[ <instance>]`.
    func updates(of id: String) throws -> [String]
    /// The widget's line of `status` and of `stats`.
    func status(_ id: String) throws -> ProcessStatus?
    func stats(_ id: String) throws -> ProcessStats?
    /// The daemon behind `.live` (for what only the real daemon has, e.g. `supervisorctl`).
    var daemon: TestDaemon? { get }
}

extension HostWorld {
    /// Sends `message` on `host` and returns its answer: the message with its id, or an
    /// `error` without one (the answer to a malformed request).
    public func request(_ message: HostToSupervisor, on host: TestHost, within limit: Duration = .seconds(5)) throws -> SupervisorToHost {
        try host.send(message)
        let id = message.requestID
        return try receive(on: host, within: limit) { answer in
            if case .error(let error) = answer, error.id == nil { return true }
            return id != nil && answer.answerID == id
        }
    }

    /// `pull` of widget `id` in compact mode; the `snapshot` answering it, else throws.
    public func pull(
        _ id: String, on host: TestHost, request: RequestID, instance: String? = nil, params: JSONValue? = nil,
        wait: Bool? = nil
    ) throws -> SupervisorToHost.Snapshot {
        let answer = try self.request(
            .pull(
                .init(
                    id: request, extensionID: id, mode: .compact, maxSize: Size(width: 320, height: 160), wait: wait, instance: instance,
                    params: params)), on: host)
        guard case .snapshot(let snapshot) = answer else { throw TestSupportError("pull \(id) was answered by \(answer)") }
        return snapshot
    }

    /// The updates widget `id` was sent (or why they could not be read), for the message of
    /// a failed expectation.
    public func diagnostics(_ id: String) -> String {
        do { return "updates of \(id): \(try updates(of: id))" } catch { return "\(error)" }
    }

    /// The next push (a snapshot without id) on `host` that `matching` accepts.
    public func push(
        on host: TestHost, within limit: Duration = .seconds(5),
        matching: (SupervisorToHost.Snapshot) -> Bool = { _ in true }
    ) throws -> SupervisorToHost.Snapshot {
        let message = try receive(on: host, within: limit) {
            if case .snapshot(let pushed) = $0 { pushed.id == nil && matching(pushed) } else { false }
        }
        guard case .snapshot(let pushed) = message else { throw TestSupportError("not a snapshot: \(message)") }
        return pushed
    }
}
