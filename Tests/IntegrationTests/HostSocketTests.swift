import ControlProtocol
import ExtensiondTestSupport
import Foundation
import HostProtocol
import Testing

/// Hosts on `host.sock`: list, pull, single flight across connections, subscriptions,
/// actions, malformed input, enable/disable. The tests parameterized by ``HostTestSetup``
/// run in process and against a real daemon; the others need the control socket or a
/// restart, which only a real daemon has.
@Suite struct HostSocketTests {
    static let widget = "test.app.widget"
    static let hidden = "test.app.hidden"
    static let action = "test.app.action"

    @Test func listShowsEveryExtensionWithItsStates() throws {
        let bed = try ExtensionTestBed()
        try bed.start(
            ExtensionTestBed.extensionTable(Self.widget, command: try bed.command(.answer))
                + ExtensionTestBed.extensionTable(Self.hidden, command: try bed.command(.noContent))
                + ExtensionTestBed.extensionTable(
                    Self.action, point: "action", command: try bed.command(.action), settings: "enabled = false"))
        let host = try bed.daemon.connectHost()
        #expect(
            try list(host, id: 1) == [
                .init(id: Self.action, app: ExtensionTestBed.app, point: "action", enabled: false, hasContent: true),
                .init(id: Self.hidden, app: ExtensionTestBed.app, point: "widget", enabled: true, hasContent: true, modes: [.compact, .expanded]),
                .init(id: Self.widget, app: ExtensionTestBed.app, point: "widget", enabled: true, hasContent: true, modes: [.compact, .expanded]),
            ])
        // `setHasContent false` arrives once the extension runs.
        _ = try host.pull(Self.hidden, id: 2)
        #expect(try eventually { try list(host, id: 3).first { $0.id == Self.hidden }?.hasContent == false })

