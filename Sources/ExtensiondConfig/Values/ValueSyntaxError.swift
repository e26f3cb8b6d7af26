/// A config value that is not spelled the way its type requires, e.g. `"10"` for a duration.
public struct ValueSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong and the form that was expected.
    public var message: String

    /// Creates an error with a message that says what was expected.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
