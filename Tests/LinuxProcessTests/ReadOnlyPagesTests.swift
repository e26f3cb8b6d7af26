import CLinux
import ExtensiondTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `ext_release_read_only_pages`: what the daemon calls once it serves and after each burst
/// of launches, to let go of the pages of code that does not run while it answers.
/// Serialized: each test's release would drop the pages the other one is counting.
@Suite(.serialized) struct ReadOnlyPagesTests {
    @Test func theProgramsReadOnlyPagesLeaveAndItKeepsRunning() throws {
        let executable = try #require(realpath("/proc/self/exe", nil))
        defer { free(executable) }
        let program = String(cString: executable)
        let before = try residentReadOnlyKiB(file: { $0 == program })
        #expect(ext_release_read_only_pages() == 0)
        // Reading smaps again runs code, which faults some of it back in: far less than all.
        let after = try residentReadOnlyKiB(file: { $0 == program })
        #expect(before > 1024)
        #expect(after < before / 2, "resident read-only KiB: \(before) before, \(after) after")
    }

    /// A shared library's pages leave too: libseccomp's, which building the sandbox's filter
    /// runs and reading smaps does not (libc's would fault straight back in).
    @Test func aSharedLibrarysReadOnlyPagesLeave() throws {
        var program = ext_seccomp_program()
        #expect(ext_seccomp_program(0, &program) == 0)
        free(program.filter.filter)
        let isLibseccomp: (Substring) -> Bool = { $0.contains("/libseccomp.so") }
        let before = try residentReadOnlyKiB(file: isLibseccomp)
        #expect(ext_release_read_only_pages() == 0)
        let after = try residentReadOnlyKiB(file: isLibseccomp)
        #expect(before >= 32)
        #expect(after < before / 2, "resident read-only KiB of libseccomp: \(before) before, \(after) after")
    }
}
