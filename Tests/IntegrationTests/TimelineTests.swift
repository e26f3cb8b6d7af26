import ExtensiondTestSupport
import Testing
import WireProtocol

/// Timelines, in process and against a real daemon: a widget launched once returns a minute
/// of entries, and a subscribed host gets each at its date, one version up each, without
/// the extension.
@Suite struct TimelineTests {
    static let widget = "test.app.clock"

    @Test(arguments: HostTestSetup.allCases)
    func aMinuteOfEntriesIsServedFromOneLaunch(_ setup: HostTestSetup) throws {
        let world = try setup.start([
            TestExtension(
                Self.widget, .timeline, reload: "never", settings: "idle_exit = \"1s\"",
                refresh: "interval = \"5s\"\nmin_interval = \"5s\"\npull_cooldown = \"0s\"")
        ])
        let host = try world.connectHost()
        try host.send(.subscribe(.init(extensions: [Self.widget])))
        let first = try world.pull(Self.widget, on: host, request: 1)
        #expect(first.result == .newData && first.version == 1 && first.date == nil)

        var lateMs: [Double] = []
        for entry in 1...60 {
            let pushed = try world.push(on: host, within: .seconds(3)) { $0.date != nil }
            let arrived = Double(try world.wallMilliseconds)
            guard let date = pushed.date else { continue }
            #expect(pushed.version == UInt64(entry) + 1 && pushed.result == .newData)
            #expect(try pushed.snapshot?.decoded() == ["entry": .number(Double(entry))])
            lateMs.append(arrived - date.secondsSince1970 * 1000)
            if entry == 30 {
                // Past the 5 s interval, a pull is served from the timeline, not expired.
                let cached = try world.pull(Self.widget, on: host, request: 2)
                #expect(cached.result == .cached && !cached.expired && cached.version == 31 && cached.date == date)
            }
        }
        switch setup {
        case .inProcess:
            #expect(lateMs.allSatisfy { abs($0) <= 1 }, "\(lateMs)")
        case .live:
            // Real time on a shared machine: a late wake-up now and then is the machine's; a
            // timer with a coarse window makes every entry late (50 ms for 50 ms of accuracy).
            let median = lateMs.sorted()[lateMs.count / 2]
            #expect(abs(median) <= 25 && lateMs.allSatisfy { abs($0) <= 1000 }, "\(lateMs)")
        }
        #expect(try world.updates(of: Self.widget).count == 1)
        #expect(try world.stats(Self.widget)?.launches == 1)
    }
}
