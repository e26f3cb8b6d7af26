#!/bin/bash
# deb: the package's whole life under systemd (PID 1) with cgroup v2, in the VM guest.
#
# /test holds the packages (built by ./stage on the host with scripts/build-deb) and
# bin/DemoWidget. Installs the Today view, the shared Swift runtime and the demo over the
# daemon's package and purges them again (the demo's Swift programs load the runtime on a
# machine without a Swift toolchain), then installs the daemon's package, proves the service it starts works (its hardened
# unit still runs a host and a sandboxed extension in their cgroups), reloads, restarts,
# upgrades over a changed conffile, installs and removes an app's own package (dpkg runs
# the package's file trigger), stops, removes and purges, checking each leaves nothing
# behind; then installs beside a supervisorctl that is not ours.
set -u
cd /test
. /test/lib/checks.sh

SERVICE=extensiond
CG=/sys/fs/cgroup
deb=$(ls /test/extensiond_*.deb)
unit() { systemctl show -P "$1" "$SERVICE"; }
installed() { [ "$(dpkg-query -W -f '${db:Status-Status}' extensiond 2>/dev/null)" = installed ]; }
group_pids() { cat "$CG$(unit ControlGroup)/$1/cgroup.procs" 2>/dev/null; }
exposure() {
    systemd-analyze security "$SERVICE" 2>/dev/null \
        | sed -n 's/.*Overall exposure level for extensiond.service: \([0-9.]*\).*/\1/p'
}

step "install: dpkg -i $(basename "$deb")"
dpkg -i "$deb" >/tmp/dpkg.out 2>&1; expect "dpkg -i exit code" "$?" 0
sed 's/^/    /' /tmp/dpkg.out
check "the package is installed" installed
check "postinst created the system group extensiond" getent group extensiond
expect "the service is enabled" "$(systemctl is-enabled "$SERVICE" 2>&1)" enabled
check "postinst started the service" wait_until 30 '[ "$(unit ActiveState)" = active ]'
expect "ExecStart runs /usr/bin/extensiond" "$(unit ExecStart | grep -o 'path=[^ ]*' | head -1)" path=/usr/bin/extensiond
for file in /usr/bin/extensiond /usr/bin/extensiondctl /usr/lib/systemd/system/extensiond.service \
        /etc/extensiond/extensiond.toml /usr/share/man/man8/extensiond.8.gz \
        /usr/share/man/man1/extensiondctl.1.gz /usr/share/man/man5/extensiond.toml.5.gz \
        /usr/share/bash-completion/completions/extensiondctl /usr/share/zsh/vendor-completions/_extensiondctl \
        /usr/share/fish/vendor_completions.d/extensiondctl.fish /usr/share/doc/extensiond/README.md.gz \
        /usr/share/doc/extensiond/copyright /usr/lib/systemd/catalog/extensiond.catalog /usr/lib/sysusers.d/extensiond.conf; do
    check "the package installed $file" test -s "$file"
done
expect "/usr/bin/supervisorctl is the extensiondctl alternative" "$(readlink -f /usr/bin/supervisorctl)" /usr/bin/extensiondctl
check "the binaries are stripped (no .symtab)" sh -c '! grep -qa "\.symtab" /usr/bin/extensiond'
check "the conffile is registered" grep -qx ' /etc/extensiond/extensiond.toml [0-9a-f]*' \
    <<<"$(dpkg-query -W -f '${Conffiles}\n' extensiond)"
check "the default config hands control.sock to the group" grep -q '^control_group = "extensiond"' /etc/extensiond/extensiond.toml
check "supervisorctl answers on the default socket" supervisorctl version
check "the state directory exists (StateDirectory=)" test -d /var/lib/extensiond
check "the runtime directory exists (RuntimeDirectory=)" test -S /run/extensiond/control.sock
score=$(exposure)
check "systemd-analyze security rates the installed unit at most 5.0 ($score)" \
    awk -v e="${score:-99}" 'BEGIN { exit !(e <= 5.0) }'
