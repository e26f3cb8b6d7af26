import DaemonSupport
import EventLoop
import ExtensionCoordination
import ExtensiondPolicy
import WireProtocol

/// Extension processes in virtual time for the ``ExtensionCoordinator``: a launch sends
/// `ready` after ``Behaviour/launchTime``, an update is answered after
/// ``Behaviour/updateTime`` by ``Behaviour/answer``, a stop or kill ends the run.
/// Fake because a real run needs a real clock; `.live` host tests and the integration
/// tests run real ones.
package final class SimulatedExtensions: ExtensionProcesses {
    package struct Behaviour {
        package var launchTime: Duration
        package var updateTime: Duration
        /// Never sends `ready` (for `start_timeout`).
        package var hangsAtLaunch: Bool
        /// What it sends waits in its socket until the coordinator reads pending input, as
        /// when the daemon's loop is busy past a deadline.
        package var unreadUntilAsked: Bool
        /// The answer to an update; `nil`: never answers.
        package var answer: (SupervisorToExtension.Update) -> ExtensionToSupervisor.Result? = { update in
            .init(id: update.id, result: .newData, snapshot: .object(["n": .number(Double(update.id.rawValue))]))
        }
        /// The answer to a `begin`; `nil`: never answers.
        package var complete: (SupervisorToExtension.Begin) -> ExtensionToSupervisor? = { begin in
            .complete(.init(id: begin.id, items: begin.items))
        }

        package init(
            launchTime: Duration = .milliseconds(40), updateTime: Duration = .milliseconds(100), hangsAtLaunch: Bool = false,
            unreadUntilAsked: Bool = false, answer: ((SupervisorToExtension.Update) -> ExtensionToSupervisor.Result?)? = nil,
            complete: ((SupervisorToExtension.Begin) -> ExtensionToSupervisor?)? = nil
        ) {
            self.launchTime = launchTime
            self.updateTime = updateTime
            self.hangsAtLaunch = hangsAtLaunch
            self.unreadUntilAsked = unreadUntilAsked
            if let answer { self.answer = answer }
            if let complete { self.complete = complete }
        }
    }

    /// Something the coordinator asked of a process, with the virtual time it was asked.
    package struct Request {
        package var at: MonotonicInstant
        package var id: String
        package var message: SupervisorToExtension
    }

    package unowned let clock: VirtualClock
    package weak var coordinator: ExtensionCoordinator?
    package var behaviours: [String: Behaviour] = [:]
    private var phases: [String: ExtensionPhase] = [:]
    /// Pending deliveries of the current run (dropped when it ends).
    private var deliveries: [String: [any CoordinatorTimer]] = [:]
    /// Messages sent and not read yet (``Behaviour/unreadUntilAsked``).
    private var unread: [String: [ExtensionToSupervisor]] = [:]
    /// How often the coordinator read pending input.
    package private(set) var pendingReads = 0
    package private(set) var launches: [String: Int] = [:]
    package private(set) var sent: [Request] = []
    package private(set) var kills: [(id: String, reason: StopReason)] = []
    package private(set) var stops: [(id: String, reason: StopReason, at: MonotonicInstant)] = []
    /// Whether the run is serving a request, as `status` would show.
    package private(set) var serving: [String: Bool] = [:]
    /// Every `markServing`, with its time: the quiet spells the idle timers count.
    package private(set) var servingChanges: [(at: MonotonicInstant, id: String, serving: Bool)] = []
    /// Runs frozen now: what is sent to them is not read (counted in ``sentWhileSuspended``).
    package private(set) var suspended: Set<String> = []
    package private(set) var suspensions: [(at: MonotonicInstant, id: String)] = []
    package private(set) var sentWhileSuspended = 0

    package init(clock: VirtualClock) {
        self.clock = clock
    }

    package func updates(of id: String) -> [SupervisorToExtension.Update] {
        sent.compactMap { request in
            if request.id == id, case .update(let update) = request.message { update } else { nil }
        }
    }

    package func phase(of id: String) -> ExtensionPhase { phases[id] ?? .notRunning }

    package func launch(_ id: String) {
        let behaviour = behaviours[id, default: Behaviour()]
        phases[id] = .starting
        launches[id, default: 0] += 1
        coordinator?.launched(id)
        guard !behaviour.hangsAtLaunch else { return }
        deliver(after: behaviour.launchTime, to: id, .ready(.init(protocol: ExtensionToSupervisor.protocolVersion)))
    }

    package func markReady(_ id: String) -> Duration? {
        phases[id] = .ready
        return behaviours[id, default: Behaviour()].launchTime
    }

    package func markServing(_ id: String, _ serving: Bool) {
        self.serving[id] = serving
        servingChanges.append((clock.now, id, serving))
        onServingChange?(id, serving)
    }

    /// Called from the coordinator's bookkeeping at each ``markServing(_:_:)``: what a test
    /// sees there has happened before the bookkeeping.
    package var onServingChange: ((_ id: String, _ serving: Bool) -> Void)?

    package func suspend(_ id: String) {
        guard phases[id] == .ready, serving[id] != true, suspended.insert(id).inserted else { return }
        suspensions.append((clock.now, id))
    }

    package func resume(_ id: String) {
        suspended.remove(id)
    }

    /// Memory is never short here (pressure is the real daemon's, tested there).
    package var isMemoryShort: Bool { false }

    package func send(_ message: SupervisorToExtension, to id: String) {
        guard phases[id] == .ready else { return }
        guard !suspended.contains(id) else {
            sentWhileSuspended += 1
            return
        }
        sent.append(Request(at: clock.now, id: id, message: message))
        let behaviour = behaviours[id, default: Behaviour()]
        switch message {
        case .update(let update):
            if let result = behaviour.answer(update) { deliver(after: behaviour.updateTime, to: id, .result(result)) }
        case .begin(let begin):
            if let reply = behaviour.complete(begin) { deliver(after: behaviour.updateTime, to: id, reply) }
        default:
            break
        }
    }

    package func readPending(_ id: String) {
        pendingReads += 1
        for message in unread.removeValue(forKey: id) ?? [] { coordinator?.received(message, from: id) }
    }

    package func stop(_ id: String, reason: StopReason) {
        guard let phase = phases[id], phase != .stopping else { return }
        // The supervisor thaws a frozen run so that it can take `terminate`.
        suspended.remove(id)
        stops.append((id, reason, clock.now))
        phases[id] = .stopping
        end(id, after: .milliseconds(5), reason: reason)
    }

    package func kill(_ id: String, reason: StopReason, message: String) {
        guard phases[id] != nil else { return }
        kills.append((id, reason))
        phases[id] = .stopping
        end(id, after: .milliseconds(1), reason: reason)
    }

    private func end(_ id: String, after delay: Duration, reason: StopReason) {
        deliveries[id] = [
            clock.timer(after: delay) { [unowned self] in
                self.phases[id] = nil
                self.suspended.remove(id)
                self.deliveries[id] = nil
                self.unread[id] = nil
                self.coordinator?.runEnded(id, reason: reason)
            }!
        ]
    }

    private func deliver(after delay: Duration, to id: String, _ message: ExtensionToSupervisor) {
        let unreadUntilAsked = behaviours[id, default: Behaviour()].unreadUntilAsked
        let timer = clock.timer(after: delay) { [unowned self] in
            if unreadUntilAsked {
                self.unread[id, default: []].append(message)
            } else {
                self.coordinator?.received(message, from: id)
            }
        }!
        deliveries[id, default: []].append(timer)
    }
}
