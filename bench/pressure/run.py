#!/usr/bin/env python3
"""Pressure benchmark: repeated episodes of the DESIGN §3 scenario on a real extensiond.

A host holds 64M, three idle extensions hold 40M each, then an extension that is
still starting (so active) grows to 240M: the daemon must kill the three idle
extensions as usage crosses pressure.low, then the growing one past
pressure.critical, and never the host. Budget 256M, run in a throw-away cgroup v1
memory sandbox below this process's own cgroup (hard limit 384M).

Reports trigger->signal and signal->empty latencies from the daemon's kill
records (CLOCK_MONOTONIC, microseconds), surplus kills and host deaths.

Usage: bench/pressure/run.py [--episodes N] [--bin DIR] [--step MIB] [--pause S]
"""
import argparse, json, os, random, shutil, signal, socket, subprocess, sys, tempfile, time

MIB = 1 << 20
BUDGET = 256 * MIB
LOW = BUDGET * 85 // 100
CRITICAL = BUDGET * 95 // 100
IDLE = {"idle.a": 2, "idle.b": 0, "idle.c": 1}          # name -> priority
IDLE_KILL_ORDER = sorted(IDLE, key=IDLE.get)
PYTHON = "/usr/bin/python3"

HOLD = r'''
import os, sys, time
def charged():
    for line in open("/proc/self/cgroup"):
        _, controllers, path = line.rstrip("\n").split(":", 2)
        if "memory" in controllers.split(","):
            return int(open("/sys/fs/cgroup/memory" + path + "/memory.usage_in_bytes").read())
    return 0
held = b"x" * max(0, (int(sys.argv[1]) << 20) - charged())
fd = os.environ.get("EXTENSIOND_FD")
if fd is None:
    while True:
        time.sleep(3600)
os.write(int(fd), b'{"type":"ready","protocol":1}\n')
while True:
    data = os.read(int(fd), 65536)
    if not data or b'"terminate"' in data:
        break
'''

GROW = r'''
import sys, time
step, pause, total = int(sys.argv[1]) << 20, float(sys.argv[2]), int(sys.argv[3]) << 20
held = []
while len(held) * step < total:
    held.append(b"x" * step)
    time.sleep(pause)
while True:
    time.sleep(3600)
'''


def own_cgroup(controller):
    for line in open("/proc/self/cgroup"):
        _, controllers, path = line.rstrip("\n").split(":", 2)
        if controller in controllers.split(","):
            return f"/sys/fs/cgroup/{controller}" + (path if path != "/" else "")
    return None


def destroy_cgroup(directory):
    subtree = [root for root, _, _ in os.walk(directory)]
    for _ in range(2000):
        pids = [int(p) for d in subtree if os.path.exists(d + "/cgroup.procs") for p in open(d + "/cgroup.procs").read().split()]
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.001)
    for d in reversed(subtree):
        try:
            os.rmdir(d)
        except OSError:
            pass


def control(sock_path, command, names=(), options=None):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(sock_path)
        s.sendall((json.dumps({"command": command, "names": list(names), "options": options or {}}) + "\n").encode())
        data = b""
        while not data.endswith(b"\n"):
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            data += chunk
    response = json.loads(data.splitlines()[0])
    if not response.get("ok"):
        raise RuntimeError(f"{command} {list(names)}: {response.get('error')}")
    return response


def wait_for(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.01)
    raise RuntimeError(f"timed out waiting for {what}")


