import ExtensiondTestSupport
import Foundation
import Testing
import WireProtocol

/// Stale-while-revalidate against a real daemon and a slow real extension: an expired
/// snapshot is answered from the cache before the extension could answer, and the new
/// one follows as a push; `wait: true` gets the update's answer.
@Suite struct WidgetFreshnessTests {
    static let widget = "test.app.slow"

    @Test func anExpiredSnapshotIsAnsweredAtOnceAndTheFreshOneIsPushed() throws {
        let bed = try ExtensionTestBed()
        // `reload: never`: no scheduled refresh, so every update here is one a pull started.
        let updates = bed.countFile(Self.widget)
        try bed.start(ExtensionTestBed.extensionTable(
            Self.widget, command: try bed.command(.answer, countFile: updates, delay: 1, reload: "never"),
            refresh: "interval = \"300ms\"\nmin_interval = \"300ms\"\npull_cooldown = \"0s\""))
        let host = try bed.daemon.connectHost()
        guard case .snapshot(let first) = try host.pull(Self.widget, id: 1) else { throw TestSupportError("no first snapshot") }
        #expect(first.result == .newData && first.version == 1)
        Thread.sleep(forTimeInterval: 0.4)  // past the freshness of 300 ms

        let sent = ContinuousClock.now
        guard case .snapshot(let expired) = try host.pull(Self.widget, id: 2) else { throw TestSupportError("no answer") }
        let latency = ContinuousClock.now - sent
        #expect(expired.result == .cached && expired.expired && expired.version == 1, "\(bed.diagnostics(Self.widget))")
        // The extension takes a second per update: the answer did not wait for it.
        #expect(latency < .milliseconds(100), "answered after \(latency)")
        // While it revalidates, more pulls of the expired snapshot are answered from the cache
        // too: the quickest round trip of five shows the daemon's own time (the machine is shared).
        var quickest = latency
        for id in UInt64(10)..<15 {
            let sentAgain = ContinuousClock.now
            guard case .snapshot(let again) = try host.pull(Self.widget, id: RequestID(rawValue: id)) else { throw TestSupportError("no answer") }
            quickest = min(quickest, ContinuousClock.now - sentAgain)
            #expect(again.expired && again.version == 1)
        }
        #expect(quickest < .milliseconds(5), "quickest expired answer after \(quickest)")
        let push = try host.receive(timeout: 5) { if case .snapshot(let pushed) = $0 { pushed.id == nil } else { false } }
        guard case .snapshot(let fresh) = push else { return }
        #expect(fresh.result == .newData && fresh.version == 2 && !fresh.expired)
        #expect(ContinuousClock.now - sent >= .milliseconds(900), "the push is the update's")

        Thread.sleep(forTimeInterval: 0.4)
        let waited = ContinuousClock.now
        guard case .snapshot(let answered) = try host.pull(Self.widget, id: 3, wait: true) else { throw TestSupportError("no answer") }
        #expect(answered.result == .newData && answered.version == 3 && !answered.expired)
        #expect(ContinuousClock.now - waited >= .milliseconds(900), "wait: true answers after the update")
    }
}
