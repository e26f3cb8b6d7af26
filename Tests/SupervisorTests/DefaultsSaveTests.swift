import DaemonSupport
import ExtensiondTestSupport
import Glibc
import JSON
import Logging
import Testing

@testable import ProcessIsolation

/// The shared defaults are saved off the loop (issue 19, item 4): a save that takes long
/// holds no other request, and its writers are answered once it is on disk. The disk's
/// slowness is held by a gate (a disk that is slow on demand cannot be had here); the
/// writes themselves are real, in a temporary directory.
@Suite struct DefaultsSaveTests {
    /// Holds each job until the test releases it, then runs it for real.
    final class GatedWork: BlockingWork {
        private var held: [() -> Void] = []
        var waiting: Int { held.count }
        /// How many jobs ran.
        private(set) var ran = 0

        func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result, then completion: @escaping (Result) -> Void) {
            held.append { completion(work()) }
        }

        func finish() {
            while !held.isEmpty { releaseOne() }
        }

        func releaseOne() {
            ran += 1
            held.removeFirst()()
        }
    }

    final class Bed {
        let clock = VirtualClock()
        let work = GatedWork()
        let state: TemporaryDirectory
        let store: GroupStore
        var answers: [String: Result<JSONValue, GroupStoreError>] = [:]

        init() throws {
            state = try TemporaryDirectory(prefix: "defaults-save")
            let events = EventLog(logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
            store = GroupStore(stateDirectory: state.path, events: events, clock: clock, work: work)
        }

        func set(_ key: String, _ value: Int, tag: String) {
            store.perform(.set, group: "g", key: key, value: .number(Double(value)), by: .extension("w")) { self.answers[tag] = $0 }
        }

        func get(_ key: String) -> JSONValue? {
            var value: JSONValue?
            store.perform(.get, group: "g", key: key, value: nil, by: .extension("w")) { value = try? $0.get() }
            return value
        }

        var onDisk: [String: JSONValue]? {
            FileSystem.read(state.path + "/defaults/g.json").flatMap { try? JSONCoding.decode([String: JSONValue].self, from: $0) }
        }
    }

    @Test func aWriteIsAnsweredOnceItsSaveIsDoneAndLaterWritesWaitForTheNextSave() throws {
        let bed = try Bed()
        bed.set("a", 1, tag: "first")
        bed.clock.advance(by: .milliseconds(5))
        #expect(bed.work.waiting == 1 && bed.answers.isEmpty)
        // While the first save runs: reads answer what is on disk, writes are accepted.
        bed.set("b", 2, tag: "second")
        #expect(bed.get("a") == .null)
        bed.clock.advance(by: .milliseconds(5))
        #expect(bed.work.waiting == 1, "one save per group at a time")
        bed.work.releaseOne()
        #expect(bed.answers["first"].map { (try? $0.get()) == .null } == true && bed.answers["second"] == nil)
        #expect(bed.onDisk == ["a": .number(1)] && bed.get("a") == .number(1))
        bed.clock.advance(by: .milliseconds(5))
        bed.work.releaseOne()
        #expect(bed.answers["second"].map { (try? $0.get()) == .null } == true)
        #expect(bed.onDisk == ["a": .number(1), "b": .number(2)])
    }

    @Test func writesAcceptedDuringAFailedSaveAreSavedWithoutTheFailedOnes() throws {
        let bed = try Bed()
        bed.set("a", 1, tag: "saved")
        bed.clock.advance(by: .milliseconds(5))
        bed.work.releaseOne()
        bed.set("a", 2, tag: "failed")
        bed.clock.advance(by: .milliseconds(5))
        bed.set("b", 3, tag: "later")
        // The save of a = 2 fails: its file's place is taken by a directory.
        try FileSystem.createDirectories(bed.state.path + "/defaults/g.json.tmp/x", mode: 0o700)
        bed.work.releaseOne()
        guard case .failure(.storage)? = bed.answers["failed"] else {
            Issue.record("the failed save's writer was told \(String(describing: bed.answers["failed"]))")
            return
        }
        #expect(bed.store.storageErrors["g"] != nil)
        rmdir(bed.state.path + "/defaults/g.json.tmp/x")
        rmdir(bed.state.path + "/defaults/g.json.tmp")
        bed.clock.advance(by: .milliseconds(5))
        bed.work.releaseOne()
        #expect(bed.answers["later"].map { (try? $0.get()) == .null } == true)
        #expect(bed.onDisk == ["a": .number(1), "b": .number(3)] && bed.store.storageErrors.isEmpty)
    }

    @Test func aCleanStopSavesWhatWaitsBehindARunningSave() throws {
        let bed = try Bed()
        bed.set("a", 1, tag: "first")
        bed.clock.advance(by: .milliseconds(5))
        bed.set("b", 2, tag: "second")
        bed.store.saveEverything()
        #expect(bed.answers.count == 2 && bed.onDisk == ["a": .number(1), "b": .number(2)])
    }
}
