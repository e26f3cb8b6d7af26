import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// supervisorctl on a real terminal (tmux, driven with send-keys and read with
/// capture-pane) and under bash's completion, against a real daemon.
@Suite struct SupervisorctlTerminalTests {
    /// A tmux server of its own (its socket in the test's directory), killed at the end.
    final class Tmux {
        let socket: String
        let directory: TemporaryDirectory

        init(in directory: TemporaryDirectory, width: Int, height: Int, command: String) throws {
            self.directory = directory
            socket = directory.file("tmux.sock")
            try run(["new-session", "-d", "-x", "\(width)", "-y", "\(height)", command])
        }

        deinit { _ = try? run(["kill-server"]) }

        @discardableResult
        func run(_ arguments: [String]) throws -> String {
            let result = try runCommand("/usr/bin/tmux", ["-S", socket] + arguments, environment: ["TERM": "xterm-256color"], in: directory)
            guard result.exitCode == 0 else { throw TestSupportError("tmux \(arguments): \(result.stderr)") }
            return result.stdout
        }

        /// The pane's text, wrapped lines joined: a line longer than the pane means it wrapped.
        func screen() throws -> [String] {
            try run(["capture-pane", "-p", "-J"]).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }

        func alternateScreen() throws -> Bool {
            try run(["display-message", "-p", "#{alternate_on}"]).hasPrefix("1")
        }
    }

    static let config = """
        [hosts.panel]
        command = ["/bin/sleep", "1000"]

        [apps."com.example.app"]
        command = ["/bin/sleep", "1000"]
        autostart = false

        [extensions."com.example.app.widget"]
        app = "com.example.app"
        point = "widget"
        command = ["/bin/sleep", "1000"]
        """

    @Test func topUsesTheAlternateScreenFitsTheWidthAndQuitsOnQ() throws {
        let daemon = try TestDaemon(config: Self.config)
        try daemon.start()
        let ctl = "'\(Binaries.path("supervisorctl"))' --socket '\(daemon.controlSocket)'"
        let tmux = try Tmux(
            in: daemon.directory, width: 90, height: 20,
            command: "echo before-top; \(ctl) top --interval 0.2; echo top-exited-$?; sleep 30")
        #expect(eventually(timeout: 10) { (try? tmux.screen().contains { $0.hasPrefix("NAME") }) == true })
        #expect(try tmux.alternateScreen())
        let screen = try tmux.screen()
        #expect(screen.contains { $0.hasPrefix("com.example.app.widget") })
        #expect(screen.contains { $0.contains("q quits") })
        #expect(screen.allSatisfy { $0.count <= 90 }, "no line wraps: \(screen.filter { $0.count > 90 })")
        #expect(!screen.contains { $0.contains("before-top") }, "drawn on the alternate screen")

        try tmux.run(["send-keys", "q"])
        #expect(eventually(timeout: 5) { (try? tmux.screen().contains { $0 == "top-exited-0" }) == true })
        #expect(try !tmux.alternateScreen())
        let after = try tmux.screen()
        #expect(after.contains("before-top"), "the terminal is back as it was")
        #expect(!after.contains { $0.hasPrefix("NAME") })
    }

    @Test func topPrintsPlainTextOnceForADumbTerminal() throws {
        let daemon = try TestDaemon(config: Self.config)
        try daemon.start()
        let ctl = "'\(Binaries.path("supervisorctl"))' --socket '\(daemon.controlSocket)'"
        let output = daemon.directory.file("top.out")
        let tmux = try Tmux(
            in: daemon.directory, width: 200, height: 20,
            command: "TERM=dumb \(ctl) top --interval 0.2 > '\(output)'; echo top-exited-$?; sleep 30")
        #expect(eventually(timeout: 10) { (try? tmux.screen().contains("top-exited-0")) == true })
        let text = try String(contentsOfFile: output, encoding: .utf8)
        #expect(!text.contains("\u{1B}"), "no escape sequences")
        #expect(text.components(separatedBy: "\n").filter { $0.hasPrefix("NAME") }.count == 1, "printed once")
    }

    @Test func theShellOnATerminalEditsLinesAndKeepsHistory() throws {
        let daemon = try TestDaemon(config: Self.config)
        try daemon.start()
        let ctl = "'\(Binaries.path("supervisorctl"))' --socket '\(daemon.controlSocket)'"
        let tmux = try Tmux(in: daemon.directory, width: 120, height: 30, command: "\(ctl); echo shell-exited-$?; sleep 30")
        #expect(eventually(timeout: 10) { (try? tmux.screen().contains { $0.hasPrefix("supervisorctl>") }) == true })
        // Typed with a mistake, fixed by moving left and deleting: `pid panxel` → `pid panel`.
        try tmux.run(["send-keys", "pid panxel", "Left", "Left", "BSpace", "Enter"])
        #expect(eventually(timeout: 5) { (try? tmux.screen().contains { Int($0) != nil && $0 != "0" }) == true })
        // ↑ brings the line back; Ctrl-U empties it; then the status of the app.
        try tmux.run(["send-keys", "Up", "C-u", "status com.example.app:*", "Enter"])
        #expect(eventually(timeout: 5) { (try? tmux.screen().contains { $0.hasPrefix("com.example.app.widget") }) == true })
        try tmux.run(["send-keys", "quit", "Enter"])
        #expect(
            eventually(timeout: 5) { (try? tmux.screen().contains { $0.hasPrefix("shell-exited-3") }) == true },
            "the last command's status: the app and its widget are stopped")
    }

    @Test func bashCompletesProcessNamesFromTheDaemon() throws {
        let daemon = try TestDaemon(config: Self.config)
        try daemon.start()
        let binary = Binaries.path("supervisorctl")
        let script = try runCommand(binary, ["--generate-completion-script", "bash"], in: daemon.directory)
        #expect(script.exitCode == 0)
        try daemon.directory.write("completion.bash", script.stdout)

        func complete(_ words: [String]) throws -> [String] {
            let line = words.joined(separator: " ")
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let program = """
                source '\(daemon.directory.file("completion.bash"))'
                COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); COMP_LINE='\(line)'; COMP_POINT=\(line.count)
                _supervisorctl
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            let result = try runCommand("/usr/bin/bash", ["-c", program], in: daemon.directory)
            #expect(result.exitCode == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\n").map(String.init).sorted()
        }
        let base = [binary, "--socket", daemon.controlSocket]
        #expect(try complete(base + ["status", "com"]) == ["com.example.app", "com.example.app.widget"])
        #expect(try complete(base + ["tail", "pa"]) == ["panel"])
        #expect(try complete(base + ["start", ""]) == ["com.example.app", "com.example.app.widget", "panel"])
        #expect(try complete(base + ["sta"]).contains("status"))
        // No daemon: no names, and no error on the terminal.
        #expect(try complete([binary, "--socket", daemon.directory.file("absent.sock"), "status", ""]) == [])
    }
}
