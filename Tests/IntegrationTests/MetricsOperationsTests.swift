import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// The figures an operator alerts on (ops/prometheus): exits and restarts, reloads and
/// their time, host connections, memory warnings and budgets in tokens, each at 0 from the
/// first scrape and counting what a real daemon did.
@Suite struct MetricsOperationsTests {
    /// The value of the sample `name{labels}` (the whole text before the value), or nil.
    func value(_ text: String, _ sample: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(sample + " ") }.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
    }

    @Test func exitsRestartsReloadsHostsWarningsAndBudgetsAreCounted() throws {
        let served = try MetricsDaemon(updates: 1)
        let panel = #"kind="host",name="panel""#, widget = #"kind="extension",name="test.widget""#
        var text = try served.scrape()
        for sample in [
            "extensiond_process_exits_total{\(panel)}", "extensiond_process_restarts_total{\(panel)}",
            "extensiond_reloads_total{result=\"ok\"}", "extensiond_reloads_total{result=\"failed\"}",
            "extensiond_hosts_connected", "extensiond_host_connections_total",
            "extensiond_hosts_dropped_total{reason=\"behind\"}", "extensiond_hosts_dropped_total{reason=\"limit\"}",
            "extensiond_hosts_dropped_total{reason=\"refused\"}",
            "extensiond_memory_warnings_total{\(widget),level=\"high\"}", "extensiond_memory_warnings_total{\(widget),level=\"warn\"}",
        ] {
            #expect(value(text, sample) == 0, "\(sample) at 0 from the start")
        }
        #expect(value(text, "extensiond_refresh_budget_tokens{\(widget)}").map { $0 >= 1 } == true, "the budget's capacity in tokens")
        #expect(value(text, "extensiond_reload_duration_seconds") == nil, "no reload yet")

        let host = try served.daemon.connectHost()
        #expect(eventually { (try? served.scrape()).flatMap { value($0, "extensiond_hosts_connected") } == 1 })

        #expect(try served.daemon.supervisorctl(["reload"]).exitCode == 0)
        try served.daemon.writeConfig("[hosts.panel]\ncommand = 42\n", supervisor: "metrics_listen = \"127.0.0.1:\(served.port)\"")
        #expect(try served.daemon.supervisorctl(["reload"]).exitCode != 0)

        let pid = try #require(try served.daemon.control(.status(NameSelection(["panel"]))).status?.first?.pid)
        kill(pid, SIGKILL)
        #expect(
            eventually(timeout: 10) {
                (try? served.scrape()).map { self.value($0, "extensiond_process_restarts_total{\(panel)}") == 1 } == true
            })
        text = try served.scrape()
        #expect(value(text, "extensiond_process_exits_total{\(panel)}") == 1)
        #expect(value(text, "extensiond_reloads_total{result=\"ok\"}") == 1)
        #expect(value(text, "extensiond_reloads_total{result=\"failed\"}") == 1)
        #expect(value(text, "extensiond_reload_duration_seconds").map { $0 > 0 && $0 < 10 } == true)
        #expect(value(text, "extensiond_host_connections_total") == 1)
        _ = host
    }
}
