"""The demo config's Python widgets (examples/h5-widget, examples/weather-card) run as
programs on fd 3, as the supervisor runs them: with the repository's SDK found beside them
(no PYTHONPATH) and each answering what the Today view shows."""

import os
import struct
import sys
import tempfile

from conftest import REPOSITORY

from extensiond.testing import WidgetDriver

EXAMPLES = REPOSITORY / "examples"


def run_example(name, environment=None):
    # The SDK must come from the path the example adds itself, as under the demo config.
    inherited = {"PYTHONPATH": ""}
    return WidgetDriver.command([sys.executable, "-S", str(EXAMPLES / name / "widget.py")],
                                environment={**inherited, **(environment or {})})


def test_the_h5_widget_answers_its_page_in_the_hosts_color_scheme_and_never_reloads():
    with run_example("h5-widget") as widget:
        light = widget.update()
        dark = widget.update(colorScheme="dark")
        pressed = widget.execute("anything")
    assert light["result"] == "newData" and light["reload"] == "never"
    assert light["snapshot"]["type"] == "html" and 'content="light"' in light["snapshot"]["html"]
    assert 'content="dark"' in dark["snapshot"]["html"] and "#f2f2f4" in dark["snapshot"]["html"]
    assert 'href="demo://page/inbox"' in pressed["snapshot"]["html"]
    assert widget.process.returncode == 0


def test_the_weather_widget_answers_each_citys_card_in_its_locale_and_writes_its_icons():
    with tempfile.TemporaryDirectory() as data, run_example("weather-card", {"EXTENSIOND_DATA_DIR": data}) as widget:
        paris = widget.update(instance="Paris")["snapshot"]
        beijing = widget.update(instance="Paris", params={"city": "Beijing"}, locale="fr-FR", mode="expanded")["snapshot"]
        for icon in ("sun", "cloud"):
            with open(os.path.join(data, "assets", icon + ".png"), "rb") as png:
                header = png.read(24)
            assert header[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", header[16:24]) == (48, 48)
    assert paris["type"] == "AdaptiveCard" and paris["selectAction"]["url"] == "demo://weather/Paris"
    text = paris["body"][0]["columns"][1]["items"]
    assert text[0]["text"] == "Paris" and text[1]["text"] == "21° · Sunny"
    columns = beijing["body"][0]["columns"]
    assert columns[0]["items"][0]["url"] == "asset:cloud.png" and columns[1]["items"][1]["text"] == "14° · 多云"
    assert beijing["body"][1]["type"] == "FactSet" and len(paris["body"]) == 1
    assert widget.process.returncode == 0
