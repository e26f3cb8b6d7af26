/// Pure policies of extensiond: refresh throttling and scheduling, the kill
/// order under memory pressure, and backoff.
///
/// Everything here is a value driven by an injected clock and random source.
/// This module must not touch the system: no I/O, no real clocks, no processes.
