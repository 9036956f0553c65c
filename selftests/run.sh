#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/run.sh - the DCB lab test suite (`make check`).
#
#   selftests/run.sh [--unit-only | --guest-only] [--filter REGEX]
#                    [--shard K/N] [--list] [-v]
#
# Phase 1: every selftests/unit/test_*.sh on the host (exit 0 pass, 1 fail,
# 4 skip; per-test timeout from selftests/unit/settings, 120 s, or a
# `# timeout: N` line), SELFTESTS_UNIT_JOBS (default: the CPUs) at a time.
# Phase 2: scripts/vm-run guests run selftests/net/guest-runner.sh, which
# runs the selftests/net/test_*.sh given to it (see there).  In virtual
# time (vm-run's default without KVM) one guest more than the host has
# CPUs, as memory allows (vm-run --print-jobs), run side by side,
# SELFTESTS_GUEST_JOBS to change it (each is one host
# thread, and the guests' clocks do not see each other), the tests
# balanced over them by the previous run's times (times.prev.tsv), else by
# their timeouts; in real time or natively, one.  The TAP lines come in the
# tests' order either way.
# --filter keeps the tests whose name (unit/test_x or net/test_y) matches the
# extended regex.  Tests (unit or guest) marked `# suite: debug` run only under
# DCBLAB_CHECK_DEBUG=1 (make check-debug), `# suite: long` ones only under
# DCBLAB_CHECK_LONG=1 (make check-long), or when --filter selects them.
# --shard K/N runs the K-th of N parts of the selected guest tests (every
# N-th, starting with the K-th; unit tests only in part 1), so that a suite
# too long for one sitting (make check-debug) runs in parts on one commit.
# Guest tests with `# nic-pairs: N` (and `# nic-model: M[,M...]`, default
# e1000e) lines go first to guest 0, which boots with the most pairs and
# every model they ask for (scripts/vm-run --nic-pairs, --nic-model).
# --list prints the tests that would run, one per line, and runs none.
# Output is TAP; the last line is "N passed, N failed" (", N skipped"
# appended when some were skipped, ", N with XFAIL (slow kernel)" when
# passed tests had performance assertions fail as expected under
# DCBLAB_MACHINE_SLOW=yes); the lines before it give the time of each
# phase.  Logs: build/selftests/ ($DCBLAB_BUILD/selftests, or DCBLAB_RESULTS:
# test_90 runs the suite inside a test), and there times.tsv, a line
# "name<TAB>ok|fail|skip<TAB>seconds" per test that ran (make check's
# 30-minute budget is judged on it; .ci/run prints and keeps it), with,
# for guest tests, the guest's CPU busy share over the test and during
# its traffic (the CPU guard, scripts/lib/common.sh) and the processes it
# started as three more columns.

set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
TOP=$(cd "$HERE/.." && pwd -P)
RESULTS=${DCBLAB_RESULTS:-${DCBLAB_BUILD:-$TOP/build}/selftests}
# settings_timeout DIR: timeout= of DIR/settings (as kselftest's settings
# files), else 300
settings_timeout() {
	local t
	t=$(sed -n 's/^timeout=\([0-9][0-9]*\)$/\1/p' "$1/settings" 2>/dev/null | tail -n1)
	echo "${t:-300}"
}
UNIT_TIMEOUT=${SELFTESTS_UNIT_TIMEOUT:-$(settings_timeout "$TOP/selftests/unit")}
GUEST_DEFAULT_TIMEOUT=${SELFTESTS_TIMEOUT:-$(settings_timeout "$TOP/selftests/net")}

DO_UNIT=1
DO_GUEST=1
FILTER=
SHARD_K=1
SHARD_N=1
VERBOSE=0
LIST=0

usage() { sed -n '4,27p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

while [ $# -gt 0 ]; do
	case $1 in
	--unit-only) DO_GUEST=0; shift ;;
	--guest-only) DO_UNIT=0; shift ;;
	--filter) FILTER=${2:?--filter needs a pattern}; shift 2 ;;
	--filter=*) FILTER=${1#*=}; shift ;;
	--shard) SHARD=${2:?--shard needs K/N}; shift 2 ;;
	--shard=*) SHARD=${1#*=}; shift ;;
	--list) LIST=1; shift ;;
	-v|--verbose) VERBOSE=1; shift ;;
	-h|--help) usage ;;
	*) echo "run.sh: unknown argument $1" >&2; usage ;;
	esac
