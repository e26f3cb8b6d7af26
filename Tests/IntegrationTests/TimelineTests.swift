import ExtensiondTestSupport
import Foundation
import Testing
import WireProtocol

/// Timelines against a real daemon: a widget launched once returns a minute of entries, and
/// a subscribed host gets each at its date, one version up each, without the extension.
@Suite struct TimelineTests {
    static let widget = "test.app.clock"

    @Test func aMinuteOfEntriesIsServedFromOneLaunch() throws {
        let bed = try ExtensionTestBed()
        let updates = bed.countFile(Self.widget)
        try bed.start(ExtensionTestBed.extensionTable(
            Self.widget, command: try bed.command(.timeline, countFile: updates, reload: "never"),
            settings: "idle_exit = \"1s\"", refresh: "interval = \"5s\"\nmin_interval = \"5s\"\npull_cooldown = \"0s\""))
        let host = try bed.daemon.connectHost()
        try host.send(.subscribe(.init(extensions: [Self.widget])))
        guard case .snapshot(let first) = try host.pull(Self.widget, id: 1) else { throw TestSupportError("no snapshot") }
        #expect(first.result == .newData && first.version == 1 && first.date == nil)

        var lateMs: [Double] = []
        for entry in 1...60 {
            let message = try host.receive(timeout: 3) {
                if case .snapshot(let pushed) = $0 { pushed.date != nil } else { false }
            }
            let arrived = Date()
            guard case .snapshot(let pushed) = message, let date = pushed.date else { continue }
            #expect(pushed.version == UInt64(entry) + 1 && pushed.result == .newData)
            #expect(try pushed.snapshot?.decoded() == ["entry": .number(Double(entry))])
            lateMs.append((arrived.timeIntervalSince1970 - date.secondsSince1970) * 1000)
            if entry == 30 {
                // Past the 5 s interval, a pull is served from the timeline, not expired.
                guard case .snapshot(let cached) = try host.pull(Self.widget, id: 2) else { throw TestSupportError("no snapshot") }
                #expect(cached.result == .cached && !cached.expired && cached.version == 31 && cached.date == date)
            }
        }
        #expect(lateMs.allSatisfy { abs($0) <= 100 }, "\(lateMs)")
        #expect(ScriptedExtension.updates(in: updates) == 1)
        #expect(try bed.stats(Self.widget)?.launches == 1)
    }
}
