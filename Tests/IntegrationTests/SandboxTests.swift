import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing
import WireProtocol

/// An extension reaches only what is its own (docs/SECURITY.md): its app's uid, its data
/// directory, its app's group containers, the system read-only; no other app's files, no
/// cgroup file, no other app's processes, no privilege gain, no denied system call.
///
/// App `a` has the group `group.a` and the widget `a.widget`, which writes secrets into
/// its data directory and group container; app `b` has `group.b`, writes a greeting into
/// its container, and has the widget `b.probe` (sandboxed, network off) and the widget
/// `b.open` (sandbox turned off), both running the same probe.
@Suite(.serialized) struct SandboxTests {
    /// The scripts and the outcomes shared with tests/vm/sandbox (systemd, cgroup v2).
    static let scripts = Binaries.packageRoot() + "/tests/sandbox"

    private static func script(_ name: String) throws -> String {
        try String(contentsOfFile: scripts + "/" + name, encoding: .utf8)
    }

    /// What the sandboxed probe reports, by key: tests/sandbox/expected.json.
    private static func expectedOutcomes() throws -> [String: JSONValue] {
        struct Outcomes: Decodable { var sandboxed: [String: JSONValue] }
        return try JSONDecoder().decode(Outcomes.self, from: Data(contentsOf: URL(fileURLWithPath: scripts + "/expected.json"))).sandboxed
    }

    private func startDaemon(environment: [String: String] = [:], supervisor: String = "") throws -> TestDaemon {
        let daemon = try TestDaemon()
        let keeper = try daemon.directory.write("secret_keeper.py", Self.script("secret_keeper.py"))
        let probe = try daemon.directory.write("probe/probe.py", Self.script("probe.py"))
        let here = daemon.directory.file("probe")
        // The probe is started through a shell script in its own directory, which the sandbox
        // lets it execute: the setuid copy of id(1) lies there too.
        let wrapper = try daemon.directory.write("probe/run", "#!/bin/sh\nexec /usr/bin/python3 -S \(probe) \"$@\"\n", mode: 0o755)
        #expect(copyfile("/usr/bin/id", to: here + "/setuid-id", mode: 0o4755))
        let app = try daemon.directory.write("greeting_app.py", Self.script("greeting_app.py"))
        // `sandbox.read` and `sandbox.write` grant these; `denied` is a sibling left out.
        for name in ["granted", "writable", "denied"] { try daemon.directory.write(name + "/note", name, mode: 0o666) }
        try daemon.writeConfig(
            """
            [apps.a]
            command = ["/bin/sleep", "1000"]
            groups = ["group.a"]

            [apps.b]
            command = ["/usr/bin/python3", "-S", "\(app)"]
            groups = ["group.b"]
            autostart = true

            [extensions."a.widget"]
            app = "a"
            point = "widget"
            command = ["/usr/bin/python3", "-S", "\(keeper)"]

            [extensions."b.probe"]
            app = "b"
            point = "widget"
            command = ["\(wrapper)", "\(daemon.stateDirectory)", "\(here)"]
            sandbox = { network = false, read = ["\(daemon.directory.file("granted"))"], write = ["\(daemon.directory.file("writable"))"] }

            [extensions."b.open"]
            app = "b"
            point = "widget"
            command = ["\(wrapper)", "\(daemon.stateDirectory)", "\(here)"]
            sandbox = { enabled = false }
            """, supervisor: supervisor)
        try daemon.start(environment: environment)
        return daemon
    }

    private func pull(_ daemon: TestDaemon, _ id: String, mode: DisplayMode = .compact) throws -> [String: JSONValue] {
        let response = try daemon.control(.pull(PullRequest(name: id, mode: mode)))
        guard case .object(let fields)? = response.pull?.snapshot else {
            throw TestSupportError("pull \(id): \(response.error ?? response.pull?.error ?? "no snapshot")")
        }
        return fields
    }

