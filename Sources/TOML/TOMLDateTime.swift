/// A calendar date, already checked to exist (leap years included).
public struct TOMLDate: Hashable, Sendable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    /// `YYYY-MM-DD`.
    public var description: String { "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))" }

    /// Whether the date exists in the proleptic Gregorian calendar.
    var exists: Bool {
        guard (1...12).contains(month), day >= 1 else { return false }
        let isLeapYear = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, isLeapYear ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return day <= lengths[month - 1]
    }
}

/// A time of day; fractions finer than a nanosecond are truncated, as TOML allows.
public struct TOMLTime: Hashable, Sendable, CustomStringConvertible {
    public var hour: Int
    public var minute: Int
    /// 0 to 60: RFC 3339 allows a leap second.
    public var second: Int
    public var nanosecond: Int

    /// `HH:MM:SS`, then the fraction without trailing zeros when there is one.
    public var description: String {
        var text = "\(padded(hour, 2)):\(padded(minute, 2)):\(padded(second, 2))"
        guard nanosecond > 0 else { return text }
        var fraction = padded(nanosecond, 9)
        while fraction.last == "0" { fraction.removeLast() }
        text += "." + fraction
        return text
    }

    var isValid: Bool { (0...23).contains(hour) && (0...59).contains(minute) && (0...60).contains(second) }
}

extension TOMLValue {
    /// A date or time in RFC 3339 form (`T` between date and time, `Z` for a zero offset);
    /// `nil` for other values.
    public var dateTimeDescription: String? {
        switch self {
        case .offsetDateTime(let date, let time, let offset):
            guard offset != 0 else { return "\(date)T\(time)Z" }
            let magnitude = abs(offset)
            return "\(date)T\(time)\(offset < 0 ? "-" : "+")\(padded(magnitude / 60, 2)):\(padded(magnitude % 60, 2))"
        case .localDateTime(let date, let time): return "\(date)T\(time)"
        case .localDate(let date): return date.description
        case .localTime(let time): return time.description
        default: return nil
        }
    }
}

/// `value` in decimal with leading zeros up to `width` digits.
private func padded(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}
