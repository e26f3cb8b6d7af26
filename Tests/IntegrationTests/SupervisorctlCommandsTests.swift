import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// supervisorctl as supervisord users know it, against a real daemon: exit codes, names
/// with globs and `APP:*`, the shell, reread/update, signal, pid, clear, maintail and the
/// `--json` answers.
@Suite struct SupervisorctlCommandsTests {
    /// A host that runs, one that does not start by itself, an app with two extensions.
    static let config = """
        [hosts.panel]
        command = ["/bin/sh", "-c", "trap 'echo got HUP' HUP; echo to-stdout; echo to-stderr >&2; while :; do sleep 0.05; done"]

        [hosts.spare]
        command = ["/bin/sleep", "1000"]
        autostart = false

        [apps."com.example.app"]
        command = ["/bin/sleep", "1000"]

        [extensions."com.example.app.widget"]
        app = "com.example.app"
        point = "widget"
        command = ["/bin/sleep", "1000"]

        [extensions."com.example.app.clock"]
        app = "com.example.app"
        point = "widget"
        command = ["/bin/sleep", "1000"]
        """

    static func runningDaemon(_ config: String = Self.config) throws -> TestDaemon {
        let daemon = try TestDaemon(config: config)
        try daemon.start()
        #expect(eventually { (try? daemon.control(.status(NameSelection(["panel"]))).status?.first?.state) == "running" })
        return daemon
    }

    @Test func exitCodesAreSupervisords() throws {
        let daemon = try Self.runningDaemon()
        #expect(try daemon.supervisorctl(["status", "panel"]).exitCode == 0)
        // With no names only what autostarts counts: spare and the extensions are stopped by design.
        #expect(try daemon.supervisorctl(["status"]).exitCode == 0)
        let stopped = try daemon.supervisorctl(["status", "spare"])
        #expect(stopped.exitCode == 3 && stopped.stdout.contains("stopped"), "\(stopped)")
        #expect(try daemon.supervisorctl(["status", "nothing-by-that-name"]).exitCode == 4)

        let again = try daemon.supervisorctl(["start", "panel"])
        #expect(again.exitCode == 1 && again.stderr.contains("panel: ERROR (already started)"), "\(again)")
        let notRunning = try daemon.supervisorctl(["stop", "spare"])
        #expect(notRunning.exitCode == 1 && notRunning.stderr.contains("spare: ERROR (not running)"), "\(notRunning)")
        // `all` skips what is already in the wanted state.
        #expect(try daemon.supervisorctl(["stop", "all"]).exitCode == 0)
        #expect(try daemon.supervisorctl(["status"]).exitCode == 3, "panel autostarts and is stopped")

        let pid = try daemon.supervisorctl(["pid", "panel"])
        #expect(pid.exitCode == 3 && pid.stdout == "0\n", "\(pid)")
        let started = try daemon.supervisorctl(["start", "panel"])
        #expect(started.exitCode == 0 && started.stdout.contains("panel: started"), "\(started)")
        let running = try daemon.supervisorctl(["pid", "panel"])
        #expect(running.exitCode == 0 && Int32(running.stdout.trimmingCharacters(in: .whitespacesAndNewlines)).map { $0 > 1 } == true)
        let own = try daemon.supervisorctl(["pid"])
        #expect(own.stdout == "\(daemon.process?.pid ?? -1)\n")
    }

    @Test func pidAllPrintsEveryProcessInStatusOrder() throws {
        let daemon = try Self.runningDaemon()
        let status = try daemon.control(.status(NameSelection())).status ?? []
        let all = try daemon.supervisorctl(["pid", "all"])
        #expect(all.exitCode == 0, "\(all)")
        #expect(all.stdout == status.map { "\($0.pid ?? 0)\n" }.joined(), "\(all.stdout)")
        #expect(status.contains { $0.name == "panel" && ($0.pid ?? 0) > 1 } && status.contains { $0.pid == nil })
    }

    @Test func pullOfAFailedUpdateExitsOneWithTheReason() throws {
        let daemon = try Self.runningDaemon(
            Self.config + """

                [extensions."com.example.app.broken"]
                app = "com.example.app"
                point = "widget"
                command = ["/bin/sh", "-c", "echo '{\\"type\\":\\"ready\\",\\"protocol\\":1}' >&3; read -r line <&3; echo nonsense >&3; sleep 5"]
                """)
        let pull = try daemon.supervisorctl(["pull", "com.example.app.broken"])
        #expect(pull.exitCode == 1, "\(pull)")
        #expect(pull.stdout.split(separator: "\n").contains { $0.hasPrefix("result:") && $0.hasSuffix(" failed") }, "\(pull.stdout)")
        #expect(pull.stderr.hasPrefix("supervisorctl: com.example.app.broken: the update failed: "), "\(pull.stderr)")
        #expect(pull.stderr.contains("protocol"), "\(pull.stderr)")
    }

