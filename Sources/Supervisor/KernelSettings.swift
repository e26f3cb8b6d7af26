import DaemonSupport
import ExtensiondConfig
import Pressure

extension Daemon {
    /// The checks of `configuration` that need the kernel rather than the parser, cheap
    /// enough for `--check-config`: whether the kernel takes `pressure.psi` from this
    /// process (without CAP_SYS_RESOURCE only windows that are a multiple of 2 s).
    ///
    /// - Throws: ``SupervisorError/pressureTrigger(setting:_:)`` naming the setting and the kernel's rule.
    public static func checkKernelSettings(_ configuration: Configuration) throws(SupervisorError) {
        if let trigger = configuration.pressure.psi { try PressureMonitor.check(trigger) }
    }
}
