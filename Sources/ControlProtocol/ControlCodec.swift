#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes and decodes control messages, one JSON object per line.
public enum ControlCodec {
    /// Longest request line the daemon reads; longer ones get an error reply.
    public static let maxRequestBytes = 64 * 1024
    /// Longest response line the client reads.
    public static let maxResponseBytes = 16 * 1024 * 1024

    /// `value` as JSON followed by a newline.
    public static func line(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var bytes = (try? encoder.encode(value)).map { Array($0) } ?? Array(#"{"ok":false,"error":"internal: response could not be encoded"}"#.utf8)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// Decodes one line (without its newline), with an error that says what was wrong.
    public static func decode<T: Decodable>(_ type: T.Type, from line: some Collection<UInt8>) throws(ControlDecodingError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(line))
        } catch let DecodingError.dataCorrupted(context) {
            let message = context.codingPath.isEmpty
                ? "not valid JSON"
                : "field \(path(context.codingPath)): \(context.debugDescription)"
            throw ControlDecodingError(message: message)
        } catch let DecodingError.keyNotFound(key, context) {
            throw ControlDecodingError(message: "missing field \(path(context.codingPath + [key]))")
        } catch let DecodingError.typeMismatch(type, context) {
            throw ControlDecodingError(message: "field \(path(context.codingPath)) should be \(type)")
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
}
