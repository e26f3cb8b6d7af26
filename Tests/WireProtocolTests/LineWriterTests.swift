import ExtensiondTestSupport
import JSON
import Testing

@testable import HostProtocol
@testable import WireProtocol

/// The lines written by hand on the hot paths (``JSONLineWriter``: `snapshot` to hosts,
/// `update` to extensions) keep their bytes: each field as the general encoder writes its
/// value, in the order hosts and extensions have always received.
@Suite struct LineWriterTests {
    static let strings = [
        "", "e", "bench.update", "a\"b\\c\nd\r\te\u{1}f/ü😀", String(repeating: "x", count: 300),
        String(repeating: "\u{1F}", count: 100), "com.example.weather",
    ]

    /// A string as the general encoder writes it.
    static func json(_ string: String) throws -> String {
        String(decoding: try JSONCoding.encode(string), as: UTF8.self)
    }

    static func randomSnapshot(_ random: inout SeededRandom) -> SupervisorToHost.Snapshot {
        let integers: [UInt64] = [0, 1, 9, 10, 99, 100, 1_000_000_007, 1 << 53, UInt64.max - 1, UInt64.max]
        let sizes = [0, 1, 9, 10, 320, 65_535]
        func maybe<T>(_ random: inout SeededRandom, _ value: (inout SeededRandom) -> T) -> T? {
            Bool.random(using: &random) ? value(&random) : nil
        }
        let snapshots: [JSONValue] = [["t": "12:00", "n": [1, 2.5, nil]], .string(strings[3]), [:]]
        return SupervisorToHost.Snapshot(
            id: maybe(&random) { RequestID(rawValue: UInt64.random(in: 0...RequestID.maximum, using: &$0)) },
            extensionID: strings.randomElement(using: &random)!,
            result: [.newData, .noData, .failed, .cached].randomElement(using: &random)!,
            snapshot: maybe(&random) { snapshots.randomElement(using: &$0)!.encoded() },
            version: integers.randomElement(using: &random)!, ageMs: integers.randomElement(using: &random)!,
            stale: Bool.random(using: &random), expired: Bool.random(using: &random),
            error: maybe(&random) { strings.randomElement(using: &$0)! },
            mode: maybe(&random) { [DisplayMode.compact, .expanded].randomElement(using: &$0)! },
            preferredSize: maybe(&random) { Size(width: sizes.randomElement(using: &$0)!, height: sizes.randomElement(using: &$0)!) },
            date: maybe(&random) { _ in UnixTime(secondsSince1970: 1_764_230_400) },
            instance: maybe(&random) { strings.randomElement(using: &$0)! })
    }

    /// The `snapshot` line as the daemon wrote it before ``JSONLineWriter`` wrote into a
    /// buffer of its own: built here from the general encoder's strings.
    static func expectedLine(_ snapshot: SupervisorToHost.Snapshot) throws -> String {
        var fields = [#""type":"snapshot""#]
        if let id = snapshot.id { fields.append(#""id":\#(id.rawValue)"#) }
        fields.append(#""extension":\#(try json(snapshot.extensionID))"#)
        fields.append(#""result":"\#(snapshot.result.rawValue)""#)
        fields.append(#""snapshot":\#(snapshot.snapshot.map { String(decoding: $0.bytes, as: UTF8.self) } ?? "null")"#)
        fields.append(#""version":\#(snapshot.version)"#)
        fields.append(#""ageMs":\#(snapshot.ageMs)"#)
        fields.append(#""stale":\#(snapshot.stale)"#)
        if snapshot.expired { fields.append(#""expired":true"#) }
        if let error = snapshot.error { fields.append(#""error":\#(try json(error))"#) }
        if let mode = snapshot.mode { fields.append(#""mode":"\#(mode.rawValue)""#) }
        if let size = snapshot.preferredSize { fields.append(#""preferredSize":{"width":\#(size.width),"height":\#(size.height)}"#) }
        if let date = snapshot.date { fields.append(#""date":"\#(RFC3339.string(from: date))""#) }
        if let instance = snapshot.instance { fields.append(#""instance":\#(try json(instance))"#) }
        return "{" + fields.joined(separator: ",") + "}\n"
    }

    @Test func snapshotLinesKeepTheirBytes() throws {
        var random = SeededRandom(seed: 24)
        for _ in 0..<2000 {
            let snapshot = Self.randomSnapshot(&random)
            let line = SupervisorToHost.snapshot(snapshot).encodedLine()
            #expect(String(decoding: line, as: UTF8.self) == (try Self.expectedLine(snapshot)))
            // Hosts read integers exactly up to 2^53 (docs/PROTOCOL.md); the bytes above hold beyond.
            if max(snapshot.version, snapshot.ageMs) <= 1 << 53 {
                #expect(try SupervisorToHost.decode(line: line.dropLast()) == .snapshot(snapshot))
            }
        }
    }

    /// `update` lines are the general encoder's bytes (keys sorted), whatever the values.
    @Test func updateLinesAreTheGeneralEncodersBytes() throws {
        var random = SeededRandom(seed: 25)
        let sizes = [Int.min, -1, 0, 7, 320, Int.max]
        for _ in 0..<2000 {
            let update = SupervisorToExtension.Update(
                id: RequestID(rawValue: UInt64.random(in: 0...RequestID.maximum, using: &random)),
                mode: [.compact, .expanded].randomElement(using: &random)!,
                maxSize: Size(width: sizes.randomElement(using: &random)!, height: sizes.randomElement(using: &random)!),
                reason: [.pull, .schedule].randomElement(using: &random)!,
                instance: Bool.random(using: &random) ? Self.strings.randomElement(using: &random)! : nil,
                modeChanged: Bool.random(using: &random))
            let general = WireCoding.encodeLine(Enveloped(message: SupervisorToExtension.update(update)))
            #expect(String(decoding: update.encodedLine(), as: UTF8.self) == String(decoding: general, as: UTF8.self))
        }
    }
}
