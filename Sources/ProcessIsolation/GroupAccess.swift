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

    /// Answers a `defaults` request of `writer`, the app `app` or one of its extensions;
    /// a write is answered once it is saved.
    package func perform(
        _ request: ExtensionToSupervisor.Defaults, forAppOf app: String, by writer: DefaultsWriter,
        reply: @escaping (SupervisorToExtension.DefaultsResult.Outcome) -> Void
    ) {
        guard let groups = groupsOfApp[app], groups.contains(request.group) else {
            return reply(.error("group \"\(request.group)\" does not belong to app \"\(app)\""))
        }
        store.perform(request.op, group: request.group, key: request.key, value: request.value, by: writer) { outcome in
            switch outcome {
            case .success(let value): reply(.value(value))
            case .failure(let error): reply(.error(error.description))
            }
        }
    }
}
