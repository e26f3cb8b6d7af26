import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing
import WireProtocol

/// Launches a host asks for, admitted against memory on a real daemon (docs/POLICIES.md,
/// "Admission"), in the 384M sandbox with a 256M budget (low at 217.6M): a launch whose
/// recorded peak would take the tree past low first frees room by the kill policy, or
/// waits and is refused naming memory. Part of the serialized ``PressureTests``.
extension PressureTests {
    /// The panel holds 64M and `idler` 70M while idle; `big` peaked at 90M on an earlier
    /// run: 64 + 70 + 90 and the interpreters pass low, 64 + 90 does not.
    @Test func aHostLaunchWhosePeakWouldCrossLowFirstKillsTheIdleExtension() throws {
        let scenario = try Self.launchScenario { hold in
            PressureScenario.widget("idler", python: [hold, "70"], "idle_exit = \"10m\"\nsuspend_after = \"0s\"")
        }
        try Self.recordBigsPeak(scenario)
        #expect(try scenario.daemon.control(.start(NameSelection(["idler"]))).ok)
        #expect(
            try eventually(timeout: 10) {
                try scenario.state(of: "idler") == "idle" && scenario.usage(of: "extensions/idler") >= 69 * PressureScenario.mebibyte
            })
        let eventsBefore = try scenario.events().count

        // No snapshot of the expanded mode yet: the pull must launch big.
        let pull = try Self.pull(scenario, .expanded)
        let events = try scenario.events().dropFirst(eventsBefore)
        #expect(
            pull.result == "newData",
            "\(pull.error ?? ""), after \(pull.latencyUs) µs: \(events.map { "\($0.kind.rawValue) \($0.name ?? "-"): \($0.message)" })")
        let kill = try #require(events.first { $0.kind == .kill }, "nothing was freed for the launch: \(events.map(\.message))")
        #expect(kill.name == "idler")
        #expect(kill.message.contains("launch admission"), "\(kill.message)")
        // Decided on the working set before the launch: below low, where pressure alone kills nothing.
        #expect(try #require(kill.kill?.treeUsageBytes) < PressureScenario.low)
        let launch = try #require(events.firstIndex { $0.kind == .launch && $0.name == "big" })
        #expect(try #require(events.firstIndex { $0.kind == .kill }) < launch, "big was launched before room was made for it")
    }

    /// The same launch with nothing the policy may kill at low (an app holds 90M): it waits
    /// for room, then its pull fails with an error naming memory, and nothing is killed.
    @Test func aHostLaunchThatFindsNoRoomIsRefusedNamingMemory() throws {
        let scenario = try Self.launchScenario { hold in
            """

            [apps.ballast]
            command = ["\(PressureScenario.python)", "\(hold)", "90"]

            """
        }
        try Self.recordBigsPeak(scenario)
        #expect(try scenario.daemon.control(.start(NameSelection(["ballast"]))).ok)
        #expect(eventually(timeout: 10) { scenario.usage(of: "apps/ballast") >= 89 * PressureScenario.mebibyte })

        let pull = try Self.pull(scenario, .expanded)
        #expect(pull.result == "failed")
        #expect(pull.error?.contains("not enough memory to launch big") == true, "\(pull.error ?? "no error")")
        #expect(pull.latencyUs >= 4_000_000, "refused before waiting for room")
        #expect(try scenario.state(of: "big") != "idle")
        #expect(try scenario.events().filter { $0.kind == .kill }.isEmpty)
    }

    /// The panel (64M), the app and `big`, a widget that takes `argv[1]` MiB and answers every
    /// update; plus `extra(holdScript)`. Started, the panel holding its share.
    private static func launchScenario(_ extra: (_ hold: String) -> String) throws -> PressureScenario {
        let scenario = try PressureScenario(budget: "256M") { daemon, hold in
            let big = try daemon.directory.write("big.py", bigScript)
            return PressureScenario.panelAndApp(hold: hold) + PressureScenario.widget("big", python: [big, "90"]) + extra(hold)
        }
        try scenario.start()
        #expect(eventually(timeout: 10) { scenario.usage(of: "hosts/panel") >= 60 * PressureScenario.mebibyte })
        return scenario
    }

    /// One run of `big` alone, so that its cgroup's peak (about 90M) is recorded.
    private static func recordBigsPeak(_ scenario: PressureScenario) throws {
        let first = try pull(scenario, .compact)
        #expect(first.result == "newData", "\(first.error ?? "")")
        #expect(try scenario.daemon.control(.stop(NameSelection(["big"]))).ok)
        #expect(
            try eventually(timeout: 10) {
                try scenario.state(of: "big") != "idle"
                    && scenario.daemon.control(.stats(NameSelection(["big"])))
                        .stats?.processes.first?.memoryPeakBytes ?? 0 >= 85 * PressureScenario.mebibyte
            })
    }

    /// A pull of `big` in `mode`, waiting as long as a launch may (`control` gives up after 5 s).
    private static func pull(_ scenario: PressureScenario, _ mode: DisplayMode) throws -> PullReport {
        var report: PullReport?
        try scenario.daemon.stream(.pull(PullRequest(name: "big", mode: mode)), timeout: 30) { response in
            report = response.pull
            return false
        }
        return try #require(report, "no pull report")
    }

    /// Takes `argv[1]` MiB, says `ready`, and answers every update with new data.
    static let bigScript = #"""
        import json, os, socket, sys

        held = bytearray(int(sys.argv[1]) << 20)
        for i in range(0, len(held), 4096):
            held[i] = 1
        connection = socket.socket(fileno=int(os.environ["EXTENSIOND_FD"]))
        connection.sendall(b'{"type":"ready","protocol":1}\n')

        \#(ScriptedExtension.messagesFunction)

        for message in messages():
            if message["type"] == "terminate":
                break
            if message["type"] == "update":
                reply = {"type": "result", "id": message["id"], "result": "newData", "snapshot": {"pid": os.getpid()}}
                connection.sendall(json.dumps(reply).encode() + b"\n")
        """#
}
