import CSystemd
import Glibc

/// Sets properties of the daemon's own unit through the service manager over D-Bus
/// (sd-bus, `SetUnitProperties` with `runtime` true, as `systemctl set-property --runtime`
/// does): under systemd the service's cgroup is systemd's, which rewrites its limits on
/// every `daemon-reload`, so a limit written to the cgroup file directly would silently
/// vanish; one set through systemd stays.
public struct SystemdUnitProperties: Sendable {
    /// The unit, e.g. `extensiond.service`.
    public let unit: String

    public init(unit: String) {
        self.unit = unit
    }

    /// `MemoryHigh=` of the unit for this boot; `nil` sets it back to `infinity`.
    ///
    /// A call at start or reload; it waits at most 5 s for systemd.
    public func setMemoryHigh(_ bytes: UInt64?) throws(BusError) {
        let bus = try connect()
        defer { ext_sd_bus_flush_close_unref(bus) }
        var message: OpaquePointer?
        try check(
            "SetUnitProperties",
            ext_sd_bus_message_new_method_call(
                bus, &message, "org.freedesktop.systemd1", "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", "SetUnitProperties"))
        defer { ext_sd_bus_message_unref(message) }
        var runtime: Int32 = 1
        var value = bytes ?? UInt64.max
        try check("SetUnitProperties", unit.withCString { ext_sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) })
        try check("SetUnitProperties", ext_sd_bus_message_append_basic(message, CChar(UInt8(ascii: "b")), &runtime))
        try check("SetUnitProperties", ext_sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "(sv)"))
        try check("SetUnitProperties", ext_sd_bus_message_open_container(message, CChar(UInt8(ascii: "r")), "sv"))
        try check("SetUnitProperties", ext_sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), "MemoryHigh"))
        try check("SetUnitProperties", ext_sd_bus_message_open_container(message, CChar(UInt8(ascii: "v")), "t"))
        try check("SetUnitProperties", ext_sd_bus_message_append_basic(message, CChar(UInt8(ascii: "t")), &value))
        for _ in 0..<3 { try check("SetUnitProperties", ext_sd_bus_message_close_container(message)) }
        var error = sd_bus_error()
        defer { ext_sd_bus_error_free(&error) }
        let status = ext_sd_bus_call(bus, message, Self.timeoutMicroseconds, &error, nil)
        guard status >= 0 else {
            throw BusError(
                operation: "SetUnitProperties(\(unit), MemoryHigh=\(bytes.map(String.init) ?? "infinity"))",
                name: error.name.map { String(cString: $0) }, message: error.message.map { String(cString: $0) }, errno: -status)
        }
    }

    private static let timeoutMicroseconds: UInt64 = 5_000_000

    /// systemd's private socket, as systemctl uses it as root (there also without
    /// dbus-daemon); else the system bus.
    private func connect() throws(BusError) -> OpaquePointer {
        var bus: OpaquePointer?
        if ext_sd_bus_new(&bus) >= 0, let direct = bus {
            if ext_sd_bus_set_address(direct, "unix:path=/run/systemd/private") >= 0, ext_sd_bus_start(direct) >= 0 { return direct }
            ext_sd_bus_flush_close_unref(direct)
        }
        bus = nil
        let status = ext_sd_bus_open_system(&bus)
        guard status >= 0, let bus else {
            throw BusError(operation: "connect to systemd (/run/systemd/private, then the system bus)", name: nil, message: nil, errno: -status)
        }
        return bus
    }

    private func check(_ operation: String, _ status: Int32) throws(BusError) {
        guard status >= 0 else { throw BusError(operation: operation, name: nil, message: nil, errno: -status) }
    }
}

/// A D-Bus call to systemd that failed: what was asked, the D-Bus error systemd answered
/// (e.g. `org.freedesktop.systemd1.NoSuchUnit`) and its message, or the errno of a call
/// that never reached it.
public struct BusError: Error, Sendable, Equatable, CustomStringConvertible {
    public let operation: String
    public let name: String?
    public let message: String?
    public let errno: Int32

    public var description: String {
        let said = [name, message].compactMap { $0 }.joined(separator: ": ")
        return "\(operation): " + (said.isEmpty ? String(cString: strerror(errno)) : said)
    }
}
