import Cgroup
import EventLoop
import ExtensiondConfig
import ExtensiondPolicy
import ExtensiondTestSupport
import Logging
import Processes
import Testing

@testable import DaemonSupport
@testable import Pressure

/// On cgroup v2 the pressure monitor lets the kernel prefer extension memory: the hosts'
/// and apps' subtrees get the sum of their `memory_low`, the extensions' subtree a
/// `memory.high` at the warn watermark; the tree's throttle at `low` goes on `supervised`,
/// and the root, which holds the daemon too, gets only a backstop at the budget. Against a
/// fake v2 tree: these machines have no v2 memory controller (the VM test checks the real
/// one, and the unit's `MemoryHigh=` set over D-Bus).
@Suite struct ReclaimShapingTests {
    static let mebibyte: UInt64 = 1 << 20

    static func configuration(budget: UInt64?, hostLow: UInt64?, appLow: UInt64?) -> Configuration {
        var configuration = Configuration()
        configuration.supervisor.memoryBudget = budget.map(ByteSize.init)
        var host = HostSpec(id: "panel", launch: LaunchSpec(command: ["/bin/panel"]))
        host.limits.memoryLow = hostLow.map(ByteSize.init)
        var app = AppSpec(id: "app", launch: LaunchSpec(command: ["/bin/app"]))
        app.limits.memoryLow = appLow.map(ByteSize.init)
        configuration.hosts = [host]
        configuration.apps = [app]
        return configuration
    }

    /// A fake v2 tree with the root's own files (the fake makes them for children only).
    static func fakeTree() throws -> FakeCgroupTree {
        let fake = try FakeCgroupTree()
        fake.write("max\n", to: "memory.high")
        fake.write("0\n", to: "memory.current")
        fake.write("low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n", to: "memory.events")
        return fake
    }

    /// A monitor of `fake` whose root's `memory.high` `rootThrottle` sets.
    static func monitor(of fake: FakeCgroupTree, on loop: EventLoop, rootThrottle: RootThrottle = .cgroupFile) -> PressureMonitor {
        PressureMonitor(
            loop: loop, tree: CgroupTree(unifiedRoot: fake.root), rootThrottle: rootThrottle, events: EventLog(logger: Logger(label: "test")))
    }

