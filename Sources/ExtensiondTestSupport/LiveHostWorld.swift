import ControlProtocol
import Foundation
import HostProtocol

/// ``HostTestSetup/live``: a real daemon and real extension processes; the world's time is
/// real, so a wait sleeps and a condition is polled up to its deadline.
final class LiveHostWorld: HostWorld {
    let setup = HostTestSetup.live
    let daemon: TestDaemon?
    private let real: TestDaemon
    private let started = ContinuousClock.now

    init(_ extensions: [TestExtension], more: String) throws {
        real = try TestDaemon()
        daemon = real
        try real.writeConfig(TestExtension.config(extensions, more: more, scriptsIn: real.directory, shared: real.sharedDirectory))
        try real.start()
    }

    deinit { real.stop(timeout: 5) }

    func connectHost() throws -> TestHost { try real.connectHost() }

    func receive(on host: TestHost, within limit: Duration, matching: (SupervisorToHost) -> Bool) throws -> SupervisorToHost {
        try host.receive(timeout: limit.seconds, matching: matching)
    }

    func advance(by duration: Duration) { Thread.sleep(forTimeInterval: duration.seconds) }

    func until(within limit: Duration, _ condition: () throws -> Bool) throws -> Bool {
        try eventually(timeout: limit.seconds, condition)
    }

    var elapsed: Duration { ContinuousClock.now - started }

    var wallMilliseconds: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    func updates(of id: String) -> [String] {
        let text = (try? String(contentsOfFile: real.sharedDirectory + "/" + id + ".updates", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init).filter { $0 != "terminate" }
    }

    func status(_ id: String) throws -> ProcessStatus? {
        try real.control(.status(NameSelection([id]))).status?.first
    }

    func stats(_ id: String) throws -> ProcessStats? {
        try real.control(.stats(NameSelection([id]))).stats?.processes.first
    }
}

extension Duration {
    /// In seconds, for the APIs that take them as a `Double`.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
