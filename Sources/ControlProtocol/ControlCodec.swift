import WireProtocol

/// Encodes and decodes control messages, one JSON object per line.
public enum ControlCodec {
    /// `value` as JSON followed by a newline.
    public static func line(_ value: some Encodable) -> [UInt8] {
        var bytes = (try? JSONCoding.encode(value)) ?? line(ControlResponse.failure("internal: the answer could not be encoded"))
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// `response` as one line, or an error answer when the line would exceed
    /// ``ControlLimits/answerBytes``: a client is never left without an answer.
    public static func answerLine(_ response: ControlResponse) -> [UInt8] {
        bounded(line(response))
    }

    /// `bytes`, an answer's line, or the error answer when it exceeds ``ControlLimits/answerBytes``.
    static func bounded(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count > ControlLimits.answerBytes else { return bytes }
        return line(
            ControlResponse.failure(
                "the answer (\(bytes.count) bytes) exceeds the \(ControlLimits.answerBytes)-byte limit of the control protocol; ask for fewer lines or names",
                code: .tooLarge))
    }

    /// Decodes one line (without its newline), with an error that says what was wrong.
    public static func decode<T: Decodable>(_ type: T.Type, from line: some Collection<UInt8>) throws(ControlDecodingError) -> T {
        do {
            return try JSONCoding.decode(T.self, from: line)
        } catch let error as ControlDecodingError {
            throw error
        } catch let DecodingError.dataCorrupted(context) {
            let message =
                context.codingPath.isEmpty
                ? "not valid JSON"
                : "field \(path(context.codingPath)): \(context.debugDescription)"
            throw ControlDecodingError(message: message)
        } catch let DecodingError.keyNotFound(key, context) {
            throw ControlDecodingError(message: "missing field \(path(context.codingPath + [key]))")
        } catch let DecodingError.typeMismatch(type, context) {
            throw ControlDecodingError(message: context.codingPath.isEmpty ? "not a JSON object" : "field \(path(context.codingPath)) should be \(type)")
        } catch let DecodingError.valueNotFound(type, context) {
            throw ControlDecodingError(message: "field \(path(context.codingPath)) should be \(type), not null")
        } catch {
            throw ControlDecodingError(message: "\(error)")
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}

/// A control message that could not be decoded.
public struct ControlDecodingError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }

    public init(message: String) { self.message = message }
}
