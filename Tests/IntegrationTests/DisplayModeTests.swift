import ExtensiondTestSupport
import Foundation
import HostProtocol
import Testing

/// Per-size snapshots against a real daemon: each declared mode has its own snapshot (kept
/// across a restart) and preferred size, and a mode a widget does not declare is refused.
@Suite struct DisplayModeTests {
    static let both = "test.app.both"
    static let compactOnly = "test.app.compact"

    @Test func compactAndExpandedAreKeptApart() throws {
        let bed = try ExtensionTestBed()
        let updates = bed.countFile(Self.both)
        try bed.start(
            ExtensionTestBed.extensionTable(
                Self.both, command: try bed.command(.modes, countFile: updates),
                refresh: "interval = \"1h\"")
                + ExtensionTestBed.extensionTable(
                    Self.compactOnly, command: try bed.command(.modes),
                    settings: "modes = [\"compact\"]"))
        let host = try bed.daemon.connectHost()
        // A version-1 host: it subscribes and knows no modes.
        let subscriber = try bed.daemon.connectHost()
        try subscriber.send(.subscribe(.init(extensions: [Self.both])))

        try host.send(.list(.init(id: 1)))
        guard case .extensions(let list) = try host.receive(matching: { $0.answerID == RequestID(rawValue: 1) }) else {
            throw TestSupportError("no list")
        }
        #expect(list.extensions.map(\.modes) == [[.compact, .expanded], [.compact]])

        let compact = try snapshot(host.pull(Self.both, id: 2, mode: .compact))
        #expect(compact.result == .newData && compact.mode == .compact && compact.version == 1)
        #expect(try compact.snapshot?.decoded() == ["n": 1, "pid": pid(compact), "mode": "compact"])
        #expect(compact.preferredSize == Size(width: 100, height: 40))

        // Right after the compact one, an expanded pull gets an expanded update, not the compact snapshot.
        let expanded = try snapshot(host.pull(Self.both, id: 3, mode: .expanded))
        #expect(expanded.result == .newData && expanded.mode == .expanded && expanded.version == 1)
        #expect(try expanded.snapshot?.decoded() == ["n": 2, "pid": pid(compact), "mode": "expanded"])
        #expect(expanded.preferredSize == Size(width: 300, height: 200))

        // The subscriber hears of the compact snapshot, not of the expanded one it never pulled.
        let pushed = try subscriber.receive { if case .snapshot(let pushed) = $0 { pushed.id == nil } else { false } }
        #expect(
            pushed
                == .snapshot(
                    SupervisorToHost.Snapshot(
                        id: nil, extensionID: Self.both, result: .newData, snapshot: compact.snapshot, version: 1, ageMs: 0, stale: false,
                        mode: .compact, preferredSize: compact.preferredSize)))
        #expect((try? subscriber.receive(timeout: 1) { if case .snapshot = $0 { true } else { false } }) == nil)

        let cachedCompact = try snapshot(host.pull(Self.both, id: 4, mode: .compact))
        #expect(cachedCompact.result == .cached && cachedCompact.snapshot == compact.snapshot)
        #expect(cachedCompact.preferredSize == Size(width: 100, height: 40))
        #expect(ScriptedExtension.updates(in: updates) == 2)

        guard case .error(let refused) = try host.pull(Self.compactOnly, id: 5, mode: .expanded) else {
            throw TestSupportError("an undeclared mode was served")
        }
        #expect(refused.error.contains(#"does not declare mode "expanded""#), "\(refused.error)")

        // Each mode's snapshot and preferred size survive a restart.
        try bed.restart()
        let restarted = try bed.daemon.connectHost()
        let restored = try snapshot(restarted.pull(Self.both, id: 6, mode: .expanded))
        #expect(restored.result == .cached && restored.snapshot == expanded.snapshot && restored.version == 1)
        #expect(restored.preferredSize == Size(width: 300, height: 200))
    }

    private func snapshot(_ message: SupervisorToHost) throws -> SupervisorToHost.Snapshot {
        guard case .snapshot(let snapshot) = message else { throw TestSupportError("expected a snapshot, got \(message)") }
        return snapshot
    }

    private func pid(_ snapshot: SupervisorToHost.Snapshot) throws -> JSONValue {
        guard case .object(let fields) = try snapshot.snapshot?.decoded(), let pid = fields["pid"] else {
            throw TestSupportError("no pid in \(snapshot)")
        }
        return pid
    }
}
