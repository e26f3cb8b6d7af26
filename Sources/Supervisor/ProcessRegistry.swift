import ControlProtocol
import ExtensiondConfig

/// Every configured host, app and extension by name, in status order
/// (hosts, then apps, then extensions, each sorted by name).
final class ProcessRegistry {
    private(set) var ordered: [SupervisedProcess] = []
    private var byName: [String: SupervisedProcess] = [:]

    init(_ configuration: Configuration) {
        apply(configuration)
    }

    subscript(name: String) -> SupervisedProcess? { byName[name] }

    /// Matches the configuration: keeps the state of names that stay, adds new ones,
    /// drops removed ones. Returns the removed processes (for the caller to stop).
    @discardableResult
    func apply(_ configuration: Configuration) -> [SupervisedProcess] {
        let wanted: [(String, ProcessKind)] =
            configuration.hosts.map { ($0.id, .host) }
            + configuration.apps.map { ($0.id, .app) }
            + configuration.extensions.map { ($0.id, .extension) }
        var next: [String: SupervisedProcess] = [:]
        ordered = wanted.map { name, kind in
            let process = byName[name].flatMap { $0.kind == kind ? $0 : nil } ?? SupervisedProcess(name: name, kind: kind)
            next[name] = process
            return process
        }
        let removed = byName.values.filter { next[$0.name] !== $0 }
        byName = next
        return removed
    }

    /// The processes named, in status order; all of them when `names` is empty.
    /// Throws the first unknown name.
    func select(_ names: [String]) throws(UnknownNameError) -> [SupervisedProcess] {
        if names.isEmpty || names == ["all"] { return ordered }
        for name in names where byName[name] == nil { throw UnknownNameError(name: name) }
        let wanted = Set(names)
        return ordered.filter { wanted.contains($0.name) }
    }
}

/// A name that is not a configured host, app or extension.
struct UnknownNameError: Error, CustomStringConvertible {
    var name: String
    var description: String { "no host, app or extension named '\(name)'" }
}
