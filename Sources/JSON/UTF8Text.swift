extension String {
    /// The string `bytes` spell in UTF-8, or `nil` when they are not valid UTF-8. ASCII, most
    /// of what the protocols carry, is taken as is: the generic validation costs a metadata
    /// lookup per string. Inlinable: the host protocol's pull fast path reads every string
    /// with it from another module.
    @inlinable
    package init?(validUTF8 bytes: UnsafeBufferPointer<UInt8>) {
        if bytes.allSatisfy({ $0 < 0x80 }) {
            self = String(decoding: bytes, as: UTF8.self)
        } else if let text = String(validating: bytes, as: UTF8.self) {
            self = text
        } else {
            return nil
        }
    }
}
