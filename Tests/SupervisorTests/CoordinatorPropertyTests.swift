import EventLoop
import ExtensiondConfig
import ExtensiondPolicy
import ExtensiondTestSupport
import Testing
import WireProtocol

@testable import ExtensionCoordination

/// The coordinator itself (not only its engines) over thousands of seeded random afternoons (four hours each):
/// pulls in both modes of the widget and of two instances, waiting or not, visibility
/// changes of each, and answers that carry timelines, in virtual time. Whatever happens:
/// one update at a time per extension, no pull-started update within `pull_cooldown` of
/// the slot's previous one, scheduled refreshes within the shared budget and only of
/// slots some host shows, and every slot's versions going up by one.
@Suite struct CoordinatorPropertyTests {
    static let instances: [String?] = [nil, "oslo", "rome"]

    @Test(arguments: (1...2000).map { UInt64($0) })
    func randomTrafficKeepsTheGuarantees(seed: UInt64) throws {
        var random = SeededRandom(seed: seed &* 0x9E37_79B9_7F4A_7C15)
        let parameters = Parameters(&random)
        let harness = try CoordinatorHarness(
            [
                CoordinatorHarness.widget("w") {
                    $0.interval = parameters.interval
                    $0.minInterval = parameters.minInterval
                    $0.pullCooldown = parameters.pullCooldown
                    $0.dailyBudget = parameters.dailyBudget
                    $0.budgetBurst = parameters.budgetBurst
                }
            ], seed: seed)
        let clock = harness.clock
        var answers = 0
        harness.processes.behaviours["w"] = .init(
            updateTime: parameters.updateTime,
            answer: { update in
                answers += 1
                return Self.answer(to: update, number: answers, wallMilliseconds: clock.wallMilliseconds, timelineLength: answers % 4)
            })
        let start = clock.now
        var visibility = VisibilityHistory(start: start)

        while clock.now < start + .seconds(4 * 3600) {
            let burst = Int.random(in: 0..<4, using: &random) == 0
            clock.advance(by: .milliseconds(burst ? Int64.random(in: 100...3000, using: &random) : Int64.random(in: 1000...1_800_000, using: &random)))
            let instance = Self.instances.randomElement(using: &random)!
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<7:
                let mode: DisplayMode = Bool.random(using: &random) ? .compact : .expanded
                let waits = Bool.random(using: &random)
                try harness.coordinator.pull(
                    "w", mode: mode, maxSize: Size(width: 320, height: 160), instance: instance,
                    revalidated: waits ? nil : { _ in }
                ) { _ in }
            default:
                let shown = Bool.random(using: &random)
                // Instances nobody pulled yet have no slot: the coordinator ignores them.
                let exists = instance == nil || harness.coordinator.records["w"]?.slots.keys.contains { $0.instance == instance } == true
                harness.coordinator.setShown(shown, "w", instance: instance)
                if exists { visibility.record(shown, of: instance, at: clock.now) }
            }
        }
        clock.advance(by: .seconds(60))

        let updates = harness.processes.sent.compactMap { request -> (at: MonotonicInstant, update: SupervisorToExtension.Update)? in
            if case .update(let update) = request.message { (request.at, update) } else { nil }
        }
        #expect(updates.count > 0)
        // A queued update waits for the ones before it (at most one per slot) and a launch.
        let queueing = parameters.updateTime * 6 + .milliseconds(41)

