# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# scripts/lib/common.sh - the general helpers of the DCB lab's bash code:
# TOP, slow-kernel scaling (SLOW, scaled_rate, scaled_time), log, fail and
# skip, need_*, at_exit and defer (run by the EXIT trap installed here),
# namespaces, wait_for, sub-tests (check_err, log_test, tests_exit),
# assertions, the analysis layer's metrics and tc units (lab_metrics,
# tc_rate_bps, tc_size_bytes) and tracepoints.  Sourced first, before
# scripts/lib/dcb.sh, rxe.sh and cmp.sh, by the tests (through
# selftests/net/lib.sh).
#
# fail and skip exit with the kselftest codes: 0 pass, 1 fail, 4 skip.
# See Documentation/testing.rst.

# Repo root (this file lives in $TOP/scripts/lib).
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
export TOP
# sch_dcb.ko: built in the tree by `make`; `make check-debug` builds one for
# the debug kernel elsewhere and names it in DCBLAB_DCB_KO.
DCB_KO=${DCBLAB_DCB_KO:-$TOP/sch_dcb/sch_dcb.ko}

# Slow kernels.  DCBLAB_SLOW (an integer, default 1) says how many times
# slower than Debian's kernel under TCG the guest is; `make check-debug`
# exports 5 (KASAN, lockdep and kmemleak on every packet).  A test whose
# premise is timing (a port backlogged, a queue sitting at its limit, a
# sender paused before its burst ends) writes its link rates as
# $(scaled_rate 10mbit) and the durations that carry traffic as
# $(scaled_time 4): on a slow kernel the workload is a factor SLOW lighter
# and lasts a factor SLOW longer, so the same packet counts, queue levels
# in bytes and thresholds hold.  With SLOW=1 both return their argument
# unchanged (make check runs exactly as written).
SLOW=${DCBLAB_SLOW:-1}
[[ $SLOW =~ ^[1-9][0-9]?$ ]] || SLOW=1

# rate_bps RATE: RATE in bits per second.  RATE as tc (10mbit, 500kbit,
# 64000bit, 1gbit) or iperf3 -b (20M, 500K, 2G, 64000) writes it.
rate_bps()
{
	local v=${1,,} n u m
	[[ $v =~ ^([0-9]+)(\.[0-9]+)?([kmg]?)(bit)?$ ]] ||
		{ echo "rate_bps: bad rate '$1'" >&2; return 1; }
	n=${BASH_REMATCH[1]}
	u=${BASH_REMATCH[3]}
	m=1
	case $u in
	k) m=1000 ;;
	m) m=1000000 ;;
	g) m=1000000000 ;;
	esac
	if [ -n "${BASH_REMATCH[2]}" ]; then
		awk -v a="$n${BASH_REMATCH[2]}" -v m=$m 'BEGIN { printf "%d\n", a * m }'
	else
		echo $((n * m))
	fi
}

# scaled_rate RATE: RATE divided by SLOW, in RATE's notation (tc's "bit"
# suffix kept: 10mbit -> 2000000bit, 20M -> 4000000 at SLOW=5).
scaled_rate()
{
	local b
	[ "$SLOW" = 1 ] && { echo "$1"; return 0; }
	b=$(rate_bps "$1") || return 1
	b=$((b / SLOW))
	case ${1,,} in
	*bit) echo "${b}bit" ;;
	*) echo "$b" ;;
	esac
}

# scaled_mbit MBIT: MBIT (a number of Mbit/s) divided by SLOW, as a number
# (for arithmetic and iperf3's -b ...M).
scaled_mbit()
{
	[ "$SLOW" = 1 ] && { echo "$1"; return 0; }
	awk -v r="$1" -v s="$SLOW" 'BEGIN { printf "%g\n", r / s }'
}

