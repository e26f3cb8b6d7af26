import ExtensiondTestSupport
import Foundation
import Testing
import HostProtocol

/// Instances against a real daemon: one extension backs two widgets with different
/// settings, each with its own snapshot, and both spend one refresh budget.
@Suite struct InstanceTests {
    static let widget = "test.app.weather"

    @Test func twoInstancesHaveTheirOwnSnapshotsAndShareOneBudget() throws {
        let bed = try ExtensionTestBed()
        let updates = bed.countFile(Self.widget)
        try bed.start(ExtensionTestBed.extensionTable(
            Self.widget, command: try bed.command(.params, countFile: updates),
            refresh: "interval = \"1s\"\nmin_interval = \"1s\"\npull_cooldown = \"0s\"\ndaily_budget = 1\nbudget_burst = 2"))
        let host = try bed.daemon.connectHost()
        // Subscribed to Oslo with its params: the pulls need not repeat them.
        let subscriber = try bed.daemon.connectHost()
        try subscriber.send(.subscribe(.init(id: 9, extensions: [Self.widget], instance: "oslo", params: ["city": "Oslo"])))
        try subscriber.send(.list(.init(id: 10)))
        _ = try subscriber.receive { $0.answerID == RequestID(rawValue: 10) }

        let oslo = try pull(host, id: 1, instance: "oslo", params: nil)
        #expect(oslo.result == .newData && oslo.instance == "oslo" && oslo.version == 1)
        #expect(try oslo.snapshot?.decoded() == ["n": 1, "instance": "oslo", "params": ["city": "Oslo"]])
        let rome = try pull(host, id: 2, instance: "rome", params: ["city": "Rome"])
        #expect(rome.result == .newData && rome.instance == "rome" && rome.version == 1)
        #expect(try rome.snapshot?.decoded() == ["n": 2, "instance": "rome", "params": ["city": "Rome"]])
        let again = try pull(host, id: 3, instance: "oslo", params: nil)
        #expect(again.result == .cached && again.snapshot == oslo.snapshot)
        // The subscriber is pushed Oslo's snapshot, not Rome's.
        let pushed = try subscriber.receive { if case .snapshot(let pushed) = $0 { pushed.id == nil } else { false } }
        guard case .snapshot(let osloPush) = pushed else { return }
        #expect(osloPush.instance == "oslo" && osloPush.snapshot == oslo.snapshot)
        let romePush = try? subscriber.receive(timeout: 0.5) {
            if case .snapshot(let pushed) = $0 { pushed.instance == "rome" } else { false }
        }
        #expect(romePush == nil)

        // Each instance's schedule wants a refresh a second; the shared burst of 2 allows two in all.
        #expect(try eventually { try bed.stats(Self.widget)?.budgetLeft == 0 })
        Thread.sleep(forTimeInterval: 2)
        #expect(scheduledUpdates(updates) == 2, "\(bed.diagnostics(Self.widget))")

        guard case .error(let refused) = try request(host, id: 4, .pull(.init(
            id: 4, extensionID: Self.widget, mode: .compact, maxSize: Size(width: 1, height: 1),
            instance: String(repeating: "x", count: 256)))) else { throw TestSupportError("a long instance name was accepted") }
        #expect(refused.error.contains("instance"), "\(refused.error)")
    }

    @Test func theScheduleRefreshesOnlyTheInstancesHostsShow() throws {
        let bed = try ExtensionTestBed()
        let updates = bed.countFile(Self.widget)
        try bed.start(ExtensionTestBed.extensionTable(
            Self.widget, command: try bed.command(.params, countFile: updates),
            refresh: "interval = \"1s\"\nmin_interval = \"1s\"\npull_cooldown = \"0s\"\ndaily_budget = 1000\nbudget_burst = 100"))
        do {
            let host = try bed.daemon.connectHost()
            _ = try pull(host, id: 1, instance: "oslo", params: ["city": "Oslo"])
            _ = try pull(host, id: 2, instance: "rome", params: ["city": "Rome"])
            try show("oslo", true, on: host, id: 3)
            try show("rome", false, on: host, id: 4)
            Thread.sleep(forTimeInterval: 2.5)
            #expect(scheduledUpdates(updates, of: "oslo") >= 1, "\(bed.diagnostics(Self.widget))")
            #expect(scheduledUpdates(updates, of: "rome") == 0, "\(bed.diagnostics(Self.widget))")

            // Shown again, Rome's expired snapshot is refreshed at once, and once.
            try show("rome", true, on: host, id: 5)
            #expect(try eventually { scheduledUpdates(updates, of: "rome") == 1 }, "\(bed.diagnostics(Self.widget))")
            Thread.sleep(forTimeInterval: 0.5)  // within min_interval
            #expect(scheduledUpdates(updates, of: "rome") == 1)
        }
        // The only host that used them is gone: neither instance is refreshed any more.
        Thread.sleep(forTimeInterval: 1.2)
        let oslo = scheduledUpdates(updates, of: "oslo"), rome = scheduledUpdates(updates, of: "rome")
        Thread.sleep(forTimeInterval: 2.5)
        #expect(scheduledUpdates(updates, of: "oslo") == oslo && scheduledUpdates(updates, of: "rome") == rome,
                "\(bed.diagnostics(Self.widget))")
    }

    /// Sends `visible` for one instance, then a `list` whose answer shows it was handled.
    private func show(_ instance: String, _ visible: Bool, on host: TestHost, id: UInt64) throws {
        try host.send(.visible(.init(extensions: [.init(extensionID: Self.widget, instance: instance)], visible: visible)))
        guard case .extensions = try request(host, id: id, .list(.init(id: RequestID(rawValue: id)))) else {
            throw TestSupportError("visible was not accepted")
        }
    }

    private func pull(_ host: TestHost, id: UInt64, instance: String, params: JSONValue?) throws -> SupervisorToHost.Snapshot {
        let message = try request(host, id: id, .pull(.init(
            id: RequestID(rawValue: id), extensionID: Self.widget, mode: .compact, maxSize: Size(width: 320, height: 160),
            instance: instance, params: params)))
        guard case .snapshot(let snapshot) = message else { throw TestSupportError("expected a snapshot, got \(message)") }
        return snapshot
    }

    private func request(_ host: TestHost, id: UInt64, _ message: HostToSupervisor) throws -> SupervisorToHost {
        try host.send(message)
        // A malformed request is answered by an error without id.
        return try host.receive { message in
            if case .error = message { return true }
            return message.answerID == RequestID(rawValue: id)
        }
    }

    /// Scheduled updates of every instance, or of `instance` alone.
    private func scheduledUpdates(_ file: String, of instance: String? = nil) -> Int {
        ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n").filter {
            let words = $0.split(separator: " ")
            return words.first == "schedule" && (instance == nil || words.dropFirst().first.map(String.init) == instance)
        }.count
    }
}
