import ControlProtocol
import ExtensiondTestSupport
import Foundation
import HostProtocol
import Testing

/// A host's `open` of a widget's link against a real daemon: the URL reaches the widget's
/// own app (launched with it), never the widget, and another app's scheme is refused.
@Suite struct DeepLinkTests {
    @Test func openLaunchesTheExtensionsAppWithTheURLAndNeverTheExtension() throws {
        let daemon = try TestDaemon()
        let app = try daemon.directory.write("app.py", GroupsAndURLTests.recordingApp)
        let launches = daemon.sharedDirectory + "/launches"
        try daemon.writeConfig(
            """
            [apps.weather]
            command = ["/usr/bin/python3", "\(app)", "\(launches)"]
            url_schemes = ["weather"]

            [apps.other]
            command = ["/bin/sleep", "1000"]
            url_schemes = ["other"]

            [extensions.forecast]
            app = "weather"
            point = "widget"
            command = ["/bin/sleep", "1000"]
            """)
        try daemon.start()
        let host = try daemon.connectHost()

        let opened = try open(host, "weather://city/Paris", id: 1)
        #expect(opened == .init(id: 1, success: true))
        #expect(eventually { (try? String(contentsOfFile: launches, encoding: .utf8)) == "weather://city/Paris\n" })
        let notice = try host.receive(timeout: 5, matching: { if case .openURL = $0 { true } else { false } })
        #expect(notice == .openURL(.init(url: "weather://city/Paris", app: "weather")))

        let refusals: [(url: String, reason: String)] = [
            ("other://x", "belongs to app other, not to weather"),
            ("nobody://x", "no app handles the URL scheme 'nobody'"),
            ("no scheme", "not a URL"),
            ("weather://" + String(repeating: "x", count: 8192), "over the limit of 8192"),
        ]
        for (offset, refusal) in refusals.enumerated() {
            let id = RequestID(rawValue: UInt64(10 + offset))
            let answer = try open(host, refusal.url, id: id)
            #expect(answer.id == id && !answer.success && answer.error?.contains(refusal.reason) == true, "\(answer)")
        }
        let unknown = try open(host, "weather://x", extension: "nope", id: 20)
        #expect(!unknown.success && unknown.error?.contains("unknown extension") == true)

        // The app is running now: a second link reaches it over host.sock, and no app is launched again.
        #expect(try open(host, "weather://city/Oslo", id: 21).success)
        let events = try daemon.control(.events(LogRequest(lines: 500))).events ?? []
        #expect(!events.contains { $0.name == "forecast" }, "the extension was never launched: \(events.filter { $0.name == "forecast" })")
        #expect(events.filter { $0.name == "other" && $0.kind == .launch }.isEmpty)
        #expect(try daemon.control(.status(NameSelection(["forecast"]))).status?.first?.pid == nil)
    }

    private func open(_ host: TestHost, _ url: String, extension id: String = "forecast", id requestID: RequestID) throws
        -> SupervisorToHost.OpenResult
    {
        try host.send(.open(.init(id: requestID, extensionID: id, url: url)))
        guard case .openResult(let result) = try host.receive(matching: { $0.answerID == requestID }) else {
            throw TestSupportError("no openResult for \(requestID)")
        }
        return result
    }
}
