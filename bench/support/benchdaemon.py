"""What bench/suspend and bench/day share: a release extensiond in a child of bench/launch's
memory-limited sandbox, a host connection on its host.sock, and the extension's v1 freezer
and cpuacct groups (which the daemon makes outside the sandbox, below our own groups)."""

import importlib.machinery
import json
import os
import socket
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
launch = importlib.machinery.SourceFileLoader("launch", os.path.join(ROOT, "bench", "launch")).load_module()


def compile_c(source, directory):
    """`cc -O2` of bench/<source> into `directory`; returns the binary's path."""
    binary = os.path.join(directory, os.path.splitext(os.path.basename(source))[0])
    launch.run(["cc", "-O2", "-Wall", "-o", binary, os.path.join(ROOT, "bench", source)])
    return binary


def side_group(controller, child):
    """Where the daemon of sandbox child `child` makes its v1 `controller` groups: below our
    own group there, in a group named like the configured root's last component."""
    return os.path.join(launch.own_cgroup(controller), child)


def find_group(controller, child, extension):
    """The v1 `controller` group of `extension` (a directory named for it) below the daemon's."""
    for root, directories, _ in os.walk(side_group(controller, child)):
        if os.path.basename(root) == extension:
            return root
    raise launch.BenchError(f"no {controller} group of {extension} below {side_group(controller, child)}")


def destroy_side_groups(child):
    """The daemon removes its freezer, cpu and cpuacct groups when it stops; a daemon that was
    killed leaves them. A frozen task takes no SIGKILL until thawed, so thaw first."""
    for group, _, _ in os.walk(side_group("freezer", child)):
        launch.write(os.path.join(group, "freezer.state"), "THAWED")  # each: v1 children freeze by themselves
    for controller in ("freezer", "cpu", "cpuacct"):
        launch.destroy(side_group(controller, child))


def unmount_below(directory):
    """Unmounts what a daemon that did not stop cleanly left mounted below `directory` (the
    extensions' `disk_max` volumes), deepest first, so that the directory can go."""
    prefix = os.path.realpath(directory) + "/"
    mounts = [line.split()[4] for line in launch.read("/proc/self/mountinfo").splitlines()]
    for mount in sorted((m for m in mounts if m.startswith(prefix)), reverse=True):
        subprocess.run(["umount", "-l", mount], capture_output=True)


class Daemon:
    """A release extensiond running `config_lines` (the rest of its [supervisor] table, then
    the others) in sandbox child `child`, its runtime and state in `directory`. Use as a
    context manager."""

    def __init__(self, sandbox, directory, child, config_lines):
        os.makedirs(directory)
        os.chmod(directory, 0o755)
        self.child = child
        self.directory = directory
        cgroup = sandbox.child(child)
        lines = ["[supervisor]", f'runtime_dir = "{directory}/run"', f'state_dir = "{directory}/state"', f'cgroup = "{cgroup}"'] + config_lines
        config = os.path.join(directory, "extensiond.toml")
        launch.write(config, "\n".join(lines) + "\n")
        self.ctl_command = [os.path.join(launch.RELEASE, "supervisorctl"), "--socket", os.path.join(directory, "run", "control.sock")]
        self.host_socket = os.path.join(directory, "run", "host.sock")
        self.log_path = os.path.join(directory, "daemon.log")
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen([launch.DAEMON or os.path.join(launch.RELEASE, "extensiond"), "--foreground", "--config", config],
                                            stdout=log, stderr=subprocess.STDOUT, preexec_fn=sandbox.enter(child))
        self.pid = self.process.pid
        try:
            launch.wait_until(lambda: self.process.poll() is None and os.path.exists(self.host_socket)
                              and subprocess.run(self.ctl_command + ["version"], capture_output=True).returncode == 0,
                              15, f"the daemon of {child}")
        except launch.BenchError:
            self.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()

    def close(self):
        launch.stop(self.process)
        destroy_side_groups(self.child)

    def failure(self, error):
        return launch.BenchError(f"{error}\nlast lines of the daemon's log:\n{launch.read(self.log_path)[-3000:]}")

    def ctl(self, *arguments):
        return launch.run(self.ctl_command + list(arguments))

    def status(self):
        return {entry["name"]: entry for entry in json.loads(self.ctl("--json", "status"))["status"]}

    def stats(self):
        return json.loads(self.ctl("--json", "stats"))["stats"]

    def events(self, count=1000):
        lines = self.ctl("--json", "events", "-n", str(count)).splitlines()
        return [event for line in lines if line for event in json.loads(line)["events"]]

    def wake_ups(self):
        """Times the kernel ran the daemon's threads (schedstat's timeslices; each run is a
        wake-up of a thread that slept), summed over its threads."""
        total = 0
        for task in os.listdir(f"/proc/{self.pid}/task"):
            fields = launch.read(f"/proc/{self.pid}/task/{task}/schedstat").split()
            total += int(fields[2]) if len(fields) == 3 else 0
        return total

    def cpu_ms(self):
        return launch.cpu_ms(self.pid)


class Host:
    """One host connection on host.sock (docs/PROTOCOL.md §3): pulls, and the snapshots
    pushed to a subscriber."""

    def __init__(self, path):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.connect(path)
        self.buffer = b""
        self.next_id = 0
        self.pushed = []

    def close(self):
        self.socket.close()

    def send(self, message):
        self.socket.sendall(json.dumps(message, separators=(",", ":")).encode() + b"\n")

    def receive(self, timeout=30):
        self.socket.settimeout(timeout)
        while b"\n" not in self.buffer:
            data = self.socket.recv(65536)
            if not data:
                raise launch.BenchError("the daemon closed the host connection")
            self.buffer += data
        line, _, self.buffer = self.buffer.partition(b"\n")
        return json.loads(line)

    def request(self, message, timeout=30):
        """Sends `message` with a new id; returns its answer. Messages without an id that
        come meanwhile (pushed snapshots) are kept in `pushed`."""
        self.next_id += 1
        self.send({**message, "id": self.next_id})
        deadline = time.monotonic() + timeout
        while True:
            answer = self.receive(max(0.001, deadline - time.monotonic()))
            if answer.get("id") == self.next_id:
                return answer
            self.pushed.append(answer)

    def pull(self, extension, timeout=30, wait=True):
        """A pull; with `wait`, an expired snapshot is answered after its update, not at once."""
        answer = self.request({"type": "pull", "extension": extension, "mode": "compact",
                               "maxSize": {"width": 320, "height": 120}, "wait": wait}, timeout)
        if answer.get("type") != "snapshot":
            raise launch.BenchError(f"pull of {extension}: {answer}")
        return answer
