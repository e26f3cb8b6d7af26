import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Glibc

/// The daemon under fuzzing, in its own cgroup sandbox and directories, and the checks
/// made after every batch of messages: it is alive, its RSS is under the bound, and its
/// process tree holds no more processes or groups than it was configured for.
final class Target {
    let daemon: TestDaemon
    let rssLimit: UInt64
    private(set) var peakRSS: UInt64 = 0
    /// The smallest and largest RSS seen since ``resetRSSRange()`` (the current campaign's).
    private(set) var rssRange: (min: UInt64, max: UInt64) = (.max, 0)
    private(set) var checks = 0
    /// Where the relay extension hands its fd 3 to the fuzzer.
    let relaySocket: String
    /// The config file as started: the config campaign mutates it and goes back to it.
    private(set) var baseConfigFile = ""

    /// Hosts, apps and extensions configured: the most processes and groups there may be.
    static let configuredProcesses = 5

    init(rssLimit: UInt64) throws {
        daemon = try TestDaemon()
        self.rssLimit = rssLimit
        relaySocket = daemon.directory.file("relay.sock")
        let relay = try daemon.directory.write("relay.py", Self.relay)
        let echo = try EchoExtension.command(in: daemon.directory)
        let processes = """
            [hosts.panel]
            command = ["/bin/sleep", "1000"]
            autostart = true

            [apps."fuzz.app"]
            command = ["/bin/sleep", "1000"]
            url_schemes = ["fuzz"]
            groups = ["group.fuzz"]

            [extensions."fuzz.ext"]
            app = "fuzz.app"
            point = "widget"
            command = ["/usr/bin/python3", "-S", "\(relay)", "\(relaySocket)"]
            start_timeout = "10s"
            stop_timeout = "1s"

            [extensions."fuzz.ext".refresh]
            pull_cooldown = "0s"
            deadline = "1s"

            [extensions."fuzz.echo"]
            app = "fuzz.app"
            point = "widget"
            command = \(echo)
            stop_timeout = "1s"

            [extensions."fuzz.echo".refresh]
            pull_cooldown = "0s"

            [extensions."fuzz.action"]
            app = "fuzz.app"
            point = "action"
            command = \(echo)
            stop_timeout = "1s"

            [places.fuzz]
            compact = "320x110"

            """
        try daemon.writeConfig(processes)
        baseConfigFile = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        try daemon.start()
    }

    /// Replaces the config file with `text` (the daemon reads it at the next reload).
    func writeConfig(_ text: [UInt8]) throws {
        guard FileManager.default.createFile(atPath: daemon.configPath, contents: Data(text)) else {
            throw FuzzFailure("cannot write \(daemon.configPath)")
        }
    }

    var pid: pid_t { daemon.process?.pid ?? -1 }

    /// Throws when the daemon died, does not answer `status` within 10 s, grew past the
    /// bound, or leaked processes or groups.
    func check(_ context: @autoclosure () -> String) throws {
        checks += 1
        guard let process = daemon.process, process.isRunning else {
            throw FuzzFailure("the daemon died during \(context()); stderr:\n\(daemon.process?.stderr.suffix(4000) ?? "")")
        }
        guard let status = try? answer(.status(NameSelection()), timeout: 10), status.ok else {
            throw FuzzFailure("the daemon did not answer status within 10 s during \(context())")
        }
        let rss = residentBytes(of: pid) ?? 0
        peakRSS = max(peakRSS, rss)
        rssRange = (min(rssRange.min, rss), max(rssRange.max, rss))
        guard rss <= rssLimit else {
            throw FuzzFailure("the daemon's RSS is \(rss >> 20) MiB, over the bound of \(rssLimit >> 20) MiB, during \(context())")
        }
        let (processes, groups) = tree()
        // A killed run's group may linger while its processes die; twice the configured is a leak.
        guard processes.count <= 2 * Self.configuredProcesses, groups.count <= 2 * Self.configuredProcesses else {
            throw FuzzFailure("\(processes.count) processes and \(groups.count) groups in the daemon's tree during \(context()): \(groups)")
        }
    }

    func resetRSSRange() { rssRange = (.max, 0) }

    /// One control request's answer, waiting at most `timeout` seconds.
    func answer(_ request: ControlRequest, timeout: Double) throws -> ControlResponse {
        let reply = try daemon.exchange(ControlCodec.line(request), timeout: timeout)
        guard let newline = reply.firstIndex(of: UInt8(ascii: "\n")) else {
            throw FuzzFailure("no answer to \(request.command) within \(timeout) s")
        }
        return try ControlCodec.decode(ControlResponse.self, from: reply[..<newline])
    }

    /// Kills so far of each process the config has now, all reasons (`stats`); a process
    /// a reload removed takes its count with it.
    func killCounts() throws -> [String: Int] {
        let stats = try answer(.stats(NameSelection()), timeout: 10)
        guard let processes = stats.stats?.processes else { throw FuzzFailure("stats failed: \(stats.error ?? "no report")") }
        return Dictionary(processes.map { ($0.name, $0.kills.values.reduce(0, +)) }, uniquingKeysWith: +)
    }

    /// Stops the daemon; throws unless it exits 0 and leaves no process and no group of a
    /// process behind.
    func finish() throws {
        guard let code = daemon.stop(timeout: 20) else { throw FuzzFailure("the daemon did not stop within 20 s of SIGTERM") }
        guard code == 0 else { throw FuzzFailure("the daemon exited \(code) at SIGTERM") }
        let (processes, groups) = tree()
        guard processes.isEmpty else { throw FuzzFailure("processes left after the daemon stopped: \(processes)") }
        guard groups.isEmpty else {
            let log = (daemon.process?.stderr ?? "").split(separator: "\n").filter { line in
                !line.contains("reload failed") && groups.contains { line.contains($0.split(separator: "/").last!) }
            }
            throw FuzzFailure("groups left after the daemon stopped: \(groups); the daemon's log of them:\n" + log.suffix(15).joined(separator: "\n"))
        }
    }

    /// Processes in the sandbox and the groups of processes (`<kind>/<name>`) in it.
    private func tree() -> (processes: [String], groups: [String]) {
        let root = daemon.sandbox.memoryDirectory
        var processes: [String] = []
        var groups: [String] = []
        let entries = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        for entry in entries where entry.hasSuffix("cgroup.procs") {
            let text = (try? String(contentsOfFile: root + "/" + entry, encoding: .utf8)) ?? ""
            processes += text.split(separator: "\n").map(String.init)
            let directory = String(entry.dropLast("/cgroup.procs".count))
            if directory.split(separator: "/").count == 2 { groups.append(directory) }
        }
        return (processes, groups)
    }

    /// An extension that hands its fd 3 to the fuzzer and lives until the fuzzer lets go.
    static let relay = #"""
        import os, socket, sys
        fuzzer = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        fuzzer.connect(sys.argv[1])
        socket.send_fds(fuzzer, [b"3"], [int(os.environ["EXTENSIOND_FD"])])
        os.close(int(os.environ["EXTENSIOND_FD"]))
        fuzzer.recv(1)
        """#
}

/// Why a fuzzing run failed.
struct FuzzFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
