import ExtensiondTestSupport
import Foundation
import Testing
import HostProtocol

/// `visible` against a real daemon: a widget its hosts hide is not refreshed by the schedule
/// and spends no budget; shown again with an expired snapshot it is refreshed once; the
/// visibility a host declared ends with its connection.
@Suite struct VisibilityTests {
    static let widget = "test.app.clock"

    @Test func aHiddenWidgetWaitsAndIsRefreshedOnceWhenShown() throws {
        let bed = try ExtensionTestBed()
        let updates = bed.countFile(Self.widget)
        try bed.start(ExtensionTestBed.extensionTable(
            Self.widget, command: try bed.command(.answer, countFile: updates),
            refresh: "interval = \"1s\"\nmin_interval = \"1s\"\npull_cooldown = \"0s\"\ndaily_budget = 1\nbudget_burst = 2"))
        do {
            let host = try bed.daemon.connectHost()
            try declare(false, on: host, id: 1)
            #expect(try bed.status(Self.widget)?.visible == false)
            #expect(try bed.daemon.supervisorctl(["status", Self.widget]).stdout.contains(", hidden"))
            guard case .snapshot(let first) = try host.pull(Self.widget, id: 2) else { throw TestSupportError("no snapshot") }
            #expect(first.result == .newData)

            // Shown, the schedule would have refreshed it once a second, spending the budget.
            Thread.sleep(forTimeInterval: 2.5)
            #expect(ScriptedExtension.updates(in: updates) == 1, "\(bed.diagnostics(Self.widget))")
            #expect(try bed.stats(Self.widget)?.budgetLeft == 2)

            try declare(true, on: host, id: 3)
            #expect(try eventually { ScriptedExtension.updates(in: updates) == 2 })
            #expect(try bed.status(Self.widget)?.visible == true)
            #expect(try bed.daemon.supervisorctl(["status", Self.widget]).stdout.contains(", visible"))
            Thread.sleep(forTimeInterval: 0.5)  // within min_interval: no second refresh
            #expect(ScriptedExtension.updates(in: updates) == 2)
            #expect(try bed.stats(Self.widget)?.budgetLeft == 1)

            try declare(false, on: host, id: 4)
            #expect(try bed.status(Self.widget)?.visible == false)
            guard case .error(let unknown) = try request(.visible(.init(id: 5, extensions: [.init(extensionID: "test.app.nope")], visible: true)), id: 5, on: host) else {
                throw TestSupportError("an unknown extension was accepted")
            }
            #expect(unknown.error.contains("test.app.nope"))
        }
        // The host is gone: nobody says the widget is hidden any more.
        #expect(try eventually { try bed.status(Self.widget)?.visible == true })
    }

    /// Sends `visible` for the widget, then a `list` whose answer shows it was handled.
    private func declare(_ visible: Bool, on host: TestHost, id: UInt64) throws {
        try host.send(.visible(.init(extensions: [.init(extensionID: Self.widget)], visible: visible)))
        guard case .extensions = try request(.list(.init(id: RequestID(rawValue: id))), id: id, on: host) else {
            throw TestSupportError("visible was not accepted")
        }
    }

    private func request(_ message: HostToSupervisor, id: UInt64, on host: TestHost) throws -> SupervisorToHost {
        try host.send(message)
        return try host.receive { $0.answerID == RequestID(rawValue: id) }
    }
}
