import EventLoop
import ExtensionCoordination
import ExtensiondPolicy
import Pressure
import Processes
import WireProtocol

/// The daemon's ``ExtensionProcesses``: extension runs of the ``ProcessSupervisor``,
/// found by name in the ``ProcessRegistry``.
final class SupervisedExtensions: ExtensionProcesses {
    private let supervisor: ProcessSupervisor
    private let registry: ProcessRegistry
    /// Admits launches against memory; without it every launch goes at once.
    var admission: AdmissionGate?
    /// A launch that waited for memory was refused, or failed: why.
    var onLaunchFailed: ((_ id: String, _ reason: String) -> Void)?
    /// Extensions whose launch waits for memory.
    private var waitingForMemory: Set<String> = []

    init(supervisor: ProcessSupervisor, registry: ProcessRegistry) {
        self.supervisor = supervisor
        self.registry = registry
    }

    func phase(of id: String) -> ExtensionPhase {
        if waitingForMemory.contains(id) { return .starting }
        guard let process = registry[id] else { return .notRunning }
        if supervisor.isLaunching(process) { return .starting }
        guard let run = process.run else { return .notRunning }
        if process.state == .starting { return .starting }
        if run.stopReason != nil { return .stopping }
        // Idle or running without a channel cannot be reached: as good as not ready yet.
        switch process.state {
        case .idle, .running, .suspended: return run.channel != nil ? .ready : .starting
        default: return .starting
        }
    }

    func launch(_ id: String) throws(LaunchError) {
        guard let process = registry[id] else { return }
        // Marked first: an episode with nothing to wait for decides before `admitsLaunch` returns.
        waitingForMemory.insert(id)
        if let admission, !admission.admitsLaunch(of: id, then: { [unowned self] refusal in self.admitted(process, refusal: refusal) }) { return }
        waitingForMemory.remove(id)
        try supervisor.start(process)
    }

    private func admitted(_ process: SupervisedProcess, refusal: String?) {
        waitingForMemory.remove(process.name)
        if let refusal {
            onLaunchFailed?(process.name, refusal)
            return
        }
        do {
            try supervisor.start(process)
        } catch {
            onLaunchFailed?(process.name, "launch failed: \(error)")
        }
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

    var isMemoryShort: Bool { supervisor.isMemoryShort() }

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
