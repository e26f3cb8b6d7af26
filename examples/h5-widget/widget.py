#!/usr/bin/env python3
"""The seeds' H5 widget: a web page with buttons that open pages of its containing app. Its
snapshot is {"type": "html", "html": ...}; the Today view shows it in a sandboxed frame
(scripts run, nothing else is reachable) and hands its links to the daemon's `open`, which
gives them to the app (docs/HOSTS.md). The page follows the host's color scheme.
"""
import os
import sys

# The repository's SDK (sdk/python) when none is installed: config/extensiond.toml grants it.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "sdk", "python"))
import extensiond  # noqa: E402

PAGE = """<!doctype html><meta name="color-scheme" content="%(scheme)s">
<style>
body { margin: 0; font: 14px system-ui, sans-serif; color: %(text)s; }
h2 { font-size: 15px; margin: 0 0 8px; }
nav { display: flex; gap: 8px; flex-wrap: wrap; }
a { padding: 6px 12px; border-radius: 8px; background: %(button)s; color: inherit; text-decoration: none; }
#clock { opacity: .7; margin-top: 8px; font-variant-numeric: tabular-nums; }
</style>
<h2>Demo app shortcuts</h2>
<nav><a href="demo://page/inbox">Inbox</a><a href="demo://page/calendar">Calendar</a><a href="demo://page/settings">Settings</a></nav>
<div id="clock"></div>
<script>setInterval(() => { document.getElementById("clock").textContent = new Date().toLocaleTimeString(); }, 1000);</script>
"""


class ShortcutsWidget(extensiond.Widget):
    """The page, in the host's color scheme; an `execute` answers the same (the default)."""

    def update(self, request, context):
        dark = request.get("colorScheme") == "dark"
        html = PAGE % {"scheme": "dark" if dark else "light", "text": "#f2f2f4" if dark else "#1c1c1e",
                       "button": "#2a2b30" if dark else "#eef0f4"}
        return extensiond.NewData({"type": "html", "html": html}, reload=extensiond.NEVER)


if __name__ == "__main__":
    sys.exit(extensiond.run(ShortcutsWidget()))
