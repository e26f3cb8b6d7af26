#!/bin/bash
# freezer: suspension on the cgroup v2 freezer and memory.reclaim before a pressure kill,
# under a real systemd (PID 1) with the unified hierarchy, inside the VM of tests/vm/boot.
#
# A widget with a 10 ms timer that keeps a 64 MiB file mapped (clean file pages: memory
# the kernel can reclaim without swap) is pulled, then left idle for suspend_after (1s).
# Checks that its cgroup.freeze reads 1 and cgroup.events `frozen 1`, that its cpu.stat
# usage_usec does not move in 3 s, that a pull thaws the same process and gets its answer,
# and that when a host's growth takes the tree past pressure.low the daemon first writes
# the suspended widget's memory.reclaim (a `reclaim` event with the group's memory before
# and after, less after) before it kills anything of it.
set -u
cd /test
. /test/lib/checks.sh
. /test/lib/daemon.sh

# Not in /var/tmp: the unit gives the daemon a private one.
CACHE=/usr/local/share/freezer-cache
head -c $((64 << 20)) /dev/zero > "$CACHE"
chmod 644 "$CACHE"
install -m 0755 /test/ticking_widget.py /usr/local/bin/ticking_widget.py
sync
echo 1 > /proc/sys/vm/drop_caches   # the widget's page-ins are then charged to its group

# The ballast host takes 120 MiB when /run/ballast appears: with the widget's 64 MiB
# mapped the tree passes pressure.low (50% of 300M).
install_daemon <<TOML
[supervisor]
runtime_dir = "/run/extensiond"
state_dir = "/var/lib/extensiond"
memory_budget = "300M"

[pressure]
low = "50%"
critical = "95%"

[hosts.ballast]
command = ["/usr/bin/python3", "-c", "import os, time\nwhile not os.path.exists('/run/ballast'): time.sleep(0.1)\nb = b'x' * (120 << 20)\ntime.sleep(100000)"]

[apps."tick.app"]
command = ["/bin/sleep", "100002"]

[extensions."tick.widget"]
app = "tick.app"
point = "widget"
command = ["/usr/bin/python3", "/usr/local/bin/ticking_widget.py", "$CACHE"]
start_timeout = "30s"
suspend_after = "1s"
idle_exit = "10m"
[extensions."tick.widget".sandbox]
enabled = false
TOML
check "systemctl start extensiond" systemctl start "$SERVICE"
check "the control socket answers" wait_for 30 supervisorctl version

state() { supervisorctl --json status tick.widget | python3 -c 'import json, sys; print(json.load(sys.stdin)["status"][0]["state"])'; }
pid() { supervisorctl --json status tick.widget | python3 -c 'import json, sys; print(json.load(sys.stdin)["status"][0].get("pid"))'; }
usage_usec() { awk '$1 == "usage_usec" { print $2 }' "$group/cpu.stat"; }
# The events of process $1 of kind $2 (`any`: every kind, printed as KIND: MESSAGE),
# oldest first, one a line.
events_of() {
    supervisorctl --json events -n 1000 | python3 -c '
import json, sys
for line in sys.stdin:
    for event in json.loads(line)["events"] if line.strip() else []:
        if event.get("name") == sys.argv[1] and sys.argv[2] in (event["kind"], "any"):
            print(event["kind"] + ": " + event["message"] if sys.argv[2] == "any" else event["message"])' "$1" "$2"
}

step "suspension"
answers() { supervisorctl pull tick.widget | grep -q "tick [0-9]"; }
check "the first pull launches the widget and gets its answer" answers
check "idle for suspend_after, it is suspended" wait_until 20 '[ "$(state)" = suspended ]'
[ "$(state)" = suspended ] || tail -n 20 /var/lib/extensiond/logs/tick.widget.stderr.log
group=$(find "$(service_cgroup)" -type d -name tick.widget | head -n1)
check "its cgroup exists below the service's ($group)" test -d "$group"
expect "cgroup.freeze" "$(cat "$group/cgroup.freeze")" 1
check "cgroup.events says frozen 1" grep -qx "frozen 1" "$group/cgroup.events"
before=$(usage_usec)
sleep 3
check "cpu.stat has usage_usec ($before)" test -n "$before"
expect "cpu.stat usage_usec over 3 s of a 10 ms timer, frozen" "$(usage_usec)" "$before"
first_pid=$(pid)
check "it has a pid ($first_pid)" test "$first_pid" -gt 0
check "a pull of the suspended widget gets its answer" answers
expect "the same process answered (thawed, not relaunched)" "$(pid)" "$first_pid"
check "suspended again after suspend_after" wait_until 20 '[ "$(state)" = suspended ]'
check "cgroup.events says frozen 1 again" grep -qx "frozen 1" "$group/cgroup.events"

step "memory.reclaim before a kill"
echo "    the widget's group holds $(( $(cat "$group/memory.current") >> 20 )) MiB; the ballast takes 120 MiB"
touch /run/ballast
check "the daemon wrote the suspended widget's memory.reclaim (a reclaim event)" wait_until 30 '[ -n "$(events_of tick.widget reclaim)" ]'
[ -n "$(events_of tick.widget reclaim)" ] || supervisorctl events -n 15 | sed 's/^/    /'
reclaim=$(events_of tick.widget reclaim | head -n1)
echo "    $reclaim"
freed=$(sed -n 's/.*: \([0-9]*\) KiB → \([0-9]*\) KiB.*/\1 \2/p' <<<"$reclaim")
check "the kernel took memory from the group (before → after: $freed KiB)" sh -c '[ -n "$1" ] && [ "$2" -lt "$1" ]' _ $freed
killed=$(events_of tick.widget kill | head -n1)
echo "    kill of the widget after the reclaim: ${killed:-none (the reclaim was enough)}"
first=$(events_of tick.widget any | grep -E '^(reclaim|kill):' | head -n1 | cut -d: -f1)
expect "the widget's first reclaim-or-kill event" "$first" reclaim
expect "kills of the ballast host" "$(events_of ballast kill | wc -l)" 0

systemctl stop "$SERVICE"
rm -f "$CACHE" /run/ballast
summary
