/// Integer fields decoded through `Double`, so that a fraction or an out-of-range value is
/// reported with the field's name (JSONDecoder's own integer errors carry no coding path).
/// Exact for every integer up to 2^53, the range JSON numbers keep across languages.
extension KeyedDecodingContainer {
    package func decodeWireInteger<Integer: FixedWidthInteger>(
        _: Integer.Type, forKey key: Key, in range: ClosedRange<Integer> = .min ... .max
    ) throws -> Integer {
        let number = try reportingInteger(Integer.self) { try decode(Double.self, forKey: key) }
        guard let value = Integer(exactly: number), range.contains(value) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: wireIntegerProblem(number, range: range))
        }
        return value
    }
}

extension SingleValueDecodingContainer {
    package func decodeWireInteger<Integer: FixedWidthInteger>(
        _: Integer.Type, in range: ClosedRange<Integer> = .min ... .max
    ) throws -> Integer {
        let number = try reportingInteger(Integer.self) { try decode(Double.self) }
        guard let value = Integer(exactly: number), range.contains(value) else {
            throw DecodingError.dataCorruptedError(in: self, debugDescription: wireIntegerProblem(number, range: range))
        }
        return value
    }
}

/// Reports a non-number as a mismatch with the integer type, not with `Double`.
private func reportingInteger<Integer>(_: Integer.Type, _ decode: () throws -> Double) throws -> Double {
    do {
        return try decode()
    } catch DecodingError.typeMismatch(_, let context) {
        throw DecodingError.typeMismatch(Integer.self, context)
    }
}

private func wireIntegerProblem<Integer: FixedWidthInteger>(_ number: Double, range: ClosedRange<Integer>) -> String {
    let expected =
        if range != .min ... .max {
            "an integer in \(range.lowerBound)...\(range.upperBound)"
        } else if Integer.isSigned {
            "an integer"
        } else {
            "a non-negative integer"
        }
    return "expected \(expected), got \(number)"
}
