/// Why bytes are not one JSON value, and where: the byte offset of the problem.
public struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong, e.g. "unterminated string".
    public var problem: String
    /// The offset of the byte where it was noticed.
    public var offset: Int

    /// Creates the error from its fields.
    public init(problem: String, offset: Int) {
        self.problem = problem
        self.offset = offset
    }

    public var description: String { "\(problem) at byte \(offset)" }
}
