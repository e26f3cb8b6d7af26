import ExtensiondTestSupport
import Foundation
import HostProtocol
import Testing

/// Issue 19 item 7 against a real daemon: any local user may connect to host.sock and make
/// up instances; those no connected host uses are freed, and one connection or one user
/// cannot take every one of a widget's slots.
@Suite struct InstanceShareTests {
    static let widget = "test.app.weather"

    private func makeBed() throws -> ExtensionTestBed {
        let bed = try ExtensionTestBed()
        try bed.start(ExtensionTestBed.extensionTable(Self.widget, command: try bed.command(.params), refresh: "pull_cooldown = \"0s\""))
        return bed
    }

    /// Subscribes `names` (each with its own request id from `firstID`) and returns the
    /// errors they got, once a later `list` shows every subscribe was handled.
    private func subscribe(_ names: [String], on host: TestHost, firstID: UInt64) throws -> [String] {
        for (offset, name) in names.enumerated() {
            try host.send(.subscribe(.init(id: RequestID(rawValue: firstID + UInt64(offset)), extensions: [Self.widget], instance: name)))
        }
        _ = try host.request(.list(.init(id: RequestID(rawValue: firstID + UInt64(names.count)))))
        var errors: [String] = []
        while let error = try? host.receive(timeout: 0.2, matching: { if case .error = $0 { true } else { false } }) {
            if case .error(let refused) = error { errors.append(refused.error) }
        }
        return errors
    }

    @Test func madeUpInstancesAreFreedWhenTheirHostsLeave() throws {
        let bed = try makeBed()
        do {
            // What once filled every slot until the daemon restarted: 64 made-up instances.
            var hosts: [TestHost] = []
            var refused: [String] = []
            for connection in 0..<4 {
                let host = try bed.daemon.connectHost()
                refused += try subscribe((0..<16).map { "made-up-\(connection)-\($0)" }, on: host, firstID: UInt64(connection) * 100)
                hosts.append(host)
            }
            // One user may hold half of them.
            #expect(refused.count == 32 && refused.allSatisfy { $0.contains("the most one user may") }, "\(refused)")
        }
        // They are gone once the daemon saw their hosts leave: every host may make new ones.
        let host = try bed.daemon.connectHost()
        var pullID: UInt64 = 0
        #expect(
            try eventually {
                pullID += 1
                let answer = try host.request(
                    .pull(
                        .init(
                            id: RequestID(rawValue: pullID), extensionID: Self.widget, mode: .compact,
                            maxSize: Size(width: 320, height: 160), wait: true, instance: "oslo")))
                if case .snapshot(let oslo) = answer { return oslo.result == .newData && oslo.instance == "oslo" }
                return false
            })
        // With Oslo, its own share is used up again at 16.
        #expect(try subscribe((0..<16).map { "again-\($0)" }, on: host, firstID: 10).count == 1)
    }

    @Test func oneConnectionHasAShare() throws {
        let bed = try makeBed()
        let greedy = try bed.daemon.connectHost()
        let refused = try subscribe((0..<20).map { "greedy-\($0)" }, on: greedy, firstID: 1)
        #expect(refused.count == 4 && refused.allSatisfy { $0.contains("the most one connection may") }, "\(refused)")
        // What it holds already it may go on using.
        #expect(try subscribe(["greedy-3"], on: greedy, firstID: 100).isEmpty)
        let other = try bed.daemon.connectHost()
        #expect(
            try other.pullSnapshot(
                .init(
                    id: 1, extensionID: Self.widget, mode: .compact, maxSize: Size(width: 320, height: 160),
                    wait: true, instance: "fair")
            ).result == .newData)
    }
}
