import ControlProtocol
import ExtensiondPolicy
import ExtensiondTestSupport
import Foundation
import Glibc

/// The memory pressure scenario of DESIGN §3 on a real daemon in a cgroup sandbox:
/// a host holding 64M, three idle extensions holding 40M each, and one extension that
/// grows while it is still starting (it never sends `ready`, so it counts as active).
///
/// Every process holds its share as memory charged to its own cgroup (Python's own
/// few MiB included), so the figures in the config are the figures the daemon sees.
final class PressureScenario {
    static let mebibyte: UInt64 = 1 << 20
    static let budget = 256 * mebibyte
    /// The default watermarks: 85% and 95% of the budget.
    static let low = budget * 85 / 100
    static let critical = budget * 95 / 100
    static let python = "/usr/bin/python3"
    /// Idle extensions by kill order: lowest priority first.
    static let idleByKillOrder = ["idle.b", "idle.c", "idle.a"]
    static let priorities = ["idle.a": 2, "idle.b": 0, "idle.c": 1]

    let sandbox: CgroupSandbox
    /// Holds the config, sockets and scripts; its daemon is started by ``start()``.
    let daemon: TestDaemon
    private var daemonProcess: TestProcess?

    /// The processes of DESIGN §3 with a budget of 256M (or `budget`), in a fresh sandbox
    /// (hard limit above the budget, so that the daemon's own backstop at the budget is what
    /// the kernel enforces). `grower` takes `step` MiB every `pause` seconds up to `total` MiB.
    /// `extraConfig` is given the path of the holding script.
    convenience init(
        growerStep step: Int, pause: Double, total: Int, budget: String = "256M",
        extraConfig: (_ holdScript: String) -> String = { _ in "" }
    ) throws {
        try self.init(budget: budget) { daemon, hold in
            let grow = try daemon.directory.write("grow.py", Self.growScript)
            return Self.standardProcesses(hold: hold, grow: grow, growerStep: step, pause: pause, total: total) + extraConfig(hold)
        }
    }

    /// A daemon with `budget` whose processes are `processes(daemon, holdScript)`, in a fresh
    /// sandbox as above.
    init(budget: String, processes: (_ daemon: TestDaemon, _ holdScript: String) throws -> String) throws {
        sandbox = try CgroupSandbox(memoryLimit: 384 * Self.mebibyte)
        daemon = try TestDaemon()
        let hold = try daemon.directory.write("hold.py", Self.holdScript)
        try daemon.writeConfig(
            try processes(daemon, hold),
            supervisor: """
                cgroup = "\(sandbox.memoryDirectory)"
                memory_budget = "\(budget)"
                """)
    }

    /// `[hosts.panel]` holding `megabytes` MiB with `hold`, and the app `app` that owns the
    /// extensions.
    static func panelAndApp(hold: String, megabytes: Int = 64) -> String {
        """
        [hosts.panel]
        command = ["\(python)", "\(hold)", "\(megabytes)"]

        [apps.app]
        command = ["/bin/sleep", "1000"]

        """
    }

    /// `[extensions.<id>]`: a widget of `app` running Python with `arguments`, and more
    /// `settings` lines.
    static func widget(_ id: String, python arguments: [String], _ settings: String = "") -> String {
        """

        [extensions.\(id)]
        app = "app"
        point = "widget"
        command = ["\(python)", \(arguments.map { "\"\($0)\"" }.joined(separator: ", "))]
        \(settings)

        """
    }

    /// The host, the app, the growing extension and the three idle ones of DESIGN §3.
    private static func standardProcesses(hold: String, grow: String, growerStep step: Int, pause: Double, total: Int) -> String {
        var config = """
            [hosts.panel]
            command = ["\(Self.python)", "\(hold)", "64"]

            [apps.app]
            command = ["/bin/sleep", "1000"]

            [extensions.grower]
            app = "app"
            point = "widget"
            command = ["\(Self.python)", "\(grow)", "\(step)", "\(pause)", "\(total)"]
            start_timeout = "60s"

            """
        for (name, priority) in Self.priorities.sorted(by: { $0.key < $1.key }) {
            config += """

                [extensions."\(name)"]
                app = "app"
                point = "widget"
                command = ["\(Self.python)", "\(hold)", "40"]
                priority = \(priority)
                idle_exit = "10m"
                suspend_after = "0s"

                """
        }
        return config
    }

    deinit {
        // The daemon first, so that it does not see its processes vanish under it.
        if let daemonProcess {
            daemonProcess.signal(SIGTERM)
            _ = daemonProcess.wait(timeout: 10)
        }
        sandbox.remove()
    }

    /// Starts the daemon inside the sandbox's pids cgroup as well, and waits for `READY=1`.
    /// `wrapper`, when given, runs first and is passed the daemon's command line to exec.
    ///
    /// On v1 the daemon makes its pids groups below its own pids cgroup; here that is
    /// the sandbox's, not one shared with every other daemon on the machine (which
    /// removes the shared `extensions` pids group when it stops).
    func start(wrapper: [String] = []) throws {
        let joinAndRun = #"[ -z "$1" ] || echo $$ > "$1/cgroup.procs" && shift && exec "$@""#
        let process = try TestProcess(
            "/bin/sh", ["-c", joinAndRun, "sh", sandbox.pidsDirectory ?? ""] + wrapper + [Binaries.path("extensiond"), "--config", daemon.configPath],
            environment: ["NOTIFY_SOCKET": daemon.notify.path],
            removing: ["WATCHDOG_USEC", "WATCHDOG_PID", "EXTENSIOND_SOCKET"],
            outputIn: daemon.directory.path, name: "extensiond"
        )
        daemonProcess = process
        guard daemon.notify.wait(for: "READY=1", timeout: 10) != nil else {
            throw TestSupportError("extensiond did not send READY=1; stderr:\n\(process.stderr)")
        }
    }