done

if [ -n "${SHARD:-}" ]; then
	if ! [[ $SHARD =~ ^([1-9][0-9]*)/([1-9][0-9]*)$ ]] ||
	   [ "${BASH_REMATCH[1]}" -gt "${BASH_REMATCH[2]}" ]; then
		echo "run.sh: --shard wants K/N with 1 <= K <= N, not '$SHARD'" >&2
		exit 2
	fi
	SHARD_K=${BASH_REMATCH[1]} SHARD_N=${BASH_REMATCH[2]}
	[ "$SHARD_K" = 1 ] || DO_UNIT=0
fi

# (bash's own regex and string operations, no process per test: listing
# the suite forks nothing, which a loaded host makes slow)
selected() {
	[ -z "$FILTER" ] || [[ $1 =~ $FILTER ]]
}

# A test with a `# suite: NAME` line runs only in that suite, or when
# --filter names it; tests without one are `make check`'s:
#   debug: the fuzzers (long, and most useful where KASAN and lockdep
#          watch), in `make check-debug` (DCBLAB_CHECK_DEBUG=1);
#   long:  the papers' experiments and the comparison scenarios, whose
#          mechanisms shorter tests of `make check` exercise, in `make
#          check-long` (DCBLAB_CHECK_LONG=1).
#   kver:  tests of what `make all KVER=...` built for another kernel,
#          run by `make check-smoke KVER=6.12` after that build (make
#          check does not build it, so there they could only skip).
declare -A SUITE=()
while IFS= read -r line; do
	[[ $line =~ ^([^:]*):#[[:space:]]*suite:[[:space:]]*([a-z]*) ]] &&
		SUITE[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
done < <(grep -H -m1 '^#[[:space:]]*suite:' "$TOP"/selftests/unit/test_*.sh \
	"$TOP"/selftests/net/test_*.sh 2>/dev/null)
in_suite() {
	local s=${SUITE[$1]:-}
	[ -n "$FILTER" ] && return 0
	case $s in
	'') return 0 ;;
	debug) [ "${DCBLAB_CHECK_DEBUG:-0}" = 1 ] ;;
	long) [ "${DCBLAB_CHECK_LONG:-0}" = 1 ] ;;
	kver) return 1 ;;
	*) echo "run.sh: $1: unknown suite '$s'" >&2; return 1 ;;
	esac
}

