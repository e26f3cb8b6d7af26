import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// On cgroup v1 a process's pids, freezer and cpu groups are kept between its runs, so
/// that a relaunch makes one group (memory) instead of five (docs/ARCHITECTURE.md, "The
/// cgroup tree"), and an extension's are made ahead of its first launch and kept when it is
/// stopped by hand; a removal and the daemon's stop remove them.
@Suite struct KeptGroupTests {
    static func config(_ widget: String, pidsMax: Int, extensions: [String] = ["w"]) -> String {
        var text = """
            [apps.k]
            command = ["/bin/sleep", "1000"]
            """
        for name in extensions {
            text += "\n\n[extensions.\(name)]\napp = \"k\"\npoint = \"widget\"\ncommand = \(widget)\npids_max = \(pidsMax)"
        }
        return text
    }

    /// The kept directories of `name`'s group (pids, freezer, cpu), those that exist.
    static func kept(_ daemon: TestDaemon, _ name: String) -> [String] {
        daemon.sandbox.otherDirectories.map { $0 + "/extensions/" + name }.filter { FileManager.default.fileExists(atPath: $0) }
    }

    static func members(_ directory: String) -> [String] {
        ((try? String(contentsOfFile: directory + "/cgroup.procs", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Starts `name`, waits until it is ready, and returns its pid.
    static func launch(_ daemon: TestDaemon, _ name: String) throws -> Int32 {
        #expect(try daemon.control(.start(NameSelection([name]))).ok)
        var pid: Int32?
        #expect(
            try eventually(timeout: 10) {
                let status = try daemon.control(.status(NameSelection([name]))).status?.first
                pid = status?.state == "idle" ? status?.pid : nil
                return pid != nil
            })
        return try #require(pid)
    }

    /// Ends the run of `name` as a crash does (SIGKILL from outside the daemon's stop).
    static func endOnItsOwn(_ daemon: TestDaemon, _ name: String) throws {
        #expect(try daemon.control(.signal(SignalRequest(signal: "KILL", names: [name]))).ok)
        #expect(
            try eventually(timeout: 10) { try daemon.control(.status(NameSelection([name]))).status?.first?.pid == nil })
    }

    @Test func aRelaunchReusesItsKeptGroupsEmptyAndWithTheNewLimits() throws {
        let daemon = try TestDaemon()
        let pids = try #require(daemon.sandbox.pidsDirectory, "no v1 pids hierarchy")
        let widget = try ScriptedExtension.command(.answer, in: daemon.directory)
        try daemon.writeConfig(Self.config(widget, pidsMax: 32))
        try daemon.start()
        let memory = daemon.sandbox.memoryDirectory + "/extensions/w"

        let first = try Self.launch(daemon, "w")
        #expect(Self.members(pids + "/extensions/w") == ["\(first)"])
        try Self.endOnItsOwn(daemon, "w")
        #expect(eventually { !FileManager.default.fileExists(atPath: memory) }, "the memory group goes with its run")
        #expect(Self.kept(daemon, "w").count == daemon.sandbox.otherDirectories.count, "kept: \(Self.kept(daemon, "w"))")
        #expect(Self.kept(daemon, "w").allSatisfy { Self.members($0).isEmpty })

        // A new definition: the kept group takes the new limit, and holds the new run only.
        try daemon.writeConfig(Self.config(widget, pidsMax: 48))
        #expect(try daemon.control(.reload).ok)
        let second = try Self.launch(daemon, "w")
        #expect(second != first)
        #expect(Self.kept(daemon, "w").allSatisfy { Self.members($0) == ["\(second)"] }, "\(Self.kept(daemon, "w").map(Self.members))")
        #expect((try? String(contentsOfFile: pids + "/extensions/w/pids.max", encoding: .utf8)) == "48\n")
        if let freezer = daemon.sandbox.freezerDirectory {
            #expect((try? String(contentsOfFile: freezer + "/extensions/w/freezer.state", encoding: .utf8)) == "THAWED\n")
        }

        // A stop by hand keeps them, empty, as before the first launch; the next launch
        // joins them and makes its memory group.
        #expect(try daemon.control(.stop(NameSelection(["w"]))).ok)
        #expect(eventually { !FileManager.default.fileExists(atPath: memory) }, "the memory group goes with its run")
        #expect(Self.kept(daemon, "w").count == daemon.sandbox.otherDirectories.count, "kept: \(Self.kept(daemon, "w"))")
        #expect(Self.kept(daemon, "w").allSatisfy { Self.members($0).isEmpty })
        let third = try Self.launch(daemon, "w")
        #expect(Self.kept(daemon, "w").allSatisfy { Self.members($0) == ["\(third)"] }, "\(Self.kept(daemon, "w").map(Self.members))")
        #expect(Self.members(memory) == ["\(third)"])
        #expect(daemon.stop() == 0)
        for directory in [daemon.sandbox.memoryDirectory] + daemon.sandbox.otherDirectories {
            #expect(!FileManager.default.fileExists(atPath: directory + "/extensions/w"), "left: \(directory)/extensions/w")
        }
    }

    static func contents(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

    @Test func anExtensionsKeptGroupsAreMadeAheadOfItsFirstLaunch() throws {
        let daemon = try TestDaemon()
        let pids = try #require(daemon.sandbox.pidsDirectory, "no v1 pids hierarchy")
        let widget = try ScriptedExtension.command(.answer, in: daemon.directory)
        try daemon.writeConfig(Self.config(widget, pidsMax: 32, extensions: ["w", "v"]))
        try daemon.start()
        let memory = daemon.sandbox.memoryDirectory + "/extensions/"

        // Before any launch: every kept directory, empty, with the definition's limits; no memory group.
        for name in ["w", "v"] {
            #expect(eventually { Self.kept(daemon, name).count == daemon.sandbox.otherDirectories.count }, "\(Self.kept(daemon, name))")
            #expect(Self.kept(daemon, name).allSatisfy { Self.members($0).isEmpty })
            #expect(!FileManager.default.fileExists(atPath: memory + name))
        }
        #expect(Self.contents(pids + "/extensions/w/pids.max") == "32\n")
        if let cpu = daemon.sandbox.cpuDirectory {
            // The extensions' default `cpu_max = "50%"` and `cpu_weight = 50`.
            #expect(Self.contents(cpu + "/extensions/w/cpu.cfs_quota_us") == "50000\n")
            #expect(Self.contents(cpu + "/extensions/w/cpu.shares") == "512\n")
        }

        // The first launch joins them and makes its memory group.
        let pid = try Self.launch(daemon, "w")
        #expect(Self.kept(daemon, "w").allSatisfy { Self.members($0) == ["\(pid)"] }, "\(Self.kept(daemon, "w").map(Self.members))")
        #expect(Self.members(memory + "w") == ["\(pid)"])

        // `v`, never launched, removed from the configuration: its groups go.
        try daemon.writeConfig(Self.config(widget, pidsMax: 32, extensions: ["w"]))
        #expect(try daemon.control(.reload).ok)
        #expect(eventually { Self.kept(daemon, "v").isEmpty }, "\(Self.kept(daemon, "v"))")
        #expect(daemon.stop() == 0)
        for directory in [daemon.sandbox.memoryDirectory] + daemon.sandbox.otherDirectories {
            #expect(!FileManager.default.fileExists(atPath: directory + "/extensions"), "left: \(directory)/extensions")
        }
    }

    @Test func aKeptGroupRemovedFromOutsideFailsOneLaunchAndIsMadeAgain() throws {
        let daemon = try TestDaemon()
        let pids = try #require(daemon.sandbox.pidsDirectory, "no v1 pids hierarchy") + "/extensions/w"
        let widget = try ScriptedExtension.command(.answer, in: daemon.directory)
        try daemon.writeConfig(Self.config(widget, pidsMax: 32))
        try daemon.start()
        #expect(eventually { FileManager.default.fileExists(atPath: pids) })
        #expect(rmdir(pids) == 0, "errno \(errno)")

        // The daemon has the group on record and does not make it: the child's join fails.
        let failed = try daemon.control(.start(NameSelection(["w"])))
        if failed.ok {
            // It waited for its volume (answered `started`): the failure shows in status.
            #expect(
                try eventually(timeout: 10) {
                    try daemon.control(.status(NameSelection(["w"]))).status?.first?.error?.contains(pids) == true
                })
        } else {
            #expect((failed.error ?? "").contains(pids), "\(failed)")
        }
        let pid = try Self.launch(daemon, "w")
        #expect(Self.members(pids) == ["\(pid)"])
        #expect(Self.contents(pids + "/pids.max") == "32\n")
        #expect(daemon.stop() == 0)
    }

    @Test func removalAndTheDaemonsStopRemoveKeptGroups() throws {
        let daemon = try TestDaemon()
        try #require(daemon.sandbox.pidsDirectory != nil, "no v1 pids hierarchy")
        let widget = try ScriptedExtension.command(.answer, in: daemon.directory)
        try daemon.writeConfig(Self.config(widget, pidsMax: 32, extensions: ["w", "v"]))
        try daemon.start()
        for name in ["w", "v"] {
            _ = try Self.launch(daemon, name)
            try Self.endOnItsOwn(daemon, name)
            #expect(eventually { !Self.kept(daemon, name).isEmpty })
        }

        // `w` removed from the configuration: its kept groups go.
        try daemon.writeConfig(Self.config(widget, pidsMax: 32, extensions: ["v"]))
        #expect(try daemon.control(.reload).ok)
        #expect(eventually { Self.kept(daemon, "w").isEmpty }, "\(Self.kept(daemon, "w"))")
        #expect(!Self.kept(daemon, "v").isEmpty)

        // The daemon's stop: nothing is left in any hierarchy.
        #expect(daemon.stop() == 0)
        #expect(Self.kept(daemon, "v").isEmpty, "\(Self.kept(daemon, "v"))")
        for directory in [daemon.sandbox.memoryDirectory] + daemon.sandbox.otherDirectories {
            #expect(!FileManager.default.fileExists(atPath: directory + "/extensions"), "left: \(directory)/extensions")
        }
    }
}
