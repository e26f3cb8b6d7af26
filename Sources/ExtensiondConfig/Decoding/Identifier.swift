/// The rules for names that become cgroup, file and directory names: ids of hosts, apps and
/// extensions, and app group names.
enum Identifier {
    /// Why `name` cannot be used, or `nil` when it can.
    static func problem(with name: String, kind: String) -> String? {
        let valid =
            !name.isEmpty && name != "." && name != ".."
            && !name.unicodeScalars.contains {
                $0 == "/" || $0.properties.isWhitespace || $0.properties.generalCategory == .control
            }
        if valid { return nil }
        return "\"\(name)\" cannot be \(kind): it becomes a cgroup and file name, so it must be non-empty,"
            + " must not be \".\" or \"..\", and must not contain \"/\", whitespace or control characters"
    }
}
