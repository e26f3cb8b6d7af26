import JSON

/// Decodes the common shape of a `result` in place, without a tree: every update ends with
/// one. Its snapshot is copied into the form the daemon keeps and hosts get
/// (``JSONScanner/canonicalValue(into:depth:limits:)``), not decoded and encoded again.
///
/// It accepts only what it understands completely: each field at most once, `type`,
/// `result` and `error` strings without escapes, `id` a plain integer, no `timeline` or
/// `largestMode`, and a snapshot that is not an Adaptive Card (cards are checked on their
/// tree). Anything else returns `nil`, and the caller falls back to the general decoder,
/// which gives the same result or a precise error.
enum ResultFastPath {
    static func result(from line: some Collection<UInt8>) -> ExtensionToSupervisor.Result? {
        guard line.count <= JSONLimits.standard.maxBytes else { return nil }
        let decoded = line.withContiguousStorageIfAvailable { bytes -> ExtensionToSupervisor.Result? in
            var scanner = JSONScanner(bytes)
            return scanner.result()
        }
        return decoded ?? nil
    }

    /// Whether a snapshot in written form holds the string `"AdaptiveCard"` anywhere:
    /// one without it is not a card (`"type":"AdaptiveCard"`).
    static func mayBeCard(_ snapshot: [UInt8]) -> Bool {
        let name: StaticString = #""AdaptiveCard""#
        return name.withUTF8Buffer { name in
            guard snapshot.count >= name.count else { return false }
            return (0...(snapshot.count - name.count)).contains { start in
                snapshot[start] == name[0] && snapshot[start..<start + name.count].elementsEqual(name)
            }
        }
    }
}

extension JSONScanner {
    fileprivate mutating func result() -> ExtensionToSupervisor.Result? {
        var isResult = false, id: RequestID?, outcome: UpdateOutcome?, snapshot: [UInt8]?
        var reload: ReloadHint??, error: String??, preferredSize: Size??
        var ignored: [UInt8] = []
        // A value it cannot take declines the line: read on, a repeated key would replace it.
        let complete = object { key, scanner in
            switch key {
            case "type" where !isResult:
                isResult = scanner.rawString().map { "result" ~= JSONScannedKey(bytes: $0) } ?? false
                return isResult
            case "id" where id == nil:
                id = scanner.requestID()
                return id != nil
            case "result" where outcome == nil:
                outcome = scanner.plainString().flatMap(UpdateOutcome.init(rawValue:))
                return outcome != nil
            case "snapshot" where snapshot == nil:
                var bytes: [UInt8] = []
                bytes.reserveCapacity(scanner.remainingCount)
                // In a line's object: nested in one already.
                guard scanner.canonicalValue(into: &bytes, depth: 1) else { return false }
                snapshot = bytes
                return true
            case "reload" where reload == nil:
                reload = scanner.nullOr { $0.reloadHint() }
                return reload != nil
            case "error" where error == nil:
                error = scanner.nullOr { $0.plainString() }
                return error != nil
            case "preferredSize" where preferredSize == nil:
                preferredSize = scanner.nullOr { $0.size() }
                return preferredSize != nil
            case "type", "id", "result", "snapshot", "reload", "error", "preferredSize", "timeline", "largestMode":
                return false
            default:
                // Ignored, as by the general decoder, once read as strictly as it reads them.
                ignored.removeAll(keepingCapacity: true)
                return scanner.canonicalValue(into: &ignored, depth: 1)
            }
        }
        guard complete, isAtEnd(), isResult, let id, let outcome else { return nil }
        if let preferredSize = preferredSize ?? nil, !preferredSize.isDisplayable { return nil }
        var encodedSnapshot: EncodedJSON?
        if outcome == .newData {
            guard let snapshot, !ResultFastPath.mayBeCard(snapshot) else { return nil }
            encodedSnapshot = EncodedJSON(trustedBytes: snapshot)
        }
        return ExtensionToSupervisor.Result(
            id: id, result: outcome, encodedSnapshot: encodedSnapshot, reload: reload ?? nil, error: error ?? nil,
            preferredSize: preferredSize ?? nil)
    }

    /// `null` (`.some(nil)`) or what `read` reads; `nil` when neither is next.
    private mutating func nullOr<Value>(_ read: (inout JSONScanner) -> Value?) -> Value?? {
        if null() { return .some(nil) }
        guard let value = read(&self) else { return nil }
        return .some(value)
    }

    /// `"atEnd"`, `"never"` or `{"after":"<RFC 3339 time>"}`.
    private mutating func reloadHint() -> ReloadHint? {
        if next == UInt8(ascii: "{") {
            var date: UnixTime?
            let complete = object { key, scanner in
                guard case "after" = key, date == nil else { return false }
                date = scanner.plainString().flatMap(RFC3339.date(from:))
                return date != nil
            }
            guard complete, let date else { return nil }
            return .after(date)
        }
        guard let word = rawString().map(JSONScannedKey.init(bytes:)) else { return nil }
        switch word {
        case "atEnd": return .atEnd
        case "never": return .never
        default: return nil
        }
    }
}
