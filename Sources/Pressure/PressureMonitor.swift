import Cgroup
import DaemonSupport
import EventLoop
import ExtensiondConfig
import ExtensiondPolicy
import LinuxProcess
import Processes

#if canImport(Glibc)
import Glibc
#endif

/// Detects memory pressure on the tree from kernel notifications registered in the
/// event loop, never by polling:
/// * the budget's watermarks: v1 usage-threshold eventfds at `pressure.low` and
///   `pressure.critical` plus `memory.pressure_level`; v2 `memory.high` of the
///   `supervised` group (every supervised process, not the daemon) where the tree reaches
///   the low watermark and a watch of its `memory.events`, plus `memory.high` of the tree's
///   root at the budget (``RootThrottle``, a backstop);
/// * `pressure.psi`: a PSI trigger on `/proc/pressure/memory` and, on v2, on the
///   tree's `memory.pressure`.
package final class PressureMonitor {
    private let loop: EventLoop
    private let tree: CgroupTree
    /// Where a throttle that cannot be set is reported (detection goes on without it).
    private let events: EventLog
    /// v2: the `memory.high` set on `supervised` and the daemon's own usage it allows for.
    private var throttle: (bytes: UInt64, daemon: UInt64)?
    /// Who sets the v2 `memory.high` of the tree's root at the budget, if anyone may.
    private let rootThrottle: RootThrottle
    /// Whether this daemon set the backstop (so that it lifts only its own).
    private var rootThrottleSet = false
    private typealias Watch = (source: CgroupEventSource, event: EventSource)
    private var watches: [Watch] = []
    /// v1: the usage threshold eventfds, at the warn watermark (fired both ways: the warning
    /// is re-armed below it), at the low watermark's re-check band and at the critical
    /// watermark, plus ``thresholdOffset``.
    private var usageThresholds: [Watch] = []
    /// The tree's unmapped page cache when the usage thresholds were set: usage counts it,
    /// the working set does not, so the thresholds sit that much above the watermarks.
    private var thresholdOffset: UInt64 = 0
    /// Called on the loop thread each time a notification fires.
    var onTrigger: ((PressureTrigger) -> Void)?
    /// The watermarks armed; `nil` without `memory_budget`.
    private(set) var watermarks: PressureWatermarks?
    /// What is armed apart from the usage thresholds.
    private var otherMechanisms: [String] = []
    /// A one-shot re-check, armed while the working set is near or past the low watermark.
    private var recheck: EventSource?
    /// Counts ``arm(_:)``s: a move of the thresholds begun before the last one is dropped.
    private var armings = 0
    /// Registers moved thresholds off the loop (`nil`: no thread could be had; they do not move).
    private let registrations: BlockingWorker?
    /// v2: the tree's `high` plus `max` events at the last `memory.events` notification.
    private var throttleEvents: UInt64?
    /// v2: `supervised`'s `memory.events`, kept open: it is read at each notification, on
    /// the way to the episode's first reading (``WorkingSetReader`` says why).
    private var eventsFile: CounterFile?

    /// What is armed, for `supervisorctl pressure`.
    var mechanisms: [String] {
        let thresholds =
            usageThresholds.isEmpty
            ? []
            : [
                "v1 usage threshold eventfds at warn, at low less its re-check band and at critical, plus the unmapped file cache (\(thresholdOffset) bytes)"
            ]
        let rechecks =
            watermarks.map { ["re-checks every \(Self.recheckInterval.formatted) while the working set is at or above \($0.thresholds.recheckBytes) bytes"] }
            ?? []
        let throttles = throttle.map {
            ["v2 memory.high of supervised at \($0.bytes) bytes (low less the daemon's own \($0.daemon) bytes)"]
        }
        return thresholds + (throttles ?? []) + otherMechanisms + rechecks
    }

    /// How soon a working set near or past the low watermark is read again: a crossing
    /// the kernel does not announce is acted on within this (plus one episode).
    static let recheckInterval: Duration = .milliseconds(10)

    /// The thresholds move only when the cache changed by more than this.
    static let thresholdSlack: UInt64 = 1 << 20

    /// v2: the throttle moves only when the daemon's own usage changed by more than this.
    /// Each 0.1 MiB it is off delays or advances the notification at `low` by a millisecond
    /// of a fast grower (bench/README.md, oom); moving it is one write.
    static let throttleSlack: UInt64 = 256 << 10

    /// v1: how far usage may drop back under a threshold the kernel saw it cross: each CPU
    /// charges a group up to 64 pages ahead (the kernel's `MEMCG_CHARGE_BATCH`) and hands
    /// them back when another group charges there.
    static let usageNoise = 64 * UInt64(sysconf(Int32(_SC_PAGESIZE))) * UInt64(max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// v1 `memory.pressure_level` that wakes the responder: any reclaim in the tree. The
    /// usage thresholds see usage with the file cache; once cache holds usage above a
    /// watermark, reclaim is what announces that the working set is growing.
    static let reclaimLevel = MemoryPressureLevel.low

    init(loop: EventLoop, tree: CgroupTree, rootThrottle: RootThrottle, events: EventLog) {
        self.loop = loop
        self.tree = tree
        self.rootThrottle = rootThrottle
        self.events = events
        registrations = try? BlockingWorker(loop: loop)
    }

    /// Replaces every notification with those `configuration` asks for. What was armed before an error
    /// stays armed (after a reload whose `pressure.psi` the kernel refuses, the watermarks
    /// still act) and is listed in ``mechanisms``.
    ///
    /// - Throws: ``SupervisorError/pressureTrigger(setting:_:)`` when the kernel refuses
    ///   `pressure.psi`; ``SupervisorError/cgroup(_:)`` when a notification cannot be set up.
    func arm(_ configuration: Configuration) throws(SupervisorError) {
        armings += 1
        throttle = nil
        watches.removeAll()
        usageThresholds.removeAll()
        otherMechanisms.removeAll()
        watermarks = configuration.supervisor.memoryBudget.map { budget in
            PressureWatermarks(
                budgetBytes: budget.bytes,
                thresholds: PressureThresholds(
                    budget: budget.bytes, warn: configuration.pressure.warn?.fraction, low: configuration.pressure.low.fraction,
                    critical: configuration.pressure.critical.fraction))
        }
        if tree.version == .v2 { shapeReclaim(configuration, warnBytes: watermarks?.thresholds.warnBytes) }
        if let watermarks {
            try watchWatermarks(watermarks.thresholds)
            if tree.version == .v2 { setRootThrottle(at: watermarks.budgetBytes) }
        } else if tree.version == .v2 {
            // A budget removed by a reload leaves no throttle behind, nor a backstop this
            // daemon set.
            try? tree.supervised?.setMemoryHigh(nil)
            if rootThrottleSet || !rootThrottle.overridesAdministrator { _ = try? rootThrottle.setMemoryHigh(nil, of: tree.root) }
            rootThrottleSet = false
        }
        if let trigger = configuration.pressure.psi { try watchStalls(trigger) }
    }

    private func watchWatermarks(_ thresholds: PressureThresholds) throws(SupervisorError) {
        let root = tree.root
        do throws(CgroupError) {
            switch tree.version {
            case .v1:
                usageThresholds = try Self.levels(thresholds, offset: 0).map { bytes throws(CgroupError) in
                    try watchSource(root.usageThreshold(bytes), .usageThreshold)
                }
                thresholdOffset = 0
                try watch(root.pressureLevel(Self.reclaimLevel), .reclaim, "v1 memory.pressure_level \(Self.reclaimLevel.rawValue) eventfd")
            case .v2:
                setThrottle(at: thresholds.lowBytes)
                eventsFile = try? CounterFile(path: eventsGroup.description + "/memory.events")
                throttleEvents = throttleEventCount()
                try watch(eventsGroup.oomEvents(), .memoryEvents, "v2 memory.events watch of supervised (the tree less the daemon)")
            }
        } catch {
            throw .cgroup(error)
        }
    }

    /// The v2 throttle where the tree reaches the low watermark: on `supervised`, at `low`
    /// less what the tree holds outside it now (``daemonUsage()``: the tree counts it, the
    /// throttle does not hold it). Without the throttle `memory.events` announces only OOM kills (the
    /// re-checks and `pressure.psi` still act), so a failure is an event and a line in
    /// ``mechanisms``, not a reason to stop.
    private func setThrottle(at lowBytes: UInt64) {
        guard let supervised = tree.supervised else { return }
        let daemon = daemonUsage() ?? 0
        let bytes = Self.throttleBytes(low: lowBytes, daemon: daemon)
        do throws(CgroupError) {
            try supervised.setMemoryHigh(bytes)
            throttle = (bytes, daemon)
        } catch {
            throttle = nil
            otherMechanisms.append("no v2 memory.high at low: \(error)")
            events.record(.error, nil, "memory.high of supervised at low (\(bytes) bytes) not set: \(error)")
        }
    }

    /// v2: the root's `memory.high` at the budget, so that the daemon (outside `supervised`)
    /// is throttled only once the whole tree is past it (docs/CONFIG.md says why there). A
    /// failure is an event and a line in ``mechanisms``: detection does not depend on it.
    private func setRootThrottle(at budgetBytes: UInt64) {
        do {
            if let mechanism = try rootThrottle.setMemoryHigh(budgetBytes, of: tree.root) { otherMechanisms.append(mechanism) }
            rootThrottleSet = true
        } catch {
            otherMechanisms.append("no v2 memory.high of the tree at the budget: \(error)")
            events.record(.error, nil, "memory.high of the tree at the budget (\(budgetBytes) bytes) not set: \(error)")
        }
    }

    /// Whether the kernel throttles `supervised` at `low` (less what the tree holds outside it).
    var throttledAtLow: Bool { throttle != nil }

    /// v2: the group whose `memory.events` announces `low`, `supervised` (the tree's root
    /// would also count the backstop's events).
    private var eventsGroup: ControlGroup { tree.supervised ?? tree.root }

    /// What the tree holds outside `supervised`: the daemon's group and what stays charged
    /// to the root itself (the daemon's pages from before it moved into `supervisor`: the
    /// kernel does not move charges with a process). `nil` when unreadable.
    private func daemonUsage() -> UInt64? {
        guard let supervised = tree.supervised, let tree = try? tree.root.memoryUsage(), let inside = try? supervised.memoryUsage() else {
            return nil
        }
        return tree > inside ? tree - inside : 0
    }

    /// `low` less the daemon's own usage (`low` itself should the daemon hold more).
    private static func throttleBytes(low: UInt64, daemon: UInt64) -> UInt64 {
        low > daemon ? low - daemon : low
    }

    /// v2: moves the throttle with the daemon's own usage once that changed by more than
    /// ``throttleSlack``; called after an episode, at each extension's `ready` and after a
    /// burst. Not while `supervised` holds more than the new throttle: a `memory.high`
    /// written below a group's usage makes the writer reclaim, and the daemon must not stall.
    func followDaemonUsage() {
        guard let throttle, let lowBytes = watermarks?.thresholds.lowBytes, let supervised = tree.supervised,
            let daemon = daemonUsage(),
            (daemon > throttle.daemon ? daemon - throttle.daemon : throttle.daemon - daemon) > Self.throttleSlack,
            let usage = try? supervised.memoryUsage(), usage < Self.throttleBytes(low: lowBytes, daemon: daemon)
        else { return }
        setThrottle(at: lowBytes)
    }

    /// v2: lets the kernel prefer extension memory before any kill is needed. The hosts'
    /// and apps' subtrees are protected from reclaim by the sum of their `memory_low`
    /// (each group gets its own at launch), and the extensions' subtree is throttled and
    /// reclaimed above the warn watermark, below `low`. A failure is an event and a line
    /// in ``mechanisms``: detection does not depend on it.
    /// Saturating: each size is at most 1 EiB, but there is no bound on how many there are.
    private static func sum(_ sizes: [UInt64]) -> UInt64 {
        sizes.reduce(0) { total, size in
            let (sum, overflow) = total.addingReportingOverflow(size)
            return overflow ? .max : sum
        }
    }

    private func shapeReclaim(_ configuration: Configuration, warnBytes: UInt64?) {
        let protections: [(CgroupKind, UInt64)] = [
            (.hosts, Self.sum(configuration.hosts.map { $0.limits.memoryLow?.bytes ?? 0 })),
            (.apps, Self.sum(configuration.apps.map { $0.limits.memoryLow?.bytes ?? 0 })),
        ]
        do throws(CgroupError) {
            for (kind, bytes) in protections {
                try tree.subtree(kind).setMemoryLow(bytes > 0 ? bytes : nil)
                if bytes > 0 { otherMechanisms.append("v2 memory.low of \(kind.rawValue) at \(bytes) bytes (their memory_low)") }
            }
            try tree.subtree(.extensions).setMemoryHigh(warnBytes)
            if let warnBytes { otherMechanisms.append("v2 memory.high of extensions at the warn watermark (\(warnBytes) bytes)") }
        } catch {
            otherMechanisms.append("no v2 reclaim shaping: \(error)")
            events.record(.error, nil, "memory.low of hosts and apps, memory.high of extensions not set: \(error)")
        }
    }

    private func watchStalls(_ trigger: PSITrigger) throws(SupervisorError) {
        let rule = Self.rule(trigger)
        do throws(CgroupError) {
            try watch(CgroupEventSource.systemMemoryPressure(rule), .stall, "PSI trigger \(trigger) on \(PressureStallAverages.systemFile)")
            if tree.version == .v2 {
                try watch(tree.root.pressureTrigger(rule), .stall, "PSI trigger \(trigger) on the tree's memory.pressure")
            }
        } catch {
            throw .pressureTrigger(setting: Self.setting(trigger), error)
        }
    }

    /// Whether the kernel takes `pressure.psi` from this process, checked by installing
    /// the trigger on `/proc/pressure/memory` and dropping it again (for `--check-config`;
    /// the subtree's trigger follows the same rules).
    ///
    /// - Throws: ``SupervisorError/pressureTrigger(setting:_:)`` naming the setting and the kernel's rule.
    package static func check(_ trigger: PSITrigger) throws(SupervisorError) {
        do throws(CgroupError) {
            _ = try CgroupEventSource.systemMemoryPressure(rule(trigger))
        } catch {
            throw .pressureTrigger(setting: setting(trigger), error)
        }
    }

    private static func rule(_ trigger: PSITrigger) -> PressureTriggerRule {
        PressureTriggerRule(trigger.kind == .full ? .full : .some, stall: trigger.stall, window: trigger.window)
    }

    private static func setting(_ trigger: PSITrigger) -> String {
        "pressure.psi = \"\(trigger)\""
    }

    /// v1: where the usage thresholds sit above the watermarks (the unmapped cache when
    /// they were set); `nil` without usage thresholds.
    var usageThresholdOffset: UInt64? { usageThresholds.isEmpty ? nil : thresholdOffset }

    /// v1: moves the usage thresholds to the watermarks plus `offset` (the unmapped cache),
    /// so that usage crosses them when the working set crosses the watermarks; `moved` is
    /// called on the loop with whether they moved (the old ones stay when the new ones cannot
    /// be set, or when the watermarks were armed anew meanwhile). The new ones are registered
    /// on a thread of their own: each registration waits for an RCU grace period, three of
    /// which would hold the loop during a pressure episode (bench/README.md, status-load).
    func moveUsageThresholds(offset: UInt64, then moved: @escaping (Bool) -> Void) {
        guard !usageThresholds.isEmpty, let thresholds = watermarks?.thresholds else { return moved(false) }
        let root = tree.root
        let levels = Self.levels(thresholds, offset: offset)
        let generation = armings
        guard let registrations else { return moved(false) }
        registrations.run({ Result { () throws(CgroupError) in try levels.map { bytes throws(CgroupError) in try root.usageThreshold(bytes) } } }) {
            [weak self] registered in
            guard let self, generation == self.armings, case .success(let sources) = registered,
                let watches = try? sources.map({ source throws(CgroupError) in try self.watchSource(source, .usageThreshold) })
            else { return moved(false) }
            self.usageThresholds = watches
            self.thresholdOffset = offset
            moved(true)
        }
    }

    /// Arms the one-shot re-check: ``onTrigger`` with ``PressureTrigger/Cause/recheck``
    /// after ``recheckInterval``.
    func armRecheck() {
        guard recheck == nil else { return }
        recheck = loop.addTimer(after: Self.recheckInterval) { [unowned self] in
            self.recheck = nil
            self.onTrigger?(PressureTrigger(cause: .recheck, time: .current()))
        }
    }

    /// The v1 usage thresholds' levels: the warn watermark, the re-check band's bottom and
    /// the critical watermark, each plus `offset`.
    private static func levels(_ thresholds: PressureThresholds, offset: UInt64) -> [UInt64] {
        [thresholds.warnBytes, thresholds.recheckBytes, thresholds.criticalBytes].map { $0.saturatingAdd(offset) }
    }

    private func watch(_ source: CgroupEventSource, _ cause: PressureTrigger.Cause, _ mechanism: String) throws(CgroupError) {
        watches.append(try watchSource(source, cause))
        otherMechanisms.append(mechanism)
    }

    private func watchSource(_ source: CgroupEventSource, _ cause: PressureTrigger.Cause) throws(CgroupError) -> Watch {
        let events: IOEvents = source.readiness == .priority ? .priority : .readable
        do {
            let event = try loop.addIO(fd: source.fileDescriptor, events: events, priority: .high) { [unowned self] _ in
                let time = MonotonicInstant.current()
                _ = try? source.acknowledge()
                self.onTrigger?(PressureTrigger(cause: cause, time: time, throttled: cause == .memoryEvents && self.throttledSinceLastEvents()))
            }
            return (source, event)
        } catch {
            throw .systemCall("watch", path: source.description, errno: error.errno)
        }
    }
}

extension PressureMonitor {
    /// Whether `supervised`'s `high` or `max` events grew since the last call (or the arming).
    fileprivate func throttledSinceLastEvents() -> Bool {
        let now = throttleEventCount()
        defer { throttleEvents = now ?? throttleEvents }
        guard let now, let before = throttleEvents else { return false }
        return now > before
    }

    /// `high` plus `max` of `supervised`'s `memory.events`; `nil` when unreadable.
    fileprivate func throttleEventCount() -> UInt64? {
        guard let text = try? eventsFile?.contents() else { return nil }
        let counts = WorkingSet.values(of: ["high", "max"], inStat: String(decoding: text, as: UTF8.self))
        guard counts.contains(where: { $0 != nil }) else { return nil }
        return (counts[0] ?? 0).saturatingAdd(counts[1] ?? 0)
    }
}

/// `memory_budget` and its watermarks.
struct PressureWatermarks {
    var budgetBytes: UInt64
    var thresholds: PressureThresholds
}
