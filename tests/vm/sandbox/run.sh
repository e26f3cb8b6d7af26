#!/bin/bash
# sandbox: an extension reaches only what is its own, under the shipped unit (systemd as
# PID 1, cgroup v2), inside the VM of tests/vm/boot. The same probe and expected outcomes
# as Tests/IntegrationTests/SandboxTests.swift (tests/sandbox/, staged as /test/sandbox).
#
# App `a` has group.a and the widget a.widget, which writes secrets into its data
# directory and group container; app `b` has group.b, writes a greeting into it, and has
# b.probe (sandboxed, network off) and b.open (sandbox off), both running probe.py.
set -u
cd /test
. /test/lib/checks.sh
. /test/lib/daemon.sh

STATE=/var/lib/extensiond
# Outside every directory the sandbox grants: the probe's directory holds the setuid copy
# of id(1); its parent holds secret_keeper.py, which only a.widget may read.
HERE=/opt/sandbox-test/probe
mkdir -p "$HERE"
install -m 0644 sandbox/secret_keeper.py sandbox/greeting_app.py sandbox/url_app.py sandbox/greeting_widget.py /opt/sandbox-test/
install -m 0644 sandbox/probe.py "$HERE/"
printf '#!/bin/sh\nexec /usr/bin/python3 -S %s/probe.py "$@"\n' "$HERE" >"$HERE/run"
chmod 0755 "$HERE/run"
install -m 4755 /usr/bin/id "$HERE/setuid-id"

step "set-up"
# The guest has no network card: a dummy link shows which processes see the host's links.
modprobe dummy numdummies=1
check "the guest has a link besides lo (dummy0)" test -e /sys/class/net/dummy0
# A member of control_group for the SO_PEERCRED checks of control.sock.
groupadd -f extensiond-readers
id reader >/dev/null 2>&1 || useradd -M -N -g extensiond-readers -s /bin/sh reader
install_daemon <<TOML
[supervisor]
runtime_dir = "/run/extensiond"
state_dir = "$STATE"
control_group = "extensiond-readers"

[apps.a]
command = ["/bin/sleep", "100000"]
groups = ["group.a"]

[apps.b]
command = ["/usr/bin/python3", "-S", "/opt/sandbox-test/greeting_app.py"]
groups = ["group.b"]
autostart = true

[apps.c]
command = ["/usr/bin/python3", "-S", "/opt/sandbox-test/url_app.py"]
groups = ["group.c"]
url_schemes = ["c"]

[apps.d]
command = ["/usr/bin/python3", "-S", "/opt/sandbox-test/url_app.py", "d.widget"]
groups = ["group.d"]
url_schemes = ["d"]
autostart = true

[extensions."d.widget"]
app = "d"
point = "widget"
command = ["/usr/bin/python3", "-S", "/opt/sandbox-test/greeting_widget.py"]
start_timeout = "60s"
# One token: the app's second reload is refused.
refresh = { daily_budget = 1, budget_burst = 1 }

[extensions."a.widget"]
app = "a"
point = "widget"
command = ["/usr/bin/python3", "-S", "/opt/sandbox-test/secret_keeper.py"]
start_timeout = "60s"

[extensions."b.probe"]
app = "b"
point = "widget"
command = ["$HERE/run", "$STATE", "$HERE"]
start_timeout = "60s"
sandbox = { network = false }

[extensions."b.open"]
app = "b"
point = "widget"
command = ["$HERE/run", "$STATE", "$HERE"]
start_timeout = "60s"
sandbox = { enabled = false }
TOML
check "systemctl start extensiond" systemctl start "$SERVICE"
version=$(supervisorctl --json version 2>&1)
check "the daemon runs the v2 backend" grep -q '"cgroupBackend" *: *"v2"' <<<"$version"
check "a's shared default is set" supervisorctl defaults group.a set token '"a'"'"'s token"'

# pull ID: the snapshot of a pull, as JSON on one line ({} when there is none).
pull() {
    supervisorctl --json pull "$1" 2>/dev/null | python3 -c 'import json, sys; print(json.dumps((json.load(sys.stdin).get("pull") or {}).get("snapshot") or {}))'
}
# field JSON KEY: one value of a snapshot, as JSON.
field() { python3 -c 'import json, sys; print(json.dumps(json.loads(sys.argv[1]).get(sys.argv[2])))' "$1" "$2"; }

step "pulls"
keeper=$(pull a.widget)
echo "    a.widget: $keeper"
check "a.widget answered" test "$keeper" != "{}"
check "app b wrote its greeting into group.b" wait_for 60 test -f "$STATE/groups/group.b/greeting"
probe=$(pull b.probe)
echo "    b.probe: $probe"
check "b.probe answered (it kept running after the denied calls)" test "$probe" != "{}"

