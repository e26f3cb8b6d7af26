import ControlProtocol
import ExtensiondTestSupport
import Foundation
import HostProtocol
import Testing

/// The containing app's side of `host.sock`, against a real daemon: the app writes the
/// shared defaults its widget reads, reloads its widget within the refresh budget, and
/// hides it with `setHasContent`, on its own groups and extensions only.
///
/// Each app is a real supervised process (so the daemon knows it by its cgroup) that relays
/// one connection of the test to `host.sock`: the test speaks as the app.
@Suite struct AppSideTests {
    /// An app that listens on `argv[1]` and relays each connection to host.sock, both ways.
    static let relayApp = #"""
        import os, socket, sys, threading
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(sys.argv[1] + ".tmp")
        listener.listen(4)
        os.rename(sys.argv[1] + ".tmp", sys.argv[1])
        def pump(source, sink):
            while True:
                data = source.recv(65536)
                if not data: break
                sink.sendall(data)
            sink.shutdown(socket.SHUT_WR)
        while True:
            client, _ = listener.accept()
            upstream = socket.socket(socket.AF_UNIX)
            upstream.connect(os.environ["EXTENSIOND_HOST_SOCKET"])
            threading.Thread(target=pump, args=(upstream, client), daemon=True).start()
            threading.Thread(target=pump, args=(client, upstream), daemon=True).start()
        """#

    /// A widget that logs the reason of each update to `argv[1]` and answers with the value
    /// of `city` in its app's group `argv[2]`.
    static let cityWidget = #"""
        import json, os, sys
        sock = os.fdopen(int(os.environ["EXTENSIOND_FD"]), "r+b", buffering=0)
        def send(message): sock.write((json.dumps(message) + "\n").encode())
        buffer = b""
        def receive():
            global buffer
            while b"\n" not in buffer:
                chunk = sock.read(65536)
                if not chunk: sys.exit(0)
                buffer += chunk
            line, buffer = buffer.split(b"\n", 1)
            return json.loads(line)
        send({"type": "ready", "protocol": 1})
        while True:
            message = receive()
            if message["type"] == "terminate": sys.exit(0)
            if message["type"] != "update": continue
            open(sys.argv[1], "a").write(message["reason"] + "\n")
            send({"type": "defaults", "id": 1, "group": sys.argv[2], "op": "get", "key": "city"})
            answer = receive()
            send({"type": "result", "id": message["id"], "result": "newData", "snapshot": {"city": answer.get("value")}})
        """#

    /// A daemon with the apps `a` and `b` (relays, groups `group.a` and `group.b`) and one
    /// city widget each; `a.widget` may refresh twice at once and once a day.
    private func makeDaemon() throws -> TestDaemon {
        let daemon = try TestDaemon()
        let relay = try daemon.directory.write("relay.py", Self.relayApp)
        let widget = try daemon.directory.write("widget.py", Self.cityWidget)
        let shared = daemon.sharedDirectory
        var config = "[defaults.sandbox]\nwrite = [\"\(shared)\"]\n"
        for app in ["a", "b"] {
            config += """

                [apps.\(app)]
                command = ["/usr/bin/python3", "-S", "\(relay)", "\(shared)/\(app).sock"]
                groups = ["group.\(app)"]
                autostart = true

                [extensions."\(app).widget"]
                app = "\(app)"
                point = "widget"
                command = ["/usr/bin/python3", "-S", "\(widget)", "\(shared)/\(app).updates", "group.\(app)"]

                [extensions."\(app).widget".refresh]
                daily_budget = 1
                budget_burst = 2
                pull_cooldown = "0s"

