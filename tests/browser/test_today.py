"""The Today view in headless Chromium against a real daemon (docs/HOSTS.md): what a widget's
card shows, where its taps go, what reaches the widget, and what hostile content cannot do."""
import json
import os
import time

from selenium.webdriver.common.by import By

from conftest import SCREENSHOTS, eventually


def tile(browser, extension, instance=None):
    selector = 'article.tile[data-extension="%s"]' % extension
    if instance:
        selector += '[data-instance="%s"]' % instance
    found = browser.find_elements(By.CSS_SELECTOR, selector)
    return found[0] if found and found[0].is_displayed() else None


def shown_tile(browser, extension, instance=None, timeout=15):
    element = eventually(lambda: tile(browser, extension, instance), timeout=timeout)
    assert element, "no %s %s tile shown; status: %r" % (extension, instance, browser.find_element(By.ID, "status").text)
    return element


def test_a_third_party_card_shows_its_image_and_text(page, today):
    paris = shown_tile(page, "city", "Paris")
    assert eventually(lambda: "Paris" in paris.text and "21° Sunny" in paris.text), paris.text
    image = paris.find_element(By.CSS_SELECTOR, 'img[data-ac-id="icon"]')
    assert eventually(lambda: page.execute_script("return arguments[0].complete && arguments[0].naturalWidth", image) == 32)
    assert image.get_attribute("alt") == "Sunny"
    assert "/asset?extension=city&name=sun.png" in image.get_attribute("src")
    beijing = shown_tile(page, "city", "Beijing")
    assert eventually(lambda: "Beijing" in beijing.text)


def launches(today, name="launches"):
    try:
        return open(os.path.join(today.shared, name)).read().split()
    except FileNotFoundError:
        return []


def test_a_tap_opens_the_app_with_the_url_and_never_the_widget(page, today):
    paris = shown_tile(page, "city", "Paris")
    asked = len(today.requests("city"))
    paris.find_element(By.CSS_SELECTOR, '[data-ac-id="city"]').click()
    assert eventually(lambda: "weather://city/Paris" in launches(today)), launches(today)
    time.sleep(0.5)
    assert len(today.requests("city")) == asked, "the tap reached the widget"


def test_show_more_pulls_the_expanded_mode(page, today):
    paris = shown_tile(page, "city", "Paris")
    assert not paris.find_elements(By.CSS_SELECTOR, '[data-ac-id="details"]')
    more = paris.find_element(By.CSS_SELECTOR, "button.tile-more")
    assert more.text == "Show more"
    more.click()
    assert eventually(lambda: any(r["mode"] == "expanded" and r.get("instance") == "Paris" for r in today.requests("city")))
    assert eventually(lambda: paris.find_elements(By.CSS_SELECTOR, '[data-ac-id="details"]'))
    assert "Wind" in paris.text and more.text == "Show less"
    more.click()
    assert eventually(lambda: not paris.find_elements(By.CSS_SELECTOR, '[data-ac-id="details"]'))


def test_an_execute_toggle_round_trips_to_the_widget(page, today):
    beijing = shown_tile(page, "city", "Beijing")
    button = eventually(lambda: [b for b in beijing.find_elements(By.CSS_SELECTOR, "button.ac-action") if b.text.startswith("Alerts")])
    before = button[0].text
    button[0].click()
    executed = eventually(lambda: [r for r in today.requests("city") if r["type"] == "execute"])
    assert executed[-1]["verb"] == "toggle" and executed[-1]["data"] == {"setting": "alerts"}
    assert executed[-1]["instance"] == "Beijing" and executed[-1]["maxSize"]["height"] > 0
    after = {"Alerts: off": "Alerts: on", "Alerts: on": "Alerts: off"}[before]
    assert eventually(lambda: after in action_labels(page, "city", "Beijing")), action_labels(page, "city", "Beijing")


def action_labels(browser, extension, instance):
    found = tile(browser, extension, instance)
    return [b.text for b in found.find_elements(By.CSS_SELECTOR, "button.ac-action")] if found else []


def test_a_card_scrolled_out_of_view_stops_its_scheduled_refreshes(page, today):
    # A short window: the ticker (refreshed every 2 s while shown) is below the fold.
    page.set_window_size(500, 300)
    shown_tile(page, "ticker")
    page.execute_script("window.scrollTo(0, 0)")
    assert eventually(lambda: "hidden" in status_line(today, "ticker"), timeout=10), status_line(today, "ticker")
    count = len(today.requests("ticker"))
    time.sleep(5)
    assert len(today.requests("ticker")) <= count + 1, "refreshed while scrolled out of view"
    page.execute_script("arguments[0].scrollIntoView()", tile(page, "ticker"))
    assert eventually(lambda: "visible" in status_line(today, "ticker"), timeout=10)
    assert eventually(lambda: len(today.requests("ticker")) >= count + 2, timeout=10), "no refresh once shown again"


