/// Cgroup backends (v2 unified and v1 memory controller), chosen at run time.
///
/// This module owns creating, limiting, reading, killing and removing the cgroups
/// of extensiond's tree, and turning the kernel's memory notifications (v1
/// eventfds, v2 events files, PSI triggers) into descriptors for the event loop.
/// It must not start processes or decide whom to kill. It uses LinuxProcess
/// only for `/proc/PID/cgroup`, pidfds and the spawn placement type.
///
/// Entry points: ``CgroupTree`` (the subtree: detection, layout, stale
/// cleanup, backstop), ``ControlGroup`` (one group: limits, readings, kill,
/// notifications), ``CgroupEventSource`` (a notification descriptor).
