import ExtensiondTestSupport
import Foundation
import Testing

/// Completion as a user meets it: Tab in a real interactive bash under tmux (the socket
/// from `$EXTENSIOND_SOCKET`, nothing on the line), under the name the package installs
/// (`extensiondctl`) and its `supervisorctl` alternative; Tab and history in the shell.
@Suite struct SupervisorctlCompletionTests {
    typealias Tmux = SupervisorctlTerminalTests.Tmux

    /// An interactive bash with a bare environment, `PATH` starting with `bin`, the daemon's
    /// socket in `$EXTENSIOND_SOCKET`, and `sources` read; its prompt is `$ `.
    func bash(_ daemon: TestDaemon, bin: String, sources: [String]) throws -> Tmux {
        try daemon.directory.write("bashrc", "PS1='$ '\n" + sources.map { "source '\($0)'\n" }.joined())
        let environment = "TERM=xterm-256color PATH='\(bin)':/usr/bin:/bin HOME='\(daemon.directory.path)' EXTENSIOND_SOCKET='\(daemon.controlSocket)'"
        let tmux = try Tmux(
            in: daemon.directory, width: 160, height: 30,
            command: "env -i \(environment) /usr/bin/bash --noprofile --rcfile '\(daemon.directory.file("bashrc"))' -i")
        #expect(eventually(timeout: 10) { (try? tmux.screen().contains("$ ")) == true })
        return tmux
    }

    /// Types `line`, presses Tab `times`, and returns the screen once it shows `expected`.
    func tab(_ tmux: Tmux, _ line: String, times: Int = 1, until expected: @escaping ([String]) -> Bool) throws -> [String] {
        try tmux.run(["send-keys", "C-u", line] + Array(repeating: "Tab", count: times))
        _ = eventually(timeout: 10) { (try? tmux.screen()).map(expected) == true }
        return try tmux.screen()
    }

    @Test func bashCompletesNamesWithTheSocketFromTheEnvironment() throws {
        let daemon = try TestDaemon(config: SupervisorctlTerminalTests.config)
        try daemon.start()
        let script = try runCommand(Binaries.path("supervisorctl"), ["--generate-completion-script", "bash"], in: daemon.directory)
        try daemon.directory.write("supervisorctl.bash", script.stdout)
        let tmux = try bash(daemon, bin: Binaries.directory, sources: [daemon.directory.file("supervisorctl.bash")])

        var screen = try tab(tmux, "supervisorctl status com.example.app.w") { $0.contains("$ supervisorctl status com.example.app.widget ") }
        #expect(screen.contains("$ supervisorctl status com.example.app.widget "), "\(screen)")
        screen = try tab(tmux, "supervisorctl start ", times: 2) { $0.contains { $0.contains("panel") } }
        #expect(screen.contains { $0.contains("com.example.app.widget") && $0.contains("panel") }, "\(screen)")
        #expect(!screen.contains { $0.contains("parsable argument") || $0.contains("error") }, "\(screen)")
    }

    /// `make deb`'s layout: the CLI is extensiondctl, and supervisorctl (the alternative,
    /// a link to it) has its own completion file, which the alternative links into place.
    @Test func theInstalledNamesAndTheSupervisorctlAlternativeComplete() throws {
        let daemon = try TestDaemon(config: SupervisorctlTerminalTests.config)
        try daemon.start()
        let destination = daemon.directory.file("dest")
        let install = try runCommand(
            Binaries.packageRoot() + "/scripts/install-files", [],
            environment: ["BIN": Binaries.directory, "DESTDIR": destination, "PREFIX": "/usr", "CTL": "extensiondctl"],
            in: daemon.directory, timeout: 300)
        #expect(install.exitCode == 0, "\(install.stderr)")
        let usr = destination + "/usr"
        try FileManager.default.createSymbolicLink(atPath: usr + "/bin/supervisorctl", withDestinationPath: usr + "/bin/extensiondctl")
        let tmux = try bash(
            daemon, bin: usr + "/bin",
            sources: [
                usr + "/share/bash-completion/completions/extensiondctl",
                usr + "/share/extensiond/completions/supervisorctl.bash",
            ])
        for name in ["extensiondctl", "supervisorctl"] {
            let screen = try tab(tmux, "\(name) tail pan") { $0.contains("$ \(name) tail panel ") }
            #expect(screen.contains("$ \(name) tail panel "), "\(name): \(screen)")
        }
        for file in [
            "share/zsh/vendor-completions/_extensiondctl", "share/extensiond/completions/_supervisorctl",
            "share/fish/vendor_completions.d/extensiondctl.fish", "share/extensiond/completions/supervisorctl.fish",
        ] {
            #expect(FileManager.default.fileExists(atPath: usr + "/" + file), "missing \(file)")
        }
    }

    @Test func theShellCompletesCommandsAndNamesAndKeepsHistoryAcrossSessions() throws {
        let daemon = try TestDaemon(config: SupervisorctlTerminalTests.config)
        try daemon.start()
        let history = daemon.directory.file("state/history")
        let ctl = "EXTENSIOND_HISTORY='\(history)' '\(Binaries.path("supervisorctl"))' --socket '\(daemon.controlSocket)'"
        let tmux = try Tmux(
            in: daemon.directory, width: 160, height: 30,
            command: "\(ctl); echo first-exited; \(ctl); echo second-exited; sleep 30")
        #expect(eventually(timeout: 10) { (try? tmux.screen().contains { $0.hasPrefix("supervisorctl>") }) == true })
        // `sta` is status or start: Tab lists both; `statu` completes; a name completes.
        try tmux.run(["send-keys", "sta", "Tab"])
        #expect(eventually(timeout: 5) { (try? tmux.screen().contains { $0.contains("start") && $0.contains("status") }) == true })
        try tmux.run(["send-keys", "C-u", "statu", "Tab", "pan", "Tab", "Enter"])
        #expect(
            eventually(timeout: 5) { (try? tmux.screen().contains { $0.hasPrefix("panel ") && $0.contains("running") }) == true },
            "\((try? tmux.screen()) ?? [])")
        #expect(try tmux.screen().contains { $0.hasPrefix("supervisorctl> status panel") })
        try tmux.run(["send-keys", "quit", "Enter"])
        #expect(eventually(timeout: 5) { (try? tmux.screen().contains("first-exited")) == true })
        #expect(try String(contentsOfFile: history, encoding: .utf8) == "status panel \nquit\n", "as typed: Tab put a space after the name")

        // A new session: ↑↑ brings back the first session's command.
        try tmux.run(["send-keys", "Up", "Up", "Enter"])
        #expect(
            eventually(timeout: 5) {
                (try? tmux.screen().filter { $0.hasPrefix("supervisorctl> status panel") }.count) == 2
            }, "\((try? tmux.screen()) ?? [])")
        try tmux.run(["send-keys", "exit", "Enter"])
        #expect(eventually(timeout: 5) { (try? tmux.screen().contains("second-exited")) == true })
    }
}
