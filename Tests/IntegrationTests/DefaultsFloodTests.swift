import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Glibc
import Testing
import WireProtocol

/// An extension that floods the shared defaults (issue 19, item 4): its writes are saved by
/// a few coalesced writes of the file, each answered after it, and past its budget refused.
@Suite(.serialized) struct DefaultsFloodTests {
    /// Sends `ready` and `argv[2]` sets of `k` (values 1, 2, …) at once, then writes every
    /// `defaultsResult` to `argv[1]` as a JSON array and waits for `terminate`.
    static let flooder = #"""
        import json, os, socket, sys, threading
        connection = socket.socket(fileno=int(os.environ["EXTENSIOND_FD"]))
        count = int(sys.argv[2])
        lines = [{"type": "ready", "protocol": 1}]
        lines += [{"type": "defaults", "id": i, "group": "group.mine", "op": "set", "key": "k", "value": i} for i in range(1, count + 1)]
        payload = "".join(json.dumps(line) + "\n" for line in lines).encode()
        threading.Thread(target=connection.sendall, args=(payload,), daemon=True).start()
        buffer, answers = b"", []
        while len(answers) < count:
            chunk = connection.recv(65536)
            if not chunk: sys.exit(1)
            buffer += chunk
            *complete, buffer = buffer.split(b"\n")
            answers += [message for message in map(json.loads, complete) if message["type"] == "defaultsResult"]
        with open(sys.argv[1] + ".tmp", "w") as file: json.dump(answers, file)
        os.rename(sys.argv[1] + ".tmp", sys.argv[1])
        while connection.recv(65536): pass
        """#

    static let sets = 3000

    @Test func aFloodOfSetsIsSavedInAFewWritesAnsweredAfterThemAndBoundedByItsBudget() throws {
        let daemon = try TestDaemon()
        let script = try daemon.directory.write("flooder.py", Self.flooder)
        let answersPath = daemon.sharedDirectory + "/answers.json"
        try daemon.writeConfig(
            """
            [defaults.sandbox]
            write = ["\(daemon.sharedDirectory)"]

            [apps.mine]
            command = ["/bin/sleep", "1000"]
            groups = ["group.mine"]

            [extensions.flooder]
            app = "mine"
            point = "widget"
            command = ["/usr/bin/python3", "-S", "\(script)", "\(answersPath)", "\(Self.sets)"]
            """)
        let saves = try RenameWatch(directory: daemon.stateDirectory + "/defaults")
        try daemon.start()
        #expect(try daemon.control(.start(NameSelection(["flooder"]))).ok)
        #expect(eventually(timeout: 60) { FileManager.default.fileExists(atPath: answersPath) }, "the flooder got no answer to each set")
        let answers = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: answersPath))) as? [[String: Any]] ?? []
        #expect(answers.count == Self.sets)
        let accepted = answers.filter { $0["error"] == nil }.compactMap { $0["id"] as? Int }
        let refused = answers.compactMap { $0["error"] as? String }
        #expect(accepted.count >= 200 && accepted.count < Self.sets, "\(accepted.count) of \(Self.sets) sets accepted")
        #expect(refused.count == Self.sets - accepted.count)
        #expect(refused.allSatisfy { $0.contains("extension flooder writes the shared defaults too often") }, "\(Set(refused))")

        // Every accepted set was on disk when answered: the file holds the last one.
        let saved = try StateDirectoryTests.defaults(daemon, ["get", "k"])
        #expect(saved.message == "\(accepted.max() ?? -1)", "\(saved)")
        let renames = saves.count(of: "group.mine.json")
        #expect(renames >= 1 && renames <= 20, "\(accepted.count) accepted sets took \(renames) writes of the file")

        // The operator is not held by the extension's budget.
        #expect(try StateDirectoryTests.defaults(daemon, ["set", "k", "7"]).ok)
        #expect(try StateDirectoryTests.defaults(daemon, ["get", "k"]).message == "7")
        #expect(daemon.stop() == 0)
    }
}

/// Counts the files renamed into a directory (the last step of an atomic write).
private final class RenameWatch {
    private let fd: Int32

    init(directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0, inotify_add_watch(fd, directory, UInt32(IN_MOVED_TO)) >= 0 else {
            throw TestSupportError("inotify on \(directory): errno \(errno)")
        }
    }

    deinit { close(fd) }

    /// The renames onto `name` seen so far.
    func count(of name: String) -> Int {
        var count = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let length = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard length > 0 else { return count }
            var offset = 0
            while offset < length {
                let nameLength = buffer.withUnsafeBytes { Int($0.load(fromByteOffset: offset + 12, as: UInt32.self)) }
                let nameBytes = buffer[(offset + 16)..<(offset + 16 + nameLength)].prefix { $0 != 0 }
                if String(decoding: nameBytes, as: UTF8.self) == name { count += 1 }
                offset += 16 + nameLength
            }
        }
    }
}
