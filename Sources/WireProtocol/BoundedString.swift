/// String fields with a length bound, so that what a peer makes the supervisor hold (and
/// pass on to others) is limited, with an error that names the field.
extension KeyedDecodingContainer {
    package func decodeBoundedString(forKey key: Key, maxBytes: Int) throws -> String {
        let value = try decode(String.self, forKey: key)
        guard value.utf8.count <= maxBytes else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "longer than \(maxBytes) bytes (\(value.utf8.count))")
        }
        return value
    }

    package func decodeBoundedStringIfPresent(forKey key: Key, maxBytes: Int) throws -> String? {
        try contains(key) ? decodeBoundedString(forKey: key, maxBytes: maxBytes) : nil
    }
}
