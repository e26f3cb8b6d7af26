/// The extension and host wire protocols of extensiond: newline-delimited JSON messages.
///
/// This module owns the message types of both sockets (`ExtensionToSupervisor`,
/// `SupervisorToExtension`, `HostToSupervisor`, `SupervisorToHost`), their exact JSON
/// encoding, the line framing (``LineFramer``), RFC 3339 times and the environment an
/// extension is started with. It is shared by the daemon, the extension SDK, the CLI and
/// hosts, so it must not do I/O, keep clocks or make policy decisions: it only turns bytes
/// into values and values into bytes. The normative description is docs/PROTOCOL.md.
