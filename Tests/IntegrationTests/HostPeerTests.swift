import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing
import WireProtocol

/// `host.sock` tells its peers apart by their cgroup: an app hears only its own URLs (in
/// order, also those sent while it starts) and is a host of its own extensions only;
/// external hosts are served only while `external_hosts` is true.
@Suite struct HostPeerTests {
    /// An app that logs its arguments, connects to host.sock, tries to pull `a.widget`, and
    /// logs every message it receives, one JSON line each.
    static let app = #"""
        import json, os, socket, sys
        log = open(sys.argv[1], "a", buffering=1)
        log.write(json.dumps({"argv": sys.argv[2:]}) + "\n")
        sock = socket.socket(socket.AF_UNIX)
        sock.connect(os.environ["EXTENSIOND_HOST_SOCKET"])
        sock.sendall(b'{"type":"pull","id":7,"extension":"a.widget","mode":"compact","maxSize":{"width":1,"height":1}}\n')
        for line in sock.makefile("rb"):
            log.write(line.decode())
        """#

    private func log(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test func anAppHearsOnlyItsOwnURLsInOrderAndUsesOnlyItsOwnExtensions() throws {
        let daemon = try TestDaemon()
        let app = try daemon.directory.write("app.py", Self.app)
        let logA = daemon.sharedDirectory + "/a.log", logB = daemon.sharedDirectory + "/b.log"
        try daemon.writeConfig(
            """
            [apps.a]
            command = ["/usr/bin/python3", "-S", "\(app)", "\(logA)"]
            url_schemes = ["a"]

            [apps.b]
            command = ["/usr/bin/python3", "-S", "\(app)", "\(logB)"]
            url_schemes = ["b"]
            autostart = true

            [extensions."a.widget"]
            app = "a"
            point = "widget"
            command = ["/bin/sleep", "1000"]
            """)
        try daemon.start()
        let host = try daemon.connectHost()
        // b is connected once its refused pull is answered.
        #expect(eventually { self.log(logB).contains { $0.contains("may use only its own extensions") } })

        // a is not running: the first URL launches it (as its argument), the second comes
        // while it starts and is delivered once it connects, after the first.
        #expect(try daemon.supervisorctl(["open", "a://first"]).exitCode == 0)
        #expect(try daemon.supervisorctl(["open", "a://second"]).exitCode == 0)
        #expect(eventually { self.log(logA).contains { $0.contains("a://second") } })
        #expect(try daemon.supervisorctl(["open", "a://third"]).exitCode == 0)
        #expect(eventually { self.log(logA).contains { $0.contains("a://third") } })
        let urls = log(logA).compactMap { line -> String? in
            if line.contains("argv") { return line.contains("a://first") ? "a://first" : nil }
            return ["a://second", "a://third"].first { line.contains($0) }
        }
        #expect(urls == ["a://first", "a://second", "a://third"], "\(log(logA))")
        // a's own pull of its widget is not refused for ownership.
        #expect(!log(logA).contains { $0.contains("may use only its own extensions") })

        // b never heard a's URLs; the external host heard all three.
        #expect(!log(logB).contains { $0.contains("a://") })
        for url in ["a://first", "a://second", "a://third"] {
            let notice = try host.receive(timeout: 5) { if case .openURL = $0 { true } else { false } }
            #expect(notice == .openURL(.init(url: url, app: "a")))
        }
    }

    @Test func externalHostsCanBeTurnedOff() throws {
        let daemon = try TestDaemon(supervisor: "external_hosts = false")
        try daemon.start()
        let host = try daemon.connectHost()
        guard case .error(let error) = try host.receive(timeout: 5) else { Issue.record("no error"); return }
        #expect(error.error.contains("supervisor.external_hosts is false"))
    }

    /// An extension that dials host.sock (path in its first argument), tries a pull and
    /// prints what it is told (the refusal may come, and the socket close, before it sends).
    static let dialingExtension = #"""
        import os, socket, sys
        sock = socket.socket(socket.AF_UNIX)
        sock.connect(sys.argv[1])
        try:
            sock.sendall(b'{"type":"pull","id":1,"extension":"dialer","mode":"compact","maxSize":{"width":1,"height":1}}\n')
        except OSError:
            pass
        print(sock.makefile("rb").readline().decode().strip(), flush=True)
        os.write(int(os.environ["EXTENSIOND_FD"]), b'{"type":"ready","protocol":1}\n')
        sock.close()
        os.read(int(os.environ["EXTENSIOND_FD"]), 1)
        """#

    @Test func anExtensionCannotActAsAHost() throws {
        let daemon = try TestDaemon()
        let dialer = try daemon.directory.write("dialer.py", Self.dialingExtension)
        try daemon.writeConfig(
            """
            [apps.a]
            command = ["/bin/sleep", "1000"]

