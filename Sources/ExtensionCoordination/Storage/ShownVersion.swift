import DaemonSupport
import EventLoop
import Glibc
import Sockets

/// The highest snapshot version hosts may have seen of an extension, kept so that versions
/// never go backwards across restarts, even when the record written behind (one second,
/// see ``ExtensionStore``) lost its last changes to a SIGKILL or to a full disk.
///
/// `<state_dir>/extensions/<id>.version` holds two fixed-width numbers: the version shown
/// and the offset between shown versions and the refresh engine's own. It is created once
/// and then overwritten in place, before any host sees a new version: the write needs no
/// new disk blocks (it works on a full disk) and, 42 bytes within one page, it is not torn
/// by a crash of the daemon.
package struct ShownVersion: Equatable {
    /// The highest version given to a host.
    var shown: UInt64
    /// Added to the engine's version: raised when a restart found the saved record behind.
    var offset: UInt64

    /// The offset for a restored engine at `restored`: unchanged when the record is as
    /// recent as what was shown, otherwise one that shows the restored snapshot (or its
    /// absence) as a version after the last one shown.
    func offset(restoring restored: UInt64) -> UInt64 {
        restored &+ offset >= shown ? offset : shown &+ 1 &- restored
    }
}

extension ExtensionStore {
    private func versionPath(_ id: String) -> String { stateDirectory + "/extensions/" + id + ".version" }

    /// What was recorded for `id`; nil when nothing was (or the file is damaged).
    func loadShownVersion(_ id: String) -> ShownVersion? {
        guard let bytes = FileSystem.read(versionPath(id)), bytes.count == Self.versionLineBytes else { return nil }
        let fields = bytes.dropLast().split(separator: UInt8(ascii: " "))
        guard fields.count == 2, let shown = UInt64(String(decoding: fields[0], as: UTF8.self)),
            let offset = UInt64(String(decoding: fields[1], as: UTF8.self))
        else { return nil }
        return ShownVersion(shown: shown, offset: offset)
    }

    /// Overwrites the record of `id` in place (creates it the first time).
    func saveShownVersion(_ version: ShownVersion, for id: String) throws(SystemError) {
        let path = versionPath(id)
        let fd = try versionFiles.descriptor(for: path)
        let line = Array((Self.padded(version.shown) + " " + Self.padded(version.offset) + "\n").utf8)
        let written = line.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        guard written == line.count else {
            let error = SystemError("write \(path)", errno: written < 0 ? errno : ENOSPC)
            versionFiles.forget(path)
            throw error
        }
    }

    private static let versionLineBytes = 42

    private static func padded(_ number: UInt64) -> String {
        let digits = String(number)
        return String(repeating: "0", count: 20 - digits.count) + digits
    }
}
