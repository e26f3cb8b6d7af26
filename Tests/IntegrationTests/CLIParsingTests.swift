import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing
import WireProtocol

/// supervisorctl's extension commands without a daemon: usage errors (exit 2, before any
/// connection), the requests they send (to a fake control socket), and how they print
/// the answers.
@Suite struct CLIParsingTests {
    /// Malformed commands and a word their error must contain.
    static let badUsages: [(arguments: [String], names: String)] = [
        (["pull"], "<extension>"),
        (["pull", "w", "--mode", "huge"], "huge"),
        (["refresh"], "<extension>"),
        (["enable"], "<names>"),
        (["disable"], "<names>"),
        (["perform", "x"], "at least one item"),
        (["perform", "x", "public.image"], "'public.image'"),
        (["perform", "x", "public.image=/a.png", "=/b.png"], "'=/b.png'"),
        (["perform", "x", "public.image="], "'public.image='"),
        (["open"], "<url>"),
        (["defaults", "group.demo"], "<operation>"),
        (["defaults", "group.demo", "frob"], "frob"),
        (["defaults", "group.demo", "get"], "needs a KEY"),
        (["defaults", "group.demo", "remove"], "needs a KEY"),
        (["defaults", "group.demo", "get", "k", "v"], "'v'"),
        (["defaults", "group.demo", "set", "k"], "VALUE"),
        (["defaults", "group.demo", "list", "k"], "'k'"),
        (["top", "--interval", "0"], "--interval"),
        (["stats", "--bogus"], "--bogus"),
        (["tail", "-n", "0", "w"], "field lines: 0 is not in 1...10000"),
        (["tail", "w", "stdall"], "stdall"),
        (["events", "-n", "5000"], "field lines: 5000 is not in 0...1000"),
        (["signal", "FROB", "w"], "'FROB' is not a signal name"),
        (["signal", "HUP"], "<names>"),
        (["start"], "<names>"),
        (["pid", "a", "b"], "'b'"),
    ]

    @Test(arguments: badUsages)
    func badUsageExitsTwoNamingTheProblem(arguments: [String], names problem: String) throws {
        let directory = try TemporaryDirectory()
        // A socket that exists nowhere: exit 2 rather than 7 proves parsing comes first.
        let result = try runCommand(Binaries.path("supervisorctl"), ["--socket", directory.file("absent.sock")] + arguments, in: directory)
        #expect(result.exitCode == 2, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(problem), "\(arguments): \(result.stderr)")
    }

