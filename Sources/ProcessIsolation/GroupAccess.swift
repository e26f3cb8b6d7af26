import ExtensiondConfig
import WireProtocol

/// Which app group an extension may use: only its own app's (`[[app]] groups`). Serves
/// an extension's `defaults` request from the shared ``GroupStore``.
package struct GroupAccess {
    let store: GroupStore
    private var groupsOfApp: [String: Set<String>] = [:]

    package init(store: GroupStore) {
        self.store = store
    }

    package mutating func configure(_ apps: [AppSpec]) {
        groupsOfApp = Dictionary(apps.map { ($0.id, Set($0.groups)) }, uniquingKeysWith: { first, _ in first })
    }

    /// The answer to a `defaults` request from an extension of `app`.
    package func perform(_ request: ExtensionToSupervisor.Defaults, forAppOf app: String) -> SupervisorToExtension.DefaultsResult.Outcome {
        guard let groups = groupsOfApp[app], groups.contains(request.group) else {
            return .error("group \"\(request.group)\" does not belong to app \"\(app)\"")
        }
        do {
            return .value(try store.perform(request.op, group: request.group, key: request.key, value: request.value))
        } catch {
            return .error(error.description)
        }
    }
}
