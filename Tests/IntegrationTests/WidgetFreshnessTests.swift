import ExtensiondTestSupport
import Testing
import WireProtocol

/// Stale-while-revalidate, in process and against a real daemon, with a slow extension: an
/// expired snapshot is answered from the cache before the extension could answer, and the
/// new one follows as a push; `wait: true` gets the update's answer.
@Suite struct WidgetFreshnessTests {
    static let widget = "test.app.slow"

    @Test(arguments: HostTestSetup.allCases)
    func anExpiredSnapshotIsAnsweredAtOnceAndTheFreshOneIsPushed(_ setup: HostTestSetup) throws {
        // `reload: never`: no scheduled refresh, so every update here is one a pull started.
        let world = try setup.start([
            TestExtension(
                Self.widget, delay: .seconds(1), reload: "never", refresh: "interval = \"300ms\"\nmin_interval = \"300ms\"\npull_cooldown = \"0s\"")
        ])
        let host = try world.connectHost()
        let first = try world.pull(Self.widget, on: host, request: 1)
        #expect(first.result == .newData && first.version == 1)
        try world.advance(by: .milliseconds(400))  // past the freshness of 300 ms

        let sent = try world.elapsed
        let expired = try world.pull(Self.widget, on: host, request: 2)
        let latency = try world.elapsed - sent
        #expect(expired.result == .cached && expired.expired && expired.version == 1, "\(world.diagnostics(Self.widget))")
        // The extension takes a second per update: the answer did not wait for it.
        #expect(latency < .milliseconds(100), "answered after \(latency)")
        // While it revalidates, more pulls of the expired snapshot are answered from the cache
        // too: the quickest round trip of five shows the daemon's own time (the machine is shared).
        var quickest = latency
        for id in UInt64(10)..<15 {
            let sentAgain = try world.elapsed
            let again = try world.pull(Self.widget, on: host, request: RequestID(rawValue: id))
            quickest = min(quickest, try world.elapsed - sentAgain)
            #expect(again.expired && again.version == 1)
        }
        #expect(quickest < .milliseconds(5), "quickest expired answer after \(quickest)")
        let fresh = try world.push(on: host)
        #expect(fresh.result == .newData && fresh.version == 2 && !fresh.expired)
        #expect(try world.elapsed - sent >= .milliseconds(900), "the push is the update's")

        try world.advance(by: .milliseconds(400))
        let waited = try world.elapsed
        let answered = try world.pull(Self.widget, on: host, request: 3, wait: true)
        #expect(answered.result == .newData && answered.version == 3 && !answered.expired)
        #expect(try world.elapsed - waited >= .milliseconds(900), "wait: true answers after the update")
    }
}