expect "the daemon's oom_score_adj" "$(cat /proc/"$(unit MainPID)"/oom_score_adj)" -900

step "the Today view, the shared Swift runtime and the demo, on a machine without Swift"
check "no Swift toolchain on this machine (/opt/swift, swift)" sh -c '! test -e /opt/swift && ! command -v swift'
extras=$(ls /test/extensiond-today_*.deb /test/extensiond-swift-runtime_*.deb /test/extensiond-demo_*.deb)
dpkg -i $extras >/tmp/dpkg.out 2>&1; expect "dpkg -i the three packages" "$?" 0
sed 's/^/    /' /tmp/dpkg.out
demo=/usr/lib/extensiond/demo/DemoWidget
runpath=$(LD_DEBUG=libs ldd "$demo" 2>&1 | grep -m1 "(RUNPATH from file $demo)")
echo "    $runpath"
check "the demo widget's RUNPATH names /usr/lib/extensiond/swift, not the build machine's toolchain" \
    sh -c 'echo "$1" | grep -q "/usr/lib/extensiond/swift" && ! echo "$1" | grep -q /opt/swift' _ "$runpath"
check "its libraries come from /usr/lib/extensiond/swift, none missing" \
    sh -c "ldd $demo | grep -q 'libswiftCore.so => /usr/lib/extensiond/swift/libswiftCore.so' && ! ldd $demo | grep -q 'not found'"
check "the drop-ins are the packages' links" test -L /etc/extensiond/extensiond.d/extensiond-demo.toml -a -L /etc/extensiond/extensiond.d/extensiond-today.toml
check "the drop-ins bring up the Today view in hosts/extensiond.today" wait_until 30 '[ -n "$(group_pids supervised/hosts/extensiond.today)" ]'
check "the Today view serves its page on 127.0.0.1:8080" wait_for 30 python3 -c \
    'import urllib.request; assert b"<html" in urllib.request.urlopen("http://127.0.0.1:8080/", timeout=5).read().lower()'
check "the demo widget answers a pull (supervisorctl pull demo.widget)" wait_for 60 supervisorctl pull demo.widget
check "the demo widget runs from the package in extensions/demo.widget" \
    wait_until 30 'grep -qx "$demo" <<<"$(readlink /proc/$(head -1 "$CG$(unit ControlGroup)/supervised/extensions/demo.widget/cgroup.procs" 2>/dev/null)/exe 2>/dev/null)"'
dpkg -P extensiond-demo extensiond-swift-runtime extensiond-today >/tmp/dpkg.out 2>&1; expect "dpkg -P the three packages" "$?" 0
check "their drop-ins are gone" test ! -e /etc/extensiond/extensiond.d/extensiond-demo.toml -a ! -e /etc/extensiond/extensiond.d/extensiond-today.toml
check "the daemon dropped the Today view and the demo widget" \
    wait_until 30 '[ ! -e "$CG$(unit ControlGroup)/supervised/hosts/extensiond.today" ] && ! supervisorctl status | grep -q demo.widget'
check "the runtime and the demo are gone (the drop-in directory is extensiond's)" test ! -e /usr/lib/extensiond/swift -a ! -e /usr/lib/extensiond/demo

step "reload: a drop-in adds a host and an extension"
install -m 0755 bin/DemoWidget /usr/local/bin/DemoWidget
cat >/etc/extensiond/extensiond.d/test.toml <<'TOML'
[hosts.panel]
command = ["/bin/sleep", "100001"]

[apps."demo.app"]
command = ["/bin/sleep", "100002"]

[extensions."demo.widget"]
app = "demo.app"
point = "widget"
command = ["/usr/local/bin/DemoWidget"]
memory_max = "16M"
start_timeout = "60s"
TOML
pid=$(unit MainPID)
check "systemctl reload succeeds" systemctl reload "$SERVICE"
check "the reload brings up the new host in hosts/panel" wait_until 30 '[ -n "$(group_pids supervised/hosts/panel)" ]'
expect "still the same daemon after the reload" "$(unit MainPID)" "$pid"
root=$CG$(unit ControlGroup)
check "supervisorctl start demo.widget" supervisorctl start demo.widget
check "the widget runs in extensions/demo.widget" \
    wait_until 60 '[ -n "$(group_pids supervised/extensions/demo.widget)" ]'
