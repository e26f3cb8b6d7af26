import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// `supervisor.metrics_listen`: scrapes of a real daemon over loopback, checked by the
/// tools Prometheus users run (promtool, the Python client's parser) and by the HTTP
/// rules of the endpoint.
@Suite struct MetricsTests {
    @Test func promtoolFindsNothingToComplainAbout() throws {
        let served = try MetricsDaemon(updates: 3)
        let text = try served.scrape()
        let file = try served.daemon.directory.write("scrape.prom", text)
        let check = try runCommand("/bin/sh", ["-c", "promtool check metrics < \(file)"], in: served.daemon.directory)
        #expect(check.exitCode == 0)
        #expect(check.stdout + check.stderr == "", "promtool:\n\(check.stdout)\(check.stderr)")
    }

    @Test func pythonsParserReadsEveryFamilyOnceWithItsType() throws {
        let served = try MetricsDaemon(updates: 3)
        let text = try served.scrape()
        let file = try served.daemon.directory.write("scrape.prom", text)
        let script = try served.daemon.directory.write(
            "parse.py",
            """
            import json, sys
            from prometheus_client.parser import text_string_to_metric_families
            text = open(sys.argv[1]).read()
            print(json.dumps([[f.name, f.type, len(f.samples)] for f in text_string_to_metric_families(text)]))
            """)
        let parsed = try runCommand("/usr/bin/python3", [script, file], in: served.daemon.directory)
        #expect(parsed.exitCode == 0, "\(parsed.stderr)")
        let families = try #require(try JSONSerialization.jsonObject(with: Data(parsed.stdout.utf8)) as? [[Any]])
        let types = Dictionary(families.map { ($0[0] as! String, $0[1] as! String) }, uniquingKeysWith: { first, _ in first + " (twice)" })
        #expect(types.count == families.count, "a family appears in several blocks: \(families.map { $0[0] })")

        // Every TYPE line of the text is one family of the parser, of that type (it drops
        // a counter's `_total`).
        let declared = text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ") }
        #expect(declared.count == families.count)
        for line in declared {
            let name = String(line[2]), type = String(line[3])
            let parsedName = type == "counter" && name.hasSuffix("_total") ? String(name.dropLast(6)) : name
            #expect(types[parsedName] == type, "\(name): \(types[parsedName] ?? "missing")")
        }
        for (name, type) in [
            ("extensiond_update_duration_seconds", "histogram"), ("extensiond_pull_duration_seconds", "histogram"),
            ("extensiond_launch_duration_seconds", "histogram"), ("extensiond_process_kills", "counter"),
            ("extensiond_process_state", "gauge"), ("extensiond_build_info", "gauge"), ("extensiond_process_memory_limit_bytes", "gauge"),
            ("extensiond_pressure_memory_waiting_seconds", "counter"), ("process_cpu_seconds", "counter"),
            ("process_resident_memory_bytes", "gauge"), ("process_start_time_seconds", "gauge"), ("process_open_fds", "gauge"),
        ] {
            #expect(types[name] == type, "\(name)")
        }
    }

