import Cgroup
import EventLoop
import ExtensiondConfig
import Sockets

/// Why the daemon could not start or apply a change.
public enum SupervisorError: Error, CustomStringConvertible {
    case configuration(ConfigurationErrors)
    case alreadyRunning(directory: String, pid: Int32?)
    case system(SystemError)
    case cgroup(CgroupError)
    /// The kernel refused a PSI trigger; `setting` is the config line that asked for it.
    case pressureTrigger(setting: String, CgroupError)

    public var description: String {
        switch self {
        case .configuration(let errors):
            return errors.description
        case .alreadyRunning(let directory, let pid):
            let holder = pid.map { " (pid \($0))" } ?? ""
            return "another extensiond\(holder) is already running with runtime_dir \(directory); stop it or choose another runtime_dir"
        case .system(let error):
            return error.description
        case .cgroup(let error):
            return "cgroups: \(error)"
        case .pressureTrigger(let setting, let error):
            return "\(setting): \(error)"
        }
    }
}
