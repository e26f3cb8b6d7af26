import ExtensiondConfig
import ExtensiondTestSupport
import Testing

/// The spellings of sizes, durations, shares and PSI triggers, by example and over many
/// random inputs.
@Suite struct UnitSyntaxTests {
    // MARK: Sizes

    @Test(
        arguments: [
            ("1000", 1000), ("0", 0), ("24K", 24 << 10), ("512M", 512 << 20), ("1G", 1 << 30), ("16777216", 16 << 20),
        ] as [(String, UInt64)])
    func sizes(text: String, bytes: UInt64) throws {
        #expect(try ByteSize(parsing: text) == ByteSize(bytes))
    }

    @Test(arguments: [
        "", "M", "1.5G", "-1", "+1", "12 M", " 12M", "12MB", "12m", "12KM", "1T", "0x10", "18446744073709551616",
        "17179869184G",
    ])
    func sizeMistakes(text: String) {
        #expect(throws: ValueSyntaxError.self) { try ByteSize(parsing: text) }
    }

    @Test func sizeErrorNamesTheExpectedForm() {
        #expect(
            throws: ValueSyntaxError(
                #""12MB" is not a size; expected a size such as "512M", "24K" or "1G" (powers of 1024) or a whole number of bytes"#
            )
        ) {
            try ByteSize(parsing: "12MB")
        }
    }

    @Test func sizeDescriptionIsShortestExactSpelling() {
        #expect(ByteSize(24 << 20).description == "24M")
        #expect(ByteSize(1536 << 10).description == "1536K")
        #expect(ByteSize(1000).description == "1000")
        #expect(ByteSize(0).description == "0")
    }

    @Test func sizeDescriptionReparsesToTheSameValue() throws {
        var random = SeededRandom(seed: 1)
        for _ in 0..<20_000 {
            // Mix plain random values with exact multiples of each unit.
            let shift = [0, 10, 20, 30].randomElement(using: &random) ?? 0
            let bytes = UInt64.random(in: 0...(UInt64.max >> shift), using: &random) << shift
            let size = ByteSize(bytes)
            #expect(try ByteSize(parsing: size.description) == size)
        }
    }

    // MARK: Durations

    @Test(
        arguments: [
            ("150ms", .milliseconds(150)), ("30s", .seconds(30)), ("5m", .seconds(300)), ("1h30m", .seconds(5400)),
            ("1d", .seconds(86_400)), ("2h0m5s10ms", .milliseconds(7_205_010)), ("0s", .zero),
        ] as [(String, Duration)])
    func durations(text: String, duration: Duration) throws {
        #expect(try Duration(parsing: text) == duration)
    }

    @Test(arguments: [
        "", "10", "s", "1.5s", "-1s", "5 m", "30m1h", "1m1m", "5sec", "1w", "10S", "1h 30m", "99999999999999999999d",
    ])
    func durationMistakes(text: String) {
        #expect(throws: ValueSyntaxError.self) { try Duration(parsing: text) }
    }

    @Test func unitlessDurationNamesTheExpectedForm() throws {
        let error = try #require(throws: ValueSyntaxError.self) { try Duration(parsing: "10") }
        #expect(error.message.contains(#""10" is not a duration"#))
        #expect(error.message.contains("units ms, s, m, h, d"))
    }

    @Test func durationSpellingReparsesToTheSameValue() throws {
        var random = SeededRandom(seed: 2)
        for _ in 0..<20_000 {
            let milliseconds =
                Int64.random(in: 0...(Int64.max / 1_000_000), using: &random) >> Int.random(in: 0...40, using: &random)
            let duration = Duration.milliseconds(milliseconds)
            #expect(try Duration(parsing: duration.configSpelling) == duration)
        }
        #expect(Duration.seconds(5400).configSpelling == "1h30m")
        #expect(Duration.milliseconds(1500).configSpelling == "1s500ms")
    }

    // MARK: Shares

    @Test(arguments: [("85%", 0.85), ("100%", 1.0), ("0%", 0.0), ("92.5%", 0.925)] as [(String, Double)])
    func shares(text: String, fraction: Double) throws {
        #expect(try Share(parsing: text) == Share(fraction))
    }

    @Test(arguments: ["", "%", "85", "0.85", "101%", "-5%", "85 %", "85%%", ".5%", "5.%", "1e2%", "nan%", "inf%"])
    func shareMistakes(text: String) {
        #expect(throws: ValueSyntaxError.self) { try Share(parsing: text) }
    }

    @Test func shareDescriptionReparses() throws {
        for percent in 0...100 {
            let share = Share(Double(percent) / 100)
            #expect(share.description == "\(percent)%")
            #expect(try Share(parsing: share.description) == share)
        }
    }

    // MARK: PSI triggers

    @Test func psiTriggers() throws {
        let some = try PSITrigger(parsing: "some 150ms 2s")
        #expect(some == PSITrigger(kind: .some, stall: .milliseconds(150), window: .seconds(2)))
        #expect(some.kernelString == "some 150000 2000000")
        #expect(some.description == "some 150ms 2s")
        #expect(try PSITrigger(parsing: "full 100ms 2s").kind == .full)
        #expect(try PSITrigger(parsing: "some 500ms 500ms").window == .milliseconds(500))
        #expect(try PSITrigger(parsing: "some 1s 10s").window == .seconds(10))
    }

    @Test(arguments: ["", "some", "some 150ms", "any 150ms 2s", "some 150 2s", "some 150ms 2s extra", "SOME 150ms 2s"])
    func psiSyntaxMistakes(text: String) throws {
        let error = try #require(throws: ValueSyntaxError.self) { try PSITrigger(parsing: text) }
        #expect(error.message.contains("not a PSI trigger"))
    }

    @Test(arguments: ["some 100ms 400ms", "some 1s 11s", "some 1s 1m"])
    func psiWindowOutOfKernelRange(text: String) throws {
        let error = try #require(throws: ValueSyntaxError.self) { try PSITrigger(parsing: text) }
        #expect(error.message.contains("500ms to 10s"))
        #expect(error.message.contains("CAP_SYS_RESOURCE"))
        #expect(error.message.contains("multiple of 2s"))
    }

    @Test(arguments: ["some 0ms 2s", "some 3s 2s"])
    func psiStallMustFitTheWindow(text: String) throws {
        let error = try #require(throws: ValueSyntaxError.self) { try PSITrigger(parsing: text) }
        #expect(error.message.contains("PSI stall"))
    }

    // MARK: Garbage

    /// Random strings over the characters these parsers care about never crash them, and
    /// whatever parses re-spells to the same value.
    @Test func randomGarbageNeverCrashes() throws {
        var random = SeededRandom(seed: 3)
        let alphabet = Array("0123456789KMGkmgsdhm%. -+_xefulsomeé\u{0}\t9999999999")
        for _ in 0..<50_000 {
            let length = Int.random(in: 0...14, using: &random)
            let text = String((0..<length).map { _ in alphabet.randomElement(using: &random) ?? "0" })
            if let size = try? ByteSize(parsing: text) { #expect(try ByteSize(parsing: size.description) == size) }
            if let duration = try? Duration(parsing: text) {
                #expect(try Duration(parsing: duration.configSpelling) == duration)
            }
            if let share = try? Share(parsing: text) { #expect((0...1).contains(share.fraction)) }
            if let trigger = try? PSITrigger(parsing: text) { #expect(PSITrigger.windowRange.contains(trigger.window)) }
        }
    }
}
