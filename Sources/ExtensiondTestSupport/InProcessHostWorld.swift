import ControlProtocol
import DaemonSupport
import EventLoop
import ExtensionCoordination
import ExtensiondConfig
import Foundation
import HostProtocol
import Hosts
import Logging
import ProcessIsolation
import WireProtocol

/// ``HostTestSetup/inProcess``: the daemon's ``ExtensionCoordinator`` and ``HostServer``,
/// wired as the daemon wires them, loaded from the same config as `.live`, serving a real
/// `host.sock` from a loop on a thread of its own (``LoopThread``). Its clock is a
/// ``VirtualClock`` and its extensions are ``SimulatedExtensions`` that answer as the
/// ``ScriptedExtension`` would (fakes: no kernel process runs in virtual time).
///
/// Time moves only when the test waits: a wait runs what is due, then jumps to the next
/// timer, until what it waits for came or its limit of virtual time passed.
package final class InProcessHostWorld: HostWorld {
    package let setup = HostTestSetup.inProcess
    package var daemon: TestDaemon? { nil }
    private let directory: TemporaryDirectory
    private let thread: LoopThread
    private let clock = VirtualClock()
    private let processes: SimulatedExtensions
    private let coordinator: ExtensionCoordinator
    private let hosts: HostServer
    private let hostSocket: String
    private let origin: MonotonicInstant
    /// Updates answered by the current run of each widget (the script's `n`), and which run.
    private var answered: [String: (run: Int, count: Int)] = [:]
    /// The clock's livelock, if any: a failure the next wait reports.
    private var livelock: String?

    init(_ extensions: [TestExtension], more: String) throws {
        directory = try TemporaryDirectory(prefix: "world")
        let state = directory.file("state"), shared = directory.file("shared")
        for path in [state, shared] { mkdir(path, 0o755) }
        try directory.write(
            "extensiond.toml",
            "[supervisor]\nruntime_dir = \"\(directory.file("run"))\"\nstate_dir = \"\(state)\"\n\n"
                + TestExtension.config(extensions, more: more, scriptsIn: directory, shared: shared))
        let configuration = try ConfigurationLoader.load(path: directory.file("extensiond.toml"))

        let loop = try EventLoop()
        thread = try LoopThread(loop: loop)
        let events = EventLog(logger: Logger(label: "in-process") { _ in SwiftLogNoOpLogHandler() })
        let store = ExtensionStore(stateDirectory: state)
        try store.createDirectories()
        processes = SimulatedExtensions(clock: clock)
        coordinator = ExtensionCoordinator(
            clock: clock, processes: processes, events: events, store: store,
            groups: GroupStore(stateDirectory: state, events: events, clock: clock))
        processes.coordinator = coordinator
        coordinator.configure(configuration.extensions, apps: configuration.apps, types: configuration.types)
        hostSocket = directory.file("host.sock")
        // Every connection is the test process: an external host (apps and extensions are
        // told apart by their cgroups, which only `.live` has).
        hosts = try HostServer(
            loop: loop, path: hostSocket, extensions: coordinator, events: events,
            openInApp: { _, app, _ throws(OpenURLError) in
                throw .launchFailed(app: app, reason: "no app runs in process (a .live test opens URLs)")
            },
            identify: { .external($0) })
        hosts.dataRoot = state + "/data"
        hosts.followCoordinator()
        hosts.configure(configuration)
        origin = clock.now
        for spec in extensions { processes.behaviours[spec.id] = try simulated(spec) }
        clock.onLivelock = { [unowned self] report in self.livelock = report }
        thread.start()
    }

    deinit {
        thread.stop { [hosts] in hosts.close() }
    }

    package func connectHost() throws -> TestHost { try TestHost(path: hostSocket) }

    /// Runs `body` on the loop whenever the coordinator marks an extension serving or not.
    package func whenServingChanges(_ body: @escaping (_ id: String, _ serving: Bool) -> Void) {
        thread.sync { processes.onServingChange = body }
    }

    package func receive(on host: TestHost, within limit: Duration, matching: (SupervisorToHost) -> Bool) throws -> SupervisorToHost {
        var message: SupervisorToHost?
        let came = try until(within: limit) {
            message = try host.take(matching: matching)
            return message != nil
        }
        guard came, let message else {
            throw TestSupportError("no matching message on host.sock within \(limit) of virtual time; got \(host.queued)")
        }
        return message
    }

    package func advance(by duration: Duration) throws {
        try settle { clock.advance(by: duration) }
    }

    /// Runs what is due, checks `condition`, and moves the clock on to the next timer while
    /// it is false and the limit is not reached.
    package func until(within limit: Duration, _ condition: () throws -> Bool) throws -> Bool {
        let end = thread.sync { clock.now + limit }
        while true {
            try settle {}
            if try condition() { return true }
            let next = thread.sync { clock.nextDeadline }
            guard let next, next <= end else {
                try settle { clock.advance(to: end) }
                return try condition()
            }
            try settle { clock.advance(to: next) }
        }
    }

    /// Runs `step` on the loop, then what is due now, twice: the second round runs after
    /// the loop read what the first made hosts send.
    private func settle(_ step: () -> Void) throws {
        thread.sync {
            step()
            clock.settle()
        }
        thread.sync { clock.settle() }
        if let livelock = thread.sync({ self.livelock }) { throw TestSupportError(livelock) }
    }

    package var elapsed: Duration { thread.sync { clock.now.since(origin) } }

    package var wallMilliseconds: Int64 { thread.sync { clock.wallMilliseconds } }

    package func updates(of id: String) -> [String] {
        thread.sync {
            processes.updates(of: id).map { update in update.reason.rawValue + (update.instance.map { " " + $0 } ?? "") }
        }
    }

    package func status(_ id: String) -> ProcessStatus? {
        thread.sync {
            guard let record = coordinator.records[id] else { return nil }
            var status = ProcessStatus(name: id, kind: .extension, state: "\(processes.phase(of: id))")
            record.annotate(&status, now: clock.now)
            return status
        }
    }

    package func stats(_ id: String) -> ProcessStats? {
        thread.sync {
            guard let record = coordinator.records[id] else { return nil }
            var stats = ProcessStats(name: id, kind: .extension)
            stats.launches = processes.launches[id] ?? 0
            record.annotate(&stats, now: clock.now)
            return stats
        }
    }

    // MARK: Simulated extensions

    /// What `widget`'s script answers, in virtual time; a behaviour not simulated is an error
    /// that names it (its test runs `.live` only).
    private func simulated(_ widget: TestExtension) throws -> SimulatedExtensions.Behaviour {
        guard [.answer, .params, .timeline, .action, .hangingAction].contains(widget.behaviour) else {
            throw TestSupportError("\(widget.behaviour) is not simulated in process: run its test .live only")
        }
        let reload: ReloadHint
        switch widget.reload {
        case "atEnd": reload = .atEnd
        case "never": reload = .never
        default: throw TestSupportError("reload \(widget.reload) is not simulated in process")
        }
        var behaviour = SimulatedExtensions.Behaviour()
        behaviour.launchTime = .zero
        behaviour.updateTime = widget.delay
        behaviour.answer = { [unowned self] update in self.answer(update, of: widget, reload: reload) }
        behaviour.complete = { begin in widget.behaviour == .hangingAction ? nil : Self.complete(begin) }
        return behaviour
    }

    /// The ``ScriptedExtension``'s action: canceled when an item's value is "cancel", else
    /// one text item per item.
    private static func complete(_ begin: SupervisorToExtension.Begin) -> ExtensionToSupervisor {
        if begin.items.contains(where: { $0.content == .value("cancel") }) {
            return .cancel(.init(id: begin.id, error: "the user canceled"))
        }
        return .complete(.init(id: begin.id, items: begin.items.map { Item(type: "public.text", value: .string("handled " + $0.type)) }))
    }

    /// The ``ScriptedExtension``'s answer: `n` counts the updates of this run; the run's
    /// number stands for its pid.
    private func answer(_ update: SupervisorToExtension.Update, of widget: TestExtension, reload: ReloadHint) -> ExtensionToSupervisor.Result {
        let run = processes.launches[widget.id] ?? 0
        let count = (answered[widget.id]?.run == run ? answered[widget.id]!.count : 0) + 1
        answered[widget.id] = (run, count)
        var result = ExtensionToSupervisor.Result(id: update.id, result: .newData, snapshot: nil, reload: reload)
        switch widget.behaviour {
        case .params:
            result.snapshot = [
                "n": .number(Double(count)), "instance": update.instance.map(JSONValue.string) ?? .null,
                "params": update.params ?? .null,
            ]
        case .timeline:
            result.snapshot = ["n": .number(Double(count)), "pid": .number(Double(run))]
            let now = UnixTime(secondsSince1970: Double(clock.wallMilliseconds) / 1000)
            result.timeline = (1...60).map { TimelineEntry(date: now + .seconds($0), snapshot: ["entry": .number(Double($0))]) }
        default:
            result.snapshot = ["n": .number(Double(count)), "pid": .number(Double(run))]
        }
        return result
    }
}
