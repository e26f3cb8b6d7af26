import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// Reads a procfs file whole (they report size 0, so it reads to end of file).
func readKernelFile(_ path: String) throws(ProcessError) -> String {
    var length = 0
    guard let buffer = ext_read_file(path, &length) else {
        throw .systemCall("read", subject: path, errno: errno)
    }
    defer { free(buffer) }
    return String(cString: buffer)
}
