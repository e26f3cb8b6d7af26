/// Cgroup backends (v2 unified and v1 memory controller), chosen at run time.
///
/// This module owns creating, limiting, reading, killing and removing the cgroups
/// of extensiond's tree. It must not start processes or decide whom to kill.
