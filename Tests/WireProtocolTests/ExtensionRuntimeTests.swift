import Synchronization
import Testing

@testable import ExtensionSDK

#if canImport(Glibc)
import Glibc
#endif

/// The SDK's runtime loop, driven over a real socketpair by a test playing the supervisor.
@Suite struct ExtensionRuntimeTests {
    /// Answers pulls with what it was asked, schedules with noData, manual updates by
    /// reading shared defaults and opening a URL; counts memory warnings.
    struct ProbeWidget: Widget {
        var updates = 0
        var memoryWarnings = 0

        mutating func update(mode: DisplayMode, maxSize: Size, reason: UpdateReason, context: ExtensionContext)
            -> UpdateResult<[String: JSONValue]>
        {
            updates += 1
            switch reason {
            case .pull:
                var snapshot: [String: JSONValue] = [
                    "mode": .string(mode.rawValue), "width": .number(Double(maxSize.width)),
                    "updates": .number(Double(updates)), "warnings": .number(Double(memoryWarnings)),
                ]
                if let instance = context.instance {
                    snapshot["instance"] = .string(instance)
                    snapshot["params"] = context.params
                }
                return .newData(snapshot, reload: .never, preferredSize: Size(width: maxSize.width, height: 60))
            case .schedule:
                return .noData
            case .manual:
                let defaults = context.defaults(group: "group.test")
                do {
                    let stored = try defaults.get("k")
                    let opened = context.openURL("test://x")
                    context.setHasContent(false)
                    return .newData(["stored": stored ?? "missing", "opened": .bool(opened)])
                } catch {
                    return .failed("\(error)")
                }
            }
        }

        mutating func memoryWarning(current: UInt64, high: UInt64, context: ExtensionContext) {
            memoryWarnings += 1
        }
    }

    /// Upper-cases text items and drops the rest; cancels when there is no text, with the
    /// image's path as the error.
    struct ShoutAction: Action {
        struct NothingToShout: Error, CustomStringConvertible {
            var description: String
        }

        func perform(items: [Item], context: ExtensionContext) throws -> [Item] {
            let shouted = items.compactMap { item -> Item? in
                guard case .value(.string(let text)) = item.content else { return nil }
                return Item(type: item.type, value: .string(text.uppercased()))
            }
            guard !shouted.isEmpty else {
                let paths = items.compactMap { if case .path(let path) = $0.content { path } else { nil } }
                throw NothingToShout(description: "nothing to shout in: \(paths.joined())")
            }
            return shouted
        }
    }

    /// An extension's runtime on its own thread, and the supervisor's end of its socket.
    final class RunningRuntime {
        let peer: SupervisorPeer
        private let thread: TestThread
        private let ending = Ending()

        /// How `serve` ended: `terminated` or the error it threw.
        final class Ending: Sendable {
            let text = Mutex<String?>(nil)
        }

        init(_ makeHandler: @escaping @Sendable () -> any RequestHandler = { WidgetHandler(widget: ProbeWidget()) })
            throws
        {
            peer = try SupervisorPeer()
            let descriptor = peer.extensionDescriptor
            thread = try TestThread { [ending] in
                var handler = makeHandler()
                let text: String
                do {
                    try ExtensionRuntime.serve(&handler, descriptor: descriptor, environment: .init(descriptor: descriptor))
                    text = "terminated"
                } catch {
                    text = "\(error)"
                }
                ending.text.withLock { $0 = text }
            }
        }

        /// Waits for the runtime to return and says how it ended.
        func finish() -> String? {
            thread.join()
            return ending.text.withLock { $0 }
        }
    }

    let size = Size(width: 320, height: 120)

    @Test func readyUpdateResultTerminate() throws {
        let runtime = try RunningRuntime()
        let peer = runtime.peer
        #expect(try peer.expectMessage() == .ready(.init(protocol: 1)))

        try peer.send(.update(.init(id: 41, mode: .expanded, maxSize: size, reason: .pull)))
        #expect(
            try peer.expectMessage()
                == .result(
                    .init(
                        id: 41, result: .newData, snapshot: ["mode": "expanded", "width": 320, "updates": 1, "warnings": 0],
                        reload: .never, preferredSize: Size(width: 320, height: 60))))

        try peer.send(.update(.init(id: 42, mode: .compact, maxSize: size, reason: .schedule)))
        #expect(try peer.expectMessage() == .result(.init(id: 42, result: .noData)))

        try peer.send(.memoryWarning(.init(current: 2, high: 1)))
        try peer.send(.update(.init(id: 43, mode: .compact, maxSize: size, reason: .pull)))
        guard case .result(let result) = try peer.expectMessage() else {
            Issue.record("expected a result")
            return
        }
        #expect(result.snapshot == ["mode": "compact", "width": 320, "updates": 3, "warnings": 1])