        for (previous, next) in zip(updates, updates.dropFirst()) {
            #expect(
                next.at >= previous.at + parameters.updateTime,
                "seed \(seed): update at \(next.at) while the one sent at \(previous.at) was in flight")
        }
        let bySlot = Dictionary(grouping: updates) { SlotKey(mode: $0.update.mode, instance: $0.update.instance) }
        for (slot, sent) in bySlot {
            for (previous, next) in zip(sent, sent.dropFirst()) where next.update.reason == .pull {
                #expect(
                    next.at.since(previous.at) >= parameters.pullCooldown - queueing,
                    "seed \(seed): \(slot) pulled at \(next.at), \(next.at.since(previous.at)) after its previous update")
            }
        }
        let scheduled = updates.filter { $0.update.reason == .schedule }
        for (index, update) in scheduled.enumerated() {
            #expect(
                visibility.wasShown(update.update.instance, between: update.at.earlier(by: queueing), and: update.at),
                "seed \(seed): scheduled refresh of hidden \(update.update.instance ?? "widget") at \(update.at)")
            for later in index..<scheduled.count {
                let window = scheduled[later].at.since(update.at) + queueing
                let allowed = Double(parameters.budgetBurst) + Double(parameters.dailyBudget) * window.seconds / 86_400
                #expect(
                    Double(later - index + 1) <= allowed + 1e-9,
                    "seed \(seed): \(later - index + 1) scheduled refreshes within \(window), budget allows \(allowed)")
            }
        }
        let pushesBySlot = Dictionary(grouping: harness.pushes.map(\.snapshot)) { SlotKey(mode: $0.mode ?? .compact, instance: $0.instance) }
        for (slot, pushes) in pushesBySlot {
            for (previous, next) in zip(pushes, pushes.dropFirst()) {
                #expect(next.version == previous.version + 1, "seed \(seed): \(slot) pushed version \(previous.version) then \(next.version)")
            }
        }
    }

    /// `newData` carrying `timelineLength` entries a few minutes apart, built from the wire
    /// text as an extension would send it.
    static func answer(to update: SupervisorToExtension.Update, number: Int, wallMilliseconds: Int64, timelineLength: Int) -> ExtensionToSupervisor.Result? {
        let entries = (0..<timelineLength).map { index in
            #"{"date":"\#(rfc3339(wallMilliseconds + Int64(index + 1) * 240_000))","snapshot":{"entry":\#(index)}}"#
        }
        let line =
            #"{"type":"result","id":\#(update.id.rawValue),"result":"newData","snapshot":{"n":\#(number)},"timeline":[\#(entries.joined(separator: ","))]}"#
        guard case .result(let result) = try? ExtensionToSupervisor.decode(line: Array(line.utf8)) else {
            Issue.record("the test's own result did not decode: \(line)")
            return nil
        }
        return result
    }

    /// `2026-11-23T00:04:00.000Z` for milliseconds since the epoch (days to civil dates).
    static func rfc3339(_ milliseconds: Int64) -> String {
        let days = milliseconds / 86_400_000, inDay = milliseconds % 86_400_000
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millisecond = inDay % 1000
        let fraction = millisecond < 10 ? "00\(millisecond)" : millisecond < 100 ? "0\(millisecond)" : "\(millisecond)"
        return "\(year)-\(two(month))-\(two(day))T\(two(inDay / 3_600_000)):\(two(inDay / 60000 % 60)):\(two(inDay / 1000 % 60)).\(fraction)Z"
    }

    struct Parameters {
        var interval, minInterval, pullCooldown, updateTime: Duration
        var dailyBudget, budgetBurst: Int

        init(_ random: inout SeededRandom) {
            interval = .seconds(Int64.random(in: 60...7200, using: &random))
            minInterval = .seconds(Int64.random(in: 1...600, using: &random))
            pullCooldown = .seconds(Int64.random(in: 5...300, using: &random))
            updateTime = .milliseconds(Int64.random(in: 1...50, using: &random))
            dailyBudget = Int.random(in: 0...96, using: &random)
            budgetBurst = Int.random(in: 0...4, using: &random)
        }
    }

    /// When the test showed and hid the widget and each instance (shown until said otherwise).
    struct VisibilityHistory {
        private var changes: [String?: [(at: MonotonicInstant, shown: Bool)]] = [:]
        private let start: MonotonicInstant

        init(start: MonotonicInstant) { self.start = start }

        mutating func record(_ shown: Bool, of instance: String?, at time: MonotonicInstant) {
            changes[instance, default: []].append((time, shown))
        }

        /// Whether `instance` was shown at some instant of `[from, to]`.
        func wasShown(_ instance: String?, between from: MonotonicInstant, and to: MonotonicInstant) -> Bool {
            let history = changes[instance] ?? []
            let before = history.last { $0.at <= from }?.shown ?? true
            return before || history.contains { $0.at > from && $0.at <= to && $0.shown }
        }
    }
}

extension MonotonicInstant {
    fileprivate func earlier(by duration: Duration) -> MonotonicInstant {
        MonotonicInstant(microseconds: microseconds - UInt64(duration.wholeMicroseconds))
    }
}

extension Duration {
    fileprivate var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
