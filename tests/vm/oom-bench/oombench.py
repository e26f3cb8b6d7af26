#!/usr/bin/env python3
"""oom-bench's driver, run in the guest by run.sh: episodes of one workload under one tool.

oombench.py --tool extensiond|earlyoom|systemd-oomd [--episodes N] [--order grower-first|grower-last]

Every tool gets the same processes (workload.py) and the same budget: a host holding
HOST MiB for the whole run, IDLES idle extensions holding IDLE MiB each and one growing
extension that takes STEP MiB every PAUSE s from the moment the episode starts until
something kills it. The tree the tool governs (extensiond.service's cgroup, daemon
included, or oombench.slice) has a hard limit MemoryMax=HARD MiB: past it the kernel's
OOM killer acts, which counts against the tool. BUDGET MiB (< HARD) is where the tool is
asked to act:

  extensiond     memory_budget = HARD, [pressure] low = BUDGET/HARD (the growing
                 extension is idle: killed at low), critical = 95%
  earlyoom       -M: the MemAvailable the guest has when the tree holds BUDGET (measured
                 with the host running), --prefer '^oomb-ext', --avoid '^oomb-host$'
  systemd-oomd   the slice's MemoryHigh=BUDGET (the pressure oomd watches comes from it),
                 ManagedOOMMemoryPressure=kill, ManagedOOMMemoryPressureLimit=LIMIT,
                 DefaultMemoryPressureDurationSec=1s; the host ManagedOOMPreference=avoid

Measured per episode, the same way for every tool, by sampling the tree's memory.current
every 10 ms and a pidfd per process: crossing = the first sample at or above BUDGET;
relief = the first moment after it at which a sample is RELIEF_MARGIN (16 MiB) below
BUDGET or the growing extension has exited (the margin, well below the smallest kill,
keeps the kernel's reclaim at a MemoryHigh= from counting as relief); grower = the
moment the growing extension exited, also measured from the crossing (an episode
relieved before any sample saw the crossing counts 0 for both);
which processes died (2 s after the growing one, so that later kills count too), and
the kernel's OOM kills (/proc/vmstat oom_kill, and /dev/kmsg for their pids). An episode
ends at most TIMEOUT s after it started: then the driver kills the growing extension
itself and counts the episode unrelieved. The tool's CPU (utime+stime) and RSS
(VmRSS, VmHWM) come from /proc/PID of its main process, and so does PID 1's CPU.

Prints one line per episode and, last, `RESULT {json}`.
"""
import argparse, json, os, re, select, socket, subprocess, sys, time

MIB = 1 << 20
PY = "/usr/bin/python3"
WORKLOAD = "/test/workload.py"
GO = "/run/oomb/go"
SLICE = "oombench.slice"
HZ = os.sysconf("SC_CLK_TCK")


