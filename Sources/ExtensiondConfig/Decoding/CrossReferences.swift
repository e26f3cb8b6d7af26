/// The checks that span entries: extensions name a declared app, hosts limited to some
/// extensions name declared ones, and every URL scheme and
/// every app group belongs to one app only (an extension reaches only its own app's groups,
/// so a group shared by two apps would leak between them).
///
/// They run on the merged tree rather than on decoded entries, so that an entry with an
/// unrelated mistake is still checked, and an app with a mistake still counts as declared
/// (one mistake, one error).
enum CrossReferences {
    /// Reports each broken reference at the key that makes it.
    static func check(_ root: ConfigNode, diagnostics: Diagnostics) {
        let apps = entries(root, "apps")
        let appIDs = apps.map(\.id)
        for (_, node) in entries(root, "extensions") {
            guard let reference = node.node(at: ["app"]), case .string(let app) = reference.value, !appIDs.contains(app)
            else { continue }
            let declared = appIDs.map { "\"\($0)\"" }.joined(separator: ", ")
            diagnostics.report(
                reference.origin.error(
                    "no app \"\(app)\" is declared"
                        + (declared.isEmpty ? " (there are no [apps])" : "; declared apps: \(declared)")))
        }
        let extensionIDs = Set(entries(root, "extensions").map(\.id))
        for (_, node) in entries(root, "hosts") {
            guard case .array(let elements)? = node.node(at: ["extensions"])?.value else { continue }
            for element in elements {
                guard case .string(let id) = element.value, !extensionIDs.contains(id) else { continue }
                diagnostics.report(element.origin.error("no extension \"\(id)\" is declared"))
            }
        }
        claimOnce(
            apps, key: "url_schemes", what: "URL scheme", normalize: { $0.lowercased() }, diagnostics: diagnostics)
        claimOnce(apps, key: "groups", what: "app group", normalize: { $0 }, diagnostics: diagnostics)
    }

    /// The entries of `[section]`, sorted by id.
    private static func entries(_ root: ConfigNode, _ section: String) -> [(id: String, node: ConfigNode)] {
        (root.node(at: [section])?.table ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Reports every string in the `key` arrays of `apps` that an earlier app (by id), or an
    /// earlier element of the same array, already claimed.
    private static func claimOnce(
        _ apps: [(id: String, node: ConfigNode)], key: String, what: String,
        normalize: (String) -> String, diagnostics: Diagnostics
    ) {
        var owners: [String: String] = [:]
        for (id, node) in apps {
            guard case .array(let elements)? = node.node(at: [key])?.value else { continue }
            for element in elements {
                guard case .string(let written) = element.value else { continue }
                let name = normalize(written)
                guard let owner = owners[name] else {
                    owners[name] = id
                    continue
                }
                let claim = owner == id ? "is listed twice" : "is already claimed by app \"\(owner)\""
                diagnostics.report(
                    element.origin.error("\(what) \"\(name)\" \(claim); each belongs to exactly one app"))
            }
        }
    }
}
