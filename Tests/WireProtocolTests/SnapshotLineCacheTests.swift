import ExtensiondTestSupport
import Testing

@testable import HostProtocol

/// An answer reused from its slot's last line (``SnapshotLineCache``) has the bytes the line
/// writer gives the same snapshot, whichever fields changed in between: the per-answer ones
/// (`id` present or not, `result`, `ageMs`, `stale`, `expired`) or any other.
@Suite struct SnapshotLineCacheTests {
    @Test func reusedLinesKeepTheirBytes() throws {
        var random = SeededRandom(seed: 2024)
        let ids: [RequestID?] = [nil, 0, 1, 9, 10, 12_345, RequestID(rawValue: RequestID.maximum)]
        let ages: [UInt64] = [0, 1, 9, 10, 99, 100, 86_400_000, 1 << 53, UInt64.max]
        var reused = 0
        for _ in 0..<200 {
            let cache = SnapshotLineCache()
            var snapshot = LineWriterTests.randomSnapshot(&random)
            for _ in 0..<20 {
                switch Int.random(in: 0..<13, using: &random) {
                case 0: snapshot = LineWriterTests.randomSnapshot(&random)  // any field may differ
                case 1: snapshot.version &+= 1
                case 2: snapshot.stale.toggle()
                case 3: snapshot.id = ids.randomElement(using: &random)!  // present or not
                case 4: snapshot.expired.toggle()
                case 5: snapshot.result = [.newData, .noData, .failed, .cached].randomElement(using: &random)!
                case 6:  // a push revalidated the snapshot; a pull answers it once it expired
                    snapshot.id = snapshot.id == nil ? ids.compactMap { $0 }.randomElement(using: &random)! : nil
                    snapshot.result = snapshot.id == nil ? .newData : .cached
                    snapshot.stale = snapshot.id != nil
                    snapshot.expired = snapshot.id != nil
                    snapshot.ageMs = ages.randomElement(using: &random)!
                default:  // a cached pull: another id and age
                    snapshot.id = snapshot.id.map { _ in ids.compactMap { $0 }.randomElement(using: &random)! }
                    snapshot.ageMs = ages.randomElement(using: &random)!
                    reused += 1
                }
                let line = cache.line(for: snapshot)
                #expect(line == SupervisorToHost.snapshot(snapshot).encodedLine())
                #expect(String(decoding: line, as: UTF8.self) == (try LineWriterTests.expectedLine(snapshot)))
            }
        }
        #expect(reused > 1000)
    }

    /// Strings equal to Swift (one canonical form) but spelled in other bytes are written
    /// as they are: a host is told the error and instance the daemon has now.
    @Test func canonicallyEqualStringsAreWrittenWithTheirOwnBytes() throws {
        var random = SeededRandom(seed: 7)
        let (composed, decomposed) = ("caf\u{E9}", "cafe\u{301}")
        #expect(composed == decomposed)
        for field in 0..<3 {
            let cache = SnapshotLineCache()
            var snapshot = LineWriterTests.randomSnapshot(&random)
            for text in [composed, decomposed, composed] {
                switch field {
                case 0: snapshot.error = text
                case 1: snapshot.instance = text
                default: snapshot.extensionID = text
                }
                #expect(cache.line(for: snapshot) == SupervisorToHost.snapshot(snapshot).encodedLine())
            }
        }
    }
}
