import JSON

/// The protocols' shared values as the fast paths read them in place (see ``JSONScanner``).
extension JSONScanner {
    /// `{"width":W,"height":H}` in either order, plain non-negative integers, nothing else.
    package mutating func size() -> Size? {
        var width: UInt64?, height: UInt64?
        let complete = object { key, scanner in
            switch key {
            case "width" where width == nil:
                width = scanner.integer(max: UInt64(Int32.max))
                return width != nil
            case "height" where height == nil:
                height = scanner.integer(max: UInt64(Int32.max))
                return height != nil
            default: return false
            }
        }
        guard complete, let width, let height else { return nil }
        return Size(width: Int(width), height: Int(height))
    }

    /// A request id: a plain integer up to ``RequestID/maximum``.
    package mutating func requestID() -> RequestID? {
        integer(max: RequestID.maximum).map(RequestID.init(rawValue:))
    }
}
