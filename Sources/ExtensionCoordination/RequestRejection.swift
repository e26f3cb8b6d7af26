import ExtensiondConfig

/// Why a host's or the CLI's request cannot be served.
package enum RequestRejection: Error, CustomStringConvertible {
    case unknown(String)
    case disabled(String)
    case wrongPoint(String, ExtensionPoint)
    case itemsRejected(String, String)
    /// A pull in a display mode the widget's `modes` does not declare.
    case undeclaredMode(String, String)
    /// A pull of one more instance than an extension may have.
    case tooManyInstances(String, Int)
    /// An `execute` while the previous one on the same card is still running.
    case executeInFlight(String)
    /// An `execute` with no refresh budget left.
    case noBudget(String)
    /// A place no `[places.NAME]` declares.
    case unknownPlace(String)
    /// `removeInstance` of an instance the user never added.
    case notAdded(String, String)

    package var description: String {
        switch self {
        case .unknown(let id): "unknown extension \"\(id)\""
        case .disabled(let id): "extension \"\(id)\" is disabled (supervisorctl enable \(id))"
        case .wrongPoint(let id, let point): "extension \"\(id)\" is a \(point.rawValue) extension; this request needs another point"
        case .itemsRejected(let id, let problem): "extension \"\(id)\" does not accept these items: \(problem)"
        case .tooManyInstances(let id, let limit): "extension \"\(id)\" has \(limit) instances already, the most it may have"
        case .executeInFlight(let id): "extension \"\(id)\" is still running the previous execute of this card"
        case .noBudget(let id): "extension \"\(id)\" has no refresh budget left (daily_budget, budget_burst)"
        case .unknownPlace(let place): "unknown place \"\(place)\" (see [places] in the config)"
        case .notAdded(let id, let instance): "extension \"\(id)\" has no added instance \"\(instance)\""
        case .undeclaredMode(let id, let mode): "extension \"\(id)\" does not declare mode \"\(mode)\" (see its modes)"
        }
    }
}
