import CSystemd
import Glibc
import Sockets

/// Sets properties of the daemon's own unit through the service manager, as
/// `systemctl set-property --runtime` does: under systemd the service's cgroup is
/// systemd's, which rewrites its limits on every `daemon-reload`, so a limit written to
/// the cgroup file directly would silently vanish; one set through systemd stays.
public struct SystemdUnitProperties: Sendable {
    /// The unit, e.g. `extensiond.service`.
    public let unit: String

    public init(unit: String) {
        self.unit = unit
    }

    /// `MemoryHigh=` of the unit for this boot; `nil` sets it back to `infinity`.
    ///
    /// - Throws: ``SystemError`` naming the call and systemd's answer.
    public func setMemoryHigh(_ bytes: UInt64?) throws(SystemError) {
        try set("MemoryHigh", bytes ?? UInt64.max)
    }

    /// `org.freedesktop.systemd1.Manager.SetUnitProperties(unit, runtime = true, [(name, t value)])`
    /// on systemd's private socket (root only; no D-Bus broker needed), else the system bus.
    private func set(_ property: String, _ value: UInt64) throws(SystemError) {
        let operation = "SetUnitProperties \(unit) \(property)=\(value == .max ? "infinity" : "\(value)")"
        let bus = try Self.connect(operation)
        defer { sd_bus_flush_close_unref(bus) }
        var message: OpaquePointer?
        try SystemError.check(sd_bus_message_new_method_call(
            bus, &message, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
            "org.freedesktop.systemd1.Manager", "SetUnitProperties"), operation)
        defer { sd_bus_message_unref(message) }
        var runtime: Int32 = 1
        var number = value
        try SystemError.check(sd_bus_message_append_basic(message, Self.type("s"), unit), operation)
        try SystemError.check(sd_bus_message_append_basic(message, Self.type("b"), &runtime), operation)
        try SystemError.check(sd_bus_message_open_container(message, Self.type("a"), "(sv)"), operation)
        try SystemError.check(sd_bus_message_open_container(message, Self.type("r"), "sv"), operation)
        try SystemError.check(sd_bus_message_append_basic(message, Self.type("s"), property), operation)
        try SystemError.check(sd_bus_message_open_container(message, Self.type("v"), "t"), operation)
        try SystemError.check(sd_bus_message_append_basic(message, Self.type("t"), &number), operation)
        for _ in 0..<3 { try SystemError.check(sd_bus_message_close_container(message), operation) }
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let result = sd_bus_call(bus, message, Self.timeoutMicroseconds, &error, &reply)
        sd_bus_message_unref(reply)
        if result < 0 {
            let answer = error.message.map { ": " + String(cString: $0) } ?? ""
            throw SystemError(operation + answer, errno: -result)
        }
    }

    /// A call at start or reload waits at most this long for systemd.
    private static let timeoutMicroseconds: UInt64 = 5_000_000

    private static func connect(_ operation: String) throws(SystemError) -> OpaquePointer? {
        var bus: OpaquePointer?
        if sd_bus_new(&bus) >= 0, sd_bus_set_address(bus, "unix:path=/run/systemd/private") >= 0, sd_bus_start(bus) >= 0 {
            return bus
        }
        sd_bus_unref(bus)
        bus = nil
        try SystemError.check(sd_bus_open_system(&bus), operation + " (no systemd bus)")
        return bus
    }

    private static func type(_ code: Unicode.Scalar) -> CChar { CChar(UInt8(ascii: code)) }
}