UNIT=()
if [ $DO_UNIT = 1 ]; then
	for t in "$TOP"/selftests/unit/test_*.sh; do
		[ -f "$t" ] || continue
		b=${t##*/}
		selected "unit/${b%.sh}" && in_suite "$t" && UNIT+=("$t")
	done
fi
GUEST=()
if [ $DO_GUEST = 1 ]; then
	i=0
	for t in "$TOP"/selftests/net/test_*.sh; do
		[ -f "$t" ] || continue
		b=${t##*/}
		selected "net/${b%.sh}" && in_suite "$t" || continue
		[ $((i++ % SHARD_N + 1)) = "$SHARD_K" ] && GUEST+=("${b%.sh}")
	done
fi

if [ $LIST = 1 ]; then
	for t in "${UNIT[@]}"; do b=${t##*/}; echo "unit/${b%.sh}"; done
	for g in "${GUEST[@]}"; do echo "net/$g"; done
	exit 0
fi

mkdir -p "$RESULTS/unit" "$RESULTS/net"
TIMES=$RESULTS/times.tsv
[ ! -s "$TIMES" ] || mv -f "$TIMES" "$RESULTS/times.prev.tsv"
: >"$TIMES"
PASS=0
FAIL=0
SKIP=0
XFAIL=0
N=0

echo "TAP version 13"
echo "1..$(( ${#UNIT[@]} + ${#GUEST[@]} ))"

file_timeout() {
	local t
	t=$(sed -n 's/^#[[:space:]]*timeout:[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$1" | head -n1)
	echo "${t:-$2}"
}

# file_nics FILE: "PAIRS MODELS" of a test's nic-pairs and nic-model lines;
# nothing when it has no nic-pairs line
file_nics() {
	local line p='' m=e1000e
	while IFS= read -r line; do
		[[ $line =~ ^#[[:space:]]*nic-pairs:[[:space:]]*([0-9]+) ]] && p=${BASH_REMATCH[1]}
		[[ $line =~ ^#[[:space:]]*nic-model:[[:space:]]*([a-z0-9,-]+) ]] && m=${BASH_REMATCH[1]}
		[[ $line =~ ^# ]] || [ -z "$line" ] || break
	done <"$1"
	[ -z "$p" ] || echo "$p $m"
}

count() {
	case $1 in
	ok) PASS=$((PASS + 1)) ;;
	skip) SKIP=$((SKIP + 1)) ;;
	*) FAIL=$((FAIL + 1)) ;;
	esac
}

# ---------------------------------------------------------- phase 1: unit

# The unit tests are host work, mostly one process each (a compiler, a
# model): UNIT_JOBS of them run at a time, reported in their order.
UNIT_JOBS=${SELFTESTS_UNIT_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$UNIT_JOBS" -ge 1 ] 2>/dev/null || UNIT_JOBS=1

# unit_start I: start the I-th unit test; its exit status, seconds and
# timeout go to $RESULTS/<name>.done when it ends.
unit_start() {
	local t=${UNIT[$1]} name tmo cmd
	name=unit/$(basename "$t" .sh)
	tmo=$(file_timeout "$t" "$UNIT_TIMEOUT")
	if [ -x "$t" ]; then cmd=("$t"); else cmd=(bash "$t"); fi
	rm -f "$RESULTS/$name.done"
	(
		t0=$(date +%s.%N)
		(cd "$TOP" && exec timeout -k 10 "$tmo" "${cmd[@]}") </dev/null >"$RESULTS/$name.log" 2>&1
		rc=$?
		secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
		echo "$rc $secs $tmo" >"$RESULTS/$name.done"
	) &
}

# unit_report I: the TAP line (and log tail) of the ended I-th test.
unit_report() {
	local name log rc secs tmo st reason
	name=unit/$(basename "${UNIT[$1]}" .sh)
	log=$RESULTS/$name.log
	read -r rc secs tmo <"$RESULTS/$name.done"
	rm -f "$RESULTS/$name.done"
	N=$((N + 1))
	[ $VERBOSE = 0 ] || sed 's/^/# /' "$log"
	case $rc in
	0) st=ok; echo "ok $N - $name" ;;
	4) st=skip
	   reason=$(grep -E '^SKIP: ' "$log" | tail -n1 | sed 's/^SKIP: //')
	   echo "ok $N - $name # SKIP ${reason:-skipped}" ;;
	*) st=fail
	   if [ "$rc" = 124 ]; then reason="timeout after ${tmo}s"; else
		reason=$(grep -E '^FAIL: ' "$log" | tail -n1 | sed 's/^FAIL: //')
		reason=${reason:-exit status $rc}
	   fi
	   echo "not ok $N - $name # $reason"
	   echo "# --- last lines of $log ---"
	   tail -n 30 "$log" | sed 's/^/#   /' ;;
	esac
	count "$st"
	printf '%s\t%s\t%s\n' "$name" "$st" "$secs" >>"$TIMES"
}

UNIT_T0=$(date +%s.%N)
next=0
shown=0
running=0
while [ $shown -lt ${#UNIT[@]} ]; do
	while [ $running -lt "$UNIT_JOBS" ] && [ $next -lt ${#UNIT[@]} ]; do
		unit_start $next
		next=$((next + 1))
		running=$((running + 1))
	done
	# (the only children of this shell now are the unit tests)
	wait -n
	running=$((running - 1))
	while [ $shown -lt $next ] &&
	      [ -f "$RESULTS/unit/$(basename "${UNIT[$shown]}" .sh).done" ]; do
		unit_report $shown
		shown=$((shown + 1))
	done
done
UNIT_WALL=$(awk -v a="$UNIT_T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')

# --------------------------------------------------------- phase 2: guest

# How many guests run side by side: in virtual time a guest is one host
# thread and its results do not depend on what else the host runs, so
# one more than the host has CPUs, as memory allows (vm-run --print-jobs;
# SELFTESTS_GUEST_JOBS overrides); a real-time guest (two vCPUs, the
# host's clock) or a native run, one.
CLOCK=$(bash "$TOP/scripts/vm-run" --print-clock 2>/dev/null) || CLOCK=real
if [ "$CLOCK" = virtual ]; then
	GUEST_JOBS=${SELFTESTS_GUEST_JOBS:-$(bash "$TOP/scripts/vm-run" --print-jobs 2>/dev/null || echo 1)}
else
	GUEST_JOBS=${SELFTESTS_GUEST_JOBS:-1}
fi
[ "$GUEST_JOBS" -ge 1 ] 2>/dev/null || GUEST_JOBS=1
[ "$GUEST_JOBS" -le ${#GUEST[@]} ] || GUEST_JOBS=${#GUEST[@]}

# guest_weight NAME: the test's expected time, to balance the guests: its
# time in the previous run's times.tsv (whole seconds, at least 1: with a
# weight of 0 every test would go to the first guest and a guest with an
# empty list would run the whole suite), else its timeout
declare -A PREV_SECS=()
if [ -s "$RESULTS/times.prev.tsv" ]; then
	while IFS=$'\t' read -r name _ secs _; do
		[[ $secs =~ ^[0-9]+(\.[0-9]+)?$ ]] || continue
		PREV_SECS[$name]=${secs%.*}
		[ "${PREV_SECS[$name]}" -ge 1 ] || PREV_SECS[$name]=1
	done <"$RESULTS/times.prev.tsv"
fi
guest_weight() {
	echo "${PREV_SECS[net/$1]:-$(file_timeout "$TOP/selftests/net/$1.sh" "$GUEST_DEFAULT_TIMEOUT")}"
}

# report_guest I: the TAP line of the I-th guest test from the guests'
# results-K.tsv (and its log's tail when it failed); 1 when not there yet
report_guest() {
	local g=${GUEST[$1]} n=$((START + $1)) line st reason secs log
	line=$(cat "$RESULTS"/results-*.tsv 2>/dev/null | awk -F'\t' -v t="net/$g" '$2 == t' | tail -n1)
	[ -n "$line" ] || return 1
	# (a unit separator, not the tab, splits it: bash would merge the
	# tabs around an empty reason)
	IFS=$'\x1f' read -r _ _ st reason secs cpu guard procs <<<"${line//$'\t'/$'\x1f'}"
	log=$RESULTS/net/$g.log
	count "$st"
	[[ $reason != XFAIL* ]] || XFAIL=$((XFAIL + 1))
	case $st in
	ok) echo "ok $n - net/$g${reason:+ # $reason}" ;;
	skip) echo "ok $n - net/$g # SKIP $reason" ;;
	*) echo "not ok $n - net/$g # $reason"
	   echo "# --- last lines of $log ---"
	   sed '/^# --- kernel log during /,$d' "$log" 2>/dev/null | tail -n 30 | sed 's/^/#   /' ;;
	esac
	echo "# net/$g: ${secs}s, guest CPU ${cpu:-?}% busy${guard:+, ${guard}% in its traffic}${procs:+, $procs processes}"
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "net/$g" "$st" "$secs" "${cpu:-}" "${guard:-}" "${procs:-}" >>"$TIMES"
	return 0
}

if [ ${#GUEST[@]} -gt 0 ]; then
	START=$((N + 1))
	rm -f "$RESULTS"/results*.tsv "$RESULTS"/current*
	# Longest first, each to the guest with the least work so far.
	declare -a SLOT_W=() SLOT_T=()
	for ((k = 0; k < GUEST_JOBS; k++)); do SLOT_W[k]=0; SLOT_T[k]=; done
	# The tests that want NIC pairs: guest 0's, and what it boots with.
	NIC_ARGS=()
	np=0 nm=
	declare -A ON_NICS=()
	for g in "${GUEST[@]}"; do
		read -r p m <<<"$(file_nics "$TOP/selftests/net/$g.sh")"
		[ -n "$p" ] || continue
		ON_NICS[$g]=1
		[ "$p" -le "$np" ] || np=$p
		for m in ${m//,/ }; do [[ ,$nm, == *,$m,* ]] || nm=${nm:+$nm,}$m; done
		SLOT_W[0]=$(( SLOT_W[0] + $(guest_weight "$g") ))
		SLOT_T[0]="${SLOT_T[0]} $g"
	done
	[ "$np" = 0 ] || NIC_ARGS=(--nic-pairs "$np" --nic-model "$nm")
	for g in $(for g in "${GUEST[@]}"; do
		   [ -n "${ON_NICS[$g]:-}" ] || echo "$(guest_weight "$g") $g"; done |
		   sort -k1,1nr -k2 | cut -d' ' -f2); do
		best=0
		for ((k = 1; k < GUEST_JOBS; k++)); do
			[ "${SLOT_W[k]}" -ge "${SLOT_W[best]}" ] || best=$k
		done
		SLOT_W[best]=$(( SLOT_W[best] + $(guest_weight "$g") ))
		SLOT_T[best]="${SLOT_T[best]} $g"
	done
	# each guest runs its tests in the suite's order, so that the
	# results reach the report in order, not all at the end
	for ((k = 0; k < GUEST_JOBS; k++)); do
		SLOT_T[k]=$(tr ' ' '\n' <<<"${SLOT_T[k]}" | sort | xargs)
	done
	echo "# running ${#GUEST[@]} guest test(s) in $GUEST_JOBS guest(s) through scripts/vm-run (clock: $CLOCK)"
	g0=$(date +%s)
	declare -a VM_PIDS=() VM_TMO=()
	for ((k = 0; k < GUEST_JOBS; k++)); do
		# The guest only times out when something hangs past the
		# per-test timeouts (those are enforced inside); allow all of
		# them plus boot.
		total=0
		for g in ${SLOT_T[k]}; do
			total=$((total + $(file_timeout "$TOP/selftests/net/$g.sh" "$GUEST_DEFAULT_TIMEOUT") * ${DCBLAB_TIMEOUT_SCALE:-1} + 15))
		done
		VM_TMO[k]=${SELFTESTS_VM_TIMEOUT:-$(( total + 300 > 1500 ? total + 300 : 1500 ))}
		nics=()
		[ "$k" != 0 ] || nics=("${NIC_ARGS[@]}")
		# shellcheck disable=SC2086 # the slot's test names
		(cd "$TOP" && exec bash "$TOP/scripts/vm-run" --quiet --timeout "${VM_TMO[k]}" "${nics[@]}" -- \
			bash "$TOP/selftests/net/guest-runner.sh" --slot "$k" \
			--results "$RESULTS" ${SLOT_T[k]}) >"$RESULTS/guest-$k.out" 2>&1 &
		VM_PIDS[k]=$!
	done
	# Report in order as the results come in.
	shown=0
	while :; do
		while [ $shown -lt ${#GUEST[@]} ] && report_guest $shown; do
			shown=$((shown + 1))
		done
		alive=0
		for p in "${VM_PIDS[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
		[ $alive = 1 ] || break
		sleep 2
	done
	declare -a VM_RC=()
	for ((k = 0; k < GUEST_JOBS; k++)); do
		VM_RC[k]=0
		wait "${VM_PIDS[k]}" || VM_RC[k]=$?
	done
	GUEST_WALL=$(( $(date +%s) - g0 ))

	# Whatever a guest did not report is a failure.
	for ((i = shown; i < ${#GUEST[@]}; i++)); do
		report_guest "$i" && continue
		g=${GUEST[$i]}
		for ((k = 0; k < GUEST_JOBS; k++)); do
			[[ " ${SLOT_T[k]} " == *" $g "* ]] && break
		done
		count fail
		case ${VM_RC[k]} in
		124) why="guest timed out after ${VM_TMO[k]}s" ;;
		125) why="guest died (crash or boot failure, see $RESULTS/guest-$k.out)" ;;
		*) why="not reported by the guest (vm-run exit ${VM_RC[k]})" ;;
		esac
		if [ "$(cat "$RESULTS/current-$k" 2>/dev/null)" = "net/$g" ]; then
			why="$why while this test was running"
		else
			why="not run: $why"
		fi
		echo "not ok $((START + i)) - net/$g # $why"
		[ ! -s "$RESULTS/guest-$k.out" ] || tail -n 20 "$RESULTS/guest-$k.out" | sed 's/^/#   /'
	done
	rm -f "$RESULTS"/current*
fi

# total_secs KIND: the seconds of the KIND/ tests in times.tsv
total_secs() {
	awk -F'\t' -v k="$1/" 'index($1, k) == 1 { s += $3 } END { printf "%.1f", s }' "$TIMES"
}
[ ${#UNIT[@]} = 0 ] ||
	echo "# unit tests: ${UNIT_WALL}s, $UNIT_JOBS at a time (their own times add up to $(total_secs unit)s)"
[ ${#GUEST[@]} = 0 ] ||
	echo "# guest: ${GUEST_WALL}s, of which the tests $(total_secs net)s"
summary="$PASS passed, $FAIL failed"
[ $SKIP -eq 0 ] || summary="$summary, $SKIP skipped"
[ $XFAIL -eq 0 ] || summary="$summary, $XFAIL with XFAIL (slow kernel)"
echo "$summary"
[ $FAIL -eq 0 ]
