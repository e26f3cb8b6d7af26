/// Why a document is not TOML, and where: the first offending character.
public struct TOMLError: Error, Sendable, Equatable, CustomStringConvertible {
    public var position: TOMLPosition
    /// What is wrong, usually as "expected …, found …".
    public var message: String

    public init(at position: TOMLPosition, _ message: String) {
        self.position = position
        self.message = message
    }

    /// `line:column: message`.
    public var description: String { "\(position): \(message)" }
}
