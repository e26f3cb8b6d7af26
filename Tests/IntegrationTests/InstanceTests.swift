import ExtensiondTestSupport
import HostProtocol
import Testing

/// Instances, in process and against a real daemon: one extension backs two widgets with
/// different settings, each with its own snapshot, and both spend one refresh budget.
@Suite struct InstanceTests {
    static let widget = "test.app.weather"

    @Test(arguments: HostTestSetup.allCases)
    func twoInstancesHaveTheirOwnSnapshotsAndShareOneBudget(_ setup: HostTestSetup) throws {
        let world = try setup.start([
            TestExtension(
                Self.widget, .params, refresh: "interval = \"1s\"\nmin_interval = \"1s\"\npull_cooldown = \"0s\"\ndaily_budget = 1\nbudget_burst = 2")
        ])
        let host = try world.connectHost()
        // Subscribed to Oslo with its params: the pulls need not repeat them.
        let subscriber = try world.connectHost()
        try subscriber.send(.subscribe(.init(id: 9, extensions: [Self.widget], instance: "oslo", params: ["city": "Oslo"])))
        _ = try world.request(.list(.init(id: 10)), on: subscriber)

        let oslo = try world.pull(Self.widget, on: host, request: 1, instance: "oslo")
        #expect(oslo.result == .newData && oslo.instance == "oslo" && oslo.version == 1)
        #expect(try oslo.snapshot?.decoded() == ["n": 1, "instance": "oslo", "params": ["city": "Oslo"]])
        let rome = try world.pull(Self.widget, on: host, request: 2, instance: "rome", params: ["city": "Rome"])
        #expect(rome.result == .newData && rome.instance == "rome" && rome.version == 1)
        #expect(try rome.snapshot?.decoded() == ["n": 2, "instance": "rome", "params": ["city": "Rome"]])
        let again = try world.pull(Self.widget, on: host, request: 3, instance: "oslo")
        #expect(again.result == .cached && again.snapshot == oslo.snapshot)
        // The subscriber is pushed Oslo's snapshot, not Rome's.
        let osloPush = try world.push(on: subscriber)
        #expect(osloPush.instance == "oslo" && osloPush.snapshot == oslo.snapshot)
        let romePush = try? world.push(on: subscriber, within: .milliseconds(500)) { $0.instance == "rome" }
        #expect(romePush == nil)

        // Each instance's schedule wants a refresh a second; the shared burst of 2 allows two in all.
        #expect(try world.until(within: .seconds(5)) { try world.stats(Self.widget)?.budgetLeft == 0 })
        try world.advance(by: .seconds(2))
        #expect(try scheduledUpdates(world) == 2, "\(world.diagnostics(Self.widget))")

        let refused = try world.request(
            .pull(
                .init(
                    id: 4, extensionID: Self.widget, mode: .compact, maxSize: Size(width: 1, height: 1),
                    instance: String(repeating: "x", count: 256))), on: host)
        guard case .error(let error) = refused else { throw TestSupportError("a long instance name was accepted") }
        #expect(error.error.contains("instance"), "\(error.error)")
    }

    @Test(arguments: HostTestSetup.allCases)
    func theScheduleRefreshesOnlyTheInstancesHostsShow(_ setup: HostTestSetup) throws {
        let world = try setup.start([
            TestExtension(
                Self.widget, .params, refresh: "interval = \"1s\"\nmin_interval = \"1s\"\npull_cooldown = \"0s\"\ndaily_budget = 1000\nbudget_burst = 100")
        ])
        do {
            let host = try world.connectHost()
            _ = try world.pull(Self.widget, on: host, request: 1, instance: "oslo", params: ["city": "Oslo"])
            _ = try world.pull(Self.widget, on: host, request: 2, instance: "rome", params: ["city": "Rome"])
            try show("oslo", true, on: host, id: 3, in: world)
            try show("rome", false, on: host, id: 4, in: world)
            try world.advance(by: .milliseconds(2500))
            #expect(try scheduledUpdates(world, of: "oslo") >= 1, "\(world.diagnostics(Self.widget))")
            #expect(try scheduledUpdates(world, of: "rome") == 0, "\(world.diagnostics(Self.widget))")

            // Shown again, Rome's expired snapshot is refreshed at once, and once.
            try show("rome", true, on: host, id: 5, in: world)
            #expect(
                try world.until(within: .seconds(5)) { try scheduledUpdates(world, of: "rome") == 1 },
                "\(world.diagnostics(Self.widget))")
            try world.advance(by: .milliseconds(500))  // within min_interval
            #expect(try scheduledUpdates(world, of: "rome") == 1)
        }
        // The only host that used them is gone: neither instance is refreshed any more.
        try world.advance(by: .milliseconds(1200))
        let oslo = try scheduledUpdates(world, of: "oslo"), rome = try scheduledUpdates(world, of: "rome")
        try world.advance(by: .milliseconds(2500))
        #expect(
            try scheduledUpdates(world, of: "oslo") == oslo && scheduledUpdates(world, of: "rome") == rome,
            "\(world.diagnostics(Self.widget))")
    }

    /// Sends `visible` for one instance, then a `list` whose answer shows it was handled.
    private func show(_ instance: String, _ visible: Bool, on host: TestHost, id: UInt64, in world: any HostWorld) throws {
        try host.send(.visible(.init(extensions: [.init(extensionID: Self.widget, instance: instance)], visible: visible)))
        guard case .extensions = try world.request(.list(.init(id: RequestID(rawValue: id))), on: host) else {
            throw TestSupportError("visible was not accepted")
        }
    }

    /// Scheduled updates of every instance, or of `instance` alone.
    private func scheduledUpdates(_ world: any HostWorld, of instance: String? = nil) throws -> Int {
        try world.updates(of: Self.widget).filter {
            let words = $0.split(separator: " ")
            return words.first == "schedule" && (instance == nil || words.dropFirst().first.map(String.init) == instance)
        }.count
    }
}
