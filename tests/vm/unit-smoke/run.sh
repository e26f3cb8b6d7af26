#!/bin/bash
# unit-smoke: extensiond under systemd (PID 1) on cgroup v2, inside the VM of tests/vm/boot.
#
# Runs as root in the throw-away VM with /test holding this file plus bin/extensiond,
# bin/supervisorctl, bin/DemoWidget and extensiond.service (staged by scripts/vm-test).
# Prints one PASS/FAIL line per check, the unit's journal at the end, and exits
# non-zero when any check failed.
set -u
cd /test

CG=/sys/fs/cgroup
. /test/lib/checks.sh
. /test/lib/daemon.sh

# The journal from a cursor on (the unit's and the daemon's lines).
journal_mark() { journalctl --sync 2>/dev/null; journalctl -u "$SERVICE" -n 1 -o export 2>/dev/null | sed -n 's/^__CURSOR=//p'; }
journal_since() {
    journalctl --sync 2>/dev/null
    if [ -n "$1" ]; then journalctl -u "$SERVICE" --no-pager --after-cursor="$1"; else journalctl -u "$SERVICE" --no-pager; fi
}
# The raw control protocol, for fields supervisorctl does not print.
# (written out by hand: the request is one fixed line.)
control_json() {
    python3 - "$SOCKET" "$1" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b'{"command":"%s","names":[]}\n' % sys.argv[2].encode())
print(s.makefile().readline().strip())
PY
}
group_pids() { cat "$1/cgroup.procs" 2>/dev/null; }
alive() { kill -0 "$1" 2>/dev/null; }

step "set-up"
echo "kernel $(uname -r); $(systemctl --version | head -1); cgroup fs: $(stat -fc %T $CG)"
command -v python3 >/dev/null || echo "note: python3 missing in the guest (tests/vm/image/packages lists python3)"
# The host leaves an orphaned grandchild behind (a subshell's background sleep), which
# only a whole-cgroup kill catches. The hog allocates 64 MiB under a 16 MiB limit.
install_daemon <<'TOML'
[supervisor]
runtime_dir = "/run/extensiond"
state_dir = "/var/lib/extensiond"
memory_budget = "256M"

[hosts.panel]
command = ["/bin/sh", "-c", "(sleep 100000 &); exec sleep 100001"]
memory_max = "64M"
memory_low = "32M"

[apps."demo.app"]
command = ["/bin/sleep", "100002"]
groups = ["group.demo"]

[extensions."demo.widget"]
app = "demo.app"
point = "widget"
command = ["/usr/local/bin/DemoWidget"]
memory_max = "16M"
start_timeout = "30s"
idle_exit = "10m"

[extensions."demo.hog"]
app = "demo.app"
point = "widget"
command = ["/usr/bin/python3", "-c", "import time; hog = b'x' * (64 << 20); time.sleep(60)"]
memory_max = "16M"
start_timeout = "60s"
TOML
check "extensiond --check-config accepts the test config" /usr/local/bin/extensiond --check-config --config /etc/extensiond/extensiond.toml
check "systemd-analyze verify accepts the unit" systemd-analyze verify --man=no /etc/systemd/system/extensiond.service

