import ExtensiondTestSupport
import Testing

@testable import LinuxProcess

#if canImport(Glibc)
import Glibc
#endif

/// `process_mrelease` through a pidfd: what lmkd calls right after its SIGKILL.
@Suite struct MemoryReleaseTests {
    /// A child that holds 32 MiB of touched anonymous memory and says so.
    private func holder() throws -> SpawnedProcess {
        let output = DescriptorPair.socketPair()
        let child = try Spawner.spawn(
            SpawnRequest(
                executable: "/usr/bin/python3",
                arguments: ["-c", "import time\nb=bytearray(32<<20)\nprint('ok',flush=True)\ntime.sleep(60)"],
                standardOutput: output.childEnd
            ))
        output.closeChildEnd()
        #expect(output.readLines(1) == ["ok"])
        return child
    }

    @Test func aKilledProcessLosesItsMemoryInTheCall() throws {
        let child = try holder()
        defer { _ = try? child.descriptor.waitForExit() }
        try child.descriptor.send(signal: SIGKILL)
        let release = child.descriptor.releaseMemory()
        guard KernelRelease.isAtLeast(5, 15) else {
            #expect(release == .unsupported)
            return
        }
        // ESRCH only if the exit was complete before the call: the memory went with it.
        #expect(release == .released || release == .notReleased(errno: ESRCH))
        // Not reaped yet: a process that still has memory shows it here; one released
        // shows none (or no longer has the lines at all).
        if let anonymous = try? ProcessMemory.read(pid: child.pid).anonymousBytes {
            #expect(anonymous < 1 << 20)
        }
    }

    @Test func aLiveProcessKeepsItsMemory() throws {
        guard KernelRelease.isAtLeast(5, 15) else { return }
        let child = try holder()
        defer {
            try? child.descriptor.send(signal: SIGKILL)
            _ = try? child.descriptor.waitForExit()
        }
        #expect(child.descriptor.releaseMemory() == .notReleased(errno: EINVAL))
        #expect(try ProcessMemory.read(pid: child.pid).anonymousBytes >= 32 << 20)
    }

    @Test func aReapedProcessIsNotFound() throws {
        guard KernelRelease.isAtLeast(5, 15) else { return }
        let child = try holder()
        try child.descriptor.send(signal: SIGKILL)
        _ = try child.descriptor.waitForExit()
        #expect(child.descriptor.releaseMemory() == .notReleased(errno: ESRCH))
        #expect(MemoryRelease.notReleased(errno: ESRCH).description == "not released (No such process)")
    }
}
