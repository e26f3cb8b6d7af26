import ControlProtocol
import EventLoop
import ExtensiondConfig
import WireProtocol

/// Runs the extension side of the protocol: `ready` within `start_timeout`, the
/// idle exit, and (through ``ExtensionRecord``) updates and actions.
final class ExtensionCoordinator {
    private let loop: EventLoop
    private let supervisor: ProcessSupervisor
    private let events: EventLog
    private var records: [String: ExtensionRecord] = [:]

    init(loop: EventLoop, supervisor: ProcessSupervisor, events: EventLog) {
        self.loop = loop
        self.supervisor = supervisor
        self.events = events
    }

    func record(for process: SupervisedProcess) -> ExtensionRecord {
        if let record = records[process.name] { return record }
        let record = ExtensionRecord()
        records[process.name] = record
        return record
    }

    /// A new run: `ready` must come within `start_timeout`.
    func launched(_ process: SupervisedProcess) {
        guard let spec = process.definition.extensionSpec else { return }
        record(for: process).startTimer = try? loop.addTimer(after: spec.startTimeout) { [unowned self, unowned process] in
            self.supervisor.kill(process, reason: "deadline", message: "no ready within start_timeout \(spec.startTimeout.formatted)")
        }
    }

    func received(_ message: ExtensionToSupervisor, from process: SupervisedProcess) {
        let record = record(for: process)
        switch message {
        case .ready(let ready):
            guard process.state == .starting else {
                return violation(process, "ready sent twice")
            }
            guard ready.protocol == ExtensionToSupervisor.protocolVersion else {
                return violation(process, "protocol \(ready.protocol) is not supported (this daemon speaks \(ExtensionToSupervisor.protocolVersion))")
            }
            record.startTimer = nil
            if let run = process.run { process.statistics.lastLaunchLatency = MonotonicInstant.current().since(run.launchedAt) }
            events.record(.ready, process.name, "ready after \(process.statistics.lastLaunchLatency?.formatted ?? "?")")
            becameIdle(process)
        default:
            guard process.state != .starting else {
                return violation(process, "\(message.type) before ready")
            }
        }
    }

    /// Nothing in flight: exit after `idle_exit` unless used again.
    func becameIdle(_ process: SupervisedProcess) {
        guard let spec = process.definition.extensionSpec, process.isAlive else { return }
        process.state = .idle
        process.lastUsed = loop.now
        record(for: process).idleTimer = try? loop.addTimer(after: spec.idleExit, accuracy: .milliseconds(250)) { [unowned self, unowned process] in
            self.record(for: process).idleTimer = nil
            self.supervisor.stop(process, reason: "idle")
        }
    }

    /// Serving: no idle exit while a request is in flight.
    func becameActive(_ process: SupervisedProcess) {
        process.state = .running
        process.lastUsed = loop.now
        record(for: process).idleTimer = nil
    }

    func runEnded(_ process: SupervisedProcess, reason: String) {
        guard let record = records[process.name] else { return }
        record.startTimer = nil
        record.idleTimer = nil
    }

    private func violation(_ process: SupervisedProcess, _ message: String) {
        supervisor.kill(process, reason: "protocol", message: "protocol violation: \(message)")
    }
}

/// The daemon's memory of one extension across its runs.
final class ExtensionRecord {
    var startTimer: EventSource?
    var idleTimer: EventSource?
}