step "start (Type=notify)"
systemd-analyze log-level debug   # so that the journal shows the sd_notify messages systemd received
mark=$(journal_mark)
start_ms=$(( $(date +%s%N) / 1000000 ))
check "systemctl start extensiond returns success" systemctl start "$SERVICE"
echo "systemctl start took $(( $(date +%s%N) / 1000000 - start_ms )) ms"
state=$(unit ActiveState)
# READY=1 is sent only once control.sock accepts: it must answer at once.
supervisorctl version >/tmp/version.out 2>&1; version_rc=$?
systemd-analyze log-level info
expect "ActiveState right after start" "$state" active
expect "unit Type" "$(unit Type)" notify
expect "supervisorctl version answers as soon as start returned (exit code)" "$version_rc" 0
sed 's/^/    /' /tmp/version.out
log=$(journal_since "$mark")
main_pid=$(unit MainPID)
check "systemd received READY=1 from the main pid $main_pid" grep -Eq "notification message from PID $main_pid .*READY=1" <<<"$log"
ready_line=$(grep -nE "notification message from PID $main_pid .*READY=1" <<<"$log" | head -1 | cut -d: -f1)
started_line=$(grep -n "Started extensiond.service" <<<"$log" | head -1 | cut -d: -f1)
check "the unit became active only after READY=1 (journal order)" test -n "$ready_line" -a -n "$started_line" -a "${ready_line:-0}" -lt "${started_line:-0}"
check "the daemon started its watchdog (WatchdogSec=30s)" grep -q 'watchdog=true' <<<"$log"

step "status, version, backend"
status_text=$(unit StatusText)
expect "StatusText is the daemon's summary" "$status_text" "1 hosts, 1 apps, 2 extensions; 1 running"
version_json=$(control_json version 2>&1)
echo "    control.sock version: $version_json"
check "the daemon reports cgroupBackend v2 in version" grep -q '"cgroupBackend":"v2"' <<<"$version_json"
check "the journal names backend v2" grep -q 'backend=v2' <<<"$log"
supervisorctl status >/tmp/status.out 2>&1; expect "supervisorctl status exit code" "$?" 0
sed 's/^/    /' /tmp/status.out
check "status lists panel running" grep -Eq '^panel +host +running' /tmp/status.out

step "cgroup tree (Delegate=yes, no internal processes)"
root=$(service_cgroup)
echo "service cgroup: $root"
for sub in supervisor supervised supervised/hosts supervised/apps supervised/extensions; do
    check "$sub/ exists below the service cgroup" test -d "$root/$sub"
done
check "the daemon (pid $main_pid) is in supervisor/cgroup.procs" grep -qx "$main_pid" "$root/supervisor/cgroup.procs"
expect "no process left in the service cgroup itself" "$(group_pids "$root" | wc -l)" 0
check "memory is enabled for the service cgroup's children" grep -qw memory "$root/cgroup.subtree_control"
check "memory is enabled below supervised/" grep -qw memory "$root/supervised/cgroup.subtree_control"
check "memory is enabled below extensions/" grep -qw memory "$root/supervised/extensions/cgroup.subtree_control"
# systemd owns the service cgroup's own limits (it resets them on daemon-reload): the
# daemon leaves them alone and says so; MemoryMax= in a drop-in is the backstop there.
expect "the daemon leaves the service cgroup's memory.max to systemd" "$(cat "$root/memory.max" 2>&1)" max
expect "the daemon says why it set no hard limit" \
    "$(journalctl -u extensiond --no-pager | grep -c 'systemd owns the service' )" 1
