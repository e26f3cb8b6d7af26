import ExtensiondTestSupport
import Foundation

/// A test extension in Python that answers its updates with messages the test wrote:
/// update N (counted over all its processes) is answered with answer N, message lines sent
/// as written (so that numbers no JSON library would write reach the daemon) in which
/// every `__ID__` becomes the update's id. After the last answer it answers `noData`.
/// Used to put peer-controlled values in front of a real daemon.
enum ReplayingExtension {
    /// Writes the answers and the script; returns the TOML `command` array that runs it.
    /// The cursor (answers used so far) is kept in `writable`, which the sandbox must allow.
    static func command(answering answers: [[String]], in directory: TemporaryDirectory, writable: String, name: String = "replay") throws -> String {
        // One answer a line, its messages apart by the record separator, which JSON text never holds.
        let text = answers.map { $0.joined(separator: "\u{1E}") }.joined(separator: "\n") + "\n"
        let lines = try directory.write(name + ".answers", text)
        let cursor = writable + "/" + name + ".cursor"
        let script = try directory.write("replaying_extension.py", source)
        // The extension runs under its app's uid: it must be able to move the cursor.
        guard FileManager.default.createFile(atPath: cursor, contents: Data("0".utf8), attributes: [.posixPermissions: 0o666]) else {
            throw TestSupportError("cannot create the replay cursor \(cursor)")
        }
        return "[\"/usr/bin/python3\", \"-S\", \"\(script)\", \"\(lines)\", \"\(cursor)\"]"
    }

    private static let source = #"""
        import json, os, socket, sys

        answers_file, cursor_file = sys.argv[1], sys.argv[2]
        connection = socket.socket(fileno=int(os.environ["EXTENSIOND_FD"]))
        answers = open(answers_file).read().split("\n")[:-1]  # splitlines() would split at the separator too

        \#(ScriptedExtension.messagesFunction)

        connection.sendall(b'{"type":"ready","protocol":1}\n')
        for message in messages():
            if message["type"] == "terminate":
                break
            if message["type"] != "update":
                continue
            with open(cursor_file, "r+") as cursor:
                index = int(cursor.read() or "0")
                cursor.seek(0)
                cursor.write(str(index + 1))
                cursor.truncate()
            if index < len(answers):
                for answer in answers[index].replace("__ID__", str(message["id"])).split("\x1e"):
                    connection.sendall(answer.encode() + b"\n")
            else:
                connection.sendall(json.dumps({"type": "result", "id": message["id"], "result": "noData"}).encode() + b"\n")
        """#
}