    @Test func anExtensionReachesOnlyWhatIsItsOwn() throws {
        let daemon = try startDaemon()
        #expect(try daemon.supervisorctl(["defaults", "group.a", "set", "token", "\"a's token\""]).exitCode == 0)
        let keeper = try pull(daemon, "a.widget")
        #expect(eventually { FileManager.default.fileExists(atPath: daemon.stateDirectory + "/groups/group.b/greeting") })
        let probe = try pull(daemon, "b.probe")

        // Identities: b's extension runs as b's uid, with group.b's gid, not as a's uid.
        let identities = try JSONDecoder().decode(
            [String: UInt32].self, from: Data(contentsOf: URL(fileURLWithPath: daemon.stateDirectory + "/identities.json")))
        let uidB = try #require(identities["app:b"]), gidB = try #require(identities["group:group.b"])
        #expect((61_000...61_999).contains(uidB) && identities["app:a"] != uidB)
        #expect(keeper["uid"]?.intValue == identities["app:a"].map(Int.init))
        #expect(probe["uid"]?.intValue == Int(uidB) && probe["gid"]?.intValue == Int(uidB))
        #expect(probe["groups"] == .array([uidB, gidB].sorted().map { .number(Double($0)) }))
        #expect(probe["dataDir"] == .string(daemon.stateDirectory + "/data/b.probe"))
        #expect(probe["tmpdir"] == .string(daemon.stateDirectory + "/data/b.probe/tmp"))
        let data = try FileManager.default.attributesOfItem(atPath: daemon.stateDirectory + "/data/b.probe")
        #expect((data[.posixPermissions] as? Int) == 0o700 && (data[.ownerAccountID] as? Int) == Int(uidB))
        let container = try FileManager.default.attributesOfItem(atPath: daemon.stateDirectory + "/groups/group.b")
        #expect((container[.ownerAccountID] as? Int) == 0 && (container[.groupOwnerAccountID] as? Int) == Int(gidB))
        var info = stat()
        #expect(stat(daemon.stateDirectory + "/groups/group.b", &info) == 0 && info.st_mode & 0o7777 == 0o2770)

        // What is its own (its data, its app's container and the greeting the app wrote
        // there) and what is not (EACCES, EPERM; `unshare` answered EPERM and the probe
        // kept running: it answered).
        let expected = try Self.expectedOutcomes()
        #expect(expected.count >= 26)
        for (key, value) in expected {
            #expect(probe[key] == value, "\(key): \(probe[key] ?? "nil")")
        }
        #expect(probe["setuid"] == .string("\(uidB)"), "no privilege through a setuid binary")
        #expect(probe["granted"] == "granted" && probe["grantedWrite"] == "EACCES", "sandbox.read grants reading only")
        #expect(probe["writable"] == "ok" && probe["notGranted"] == "EACCES", "sandbox.write grants writing, nothing else is granted")

        // The same probe with its sandbox turned off: the walls above are the sandbox's
        // (the uid's own walls remain).
        let open = try pull(daemon, "b.open")
        #expect(open["outside"] != "EACCES" && open["tmp"] == "ok" && open["unshare"] == "ok")
        // io_uring_enter on no ring: EBADF where the kernel has io_uring, ENOSYS where not.
        #expect(open["ioUringEnter"] != "EPERM" && open["ioUringRegister"] != "EPERM", "the io_uring wall is the sandbox's")
        #expect(open["setuid"] == "0", "without no_new_privs the setuid copy does run as root")
        if case .array(let interfaces)? = open["interfaces"] { #expect(interfaces.count > 1) } else { Issue.record("no interfaces") }
        #expect(open["otherData"] == "EACCES" && open["otherDataWrite"] == "EACCES", "a's data directory is a's alone even without the sandbox")
        #expect(open["ownCgroupProcs"] == "EACCES" && open["parentCgroupProcs"] == "EACCES", "cgroups are root's even without the sandbox")
    }

    /// A relaunch does not make the data directory again (the daemon remembers it), but one
    /// unmounted and removed behind the daemon's back is made (and mounted) again, the
    /// extension's own, and usable; so is its group container. (The relaunch must not reuse
    /// a ruleset that holds the removed ones.)
    @Test func aRelaunchGetsItsDataDirectoryAndContainerBackAfterTheyWereRemoved() throws {
        let daemon = try startDaemon()
        let first = try pull(daemon, "b.probe")
        #expect(first["ownData"] == "b" && first["ownContainer"] == "ok", "\(first)")
        let data = daemon.stateDirectory + "/data/b.probe"
        let owner = try #require(FileManager.default.attributesOfItem(atPath: data)[.ownerAccountID] as? Int)
        #expect(try daemon.supervisorctl(["stop", "b.probe"]).exitCode == 0)
        for directory in [data, daemon.stateDirectory + "/groups/group.b"] {
            umount2(directory, Int32(MNT_DETACH))
            try FileManager.default.removeItem(atPath: directory)
        }

        // (A pull would be answered from the snapshot kept: start launches it.)
        #expect(try daemon.supervisorctl(["start", "b.probe"]).exitCode == 0)
        #expect(eventually { (try? daemon.control(.status(NameSelection(["b.probe"]))).status?.first?.pid) != nil })
        let attributes = try FileManager.default.attributesOfItem(atPath: data)
        #expect((attributes[.posixPermissions] as? Int) == 0o700 && (attributes[.ownerAccountID] as? Int) == owner)
        #expect(FileManager.default.fileExists(atPath: data + "/tmp"))
        // The other mode has no snapshot yet: the relaunched probe runs and writes its data.
        let again = try pull(daemon, "b.probe", mode: .expanded)
        #expect(again["ownData"] == "b" && again["ownContainer"] == "ok", "\(again)")
    }

    @Test func cgroupsOfExtensionsAreRootsAndClosed() throws {
        let daemon = try startDaemon()
        _ = try pull(daemon, "a.widget")
        let group = daemon.sandbox.memoryDirectory + "/extensions/a.widget"
        for path in [group, group + "/cgroup.procs", group + "/tasks", group + "/memory.limit_in_bytes", daemon.sandbox.memoryDirectory + "/cgroup.procs"] {
            var info = stat()
            #expect(stat(path, &info) == 0 && info.st_uid == 0 && info.st_mode & 0o022 == 0, "\(path) is root's and not writable by others")
        }
    }

    @Test func withoutLandlockASandboxedExtensionIsRefusedUnlessNotRequired() throws {
        let daemon = try startDaemon(environment: ["EXTENSIOND_LANDLOCK_ABI": "0"])
        let refused = try daemon.control(.pull(PullRequest(name: "b.probe")))
        #expect(refused.pull?.result != "newData")
        let status = try daemon.supervisorctl(["status", "b.probe"])
        #expect(status.stdout.contains("Landlock is not available"), "status: \(status.stdout)")
        // Its sandbox turned off, an extension still runs.
        #expect(try pull(daemon, "b.open")["uid"] != nil)
        daemon.stop()

        let relaxed = try startDaemon(environment: ["EXTENSIOND_LANDLOCK_ABI": "0"], supervisor: "sandbox_required = false")
        let probe = try pull(relaxed, "b.probe")
        #expect(probe["unshare"] == "EPERM" && probe["setuid"] != "0", "what is available still applies")
        #expect(probe["outside"] != "EACCES", "no file-system sandbox without Landlock")
        let events = try relaxed.control(.events(LogRequest(lines: 500))).events ?? []
        #expect(events.contains { $0.name == "b.probe" && $0.message.contains("without a file-system sandbox") })
    }
}

/// Copies `source` to `target` with `mode` (root-owned).
private func copyfile(_ source: String, to target: String, mode: mode_t) -> Bool {
    guard let bytes = FileManager.default.contents(atPath: source), FileManager.default.createFile(atPath: target, contents: bytes) else { return false }
    return chmod(target, mode) == 0
}
