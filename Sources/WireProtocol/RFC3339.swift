/// RFC 3339 internet times (`2026-11-22T07:30:00Z`, `2026-11-22T08:30:00.250+01:00`), as
/// used by the `after` reload hint.
///
/// Written by hand so that the protocol needs no Foundation, and so that both `Z` and numeric offsets,
/// `T`/`t`/space separators and any number of fractional digits are accepted.
public enum RFC3339 {
    /// Formats `date` in UTC, with milliseconds only when they are not zero.
    public static func string(from date: UnixTime) -> String {
        let totalMilliseconds = date.millisecondsSince1970
        let (seconds, milliseconds) = floorDivide(totalMilliseconds, 1000)
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let civil = CivilDate(daysSinceEpoch: days)
        var text = pad(civil.year, 4) + "-" + pad(civil.month, 2) + "-" + pad(civil.day, 2)
        text += "T" + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if milliseconds != 0 { text += "." + pad(milliseconds, 3) }
        return text + "Z"
    }

    /// Parses an RFC 3339 `date-time`; `nil` if `text` is not one or names an impossible date.
    public static func date(from text: String) -> UnixTime? {
        var scanner = DigitScanner(Array(text.utf8))
        guard let year = scanner.number(digits: 4), scanner.skip("-"),
            let month = scanner.number(digits: 2), scanner.skip("-"),
            let day = scanner.number(digits: 2), scanner.skip(oneOf: "Tt "),
            let hour = scanner.number(digits: 2), scanner.skip(":"),
            let minute = scanner.number(digits: 2), scanner.skip(":"),
            let second = scanner.number(digits: 2)
        else { return nil }
        guard (1...12).contains(month), (1...CivilDate.daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second <= 60
        else { return nil }

        var fraction = 0.0
        if scanner.skip(".") {
            guard let digits = scanner.fractionDigits() else { return nil }
            fraction = digits
        }
        let offsetSeconds: Int64
        if scanner.skip(oneOf: "Zz") {
            offsetSeconds = 0
        } else if let sign = scanner.sign(), let offsetHours = scanner.number(digits: 2), scanner.skip(":"),
            let offsetMinutes = scanner.number(digits: 2), offsetHours < 24, offsetMinutes < 60
        {
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard scanner.atEnd else { return nil }

        let days = CivilDate(year: year, month: month, day: day).daysSinceEpoch
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return UnixTime(secondsSince1970: Double(seconds) + fraction)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }
}

/// A proleptic Gregorian calendar date, converted to and from days since 1970-01-01
/// (the algorithms of Howard Hinnant's `chrono`-compatible date library).
private struct CivilDate {
    var year: Int64
    var month: Int64
    var day: Int64

    init(year: Int64, month: Int64, day: Int64) {
        self.year = year
        self.month = month
        self.day = day
    }

    init(daysSinceEpoch: Int64) {
        let shifted = daysSinceEpoch + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    var daysSinceEpoch: Int64 {
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// Reads the fixed-width fields of an RFC 3339 time from ASCII bytes.
private struct DigitScanner {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { position == bytes.count }

    mutating func number(digits: Int) -> Int64? {
        guard position + digits <= bytes.count else { return nil }
        var value: Int64 = 0
        for byte in bytes[position..<position + digits] {
            guard let digit = Self.digit(byte) else { return nil }
            value = value * 10 + digit
        }
        position += digits
        return value
    }

    /// At least one digit after the decimal point, as a fraction of a second.
    mutating func fractionDigits() -> Double? {
        var fraction = 0.0
        var scale = 0.1
        let start = position
        while position < bytes.count, let digit = Self.digit(bytes[position]) {
            fraction += Double(digit) * scale
            scale /= 10
            position += 1
        }
        return position > start ? fraction : nil
    }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        skip(oneOf: String(character))
    }

    mutating func skip(oneOf characters: String) -> Bool {
        guard position < bytes.count, characters.utf8.contains(bytes[position]) else { return false }
        position += 1
        return true
    }

    mutating func sign() -> Int64? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }

    private static func digit(_ byte: UInt8) -> Int64? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int64(byte - UInt8(ascii: "0")) : nil
    }
}
