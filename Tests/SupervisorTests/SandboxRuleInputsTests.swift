import ExtensiondTestSupport
import Glibc
import Testing

@testable import ProcessIsolation

/// A relaunch reuses a sandbox's rules while what they derive from is unchanged; a program
/// replaced at the same path (a new run path, say) makes them be derived again, and a
/// granted directory made again makes a new ruleset.
@Suite struct SandboxRuleInputsTests {
    private func inputs(_ program: String, writable: [String] = ["/srv/data"]) -> SandboxRules.Inputs {
        SandboxRules.Inputs(executable: program, command: [program, "--flag"], writable: writable, readable: [])
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

    @Test func aGrantedDirectoryKeepsItsIdentityWhileItsEntriesChange() throws {
        let directory = try TemporaryDirectory()
        let program = try directory.write("widget", "#!/bin/sh\n", mode: 0o755)
        let data = directory.file("data")
        #expect(mkdir(data, 0o700) == 0)
        let before = inputs(program, writable: [data])
        try directory.write("data/state.json", "{}")
        #expect(inputs(program, writable: [data]) == before)
    }

    /// ext4 hands a directory made right after another was removed the same inode number:
    /// the birth time tells them apart.
    @Test func aGrantedDirectoryRemovedAndMadeAgainIsAnotherDirectory() throws {
        let directory = try TemporaryDirectory()
        let program = try directory.write("widget", "#!/bin/sh\n", mode: 0o755)
        let data = directory.file("data")
        #expect(mkdir(data, 0o700) == 0)
        let before = inputs(program, writable: [data])
        #expect(rmdir(data) == 0 && mkdir(data, 0o700) == 0)
        let after = inputs(program, writable: [data])
        #expect(after != before)
        #expect(!after.grantsSameDirectories(as: before))

        // Gone: not the same either.
        #expect(rmdir(data) == 0)
        #expect(inputs(program, writable: [data]) != after)
    }
}
