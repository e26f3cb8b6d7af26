#!/bin/bash
# systemd: the daemon's libsystemd integration under a real systemd (PID 1), inside the VM
# of tests/vm/boot: it links libseccomp and loads libsystemd; READY/STATUS/WATCHDOG through
# sd_notify; socket activation (extensiond.socket) serves 50 clients that connect during
# `systemctl restart extensiond`; `systemctl reload` fails on a broken drop-in and says
# what waits for a restart; MemoryHigh= (a backstop at the budget) is set over D-Bus with no
# systemctl on PATH, and lifted by a reload that removes the budget.
#
# Runs as root in the throw-away VM with /test holding this file, bin/extensiond,
# bin/supervisorctl, bin/DemoWidget, extensiond.service and extensiond.socket (staged by
# scripts/vm-test).
set -u
cd /test
. /test/lib/checks.sh
. /test/lib/daemon.sh

inode() { stat -c %i "$1" 2>/dev/null; }

step "set-up: no systemctl on the daemon's PATH, a memory budget"
# runtime_dir and state_dir are the defaults, the paths extensiond.socket names.
install_daemon <<'TOML'
[supervisor]
memory_budget = "256M"

[hosts.panel]
command = ["/bin/sleep", "infinity"]
autostart = true
TOML
mkdir -p /etc/systemd/system/extensiond.service.d
# The daemon must reach systemd itself (sd-bus), not through a systemctl it runs.
printf '[Service]\nEnvironment=PATH=/usr/local/bin\n' >/etc/systemd/system/extensiond.service.d/path.conf
systemctl daemon-reload

step "linked libraries"
check "ldd shows libseccomp" sh -c 'ldd /usr/local/bin/extensiond | grep -q "libseccomp.so.2 => /"'
# libsystemd is loaded at its first use (dlopen), not linked.
check "ldd does not show libsystemd" sh -c '! ldd /usr/local/bin/extensiond | grep -q "libsystemd.so.0"'

step "notify and watchdog (Type=notify, WatchdogSec=30s)"
check "systemctl start extensiond returns once READY=1 came" systemctl start "$SERVICE"
check "the service loaded libsystemd" sh -c "grep -q 'libsystemd.so.0' /proc/\$(systemctl show -P MainPID $SERVICE)/maps"
expect "ActiveState" "$(unit ActiveState)" active
check "STATUS= reached systemd" sh -c "systemctl show -P StatusText $SERVICE | grep -q 'hosts, .* running'"
# The daemon pings between a half and three quarters of the interval: 15 to 22.5 s.
first=$(unit WatchdogTimestampMonotonic)
check "a first WATCHDOG=1 within 25 s" wait_until 25 '[ "$(unit WatchdogTimestampMonotonic)" != "$first" ]'
second=$(unit WatchdogTimestampMonotonic)
check "and another one within 25 s" wait_until 25 '[ "$(unit WatchdogTimestampMonotonic)" != "$second" ]'

step "MemoryHigh= over D-Bus: a backstop at the budget; the throttle on supervised/"
pressure_json=$(supervisorctl --json pressure 2>/dev/null)
field() { python3 -c 'import json, sys; print(json.load(sys.stdin)["pressure"][sys.argv[1]])' "$1" <<<"$pressure_json" 2>&1; }
low=$(field lowBytes)
budget=$(field budgetBytes)
root=$(service_cgroup)
expect "MemoryHigh= is the budget, set by the daemon without systemctl" "$(unit MemoryHigh)" "$budget"
throttle=$(cat "$root/supervised/memory.high" 2>&1)
check "supervised/ memory.high is pressure.low less the daemon's few MiB ($throttle)" \
    test "${throttle:-max}" != max -a "${throttle:-0}" -lt "${low:-0}" -a "${throttle:-0}" -gt $(( ${low:-0} - (64 << 20) ))