    @Test func namesTakeGlobsAndAppStar() throws {
        let daemon = try Self.runningDaemon()
        func names(_ pattern: String) throws -> [String] {
            try daemon.control(.status(NameSelection([pattern]))).status?.map(\.name) ?? []
        }
        #expect(try names("com.example.app:*") == ["com.example.app", "com.example.app.clock", "com.example.app.widget"])
        #expect(try names("com.example.app:*.clock") == ["com.example.app.clock"])
        #expect(try names("com.*.widget") == ["com.example.app.widget"])
        #expect(try names("[ps]*") == ["panel", "spare"])
        let none = try daemon.control(.status(NameSelection(["nomatch*"])))
        #expect(!none.ok && none.code == .unknownName && none.error?.contains("nomatch*") == true)
        let started = try daemon.supervisorctl(["start", "com.example.app:*"])
        #expect(started.stdout.contains("com.example.app.clock: started"), "\(started)")
        #expect(started.stderr.isEmpty || started.stderr.contains("already started"))
    }

    @Test func theShellRunsPipedCommandsOnePerLine() throws {
        let daemon = try Self.runningDaemon()
        let script =
            "printf 'status panel\\n\\nstart spare\\npid spare\\nhelp stop\\nbogus\\nstauts panel\\nstatus spare\\n' | '\(Binaries.path("supervisorctl"))' --socket '\(daemon.controlSocket)'"
        let result = try runCommand("/bin/sh", ["-c", script], in: daemon.directory)
        #expect(!result.stdout.contains("supervisorctl>"), "no prompt without a terminal")
        #expect(result.stdout.contains("spare: started"))
        #expect(result.stdout.contains("OVERVIEW: Stop gracefully"))
        // supervisord's answer to a command it does not know, with the closest one when close.
        #expect(result.stdout.contains("*** Unknown syntax: bogus\n"), "\(result.stdout)")
        #expect(result.stdout.contains("*** Unknown syntax: stauts panel (did you mean status?)"), "\(result.stdout)")
        #expect(result.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("spare ") && $0.contains("running") }.count == 1)
        #expect(result.exitCode == 0, "the last command's status: spare runs")

        let last = try runCommand(
            "/bin/sh", ["-c", "echo 'status nope' | '\(Binaries.path("supervisorctl"))' --socket '\(daemon.controlSocket)'"], in: daemon.directory)
        #expect(last.exitCode == 4)

        // `-i` asks for the shell explicitly: the same, one command per line.
        let explicit = try runCommand(
            "/bin/sh", ["-c", "printf 'stop spare\\nstatus spare\\n' | '\(Binaries.path("supervisorctl"))' -i --socket '\(daemon.controlSocket)'"],
            in: daemon.directory)
        #expect(explicit.stdout.contains("spare: stopped"), "\(explicit)")
        #expect(explicit.stdout.components(separatedBy: "\n").contains { $0.hasPrefix("spare ") && $0.contains("stopped") })
        #expect(explicit.exitCode == 3, "the last command's status: spare is stopped")
    }

    @Test func rereadShowsAndUpdateRestartsOnlyWhatChanged() throws {
        let daemon = try TestDaemon(config: Self.twoHosts(changed: "1000"))
        try daemon.start()
        func pid(_ name: String) throws -> Int32? { try daemon.control(.status(NameSelection([name]))).status?.first?.pid }
        #expect(eventually { (try? pid("same")) != nil && (try? pid("changed")) != nil })
        let (same, changed) = (try pid("same"), try pid("changed"))

        try daemon.writeConfig(Self.twoHosts(changed: "2000", removed: false) + "\n[hosts.added]\ncommand = [\"/bin/sleep\", \"1000\"]\n")
        let removed = try pid("removed")
        let reread = try daemon.supervisorctl(["reread"])
        #expect(reread.exitCode == 0)
        #expect(reread.stdout.contains("added: available") && reread.stdout.contains("changed: changed") && !reread.stdout.contains("same"), "\(reread.stdout)")
        #expect(reread.stdout.contains("removed: disappeared"), "\(reread.stdout)")
        #expect(try pid("removed") == removed, "reread stops nothing")
        let avail = try daemon.control(.avail).available ?? []
        #expect(avail.first { $0.name == "added" }?.inUse == false)
        #expect(try pid("changed") == changed, "reread changes nothing")

        let update = try daemon.supervisorctl(["update"])
        #expect(update.exitCode == 0 && update.stdout.contains("changed: updated") && update.stdout.contains("added: added"), "\(update)")
        #expect(
            eventually {
                let now = try? pid("changed"); return now != nil && now != changed
            }, "the changed host restarted")
        #expect(eventually { (try? pid("added")) != nil })
        #expect(try pid("same") == same, "the unchanged host kept its pid")
        #expect(update.stdout.contains("removed: removed"), "\(update)")
        #expect(try daemon.control(.status(NameSelection())).status?.contains { $0.name == "removed" } == false)
        if let removed { #expect(eventually { !isAlive(removed) }, "the removed host was stopped") }
        #expect(try daemon.supervisorctl(["reread"]).stdout.contains("No config updates"))
    }

