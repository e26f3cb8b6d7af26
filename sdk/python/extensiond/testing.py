"""A test kit: drives a widget or action the way the supervisor does, without a daemon,
and checks what it sends against docs/PROTOCOL.md as strictly as the supervisor would.

    with WidgetDriver(MyWidget()) as widget:          # or WidgetDriver.command([...])
        widget.defaults["group.demo"]["count"] = 41
        result = widget.update(mode="expanded")
        assert result["snapshot"]["type"] == "AdaptiveCard"
        widget.execute("toggle", {"on": True})

Defaults live in `defaults` ({group: {key: value}}; a group not in it is refused as the
supervisor refuses another app's group); `openURL` succeeds for the schemes in
`url_schemes` and is recorded in `opened_urls`; `setHasContent` sets `has_content`.
"""

import os
import socket
import subprocess
import threading

from . import extension as _extension
from ._wire import LineChannel, ProtocolError, parse_rfc3339


class ProtocolViolation(AssertionError):
    """The widget sent what the supervisor would kill it for (reason `protocol`)."""


class DeadlineExceeded(AssertionError):
    """The widget did not answer within the deadline (the supervisor kills it: `deadline`)."""


RESULTS = ("newData", "noData", "failed")


class WidgetDriver:
    def __init__(self, widget=None, deadline=10.0, start_timeout=5.0, url_schemes=("demo",)):
        """Drives `widget` (a Widget or Action object) served by `extensiond.run` in a thread."""
        self.deadline = deadline
        self.defaults = {}
        self.url_schemes = {scheme.lower() for scheme in url_schemes}
        self.opened_urls = []
        self.has_content = True
        self.process = None
        self.next_id = 0
        supervisor, extension = socket.socketpair()
        self.channel = LineChannel(supervisor)
        self._extension_socket = extension
        if widget is not None:
            self.thread = threading.Thread(target=_extension.run, args=(widget, extension), daemon=True)
            self.thread.start()
            self._await_ready(start_timeout)

    @classmethod
    def command(cls, argv, environment=None, **options):
        """Drives the program `argv`, given its socket as fd 3 as the supervisor does."""
        driver = cls(None, **options)
        extension = driver._extension_socket
        env = {**os.environ, **(environment or {}), "EXTENSIOND_FD": "3"}
        driver.process = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, pass_fds=(3,),
                                          preexec_fn=lambda: os.dup2(extension.fileno(), 3))
        extension.close()
        driver._await_ready(options.get("start_timeout", 5.0))
        return driver

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.terminate()

    def _receive(self, timeout, waiting_for):
        try:
            message = self.channel.receive(timeout=timeout)
        except TimeoutError:
            raise DeadlineExceeded("no %s within %g s" % (waiting_for, timeout)) from None
        except ProtocolError as error:
            raise ProtocolViolation(str(error)) from None
        if message is None:
            raise ProtocolViolation("the widget closed its socket while the supervisor waited for %s" % waiting_for)
        return message

    def _await_ready(self, timeout):
        message = self._receive(timeout, "ready")
        if message["type"] != "ready" or message.get("protocol") != 1:
            raise ProtocolViolation("the first message must be {\"type\":\"ready\",\"protocol\":1}, not %r" % message)

    def _request(self, message, answers):
        """Sends a request and serves the widget's own requests until it answers."""
        self.next_id += 1
        message = {**message, "id": self.next_id}
        self.channel.send(message)
        while True:
            incoming = self._receive(self.deadline, " or ".join(answers))
            kind = incoming["type"]
            if kind in answers:
                if incoming.get("id") != message["id"]:
                    raise ProtocolViolation("%s for id %r; the outstanding request is %d" % (kind, incoming.get("id"), message["id"]))
                return incoming
            if kind in ("result", "complete", "cancel"):
                raise ProtocolViolation("%s answers a %s" % (kind, message["type"]))
            self._serve(incoming)

    def _serve(self, message):
        kind = message["type"]
        if kind == "openURL":
            url = message["url"]
            success = url.split(":", 1)[0].lower() in self.url_schemes and len(url) <= 8192
            if success:
                self.opened_urls.append(url)
            self.channel.send({"type": "openURLResult", "id": message["id"], "success": success})
        elif kind == "defaults":
            self.channel.send({"type": "defaultsResult", "id": message["id"], **self._defaults(message)})
        elif kind == "setHasContent":
            if not isinstance(message.get("value"), bool):
                raise ProtocolViolation("setHasContent needs a bool value")
            self.has_content = message["value"]
        else:
            raise ProtocolViolation("unknown or unexpected message type %r" % kind)

    def _defaults(self, message):
        group = message.get("group")
        if group not in self.defaults:
            return {"error": "group %r does not belong to the widget's app" % group}
        store, op, key = self.defaults[group], message.get("op"), message.get("key")
        if op == "get":
            return {"value": store.get(key)}
        if op == "set":
            store[key] = message.get("value")
            return {"value": None}
        if op == "remove":
            store.pop(key, None)
            return {"value": None}
        if op == "list":
            return {"value": sorted(store)}
        raise ProtocolViolation("defaults op %r" % op)

    def update(self, mode="compact", max_size=(320, 120), reason="manual", **fields):
        """Sends an `update` (extra `fields` as given, e.g. instance, params, colorScheme)
        and returns the checked `result`."""
        message = {"type": "update", "mode": mode, "maxSize": {"width": max_size[0], "height": max_size[1]},
                   "reason": reason, **fields}
        return check_result(self._request(message, ("result",)))

    def execute(self, verb, data=None, mode="compact", max_size=(320, 120), **fields):
        """An `Action.Execute` of the widget's card: the `execute` request and its checked `result`."""
        message = {"type": "execute", "verb": verb, "data": data, "mode": mode,
                   "maxSize": {"width": max_size[0], "height": max_size[1]}, **fields}
        return check_result(self._request(message, ("result",)))

    def begin(self, items):
        """An action's `begin`: the `complete` or `cancel` answer."""
        answer = self._request({"type": "begin", "items": list(items)}, ("complete", "cancel"))
        if answer["type"] == "cancel" and len(answer.get("error", "").encode()) > 4096:
            raise ProtocolViolation("cancel's error is longer than 4096 bytes")
        return answer

    def memory_warning(self, current, high, level=None):
        message = {"type": "memoryWarning", "current": current, "high": high}
        if level is not None:
            message["level"] = level
        self.channel.send(message)

    def terminate(self, timeout=5.0):
        """Sends `terminate`, waits for the widget to end; returns the exit status (0 for an
        object served in a thread that returned)."""
        try:
            self.channel.send({"type": "terminate"})
        except OSError:
            pass
        status = 0
        if self.process is not None:
            try:
                status = self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                raise DeadlineExceeded("the widget did not exit within %g s of terminate" % timeout) from None
        else:
            self.thread.join(timeout)
            if self.thread.is_alive():
                raise DeadlineExceeded("the widget did not return within %g s of terminate" % timeout)
        self.channel.close()
        return status


