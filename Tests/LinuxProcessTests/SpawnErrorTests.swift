import LinuxProcess
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Every failure before exec comes back as a SpawnError naming the step, the
/// subject and the reason, and leaves no child behind.
@Suite struct SpawnErrorTests {
    private func spawnError(_ request: SpawnRequest) -> SpawnError? {
        do {
            let child = try Spawner.spawn(request)
            try? child.descriptor.send(signal: SIGKILL)
            _ = try? child.descriptor.waitForExit()
            return nil
        } catch {
            return error
        }
    }

    @Test func missingExecutable() throws {
        let error = try #require(spawnError(SpawnRequest(executable: "/nonexistent/extension")))
        #expect(error.step == .exec)
        #expect(error.errno == ENOENT)
        #expect(error.description == "exec /nonexistent/extension: No such file or directory")
    }

    @Test func nonExecutableFile() throws {
        var template = Array("/tmp/extensiond-spawn-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        try #require(fd >= 0)
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        close(fd)
        defer { unlink(path) }
        let error = try #require(spawnError(SpawnRequest(executable: path)))
        #expect(error.description == "exec \(path): Permission denied")
    }

    @Test func bareNameNotInPath() throws {
        let error = try #require(spawnError(SpawnRequest(executable: "no-such-extensiond-tool", environment: ["PATH": "/usr/bin:/bin"])))
        #expect(error.step == .resolveExecutable)
        #expect(error.description == "find executable no-such-extensiond-tool: not found in PATH /usr/bin:/bin")
    }

    @Test func unknownUserAndGroup() throws {
        let user = try #require(spawnError(SpawnRequest(executable: "/bin/true", user: "no-such-user-x")))
        #expect(user.description == "look up user \"no-such-user-x\": no such user")
        let group = try #require(spawnError(SpawnRequest(executable: "/bin/true", group: "no-such-group-x")))
        #expect(group.description == "look up group \"no-such-group-x\": no such group")
    }

    @Test func missingWorkingDirectory() throws {
        let error = try #require(spawnError(SpawnRequest(executable: "/bin/true", workingDirectory: "/nonexistent/dir")))
        #expect(error.description == "chdir /nonexistent/dir: No such file or directory")
    }

    @Test func unwritableCgroupTasksFile() throws {
        let error = try #require(
            spawnError(
                SpawnRequest(
                    executable: "/bin/true", cgroup: .joinBeforeExec(taskFiles: [AnchoredPath("/nonexistent/tasks")])
                )))
        #expect(error.description == "join cgroup /nonexistent/tasks: No such file or directory")
    }

    /// Opened ahead by the loop, a missing tasks file fails the join the same way.
    @Test func missingTasksFileOpenedAhead() throws {
        let error = try #require(throws: SpawnError.self) {
            _ = try OpenTaskFiles(.joinBeforeExec(taskFiles: [AnchoredPath("/nonexistent/tasks")]))
        }
        #expect(error.description == "join cgroup /nonexistent/tasks: No such file or directory")
    }

    /// A tasks file walked from an open directory is named whole in the error.
    @Test func missingTasksFileBelowAnOpenDirectory() throws {
        let directory = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(directory >= 0)
        defer { close(directory) }
        let tasks = AnchoredPath("/tmp/nonexistent-group/tasks", directory: directory, relativePath: "nonexistent-group/tasks")
        let error = try #require(spawnError(SpawnRequest(executable: "/bin/true", cgroup: .joinBeforeExec(taskFiles: [tasks]))))
        #expect(error.description == "join cgroup /tmp/nonexistent-group/tasks: No such file or directory")
    }

    @Test func missingCgroupDirectory() throws {
        let error = try #require(spawnError(SpawnRequest(executable: "/bin/true", cgroup: .cloneInto(directory: "/nonexistent/cgroup"))))
        #expect(error.description == "open cgroup /nonexistent/cgroup: No such file or directory")
    }

    @Test func argumentWithNulByte() throws {
        let error = try #require(spawnError(SpawnRequest(executable: "/bin/echo", arguments: ["a\u{0}b"])))
        #expect(error.step == .invalidArgument)
        #expect(error.description.contains("NUL"))
    }

    @Test func environmentNameWithEqualsSign() throws {
        let error = try #require(spawnError(SpawnRequest(executable: "/bin/true", environment: ["A=B": "c"])))
        #expect(error.step == .invalidArgument)
    }

    /// `=` and a combining accent are one character but two code points: the kernel splits
    /// the entry at the byte.
    @Test func environmentNameWithAnAccentedEqualsSign() throws {
        let error = try #require(spawnError(SpawnRequest(executable: "/bin/true", environment: ["A=\u{301}B": "c"])))
        #expect(error.step == .invalidArgument)
    }

    @Test func numericUserWithoutPasswdEntryNeedsAGroup() throws {
        let error = try #require(spawnError(SpawnRequest(executable: "/bin/true", user: "54321")))
        #expect(error.description == "look up group of user 54321: a numeric user without a passwd entry needs an explicit group")
    }

    /// Lowering oom_score_adj needs CAP_SYS_RESOURCE, which these machines lack.
    @Test func loweringOomScoreWithoutCapabilityNamesTheValue() throws {
        let effective = procFile("/proc/self/status").split(separator: "\n").first { $0.hasPrefix("CapEff:") }
        let capabilities = effective.flatMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) } ?? 0
        let hasSysResource = capabilities & (1 << 24) != 0
        let current = Int32(procFile("/proc/self/oom_score_adj").split(separator: "\n").first ?? "") ?? 0
        let error = spawnError(SpawnRequest(executable: "/bin/true", oomScoreAdjustment: current - 100))
        if hasSysResource {
            #expect(error == nil)
        } else {
            #expect(error?.description == "set oom_score_adj \(current - 100): Permission denied")
        }
    }
}
