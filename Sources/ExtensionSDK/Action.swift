/// An action or share extension: receives items from a host and returns items.
public protocol Action {
    /// Handles the items of one `perform` request and returns the resulting items.
    /// Throwing cancels the request: the host's `perform` gets the error's description
    /// (the protocol's `cancel`, cut to its 4 KiB bound).
    mutating func perform(items: [Item], context: ExtensionContext) throws -> [Item]

    /// The extension's memory crossed its `memory_high`: release caches. Optional.
    mutating func memoryWarning(current: UInt64, high: UInt64, context: ExtensionContext)
}

extension Action {
    /// Does nothing unless the extension implements it.
    public mutating func memoryWarning(current: UInt64, high: UInt64, context: ExtensionContext) {}
}
