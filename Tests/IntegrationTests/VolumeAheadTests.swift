import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Glibc
import Testing

/// `disk_max` volumes are made and mounted beside the loop ahead of demand, after a config
/// is applied, so that a first launch finds its data directory ready (docs/ARCHITECTURE.md,
/// "Volumes ahead of demand"); a stop, a removal or the daemon's exit while they are being
/// made leaves no volume mounted and no loop device attached.
@Suite(.serialized) struct VolumeAheadTests {
    /// App `v` with the group `group.v` and `count` widgets `v.0`, `v.1`, ….
    static func config(_ widget: String, count: Int) -> String {
        var text = """
            [apps.v]
            command = ["/bin/sleep", "1000"]
            groups = ["group.v"]
            disk_max = "4M"

            [defaults]
            disk_max = "4M"
            """
        for index in 0..<count {
            text += "\n\n[extensions.\"v.\(index)\"]\napp = \"v\"\npoint = \"widget\"\ncommand = \(widget)"
        }
        return text
    }

    /// Loop devices whose image is below `directory` (`/sys/block/loop*/loop/backing_file`).
    static func loopDevices(backedBelow directory: String) -> [String] {
        let devices = (try? FileManager.default.contentsOfDirectory(atPath: "/sys/block")) ?? []
        return devices.filter { device in
            guard device.hasPrefix("loop"),
                let backing = try? String(contentsOfFile: "/sys/block/\(device)/loop/backing_file", encoding: .utf8)
            else { return false }
            return backing.hasPrefix(directory + "/")
        }
    }

    static func expectNothingLeft(_ daemon: TestDaemon) {
        #expect(DiskQuotaTests.mounts(below: daemon.stateDirectory).isEmpty, "volumes left mounted")
        #expect(
            eventually(timeout: 5) { loopDevices(backedBelow: daemon.stateDirectory).isEmpty },
            "loop devices left attached: \(loopDevices(backedBelow: daemon.stateDirectory))")
    }

    @Test func anExtensionsVolumeIsMountedBeforeItsFirstLaunch() throws {
        let daemon = try TestDaemon()
        let widget = try ScriptedExtension.command(.answer, in: daemon.directory)
        try daemon.writeConfig(Self.config(widget, count: 2))
        try daemon.start()
        let state = daemon.stateDirectory
        let wanted: Set = [state + "/data/v.0", state + "/data/v.1", state + "/groups/group.v"]
        // mkfs.ext4 makes the size's template first: seconds on a loaded machine.
        #expect(
            eventually(timeout: 60) { wanted.isSubset(of: DiskQuotaTests.mounts(below: state)) },
            "mounted: \(DiskQuotaTests.mounts(below: state))")
        let status = try daemon.control(.status(NameSelection(["v.0", "v.1"]))).status ?? []
        #expect(status.count == 2 && status.allSatisfy { $0.pid == nil }, "launched before any request: \(status)")

        // The first launch finds its data directory bounded and its own.
        #expect(try daemon.control(.pull(PullRequest(name: "v.0"))).pull?.version == 1)
        let events = try daemon.control(.events(LogRequest(lines: 200))).events ?? []
        #expect(!events.contains { $0.kind == .error }, "\(events.filter { $0.kind == .error })")
        #expect(daemon.stop() == 0)
        Self.expectNothingLeft(daemon)
    }

    @Test func aLaunchThatComesBeforeItsVolumeWaitsForItAndRunsOnIt() throws {
        let daemon = try TestDaemon()
        // Says whether its data directory is a mount point, then answers as a widget does.
        let report = daemon.sharedDirectory + "/mounted"
        let probe = try daemon.directory.write(
            "probe.py",
            """
            import os, sys
            data = os.environ["EXTENSIOND_DATA_DIR"]
            with open(sys.argv[1] + ".tmp", "w") as out:
                out.write("mounted" if os.path.ismount(data) else "not mounted")
            os.rename(sys.argv[1] + ".tmp", sys.argv[1])
            fd = int(os.environ["EXTENSIOND_FD"])
            os.write(fd, b'{"type":"ready","protocol":1}\\n')
            while os.read(fd, 65536): pass
            """)
        let widget = try ScriptedExtension.command(.answer, in: daemon.directory)
        // The probe comes last: its volume is made after the 30 others'.
        try daemon.writeConfig(
            Self.config(widget, count: 30) + """


                [defaults.sandbox]
                write = ["\(daemon.sharedDirectory)"]

                [extensions.probe]
                app = "v"
                point = "widget"
                command = ["/usr/bin/python3", "-S", "\(probe)", "\(report)"]
                """)
        try daemon.start()
        #expect(try daemon.control(.start(NameSelection(["probe"]))).ok)
        #expect(eventually(timeout: 30) { FileManager.default.fileExists(atPath: report) }, "the probe never ran")
        #expect((try? String(contentsOfFile: report, encoding: .utf8)) == "mounted")
        #expect(daemon.stop() == 0)
        Self.expectNothingLeft(daemon)
    }

    /// A daemon just started with 40 volumes to make.
    static func makingVolumes() throws -> TestDaemon {
        let daemon = try TestDaemon()
        try daemon.writeConfig(Self.config(try ScriptedExtension.command(.answer, in: daemon.directory), count: 40))
        try daemon.start()
        return daemon
    }

    @Test func aDaemonStoppedWhileMakingVolumesLeavesNoneBehind() throws {
        let daemon = try Self.makingVolumes()
        #expect(daemon.stop() == 0)
        Self.expectNothingLeft(daemon)
    }

    @Test func anAppRemovedWhileItsVolumesAreMadeLeavesNoneBehind() throws {
        let daemon = try Self.makingVolumes()
        try daemon.writeConfig("")
        #expect(try daemon.control(.reload).ok)
        // Set aside once the job under way, if it is one of v's, hands back.
        #expect(eventually(timeout: 30) { FileManager.default.fileExists(atPath: daemon.stateDirectory + "/removed/v/removed.json") })
        #expect(DiskQuotaTests.mounts(below: daemon.stateDirectory).isEmpty, "volumes of the removed app left mounted")
        #expect(daemon.stop() == 0)
        Self.expectNothingLeft(daemon)
    }
}
