/// A well-behaved extension in Python, for tests and the fuzzer: it answers every `update`
/// with `newData` (a snapshot `{"n": <updates answered>}`, padded with a `blob` string of
/// `padding` bytes when asked, so that a few pushes are megabytes) and every `begin` with
/// `complete` returning the items it was given. Run it as
/// `["/usr/bin/python3", "-S", <path of the written script>]`.
public enum EchoExtension {
    /// The script's text; `reload` is the hint sent with each result, if any.
    public static func script(padding: Int = 0, reload: String? = nil) -> String {
        let blob = padding > 0 ? #", "blob": "x" * \#(padding)"# : ""
        let hint = reload.map { #", "reload": "\#($0)""# } ?? ""
        return #"""
            import json, os, socket
            connection = socket.socket(fileno=int(os.environ["EXTENSIOND_FD"]))
            connection.sendall(b'{"type":"ready","protocol":1}\n')
            \#(ScriptedExtension.messagesFunction)
            n = 0
            for message in messages():
                if message["type"] == "terminate":
                    raise SystemExit(0)
                if message["type"] == "update":
                    n += 1
                    connection.sendall(json.dumps({"type": "result", "id": message["id"], "result": "newData",
                        "snapshot": {"n": n\#(blob)}\#(hint)}).encode() + b"\n")
                if message["type"] == "begin":
                    connection.sendall(json.dumps({"type": "complete", "id": message["id"], "items": message["items"]}).encode() + b"\n")
            """#
    }

    /// Writes the script into `directory` as `name` and returns the command that runs it,
    /// as a TOML array.
    public static func command(in directory: TemporaryDirectory, name: String = "echo.py", padding: Int = 0, reload: String? = nil) throws -> String {
        let path = try directory.write(name, script(padding: padding, reload: reload))
        return "[\"/usr/bin/python3\", \"-S\", \"\(path)\"]"
    }
}
