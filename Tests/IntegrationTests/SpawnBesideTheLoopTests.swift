import ControlProtocol
import ExtensiondTestSupport
import Foundation
import HostProtocol
import Testing

/// The spawn runs beside the loop (docs/ARCHITECTURE.md, "One thread, no polling"). A child
/// is held before its `execve` for real: it joins its v1 freezer group while the test keeps
/// the extensions' freezer group frozen, so the kernel freezes it there and the spawning
/// thread (`CLONE_VFORK`) waits for it. Meanwhile the loop answers, and what is asked of the
/// process is done once the spawn is back.
@Suite struct SpawnBesideTheLoopTests {
    static func config(_ widget: String, extensions: [String] = ["w"], workingDirectory: String? = nil) -> String {
        var text = """
            [apps.k]
            command = ["/bin/sleep", "1000"]
            """
        for name in extensions {
            text += "\n\n[extensions.\(name)]\napp = \"k\"\npoint = \"widget\"\ncommand = \(widget)"
            if let workingDirectory { text += "\nworking_directory = \"\(workingDirectory)\"" }
        }
        return text
    }

    /// A control request whose answer waits for a spawn: sent from a thread of its own.
    final class Answer: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var response: Result<ControlResponse, any Error> = .failure(TestSupportError("no answer"))

        init(_ daemon: TestDaemon, _ request: ControlRequest) {
            nonisolated(unsafe) let daemon = daemon
            Thread { [self] in
                response = Result {
                    let reply = try daemon.exchange(ControlCodec.line(request), timeout: 30)
                    guard let newline = reply.firstIndex(of: UInt8(ascii: "\n")) else { throw TestSupportError("no answer") }
                    return try ControlCodec.decode(ControlResponse.self, from: reply[..<newline])
                }
                done.signal()
            }.start()
        }

        /// The answer if it came within `seconds`; nil when it did not (yet).
        func answer(within seconds: Double) throws -> ControlResponse? {
            guard done.wait(timeout: .now() + seconds) == .success else { return nil }
            done.signal()
            return try response.get()
        }

