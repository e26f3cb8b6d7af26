"""The Today view's edit mode in headless Chromium against a real daemon (docs/HOSTS.md, "A
managing host"): the gallery shows a widget declared with a name, a description, a preview and
a choice parameter; adding it with a chosen city reaches the widget's `update`; removing it
stops its scheduled refreshes; the arrangement survives restarts of the daemon and the page's
host. These tests run in order on one daemon of their own."""
import json
import os
import time

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import SCREENSHOTS, Today, eventually

GALLERY_WIDGET = """
[extensions.gallery_city]
app = "weather"
point = "widget"
command = %s
enabled = false
display_name = { default = "City weather", fr = "Météo de la ville" }
description = "Today's sky and temperature in the city you choose."
preview = { type = "AdaptiveCard", version = "1.5", body = [{ type = "TextBlock", text = "Lima · 19° Cloudy", size = "large", id = "preview" }] }
parameters = [
    { name = "city", type = "choice", choices = ["Paris", "Beijing", "Lima"], default = "Paris", display_name = "City" },
    { name = "metric", type = "toggle", default = true, display_name = "Metric units" },
]
[extensions.gallery_city.refresh]
interval = "2s"
min_interval = "1s"
pull_cooldown = "0s"
daily_budget = 100000
budget_burst = 1000
"""

# Answers 3 s after it is asked: long enough to see its tile loading.
SLOW_WIDGET = """
[extensions.gallery_slow]
app = "weather"
point = "widget"
command = %s
enabled = false
display_name = "Slow weather"
preview = { type = "AdaptiveCard", version = "1.5", body = [{ type = "TextBlock", text = "Somewhere · 20°", id = "preview" }] }
[extensions.gallery_slow.refresh]
pull_cooldown = "0s"
"""


@pytest.fixture(scope="module")
def managed():
    instance = Today(host_keys="manage = true\n")
    widget = ["/usr/bin/python3", os.path.join(instance.directory, "city_widget.py")]
    instance.extra = GALLERY_WIDGET % json.dumps(widget + ["card"]) + SLOW_WIDGET % json.dumps(widget + ["slow", "3"])
    try:
        instance.start()
        yield instance
    finally:
        instance.stop()


@pytest.fixture
def editing(managed, browser):
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "light"}]})
    browser.set_window_size(1100, 900)
    browser.get(managed.url)
    open_edit_mode(browser)
    return browser


def open_edit_mode(browser):
    edit = eventually(lambda: browser.find_element(By.ID, "edit"))
    assert eventually(lambda: browser.execute_script("return document.querySelectorAll('.tile').length > 0"))
    edit.click()
    assert eventually(lambda: entry(browser))


def entry(browser, extension="gallery_city"):
    found = browser.find_elements(By.CSS_SELECTOR, '.gallery-entry[data-extension="%s"]' % extension)
    return found[0] if found else None


def tile(browser, instance, extension="gallery_city"):
    found = browser.find_elements(By.CSS_SELECTOR, 'article.tile[data-extension="%s"][data-instance="%s"]' % (extension, instance))
    try:
        return found[0] if found and found[0].is_displayed() else None
    except StaleElementReferenceException:  # removed between the two calls
        return None


def tile_order(browser):
    return browser.execute_script(
        "return [...document.querySelectorAll('article.tile:not([hidden])')].map(t => t.dataset.extension + '/' + (t.dataset.instance || ''))")


def add(browser, city):
    # The entry is redrawn when the daemon pushes a new list, until its form is open.
    browser.execute_script("document.querySelector('.gallery-entry[data-extension=\"gallery_city\"] button.gallery-add').click()")
    form = eventually(lambda: entry(browser).find_element(By.CSS_SELECTOR, "form.gallery-form"))
    Select(form.find_element(By.CSS_SELECTOR, 'select[name="city"]')).select_by_value(city)
    assert form.find_element(By.CSS_SELECTOR, 'input[name="instance"]').get_attribute("value") == city
    form.find_element(By.CSS_SELECTOR, 'button[type="submit"]').click()
    shown = eventually(lambda: tile(browser, city), timeout=15)
    assert shown, "no tile for %s; gallery error: %r" % (city, browser.find_element(By.ID, "gallery-error").text)
    return shown


def updates_of(today, instance):
    return [r for r in today.requests("gallery_city") if r.get("type") == "update" and r.get("instance") == instance]


def gallery_state(today):
    """What the daemon keeps of the user's gallery across restarts (docs/PROTOCOL.md §3)."""
    with open(os.path.join(today.state, "gallery.json")) as f:
        return json.load(f)


def test_the_gallery_shows_a_widget_never_run_with_its_name_description_and_preview(editing, managed):
    gallery = entry(editing)
    assert gallery.find_element(By.TAG_NAME, "h3").text == "City weather"
    assert "the city you choose" in gallery.find_element(By.CSS_SELECTOR, ".gallery-description").text
    assert gallery.find_element(By.CSS_SELECTOR, '.gallery-preview [data-ac-id="preview"]').text == "Lima · 19° Cloudy"
    assert not updates_of(managed, "Lima") and not tile(editing, "Lima"), "a disabled widget ran before it was added"


