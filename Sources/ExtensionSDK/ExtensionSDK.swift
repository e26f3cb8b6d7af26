/// The Swift SDK for extension authors: implement ``Widget`` or ``Action`` and call
/// ``ExtensionRuntime/run(_:)-(Widget)`` from `main`.
///
/// This module owns the extension side of the fd 3 protocol: the `ready` handshake, the
/// request loop and the synchronous `openURL` and shared-defaults calls. It must stay lean
/// (no Foundation, not even FoundationEssentials, no NIO, no threads, no Swift concurrency
/// or `Regex`): every widget loads what it links, and extensions run under memory limits of a
/// few MiB. Message types and framing come from WireProtocol; times are ``UnixTime``.
@_exported import WireProtocol
