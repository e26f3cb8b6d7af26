import CLinux
import ExtensiondTestSupport
import LinuxProcess
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The seccomp deny-list as libseccomp builds it, seen from inside a sandboxed child, and
/// built for every architecture a device uses.
@Suite struct SeccompFilterTests {
    private var deniedNames: [String] {
        (0..<ext_seccomp_denied_count()).compactMap { ext_seccomp_denied_name($0).map { String(cString: $0) } }
    }

    /// Calls each named system call by its number on this machine (resolved by libseccomp
    /// in the child) with every argument all ones, which no call accepts (the probe never
    /// changes the machine, even unfiltered); prints `name errno` (or `absent`, `ok`).
    private func probe(_ names: [String]) throws -> [String: String] {
        let script = """
            import ctypes, errno, sys
            seccomp = ctypes.CDLL("libseccomp.so.2")
            libc = ctypes.CDLL(None, use_errno=True)
            libc.syscall.restype = ctypes.c_long
            for name in sys.argv[1:]:
                number = seccomp.seccomp_syscall_resolve_name(name.encode())
                if number < 0:
                    print(name, "absent")
                    continue
                ctypes.set_errno(0)
                result = libc.syscall(ctypes.c_long(number), *[ctypes.c_long(-1)] * 6)
                print(name, "ok" if result != -1 else errno.errorcode.get(ctypes.get_errno(), ctypes.get_errno()))
            """
        let output = DescriptorPair.socketPair()
        let child = try Spawner.spawn(
            SpawnRequest(
                executable: "/usr/bin/python3", arguments: ["-S", "-c", script] + names, environment: ["PATH": "/usr/bin:/bin"],
                standardOutput: output.childEnd, standardError: output.childEnd, sandbox: SpawnSandbox(fileSystem: nil)))
        let text = output.readAll()
        #expect(try child.descriptor.waitForExit() == .exited(code: 0), "\(text)")
        return Dictionary(
            text.split(separator: "\n").compactMap { line in
                let parts = line.split(separator: " ")
                return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
            }, uniquingKeysWith: { first, _ in first })
    }

    @Test func everyDeniedCallAnswersEPERM() throws {
        let names = deniedNames
        for expected in [
            "ptrace", "mount", "bpf", "kexec_load", "keyctl", "unshare", "setns", "reboot",
            "io_uring_setup", "io_uring_enter", "io_uring_register",
        ] {
            #expect(names.contains(expected), "\(expected) is not in the deny-list")
        }
        let answers = try probe(names)
        #expect(answers.count == names.count)
        for name in names where answers[name] != "absent" {
            #expect(answers[name] == "EPERM", "\(name): \(answers[name] ?? "no answer")")
        }
        // What this architecture has of the list is most of it.
        #expect(answers.values.filter { $0 != "absent" }.count >= names.count - 4)
    }

    /// clone3's flags are out of a filter's reach: it answers ENOSYS, and libc falls back
    /// to clone, whose namespace flags are refused.
    @Test func clone3IsUnavailable() throws {
        #expect(try probe(["clone3"])["clone3"] == "ENOSYS")
    }

    /// armhf, riscv64, aarch64 and x86_64: each gets the same list in its own numbers
    /// (32-bit ARM adds the 64-bit-time variants of the clock calls).
    @Test(arguments: [("x86_64", 0xC000_003E), ("aarch64", 0xC000_00B7), ("armhf", 0x4000_0028), ("riscv64", 0xC000_00F3)] as [(String, UInt32)])
    func theFilterBuildsForEveryDeviceArchitecture(name: String, arch: UInt32) {
        var program = ext_seccomp_program()
        #expect(ext_seccomp_program(arch, &program) == 0, "\(name)")
        defer { free(program.filter.filter) }
        // At least one comparison per denied call the architecture has, and the clone checks.
        #expect(Int(program.filter.len) > 40, "\(name): \(program.filter.len) instructions")
    }
}
