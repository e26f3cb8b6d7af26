import Sockets

/// Sets properties of the daemon's own unit through the service manager with
/// `systemctl set-property --runtime`: under systemd the service's cgroup is systemd's,
/// which rewrites its limits on every `daemon-reload`, so a limit written to the cgroup
/// file directly would silently vanish; one set through systemd stays.
///
/// systemctl rather than a D-Bus client of the daemon's own: it is part of every systemd
/// that runs the unit, speaks to it over its private socket (or the bus) with its own error
/// messages, and is started only at a start or reload that changes the limit, so a few
/// milliseconds of fork and exec there buy the daemon no D-Bus marshalling to keep.
public struct SystemdUnitProperties: Sendable {
    /// The unit, e.g. `extensiond.service`.
    public let unit: String

    public init(unit: String) {
        self.unit = unit
    }

    /// `MemoryHigh=` of the unit for this boot; `nil` sets it back to `infinity`.
    ///
    /// - Throws: ``SystemError`` naming the command and what systemctl said.
    public func setMemoryHigh(_ bytes: UInt64?) throws(SystemError) {
        try BoundedCommand.run("systemctl", ["set-property", "--runtime", unit, "MemoryHigh=\(bytes.map(String.init) ?? "infinity")"],
                               timeout: Self.timeout)
    }

    /// A call at start or reload waits at most this long for systemd.
    private static let timeout: Duration = .seconds(5)
}
