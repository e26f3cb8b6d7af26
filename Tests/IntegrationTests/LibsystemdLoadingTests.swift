import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// libsystemd is loaded at its first use (`Sources/CSystemd/shim.h`): a daemon outside
/// systemd never maps it nor its chain, and one told to notify systemd does. The maps are
/// read to the end: String(contentsOfFile:) stops at a procfs file's first page.
@Suite struct LibsystemdLoadingTests {
    @Test func onlyADaemonThatSpeaksToSystemdMapsLibsystemd() throws {
        let outside = try TestDaemon()
        // Everything systemd would set is left out, `$NOTIFY_SOCKET` too.
        let process = try TestProcess(
            Binaries.path("extensiond"), ["--config", outside.configPath],
            removing: [
                "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "JOURNAL_STREAM", "INVOCATION_ID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES",
            ],
            outputIn: outside.directory.path, name: "extensiond")
        defer {
            process.signal(SIGTERM)
            if process.wait(timeout: 10) == nil {
                process.signal(SIGKILL)
                _ = process.wait(timeout: 10)
            }
            withExtendedLifetime(outside) {}  // its directory and cgroup outlive the daemon
        }
        let serving = eventually(timeout: 10) { (try? outside.control(.status(NameSelection([])))) != nil }
        try #require(serving, "the daemon did not serve control.sock; stderr:\n\(process.stderr)")
        let outsideMaps = try #require(readTextFile("/proc/\(process.pid)/maps"))
        #expect(!outsideMaps.contains("libsystemd"), "a daemon outside systemd mapped libsystemd")

        let notifying = try TestDaemon()
        try notifying.start()
        let pid = try #require(notifying.process?.pid)
        let notifyingMaps = try #require(readTextFile("/proc/\(pid)/maps"))
        #expect(notifyingMaps.contains("libsystemd.so.0"), "a daemon that sent READY=1 did not map libsystemd")
    }
}
