/// `/metrics`: the HTTP endpoint and the families read from the components passed in.
///
/// This module owns what is exposed and how it is served. It must not change anything it
/// reads.
import EventLoop
import HTTPServer
import PrometheusText
import Sockets

/// The optional Prometheus endpoint (`supervisor.metrics_listen`): `GET` or `HEAD`
/// `/metrics` answers with the exposition text, any other path 404, any other method
/// 405; one request per connection. The HTTP is HTTPServer's, with its default bounds:
/// at most 16 connections (8 per peer address) of 8 KiB request heads, 2 s to send the
/// request and 10 s to take the answer; a new connection drops the oldest idle one.
package final class MetricsServer {
    private var server: HTTPServer?

    package init(loop: EventLoop, address: String, render: @escaping () -> String) throws(SystemError) {
        server = try HTTPServer(loop: loop, address: address) { request, exchange in
            if request.path != "/metrics" {
                exchange.respond(status: .notFound, text: "only /metrics is served\n")
            } else if request.method == "GET" || request.method == "HEAD" {
                exchange.respond(status: .ok, type: ExpositionText.contentType, body: Array(render().utf8), omitBody: request.method == "HEAD")
            } else {
                exchange.respond(status: .methodNotAllowed, text: "only GET and HEAD\n", headers: [("Allow", "GET, HEAD")])
            }
        }
    }

    package func close() {
        server?.close()
        server = nil
    }
}
