import Testing
import WireProtocol

@testable import ExtensionSDK

/// The SDK's side of docs/PROTOCOL.md §6: `execute` reaches the widget's `execute` (or, when
/// it has none, an update with reason `manual`), and the host's environment is in the context.
@Suite struct ExecuteRuntimeTests {
    let size = Size(width: 320, height: 110)

    struct Lamp: Widget {
        var on = false

        mutating func update(mode: DisplayMode, maxSize: Size, reason: UpdateReason, context: ExtensionContext)
            -> UpdateResult<[String: JSONValue]>
        {
            .newData([
                "on": .bool(on), "reason": .string(reason.rawValue), "scheme": .string(context.environment.colorScheme?.rawValue ?? "none"),
                "locale": .string(context.environment.locale ?? "none"),
            ])
        }

        mutating func execute(verb: String, data: JSONValue, mode: DisplayMode, maxSize: Size, context: ExtensionContext)
            -> UpdateResult<[String: JSONValue]>
        {
            if verb == "toggle" { on.toggle() }
            return .newData(["on": .bool(on), "verb": .string(verb), "data": data, "instance": context.instance.map(JSONValue.string) ?? .null])
        }
    }

    /// Implements no `execute`.
    struct Plain: Widget {
        func update(mode: DisplayMode, maxSize: Size, reason: UpdateReason, context: ExtensionContext) -> UpdateResult<[String: String]> {
            .newData(["reason": reason.rawValue])
        }
    }

    @Test func executeReachesTheWidgetWithItsEnvironmentAndInstance() throws {
        let runtime = try ExtensionRuntimeTests.RunningRuntime { WidgetHandler(widget: Lamp()) }
        let peer = runtime.peer
        _ = try peer.expectMessage()
        try peer.send(
            .update(
                .init(
                    id: 1, mode: .compact, maxSize: size, reason: .pull,
                    environment: RenderEnvironment(colorScheme: .dark, locale: "zh-CN", scale: 2))))
        #expect(
            try peer.expectMessage()
                == .result(
                    .init(
                        id: 1, result: .newData,
                        snapshot: ["on": false, "reason": "pull", "scheme": "dark", "locale": "zh-CN"])))
        try peer.send(.execute(.init(id: 2, verb: "toggle", data: ["n": 1], mode: .compact, maxSize: size, instance: "hall")))
        #expect(
            try peer.expectMessage()
                == .result(
                    .init(
                        id: 2, result: .newData,
                        snapshot: ["on": true, "verb": "toggle", "data": ["n": 1], "instance": "hall"])))
        // The environment belonged to its request: the next one without it has none.
        try peer.send(.update(.init(id: 3, mode: .compact, maxSize: size, reason: .schedule)))
        #expect(
            try peer.expectMessage()
                == .result(
                    .init(
                        id: 3, result: .newData,
                        snapshot: ["on": true, "reason": "schedule", "scheme": "none", "locale": "none"])))
        try peer.send(.terminate)
        #expect(runtime.finish() == "terminated")
    }

    @Test func aWidgetWithoutExecuteIsUpdatedManually() throws {
        let runtime = try ExtensionRuntimeTests.RunningRuntime { WidgetHandler(widget: Plain()) }
        let peer = runtime.peer
        _ = try peer.expectMessage()
        try peer.send(.execute(.init(id: 5, verb: "anything", data: .null, mode: .compact, maxSize: size)))
        #expect(try peer.expectMessage() == .result(.init(id: 5, result: .newData, snapshot: ["reason": "manual"])))
        try peer.send(.terminate)
        #expect(runtime.finish() == "terminated")
    }
}
