"""Fixtures: a real extensiond (the one `swift build` made, or `$EXTENSIOND_BIN`) on a
temporary config, runtime and state directory, in a cgroup of its own under a hard memory
limit, killed and removed at the end of the test whatever happened."""

import os
import pathlib
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest

SDK = pathlib.Path(__file__).resolve().parents[1]
REPOSITORY = SDK.parents[1]
sys.path.insert(0, str(SDK))


def daemon_binary():
    binary = os.environ.get("EXTENSIOND_BIN") or str(REPOSITORY / ".build" / "debug" / "extensiond")
    if not os.access(binary, os.X_OK):
        pytest.fail("no extensiond at %s: run `swift build` first, or set EXTENSIOND_BIN" % binary)
    return binary


def own_cgroup(controller):
    """This process's directory in the v1 hierarchy of `controller`; None when it is not mounted."""
    for line in open("/proc/self/cgroup"):
        _, controllers, path = line.rstrip("\n").split(":", 2)
        if controller in controllers.split(","):
            return "/sys/fs/cgroup/%s%s" % (controller, "" if path == "/" else path)
    return None


def destroy_cgroup(directory):
    """Kills everything below `directory`, then removes it, deepest first."""
    groups = [root for root, _, _ in os.walk(directory)]
    for _ in range(2000):
        pids = [int(pid) for group in groups for pid in open(group + "/cgroup.procs").read().split()]
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.001)
    for group in reversed(groups):
        os.rmdir(group)


class Daemon:
    """A running extensiond; `config` is the TOML after its `[supervisor]` table."""

    def __init__(self, directory, cgroup, config):
        self.directory = directory
        self.runtime = os.path.join(directory, "run")
        self.host_socket = os.path.join(self.runtime, "host.sock")
        self.control_socket = os.path.join(self.runtime, "control.sock")
        path = os.path.join(directory, "extensiond.toml")
        with open(path, "w") as file:
            file.write('[supervisor]\nruntime_dir = "%s"\nstate_dir = "%s"\ncgroup = "%s"\n\n%s'
                       % (self.runtime, os.path.join(directory, "state"), cgroup, config))
        notify_path = os.path.join(directory, "notify.sock")
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(notify_path)
        environment = {key: value for key, value in os.environ.items()
                       if key not in ("WATCHDOG_USEC", "WATCHDOG_PID", "EXTENSIOND_SOCKET", "JOURNAL_STREAM", "INVOCATION_ID")}
        environment["NOTIFY_SOCKET"] = notify_path
        self.log = open(os.path.join(directory, "extensiond.log"), "w+")
        self.process = subprocess.Popen([daemon_binary(), "--config", path], env=environment,
                                        stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT)
        notify.settimeout(10)
        try:
            while b"READY=1" not in notify.recv(4096).split(b"\n"):
                pass
        except socket.timeout:
            self.stop()
            pytest.fail("extensiond did not send READY=1:\n" + self.output())
        finally:
            notify.close()

    def output(self):
        self.log.seek(0)
        return self.log.read()

    def supervisorctl(self, *arguments):
        binary = str(pathlib.Path(daemon_binary()).parent / "supervisorctl")
        return subprocess.run([binary, "--socket", self.control_socket, *arguments], capture_output=True, text=True, timeout=30)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


@pytest.fixture
def shared_directory():
    """A directory that supervised processes, under uids of their own, may read."""
    directory = tempfile.mkdtemp(prefix="extensiond-pytest-shared-")
    os.chmod(directory, 0o755)
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def start_daemon():
    """Returns a function that starts a daemon on a config body; stops and cleans up after the test."""
    directory = tempfile.mkdtemp(prefix="extensiond-pytest-")
    os.chmod(directory, 0o755)  # supervised processes run under uids of their own
    name = "extensiond-test-%d-%d" % (os.getpid(), random.getrandbits(63))
    if own_cgroup("memory") is None:
        pytest.fail("the v1 memory controller is not mounted")
    # The daemon's tree, and the pids cgroup of the same name that it uses beside it.
    memory = os.path.join(own_cgroup("memory"), name)
    groups = [memory] + ([os.path.join(own_cgroup("pids"), name)] if own_cgroup("pids") else [])
    for group in groups:
        os.mkdir(group)
    with open(memory + "/memory.limit_in_bytes", "w") as limit:
        limit.write(str(512 << 20))
    daemons = []

    def start(config):
        daemons.append(Daemon(directory, memory, config))
        return daemons[-1]

    yield start
    for daemon in daemons:
        daemon.stop()
    for group in groups:
        destroy_cgroup(group)
    shutil.rmtree(directory, ignore_errors=True)


def widget_table(extension_id, app, script, settings=""):
    """The config of a Python widget of `app` run from `script` with the SDK readable."""
    return """
[extensions."%s"]
app = "%s"
point = "widget"
command = ["%s", "-S", "%s"]
environment = { PYTHONPATH = "%s" }
sandbox = { read = ["%s"] }
%s
""" % (extension_id, app, "/usr/bin/python3", script, SDK, SDK, settings)
