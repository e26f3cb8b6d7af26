import DaemonSupport
import ExtensiondConfig
import Glibc
import Sockets
import WireProtocol

/// What an app removed from the config leaves in `state_dir` (its extensions' data
/// directories and snapshots, its groups' containers and shared defaults, its uid and
/// gids) is set aside under `state_dir/removed/APP`, tagged with what the removed app
/// owned, so that a new app given the same id starts fresh and never inherits it. It is
/// purged `removed_data_keep` after the removal, or at once by `supervisorctl purge APP`
/// (docs/CONFIG.md, docs/CLI.md).
package final class RemovedApps {
    /// What one app owns: its extensions and its groups.
    struct Ownership: Codable, Equatable {
        var extensions: [String]
        var groups: [String]

        func merged(with other: Ownership) -> Ownership {
            Ownership(
                extensions: Array(Set(extensions + other.extensions)).sorted(), groups: Array(Set(groups + other.groups)).sorted())
        }
    }

    /// `removed/APP/removed.json`: whose data this is, and since when it is kept.
    struct Tag: Codable {
        var app: String
        var removedAtMs: Int64
        var owned: Ownership
    }

    private let stateDirectory: String
    private let isolation: Isolation
    /// What the apps of the config applied last own.
    private var configured: [String: Ownership] = [:]
    /// Removed apps whose data waits for a volume job on it to end before it is moved;
    /// `apps.json` keeps them meanwhile, so that a daemon stopped first sets them aside at
    /// its next start.
    private var settingAside: [String: Ownership] = [:]
    /// How many removed apps are being moved and tagged, and what waits for them.
    private var moving = 0
    /// `removed_data_keep` of the config applied last.
    private var keepMs: Int64 = .max
    private var afterMoves: [() -> Void] = []

    /// `apps.json`, written beside the loop.
    private let ownership: DurableRecord
    private let files: DurableFiles

    package init(stateDirectory: String, isolation: Isolation, files: DurableFiles, clock: any CoordinatorClock, events: EventLog) {
        self.stateDirectory = stateDirectory
        self.isolation = isolation
        self.files = files
        let path = stateDirectory + "/apps.json"
        ownership = DurableRecord(path: path, content: FileSystem.read(path), files: files, clock: clock, events: events)
    }

    private var removedDirectory: String { stateDirectory + "/removed" }
    private func tagPath(_ app: String) -> String { removedDirectory + "/" + app + "/removed.json" }

    /// Paths under `state_dir` that hold what `owned` owns (a `disk_max` volume's image too).
    private static func paths(of owned: Ownership) -> [String] {
        let extensionPaths: [String] = owned.extensions.flatMap { id -> [String] in
            ["data/\(id)", "volumes/data/\(id).img", "extensions/\(id).json", "extensions/\(id).version"]
        }
        let groupPaths: [String] = owned.groups.flatMap { group -> [String] in
            ["groups/\(group)", "volumes/groups/\(group).img", "defaults/\(group).json"]
        }
        return extensionPaths + groupPaths
    }

    /// The apps `configuration` declares, with what each owns.
    static func ownership(_ configuration: Configuration) -> [String: Ownership] {
        Dictionary(
            uniqueKeysWithValues: configuration.apps.map { app in
                (app.id, Ownership(extensions: configuration.extensions.filter { $0.app == app.id }.map(\.id), groups: app.groups))
            })
    }

    /// At start and after each reload: sets aside what the apps of the last config
    /// (`apps.json`) that `configuration` no longer declares left behind, purges what was
    /// kept longer than `removed_data_keep`, and records what each app owns now. Calls
    /// `report` with a line per app set aside or purged, and errors; an app whose volume is
    /// being made is set aside once that job ends, and reported then.
    package func settle(_ configuration: Configuration, nowMs: Int64, report: @escaping (String) -> Void) {
        configured = Self.ownership(configuration)
        let previous = ownership.content.flatMap { try? JSONCoding.decode([String: Ownership].self, from: $0) } ?? [:]
        for (app, owned) in previous.sorted(by: { $0.key < $1.key }) where configured[app] == nil {
            if let waiting = settingAside[app] {
                // Configured again and removed again while its first removal waits: that
                // removal sets aside what either config gave the app.
                settingAside[app] = waiting.merged(with: owned)
            } else {
                setAside(app, owned, nowMs: nowMs, report: report)
            }
        }
        keepMs = configuration.supervisor.removedDataKeep.components.seconds * 1000
        purgeExpired(nowMs: nowMs, report: report)
        recordOwnership()
    }

    /// Purges what was kept longer than `removed_data_keep` (`0s`: what was just set aside).
    private func purgeExpired(nowMs: Int64, report: (String) -> Void) {
        for (app, tag) in tags() where nowMs - tag.removedAtMs >= keepMs {
            report(purge(app, tag) ?? "purged the data of removed app \(app), kept since its removal")
        }
    }

    /// Calls `body` on the loop once the removed apps being moved are tagged on disk, and
    /// `apps.json` and `identities.json` hold their newest content, or with why `apps.json`
    /// could not be written (it is kept, and tried again). Removed apps that wait for a
    /// volume job or a defaults save are not waited for: `apps.json` lists them meanwhile.
    package func whenRecorded(then body: @escaping DurableFiles.Completion) {
        guard moving == 0 else { return afterMoves.append { [unowned self] in whenRecorded(then: body) } }
        ownership.whenWritten { [unowned self] failure in
            guard let identities = isolation.identities else { return body(failure) }
            identities.whenWritten { _ in body(failure) }
        }
    }

    /// `apps.json`: what the configured apps own, and the removed apps not set aside yet
    /// (until their data is moved and tagged on disk); not written when that is unchanged.
    private func recordOwnership() {
        ownership.save((try? JSONCoding.encode(configured.merging(settingAside) { own, _ in own })) ?? [])
    }

    private func wakeAfterMoves() {
        let waiting = afterMoves
        afterMoves = []
        for body in waiting { body() }
    }

    /// `supervisorctl purge APP`: removes at once what the removed app `app` left.
    package func purge(_ app: String) -> String? {
        guard let tag = tags()[app] else { return "no data of a removed app \(app) is kept" }
        return purge(app, tag)
    }

    /// Sets aside what `app` left once nothing writes into it: at once, or when the saves of
    /// its defaults and the jobs making its volumes that run end (the loop serves
    /// meanwhile). An app configured again by then keeps it all, as if never removed.
    ///
    /// `apps.json` lists the app until its data is moved, its tag and the setting aside of
    /// its ids are on disk: a crash before that sets it aside again at the next start.
    private func setAside(_ app: String, _ owned: Ownership, nowMs: Int64, report: @escaping (String) -> Void) {
        settingAside[app] = owned
        whenIdle(app) { [unowned self] in
            let owned = settingAside[app] ?? owned
            guard configured[app] == nil else {
                settingAside[app] = nil
                recordOwnership()
                return report("kept the data of app \(app) in place: it was configured again before it was set aside")
            }
            var removedAtMs = nowMs
            if let tag = tags()[app] {
                if isMoved(owned, as: tag) {
                    // This removal, tagged before a crash: finished, not purged.
                    removedAtMs = tag.removedAtMs
                } else if let error = purge(app, tag) {
                    // What an earlier app of that id left goes first: only the last removal is kept.
                    settingAside[app] = nil
                    recordOwnership()
                    return report(error)
                }
            }
            moving += 1
            move(app, owned, nowMs: removedAtMs) { [unowned self] outcome in
                report(outcome)
                moving -= 1
                defer { if moving == 0 { wakeAfterMoves() } }
                // Configured and removed again meanwhile, owning more: that goes too.
                if let more = settingAside[app], more != owned, configured[app] == nil {
                    return setAside(app, more, nowMs: nowMs, report: report)
                }
                settingAside[app] = nil
                purgeExpired(nowMs: nowMs, report: report)
                recordOwnership()
            }
        }
    }

    /// Whether `tag` is of this very removal of `owned`, moved before the daemon was killed
    /// and not yet dropped from `apps.json`: the same ownership, nothing of it left in place.
    private func isMoved(_ owned: Ownership, as tag: Tag) -> Bool {
        tag.owned == owned && Self.paths(of: owned).allSatisfy { access(stateDirectory + "/" + $0, F_OK) != 0 }
    }

    /// Calls `body` once no save of the defaults of what `app` owned (`settingAside`) and no
    /// job making one of its volumes runs, or once `app` is configured again. Those not begun
    /// are cancelled; after a wait it looks again, as the app may have been configured and
    /// removed once more meanwhile, owning more.
    private func whenIdle(_ app: String, then body: @escaping () -> Void) {
        guard let owned = settingAside[app] else { return body() }
        var waited = false
        isolation.groups.finishSaves(of: owned.groups) { [unowned self] in
            guard configured[app] == nil else { return body() }
            isolation.volumes.cancelJobs(on: Self.paths(of: owned).map { stateDirectory + "/" + $0 }) { [unowned self] in
                if waited && configured[app] == nil { return whenIdle(app, then: body) }
                body()
            }
        }
        waited = true
    }

    /// Moves what `app` left under `removed/APP`, then tags it and sets its ids aside
    /// beside the loop; `done` gets the line to report once both are on disk (or failed).
    private func move(_ app: String, _ owned: Ownership, nowMs: Int64, done: @escaping (String) -> Void) {
        let directory = removedDirectory + "/" + app
        let failed = { (error: any Error) in done("error: setting aside the data of removed app \(app): \(error)") }
        let tag: [UInt8]
        do {
            try FileSystem.createDirectories(directory, mode: 0o700)
            for path in Self.paths(of: owned) {
                isolation.volumes.release(stateDirectory + "/" + path)
                try FileSystem.createDirectories(directory + "/" + String(path[..<path.lastIndex(of: "/")!]), mode: 0o711)
                guard rename(stateDirectory + "/" + path, directory + "/" + path) == 0 || errno == ENOENT else {
                    throw SystemError("rename \(path) to \(directory)/\(path)")
                }
            }
            for group in owned.groups { isolation.groups.forget(group) }
            tag = try JSONCoding.encode(Tag(app: app, removedAtMs: nowMs, owned: owned))
        } catch {
            return failed(error)
        }
        // The ids are set aside even when the tag could not be written: never handed out again.
        files.write(tag, to: tagPath(app)) { [unowned self] tagError in
            let setAside = "set aside the data of removed app \(app) in \(directory)"
            guard let identities = isolation.identities else { return tagError.map(failed) ?? done(setAside) }
            identities.setAside(app: app, groups: owned.groups) { error in
                if let error = tagError ?? error { return failed(error) }
                done(setAside)
            }
        }
    }

    /// `nil` when done; otherwise what failed. The ids are freed on disk after the files
    /// are gone: a crash between keeps them reserved, never hands them out twice.
    private func purge(_ app: String, _ tag: Tag) -> String? {
        let removed = FileSystem.removeTree(removedDirectory + "/" + app)
        isolation.identities?.release(app: app, groups: tag.owned.groups)
        return removed ? nil : "error: cannot remove all of \(removedDirectory)/\(app)"
    }

    private func tags() -> [String: Tag] {
        var tags: [String: Tag] = [:]
        for name in FileSystem.entries(of: removedDirectory) ?? [] {
            guard let bytes = FileSystem.read(tagPath(name)), let tag = try? JSONCoding.decode(Tag.self, from: bytes), tag.app == name
            else { continue }
            tags[name] = tag
        }
        return tags
    }
}