    @Test func theFiguresSayWhatHappened() throws {
        let served = try MetricsDaemon(updates: 3)
        let text = try served.scrape()
        let widget = #"kind="extension",name="test.widget""#
        // Three updates (three pulls, one of them an update): histograms count them, and
        // the daemon's own percentiles agree with the buckets.
        #expect(text.contains("extensiond_update_duration_seconds_count{\(widget)} 3\n"))
        #expect(text.contains("extensiond_update_duration_seconds_bucket{\(widget),le=\"+Inf\"} 3\n"))
        #expect(text.contains("extensiond_pull_duration_seconds_count{\(widget)} 3\n"))
        #expect(text.contains("extensiond_pulls_total{\(widget),delivery=\"cached\"} 2\n"))
        #expect(text.contains("extensiond_launch_duration_seconds_count{\(widget)} 1\n"))
        #expect(text.contains("extensiond_pulls_total{\(widget),delivery=\"updated\"} 1\n"))
        let p99 = try #require(served.daemon.control(.stats(NameSelection(["test.widget"]))).stats?.processes.first?.updateLatencyUs?.p99)
        let buckets = series(text, "extensiond_update_duration_seconds_bucket{\(widget),le=")
        let firstFull = try #require(buckets.first { $0.value == 3 })
        #expect(Double(p99) / 1_000_000 <= Double(firstFull.label)! * 1.01, "p99 \(p99) µs, buckets \(buckets)")

        // Every kill reason is there from the start, one-hot states, the limit, the build.
        let panel = #"kind="host",name="panel""#
        for reason in ["critical", "deadline", "oom", "pressure", "protocol"] {
            #expect(text.contains("extensiond_process_kills_total{\(panel),reason=\"\(reason)\"} 0\n"), "\(reason)")
        }
        #expect(text.contains("extensiond_process_state{\(panel),state=\"running\"} 1\n"))
        #expect(
            series(text, "extensiond_process_state{\(panel),state=").map(\.value).sorted() == [0, 0, 0, 0, 0, 0, 0, 1],
            "one series per state, suspended included")
        #expect(text.contains("extensiond_process_memory_limit_bytes{\(panel)} 67108864\n"))
        #expect(text.contains("extensiond_build_info{version=\""))
        #expect(text.contains("process_open_fds "))
        let start = try #require(series(text, "process_start_time_seconds").first?.value)
        #expect(abs(start - Date().timeIntervalSince1970) < 120, "start time \(start)")
    }

    @Test func theGrafanaDashboardQueriesOnlyExposedFamilies() throws {
        let served = try MetricsDaemon(updates: 1)
        let declared = Set(try served.scrape().split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { String($0.split(separator: " ")[2]) })
        let dashboard = try String(contentsOfFile: Binaries.packageRoot() + "/docs/grafana-dashboard.json", encoding: .utf8)
        let used = Set(dashboard.matches(of: /(extensiond|process)_[a-z_]+/).map { String($0.output.0) })
        #expect(used.count > 10)
        for name in used {
            let family = ["_bucket", "_sum", "_count"].reduce(name) { $0.hasSuffix($1) ? String($0.dropLast($1.count)) : $0 }
            #expect(declared.contains(family), "the dashboard uses \(name), which is not exposed")
        }
    }

    @Test func onlyMetricsAnswersAndPeersAreBounded() throws {
        let served = try MetricsDaemon(updates: 0)
        let port = served.port
        #expect(try httpRequest(port: port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n").hasPrefix("HTTP/1.1 404"))
        #expect(try httpRequest(port: port, "GET /metricsx HTTP/1.1\r\n\r\n").hasPrefix("HTTP/1.1 404"))
        #expect(try httpRequest(port: port, "GET /metrics?x=1 HTTP/1.1\r\n\r\n").hasPrefix("HTTP/1.1 200"))
        let head = try httpRequest(port: port, "HEAD /metrics HTTP/1.1\r\n\r\n")
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n") && head.hasSuffix("\r\n\r\n"), "\(head)")
        #expect(head.contains("Content-Type: text/plain; version=0.0.4"))
        let post = try httpRequest(port: port, "POST /metrics HTTP/1.1\r\n\r\n")
        #expect(post.hasPrefix("HTTP/1.1 405") && post.contains("Allow: GET, HEAD\r\n"))
        #expect(try httpRequest(port: port, "nonsense\r\n\r\n").hasPrefix("HTTP/1.1 400"))
        #expect(try httpRequest(port: port, String(repeating: "x", count: 10_000)).hasPrefix("HTTP/1.1 431"))
        let manyHeaders = "GET /metrics HTTP/1.1\r\n" + String(repeating: "X: y\r\n", count: 65) + "\r\n"
        #expect(try httpRequest(port: port, manyHeaders).hasPrefix("HTTP/1.1 431"))
        #expect(served.daemon.process?.isRunning == true)
    }

    /// Idle and slow clients cannot deny a scrape (issue 19, case 11: 16 idle connections
    /// made every scrape get 503 for 10 s): a new connection drops the oldest idle one, one
    /// peer's flood drops its own before another's, and an idle one goes after 2 s.
    @Test func idleClientsCannotDenyAScrape() throws {
        let served = try MetricsDaemon(updates: 0)
        let port = served.port
        let scrape = "GET /metrics HTTP/1.1\r\n\r\n"
        var idle: [Int32] = []
        defer { idle.forEach { close($0) } }
        // Another peer's connections, opened first: the oldest, but within that peer's share.
        let other = try (0..<3).map { _ in try connectLoopback(port: port, from: "127.0.0.2") }
        defer { other.forEach { close($0) } }
        for round in 0..<4 {
            for _ in 0..<16 { idle.append(try connectLoopback(port: port)) }
            let answer = try httpRequest(port: port, scrape)
            #expect(answer.hasPrefix("HTTP/1.1 200"), "round \(round): \(answer.prefix(80))")
        }
        for fd in other {
            #expect(httpExchange(fd, scrape).hasPrefix("HTTP/1.1 200"), "the other peer's idle connection was dropped")
        }

        // An idle connection is closed after the request timeout (2 s).
        let lone = try connectLoopback(port: port, from: "127.0.0.3")
        defer { close(lone) }
        let opened = Date()
        #expect(httpExchange(lone, "").isEmpty)
        let waited = Date().timeIntervalSince(opened)
        #expect(waited >= 1.5 && waited < 4.5, "closed after \(waited) s")
        #expect(served.daemon.process?.isRunning == true)
    }

    @Test func anAddressInUseStopsTheStartWithItsName() throws {
        let (port, holder) = try boundLoopbackPort()
        defer { close(holder) }
        let daemon = try TestDaemon(supervisor: "metrics_listen = \"127.0.0.1:\(port)\"")
        #expect(throws: TestSupportError.self) { try daemon.start(readyTimeout: 2) }
        #expect(daemon.process?.wait(timeout: 5) == 1)
        #expect(daemon.process?.stderr.contains("127.0.0.1:\(port)") == true)
    }
}

