import Glibc

/// Resolution of the relative paths written in config files.
///
/// A relative path is resolved against the directory of the file that declared it (the main
/// file or the drop-in), so a config keeps working wherever it is started from. Resolution is
/// lexical: `.` and `..` are folded, symbolic links are not followed.
enum ConfigPaths {
    /// The absolute directory holding `file`.
    static func directory(of file: String) -> String {
        "/" + absolute(file).split(separator: "/").dropLast().joined(separator: "/")
    }

    /// `path` if absolute, else `path` below `base`; normalized either way.
    static func resolve(_ path: String, against base: String) -> String {
        normalize(path.hasPrefix("/") ? path : base + "/" + path)
    }

    /// `path` made absolute against the current directory and normalized.
    static func absolute(_ path: String) -> String {
        resolve(path, against: currentDirectory())
    }

    /// Folds `.`, `..` and repeated slashes of an absolute path; `..` at the root stays at the root.
    static func normalize(_ absolutePath: String) -> String {
        var components: [Substring] = []
        for component in absolutePath.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..": if !components.isEmpty { components.removeLast() }
            default: components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }

    private static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "/" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
