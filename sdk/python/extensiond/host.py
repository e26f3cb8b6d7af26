"""A host of extensiond (docs/PROTOCOL.md §3): lists extensions, pulls and subscribes to
widgets' snapshots, reports what is visible, opens a widget's links and performs actions.
Requests wait for their answer; what the supervisor pushes meanwhile (snapshots,
`extensionTerminated`, `openURL`, `hasContentChanged`) is kept for `pushes`."""

import os
import socket

from ._wire import LineChannel


class HostError(Exception):
    """The supervisor answered a request with an error; the message says what was wrong."""


class HostClient:
    def __init__(self, path=None, timeout=30.0):
        """Connects to `path`, else `$EXTENSIOND_HOST_SOCKET`, else /run/extensiond/host.sock.
        A request not answered within `timeout` seconds raises TimeoutError."""
        path = path or os.environ.get("EXTENSIOND_HOST_SOCKET") or "/run/extensiond/host.sock"
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(path)
        self.channel = LineChannel(sock)
        self.timeout = timeout
        self.next_id = 0
        self.pushed = []

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()

    def close(self):
        self.channel.close()

    def request(self, message):
        """Sends `message` with a new id and returns the answer with that id."""
        self.next_id += 1
        ident = self.next_id
        self.channel.send({**message, "id": ident})
        while True:
            answer = self.channel.receive(timeout=self.timeout)
            if answer is None:
                raise ConnectionError("the supervisor closed the host connection")
            if answer.get("id") == ident:
                if answer["type"] == "error":
                    raise HostError(answer.get("error", "error"))
                return answer
            if answer["type"] == "error" and "id" not in answer:
                raise HostError(answer.get("error", "error"))
            self.pushed.append(answer)

    def list(self):
        """Every extension this host may use: dicts with id, app, point, enabled, hasContent, modes."""
        return self.request({"type": "list"})["extensions"]

    def pull(self, extension, mode="compact", max_size=(320, 120), wait=False, instance=None, params=None, **fields):
        """The `snapshot` answer: its `snapshot`, `result`, `version`, `stale`… (unknown
        fields as the supervisor sent them). Extra keyword fields go into the request."""
        message = {"type": "pull", "extension": extension, "mode": mode,
                   "maxSize": {"width": max_size[0], "height": max_size[1]}, "wait": wait, **fields}
        if instance is not None:
            message["instance"] = instance
        if params is not None:
            message["params"] = params
        return self.request(message)

    def subscribe(self, extensions, instance=None, params=None):
        """Pushes of the extensions' new snapshots from now on (see `pushes`)."""
        message = {"type": "subscribe", "extensions": list(extensions)}
        if instance is not None:
            message["instance"] = instance
        if params is not None:
            message["params"] = params
        self._checked(message)

    def visible(self, extensions, visible=True):
        """Tells which widgets are shown: hidden ones get no scheduled refreshes.
        `extensions` are ids or (id, instance) pairs."""
        entries = [{"extension": e} if isinstance(e, str) else {"extension": e[0], "instance": e[1]} for e in extensions]
        self._checked({"type": "visible", "extensions": entries, "visible": bool(visible)})

    def _checked(self, message):
        """Sends a request answered only when refused, then waits for a `list`: the
        supervisor handles one connection's messages in order, so a refusal comes first."""
        self.next_id += 1
        ident = self.next_id
        self.channel.send({**message, "id": ident})
        barrier = self.request({"type": "list"})
        refusal = next((m for m in self.pushed if m.get("id") == ident and m["type"] == "error"), None)
        if refusal is not None:
            self.pushed.remove(refusal)
            raise HostError(refusal.get("error", "error"))
        return barrier

    def open(self, extension, url):
        """Opens a link of the extension's snapshot in its app. Raises HostError with the
        reason when refused."""
        answer = self.request({"type": "open", "extension": extension, "url": url})
        if not answer.get("success"):
            raise HostError(answer.get("error", "the URL was not opened"))
        return True

    def perform(self, extension, items):
        """Runs an action extension on `items`; returns the items it completed with."""
        return self.request({"type": "perform", "extension": extension, "items": list(items)})["items"]

    def pushes(self, timeout=5.0):
        """Yields pushed messages as they come, until none comes for `timeout` seconds."""
        while True:
            if self.pushed:
                yield self.pushed.pop(0)
                continue
            try:
                message = self.channel.receive(timeout=timeout)
            except TimeoutError:
                return
            if message is None:
                return
            yield message
