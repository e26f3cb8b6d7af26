import ControlProtocol
import ExtensiondTestSupport
import Foundation
import HostProtocol
import Testing
import WireProtocol

/// docs/PROTOCOL.md §6 against a real daemon: the environment reaches the widget, `execute`
/// round-trips, cards out of bounds are refused with an event, templates are listed, and
/// assets are read only within their bounds.
@Suite struct CardTests {
    /// A widget that answers `update` and `execute` with a card whose `id` names the request
    /// and whose first text is the request itself, as JSON; `refuse` makes every card carry a
    /// 20,000-byte string (over the 16 KiB bound); `assets` first writes its assets: a PNG,
    /// a link to /etc/passwd, a FIFO and a 600 KiB file.
    static let widget = #"""
        import json, os, socket, sys
        mode = sys.argv[1]
        data = os.environ["EXTENSIOND_DATA_DIR"]
        if mode == "assets":
            assets = os.path.join(data, "assets")
            os.makedirs(assets, exist_ok=True)
            open(os.path.join(assets, "good.png"), "wb").write(b"\x89PNG fake image bytes \x00\xff")
            open(os.path.join(assets, "big.png"), "wb").write(b"x" * (600 * 1024))
            for name in ("link.png", "fifo.png"):
                if os.path.lexists(os.path.join(assets, name)): os.unlink(os.path.join(assets, name))
            os.symlink("/etc/passwd", os.path.join(assets, "link.png"))
            os.mkfifo(os.path.join(assets, "fifo.png"))
        sock = socket.socket(fileno=3)
        sock.sendall(b'{"type":"ready","protocol":1}\n')
        for line in sock.makefile("rb"):
            request = json.loads(line)
            if request["type"] == "terminate": break
            if request["type"] not in ("update", "execute"): continue
            text = json.dumps(request, sort_keys=True) + ("y" * 20000 if mode == "refuse" else "")
            card = {"type": "AdaptiveCard", "version": "1.5", "body": [{"type": "TextBlock", "text": text}]}
            sock.sendall(json.dumps({"type": "result", "id": request["id"], "result": "newData", "snapshot": card}).encode() + b"\n")
        """#

    static let template = #"{"type":"AdaptiveCard","version":"1.5","body":[{"type":"TextBlock","text":"${time}"}]}"#

    func daemon(_ mode: String = "echo", extra: String = "") throws -> TestDaemon {
        let daemon = try TestDaemon()
        let script = try daemon.directory.write("card_widget.py", Self.widget)
        _ = try daemon.directory.write("clock.json", Self.template)
        try daemon.writeConfig(
            """
            [apps.app]
            command = ["/bin/sleep", "1000"]

            [extensions.cards]
            app = "app"
            point = "widget"
            command = ["/usr/bin/python3", "\(script)", "\(mode)"]
            \(extra)

