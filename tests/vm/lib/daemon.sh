# tests/vm/lib/daemon.sh: the daemon under the shipped unit, for the guest tests (sourced
# by run.sh; scripts/vm-test stages it as /test/lib/daemon.sh).
SERVICE=extensiond
SOCKET=/run/extensiond/control.sock
export EXTENSIOND_SOCKET=$SOCKET

# install_daemon < CONFIG: the staged binaries to /usr/local/bin, the unit to
# /etc/systemd/system, CONFIG (standard input) to /etc/extensiond/extensiond.toml.
install_daemon() {
    install -m 0755 /test/bin/extensiond /test/bin/supervisorctl /test/bin/DemoWidget /usr/local/bin/
    install -m 0644 /test/extensiond.service /etc/systemd/system/extensiond.service
    mkdir -p /etc/extensiond
    cat >/etc/extensiond/extensiond.toml
    systemctl daemon-reload
}
unit() { systemctl show -P "$1" "$SERVICE"; }
service_cgroup() { echo "/sys/fs/cgroup$(unit ControlGroup)"; }
