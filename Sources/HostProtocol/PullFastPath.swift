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
            var scanner = JSONScanner(bytes)
            return scanner.pull()
        }
        return decoded ?? nil
    }
}

/// A `pull` read in place.
extension JSONScanner {
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
                mode = scanner.plainString().flatMap(DisplayMode.init(rawValue:))
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