# The throttle where the tree reaches pressure.low, which makes the kernel count "high"
# events in supervised/memory.events: on supervised/ (hosts, apps, extensions), at low less
# what the tree holds outside it (the daemon), so that the kernel never stalls the daemon
# there. The unit's MemoryHigh= (over D-Bus) is only a backstop at the budget.
pressure_json=$(supervisorctl --json pressure 2>/dev/null)
field() { python3 -c 'import json, sys; print(json.load(sys.stdin)["pressure"][sys.argv[1]])' "$1" <<<"$pressure_json" 2>&1; }
low=$(field lowBytes)
budget=$(field budgetBytes)
page=$(getconf PAGESIZE)
echo "pressure.low of memory_budget: $low bytes; the budget: $budget bytes"
throttle=$(cat "$root/supervised/memory.high" 2>&1)
outside=$(( $(cat "$root/memory.current") - $(cat "$root/supervised/memory.current") ))
echo "supervised/memory.high: $throttle; outside supervised/ now: $outside bytes"
# The daemon moves the throttle only once what is outside moved by more than 1 MiB, after
# an episode or a burst: allow a few MiB of drift since.
drift=$(( ${throttle:-0} - (${low:-0} - outside) )); drift=${drift#-}
check "supervised/ memory.high is pressure.low less what is outside supervised/ (off by $drift bytes)" \
    test "${throttle:-max}" != max -a "${throttle:-0}" -lt "${low:-0}" -a "$drift" -le $(( 4 << 20 ))
check "supervisorctl pressure lists the throttle on supervised" sh -c 'supervisorctl pressure | grep -q "memory.high of supervised"'
expect "the unit's MemoryHigh= is the budget, set by the daemon over D-Bus" "$(unit MemoryHigh)" "$budget"
expect "the service cgroup's memory.high is the budget (whole pages)" "$(cat "$root/memory.high" 2>&1)" $(( ${budget:-0} / page * page ))
check "supervisorctl pressure lists the unit's MemoryHigh= backstop" \
    sh -c 'supervisorctl pressure | grep -q "MemoryHigh= of extensiond.service at the budget"'
# Read back from the kernel: the daemon's group and every group above it up to the
# service cgroup hold only the backstop (the service cgroup) or nothing, and the daemon's
# group is not below supervised/.
daemon_group=/sys/fs/cgroup$(sed -n 's/^0:://p' "/proc/$main_pid/cgroup")
expect "the daemon's own cgroup" "$daemon_group" "$root/supervisor"
case "$daemon_group/" in "$root/supervised/"*) fail "the daemon is outside the throttled supervised/";; *) pass "the daemon is outside the throttled supervised/";; esac
throttles_above=""
group=$daemon_group
while [ "${#group}" -ge "${#root}" ]; do
    throttles_above="$throttles_above ${group#"$root"}=$(cat "$group/memory.high")"
    group=${group%/*}
done
expect "memory.high of the daemon's group and those above it to the service cgroup" \
    "$throttles_above" " /supervisor=max =$(( ${budget:-0} / page * page ))"
systemctl daemon-reload
# The daemon may have moved it since, after a burst (it follows what is outside supervised/).
throttle=$(cat "$root/supervised/memory.high" 2>&1)
check "supervised/ memory.high still set after systemctl daemon-reload ($throttle)" \
    test "${throttle:-max}" != max -a "${throttle:-0}" -lt "${low:-0}" -a "${throttle:-0}" -gt $(( ${low:-0} - (64 << 20) ))
expect "the service cgroup's memory.high after systemctl daemon-reload" "$(cat "$root/memory.high" 2>&1)" $(( ${budget:-0} / page * page ))
expect "memory.max of the service cgroup after systemctl daemon-reload" "$(cat "$root/memory.max" 2>&1)" max
host=$root/supervised/hosts/panel
check "the host runs in hosts/panel" test -n "$(group_pids "$host")"
expect "hosts/panel memory.max (64M)" "$(cat "$host/memory.max" 2>&1)" 67108864
# The kernel prefers extension memory: hosts protected by their memory_low, extensions
# throttled at the warn watermark (75% of the budget by default), below low.
expect "hosts/panel memory.low (its memory_low, 32M)" "$(cat "$host/memory.low" 2>&1)" 33554432
expect "hosts/ memory.low (the hosts' memory_low summed)" "$(cat "$root/supervised/hosts/memory.low" 2>&1)" 33554432
warn=$(supervisorctl --json pressure 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["pressure"]["warnBytes"])' 2>&1)
page_warn=$(( ${warn:-0} / $(getconf PAGESIZE) * $(getconf PAGESIZE) ))
expect "extensions/ memory.high at the warn watermark" "$(cat "$root/supervised/extensions/memory.high" 2>&1)" "$page_warn"
host_pids=$(group_pids "$host" | tr '\n' ' ')
echo "host pids: $host_pids"
expect "hosts/panel holds the host and its orphaned grandchild" "$(group_pids "$host" | wc -l)" 2

step "hardening (OOMScoreAdjust=, systemd-analyze security)"
expect "the daemon's oom_score_adj (OOMScoreAdjust=)" "$(cat /proc/"$main_pid"/oom_score_adj 2>&1)" -900
for pid in $host_pids; do
    expect "host process $pid is spawned at oom_score_adj 0, not the daemon's" "$(cat /proc/"$pid"/oom_score_adj 2>&1)" 0
done
expect "the daemon's nice (Nice=)" "$(ps -o ni= -p "$main_pid" | tr -d ' ')" -10
# The reaper thread (process_mrelease after a kill) starts before the daemon sets
# SCHED_RESET_ON_FORK and keeps the unit's nice with the loop; its other threads run at 0.
expect "the daemon's threads at nice -10: the loop and the reaper" \
    "$(ps -L -o ni= -p "$main_pid" | tr -d ' ' | grep -cx -- -10)" 2
for pid in $host_pids; do
    expect "host process $pid runs at nice 0 (SCHED_RESET_ON_FORK), not the daemon's" "$(ps -o ni= -p "$pid" | tr -d ' ')" 0
done
check "the daemon did not report reset-on-fork refused" sh -c '! journalctl -u extensiond --no-pager | grep -q "reset-on-fork refused"'
exposure=$(systemd-analyze security extensiond 2>/dev/null | sed -n 's/.*Overall exposure level for extensiond.service: \([0-9.]*\).*/\1/p')
check "systemd-analyze security rates the running unit at most 5.0 ($exposure)" \
    awk -v e="${exposure:-99}" 'BEGIN { exit !(e <= 5.0) }'

step "an extension on demand: DemoWidget"
supervisorctl start demo.widget >/tmp/start.out 2>&1; expect "supervisorctl start demo.widget exit code" "$?" 0
sed 's/^/    /' /tmp/start.out
widget=$root/supervised/extensions/demo.widget
check "the widget runs in extensions/demo.widget" wait_until 20 '[ -n "$(group_pids "$widget")" ]'
widget_pid=$(group_pids "$widget" | head -1)
expect "extensions/demo.widget memory.max (16M)" "$(cat "$widget/memory.max" 2>&1)" 16777216
expect "the widget's oom_score_adj" "$(cat /proc/"${widget_pid:-0}"/oom_score_adj 2>&1)" 1000
expect "the widget's nice" "$(ps -o ni= -p "${widget_pid:-0}" | tr -d ' ')" 0
check "status shows demo.widget up (running, idle or suspended, with its pid)" wait_for 20 sh -c 'supervisorctl status demo.widget | grep -Eq "^demo\.widget +extension +(running|idle|suspended)(, (visible|hidden))? +[0-9]"'
supervisorctl status demo.widget 2>&1 | sed 's/^/    /'

step "an extension past memory_max is OOM-killed in its own cgroup"
if command -v python3 >/dev/null; then
    host_main=$(group_pids "$host" | sort -n | tail -1)
    supervisorctl start demo.hog >/tmp/start.out 2>&1
    echo "    supervisorctl start demo.hog: exit $? $(cat /tmp/start.out)"
    oom_seen() { supervisorctl events -n 200 2>/dev/null | grep -E 'demo\.hog' | grep -q '\[oom\]'; }
    check "supervisorctl events shows demo.hog with reason oom" wait_for 60 oom_seen
    supervisorctl events -n 200 2>&1 | grep -E 'demo\.hog' | sed 's/^/    /'
    check "the kernel's OOM kill was confined to extensions/demo.hog" sh -c "journalctl -k --no-pager | grep -q 'oom_memcg=.*/supervised/extensions/demo.hog'"
    # The daemon's own structured entry for it (Sources/Supervisor/EventJournal.swift).
    oom_entry() { journalctl --no-pager -q -u extensiond MESSAGE_ID=376308d45b9d44108f111f8ed08b8959 EXTENSIOND_PROCESS=demo.hog | grep -q .; }
    check "journalctl MESSAGE_ID=<oom> EXTENSIOND_PROCESS=demo.hog shows the OOM kill" wait_for 10 oom_entry
    journalctl -k --no-pager | grep -E 'oom-kill:|Memory cgroup out of memory' | tail -2 | sed 's/^/    /'
    check "the host survived (its processes are alive)" sh -c "for p in $host_pids; do kill -0 \$p || exit 1; done"
    expect "the service is still active" "$(unit ActiveState)" active
    expect "the daemon is still the same process" "$(unit MainPID)" "$main_pid"
    check "the widget survived" alive "$widget_pid"
else
    fail "python3 is missing in the guest: the OOM check needs it (tests/vm/image/packages lists python3)"
fi

reloads() { supervisorctl events -n 500 2>/dev/null | grep -c ' reload '; }
step "systemctl reload (ExecReload=, SIGHUP)"
before=$(reloads)
mark=$(journal_mark)
if systemctl reload "$SERVICE"; then
    pass "systemctl reload extensiond succeeds"
else
    fail "systemctl reload extensiond succeeds; the journal says:"
    journal_since "$mark" | sed 's/^/    /'
fi
check "the daemon reloaded (a new reload event)" wait_until 5 '[ "$(reloads)" -gt "$before" ]'
expect "ActiveState after systemctl reload" "$(unit ActiveState)" active
# The daemon's SIGHUP handling itself, whatever ExecReload= runs.
before=$(reloads)
systemctl kill --kill-who=main -s SIGHUP "$SERVICE"
check "SIGHUP to the main process reloads (a new reload event)" wait_until 10 '[ "$(reloads)" -gt "$before" ]'
supervisorctl events -n 500 2>&1 | grep ' reload ' | sed 's/^/    /'
expect "ActiveState after SIGHUP" "$(unit ActiveState)" active
expect "MainPID after the reloads" "$(unit MainPID)" "$main_pid"
check "the host kept running across the reloads" sh -c "for p in $host_pids; do kill -0 \$p || exit 1; done"

step "stopping a host kills its orphaned grandchild (cgroup.kill)"
supervisorctl stop panel >/tmp/stop.out 2>&1; expect "supervisorctl stop panel exit code" "$?" 0
sed 's/^/    /' /tmp/stop.out
check "hosts/panel is removed" wait_for 10 test ! -e "$host"
check "every process of the host is gone, grandchild included" wait_for 5 sh -c "for p in $host_pids; do kill -0 \$p 2>/dev/null && exit 1; done; exit 0"
supervisorctl start panel >/dev/null 2>&1
check "the host starts again" wait_until 20 '[ -n "$(group_pids "$host")" ]'
host_pids=$(group_pids "$host" | tr '\n' ' ')

step "systemctl stop"
systemd-analyze log-level debug
mark=$(journal_mark)
check "systemctl stop extensiond succeeds" systemctl stop "$SERVICE"
systemd-analyze log-level info
log=$(journal_since "$mark")
expect "ActiveState after stop" "$(unit ActiveState)" inactive
expect "Result after stop" "$(unit Result)" success
check "systemd received STOPPING=1 from the daemon" grep -Eq "notification message from PID $main_pid .*STOPPING=1" <<<"$log"
check "the daemon logged that it is stopping" grep -q stopping <<<"$log"
check "systemd had to SIGKILL nothing (the daemon stopped its children itself)" sh -c "! grep -q 'Killing process' <<'LOG'
$log
LOG"
leftover=$(find "$root" -mindepth 1 -type d 2>/dev/null)
expect "no cgroups left under the service cgroup" "${leftover:-none}" none
check "no process of the old run is alive" sh -c "for p in $host_pids $widget_pid $main_pid; do kill -0 \$p 2>/dev/null && exit 1; done; exit 0"

step "stale groups in the delegated cgroup are cleaned at start"
# A predecessor's leftovers cannot survive systemd's own clean-up between runs, so a
# runtime drop-in plants one before the daemon starts: extensions/stale.test with a
# process inside (the subtree has no controllers yet, so the process may live there). Its
# pid goes to the state directory: ProtectSystem=strict leaves little else writable.
mkdir -p /run/systemd/system/extensiond.service.d
cat > /run/systemd/system/extensiond.service.d/stale.conf <<CONF
[Service]
ExecStartPre=/bin/sh -c 'mkdir -p $root/supervised/extensions/stale.test && { sleep 100003 & echo \$! > $root/supervised/extensions/stale.test/cgroup.procs; echo \$! > /var/lib/extensiond/stale.pid; }'
CONF
systemctl daemon-reload
mark=$(journal_mark)
check "systemctl start extensiond with a planted stale group" systemctl start "$SERVICE"
stale_pid=$(cat /var/lib/extensiond/stale.pid 2>/dev/null)
echo "planted stale pid: ${stale_pid:-none}"
check "the stale group's process is killed" wait_for 5 sh -c "! kill -0 ${stale_pid:-0} 2>/dev/null"
check "extensions/stale.test is removed" test ! -e "$root/supervised/extensions/stale.test"
check "the clean-up is in the event log" sh -c 'supervisorctl events -n 500 | grep -q "cleanup stale.test"'
supervisorctl events -n 500 2>&1 | grep cleanup | sed 's/^/    /'
rm -rf /run/systemd/system/extensiond.service.d
systemctl daemon-reload
systemctl stop "$SERVICE"

step "SIGKILL the daemon, then start again"
check "systemctl start extensiond (again)" systemctl start "$SERVICE"
main_pid=$(unit MainPID)
wait_until 20 '[ -n "$(group_pids "$host")" ]'
host_pids=$(group_pids "$host" | tr '\n' ' ')
supervisorctl start demo.widget >/dev/null 2>&1
wait_until 20 '[ -n "$(group_pids "$widget")" ]'
old_pids="$main_pid $host_pids $(group_pids "$widget" | tr '\n' ' ')"
echo "pids before the kill: $old_pids"
mark=$(journal_mark)
# Only the daemon, as a crash would: its children are left to systemd and the next start.
check "systemctl kill --kill-who=main -s SIGKILL extensiond" systemctl kill --kill-who=main -s SIGKILL "$SERVICE"
check "systemd restarts the service (Restart=on-failure)" wait_for 30 sh -c '[ "$(systemctl show -P ActiveState extensiond)" = active ] && [ "$(systemctl show -P MainPID extensiond)" != '"$main_pid"' ]'
new_pid=$(unit MainPID)
echo "new MainPID $new_pid, NRestarts $(unit NRestarts)"
check "no process of the killed run survived" sh -c "for p in $old_pids; do kill -0 \$p 2>/dev/null && exit 1; done; exit 0"
check "the new daemon is in supervisor/cgroup.procs" grep -qx "$new_pid" "$root/supervisor/cgroup.procs"
check "the host runs again in a fresh hosts/panel" wait_until 20 '[ -n "$(group_pids "$host")" ]'
subgroups() { find "$1" -mindepth 1 -maxdepth 1 -type d -printf '%f ' 2>/dev/null; }
expect "no stale extension groups (nothing started on demand yet)" "$(subgroups "$root/extensions")" ""
expect "hosts/ holds only the fresh panel group" "$(subgroups "$root/supervised/hosts")" "panel "
expect "StatusText after the restart" "$(unit StatusText)" "1 hosts, 1 apps, 2 extensions; 1 running"
journal_since "$mark" | grep -iE 'stale|cleanup' | sed 's/^/    /'
systemctl stop "$SERVICE"

step "journal (last 50 lines)"
journalctl -u "$SERVICE" --no-pager | tail -50

summary
