import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing
import WireProtocol

/// Real extension processes against a real daemon: deadlines, crashes, protocol
/// violations, idle exit, the shipped extensions, and what survives a restart.
@Suite struct ExtensionProtocolTests {
    static let widget = "test.app.widget"
    static let neighbour = "test.app.neighbour"

    /// Every pull after 100 ms finds the snapshot stale and calls the extension: the
    /// extension answers `never`, so no scheduled refresh gets in the way.
    static let pullsUpdate = """
        interval = "100ms"
        min_interval = "100ms"
        pull_cooldown = "0s"
        """

    @Test func aWidgetThatNeverAnswersIsKilledAtItsDeadlineAndThePullGetsTheStaleSnapshot() throws {
        let bed = try ExtensionTestBed()
        try bed.start(
            ExtensionTestBed.extensionTable(
                Self.widget, command: try bed.command(.hangAfterFirst, reload: "never"),
                refresh: Self.pullsUpdate + "\ndeadline = \"1s\""))
        let host = try bed.daemon.connectHost()
        // Only hosts that use an extension hear that it ended.
        try host.send(.subscribe(.init(extensions: [Self.widget])))
        let good = try bed.pull(Self.widget)
        #expect(good.result == "newData" && good.version == 1 && good.answered == 1)

        Thread.sleep(forTimeInterval: 0.15)
        let started = Date()
        let late = try bed.pull(Self.widget)
        #expect(Date().timeIntervalSince(started) >= 0.9)
        #expect(late.result == "failed", "\(bed.diagnostics(Self.widget))")
        #expect(late.stale)
        #expect(late.version == 1)
        #expect(late.snapshot == good.snapshot)
        #expect(late.error?.contains("deadline") == true, "\(late.error ?? "no error")\n\(bed.diagnostics(Self.widget))")
        #expect(try bed.eventReasons(.kill, of: Self.widget) == ["deadline"])
        let terminated = try host.receive { if case .extensionTerminated = $0 { true } else { false } }
        #expect(terminated == .extensionTerminated(.init(extensionID: Self.widget, reason: .deadline)))
    }

    @Test func aWidgetThatCrashesMidUpdateFailsAndTheNextPullRelaunchesIt() throws {
        let bed = try ExtensionTestBed()
        try bed.start(
            ExtensionTestBed.extensionTable(
                Self.widget, command: try bed.command(.crashOnSecond, reload: "never"), refresh: Self.pullsUpdate))
        let first = try bed.pull(Self.widget)
        #expect(first.result == "newData" && first.version == 1)

        Thread.sleep(forTimeInterval: 0.15)
        let crashed = try bed.pull(Self.widget)
        #expect(crashed.result == "failed")
        #expect(crashed.stale && crashed.version == 1 && crashed.snapshot == first.snapshot)
        #expect(try bed.eventReasons(.exit, of: Self.widget) == ["exited"])

        let relaunched = try bed.pull(Self.widget)
        #expect(relaunched.result == "newData")
        #expect(relaunched.version == 2 && !relaunched.stale)
        #expect(relaunched.pid != nil && relaunched.pid != first.pid)
        #expect(try bed.stats(Self.widget)?.launches == 2)
    }

