import JSON

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
            var written = JSONScanner(bytes)
            if let pull = written.writtenPull() { return pull }
            var scanner = JSONScanner(bytes)
            return scanner.pull()
        }
        return decoded ?? nil
    }
}

extension JSONScanner {
    /// A `pull` with its fields in the order hosts write them (the SDK's encoder, the
    /// protocol's examples), matched against that template: no key compared or closure called.
    mutating func writtenPull() -> HostToSupervisor.Pull? {
        guard literal(#"{"type":"pull","id":"#), let id = requestID(),
            literal(#","extension":"#), let extensionID = plainString(),
            literal(#","mode":"#), let mode = rawString().flatMap({ DisplayMode(written: JSONScannedKey(bytes: $0)) }),
            literal(#","maxSize":{"width":"#), let width = integer(max: UInt64(Int32.max)),
            literal(#","height":"#), let height = integer(max: UInt64(Int32.max)),
            literal("}}"), isAtEnd()
        else { return nil }
        return HostToSupervisor.Pull(id: id, extensionID: extensionID, mode: mode, maxSize: Size(width: Int(width), height: Int(height)))
    }

    /// A `pull` read in place, its fields in any order.
    fileprivate mutating func pull() -> HostToSupervisor.Pull? {
        var isPull = false, id: RequestID?, extensionID: String?, mode: DisplayMode?, maxSize: Size?
        // A value it cannot take declines the line: read on, a repeated key would replace it.
        let complete = object { key, scanner in
            switch key {
            case "type" where !isPull:
                isPull = scanner.rawString().map { "pull" ~= JSONScannedKey(bytes: $0) } ?? false
                return isPull
            case "id" where id == nil:
                id = scanner.requestID()
                return id != nil
            case "extension" where extensionID == nil:
                extensionID = scanner.plainString()
                return extensionID != nil
            case "mode" where mode == nil:
                mode = scanner.rawString().flatMap { DisplayMode(written: JSONScannedKey(bytes: $0)) }
                return mode != nil
            case "maxSize" where maxSize == nil:
                maxSize = scanner.size()
                return maxSize != nil
            default: return false
            }
        }
        guard complete, isAtEnd(), isPull, let id, let extensionID, let mode, let maxSize else { return nil }
        return HostToSupervisor.Pull(id: id, extensionID: extensionID, mode: mode, maxSize: maxSize)
    }
}

extension DisplayMode {
    /// The mode `name` (between quotes, not unescaped) names, without making a `String`;
    /// `nil` for any other name, which the general decoder then reads.
    init?(written name: JSONScannedKey) {
        switch name {
        case "compact": self = .compact
        case "expanded": self = .expanded
        default: return nil
        }
    }
}