def status_line(today, name):
    return next((line for line in today.supervisorctl("status", name).splitlines() if line.startswith(name)), "")


def test_dark_mode_reaches_the_widget(page, today):
    paris = shown_tile(page, "city", "Paris")
    assert eventually(lambda: "Scheme: light" in paris.text), paris.text
    page.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    assert eventually(lambda: any(r.get("colorScheme") == "dark" for r in today.requests("city")))
    assert eventually(lambda: "Scheme: dark" in paris.text), paris.text
    background = page.execute_script("return getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(17, 18, 20)", background


def test_an_unknown_element_shows_its_fallback(page, today):
    paris = shown_tile(page, "city", "Paris")
    fallback = eventually(lambda: paris.find_elements(By.CSS_SELECTOR, '[data-ac-id="fallback"]'))
    assert fallback[0].text == "Rated 4 of 5"


def test_hostile_text_is_shown_as_text_or_refused(page, today):
    hostile = shown_tile(page, "hostile")
    markup = eventually(lambda: hostile.find_elements(By.CSS_SELECTOR, '[data-ac-id="markup"]'))[0]
    assert "<script>window.pwned=1</script>" in markup.text
    assert not hostile.find_elements(By.CSS_SELECTOR, "script, b, [onerror]")
    evil = [b for b in hostile.find_elements(By.CSS_SELECTOR, "button.ac-action") if b.text == "Evil link"][0]
    assert not evil.is_enabled()
    page.execute_script("arguments[0].disabled = false; arguments[0].click()", evil)
    hostile.click()
    image = hostile.find_element(By.CSS_SELECTOR, "img.ac-image")
    assert not image.get_attribute("src")
    time.sleep(0.5)
    assert page.execute_script("return window.pwned") is None
    assert not any(url.startswith("javascript:") for url in launches(today))
    # A card with a 1,000,000-byte string is refused by the daemon: an event says so, and
    # the page shows nothing of it.
    assert eventually(lambda: any("huge" in line and "card refused" in line for line in today.supervisorctl("events", "-n", "1000").splitlines()),
                      timeout=10), today.supervisorctl("events", "-n", "1000")
    assert tile(page, "huge") is None
    assert "x" * 1000 not in page.page_source


def test_the_html_widget_frame_reaches_neither_the_page_nor_the_network(page, today):
    frame_tile = shown_tile(page, "frame")
    frame = frame_tile.find_element(By.CSS_SELECTOR, "iframe")
    assert frame.get_attribute("sandbox") == "allow-scripts"
    page.switch_to.frame(frame)
    try:
        probe = page.find_element(By.ID, "probe")
        results = eventually(lambda: probe.get_attribute("data-results"))
        assert json.loads(results) == {"parent": "blocked", "cookie": "blocked", "fetch": "blocked"}, results
        page.find_element(By.ID, "open").click()
    finally:
        page.switch_to.default_content()
    assert eventually(lambda: "frames://opened" in launches(today, "frame-launches")), launches(today, "frame-launches")


def sink_requests(today):
    """The requests that reached the sink (their first lines). Chromium opens a connection
    to where a frame navigates before it checks the page's policy, and then sends nothing
    on it: a connection without a request is not counted (docs/HOSTS.md)."""
    lines = []
    while True:
        try:
            connection, _ = today.sink.accept()
        except BlockingIOError:
            return lines
        connection.settimeout(2)
        try:
            request = connection.recv(4096)
        except OSError:
            request = b""
        connection.close()
        if request:
            lines.append(request.split(b"\r\n")[0].decode(errors="replace"))


def test_the_html_widget_frame_cannot_navigate_the_page_or_itself_elsewhere(page, today):
    """The frame's sandbox has no allow-top-navigation (nor allow-popups), and the page's
    Content-Security-Policy lets its frames load only /frame: neither the top page nor the
    frame itself reaches another origin, at load or at a click."""
    assert "ERROR" not in today.supervisorctl("enable", "escape")
    try:
        page.get(today.url)
        frame = shown_tile(page, "escape").find_element(By.CSS_SELECTOR, "iframe")
        page.get_log("browser")  # what earlier pages logged
        page.switch_to.frame(frame)
        try:
            probe = page.find_element(By.ID, "probe")
            assert eventually(lambda: probe.get_attribute("data-results"))
            page.find_element(By.ID, "leave").click()
            results = json.loads(probe.get_attribute("data-results"))
        finally:
            page.switch_to.default_content()
        check_nothing_escaped(page, today, results)
    finally:
        today.supervisorctl("disable", "escape")


def check_nothing_escaped(page, today, results):
    """The page stayed, no window opened, the frame is still /frame, the page's policy
    refused the frame's own navigation, and no request reached the other origin."""
    assert results["popup"] != "opened", results
    time.sleep(2)
    assert page.current_url == today.url and len(page.window_handles) == 1
    assert tile(page, "escape") and tile(page, "escape").find_element(By.CSS_SELECTOR, "iframe").get_attribute("src") == today.url + "frame"
    refusals = [entry["message"] for entry in page.get_log("browser") if "frame-src" in entry["message"]]
    assert any(today.sink_url in message and "blocked" in message for message in refusals), refusals
    reached = sink_requests(today)
    assert not reached, "the frame reached %s: %s (%s)" % (today.sink_url, reached, results)


def test_screenshots(page, today):
    """The README's pictures: light, dark, narrow, wide and the System page."""
    os.makedirs(SCREENSHOTS, exist_ok=True)
    for width, height, scheme, name in ((1100, 800, "light", "today-light"), (1100, 800, "dark", "today-dark"),
                                        (420, 900, "light", "today-narrow"), (1600, 700, "light", "today-wide")):
        page.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        page.set_window_size(width, height)
        shown_tile(page, "city", "Beijing")
        shown_tile(page, "frame")
        time.sleep(1.5)
        page.save_screenshot(os.path.join(SCREENSHOTS, name + ".png"))


def test_the_system_page_draws_memory_watermarks_and_kills(today, browser):
    # The page pulled `mute`, which never says ready: it was killed (reason deadline).
    browser.get(today.url)
    shown_tile(browser, "city", "Paris")
    assert eventually(lambda: "deadline" in today.supervisorctl("events", "-n", "1000"), timeout=15)
    time.sleep(5)
    browser.set_window_size(1100, 900)
    browser.get(today.url + "system")
    assert eventually(lambda: browser.find_elements(By.CSS_SELECTOR, "#tree polyline.usage-line"), timeout=15)
    assert browser.find_elements(By.CSS_SELECTOR, "#processes figure.process svg polyline")
    captions = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "#processes figcaption")]
    assert any(c.startswith("today · host") for c in captions), captions
    assert eventually(lambda: browser.find_elements(By.CSS_SELECTOR, "#kills circle.kill"), timeout=10)
    assert browser.find_elements(By.CSS_SELECTOR, "#tree line.mark-critical")
    os.makedirs(SCREENSHOTS, exist_ok=True)
    browser.save_screenshot(os.path.join(SCREENSHOTS, "system.png"))


