#!/usr/bin/python3
"""The widget of tests/vm/freezer: it maps the file named by argv[1] and touches every page
(clean mapped file pages, charged to the widget's cgroup and counted in the daemon's working
set: memory that memory.reclaim can take without swap), then answers every update and wakes
every 10 ms to count, as a widget with a timer does."""
import json
import mmap
import os
import select
import sys

with open(sys.argv[1], "rb") as cache:
    mapped = mmap.mmap(cache.fileno(), 0, prot=mmap.PROT_READ)
touched = sum(mapped[offset] for offset in range(0, len(mapped), mmap.PAGESIZE))
channel = int(os.environ["EXTENSIOND_FD"])
os.write(channel, b'{"type":"ready","protocol":1}\n')
ticks = 0
pending = b""
while True:
    readable, _, _ = select.select([channel], [], [], 0.01)
    if not readable:
        ticks += 1
        continue
    data = os.read(channel, 65536)
    if not data:
        break
    pending += data
    *lines, pending = pending.split(b"\n")
    for line in lines:
        request = json.loads(line) if line.strip() else {}
        if request.get("type") == "terminate":
            sys.exit(0)
        if request.get("type") == "update":
            result = {"type": "result", "id": request["id"], "result": "newData", "snapshot": {"text": f"tick {ticks}"}}
            os.write(channel, json.dumps(result).encode() + b"\n")