def percentile(values, p):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def summary(name, values):
    if not values:
        return f"{name}: no samples"
    return (f"{name}: n={len(values)} p50={percentile(values, 50)}us p99={percentile(values, 99)}us "
            f"max={max(values)}us")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--bin", default=None, help="directory with extensiond (default .build/release, else .build/debug)")
    parser.add_argument("--step", type=int, default=2, help="MiB the active extension takes per step")
    parser.add_argument("--pause", type=float, default=0.02, help="seconds between its steps")
    args = parser.parse_args()

    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    binary_dir = args.bin or next((os.path.join(root, ".build", c) for c in ("release", "debug")
                                   if os.path.exists(os.path.join(root, ".build", c, "extensiond"))), None)
    if binary_dir is None:
        sys.exit("build extensiond first (swift build)")

    work = tempfile.mkdtemp(prefix="exd-pressure-bench-")
    memory_parent, pids_parent = own_cgroup("memory"), own_cgroup("pids")
    if memory_parent is None:
        sys.exit("no cgroup v1 memory controller for this process")
    name = f"extensiond-bench-{os.getpid()}-{random.getrandbits(32)}"
    sandbox = f"{memory_parent}/{name}"
    os.mkdir(sandbox)
    # The daemon makes its v1 pids groups below its own pids cgroup: give it one of its
    # own rather than share one with every other daemon on the machine.
    pids_sandbox = f"{pids_parent}/{name}" if pids_parent else None
    if pids_sandbox:
        os.mkdir(pids_sandbox)
    daemon = None
    try:
        open(f"{sandbox}/memory.limit_in_bytes", "w").write(str(384 * MIB))
        for name, text in (("hold.py", HOLD), ("grow.py", GROW)):
            open(os.path.join(work, name), "w").write(text)
        hold, grow = os.path.join(work, "hold.py"), os.path.join(work, "grow.py")
        config = f'''[supervisor]
runtime_dir = "{work}/run"
state_dir = "{work}/state"
cgroup = "{sandbox}"
memory_budget = "256M"

[hosts.panel]
command = ["{PYTHON}", "{hold}", "64"]

[apps.app]
command = ["/bin/sleep", "1000"]

[extensions.grower]
app = "app"
point = "widget"
command = ["{PYTHON}", "{grow}", "{args.step}", "{args.pause}", "240"]
start_timeout = "60s"
'''
        for name, priority in sorted(IDLE.items()):
            config += f'''
[extensions."{name}"]
app = "app"
point = "widget"
command = ["{PYTHON}", "{hold}", "40"]
priority = {priority}
idle_exit = "10m"
'''
        open(os.path.join(work, "extensiond.toml"), "w").write(config)
        sock = f"{work}/run/control.sock"
        env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID")}
        daemon = subprocess.Popen([os.path.join(binary_dir, "extensiond"), "--config", os.path.join(work, "extensiond.toml")],
                                  env=env, preexec_fn=lambda: pids_sandbox and open(f"{pids_sandbox}/cgroup.procs", "w").write(str(os.getpid())),
                                  stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "daemon.log"), "w"))
        wait_for(lambda: os.path.exists(sock), 10, "the control socket")

        def status(name):
            return control(sock, "status", [name])["status"][0]

        def usage(group):
            try:
                return int(open(f"{sandbox}/{group}/memory.usage_in_bytes").read())
            except OSError:
                return 0

        wait_for(lambda: usage("hosts/panel") >= 60 * MIB, 10, "the host's 64M")
        host_pid = status("panel").get("pid")
        last_sequence = max((e["sequence"] for e in control(sock, "events", options={"count": "1000"})["events"]), default=0)

        trigger_to_signal, signal_to_empty, first_trigger_to_signal = [], [], []
        trigger_to_decision, decision_to_signal = [], []
        surplus = host_deaths = order_errors = not_empty = kernel_ooms = 0
        for episode in range(args.episodes):
            for name in sorted(IDLE):
                control(sock, "start", [name])
                wait_for(lambda: status(name)["state"] == "idle" and usage(f"extensions/{name}") >= 39 * MIB, 10, f"{name} idle")
            control(sock, "start", ["grower"])
            wait_for(lambda: status("grower")["state"] != "starting", 30, "the grower's end")
            events = [e for e in control(sock, "events", options={"count": "1000"})["events"] if e["sequence"] > last_sequence]
            last_sequence = max((e["sequence"] for e in events), default=last_sequence)
            kills = [e for e in events if e["kind"] == "kill"]
            kernel_ooms += sum(1 for e in events if e["kind"] == "oom")
            names = [e.get("name") for e in kills]
            if names != IDLE_KILL_ORDER + ["grower"]:
                order_errors += 1
            # Needed: the three idle extensions and the grower (it alone outgrows the budget).
            surplus += max(0, len(kills) - 4) + sum(1 for e in kills if e["kill"].get("treeUsageBytes", 0) < LOW)
            host = status("panel")
            if any(e.get("name") == "panel" and e["kind"] in ("kill", "oom", "exit") for e in events) or host.get("pid") != host_pid:
                host_deaths += 1
                host_pid = host.get("pid")
            for index, event in enumerate(kills):
                record = event["kill"]
                trigger_to_signal.append(record["signalUs"] - record["triggerUs"])
                trigger_to_decision.append(record["decisionUs"] - record["triggerUs"])
                decision_to_signal.append(record["signalUs"] - record["decisionUs"])
                if index == 0:
                    first_trigger_to_signal.append(record["signalUs"] - record["triggerUs"])
                # A victim not empty within the daemon's 100 ms bound is recorded once its run ended.
                if record.get("emptyUs") is None or record["emptyUs"] - record["signalUs"] > 100_000:
                    not_empty += 1
                if record.get("emptyUs") is not None:
                    signal_to_empty.append(record["emptyUs"] - record["signalUs"])
            # When the kernel's OOM killer took the grower first, idle extensions survive the
            # episode: stop them for a clean start of the next one.
            survivors = [n for n in IDLE if status(n)["state"] == "idle"]
            if survivors:
                control(sock, "stop", survivors)
            wait_for(lambda: all(status(n)["state"] not in ("idle", "running", "starting") for n in IDLE), 10, "the episode's exits")
            print(f"episode {episode + 1}: kills {names}", flush=True)

        print(f"binaries: {binary_dir}")
        print(f"episodes: {args.episodes}, active growth {args.step}M per {args.pause}s")
        print(summary("trigger->signal (all kills)", trigger_to_signal))
        print(summary("trigger->signal (first kill of an episode)", first_trigger_to_signal))
        print(summary("  of which trigger->decision", trigger_to_decision))
        print(summary("  of which decision->signal", decision_to_signal))
        print(summary("signal->empty", signal_to_empty))
        print(f"not empty within 100ms: {not_empty}")
        print(f"surplus kills: {surplus} (episodes with another kill order: {order_errors})")
        print(f"host deaths: {host_deaths}")
        print(f"kernel OOM events: {kernel_ooms}")
    finally:
        if daemon is not None:
            daemon.terminate()
            try:
                daemon.wait(timeout=10)
            except subprocess.TimeoutExpired:
                daemon.kill()
        destroy_cgroup(sandbox)
        if pids_sandbox:
            destroy_cgroup(pids_sandbox)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