widget_pid=$(head -1 "$root/supervised/extensions/demo.widget/cgroup.procs" 2>/dev/null)
expect "the widget's oom_score_adj" "$(cat /proc/"${widget_pid:-0}"/oom_score_adj 2>&1)" 1000
expect "the widget runs with no_new_privs" "$(sed -n 's/^NoNewPrivs:\t//p' /proc/"${widget_pid:-0}"/status 2>&1)" 1
# The package's catalog, indexed by systemd's trigger: journalctl -x explains the launch.
check "journalctl -x explains the widget's launch (the catalog)" wait_until 10 \
    'journalctl -x --no-pager MESSAGE_ID=1f231bb874ca4ef4b1aac0066bb292cb | grep -q "extensiond started the process of demo.widget"'

step "restart and upgrade (the administrator's conffile stays)"
check "systemctl restart succeeds" systemctl restart "$SERVICE"
check "active after the restart" wait_until 30 '[ "$(unit ActiveState)" = active ]'
echo '# changed by the administrator' >>/etc/extensiond/extensiond.toml
pid=$(unit MainPID)
dpkg -i --force-confold "$deb" >/tmp/dpkg.out 2>&1; expect "dpkg -i over the installed package" "$?" 0
check "the upgrade restarted the service" wait_until 30 '[ "$(unit MainPID)" != "$pid" ] && [ "$(unit ActiveState)" = active ]'
check "the changed conffile was kept" grep -q 'changed by the administrator' /etc/extensiond/extensiond.toml

step "an app's own package: dpkg runs the trigger, the daemon applies its drop-in"
# A demo app's .deb as its vendor would build it: one drop-in, its manifest, in the
# packages' drop-in directory, outside /etc so no conffile (docs/CONFIG.md, "Installing an app").
check "extensiond ships the packages' drop-in directory" test -d /usr/lib/extensiond/extensiond.d
app=/tmp/notes-demo
mkdir -p "$app/DEBIAN" "$app/usr/lib/extensiond/extensiond.d"
cat >"$app/DEBIAN/control" <<'CONTROL'
Package: notes-demo
Version: 1.0
Architecture: all
Maintainer: extensiond tests <tests@example.invalid>
Description: a demo app with one widget, for extensiond's package test
CONTROL
cat >"$app/usr/lib/extensiond/extensiond.d/com.example.notes.toml" <<'TOML'
[apps."com.example.notes"]
command = ["/bin/sleep", "100003"]
url_schemes = ["notes"]

[extensions."com.example.notes.widget"]
app = "com.example.notes"
point = "widget"
command = ["/usr/local/bin/DemoWidget"]
display_name = "Notes"
TOML
check "dpkg-deb builds the app's package" dpkg-deb --root-owner-group --build "$app" /tmp/notes-demo.deb
listed() { extensiondctl status 2>/dev/null | grep -q '^com\.example\.notes\.widget '; }
trigprocs() { grep -c ' trigproc extensiond:' /var/log/dpkg.log; }
before=$(trigprocs)
dpkg -i /tmp/notes-demo.deb >/tmp/dpkg.out 2>&1; expect "dpkg -i notes-demo.deb exit code" "$?" 0
sed 's/^/    /' /tmp/dpkg.out
check "dpkg processed extensiond's trigger (its output)" grep -q '^Processing triggers for extensiond ' /tmp/dpkg.out
expect "dpkg.log records one more trigger run of extensiond" "$(trigprocs)" "$((before + 1))"
expect "no trigger is left pending" "$(dpkg-query -W -f '${db:Status-Status}' extensiond)" installed
check "the app's widget is listed" wait_for 10 listed
check "the app is supervised" sh -c 'extensiondctl status com.example.notes | grep -q "^com\.example\.notes "'
before=$(trigprocs)
# Removed, not purged: the manifest is no conffile, so it goes with the app's programs.
dpkg -r notes-demo >/tmp/dpkg.out 2>&1; expect "dpkg -r notes-demo exit code" "$?" 0
sed 's/^/    /' /tmp/dpkg.out
check "dpkg processed extensiond's trigger again" grep -q '^Processing triggers for extensiond ' /tmp/dpkg.out
expect "dpkg.log records the trigger run" "$(trigprocs)" "$((before + 1))"
check "the drop-in is gone" test ! -e /usr/lib/extensiond/extensiond.d/com.example.notes.toml
check "the app's widget is no longer listed" wait_until 10 '! listed'
check "the app is no longer supervised" wait_until 10 '! extensiondctl status com.example.notes 2>/dev/null | grep -q "^com\.example\.notes "'

