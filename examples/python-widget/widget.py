#!/usr/bin/env python3
"""An extensiond widget in Python, written from docs/PROTOCOL.md alone.

The supervisor starts it with a connected stream socket whose descriptor number is in
EXTENSIOND_FD (always 3). The widget says `ready`, then answers every `update` with a
`newData` snapshot {"text": ..., "n": counter} and a timeline of the snapshots of the
next seconds, which the supervisor shows at their dates without asking again, and exits
on `terminate` or end of file. Only the Python standard library is used.
"""

import datetime
import json
import os
import socket
import sys

MAX_LINE = 1 << 20  # 1 MiB, not counting the line feed
TIMELINE_SECONDS = 10  # entries of each timeline, one a second (at most 256)


class Connection:
    """Newline-delimited JSON over the supervisor socket."""

    def __init__(self, fd):
        self.sock = socket.socket(fileno=fd)
        self.buffer = b""

    def send(self, message):
        line = json.dumps(message, separators=(",", ":"), allow_nan=False).encode("utf-8")
        if len(line) > MAX_LINE:
            raise ValueError("message longer than 1 MiB")
        self.sock.sendall(line + b"\n")

    def receive(self):
        """The next message, or None when the supervisor closed the socket."""
        while True:
            newline = self.buffer.find(b"\n")
            if newline >= 0:
                line, self.buffer = self.buffer[:newline], self.buffer[newline + 1:]
                if line.strip():
                    return json.loads(line.decode("utf-8"))
                continue
            if len(self.buffer) > MAX_LINE:
                raise ValueError("supervisor sent a line longer than 1 MiB")
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buffer += chunk


def snapshot_for(update, counter, seconds=0):
    text = "Hello from Python, update #%d" % counter
    if seconds:
        text += " +%ds" % seconds
    if update["mode"] == "expanded":
        size = update["maxSize"]
        text += " (%s, up to %dx%d)" % (update["reason"], size["width"], size["height"])
    return {"text": text, "n": counter}


def timeline_for(update, counter):
    """The snapshots of the next seconds, with ascending RFC 3339 dates."""
    now = datetime.datetime.now(datetime.timezone.utc)
    return [{"date": (now + datetime.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
             "snapshot": snapshot_for(update, counter, seconds)}
            for seconds in range(1, TIMELINE_SECONDS + 1)]


def main():
    connection = Connection(int(os.environ.get("EXTENSIOND_FD", "3")))
    connection.send({"type": "ready", "protocol": 1})
    counter = 0
    while True:
        message = connection.receive()
        if message is None:
            return 0
        kind = message.get("type")
        if kind == "update":
            counter += 1
            connection.send({
                "type": "result",
                "id": message["id"],
                "result": "newData",
                "snapshot": snapshot_for(message, counter),
                "timeline": timeline_for(message, counter),
                "reload": "atEnd",
            })
        elif kind == "begin":
            # Widgets receive no items; answer so that the request does not hang.
            connection.send({"type": "complete", "id": message["id"], "items": []})
        elif kind == "terminate":
            return 0
        elif kind == "memoryWarning":
            pass  # Nothing cached to release.


if __name__ == "__main__":
    sys.exit(main())
