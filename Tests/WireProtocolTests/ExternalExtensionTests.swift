import Testing
import WireProtocol

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Real extension processes, started with the socket at fd 3: the Python example (built on
/// the Python SDK, which is written from docs/PROTOCOL.md alone) and the demo widget
/// (built on the Swift SDK).
@Suite struct ExternalExtensionTests {
    static let repository = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    let size = Size(width: 320, height: 120)

    /// Spawns `arguments` as an extension and returns the supervisor's end after `ready`.
    func launch(_ arguments: [String]) throws -> (SupervisorPeer, SpawnedProcess) {
        let peer = try SupervisorPeer()
        let process = try SpawnedProcess(
            arguments,
            environment: [
                ExtensionEnvironment.fdVariable: "3", ExtensionEnvironment.extensionIDVariable: "test.widget",
                "PATH": getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin",
                "PYTHONPATH": Self.repository.appending(path: "sdk/python").path,
            ],
            socket: peer.extensionDescriptor)
        peer.closeExtensionEnd()
        #expect(try peer.expectMessage() == .ready(.init(protocol: 1)))
        return (peer, process)
    }

    @Test func pythonExampleAnswersUpdates() throws {
        let script = Self.repository.appending(path: "examples/python-widget/widget.py").path
        let (peer, process) = try launch(["python3", script])

        try peer.send(.update(.init(id: 11, mode: .compact, maxSize: size, reason: .pull)))
        guard case .result(let first) = try peer.expectMessage() else {
            Issue.record("expected a result")
            return
        }
        #expect(first.id == 11 && first.result == .newData && first.reload == .atEnd)
        // An Adaptive Card; a timeline of the next ten seconds, one card a second.
        #expect(first.snapshot?.objectValue?["type"] == "AdaptiveCard")
        #expect(Self.line(0, of: first.snapshot) == "Hello from Python, update #1")
        let timeline = first.timeline ?? []
        #expect(timeline.count == 10 && timeline.allSatisfy { Self.line(0, of: $0.snapshot) == "Hello from Python, update #1" })
        #expect(Set(timeline.map { Self.line(1, of: $0.snapshot) }).count == 10, "each entry shows its own second")
        #expect(zip(timeline, timeline.dropFirst()).allSatisfy { abs($1.date.secondsSince1970 - $0.date.secondsSince1970 - 1) < 0.01 })

        try peer.send(.memoryWarning(.init(current: 1, high: 1)))
        try peer.send(.update(.init(id: 12, mode: .expanded, maxSize: size, reason: .schedule)))
        guard case .result(let result) = try peer.expectMessage() else {
            Issue.record("expected a result")
            return
        }
        #expect(result.id == 12 && result.result == .newData)
        #expect(Self.line(0, of: result.snapshot) == "Hello from Python, update #2")
        #expect(Self.line(2, of: result.snapshot) == "schedule, up to 320x120")

        try peer.send(.terminate)
        #expect(process.exitStatus() == 0)
    }

    /// The text of the card's `index`th body element.
    static func line(_ index: Int, of card: JSONValue?) -> String? {
        guard case .array(let body)? = card?.objectValue?["body"], body.indices.contains(index) else { return nil }
        return body[index].objectValue?["text"]?.stringValue
    }

    @Test func pythonExampleExitsWhenTheSupervisorCloses() throws {
        let script = Self.repository.appending(path: "examples/python-widget/widget.py").path
        let (peer, process) = try launch(["python3", script])
        shutdown(peer.descriptor, Int32(SHUT_WR))
        #expect(process.exitStatus() == 0)
    }

    /// The demo widget falls back to its own counter when the group is refused.
    @Test func demoWidgetCountsInSharedDefaultsThenInProcess() throws {
        let executable = try #require(Self.builtProduct("DemoWidget"), "build the DemoWidget product first")
        let (peer, process) = try launch([executable])

        try peer.send(.update(.init(id: 1, mode: .expanded, maxSize: size, reason: .pull)))
        guard case .defaults(let get) = try peer.expectMessage() else {
            Issue.record("expected a defaults get")
            return
        }
        #expect(get.group == "group.demo" && get.op == .get && get.key == "counter")
        try peer.send(.defaultsResult(.init(id: get.id, outcome: .value(41))))
        guard case .defaults(let set) = try peer.expectMessage() else {
            Issue.record("expected a defaults set")
            return
        }
        #expect(set.op == .set && set.value == 42)
        try peer.send(.defaultsResult(.init(id: set.id, outcome: .value(.null))))
        guard case .result(let expanded) = try peer.expectMessage() else {
            Issue.record("expected a result")
            return
        }
        let fields = try #require(expanded.snapshot?.objectValue)
        #expect(fields["count"] == 42)
        #expect(fields["counterStore"] == "group.demo")
        #expect(fields["date"] != nil && fields["load"] != nil)
        #expect(expanded.reload == nil)
        // The clock ticks through a timeline of the next 29 seconds, the counter kept.
        let entries = expanded.timeline ?? []
        #expect(entries.count == 29 && entries.allSatisfy { $0.snapshot.objectValue?["count"] == 42 })
        #expect(Set(entries.compactMap { $0.snapshot.objectValue?["time"] }).count == 29)

        try peer.send(.update(.init(id: 2, mode: .compact, maxSize: size, reason: .pull)))
        guard case .defaults(let refused) = try peer.expectMessage() else {
            Issue.record("expected a defaults get")
            return
        }
        try peer.send(.defaultsResult(.init(id: refused.id, outcome: .error("no group.demo"))))
        guard case .result(let compact) = try peer.expectMessage() else {
            Issue.record("expected a result")
            return
        }
        let compactFields = try #require(compact.snapshot?.objectValue)
        #expect(compactFields["count"] == 43)
        #expect(compactFields["date"] == nil && compactFields["load"] == nil)

        // From now on the counter stays in the process: no more defaults requests.
        try peer.send(.update(.init(id: 3, mode: .compact, maxSize: size, reason: .pull)))
        guard case .result(let third) = try peer.expectMessage() else {
            Issue.record("expected a result without a defaults request")
            return
        }
        #expect(third.snapshot?.objectValue?["count"] == 44)

        try peer.send(.terminate)
        #expect(process.exitStatus() == 0)
    }

    /// A product built next to this test bundle (`swift build` puts them in one directory).
    static func builtProduct(_ name: String) -> String? {
        guard let resolved = realpath("/proc/self/exe", nil) else { return nil }
        defer { free(resolved) }
        var directory = URL(filePath: String(cString: resolved)).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appending(path: name).path
            if access(candidate, X_OK) == 0 { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }
}
