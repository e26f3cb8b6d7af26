/// The host protocol of extensiond: the messages of `host.sock` (``HostToSupervisor``,
/// ``SupervisorToHost``), which answer belongs to which request, and the daemon's fast
/// path for cached pulls.
///
/// It is apart from WireProtocol so that extensions never link it: every SDK widget is a
/// binary of its own, and code it carries but never runs still costs memory in each one
/// (bench/widgets). Framing, shared types and the JSON coder are WireProtocol's, re-exported
/// here. Like WireProtocol it does no I/O; the normative description is docs/PROTOCOL.md §3.
@_exported import WireProtocol