        /// The answer, once it came (within 30 s).
        func wait() throws -> ControlResponse {
            guard done.wait(timeout: .now() + 30) == .success else { throw TestSupportError("no answer within 30 s") }
            return try response.get()
        }
    }

    /// A daemon with the extensions' freezer group frozen and `start w` sent: `w`'s child
    /// is held before its exec, and the loop still answers `status` (it would not with
    /// the spawn on the loop). Returns the daemon, the held `start`'s answer and the group.
    static func holdingASpawn(extensions: [String] = ["w"]) throws -> (TestDaemon, Answer, String) {
        let daemon = try TestDaemon()
        let freezer = try #require(daemon.sandbox.freezerDirectory, "no v1 freezer hierarchy")
        let widget = try ScriptedExtension.command(.answer, in: daemon.directory)
        try daemon.writeConfig(config(widget, extensions: extensions))
        try daemon.start()
        let frozen = freezer + "/extensions"
        #expect(eventually { FileManager.default.fileExists(atPath: frozen) })
        try "FROZEN".write(toFile: frozen + "/freezer.state", atomically: false, encoding: .utf8)
        // A frozen child could not die: thawed whatever fails.
        do {
            let started = Answer(daemon, .start(NameSelection(["w"])))
            #expect(
                eventually(timeout: 10) {
                    let tasks = (try? String(contentsOfFile: frozen + "/w/tasks", encoding: .utf8)) ?? ""
                    return !tasks.isEmpty
                }, "the child joined its freezer group")
            let status = try daemon.control(.status(NameSelection(["w"]))).status?.first
            #expect(status?.state == "starting" && status?.pid == nil, "\(String(describing: status))")
            return (daemon, started, frozen)
        } catch {
            try? thaw(frozen)
            throw error
        }
    }

    static func thaw(_ frozen: String) throws {
        try "THAWED".write(toFile: frozen + "/freezer.state", atomically: false, encoding: .utf8)
    }

    static func events(_ daemon: TestDaemon, _ name: String) throws -> [EventRecord] {
        (try daemon.control(.events(LogRequest(lines: 200))).events ?? []).filter { $0.name == name }
    }

    /// The pids of `name`'s launches, from the event log (`launched pid N in …`).
    static func launchedPids(_ daemon: TestDaemon, _ name: String) throws -> [Int32] {
        try events(daemon, name).filter { $0.kind == .launch }.compactMap { event in
            event.message.split(separator: " ").dropFirst(2).first.flatMap { Int32($0) }
        }
    }

    static func isGone(_ pid: Int32) -> Bool {
        kill(pid, 0) != 0 && errno == ESRCH
    }

    /// A child may connect to host.sock before its spawn is back on the loop (the loop
    /// serves the accept first): it is known by the group it was placed in, not taken for
    /// an external host. Here a stand-in joins the held child's group: the real child is
    /// frozen before its exec and cannot connect itself.
    @Test func aProcessInTheGroupOfASpawnNotYetBackIsKnownAsItsExtension() throws {
        let (daemon, started, frozen) = try Self.holdingASpawn()
        defer { try? Self.thaw(frozen) }
        let go = daemon.directory.file("go")
        let script = """
            import os, socket, sys, time
            while not os.path.exists(sys.argv[1]): time.sleep(0.01)
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[2])
            try: s.sendall(sys.argv[3].encode())
            except OSError: pass  # refused: the daemon closed after its answer
            print(s.makefile().readline(), end="")
            """
        let line = String(decoding: HostToSupervisor.list(.init(id: 1)).encodedLine(), as: UTF8.self)
        let standIn = try TestProcess(
            "/usr/bin/python3", ["-c", script, go, daemon.hostSocket, line], outputIn: daemon.directory.path, name: "stand-in")
        defer { standIn.signal(SIGKILL) }
        try "\(standIn.pid)".write(toFile: daemon.sandbox.memoryDirectory + "/extensions/w/cgroup.procs", atomically: false, encoding: .utf8)
        FileManager.default.createFile(atPath: go, contents: nil)
        #expect(standIn.wait(timeout: 10) == 0, "\(standIn.stderr)")
        #expect(standIn.stdout.contains("extension w may not act as a host"), "\(standIn.stdout)")
        try Self.thaw(frozen)
        #expect(try started.wait().ok)
    }

    @Test func aStopWhileTheSpawnIsUnderWayEndsTheRunOnceItIsSpawned() throws {
        let (daemon, started, frozen) = try Self.holdingASpawn()
        defer { try? Self.thaw(frozen) }
        // No pid yet: nothing to signal.
        let signalled = try daemon.control(.signal(SignalRequest(signal: "KILL", names: ["w"])))
        #expect(!signalled.ok && signalled.error?.contains("not running") == true, "\(signalled)")
        let stopped = Answer(daemon, .stop(NameSelection(["w"])))
        // The stop waits for the run, which waits for the spawn.
        #expect(try daemon.control(.status(NameSelection(["w"]))).status?.first?.state == "starting")
        try Self.thaw(frozen)
        #expect(try started.wait().ok)
        let stop = try stopped.wait()
        #expect(stop.ok && stop.message == "w: stopped", "\(stop)")
        let status = try daemon.control(.status(NameSelection(["w"]))).status?.first
        #expect(status?.state == "stopped" && status?.pid == nil, "\(String(describing: status))")
        let pids = try Self.launchedPids(daemon, "w")
        #expect(pids.count == 1 && eventually { pids.allSatisfy(Self.isGone) }, "\(pids)")
        #expect(daemon.stop() == 0)
    }

    /// Stop, then start, both while the spawn is under way: the start came last, so the
    /// process runs again once the stop is done.
    @Test func aStartAfterAStopWhileTheSpawnIsUnderWayLaunchesAgain() throws {
        let (daemon, started, frozen) = try Self.holdingASpawn()
        defer { try? Self.thaw(frozen) }
        let stopped = Answer(daemon, .stop(NameSelection(["w"])))
        // A start that reaches the loop before the stop is answered at once ("already
        // started"): sent again until one waits, behind the stop, for the spawn.
        var startedAgain = Answer(daemon, .start(NameSelection(["w"])))
        for _ in 0..<20 {
            guard let early = try startedAgain.answer(within: 2), early.error?.contains("already started") == true else { break }
            startedAgain = Answer(daemon, .start(NameSelection(["w"])))
        }
        try Self.thaw(frozen)
        #expect(try started.wait().ok)
        let stop = try stopped.wait()
        #expect(stop.ok && stop.message == "w: stopped", "\(stop)")
        let start = try startedAgain.wait()
        #expect(start.ok && start.message == "w: started", "\(start)")
        #expect(try eventually(timeout: 10) { try Self.launchedPids(daemon, "w").count == 2 }, "launched again")
        let pids = try Self.launchedPids(daemon, "w")
        let status = try daemon.control(.status(NameSelection(["w"]))).status?.first
        #expect(status?.pid == pids.last && status?.state != "stopped", "\(String(describing: status))")
        #expect(eventually { Self.isGone(pids[0]) }, "the first run ended: \(pids)")
        #expect(daemon.stop() == 0)
    }

    @Test func aRemovalWhileTheSpawnIsUnderWayLeavesNothing() throws {
        let (daemon, started, frozen) = try Self.holdingASpawn(extensions: ["w", "v"])
        defer { try? Self.thaw(frozen) }
        let widget = try ScriptedExtension.command(.answer, in: daemon.directory)
        try daemon.writeConfig(Self.config(widget, extensions: ["v"]))
        #expect(try daemon.control(.reload).ok)
        try Self.thaw(frozen)
        #expect(try started.wait().ok)
        // Out of the status at once; its run ends once spawned.
        #expect(try daemon.control(.status(NameSelection([]))).status?.contains { $0.name == "w" } == false)
        #expect(try eventually(timeout: 10) { try Self.events(daemon, "w").contains { $0.kind == .exit } }, "w's run ended")
        let pids = try Self.launchedPids(daemon, "w")
        #expect(pids.count == 1 && eventually { pids.allSatisfy(Self.isGone) }, "\(pids)")
        let kept = [daemon.sandbox.memoryDirectory] + daemon.sandbox.otherDirectories
        #expect(eventually { kept.allSatisfy { !FileManager.default.fileExists(atPath: $0 + "/extensions/w") } }, "w's groups are removed")
        #expect(daemon.stop() == 0)
    }

    @Test func aLaunchWaitingForTheSpawnerIsDroppedByAStop() throws {
        let (daemon, started, frozen) = try Self.holdingASpawn(extensions: ["w", "a", "b", "c", "d"])
        defer { try? Self.thaw(frozen) }
        // `w` holds the spawner; three more are queued on it, the fourth waits its turn.
        let more = Answer(daemon, .start(NameSelection(["a", "b", "c", "d"])))
        #expect(
            try eventually(timeout: 10) {
                try daemon.control(.status(NameSelection(["d"]))).status?.first?.state == "starting"
            })
        let stop = try daemon.control(.stop(NameSelection(["d"])))
        #expect(stop.ok && stop.message == "d: stopped", "\(stop)")
        try Self.thaw(frozen)
        #expect(try started.wait().ok)
        #expect(try more.wait().ok)
        for name in ["w", "a", "b", "c"] {
            #expect(try eventually(timeout: 10) { try Self.launchedPids(daemon, name).count == 1 }, "\(name) launched")
        }
        let status = try daemon.control(.status(NameSelection(["d"]))).status?.first
        #expect(status?.state == "stopped" && status?.pid == nil, "\(String(describing: status))")
        #expect(try Self.launchedPids(daemon, "d").isEmpty)
        #expect(daemon.stop() == 0)
    }

    @Test func theDaemonsStopWaitsForASpawnUnderWay() throws {
        let (daemon, started, frozen) = try Self.holdingASpawn()
        defer { try? Self.thaw(frozen) }
        let process = try #require(daemon.process)
        process.signal(SIGTERM)
        #expect(process.wait(timeout: 0.5) == nil, "the daemon waits for the spawn")
        try Self.thaw(frozen)
        #expect(process.wait(timeout: 10) == 0)
        #expect((try? started.wait())?.ok != false)
        for directory in [daemon.sandbox.memoryDirectory] + daemon.sandbox.otherDirectories {
            #expect(!FileManager.default.fileExists(atPath: directory + "/extensions"), "left: \(directory)/extensions")
        }
    }

    @Test func aSpawnThatFailsIsAnsweredWithItsStep() throws {
        let daemon = try TestDaemon()
        let widget = try ScriptedExtension.command(.answer, in: daemon.directory)
        let missing = daemon.directory.file("missing")
        try daemon.writeConfig(Self.config(widget, workingDirectory: missing))
        try daemon.start()
        // The first launch may wait for its volume (answered `started`): its spawn's failure
        // then shows in status. The next one spawns at once, and the answer names the step.
        #expect(try daemon.control(.start(NameSelection(["w"]))).message == "w: started")
        #expect(
            try eventually(timeout: 10) {
                let status = try daemon.control(.status(NameSelection(["w"]))).status?.first
                return status?.pid == nil && status?.error?.contains("chdir \(missing): ") == true
            })
        let answer = try daemon.control(.start(NameSelection(["w"])))
        #expect(!answer.ok && answer.error?.contains("w: ERROR (chdir \(missing): ") == true, "\(answer)")
        let status = try daemon.control(.status(NameSelection(["w"]))).status?.first
        #expect(status?.state != "starting" && status?.pid == nil, "\(String(describing: status))")
        #expect(daemon.stop() == 0)
    }
}
