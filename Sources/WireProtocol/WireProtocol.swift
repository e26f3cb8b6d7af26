/// The extension wire protocol of extensiond and what the host protocol shares with it:
/// newline-delimited JSON messages.
///
/// This module owns the extension socket's messages (`ExtensionToSupervisor`,
/// `SupervisorToExtension`), the types both sockets share, their exact JSON encoding, the
/// line framing (``LineFramer``), RFC 3339 times and the environment an extension is
/// started with; the host socket's messages are HostProtocol's, which extensions do not
/// link. It is shared by the daemon, the extension SDK, the CLI and hosts, so it must not
/// do I/O, keep clocks or make policy decisions: it only turns bytes into values and
/// values into bytes. The normative description is docs/PROTOCOL.md. How JSON is parsed
/// and written is the JSON module's, which this one re-exports: messages carry its
/// ``JSONValue``s, and every user of the messages codes with its ``JSONCoding``.
@_exported import JSON
