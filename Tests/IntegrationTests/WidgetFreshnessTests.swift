import ExtensiondTestSupport
import Synchronization
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

    /// The answer a host waits for leaves before the result's bookkeeping: when the
    /// coordinator marks the widget idle after a result, the waiting pull's answer (the
    /// first pull) and the revalidated push (the expired pull's) are already in the host's
    /// socket, not held until the loop's callbacks end. In process only: the hook runs in
    /// the bookkeeping.
    @Test func theAnswerAHostWaitsForIsWrittenBeforeTheResultsBookkeeping() throws {
        let started = try HostTestSetup.inProcess.start([
            TestExtension(
                Self.widget, delay: .milliseconds(10), reload: "never",
                refresh: "interval = \"300ms\"\nmin_interval = \"300ms\"\npull_cooldown = \"0s\"")
        ])
        let world = try #require(started as? InProcessHostWorld)
        let host = try world.connectHost()
        // The bytes waiting on the host's socket at each mark of the widget as idle.
        let waitingWhenIdle = Mutex<[Int]>([])
        world.whenServingChanges { _, serving in
            if !serving { waitingWhenIdle.withLock { $0.append(host.bytesWaiting) } }
        }
        let first = try world.pull(Self.widget, on: host, request: 1)
        #expect(first.result == .newData && first.version == 1)
        try world.advance(by: .milliseconds(400))
        let expired = try world.pull(Self.widget, on: host, request: 2)
        #expect(expired.expired && expired.version == 1)
        let fresh = try world.push(on: host)
        #expect(fresh.result == .newData && fresh.version == 2)
        let seen = waitingWhenIdle.withLock { $0 }
        #expect(seen.count == 2 && seen.allSatisfy { $0 > 0 }, "bytes waiting on the host at each idle mark: \(seen)")
    }
}
