#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-run's console report and its --print-jobs (host only, no guest).
# When a guest dies, the first kernel report on its console is printed
# before the last 40 lines if it has scrolled out of them, since a
# panic's tail is often a second oops on the other vCPU.  vm-run
# --console-report LOG prints the same for a saved log: status 0 with a
# report in it, 1 without.  --print-jobs prints how many guests run side
# by side.
#
# timeout: 60

. "$(dirname "$0")/../net/lib.sh"

VMRUN=$TOP/scripts/vm-run
tmp=$(mktemp -d)
at_exit "rm -rf '$tmp'"

# A panic as CI saw one: the first oops at line 101, a second one and
# the panic in the last 40 lines.
{
	for i in $(seq 1 100); do echo "[ $i.0] boot line $i"; done
	echo "[ 101.0] BUG: kernel NULL pointer dereference, address: 0078"
	for i in $(seq 1 70); do echo "[ 101.1] first report line $i"; done
	echo "[ 161.3] Oops: int3: 0000 [#2] PREEMPT SMP NOPTI"
	for i in $(seq 1 30); do echo "[ 161.3] second report line $i"; done
	echo "[ 161.3] Kernel panic - not syncing: Fatal exception in interrupt"
} >"$tmp/panic.log"
"$VMRUN" --console-report "$tmp/panic.log" >"$tmp/out" ||
	fail "--console-report: status $? on a log with an oops"
head -n1 "$tmp/out" | grep -q "first kernel report (console line 101)" ||
	fail "no first-report header: $(head -n1 "$tmp/out")"
sed -n 7p "$tmp/out" | grep -q "BUG: kernel NULL pointer" ||
	fail "line 7 is not the first report: $(sed -n 7p "$tmp/out")"
grep -q "vm-run: last console lines:" "$tmp/out" || fail "no tail header"
tail -n1 "$tmp/out" | grep -q "Kernel panic" || fail "the tail does not end at the panic"
[ "$(wc -l <"$tmp/out")" = 102 ] ||
	fail "$(wc -l <"$tmp/out") lines, want 1 + 60 (report) + 1 + 40 (tail)"
log "ok: a report 102 lines above the end is printed before the tail"

# A report inside the last 40 lines is printed once, in the tail.
{ seq 1 20; echo "WARNING: CPU: 0 PID: 1 at foo"; seq 1 10; } >"$tmp/warn.log"
"$VMRUN" --console-report "$tmp/warn.log" >"$tmp/out" ||
	fail "--console-report: status $? on a log with a WARNING"
[ "$(grep -c WARNING "$tmp/out")" = 1 ] || fail "the WARNING printed $(grep -c WARNING "$tmp/out") times"
[ "$(wc -l <"$tmp/out")" = 31 ] || fail "$(wc -l <"$tmp/out") lines, want the whole 31-line log"
log "ok: a report in the tail is printed once"

# No report: the tail only, status 1.
seq 1 50 | sed 's/^/[ 1.0] clean line /' >"$tmp/clean.log"
rc=0
"$VMRUN" --console-report "$tmp/clean.log" >"$tmp/out" || rc=$?
[ $rc = 1 ] || fail "status $rc on a clean log, want 1"
[ "$(wc -l <"$tmp/out")" = 40 ] || fail "$(wc -l <"$tmp/out") lines of a clean log, want 40"
log "ok: a clean log gives its tail and status 1"

rc=0
"$VMRUN" --console-report "$tmp/missing.log" >/dev/null 2>&1 || rc=$?
[ $rc != 0 ] && [ $rc != 1 ] || fail "status $rc for a missing log, want an error"
log "ok: a missing log is an error (status $rc)"

# --print-jobs: how many guests the suite and dcblab run side by side; a
# count in virtual time, 1 in real time (the debug kernel's guests).
n=$("$VMRUN" --print-jobs) || fail "--print-jobs: status $?"
[[ $n =~ ^[1-9][0-9]*$ ]] || fail "--print-jobs printed '$n', not a count"
[ "$("$VMRUN" --print-clock)" != virtual ] || [ "$n" -le $(( $(nproc) + 1 )) ] ||
	fail "--print-jobs: $n guests on $(nproc) CPUs"
n=$("$VMRUN" --clock real --print-jobs) || fail "--print-jobs --clock real: status $?"
[ "$n" = 1 ] || fail "--print-jobs in real time printed '$n', want 1"
log "ok: --print-jobs $("$VMRUN" --print-jobs) (virtual), 1 (real)"