    static func twoHosts(changed seconds: String, removed: Bool = true) -> String {
        """
        [hosts.same]
        command = ["/bin/sleep", "1000"]

        [hosts.changed]
        command = ["/bin/sleep", "\(seconds)"]

        """ + (removed ? "[hosts.removed]\ncommand = [\"/bin/sleep\", \"1000\"]\n" : "")
    }

    @Test func signalReachesTheProcessAndClearEmptiesItsLog() throws {
        let daemon = try Self.runningDaemon()
        #expect(eventually { (try? daemon.control(.tail(TailRequest(name: "panel"))).lines?.contains { $0.hasSuffix("to-stdout") }) == true })
        let signalled = try daemon.supervisorctl(["signal", "HUP", "panel"])
        #expect(signalled.exitCode == 0 && signalled.stdout.contains("panel: signalled HUP"), "\(signalled)")
        #expect(eventually { (try? daemon.control(.tail(TailRequest(name: "panel"))).lines?.contains { $0.hasSuffix("got HUP") }) == true })
        let notRunning = try daemon.supervisorctl(["signal", "USR1", "spare"])
        #expect(notRunning.exitCode == 1 && notRunning.stderr.contains("spare: ERROR (not running)"))

        #expect(try daemon.supervisorctl(["clear", "panel"]).exitCode == 0)
        #expect(try daemon.control(.tail(TailRequest(name: "panel"))).lines == [])
    }

    @Test func maintailShowsTheDaemonsOwnLog() throws {
        let daemon = try Self.runningDaemon()
        let tail = try daemon.supervisorctl(["maintail", "-n", "1000"])
        #expect(tail.exitCode == 0 && tail.stdout.contains("serving \(daemon.runtimeDirectory)/control.sock"), "\(tail)")
        #expect(try daemon.supervisorctl(["maintail", "-2"]).stdout.split(separator: "\n").count == 2)
    }

    @Test func maintailFollowsTheDaemonsNewLines() throws {
        let daemon = try Self.runningDaemon()
        var started = false, followed = false
        try daemon.stream(.maintail(LogRequest(lines: 0, follow: true)), timeout: 10) { response in
            if !started {
                started = true
                let start = try daemon.control(.start(NameSelection(["spare"])))
                #expect(start.ok)
            }
            followed = response.lines?.contains { $0.contains("spare: launched pid") } == true
            return !followed
        }
        #expect(followed)
    }

