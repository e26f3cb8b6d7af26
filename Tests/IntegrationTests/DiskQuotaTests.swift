import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Glibc
import Testing

/// `disk_max` (issue 19, item 8): an extension filling its data directory gets ENOSPC at
/// its own bound, and another app's `defaults set`, snapshot saves and `enable` go on.
/// `state_dir` is a real 64 MiB tmpfs, so that without the bound the filler fills it all.
@Suite(.serialized) struct DiskQuotaTests {
    /// Says `ready`, writes 256 KiB chunks to `$EXTENSIOND_DATA_DIR/fill` until a write
    /// fails, then writes `<errno name> <bytes written>` to `argv[1]` and waits.
    static let filler = #"""
        import errno, os, sys
        fd = int(os.environ["EXTENSIOND_FD"])
        os.write(fd, b'{"type":"ready","protocol":1}\n')
        written, failure = 0, "none"
        chunk = b"f" * (256 << 10)
        with open(os.path.join(os.environ["EXTENSIOND_DATA_DIR"], "fill"), "wb", buffering=0) as out:
            try:
                while written < (128 << 20):
                    written += out.write(chunk)
            except OSError as error:
                failure = errno.errorcode.get(error.errno, str(error.errno))
        with open(sys.argv[1] + ".tmp", "w") as report:
            report.write(f"{failure} {written}")
        os.rename(sys.argv[1] + ".tmp", sys.argv[1])
        while os.read(fd, 65536): pass
        """#

    @Test func anExtensionFillingItsDataDirectoryStopsAtItsDiskMaxAndOthersGoOn() throws {
        let daemon = try TestDaemon()
        let disk = try Tmpfs(at: daemon.stateDirectory, size: 64 << 20)
        defer { disk.unmount() }
        let script = try daemon.directory.write("filler.py", Self.filler)
        let report = daemon.sharedDirectory + "/filled"
        // Every volume 8 MiB: the app's group container too.
        let base = try StateDirectoryTests.config(daemon).replacingOccurrences(
            of: "groups = [\"group.mine\"]", with: "groups = [\"group.mine\"]\ndisk_max = \"8M\"")
        try daemon.writeConfig(
            base + """

                [defaults]
                disk_max = "8M"

                [defaults.sandbox]
                write = ["\(daemon.sharedDirectory)"]

                [apps.other]
                command = ["/bin/sleep", "1000"]
                groups = ["group.other"]
                disk_max = "8M"

                [extensions.filler]
                app = "other"
                point = "widget"
                disk_max = "8M"
                command = ["/usr/bin/python3", "-S", "\(script)", "\(report)"]
                """, supervisor: "state_reserve = \"8M\"")
        try daemon.start()
        var version = try #require(try StateDirectoryTests.pull(daemon)).version
        #expect(try daemon.control(.start(NameSelection(["filler"]))).ok)
        #expect(eventually(timeout: 30) { FileManager.default.fileExists(atPath: report) }, "the filler never finished")
        let outcome = ((try? String(contentsOfFile: report, encoding: .utf8)) ?? "").split(separator: " ")
        #expect(["ENOSPC", "EDQUOT"].contains(outcome.first ?? ""), "\(outcome)")
        let written = Int(outcome.last ?? "") ?? .max
        #expect(written <= 8 << 20 && written >= 4 << 20, "the filler wrote \(written) bytes with disk_max 8M")
        // mkfs ran once for the size: every volume (data directories, group containers) is
        // a copy of that template, its root given to its owner (the filler wrote to it).
        let volumes = daemon.stateDirectory + "/volumes"
        #expect(try FileManager.default.contentsOfDirectory(atPath: volumes).sorted() == ["data", "empty-\(8 << 20).img", "groups"])

        // The daemon's own writes and another app's go on.
        #expect(try StateDirectoryTests.defaults(daemon, ["set", "a", "1"]).ok)
        #expect(try StateDirectoryTests.defaults(daemon, ["get", "a"]).message == "1")
        Thread.sleep(forTimeInterval: 0.2)  // past the widget's pull cooldown
        let pulled = try #require(try StateDirectoryTests.pull(daemon))
        #expect(pulled.version > version, "\(pulled)")
        version = pulled.version
        #expect(try daemon.control(.disable(NameSelection([StateDirectoryTests.widget]))).ok)
        #expect(try daemon.control(.enable(NameSelection([StateDirectoryTests.widget]))).ok)
        let status = try daemon.control(.status(NameSelection([StateDirectoryTests.widget, "mine"]))).status ?? []
        #expect(status.allSatisfy { $0.error == nil }, "\(status)")
        let storage = try daemon.control(.events(LogRequest(lines: 200))).events?.filter { $0.reason == "storage" && $0.kind == .error } ?? []
        #expect(storage.isEmpty, "\(storage)")
        #expect(daemon.stop() == 0)
        #expect(Self.mounts(below: daemon.stateDirectory).isEmpty, "a clean stop leaves no volume mounted")
    }

    /// Mount points below `directory`.
    static func mounts(below directory: String) -> [String] {
        let mountinfo = (try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? ""
        return mountinfo.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            return fields.count > 4 && fields[4].hasPrefix(directory + "/") ? String(fields[4]) : nil
        }
    }
}
