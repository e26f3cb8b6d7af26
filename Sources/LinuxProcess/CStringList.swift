#if canImport(Glibc)
import Glibc
#endif

/// A NULL-terminated `char *[]` in heap memory that stays put while the child
/// is forked; freed when the list goes away.
final class CStringList {
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private let count: Int

    /// Copies `strings`; a string with a NUL byte would be cut short silently,
    /// so it is refused, naming `what` it was.
    init(_ strings: [String], what: String) throws(SpawnError) {
        for string in strings where string.utf8.contains(0) {
            throw SpawnError(.invalidArgument, what, reason: "\(string.debugDescription) contains a NUL byte")
        }
        count = strings.count
        pointers = .allocate(capacity: strings.count + 1)
        for (index, string) in strings.enumerated() {
            pointers[index] = strdup(string)
        }
        pointers[strings.count] = nil
    }

    /// The first string, for single-string lists.
    var first: UnsafePointer<CChar>? { UnsafePointer(pointers[0]) }

    /// The list typed as `const char *const *`.
    var constPointers: UnsafePointer<UnsafePointer<CChar>?> {
        UnsafeRawPointer(pointers).assumingMemoryBound(to: UnsafePointer<CChar>?.self)
    }

    deinit {
        for index in 0..<count {
            free(pointers[index])
        }
        pointers.deallocate()
    }
}
