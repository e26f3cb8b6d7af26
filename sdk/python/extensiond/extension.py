"""Writing a widget or an action extension: subclass `Widget` (or `Action`), return a
result from `update`, and call `run`. The supervisor starts the program with its socket as
fd 3 (docs/PROTOCOL.md §2); `run` says `ready`, answers each request and returns at
`terminate` or end of file."""

import datetime
import os
import socket

from ._wire import LineChannel, rfc3339

#: Reload hints (docs/PROTOCOL.md, "Results and reload hints").
AT_END = "atEnd"
NEVER = "never"


def after(when=None, **delta):
    """A reload hint: not before `when` (a datetime), or after a delta from now
    (`after(minutes=10)`)."""
    if when is None:
        when = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(**delta)
    return {"after": rfc3339(when)}


class NewData:
    """New content: `snapshot` (any JSON, e.g. an Adaptive Card from `extensiond.cards`),
    optionally later snapshots as `timeline` [(datetime, snapshot)], a `reload` hint and
    the `preferred_size` (width, height) the content would like."""

    def __init__(self, snapshot, timeline=None, reload=None, preferred_size=None):
        self.snapshot, self.timeline, self.reload, self.preferred_size = snapshot, timeline, reload, preferred_size

    def fields(self):
        fields = {"result": "newData", "snapshot": self.snapshot}
        if self.timeline:
            fields["timeline"] = [{"date": rfc3339(date), "snapshot": snapshot} for date, snapshot in self.timeline]
        if self.reload is not None:
            fields["reload"] = self.reload
        if self.preferred_size is not None:
            fields["preferredSize"] = {"width": self.preferred_size[0], "height": self.preferred_size[1]}
        return fields


class NoData:
    """Nothing new: the cached snapshot stays."""

    def __init__(self, reload=None):
        self.reload = reload

    def fields(self):
        return {"result": "noData"} if self.reload is None else {"result": "noData", "reload": self.reload}


class Failed:
    """The update failed: the snapshot stays, marked stale with `error`, and is retried with backoff."""

    def __init__(self, error=None):
        self.error = error

    def fields(self):
        return {"result": "failed"} if self.error is None else {"result": "failed", "error": str(self.error)}


class Cancel(Exception):
    """Raised from `Action.perform`: the request is cancelled and the host gets the message."""


class Request:
    """An `update` or `execute` request. Fields the SDK does not know yet (the host's
    environment, later additions) are in `fields`, as sent."""

    def __init__(self, fields):
        self.fields = fields

    kind = property(lambda self: self.fields["type"])
    id = property(lambda self: self.fields["id"])
    mode = property(lambda self: self.fields.get("mode", "compact"))
    reason = property(lambda self: self.fields.get("reason"))
    instance = property(lambda self: self.fields.get("instance"))
    params = property(lambda self: self.fields.get("params"))
    #: `Action.Execute`'s verb and data (execute requests only).
    verb = property(lambda self: self.fields.get("verb"))
    data = property(lambda self: self.fields.get("data"))

    @property
    def max_size(self):
        size = self.fields.get("maxSize") or {}
        return size.get("width", 0), size.get("height", 0)

    def get(self, name, default=None):
        return self.fields.get(name, default)


class MemoryWarning:
    """`current` bytes against `high`; `level` is "high" (the process's own limit) or
    "warn" (the whole tree is short of memory)."""

    def __init__(self, fields):
        self.current, self.high, self.level = fields.get("current"), fields.get("high"), fields.get("level", "high")


class Extension:
    """What every extension may override. The default answers are the harmless ones."""

    def memory_warning(self, warning):
        """Release what can be released (caches)."""

    def terminate(self):
        """Called once before `run` returns."""


class Widget(Extension):
    def update(self, request, context):
        """Return `NewData`, `NoData` or `Failed`. An exception is answered as `Failed`."""
        raise NotImplementedError("a Widget must override update")

    def execute(self, request, context):
        """An `Action.Execute` of one of the widget's cards (`request.verb`, `request.data`):
        return the new content as `update` does. By default, a new update."""
        return self.update(request, context)


class Action(Extension):
    def perform(self, items, context):
        """Return the items produced, or raise `Cancel("why")`."""
        raise Cancel("this extension performs nothing")


