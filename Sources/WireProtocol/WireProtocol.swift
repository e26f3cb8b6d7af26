/// The extension and host wire protocols: newline-delimited JSON messages.
///
/// This module owns message types and framing. It must not do I/O policy.
