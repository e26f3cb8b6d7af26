import EventLoop
import ExtensiondConfig
import ExtensiondPolicy
import ExtensiondTestSupport
import Glibc
import HostProtocol
import Logging
import Testing

@testable import DaemonSupport
@testable import ExtensionCoordination
@testable import ProcessIsolation

/// An ``ExtensionCoordinator`` on a ``VirtualClock`` and ``SimulatedExtensions``, with its
/// state in a throw-away directory, recording what hosts would receive.
final class CoordinatorHarness {
    let clock = VirtualClock()
    let processes: SimulatedExtensions
    let coordinator: ExtensionCoordinator
    let events = EventLog(logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
    private let state: TemporaryDirectory
    /// The state directory the coordinator's store writes to.
    var statePath: String { state.path }
    /// Snapshots pushed to subscribers, with when.
    private(set) var pushes: [(at: MonotonicInstant, snapshot: SupervisorToHost.Snapshot)] = []

    init(_ extensions: [ExtensionSpec], apps: [AppSpec] = [], seed: UInt64 = 1) throws {
        // On tmpfs where there is one: the records' fsyncs cost nothing there.
        state = try TemporaryDirectory(prefix: "coord", in: access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp")
        let store = ExtensionStore(stateDirectory: state.path)
        try store.createDirectories()
        clock.onLivelock = { Issue.record(Comment(rawValue: $0)) }
        processes = SimulatedExtensions(clock: clock)
        coordinator = ExtensionCoordinator(
            clock: clock, processes: processes, events: events, store: store,
            groups: GroupStore(stateDirectory: state.path, events: events, clock: clock),
            random: SeededRandom(seed: seed))
        processes.coordinator = coordinator
        coordinator.onPush = { [unowned self] _, snapshot in self.pushes.append((self.clock.now, snapshot)) }
        coordinator.configure(extensions, apps: apps)
    }

    /// A widget with the built-in settings but for `refresh`.
    static func widget(_ id: String, _ configure: (inout RefreshSettings) -> Void = { _ in }) -> ExtensionSpec {
        var spec = ExtensionSpec(id: id, app: "app", point: .widget, launch: LaunchSpec(command: ["/bin/true"]))
        configure(&spec.refresh)
        return spec
    }

    /// A pull whose answer is recorded with the virtual time it came.
    final class Pull {
        let sentAt: MonotonicInstant
        private(set) var outcome: PullOutcome?
        private(set) var answeredAt: MonotonicInstant?
        private(set) var answers = 0

        init(sentAt: MonotonicInstant) { self.sentAt = sentAt }

        var latency: Duration? { answeredAt?.since(sentAt) }

        func record(_ outcome: PullOutcome, at time: MonotonicInstant) {
            self.outcome = outcome
            answeredAt = time
            answers += 1
        }
    }

    @discardableResult
    func pull(_ id: String, mode: DisplayMode = .compact) throws -> Pull {
        let pull = Pull(sentAt: clock.now)
        try coordinator.pull(id, mode: mode, maxSize: Size(width: 320, height: 160)) { [unowned self] outcome in
            pull.record(outcome, at: self.clock.now)
        }
        return pull
    }
}
