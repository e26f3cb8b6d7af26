import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Glibc
import Testing

/// CPU limits (issue 19, item 9), measured from the kernel's accounting: an extension's
/// cgroup CPU time stays under its `cpu_max`, and its `cpu_weight` (or the extensions'
/// defaults) is what its cgroup gets.
@Suite(.serialized) struct CPULimitTests {
    /// Says `ready`, then spins.
    static let spinner = #"""
        import os
        os.write(int(os.environ["EXTENSIOND_FD"]), b'{"type":"ready","protocol":1}\n')
        while True: pass
        """#

    @Test func aSpinningExtensionStaysUnderItsCPUMaxAndGetsItsWeight() throws {
        let daemon = try TestDaemon()
        let script = try daemon.directory.write("spinner.py", Self.spinner)
        try daemon.writeConfig(
            """
            [apps.mine]
            command = ["/bin/sleep", "1000"]

            [extensions.spinner]
            app = "mine"
            point = "widget"
            command = ["/usr/bin/python3", "-S", "\(script)"]
            cpu_max = "20%"
            cpu_weight = 50

            [extensions.plain]
            app = "mine"
            point = "widget"
            command = ["/usr/bin/python3", "-S", "\(script)"]
            """)
        try daemon.start()
        #expect(try daemon.control(.start(NameSelection(["spinner", "plain"]))).ok)
        let spinner = try #require(try Self.cgroup(of: "spinner", in: daemon))
        let plain = try #require(try Self.cgroup(of: "plain", in: daemon))

        let used = try Self.cpuShare(of: spinner, over: 2)
        #expect(used > 0.05 && used < 0.26, "the spinner used \(used) of a core with cpu_max 20%")
        #expect(try Self.cpuFile(spinner, "cpu.cfs_quota_us") == "20000" && Self.cpuFile(spinner, "cpu.cfs_period_us") == "100000")
        #expect(try Self.cpuFile(spinner, "cpu.shares") == "512", "cpu_weight 50 of 100")
        // The documented defaults of extensions: half a core, weight 50.
        #expect(try Self.cpuFile(plain, "cpu.cfs_quota_us") == "50000")
        #expect(try Self.cpuFile(plain, "cpu.shares") == "512")
        #expect(daemon.stop() == 0)
    }

    /// The v1 cpuacct and cpu directories of `name`'s running process.
    static func cgroup(of name: String, in daemon: TestDaemon) throws -> (cpuacct: String, cpu: String)? {
        var pid: Int32?
        _ = try eventually(timeout: 10) {
            pid = try daemon.control(.status(NameSelection([name]))).status?.first?.pid
            return pid != nil
        }
        guard let pid, let membership = try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8) else { return nil }
        func directory(_ controller: String) -> String? {
            for line in membership.split(separator: "\n") {
                let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
                guard fields.count == 3, fields[1].split(separator: ",").contains(Substring(controller)) else { continue }
                let mount = "/sys/fs/cgroup/" + fields[1]
                return mount + fields[2]
            }
            return nil
        }
        guard let cpuacct = directory("cpuacct"), let cpu = directory("cpu") else { return nil }
        return (cpuacct, cpu)
    }

    /// The cores the group used over `seconds`, from `cpuacct.usage`.
    static func cpuShare(of group: (cpuacct: String, cpu: String), over seconds: Double) throws -> Double {
        func usage() throws -> Double { Double(try cpuFile((group.cpuacct, group.cpuacct), "cpuacct.usage")) ?? .nan }
        let start = (try usage(), Date())
        Thread.sleep(forTimeInterval: seconds)
        return (try usage() - start.0) / 1e9 / Date().timeIntervalSince(start.1)
    }

    static func cpuFile(_ group: (cpuacct: String, cpu: String), _ file: String) throws -> String {
        try String(contentsOfFile: group.cpu + "/" + file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