def check_result(result):
    """Checks a `result` as the supervisor does; returns it."""
    kind = result.get("result")
    if kind not in RESULTS:
        raise ProtocolViolation("result %r is not one of %s" % (kind, ", ".join(RESULTS)))
    if kind == "newData" and "snapshot" not in result:
        raise ProtocolViolation("newData without snapshot")
    size = result.get("preferredSize")
    if size is not None and not all(isinstance(size.get(side), int) and 0 <= size[side] <= 65535 for side in ("width", "height")):
        raise ProtocolViolation("preferredSize %r: each side 0…65535" % (size,))
    timeline = result.get("timeline")
    if timeline is not None:
        if kind != "newData":
            raise ProtocolViolation("a timeline without newData")
        if len(timeline) > 256:
            raise ProtocolViolation("a timeline of %d entries (at most 256)" % len(timeline))
        dates = []
        for entry in timeline:
            try:
                dates.append(parse_rfc3339(entry["date"]))
            except (KeyError, TypeError, ValueError):
                raise ProtocolViolation("timeline entry %r has no RFC 3339 date" % (entry,)) from None
            if "snapshot" not in entry:
                raise ProtocolViolation("timeline entry %r has no snapshot" % (entry,))
        if any(later <= earlier for earlier, later in zip(dates, dates[1:])):
            raise ProtocolViolation("timeline dates must ascend strictly")
    return result
