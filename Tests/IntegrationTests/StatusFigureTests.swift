import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// The figures of `status` and `stats` after what usually goes unmeasured: a deadline
/// kill, many launches, a peak nobody asked about while it lasted (issue 8, case 12).
@Suite struct StatusFigureTests {
    static let widget = ExtensionProtocolTests.widget

    @Test func aDeadlineKillIsTheLastResultAndCountsInEveryFigure() throws {
        let bed = try ExtensionTestBed()
        try bed.start(
            ExtensionTestBed.extensionTable(
                Self.widget, command: try bed.command(.hangAfterFirst, reload: "never"),
                refresh: ExtensionProtocolTests.pullsUpdate + "\ndeadline = \"2s\""))
        let launches = 3
        for launch in 1...launches {
            #expect(try bed.pull(Self.widget).result == "newData", "launch \(launch)")
            Thread.sleep(forTimeInterval: 0.15)
            #expect(try bed.pull(Self.widget).result == "failed", "launch \(launch): \(bed.diagnostics(Self.widget))")
            #expect(try eventually { try bed.status(Self.widget)?.pid == nil })
            let status = try #require(try bed.status(Self.widget))
            #expect(status.lastResult == "failed", "after deadline kill \(launch)")
        }
        let stats = try #require(try bed.stats(Self.widget))
        #expect(stats.launches == launches)
        #expect(stats.launchLatencyUs?.count == launches)
        #expect(stats.resultsNewData == launches && stats.resultsFailed == launches)
        #expect(stats.updateLatencyUs?.count == 2 * launches)
        // The failed updates waited for their deadline: they are the slowest.
        #expect((stats.updateLatencyUs?.max ?? 0) >= 1_900_000, "\(String(describing: stats.updateLatencyUs))")
    }

    /// A host that touches 48 MiB, frees it and sleeps; later, one that exits after
    /// `status` saw it big. Neither had `stats` run while it was big.
    @Test func thePeakRSSIsRightWithoutStatsHavingRun() throws {
        let daemon = try TestDaemon()
        let grow = try daemon.directory.write(
            "grow.py",
            """
            import sys, time
            block = b"x" * (48 << 20)
            open(sys.argv[1], "w").write("big")
            time.sleep(float(sys.argv[2]))
            del block
            open(sys.argv[1], "w").write("small")
            time.sleep(1000)
            """)
        let freed = daemon.directory.file("freed")
        let exits = daemon.directory.file("exits")
        try daemon.writeConfig(
            """
            [hosts.freeing]
            command = ["/usr/bin/python3", "-S", "\(grow)", "\(freed)", "0"]
            autostart = true

            [hosts.exiting]
            command = ["/bin/sh", "-c", "exec /usr/bin/python3 -S \(grow) \(exits) 1000"]
            autostart = true
            """)
        try daemon.start()
        let mebibytes: UInt64 = 1 << 20
        #expect(eventually(timeout: 10) { (try? String(contentsOfFile: freed, encoding: .utf8)) == "small" })
        let freeing = try #require(try daemon.control(.stats(NameSelection(["freeing"]))).stats?.processes.first)
        #expect((freeing.peakRSSBytes ?? 0) >= 48 * mebibytes, "\(freeing)")

        #expect(eventually(timeout: 10) { (try? String(contentsOfFile: exits, encoding: .utf8)) == "big" })
        let seen = try #require(try daemon.control(.status(NameSelection(["exiting"]))).status?.first?.rssBytes)
        #expect(seen >= 48 * mebibytes)
        #expect(try daemon.control(.stop(NameSelection(["exiting"]))).ok)
        let exiting = try #require(try daemon.control(.stats(NameSelection(["exiting"]))).stats?.processes.first)
        #expect((exiting.peakRSSBytes ?? 0) >= seen, "\(exiting)")
    }
}
