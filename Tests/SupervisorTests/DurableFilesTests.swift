import DaemonSupport
import ExtensiondTestSupport
import Glibc
import Logging
import Sockets
import Testing

/// The daemon's own files are written beside the loop (``DurableFiles``), coalesced per
/// file, and kept and retried when the disk refuses them (``DurableRecord``). The disk's
/// slowness is held by a gate (``DefaultsSaveTests/GatedWork``); the writes are real, in a
/// temporary directory.
@Suite struct DurableFilesTests {
    static func text(_ path: String) -> String? {
        FileSystem.read(path).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func writesGivenWhileOneRunsCoalesceIntoTheNewest() throws {
        let state = try TemporaryDirectory(prefix: "durable-files")
        let work = DefaultsSaveTests.GatedWork()
        let files = DurableFiles(work: work)
        let path = state.path + "/apps.json"
        var answered: [String: SystemError?] = [:]
        for content in ["a", "b", "c", "d"] {
            files.write(Array(content.utf8), to: path) { answered[content] = $0 }
        }
        #expect(work.waiting == 1, "one write at a time")
        work.releaseOne()
        #expect(Self.text(path) == "a" && answered.keys.sorted() == ["a"])
        #expect(work.waiting == 1 && files.isWriting(path), "b and c are never written: d is")
        work.releaseOne()
        #expect(Self.text(path) == "d" && answered.keys.sorted() == ["a", "b", "c", "d"])
        #expect(answered.values.allSatisfy { $0 == nil })
        #expect(work.waiting == 0 && !files.isWriting(path))
    }

    /// Random writes to three files, released at random: every completion runs once, after
    /// its content or a newer one is on disk; each file ends with its newest content; no
    /// file is written more often than it was given.
    @Test func randomWritesEndWithTheNewestAndAnswerEachOnce() throws {
        var random = SeededRandom(seed: 24_006)
        for run in 0..<60 {
            let state = try TemporaryDirectory(prefix: "durable-files")
            let work = DefaultsSaveTests.GatedWork()
            let files = DurableFiles(work: work)
            let paths = (0..<3).map { state.path + "/f\($0).json" }
            var given = [Int](repeating: 0, count: 3)
            var answers: [String: Int] = [:]
            for step in 0..<Int.random(in: 0...40, using: &random) {
                if Bool.random(using: &random) || work.waiting == 0 {
                    let file = Int.random(in: 0..<3, using: &random)
                    given[file] += 1
                    let version = given[file]
                    files.write(Array("\(version)".utf8), to: paths[file]) { error in
                        #expect(error == nil)
                        answers["\(file)/\(version)", default: 0] += 1
                        let onDisk = Int(Self.text(paths[file]) ?? "") ?? 0
                        #expect(onDisk >= version, "run \(run) step \(step): \(version) answered with \(onDisk) on disk")
                    }
                } else {
                    work.releaseOne()
                }
            }
            work.finish()
            #expect(paths.allSatisfy { !files.isWriting($0) })
            #expect(answers.count == given.reduce(0, +) && answers.values.allSatisfy { $0 == 1 }, "run \(run): \(answers)")
            for file in 0..<3 where given[file] > 0 {
                #expect(Self.text(paths[file]) == "\(given[file])", "run \(run): file \(file)")
            }
            #expect(work.ran <= given.reduce(0, +), "run \(run): \(work.ran) writes for \(given) given")
        }
    }

    @Test func aRefusedWriteIsAnEventKeptAndTriedAgainEverySecond() throws {
        let state = try TemporaryDirectory(prefix: "durable-files")
        let work = DefaultsSaveTests.GatedWork()
        let clock = VirtualClock()
        let events = EventLog(logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let directory = state.path + "/missing"
        let record = DurableRecord(path: directory + "/apps.json", content: nil, files: DurableFiles(work: work), clock: clock, events: events)
        var answer: SystemError??
        record.save(Array("new".utf8)) { answer = .some($0) }
        work.releaseOne()
        #expect(answer??.errno == ENOENT, "\(String(describing: answer))")
        let refused = events.recent(10).filter { $0.kind == .error && $0.reason == "storage" }
        #expect(refused.count == 1 && refused[0].message.contains(directory + "/apps.json"), "\(refused)")
        #expect(refused.first?.message.contains("No such file or directory") == true)

        // Tried again each second, told once.
        clock.advance(by: DurableRecord.retryInterval)
        #expect(work.waiting == 1)
        work.releaseOne()
        #expect(events.recent(10).filter { $0.kind == .error }.count == 1)
        #expect(mkdir(directory, 0o755) == 0)
        clock.advance(by: DurableRecord.retryInterval)
        work.releaseOne()
        #expect(Self.text(directory + "/apps.json") == "new")
        #expect(record.failure == nil)
        #expect(events.recent(10).contains { $0.kind == .cleanup && $0.message.contains("apps.json is written again") })
        clock.advance(by: .seconds(5))
        #expect(work.waiting == 0, "written: no more tries")
    }

    /// A stop does not wait for the next try, nor leave without it: ``DurableFiles/finish()``
    /// tries a refused file once more, and a file written since is not written again.
    @Test func aCleanStopTriesARefusedFileOnceMore() throws {
        let state = try TemporaryDirectory(prefix: "durable-files")
        let work = DefaultsSaveTests.GatedWork()
        let files = DurableFiles(work: work)
        let events = EventLog(logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let refusedDirectory = state.path + "/refused"
        let writtenDirectory = state.path + "/written"
        let refused = DurableRecord(path: refusedDirectory + "/apps.json", content: nil, files: files, clock: VirtualClock(), events: events)
        let clock = VirtualClock()
        let written = DurableRecord(path: writtenDirectory + "/identities.json", content: nil, files: files, clock: clock, events: events)
        refused.save(Array("kept".utf8))
        written.save(Array("ids".utf8))
        work.finish()
        #expect(refused.failure?.errno == ENOENT && written.failure?.errno == ENOENT)

        // The second file is written by its timer before the stop; the first waits for its own.
        #expect(mkdir(writtenDirectory, 0o755) == 0 && mkdir(refusedDirectory, 0o755) == 0)
        clock.advance(by: DurableRecord.retryInterval)
        work.finish()
        #expect(written.failure == nil && Self.text(writtenDirectory + "/identities.json") == "ids")
        let ranBeforeTheStop = work.ran

        files.finish()
        #expect(Self.text(refusedDirectory + "/apps.json") == "kept")
        #expect(refused.failure == nil)
        #expect(work.ran == ranBeforeTheStop + 1, "only the refused file is tried at the stop")
        #expect(events.recent(10).contains { $0.kind == .cleanup && $0.message.contains("apps.json is written again") })
    }
}
