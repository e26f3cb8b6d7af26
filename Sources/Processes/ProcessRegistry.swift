import ControlProtocol
import DaemonSupport
import ExtensiondConfig
import Output

/// Every configured host, app and extension by name, in status order
/// (hosts, then apps, then extensions, each sorted by name).
package final class ProcessRegistry {
    package private(set) var ordered: [SupervisedProcess] = []
    private var byName: [String: SupervisedProcess] = [:]
    /// Removed by a reload and still stopping: kept until ``retired(_:)``, so that their
    /// exit is seen, their group removed and a shutdown waits for them.
    package private(set) var retiring: [SupervisedProcess] = []
    private let logDirectory: String

    /// `logDirectory` holds each process's captured output.
    package init(_ configuration: Configuration, logDirectory: String) {
        self.logDirectory = logDirectory
        apply(configuration)
    }

    /// The process last found by name: a request asks for its extension several times
    /// (phase, thaw, send, serving, idle), and comparing a name costs less than hashing
    /// it. Forgotten whenever the names change.
    private var lastFound: SupervisedProcess?

    package subscript(name: String) -> SupervisedProcess? {
        if let lastFound, lastFound.name == name { return lastFound }
        let found = byName[name]
        if found != nil { lastFound = found }
        return found
    }

    /// Matches the configuration: names that stay keep their state and take the new
    /// definition (used from their next start), new names are added (a removed one of
    /// the same kind still stopping comes back, so that two runs never share a group),
    /// and removed ones are returned for the caller to stop and then ``retired(_:)``.
    @discardableResult
    package func apply(_ configuration: Configuration) -> [SupervisedProcess] {
        let wanted = Self.definitions(of: configuration)
        let settings = configuration.supervisor
        var next: [String: SupervisedProcess] = [:]
        ordered = wanted.map { name, definition in
            let process: SupervisedProcess
            let known = [byName[name]].compactMap { $0 } + retiring.filter { $0.name == name }
            if let existing = known.first(where: { $0.kind == definition.kind }) {
                existing.definition = definition
                retired(existing)
                process = existing
            } else {
                let log = OutputLog(directory: logDirectory, name: name, maxSize: settings.logMaxSize.bytes, files: settings.logFiles)
                process = SupervisedProcess(name: name, definition: definition, output: log)
            }
            process.outputRate = Int(clamping: settings.outputRate.bytes)
            next[name] = process
            return process
        }
        let removed = byName.values.filter { next[$0.name] !== $0 }
        byName = next
        lastFound = nil
        retiring += removed
        return removed
    }

    /// `process`, removed by a reload, is down.
    package func retired(_ process: SupervisedProcess) {
        retiring.removeAll { $0 === process }
    }

    /// Every process `configuration` defines, in status order.
    package static func definitions(of configuration: Configuration) -> [(name: String, definition: ProcessDefinition)] {
        configuration.hosts.map { ($0.id, .host($0)) }
            + configuration.apps.map { ($0.id, .app($0)) }
            + configuration.extensions.map { ($0.id, .extension($0)) }
    }

    /// What applying `configuration` would add, change (a new definition) and remove.
    package func changes(to configuration: Configuration) -> ConfigChanges {
        let wanted = Self.definitions(of: configuration)
        let names = Set(wanted.map(\.name))
        return ConfigChanges(
            added: wanted.filter { byName[$0.name] == nil }.map(\.name),
            changed: wanted.filter { name, definition in byName[name].map { $0.definition != definition } ?? false }.map(\.name),
            removed: ordered.filter { !names.contains($0.name) }.map(\.name))
    }

    /// The processes named, in status order; all of them when `names` is empty or `all`.
    /// A name may be a glob (`com.example.*`) or `APP:PATTERN` (`APP:*`: the app and its
    /// extensions); each must match at least one process.
    package func select(_ names: [String]) throws(UnknownNameError) -> [SupervisedProcess] {
        if names.isEmpty || names == ["all"] { return ordered }
        var wanted = Set<ObjectIdentifier>()
        for name in names {
            let pattern = NamePattern(name)
            let matches = ordered.filter(pattern.matches)
            if matches.isEmpty { throw UnknownNameError(name: name) }
            wanted.formUnion(matches.map(ObjectIdentifier.init))
        }
        return ordered.filter { wanted.contains(ObjectIdentifier($0)) }
    }
}

/// A name that is not a configured host, app or extension.
package struct UnknownNameError: Error, CustomStringConvertible {
    var name: String

    package init(name: String) {
        self.name = name
    }

    package var description: String { "no host, app or extension named '\(name)'" }
}
