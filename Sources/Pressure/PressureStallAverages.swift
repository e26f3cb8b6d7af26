import Glibc

/// The averages of a PSI file (`/proc/pressure/memory`, `<cgroup>/memory.pressure`):
/// the share of time tasks stalled on memory over the last 10, 60 and 300 s.
package struct PressureStallAverages: Equatable {
    /// Keyed `some avg10`, `some avg60`, `some avg300`, `full avg10`…, in percent.
    var averages: [String: Double]
    /// The `total=` stall time of `some` and `full`, in microseconds since boot (or since the cgroup was made).
    package var totalMicroseconds: [String: UInt64]

    /// `some avg10`, the figure a kill record carries.
    var someAverage10: Double? { averages["some avg10"] }

    /// Parses the kernel's lines, e.g. `some avg10=0.12 avg60=0.05 avg300=0.00 total=1234`.
    /// Unknown fields and malformed numbers are skipped: the figures are informative only.
    init(parsing text: some StringProtocol) {
        var averages: [String: Double] = [:]
        var totals: [String: UInt64] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard let scope = fields.first, scope == "some" || scope == "full" else { continue }
            for field in fields.dropFirst() {
                let pair = field.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0] == "total", let total = UInt64(pair[1]) { totals[String(scope)] = total }
                guard pair.count == 2, pair[0].hasPrefix("avg"), let value = Double(pair[1]), value.isFinite else { continue }
                averages["\(scope) \(pair[0])"] = value
            }
        }
        self.averages = averages
        totalMicroseconds = totals
    }

    /// The averages of the PSI file at `path`; `nil` when the kernel does not offer it.
    package static func read(_ path: String) -> PressureStallAverages? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // Two lines of about 60 bytes each.
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = Glibc.read(fd, &buffer, buffer.count)
        guard count > 0 else { return nil }
        return PressureStallAverages(parsing: String(decoding: buffer[..<count], as: UTF8.self))
    }

    /// The system-wide memory pressure.
    static let systemFile = "/proc/pressure/memory"
}
