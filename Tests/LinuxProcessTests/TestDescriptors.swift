import ExtensiondTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The text of a /proc file, or "" when it cannot be read.
func procFile(_ path: String) -> String {
    readTextFile(path) ?? ""
}

/// The value of a `Key:\tvalue` line of /proc/PID/status.
func statusField(_ key: String, of pid: pid_t) -> String? {
    procFile("/proc/\(pid)/status").split(separator: "\n")
        .first { $0.hasPrefix("\(key):") }
        .map { $0.dropFirst(key.count + 1).trimmingCharacters() }
}

/// Entries of a directory, without `.` and `..`.
func directoryEntries(_ path: String) -> [String] {
    guard let handle = opendir(path) else { return [] }
    defer { closedir(handle) }
    var names: [String] = []
    while let entry = readdir(handle) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
}

/// The target of a symbolic link.
func linkTarget(_ path: String) -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let length = readlink(path, &buffer, buffer.count - 1)
    guard length >= 0 else { return "" }
    return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

extension Substring {
    func trimmingCharacters() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\n" }.reversed())
    }
}
