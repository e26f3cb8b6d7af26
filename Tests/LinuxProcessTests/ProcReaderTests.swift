import ExtensiondTestSupport
import Testing

@testable import LinuxProcess

#if canImport(Glibc)
import Glibc
#endif

/// The /proc readers against this process, a child, and sample texts.
@Suite struct ProcReaderTests {
    @Test func memoryOfThisProcess() throws {
        let memory = try ProcessMemory.read()
        #expect(memory.residentBytes > 1 << 20)
        #expect(memory.anonymousBytes > 0)
        #expect(memory.anonymousBytes <= memory.residentBytes)
    }

    @Test func memoryOfAChildGrowsWithItsAllocation() throws {
        let output = DescriptorPair.socketPair()
        // Allocates and touches 16 MiB, says so, then waits.
        let child = try Spawner.spawn(
            SpawnRequest(
                executable: "/usr/bin/python3",
                arguments: ["-c", "import sys,time\nb=bytearray(16<<20)\nprint('ok',flush=True)\ntime.sleep(30)"],
                standardOutput: output.childEnd
            ))
        defer {
            try? child.descriptor.send(signal: SIGKILL)
            _ = try? child.descriptor.waitForExit()
        }
        output.closeChildEnd()
        #expect(output.readLines(1) == ["ok"])
        let memory = try ProcessMemory.read(pid: child.pid)
        #expect(memory.anonymousBytes >= 16 << 20)
        #expect(memory.residentBytes >= memory.anonymousBytes)
    }

    @Test func statusParsing() throws {
        let status = "Name:\tx\nVmRSS:\t    2048 kB\nRssAnon:\t     512 kB\nRssFile:\t1536 kB\n"
        #expect(try ProcessMemory.parse(status: status, path: "t") == ProcessMemory(residentBytes: 2 << 20, anonymousBytes: 512 << 10))
        #expect(throws: ProcessError.malformed(path: "t", expected: "VmRSS and RssAnon lines (\"VmRSS: <n> kB\")")) {
            try ProcessMemory.parse(status: "Name:\tkthreadd\n", path: "t")
        }
    }

    @Test func missingProcessIsAClearError() {
        #expect(throws: ProcessError.systemCall("read", subject: "/proc/2147483646/status", errno: ENOENT)) {
            try ProcessMemory.read(pid: 2_147_483_646)
        }
    }

    @Test func cgroupsOfThisProcess() throws {
        let memberships = try CgroupMembership.read()
        #expect(memberships.contains { $0.controllers.contains("memory") })
        #expect(memberships.allSatisfy { $0.path.hasPrefix("/") })
    }

    @Test func cgroupParsing() throws {
        let text = "4:memory:/a/b\n1:name=systemd:/\n0::/odd:name\n"
        #expect(
            try CgroupMembership.parse(text, path: "t") == [
                CgroupMembership(hierarchyID: 4, controllers: ["memory"], path: "/a/b"),
                CgroupMembership(hierarchyID: 1, controllers: ["name=systemd"], path: "/"),
                CgroupMembership(hierarchyID: 0, controllers: [], path: "/odd:name"),
            ])
        #expect(try CgroupMembership.parse(text, path: "t")[2].isUnified)
        #expect(throws: ProcessError.self) { try CgroupMembership.parse("garbage\n", path: "t") }
    }

    @Test func cpuTimeGrowsWithWork() {
        let before = ProcessCPUTime.current()
        var accumulator: UInt64 = 1
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .milliseconds(30) {
            for value in 0..<10_000 { accumulator = accumulator &* 31 &+ UInt64(value) }
        }
        let after = ProcessCPUTime.current()
        #expect(accumulator != 0)
        #expect(after.total > before.total)
        #expect(after.user >= before.user && after.system >= before.system)
    }
}

/// Kernel files of numbers kept open and re-read (`status` of many processes).
@Suite struct CounterFileTests {
    @Test func readsTheFieldAskedForEachTimeAnew() throws {
        let path = "/tmp/counter-file-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        defer { unlink(path) }
        func write(_ text: String) {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            _ = text.utf8CString.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count - 1) }
            close(fd)
        }
        write("5000 1234 300\n")
        let file = try CounterFile(path: path)
        #expect(try file.number(at: 1) == 1234)
        write("42\n")
        #expect(try file.number() == 42)
        #expect(throws: ProcessError.self) { try file.number(at: 1) }
        write("x y\n")
        #expect(throws: ProcessError.self) { try file.number() }
        #expect(throws: ProcessError.self) { try CounterFile(path: path + ".absent") }
    }

    @Test func statmAgreesWithStatusForThisProcess() throws {
        let statm = try CounterFile(path: "/proc/self/statm").number(at: 1) * ProcessMemory.pageSize
        let status = try ProcessMemory.read().residentBytes
        // Read a moment apart: equal within a few MiB of churn.
        #expect(statm > 0 && (statm > status ? statm - status : status - statm) < 8 << 20)
    }
}
