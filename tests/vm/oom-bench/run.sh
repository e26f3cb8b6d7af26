#!/bin/bash
# oom-bench: the head-to-head of extensiond, earlyoom and systemd-oomd under memory
# pressure, inside the VM of tests/vm/boot (bench/oom runs it; tests/vm/README.md).
#
# For each tool in turn, oombench.py runs EPISODES episodes of the same workload against
# the same budget (a host that must survive, idle extensions, one growing extension; see
# oombench.py) and prints a RESULT; table.py makes the table of them. The tools are
# installed in the image but disabled: each is started here for its own phase and
# stopped after it. Checks: every phase ran all its episodes; extensiond lost no host
# and killed nothing but the growing extension. Knobs (written by ./stage from bench/oom's
# environment into ./params): EPISODES (20), TOOLS (the phases, in order).
set -u
cd /test
. /test/lib/checks.sh

EPISODES=20
# TOOL launches the growing extension first in every episode, TOOL-grower-last last.
TOOLS="extensiond earlyoom systemd-oomd extensiond-grower-last earlyoom-grower-last systemd-oomd-grower-last"
[ -f params ] && . ./params

step "guest"
echo "kernel $(uname -r); $(systemctl --version | head -1); $(nproc) CPUs; $(earlyoom -v 2>&1 | head -1)"
free -m
for unit in extensiond earlyoom systemd-oomd; do
    expect "$unit is not running before its phase" "$(systemctl is-active $unit 2>/dev/null)" inactive
done

results=()
for phase in $TOOLS; do
    step "$phase: $EPISODES episodes"
    case $phase in
        *-grower-last) args=(--tool "${phase%-grower-last}" --order grower-last --label "$phase") ;;
        *) args=(--tool "$phase") ;;
    esac
    python3 /test/oombench.py "${args[@]}" --episodes "$EPISODES" 2>&1 | tee "/tmp/$phase.out"
    sed -n 's/^RESULT //p' "/tmp/$phase.out" >"/tmp/$phase.json"
    check "$phase: a result for its $EPISODES episodes" \
        python3 -c "import json, sys; sys.exit(json.load(open('/tmp/$phase.json'))['episodes'] != $EPISODES)"
    check "$phase: its tool stopped after the phase" sh -c "! systemctl is-active --quiet ${args[1]}"
    results+=("/tmp/$phase.json")
done

step "table"
echo "=== oom-bench table"
python3 /test/table.py "${results[@]}"
echo "=== end of table"

# In both launch orders: the kill order takes the growing extension first (docs/POLICIES.md).
for phase in extensiond extensiond-grower-last; do
    [ -s "/tmp/$phase.json" ] || continue
    field() { python3 -c "import json; r = json.load(open('/tmp/$phase.json')); print($1)"; }
    expect "$phase: host deaths" "$(field 'r["host_deaths"]')" 0
    expect "$phase: surplus kills (anything but the growing extension)" "$(field 'sum(len(e["surplus"]) for e in r["list"])')" 0
    expect "$phase: kernel OOM kills" "$(field 'sum(e["kernel_oom_kills"] for e in r["list"])')" 0
    expect "$phase: unrelieved episodes" "$(field 'sum(1 for e in r["list"] if not e["relieved"])')" 0
    # Linux 5.15+: the daemon frees each victim's memory itself, under its unit's system
    # call filter too (ESRCH: the victim's own exit had freed it first).
    expect "$phase: kills whose process_mrelease was refused" \
        "$(field 'sum(1 for k in r["daemon_kills"] if k.get("memoryRelease") not in ("released", "not released (No such process)"))')" 0
done
summary
