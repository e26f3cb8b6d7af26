/// Starting and observing Linux processes: the spawner, pidfds, /proc readers.
///
/// This module owns the system calls around a child's life. It must not decide
/// when to start or stop anything; the Supervisor does.
