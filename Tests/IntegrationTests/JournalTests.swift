import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// A daemon that believes it is a systemd service (`INVOCATION_ID`) sends output lines
/// and events to the journal socket, here a ``FakeJournal`` in its own mount namespace,
/// and honours `output` per process.
@Suite struct JournalTests {
    @Test func outputAndEventsReachTheJournalWithTheirFields() throws {
        let daemon = try TestDaemon()
        let journal = try FakeJournal(directory: daemon.directory.file("journal"))
        let talker = try daemon.directory.write(
            "talker.sh",
            """
            #!/bin/sh
            echo "to stdout"
            echo "to stderr" >&2
            exec sleep 1000

            """, mode: 0o755)
        let widget = try ScriptedExtension.command(.hangAfterFirst, in: daemon.directory)
        try daemon.writeConfig(
            """
            [hosts.talker]
            command = ["\(talker)"]

            [hosts.quiet]
            command = ["\(talker)"]
            output = "file"

            [apps."\(ExtensionTestBed.app)"]
            command = ["\(talker)"]
            output = "journal"
            autostart = true

            """ + ExtensionTestBed.extensionTable("test.widget", command: widget, refresh: "pull_cooldown = \"0s\"\ndeadline = \"1s\""))
        try daemon.start(environment: ["INVOCATION_ID": "0123456789abcdef0123456789abcdef"], wrapper: journal.wrapper)

        #expect(
            eventually {
                journal.receive(); return journal.entries(matching: ["EXTENSIOND_PROCESS": "talker", "MESSAGE": "to stderr"]).count == 1
            })
        let out = journal.entries(matching: ["EXTENSIOND_PROCESS": "talker", "MESSAGE": "to stdout"])
        #expect(out.count == 1)
        #expect(out.first?["PRIORITY"] == "6" && out.first?["SYSLOG_IDENTIFIER"] == "talker" && out.first?["EXTENSIOND_KIND"] == "host")
        #expect(journal.entries(matching: ["EXTENSIOND_PROCESS": "talker", "MESSAGE": "to stderr"]).first?["PRIORITY"] == "4")
        // `both` also keeps the files, stdout and stderr apart; `file` keeps only them.
        let logs = daemon.stateDirectory + "/logs/"
        #expect(try String(contentsOfFile: logs + "talker.log", encoding: .utf8).hasSuffix(" to stdout\n"))
        #expect(try String(contentsOfFile: logs + "talker.stderr.log", encoding: .utf8).hasSuffix(" to stderr\n"))
        #expect(eventually { ((try? String(contentsOfFile: logs + "quiet.stderr.log", encoding: .utf8)) ?? "").hasSuffix(" to stderr\n") })
        #expect(journal.entries(matching: ["SYSLOG_IDENTIFIER": "quiet"]).isEmpty)
        // `journal` sends the lines there alone: no file has them.
        let app = ExtensionTestBed.app
        #expect(
            eventually {
                journal.receive(); return journal.entries(matching: ["EXTENSIOND_PROCESS": app, "MESSAGE": "to stderr"]).count == 1
            })
        #expect(journal.entries(matching: ["EXTENSIOND_PROCESS": app, "MESSAGE": "to stdout"]).first?["EXTENSIOND_KIND"] == "app")
        for file in [app + ".log", app + ".stderr.log"] {
            #expect(((try? String(contentsOfFile: logs + file, encoding: .utf8)) ?? "").isEmpty, "\(file) has lines")
        }

        // Events: a launch with its pid, and a kill (the widget misses its deadline) with its reason.
        let launch = journal.entries(matching: ["MESSAGE_ID": "1f231bb874ca4ef4b1aac0066bb292cb", "EXTENSIOND_PROCESS": "talker"])
        #expect(launch.count == 1)
        #expect(launch.first?["EXTENSIOND_PID"].flatMap { Int32($0) } == (try daemon.control(.status(NameSelection(["talker"]))).status?.first?.pid))
        // Ready before the pull: an update's 1 s deadline runs from the pull, and a launch
        // (its volume, Python's start) on a loaded machine can take longer than that.
        #expect(try daemon.control(.start(NameSelection(["test.widget"]))).ok)
        #expect(try eventually(timeout: 15) { try daemon.control(.status(NameSelection(["test.widget"]))).status?.first?.state == "idle" })
        let pulled = try daemon.control(.pull(PullRequest(name: "test.widget"))).pull
        #expect(pulled?.result == "newData", "\(pulled?.error ?? "no report")")
        #expect(eventually { (try? daemon.control(.stats(NameSelection(["test.widget"]))).stats?.processes.first?.resultsNewData) == 1 })
        _ = try daemon.control(.refresh(NameSelection(["test.widget"])))
        #expect(
            eventually(timeout: 10) {
                journal.receive()
                return !journal.entries(matching: ["MESSAGE_ID": "d29aa78288524e81afbb51efb686837b", "EXTENSIOND_PROCESS": "test.widget"]).isEmpty
            })
        let kill = journal.entries(matching: ["MESSAGE_ID": "d29aa78288524e81afbb51efb686837b"]).first
        #expect(kill?["EXTENSIOND_REASON"] == "deadline" && kill?["EXTENSIOND_EVENT"] == "kill" && kill?["PRIORITY"] == "4")

        // A reload is an entry with the counts.
        #expect(try daemon.supervisorctl(["reload"]).exitCode == 0)
        #expect(
            eventually {
                journal.receive()
                return journal.entries(matching: ["MESSAGE_ID": "b9ea5da05b6b4be49d0a486e74c885e5", "EXTENSIOND_HOSTS": "2", "EXTENSIOND_EXTENSIONS": "1"])
                    .count == 1
            })
        #expect(daemon.process?.isRunning == true)
    }
}
