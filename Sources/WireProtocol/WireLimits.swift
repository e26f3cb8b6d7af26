/// Bounds on the fields of the containing app's requests and of `defaults`, so that what a
/// peer makes the supervisor hold, store and repeat in its answers is limited. A field past
/// its bound makes the message invalid, with an error that names the field.
public enum WireLimits {
    /// An extension or app group id, in UTF-8 bytes: ids become file names (`NAME_MAX`).
    public static let maxIdentifierBytes = 255
    /// Extensions named in one `reloadExtensions`.
    public static let maxExtensionsPerRequest = 256
    /// A shared-defaults key, in UTF-8 bytes.
    public static let maxDefaultsKeyBytes = 1024
    /// A widget instance's `params`, encoded, in bytes (they are kept per instance).
    public static let maxParamsBytes = 4096
}

extension KeyedDecodingContainer {
    /// A widget instance's name, at most ``WireLimits/maxIdentifierBytes``, if present.
    package func decodeInstance(forKey key: Key) throws -> String? {
        try decodeBoundedStringIfPresent(forKey: key, maxBytes: WireLimits.maxIdentifierBytes)
    }

    /// A widget instance's `params`, at most ``WireLimits/maxParamsBytes`` encoded, if present.
    package func decodeParams(forKey key: Key) throws -> JSONValue? {
        guard let params = try decodeIfPresent(JSONValue.self, forKey: key) else { return nil }
        guard params.encoded().bytes.count <= WireLimits.maxParamsBytes else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "longer than \(WireLimits.maxParamsBytes) bytes encoded")
        }
        return params
    }

    /// A list of extension ids, at most ``WireLimits/maxExtensionsPerRequest`` of them, each
    /// at most ``WireLimits/maxIdentifierBytes``.
    package func decodeExtensionIDs(forKey key: Key) throws -> [String] {
        var list = try nestedUnkeyedContainer(forKey: key)
        var ids: [String] = []
        while !list.isAtEnd {
            guard ids.count < WireLimits.maxExtensionsPerRequest else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: self, debugDescription: "more than \(WireLimits.maxExtensionsPerRequest) extensions")
            }
            let id = try list.decode(String.self)
            guard id.utf8.count <= WireLimits.maxIdentifierBytes else {
                throw DecodingError.dataCorruptedError(
                    in: list, debugDescription: "longer than \(WireLimits.maxIdentifierBytes) bytes (\(id.utf8.count))")
            }
            ids.append(id)
        }
        return ids
    }
}
