import ExtensiondTestSupport
import Foundation
import Testing

@testable import Output

/// The output log on real files in a temporary directory: two streams apart, merged
/// back in arrival order, rotation per stream, and reads bounded whatever is asked.
@Suite struct OutputLogTests {
    @Test func eachStreamHasItsOwnFileAndBothMergeInArrivalOrder() throws {
        let directory = try TemporaryDirectory()
        let log = OutputLog(directory: directory.path, name: "demo", maxSize: 1 << 20, files: 3)
        for (index, stream) in [StandardStream.stdout, .stderr, .stderr, .stdout, .stderr].enumerated() {
            append("\(stream) \(index)\n", to: log, from: stream)
        }
        log.flush(.stdout)
        log.flush(.stderr)

        #expect(try messages(String(contentsOfFile: directory.file("demo.log"), encoding: .utf8)) == ["stdout 0", "stdout 3"])
        #expect(try messages(String(contentsOfFile: directory.file("demo.stderr.log"), encoding: .utf8)) == ["stderr 1", "stderr 2", "stderr 4"])
        #expect(log.path(of: .stderr) == directory.file("demo.stderr.log"))

        let merged = log.lastLines(4)
        #expect(merged.map(\.stream) == [.stderr, .stderr, .stdout, .stderr])
        #expect(messages(merged.map(\.text).joined(separator: "\n")) == ["stderr 1", "stderr 2", "stdout 3", "stderr 4"])
        #expect(messages(log.lastLines(10, of: [.stdout]).map(\.text).joined(separator: "\n")) == ["stdout 0", "stdout 3"])
        #expect(log.lastLines(1, of: [.stderr]).map(\.stream) == [.stderr])
    }

    @Test func anyRequestedCountIsClampedInsteadOfTrapping() throws {
        let directory = try TemporaryDirectory()
        let log = OutputLog(directory: directory.path, name: "demo", maxSize: 1 << 20, files: 2)
        for index in 0..<(OutputLog.maxTailLines + 5) { append("line \(index)\n", to: log, from: .stdout) }
        for count in [-1, Int.min, 0] { #expect(log.lastLines(count).isEmpty) }
        for count in [Int.max, OutputLog.maxTailLines + 1] {
            let lines = log.lastLines(count)
            #expect(lines.count == OutputLog.maxTailLines)
            #expect(lines.last?.text.hasSuffix(" line \(OutputLog.maxTailLines + 4)") == true)
        }
        #expect(log.lastLines(3, of: []).isEmpty)
    }

    @Test func eachStreamRotatesOnItsOwnAndTheTailReachesIntoThePreviousFile() throws {
        let directory = try TemporaryDirectory()
        let log = OutputLog(directory: directory.path, name: "demo", maxSize: 4096, files: 3)
        let body = String(repeating: "e", count: 90)
        for index in 0..<100 { append("\(index) \(body)\n", to: log, from: .stderr) }
        append("only\n", to: log, from: .stdout)
        log.flush(.stdout)
        log.flush(.stderr)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(files == ["demo.log", "demo.stderr.log", "demo.stderr.log.1", "demo.stderr.log.2"])
        for name in files {
            let size = try #require(try FileManager.default.attributesOfItem(atPath: directory.file(name))[.size] as? Int)
            #expect(size <= 4096, "\(name): \(size)")
        }
        // More lines than the current stderr file holds: the rest come from `.1`, in order.
        let current = try String(contentsOfFile: directory.file("demo.stderr.log"), encoding: .utf8).split(separator: "\n").count
        let tail = log.lastLines(current + 5, of: [.stderr]).map { Int($0.text.split(separator: " ")[1])! }
        #expect(tail == Array((100 - current - 5)..<100))
    }

    @Test func followersGetTheLinesOfTheStreamsTheyChose() throws {
        let directory = try TemporaryDirectory()
        let log = OutputLog(directory: directory.path, name: "demo", maxSize: 1 << 20, files: 1)
        final class Token {}
        let errors = Token(), both = Token()
        var seenErrors: [OutputLine] = [], seenBoth: [OutputLine] = []
        log.follow(errors, [.stderr]) { seenErrors.append($0) }
        log.follow(both) { seenBoth.append($0) }
        append("out\nerr-partial", to: log, from: .stdout)
        append("err\n", to: log, from: .stderr)
        log.unfollow(both)
        append("late\n", to: log, from: .stderr)
        #expect(seenErrors.map(\.stream) == [.stderr, .stderr])
        #expect(messages(seenErrors.map(\.text).joined(separator: "\n")) == ["err", "late"])
        #expect(messages(seenBoth.map(\.text).joined(separator: "\n")) == ["out", "err"])
        // The unterminated stdout rest is written when the stream closes.
        log.flush(.stdout)
        #expect(messages(log.lastLines(1, of: [.stdout]).map(\.text).joined(separator: "\n")) == ["err-partial"])
    }

    private func append(_ text: String, to log: OutputLog, from stream: StandardStream) {
        Array(text.utf8).withUnsafeBytes { log.append($0, from: stream) }
    }

    /// The lines' text after their timestamps, which are checked on the way.
    private func messages(_ text: String) -> [String] {
        text.split(separator: "\n").map { line in
            let stamp = line.prefix { $0 != " " }
            #expect(stamp.count == "2026-11-22T07:20:01.123456Z".count && stamp.hasSuffix("Z"), "\(line)")
            return String(line.dropFirst(stamp.count + 1))
        }
    }
}