    @Test(arguments: [ScriptedExtension.Behaviour.garbage, .oversized, .unknownID])
    func aProtocolViolationKillsOnlyTheOffender(_ behaviour: ScriptedExtension.Behaviour) throws {
        let bed = try ExtensionTestBed()
        try bed.start(
            ExtensionTestBed.extensionTable(Self.widget, command: try bed.command(behaviour), refresh: Self.pullsUpdate)
                + ExtensionTestBed.extensionTable(
                    Self.neighbour, command: try bed.command(.answer, reload: "never"), refresh: Self.pullsUpdate))
        let host = try bed.daemon.connectHost()
        // Only hosts that use an extension hear that it ended.
        try host.send(.subscribe(.init(extensions: [Self.widget])))
        let before = try bed.pull(Self.neighbour)
        #expect(before.result == "newData")

        let violated = try bed.pull(Self.widget)
        #expect(violated.result == "failed")
        #expect(try bed.eventReasons(.kill, of: Self.widget) == ["protocol"])
        let terminated = try host.receive { if case .extensionTerminated = $0 { true } else { false } }
        #expect(terminated == .extensionTerminated(.init(extensionID: Self.widget, reason: .protocol)))

        // The neighbour's process answers its next update; the daemon serves on.
        Thread.sleep(forTimeInterval: 0.15)
        let after = try bed.pull(Self.neighbour)
        #expect(after.result == "newData" && after.version == 2)
        #expect(after.pid == before.pid && after.answered == 2)
        #expect(try bed.eventReasons(.kill, of: Self.neighbour).isEmpty)
        #expect(bed.daemon.process?.isRunning == true)
    }

    @Test func anIdleExtensionExitsAndTheNextPullRelaunchesIt() throws {
        let bed = try ExtensionTestBed()
        try bed.start(
            ExtensionTestBed.extensionTable(
                Self.widget, command: try bed.command(.answer, reload: "never"), settings: "idle_exit = \"1s\"",
                refresh: Self.pullsUpdate))
        let host = try bed.daemon.connectHost()
        // Only hosts that use an extension hear that it ended.
        try host.send(.subscribe(.init(extensions: [Self.widget])))
        let first = try bed.pull(Self.widget)
        #expect(first.result == "newData")

        #expect(try eventually(timeout: 5) { try bed.status(Self.widget)?.pid == nil })
        #expect(try bed.eventReasons(.exit, of: Self.widget) == ["idle"])
        let terminated = try host.receive { if case .extensionTerminated = $0 { true } else { false } }
        #expect(terminated == .extensionTerminated(.init(extensionID: Self.widget, reason: .idle)))

        let second = try bed.pull(Self.widget)
        #expect(second.result == "newData" && second.version == 2)
        #expect(second.pid != first.pid && second.answered == 1)
    }

    @Test func aPullDuringAnIdleExitWaitsForTheExitAndRelaunches() throws {
        let bed = try ExtensionTestBed()
        let updates = bed.countFile(Self.widget)
        try bed.start(
            ExtensionTestBed.extensionTable(
                Self.widget, command: try bed.command(.lingerOnTerminate, countFile: updates, reload: "never"),
                settings: "idle_exit = \"300ms\"\nstop_timeout = \"3s\"", refresh: Self.pullsUpdate))
        let first = try bed.pull(Self.widget)
        #expect(first.result == "newData")

        // Told to terminate, the process takes a second to go: the pull must not be sent to it.
        #expect(eventually(timeout: 5) { ScriptedExtension.terminations(in: updates) == 1 })
        let second = try bed.pull(Self.widget)
        #expect(second.result == "newData", "\(bed.diagnostics(Self.widget))")
        #expect(second.version == 2 && second.pid != first.pid)
        #expect(ScriptedExtension.updates(in: updates) == 2)
    }

