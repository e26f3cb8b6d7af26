import ExtensiondTestSupport
import LinuxProcess
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The spawner's sandbox, applied between clone and exec, seen from inside the child.
@Suite struct SpawnerSandboxTests {
    /// A sandbox of the system directories (as an extension gets them) plus `extra`.
    private func ruleset(_ extra: [Landlock.Rule] = []) throws -> Landlock.Ruleset {
        let system = ["/usr", "/lib", "/lib64", "/bin", "/sbin"].map { Landlock.Rule($0, [.read, .execute], optional: true) }
        let devices = ["/dev/null"].map { Landlock.Rule($0, .device) }
        return try Landlock.Ruleset(abi: Landlock.kernelABI, rules: system + devices + [Landlock.Rule("/proc", .read)] + extra)
    }

    private func run(_ script: String, sandbox: SpawnSandbox?, user: String? = nil) throws -> (output: String, status: LinuxProcess.ExitStatus) {
        let output = DescriptorPair.socketPair()
        let child = try Spawner.spawn(
            SpawnRequest(
                executable: "/bin/sh", arguments: ["-c", script], environment: ["PATH": "/usr/bin:/bin"],
                user: user, standardOutput: output.childEnd, standardError: output.childEnd, sandbox: sandbox))
        let text = output.readAll()
        return (text, try child.descriptor.waitForExit())
    }

    @Test func kernelOffersLandlock() {
        // The sandbox is on by default: the machines this is built for must have it.
        #expect(Landlock.kernelABI >= 1)
    }

    @Test func noNewPrivilegesAndSeccompAreInPlace() throws {
        let result = try run("grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status", sandbox: SpawnSandbox(fileSystem: nil))
        #expect(result.output == "NoNewPrivs:\t1\nSeccomp:\t2\n")
        let unsandboxed = try run("grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status", sandbox: nil)
        #expect(unsandboxed.output == "NoNewPrivs:\t0\nSeccomp:\t0\n")
    }

    @Test func deniedCallAnswersEPERMAndTheProcessGoesOn() throws {
        // unshare(2) is denied: the command reports EPERM and the shell carries on.
        let result = try run("unshare --net true 2>&1; echo still here", sandbox: SpawnSandbox(fileSystem: nil))
        #expect(result.output.contains("Operation not permitted"))
        #expect(result.output.hasSuffix("still here\n"))
        #expect(result.status == .exited(code: 0))
    }

    @Test func landlockAllowsOnlyTheRules() throws {
        let directory = try TemporaryDirectory()
        let allowed = try directory.write("allowed/file", "yes\n")
        let forbidden = try directory.write("forbidden/file", "no\n")
        let writable = directory.file("allowed")
        let sandbox = SpawnSandbox(fileSystem: try ruleset([Landlock.Rule(writable, [.read, .write])]))
        let result = try run(
            "cat \(allowed); cat \(forbidden) 2>&1; echo new > \(writable)/new && cat \(writable)/new; ls /root 2>&1; echo x > /dev/null && echo devnull",
            sandbox: sandbox)
        #expect(
            result.output == """
                yes
                cat: \(forbidden): Permission denied
                new
                ls: cannot open directory '/root': Permission denied
                devnull

                """)
    }

    @Test func missingRequiredPathIsAnError() throws {
        #expect(throws: SpawnError.self) {
            try Landlock.Ruleset(abi: Landlock.kernelABI, rules: [Landlock.Rule("/nonexistent/extensiond", .read)])
        }
        #expect(throws: SpawnError.self) { try Landlock.Ruleset(abi: 0, rules: []) }
        // An optional one is skipped.
        _ = try Landlock.Ruleset(abi: Landlock.kernelABI, rules: [Landlock.Rule("/nonexistent/extensiond", .read, optional: true)])
    }

    @Test func isolatedNetworkHasOnlyLoopbackAndItIsUp() throws {
        let script =
            "cut -d: -f1 /proc/net/dev | tail -n +3 | tr -d ' '; python3 -S -c 'import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(); c = socket.create_connection(s.getsockname()); print(\"loopback up\")'"
        let result = try run(script, sandbox: SpawnSandbox(fileSystem: nil, isolateNetwork: true))
        #expect(result.output == "lo\nloopback up\n")
        let host = try run("cut -d: -f1 /proc/net/dev | tail -n +3 | tr -d ' '", sandbox: SpawnSandbox(fileSystem: nil))
        #expect(host.output.split(separator: "\n").count > 1)
    }

    @Test func elfRunPathOfASwiftProgram() throws {
        // Swift programs built here load their runtime from the toolchain (RUNPATH).
        let own = linkTarget("/proc/self/exe")
        let directories = ELFRunPath.directories(of: own)
        #expect(directories.contains { $0.hasPrefix("/opt/swift") || $0.contains("/usr/lib/swift") })
        #expect(ELFRunPath.directories(of: "/bin/sh") == [])
        #expect(ELFRunPath.directories(of: "/etc/passwd") == [])
    }
}