def test_the_program_relays_only_a_pages_own_messages_within_bounds(today):
    import urllib.error
    import urllib.request

    def post(path, body, kind="application/json"):
        request = urllib.request.Request(today.url.rstrip("/") + path, data=body, method="POST", headers={"Content-Type": kind})
        try:
            with urllib.request.urlopen(request, timeout=5) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    status, text = post("/send?session=0123", b'{"type":"list"}')
    assert status == 403 and "unknown session" in text
    # A session is what the page's event stream gives: read its first event.
    with urllib.request.urlopen(today.url + "events", timeout=5) as stream:
        stream.readline()
        token = json.loads(stream.readline().decode()[len("data: "):])["session"]
        assert post("/send?session=" + token, b'{"type":"list","id":1}')[0] == 204
        status, text = post("/send?session=" + token, b'{"type":"defaults","id":2,"group":"g","op":"list"}')
        assert status == 400 and "a page sends only" in text
        assert post("/send?session=" + token, b"not json")[0] == 400
        assert post("/send?session=" + token, b'{"type":"list"}\n{"type":"list"}')[0] == 400
        assert post("/send?session=" + token, b"x" * (64 * 1024 + 1))[0] == 413
        # Several messages in one request (what a page load sends): every one is checked first.
        status, text = post("/send?session=" + token, b'[{"type":"list","id":3},{"type":"defaults","id":4}]')
        assert status == 400 and text.startswith("message 1: a page sends only"), text
        assert post("/send?session=" + token, b'[]')[0] == 400
        assert post("/send?session=" + token, json.dumps([{"type": "list", "id": 5}] * 257).encode())[0] == 400
        assert post("/send?session=" + token, b'[{"type":"list","id":6},{"type":"list","id":7}]')[0] == 204
        answered = set()
        while answered != {1, 6, 7}:
            line = stream.readline()
            assert line, "the stream ended before the answers to 1, 6 and 7: %s" % answered
            if line.startswith(b"data: "):
                message = json.loads(line[len(b"data: "):])
                if message.get("type") == "extensions" and "id" in message:
                    answered.add(message["id"])
    headers = urllib.request.urlopen(today.url, timeout=5).headers
    assert "script-src 'self'" in headers["Content-Security-Policy"] and "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    frame = urllib.request.urlopen(today.url + "frame", timeout=5).headers["Content-Security-Policy"]
    assert frame.startswith("default-src 'none'") and "connect-src" not in frame
