#if canImport(Glibc)
import Glibc
#endif

/// The running kernel's version, for tests whose expectation depends on it.
public enum KernelRelease {
    /// Whether the kernel is at least `major.minor` (from `uname -r`).
    public static func isAtLeast(_ major: Int, _ minor: Int) -> Bool {
        var names = utsname()
        guard uname(&names) == 0 else { return false }
        let release = withUnsafeBytes(of: names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let numbers = release.split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
        guard numbers.count == 2 else { return false }
        return (numbers[0], numbers[1]) >= (major, minor)
    }
}
