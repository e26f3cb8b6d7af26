/// Decodes the common shape of a `pull` without the general decoder: the daemon answers tens of
/// thousands of cached pulls per second, and the general decoder costs more than the rest
/// of a cached pull together.
///
/// It accepts only a line it understands completely: one object with exactly the five
/// fields of a pull, strings without escapes, plain non-negative integers. Anything else
/// (escapes, extra fields, errors of any kind) returns `nil`, and the caller falls back to
/// the general decoder, which gives the same result or a precise error.
enum PullFastPath {
    static func decode(_ line: some Collection<UInt8>) -> HostToSupervisor.Pull? {
        let decoded = line.withContiguousStorageIfAvailable { bytes -> HostToSupervisor.Pull? in
            var scanner = FlatJSONScanner(bytes)
            return scanner.pull()
        }
        return decoded ?? nil
    }
}

/// A forward-only reader of the few JSON constructs ``PullFastPath`` accepts.
private struct FlatJSONScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func pull() -> HostToSupervisor.Pull? {
        var isPull = false, id: UInt64?, extensionID: String?, mode: DisplayMode?, maxSize: Size?
        // A value it cannot take declines the line: read on, a repeated key would replace it.
        let complete = object { key, scanner in
            switch key {
            case "type" where !isPull:
                isPull = scanner.rawString().map { "pull" ~= ObjectKey(bytes: $0) } ?? false
                return isPull
            case "id" where id == nil:
                id = scanner.integer(max: RequestID.maximum)
                return id != nil
            case "extension" where extensionID == nil:
                extensionID = scanner.rawString().flatMap(String.init(validUTF8:))
                return extensionID != nil
            case "mode" where mode == nil:
                mode = scanner.rawString().flatMap(String.init(validUTF8:)).flatMap(DisplayMode.init(rawValue:))
                return mode != nil
            case "maxSize" where maxSize == nil:
                maxSize = scanner.size()
                return maxSize != nil
            default: return false
            }
        }
        skipWhitespace()
        guard complete, position == bytes.count, isPull, let id, let extensionID, let mode, let maxSize else { return nil }
        return HostToSupervisor.Pull(id: RequestID(rawValue: id), extensionID: extensionID, mode: mode, maxSize: maxSize)
    }

    private mutating func size() -> Size? {
        var width: UInt64?, height: UInt64?
        let complete = object { key, scanner in
            switch key {
            case "width" where width == nil:
                width = scanner.integer(max: UInt64(Int32.max))
                return width != nil
            case "height" where height == nil:
                height = scanner.integer(max: UInt64(Int32.max))
                return height != nil
            default: return false
            }
        }
        guard complete, let width, let height else { return nil }
        return Size(width: Int(width), height: Int(height))
    }

    /// Reads `{ "key": value, ... }`, letting `member` read each value; `false` when the
    /// object is not well-formed or `member` declines a key or fails to read its value.
    private mutating func object(_ member: (_ key: ObjectKey, _ scanner: inout FlatJSONScanner) -> Bool) -> Bool {
        guard consume(UInt8(ascii: "{")) else { return false }
        if consume(UInt8(ascii: "}")) { return true }
        repeat {
            guard let key = rawString().map(ObjectKey.init), consume(UInt8(ascii: ":")) else { return false }
            skipWhitespace()
            let before = position
            guard member(key, &self), position > before else { return false }
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "}"))
    }

    /// The bytes between quotes (in the line, not copied); `nil` for escapes, control
    /// characters or no string.
    private mutating func rawString() -> UnsafeBufferPointer<UInt8>? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return UnsafeBufferPointer(rebasing: bytes[start..<position - 1])
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            position += 1
        }
        return nil
    }

    /// A JSON integer without sign, fraction or exponent, at most `max`.
    private mutating func integer(max: UInt64) -> UInt64? {
        let start = position
        var value: UInt64 = 0
        while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
            guard position - start < 16 else { return nil }
            value = value * 10 + UInt64(bytes[position] - UInt8(ascii: "0"))
            position += 1
        }
        let digits = position - start
        guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0"), value <= max else { return nil }
        if position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        return value
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    private mutating func skipWhitespace() {
        position = JSONWhitespace.end(in: bytes, from: position)
    }
}

/// An object key, compared against the names a pull may have without copying it.
private struct ObjectKey {
    let bytes: UnsafeBufferPointer<UInt8>

    /// Lets `switch` match a key against string literals; lengths first, as most differ.
    static func ~= (name: StaticString, key: ObjectKey) -> Bool {
        name.utf8CodeUnitCount == key.bytes.count
            && name.withUTF8Buffer { name in name.indices.allSatisfy { name[$0] == key.bytes[$0] } }
    }
}
