import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// Control requests a careless or hostile client may send: each gets an answer, and
/// the daemon and what it runs survive (issue 8).
@Suite struct HostileControlTests {
    @Test(arguments: [-1, Int.min, 0])
    func tailWithANegativeOrZeroCountAnswersAndTheDaemonSurvives(_ lines: Int) throws {
        let daemon = try TestDaemon(
            config: """
                [hosts.panel]
                command = ["/bin/sh", "-c", "echo hello; exec sleep 1000"]
                autostart = true
                """)
        try daemon.start()
        #expect(try eventually { try daemon.control(.tail(TailRequest(name: "panel"))).lines?.last?.hasSuffix("hello") == true })
        let response = try daemon.control(.tail(TailRequest(name: "panel", lines: lines)))
        #expect(response.lines?.isEmpty ?? !response.ok, "\(response)")
        let follow = try daemon.control(.tail(TailRequest(name: "panel", lines: lines, follow: true)))
        #expect(follow.lines?.isEmpty ?? !follow.ok, "\(follow)")
        #expect(daemon.process?.isRunning == true)
        #expect(try daemon.control(.status(NameSelection(["panel"]))).status?.first?.state == "running")
    }

    /// Found by the fuzzer: the first byte stopped the request timer, so a request cut
    /// before its line feed (or a blank line) held its connection open forever, unanswered.
    @Test(arguments: [#"{"command":"status""#, "\n", "  \r\n", "null"])
    func aRequestThatNeverEndsIsAnsweredWhenTheRequestTimeoutPasses(_ bytes: String) throws {
        let daemon = try TestDaemon()
        try daemon.start()
        let started = ContinuousClock.now
        // The daemon's request timeout is 10 s; the answer closes the connection.
        let reply = String(decoding: try daemon.exchange(Array(bytes.utf8), timeout: 25), as: UTF8.self)
        #expect(reply.contains("no request within"), "\(reply.debugDescription) after \(ContinuousClock.now - started)")
        #expect(ContinuousClock.now - started < .seconds(24))
        #expect(try daemon.control(.status(NameSelection())).ok)
    }
}
