#!/usr/bin/env python3
"""A weather widget that sends whole Adaptive Cards (docs/HOSTS.md), one per instance (a
city), with its icons written as PNG files into its own assets/ directory: hosts fetch
them through the daemon. The Python SDK (sdk/python) and its standard library only; the
weather is made up.
"""
import os
import struct
import sys
import zlib

# The repository's SDK (sdk/python) when none is installed: config/extensiond.toml grants it.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "sdk", "python"))
import extensiond  # noqa: E402

DATA = os.environ.get("EXTENSIOND_DATA_DIR", "/tmp")
CITIES = {"Paris": ("sun", "21°", "Sunny", "Soleil"), "Beijing": ("cloud", "14°", "Cloudy", "多云")}
COLORS = {"sun": (250, 190, 30), "cloud": (150, 165, 185)}


def png(width, height, rgb, round_shape):
    """A filled disc (sun) or a flat rectangle (cloud), as a PNG written by hand."""
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    rows = b""
    for y in range(height):
        row = b"\x00"
        for x in range(width):
            inside = (x - width / 2) ** 2 + (y - height / 2) ** 2 < (width / 2.2) ** 2 if round_shape else height / 4 < y < height * 3 / 4
            row += bytes(rgb) + (b"\xff" if inside else b"\x00")
        rows += row
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def write_assets():
    os.makedirs(os.path.join(DATA, "assets"), exist_ok=True)
    for name, rgb in COLORS.items():
        with open(os.path.join(DATA, "assets", name + ".png"), "wb") as f:
            f.write(png(48, 48, rgb, name == "sun"))


def card(request):
    # The city the user chose in the Today view's edit mode, else the instance's name.
    params = request.params
    city = (params.get("city") if isinstance(params, dict) else None) or request.instance or "Paris"
    icon, temperature, english, french = CITIES.get(city, CITIES["Paris"])
    words = french if request.get("locale", "").startswith("fr") else english
    body = [{"type": "ColumnSet", "columns": [
        {"type": "Column", "width": "auto", "items": [{"type": "Image", "url": "asset:%s.png" % icon, "altText": words, "size": "small"}]},
        {"type": "Column", "items": [
            {"type": "TextBlock", "text": city, "size": "large", "weight": "bolder"},
            {"type": "TextBlock", "text": "%s · %s" % (temperature, words), "isSubtle": True, "spacing": "none"}]}]}]
    if request.mode == "expanded":
        body.append({"type": "FactSet", "facts": [{"title": "Wind", "value": "12 km/h"}, {"title": "Humidity", "value": "40%"}]})
    return {"type": "AdaptiveCard", "version": "1.5", "body": body,
            "selectAction": {"type": "Action.OpenUrl", "url": "demo://weather/" + city}}


class WeatherWidget(extensiond.Widget):
    def update(self, request, context):
        return extensiond.NewData(card(request))


if __name__ == "__main__":
    write_assets()
    sys.exit(extensiond.run(WeatherWidget()))
