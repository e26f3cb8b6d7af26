#!/usr/bin/env python3
"""oom-bench's processes: the same script under extensiond, earlyoom and systemd-oomd.

workload.py host NAME MIB      holds MIB MiB for ever (the host that must survive)
workload.py idle NAME MIB      holds MIB MiB for ever (an idle extension)
workload.py grow NAME MIB STEP PAUSE GO
                               holds MIB MiB, waits for the file GO, then takes STEP MiB
                               every PAUSE s for ever (the growing extension)

NAME becomes the process name (/proc/PID/comm, at most 15 bytes), which earlyoom's
--prefer/--avoid regexes match. Under extensiond (EXTENSIOND_FD set) it says ready at
once, so it counts as idle, and reads the daemon's messages until the socket closes.
"""
import ctypes, os, sys, threading, time

MIB = 1 << 20
role, name, held_mib = sys.argv[1], sys.argv[2], int(sys.argv[3])
ctypes.CDLL(None).prctl(15, name.encode()[:15], 0, 0, 0)      # PR_SET_NAME
held = [b"x" * (held_mib * MIB)] if held_mib else []          # bytes(n) would stay untouched

fd = os.environ.get("EXTENSIOND_FD")
if fd is not None:
    os.write(int(fd), b'{"type":"ready","protocol":1}\n')

    def drain():
        while True:
            data = os.read(int(fd), 65536)
            if not data or b'"terminate"' in data:
                os._exit(0)
    threading.Thread(target=drain, daemon=True).start()

if role == "grow":
    step, pause, go = int(sys.argv[4]) * MIB, float(sys.argv[5]), sys.argv[6]
    while not os.path.exists(go):
        time.sleep(0.05)
    while True:
        held.append(b"x" * step)
        time.sleep(pause)
while True:
    time.sleep(3600)
