import DaemonSupport
import EventLoop
import ExtensiondPolicy
import Sockets
import WireProtocol

/// What survives a daemon restart, in `state_dir`: the user's enabled set, and each
/// extension's last snapshot and refresh schedule (budget included) in each display mode. Every write is atomic
/// and made beside the loop (`files`).
package struct ExtensionStore {
    let stateDirectory: String
    /// The version files written last, kept open (see ``ShownVersion``).
    let versionFiles = OpenVersionFiles()
    let files: DurableFiles

    /// `files` writes inline where there is no loop (in-process tests).
    package init(stateDirectory: String, files: DurableFiles = DurableFiles(work: InlineWork())) {
        self.stateDirectory = stateDirectory
        self.files = files
    }

    private var enabledPath: String { stateDirectory + "/enabled.json" }
    private var hasContentPath: String { stateDirectory + "/has-content.json" }
    private func recordPath(_ id: String) -> String { stateDirectory + "/extensions/" + id + ".json" }

    package func createDirectories() throws(SystemError) {
        try FileSystem.createDirectories(stateDirectory + "/extensions", mode: 0o750)
    }

    /// The persisted enabled states; empty when never written.
    func loadEnabled() throws(UnreadableStoreFile) -> [String: Bool] {
        try load([String: Bool].self, from: enabledPath) ?? [:]
    }

    /// `enabled.json`, written beside the loop.
    func enabledRecord(clock: any CoordinatorClock, events: EventLog) -> DurableRecord {
        record(of: enabledPath, clock: clock, events: events)
    }

    /// The state file at `path`, as it is on disk now, written beside the loop.
    func record(of path: String, clock: any CoordinatorClock, events: EventLog) -> DurableRecord {
        DurableRecord(path: path, content: FileSystem.read(path), files: files, clock: clock, events: events)
    }

    /// The `hasContent` each extension last declared (`setHasContent`); empty when never written.
    func loadHasContent() throws(UnreadableStoreFile) -> [String: Bool] {
        try load([String: Bool].self, from: hasContentPath) ?? [:]
    }

    func saveHasContent(_ hasContent: [String: Bool], then done: @escaping DurableFiles.Completion) {
        files.write(Self.encode(hasContent), to: hasContentPath, then: done)
    }

    /// What was saved of each display mode of `id`, moved onto this boot's monotonic clock by
    /// the wall-clock time that passed since it was saved. Empty when nothing was saved.
    func loadModes(_ id: String, now: Instant) throws(UnreadableStoreFile) -> [DisplayMode: SavedMode] {
        guard let saved = try load(SavedRecord.self, from: recordPath(id)) else { return [:] }
        // Saturating: a damaged or edited file may hold any reading.
        let elapsed = Duration.milliseconds(max(0, WallClock.nowMilliseconds().saturatingSubtract(saved.savedAtWallMs)))
        let offset = (now - elapsed) - Instant(nanoseconds: saved.savedAtMonotonicNs)
        var modes: [DisplayMode: SavedMode] = [:]
        for (name, mode) in saved.allModes {
            guard let displayMode = DisplayMode(rawValue: name) else { continue }
            modes[displayMode] = SavedMode(record: mode.record.rebased(by: offset), preferredSize: mode.preferredSize)
        }
        return modes
    }

    func saveModes(_ modes: [DisplayMode: SavedMode], for id: String, now: Instant, then done: @escaping DurableFiles.Completion) {
        let saved = SavedRecord(
            modes: Dictionary(uniqueKeysWithValues: modes.map { ($0.key.rawValue, $0.value) }),
            savedAtMonotonicNs: now.nanoseconds, savedAtWallMs: WallClock.nowMilliseconds())
        files.write(Self.encode(saved), to: recordPath(id), then: done)
    }

    /// The value saved at `path`; `nil` when there is no such file.
    func load<Value: Decodable>(_: Value.Type, from path: String) throws(UnreadableStoreFile) -> Value? {
        guard let bytes = FileSystem.read(path) else { return nil }
        do {
            return try JSONCoding.decode(Value.self, from: bytes)
        } catch {
            throw UnreadableStoreFile(path: path, reason: "\(error)")
        }
    }

    package static func encode(_ value: some Encodable) -> [UInt8] {
        (try? JSONCoding.encode(value)) ?? []
    }

    private struct SavedRecord: Codable {
        /// Each display mode's state, by its wire name.
        var modes: [String: SavedMode]?
        /// The one record of files written before display modes had their own: the compact one.
        var record: RefreshRecord<EncodedJSON>?
        var savedAtMonotonicNs: Int64
        var savedAtWallMs: Int64

        init(modes: [String: SavedMode], savedAtMonotonicNs: Int64, savedAtWallMs: Int64) {
            self.modes = modes
            self.savedAtMonotonicNs = savedAtMonotonicNs
            self.savedAtWallMs = savedAtWallMs
        }

        var allModes: [String: SavedMode] {
            modes ?? record.map { [DisplayMode.compact.rawValue: SavedMode(record: $0, preferredSize: nil)] } ?? [:]
        }
    }
}

/// A file in `state_dir` that exists but does not hold what the daemon saved there
/// (damaged, or written by something else).
package struct UnreadableStoreFile: Error, CustomStringConvertible {
    let path: String
    let reason: String

    package var description: String { "\(path) cannot be read back: \(reason)" }
}
