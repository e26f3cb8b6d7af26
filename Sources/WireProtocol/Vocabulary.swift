/// The identifier of a request that expects an answer (`update`, `begin`, `openURL`,
/// `defaults`, `pull`, `perform`, ...). Chosen by the sender, echoed in the reply.
/// A JSON integer in 0 ... 2^53 - 1, so that every language's JSON library keeps it exact.
public struct RequestID: RawRepresentable, Hashable, Comparable, Sendable, Codable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    /// The largest id: 2^53 - 1.
    public static let maximum: UInt64 = (1 << 53) - 1

    /// The id as a number.
    public var rawValue: UInt64

    /// `rawValue` must not exceed ``maximum``; larger values are clamped to it.
    public init(rawValue: UInt64) { self.rawValue = min(rawValue, Self.maximum) }
    /// An id written as a literal.
    public init(integerLiteral value: UInt64) { self.init(rawValue: value) }

    /// The id after this one, wrapping to 0 after ``maximum``.
    public var next: RequestID { RequestID(rawValue: rawValue == Self.maximum ? 0 : rawValue + 1) }

    /// The decimal number.
    public var description: String { String(rawValue) }

    /// Orders ids by their numbers.
    public static func < (lhs: RequestID, rhs: RequestID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Decodes a JSON integer in 0 ... ``maximum``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        rawValue = try container.decodeWireInteger(UInt64.self, in: 0...Self.maximum)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// How much room a host gives a widget.
public enum DisplayMode: String, WireEnum {
    case compact
    case expanded
}

/// The largest size, in pixels, a host can show a widget at.
public struct Size: Codable, Hashable, Sendable {
    /// Pixels across.
    public var width: Int
    /// Pixels down.
    public var height: Int

    /// Creates the value from its fields.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    private enum CodingKeys: String, CodingKey {
        case width, height
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        width = try container.decodeWireInteger(Int.self, forKey: .width)
        height = try container.decodeWireInteger(Int.self, forKey: .height)
    }
}

extension Size {
    /// The longest side a preferred size may name, in pixels.
    public static let largestSide = 65_535

    /// Both sides within 0...``largestSide``.
    public var isDisplayable: Bool {
        (0...Self.largestSide).contains(width) && (0...Self.largestSide).contains(height)
    }
}

/// Why an update is requested.
public enum UpdateReason: String, WireEnum, CaseIterable {
    /// A host pulled and the cached snapshot could not be served.
    case pull
    /// A scheduled background refresh.
    case schedule
    /// `supervisorctl refresh`.
    case manual
}

/// An extension's answer to an `update`, as in NCUpdateResult.
public enum UpdateOutcome: String, WireEnum {
    case newData
    case noData
    case failed
}

/// Where the snapshot a host receives comes from.
public enum SnapshotResult: String, WireEnum {
    /// A fresh update returned new data.
    case newData
    /// A fresh update returned no new data; the previous snapshot is served.
    case noData
    /// The update failed or timed out; the previous snapshot (if any) is served, stale.
    case failed
    /// Served from the cache without calling the extension.
    case cached
}

/// The operation of a shared-defaults request.
public enum DefaultsOperation: String, WireEnum {
    case get
    case set
    case remove
    case list
}

/// Why an extension process ended, as told to hosts in `extensionTerminated`.
///
/// An open set: the daemon may add reasons, so unknown values decode as they are.
public struct TerminationReason: RawRepresentable, Codable, Hashable, Sendable {
    /// The reason as it appears on the wire.
    public var rawValue: String
    /// A reason, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Decodes any string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Killed by the pressure policy (memory above `pressure.low`).
    public static let pressure = TerminationReason(rawValue: "pressure")
    /// Killed by the pressure policy above `pressure.critical`.
    public static let critical = TerminationReason(rawValue: "critical")
    /// Killed by the kernel OOM killer inside its cgroup.
    public static let oom = TerminationReason(rawValue: "oom")
    /// Did not answer an update or start within its deadline.
    public static let deadline = TerminationReason(rawValue: "deadline")
    /// Asked to exit after `idle_exit`.
    public static let idle = TerminationReason(rawValue: "idle")
    /// Broke the wire protocol.
    public static let `protocol` = TerminationReason(rawValue: "protocol")
    /// Stopped with supervisorctl.
    public static let manual = TerminationReason(rawValue: "manual")
    /// Exited on its own.
    public static let exited = TerminationReason(rawValue: "exited")
}

/// A closed set of string values on the wire whose decoding error lists the accepted values.
public protocol WireEnum: RawRepresentable<String>, CaseIterable, Codable, Hashable, Sendable {}

extension WireEnum {
    /// Decodes one of the accepted strings; the error for any other lists them.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(String.self)
        guard let value = Self(rawValue: raw) else {
            let accepted = Self.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected one of \(accepted), got \"\(raw)\"")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// What a `memoryWarning` is about.
public enum MemoryWarningLevel: String, WireEnum {
    /// The extension's own cgroup crossed its `memory_high` (also when `level` is absent).
    case high
    /// The whole tree crossed `pressure.warn`, below the watermark where kills begin.
    case warn
}
