/// The environment an extension is started with: the names the spawner sets and the SDK
/// reads, and the encoding of the group-container list.
public enum ExtensionEnvironment {
    /// The descriptor number of the connected socket (always `3`).
    public static let fdVariable = "EXTENSIOND_FD"
    /// The extension's id, as in the config.
    public static let extensionIDVariable = "EXTENSIOND_EXTENSION_ID"
    /// Given to supervised hosts and apps: the path of `host.sock`.
    public static let hostSocketVariable = "EXTENSIOND_HOST_SOCKET"
    /// The app groups the extension may use, as `id=path` pairs separated by `:`.
    public static let groupContainersVariable = "EXTENSIOND_GROUP_CONTAINERS"
    /// The extension's private data directory (0700, its own uid); `TMPDIR` and `HOME` are in it.
    public static let dataDirectoryVariable = "EXTENSIOND_DATA_DIR"

    /// The socket's descriptor number.
    public static let socketDescriptor: Int32 = 3

    /// `group.a=/var/lib/extensiond/groups/group.a:group.b=/...`. Neither ids nor paths
    /// may contain `:`, and ids may not contain `=`; such groups must not be configured.
    public static func encodeGroupContainers(_ containers: [String: String]) -> String {
        containers.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ":")
    }

    /// The inverse of ``encodeGroupContainers(_:)``; entries without `=` or with an empty
    /// id or path are skipped.
    public static func decodeGroupContainers(_ text: String) -> [String: String] {
        var containers: [String: String] = [:]
        for entry in text.split(separator: ":") {
            guard let equals = entry.firstIndex(of: "=") else { continue }
            let id = entry[..<equals]
            let path = entry[entry.index(after: equals)...]
            if !id.isEmpty && !path.isEmpty { containers[String(id)] = String(path) }
        }
        return containers
    }
}
