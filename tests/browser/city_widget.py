#!/usr/bin/env python3
"""A third-party widget written from docs/PROTOCOL.md and docs/HOSTS.md alone: an Adaptive
Card with an image from its assets, text, a tap target, an Action.Execute toggle and an
element outside the renderer's subset (with a fallback). It records every request it gets in
$EXTENSIOND_DATA_DIR/requests.jsonl so that the browser tests can see what reached it.

Usage: city_widget.py [card|template|hostile|huge|html APP_URL|escape URL|timeline COUNT MS|slow SECONDS]

`template` sends only the data of city_card.json (its `card_template`); `timeline` answers
with COUNT timeline entries MS milliseconds apart, each dated, for push latencies; `slow`
answers each update with the card after SECONDS, for what a page shows while it loads.
"""
import json
import os
import socket
import struct
import sys
import time
import zlib

KIND = sys.argv[1] if len(sys.argv) > 1 else "card"
DATA = os.environ.get("EXTENSIOND_DATA_DIR", "/tmp")


def png(width, height, rgb):
    """A solid-colour PNG, written by hand: only the standard library."""
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def write_assets():
    os.makedirs(os.path.join(DATA, "assets"), exist_ok=True)
    with open(os.path.join(DATA, "assets", "sun.png"), "wb") as f:
        f.write(png(32, 32, (250, 190, 30)))


def card(request, alerts):
    city = request.get("instance") or "Paris"
    scheme = request.get("colorScheme", "unknown")
    body = [
        {"type": "ColumnSet", "columns": [
            {"type": "Column", "width": "auto", "items": [
                {"type": "Image", "url": "asset:sun.png", "altText": "Sunny", "size": "small", "id": "icon"}]},
            {"type": "Column", "items": [
                {"type": "TextBlock", "text": city, "size": "large", "weight": "bolder", "id": "city"},
                {"type": "TextBlock", "text": "21° Sunny", "isSubtle": True, "spacing": "none"}]},
        ]},
        {"type": "TextBlock", "text": "Scheme: " + scheme, "id": "scheme", "size": "small"},
        {"type": "Rating", "value": 4, "fallback": {"type": "TextBlock", "text": "Rated 4 of 5", "id": "fallback"}},
    ]
    if request.get("mode") == "expanded":
        body.append({"type": "FactSet", "id": "details", "facts": [
            {"title": "Wind", "value": "12 km/h"}, {"title": "Humidity", "value": "40%"}]})
    body.append({"type": "ActionSet", "actions": [
        {"type": "Action.Execute", "title": "Alerts: " + ("on" if alerts else "off"), "verb": "toggle",
         "data": {"setting": "alerts"}, "id": "alerts"}]})
    return {"type": "AdaptiveCard", "version": "1.5", "body": body,
            "selectAction": {"type": "Action.OpenUrl", "url": "weather://city/" + city}}


def card_data(request, alerts):
    """What `template` sends: the data city_card.json lays out, the same card as card()."""
    return {"city": request.get("instance") or "Paris", "temperature": "21°", "sky": "Sunny",
            "scheme": request.get("colorScheme", "unknown"), "alerts": alerts,
            "expanded": request.get("mode") == "expanded", "wind": "12 km/h", "humidity": "40%"}


def timeline(request):
    count, spacing = int(sys.argv[2]), int(sys.argv[3]) / 1000
    now = time.time()
    stamp = lambda t: time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % int((t % 1) * 1000)
    return [{"date": stamp(now + 1 + i * spacing), "snapshot": card_data(request, i % 2 == 0)} for i in range(count)]


def hostile_card():
    markup = '<img src=x onerror="window.pwned=1"><script>window.pwned=1</script>'
    return {"type": "AdaptiveCard", "version": "1.5",
            "selectAction": {"type": "Action.OpenUrl", "url": "javascript:window.pwned=1"},
            "body": [
                {"type": "TextBlock", "text": markup, "id": "markup", "wrap": True},
                {"type": "RichTextBlock", "inlines": [{"type": "TextRun", "text": "<b>bold?</b>"}]},
                {"type": "Image", "url": "javascript:window.pwned=1", "altText": "bad image"},
                {"type": "ActionSet", "actions": [
                    {"type": "Action.OpenUrl", "title": "Evil link", "url": "javascript:window.pwned=1"}]},
            ]}


def html_document(app_url):
    return {"type": "html", "html": """<!doctype html><body style="font:14px sans-serif">
<p id="probe">probing</p>
<a id="open" href="%s">Open the app</a>
<script>
const results = {};
try { results.parent = String(parent.document.title); } catch (e) { results.parent = "blocked"; }
try { results.cookie = document.cookie; } catch (e) { results.cookie = "blocked"; }
fetch("/config.json").then(() => { results.fetch = "read"; }, () => { results.fetch = "blocked"; })
  .finally(() => { document.getElementById("probe").dataset.results = JSON.stringify(results); document.getElementById("probe").textContent = "done"; });
</script></body>""" % app_url}


def escape_document(url):
    """An HTML widget that tries to take the page elsewhere: the top page at load (no user
    activation) and at a click (with it), a pop-up, and its own frame to another origin."""
    return {"type": "html", "html": """<!doctype html><body style="font:14px sans-serif">
<p id="probe">probing</p><button id="leave">Leave</button>
<script>
const target = %s, results = {};
function attempt(name, action) { try { results[name] = action() ? "opened" : "tried"; } catch (e) { results[name] = "blocked"; } }
attempt("top", () => { top.location.href = target; });
attempt("popup", () => window.open(target));
document.getElementById("probe").dataset.results = JSON.stringify(results);
document.getElementById("leave").addEventListener("click", () => {
  attempt("topOnClick", () => { top.location.href = target + "top"; });
  document.getElementById("probe").dataset.results = JSON.stringify(results);
  setTimeout(() => { location.href = target + "self"; }, 1000);  // once the test has read the results
});
</script></body>""" % json.dumps(url)}


def snapshot_for(request, alerts):
    if KIND == "hostile":
        return hostile_card()
    if KIND == "huge":
        return {"type": "AdaptiveCard", "version": "1.5", "body": [{"type": "TextBlock", "text": "x" * 1000000}]}
    if KIND == "html":
        return html_document(sys.argv[2])
    if KIND == "escape":
        return escape_document(sys.argv[2])
    if KIND in ("template", "timeline"):
        return card_data(request, alerts)
    return card(request, alerts)


def main():
    write_assets()
    sock = socket.socket(fileno=int(os.environ["EXTENSIOND_FD"]))
    reader = sock.makefile("rb")
    sock.sendall(b'{"type":"ready","protocol":1}\n')
    alerts = {}  # per instance
    log = open(os.path.join(DATA, "requests.jsonl"), "a")
    for line in reader:
        if not line.strip():
            continue
        request = json.loads(line)
        kind = request["type"]
        if kind == "terminate":
            return
        if kind not in ("update", "execute"):
            continue
        log.write(json.dumps(request) + "\n")
        log.flush()
        if KIND == "slow":
            time.sleep(float(sys.argv[2]))
        city = request.get("instance")
        if kind == "execute" and request.get("verb") == "toggle":
            alerts[city] = not alerts.get(city, False)
        result = {"type": "result", "id": request["id"], "result": "newData", "snapshot": snapshot_for(request, alerts.get(city, False))}
        if KIND == "timeline":
            result["timeline"] = timeline(request)
        sock.sendall(json.dumps(result, separators=(",", ":")).encode() + b"\n")


main()
