# The sandbox probe (docs/SECURITY.md): a widget of app `b` that tries everything an
# extension must not do and what it must be able to do, and answers each update with what
# happened per attempt: `ok`, the value read, or the error's name. Used by
# Tests/IntegrationTests/SandboxTests.swift (cgroup v1, no systemd) and tests/vm/sandbox
# (systemd, cgroup v2); expected.json holds the outcomes both check.
# Arguments: the daemon's state_dir and this file's directory (which holds setuid-id, a
# setuid-root copy of id(1)); its parent holds secret_keeper.py, which the probe must not read.
import ctypes, errno, json, os, signal, subprocess, sys
state, here = sys.argv[1], sys.argv[2]
sock = os.fdopen(int(os.environ["EXTENSIOND_FD"]), "r+b", buffering=0)
sock.write(b'{"type":"ready","protocol":1}\n')

def attempt(action):
    try:
        result = action()
        return "ok" if result is None else result
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))

def read(path): return lambda: open(path).read()
def write(path): return lambda: open(path, "a").write("x") and None
def listing(path): return lambda: os.listdir(path) and None

def own_cgroup():
    """The directory of its own memory cgroup: v1's memory hierarchy, else the unified one."""
    lines = open("/proc/self/cgroup").read().splitlines()
    memory = [l for l in lines if ":memory:" in l]
    if memory: return "/sys/fs/cgroup/memory" + memory[0].split(":", 2)[2]
    return "/sys/fs/cgroup" + [l for l in lines if l.startswith("0::")][0][3:]

def other_app_pid():
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if b"secret_keeper" in open("/proc/%s/cmdline" % pid, "rb").read(): return int(pid)
            except OSError: pass
    return None

def ptrace(pid):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.ptrace(16, pid, None, None) != 0:  # PTRACE_ATTACH
        raise OSError(ctypes.get_errno(), "ptrace")

def unshare():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0) != 0:
        raise OSError(ctypes.get_errno(), "unshare")

def io_uring(number, *arguments):
    """io_uring_setup (425), io_uring_enter (426), io_uring_register (427): one numbering on every architecture."""
    libc = ctypes.CDLL(None, use_errno=True)
    result = libc.syscall(number, *arguments)
    if result < 0:
        raise OSError(ctypes.get_errno(), "io_uring")
    if number == 425:
        os.close(result)

def checks():
    data = os.environ["EXTENSIOND_DATA_DIR"]
    container = os.environ["EXTENSIOND_GROUP_CONTAINERS"].split("=", 1)[1]
    target = other_app_pid()
    cgroup = own_cgroup()
    return {
        "uid": os.getuid(), "gid": os.getgid(), "groups": sorted(os.getgroups()),
        "dataDir": data, "tmpdir": os.environ.get("TMPDIR", ""),
        "ownData": attempt(lambda: open(data + "/mine", "w").write("b") and open(data + "/mine").read()),
        "ownContainer": attempt(lambda: open(container + "/mine", "w").write("b") and None),
        "appGreeting": attempt(read(container + "/greeting")),
        "otherContainer": attempt(read(state + "/groups/group.a/secret")),
        "otherContainerWrite": attempt(write(state + "/groups/group.a/intruder")),
        "otherDefaults": attempt(read(state + "/defaults/group.a.json")),
        "otherDefaultsWrite": attempt(write(state + "/defaults/group.a.json")),
        "otherData": attempt(read(state + "/data/a.widget/secret")),
        "otherDataWrite": attempt(write(state + "/data/a.widget/intruder")),
        "stateDir": attempt(listing(state)),
        "stateDirWrite": attempt(write(state + "/intruder")),
        "otherLog": attempt(read(state + "/logs/a.widget.log")),
        "otherLogWrite": attempt(write(state + "/logs/a.widget.log")),
        "root": attempt(listing("/root")),
        "rootWrite": attempt(write("/root/intruder")),
        "outside": attempt(read(os.path.dirname(here) + "/secret_keeper.py")),
        "tmp": attempt(write("/tmp/extensiond-sandbox-probe")),
        "ownCgroupProcs": attempt(lambda: open(cgroup + "/cgroup.procs", "w").write(str(os.getpid())) and None),
        "parentCgroupProcs": attempt(lambda: open(os.path.dirname(cgroup) + "/cgroup.procs", "w").write(str(os.getpid())) and None),
        "signalOtherApp": attempt(lambda: os.kill(target, signal.SIGTERM)) if target else "no target",
        "ptraceOtherApp": attempt(lambda: ptrace(target)) if target else "no target",
        "unshare": attempt(unshare),
        "ioUringSetup": attempt(lambda: io_uring(425, 1, ctypes.create_string_buffer(120))),
        "ioUringEnter": attempt(lambda: io_uring(426, -1, 0, 0, 0, None, 0)),
        "ioUringRegister": attempt(lambda: io_uring(427, -1, 0, None, 0)),
        "setuid": subprocess.run([here + "/setuid-id", "-u"], capture_output=True, text=True).stdout.strip(),
        "interfaces": sorted(l.split(":")[0].strip() for l in open("/proc/net/dev").read().splitlines()[2:]),
        # sandbox.read and sandbox.write, where the test grants them (not in expected.json).
        "granted": attempt(read(os.path.dirname(here) + "/granted/note")),
        "grantedWrite": attempt(write(os.path.dirname(here) + "/granted/note")),
        "writable": attempt(write(os.path.dirname(here) + "/writable/note")),
        "notGranted": attempt(read(os.path.dirname(here) + "/denied/note")),
    }

for line in sock:
    message = json.loads(line)
    if message["type"] == "terminate": break
    if message["type"] == "update":
        sock.write((json.dumps({"type": "result", "id": message["id"], "result": "newData", "snapshot": checks()}) + "\n").encode())
