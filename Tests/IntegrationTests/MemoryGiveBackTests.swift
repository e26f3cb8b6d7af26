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
        for _ in 0..<20 { _ = try daemon.control(.status(NameSelection([]))) }
        let afterBurst = try residentReadOnlyKiB(of: pid)
        #expect(afterBurst > 256, "the requests faulted in only \(afterBurst) KiB of the daemon's code")
        // The release comes a quiet second after the last request; 10 s is for a loaded machine.
        var now = afterBurst
        for _ in 0..<100 where now >= afterBurst / 2 {
            Thread.sleep(forTimeInterval: 0.1)
            now = try residentReadOnlyKiB(of: pid)
        }
        #expect(now < afterBurst / 2, "resident read-only KiB of the daemon: \(afterBurst) after the requests, \(now) 10 s later")
    }

    /// Resident KiB of the mappings of `pid`'s own program that are not writable, from smaps.
    private func residentReadOnlyKiB(of pid: pid_t) throws -> Int {
        let program = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        let smaps = try String(contentsOfFile: "/proc/\(pid)/smaps", encoding: .utf8)
        var total = 0
        var counting = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, !first.hasSuffix(":") {
                counting = fields.count > 5 && fields[5] == program && !fields[1].contains("w")
            } else if counting, fields.first == "Rss:", fields.count > 1, let kib = Int(fields[1]) {
                total += kib
            }
        }
        return total
    }
}