            [extensions.dialer]
            app = "a"
            point = "widget"
            command = ["/usr/bin/python3", "-S", "\(dialer)", "\(daemon.hostSocket)"]
            """)
        try daemon.start()
        #expect(try daemon.supervisorctl(["start", "dialer"]).exitCode == 0)
        var output = ""
        #expect(
            eventually {
                output = (try? daemon.supervisorctl(["tail", "dialer"]).stdout) ?? ""; return !output.isEmpty
            })
        #expect(output.contains("extension dialer may not act as a host"), "\(output)")
        #expect(!output.contains("snapshot"), "\(output)")
    }

    /// A host that pulls each extension named in its arguments and logs every message.
    static let pullingHost = #"""
        import json, os, socket, sys
        log = open(sys.argv[1], "a", buffering=1)
        sock = socket.socket(socket.AF_UNIX)
        sock.connect(os.environ["EXTENSIOND_HOST_SOCKET"])
        for n, name in enumerate(sys.argv[2:]):
            sock.sendall(json.dumps({"type": "pull", "id": n + 1, "extension": name, "mode": "compact", "maxSize": {"width": 1, "height": 1}}).encode() + b"\n")
        for line in sock.makefile("rb"):
            log.write(line.decode())
        """#

    @Test func aHostUsesOnlyItsExtensionsAndHearsOnlyOfThose() throws {
        let daemon = try TestDaemon()
        let host = try daemon.directory.write("host.py", Self.pullingHost)
        let widget = try ScriptedExtension.command(.answer, in: daemon.directory, reload: "never")
        let panelLog = daemon.sharedDirectory + "/panel.log"
        try daemon.writeConfig(
            """
            [hosts.panel]
            command = ["/usr/bin/python3", "-S", "\(host)", "\(panelLog)", "a.widget", "b.widget"]
            extensions = ["a.widget"]

            [apps.a]
            command = ["/bin/sleep", "1000"]

            [apps.b]
            command = ["/bin/sleep", "1000"]

            [extensions."a.widget"]
            app = "a"
            point = "widget"
            command = \(widget)

            [extensions."b.widget"]
            app = "b"
            point = "widget"
            command = \(widget)
            """)
        try daemon.start()
        let bystander = try daemon.connectHost()
        #expect(eventually { self.log(panelLog).count >= 2 })
        let answers = log(panelLog)
        #expect(answers.contains { $0.contains(#""id":1"#) && $0.contains("snapshot") }, "\(answers)")
        #expect(
            answers.contains { $0.contains(#""id":2"#) && $0.contains("may use only the extensions of hosts.panel.extensions; b.widget is not one") },
            "\(answers)")
        #expect(try daemon.control(.status(NameSelection(["b.widget"]))).status?.first?.pid == nil, "the refused pull launched b.widget")

        // a.widget ends: the host that used it hears of it, the bystander does not.
        #expect(try daemon.supervisorctl(["stop", "a.widget"]).exitCode == 0)
        #expect(eventually { self.log(panelLog).contains { $0.contains("extensionTerminated") && $0.contains("a.widget") } })
        let heard = try? bystander.receive(timeout: 1) { if case .extensionTerminated = $0 { true } else { false } }
        #expect(heard == nil, "a host that never used a.widget heard: \(String(describing: heard))")
    }
}