def test_adding_with_a_chosen_city_reaches_the_widgets_update(editing, managed):
    lima = add(editing, "Lima")
    assert eventually(lambda: "Lima" in lima.text), lima.text
    received = eventually(lambda: updates_of(managed, "Lima"))
    assert received[0]["params"] == {"city": "Lima", "metric": True}, received[0]


def test_removing_stops_the_scheduled_refreshes(editing, managed):
    add(editing, "Beijing")
    assert eventually(lambda: any(r.get("reason") == "schedule" for r in updates_of(managed, "Beijing")), timeout=15), \
        updates_of(managed, "Beijing")
    tile(editing, "Beijing").find_element(By.CSS_SELECTOR, "button.tile-remove").click()
    assert eventually(lambda: not tile(editing, "Beijing"))
    time.sleep(1.5)
    asked = len(updates_of(managed, "Beijing"))
    time.sleep(6)  # three intervals of the widget's 2 s schedule
    assert len(updates_of(managed, "Beijing")) == asked, updates_of(managed, "Beijing")[asked:]
    assert "Lima" in gallery_state(managed)["instances"]["gallery_city"], "the other instance was forgotten too"
    assert "Beijing" not in json.dumps(gallery_state(managed))


def test_the_arrangement_survives_restarts_of_the_daemon_and_the_today_view(editing, managed):
    assert tile(editing, "Lima")
    before = tile_order(editing)
    lima = before.index("gallery_city/Lima")
    assert lima > 0, before
    tile(editing, "Lima").find_element(By.CSS_SELECTOR, "button.tile-up").click()
    moved = before[:lima - 1] + [before[lima], before[lima - 1]] + before[lima + 1:]
    assert eventually(lambda: tile_order(editing) == moved), tile_order(editing)
    managed.restart()
    editing.get(managed.url)
    assert eventually(lambda: tile_order(editing) == moved, timeout=20), (tile_order(editing), moved)


def test_a_widget_added_shows_its_preview_marked_as_loading_until_its_content_comes(editing, managed):
    editing.execute_script("document.querySelector('.gallery-entry[data-extension=\"gallery_slow\"] button.gallery-add').click()")
    loading = eventually(lambda: editing.find_elements(By.CSS_SELECTOR, 'article.tile.tile-loading[data-extension="gallery_slow"]'), timeout=5)
    assert loading, "no loading tile; gallery error: %r" % editing.find_element(By.ID, "gallery-error").text
    shown = loading[0]
    assert shown.is_displayed() and shown.get_attribute("aria-busy") == "true"
    assert shown.find_element(By.CSS_SELECTOR, '.tile-body [data-ac-id="preview"]').text == "Somewhere · 20°"
    assert shown.find_element(By.CSS_SELECTOR, ".tile-loading-mark").text == "Loading…"
    assert not shown.find_elements(By.CSS_SELECTOR, '[data-ac-id="city"]')
    # The widget's own card replaces the preview.
    assert eventually(lambda: "21° Sunny" in shown.text, timeout=15), shown.text
    assert "tile-loading" not in shown.get_attribute("class") and shown.get_attribute("aria-busy") == "false"
    assert not shown.find_elements(By.CSS_SELECTOR, '[data-ac-id="preview"]') and shown.find_element(By.CSS_SELECTOR, ".tile-loading-mark").text == ""


def test_edit_mode_screenshots(editing, managed):
    editing.execute_script("document.querySelector('.gallery-entry[data-extension=\"gallery_city\"] button.gallery-add').click()")
    assert eventually(lambda: entry(editing).find_elements(By.CSS_SELECTOR, "form.gallery-form"))
    for scheme in ("light", "dark"):
        editing.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        time.sleep(0.5)
        editing.save_screenshot(os.path.join(SCREENSHOTS, "today-edit-%s.png" % scheme))


def post(today, token, body, headers):
    import urllib.error
    import urllib.request
    request = urllib.request.Request(today.url + "send?session=" + token, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def test_only_the_pages_own_origin_may_send_json_to_the_daemon(managed):
    """A page on a shared device must not let another site add or remove its widgets: even
    with a session token, a message from another origin, or not sent as JSON, is refused."""
    import urllib.request
    with urllib.request.urlopen(managed.url + "events", timeout=5) as stream:
        assert stream.readline().startswith(b"event: session")
        token = json.loads(stream.readline().decode()[len("data: "):])["session"]
        message = json.dumps({"type": "enable", "id": 1, "extension": "gallery_city", "enabled": False}).encode()
        own = "http://127.0.0.1:%d" % managed.port
        assert post(managed, token, message, {"Content-Type": "application/json", "Origin": "http://evil.example"}) == 403
        assert post(managed, token, message, {"Content-Type": "text/plain", "Origin": own}) == 415
        assert post(managed, token, b"x" * (65 * 1024), {"Content-Type": "application/json", "Origin": own}) == 413
        assert post(managed, token, message, {"Content-Type": "application/json", "Origin": own}) == 204
        for line in iter(stream.readline, b""):
            if line.startswith(b"data: ") and b"enableResult" in line:
                assert json.loads(line[len("data: "):])["success"] is True
                break
