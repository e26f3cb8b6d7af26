import Cgroup
import DaemonSupport
import EventLoop
import Systemd

/// Who may set the v2 `memory.high` of the tree's root, a backstop at the budget: the
/// throttle at `low` is on `supervised`, without the daemon, and this one holds the daemon
/// too, so it acts only once the whole tree is past the budget.
package enum RootThrottle {
    /// The root is extensiond's alone: the daemon writes `memory.high` itself.
    case cgroupFile
    /// The root is a systemd service's cgroup, whose limits systemd rewrites on every
    /// `daemon-reload`: the daemon asks systemd for the unit's `MemoryHigh=` instead.
    case systemdUnit(SystemdUnitProperties)
    /// The root is shared with other processes: a throttle there would slow them too.
    case none

    /// Whether lifting the throttle would also lift one an administrator set: a runtime
    /// `MemoryHigh=` outranks the unit's drop-ins, so only a throttle the daemon set is lifted.
    package var overridesAdministrator: Bool {
        if case .systemdUnit = self { true } else { false }
    }

    /// Sets the throttle at `bytes` (`nil` lifts it) and says how, for
    /// `supervisorctl pressure`; `nil` when there is no throttle to set.
    package func setMemoryHigh(_ bytes: UInt64?, of root: ControlGroup) throws(SupervisorError) -> String? {
        switch self {
        case .cgroupFile:
            do throws(CgroupError) { try root.setMemoryHigh(bytes) } catch { throw .cgroup(error) }
            return bytes.map { "v2 memory.high of the tree at the budget (\($0) bytes), a backstop" }
        case .systemdUnit(let unit):
            do throws(BusError) { try unit.setMemoryHigh(bytes) } catch { throw .systemd(error) }
            return bytes.map { "v2 MemoryHigh= of \(unit.unit) at the budget (\($0) bytes, set through systemd), a backstop" }
        case .none:
            return nil
        }
    }
}
