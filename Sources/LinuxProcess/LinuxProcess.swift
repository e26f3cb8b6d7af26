/// Starting and observing Linux processes: the spawner, pidfds, /proc readers.
///
/// This module owns the system calls around a child's life. It must not decide
/// when to start or stop anything; the Supervisor does.
///
/// Entry points: ``Spawner/spawn(_:)`` with a ``SpawnRequest`` (failures are
/// ``SpawnError``s naming the step), ``ProcessDescriptor`` (pidfd: signal,
/// watch, reap), and the readers ``ProcessMemory``, ``ProcessCPUTime`` and
/// ``CgroupMembership``. The code between fork and exec is C, in CLinux.