class Defaults:
    """The shared defaults of one app group (docs/PROTOCOL.md, `defaults`)."""

    def __init__(self, context, group):
        self.context, self.group = context, group

    def _call(self, op, **fields):
        answer = self.context.call({"type": "defaults", "group": self.group, "op": op, **fields})
        if "error" in answer:
            raise DefaultsError(answer["error"])
        return answer.get("value")

    def get(self, key, default=None):
        value = self._call("get", key=key)
        return default if value is None else value

    def set(self, key, value):
        self._call("set", key=key, value=value)

    def remove(self, key):
        self._call("remove", key=key)

    def keys(self):
        return self._call("list")


class DefaultsError(Exception):
    """The supervisor refused a defaults operation (e.g. a group of another app)."""


class Context:
    """What an extension may ask of the supervisor while it runs."""

    def __init__(self, channel, dispatch):
        self.channel, self.dispatch = channel, dispatch
        self.next_id = 0
        self.answers = {}
        #: Requests and notices read while waiting for an answer, for `run`'s loop.
        self.pending = []
        self.extension_id = os.environ.get("EXTENSIOND_EXTENSION_ID", "")
        self.data_dir = os.environ.get("EXTENSIOND_DATA_DIR")
        pairs = [pair.split("=", 1) for pair in os.environ.get("EXTENSIOND_GROUP_CONTAINERS", "").split(":") if "=" in pair]
        #: The container directory of each of the app's groups.
        self.group_containers = dict(pairs)

    def call(self, message):
        """Sends `message` with a new id and returns the supervisor's answer to it."""
        self.next_id += 1
        ident = self.next_id
        self.channel.send({**message, "id": ident})
        while ident not in self.answers:
            incoming = self.channel.receive()
            if incoming is None:
                raise ConnectionError("the supervisor closed the socket")
            if incoming["type"] in ("openURLResult", "defaultsResult"):
                self.answers[incoming.get("id")] = incoming
            elif incoming["type"] == "memoryWarning":
                self.dispatch(incoming)
            else:
                self.pending.append(incoming)
        return self.answers.pop(ident)

    def open_url(self, url):
        """Asks the app that owns the URL's scheme to open it; True when it did."""
        return bool(self.call({"type": "openURL", "url": url}).get("success"))

    def defaults(self, group):
        return Defaults(self, group)

    def set_has_content(self, value):
        """False makes hosts hide the extension until it is set again."""
        self.channel.send({"type": "setHasContent", "value": bool(value)})


def _answer(extension, message, context):
    kind = message["type"]
    if kind in ("update", "execute"):
        handler = extension.update if kind == "update" else extension.execute
        try:
            result = handler(Request(message), context)
        except Exception as error:  # the update failed; the extension goes on
            result = Failed("%s: %s" % (type(error).__name__, error))
        if result is None:
            result = NoData()
        return {"type": "result", "id": message["id"], **result.fields()}
    try:
        items = extension.perform(message.get("items", []), context)
        return {"type": "complete", "id": message["id"], "items": list(items or [])}
    except Exception as error:  # Cancel, or a failure the host should hear of
        return {"type": "cancel", "id": message["id"], "error": str(error)[:4096]}


def run(extension, sock=None):
    """Serves `extension` on `sock` (by default the descriptor in `$EXTENSIOND_FD`) until
    the supervisor says `terminate` or closes the socket. Returns 0, the exit status."""
    if sock is None:
        sock = socket.socket(fileno=int(os.environ.get("EXTENSIOND_FD", "3")))
    channel = LineChannel(sock)

    def dispatch(message):
        if message["type"] == "memoryWarning":
            extension.memory_warning(MemoryWarning(message))

    context = Context(channel, dispatch)
    channel.send({"type": "ready", "protocol": 1})
    try:
        while True:
            message = context.pending.pop(0) if context.pending else channel.receive()
            if message is None or message["type"] == "terminate":
                return 0
            if message["type"] in ("update", "execute", "begin"):
                channel.send(_answer(extension, message, context))
            else:
                dispatch(message)  # memory warnings; unknown types are for later versions
    except (ConnectionError, BrokenPipeError):
        return 0
    finally:
        extension.terminate()
        channel.close()
