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

    package init(stateDirectory: String, isolation: Isolation) {
        self.stateDirectory = stateDirectory
        self.isolation = isolation
    }

    private var ownershipPath: String { stateDirectory + "/apps.json" }
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
        let previous = FileSystem.read(ownershipPath).flatMap { try? JSONCoding.decode([String: Ownership].self, from: $0) } ?? [:]
        for (app, owned) in previous.sorted(by: { $0.key < $1.key }) where configured[app] == nil && settingAside[app] == nil {
            setAside(app, owned, nowMs: nowMs, report: report)
        }
        let keepMs = configuration.supervisor.removedDataKeep.components.seconds * 1000
        for (app, tag) in tags() where nowMs - tag.removedAtMs >= keepMs {
            report(purge(app, tag) ?? "purged the data of removed app \(app), kept since its removal")
        }
        recordOwnership(report: report)
    }

    /// `apps.json`: what the configured apps own, and the removed apps not set aside yet;
    /// not written again when that is unchanged (a durable write on the loop).
    private func recordOwnership(report: (String) -> Void) {
        do {
            let owners = try JSONCoding.encode(configured.merging(settingAside) { own, _ in own })
            guard FileSystem.read(ownershipPath) != owners else { return }
            try FileSystem.writeAtomically(owners, to: ownershipPath)
        } catch {
            report("error: cannot record the apps' ownership in \(ownershipPath): \(error)")
        }
    }

    /// `supervisorctl purge APP`: removes at once what the removed app `app` left.
    package func purge(_ app: String) -> String? {
        guard let tag = tags()[app] else { return "no data of a removed app \(app) is kept" }
        return purge(app, tag)
    }

    /// Sets aside what `app` left once nothing writes into it: at once, or when the saves of
    /// its defaults and the jobs making its volumes that run end (the loop serves
    /// meanwhile). An app configured again by then keeps it all, as if never removed.
    private func setAside(_ app: String, _ owned: Ownership, nowMs: Int64, report: @escaping (String) -> Void) {
        settingAside[app] = owned
        var waited = false
        whenIdle(app, owned) { [unowned self] in
            defer { if waited { recordOwnership(report: report) } }
            settingAside[app] = nil
            guard configured[app] == nil else {
                return report("kept the data of app \(app) in place: it was configured again before it was set aside")
            }
            // What an earlier app of that id left goes first: only the last removal is kept.
            if let tag = tags()[app], let error = purge(app, tag) { return report(error) }
            report(move(app, owned, nowMs: nowMs))
        }
        waited = true
    }

    /// Calls `body` once no save of `owned`'s defaults and no job making one of its volumes
    /// runs, or once `app` is configured again. Those not begun are cancelled; after a wait
    /// it looks again, as the app may have been configured and removed once more meanwhile.
    private func whenIdle(_ app: String, _ owned: Ownership, then body: @escaping () -> Void) {
        var waited = false
        isolation.groups.finishSaves(of: owned.groups) { [unowned self] in
            guard configured[app] == nil else { return body() }
            isolation.volumes.cancelJobs(on: Self.paths(of: owned).map { stateDirectory + "/" + $0 }) { [unowned self] in
                if waited && configured[app] == nil { return whenIdle(app, owned, then: body) }
                body()
            }
        }
        waited = true
    }

    /// Moves what `app` left under `removed/APP` and tags it.
    private func move(_ app: String, _ owned: Ownership, nowMs: Int64) -> String {
        let directory = removedDirectory + "/" + app
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
            try FileSystem.writeAtomically(try JSONCoding.encode(Tag(app: app, removedAtMs: nowMs, owned: owned)), to: tagPath(app))
            try isolation.identities?.setAside(app: app, groups: owned.groups)
        } catch {
            return "error: setting aside the data of removed app \(app): \(error)"
        }
        return "set aside the data of removed app \(app) in \(directory)"
    }

    /// `nil` when done; otherwise what failed.
    private func purge(_ app: String, _ tag: Tag) -> String? {
        do {
            try isolation.identities?.release(app: app, groups: tag.owned.groups)
        } catch {
            return "error: freeing the ids of removed app \(app): \(error)"
        }
        return FileSystem.removeTree(removedDirectory + "/" + app) ? nil : "error: cannot remove all of \(removedDirectory)/\(app)"
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
