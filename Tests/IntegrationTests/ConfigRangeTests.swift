import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// Every duration, size and count of the config at the ends of its documented range
/// (docs/CONFIG.md, "Value types"), against a real daemon (issue 19, case 2): the checker
/// refuses what lies past them, at the value's file:line:column, and the daemon runs
/// what it accepts (launch, idle, stop) without trapping.
@Suite struct ConfigRangeTests {
    /// A host, an app and a widget whose every duration is `duration`, every size `size`
    /// and every bounded count `count` (`pids_max` aside, which gets `pids`).
    static func config(_ widget: String, duration: String, size: String, count: String, pids: String) -> String {
        """
        [hosts.panel]
        command = ["/bin/sleep", "1000"]
        stop_timeout = "\(duration)"
        restart_backoff_base = "\(duration)"
        restart_backoff_max = "\(duration)"
        restart_retries = \(count)

        [apps.app]
        command = ["/bin/sleep", "1000"]

        [extensions.widget]
        app = "app"
        point = "widget"
        command = \(widget)
        idle_exit = "\(duration)"
        start_timeout = "\(duration)"
        stop_timeout = "\(duration)"
        memory_max = "\(size)"
        pids_max = \(pids)

        [extensions.widget.refresh]
        interval = "\(duration)"
        min_interval = "\(duration)"
        jitter = "\(duration)"
        max_interval = "\(duration)"
        pull_cooldown = "0s"
        deadline = "\(duration)"
        daily_budget = \(count)
        budget_burst = \(count)
        backoff_base = "\(duration)"
        backoff_max = "\(duration)"
        """
    }

    /// The supervisor keys, `log_max_size` and `log_files` at `size` and `count`.
    static func supervisor(size: String, count: String) -> String {
        "memory_budget = \"\(size)\"\nlog_max_size = \"\(size)\"\nlog_files = \(count)"
    }

    static func check(_ daemon: TestDaemon) throws -> CommandResult {
        try runCommand(Binaries.path("extensiond"), ["--check-config", "--config", daemon.configPath], in: daemon.directory)
    }

    /// One value past its range: (key, spelling); the last line that sets the key gets it.
    static let pastTheEnd: [(String, String)] = [
        ("idle_exit", #""106751991167d""#), ("stop_timeout", #""36500d1ms""#), ("memory_max", #""1073741825G""#),
        ("pids_max", "4194305"), ("backoff_max", #""36501d""#), ("daily_budget", "1000001"), ("restart_retries", "1001"),
    ]

    @Test(arguments: pastTheEnd.indices)
    func aValuePastItsRangeIsRefusedWhereItIsWritten(_ index: Int) throws {
        let (key, spelling) = Self.pastTheEnd[index]
        let daemon = try TestDaemon()
        let widget = try ScriptedExtension.command(.answer, in: daemon.directory)
        var lines = Self.config(widget, duration: "1s", size: "64M", count: "5", pids: "64")
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let line = try #require(lines.lastIndex { $0.hasPrefix(key + " = ") })
        lines[line] = key + " = " + spelling
        try daemon.writeConfig(lines.joined(separator: "\n"))
        let result = try Self.check(daemon)
        // The [supervisor] header TestDaemon writes takes 5 lines; the column is the key's.
        #expect(result.exitCode != 0 && result.stderr.contains("extensiond.toml:\(line + 6):1:"), "\(result.stderr)")
        #expect(result.stderr.contains(key), "\(result.stderr)")
    }

    /// The values at one end of every range.
    struct End: Sendable, CustomTestStringConvertible {
        var duration, size, tokens, pids, logFiles, retries: String
        /// Durations that may be 0 are 0 at the low end.
        var zeroable: String

        static let largest = End(
            duration: "36500d", size: "1073741824G", tokens: "1000000", pids: "4194304", logFiles: "100", retries: "1000", zeroable: "36500d")
        static let smallest = End(duration: "1ms", size: "1", tokens: "1", pids: "1", logFiles: "1", retries: "0", zeroable: "0s")
        var testDescription: String { duration }
    }

    @Test(arguments: [End.largest, End.smallest])
    func theEndsOfEveryRangeRun(_ end: End) throws {
        let daemon = try TestDaemon()
        let widget = try ScriptedExtension.command(.answer, in: daemon.directory)
        var config = Self.config(widget, duration: end.duration, size: end.size, count: end.tokens, pids: end.pids)
            .replacingOccurrences(of: "restart_retries = \(end.tokens)", with: "restart_retries = \(end.retries)")
        for key in ["idle_exit", "stop_timeout", "jitter"] {
            config = config.replacingOccurrences(of: "\(key) = \"\(end.duration)\"", with: "\(key) = \"\(end.zeroable)\"")
        }
        try daemon.writeConfig(config, supervisor: Self.supervisor(size: end.size, count: end.logFiles))
        let result = try Self.check(daemon)
        #expect(result.exitCode == 0, "\(result.stderr)")
        try daemon.start()
        // Launch: a pull starts the widget and is answered (a 1-byte limit or a 1 ms
        // deadline may fail it; the daemon must answer either way).
        let pull = try daemon.control(.pull(PullRequest(name: "widget")))
        #expect(pull.ok || pull.error != nil)
        // Idle, then stop: the status keeps answering and the stop is clean.
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try daemon.control(.status(NameSelection(["widget"]))).status?.first != nil)
        let stop = try daemon.control(.stop(NameSelection(["widget", "panel"])))
        #expect(stop.ok || stop.error != nil)
        #expect(try daemon.control(.status(NameSelection([]))).status != nil)
        #expect(daemon.stop() == 0)
    }
}