    /// Starts the daemon (behind `wrapper`), waits for the host's 64M, then starts the idle
    /// extensions one by one, each until it is idle and holds its 40M.
    func startHostAndIdleExtensions(wrapper: [String] = []) throws {
        try start(wrapper: wrapper)
        guard eventually(timeout: 10, { usage(of: "hosts/panel") >= 60 * Self.mebibyte }) else {
            throw TestSupportError("the host did not reach 64M")
        }
        for name in Self.priorities.keys.sorted() {
            try expectOK(daemon.control(.start(NameSelection([name]))))
            guard try eventually(timeout: 10, { try state(of: name) == "idle" && usage(of: "extensions/\(name)") >= 39 * Self.mebibyte }) else {
                throw TestSupportError("\(name) did not become idle holding 40M; state \(try state(of: name) ?? "?")")
            }
        }
    }

    /// Starts the growing extension.
    func startGrower() throws {
        try expectOK(daemon.control(.start(NameSelection(["grower"]))))
    }

    func state(of name: String) throws -> String? {
        try daemon.control(.status(NameSelection([name]))).status?.first?.state
    }

    func pid(of name: String) throws -> Int32? {
        try daemon.control(.status(NameSelection([name]))).status?.first?.pid
    }

    func events() throws -> [EventRecord] {
        try daemon.control(.events(LogRequest(lines: 1000))).events ?? []
    }

    /// The kill events, once every run ended by a pressure kill has its kill on record (or
    /// `timeout` seconds passed). A kill is recorded when its victim's group is empty and
    /// `process_mrelease` has answered (docs/POLICIES.md), which can come tens of
    /// milliseconds after the victim's exit and new state are seen.
    func recordedKills(timeout: Double = 10) throws -> [EventRecord] {
        let reasons: Set = [StopReason.pressure.rawValue, StopReason.critical.rawValue]
        var kills: [EventRecord] = []
        _ = try eventually(timeout: timeout) {
            let events = try events()
            kills = events.filter { $0.kind == .kill }
            let killed = events.filter { $0.kind == .exit && reasons.contains($0.reason ?? "") }
            return kills.filter { reasons.contains($0.reason ?? "") }.count >= killed.count
        }
        return kills
    }

    /// The kills, OOM kills, exits and memory warnings so far, a line each: what a failed
    /// expectation about them prints, so that a run on another machine says what happened.
    func pressureHistory() -> String {
        let kinds: Set<EventKind> = [.kill, .oom, .exit, .memoryWarning]
        let lines = ((try? events()) ?? []).filter { kinds.contains($0.kind) }.map { event in
            "\(event.kind) \(event.name ?? "-") \(event.reason ?? "-"): \(event.message)"
        }
        return "\n" + lines.joined(separator: "\n")
    }

    /// `memory.usage_in_bytes` of a group below the tree's root (`""` for the root); 0 once it is gone.
    func usage(of group: String) -> UInt64 {
        let path = sandbox.memoryDirectory + (group.isEmpty ? "" : "/" + group) + "/memory.usage_in_bytes"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return 0 }
        return UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    private func expectOK(_ response: ControlResponse) throws {
        guard response.ok else { throw TestSupportError(response.error ?? "control request failed") }
    }

    /// Holds `argv[1]` MiB charged to its own memory cgroup; as an extension, sends `ready`
    /// afterwards and appends what the supervisor sends to `argv[2]` (when given), or, when
    /// `argv[2]` is `deaf`, ignores `terminate`.
    static let holdScript = #"""
        import os, sys, time

        def charged():
            for line in open("/proc/self/cgroup"):
                _, controllers, path = line.rstrip("\n").split(":", 2)
                if "memory" in controllers.split(","):
                    return int(open("/sys/fs/cgroup/memory" + path + "/memory.usage_in_bytes").read())
            return 0

        held = b"x" * max(0, (int(sys.argv[1]) << 20) - charged())
        fd = os.environ.get("EXTENSIOND_FD")
        if fd is None:
            while True:
                time.sleep(3600)
        deaf = sys.argv[2:] == ["deaf"]  # ignores terminate
        os.write(int(fd), b'{"type":"ready","protocol":1}\n')
        while True:
            data = os.read(int(fd), 65536)
            if not data or (b'"terminate"' in data and not deaf):
                break
            if len(sys.argv) > 2 and not deaf:
                with open(sys.argv[2], "ab") as log:
                    log.write(data)
        """#

    /// Takes `argv[1]` MiB every `argv[2]` seconds up to `argv[3]` MiB, touching every page.
    static let growScript = #"""
        import sys, time

        step, pause, total = int(sys.argv[1]) << 20, float(sys.argv[2]), int(sys.argv[3]) << 20
        held = []
        while len(held) * step < total:
            held.append(b"x" * step)
            time.sleep(pause)
        while True:
            time.sleep(3600)
        """#
}