                """
        }
        try daemon.writeConfig(config)
        try daemon.start()
        return daemon
    }

    /// A connection to host.sock through app `name`'s relay: the daemon sees the app.
    private func connect(asApp name: String, of daemon: TestDaemon) throws -> TestHost {
        let path = daemon.sharedDirectory + "/\(name).sock"
        guard eventually(timeout: 10, { FileManager.default.fileExists(atPath: path) }) else {
            throw TestSupportError("app \(name) did not open its relay socket")
        }
        return try TestHost(path: path)
    }

    private func updates(of app: String, in daemon: TestDaemon) -> [String] {
        ((try? String(contentsOfFile: daemon.sharedDirectory + "/\(app).updates", encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)
    }

    private func request(_ message: HostToSupervisor, id: UInt64, on connection: TestHost) throws -> SupervisorToHost {
        try connection.send(message)
        return try connection.receive(timeout: 10) { $0.answerID == RequestID(rawValue: id) }
    }

    private func errorText(_ message: SupervisorToHost) -> String {
        if case .error(let error) = message { error.error } else { "not an error: \(message)" }
    }

    @Test func theAppSetsASharedDefaultThatItsWidgetReads() throws {
        let daemon = try makeDaemon()
        let app = try connect(asApp: "a", of: daemon)
        let set = HostToSupervisor.Defaults(id: 1, group: "group.a", op: .set, key: "city", value: "Oslo")
        #expect(try request(.defaults(set), id: 1, on: app) == .defaultsResult(.init(id: 1, outcome: .value(.null))))
        let get = HostToSupervisor.Defaults(id: 2, group: "group.a", op: .get, key: "city")
        #expect(try request(.defaults(get), id: 2, on: app) == .defaultsResult(.init(id: 2, outcome: .value("Oslo"))))
        let list = HostToSupervisor.Defaults(id: 3, group: "group.a", op: .list)
        #expect(try request(.defaults(list), id: 3, on: app) == .defaultsResult(.init(id: 3, outcome: .value(["city"]))))

        let report = try #require(try daemon.control(.pull(PullRequest(name: "a.widget"))).pull)
        #expect(report.snapshot == ["city": "Oslo"])

        // Another app's group: the extension protocol's answer, naming the rule.
        let foreign = HostToSupervisor.Defaults(id: 4, group: "group.b", op: .set, key: "city", value: "Rome")
        guard case .defaultsResult(let refused) = try request(.defaults(foreign), id: 4, on: app),
            case .error(let why) = refused.outcome
        else { Issue.record("group.b was not refused"); return }
        #expect(why.contains("group \"group.b\" does not belong to app \"a\""))
        #expect(try daemon.supervisorctl(["defaults", "group.b", "get", "city"]).stdout == "null\n")

        // A host that is not an app has no groups.
        let host = try daemon.connectHost()
        let fromHost = try request(.defaults(.init(id: 5, group: "group.a", op: .get, key: "city")), id: 5, on: host)
        #expect(errorText(fromHost).contains("defaults is for containing apps"), "\(fromHost)")

        // A key past its bound breaks the message: an error naming the field, and the end.
        let key = String(repeating: "k", count: WireLimits.maxDefaultsKeyBytes + 1)
        try app.send(bytes: Array(#"{"type":"defaults","id":6,"group":"group.a","op":"get","key":"\#(key)"}"#.utf8 + [10]))
        let broken = try app.receive(timeout: 10)
        #expect(errorText(broken).contains("key") && errorText(broken).contains("longer than 1024 bytes"), "\(broken)")
        #expect(try app.closedByPeer(timeout: 10))
    }

    @Test func theAppsReloadRefreshesItsWidgetAndIsRefusedPastTheBudget() throws {
        let daemon = try makeDaemon()
        let app = try connect(asApp: "a", of: daemon)
        func reload(_ id: UInt64, _ extensions: [String]) throws -> SupervisorToHost {
            try request(.reloadExtensions(.init(id: RequestID(rawValue: id), extensions: extensions)), id: id, on: app)
        }
        // The burst of 2: the first launches the widget, the second follows its update.
        #expect(try reload(1, ["a.widget"]) == .reloadResult(.init(id: 1, scheduled: ["a.widget"], refused: [])))
        #expect(try reload(2, ["a.widget"]) == .reloadResult(.init(id: 2, scheduled: ["a.widget"], refused: [])))
        #expect(eventually(timeout: 20) { updates(of: "a", in: daemon) == ["schedule", "schedule"] }, "\(updates(of: "a", in: daemon))")

        // The budget is spent: refused, and the widget is not asked.
        #expect(try reload(3, ["a.widget"]) == .reloadResult(.init(id: 3, scheduled: [], refused: ["a.widget"])))

        // Another app's widget, or an unknown one, refuses the whole request.
        #expect(errorText(try reload(4, ["a.widget", "b.widget"])).contains("app a may use only its own extensions; b.widget belongs to app b"))
        #expect(errorText(try reload(5, ["nope"])).contains("unknown extension \"nope\""))
        Thread.sleep(forTimeInterval: 1)
        #expect(updates(of: "a", in: daemon) == ["schedule", "schedule"])
        #expect(updates(of: "b", in: daemon).isEmpty)

        // Hosts do not reload; a list past its bound breaks the message.
        let host = try daemon.connectHost()
        let fromHost = try request(.reloadExtensions(.init(id: 6, extensions: ["a.widget"])), id: 6, on: host)
        #expect(errorText(fromHost).contains("reloadExtensions is for containing apps"), "\(fromHost)")
        let many = Array(repeating: "a.widget", count: WireLimits.maxExtensionsPerRequest + 1)
        try host.send(.reloadExtensions(.init(id: 7, extensions: many)))
        #expect(errorText(try host.receive(timeout: 10)).contains("more than 256 extensions"))
        #expect(try host.closedByPeer(timeout: 10))
    }

    @Test func setHasContentFromTheAppHidesItsWidgetAcrossRestarts() throws {
        var daemon = try makeDaemon()
        let host = try daemon.connectHost()
        _ = try request(.list(.init(id: 1)), id: 1, on: host)
        let app = try connect(asApp: "a", of: daemon)

        try app.send(.setHasContent(.init(extensionID: "a.widget", value: false)))
        let notice = try host.receive(timeout: 10) { if case .hasContentChanged = $0 { true } else { false } }
        #expect(notice == .hasContentChanged(.init(extensionID: "a.widget", hasContent: false)))
        // An app lists its own extensions only.
        #expect(try hasContent(listedBy: app, id: 2) == ["a.widget": false])

        // Not its own: refused, naming the rule; a host is no app.
        let foreign = try request(.setHasContent(.init(id: 3, extensionID: "b.widget", value: false)), id: 3, on: app)
        #expect(errorText(foreign).contains("app a may use only its own extensions; b.widget belongs to app b"))
        let fromHost = try request(.setHasContent(.init(id: 4, extensionID: "a.widget", value: true)), id: 4, on: host)
        #expect(errorText(fromHost).contains("setHasContent is for containing apps"))
        #expect(try hasContent(listedBy: host, id: 5) == ["a.widget": false, "b.widget": true])

        // It is kept in state_dir across a restart.
        #expect(daemon.stop() == 0)
        daemon = TestDaemon(restarting: daemon)
        try daemon.start()
        #expect(try hasContent(listedBy: try daemon.connectHost(), id: 6) == ["a.widget": false, "b.widget": true])
    }

    /// `hasContent` of every extension in the answer to a `list`.
    private func hasContent(listedBy connection: TestHost, id: UInt64) throws -> [String: Bool] {
        guard case .extensions(let answer) = try request(.list(.init(id: RequestID(rawValue: id))), id: id, on: connection) else {
            throw TestSupportError("no extensions answer")
        }
        return Dictionary(uniqueKeysWithValues: answer.extensions.map { ($0.id, $0.hasContent) })
    }
}

/// The demo app (Sources/DemoApp) as its widget's containing app, with the real daemon.
@Suite struct DemoAppSideTests {
    @Test func theDemoAppResetsItsWidgetsCounterAndHidesIt() throws {
        let daemon = try TestDaemon(
            config: """
                [apps."demo.app"]
                command = ["\(Binaries.path("DemoApp"))"]
                url_schemes = ["demo"]
                groups = ["group.demo"]

