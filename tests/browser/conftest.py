"""A real extensiond with a real extensiond-today (supervised as a host) and headless
Chromium, for the Today view's tests. The daemon runs in a throw-away cgroup v1 memory (and
pids) cgroup below this process's own, as Sources/ExtensiondTestSupport's TestDaemon does,
with the same name prefix, so that sandboxes left by a killed run are removed by the next.
"""
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request

import pytest
from selenium.common.exceptions import StaleElementReferenceException

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("EXTENSIOND_BIN", os.path.join(REPO, ".build", "debug"))
HERE = os.path.dirname(os.path.abspath(__file__))
SCREENSHOTS = os.path.join(REPO, "docs", "screenshots")


def own_cgroup(controller):
    for line in open("/proc/self/cgroup"):
        _, controllers, path = line.rstrip("\n").split(":", 2)
        if controller in controllers.split(","):
            return "/sys/fs/cgroup/%s%s" % (controller, "" if path == "/" else path)
    raise RuntimeError("no v1 %s cgroup in /proc/self/cgroup" % controller)


class CgroupSandbox:
    PREFIX = "extensiond-test-"

    def __init__(self, limit=512 << 20):
        name = "%s%d-%d" % (self.PREFIX, os.getpid(), random.getrandbits(63))
        self.directories = []
        for controller in ("memory", "pids"):
            try:
                parent = own_cgroup(controller)
            except RuntimeError:
                continue
            path = os.path.join(parent, name)
            os.mkdir(path)
            self.directories.append(path)
        with open(os.path.join(self.directories[0], "memory.limit_in_bytes"), "w") as f:
            f.write(str(limit))
        self.memory = self.directories[0]

    def remove(self):
        for top in self.directories:
            for _ in range(50):
                alive = False
                for root, _, _ in os.walk(top):
                    try:
                        for pid in open(os.path.join(root, "cgroup.procs")).read().split():
                            alive = True
                            try:
                                os.kill(int(pid), signal.SIGKILL)
                            except ProcessLookupError:
                                pass
                    except FileNotFoundError:
                        pass
                if not alive:
                    break
                time.sleep(0.1)
            for root, _, _ in sorted(os.walk(top), key=lambda entry: -entry[0].count("/")):
                try:
                    os.rmdir(root)
                except OSError:
                    pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Today:
    """The daemon, its directories and the page's URL; `host_keys` are more keys of the Today
    view's `[hosts.today]`, `extra` more config after the widgets."""

    def __init__(self, host_keys="", extra=""):
        self.host_keys = host_keys
        self.extra = extra
        self.directory = tempfile.mkdtemp(prefix="today-test-")
        os.chmod(self.directory, 0o755)
        self.shared = os.path.join(self.directory, "shared")
        os.mkdir(self.shared)
        os.chmod(self.shared, 0o1777)
        self.run = os.path.join(self.directory, "run")
        self.state = os.path.join(self.directory, "state")
        self.port = free_port()
        self.url = "http://127.0.0.1:%d/" % self.port
        for script in ("city_widget.py", "recording_app.py"):
            shutil.copy(os.path.join(HERE, script), self.directory)
        self.sandbox = CgroupSandbox()
        self.process = None
        # Where the `escape` widget tries to take the page: a listener that must never be reached.
        self.sink = socket.socket()
        self.sink.bind(("127.0.0.1", 0))
        self.sink.listen(8)
        self.sink.setblocking(False)
        self.sink_url = "http://127.0.0.1:%d/" % self.sink.getsockname()[1]

    def config(self):
        widget = os.path.join(self.directory, "city_widget.py")
        app = os.path.join(self.directory, "recording_app.py")
        today = os.path.join(BIN, "extensiond-today")
        refresh = "[extensions.%s.refresh]\npull_cooldown = \"0s\"\ndaily_budget = 100000\nbudget_burst = 1000\n"

        def widget_table(name, *arguments, interval="1h", app="weather", settings=""):
            command = json.dumps(["/usr/bin/python3", widget] + list(arguments))
            return ('[extensions.%s]\napp = "%s"\npoint = "widget"\ncommand = %s\n%s' % (name, app, command, settings)
                    + refresh % name + 'interval = "%s"\nmin_interval = "1s"\n\n' % interval)

        return ("""[supervisor]
runtime_dir = "%s"
state_dir = "%s"
cgroup = "%s"
memory_budget = "256M"

[pressure]
warn = "60%%"
low = "85%%"
critical = "95%%"

[hosts.today]
command = %s
%s

[apps.weather]
command = %s
url_schemes = ["weather"]

[apps.frames]
command = %s
url_schemes = ["frames"]

""" % (self.run, self.state, self.sandbox.memory,
       json.dumps([today, "--listen", "127.0.0.1:%d" % self.port, "--instance", "city=Paris", "--instance", "city=Beijing"]),
       self.host_keys,
       json.dumps(["/usr/bin/python3", app, os.path.join(self.shared, "launches")]),
       json.dumps(["/usr/bin/python3", app, os.path.join(self.shared, "frame-launches")]))
            + widget_table("city", "card")
            + widget_table("hostile", "hostile")
            + widget_table("huge", "huge")
            + widget_table("frame", "html", "frames://opened", app="frames")
            # Enabled by its test only: the README's screenshots do not show it.
            + widget_table("escape", "escape", self.sink_url, app="frames", settings="enabled = false\n")
            + widget_table("ticker", "card", interval="2s")
            # Never says ready: killed after start_timeout (a kill for the System page).
            + '[extensions.mute]\napp = "weather"\npoint = "widget"\ncommand = ["/bin/sleep", "1000"]\nstart_timeout = "1s"\n'
            + self.extra)

    def start(self):
        path = os.path.join(self.directory, "extensiond.toml")
        with open(path, "w") as f:
            f.write(self.config())
        self.log = open(os.path.join(self.directory, "extensiond.log"), "w")
        self.process = subprocess.Popen([os.path.join(BIN, "extensiond"), "--foreground", "--config", path],
                                        stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(self.url, timeout=1) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("extensiond-today did not serve %s; log:\n%s" % (self.url, open(self.log.name).read()[-4000:]))

    def supervisorctl(self, *arguments):
        result = subprocess.run([os.path.join(BIN, "supervisorctl"), "--socket", os.path.join(self.run, "control.sock")] + list(arguments),
                                capture_output=True, text=True, timeout=20)
        return result.stdout + result.stderr

    def requests(self, extension):
        """What the widget `extension` was asked, in order (its own record)."""
        path = os.path.join(self.state, "data", extension, "requests.jsonl")
        try:
            return [json.loads(line) for line in open(path) if line.strip()]
        except FileNotFoundError:
            return []

    def terminate(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def restart(self):
        """Stops the daemon (and with it the Today view it supervises) and starts both again
        on the same state directory."""
        self.terminate()
        self.start()

    def stop(self):
        self.terminate()
        self.sink.close()
        self.sandbox.remove()
        shutil.rmtree(self.directory, ignore_errors=True)


def eventually(condition, timeout=10, interval=0.1):
    def attempt():
        try:
            return condition()
        except StaleElementReferenceException:  # the page redrew the node: read it again
            return None

    deadline = time.time() + timeout
    while time.time() < deadline:
        value = attempt()
        if value:
            return value
        time.sleep(interval)
    return attempt()


@pytest.fixture(scope="session")
def today():
    instance = Today()
    try:
        instance.start()
        yield instance
    finally:
        instance.stop()


@pytest.fixture(scope="session")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1100,900",
                     "--lang=en-US", "--force-device-scale-factor=1"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(20)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def page(today, browser):
    """The Today view, loaded afresh, in light mode and at the default size."""
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "light"}]})
    browser.set_window_size(1100, 900)
    browser.get(today.url)
    return browser
