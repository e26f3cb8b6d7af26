/// Integers, floats, and the four date and time forms, which all start with a digit or sign.
extension TOMLParser {
    mutating func numberOrDateTime() throws(TOMLError) -> TOMLValue {
        if Self.isDigit(cursor.peek()) && Self.isDigit(cursor.peek(1)) {
            if cursor.peek(2) == UInt8(ascii: ":") { return .localTime(try time()) }
            if Self.isDigit(cursor.peek(2)) && Self.isDigit(cursor.peek(3)) && cursor.peek(4) == UInt8(ascii: "-") {
                return try dateTime()
            }
        }
        return try number()
    }

    // MARK: - Numbers

    private mutating func number() throws(TOMLError) -> TOMLValue {
        let start = cursor.position
        var negative = false
        let signed = cursor.peek() == UInt8(ascii: "+") || cursor.peek() == UInt8(ascii: "-")
        if signed {
            negative = cursor.peek() == UInt8(ascii: "-")
            cursor.advance()
        }
        if cursor.looksAt("inf") || cursor.looksAt("nan") {
            let isInfinity = cursor.peek() == UInt8(ascii: "i")
            cursor.advance(3)
            return .float(isInfinity ? (negative ? -.infinity : .infinity) : .nan)
        }
        if cursor.peek() == UInt8(ascii: "0"), let radix = Self.radix(cursor.peek(1)) {
            guard !signed else { throw TOMLError(at: start, "a hexadecimal, octal or binary integer has no sign") }
            cursor.advance(2)
            return .integer(try integer(digits(radix: radix, what: "integer"), radix: radix, negative: false, at: start))
        }
        let whole = try digits(radix: 10, what: "number")
        if whole.count > 1 && whole.first == UInt8(ascii: "0") {
            throw TOMLError(at: start, "a number must not start with a 0 (leading zeros are not allowed)")
        }
        var text = whole
        var isFloat = false
        if cursor.peek() == UInt8(ascii: ".") {
            cursor.advance()
            isFloat = true
            text.append(UInt8(ascii: "."))
            text += try digits(radix: 10, what: "fraction")
        }
        if cursor.peek() == UInt8(ascii: "e") || cursor.peek() == UInt8(ascii: "E") {
            cursor.advance()
            isFloat = true
            text.append(UInt8(ascii: "e"))
            if let sign = cursor.peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                text.append(sign)
                cursor.advance()
            }
            text += try digits(radix: 10, what: "exponent")
        }
        guard isFloat else { return .integer(try integer(whole, radix: 10, negative: negative, at: start)) }
        guard let magnitude = Double(String(decoding: text, as: UTF8.self)), magnitude.isFinite else {
            throw TOMLError(at: start, "the float is out of the 64-bit range")
        }
        return .float(negative ? -magnitude : magnitude)
    }

    /// One or more digits of `radix`, an underscore allowed only between two digits; the
    /// digits without the underscores.
    private mutating func digits(radix: Int, what: String) throws(TOMLError) -> [UInt8] {
        var digits: [UInt8] = []
        while let byte = cursor.peek() {
            if let digit = Self.hexDigit(byte), Int(digit) < radix {
                digits.append(byte)
                cursor.advance()
            } else if byte == UInt8(ascii: "_") && !digits.isEmpty {
                cursor.advance()
                guard let next = cursor.peek(), let digit = Self.hexDigit(next), Int(digit) < radix else {
                    throw expected("a digit after \"_\" (an underscore must sit between two digits)")
                }
            } else {
                break
            }
        }
        guard !digits.isEmpty else { throw expected("a digit of the \(what)") }
        return digits
    }

    private func integer(_ digits: [UInt8], radix: Int, negative: Bool, at start: TOMLPosition) throws(TOMLError) -> Int64 {
        var value: Int64 = 0
        for byte in digits {
            let digit = Int64(Self.hexDigit(byte) ?? 0)
            let shifted = value.multipliedReportingOverflow(by: Int64(radix))
            // Accumulated on the side of the sign, so that Int64.min fits.
            let next = negative ? shifted.partialValue.subtractingReportingOverflow(digit) : shifted.partialValue.addingReportingOverflow(digit)
            guard !shifted.overflow && !next.overflow else {
                throw TOMLError(at: start, "the integer is out of the 64-bit range")
            }
            value = next.partialValue
        }
        return value
    }

    private static func radix(_ marker: UInt8?) -> Int? {
        switch marker {
        case UInt8(ascii: "x"): 16
        case UInt8(ascii: "o"): 8
        case UInt8(ascii: "b"): 2
        default: nil
        }
    }

    // MARK: - Dates and times

    /// `1979-05-27`, optionally followed by `T` (or a space) and a time, optionally with an offset.
    private mutating func dateTime() throws(TOMLError) -> TOMLValue {
        let start = cursor.position
        let year = try fixedDigits(4, "year")
        try expect(UInt8(ascii: "-"), "\"-\" after the year")
        let month = try fixedDigits(2, "month")
        try expect(UInt8(ascii: "-"), "\"-\" after the month")
        let day = try fixedDigits(2, "day")
        let date = TOMLDate(year: year, month: month, day: day)
        guard date.exists else { throw TOMLError(at: start, "\(date) is not a date") }

        let timeFollows =
            cursor.peek() == UInt8(ascii: "T") || cursor.peek() == UInt8(ascii: "t")
            || (cursor.peek() == UInt8(ascii: " ") && Self.isDigit(cursor.peek(1)) && Self.isDigit(cursor.peek(2))
                && cursor.peek(3) == UInt8(ascii: ":"))
        guard timeFollows else { return .localDate(date) }
        cursor.advance()
        let time = try time()
        switch cursor.peek() {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            cursor.advance()
            return .offsetDateTime(date, time, offsetMinutes: 0)
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = cursor.peek() == UInt8(ascii: "-") ? -1 : 1
            let offsetStart = cursor.position
            cursor.advance()
            let hours = try fixedDigits(2, "offset hours")
            try expect(UInt8(ascii: ":"), "\":\" in the offset")
            let minutes = try fixedDigits(2, "offset minutes")
            guard hours <= 23 && minutes <= 59 else { throw TOMLError(at: offsetStart, "the offset is out of range") }
            return .offsetDateTime(date, time, offsetMinutes: sign * (hours * 60 + minutes))
        default:
            return .localDateTime(date, time)
        }
    }

    /// `07:32:00` or `07:32:00.999`.
    private mutating func time() throws(TOMLError) -> TOMLTime {
        let start = cursor.position
        let hour = try fixedDigits(2, "hour")
        try expect(UInt8(ascii: ":"), "\":\" after the hour")
        let minute = try fixedDigits(2, "minute")
        try expect(UInt8(ascii: ":"), "\":\" after the minute (TOML 1.0 times have seconds)")
        let second = try fixedDigits(2, "second")
        var nanosecond = 0
        if cursor.peek() == UInt8(ascii: ".") {
            cursor.advance()
            guard Self.isDigit(cursor.peek()) else { throw expected("a digit of the fraction of a second") }
            var scale = 100_000_000
            while let byte = cursor.peek(), Self.isDigit(byte) {
                nanosecond += Int(byte - UInt8(ascii: "0")) * scale
                scale /= 10
                cursor.advance()
            }
        }
        let time = TOMLTime(hour: hour, minute: minute, second: second, nanosecond: nanosecond)
        guard time.isValid else { throw TOMLError(at: start, "\(time) is not a time of day") }
        return time
    }

    private mutating func fixedDigits(_ count: Int, _ what: String) throws(TOMLError) -> Int {
        var value = 0
        for _ in 0..<count {
            guard let byte = cursor.peek(), Self.isDigit(byte) else { throw expected("\(count) digits of the \(what)") }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            cursor.advance()
        }
        return value
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(TOMLError) {
        guard cursor.peek() == byte else { throw expected(what) }
        cursor.advance()
    }
}