    /// Well-formed commands and the request each must send.
    static let requests: [(arguments: [String], request: ControlRequest)] = [
        (["pull", "w"], .pull(PullRequest(name: "w"))),
        (["pull", "--mode", "expanded", "w"], .pull(PullRequest(name: "w", mode: .expanded))),
        (["refresh", "w"], .refresh(NameSelection(["w"]))),
        (["enable", "a", "b"], .enable(NameSelection(["a", "b"]))),
        (["disable", "a"], .disable(NameSelection(["a"]))),
        (
            ["perform", "x", "public.image=/tmp/a.png", "public.text=/tmp/b=c.txt"],
            .perform(PerformRequest(name: "x", items: [Item(type: "public.image", path: "/tmp/a.png"), Item(type: "public.text", path: "/tmp/b=c.txt")]))
        ),
        (["open", "demo://details?from=cli"], .open(OpenRequest(url: "demo://details?from=cli"))),
        (["defaults", "g", "get", "k"], .defaults(DefaultsRequest(group: "g", operation: .get, key: "k"))),
        (["defaults", "g", "set", "k", "42"], .defaults(DefaultsRequest(group: "g", operation: .set, key: "k", value: 42))),
        (["defaults", "g", "set", "k", #"{"a":[1,true]}"#], .defaults(DefaultsRequest(group: "g", operation: .set, key: "k", value: ["a": [1, true]]))),
        (["defaults", "g", "set", "k", "hello world"], .defaults(DefaultsRequest(group: "g", operation: .set, key: "k", value: "hello world"))),
        (["defaults", "g", "remove", "k"], .defaults(DefaultsRequest(group: "g", operation: .remove, key: "k"))),
        (["defaults", "g", "list"], .defaults(DefaultsRequest(group: "g", operation: .list))),
        (["stats"], .stats(NameSelection())),
        (["stats", "a", "b"], .stats(NameSelection(["a", "b"]))),
        (["top", "a"], .stats(NameSelection(["a"]))),
        (["tail", "-100", "w", "stderr"], .tail(TailRequest(name: "w", lines: 100, stream: .stderr))),
        (["tail", "-f", "w"], .tail(TailRequest(name: "w", lines: 20, follow: true))),
        (["maintail", "-n", "5"], .maintail(LogRequest(lines: 5))),
        (["events", "-f"], .events(LogRequest(lines: 50, follow: true))),
        (["signal", "HUP", "w", "app:*"], .signal(SignalRequest(signal: "HUP", names: ["w", "app:*"]))),
        (["pid"], .pid(PidRequest())),
        (["pid", "w"], .pid(PidRequest(name: "w"))),
        (["clear", "w*"], .clear(NameSelection(["w*"]))),
        (["avail"], .avail),
        (["reread"], .reread),
        (["update"], .update),
    ]

    @Test(arguments: requests)
    func wellFormedCommandExitsSevenWithoutADaemon(arguments: [String], request _: ControlRequest) throws {
        let directory = try TemporaryDirectory()
        let socket = directory.file("absent.sock")
        let result = try runCommand(Binaries.path("supervisorctl"), ["--socket", socket] + arguments, in: directory)
        #expect(result.exitCode == 7, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(socket))
    }

    @Test(arguments: requests)
    func commandSendsItsRequest(arguments: [String], request: ControlRequest) throws {
        let (result, received) = try Self.run(arguments, answer: Self.everything)
        #expect(result.exitCode == 0, "\(arguments): \(result.stderr)")
        #expect(received == [request])
    }

    /// `status` in its plain forms is read without ArgumentParser (PlainStatus); every form
    /// sends the same request and prints the same, and the others still reach ArgumentParser.
    @Test(arguments: [
        (["status", "a", "b*"], false), (["--json", "status", "a", "b*"], true), (["status", "--json", "a", "b*"], true),
        (["status", "a", "b*", "--json"], true),
    ])
    func statusSendsItsRequestHoweverItIsWritten(arguments: [String], json: Bool) throws {
        let answer = ControlResponse(status: [ProcessStatus(name: "a", kind: .extension, state: "idle")])
        let (result, received) = try Self.run(arguments, answer: answer)
        #expect(result.exitCode == 0, "\(arguments): \(result.stderr)")
        #expect(received == [.status(NameSelection(["a", "b*"]))])
        #expect(result.stdout.hasPrefix(json ? #"{"ok":true"# : "NAME  KIND       STATE"), "\(arguments): \(result.stdout)")
    }

    @Test func statusWithAnOptionItDoesNotKnowIsAUsageError() throws {
        let directory = try TemporaryDirectory()
        let result = try runCommand(Binaries.path("supervisorctl"), ["--socket", directory.file("absent.sock"), "status", "--bogus"], in: directory)
        #expect(result.exitCode == 2 && result.stderr.contains("--bogus"), "\(result.stderr)")
    }

    @Test func pullPrintsWhereTheSnapshotCameFromThenTheSnapshot() throws {
        let (result, _) = try Self.run(["pull", "w"], answer: Self.everything)
        #expect(result.exitCode == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let facts = Dictionary(
            lines.prefix { !$0.hasPrefix("{") }.map { line in
                let colon = line.firstIndex(of: ":")!
                return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }, uniquingKeysWith: { first, _ in first })
        #expect(
            facts == [
                "extension": "com.example.w", "delivery": "coalesced", "result": "newData", "version": "4", "age": "1s",
                "stale": "yes", "error": "network down", "latency": "42µs in the daemon",
            ])
        let json = lines.drop { !$0.hasPrefix("{") }
        #expect(json.count > 2, "pretty-printed over several lines")
        let snapshot = try JSONDecoder().decode(JSONValue.self, from: Data(json.joined(separator: "\n").utf8))
        #expect(snapshot == Self.pullReport.snapshot)
    }

    @Test func pullAndStatsPrintTheDaemonsAnswerAsJSON() throws {
        let (pull, _) = try Self.run(["--json", "pull", "w"], answer: Self.everything)
        #expect(pull.stdout.split(separator: "\n").count == 1)
        #expect(try JSONDecoder().decode(ControlResponse.self, from: Data(pull.stdout.utf8)).pull == Self.pullReport)

        let (stats, _) = try Self.run(["stats", "--json"], answer: Self.everything)
        #expect(try JSONDecoder().decode(ControlResponse.self, from: Data(stats.stdout.utf8)).stats == Self.statsReport)
    }

