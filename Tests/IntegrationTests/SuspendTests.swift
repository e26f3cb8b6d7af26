import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// Suspended, not exited (issue 24): an idle extension is frozen with the cgroup freezer
/// after `suspend_after`, uses no CPU while frozen, is thawed for its next request, and a
/// stop or a removal of a frozen one ends it cleanly. (The v1 freezer here; v2's
/// `cgroup.freeze` is the same code behind the backend protocol.)
@Suite struct SuspendTests {
    /// The CPU time of every thread of `pid` in nanoseconds (`/proc/PID/task/*/schedstat`).
    static func cpuNanoseconds(_ pid: Int32) -> UInt64 {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.reduce(0) { total, task in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8)) ?? ""
            return total + (text.split(separator: " ").first.flatMap { UInt64($0) } ?? 0)
        }
    }

    /// A test bed with a ticking ``ScriptedExtension`` `w`, suspended after 300 ms idle.
    private func startWidget(_ bed: ExtensionTestBed, idleExit: String = "1m") throws {
        try bed.start(
            ExtensionTestBed.extensionTable(
                "w", command: try bed.command(.ticking),
                settings: "suspend_after = \"300ms\"\nidle_exit = \"\(idleExit)\""))
    }

    private func freezerState(_ bed: ExtensionTestBed) throws -> String {
        let freezer = try #require(bed.daemon.sandbox.freezerDirectory, "no v1 freezer hierarchy")
        return try String(contentsOfFile: freezer + "/extensions/w/freezer.state", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func waitUntilSuspended(_ bed: ExtensionTestBed) throws -> Bool {
        try eventually(timeout: 10) { try bed.status("w")?.state == "suspended" }
    }

    @Test func aSuspendedExtensionIsFrozenUsesNoCPUAndARequestThawsIt() throws {
        let bed = try ExtensionTestBed()
        try startWidget(bed)
        let first = try bed.pull("w")
        let pid = try #require(first.snapshot?.field("pid"))
        #expect(try waitUntilSuspended(bed), "\(bed.diagnostics("w"))")
        // The kernel stops the tasks after the write: FREEZING until the last one has.
        #expect(try eventually(timeout: 10) { try freezerState(bed) == "FROZEN" })

        let frozenAt = Self.cpuNanoseconds(Int32(pid))
        Thread.sleep(forTimeInterval: 0.5)
        #expect(Self.cpuNanoseconds(Int32(pid)) == frozenAt, "a frozen extension's timer thread ran")

        // A request reaching the extension thaws it first; the same process answers.
        #expect(try bed.control(.refresh(NameSelection(["w"]))).ok)
        var second: PullReport?
        #expect(
            try eventually(timeout: 10) {
                second = try bed.pull("w")
                return second?.version == 2
            }, "\(bed.diagnostics("w"))")
        #expect(second?.snapshot?.field("pid") == pid, "thawed, not relaunched")
        #expect(Self.cpuNanoseconds(Int32(pid)) > frozenAt, "thawed, its timers ran again")
        #expect(try bed.status("w")?.state != "starting")
        #expect(try waitUntilSuspended(bed), "idle again, suspended again")
        #expect(try (bed.stats("w")?.suspensions ?? 0) >= 2)
        #expect(try bed.control(.events(LogRequest(lines: 500))).events?.contains { $0.kind == .suspend && $0.name == "w" } == true)
    }

    @Test func aSuspendedExtensionStillEndsAtItsIdleExit() throws {
        let bed = try ExtensionTestBed()
        try startWidget(bed, idleExit: "2s")
        _ = try bed.pull("w")
        #expect(try waitUntilSuspended(bed))
        #expect(
            try eventually(timeout: 10) { try bed.status("w")?.state == "exited" || bed.status("w")?.state == "stopped" },
            "\(bed.diagnostics("w"))")
        // It took `terminate` (thawed first) and exited on its own, status 0.
        let exits = try bed.control(.events(LogRequest(lines: 500))).events?.filter { $0.kind == .exit && $0.name == "w" } ?? []
        #expect(exits.map(\.reason) == ["idle"] && exits.first?.message.contains("exited with status 0") == true, "\(exits)")
    }

    @Test func stoppingOrRemovingASuspendedExtensionEndsItCleanly() throws {
        let bed = try ExtensionTestBed()
        try startWidget(bed)
        _ = try bed.pull("w")
        #expect(try waitUntilSuspended(bed))
        #expect(try bed.daemon.supervisorctl(["stop", "w"]).exitCode == 0)
        #expect(try bed.status("w")?.state == "stopped")
        let stopped = try bed.control(.events(LogRequest(lines: 500))).events?.filter { $0.kind == .exit && $0.name == "w" } ?? []
        #expect(stopped.count == 1 && stopped.first?.message.contains("exited with status 0") == true, "took terminate: \(stopped)")
        // Its freezer group is kept for the next launch (as before its first), empty and thawed.
        let freezer = try #require(bed.daemon.sandbox.freezerDirectory)
        let kept = freezer + "/extensions/w"
        #expect(eventually { (try? String(contentsOfFile: kept + "/cgroup.procs", encoding: .utf8)) == "" }, "its freezer group is emptied")
        #expect((try? String(contentsOfFile: kept + "/freezer.state", encoding: .utf8)) == "THAWED\n")

        // Started and suspended again, then removed from the configuration with its app.
        #expect(try bed.daemon.supervisorctl(["start", "w"]).exitCode == 0)
        _ = try bed.pull("w")
        #expect(try waitUntilSuspended(bed))
        let pid = try #require(try bed.status("w")?.pid)
        try bed.daemon.writeConfig("")
        #expect(try bed.control(.reload).ok)
        #expect(eventually(timeout: 10) { !FileManager.default.fileExists(atPath: "/proc/\(pid)") }, "the removed extension's process is gone and reaped")
        #expect(eventually { !FileManager.default.fileExists(atPath: freezer + "/extensions/w") })
        let removed = try bed.control(.events(LogRequest(lines: 500))).events?.filter { $0.kind == .exit && $0.name == "w" } ?? []
        #expect(removed.last?.reason == "removed", "\(removed)")
    }
}
