import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing
import WireProtocol

/// App groups and openURL against a real daemon: the shared defaults of an app's group,
/// the walls between apps, and URLs routed to the app that owns the scheme.
@Suite struct GroupsAndURLTests {
    /// An extension that, on each update, counts in its app's group, tries another app's
    /// group, opens a URL, and answers with what it got back.
    static let groupClient = #"""
        import json, os, sys
        sock = os.fdopen(int(os.environ["EXTENSIOND_FD"]), "r+b", buffering=0)
        def send(message): sock.write((json.dumps(message) + "\n").encode())
        def receive():
            line = b""
            while not line.endswith(b"\n"):
                chunk = sock.read(1)
                if not chunk: sys.exit(0)
                line += chunk
            return json.loads(line)
        def call(message):
            send(message)
            while True:
                reply = receive()
                if reply.get("id") == message["id"] and reply["type"] != "update": return reply
        send({"type": "ready", "protocol": 1})
        containers = os.environ.get("EXTENSIOND_GROUP_CONTAINERS", "")
        while True:
            message = receive()
            if message["type"] == "terminate": sys.exit(0)
            if message["type"] != "update": continue
            base = message["id"] * 100
            count = call({"type": "defaults", "id": base + 1, "group": "group.mine", "op": "get", "key": "count"}).get("value") or 0
            call({"type": "defaults", "id": base + 2, "group": "group.mine", "op": "set", "key": "count", "value": count + 1})
            foreign = call({"type": "defaults", "id": base + 3, "group": "group.theirs", "op": "list"})
            opened = call({"type": "openURL", "id": base + 4, "url": "theirs://hello"})
            refused = call({"type": "openURL", "id": base + 5, "url": "nobody://x"})
            send({"type": "result", "id": message["id"], "result": "newData", "snapshot": {
                "count": count + 1, "foreign": foreign.get("error", ""), "opened": opened["success"],
                "refused": refused["success"], "containers": containers}})
        """#

    /// An app that records its arguments.
    static let recordingApp = #"""
        import sys, time
        open(sys.argv[1], "a").write(" ".join(sys.argv[2:]) + "\n")
        time.sleep(1000)
        """#

    @Test func groupsAreSharedWithinAnAppAndWalledBetweenApps() throws {
        let daemon = try TestDaemon()
        let client = try daemon.directory.write("client.py", Self.groupClient)
        let app = try daemon.directory.write("app.py", Self.recordingApp)
        // The app runs under a uid of its own: it records where anyone may write.
        let launches = daemon.sharedDirectory + "/launches"
        try daemon.writeConfig(
            """
            [apps.mine]
            command = ["/bin/sleep", "1000"]
            groups = ["group.mine"]

            [apps.theirs]
            command = ["/usr/bin/python3", "\(app)", "\(launches)"]
            url_schemes = ["theirs"]
            groups = ["group.theirs"]

            [extensions.counter]
            app = "mine"
            point = "widget"
            command = ["/usr/bin/python3", "\(client)"]

            [extensions.counter.refresh]
            pull_cooldown = "0s"
            """)
        try daemon.start()
        let host = try daemon.connectHost()

        let first = try daemon.control(.pull(PullRequest(name: "counter"))).pull?.snapshot
        #expect(first["count"] == 1)
        #expect(first["foreign"]?.stringValue?.contains("does not belong to app") == true)
        #expect(first["opened"] == true)
        #expect(first["refused"] == false)
        #expect(first["containers"] == .string("group.mine=\(daemon.stateDirectory)/groups/group.mine"))
        #expect(FileManager.default.fileExists(atPath: daemon.stateDirectory + "/groups/group.mine"))

        // The URL launched the app that owns the scheme, with the URL as its last argument,
        // and every host heard of it.
        #expect(eventually { (try? String(contentsOfFile: launches, encoding: .utf8)) == "theirs://hello\n" })
        let notice = try host.receive(timeout: 5, matching: { if case .openURL = $0 { true } else { false } })
        #expect(notice == .openURL(.init(url: "theirs://hello", app: "theirs")))

        // The store outlives the process and the daemon's cache: the CLI reads the file's value.
        _ = try daemon.control(.refresh(NameSelection(["counter"])))
        #expect(eventually { (try? daemon.control(.defaults(DefaultsRequest(group: "group.mine", operation: .get, key: "count"))).message) == "2" })
        let onDisk = try JSONDecoder().decode(
            [String: JSONValue].self, from: Data(contentsOf: URL(fileURLWithPath: daemon.stateDirectory + "/defaults/group.mine.json")))
        #expect(onDisk["count"] == 2)
    }

    @Test func theCLIManagesDefaultsAndRoutesURLs() throws {
        let daemon = try TestDaemon(
            config: """
                [apps.mine]
                command = ["/bin/sh", "-c", "exec sleep 1000", "app"]
                url_schemes = ["Mine"]
                groups = ["group.mine"]
                """)
        try daemon.start()
        #expect(try daemon.supervisorctl(["defaults", "group.mine", "set", "greeting", "hello"]).exitCode == 0)
        #expect(try daemon.supervisorctl(["defaults", "group.mine", "get", "greeting"]).stdout == "\"hello\"\n")
        #expect(try daemon.supervisorctl(["defaults", "group.mine", "list"]).stdout == "[\"greeting\"]\n")
        #expect(try daemon.supervisorctl(["defaults", "group.mine", "remove", "greeting"]).exitCode == 0)
        #expect(try daemon.supervisorctl(["defaults", "group.mine", "get", "greeting"]).stdout == "null\n")
        let unknownGroup = try daemon.supervisorctl(["defaults", "group.nobody", "list"])
        #expect(unknownGroup.exitCode == 1 && unknownGroup.stderr.contains("group.nobody"))

        // Schemes are case-insensitive; the app is launched to open the URL.
        let opened = try daemon.supervisorctl(["open", "MINE://x"])
        #expect(opened.exitCode == 0 && opened.stdout.contains("mine"))
        #expect(eventually { (try? daemon.control(.status(NameSelection(["mine"]))).status?.first?.state) == "running" })
        let unknownScheme = try daemon.supervisorctl(["open", "other://x"])
        #expect(unknownScheme.exitCode == 1 && unknownScheme.stderr.contains("'other'"))
        let notAURL = try daemon.supervisorctl(["open", "no scheme here"])
        #expect(notAURL.exitCode == 1 && notAURL.stderr.contains("not a URL"))
    }
}

private extension Optional where Wrapped == JSONValue {
    subscript(key: String) -> JSONValue? {
        guard case .object(let fields)? = self else { return nil }
        return fields[key]
    }
}
