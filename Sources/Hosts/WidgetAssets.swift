import Glibc
import HostProtocol

/// The files a widget wrote into `assets/` of its data directory, read for a host's `asset`
/// request (docs/PROTOCOL.md §6). The directory is the sandboxed widget's to write, so every
/// step is opened without following links and only a regular file is read, within bounds.
struct WidgetAssets {
    /// `<state_dir>/data`, where each extension's data directory is.
    let dataRoot: String

    /// The largest asset read (its base64 must fit a 1 MiB line).
    static let maxBytes = 512 * 1024

    /// The content type of each accepted file name extension.
    static let contentTypes = [
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "svg": "image/svg+xml",
    ]

    enum Failure: Error, CustomStringConvertible {
        case badName(String)
        case missing(String, String)
        case tooLarge(String, Int)
        case notRegular(String)

        var description: String {
            switch self {
            case .badName(let name):
                "asset name \"\(name)\" is not a file name of letters, digits, '.', '_', '-' ending in .png, .jpg, .jpeg, .gif, .webp or .svg"
            case .missing(let name, let why): "no asset \"\(name)\": \(why)"
            case .tooLarge(let name, let size): "asset \"\(name)\" has \(size) bytes, more than \(WidgetAssets.maxBytes)"
            case .notRegular(let name): "asset \"\(name)\" is not a regular file"
            }
        }
    }

    /// The bytes and content type of asset `name` of extension `id` (a configured id).
    func read(_ name: String, of id: String) -> Result<(type: String, bytes: [UInt8]), Failure> {
        guard let type = Self.contentType(of: name) else { return .failure(.badName(name)) }
        let flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC
        let data = open(dataRoot + "/" + id, flags | O_DIRECTORY)
        guard data >= 0 else { return .failure(.missing(name, "the widget has no data directory")) }
        defer { close(data) }
        let assets = openat(data, "assets", flags | O_DIRECTORY)
        guard assets >= 0 else { return .failure(.missing(name, "the widget has no assets directory")) }
        defer { close(assets) }
        // O_NONBLOCK: a FIFO planted under the name must not stall the daemon.
        let file = openat(assets, name, flags | O_NONBLOCK)
        guard file >= 0 else { return .failure(.missing(name, String(cString: strerror(errno)))) }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return .failure(.notRegular(name)) }
        guard info.st_size <= Self.maxBytes else { return .failure(.tooLarge(name, Int(info.st_size))) }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { pread(file, $0.baseAddress! + count, $0.count - count, off_t(count)) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { break }
            count += got
        }
        return .success((type, Array(bytes.prefix(count))))
    }

    static func contentType(of name: String) -> String? {
        let bytes = Array(name.utf8)
        guard (1...128).contains(bytes.count), bytes[0] != UInt8(ascii: "."),
            bytes.allSatisfy({
                $0 < 0x80
                    && (Character(Unicode.Scalar($0)).isLetter || Character(Unicode.Scalar($0)).isNumber || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_")
                        || $0 == UInt8(ascii: "-"))
            }),
            let dot = name.lastIndex(of: ".")
        else { return nil }
        return contentTypes[name[name.index(after: dot)...].lowercased()]
    }
}
