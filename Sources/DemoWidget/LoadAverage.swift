#if canImport(Glibc)
import Glibc
#endif

/// The system load averages, from `/proc/loadavg`.
struct LoadAverage {
    var oneMinute: Double
    var fiveMinutes: Double
    var fifteenMinutes: Double

    /// `nil` when the file cannot be read or parsed.
    static func read(path: String = "/proc/loadavg") -> LoadAverage? {
        guard let text = readSmallFile(path) else { return nil }
        let fields = text.split(separator: " ").prefix(3).compactMap { Double($0) }
        guard fields.count == 3 else { return nil }
        return LoadAverage(oneMinute: fields[0], fiveMinutes: fields[1], fifteenMinutes: fields[2])
    }

    private static func readSmallFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }
}