step "identities"
identity() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$STATE/identities.json" "$1" 2>/dev/null; }
uid_a=$(identity app:a); uid_b=$(identity app:b); gid_b=$(identity group:group.b)
echo "    app:a $uid_a, app:b $uid_b, group:group.b $gid_b"
check "app b has a uid of its own in 61000-61999" test "${uid_b:-0}" -ge 61000 -a "${uid_b:-0}" -le 61999 -a "${uid_b:-0}" != "${uid_a:-0}"
expect "a.widget runs as app a's uid" "$(field "$keeper" uid)" "${uid_a:-none}"
expect "b.probe runs as app b's uid" "$(field "$probe" uid)" "${uid_b:-none}"
expect "b.probe's gid is app b's" "$(field "$probe" gid)" "${uid_b:-none}"
expect "b.probe's supplementary groups: its own and group.b's" "$(field "$probe" groups)" \
    "$(python3 -c 'import json, sys; print(json.dumps(sorted(map(int, sys.argv[1:]))))' "${uid_b:-0}" "${gid_b:-0}")"
expect "EXTENSIOND_DATA_DIR" "$(field "$probe" dataDir)" "\"$STATE/data/b.probe\""
expect "TMPDIR inside it" "$(field "$probe" tmpdir)" "\"$STATE/data/b.probe/tmp\""
expect "the data directory is b.probe's uid's, mode 0700" "$(stat -c '%u %a' "$STATE/data/b.probe")" "${uid_b:-none} 700"
expect "group.b's container is root:group.b, mode 2770" "$(stat -c '%u %g %a' "$STATE/groups/group.b")" "0 ${gid_b:-none} 2770"

step "what the sandboxed probe reached (tests/sandbox/expected.json)"
# One line per expected key: KEY, what the probe reported, what it should have.
while IFS=$'\t' read -r key got want; do
    expect "b.probe: $key" "$got" "$want"
done < <(python3 - "$probe" sandbox/expected.json <<'PY'
import json, sys
probe, expected = json.loads(sys.argv[1]), json.load(open(sys.argv[2]))["sandboxed"]
for key, want in expected.items():
    print("%s\t%s\t%s" % (key, json.dumps(probe.get(key)), json.dumps(want)))
PY
)
expect "b.probe: no privilege through a setuid binary (id -u)" "$(field "$probe" setuid)" "\"${uid_b:-none}\""

step "the walls above are the sandbox's: b.open, sandbox off"
open=$(pull b.open)
echo "    b.open: $open"
check "b.open answered" test "$open" != "{}"
check "b.open reads outside its directories" test "$(field "$open" outside)" != '"EACCES"'
expect "b.open sees the guest's interfaces (no network namespace)" "$(field "$open" interfaces)" '["dummy0", "lo"]'
expect "a's data directory is a's alone even without the sandbox" "$(field "$open" otherData)" '"EACCES"'

