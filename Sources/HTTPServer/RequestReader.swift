/// Accumulates one request's bytes until its head and `Content-Length` body are whole,
/// never holding more than the limits allow.
struct RequestReader {
    enum Outcome {
        case incomplete
        case request(HTTPRequest)
        case failed(HTTPStatus, String)
    }

    private let limits: HTTPLimits
    private var bytes: [UInt8] = []
    private var head: (method: String, target: Substring, headers: [String: String], bodyStart: Int, length: Int)?
    private var done = false

    init(limits: HTTPLimits) {
        self.limits = limits
    }

    mutating func append(_ input: UnsafeRawBufferPointer) -> Outcome {
        guard !done else { return .incomplete }
        let limit = head.map { $0.bodyStart + $0.length } ?? (limits.maxHeadBytes + Self.headEnd.count + limits.maxBodyBytes)
        bytes.append(contentsOf: input.prefix(max(0, limit - bytes.count)))
        if head == nil {
            guard let end = bytes.firstRange(of: Self.headEnd), end.lowerBound <= limits.maxHeadBytes else {
                return bytes.count > limits.maxHeadBytes ? fail(.headersTooLarge, "request head longer than \(limits.maxHeadBytes) bytes") : .incomplete
            }
            switch parseHead(upTo: end.lowerBound) {
            case .failure(let failure): return fail(failure.status, failure.reason)
            case .success(let parsed): head = (parsed.0, parsed.1, parsed.2, end.upperBound, parsed.3)
            }
        }
        guard let head, bytes.count >= head.bodyStart + head.length else { return .incomplete }
        done = true
        let pathEnd = head.target.firstIndex(of: "?") ?? head.target.endIndex
        let query = pathEnd < head.target.endIndex ? head.target[head.target.index(after: pathEnd)...] : ""
        let request = HTTPRequest(
            method: head.method, path: String(head.target[..<pathEnd]), query: HTTPRequest.parseQuery(query),
            headers: head.headers, body: Array(bytes[head.bodyStart..<(head.bodyStart + head.length)]))
        bytes = []
        return .request(request)
    }

    private struct Failure: Error {
        let status: HTTPStatus
        let reason: String
    }

    private static let headEnd = Array("\r\n\r\n".utf8)

    private func parseHead(upTo end: Int) -> Result<(String, Substring, [String: String], Int), Failure> {
        let lines = bytes[..<end].split(separator: Array("\r\n".utf8), omittingEmptySubsequences: false)
        guard lines.count <= limits.maxHeaderLines + 1 else {
            return .failure(Failure(status: .headersTooLarge, reason: "more than \(limits.maxHeaderLines) header lines"))
        }
        let requestLine = String(decoding: lines[0], as: UTF8.self)
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1."), parts[1].hasPrefix("/") else {
            return .failure(Failure(status: .badRequest, reason: "expected \"METHOD /PATH HTTP/1.1\""))
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                return .failure(Failure(status: .badRequest, reason: "a header line without ':'"))
            }
            let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
            headers[name] = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingSpaces
        }
        var length = 0
        if let declared = headers["content-length"] {
            guard let value = Int(declared), value >= 0 else {
                return .failure(Failure(status: .badRequest, reason: "Content-Length '\(declared)' is not a number"))
            }
            guard value <= limits.maxBodyBytes else {
                return .failure(Failure(status: .payloadTooLarge, reason: "a body of more than \(limits.maxBodyBytes) bytes"))
            }
            length = value
        } else if headers["transfer-encoding"] != nil {
            return .failure(Failure(status: .lengthRequired, reason: "only bodies with Content-Length are read"))
        }
        return .success((String(parts[0]), parts[1], headers, length))
    }

    private mutating func fail(_ status: HTTPStatus, _ reason: String) -> Outcome {
        done = true
        bytes = []
        return .failed(status, reason)
    }
}

extension String {
    var trimmingSpaces: String {
        let scalars = unicodeScalars.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
        return String(String.UnicodeScalarView(scalars))
    }
}
