import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// A real process's stdout and stderr end in separate files, and no line count a client
/// sends to `tail` can hurt the daemon.
@Suite struct OutputStreamsTests {
    @Test func stdoutAndStderrAreLoggedApartAndTailSurvivesAnyCount() throws {
        let daemon = try TestDaemon()
        let script = try daemon.directory.write(
            "both.sh",
            """
            #!/bin/sh
            for i in 1 2 3; do echo "out $i"; sleep 0.05; echo "err $i" >&2; sleep 0.05; done
            exec sleep 1000

            """, mode: 0o755)
        try daemon.writeConfig(
            """
            [hosts.both]
            command = ["\(script)"]
            """)
        try daemon.start()
        let logs = daemon.stateDirectory + "/logs/"
        func messages(_ file: String) -> [String] {
            ((try? String(contentsOfFile: logs + file, encoding: .utf8)) ?? "").split(separator: "\n").map {
                String($0.split(separator: " ", maxSplits: 1).last ?? "")
            }
        }
        #expect(eventually { messages("both.stderr.log").count == 3 && messages("both.log").count == 3 })
        #expect(messages("both.log") == ["out 1", "out 2", "out 3"])
        #expect(messages("both.stderr.log") == ["err 1", "err 2", "err 3"])

        // Merged, the lines come back in the order they arrived, which is the order the
        // process wrote them when its writes are apart (two pipes are read separately).
        let merged = try daemon.control(.tail(TailRequest(name: "both", lines: 6))).lines ?? []
        #expect(merged.map { String($0.split(separator: " ", maxSplits: 1).last ?? "") } == ["out 1", "err 1", "out 2", "err 2", "out 3", "err 3"])
        // One stream at a time: `tail NAME stdout|stderr`.
        let stderr = try daemon.supervisorctl(["tail", "-n", "6", "both", "stderr"])
        #expect(stderr.stdout.split(separator: "\n").map { String($0.split(separator: " ", maxSplits: 1).last ?? "") } == ["err 1", "err 2", "err 3"])
        let stdout = try daemon.control(.tail(TailRequest(name: "both", lines: 2, stream: .stdout))).lines ?? []
        #expect(stdout.map { String($0.split(separator: " ", maxSplits: 1).last ?? "") } == ["out 2", "out 3"])
        // Counts out of bounds are refused by name, as raw JSON (the typed request cannot hold them).
        for count in ["-1", "0", "-9223372036854775808", "9223372036854775807", "10001", #""x""#] {
            let line = #"{"command":"tail","name":"both","lines":\#(count),"follow":false}"# + "\n"
            let response = try ControlCodec.decode(ControlResponse.self, from: try daemon.exchange(Array(line.utf8)).dropLast())
            #expect(!response.ok && response.code == .badRequest && response.error?.contains("field lines") == true, "lines \(count): \(response)")
        }
        #expect(daemon.process?.isRunning == true)
    }

    /// The logs are written and read as root: a link planted at a log's name (by anyone
    /// who could write `logs/`) is never followed, for writing, `tail` or `clear`.
    @Test func aLinkPlantedAtALogsNameIsNeverFollowed() throws {
        let daemon = try TestDaemon()
        let script = try daemon.directory.write("talk.sh", "#!/bin/sh\necho spoken\nexec sleep 1000\n", mode: 0o755)
        try daemon.writeConfig(
            """
            [hosts.talk]
            command = ["\(script)"]
            autostart = false
            """)
        let target = try daemon.directory.write("target", "secret\n")
        try FileManager.default.createDirectory(atPath: daemon.stateDirectory + "/logs", withIntermediateDirectories: true)
        #expect(symlink(target, daemon.stateDirectory + "/logs/talk.log") == 0)
        try daemon.start()

        let tail = try daemon.control(.tail(TailRequest(name: "talk", lines: 10))).lines ?? []
        #expect(!tail.contains { $0.contains("secret") }, "tail read through the link: \(tail)")
        #expect(try daemon.supervisorctl(["start", "talk"]).exitCode == 0)
        #expect(eventually { (try? daemon.control(.events(LogRequest(lines: 100))).events)??.contains { $0.name == "talk" && $0.reason == "output" } == true })
        _ = try daemon.control(.clear(NameSelection(["talk"])))
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "secret\n")
        #expect(daemon.process?.isRunning == true)
    }
}