step "cgroups stay closed (v2)"
root=$(service_cgroup)
for path in "$root/supervised/extensions/b.probe" "$root/supervised/extensions/b.probe/cgroup.procs" "$root/supervised/extensions/b.probe/memory.max" \
        "$root/supervised/extensions/b.probe/cgroup.subtree_control" "$root/supervised/extensions/cgroup.procs" "$root/cgroup.procs" "/sys/fs/cgroup/cgroup.procs"; do
    read -r owner mode < <(stat -c '%u %a' "$path" 2>/dev/null)
    check "$path is root's and writable by nobody else (uid ${owner:-?}, mode ${mode:-?})" \
        test "${owner:-?}" = 0 -a $(( 8#${mode:-777} & 8#022 )) -eq 0
done
probe_pid=$(head -1 "$root/supervised/extensions/b.probe/cgroup.procs" 2>/dev/null)
check "b.probe is still in extensions/b.probe" test -n "$probe_pid"
expect "b.probe's Seccomp and NoNewPrivs" "$(grep -E '^(NoNewPrivs|Seccomp):' /proc/"${probe_pid:-0}"/status 2>&1 | tr -s '\t\n' '  ')" "NoNewPrivs: 1 Seccomp: 2 "

step "openURL goes to the app that owns the scheme, in order, and to no other app"
check "app d is connected" wait_for 30 grep -q '^argv' "$STATE/groups/group.d/urls.log"
supervisorctl open c://first >/dev/null 2>&1; expect "open c://first (c is not running: launched with it)" "$?" 0
supervisorctl open c://second >/dev/null 2>&1; expect "open c://second (while c starts: queued)" "$?" 0
check "c received c://second over host.sock" wait_for 30 grep -q 'c://second' "$STATE/groups/group.c/urls.log"
expect "c's URLs, in order" "$(grep -o 'c://[a-z]*' "$STATE/groups/group.c/urls.log" | tr '\n' ' ')" "c://first c://second "
check "d never heard c's URLs" sh -c "! grep -q 'c://' '$STATE/groups/group.d/urls.log'"

step "the containing app's side of host.sock: its own groups, not another app's widgets"
expect "app d set a shared default of group.d" "$(supervisorctl defaults group.d get greeting 2>&1)" '"hi"'
check "app d may not hide a's widget (the error for request 2 names the rule)" \
    sh -c "grep '\"id\":2' '$STATE/groups/group.d/urls.log' | grep -q 'may use only its own extensions; a.widget belongs to app a'"

# What a host's `list` says of d.widget's hasContent.
has_content() {
    python3 -c 'import json, socket
s = socket.socket(socket.AF_UNIX); s.connect("/run/extensiond/host.sock")
s.sendall(b"{\"type\":\"list\",\"id\":1}\n")
answer = json.loads(s.makefile("rb").readline())
print([e["hasContent"] for e in answer.get("extensions", []) if e["id"] == "d.widget"])' 2>&1
}
hidden() { [ "$(has_content)" = "[False]" ]; }
reload_scheduled() { grep '"id":3' "$STATE/groups/group.d/urls.log" | grep -q '"scheduled":\["d.widget"\]'; }
reload_refused() { grep '"id":5' "$STATE/groups/group.d/urls.log" | grep -q '"refused":\["d.widget"\]'; }
check "app d's reloadExtensions scheduled its widget" wait_for 30 reload_scheduled
check "app d's second reload is refused: its widget's budget is spent" wait_for 30 reload_refused
grep -E '"id":(3|5)' "$STATE/groups/group.d/urls.log" | sed 's/^/    /'
check "the reload updated d.widget" wait_for 60 test -s "$STATE/groups/group.d/updates.log"
expect "d.widget reads the greeting its app set in group.d" "$(field "$(pull d.widget)" greeting)" '"hi"'
check "app d hid its widget (setHasContent false)" wait_for 10 hidden
systemctl restart "$SERVICE"
check "still hidden after a restart of the daemon (the app does not say it again)" wait_for 10 hidden
echo "    d.widget hasContent: $(has_content)"

step "control.sock: reading for control_group, changing for root (SO_PEERCRED)"
expect "control.sock is root:extensiond-readers, mode 0660" "$(stat -c '%U:%G %a' /run/extensiond/control.sock)" "root:extensiond-readers 660"
runuser -u reader -- supervisorctl version >/tmp/reader.out 2>&1; expect "a control_group member may run version" "$?" 0
runuser -u reader -- supervisorctl status >/tmp/reader.out 2>&1
check "a control_group member may run status (exit $?, not 4: some are stopped)" grep -q "b.probe" /tmp/reader.out
runuser -u reader -- supervisorctl stop d >/tmp/reader.out 2>&1; expect "a control_group member may not stop (exit 4)" "$?" 4
check "the refusal names the rule" grep -q "admin_group" /tmp/reader.out
runuser -u nobody -- supervisorctl version >/tmp/nobody.out 2>&1; check "anyone else cannot connect at all" test "$?" -ne 0
supervisorctl stop d >/dev/null 2>&1; expect "root may stop" "$?" 0

step "without Landlock a sandboxed extension is refused, and status says why"
mkdir -p /run/systemd/system/extensiond.service.d
printf '[Service]\nEnvironment=EXTENSIOND_LANDLOCK_ABI=0\n' >/run/systemd/system/extensiond.service.d/no-landlock.conf
systemctl daemon-reload
systemctl restart "$SERVICE"
# `start`: a pull would be answered from the snapshot the probe left before the restart.
supervisorctl start b.probe 2>&1 | sed 's/^/    start: /'
check "status b.probe says Landlock is not available" wait_for 10 sh -c 'supervisorctl status b.probe | grep -q "Landlock is not available"'
echo "    $(systemctl show -p Environment "$SERVICE")"
supervisorctl status b.probe 2>&1 | sed 's/^/    /'
rm -f /run/systemd/system/extensiond.service.d/no-landlock.conf
systemctl daemon-reload

systemctl stop "$SERVICE"
echo
journalctl -u "$SERVICE" --no-pager | tail -30
summary