    /// Each `--json` answer has `schema`, `ok` and the keys of that answer, none of another
    /// command's; objects inside keep every key, null or not.
    @Test(arguments: [
        (["status"], "status"), (["status", "panel"], "status"), (["pid"], "pid"), (["avail"], "available"), (["reread"], "changes"),
        (["update"], "changes"), (["version"], "version"), (["stats"], "stats"), (["tail", "panel"], "lines"), (["events", "-n", "3"], "events"),
        (["maintail", "-n", "2"], "lines"), (["start", "panel"], "error"), (["restart", "spare"], "message"), (["signal", "HUP", "panel"], "message"),
        (["clear", "panel"], "message"), (["enable", "com.example.app.clock"], "message"), (["pressure"], "pressure"),
    ])
    func jsonAnswersHaveTheKeysOfTheirAnswer(arguments: [String], key: String) throws {
        let daemon = try Self.runningDaemon()
        let result = try daemon.supervisorctl(["--json"] + arguments)
        let lines = result.stdout.split(separator: "\n")
        #expect(!lines.isEmpty, "\(arguments): \(result)")
        let responseKeys: Set = [
            "schema", "ok", "error", "code", "message", "status", "version", "events", "lines", "pull", "stats",
            "pressure", "pid", "available", "changes", "done",
        ]
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object.keys.contains("schema") && object.keys.contains("ok") && object.keys.contains(key), "\(arguments): \(line)")
            #expect(Set(object.keys).isSubset(of: responseKeys), "\(arguments): \(line)")
            #expect(!object.values.contains { $0 is NSNull }, "no key of another answer: \(line)")
            #expect(!(arguments == ["pid"]) || Set(object.keys) == ["schema", "ok", "pid"], "\(line)")
            #expect(!(arguments == ["pid"]) || line.contains("\"pid\":\(daemon.process?.pid ?? 0)"), "integers stay integers: \(line)")
            #expect(object["schema"] as? Int == controlSchemaVersion)
            for entry in object["status"] as? [[String: Any]] ?? [] {
                #expect(
                    Set(entry.keys) == [
                        "name", "kind", "autostart", "state", "pid", "uptimeMs", "rssBytes", "memoryCurrentBytes",
                        "memoryLimitBytes", "lastResult", "lastUpdateAgeMs", "updateLatencyP50Us", "updateLatencyP99Us", "error", "visible",
                    ])
            }
            let latencyKeys: Set = ["count", "p50", "p90", "p99", "max"]
            if let stats = object["stats"] as? [String: Any] {
                #expect(Set(stats.keys) == ["processes", "daemon"])
                for entry in stats["processes"] as? [[String: Any]] ?? [] {
                    #expect(
                        Set(entry.keys) == [
                            "name", "kind", "rssBytes", "peakRSSBytes", "memoryCurrentBytes", "memoryPeakBytes", "launches",
                            "launchLatencyUs", "updateLatencyUs", "pullsCached", "pullsCoalesced", "pullsUpdated",
                            "resultsNewData", "resultsNoData", "resultsFailed", "kills", "suspensions", "budgetLeft", "nextRefreshInMs",
                            "outputDroppedBytes",
                        ])
                    for key in ["launchLatencyUs", "updateLatencyUs"] {
                        if let latency = entry[key] as? [String: Any] { #expect(Set(latency.keys) == latencyKeys, "\(key)") }
                    }
                }
                #expect(
                    Set((stats["daemon"] as? [String: Any] ?? [:]).keys) == [
                        "rssBytes", "anonymousBytes", "cpuUserMs", "cpuSystemMs",
                        "cgroupBackend", "pressureLevel",
                    ])
            }
            if let pressure = object["pressure"] as? [String: Any] {
                #expect(
                    Set(pressure.keys) == [
                        "cgroupBackend", "budgetBytes", "usageBytes", "warnBytes", "lowBytes", "criticalBytes", "level",
                        "psi", "mechanisms",
                    ])
            }
            for event in object["events"] as? [[String: Any]] ?? [] {
                #expect(Set(event.keys) == ["sequence", "timeMs", "kind", "name", "reason", "message", "kill"])
                if let kill = event["kill"] as? [String: Any] {
                    #expect(
                        Set(kill.keys) == [
                            "band", "rssBytes", "growthBytes", "treeUsageBytes", "budgetBytes", "psiSomeAvg10", "triggerUs", "decisionUs",
                            "signalUs", "emptyUs", "lastBelowLowUs",
                        ])
                }
            }
        }
    }

    @Test func bothBinariesHaveAVersionAndExitTwoOnBadUsage() throws {
        let directory = try TemporaryDirectory()
        for binary in ["extensiond", "supervisorctl"] {
            let version = try runCommand(Binaries.path(binary), ["--version"], in: directory)
            #expect(version.exitCode == 0 && version.stdout == "\(extensiondVersion)\n", "\(binary): \(version)")
            let usage = try runCommand(Binaries.path(binary), ["--no-such-flag"], in: directory)
            #expect(usage.exitCode == 2 && usage.stderr.contains("--no-such-flag"), "\(binary): \(usage)")
        }
    }

    @Test func anAnswerOverTheLimitIsAnErrorNotSilence() throws {
        // 6000 lines of 4000 bytes: a 24 MB tail, over the 16 MiB answer limit.
        let daemon = try TestDaemon(
            config: """
                [hosts.flood]
                command = ["/usr/bin/python3", "-c", "import sys, time\\nfor _ in range(6000): sys.stdout.write('x' * 4000 + '\\\\n')\\nsys.stdout.flush()\\ntime.sleep(1000)"]
                """, supervisor: "log_max_size = \"64M\"\noutput_rate = \"1G\"")
        try daemon.start()
        let log = daemon.stateDirectory + "/logs/flood.log"
        #expect(eventually(timeout: 20) { ((try? FileManager.default.attributesOfItem(atPath: log)[.size]) as? Int ?? 0) >= 6000 * 4000 })
        let result = try daemon.supervisorctl(["tail", "-n", "6000", "flood"])
        #expect(result.exitCode == 1 && result.stderr.contains("exceeds the 16777216-byte limit"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}
