#!/bin/bash
# journal: a process's output and the daemon's events in the journal of a real systemd
# (PID 1), inside the VM of tests/vm/boot. See docs/METRICS.md for the fields.
#
# Runs as root in the throw-away VM with /test holding this file, bin/extensiond,
# bin/supervisorctl, bin/DemoWidget and extensiond.service (staged by scripts/vm-test).
# Checks that `journalctl -u extensiond EXTENSIOND_PROCESS=demo.widget` shows the
# widget's output (stderr at warning priority), that the launch, the reload and a
# memory-pressure kill are structured entries with their MESSAGE_ID and figures, and
# that `output = "file"` keeps a process out of the journal.
set -u
cd /test

KILL_ID=d29aa78288524e81afbb51efb686837b
LAUNCH_ID=1f231bb874ca4ef4b1aac0066bb292cb
RELOAD_ID=b9ea5da05b6b4be49d0a486e74c885e5
. /test/lib/checks.sh
. /test/lib/daemon.sh

# journalctl with the journal flushed first; prints nothing when nothing matches.
journal() { journalctl --sync 2>/dev/null; journalctl --no-pager -q "$@" 2>/dev/null; }
has_entries() { [ -n "$(journal "$@")" ]; }

# The ballast host takes 150 MiB when /run/ballast appears: the tree passes pressure.low
# (50% of 200M) and the daemon kills the idle widget. The widget says hello on both
# streams before it execs the demo widget (fd 3 passes through the exec).
install_daemon <<'TOML'
[supervisor]
runtime_dir = "/run/extensiond"
state_dir = "/var/lib/extensiond"
memory_budget = "200M"

[pressure]
low = "50%"
critical = "95%"

[hosts.ballast]
command = ["/usr/bin/python3", "-c", "import os, time\nwhile not os.path.exists('/run/ballast'): time.sleep(0.2)\nprint('ballast: taking 150M', flush=True)\nb = b'x' * (150 << 20)\ntime.sleep(100000)"]

[hosts.quiet]
command = ["/bin/sh", "-c", "echo quiet-stdout; echo quiet-stderr >&2; exec sleep 100000"]
output = "file"

[apps."demo.app"]
command = ["/bin/sleep", "100002"]

[extensions."demo.widget"]
app = "demo.app"
point = "widget"
command = ["/bin/sh", "-c", "echo 'demo.widget says hello on stdout'; echo 'demo.widget says hello on stderr' >&2; exec /usr/local/bin/DemoWidget"]
memory_max = "32M"
start_timeout = "30s"
idle_exit = "10m"
TOML
check "systemctl start extensiond" systemctl start "$SERVICE"

echo "== output lines"
supervisorctl start demo.widget >/dev/null 2>&1
check "the widget's stdout is in journalctl -u extensiond EXTENSIOND_PROCESS=demo.widget" \
    wait_for 30 has_entries -u "$SERVICE" EXTENSIOND_PROCESS=demo.widget MESSAGE="demo.widget says hello on stdout"
journal -u "$SERVICE" EXTENSIOND_PROCESS=demo.widget | sed 's/^/    /'
check "its stderr line is at warning priority (journalctl -p warning)" \
    has_entries -u "$SERVICE" EXTENSIOND_PROCESS=demo.widget -p warning MESSAGE="demo.widget says hello on stderr"
check "its stdout line is not (priority info)" sh -c "! journalctl --no-pager -q -u $SERVICE EXTENSIOND_PROCESS=demo.widget -p warning MESSAGE='demo.widget says hello on stdout' | grep -q ."
check "SYSLOG_IDENTIFIER is the process name (journalctl -t demo.widget)" has_entries -t demo.widget MESSAGE="demo.widget says hello on stdout"
check "EXTENSIOND_KIND=extension" has_entries EXTENSIOND_PROCESS=demo.widget EXTENSIOND_KIND=extension EXTENSIOND_STREAM=stderr
check "the files keep the streams apart as well (output = both)" \
    sh -c 'grep -q "says hello on stdout" /var/lib/extensiond/logs/demo.widget.log && grep -q "says hello on stderr" /var/lib/extensiond/logs/demo.widget.stderr.log && ! grep -q stderr /var/lib/extensiond/logs/demo.widget.log'
