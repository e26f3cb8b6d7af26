/// A PSI trigger: notify when tasks stalled on memory for at least `stall`
/// within any `window`, as in `pressure.psi = "some 150ms 2s"`.
public struct PressureTriggerRule: Equatable, Sendable, CustomStringConvertible {
    /// Which stall is measured.
    public enum Scope: String, Sendable {
        /// At least one task stalled.
        case some
        /// All non-idle tasks stalled at once.
        case full
    }

    /// `some` or `full`.
    public var scope: Scope
    /// The stall time within a window that fires the trigger.
    public var stall: Duration
    /// The tracking window; the kernel takes 0.5-10 s, and without
    /// CAP_SYS_RESOURCE only multiples of 2 s.
    public var window: Duration

    /// Creates a rule.
    public init(_ scope: Scope, stall: Duration, window: Duration) {
        self.scope = scope
        self.stall = stall
        self.window = window
    }

    /// What is written to the pressure file: `some 150000 2000000` (microseconds).
    public var kernelText: String {
        "\(scope.rawValue) \(Self.microseconds(stall)) \(Self.microseconds(window))"
    }

    /// The rule as the kernel reads it.
    public var description: String { kernelText }

    private static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