        try peer.send(.terminate)
        #expect(runtime.finish() == "terminated")
        // Nothing was sent after terminate.
        peer.closeExtensionEnd()
        #expect(try peer.receive() == nil)
    }

    @Test func anUpdateOfAnInstanceNamesItAndItsParams() throws {
        let runtime = try RunningRuntime()
        let peer = runtime.peer
        _ = try peer.expectMessage()
        try peer.send(.update(.init(id: 1, mode: .compact, maxSize: size, reason: .pull, instance: "oslo", params: ["city": "Oslo"])))
        guard case .result(let instance) = try peer.expectMessage() else {
            Issue.record("expected a result")
            return
        }
        #expect(instance.snapshot?.objectValue?["instance"] == "oslo")
        #expect(instance.snapshot?.objectValue?["params"] == ["city": "Oslo"])
        // The next update, of the widget itself, has none.
        try peer.send(.update(.init(id: 2, mode: .compact, maxSize: size, reason: .pull)))
        guard case .result(let own) = try peer.expectMessage() else {
            Issue.record("expected a result")
            return
        }
        #expect(own.snapshot?.objectValue?["instance"] == nil)
        try peer.send(.terminate)
        #expect(runtime.finish() == "terminated")
    }

    @Test func synchronousCallsQueueOtherMessages() throws {
        let runtime = try RunningRuntime()
        let peer = runtime.peer
        _ = try peer.expectMessage()
        try peer.send(.update(.init(id: 1, mode: .compact, maxSize: size, reason: .manual)))

        guard case .defaults(let request) = try peer.expectMessage() else {
            Issue.record("expected a defaults request")
            return
        }
        #expect(request.group == "group.test" && request.op == .get && request.key == "k")
        // Arrives while the widget waits: must be kept for after the update.
        try peer.send(.memoryWarning(.init(current: 5, high: 4)))
        // A stale answer to some other id is not taken for this one.
        try peer.send(.defaultsResult(.init(id: request.id.next, outcome: .value("wrong"))))
        try peer.send(.defaultsResult(.init(id: request.id, outcome: .value(["x": 1]))))

        guard case .openURL(let open) = try peer.expectMessage() else {
            Issue.record("expected openURL")
            return
        }
        #expect(open.url == "test://x")
        #expect(open.id != request.id)
        try peer.send(.openURLResult(.init(id: open.id, success: true)))

        #expect(try peer.expectMessage() == .setHasContent(.init(value: false)))
        #expect(
            try peer.expectMessage()
                == .result(.init(id: 1, result: .newData, snapshot: ["stored": ["x": 1], "opened": true])))

        // The queued warning was delivered after the update.
        try peer.send(.update(.init(id: 2, mode: .compact, maxSize: size, reason: .pull)))
        guard case .result(let result) = try peer.expectMessage() else {
            Issue.record("expected a result")
            return
        }
        #expect(result.snapshot?.objectValue?["warnings"] == 1)

        try peer.send(.terminate)
        #expect(runtime.finish() == "terminated")
    }

    @Test func rejectedDefaultsFailTheUpdate() throws {
        let runtime = try RunningRuntime()
        let peer = runtime.peer
        _ = try peer.expectMessage()
        try peer.send(.update(.init(id: 7, mode: .compact, maxSize: size, reason: .manual)))
        guard case .defaults(let request) = try peer.expectMessage() else {
            Issue.record("expected a defaults request")
            return
        }
        try peer.send(.defaultsResult(.init(id: request.id, outcome: .error("not your group"))))
        #expect(
            try peer.expectMessage()
                == .result(.init(id: 7, result: .failed, error: "the supervisor refused the shared-defaults request: not your group")))
        try peer.send(.terminate)
        #expect(runtime.finish() == "terminated")
    }

    @Test func actionsAnswerBeginWithTheirItems() throws {
        let runtime = try RunningRuntime { ActionHandler(action: ShoutAction()) }
        let peer = runtime.peer
        #expect(try peer.expectMessage() == .ready(.init(protocol: 1)))
        let items = [Item(type: "public.text", value: "hi"), Item(type: "public.image", path: "/tmp/a.png")]
        try peer.send(.begin(.init(id: 5, items: items)))
        #expect(try peer.expectMessage() == .complete(.init(id: 5, items: [Item(type: "public.text", value: "HI")])))
        try peer.send(.update(.init(id: 6, mode: .compact, maxSize: size, reason: .pull)))
        #expect(
            try peer.expectMessage()
                == .result(.init(id: 6, result: .failed, error: "an action extension has no content")))
        try peer.send(.terminate)
        #expect(runtime.finish() == "terminated")
    }

    @Test func anActionThatThrowsCancelsWithItsErrorCutToTheBound() throws {
        let runtime = try RunningRuntime { ActionHandler(action: ShoutAction()) }
        let peer = runtime.peer
        #expect(try peer.expectMessage() == .ready(.init(protocol: 1)))
        try peer.send(.begin(.init(id: 5, items: [Item(type: "public.image", path: "/tmp/a.png")])))
        #expect(try peer.expectMessage() == .cancel(.init(id: 5, error: "nothing to shout in: /tmp/a.png")))
        // "é" is two bytes after 21 ASCII ones: the cut falls on a character boundary, at 4095 bytes.
        try peer.send(.begin(.init(id: 6, items: [Item(type: "public.image", path: String(repeating: "é", count: 5000))])))
        guard case .cancel(let cancel) = try peer.expectMessage() else {
            Issue.record("no cancel")
            return
        }
        #expect(cancel.id == 6 && cancel.error.utf8.count == 4096 - 1 && cancel.error.hasSuffix("é"))
        try peer.send(.terminate)
        #expect(runtime.finish() == "terminated")
    }

    @Test func closedConnectionEndsTheRuntime() throws {
        let runtime = try RunningRuntime()
        let peer = runtime.peer
        _ = try peer.expectMessage()
        shutdown(peer.descriptor, Int32(SHUT_WR))
        #expect(runtime.finish() == "\(ConnectionError.closed)")
    }

    @Test func garbageFromTheSupervisorIsAProtocolViolation() throws {
        let runtime = try RunningRuntime()
        let peer = runtime.peer
        _ = try peer.expectMessage()
        try peer.sendRaw(Array("{\"type\":\"update\",\"id\":1}\n".utf8))
        #expect(
            runtime.finish()
                == "\(ProtocolError.invalidField(messageType: "update", field: "mode", problem: "missing"))")
    }
}

extension JSONValue {
    var objectValue: [String: JSONValue]? {
        guard case .object(let fields) = self else { return nil }
        return fields
    }
}
