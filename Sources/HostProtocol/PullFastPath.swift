import JSON

/// Decodes the common shape of a `pull` without the general decoder: the daemon answers tens of
/// thousands of cached pulls per second, and the general decoder costs more than the rest
/// of a cached pull together.
///
/// It accepts only a line it understands completely: one object with the five fields of
/// every pull and any of `wait`, `instance`, `place`, `colorScheme`, `locale` and `scale`
/// (what the Today view and the SDKs send), strings without escapes, plain non-negative
/// integers. Anything else (`params`, escapes, `null`, unknown fields, values out of their
/// bounds, errors of any kind) returns `nil`, and the caller falls back to the general
/// decoder, which gives the same result or a precise error.
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
    /// protocol's examples), matched against that template: no key compared or closure
    /// called. Optional fields may follow the template's five, in any order.
    mutating func writtenPull() -> HostToSupervisor.Pull? {
        guard literal(#"{"type":"pull","id":"#), let id = requestID(),
            literal(#","extension":"#), let extensionID = plainString(),
            literal(#","mode":"#), let mode = rawString().flatMap({ DisplayMode(written: JSONScannedKey(bytes: $0)) }),
            literal(#","maxSize":{"width":"#), let width = integer(max: UInt64(Int32.max)),
            literal(#","height":"#), let height = integer(max: UInt64(Int32.max)),
            literal("}")
        else { return nil }
        let maxSize = Size(width: Int(width), height: Int(height))
        if literal("}") {
            return isAtEnd() ? HostToSupervisor.Pull(id: id, extensionID: extensionID, mode: mode, maxSize: maxSize) : nil
        }
        var optional = OptionalPullFields()
        guard literal(","), members({ key, scanner in optional.read(key, &scanner) }), isAtEnd() else { return nil }
        return optional.pull(id: id, extensionID: extensionID, mode: mode, maxSize: maxSize)
    }

    /// A `pull` read in place, its fields in any order.
    fileprivate mutating func pull() -> HostToSupervisor.Pull? {
        var isPull = false, id: RequestID?, extensionID: String?, mode: DisplayMode?, maxSize: Size?
        var optional = OptionalPullFields()
        // A value it cannot take declines the line: read on, a repeated key would replace it.
        let complete = object { key, scanner in
            switch key {
            case "type" where !isPull:
                isPull = scanner.rawString().map { "pull" ~= JSONScannedKey(bytes: $0) } ?? false
                return isPull
            case "id": return once(&id) { scanner.requestID() }
            case "extension": return once(&extensionID) { scanner.plainString() }
            case "mode": return once(&mode) { scanner.rawString().flatMap { DisplayMode(written: JSONScannedKey(bytes: $0)) } }
            case "maxSize": return once(&maxSize) { scanner.size() }
            default: return optional.read(key, &scanner)
            }
        }
        guard complete, isAtEnd(), isPull, let id, let extensionID, let mode, let maxSize else { return nil }
        return optional.pull(id: id, extensionID: extensionID, mode: mode, maxSize: maxSize)
    }
}

/// The optional fields of a `pull` the fast path takes: `params` is not one of them.
private struct OptionalPullFields {
    var wait: Bool?, instance: String?, place: String?
    var colorScheme: ColorScheme?, locale: String?, scale: Double?

    /// Reads the value of `key`; `false` for another key, a repeated one, or a value it
    /// cannot take.
    mutating func read(_ key: JSONScannedKey, _ scanner: inout JSONScanner) -> Bool {
        switch key {
        case "wait": once(&wait) { scanner.boolean() }
        case "instance": once(&instance) { scanner.identifier() }
        case "place": once(&place) { scanner.identifier() }
        case "colorScheme": once(&colorScheme) { scanner.rawString().flatMap { ColorScheme(written: JSONScannedKey(bytes: $0)) } }
        case "locale": once(&locale) { scanner.rawString().flatMap(RenderEnvironment.localeTag(_:)) }
        case "scale": once(&scale) { scanner.double().flatMap { RenderEnvironment.scales.contains($0) ? $0 : nil } }
        default: false
        }
    }

    func pull(id: RequestID, extensionID: String, mode: DisplayMode, maxSize: Size) -> HostToSupervisor.Pull {
        HostToSupervisor.Pull(
            id: id, extensionID: extensionID, mode: mode, maxSize: maxSize, wait: wait, instance: instance, place: place,
            environment: RenderEnvironment(colorScheme: colorScheme, locale: locale, scale: scale))
    }
}

/// Reads a field's value into `slot`: `false` when the field came before (a repeated key
/// declines the line) or its value cannot be taken.
private func once<Value>(_ slot: inout Value?, _ read: () -> Value?) -> Bool {
    guard slot == nil, let value = read() else { return false }
    slot = value
    return true
}

extension JSONScanner {
    /// An instance or place name: a string without escapes of at most
    /// ``WireLimits/maxIdentifierBytes``.
    fileprivate mutating func identifier() -> String? {
        rawString().flatMap { $0.count <= WireLimits.maxIdentifierBytes ? String(validUTF8: $0) : nil }
    }
}

extension ColorScheme {
    /// The scheme `name` (between quotes, not unescaped) names, without making a `String`.
    init?(written name: JSONScannedKey) {
        switch name {
        case "light": self = .light
        case "dark": self = .dark
        default: return nil
        }
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
