import ExtensiondTestSupport
import Testing

@testable import WireProtocol

/// An `update` line reused from the run's last one (``UpdateLineCache``) has the general
/// encoder's bytes, whichever fields changed in between: the `id` (most updates) or any
/// other, down to values that compare equal but are written differently.
@Suite struct UpdateLineCacheTests {
    @Test func reusedLinesAreTheGeneralEncodersBytes() {
        var random = SeededRandom(seed: 2411)
        let ids: [UInt64] = [0, 1, 9, 10, 99, 12_345, RequestID.maximum]
        let sizes = [Int.min, -1, 0, 7, 320, Int.max]
        // "é" precomposed and decomposed are equal `String`s; -0 and 0 equal `Double`s.
        let texts = LineWriterTests.strings + ["\u{E9}", "e\u{301}"]
        let scales: [Double?] = [nil, 0, -0.0, 1, 2, 0.25, 16]
        let params: [JSONValue?] = [nil, nil, nil, ["city": "Oslo"], ["n": .number(0)], ["n": .number(-0.0)]]
        func randomUpdate() -> SupervisorToExtension.Update {
            SupervisorToExtension.Update(
                id: RequestID(rawValue: ids.randomElement(using: &random)!),
                mode: [.compact, .expanded].randomElement(using: &random)!,
                maxSize: Size(width: sizes.randomElement(using: &random)!, height: sizes.randomElement(using: &random)!),
                reason: [.pull, .schedule, .manual].randomElement(using: &random)!,
                instance: Bool.random(using: &random) ? texts.randomElement(using: &random)! : nil,
                params: params.randomElement(using: &random)!, modeChanged: Bool.random(using: &random),
                environment: RenderEnvironment(
                    colorScheme: [nil, .light, .dark].randomElement(using: &random)!,
                    locale: Bool.random(using: &random) ? texts.randomElement(using: &random)! : nil,
                    scale: scales.randomElement(using: &random)!))
        }
        for _ in 0..<300 {
            let cache = UpdateLineCache()
            var update = randomUpdate()
            for _ in 0..<20 {
                switch Int.random(in: 0..<12, using: &random) {
                case 0: update = randomUpdate()  // any field may differ
                case 1: update.instance = texts.randomElement(using: &random)!
                case 2: update.instance = update.instance == "\u{E9}" ? "e\u{301}" : "\u{E9}"
                case 3: update.locale = update.locale == "\u{E9}" ? "e\u{301}" : "\u{E9}"
                case 4: update.scale = update.scale == 0 && update.scale?.sign == .plus ? -0.0 : 0
                case 5: update.params = params.randomElement(using: &random)!
                case 6: update.modeChanged.toggle()
                default: update.id = RequestID(rawValue: ids.randomElement(using: &random)!)  // the usual next update
                }
                let general = WireCoding.encodeLine(Enveloped(message: SupervisorToExtension.update(update)))
                #expect(String(decoding: cache.line(for: update), as: UTF8.self) == String(decoding: general, as: UTF8.self))
            }
        }
    }
}
