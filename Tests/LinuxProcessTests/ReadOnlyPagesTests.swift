import CLinux
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `ext_release_program_text`: what the daemon calls once it serves, to let go of the
/// start-up code's pages.
@Suite struct ProgramTextTests {
    /// Resident KiB of this program's own mappings that are not writable, from smaps.
    private func residentReadOnlyKiB() throws -> Int {
        let executable = try #require(realpath("/proc/self/exe", nil))
        defer { free(executable) }
        let program = String(cString: executable)
        var length = 0
        let smaps = try #require(ext_read_file("/proc/self/smaps", &length))
        defer { free(smaps) }
        var total = 0
        var counting = false
        for line in String(cString: smaps).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, !first.hasSuffix(":") {
                counting = fields.count > 5 && fields[5] == program && !fields[1].contains("w")
            } else if counting, fields.first == "Rss:", fields.count > 1, let kib = Int(fields[1]) {
                total += kib
            }
        }
        return total
    }

    @Test func theProgramsReadOnlyPagesLeaveAndItKeepsRunning() throws {
        let before = try residentReadOnlyKiB()
        #expect(ext_release_program_text() == 0)
        // Reading smaps again runs code, which faults some of it back in: far less than all.
        let after = try residentReadOnlyKiB()
        #expect(before > 1024)
        #expect(after < before / 2, "resident read-only KiB: \(before) before, \(after) after")
    }
}
