import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// A burst of control requests is followed, once it is over, by the daemon giving back the
/// pages it faulted in (`BurstRelease`): its program's resident read-only pages fall, with
/// no extension launched (so no `ready` triggers it).
@Suite struct MemoryGiveBackTests {
    @Test func aBurstOfStatusRequestsIsFollowedByTheCodesPagesGivenBack() throws {
        let daemon = try TestDaemon()
        try daemon.writeConfig(
            """
            [hosts.panel]
            command = ["/bin/sleep", "1000"]
            """)
        try daemon.start()
        let pid = try #require(daemon.process?.pid)
        let program = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        let residentReadOnlyKiB = { try ExtensiondTestSupport.residentReadOnlyKiB(of: pid, file: { $0 == program }) }
        for _ in 0..<20 { _ = try daemon.control(.status(NameSelection([]))) }
        let afterBurst = try residentReadOnlyKiB()
        #expect(afterBurst > 256, "the requests faulted in only \(afterBurst) KiB of the daemon's code")
        // The release comes a quiet second after the last request; 10 s is for a loaded machine.
        var now = afterBurst
        for _ in 0..<100 where now >= afterBurst / 2 {
            Thread.sleep(forTimeInterval: 0.1)
            now = try residentReadOnlyKiB()
        }
        #expect(now < afterBurst / 2, "resident read-only KiB of the daemon: \(afterBurst) after the requests, \(now) 10 s later")
    }
}
