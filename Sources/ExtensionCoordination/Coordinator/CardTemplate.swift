import ExtensiondConfig
import Glibc
import WireProtocol

/// A widget's `card_template` file, read when the configuration is applied: an Adaptive Card
/// (a JSON object of type `AdaptiveCard`) of at most ``maxBytes``, within CardShape's bounds.
enum CardTemplate {
    static let maxBytes = 64 * 1024

    static func load(_ path: String) -> Result<EncodedJSON, CardTemplateError> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return .failure(CardTemplateError("card_template \(path): \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: maxBytes + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { break }
            count += got
        }
        guard count <= maxBytes else { return .failure(CardTemplateError("card_template \(path): longer than \(maxBytes) bytes")) }
        let encoded = EncodedJSON(trustedBytes: Array(bytes.prefix(count)))
        guard let card = try? encoded.decoded() else { return .failure(CardTemplateError("card_template \(path): not valid JSON")) }
        guard CardShape.isCard(card) else { return .failure(CardTemplateError("card_template \(path): not an object of type \"AdaptiveCard\"")) }
        if let problem = CardShape.problem(with: card) { return .failure(CardTemplateError("card_template \(path): \(problem)")) }
        return .success(card.encoded())
    }
}

struct CardTemplateError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
