import ExtensiondTestSupport
import HostProtocol
import Testing

@Suite struct LineFramerTests {
    /// Feeds `stream` in the given chunk sizes and collects every line.
    static func lines(of stream: [UInt8], chunkSizes: some Sequence<Int>, limit: Int) throws -> [[UInt8]] {
        var framer = LineFramer(maxLineLength: limit)
        var lines: [[UInt8]] = []
        var offset = 0
        var sizes = chunkSizes.makeIterator()
        while offset < stream.count {
            let size = min(sizes.next() ?? stream.count, stream.count - offset)
            try framer.append(stream[offset..<offset + size])
            offset += size
            while let line = try framer.nextLine() { lines.append(Array(line)) }
        }
        return lines
    }

    @Test func linesSurviveAnySplit() throws {
        var random = SeededRandom(seed: 1)
        for _ in 0..<500 {
            let expected: [[UInt8]] = (0..<Int.random(in: 1...8, using: &random)).map { _ in
                (0..<Int.random(in: 1...40, using: &random)).map { _ in UInt8.random(in: 0x21...0x7E, using: &random) }
            }
            var stream: [UInt8] = []
            for line in expected {
                stream += line
                stream += Bool.random(using: &random) ? [0x0A] : [0x0D, 0x0A]
                // Blank lines between messages are skipped.
                if Bool.random(using: &random) { stream += Array("\n \r\n\t\n".utf8) }
            }
            let chunkSizes = (0..<stream.count).map { _ in Int.random(in: 1...12, using: &random) }
            #expect(try Self.lines(of: stream, chunkSizes: chunkSizes, limit: 64) == expected)
        }
    }

    @Test func lineOfExactlyTheLimitIsAccepted() throws {
        let line = [UInt8](repeating: UInt8(ascii: "x"), count: 100)
        #expect(try Self.lines(of: line + [0x0A], chunkSizes: [7], limit: 100) == [line])
        #expect(try Self.lines(of: line + [0x0A], chunkSizes: [101], limit: 100) == [line])
    }

    @Test func oversizedLineIsRejectedWithoutBufferingMoreThanTheLimitAndOneRead() throws {
        let limit = 1 << 20
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 4096)
        var framer = LineFramer(maxLineLength: limit)
        var appended = 0
        var rejected = false
        while appended < 3 * limit {
            do {
                try framer.append(chunk)
                appended += chunk.count
                #expect(try framer.nextLine() == nil)
                #expect(framer.bufferedByteCount <= limit)
            } catch {
                #expect(error == .oversized(limit: limit))
                #expect(framer.bufferedByteCount <= limit + chunk.count)
                rejected = true
                break
            }
        }
        #expect(rejected)
        #expect(appended == limit)
    }

    @Test func oversizedCompleteLineInOneReadIsRejected() {
        var framer = LineFramer(maxLineLength: 10)
        let bytes = Array("short\nthis line is far too long\nok\n".utf8)
        #expect(throws: Never.self) { try framer.append(bytes) }
        #expect((try? framer.nextLine()) == Array("short".utf8)[...])
        #expect(throws: ProtocolError.oversized(limit: 10)) { try framer.nextLine() }
    }

    @Test func drainedFramerStartsAfresh() throws {
        var framer = LineFramer(maxLineLength: 100_000)
        try framer.append(Array(repeating: UInt8(ascii: "y"), count: 90_000) + [0x0A])
        #expect(try framer.nextLine()?.count == 90_000)
        #expect(try framer.nextLine() == nil)
        #expect(framer.bufferedByteCount == 0)
        try framer.append(Array("a\nb".utf8))
        #expect(try framer.nextLine() == Array("a".utf8)[...])
        #expect(try framer.nextLine() == nil)
        try framer.append(Array("c\n".utf8))
        #expect(try framer.nextLine() == Array("bc".utf8)[...])
    }

    @Test func defaultLimitIsOneMebibyte() {
        #expect(LineFramer().maxLineLength == 1_048_576)
    }

    @Test func randomBytesNeverCrashTheFramerOrTheDecoders() {
        var random = SeededRandom(seed: 2)
        let alphabet = Array(#"{}[]":,\ntypeupdatepullresult0123456789-.eEtrufalsn"#.utf8) + [0x00, 0x80, 0xC3, 0xFF]
        for _ in 0..<2000 {
            var framer = LineFramer(maxLineLength: 64)
            let length = Int.random(in: 0...200, using: &random)
            let bytes = (0..<length).map { _ in
                Bool.random(using: &random) ? alphabet.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
            }
            do {
                try framer.append(bytes)
                while let line = try framer.nextLine() {
                    _ = try? ExtensionToSupervisor.decode(line: line)
                    _ = try? SupervisorToExtension.decode(line: line)
                    _ = try? HostToSupervisor.decode(line: line)
                    _ = try? SupervisorToHost.decode(line: line)
                }
            } catch {
                #expect(error == .oversized(limit: 64))
            }
        }
    }
}
