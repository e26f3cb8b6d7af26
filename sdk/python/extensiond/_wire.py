"""The framing of both extensiond protocols (docs/PROTOCOL.md §1): one JSON object per
line, at most 1 MiB, and the RFC 3339 times the protocol writes."""

import datetime
import json
import select

MAX_LINE = 1 << 20  # bytes, not counting the line feed


class ProtocolError(Exception):
    """The peer broke the framing: a line too long, not JSON, not an object, no type."""


def encode(message):
    """One message as the bytes of its line, line feed included."""
    line = json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")
    if len(line) > MAX_LINE:
        raise ValueError("a %s message of %d bytes is longer than the protocol's 1 MiB" % (message.get("type"), len(line)))
    return line + b"\n"


class LineChannel:
    """Messages over a connected stream socket. `receive` returns None at end of file."""

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""

    def send(self, message):
        self.sock.sendall(encode(message))

    def receive(self, timeout=None):
        """The next message; None at end of file; TimeoutError after `timeout` seconds."""
        while True:
            newline = self.buffer.find(b"\n")
            if newline >= 0:
                line, self.buffer = self.buffer[:newline], self.buffer[newline + 1:]
                if line.strip(b" \t\r"):
                    return decode(line.rstrip(b"\r"))
                continue
            if len(self.buffer) > MAX_LINE:
                raise ProtocolError("a line longer than 1 MiB")
            if timeout is not None and not select.select([self.sock], [], [], timeout)[0]:
                raise TimeoutError("no message within %g s" % timeout)
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buffer += chunk

    def close(self):
        self.sock.close()


def decode(line):
    try:
        message = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise ProtocolError("not a JSON line: %s" % error) from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ProtocolError("not a JSON object with a string type: %r" % line[:200])
    return message


def rfc3339(when):
    """A datetime (naive means UTC) as the protocol writes times: UTC, `Z`, milliseconds
    only when they are not zero."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.timezone.utc)
    when = when.astimezone(datetime.timezone.utc)
    text = when.strftime("%Y-%m-%dT%H:%M:%S")
    if when.microsecond // 1000:
        text += ".%03d" % (when.microsecond // 1000)
    return text + "Z"


def parse_rfc3339(text):
    """An RFC 3339 time as an aware datetime; ValueError when it is not one."""
    normal = text.replace("t", "T").replace(" ", "T", 1).replace("z", "Z")
    if normal.endswith("Z"):
        normal = normal[:-1] + "+00:00"
    date, _, rest = normal.partition("T")
    if "." in rest:  # fromisoformat takes at most 6 fractional digits before 3.11
        clock, _, fraction = rest.partition(".")
        digits = len(fraction) - len(fraction.lstrip("0123456789"))
        rest = clock + "." + (fraction[:digits] + "000000")[:6] + fraction[digits:]
    parsed = datetime.datetime.fromisoformat(date + "T" + rest)
    if parsed.tzinfo is None:
        raise ValueError("%r has no offset" % text)
    return parsed