# scaled_time SECONDS: SECONDS (integer or decimal; a trailing "ms" or
# "us" is kept) times SLOW.
scaled_time()
{
	local v=$1 u=
	[ "$SLOW" = 1 ] && { echo "$1"; return 0; }
	case $v in
	*ms) u=ms; v=${v%ms} ;;
	*us) u=us; v=${v%us} ;;
	*s) u=s; v=${v%s} ;;
	esac
	if [[ $v =~ ^[0-9]+$ ]]; then
		echo "$((v * SLOW))$u"
	else
		awk -v t="$v" -v s="$SLOW" -v u="$u" 'BEGIN { printf "%g%s\n", t * s, u }'
	fi
}

# kselftest exit codes.
ksft_pass=0
ksft_fail=1
ksft_skip=4
KSFT_PASS=$ksft_pass
KSFT_FAIL=$ksft_fail
KSFT_SKIP=$ksft_skip

# Namespaces this test created; cleanup_netns deletes them (on exit too).
NETNS=()
# Commands to run at exit (before the namespaces go), see at_exit.
_LIB_AT_EXIT=()
# Start time in microseconds.  Times come from $EPOCHREALTIME (bash >= 5.0),
# not date(1): the tests run hundreds of log lines, asserts and polls, and
# every fork costs milliseconds in a TCG guest.
_LIB_T0=${EPOCHREALTIME//[.,]/}

# log MSG...: timestamped progress line on stdout.
log() {
	local d=$(( ${EPOCHREALTIME//[.,]/} - _LIB_T0 ))

	printf '[%3d.%02d] %s\n' $((d / 1000000)) $((d % 1000000 / 10000)) "$*"
}

# fail MSG...: report a failure and exit 1.
# In the exit trap's cleanup (a defer or at_exit command) fail does not
# exit, which would end the cleanup there: it returns 1, and the test's
# exit status becomes 1 if it was 0.
fail() {
	echo "FAIL: $*" >&2
	if [ -n "${_LIB_EXITING:-}" ]; then
		_LIB_EXIT_RC=$ksft_fail
		return 1
	fi
	exit "$ksft_fail"
}

# skip MSG...: report why the test cannot run here and exit 4.
skip() {
	echo "SKIP: $*"
	exit "$ksft_skip"
}

# need_cmd CMD...: skip unless every CMD is in PATH.
need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "command '$c' not found"
	done
}

# need_mininet CMD...: need_cmd mnexec CMD..., and skip unless Debian's
# mininet (python3) imports: the Python experiments build their networks
# with it.
need_mininet() {
	need_cmd mnexec "$@"
	/usr/bin/python3 -c "import mininet.net" 2>/dev/null ||
		skip "Debian's mininet (python3) is not installed"
}

# need_root: skip unless running as root.
need_root() {
	[ "$(id -u)" = 0 ] || skip "needs root"
}

# need_mod MOD...: modprobe each module (quietly) or skip.
need_mod() {
	local m
	for m in "$@"; do
		[ -d "/sys/module/$m" ] && continue
		modprobe -q "$m" 2>/dev/null || skip "kernel module '$m' not available"
	done
}

# in_vm: true inside a scripts/vm-run guest.
in_vm() {
	[ "${DCBLAB_VM:-0}" = 1 ]
}

# load_dcb: load $DCB_KO unless sch_dcb is already loaded,
# and point tc at our plugin (export TC_LIB_DIR=$TOP/tc, for q_dcb.so).
load_dcb() {
	export TC_LIB_DIR=$TOP/tc
	[ -d /sys/module/sch_dcb ] && return 0
	local ko=$DCB_KO
	[ -f "$ko" ] || fail "$ko not built (run make)"
	if ! insmod "$ko"; then
		dmesg | tail -n 20 >&2
		fail "insmod $ko failed"
	fi
}

# at_exit CMD...: run CMD (one string, eval'ed) when the test exits, in
# the order registered, after the deferred commands.
at_exit() {
	_LIB_AT_EXIT+=("$*")
}

# defer CMD...: undo a step of set-up (one string, eval'ed): deferred
# commands run last-registered first, at the end of the innermost scope
# (defer_scope_pop) or when the test exits, as in the kernel's
# net/forwarding tests.  defer_scope_push opens a scope (a step's own
# set-up), defer_scope_pop runs and forgets what was deferred in it.
_LIB_DEFER=()
_LIB_DEFER_SCOPES=()
defer() {
	_LIB_DEFER+=("$*")
}
defer_scope_push() {
	_LIB_DEFER_SCOPES+=(${#_LIB_DEFER[@]})
}
_lib_defer_run() {	# _lib_defer_run DOWN_TO
	local i
	for ((i = ${#_LIB_DEFER[@]} - 1; i >= $1; i--)); do
		eval "${_LIB_DEFER[i]}" || true
		unset '_LIB_DEFER[i]'
	done
}
defer_scope_pop() {
	local n=${#_LIB_DEFER_SCOPES[@]} base
	[ "$n" -gt 0 ] || fail "defer_scope_pop without defer_scope_push"
	base=${_LIB_DEFER_SCOPES[n - 1]}
	unset '_LIB_DEFER_SCOPES[n - 1]'
	_lib_defer_run "$base"
}

# netns_add NAME...: create namespaces, bring their lo up, register them
# in NETNS for cleanup.  Tests may also create namespaces themselves and
# append the names to NETNS.
netns_add() {
	local ns
	for ns in "$@"; do
		ip netns add "$ns" || fail "ip netns add $ns"
		NETNS+=("$ns")
		ip -n "$ns" link set lo up
	done
}

# cleanup_netns: kill the processes in and delete every namespace in NETNS.
# Runs automatically at exit; safe to call more than once.
cleanup_netns() {
	local ns pids
	for ns in "${NETNS[@]}"; do
		ip netns list 2>/dev/null | grep -qw -- "^$ns" || continue
		pids=$(ip netns pids "$ns" 2>/dev/null || true)
		[ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
		ip netns del "$ns" 2>/dev/null || true
	done
	NETNS=()
}

_lib_exit() {
	local rc=$? c
	trap - EXIT
	_LIB_EXITING=1
	_LIB_EXIT_RC=0
	_lib_defer_run 0
	for c in "${_LIB_AT_EXIT[@]}"; do
		eval "$c" || true
	done
	cleanup_netns
	[ "$rc" != 0 ] || rc=$_LIB_EXIT_RC
	exit $rc
}
trap _lib_exit EXIT
# Make a signal (e.g. the runner's timeout) run the cleanup too.
trap 'exit 143' TERM
trap 'exit 130' INT

# Sub-tests, in the shape of the kernel's net/forwarding/lib.sh: a test
# file runs named steps; a failed check records the step's first failure
# in RET/RETMSG instead of ending the test, log_test NAME reports the step
# ("TEST: NAME  [ OK ]  SECONDS", or "[FAIL]" and the message) and starts the next,
# and tests_exit ends the test: 1 (naming the failed steps) if any failed.
# fail and the assert_* helpers still end the whole test at once: use
# them where nothing after the failure could mean anything.
RET=0
RETMSG=
_LIB_TESTS=0
_LIB_FAILED=()

# check_err RC MSG: the step fails with MSG unless RC is 0.
check_err() {
	[ "$1" = 0 ] && return 0
	log "  FAIL: $2"
	[ "$RET" = 0 ] && RETMSG=$2
	RET=1
	return 0
}

# check_fail RC MSG: the step fails with MSG if RC is 0 (something that
# must have been refused was not).
check_fail() {
	if [ "$1" = 0 ]; then check_err 1 "$2"; fi
	return 0
}

# check_cmd MSG CMD...: the step fails with MSG unless CMD succeeds.
check_cmd() {
	local msg=$1
	shift
	"$@"
	check_err $? "$msg"
}

# check_perf MSG CMD...: check_cmd for how well the emulation performs (a
# rate, a share): on a slow kernel (DCBLAB_MACHINE_SLOW=yes, see
# xfail_on_slow) a failure is logged as XFAIL and the step goes on.
check_perf() {
	local msg=$1
	shift
	"$@" && return 0
	if [ "${DCBLAB_MACHINE_SLOW:-no}" = yes ]; then
		echo "XFAIL: $msg"
		return 0
	fi
	check_err 1 "$msg"
}

# check_assert ASSERT ARGS...: an assert_* helper (or anything that calls
# fail) as a check of the step: run in a subshell, its failure fails the
# step with the assertion's message instead of ending the test.
# check_perf_assert: the same for assertions about how well the emulation
# performs (XFAIL on a slow kernel, as check_perf).
check_assert() { _lib_check_assert check_err "$@"; }
check_perf_assert() { _lib_check_assert check_perf "$@"; }
_lib_check_assert() {	# _lib_check_assert check_err|check_perf ASSERT...
	local how=$1 out rc msg
	shift
	out=$("$@" 2>&1)
	rc=$?
	# what the assertion printed, but its FAIL line, which the step reports
	[ -z "$out" ] || printf '%s\n' "$out" | grep -v '^FAIL: ' || true
	[ $rc = 0 ] && return 0
	msg=$(printf '%s\n' "$out" | sed -n 's/^FAIL: //p' | tail -n1)
	msg=${msg:-$1 failed}
	if [ "$how" = check_err ]; then
		check_err 1 "$msg"
	else
		check_perf "$msg" false
	fi
}

# log_test NAME: report the step, with the seconds since the previous
# step ended (or the library was sourced), and reset RET for the next one.
_LIB_STEP_US=${EPOCHREALTIME//[.,]/}
log_test() {
	local now=${EPOCHREALTIME//[.,]/} secs
	secs=$(( (now - _LIB_STEP_US) / 100000 ))
	secs="$((secs / 10)).$((secs % 10))s"
	_LIB_STEP_US=$now
	_LIB_TESTS=$((_LIB_TESTS + 1))
	if [ "$RET" = 0 ]; then
		printf 'TEST: %-40s [ OK ] %7s\n' "$1" "$secs"
	else
		printf 'TEST: %-40s [FAIL] %7s\n\t%s\n' "$1" "$secs" "$RETMSG"
		_LIB_FAILED+=("$1")
	fi
	RET=0
	RETMSG=
}

# tests_run: run the steps, as net/forwarding's lib.sh does: each name in
# $TESTS (default: the test's $ALL_TESTS, in order) is a function, run and
# then reported by log_test under its name; TESTS="pause wire" runs those
# alone (a step that needs an earlier one's results fails saying so).
tests_run() {
	local t
	for t in ${TESTS:-$ALL_TESTS}; do
		"$t"
		log_test "$t"
	done
}

# tests_passed: no step has failed so far.
tests_passed() {
	[ ${#_LIB_FAILED[@]} = 0 ]
}

# tests_exit: end a test made of steps.
tests_exit() {
	if [ ${#_LIB_FAILED[@]} -gt 0 ]; then
		fail "${#_LIB_FAILED[@]} of $_LIB_TESTS steps failed: ${_LIB_FAILED[*]}"
	fi
	log "all $_LIB_TESTS steps passed"
	exit "$ksft_pass"
}

# wait_for [--timeout S] [--interval S] CMD... [--timeout S]
# Poll CMD until it succeeds.  Returns 0 when it did, 1 after S seconds
# (default 10; times SLOW on a slow kernel: a timeout only bounds a wait).
# Use instead of fixed sleeps:
#	wait_for --timeout 5 ip netns exec h1 ping -c1 -W1 10.0.0.2
#	wait_for test -e /tmp/ready --timeout 3
wait_for() {
	local tmo=10 iv=0.1 args=() deadline now
	while [ $# -gt 0 ]; do
		case $1 in
		--timeout) tmo=$2; shift 2 ;;
		--interval) iv=$2; shift 2 ;;
		*) args+=("$1"); shift ;;
		esac
	done
	[ ${#args[@]} -gt 0 ] || { echo "wait_for: no command" >&2; return 2; }
	[[ $tmo =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)$ ]] ||
		{ echo "wait_for: bad timeout '$tmo'" >&2; return 2; }
	[ "$SLOW" = 1 ] || tmo=$(scaled_time "$tmo")
	# deadline in microseconds; the timeout may have a fraction
	deadline=$(( ${EPOCHREALTIME//[.,]/} + $(_lib_us "$tmo") ))
	while :; do
		"${args[@]}" >/dev/null 2>&1 && return 0
		now=${EPOCHREALTIME//[.,]/}
		[ "$now" -ge "$deadline" ] && return 1
		sleep "$iv"
	done
}

# _lib_num X: succeed if X looks like a number.
_lib_num() {
	[[ $1 =~ ^[[:blank:]]*[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?[[:blank:]]*$ ]]
}

# _lib_us SECONDS: SECONDS (a plain decimal like 2 or 0.25) in microseconds.
_lib_us() {
	local i=${1%%.*} f=
	[[ $1 == *.* ]] && f=${1#*.}
	f=${f}000000
	echo $(( 10#${i:-0} * 1000000 + 10#${f:0:6} ))
}

# _lib_int X: X is an integer that bash arithmetic holds exactly.
_lib_int() { [[ $1 =~ ^-?[0-9]{1,17}$ ]]; }

# _lib_cmp NAME A OP B NOTOP MSG: fail unless A OP B (numbers, awk compare).
_lib_cmp() {
	local name=$1 a=$2 op=$3 b=$4 notop=$5 msg=${6:-$1}
	_lib_num "$a" && _lib_num "$b" || fail "$msg: not a number: '$a' or '$b'"
	if _lib_int "$a" && _lib_int "$b"; then
		# integers (most counters): no awk
		if (( 10#${a#-} * ${a%%[0-9]*}1 $op 10#${b#-} * ${b%%[0-9]*}1 )); then
			log "ok: $msg: $a $op $b"
		else
			fail "$msg: $a $notop $b"
		fi
	elif awk -v a="$a" -v b="$b" "BEGIN { exit !(a + 0 $op b + 0) }"; then
		log "ok: $msg: $a $op $b"
	else
		fail "$msg: $a $notop $b"
	fi
}

# assert_ge A B MSG: fail unless A >= B (integers or floats).
assert_ge() { _lib_cmp assert_ge "$1" ">=" "$2" "<" "${3:-}"; }

# assert_le A B MSG: fail unless A <= B.
assert_le() { _lib_cmp assert_le "$1" "<=" "$2" ">" "${3:-}"; }

# assert_lt A B MSG: fail unless A < B.
assert_lt() { _lib_cmp assert_lt "$1" "<" "$2" ">=" "${3:-}"; }

# xfail_on_slow CMD...: run CMD, an assertion about how well the emulated
# network performs (a rate within a few percent, a share, Jain's index, a
# queue level, a ratio of PAUSE frames).  On a guest that cannot keep the
# emulation's time (DCBLAB_MACHINE_SLOW=yes, which `make check-debug` sets:
# KASAN, lockdep and kmemleak leave the TCG guest CPU-bound, so flows run
# at what the CPU allows, not at what the congestion control decides) a
# failure is logged as "XFAIL: ..." and the test goes on; the runner reports
# the count.  Everywhere else CMD fails the test as usual.  Assertions about
# safety and correctness (drops on a lossless band, data verified, every
# transfer completed, counters that must agree) never go through this.
# The kernel's selftests do the same with KSFT_MACHINE_SLOW.
xfail_on_slow() {
	local out rc

	[ "${DCBLAB_MACHINE_SLOW:-no}" = yes ] || { "$@"; return; }
	out=$("$@" 2>&1)
	rc=$?
	[ $rc = 0 ] || out=${out//FAIL: /XFAIL: }
	[ -z "$out" ] || printf '%s\n' "$out"
	return 0
}

# The CPU guard.  In virtual time every emulated host shares the guest's
# one CPU: while that CPU is saturated, rates and queues measure how fast
# the hosts run, not what the emulated network does.  cpu_mark starts the
# measurement at the start of the traffic; cpu_busy prints the kernel's
# busy share since then in percent (all CPUs; system, interrupt and
# softirq time: the packet processing of every emulated host.  User time
# is left out: perftest polls its completion queue and keeps the CPU busy
# whatever the load, and a polling process gives way to the kernel's
# packet work).  The share is sampled by tools/cpusample, at a period
# of 997 us of CPU time, not read from /proc/stat: /proc/stat splits busy
# time by what the 250 Hz scheduler tick finds running, and in virtual
# time packet work driven by exact timers can keep a fixed phase to the
# tick, so that identical runs read very different shares (testing.rst,
# "The CPU guard").  Without tools/cpusample (not built) /proc/stat is
# read, with a warning.
# cpu_guard LABEL logs it,
# appends "LABEL<TAB>busy%" to $DCBLAB_CPU_LOG (guest-runner and dcblab
# record it with the results) and fails the test when it is above
# DCBLAB_CPU_BOUND percent (default 85; Documentation/testing.rst, "The
# CPU guard"), or only warns with DCBLAB_CPU_GUARD=warn (scenarios) or
# on a slow kernel (DCBLAB_MACHINE_SLOW=yes: check-debug's guest is
# CPU-bound by design, see xfail_on_slow).
DCBLAB_CPU_BOUND=${DCBLAB_CPU_BOUND:-85}
_lib_cpu_read() {	# _lib_cpu_read: "kernel total" jiffies of all CPUs
	local cpu u n s i w q sq st rest
	read -r cpu u n s i w q sq st rest </proc/stat
	echo "$((s + q + sq + st)) $((u + n + s + i + w + q + sq + st))"
}
# _lib_cpus_stop: end the sampler of the last cpu_mark, if any
_lib_cpus_stop() {
	[ -n "${_LIB_CPUS_PID:-}" ] || return 0
	kill "$_LIB_CPUS_PID" 2>/dev/null
	exec {_LIB_CPUS_FD}<&-
	_LIB_CPUS_PID=
}
cpu_mark() {
	local fifo line
	_lib_cpus_stop
	_LIB_CPU0=$(_lib_cpu_read)
	if [ ! -x "$TOP/tools/cpusample" ]; then
		echo "WARNING: $TOP/tools/cpusample not built (make tools): the CPU guard reads /proc/stat's tick-sampled times" >&2
		return 0
	fi
	fifo=$(mktemp -u "${TMPDIR:-/tmp}/cpusample.XXXXXX")
	mkfifo -m 600 "$fifo" || fail "mkfifo $fifo"
	exec {_LIB_CPUS_FD}<>"$fifo"
	# not a child of this shell: a test's bare `wait` must not wait for it
	("$TOP/tools/cpusample" "$fifo" --while "$BASHPID" &)
	read -r -t 30 -u "$_LIB_CPUS_FD" line
	rm -f "$fifo"
	case $line in
	"ready "*)
		_LIB_CPUS_PID=${line#ready }
		[ -n "${_LIB_CPUS_AT_EXIT:-}" ] || { at_exit _lib_cpus_stop; _LIB_CPUS_AT_EXIT=1; } ;;
	*)
		exec {_LIB_CPUS_FD}<&-
		fail "tools/cpusample did not start: ${line:-no answer in 30 s}" ;;
	esac
}
cpu_busy() {
	local line
	if [ -n "${_LIB_CPUS_PID:-}" ]; then
		if ! kill -USR1 "$_LIB_CPUS_PID" 2>/dev/null ||
		   ! read -r -t 30 -u "$_LIB_CPUS_FD" line; then
			echo "tools/cpusample (pid $_LIB_CPUS_PID) did not answer" >&2
			return 1
		fi
		# "KERNEL USER IDLE SAMPLES LOST", KERNEL with one decimal:
		# printed rounded to a whole percent
		if [[ ! $line =~ ^([0-9]+)\.([0-9])\  ]]; then
			echo "tools/cpusample: unexpected answer '$line'" >&2
			return 1
		fi
		echo $(( BASH_REMATCH[1] + (BASH_REMATCH[2] >= 5) ))
		return
	fi
	_lib_cpu_ticks
}
# _lib_cpu_ticks: the kernel's busy share since cpu_mark from /proc/stat
_lib_cpu_ticks() {
	local b0 t0 b1 t1
	read -r b0 t0 <<<"${_LIB_CPU0:-0 0}"
	read -r b1 t1 <<<"$(_lib_cpu_read)"
	[ $((t1 - t0)) -gt 0 ] || { echo 0; return; }
	echo $(( (100 * (b1 - b0) + (t1 - t0) / 2) / (t1 - t0) ))
}
cpu_guard() {
	local label=${1:-traffic} busy ticks=''
	busy=$(cpu_busy) || fail "cpu guard: no measurement during $label"
	[ -z "${_LIB_CPUS_PID:-}" ] ||
		ticks="; /proc/stat's tick samples: $(_lib_cpu_ticks)%"
	[ -z "${DCBLAB_CPU_LOG:-}" ] ||
		printf '%s\t%s\n' "$label" "$busy" >>"$DCBLAB_CPU_LOG" 2>/dev/null
	if [ "$busy" -le "$DCBLAB_CPU_BOUND" ]; then
		log "cpu guard: guest kernel busy $busy% during $label (bound $DCBLAB_CPU_BOUND%$ticks)"
	elif [ "${DCBLAB_CPU_GUARD:-fail}" = warn ] || [ "${DCBLAB_MACHINE_SLOW:-no}" = yes ]; then
		echo "WARNING: guest kernel busy $busy% during $label$ticks, above the CPU guard's $DCBLAB_CPU_BOUND%: the run measured the emulated hosts' CPU, not the network" >&2
	else
		fail "guest kernel busy $busy% during $label$ticks, above the CPU guard's $DCBLAB_CPU_BOUND%: the run measured the emulated hosts' CPU, not the network"
	fi
}

# clock_spin: in virtual time, keep the guest's CPU from halting until
# the test's (or scenario's) shell exits: tools/idlespin spins at
# SCHED_IDLE, so every other task and all kernel work go first.  While a
# virtual-time guest's CPU is halted its clock follows the host's, and a
# timer due then fires when the host wakes qemu, late by what the host's
# load makes of that wake-up (tools/idlespin.h; testing.rst, "The two
# clocks").  Flows that block or sleep (iperf3, a sender on a shaped
# qdisc) call it when they start; tools/udpflow forks the same spinner
# itself, and perftest polls.  DCBLAB_IDLESPIN=0 turns it off.
clock_spin() {
	[ -n "${DCBLAB_ICOUNT:-}" ] && [ "${DCBLAB_IDLESPIN:-1}" != 0 ] || return 0
	[ -z "${_LIB_SPIN:-}" ] || return 0
	if [ ! -x "$TOP/tools/idlespin" ]; then
		echo "WARNING: $TOP/tools/idlespin not built (make tools): idle time follows the host's clock" >&2
		return 0
	fi
	# not a child of this shell: a test's bare `wait` must not wait for it
	("$TOP/tools/idlespin" --while "$$" </dev/null >/dev/null 2>&1 &)
	_LIB_SPIN=1
}

# assert_within_pct A B PCT MSG: fail unless |A - B| <= PCT% of |B|.
assert_within_pct() {
	_lib_num "$1" && _lib_num "$2" && _lib_num "$3" ||
		fail "${4:-assert_within_pct}: not a number: '$1', '$2' or '$3'"
	if awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN {
		d = a - b; if (d < 0) d = -d
		m = b; if (m < 0) m = -m
		exit !(d <= m * p / 100 + 1e-9 * (m + 1)) }'; then
		log "ok: ${4:-assert_within_pct}: $1 within $3% of $2"
	else
		fail "${4:-assert_within_pct}: $1 not within $3% of $2"
	fi
}

# lab_py MODULE ARG...: python3 -m dcbanalysis.MODULE (Debian's python3,
# the repository's package).
lab_py() {
	PYTHONPATH=$TOP/scripts${PYTHONPATH:+:$PYTHONPATH} \
		/usr/bin/python3 -m "dcbanalysis.$1" "${@:2}"
}

# exp_run OUT NAME KEY=VALUE...: the experiment NAME of the Python layer
# (scripts/dcbnet/experiments/NAME.py) run into the folder OUT with those
# knobs, then its tidy rows (metric,value,unit) into OUT/rows.csv.  Its
# CPU guard fails the run unless DCBLAB_CPU_GUARD=warn (or on a slow
# machine), as cpu_guard does.
exp_run() {
	local out=$1 name=$2
	shift 2
	mkdir -p "$out" || return 1
	PYTHONPATH=$TOP/scripts /usr/bin/python3 -m dcbnet run "$name" "$out" "$@" &&
		PYTHONPATH=$TOP/scripts /usr/bin/python3 -m dcbnet analyze "$name" \
			"$out" "$@" >"$out/rows.csv"
}

# exp_out: sets OUT to the test's folder for an experiment's files,
# build/selftests/net/TEST_NAME (DCBLAB_BUILD's when set), emptied; it stays
# after the test for a look at what the run wrote.
exp_out() {
	OUT=${DCBLAB_BUILD:-$TOP/build}/selftests/net/$(basename "$0" .sh)
	rm -rf "$OUT"
}

# exp_row OUT METRIC [SETTING]: METRIC's value in OUT/rows.csv (exp_run),
# of SETTING for an experiment of several (its fourth column); ends the
# test when it is missing.
exp_row() {
	awk -F, -v m="$2" -v s="${3:-}" '$1 == m && (s == "" || $4 == s) {
		print $2; f = 1; exit } END { exit !f }' "$1/rows.csv" 2>/dev/null ||
		fail "no metric $2${3:+ of $3} in $1/rows.csv"
}

# lab_metrics COMMAND ARG...: the experiments' metrics from their raw
# files (samples, dcbmon CSVs, traces): scripts/dcbanalysis/cmpmetrics.py,
# on Python's standard library, so quick to start in the guest; the
# host's analysers use the same code.
lab_metrics() { lab_py cmpmetrics "$@"; }

# tc_rate_bps RATE, tc_size_bytes SIZE: a tc rate (40mbit, 10mbps =
# bytes/s, 1000) in bit/s, a tc size (16kb = 16384, 1mb, 1500, 8kbit) in
# bytes; fail on a bad value.  One parser for the shell and the analysis
# (scripts/dcbanalysis/units.py).
tc_rate_bps() { _lib_units rate "$1"; }
tc_size_bytes() { _lib_units size "$1"; }
_lib_units() { lab_py units "$1" "$2" || fail "bad $1 '$2'"; }

# Tracepoints.  Switching an event on or off patches kernel text on every
# CPU (its static key and static call, text_poke_bp), and under TCG that
# once hung a guest for minutes (CPU 0 stuck on the int3, soft lockups, RCU
# stall).  So the tests switch an event on at most once per module load and
# never off: tr_on clears its filter, tr_mute sets a filter nothing passes.
# TR is the tracefs mount.
tr_mount() {
	[ -n "${TR:-}" ] && [ -d "$TR/events" ] && return 0
	TR=/sys/kernel/tracing
	[ -d $TR/events ] || mount -t tracefs nodev $TR 2>/dev/null ||
		TR=/sys/kernel/debug/tracing
	[ -d $TR/events ]
}

# tr_on EVENT [FILTER]: record EVENT (a subsystem or subsystem/event under
# events/), filtered by FILTER, with the ring buffer on.  Returns 1 if the
# event does not exist.
tr_on() {
	local d on
	tr_mount || return 1
	d=$TR/events/$1
	[ -d "$d" ] || return 1
	echo "${2:-0}" >"$d/filter" || return 1
	read -r on <"$d/enable"
	[ "$on" = 1 ] || echo 1 >"$d/enable"
	# an earlier test may have stopped the ring buffer (pfc_trace_on
	# does at exit); recording needs it on
	read -r on <"$TR/tracing_on"
	[ "$on" = 1 ] || echo 1 >"$TR/tracing_on"
}

# tr_mute EVENT...: EVENT records nothing more (a filter no event passes;
# missing events, e.g. of an unloaded module, are skipped).
tr_mute() {
	local e
	tr_mount || return 0
	for e in "$@"; do
		[ -d "$TR/events/$e" ] || continue
		echo 'common_pid < 0' >"$TR/events/$e/filter" 2>/dev/null
	done
	return 0
}
