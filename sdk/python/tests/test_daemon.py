"""The SDK against a real extensiond: a widget written with it serves pulls, timelines,
defaults and links; a host written with it lists, subscribes, pulls, opens and reports
visibility."""

import os
import textwrap

import pytest
from conftest import REPOSITORY, SDK, widget_table

from extensiond import HostClient, HostError

APP = """
[apps."com.example.python"]
command = ["/bin/sh", "-c", "exec sleep 1000", "app"]
url_schemes = ["demo"]
groups = ["group.python"]
"""

COUNTER = textwrap.dedent('''
    import extensiond
    from extensiond import cards

    class Counter(extensiond.Widget):
        def update(self, request, context):
            store = context.defaults("group.python")
            count = store.get("count", 0) + 1
            store.set("count", count)
            opened = context.open_url("demo://counter/%d" % count)
            try:
                context.defaults("group.elsewhere").keys()
                refused = None
            except extensiond.DefaultsError as error:
                refused = str(error)
            body = [cards.text("count %d" % count)]
            return extensiond.NewData(cards.card(body), preferred_size=(300, 80),
                                      reload=extensiond.NEVER) if opened else extensiond.Failed(refused)

    extensiond.run(Counter())
''')


def test_an_sdk_widget_serves_a_host_written_with_the_sdk(start_daemon):
    example = REPOSITORY / "examples" / "python-widget" / "widget.py"
    daemon = start_daemon(APP + widget_table("com.example.python.widget", "com.example.python", example,
                                             '[extensions."com.example.python.widget".refresh]\npull_cooldown = "1h"\n'))
    with HostClient(daemon.host_socket, timeout=20) as host:
        listed = {entry["id"]: entry for entry in host.list()}
        assert listed["com.example.python.widget"]["point"] == "widget"
        assert listed["com.example.python.widget"]["modes"] == ["compact", "expanded"]
        host.subscribe(["com.example.python.widget"])
        host.visible(["com.example.python.widget"], True)

        answer = host.pull("com.example.python.widget", mode="expanded", max_size=(640, 480))
        assert answer["result"] == "newData" and answer["version"] == 1, answer
        card = answer["snapshot"]
        assert card["type"] == "AdaptiveCard" and card["body"][0]["text"] == "Hello from Python, update #1"
        assert card["body"][2]["text"].endswith("up to 640x480")
        assert {action["type"] for action in card["actions"]} == {"Action.Execute", "Action.OpenUrl"}

        # The push of the pull, then the timeline's entries, each with its date, no update.
        dated = []
        for push in host.pushes(timeout=5):
            if push["type"] == "snapshot" and "date" in push:
                dated.append(push)
            if len(dated) == 2:
                break
        assert len(dated) == 2 and dated[1]["version"] == dated[0]["version"] + 1, dated
        assert all(push["snapshot"]["body"][0]["text"] == "Hello from Python, update #1" for push in dated)

        assert host.open("com.example.python.widget", "demo://details?from=python")
        with pytest.raises(HostError, match="no app handles the URL scheme 'other'"):
            host.open("com.example.python.widget", "other://x")
        with pytest.raises(HostError, match="unknown extension"):
            host.subscribe(["com.example.nope"])
        with pytest.raises(HostError, match="unknown extension"):
            host.pull("com.example.nope")
        # Hidden, then shown again: both accepted.
        host.visible(["com.example.python.widget"], False)
        host.visible(["com.example.python.widget"], True)

    pulled = daemon.supervisorctl("pull", "com.example.python.widget")
    assert pulled.returncode == 0, pulled


def test_a_widget_uses_defaults_and_opens_urls_through_the_daemon(start_daemon, shared_directory):
    # Where the widget, under a uid of its own, may read its program.
    script = os.path.join(shared_directory, "counter.py")
    with open(script, "w") as file:
        file.write(COUNTER)
    os.chmod(script, 0o644)
    daemon = start_daemon(APP + widget_table("com.example.python.counter", "com.example.python", script))
    with HostClient(daemon.host_socket, timeout=20) as host:
        first = host.pull("com.example.python.counter")
        assert first["result"] == "newData", first
        assert first["snapshot"]["body"][0]["text"] == "count 1"
        assert first["preferredSize"] == {"width": 300, "height": 80}
        opened = [push for push in host.pushed + list(host.pushes(timeout=1)) if push["type"] == "openURL"]
        assert {"type": "openURL", "url": "demo://counter/1", "app": "com.example.python"} in opened
    # The counter is in the group's defaults, where the app would read it.
    status = daemon.supervisorctl("defaults", "group.python", "get", "count")
    assert status.returncode == 0 and status.stdout.strip() == "1", status


def test_the_host_client_reads_the_socket_from_the_environment(start_daemon, monkeypatch):
    daemon = start_daemon(APP)
    monkeypatch.setenv("EXTENSIOND_HOST_SOCKET", daemon.host_socket)
    with HostClient() as host:
        assert host.list() == []