            [extensions.cards.refresh]
            pull_cooldown = "0s"
            """)
        try daemon.start()
        return daemon
    }

    /// The request the widget answered, read back from the text of its card.
    func request(in answer: SupervisorToHost) throws -> [String: JSONValue] {
        guard case .snapshot(let snapshot) = answer, case .object(let card)? = try snapshot.snapshot?.decoded(),
            case .array(let body)? = card["body"], case .object(let text)? = body.first, case .string(let json)? = text["text"],
            case .object(let request) = try EncodedJSON(trustedBytes: Array(json.utf8)).decoded()
        else { throw TestSupportError("not the widget's card: \(answer)") }
        return request
    }

    @Test func theHostsEnvironmentReachesTheWidgetAndAChangeRefreshesIt() throws {
        let daemon = try daemon()
        let host = try daemon.connectHost()
        let environment = RenderEnvironment(colorScheme: .light, locale: "fr-FR", scale: 2)
        try host.send(
            .pull(
                .init(
                    id: 1, extensionID: "cards", mode: .compact, maxSize: Size(width: 300, height: 110), wait: true,
                    environment: environment)))
        let first = try request(in: host.receive(matching: { $0.answerID == 1 }))
        #expect(first["colorScheme"] == "light" && first["locale"] == "fr-FR" && first["scale"] == 2 && first["type"] == "update")
        try host.send(.subscribe(.init(extensions: ["cards"])))
        try host.send(.visible(.init(extensions: [.init(extensionID: "cards")], visible: true, environment: RenderEnvironment(colorScheme: .dark))))
        let pushed = try request(in: host.receive(matching: { if case .snapshot(let s) = $0 { s.id == nil } else { false } }))
        #expect(pushed["colorScheme"] == "dark" && pushed["locale"] == "fr-FR", "the change refreshed the widget with the rest kept")
    }

    @Test func executeReachesTheWidgetAndAnswersWithItsNewCard() throws {
        let daemon = try daemon()
        let host = try daemon.connectHost()
        try host.send(
            .execute(
                .init(
                    id: 7, extensionID: "cards", verb: "toggle", data: ["on": true], mode: .compact,
                    maxSize: Size(width: 300, height: 110), instance: "kitchen")))
        let answer = try host.receive(matching: { $0.answerID == 7 })
        guard case .snapshot(let snapshot) = answer else { throw TestSupportError("\(answer)") }
        #expect(snapshot.result == .newData && snapshot.instance == "kitchen" && snapshot.mode == .compact)
        let executed = try request(in: answer)
        #expect(executed["type"] == "execute" && executed["verb"] == "toggle" && executed["data"] == ["on": true])
        #expect(executed["instance"] == "kitchen" && executed["maxSize"] == ["width": 300, "height": 110])
        // Refused with an error the host can show: an undeclared mode, an unknown extension.
        try host.send(.execute(.init(id: 8, extensionID: "nope", verb: "x", mode: .compact, maxSize: Size(width: 1, height: 1))))
        guard case .error(let error) = try host.receive(matching: { $0.answerID == 8 }) else { throw TestSupportError("no error") }
        #expect(error.error.contains("unknown extension"))
    }

    @Test func aCardOutOfBoundsIsRefusedWithAnEventAndTheRunGoesOn() throws {
        let daemon = try daemon("refuse")
        let host = try daemon.connectHost()
        try host.send(.pull(.init(id: 1, extensionID: "cards", mode: .compact, maxSize: Size(width: 300, height: 110), wait: true)))
        guard case .snapshot(let snapshot) = try host.receive(matching: { $0.answerID == 1 }) else { throw TestSupportError("no snapshot") }
        #expect(snapshot.result == .failed && snapshot.snapshot == nil)
        #expect(snapshot.error?.contains("card refused (snapshot): card.body[0].text: a string of") == true, "\(snapshot)")
        let events = try daemon.control(.events(LogRequest(lines: 100))).events ?? []
        #expect(events.contains { $0.name == "cards" && $0.kind == .error && $0.reason == "card" && $0.message.contains("more than 16384") })
        #expect(!events.contains { $0.name == "cards" && $0.kind == .kill }, "content is not a protocol violation")
    }

    @Test func aCardTemplateIsListedAndABadOneDroppedWithAnEvent() throws {
        let daemon = try daemon(extra: "card_template = \"clock.json\"")
        let host = try daemon.connectHost()
        try host.send(.list(.init(id: 1)))
        guard case .extensions(let list) = try host.receive(matching: { $0.answerID == 1 }) else { throw TestSupportError("no list") }
        #expect(try list.extensions.first?.cardTemplate?.decoded() == (try EncodedJSON(trustedBytes: Array(Self.template.utf8)).decoded()))
        _ = try daemon.directory.write("clock.json", #"{"type":"NotACard"}"#)
        _ = try daemon.control(.reload)
        try host.send(.list(.init(id: 2)))
        guard case .extensions(let again) = try host.receive(matching: { $0.answerID == 2 }) else { throw TestSupportError("no list") }
        #expect(again.extensions.first?.cardTemplate == nil)
        let events = try daemon.control(.events(LogRequest(lines: 100))).events ?? []
        #expect(events.contains { $0.reason == "card" && $0.message.contains("not an object of type \"AdaptiveCard\"") })
    }

    @Test func assetsAreReadWithinTheirBoundsAndNeverThroughLinks() throws {
        let daemon = try daemon("assets")
        let host = try daemon.connectHost()
        _ = try host.pull("cards", id: 1, wait: true)  // launches the widget, which writes its assets
        try host.send(.asset(.init(id: 2, extensionID: "cards", name: "good.png")))
        guard case .assetResult(let good) = try host.receive(matching: { $0.answerID == 2 }) else { throw TestSupportError("no asset") }
        #expect(good.contentType == "image/png")
        #expect(Data(base64Encoded: good.data) == Data("\u{89}PNG fake image bytes \u{0}\u{ff}".unicodeScalars.map { UInt8($0.value) }))
        let refusals = [
            ("link.png", "Too many levels of symbolic links"), ("fifo.png", "not a regular file"),
            ("big.png", "more than 524288"), ("../../x.png", "is not a file name"), (".hidden.png", "is not a file name"),
            ("good.exe", "is not a file name"), ("none.png", "No such file"),
        ]
        for (offset, (name, reason)) in refusals.enumerated() {
            let id = RequestID(rawValue: UInt64(10 + offset))
            try host.send(.asset(.init(id: id, extensionID: "cards", name: name)))
            guard case .error(let error) = try host.receive(matching: { $0.answerID == id }) else { throw TestSupportError("\(name) was served") }
            #expect(error.error.contains(reason), "\(name): \(error.error)")
        }
    }
}