check "no error event about systemd or a throttle" sh -c '! supervisorctl events -n 200 | grep -Eq "systemd:|memory.high of (supervised|the tree)"'
# A reload that removes memory_budget lifts what the daemon set, and one that brings it
# back sets it again.
sed -i '/^memory_budget/d' /etc/extensiond/extensiond.toml
check "systemctl reload without memory_budget" systemctl reload "$SERVICE"
expect "MemoryHigh= lifted with the budget" "$(unit MemoryHigh)" infinity
expect "supervised/ memory.high lifted with the budget" "$(cat "$root/supervised/memory.high" 2>&1)" max
sed -i 's/^\[supervisor\]$/[supervisor]\nmemory_budget = "256M"/' /etc/extensiond/extensiond.toml
check "systemctl reload with memory_budget again" systemctl reload "$SERVICE"
expect "MemoryHigh= at the budget again" "$(unit MemoryHigh)" "$budget"
check "supervised/ memory.high below low again" sh -c "test \"\$(cat $root/supervised/memory.high)\" -lt ${low:-0}"

step "systemctl reload: a broken drop-in fails, the running config stays"
mkdir -p /etc/extensiond/extensiond.d
printf '[hosts.panel]\nbogus_key = 1\n' >/etc/extensiond/extensiond.d/broken.toml
if systemctl reload "$SERVICE" 2>/tmp/reload.err; then
    fail "systemctl reload with a broken drop-in exits non-zero"
else
    pass "systemctl reload with a broken drop-in exits non-zero"
fi
check "the reason is in the unit's journal" sh -c "journalctl --sync; journalctl -u $SERVICE --no-pager | grep -q bogus_key"
expect "ActiveState after the failed reload" "$(unit ActiveState)" active
check "the running config kept panel" sh -c 'supervisorctl status panel | grep -qi running'
rm /etc/extensiond/extensiond.d/broken.toml
printf '[supervisor]\nmetrics_listen = "127.0.0.1:9464"\n' >/etc/extensiond/extensiond.d/metrics.toml
check "systemctl reload with a good config exits 0" systemctl reload "$SERVICE"
check "the reload says metrics_listen waits for a restart" sh -c \
    'supervisorctl reload | grep -q "not applied until the next start: supervisor.metrics_listen"'
rm /etc/extensiond/extensiond.d/metrics.toml
systemctl reload "$SERVICE"

step "socket activation: a restart refuses no client"
install -m 0644 /test/extensiond.socket /etc/systemd/system/extensiond.socket
systemctl daemon-reload
systemctl stop "$SERVICE"
check "systemctl start extensiond.socket" systemctl start extensiond.socket
check "systemctl start extensiond" systemctl start "$SERVICE"
control=$(inode /run/extensiond/control.sock)
host=$(inode /run/extensiond/host.sock)
check "control.sock answers" supervisorctl status panel
expect "control.sock mode (the daemon's)" "$(stat -c %a /run/extensiond/control.sock)" 660
expect "host.sock mode (the daemon's)" "$(stat -c %a /run/extensiond/host.sock)" 666
python3 - >/tmp/clients.out 2>&1 <<'PY' &
# 50 clients, one every 40 ms (2 s in all) while the daemon restarts; each sends
# `status` and waits up to 60 s for the answer.
import socket, threading, time
results = []
def client():
    try:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(60)
        s.connect("/run/extensiond/control.sock")
        s.sendall(b'{"command":"status","names":[]}\n')
        line = s.makefile().readline()
        results.append('"ok":true' in line)
    except OSError as error:
        results.append(False)
        print("client:", error)
threads = []
for _ in range(50):
    thread = threading.Thread(target=client)
    thread.start()
    threads.append(thread)
    time.sleep(0.04)
for thread in threads:
    thread.join()
print("served", sum(results), "of", len(results))
PY
clients=$!
sleep 0.3
pid=$(unit MainPID)
check "systemctl restart extensiond" systemctl restart "$SERVICE"
wait "$clients"
cat /tmp/clients.out | sed 's/^/    /'
check "all 50 clients served, none refused" grep -q "served 50 of 50" /tmp/clients.out
check "a new daemon" sh -c "[ \"\$(systemctl show -P MainPID $SERVICE)\" != $pid ]"
expect "control.sock is the same socket" "$(inode /run/extensiond/control.sock)" "$control"
expect "host.sock is the same socket" "$(inode /run/extensiond/host.sock)" "$host"
check "no socket-activation error" sh -c '! supervisorctl events -n 200 | grep -q "socket activation"'
systemctl stop "$SERVICE" extensiond.socket

echo
journalctl -u "$SERVICE" --no-pager -n 40 | sed 's/^/    /'
summary
