import EventLoop
import ExtensionCoordination
import ExtensiondPolicy
import Processes
import WireProtocol

/// The daemon's ``ExtensionProcesses``: extension runs of the ``ProcessSupervisor``,
/// found by name in the ``ProcessRegistry``.
final class SupervisedExtensions: ExtensionProcesses {
    private let supervisor: ProcessSupervisor
    private let registry: ProcessRegistry

    init(supervisor: ProcessSupervisor, registry: ProcessRegistry) {
        self.supervisor = supervisor
        self.registry = registry
    }

    func phase(of id: String) -> ExtensionPhase {
        guard let process = registry[id], let run = process.run else { return .notRunning }
        if process.state == .starting { return .starting }
        if run.stopReason != nil { return .stopping }
        // Idle or running without a channel cannot be reached: as good as not ready yet.
        guard [.idle, .running, .suspended].contains(process.state), run.channel != nil else { return .starting }
        return .ready
    }

    func launch(_ id: String) throws(LaunchError) {
        guard let process = registry[id] else { return }
        try supervisor.start(process)
    }

    func markReady(_ id: String) -> Duration? {
        registry[id].flatMap(supervisor.markReady)
    }

    func markServing(_ id: String, _ serving: Bool) {
        guard let process = registry[id] else { return }
        supervisor.markServing(process, serving)
    }

    func send(_ message: SupervisorToExtension, to id: String) {
        registry[id]?.run?.channel?.send(message)
    }

    func readPending(_ id: String) {
        registry[id]?.run?.channel?.readPending()
    }

    func suspend(_ id: String) {
        guard let process = registry[id] else { return }
        supervisor.suspend(process)
    }

    func resume(_ id: String) {
        guard let process = registry[id] else { return }
        supervisor.resume(process)
    }

    func stop(_ id: String, reason: StopReason) {
        guard let process = registry[id] else { return }
        supervisor.stop(process, reason: reason)
    }

    func kill(_ id: String, reason: StopReason, message: String) {
        guard let process = registry[id] else { return }
        // Whatever the run sent after the reason for its kill (the rest of a read) is not acted on.
        process.run?.channel?.close()
        supervisor.kill(process, reason: reason, message: message)
    }
}