step "stop"
check "systemctl stop succeeds" systemctl stop "$SERVICE"
expect "the stop's result" "$(unit Result)" success
check "nothing left in the service cgroup" test ! -e "$root/supervised/hosts/panel" -a ! -e "$root/supervised/extensions/demo.widget"
# (pgrep from this script: under `sh -c` the pattern would match that shell's own command line)
leftover=$(pgrep -af 'sleep 10000[12]|DemoWidget')
expect "no process of the service is left" "${leftover:-none}" none

step "remove (dpkg -r): the configuration stays"
dpkg -r extensiond >/tmp/dpkg.out 2>&1; expect "dpkg -r exit code" "$?" 0
check "the binaries are gone" test ! -e /usr/bin/extensiond -a ! -e /usr/bin/extensiondctl
check "the supervisorctl alternative is gone" test ! -e /usr/bin/supervisorctl
check "the unit is gone" test ! -e /usr/lib/systemd/system/extensiond.service
expect "the service is inactive" "$(systemctl is-active "$SERVICE" 2>&1)" inactive
check "the conffile stays until purge" test -e /etc/extensiond/extensiond.toml
check "the packages' drop-in directory is gone" test ! -e /usr/lib/extensiond

step "purge (dpkg -P): nothing left"
dpkg -P extensiond >/tmp/dpkg.out 2>&1; expect "dpkg -P exit code" "$?" 0
sed 's/^/    /' /tmp/dpkg.out
check "dpkg no longer knows the package" sh -c '! dpkg-query -W extensiond 2>/dev/null | grep -q .'
check "the conffile is gone" test ! -e /etc/extensiond/extensiond.toml
check "the state directory is gone" test ! -e /var/lib/extensiond
check "the system group extensiond is gone" sh -c '! getent group extensiond'
check "the administrator's own drop-in survives the purge (dpkg owns only its files)" test -f /etc/extensiond/extensiond.d/test.toml
rm -r /etc/extensiond
check "no file of the package is left in /etc, /usr, /var, /run" sh -c '! find /etc /usr /var /run -name "*extensiond*" ! -path "/var/lib/dpkg/*" 2>/dev/null | grep .'
check "no enablement symlink is left" sh -c '! find /etc/systemd/system -name "extensiond.service" | grep -q .'
expect "systemd forgot the unit" "$(systemctl show -P LoadState "$SERVICE")" not-found

step "beside supervisord's supervisorctl"
printf '#!/bin/sh\necho "supervisord'"'"'s supervisorctl"\n' >/usr/bin/supervisorctl
chmod 0755 /usr/bin/supervisorctl
dpkg -i "$deb" >/tmp/dpkg.out 2>&1; expect "dpkg -i beside a foreign supervisorctl" "$?" 0
expect "the foreign supervisorctl is untouched" "$(/usr/bin/supervisorctl)" "supervisord's supervisorctl"
check "extensiondctl reaches the daemon" wait_for 30 extensiondctl version
dpkg -P extensiond >/tmp/dpkg.out 2>&1; expect "dpkg -P exit code" "$?" 0
expect "the foreign supervisorctl is still untouched" "$(/usr/bin/supervisorctl)" "supervisord's supervisorctl"

echo
journalctl -u "$SERVICE" --no-pager | tail -30
summary
