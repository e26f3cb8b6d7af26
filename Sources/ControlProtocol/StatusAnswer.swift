import JSON

/// The line of a `status` answer, written entry by entry into one buffer: the bytes of
/// `ControlCodec.answerLine(ControlResponse(status: entries))`, without the tree of
/// objects the generic encoder builds first, whose heap pages stayed behind
/// (bench/README.md, "The daemon's memory, again").
public struct StatusAnswer {
    private var bytes: [UInt8]
    private var isFirst = true

    /// `expectedEntries` sizes the buffer once.
    public init(expectedEntries: Int) {
        bytes = []
        bytes.reserveCapacity(Self.envelope.head.count + expectedEntries * Self.bytesPerEntry + Self.envelope.tail.count)
        bytes.append(contentsOf: Self.envelope.head)
    }

    /// Enough for an extension's entry with every figure known.
    private static let bytesPerEntry = 384

    /// The answer around its entries, from the generic encoder (once): every other key
    /// stays `null` and in its order whatever fields ``ControlResponse`` gains.
    private static let envelope: (head: [UInt8], tail: [UInt8]) = {
        let line = ControlCodec.line(ControlResponse(status: []))
        let key = Array(#""status":["#.utf8)
        let start = line.indices.first { line[$0...].starts(with: key) }!
        return (Array(line[..<(start + key.count)]), Array(line[(start + key.count)...]))
    }()

    /// Appends one entry, its keys in the generic encoder's order (sorted by their bytes).
    public mutating func append(_ status: ProcessStatus) {
        if !isFirst { bytes.append(UInt8(ascii: ",")) }
        isFirst = false
        put(#"{"autostart":"#, Optional(status.autostart))
        put(#","error":"#, status.error)
        put(#","kind":"#, status.kind.rawValue)
        put(#","lastResult":"#, status.lastResult)
        put(#","lastUpdateAgeMs":"#, status.lastUpdateAgeMs)
        put(#","memoryCurrentBytes":"#, status.memoryCurrentBytes)
        put(#","memoryLimitBytes":"#, status.memoryLimitBytes)
        put(#","name":"#, status.name)
        put(#","pid":"#, status.pid.map(Int64.init))
        put(#","rssBytes":"#, status.rssBytes)
        put(#","state":"#, status.state)
        put(#","updateLatencyP50Us":"#, status.updateLatencyP50Us)
        put(#","updateLatencyP99Us":"#, status.updateLatencyP99Us)
        put(#","uptimeMs":"#, status.uptimeMs)
        put(#","visible":"#, status.visible)
        bytes.append(UInt8(ascii: "}"))
    }

    /// The line, or the error answer ``ControlCodec/answerLine(_:)`` gives for one over
    /// ``ControlLimits/answerBytes``.
    public consuming func finish() -> [UInt8] {
        bytes.append(contentsOf: Self.envelope.tail)
        return ControlCodec.bounded(bytes)
    }

    private mutating func put(_ key: StaticString, _ text: String?) {
        append(key)
        if let text { JSONText.appendString(text, to: &bytes) } else { append("null") }
    }

    private mutating func put(_ key: StaticString, _ value: UInt64?) {
        append(key)
        if let value { JSONText.appendDecimal(value, to: &bytes) } else { append("null") }
    }

    private mutating func put(_ key: StaticString, _ value: Int64?) {
        append(key)
        guard let value else { return append("null") }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        JSONText.appendDecimal(value.magnitude, to: &bytes)
    }

    private mutating func put(_ key: StaticString, _ flag: Bool?) {
        append(key)
        append(flag.map { $0 ? "true" : "false" } ?? "null")
    }

    private mutating func append(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}
