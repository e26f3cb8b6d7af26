import ControlProtocol
import Testing

/// A control answer longer than a client reads becomes an error that says so, not a
/// connection closed without a word (issue 8, case 4).
@Suite struct ControlAnswerLimitTests {
    @Test func anAnswerOverTheLimitIsAnError() throws {
        let line = String(repeating: "x", count: 4096)
        let lines = Array(repeating: line, count: ControlLimits.answerBytes / 4096 + 1)
        let bytes = ControlCodec.answerLine(ControlResponse(lines: lines, done: true))
        #expect(bytes.count < 1024)
        let answer = try ControlCodec.decode(ControlResponse.self, from: bytes.dropLast())
        #expect(!answer.ok)
        #expect(answer.error?.contains("\(ControlLimits.answerBytes)-byte limit") == true)
    }

    @Test func anAnswerWithinTheLimitIsUnchanged() throws {
        let response = ControlResponse(lines: Array(repeating: "line", count: 1000), done: true)
        #expect(ControlCodec.answerLine(response) == ControlCodec.line(response))
    }
}
