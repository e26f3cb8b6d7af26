import ExtensiondTestSupport
import HostProtocol
import Testing

/// `visible`, in process and against a real daemon: a widget its hosts hide is not refreshed
/// by the schedule and spends no budget; shown again with an expired snapshot it is
/// refreshed once; the visibility a host declared ends with its connection.
@Suite struct VisibilityTests {
    static let widget = "test.app.clock"

    @Test(arguments: HostTestSetup.allCases)
    func aHiddenWidgetWaitsAndIsRefreshedOnceWhenShown(_ setup: HostTestSetup) throws {
        let world = try setup.start([
            TestExtension(
                Self.widget, refresh: "interval = \"1s\"\nmin_interval = \"1s\"\npull_cooldown = \"0s\"\ndaily_budget = 1\nbudget_burst = 2")
        ])
        do {
            let host = try world.connectHost()
            try declare(false, on: host, id: 1, in: world)
            #expect(try world.status(Self.widget)?.visible == false)
            if let daemon = world.daemon {
                #expect(try daemon.supervisorctl(["status", Self.widget]).stdout.contains(", hidden"))
            }
            let first = try world.pull(Self.widget, on: host, request: 2)
            #expect(first.result == .newData)

            // Shown, the schedule would have refreshed it once a second, spending the budget.
            try world.advance(by: .milliseconds(2500))
            #expect(try world.updates(of: Self.widget).count == 1)
            #expect(try world.stats(Self.widget)?.budgetLeft == 2)

            try declare(true, on: host, id: 3, in: world)
            #expect(try world.until(within: .seconds(5)) { try world.updates(of: Self.widget).count == 2 })
            #expect(try world.status(Self.widget)?.visible == true)
            if let daemon = world.daemon {
                #expect(try daemon.supervisorctl(["status", Self.widget]).stdout.contains(", visible"))
            }
            try world.advance(by: .milliseconds(500))  // within min_interval: no second refresh
            #expect(try world.updates(of: Self.widget).count == 2)
            #expect(try world.stats(Self.widget)?.budgetLeft == 1)

            try declare(false, on: host, id: 4, in: world)
            #expect(try world.status(Self.widget)?.visible == false)
            let unknown = try world.request(.visible(.init(id: 5, extensions: [.init(extensionID: "test.app.nope")], visible: true)), on: host)
            guard case .error(let refused) = unknown else { throw TestSupportError("an unknown extension was accepted") }
            #expect(refused.error.contains("test.app.nope"))
        }
        // The host is gone: nobody says the widget is hidden any more.
        #expect(try world.until(within: .seconds(5)) { try world.status(Self.widget)?.visible == true })
    }

    /// Sends `visible` for the widget, then a `list` whose answer shows it was handled.
    private func declare(_ visible: Bool, on host: TestHost, id: UInt64, in world: any HostWorld) throws {
        try host.send(.visible(.init(extensions: [.init(extensionID: Self.widget)], visible: visible)))
        guard case .extensions = try world.request(.list(.init(id: RequestID(rawValue: id))), on: host) else {
            throw TestSupportError("visible was not accepted")
        }
    }
}
