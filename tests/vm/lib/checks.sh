# tests/vm/lib/checks.sh: the checks every guest test prints, sourced by run.sh
# (scripts/vm-test stages it as /test/lib/checks.sh). One PASS:/FAIL: line per check;
# `summary` prints the totals and exits non-zero when any check failed.
passed=0
failed=0
t0=$(( $(date +%s%N) / 1000000 ))

pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
# check DESCRIPTION COMMAND...: PASS when COMMAND succeeds.
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }
# expect DESCRIPTION ACTUAL WANTED
expect() { if [ "$2" = "$3" ]; then pass "$1 ($2)"; else fail "$1: got '$2', want '$3'"; fi; }
# wait_for SECONDS COMMAND...: polls COMMAND every 0.2 s until it succeeds.
wait_for() {
    local deadline=$(( $(date +%s) + $1 )); shift
    until "$@"; do
        [ "$(date +%s)" -lt "$deadline" ] || return 1
        sleep 0.2
    done
}
# wait_until SECONDS 'CONDITION': the same for a shell condition, evaluated afresh each time
# (so "$(...)" in it is re-read; give it in single quotes).
wait_until() { local seconds=$1; shift; wait_for "$seconds" eval "$1"; }
step() { echo; echo "== $* ($(( $(date +%s%N) / 1000000 - t0 )) ms)"; }
summary() {
    echo
    echo "== $passed passed, $failed failed ($(( $(date +%s%N) / 1000000 - t0 )) ms)"
    [ "$failed" -eq 0 ]
}
