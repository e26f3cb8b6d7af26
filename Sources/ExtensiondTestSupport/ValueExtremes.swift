/// The ends of each value domain a peer or an operator controls, and just past them:
/// where overflows live, and what random values almost never hit (issue 19). Shared by
/// the tests and the fuzzer.
public enum ValueExtremes {
    /// JSON numbers at and past the ends of the integer domain `0...max`: the ends, one
    /// past each, the ends of Int64 and UInt64 and past them, fractions, exponents, infinities.
    public static func integers(upTo max: UInt64) -> [String] {
        [
            "0", "-0", "1", "\(max)", "\(max + 1)", "-1", "9223372036854775807", "9223372036854775808",
            "-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
            "1e308", "-1e308", "1e400", "-1e400", "0.5", "\(max).5", "1E2", "123456789012345678901234567890",
        ]
    }

    /// Request ids: `0...2^53-1`.
    public static let requestIDs = integers(upTo: (1 << 53) - 1)
    /// Sides of a `preferredSize` or `maxSize`: `0...65535`.
    public static let sides = integers(upTo: 65535)

    /// RFC 3339 times at the ends of the years it writes and of the instants the daemon
    /// counts (Int64 nanoseconds), in ascending order, then just past the ends (not times).
    public static let dates = [
        "0000-01-01T00:00:00Z", "0000-01-01T00:00:00+23:59", "0001-01-01T00:00:00Z", "1677-09-21T00:12:43Z",
        "1970-01-01T00:00:00Z", "2262-04-11T23:47:16.854775807Z", "2262-04-11T23:47:17Z",
        "9999-12-31T23:59:59Z", "9999-12-31T23:59:60.999999999-23:59",
    ]
    public static let pastTheDates = [
        "10000-01-01T00:00:00Z", "-0001-12-31T23:59:59Z", "9999-12-31T23:59:59.99999999999999999999999999999Z",
    ]

    /// Config durations at and past the end of their range (0 to 36500d) and of Int64 milliseconds.
    public static let durations = [
        "0s", "1ms", "36499d23h59m59s999ms", "36500d", "36500d1ms", "106751991167d", "9223372036854775807ms",
        "9223372036854775808ms",
    ]
    /// Config sizes at and past the ends of their range (1 byte to 1 EiB) and of UInt64.
    public static let sizes = [
        "1", "0", "1073741824G", "1073741825G", "1152921504606846976", "1152921504606846977",
        "17179869183G", "18446744073709551615", "18446744073709551616",
    ]
    /// Config counts at and past the ends of their ranges and of Int64.
    public static let counts = [
        "0", "1", "-1", "100", "101", "1000", "1001", "1000000", "1000001", "4194304", "4194305",
        "9223372036854775807", "-9223372036854775808",
    ]
}