    /// The same for a run ended by the trim at `pressure.warn` (1 % of the budget: the
    /// widget alone is past it), which used to fail the pull: a card shown then stayed
    /// stale until the update's retry.
    @Test func aPullDuringATrimExitWaitsForTheExitAndRelaunches() throws {
        let bed = try ExtensionTestBed()
        let updates = bed.countFile(Self.widget)
        try bed.start(
            "[pressure]\nwarn = \"1%\"\n\n"
                + ExtensionTestBed.extensionTable(
                    Self.widget, command: try bed.command(.lingerOnTerminate, countFile: updates, reload: "never"),
                    settings: "suspend_after = \"1s\"\nidle_exit = \"1m\"\nstop_timeout = \"3s\"", refresh: Self.pullsUpdate),
            supervisor: "memory_budget = \"256M\"")
        let first = try bed.pull(Self.widget)
        #expect(first.result == "newData")
        // A reload reads the tree: past `warn`, the idle widget is ended (trimmed).
        #expect(try bed.control(.reload).ok)

        // Told to terminate, the process takes a second to go: the pull, once the snapshot is
        // stale (100 ms), comes while it lingers and waits for a new run.
        #expect(eventually(timeout: 10) { ScriptedExtension.terminations(in: updates) == 1 }, "\(bed.diagnostics(Self.widget))")
        Thread.sleep(forTimeInterval: 0.2)
        let second = try bed.pull(Self.widget)
        #expect(second.result == "newData", "\(bed.diagnostics(Self.widget))")
        #expect(second.version == 2 && second.pid != first.pid)
        #expect(try bed.eventReasons(.exit, of: Self.widget).first == "trim")
    }

