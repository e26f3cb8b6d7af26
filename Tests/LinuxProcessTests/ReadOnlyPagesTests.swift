import CLinux
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `ext_release_read_only_pages`: what the daemon calls once it serves and after each burst
/// of launches, to let go of the pages of code that does not run while it answers.
@Suite struct ReadOnlyPagesTests {
    /// Resident KiB of the mappings that are not writable, of the file `matches` accepts, from smaps.
    private func residentReadOnlyKiB(of matches: (Substring) -> Bool) throws -> Int {
        var length = 0
        let smaps = try #require(ext_read_file("/proc/self/smaps", &length))
        defer { free(smaps) }
        var total = 0
        var counting = false
        for line in String(cString: smaps).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, !first.hasSuffix(":") {
                counting = fields.count > 5 && matches(fields[5]) && !fields[1].contains("w")
            } else if counting, fields.first == "Rss:", fields.count > 1, let kib = Int(fields[1]) {
                total += kib
            }
        }
        return total
    }

    @Test func theProgramsReadOnlyPagesLeaveAndItKeepsRunning() throws {
        let executable = try #require(realpath("/proc/self/exe", nil))
        defer { free(executable) }
        let program = String(cString: executable)
        let before = try residentReadOnlyKiB { $0 == program }
        #expect(ext_release_read_only_pages() == 0)
        // Reading smaps again runs code, which faults some of it back in: far less than all.
        let after = try residentReadOnlyKiB { $0 == program }
        #expect(before > 1024)
        #expect(after < before / 2, "resident read-only KiB: \(before) before, \(after) after")
    }

    /// The C library's pages leave too (a test process maps libc; the daemon maps libc, libm
    /// and, under systemd, libsystemd).
    @Test func aSharedLibrarysReadOnlyPagesLeave() throws {
        let isLibc: (Substring) -> Bool = { $0.hasSuffix("/libc.so.6") }
        let before = try residentReadOnlyKiB(of: isLibc)
        #expect(ext_release_read_only_pages() == 0)
        let after = try residentReadOnlyKiB(of: isLibc)
        #expect(before > 256)
        #expect(after < before / 2, "resident read-only KiB of libc: \(before) before, \(after) after")
    }
}