/// A daemon serving metrics with the host `panel` (memory_max 64M) and the widget
/// `test.widget` of `test.app`, after `updates` updates of it: a pull, then refreshes.
struct MetricsDaemon {
    let daemon: TestDaemon
    let port: UInt16

    init(updates: Int) throws {
        port = try freeLoopbackPort()
        let supervisor = "metrics_listen = \"127.0.0.1:\(port)\""
        daemon = try TestDaemon(supervisor: supervisor)
        let widget = try ScriptedExtension.command(.answer, in: daemon.directory)
        try daemon.writeConfig(
            """
            [hosts.panel]
            command = ["/bin/sleep", "1000"]
            memory_max = "64M"

            [apps."\(ExtensionTestBed.app)"]
            command = ["/bin/sleep", "1000"]

            """ + ExtensionTestBed.extensionTable("test.widget", command: widget, refresh: "pull_cooldown = \"0s\""), supervisor: supervisor)
        try daemon.start()
        for _ in 0..<updates { try update() }
        #expect(eventually { (try? daemon.control(.status(NameSelection(["panel"]))).status?.first?.state) == "running" })
    }

    /// One more update of the widget: the first pull launches it and updates, later
    /// ones are served from the snapshot, so a refresh follows each; waits for the result.
    func update() throws {
        let before = try results()
        let response = try daemon.control(.pull(PullRequest(name: "test.widget")))
        guard response.pull != nil else { throw TestSupportError("pull failed: \(response.error ?? "no report")") }
        if try results() == before {
            let refresh = try daemon.control(.refresh(NameSelection(["test.widget"])))
            guard refresh.ok else { throw TestSupportError("refresh failed: \(refresh.error ?? "")") }
        }
        guard eventually(timeout: 10, { (try? results()) == before + 1 }) else { throw TestSupportError("no update result") }
    }

    private func results() throws -> Int {
        try daemon.control(.stats(NameSelection(["test.widget"]))).stats?.processes.first?.resultsNewData ?? 0
    }

    func scrape() throws -> String {
        let reply = try httpRequest(port: port, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        guard reply.hasPrefix("HTTP/1.1 200 OK\r\n"), let body = reply.range(of: "\r\n\r\n") else { throw TestSupportError("scrape: \(reply.prefix(200))") }
        return String(reply[body.upperBound...])
    }
}

/// The samples of `text` whose line starts with `prefix`, by what follows up to the closing
/// quote (the last label's value) and their values.
func series(_ text: String, _ prefix: String) -> [(label: String, value: Double)] {
    text.split(separator: "\n").filter { $0.hasPrefix(prefix) }.compactMap { line in
        let rest = line.dropFirst(prefix.count)
        let label = rest.hasPrefix("\"") ? String(rest.dropFirst().prefix { $0 != "\"" }) : ""
        return line.split(separator: " ").last.flatMap { Double($0) }.map { (label, $0) }
    }
}
