import Cgroup
import ControlProtocol
import ExtensiondConfig

/// How to run one configured host, app or extension: the parts of its config the
/// supervisor needs, whatever its kind.
package struct ProcessDefinition: Equatable {
    package var kind: ProcessKind
    package var launch: LaunchSpec
    package var limits: ResourceLimits
    package var stopTimeout: Duration
    /// Started with the daemon.
    package var autostart: Bool
    /// How it is restarted when it exits on its own (hosts, and apps that autostart);
    /// `nil`: it is left `exited`.
    package var restart: RestartSettings?
    /// Set for extensions only.
    package var extensionSpec: ExtensionSpec?

    package static func host(_ spec: HostSpec) -> ProcessDefinition {
        ProcessDefinition(
            kind: .host, launch: spec.launch, limits: spec.limits, stopTimeout: spec.stopTimeout,
            autostart: spec.autostart, restart: spec.restart)
    }

    package static func app(_ spec: AppSpec) -> ProcessDefinition {
        ProcessDefinition(
            kind: .app, launch: spec.launch, limits: spec.limits, stopTimeout: spec.stopTimeout,
            autostart: spec.autostart, restart: spec.autostart ? spec.restart : nil)
    }

    package static func `extension`(_ spec: ExtensionSpec) -> ProcessDefinition {
        ProcessDefinition(
            kind: .extension, launch: spec.launch, limits: spec.limits, stopTimeout: spec.stopTimeout,
            autostart: false, restart: nil, extensionSpec: spec)
    }
}

extension ResourceLimits {
    /// The configured limits as the cgroup takes them, in bytes.
    package var cgroupLimits: CgroupLimits {
        CgroupLimits(
            memoryMax: memoryMax?.bytes, memoryHigh: memoryHigh?.bytes, memoryLow: memoryLow?.bytes, pidsMax: pidsMax,
            cpuQuota: cpuMax?.microsecondsPerPeriod.map { CgroupLimits.CPUQuota(microseconds: $0, periodMicroseconds: CPUQuota.periodMicroseconds) },
            cpuWeight: cpuWeight)
    }
}