check "output = \"file\": the quiet host's lines are in its files" wait_for 10 grep -q quiet-stderr /var/lib/extensiond/logs/quiet.stderr.log
check "output = \"file\": and not in the journal" sh -c "! journalctl --no-pager -q SYSLOG_IDENTIFIER=quiet | grep -q ."

echo "== events"
check "the widget's launch is an entry with MESSAGE_ID=$LAUNCH_ID and its pid" \
    sh -c "journalctl --no-pager -q -o verbose MESSAGE_ID=$LAUNCH_ID EXTENSIOND_PROCESS=demo.widget | grep -q 'EXTENSIOND_PID=[0-9]'"
systemctl reload "$SERVICE"
check "the reload is an entry with MESSAGE_ID=$RELOAD_ID and the counts" \
    wait_for 10 has_entries MESSAGE_ID=$RELOAD_ID EXTENSIOND_HOSTS=2 EXTENSIOND_EXTENSIONS=1

echo "== a memory-pressure kill"
check "the widget is up before the pressure" wait_for 30 sh -c 'supervisorctl status demo.widget | grep -Eq "(idle|running)(, (visible|hidden))? +[0-9]"'
# The daemon's v2 detection watches memory.events of supervised/ (hosts, apps, extensions,
# not the daemon), whose memory.high makes the kernel count "high" events at pressure.low
# (50% of 200M) less what the tree holds outside it; systemd leaves a delegated child's
# limits alone, also across a daemon-reload. The unit's MemoryHigh=, set through systemd,
# is only a backstop at the budget, so the ballast stalls in supervised/, not the daemon.
low=104857600
budget=209715200
expect "the daemon set the unit's MemoryHigh= at the budget through systemd" "$(systemctl show -P MemoryHigh "$SERVICE")" "$budget"
service_cgroup=/sys/fs/cgroup$(systemctl show -P ControlGroup "$SERVICE")
throttle=$(cat "$service_cgroup/supervised/memory.high")
check "memory.high of supervised/ is pressure.low less the daemon's few MiB ($throttle)" \
    test "$throttle" != max -a "$throttle" -lt "$low" -a "$throttle" -gt $(( low - (64 << 20) ))
systemctl daemon-reload
# The daemon may have moved it since, after a burst (it follows what is outside supervised/).
throttle=$(cat "$service_cgroup/supervised/memory.high")
check "memory.high of supervised/ still set after systemctl daemon-reload ($throttle)" \
    test "$throttle" != max -a "$throttle" -lt "$low" -a "$throttle" -gt $(( low - (64 << 20) ))
expect "memory.high of the service cgroup after systemctl daemon-reload" "$(cat "$service_cgroup/memory.high")" "$budget"
check "supervisorctl pressure lists the throttle on supervised among the mechanisms" sh -c 'supervisorctl pressure | grep -q "memory.high of supervised"'
check "supervisorctl pressure lists MemoryHigh= among the mechanisms" sh -c 'supervisorctl pressure | grep -q "MemoryHigh= of extensiond.service"'
touch /run/ballast
check "journalctl MESSAGE_ID=$KILL_ID shows the kill of demo.widget" wait_for 60 has_entries MESSAGE_ID=$KILL_ID EXTENSIOND_PROCESS=demo.widget
journal -o verbose MESSAGE_ID=$KILL_ID | sed 's/^/    /'
echo "    what the daemon saw:"
supervisorctl pressure 2>&1 | sed 's/^/    /'
supervisorctl events -n 15 2>&1 | sed 's/^/    /'
journal -u "$SERVICE" -n 15 | sed 's/^/    /'
kill_entry=$(journal -o verbose MESSAGE_ID=$KILL_ID EXTENSIOND_PROCESS=demo.widget)
for field in EXTENSIOND_REASON=pressure EXTENSIOND_KILL_BAND= EXTENSIOND_RSS_BYTES= EXTENSIOND_TREE_USAGE_BYTES= EXTENSIOND_BUDGET_BYTES=209715200 \
             EXTENSIOND_TRIGGER_TO_DECISION_US= EXTENSIOND_DECISION_TO_SIGNAL_US= PRIORITY=4 SYSLOG_IDENTIFIER=extensiond; do
    check "the kill entry has $field" grep -q "    $field" <<<"$kill_entry"
done
check "the kill entry belongs to the unit (journalctl -u extensiond MESSAGE_ID=…)" has_entries -u "$SERVICE" MESSAGE_ID=$KILL_ID

systemctl stop "$SERVICE"
summary
