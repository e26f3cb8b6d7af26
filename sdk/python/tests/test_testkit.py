"""The test kit drives widgets and actions without a daemon, and catches what the
supervisor would kill them for."""

import datetime
import os
import runpy
import sys

import pytest
from conftest import REPOSITORY, SDK

import extensiond
from extensiond import cards
from extensiond.testing import DeadlineExceeded, ProtocolViolation, WidgetDriver

EXAMPLE = REPOSITORY / "examples" / "python-widget" / "widget.py"


def example_widget():
    return runpy.run_path(str(EXAMPLE), run_name="example")["HelloWidget"]()


def test_the_example_answers_a_card_with_a_timeline_and_toggles_on_execute():
    with WidgetDriver(example_widget()) as widget:
        result = widget.update(mode="expanded", max_size=(640, 480), reason="pull")
        assert result["result"] == "newData" and result["reload"] == "atEnd"
        card = result["snapshot"]
        assert card["type"] == "AdaptiveCard" and card["version"] == "1.5"
        assert card["body"][2]["text"] == "pull, up to 640x480"
        assert len(result["timeline"]) == 10
        assert card["actions"][0] == {"type": "Action.Execute", "verb": "toggleSeconds", "title": "Hide seconds"}
        toggled = widget.execute("toggleSeconds", {"from": "test"})
        assert len(toggled["snapshot"]["body"][1]["text"]) == len("12:34")
        assert toggled["snapshot"]["actions"][0]["title"] == "Show seconds"


def test_the_example_runs_as_a_program_on_fd_3():
    environment = {"PYTHONPATH": str(SDK)}
    with WidgetDriver.command([sys.executable, str(EXAMPLE)], environment=environment) as widget:
        assert widget.update()["snapshot"]["body"][0]["text"] == "Hello from Python, update #1"
        assert widget.update()["snapshot"]["body"][0]["text"] == "Hello from Python, update #2"
    assert widget.process.returncode == 0


class Recorder(extensiond.Widget):
    """Records what reaches it; answers from the group's defaults."""

    def __init__(self):
        self.warnings, self.requests, self.terminated = [], [], False

    def update(self, request, context):
        self.requests.append(request)
        store = context.defaults("group.test")
        store.set("seen", store.get("seen", 0) + 1)
        if request.get("fail"):
            raise RuntimeError("no network")
        if not context.open_url("demo://opened"):
            return extensiond.Failed("not opened")
        context.set_has_content(request.get("show", True))
        return extensiond.NewData(cards.card([cards.text("seen %d" % store.get("seen"))]),
                                  reload=extensiond.after(datetime.datetime(2030, 1, 1, 12, 0, 0, 250000)))

    def memory_warning(self, warning):
        self.warnings.append((warning.current, warning.high, warning.level))

    def terminate(self):
        self.terminated = True


def test_requests_defaults_urls_warnings_and_unknown_fields_reach_the_widget():
    recorder = Recorder()
    widget = WidgetDriver(recorder)
    widget.defaults["group.test"] = {"seen": 41}
    result = widget.update(instance="paris", params={"city": "Paris"}, colorScheme="dark", locale="fr-FR")
    assert result["snapshot"]["body"][0]["text"] == "seen 42"
    assert result["reload"] == {"after": "2030-01-01T12:00:00.250Z"}
    assert widget.defaults["group.test"] == {"seen": 42}
    assert widget.opened_urls == ["demo://opened"]
    request = recorder.requests[0]
    assert (request.instance, request.params, request.get("colorScheme"), request.get("locale")) == \
        ("paris", {"city": "Paris"}, "dark", "fr-FR")
    widget.update(show=False)
    assert widget.has_content is False
    # A failure inside update is a `failed` result with the error; the widget goes on.
    failed = widget.update(fail=True)
    assert failed["result"] == "failed" and "no network" in failed["error"]
    widget.memory_warning(20 << 20, 16 << 20)
    widget.memory_warning(200 << 20, 192 << 20, level="warn")
    # A scheme no app owns: openURL fails, and the widget says so.
    widget.url_schemes = set()
    assert widget.update() == {"type": "result", "id": 4, "result": "failed", "error": "not opened"}
    assert widget.terminate() == 0
    assert recorder.warnings == [(20 << 20, 16 << 20, "high"), (200 << 20, 192 << 20, "warn")]
    assert recorder.terminated


def test_a_group_of_another_app_is_refused():
    class Other(extensiond.Widget):
        def update(self, request, context):
            context.defaults("group.other").get("x")

    with WidgetDriver(Other()) as widget:
        answer = widget.update()
        assert answer["result"] == "failed" and "DefaultsError" in answer["error"] and "group.other" in answer["error"]


def test_an_action_completes_or_cancels():
    class Resize(extensiond.Action):
        def perform(self, items, context):
            if items[0]["type"] != "public.image":
                raise extensiond.Cancel("%s is not an image" % items[0]["path"])
            return [{"type": "public.text", "value": "resized"}]

    with WidgetDriver(Resize()) as action:
        assert action.begin([{"type": "public.image", "path": "/tmp/a.png"}])["items"] == [{"type": "public.text", "value": "resized"}]
        assert action.begin([{"type": "public.text", "path": "/tmp/a.txt"}]) == \
            {"type": "cancel", "id": 2, "error": "/tmp/a.txt is not an image"}


def test_the_kit_catches_what_the_supervisor_would_kill_for():
    class Backwards(extensiond.Widget):
        def update(self, request, context):
            now = datetime.datetime(2030, 1, 1)
            return extensiond.NewData({}, timeline=[(now, {}), (now - datetime.timedelta(seconds=1), {})])

    with WidgetDriver(Backwards()) as widget:
        with pytest.raises(ProtocolViolation, match="ascend"):
            widget.update()

    with pytest.raises(ProtocolViolation, match="ready"):
        WidgetDriver.command([sys.executable, "-c", "import os; os.write(3, b'{\"type\":\"result\"}\\n')"])
    with pytest.raises(DeadlineExceeded, match="ready"):
        WidgetDriver.command([sys.executable, "-c", "import time; time.sleep(5)"], start_timeout=0.5)
    slow = "import os, time; os.write(3, b'{\"type\":\"ready\",\"protocol\":1}\\n'); time.sleep(5)"
    driver = WidgetDriver.command([sys.executable, "-c", slow], deadline=0.5)
    with pytest.raises(DeadlineExceeded, match="result"):
        driver.update()
    driver.process.kill()
    driver.process.wait()