    @Test func aWidgetThatCannotBeLaunchedFailsThePullWithTheReason() throws {
        let bed = try ExtensionTestBed()
        try bed.start(ExtensionTestBed.extensionTable(Self.widget, command: #"["/nonexistent/widget"]"#))
        let report = try bed.pull(Self.widget)
        #expect(report.result == "failed" && report.snapshot == nil && report.version == 0)
        #expect(report.error?.contains("/nonexistent/widget") == true, "\(report.error ?? "no error")")
        #expect(bed.daemon.process?.isRunning == true)
    }

    @Test func aWidgetThatNeverSaysReadyIsKilledAtItsStartTimeout() throws {
        let bed = try ExtensionTestBed()
        try bed.start(
            ExtensionTestBed.extensionTable(
                Self.widget, command: #"["/bin/sleep", "1000"]"#, settings: "start_timeout = \"500ms\""))
        let started = Date()
        let report = try bed.pull(Self.widget)
        #expect(Date().timeIntervalSince(started) < 3)
        #expect(report.result == "failed" && report.error != nil)
        #expect(try bed.eventReasons(.kill, of: Self.widget) == ["deadline"])
    }

    @Test func aStoredRecordThatCannotBeReadIsReportedAndReplaced() throws {
        let bed = try ExtensionTestBed()
        try FileManager.default.createDirectory(atPath: bed.daemon.stateDirectory + "/extensions", withIntermediateDirectories: true)
        try "{ not json".write(toFile: bed.daemon.stateDirectory + "/extensions/\(Self.widget).json", atomically: true, encoding: .utf8)
        try bed.start(ExtensionTestBed.extensionTable(Self.widget, command: try bed.command(.answer)))
        let errors = try bed.control(.events(LogRequest(lines: 500))).events?.filter { $0.kind == .error } ?? []
        #expect(errors.contains { $0.message.contains("\(Self.widget).json") }, "\(errors)")
        #expect(try bed.pull(Self.widget).version == 1)
    }

    /// A stored record's clock readings at the ends of Int64 (a damaged or edited file) are
    /// read back without trapping the daemon's start.
    @Test(arguments: ["savedAtWallMs", "savedAtMonotonicNs"], ["-9223372036854775808", "9223372036854775807"])
    func aStoredRecordWithExtremeClockReadingsIsReadBack(_ field: String, _ value: String) throws {
        let bed = try ExtensionTestBed()
        try bed.start(ExtensionTestBed.extensionTable(Self.widget, command: try bed.command(.answer)))
        #expect(try bed.pull(Self.widget).version == 1)
        try bed.restart()  // the stop saves the record
        let path = bed.daemon.stateDirectory + "/extensions/\(Self.widget).json"
        let saved = try String(contentsOfFile: path, encoding: .utf8)
        let edited = saved.replacingOccurrences(of: "\"\(field)\":-?[0-9]+", with: "\"\(field)\":\(value)", options: .regularExpression)
        #expect(edited != saved)
        try edited.write(toFile: path, atomically: true, encoding: .utf8)
        try bed.restart()
        #expect(try bed.pull(Self.widget).version >= 1)
        #expect(bed.daemon.process?.isRunning == true)
    }

    /// The Swift SDK's demo widget and the Python example written with the Python SDK
    /// pass the same test.
    @Test(arguments: ["swift", "python"])
    func aShippedWidgetServesPulls(_ language: String) throws {
        let sdk = Binaries.packageRoot() + "/sdk/python"
        let command =
            language == "swift"
            ? "[\"\(Binaries.path("DemoWidget"))\"]"
            : "[\"/usr/bin/python3\", \"-S\", \"\(Binaries.packageRoot())/examples/python-widget/widget.py\"]"
        let settings = language == "swift" ? "" : "environment = { PYTHONPATH = \"\(sdk)\" }\nsandbox = { read = [\"\(sdk)\"] }"
        let bed = try ExtensionTestBed()
        try bed.start(ExtensionTestBed.extensionTable(Self.widget, command: command, settings: settings, refresh: "pull_cooldown = \"1h\""))

        let first = try bed.pull(Self.widget, mode: .expanded)
        #expect(first.result == "newData" && first.delivery == "updated")
        #expect(first.version == 1 && !first.stale && first.error == nil)
        // The demo's snapshot has its own schema; the example's is an Adaptive Card.
        guard case .object(let fields)? = first.snapshot,
            case .string(let text)? = fields["text"] ?? (language == "python" ? fields["type"] : nil)
        else {
            Issue.record("the snapshot has no text: \(String(describing: first.snapshot))")
            return
        }
        #expect(!text.isEmpty)
        if language == "python" { #expect(text == "AdaptiveCard") }

        // Both widgets answer with a timeline (a clock, an entry a second): later entries may
        // have become current meanwhile, one version up each, without an update.
        let cached = try bed.pull(Self.widget, mode: .expanded)
        #expect(cached.result == "cached" && cached.delivery == "cached")
        #expect(cached.version >= first.version)
        if cached.version == first.version { #expect(cached.snapshot == first.snapshot) }

        // The refresh updates the mode last pulled.
        #expect(try bed.control(.refresh(NameSelection([Self.widget]))).ok)
        #expect(try eventually { try bed.stats(Self.widget)?.resultsNewData == 2 })
        #expect(try bed.pull(Self.widget, mode: .expanded).version > cached.version)
    }

    @Test func theSnapshotAndTheRemainingBudgetSurviveARestart() throws {
        let bed = try ExtensionTestBed()
        let updates = bed.countFile(Self.widget)
        // Three scheduled refreshes empty the bucket within a second; pulls come from the cache.
        try bed.start(
            ExtensionTestBed.extensionTable(
                Self.widget, command: try bed.command(.answer, countFile: updates),
                refresh: """
                    interval = "300ms"
                    min_interval = "300ms"
                    pull_cooldown = "1h"
                    daily_budget = 1
                    budget_burst = 3
                    """))
        #expect(try bed.stats(Self.widget)?.budgetLeft == 3)
        _ = try bed.pull(Self.widget)
        // The count file has a line once an update is received: its result is waited for too.
        #expect(
            try eventually(timeout: 5) {
                let stats = try bed.stats(Self.widget)
                return stats?.budgetLeft == 0 && stats?.resultsNewData == 4 && ScriptedExtension.updates(in: updates) == 4
            })
        let before = try bed.pull(Self.widget)
        #expect(before.result == "cached" && before.version == 4)

        try bed.restart()
        #expect(try bed.stats(Self.widget)?.budgetLeft == 0)
        let after = try bed.pull(Self.widget)
        #expect(after.result == "cached")
        #expect(after.version == 4 && after.snapshot == before.snapshot)
        #expect(after.ageMs >= before.ageMs)
        #expect(ScriptedExtension.updates(in: updates) == 4)
    }
}