        // The declaration survives a daemon restart: hidden before the extension runs again.
        try bed.restart()
        let afterRestart = try bed.daemon.connectHost()
        #expect(try list(afterRestart, id: 4).first { $0.id == Self.hidden }?.hasContent == false)
        #expect(try bed.status(Self.hidden)?.state != "running")
    }

    @Test(arguments: HostTestSetup.allCases)
    func aPullIsAnsweredWithItsID(_ setup: HostTestSetup) throws {
        let world = try setup.start([TestExtension(Self.widget)])
        let host = try world.connectHost()
        let snapshot = try world.pull(Self.widget, on: host, request: 41)
        #expect(snapshot.id == 41 && snapshot.extensionID == Self.widget)
        #expect(snapshot.result == .newData && snapshot.version == 1 && !snapshot.stale)
        #expect(try snapshot.snapshot?.decoded().field("n") == 1)

        guard
            case .error(let error) = try world.request(
                .pull(
                    .init(
                        id: 42, extensionID: "test.app.nope", mode: .compact, maxSize: Size(width: 320, height: 160))), on: host)
        else {
            Issue.record("an unknown extension was pulled")
            return
        }
        #expect(error.id == 42 && error.error.contains("test.app.nope"))
    }

    @Test(arguments: HostTestSetup.allCases)
    func concurrentPullsFromManyHostsShareOneUpdate(_ setup: HostTestSetup) throws {
        let world = try setup.start([TestExtension(Self.widget, delay: .milliseconds(500))])
        let hosts = try (0..<6).map { _ in try world.connectHost() }
        for (index, host) in hosts.enumerated() {
            try host.send(
                .pull(
                    .init(
                        id: RequestID(rawValue: UInt64(index)), extensionID: Self.widget, mode: .compact,
                        maxSize: Size(width: 100, height: 100))))
        }
        var versions: Set<UInt64> = []
        for (index, host) in hosts.enumerated() {
            guard case .snapshot(let snapshot) = try world.receive(on: host, within: .seconds(5), matching: { _ in true }),
                snapshot.id?.rawValue == UInt64(index)
            else {
                Issue.record("host \(index) got no snapshot")
                continue
            }
            #expect(snapshot.result == .newData, "\(world.diagnostics(Self.widget))")
            versions.insert(snapshot.version)
        }
        #expect(versions == [1])
        #expect(try world.updates(of: Self.widget).count == 1)
        let stats = try world.stats(Self.widget)
        #expect(stats?.pullsUpdated == 1 && stats?.pullsCoalesced == 5)
    }

    @Test func aSubscriberGetsTheSnapshotOfAManualRefreshPushed() throws {
        let bed = try ExtensionTestBed()
        try bed.start(ExtensionTestBed.extensionTable(Self.widget, command: try bed.command(.answer)))
        let subscriber = try bed.daemon.connectHost()
        let bystander = try bed.daemon.connectHost()
        try subscriber.send(.subscribe(.init(extensions: [Self.widget])))
        _ = try list(subscriber, id: 1)  // answered after the subscribe was applied

        #expect(try bed.control(.refresh(NameSelection([Self.widget]))).ok)
        guard case .snapshot(let pushed) = try subscriber.receive() else {
            Issue.record("no push")
            return
        }
        #expect(pushed.id == nil && pushed.extensionID == Self.widget)
        #expect(pushed.result == .newData && pushed.version == 1)
        // A host that did not subscribe gets nothing before the answer to its own request.
        try bystander.send(.list(.init(id: 7)))
        #expect(try bystander.receive().answerID == 7)

        guard case .error(let unknown) = try subscribeAnswer(subscriber, to: "test.app.nope", id: 2) else {
            Issue.record("subscribing to an unknown extension was accepted")
            return
        }
        #expect(unknown.error.contains("test.app.nope"))
    }

    @Test(arguments: HostTestSetup.allCases)
    func performRunsAnActionOnMatchingItemsOnly(_ setup: HostTestSetup) throws {
        let world = try setup.start([
            TestExtension(Self.action, .action, point: "action", settings: #"activation = { "public.text" = 2 }"#),
            TestExtension(Self.widget),
        ])
        let host = try world.connectHost()
        let text = Item(type: "public.text", value: "hello")

        let completed = try perform(host, Self.action, [text, text], id: 1, in: world)
        #expect(
            completed
                == .completed(
                    .init(
                        id: 1,
                        items: [
                            Item(type: "public.text", value: "handled public.text"), Item(type: "public.text", value: "handled public.text"),
                        ])))

        let rejections: [(items: [Item], problem: String)] = [
            ([Item(type: "public.image", path: "/tmp/cat.png")], "public.image is not accepted"),
            ([text, text, text], "3 items of type public.text, at most 2"),
            ([], "no items"),
        ]
        for (offset, rejection) in rejections.enumerated() {
            let id = RequestID(rawValue: UInt64(10 + offset))
            guard case .error(let error) = try perform(host, Self.action, rejection.items, id: id, in: world) else {
                Issue.record("\(rejection.items) was accepted")
                continue
            }
            #expect(error.id == id && error.error.contains(rejection.problem), "\(error.error)")
        }
        guard case .error(let wrongPoint) = try perform(host, Self.widget, [text], id: 20, in: world) else {
            Issue.record("a widget performed an action")
            return
        }
        #expect(wrongPoint.error.contains("widget"))

        if let daemon = world.daemon {
            // An action has no content to refresh: it would never answer an `update`.
            #expect(try daemon.control(.refresh(NameSelection([Self.action]))).error?.contains("action extension") == true)
            // `supervisorctl perform` acts as a host would.
            let control = try daemon.control(.perform(PerformRequest(name: Self.action, items: [Item(type: "public.text", path: "/tmp/note.txt")])))
            #expect(control.ok && control.lines == [#"public.text="handled public.text""#], "\(control)")
            #expect(
                try daemon.control(.perform(PerformRequest(name: Self.action, items: [Item(type: "public.image", path: "/tmp/cat.png")]))).error?.contains(
                    "public.image") == true)
        }
    }

    @Test(arguments: HostTestSetup.allCases)
    func anActionCancelsWithAnErrorAndItemsMatchTheTypesTheirsConformTo(_ setup: HostTestSetup) throws {
        let world = try setup.start(
            [TestExtension(Self.action, .action, point: "action", settings: #"activation = { "public.image" = 1, "public.text" = 2 }"#)],
            more: "[types]\n\"com.example.raw-photo\" = [\"public.image\"]\n")
        let host = try world.connectHost()
        for (offset, type) in ["public.jpeg", "com.example.raw-photo", "public.image"].enumerated() {
            let id = RequestID(rawValue: UInt64(1 + offset))
            let answer = try perform(host, Self.action, [Item(type: type, path: "/tmp/cat")], id: id, in: world)
            #expect(answer == .completed(.init(id: id, items: [Item(type: "public.text", value: .string("handled \(type)"))])))
        }
        // Both count against the one image the rule accepts.
        guard
            case .error(let tooMany) = try perform(
                host, Self.action, [Item(type: "public.jpeg", path: "/a"), Item(type: "public.png", path: "/b")], id: 10, in: world)
        else {
            Issue.record("two images were accepted")
            return
        }
        #expect(tooMany.error.contains("2 items of type public.image, at most 1"), "\(tooMany.error)")

        guard case .error(let canceled) = try perform(host, Self.action, [Item(type: "public.plain-text", value: "cancel")], id: 11, in: world)
        else {
            Issue.record("the canceled action completed")
            return
        }
        #expect(canceled.id == 11 && canceled.error == "the user canceled")
        // A cancel ends the request, not the run: the next perform is served by the same process.
        let after = try perform(host, Self.action, [Item(type: "public.text", value: "again")], id: 12, in: world)
        #expect(after == .completed(.init(id: 12, items: [Item(type: "public.text", value: "handled public.text")])))
        #expect(try world.stats(Self.action)?.launches == 1)
    }

    @Test(arguments: HostTestSetup.allCases)
    func anActionThatNeverCompletesIsKilledAtItsDeadline(_ setup: HostTestSetup) throws {
        let world = try setup.start([TestExtension(Self.action, .hangingAction, point: "action", refresh: "deadline = \"500ms\"")])
        let host = try world.connectHost()
        guard case .error(let error) = try perform(host, Self.action, [Item(type: "public.text", value: "hi")], id: 3, in: world) else {
            Issue.record("the action completed")
            return
        }
        #expect(error.id == 3 && error.error.contains("deadline"), "\(error.error)")
        #expect(try world.elapsed >= .milliseconds(500))
        if let daemon = world.daemon {
            let events = try daemon.control(.events(LogRequest(lines: 500))).events ?? []
            #expect(events.filter { $0.kind == .kill && $0.name == Self.action }.compactMap(\.reason) == ["deadline"])
        }
    }

    /// (A message of an unknown type is answered and keeps the connection: GalleryTests.)
    @Test(arguments: HostTestSetup.allCases, [#"{"type":"pull","id":1,"extension":7}"#, "not json", #"{"type":"pull","id":1}"#])
    func aMalformedLineClosesOnlyThatConnection(_ setup: HostTestSetup, _ line: String) throws {
        let world = try setup.start([TestExtension(Self.widget)])
        let offender = try world.connectHost()
        let other = try world.connectHost()
        try offender.send(bytes: Array((line + "\n").utf8))
        guard case .error(let error) = try world.receive(on: offender, within: .seconds(5), matching: { _ in true }) else {
            Issue.record("no error for \(line)")
            return
        }
        #expect(error.id == nil && !error.error.isEmpty)
        #expect(try offender.closedByPeer())
        #expect(try world.pull(Self.widget, on: other, request: 5).result == .newData)
    }

    @Test func disabledExtensionsAreRefusedAcrossARestart() throws {
        let bed = try ExtensionTestBed()
        try bed.start(ExtensionTestBed.extensionTable(Self.widget, command: try bed.command(.answer)))
        #expect(try bed.control(.disable(NameSelection([Self.widget]))).ok)
        try expectRefused(bed, id: 1)

        try bed.restart()
        try expectRefused(bed, id: 2)
        #expect(try list(try bed.daemon.connectHost(), id: 3).first?.enabled == false)

        #expect(try bed.control(.enable(NameSelection([Self.widget]))).ok)
        try bed.restart()
        guard case .snapshot(let snapshot) = try bed.daemon.connectHost().pull(Self.widget, id: 4) else {
            Issue.record("the enabled extension was refused")
            return
        }
        #expect(snapshot.result == .newData)
    }

    @Test func onlyTheUsersChoicesOverrideTheConfiguredEnabledState() throws {
        let bed = try ExtensionTestBed()
        let command = try bed.command(.answer)
        let config = { (hiddenSettings: String) in
            ExtensionTestBed.extensionTable(Self.widget, command: command)
                + ExtensionTestBed.extensionTable(Self.hidden, command: command, settings: hiddenSettings)
        }
        try bed.start(config(""))
        #expect(try bed.control(.disable(NameSelection([Self.widget]))).ok)
        // The user never chose for `hidden`: a config change applies, on reload and at restart.
        try bed.writeConfig(config("enabled = false"))
        #expect(try bed.control(.reload).ok)
        #expect(try enabledStates(bed) == [Self.hidden: false, Self.widget: false])
        try bed.restart()
        #expect(try enabledStates(bed) == [Self.hidden: false, Self.widget: false])
        #expect(try bed.control(.enable(NameSelection([Self.hidden]))).ok)
        try bed.restart()
        #expect(try enabledStates(bed) == [Self.hidden: true, Self.widget: false])
    }

    @Test func aDisabledExtensionGetsNoScheduledRefreshes() throws {
        let bed = try ExtensionTestBed()
        let updates = bed.countFile(Self.widget)
        try bed.start(
            ExtensionTestBed.extensionTable(
                Self.widget, command: try bed.command(.answer, countFile: updates),
                refresh: """
                    interval = "200ms"
                    min_interval = "200ms"
                    """))
        _ = try bed.pull(Self.widget)
        #expect(eventually { ScriptedExtension.updates(in: updates) >= 2 })  // scheduled refreshes run
        #expect(try bed.control(.disable(NameSelection([Self.widget]))).ok)
        Thread.sleep(forTimeInterval: 0.3)  // an update that had already started may finish
        let whenDisabled = ScriptedExtension.updates(in: updates)
        Thread.sleep(forTimeInterval: 0.6)
        #expect(ScriptedExtension.updates(in: updates) == whenDisabled)

        #expect(try bed.control(.enable(NameSelection([Self.widget]))).ok)
        #expect(eventually { ScriptedExtension.updates(in: updates) > whenDisabled })
    }

    @Test func aControlPullWithABadSizeNamesTheOption() throws {
        let bed = try ExtensionTestBed()
        try bed.start(ExtensionTestBed.extensionTable(Self.widget, command: try bed.command(.answer)))
        // Values the typed request cannot hold, sent as raw JSON.
        for (option, value, problem) in [("width", #""wide""#, "should be"), ("height", "-3", "-3 is not in 1...10000")] {
            let line = #"{"command":"pull","name":"\#(Self.widget)","mode":"compact","\#(option)":\#(value)}"# + "\n"
            let reply = try ControlCodec.decode(ControlResponse.self, from: try bed.daemon.exchange(Array(line.utf8)).dropLast())
            #expect(!reply.ok && reply.code == .badRequest && reply.error?.contains("field \(option)") == true, "\(reply)")
            #expect(reply.error?.contains(problem) == true, "\(reply)")
        }
        #expect(try bed.control(.pull(PullRequest(name: Self.widget, width: 640, height: 480))).pull?.result == "newData")
    }

    // MARK: Helpers

    private func list(_ host: TestHost, id: RequestID) throws -> [SupervisorToHost.ExtensionInfo] {
        try host.send(.list(.init(id: id)))
        guard case .extensions(let answer) = try host.receive(matching: { $0.answerID == id }) else {
            throw TestSupportError("list \(id) was not answered with extensions")
        }
        return answer.extensions
    }

    private func enabledStates(_ bed: ExtensionTestBed) throws -> [String: Bool] {
        Dictionary(uniqueKeysWithValues: try list(try bed.daemon.connectHost(), id: 99).map { ($0.id, $0.enabled) })
    }

    private func perform(_ host: TestHost, _ id: String, _ items: [Item], id requestID: RequestID, in world: any HostWorld) throws -> SupervisorToHost {
        try world.request(.perform(.init(id: requestID, extensionID: id, items: items)), on: host)
    }

    private func subscribeAnswer(_ host: TestHost, to id: String, id requestID: RequestID) throws -> SupervisorToHost {
        try host.send(.subscribe(.init(id: requestID, extensions: [id])))
        return try host.receive { $0.answerID == requestID }
    }

    private func expectRefused(_ bed: ExtensionTestBed, id: RequestID) throws {
        guard case .error(let error) = try bed.daemon.connectHost().pull(Self.widget, id: id) else {
            Issue.record("the disabled extension was pulled")
            return
        }
        #expect(error.error.contains("disabled"))
    }
}
