/// The checks that span entries: extensions name a declared app, and every URL scheme and
/// every app group belongs to one app only (an extension reaches only its own app's groups,
/// so a group shared by two apps would leak between them).
enum CrossReferences {
    /// Reports each broken reference at the key that makes it, found in the merged `root`.
    static func check(_ configuration: Configuration, root: ConfigNode, diagnostics: Diagnostics) {
        let appIDs = Set(configuration.apps.map(\.id))
        for spec in configuration.extensions where !appIDs.contains(spec.app) {
            let declared = configuration.apps.map { "\"\($0.id)\"" }.joined(separator: ", ")
            diagnostics.report(
                origin(root, ["extensions", spec.id, "app"]).error(
                    "no app \"\(spec.app)\" is declared" + (declared.isEmpty ? " (there are no [apps])" : "; declared apps: \(declared)")))
        }
        claimOnce(configuration.apps, \.urlSchemes, key: "url_schemes", what: "URL scheme", root: root, diagnostics: diagnostics)
        claimOnce(configuration.apps, \.groups, key: "groups", what: "app group", root: root, diagnostics: diagnostics)
    }

    /// Reports every name in `names` that an earlier app (by id) or earlier entry already claimed.
    private static func claimOnce(
        _ apps: [AppSpec], _ names: KeyPath<AppSpec, [String]>, key: String, what: String,
        root: ConfigNode, diagnostics: Diagnostics
    ) {
        var owners: [String: String] = [:]
        for app in apps {
            for (index, name) in app[keyPath: names].enumerated() {
                guard let owner = owners[name] else {
                    owners[name] = app.id
                    continue
                }
                let claim = owner == app.id ? "is listed twice" : "is already claimed by app \"\(owner)\""
                let element = origin(root, ["apps", app.id, key], index: index)
                diagnostics.report(element.error("\(what) \"\(name)\" \(claim); each belongs to exactly one app"))
            }
        }
    }

    /// Where the value at `path` (or one of its array elements) was written.
    private static func origin(_ root: ConfigNode, _ path: [String], index: Int? = nil) -> Origin {
        let node = root.node(at: path)
        guard let index else { return node?.origin ?? root.origin }
        if case .array(let elements)? = node?.value, elements.indices.contains(index) { return elements[index].origin }
        return node?.origin ?? root.origin
    }
}
