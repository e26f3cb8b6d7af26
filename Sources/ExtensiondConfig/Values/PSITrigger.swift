/// A PSI trigger as the kernel takes it, written in config as `some 150ms 2s`:
/// a stall of `stall` within any `window` fires it.
public struct PSITrigger: Sendable, Equatable, CustomStringConvertible {
    /// Which pressure line the trigger watches.
    public enum Kind: String, Sendable, CaseIterable {
        /// Some tasks stalled on memory.
        case some
        /// All non-idle tasks stalled on memory at once.
        case full
    }

    /// The pressure line watched.
    public var kind: Kind
    /// The cumulative stall time within `window` that fires the trigger.
    public var stall: Duration
    /// The tracking window; the kernel takes 500ms to 10s.
    public var window: Duration

    /// A trigger for `stall` within `window`.
    public init(kind: Kind, stall: Duration, window: Duration) {
        self.kind = kind
        self.stall = stall
        self.window = window
    }

    /// The window range the kernel accepts.
    public static let windowRange: ClosedRange<Duration> = .milliseconds(500)...(.seconds(10))

    /// What a trigger must look like, for error messages.
    static let expectedForm = #"a PSI trigger "some|full STALL WINDOW" such as "some 150ms 2s""#

    /// The string written to a `*.pressure` file, e.g. `some 150000 2000000`.
    public var kernelString: String {
        "\(kind.rawValue) \(stall.microseconds) \(window.microseconds)"
    }

    /// The config spelling, `some 150ms 2s`.
    public var description: String {
        "\(kind.rawValue) \(stall.configSpelling) \(window.configSpelling)"
    }

    /// Parses the config spelling and checks the limits the kernel enforces for everyone:
    /// a window of 500ms to 10s and a stall above zero, no longer than the window.
    ///
    /// Without CAP_SYS_RESOURCE the kernel also wants a window that is a multiple of 2s;
    /// that depends on the daemon's privileges, so the daemon checks it, not the parser.
    ///
    /// - Throws: ``ValueSyntaxError`` naming the expected form or the violated limit.
    public init(parsing text: String) throws(ValueSyntaxError) {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count == 3, let kind = Kind(rawValue: String(fields[0])) else {
            throw ValueSyntaxError("\"\(text)\" is not a PSI trigger; expected \(Self.expectedForm)")
        }
        let stall: Duration
        let window: Duration
        do {
            stall = try Duration(parsing: String(fields[1]))
            window = try Duration(parsing: String(fields[2]))
        } catch {
            throw ValueSyntaxError("\"\(text)\" is not a PSI trigger: \(error.message)")
        }
        guard Self.windowRange.contains(window) else {
            throw ValueSyntaxError(
                "PSI window \(window.configSpelling) is outside what the kernel accepts: 500ms to 10s"
                    + " (and, on kernels where the daemon lacks CAP_SYS_RESOURCE, a multiple of 2s)")
        }
        guard stall > .zero, stall <= window else {
            throw ValueSyntaxError(
                "PSI stall \(stall.configSpelling) must be above 0 and at most the window \(window.configSpelling)")
        }
        self.init(kind: kind, stall: stall, window: window)
    }
}

extension Duration {
    /// Whole microseconds, as the kernel's PSI trigger format wants them.
    public var microseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
