import ExtensiondTestSupport
import Foundation
import HostProtocol
import Testing

/// The demo host panel and the demo app, run as real processes against a fake host.sock.
@Suite struct DemoProgramTests {
    static let widget = "com.example.w"
    static let app = "com.example.app"

    /// The host side of the daemon in a few lines: lists a widget (and a disabled
    /// action), pushes notices when subscribed, answers pulls with a snapshot.
    static func hostSocketReply(_ line: String) -> [String] {
        guard let message = try? HostToSupervisor.decode(line: Array(line.utf8)) else { return [] }
        let answer: [SupervisorToHost]
        switch message {
        case .list(let list):
            answer = [
                .extensions(
                    .init(
                        id: list.id,
                        extensions: [
                            .init(id: widget, app: app, point: "widget", enabled: true, hasContent: true),
                            .init(id: "com.example.a", app: app, point: "action", enabled: false, hasContent: true),
                        ]))
            ]
        case .subscribe:
            answer = [
                .snapshot(.init(id: nil, extensionID: widget, result: .newData, snapshot: JSONValue("pushed").encoded(), version: 2, ageMs: 0, stale: false)),
                .extensionTerminated(.init(extensionID: widget, reason: .idle)),
                .openURL(.init(url: "demo://details", app: app)),
            ]
        case .pull(let pull):
            let content: JSONValue = ["text": "hello", "count": 7, "link": "demo://details"]
            answer = [
                .snapshot(
                    .init(
                        id: pull.id, extensionID: pull.extensionID, result: .failed, snapshot: content.encoded(), version: 3,
                        ageMs: 250, stale: true, error: "network down"))
            ]
        case .open(let open):
            answer = [.openResult(.init(id: open.id, success: true))]
        case .perform, .defaults, .reloadExtensions, .setHasContent, .visible, .enable, .addInstance, .removeInstance, .arrange,
            .execute, .asset:
            answer = []
        }
        return answer.map { String(decoding: $0.encodedLine().dropLast(), as: UTF8.self) }
    }

    @Test func panelConnectsWhenTheSocketAppearsListsSubscribesPullsAndPrints() throws {
        let directory = try TemporaryDirectory()
        let socket = directory.file("host.sock")
        let panel = try TestProcess(
            Binaries.path("DemoPanel"), [], environment: [ExtensionEnvironment.hostSocketVariable: socket],
            outputIn: directory.path, name: "panel")
        // The daemon binds host.sock after launching its hosts: the panel must wait for it.
        usleep(500_000)
        #expect(panel.isRunning)
        let server = try FakeSocketServer(path: socket) { Self.hostSocketReply($0) }
        defer { server.stop() }

        let expected = [
            "extension com.example.w (widget of com.example.app): enabled",
            "extension com.example.a (action of com.example.app): disabled",
            "com.example.w: failed, version 3, age 250ms, stale (network down) | count=7 link=\"demo://details\" text=\"hello\"",
            "tap on com.example.w: open demo://details",
            "open (request 3): done",
            "com.example.w (pushed): newData, version 2, age 0ms, fresh | \"pushed\"",
            "com.example.w terminated (idle)",
            "openURL demo://details opened by com.example.app",
        ]
        let printedAll = eventually(timeout: 10) { expected.allSatisfy { line in panel.stdout.contains(line) } }
        #expect(printedAll, "stdout: \(panel.stdout)")
        #expect(panel.stdout.hasPrefix("demo panel: connected to \(socket)\n"))
        // Every line after the first starts with the time of day.
        for line in panel.stdout.split(separator: "\n").dropFirst() {
            #expect(line.range(of: #"^\d\d:\d\d:\d\d "#, options: .regularExpression) != nil, "\(line)")
        }

        let requests = try server.lines.map { try HostToSupervisor.decode(line: Array($0.utf8)) }
        #expect(requests.count == 4)
        guard requests.count == 4 else { return }
        #expect(requests[0].type == "list")
        #expect(requests[1] == .subscribe(.init(extensions: [Self.widget])))
        guard case .pull(let pull) = requests[2] else { Issue.record("expected a pull, got \(requests[2])"); return }
        #expect(pull.extensionID == Self.widget && pull.mode == .compact && pull.maxSize == Size(width: 320, height: 160))
        #expect(requests[3] == .open(.init(id: 3, extensionID: Self.widget, url: "demo://details")), "a tap on the snapshot's link")

        // Stdin is /dev/null: its end is quiet, and the timer pulls again after 10 s.
        let pulledAgain = eventually(timeout: 15) { server.lines.filter { $0.contains(#""type":"pull""#) }.count >= 2 }
        #expect(pulledAgain)
        #expect(panel.stderr.isEmpty, "stderr: \(panel.stderr)")

        panel.signal(SIGTERM)
        #expect(panel.wait(timeout: 5) == 0)
    }

    @Test func panelReportsAMalformedAnswerAndExitsOne() throws {
        let directory = try TemporaryDirectory()
        let server = try FakeSocketServer(path: directory.file("host.sock")) { _ in [#"{"type":"extensions","extensions":"none"}"#] }
        defer { server.stop() }
        let panel = try TestProcess(
            Binaries.path("DemoPanel"), [], environment: [ExtensionEnvironment.hostSocketVariable: server.path],
            outputIn: directory.path, name: "panel")
        #expect(panel.wait(timeout: 10) == 1)
        #expect(panel.stderr.contains("message \"extensions\": field \"extensions\""), "stderr: \(panel.stderr)")
    }

    @Test func appPrintsTheURLItWasLaunchedWithAndOpenURLMessages() throws {
        let directory = try TemporaryDirectory()
        let openURL = SupervisorToHost.openURL(.init(url: "demo://hello", app: Self.app))
        let server = try FakeSocketServer(path: directory.file("host.sock"), greeting: [String(decoding: openURL.encodedLine().dropLast(), as: UTF8.self)])
        defer { server.stop() }
        let app = try TestProcess(
            Binaries.path("DemoApp"), ["--verbose", "demo://launched?x=1"], environment: [ExtensionEnvironment.hostSocketVariable: server.path],
            outputIn: directory.path, name: "app")
        let printed = eventually(timeout: 10) { app.stdout.contains("demo app: openURL demo://hello (for com.example.app)") }
        #expect(printed, "stdout: \(app.stdout)")
        #expect(app.stdout.contains("demo app: launched to open demo://launched?x=1\n"))
        #expect(app.stdout.contains("demo app: connected to \(server.path)\n"))
        app.signal(SIGTERM)
        #expect(app.wait(timeout: 5) == 0)
    }

    @Test(arguments: [[], ["--verbose"], ["not a url: really"], ["1http://x"]])
    func appWithoutALaunchURLSaysNothingOfOne(arguments: [String]) throws {
        let directory = try TemporaryDirectory()
        let server = try FakeSocketServer(path: directory.file("host.sock"))
        defer { server.stop() }
        let app = try TestProcess(
            Binaries.path("DemoApp"), arguments, environment: [ExtensionEnvironment.hostSocketVariable: server.path],
            outputIn: directory.path, name: "app")
        #expect(eventually(timeout: 10) { app.stdout.contains("demo app: connected") }, "stdout: \(app.stdout)")
        #expect(!app.stdout.contains("launched to open"))
        app.signal(SIGTERM)
        #expect(app.wait(timeout: 5) == 0)
    }
}
