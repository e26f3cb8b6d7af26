import ExtensiondTestSupport
import Foundation
import Testing

/// A real Prometheus server (Debian's `prometheus`) scrapes a real daemon on loopback
/// and answers a latency quantile through its HTTP API: the exposition works for the
/// program that matters, not only for the checkers.
@Suite struct PrometheusServerTests {
    @Test func prometheusScrapesTheDaemonAndAnswersTheUpdateP99() throws {
        let served = try MetricsDaemon(updates: 2)
        let directory = served.daemon.directory
        let port = try freeLoopbackPort()
        let config = try directory.write(
            "prometheus.yml",
            """
            global:
              scrape_interval: 1s
              evaluation_interval: 1s
            scrape_configs:
              - job_name: extensiond
                static_configs:
                  - targets: ["127.0.0.1:\(served.port)"]

            """)
        let prometheus = try TestProcess(
            "/usr/bin/prometheus",
            [
                "--config.file=\(config)", "--storage.tsdb.path=\(directory.file("tsdb"))",
                "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn",
            ], outputIn: directory.path, name: "prometheus")
        defer {
            prometheus.signal(SIGKILL)
            _ = prometheus.wait(timeout: 5)
        }

        #expect(eventually(timeout: 20) { (try? query(port: port, "up{job=\"extensiond\"}")) == 1 }, "\(prometheus.stderr)")
        // Updates go on while Prometheus scrapes, so that the rate over its window is not 0.
        let p99 = "histogram_quantile(0.99, sum by (le) (rate(extensiond_update_duration_seconds_bucket{name=\"test.widget\"}[5s])))"
        var answer: Double?
        #expect(
            eventually(timeout: 30) {
                try? served.update()
                answer = try? query(port: port, p99)
                return answer.map { $0.isFinite && $0 > 0 } ?? false
            }, "last answer: \(String(describing: answer))")
        // A python round trip on a loaded machine: well within the 2-minute top bucket.
        #expect((answer ?? 0) < 120)
        #expect(try query(port: port, "sum(extensiond_process_kills_total{name=\"panel\"})") == 0)
        #expect(try query(port: port, "extensiond_process_state{name=\"panel\",state=\"running\"}") == 1)
    }

    /// The single value of an instant `expression` through `/api/v1/query`.
    private func query(port: UInt16, _ expression: String) throws -> Double? {
        let encoded = expression.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let reply = try httpRequest(port: port, "GET /api/v1/query?query=\(encoded) HTTP/1.0\r\n\r\n")
        guard let start = reply.range(of: "\r\n\r\n") else { throw TestSupportError("no HTTP answer: \(reply)") }
        let body = try JSONSerialization.jsonObject(with: Data(reply[start.upperBound...].utf8)) as? [String: Any]
        guard body?["status"] as? String == "success", let data = body?["data"] as? [String: Any] else {
            throw TestSupportError("query \(expression): \(reply)")
        }
        let results = data["result"] as? [[String: Any]] ?? []
        guard results.count == 1, let value = results[0]["value"] as? [Any], let text = value.last as? String else { return nil }
        return Double(text)
    }
}