                [extensions."demo.widget"]
                app = "demo.app"
                point = "widget"
                command = ["\(Binaries.path("DemoWidget"))"]
                """)
        try daemon.start()
        func counter() -> String? {
            try? daemon.supervisorctl(["defaults", "group.demo", "get", "counter"]).stdout
        }
        // Two updates count to 2 in the shared defaults.
        #expect(try daemon.supervisorctl(["pull", "demo.widget"]).exitCode == 0)
        #expect(try daemon.supervisorctl(["refresh", "demo.widget"]).exitCode == 0)
        #expect(eventually(timeout: 10) { counter() == "2\n" }, "\(counter() ?? "")")

        // demo://reset launches the app, which sets 0 and reloads: the widget counts to 1.
        #expect(try daemon.supervisorctl(["open", "demo://reset"]).exitCode == 0)
        #expect(eventually(timeout: 20) { counter() == "1\n" }, "\(counter() ?? "")")
        let output = { (try? daemon.supervisorctl(["tail", "demo.app"]).stdout) ?? "" }
        #expect(
            eventually(timeout: 10) {
                output().contains(#"reset: reloadExtensions → {"id":2,"refused":[],"scheduled":["demo.widget"],"type":"reloadResult"}"#)
            }, "\(output())")

        // demo://hide reaches the running app as openURL: hosts see the widget without content.
        let host = try daemon.connectHost()
        #expect(try daemon.supervisorctl(["open", "demo://hide"]).exitCode == 0)
        #expect(
            try eventually(timeout: 10) {
                try host.send(.list(.init(id: 1)))
                guard case .extensions(let answer) = try host.receive(timeout: 5, matching: { $0.answerID == 1 }) else { return false }
                return answer.extensions.first?.hasContent == false
            })
    }
}
