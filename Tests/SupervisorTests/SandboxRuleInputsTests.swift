import ExtensiondTestSupport
import Glibc
import Testing
@testable import Supervisor

/// A relaunch reuses a sandbox's rules while what they derive from is unchanged; a program
/// replaced at the same path (a new run path, say) makes them be derived again.
@Suite struct SandboxRuleInputsTests {
    private func inputs(_ program: String) -> SandboxRules.Inputs {
        SandboxRules.Inputs(executable: program, command: [program, "--flag"], writable: ["/srv/data"], readable: [])
    }

    @Test func equalWhileTheProgramIsTheSame() throws {
        let directory = try TemporaryDirectory()
        let program = try directory.write("widget", "#!/bin/sh\n", mode: 0o755)
        #expect(inputs(program) == inputs(program))
        #expect(inputs(program).program != nil)
    }

    @Test func differentOnceTheProgramIsReplacedOrTouched() throws {
        let directory = try TemporaryDirectory()
        let program = try directory.write("widget", "#!/bin/sh\n", mode: 0o755)
        let before = inputs(program)

        // Replaced by another file (a package upgrade renames a new file over the old one).
        let replacement = try directory.write("widget.new", "#!/bin/sh\necho new\n", mode: 0o755)
        #expect(rename(replacement, program) == 0)
        let replaced = inputs(program)
        #expect(replaced != before)

        // Rewritten in place: only its modification time tells.
        var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, program, &times, 0) == 0)
        #expect(inputs(program) != replaced)
    }

    @Test func differentWhenTheGrantsChange() throws {
        let directory = try TemporaryDirectory()
        let program = try directory.write("widget", "#!/bin/sh\n", mode: 0o755)
        var granted = inputs(program)
        granted.readable = ["/srv/shared"]
        #expect(granted != inputs(program))
    }
}
