import Foundation

/// A test extension in Python whose behaviour the test chooses, to make the daemon
/// meet well-behaved, slow, hanging, crashing and misbehaving extensions.
///
/// Every `newData` snapshot is `{"n": <updates answered by this process>, "pid": <pid>}`,
/// so a test sees both the update count and whether the process was relaunched.
public enum ScriptedExtension {
    /// What the extension does with its updates (or `begin`s).
    public enum Behaviour: String, Sendable {
        /// Answers every update with `newData`.
        case answer
        /// Answers the first update of each process, then never answers again.
        case hangAfterFirst = "hang-after-first"
        /// Answers the first update of each process, then exits with status 3 mid-update.
        case crashOnSecond = "crash-on-second"
        /// Answers an update with a line that is not JSON.
        case garbage
        /// Answers an update with a 2 MiB line.
        case oversized
        /// Answers an update with a `result` for an id the daemon never sent.
        case unknownID = "unknown-id"
        /// Says `setHasContent false` after `ready`, then answers like `answer`.
        case noContent = "no-content"
        /// Completes every `begin` with one `public.text` item per item received, or cancels
        /// it with the error "the user canceled" when an item's value is "cancel".
        case action
        /// Never completes a `begin`.
        case hangingAction = "hanging-action"
        /// Answers like `answer`, but takes a second to exit after `terminate`.
        case lingerOnTerminate = "linger-on-terminate"
        /// Answers like `answer`, with the update's `mode` in the snapshot and a
        /// `preferredSize` of 100×40 in compact, 300×200 in expanded.
        case modes
        /// Answers like `answer`, with a `timeline` of 60 entries `{"entry": i}` dated one
        /// second apart from one second after the answer.
        case timeline
        /// Answers like `answer`, with the update's `instance` and `params` in the snapshot.
        case params
        /// Answers like `answer`, with a timer thread ticking every millisecond meanwhile
        /// (as an app's timers would), so that it uses CPU while idle.
        case ticking
        /// Answers like `params`, with the update's `mode`, `maxSize` and `reason` in the
        /// snapshot too, a `preferredSize` of 9999×9999 and `largestMode` `compact`.
        case gallery
    }

    /// The TOML `command` array that runs the extension with `behaviour`. `countFile`,
    /// when given, gets one line per update received (its reason) and `terminate` when
    /// told to exit; `delay` (seconds) is waited before
    /// each answer; `reload` is the reload hint of every `result`.
    public static func command(
        _ behaviour: Behaviour, in directory: TemporaryDirectory, countFile: String? = nil, delay: Double = 0, reload: String = "atEnd"
    ) throws -> String {
        let script = try directory.write("scripted_extension.py", source)
        let arguments = ["/usr/bin/python3", "-S", script, behaviour.rawValue, countFile ?? "", String(delay), reload]
        return "[" + arguments.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
    }

    /// The updates the extension received, over all its processes.
    public static func updates(in countFile: String) -> Int {
        lines(of: countFile).filter { $0 != "terminate" }.count
    }

    /// The `terminate` messages the extension received, over all its processes.
    public static func terminations(in countFile: String) -> Int {
        lines(of: countFile).filter { $0 == "terminate" }.count
    }

    private static func lines(of file: String) -> [Substring] {
        ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n")
    }

    /// Python: `messages()` yields each message the daemon sends on `connection`, decoded.
    public static let messagesFunction = #"""
        def messages():
            buffer = b""
            while True:
                chunk = connection.recv(65536)
                if not chunk:
                    return
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    yield json.loads(line)
        """#

    private static let source = #"""
        import datetime, json, os, socket, sys, time

        behaviour, count_file, delay, reload = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
        connection = socket.socket(fileno=int(os.environ["EXTENSIOND_FD"]))

        def send(message):
            connection.sendall(json.dumps(message).encode() + b"\n")

        \#(messagesFunction)

        def count(line):
            if count_file:
                with open(count_file, "a") as counts:
                    counts.write(line + "\n")

        send({"type": "ready", "protocol": 1})
        if behaviour == "ticking":
            import threading
            def tick():
                while True:
                    time.sleep(0.001)
            threading.Thread(target=tick, daemon=True).start()
        if behaviour == "no-content":
            send({"type": "setHasContent", "value": False})
        answered = 0
        for message in messages():
            kind = message["type"]
            if kind == "terminate":
                count("terminate")
                if behaviour == "linger-on-terminate":
                    time.sleep(1)
                break
            if kind == "begin" and behaviour == "hanging-action":
                continue
            if kind == "begin" and any(item.get("value") == "cancel" for item in message["items"]):
                send({"type": "cancel", "id": message["id"], "error": "the user canceled"})
                continue
            if kind == "begin":
                items = [{"type": "public.text", "value": "handled " + item["type"]} for item in message["items"]]
                send({"type": "complete", "id": message["id"], "items": items})
                continue
            if kind != "update":
                continue
            count(message["reason"] + (" " + message["instance"] if message.get("instance") else ""))
            time.sleep(delay)
            if answered >= 1 and behaviour == "hang-after-first":
                continue
            if answered >= 1 and behaviour == "crash-on-second":
                os._exit(3)
            if behaviour == "garbage":
                connection.sendall(b"this is not json\n")
            elif behaviour == "oversized":
                connection.sendall(b'{"type":"result","id":%d,"result":"newData","snapshot":"' % message["id"] + b"x" * (2 << 20) + b'"}\n')
            elif behaviour == "unknown-id":
                send({"type": "result", "id": message["id"] + 1000, "result": "noData"})
            elif behaviour == "timeline":
                answered += 1
                start = datetime.datetime.now(datetime.timezone.utc)
                def rfc3339(i):
                    return (start + datetime.timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
                timeline = [{"date": rfc3339(i), "snapshot": {"entry": i}} for i in range(1, 61)]
                send({"type": "result", "id": message["id"], "result": "newData", "snapshot": {"n": answered, "pid": os.getpid()}, "reload": reload, "timeline": timeline})
            elif behaviour == "gallery":
                answered += 1
                snapshot = {"n": answered, "instance": message.get("instance"), "params": message.get("params"),
                            "mode": message["mode"], "maxSize": message["maxSize"], "reason": message["reason"]}
                send({"type": "result", "id": message["id"], "result": "newData", "snapshot": snapshot, "reload": reload,
                      "preferredSize": {"width": 9999, "height": 9999}, "largestMode": "compact"})
            elif behaviour == "params":
                answered += 1
                snapshot = {"n": answered, "instance": message.get("instance"), "params": message.get("params")}
                send({"type": "result", "id": message["id"], "result": "newData", "snapshot": snapshot, "reload": reload})
            elif behaviour == "modes":
                answered += 1
                size = {"width": 100, "height": 40} if message["mode"] == "compact" else {"width": 300, "height": 200}
                snapshot = {"n": answered, "pid": os.getpid(), "mode": message["mode"]}
                send({"type": "result", "id": message["id"], "result": "newData", "snapshot": snapshot, "reload": reload, "preferredSize": size})
            else:
                answered += 1
                send({"type": "result", "id": message["id"], "result": "newData", "snapshot": {"n": answered, "pid": os.getpid()}, "reload": reload})
        """#
}
