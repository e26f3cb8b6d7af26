/// Pure policies of extensiond: refresh throttling and scheduling
/// (``RefreshEngine``, ``TokenBucket``), the kill order under memory pressure
/// (``KillPolicy``, ``PressureThresholds``), and backoff (``Backoff``,
/// ``RestartPolicy``). The rules are stated in docs/POLICIES.md.
///
/// Everything here is a value driven by an injected clock (``Instant`` values
/// passed in) and random source (a `RandomNumberGenerator` passed in).
/// This module must not touch the system: no I/O, no real clocks, no processes,
/// and it depends on no other module (the daemon maps configuration onto
/// ``RefreshParameters`` and the other parameter values).