    @Test func hostsAndAppsAreProtectedAndSupervisedThrottledAtLowLessTheDaemon() throws {
        let fake = try Self.fakeTree()
        let loop = try EventLoop()
        let monitor = Self.monitor(of: fake, on: loop)

        // Outside supervised: 2 MiB in the daemon's group and 3 MiB charged to the root
        // itself (the daemon's pages from before it moved into supervisor).
        let mebibyte = Self.mebibyte
        func holds(supervised: UInt64, outside: UInt64) {
            fake.write("\(supervised)\n", to: "supervised/memory.current")
            fake.write("\(2 * mebibyte)\n", to: "supervisor/memory.current")
            fake.write("\(supervised + outside)\n", to: "memory.current")
        }
        holds(supervised: 40 * mebibyte, outside: 5 * mebibyte)
        try monitor.arm(Self.configuration(budget: 100 * Self.mebibyte, hostLow: 32 * Self.mebibyte, appLow: 8 * Self.mebibyte))
        #expect(fake.read("supervised/hosts/memory.low") == "\(32 * Self.mebibyte)")
        #expect(fake.read("supervised/apps/memory.low") == "\(8 * Self.mebibyte)")
        let thresholds = PressureThresholds(budget: 100 * Self.mebibyte, low: 0.85, critical: 0.95)
        #expect(fake.read("supervised/extensions/memory.high") == "\(thresholds.warnBytes)")
        #expect(thresholds.warnBytes < thresholds.lowBytes)
        // The daemon's 5 MiB count against the budget but are not held by the throttle.
        #expect(fake.read("supervised/memory.high") == "\(thresholds.lowBytes - 5 * Self.mebibyte)")
        // The root, the daemon's too, only at the budget: a backstop.
        #expect(fake.read("memory.high") == "\(100 * Self.mebibyte)")
        #expect(monitor.mechanisms.contains { $0.contains("memory.high of the tree at the budget (\(100 * Self.mebibyte) bytes)") })
        #expect(monitor.throttledAtLow)
        #expect(monitor.mechanisms.contains { $0.contains("memory.low of hosts") })
        #expect(monitor.mechanisms.contains { $0.contains("memory.high of supervised at \(thresholds.lowBytes - 5 * Self.mebibyte) bytes") })

        // After a `ready`, an episode or a burst the throttle follows the daemon's usage,
        // once it moved by more than 256 KiB (0.1 MiB off is a millisecond of a fast grower).
        holds(supervised: 40 * mebibyte, outside: 5 * mebibyte + mebibyte / 8)
        monitor.followDaemonUsage()
        #expect(fake.read("supervised/memory.high") == "\(thresholds.lowBytes - 5 * Self.mebibyte)")
        holds(supervised: 40 * mebibyte, outside: 5 * mebibyte + mebibyte / 2)
        monitor.followDaemonUsage()
        #expect(fake.read("supervised/memory.high") == "\(thresholds.lowBytes - 5 * Self.mebibyte - mebibyte / 2)")
        holds(supervised: 40 * mebibyte, outside: 8 * mebibyte)
        monitor.followDaemonUsage()
        #expect(fake.read("supervised/memory.high") == "\(thresholds.lowBytes - 8 * Self.mebibyte)")
        // Not while supervised holds more than the new throttle (the write would reclaim).
        holds(supervised: thresholds.lowBytes - 9 * mebibyte, outside: 10 * mebibyte)
        monitor.followDaemonUsage()
        #expect(fake.read("supervised/memory.high") == "\(thresholds.lowBytes - 8 * Self.mebibyte)")

        // A reload without a budget or protections takes them all back.
        try monitor.arm(Self.configuration(budget: nil, hostLow: nil, appLow: nil))
        #expect(fake.read("supervised/hosts/memory.low") == "0")
        #expect(fake.read("supervised/apps/memory.low") == "0")
        #expect(fake.read("supervised/extensions/memory.high") == "max")
        #expect(fake.read("supervised/memory.high") == "max")
        #expect(fake.read("memory.high") == "max")
        #expect(!monitor.throttledAtLow)
    }

    /// A root shared with other processes gets no backstop: it would slow them too.
    @Test func aSharedRootGetsNoBackstop() throws {
        let fake = try Self.fakeTree()
        let monitor = Self.monitor(of: fake, on: try EventLoop(), rootThrottle: .none)
        try monitor.arm(Self.configuration(budget: 100 * Self.mebibyte, hostLow: nil, appLow: nil))
        #expect(fake.read("memory.high") == "max\n")
        #expect(fake.read("supervised/memory.high").flatMap { UInt64($0) } != nil, "supervised is throttled all the same")
        #expect(!monitor.mechanisms.contains { $0.contains("at the budget") })
    }

    /// `low` is announced by `supervised`'s `memory.events` (where its throttle counts `high`
    /// events), not by the root's, which would also count the backstop's.
    @Test func lowIsDetectedFromSupervisedMemoryEvents() throws {
        let fake = try Self.fakeTree()
        let loop = try EventLoop()
        let monitor = Self.monitor(of: fake, on: loop)
        var triggers: [PressureTrigger] = []
        monitor.onTrigger = { trigger in
            triggers.append(trigger)
            loop.exit()
        }
        try monitor.arm(Self.configuration(budget: 100 * Self.mebibyte, hostLow: nil, appLow: nil))
        #expect(monitor.mechanisms.contains { $0.contains("memory.events watch of supervised") })
        fake.write("low 0\nhigh 3\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n", to: "supervised/memory.events")
        let timeout = loop.addTimer(after: .seconds(5)) { loop.exit() }
        _ = try loop.run()
        _ = timeout
        let trigger = try #require(triggers.first, "no trigger from supervised/memory.events")
        #expect(trigger.cause == .memoryEvents)
        #expect(trigger.throttled, "supervised's high events grew: the kernel throttled it at low")
    }
}