    @Test func statsShowsARowPerProcessAndTheDaemon() throws {
        let (result, _) = try Self.run(["stats"], answer: Self.everything)
        #expect(result.exitCode == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("NAME"))
        let widget = lines[1].split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        #expect(
            widget == [
                "com.example.w", "extension", "1.5M/2M", "2M/3M", "3", "800µs/2ms", "1ms/2ms/5ms/9ms", "10/2/3", "2/1/1",
                "deadline:1", "idle:2", "44", "in", "4m0s",
            ])
        #expect(lines[2].hasPrefix("panel") && lines[2].contains("host"))
        #expect(lines[3] == "daemon: RSS 3M (anonymous 1M), CPU 120ms user + 40ms system, cgroup v1, pressure low")
    }

    @Test func topPrintsOnceWhenNotATerminal() throws {
        let (result, received) = try Self.run(["top", "--interval", "0.1"], answer: Self.everything)
        #expect(result.exitCode == 0)
        #expect(received.count == 1)
        #expect(!result.stdout.contains("\u{1B}["))
        #expect(result.stdout.contains("com.example.w") && result.stdout.contains("daemon: RSS"))
    }

    @Test(arguments: [["open", "nothing://here"], ["pull", "w"], ["defaults", "g", "list"], ["perform", "x", "a=b"]])
    func aFailedAnswerExitsOneWithTheDaemonsError(arguments: [String]) throws {
        let (result, _) = try Self.run(arguments, answer: ControlResponse.failure("no app handles the scheme \"nothing\""))
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("no app handles the scheme \"nothing\""))
    }

    @Test func messagesAndReturnedItemsArePrinted() throws {
        let (open, _) = try Self.run(["open", "demo://x"], answer: ControlResponse(message: "opened demo://x with com.example.app"))
        #expect(open.stdout == "opened demo://x with com.example.app\n")
        let items = ["public.image=/tmp/a-small.png", "public.text=resized"]
        let (perform, _) = try Self.run(["perform", "x", "public.image=/tmp/a.png"], answer: ControlResponse(lines: items))
        #expect(perform.stdout == items.joined(separator: "\n") + "\n")
    }

    // MARK: - A fake daemon

    static let pullReport = PullReport(
        extensionID: "com.example.w", result: "newData", delivery: "coalesced",
        snapshot: ["text": "07:30 · load 0.42", "count": 42, "tags": ["a", "b"]], version: 4, ageMs: 1500, stale: true,
        error: "network down", latencyUs: 42)

    static let statsReport: StatsReport = {
        var widget = ProcessStats(name: "com.example.w", kind: .extension)
        widget.rssBytes = 1536 * 1024
        widget.peakRSSBytes = 2 << 20
        widget.memoryCurrentBytes = 2 << 20
        widget.memoryPeakBytes = 3 << 20
        widget.launches = 3
        widget.launchLatencyUs = Latency(count: 3, p50: 800, p90: 1500, p99: 2000, max: 2000)
        widget.updateLatencyUs = Latency(count: 4, p50: 1000, p90: 2000, p99: 5000, max: 9000)
        (widget.pullsCached, widget.pullsCoalesced, widget.pullsUpdated) = (10, 2, 3)
        (widget.resultsNewData, widget.resultsNoData, widget.resultsFailed) = (2, 1, 1)
        widget.kills = ["idle": 2, "deadline": 1]
        widget.budgetLeft = 44
        widget.nextRefreshInMs = 240_000
        let daemon = DaemonStats(rssBytes: 3 << 20, anonymousBytes: 1 << 20, cpuUserMs: 120, cpuSystemMs: 40, cgroupBackend: "v1", pressureLevel: "low")
        return StatsReport(processes: [widget, ProcessStats(name: "panel", kind: .host)], daemon: daemon)
    }()

    /// An answer that serves every command: a message, a pull report, stats and a pid, ending any stream.
    static let everything = ControlResponse(message: "done", pull: pullReport, stats: statsReport, pid: 1234, done: true)

    /// Runs supervisorctl against a fake control socket that gives `answer` to every
    /// request; returns the result and the requests received.
    static func run(_ arguments: [String], answer: ControlResponse) throws -> (CommandResult, [ControlRequest]) {
        let directory = try TemporaryDirectory()
        let line = String(decoding: ControlCodec.line(answer).dropLast(), as: UTF8.self)
        let server = try FakeSocketServer(path: directory.file("control.sock")) { _ in [line] }
        let result = try runCommand(Binaries.path("supervisorctl"), ["--socket", server.path] + arguments, in: directory)
        server.stop()
        let requests = try server.lines.map { try ControlCodec.decode(ControlRequest.self, from: Array($0.utf8)) }
        return (result, requests)
    }
}
