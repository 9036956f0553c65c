#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The toolchain and the selftest helpers work (runs on the host, no VM).
#
# timeout: 120

. "$(dirname "$0")/../net/lib.sh"

# Build tools and what the guest suite needs.
need_cmd gcc make awk sed timeout
for c in ip tc qemu-system-x86_64 jq iperf3 cpio; do
	command -v "$c" >/dev/null || fail "'$c' missing (run scripts/deps.sh)"
done
[ -x /bin/busybox ] || fail "busybox-static missing (run scripts/deps.sh)"
ls -d /usr/src/linux-headers-6.1.*-amd64 >/dev/null 2>&1 ||
	fail "no /usr/src/linux-headers-6.1.*-amd64 (run scripts/deps.sh)"
[ -f "$TOP/Makefile" ] || fail "TOP=$TOP is not the repo root"

# A C compiler that works.
tmp=$(mktemp -d)
at_exit "rm -rf '$tmp'"
printf 'int main(void) { return 0; }\n' >"$tmp/t.c"
gcc -Wall -Werror -o "$tmp/t" "$tmp/t.c" && "$tmp/t" || fail "gcc cannot build a trivial program"

# The lib.sh helpers (each check in a subshell, as they exit on failure).
expect() { # expect RC CMD...
	local want=$1 rc=0
	shift
	( "$@" ) >/dev/null 2>&1 || rc=$?
	[ "$rc" = "$want" ] || fail "'$*' exited $rc, expected $want"
}
expect 0 assert_ge 2 1 ge
expect 0 assert_ge 1.5 1.5 ge-equal
expect 1 assert_ge 0.99 1 ge-false
expect 0 assert_le 1e2 100.0 le
expect 1 assert_le 3 -1 le-false
# the integer path (bash arithmetic) agrees with awk's
expect 0 assert_ge -3 -5 ge-negative
expect 1 assert_ge -5 -3 ge-negative-false
expect 0 assert_le -7 0 le-negative
expect 0 assert_ge 010 9 ge-leading-zero
expect 1 assert_le 010 9 le-leading-zero
expect 0 assert_ge 12345678901234567 12345678901234566 ge-big
expect 1 assert_ge 5599 5600 ge-off-by-one
expect 0 assert_le 123456789012345678901 1e21 le-beyond-int
expect 1 assert_ge 1- 0 not-a-number-sign
expect 0 assert_within_pct 105 100 5 pct
expect 1 assert_within_pct 94.9 100 5 pct-false
expect 0 assert_within_pct -0.98 -1 2 pct-negative
expect 1 assert_ge abc 1 not-a-number
expect 4 skip "why"
expect 4 need_cmd surely-no-such-command-here
expect 1 fail "why"
expect 0 wait_for true --timeout 1
expect 1 wait_for --timeout 0.3 false
expect 0 wait_for --timeout 2 test -e "$tmp/t.c"
expect 2 wait_for --timeout 1e3 true
t0=${EPOCHREALTIME//[.,]/}
expect 1 wait_for --timeout 0.5 --interval 0.05 false
dt=$(( ${EPOCHREALTIME//[.,]/} - t0 ))
[ "$dt" -ge 500000 ] && [ "$dt" -lt 5000000 ] ||
	fail "wait_for --timeout 0.5 returned after $dt us"
# the slow-kernel scaling (DCBLAB_SLOW): identity at 1, exact otherwise
same() { [ "$1" = "$2" ] || fail "$3: '$1', expected '$2'"; }
same "$(SLOW=1 scaled_rate 10mbit)" 10mbit "scaled_rate at 1"
same "$(SLOW=1 scaled_time 50ms)" 50ms "scaled_time at 1"
same "$(SLOW=5 scaled_rate 10mbit)" 2000000bit "scaled_rate tc"
same "$(SLOW=5 scaled_rate 20M)" 4000000 "scaled_rate iperf3"
same "$(SLOW=4 scaled_rate 2.5mbit)" 625000bit "scaled_rate decimal"
same "$(SLOW=5 scaled_mbit 3)" 0.6 "scaled_mbit"
same "$(SLOW=5 scaled_time 6)" 30 "scaled_time s"
same "$(SLOW=5 scaled_time 0.0042)" 0.021 "scaled_time decimal"
same "$(SLOW=5 scaled_time 100ms)" 500ms "scaled_time ms"
same "$(rate_bps 1gbit)" 1000000000 "rate_bps"
expect 1 rate_bps 10mbps
# xfail_on_slow: a plain assertion elsewhere, an XFAIL line on a slow kernel
expect 1 xfail_on_slow assert_ge 1 2 xfail-fast
expect 0 xfail_on_slow assert_ge 2 1 xfail-pass
out=$(DCBLAB_MACHINE_SLOW=yes xfail_on_slow assert_ge 1 2 "one vs two" 2>&1) ||
	fail "xfail_on_slow failed on a slow kernel"
same "$out" "XFAIL: one vs two: 1 < 2" "xfail_on_slow's line"
out=$(DCBLAB_MACHINE_SLOW=yes xfail_on_slow assert_ge 2 1 "two vs one" 2>&1)
[[ $out == *"ok: two vs one"* ]] || fail "xfail_on_slow's passing line '$out'"
line=$(log hello)
[[ $line =~ ^\[\ *[0-9]+\.[0-9][0-9]\]\ hello$ ]] || fail "log line '$line'"
# run.sh --shard: the parts of the debug suite run each guest test once
all=$(DCBLAB_CHECK_DEBUG=1 bash "$TOP/selftests/run.sh" --guest-only --list) ||
	fail "run.sh --list failed"
[ "$(wc -l <<<"$all")" -ge 10 ] || fail "run.sh --list: only '$all'"
parts=$(for k in 1 2 3; do
	DCBLAB_CHECK_DEBUG=1 bash "$TOP/selftests/run.sh" --guest-only --list --shard $k/3
done | sort)
same "$parts" "$(sort <<<"$all")" "shards 1/3..3/3 against the whole list"
expect 2 bash "$TOP/selftests/run.sh" --list --shard 3/2
expect 2 bash "$TOP/selftests/run.sh" --list --shard 1
[ -z "$(bash "$TOP/selftests/run.sh" --list --shard 2/2 | grep '^unit/')" ] ||
	fail "unit tests in shard 2/2"
# times.tsv: a line per test that ran, with its status and seconds
out=$(DCBLAB_RESULTS=$tmp/res bash "$TOP/selftests/run.sh" --unit-only \
	--filter '^unit/test_make_kdir$') || fail "run.sh of one unit test: $out"
[[ $out == *$'\n# unit tests: '[0-9]*.[0-9]s,\ [0-9]*\ at\ a\ time\ *$'\n1 passed, 0 failed' ]] ||
	fail "run.sh: no time line before the summary: $out"
line=$(cat "$tmp/res/times.tsv")
[[ $line =~ ^unit/test_make_kdir$'\t'ok$'\t'[0-9]+\.[0-9]$ ]] ||
	fail "times.tsv: '$line'"
# unit tests side by side (the first is the slower one here), reported
# in their order
out=$(SELFTESTS_UNIT_JOBS=2 DCBLAB_RESULTS=$tmp/res2 bash "$TOP/selftests/run.sh" --unit-only \
	--filter '^unit/test_(topo|vmrun_console)$') || fail "run.sh, two unit tests at a time: $out"
[ "$(grep -E '^(not )?ok ' <<<"$out" | paste -sd' ')" = "ok 1 - unit/test_topo ok 2 - unit/test_vmrun_console" ] ||
	fail "run.sh, two unit tests at a time, out of order: $out"
grep -q '^# unit tests: .*, 2 at a time' <<<"$out" || fail "run.sh: no unit time line: $out"
# steps: a failed check ends only its step; tests_exit names the failures
out=$( (
	check_err 0 "not reached"; log_test good
	check_err 1 "first"; check_err 1 "second"; log_test bad
	check_fail 0 "accepted"; log_test refused
	check_cmd "true" true; check_fail 1 "refused"; log_test good2
	tests_exit ) 2>&1 )
rc=$?
same "$rc" 1 "tests_exit after failed steps"
[[ $out == *"TEST: good "*"[ OK ]"* && $out == *"TEST: good2 "*"[ OK ]"* ]] ||
	fail "passing steps not reported: $out"
# each step's line ends with its seconds
[[ $out =~ TEST:\ good\ +\[\ OK\ \]\ +[0-9]+\.[0-9]s$'\n' ]] ||
	fail "a step's line lacks its seconds: $out"
[[ $out == *"TEST: bad "*"[FAIL]"*"first"* && $out != *$'\t'second* ]] ||
	fail "a failed step must show its first failure: $out"
[[ $out == *"FAIL: 2 of 4 steps failed: bad refused"* ]] || fail "tests_exit's line: $out"
out=$( ( check_err 0 x; log_test a; tests_exit ) 2>&1 ) || fail "tests_exit with all steps passed: $out"
[[ $out == *"all 1 steps passed"* ]] || fail "tests_exit's pass line: $out"
# check_perf: a step failure, or an XFAIL line on a slow kernel
out=$( ( check_perf "slow" false; log_test p; tests_exit ) 2>&1 ) && fail "check_perf did not fail"
out=$( ( export DCBLAB_MACHINE_SLOW=yes; check_perf "slow" false; log_test p; tests_exit ) 2>&1 ) ||
	fail "check_perf failed on a slow kernel: $out"
[[ $out == *"XFAIL: slow"* ]] || fail "no XFAIL line from check_perf: $out"
# check_assert: an assertion's failure fails the step with its message,
# and the test goes on to the next step
out=$( ( check_assert assert_ge 3 5 "three"; log_test a1; check_assert assert_ge 7 5 "seven"
	log_test a2; tests_exit ) 2>&1 ) && fail "check_assert did not fail: $out"
[[ $out == *"TEST: a1"*"[FAIL]"*"three: 3 < 5"*"TEST: a2"*"[ OK ]"* ]] ||
	fail "check_assert: steps not reported as expected: $out"
out=$( ( export DCBLAB_MACHINE_SLOW=yes; check_perf_assert assert_ge 1 5 "perf"; log_test p
	tests_exit ) 2>&1 ) || fail "check_perf_assert failed on a slow kernel: $out"
[[ $out == *"XFAIL: perf: 1 < 5"* ]] || fail "no XFAIL line from check_perf_assert: $out"
# defer: last registered first, per scope, the rest at exit
out=$( (
	trap _lib_exit EXIT	# a subshell does not inherit the test's trap
	defer "echo d1"; defer_scope_push; defer "echo d2"; defer "echo d3"
	defer_scope_pop; echo mid; at_exit "echo a1"; defer "echo d4"; exit 0 ) )
same "$(tr '\n' ' ' <<<"$out")" "d3 d2 mid d4 d1 a1 " "defer order"
# fail in a deferred command ends neither the cleanup nor hides itself
rc=0
out=$( (
	trap _lib_exit EXIT
	defer "echo d1"; defer "fail cleanup; echo d2"; at_exit "echo a1"; exit 0 ) 2>&1 ) || rc=$?
same "$(tr '\n' ' ' <<<"$out") rc $rc" "FAIL: cleanup d2 d1 a1  rc 1" "fail in the cleanup"

log "toolchain and lib.sh OK"
exit "$ksft_pass"
