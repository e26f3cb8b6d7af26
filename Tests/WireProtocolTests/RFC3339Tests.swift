import Testing
import WireProtocol

#if canImport(FoundationEssentials)
import ExtensiondTestSupport
import FoundationEssentials
#else
import Foundation
#endif

@Suite struct RFC3339Tests {
    @Test func knownTimes() {
        #expect(RFC3339.string(from: UnixTime(secondsSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(RFC3339.string(from: UnixTime(secondsSince1970: 1_795_334_400.25)) == "2026-11-22T08:00:00.250Z")
        #expect(RFC3339.string(from: UnixTime(secondsSince1970: -1)) == "1969-12-31T23:59:59Z")
        #expect(RFC3339.string(from: UnixTime(secondsSince1970: 951_782_400)) == "2000-02-29T00:00:00Z")
        #expect(RFC3339.date(from: "2026-11-22T08:00:00Z") == UnixTime(secondsSince1970: 1_795_334_400))
        #expect(RFC3339.date(from: "2026-11-22t09:30:00+01:30") == UnixTime(secondsSince1970: 1_795_334_400))
        #expect(RFC3339.date(from: "2026-11-22 03:00:00-05:00") == UnixTime(secondsSince1970: 1_795_334_400))
        #expect(RFC3339.date(from: "2026-11-22T08:00:00.5z") == UnixTime(secondsSince1970: 1_795_334_400.5))
    }

    /// Every year RFC 3339 can write, and times no clock reaches, convert without trapping.
    @Test func theEndsOfTimeConvert() {
        let first = RFC3339.date(from: "0000-01-01T00:00:00+23:59")
        let last = RFC3339.date(from: "9999-12-31T23:59:60.999-23:59")
        #expect(first?.millisecondsSince1970 == -62_167_305_540_000)
        #expect(last?.millisecondsSince1970 == 253_402_387_140_999)
        #expect(UnixTime(secondsSince1970: .infinity).millisecondsSince1970 == .max)
        #expect(UnixTime(secondsSince1970: -.infinity).millisecondsSince1970 == .min)
        #expect(UnixTime(secondsSince1970: .nan).millisecondsSince1970 == 0)
        #expect(UnixTime(secondsSince1970: 9.3e15).millisecondsSince1970 == .max)
        #expect(RFC3339.string(from: UnixTime(secondsSince1970: .infinity)).hasSuffix("Z"))
        #expect(RFC3339.string(from: UnixTime(secondsSince1970: -.infinity)).hasSuffix("Z"))
    }

    @Test func invalidTimesAreRejected() {
        for text in [
            "", "2026-11-22", "2026-11-22T08:00:00", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z",
            "2026-11-31T00:00:00Z", "2026-11-22T24:00:00Z", "2026-11-22T08:60:00Z", "2026-11-22T08:00:00.Z",
            "2026-11-22T08:00:00+0100", "2026-11-22T08:00:00Z ", "26-11-22T08:00:00Z", "2026-11-22T08:00:00+25:00",
        ] {
            #expect(RFC3339.date(from: text) == nil, "\(text)")
        }
    }

    @Test func roundTripsAtMillisecondPrecision() {
        var random = SeededRandom(seed: 3)
        for _ in 0..<10_000 {
            // From year 1 to year 9999.
            let milliseconds = Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &random)
            let date = UnixTime(secondsSince1970: Double(milliseconds) / 1000)
            let text = RFC3339.string(from: date)
            let parsed = RFC3339.date(from: text)
            #expect(parsed.map { Int64(($0.secondsSince1970 * 1000).rounded()) } == milliseconds, "\(text)")
        }
    }
}