def sh(*args, check=True):
    return subprocess.run(args, check=check, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout.strip()


def wait_for(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise RuntimeError(f"timed out waiting for {what}")


def read_int(path, default=0):
    try:
        return int(open(path).read().split()[0])
    except (OSError, ValueError, IndexError):
        return default


def memory_stat(cgroup):
    """The tree's anonymous memory, page cache and the part of it mapped, MiB."""
    fields = {}
    try:
        for line in open(cgroup + "/memory.stat"):
            key, value = line.split()
            if key in ("anon", "file", "file_mapped", "shmem"):
                fields[key] = int(value) / MIB
    except OSError:
        pass
    return fields


def rss_mib(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0


def proc_status(pid, key):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def cpu_seconds(pid):
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / HZ     # utime, stime
    except (OSError, IndexError, ValueError):
        return None


def faults(pid):
    """The process's (minor, major) page faults so far; major ones read from the disk (the
    phase starts from dropped caches: code run for the first time faults in that way)."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return int(fields[7]), int(fields[9])      # minflt, majflt
    except (OSError, IndexError, ValueError):
        return None


def throttle_at_go(cgroup):
    """extensiond on v2: its throttle (supervised/memory.high) and what the tree holds
    outside supervised/ (which the throttle allows for), MiB; None for the other tools."""
    try:
        high = int(open(cgroup + "/supervised/memory.high").read())
        outside = read_int(cgroup + "/memory.current") - read_int(cgroup + "/supervised/memory.current")
    except (OSError, ValueError):
        return None
    return high / MIB, outside / MIB


def gone(pid):
    """The process has exited (a zombie not yet reaped by its parent counts as gone)."""
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return True


def vm_oom_kills():
    for line in open("/proc/vmstat"):
        if line.startswith("oom_kill "):
            return int(line.split()[1])
    return 0


class Kmsg:
    """The kernel log from now on, non-blocking: the pids the OOM killer killed."""
    def __init__(self):
        self.fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
        os.lseek(self.fd, 0, os.SEEK_END)

    def killed(self):
        pids, lines = [], []
        while True:
            try:
                record = os.read(self.fd, 8192).decode(errors="replace")
            except BlockingIOError:
                break
            except OSError:      # EPIPE: records overwritten; carry on
                continue
            text = record.split(";", 1)[-1].strip()
            match = re.search(r"Killed process (\d+)", text)
            if match:
                pids.append(int(match.group(1)))
                lines.append(text)
        return pids, lines


def alive(pidfd):
    return not select.select([pidfd], [], [], 0)[0]


def unit_main_pid(unit):
    pid = sh("systemctl", "show", "-P", "MainPID", unit, check=False)
    return int(pid) if pid.isdigit() and int(pid) > 0 else None


# ---------------------------------------------------------------------------- tools

class Extensiond:
    name = "extensiond"
    service = "extensiond"
    sock = "/run/extensiond/control.sock"

    def __init__(self, a):
        self.a = a

    def control(self, command, **fields):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.connect(self.sock)
            s.sendall((json.dumps({"command": command, **fields}) + "\n").encode())
            data = b""
            while not data.endswith(b"\n"):
                chunk = s.recv(1 << 20)
                if not chunk:
                    break
                data += chunk
        response = json.loads(data.splitlines()[0])
        if not response.get("ok"):
            raise RuntimeError(f"{command} {fields}: {response.get('error')}")
        return response

    def status(self, name):
        return self.control("status", names=[name])["status"][0]

    def setup(self):
        a = self.a
        low = a.budget * 100 / a.hard
        # suspend_after = "0s": the workload must be the same under every tool, and a
        # growing extension frozen after 10 s idle (the default) stops growing: the episode
        # then never crosses and runs into its bound (2 of 20 under a loaded host).
        ext = lambda name, args: f'''
[extensions."{name}"]
app = "app"
point = "widget"
command = {json.dumps([PY, WORKLOAD] + args)}
idle_exit = "1h"
suspend_after = "0s"
start_timeout = "60s"
'''
        config = f'''[supervisor]
runtime_dir = "/run/extensiond"
state_dir = "/var/lib/extensiond"
memory_budget = "{a.hard}M"

[pressure]
low = "{low:g}%"
critical = "95%"

[hosts.panel]
command = {json.dumps([PY, WORKLOAD, "host", "oomb-host", str(a.host)])}

[apps.app]
command = ["/bin/sleep", "1000000"]
'''
        for i in range(1, a.idles + 1):
            config += ext(f"idle{i}", ["idle", f"oomb-ext-idle{i}", str(a.idle)])
        config += ext("grower", ["grow", "oomb-ext-grow", "0", str(a.step), str(a.pause), GO])
        subprocess.run(["bash", "-c", ". /test/lib/daemon.sh; install_daemon"], input=config, text=True, check=True)
        os.makedirs("/etc/systemd/system/extensiond.service.d", exist_ok=True)
        open("/etc/systemd/system/extensiond.service.d/oom-bench.conf", "w").write(
            f"[Service]\n# oom-bench: the hard limit of the tree, the same for every tool\nMemoryMax={a.hard}M\n")
        sh("systemctl", "daemon-reload")
        sh("systemctl", "start", self.service)
        self.cgroup = "/sys/fs/cgroup" + sh("systemctl", "show", "-P", "ControlGroup", self.service)
        print(open("/etc/extensiond/extensiond.toml").read())
        print(sh("supervisorctl", "pressure", check=False))

    def tool_pid(self):
        return unit_main_pid(self.service)

    def tree(self):
        return read_int(self.cgroup + "/memory.current")

    def host_pid(self):
        def up():
            s = self.status("panel")
            return s.get("pid") if s.get("state") == "running" and rss_mib(s.get("pid") or 0) >= self.a.host else None
        return wait_for(up, 60, "the host")

    def start(self, name, episode):
        # Waits by watching the extension's cgroup and /proc, not by polling the daemon's
        # status, whose answers would count as the daemon's CPU time.
        self.control("start", names=[name])
        procs = f"{self.cgroup}/supervised/extensions/{name}/cgroup.procs"
        target = 0 if name == "grower" else self.a.idle
        def up():
            try:
                pids = [int(p) for p in open(procs).read().split()]
            except OSError:
                return None
            return pids[0] if pids and rss_mib(pids[0]) >= target else None
        return wait_for(up, 60, f"{name} up")

    def check_idle(self, names):
        """The growing extension must be idle (ready, nothing in flight) when it grows: one
        still starting counts as active, which `low` does not kill. Waits for that (python
        starts slowly in an emulated VM) and says so."""
        states = lambda: {name: self.status(name).get("state") for name in names}
        first = states()
        if any(state != "idle" for state in first.values()):
            print(f"    note: not all idle at the start of the episode: {first}; waiting", flush=True)
            wait_for(lambda: all(state == "idle" for state in states().values()), 30, "every extension idle")

    def kill_records(self):
        events = self.control("events", lines=1000, follow=False)["events"]
        return [dict(e["kill"], name=e.get("name"), cause=e.get("message", "").split(": killed")[0])
                for e in events if e.get("kind") == "kill" and e.get("kill")]

    def stop(self, name, episode):
        try:
            self.control("stop", names=[name])
        except RuntimeError:
            pass

    def teardown(self):
        sh("systemctl", "stop", self.service, check=False)


class SystemdTool:
    """earlyoom and systemd-oomd: the processes as transient units in oombench.slice."""
    def __init__(self, a):
        self.a = a
        self.cgroup = f"/sys/fs/cgroup/{SLICE}"
        self.host_unit = None
        self.host_runs = 0

    def slice_config(self):
        return f"[Slice]\nMemoryAccounting=yes\nMemoryMax={self.a.hard}M\n"

    def run_unit(self, unit, args, extra=()):
        sh("systemd-run", "--quiet", "--collect", f"--unit={unit}", f"--slice={SLICE}", *extra, PY, WORKLOAD, *args)
        return wait_for(lambda: unit_main_pid(unit), 30, f"{unit}'s pid")

    def setup(self):
        open(f"/etc/systemd/system/{SLICE}", "w").write(self.slice_config())
        sh("systemctl", "daemon-reload")
        sh("systemctl", "start", SLICE)
        print(f"/etc/systemd/system/{SLICE}:\n" + self.slice_config())
        self.start_host()
        self.host_pid()          # holding its memory: earlyoom's threshold is calibrated on it
        self.start_tool()

    def start_host(self):
        self.host_runs += 1
        self.host_unit = f"oomb-host-{self.host_runs}"
        self.run_unit(self.host_unit, ["host", "oomb-host", str(self.a.host)], self.host_properties())

    def host_properties(self):
        return ()

    def host_pid(self):
        pid = unit_main_pid(self.host_unit) if self.host_unit else None
        if pid is None:
            self.start_host()
        return wait_for(lambda: (lambda p: p if p and rss_mib(p) >= self.a.host else None)(unit_main_pid(self.host_unit)), 60, "the host")

    def tree(self):
        return read_int(self.cgroup + "/memory.current")

    def start(self, name, episode):
        if name == "grower":
            args = ["grow", "oomb-ext-grow", "0", str(self.a.step), str(self.a.pause), GO]
        else:
            args = ["idle", f"oomb-ext-{name}", str(self.a.idle)]
        pid = self.run_unit(f"oomb-{name}-{episode}", args)
        if name != "grower":
            wait_for(lambda: rss_mib(pid) >= self.a.idle or not os.path.exists(f"/proc/{pid}"), 60, f"{name} holding")
        return pid

    def stop(self, name, episode):
        sh("systemctl", "kill", "-s", "KILL", f"oomb-{name}-{episode}", check=False)

    def teardown(self):
        self.stop_tool()
        for unit in sh("systemctl", "list-units", "--plain", "--no-legend", "oomb-*", check=False).splitlines():
            sh("systemctl", "kill", "-s", "KILL", unit.split()[0], check=False)
        time.sleep(1)
        sh("systemctl", "stop", SLICE, check=False)
        os.unlink(f"/etc/systemd/system/{SLICE}")
        sh("systemctl", "daemon-reload")


class Earlyoom(SystemdTool):
    name = "earlyoom"
    service = "earlyoom"

    def start_tool(self):
        # The MemAvailable the guest has once the tree holds BUDGET: now (host running)
        # less what the tree still lacks of it.
        available = next(int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemAvailable:"))
        total = next(int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal:"))
        lacking = (self.a.budget * MIB - self.tree()) // 1024
        self.threshold_kib = available - lacking
        # -M SIZE[,KILL_SIZE] in KiB: SIGTERM at SIZE, SIGKILL at KILL_SIZE (half, the
        # default). The guest has no swap, so the free swap test (-s, 10 %) always holds.
        args = (f"-M {self.threshold_kib} -r 3600 "
                f"--prefer '^oomb-ext' --avoid '^oomb-host$'")
        open("/etc/default/earlyoom", "w").write(f'EARLYOOM_ARGS="{args}"\n')
        print(f"MemTotal {total} KiB, MemAvailable {available} KiB with the tree at {self.tree() // 1024} KiB: "
              f"earlyoom {args}")
        sh("systemctl", "start", self.service)
        time.sleep(1)
        print(sh("journalctl", "-u", self.service, "--no-pager", "-n", "20", check=False))

    def stop_tool(self):
        print(sh("journalctl", "-u", self.service, "--no-pager", "-n", "30", check=False))
        sh("systemctl", "stop", self.service, check=False)

    def tool_pid(self):
        return unit_main_pid(self.service)


class Oomd(SystemdTool):
    name = "systemd-oomd"
    service = "systemd-oomd"

    def slice_config(self):
        return (super().slice_config() + f"MemoryHigh={self.a.budget}M\nManagedOOMMemoryPressure=kill\n"
                f"ManagedOOMMemoryPressureLimit={self.a.oomd_limit}%\n")

    def host_properties(self):
        return ("-p", "ManagedOOMPreference=avoid")

    def setup(self):
        # Before the slice: PID 1 activates systemd-oomd.socket (and so the service) as soon
        # as a unit with ManagedOOM*= settings is loaded, and oomd reads its config at start.
        self.write_config()
        super().setup()

    def write_config(self):
        # oomd runs as systemd-oom: the drop-in must be readable by it whatever the umask.
        os.makedirs("/etc/systemd/oomd.conf.d", exist_ok=True)
        os.chmod("/etc/systemd/oomd.conf.d", 0o755)
        path = "/etc/systemd/oomd.conf.d/oom-bench.conf"
        with open(path, "w") as f:
            f.write("[OOM]\nDefaultMemoryPressureDurationSec=1s\n")
        os.chmod(path, 0o644)

    def start_tool(self):
        print("before its start: systemd-oomd " + sh("systemctl", "is-active", "systemd-oomd", check=False) +
              ", systemd-oomd.socket " + sh("systemctl", "is-active", "systemd-oomd.socket", check=False))
        sh("systemctl", "restart", self.service)      # (re)reads the drop-in
        time.sleep(2)
        print(sh("oomctl", check=False))

    def stop_tool(self):
        print(sh("journalctl", "-u", self.service, "--no-pager", "-n", "40", check=False))
        sh("systemctl", "stop", self.service, "systemd-oomd.socket", check=False)

    def tool_pid(self):
        return unit_main_pid(self.service)


# ---------------------------------------------------------------------------- episodes

def timelines(episodes, records):
    """Each extensiond episode's steps on one clock, ms from the driver's crossing (or from
    the first signal when no sample crossed): the daemon's last reading below low, its
    trigger, decision and signal, the relief and the victim's empty cgroup, and what
    started the decision (the kill event's message)."""
    lines = []
    for index, e in enumerate(episodes):
        end = episodes[index + 1]["go_us"] if index + 1 < len(episodes) else float("inf")
        kills = sorted((r for r in records if e["go_us"] <= r.get("signalUs", 0) < end), key=lambda r: r["signalUs"])
        if not kills:
            continue
        origin = e["crossing_us"] or kills[0]["signalUs"]
        at = lambda us: "-" if us is None else f"{(us - origin) / 1000:.1f}"
        steps = "; ".join(f"{k.get('name')}: below low {at(k.get('lastBelowLowUs'))}, trigger {at(k.get('triggerUs'))}, "
                          f"decision {at(k.get('decisionUs'))}, signal {at(k.get('signalUs'))}, empty {at(k.get('emptyUs'))} "
                          f"({k.get('cause', '?')})" for k in kills)
        lines.append(f"    episode {e['episode']} ms from {'the crossing' if e['crossing_us'] else 'the signal'}: "
                     f"relief {at(e['relief_us']) if e['crossing_us'] else '-'}; {steps}")
    return lines


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tool", required=True, choices=["extensiond", "earlyoom", "systemd-oomd"])
    p.add_argument("--label", default=None)
    p.add_argument("--episodes", type=int, default=20)
    p.add_argument("--order", default="grower-first", choices=["grower-first", "grower-last"])
    p.add_argument("--budget", type=int, default=240, help="MiB")
    p.add_argument("--hard", type=int, default=300, help="MiB")
    p.add_argument("--host", type=int, default=64, help="MiB")
    p.add_argument("--idle", type=int, default=32, help="MiB")
    p.add_argument("--idles", type=int, default=3)
    p.add_argument("--step", type=int, default=2, help="MiB")
    p.add_argument("--pause", type=float, default=0.02, help="s")
    p.add_argument("--timeout", type=float, default=60, help="s per episode")
    p.add_argument("--oomd-limit", type=int, default=20, help="%%")
    p.add_argument("--relief-margin", type=int, default=16, help="MiB below BUDGET that count as relief")
    a = p.parse_args()
    tool = {"extensiond": Extensiond, "earlyoom": Earlyoom, "systemd-oomd": Oomd}[a.tool](a)
    label = a.label or a.tool
    budget = a.budget * MIB
    os.makedirs(os.path.dirname(GO), exist_ok=True)
    idles = [f"idle{i}" for i in range(1, a.idles + 1)]
    order = ["grower"] + idles if a.order == "grower-first" else idles + ["grower"]

    episodes = []
    host_deaths = 0
    phase_start = time.monotonic()
    try:
        # Every phase from cold caches: the tree is charged the program files its own
        # processes read (python3 and its library), as on a machine where those programs
        # are the tree's own, instead of whichever earlier phase read them first. This
        # matters to systemd-oomd, which kills only "with reclaim activity": without swap
        # that is the reclaim of those file pages (pgscan), nothing else being reclaimable.
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        tool.setup()
        tool_pid = tool.tool_pid()
        host_pid = tool.host_pid()
        cpu0, pid1_cpu0 = cpu_seconds(tool_pid), cpu_seconds(1)
        print(f"{label}: tool pid {tool_pid}, host pid {host_pid}, tree {tool.cgroup}", flush=True)
        for episode in range(1, a.episodes + 1):
            if os.path.exists(GO):
                os.unlink(GO)
            pids = {name: tool.start(name, episode) for name in order}
            time.sleep(0.5)
            if isinstance(tool, Extensiond):
                tool.check_idle(order)
            if gone(host_pid):        # died outside an episode's window: still a death
                host_deaths += 1
                host_pid = tool.host_pid()
            pids["host"] = host_pid
            fds = {name: os.pidfd_open(pid) for name, pid in pids.items()}
            dead_before = [n for n, fd in fds.items() if not alive(fd)]
            kmsg = Kmsg()
            ooms0 = vm_oom_kills()
            start_usage = tool.tree()
            faults0 = faults(tool_pid)
            throttle = throttle_at_go(tool.cgroup)
            t_go = time.monotonic_ns()
            open(GO, "w").close()
            crossing = relief = grower_exit = at_crossing = None
            relieved_below = budget - a.relief_margin * MIB
            peak = start_usage
            while True:
                ready = select.select([fds["grower"]], [], [], 0.01)[0]
                now, usage = time.monotonic_ns(), tool.tree()
                peak = max(peak, usage)
                if crossing is None and usage >= budget:
                    crossing = now
                    at_crossing = memory_stat(tool.cgroup)
                if crossing is not None and relief is None and (usage < relieved_below or ready):
                    relief = now
                if ready:
                    grower_exit = now
                    break
                if now - t_go > a.timeout * 1e9:
                    break
            if grower_exit is None:
                if isinstance(tool, Oomd):
                    print(sh("oomctl", check=False))
                tool.stop("grower", episode)
            time.sleep(2)        # later kills count too
            faults1 = faults(tool_pid)
            tool_faults = [b - a for a, b in zip(faults0, faults1)] if faults0 and faults1 else None
            died = [n for n, fd in fds.items() if not alive(fd) and n not in dead_before]
            kernel_pids, kernel_lines = kmsg.killed()
            os.close(kmsg.fd)
            kernel_kills = vm_oom_kills() - ooms0
            by_kernel = [n for n in died if pids[n] in kernel_pids]
            if grower_exit is None:
                died = [n for n in died if n != "grower"]      # the driver's own kill
            record = {
                "episode": episode,
                "relieved": grower_exit is not None,
                "crossed": crossing is not None,
                "relief_ms": ((relief - crossing) / 1e6) if crossing is not None and relief is not None else (0.0 if grower_exit else None),
                "go_to_exit_ms": (grower_exit - t_go) / 1e6 if grower_exit else None,
                "grower_ms": ((grower_exit - crossing) / 1e6 if crossing is not None else 0.0) if grower_exit else None,
                "start_mib": start_usage / MIB, "peak_mib": peak / MIB,
                # CLOCK_MONOTONIC µs, the clock of the daemon's kill records.
                "crossing_us": crossing // 1000 if crossing is not None else None,
                "go_us": t_go // 1000, "relief_us": relief // 1000 if relief is not None else None,
                "at_crossing_mib": at_crossing,
                "died": died, "by_kernel": by_kernel, "kernel_oom_kills": kernel_kills,
                "surplus": [n for n in died if n != "grower"],
                "tool_faults": tool_faults,
                "throttle_mib": throttle,
            }
            episodes.append(record)
            print(f"{label} episode {episode}: died {died or '-'} (kernel: {by_kernel or '-'}, oom_kill +{kernel_kills}), "
                  f"start {record['start_mib']:.0f} MiB, peak {record['peak_mib']:.0f} MiB, "
                  f"crossing->relief {record['relief_ms'] if record['relief_ms'] is None else round(record['relief_ms'], 1)} ms"
                  f"{'' if record['crossed'] else ' (no sample crossed)'}"
                  f"{'' if at_crossing is None else ', at the crossing ' + ', '.join(f'{k} {v:.1f}' for k, v in at_crossing.items()) + ' MiB'}"
                  f"{'' if tool_faults is None else f', tool page faults {tool_faults[0]} minor, {tool_faults[1]} major'}"
                  f"{'' if throttle is None else f', at the start throttle {throttle[0]:.1f} MiB, outside it {throttle[1]:.1f} MiB'}"
                  f"{'' if record['relieved'] else ' UNRELIEVED (the driver killed the grower)'}", flush=True)
            for line in kernel_lines:
                print(f"    kernel: {line}")
            for name in idles:
                if name not in died and name not in dead_before:
                    tool.stop(name, episode)
            for fd in fds.values():
                os.close(fd)
            if "host" in died:
                host_deaths += 1
                host_pid = tool.host_pid()
            for name in idles + ["grower"]:
                wait_for(lambda: gone(pids[name]), 30, f"{name} gone")
        cpu1, pid1_cpu1 = cpu_seconds(tool_pid), cpu_seconds(1)
        records = tool.kill_records() if isinstance(tool, Extensiond) else []
        if isinstance(tool, Extensiond):       # the throttle where the episodes left it
            print(sh("supervisorctl", "pressure", check=False))
        # In kill order: a kill whose cgroup took over 100 ms to empty is recorded late.
        for r in sorted(records, key=lambda r: r.get("signalUs", 0)):
            print(f"    extensiond kill {r.get('name')}: trigger->decision {r.get('decisionUs', 0) - r.get('triggerUs', 0)} us, "
                  f"decision->signal {r.get('signalUs', 0) - r.get('decisionUs', 0)} us, "
                  f"signal->empty {(r['emptyUs'] - r['signalUs']) if r.get('emptyUs') else None} us, "
                  f"tree {r.get('treeUsageBytes', 0) >> 20} MiB, holding {(r.get('rssBytes') or 0) >> 20} MiB, "
                  f"grew {(r.get('growthBytes') or 0) >> 20} MiB, process_mrelease {r.get('memoryRelease')}")
        for line in timelines(episodes, records):
            print(line)
        result = {
            "label": label, "tool": a.tool, "order": a.order, "episodes": len(episodes),
            "phase_s": time.monotonic() - phase_start,
            "tool_cpu_s": (cpu1 - cpu0) if cpu0 is not None and cpu1 is not None else None,
            "tool_cpu_total_s": cpu1,
            "pid1_cpu_s": (pid1_cpu1 - pid1_cpu0) if pid1_cpu0 is not None else None,
            "tool_rss_kib": proc_status(tool_pid, "VmRSS"), "tool_hwm_kib": proc_status(tool_pid, "VmHWM"),
            "tool_still_same_pid": tool.tool_pid() == tool_pid,
            "host_deaths": host_deaths,
            "daemon_kills": records,
            "budget_mib": a.budget, "hard_mib": a.hard,
            "list": episodes,
        }
        if isinstance(tool, Earlyoom):
            result["earlyoom_threshold_kib"] = tool.threshold_kib
        print("RESULT " + json.dumps(result), flush=True)
    finally:
        if os.path.exists(GO):
            os.unlink(GO)
        tool.teardown()


if __name__ == "__main__":
    main()
