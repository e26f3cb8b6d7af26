#if canImport(Glibc)
import Glibc
#endif

/// The directories an ELF executable asks the dynamic loader to search first
/// (`DT_RUNPATH`, else `DT_RPATH`, with `$ORIGIN` expanded): a Swift program's
/// runtime under `/opt/swift/...`, for instance. The sandbox must let it read them.
public enum ELFRunPath {
    /// The run path of the 64-bit little-endian ELF file at `path`; empty for anything
    /// else (a script, a static binary, an unreadable file).
    public static func directories(of path: String) -> [String] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        guard let header = read(fd, at: 0, count: 64), header.starts(with: [0x7F, 0x45, 0x4C, 0x46, 2, 1]) else { return [] }
        let programHeaders = Int(header.integer(at: 32, size: 8))
        let entrySize = Int(header.integer(at: 54, size: 2))
        let entryCount = Int(header.integer(at: 56, size: 2))
        guard entrySize >= 56, entryCount <= 64,
            let table = read(fd, at: programHeaders, count: entrySize * entryCount)
        else { return [] }
        // Virtual address ranges of the loaded segments (to find the string table) and the dynamic section.
        var loads: [(address: UInt64, offset: UInt64, size: UInt64)] = []
        var dynamic: (offset: Int, size: Int)?
        for index in 0..<entryCount {
            let entry = table[(index * entrySize)...]
            let type = entry.integer(at: 0, size: 4)
            let offset = entry.integer(at: 8, size: 8)
            let address = entry.integer(at: 16, size: 8)
            let size = entry.integer(at: 32, size: 8)
            if type == 1 { loads.append((address, offset, size)) }
            if type == 2 { dynamic = (Int(offset), Int(min(size, 1 << 16))) }
        }
        guard let dynamic, let section = read(fd, at: dynamic.offset, count: dynamic.size) else { return [] }
        var stringTable: UInt64?
        var runPath: UInt64?
        var rPath: UInt64?
        for start in stride(from: 0, to: section.count - 15, by: 16) {
            let tag = section.integer(at: start, size: 8)
            let value = section.integer(at: start + 8, size: 8)
            switch tag {
            case 0: break
            case 5: stringTable = value
            case 29: runPath = value
            case 15: rPath = value
            default: continue
            }
            if tag == 0 { break }
        }
        guard let stringTable, let pathOffset = runPath ?? rPath,
            let segment = loads.first(where: { stringTable >= $0.address && stringTable < $0.address + $0.size }),
            let text = read(fd, at: Int(segment.offset + (stringTable - segment.address) + pathOffset), count: 4096)
        else { return [] }
        let origin = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        return String(decoding: text.prefix { $0 != 0 }, as: UTF8.self)
            .split(separator: ":", omittingEmptySubsequences: true)
            .map { String($0).replacing("${ORIGIN}", with: origin).replacing("$ORIGIN", with: origin) }
    }

    private static func read(_ fd: Int32, at offset: Int, count: Int) -> [UInt8]? {
        guard offset >= 0, count > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
        guard got > 0 else { return nil }
        return Array(bytes.prefix(got))
    }
}

private extension Collection where Element == UInt8, Index == Int {
    /// The little-endian unsigned integer of `size` bytes at `offset` from the start; 0 past the end.
    func integer(at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for byte in 0..<size where startIndex + offset + byte < endIndex {
            value |= UInt64(self[startIndex + offset + byte]) << (8 * byte)
        }
        return value
    }
}
