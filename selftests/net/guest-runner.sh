#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/net/guest-runner.sh - run the kselftest-style network tests.
# Normally started by selftests/run.sh inside one scripts/vm-run guest:
#
#   guest-runner.sh [--start N] [--results DIR] [--slot K] [TEST...]
#
# TEST is a name (test_00_guest_smoke), a file name or a path; default: every
# selftests/net/test_*.sh in order.  For each test: per-test timeout (the
# timeout= of selftests/net/settings, 300 s, or a `# timeout: N` line in
# the test), output to DIR/net/<name>.log,
# namespaces and links the test leaves behind are removed, the netdevs of
# the deleted namespaces must be freed within TEARDOWN_MAX s, and kernel log
# lines matching $DMESG_RE since the test started fail it, and so does a
# kmemleak report (debug kernel) that names our modules.  Prints TAP lines
# numbered from N (default 1) and appends "N<TAB>name<TAB>ok|fail|skip<TAB>
# reason<TAB>seconds<TAB>cpu<TAB>guard<TAB>processes" to DIR/results.tsv as each test
# finishes (a passed test's reason is empty, or "XFAIL N ..." when N
# assertions failed as expected on a slow kernel; seconds is the test
# script's time on the guest's clock, before the namespace and kernel log
# checks; cpu the guest's CPU busy share over the test in percent; guard
# the highest busy share the test's CPU guard measured during its traffic
# (scripts/lib/common.sh, cpu_guard), empty when it has none; processes
# how many processes it started).  With
# --slot K (selftests/run.sh runs several guests side by side) the file is
# DIR/results-K.tsv and the running test's name is in DIR/current-K.
# The guest's emulated NICs (scripts/vm-run --nic-pairs) are brought home
# after each test (scripts/lib/nics.sh, nics_home), under their names.
# Exit 1 if any failed.

set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
TOP=$(cd "$HERE/../.." && pwd -P)
RESULTS=${DCBLAB_BUILD:-$TOP/build}/selftests
START=1
DEFAULT_TIMEOUT=${SELFTESTS_TIMEOUT:-$(sed -n 's/^timeout=\([0-9][0-9]*\)$/\1/p' \
	"$HERE/settings" 2>/dev/null | tail -n1)}
DEFAULT_TIMEOUT=${DEFAULT_TIMEOUT:-300}
# Kernel reports that fail a test: oopses and warnings (lockdep splats, debug
# objects and suspicious RCU usage print "WARNING:"; KASAN, KFENCE and
# sleeping-in-atomic print "BUG:"; SLUB's own checks "BUG CACHE (Not
# tainted): ..."), UBSAN, hung tasks and RCU stalls.
DMESG_RE='BUG:|BUG [^ ]+ \((Not tainted|Tainted: )|WARNING:|Oops|general protection|refcount_t|KASAN|UBSAN|KFENCE|list_del corruption|ODEBUG|INFO: task .* blocked for more than|rcu: INFO:|detected stalls? on CPU|soft lockup'
# ... but not a user process's general protection fault, which the kernel
# logs as "traps: COMM[PID] general protection fault ip:..." (perftest's
# rdma_cm clients crash in librdmacm now and then: rxe_cc.rst).
USER_TRAP_RE='traps: [^ ]+\[[0-9]+\] general protection fault ip:'
# A netdev of a deleted namespace whose references are not all given back:
# the kernel logs this every 10 s while it waits for them.
NETDEV_WAIT_RE='unregister_netdevice: waiting for .* to become free'
# How long after a test its namespaces may take to go (seconds, times
# DCBLAB_TIMEOUT_SCALE): a netdev still waited for then is a leak.
TEARDOWN_MAX=${DCBLAB_TEARDOWN_MAX:-60}
# Our modules, as kmemleak names them in a backtrace; an address it cannot
# name (0xffffffffc...) is module text already unloaded, which in this
# suite means ours too.
KMEMLEAK_OURS_RE='\[(sch_dcb|rdma_rxe|rxe_cc_[a-z]+)\]|\] 0xffffffff[a-f]'
KMEMLEAK=/sys/kernel/debug/kmemleak
# shellcheck source=../../scripts/lib/nics.sh
. "$TOP/scripts/lib/nics.sh"
HEADER=0
SLOT=

while [ $# -gt 0 ]; do
	case $1 in
	--start) START=$2; shift 2 ;;
	--results) RESULTS=$2; shift 2 ;;
	--tap-header) HEADER=1; shift ;;
	--slot) SLOT=$2; shift 2 ;;
	--) shift; break ;;
	-*) echo "guest-runner: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done

TESTS=()
if [ $# -eq 0 ]; then
	for t in "$HERE"/test_*.sh; do
		[ -e "$t" ] && TESTS+=("$t")
	done
else
	for t in "$@"; do
		t=${t##*/}
		t=${t%.sh}
		[ -f "$HERE/$t.sh" ] || { echo "guest-runner: no test $HERE/$t.sh" >&2; exit 2; }
		TESTS+=("$HERE/$t.sh")
	done
fi

mkdir -p "$RESULTS/net"
TSV=$RESULTS/results${SLOT:+-$SLOT}.tsv
CURRENT=$RESULTS/current${SLOT:+-$SLOT}
[ "$START" != 1 ] && [ -z "$SLOT" ] || : >"$TSV"

if [ "$HEADER" = 1 ]; then
	echo "TAP version 13"
	echo "1..${#TESTS[@]}"
fi

# What runs between two tests is bash builtins where it can be: a process
# start costs about 0.1 s in a TCG guest, and this runs 40 times.

# A test's timeout: its `# timeout: N` line or the default, times
# DCBLAB_TIMEOUT_SCALE (make check-debug: the debug kernel is slower).
test_timeout() {
	local line t=
	while IFS= read -r line; do
		[[ $line =~ ^#[[:space:]]*timeout:[[:space:]]*([0-9]+) ]] || continue
		t=${BASH_REMATCH[1]}
		break
	done <"$1"
	echo $(( ${t:-$DEFAULT_TIMEOUT} * ${DCBLAB_TIMEOUT_SCALE:-1} ))
}

# now_us: the guest's clock in microseconds
now_us() { echo "${EPOCHREALTIME//[.,]/}"; }

# cpu_jiffies: the guest's busy and total CPU time (jiffies, /proc/stat;
# niced time is not busy: it is tools/idlespin, the virtual-time guest's
# stand-in for its idle loop, scripts/lib/common.sh's clock_spin)
# and the processes created since boot (each costs several ms of wall time
# in a TCG guest, an exec far more: the number says where a test's wall
# time goes)
cpu_jiffies() {
	local c u n s i w q sq st rest k v forks=0
	read -r c u n s i w q sq st rest </proc/stat
	while read -r k v rest; do
		[ "$k" = processes ] && { forks=$v; break; }
	done </proc/stat
	echo "$((u + s + q + sq + st)) $((u + n + s + i + w + q + sq + st)) $forks"
}

# Kernel log lines since the marker line MARK (the whole buffer when the
# marker has already rotated out: then everything in it is newer).
dmesg_since() {
	dmesg 2>/dev/null | awk -v m="$1" 'index($0, m) { buf = ""; next } { buf = buf $0 "\n" } END { printf "%s", buf }'
}

# kmemleak_scan LAST: on a kernel with kmemleak, scan now and print the
# unreferenced objects allocated by our modules (and clear the list, so each
# test is charged only with its own leaks).  Objects younger than kmemleak's
# minimum age (5 s) are only reported by the next scan, so before the last
# test's scan wait for them.
kmemleak_scan() {
	[ -w "$KMEMLEAK" ] || return 0
	[ "$1" = 0 ] || sleep 6
	echo scan >"$KMEMLEAK" 2>/dev/null || return 0
	awk -v re="$KMEMLEAK_OURS_RE" '
		/^unreferenced object/ { if (ours) printf "%s", obj; obj = ""; ours = 0 }
		{ obj = obj $0 "\n"; if ($0 ~ re) ours = 1 }
		END { if (ours) printf "%s", obj }
	' "$KMEMLEAK"
	echo clear >"$KMEMLEAK" 2>/dev/null
}

# kernel_reports: the kernel reports among the log lines on stdin (the
# first five)
kernel_reports() {
	# (the patterns through the environment: awk -v would take their
	# backslashes as escapes)
	RE=$DMESG_RE TRAP=$USER_TRAP_RE awk \
		'$0 ~ ENVIRON["RE"] && $0 !~ ENVIRON["TRAP"] && n < 5 { print; n++ }'
}

# charge TITLE TEXT REASON: the test fails for REASON (listed first); TEXT
# goes to its log under TITLE
charge() {
	printf '# --- %s ---\n%s\n' "$1" "$2" >>"$log"
	bad=$(printf '%s\n%s' "$3" "$bad")
}

# teardown_wait MARK: wait until the kernel has stopped waiting for the
# references of the netdevs the test's namespaces took with them.  Deleting
# a namespace only starts its teardown (the kernel's cleanup_net work); a
# netdev is freed once its users are gone (an rxe device, for one, after
# the RDMA core's unregister work, which waits for every process that had
# it open).  While a netdev waits, the kernel logs NETDEV_WAIT_RE every
# 10 s: done when it has not for 12 s.  Prints how long the teardown
# outlasted the test ("" when the kernel never waited) and returns 1 when
# the netdev was still waited for after TEARDOWN_MAX seconds (scaled).
teardown_wait() {
	local mark=$1 max t_end last now
	max=$(( TEARDOWN_MAX * ${DCBLAB_TIMEOUT_SCALE:-1} ))
	t_end=$(cut -d' ' -f1 /proc/uptime)
	while :; do
		last=$(dmesg_since "$mark" | grep -E "$NETDEV_WAIT_RE" |
			sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p' | tail -n1)
		[ -n "$last" ] || return 0
		now=$(cut -d' ' -f1 /proc/uptime)
		if awk -v n="$now" -v l="$last" 'BEGIN { exit !(n - l > 12) }'; then
			awk -v n="$now" -v e="$t_end" 'BEGIN { printf "%.0f\n", n - e }'
			return 0
		fi
		if awk -v n="$now" -v e="$t_end" -v m="$max" 'BEGIN { exit !(n - e > m) }'; then
			echo "$max"
			return 1
		fi
		sleep 1
	done
}

# debug_locks: 1 while lockdep checks locking, 0 once a report (any that
# taints, or lockdep's own) has switched it off for the rest of the boot,
# "" on a kernel without lockdep
debug_locks() {
	local k v
	[ -r /proc/lockdep_stats ] || return 0
	while read -r k v; do
		[ "$k" != debug_locks: ] || { echo "$v"; return 0; }
	done </proc/lockdep_stats
}

# The named namespaces (what `ip netns list` lists: /run/netns) and the
# links of this, the initial, namespace (its sysfs), one per line.
netns_list() { local f; for f in /run/netns/*; do [ -e "$f" ] && echo "${f##*/}"; done; }
link_list() { local f; for f in /sys/class/net/*; do [ -e "$f" ] && echo "${f##*/}"; done; }

# Remove what a test left behind: namespaces and root-namespace links that
# did not exist before it ran (BEFORE_NS, BEFORE_LINKS: name -> 1).
declare -A BEFORE_NS BEFORE_LINKS
cleanup_after() {
	local ns l pids
	for ns in $(netns_list); do
		[ -z "${BEFORE_NS[$ns]:-}" ] || continue
		echo "guest-runner: removing leftover netns $ns"
		pids=$(ip netns pids "$ns" 2>/dev/null || true)
		[ -z "$pids" ] || kill -KILL $pids 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	# NICs the namespaces had come back under other names
	nics_home || echo "guest-runner: NICs: $NICS_ERR"
	for l in $(link_list); do
		[ -z "${BEFORE_LINKS[$l]:-}" ] || continue
		echo "guest-runner: removing leftover link $l"
		ip link del "$l" 2>/dev/null
	done
}

# A report the kernel printed before the first test (at boot, say) is
# charged to the first test: besides the bug it shows, its taint may have
# switched lockdep off for the whole run.  So is a taint by a memory
# report (B, bit 5) without a line the patterns know.
boot_bad=$(dmesg 2>/dev/null | kernel_reports)
if [ -z "$boot_bad" ] && [ $(($(cat /proc/sys/kernel/tainted 2>/dev/null || echo 0) & 32)) != 0 ]; then
	boot_bad="kernel tainted B (a memory report) before the first test"
fi

KREL=$(uname -r)
n=$START
failed=0
teardown_stuck=0
held_bad=
for t in "${TESTS[@]}"; do
	name=${t##*/}
	name=${name%.sh}
	log=$RESULTS/net/$name.log
	tmo=$(test_timeout "$t")
	mark="dcblab-selftest: begin $name $$.$RANDOM"
	echo "$mark" >/dev/kmsg 2>/dev/null
	echo "net/$name" >"$CURRENT"
	cpulog=$RESULTS/net/$name.cpu
	: >"$cpulog"
	BEFORE_NS=()
	for l in $(netns_list); do BEFORE_NS[$l]=1; done
	BEFORE_LINKS=()
	for l in $(link_list); do BEFORE_LINKS[$l]=1; done
	locks0=$(debug_locks)

	t0=$(now_us)
	read -r cb0 ct0 pr0 <<<"$(cpu_jiffies)"
	{
		echo "# $name (timeout ${tmo}s) on $KREL, $(TZ=UTC0 printf '%(%Y-%m-%dT%H:%M:%SZ)T' -1)"
		cd "$TOP"
		# timeout(1) runs the test in its own process group; kill
		# whatever of that group is left afterwards.
		if [ -x "$t" ]; then
			DCBLAB_CPU_LOG=$cpulog timeout -k 10 "$tmo" "$t" </dev/null &
		else
			DCBLAB_CPU_LOG=$cpulog timeout -k 10 "$tmo" bash "$t" </dev/null &
		fi
		pid=$!
		wait $pid
		rc=$?
		kill -KILL -- -$pid 2>/dev/null
	} >"$log" 2>&1
	# (the braces run in this shell: rc is the test's)
	secs=$(( ($(now_us) - t0 + 50000) / 100000 ))
	secs=$((secs / 10)).$((secs % 10))
	read -r cb1 ct1 pr1 <<<"$(cpu_jiffies)"
	cpu=$(( ct1 > ct0 ? (100 * (cb1 - cb0) + (ct1 - ct0) / 2) / (ct1 - ct0) : 0 ))
	guard=
	while IFS=$'\t' read -r _ b; do
		[ -n "$b" ] && { [ -z "$guard" ] || [ "$b" -gt "$guard" ]; } && guard=$b
	done <"$cpulog"
	rm -f "$cpulog"

	cleanup_after >>"$log" 2>&1
	kmsg=$(dmesg_since "$mark")
	held=
	# (teardown_wait reads the log again while the kernel waits)
	if [ "$teardown_stuck" = 0 ] && [[ $kmsg =~ $NETDEV_WAIT_RE ]]; then
		if ! held=$(teardown_wait "$mark"); then
			# cleanup_net stays blocked: later tests would wait too
			teardown_stuck=1
			held_bad="a netdev's references still held ${held}s after the test"
		fi
		kmsg=$(dmesg_since "$mark")
	fi

	{
		echo "# --- kernel log during $name ---"
		printf '%s\n' "$kmsg"
	} >>"$log"
	bad=$(printf '%s\n' "$kmsg" | kernel_reports)
	if [ -n "$boot_bad" ]; then
		charge "kernel reports before the first test" "$boot_bad" \
			"before the first test: $(head -n1 <<<"$boot_bad" | sed 's/^\[[^]]*\] *//')"
		boot_bad=
	fi
	if [ -n "$held_bad" ]; then
		charge "RDMA devices and resources left" \
			"$(ls /sys/class/infiniband 2>/dev/null; rdma resource show 2>&1)" "$held_bad"
		held_bad=
	elif [ -n "$held" ]; then
		echo "# teardown: the kernel waited for netdev references until ${held}s after the test" >>"$log"
	fi
	last=0
	[ "$t" != "${TESTS[-1]}" ] || last=1
	leaks=$(kmemleak_scan $last)
	[ -z "$leaks" ] || charge "kmemleak: unreferenced objects of our modules" "$leaks" \
		"kmemleak: $(grep -c '^unreferenced object' <<<"$leaks") unreferenced object(s) of our modules"

	# A test that ran with lockdep off was not checked for locking bugs:
	# it fails, after whatever switched lockdep off (charged to the test
	# during which that happened).
	locks1=$(debug_locks)
	lock_bad=
	if [ "$locks0" = 0 ]; then
		lock_bad="lockdep was off during the whole test (an earlier report switched it off)"
	elif [ "$locks1" = 0 ]; then
		lock_bad="lockdep switched itself off during the test"
	fi
	if [ -n "$lock_bad" ]; then
		printf '# --- lock checking ---\n%s\n' "$lock_bad" >>"$log"
		bad=${bad:+$bad$'\n'}$lock_bad
	fi

	reason=
	case $rc in
	0) status=ok
	   # assertions a slow kernel turned into XFAIL (scripts/lib/common.sh, xfail_on_slow)
	   nx=$(grep -c '^XFAIL: ' "$log")
	   [ "$nx" = 0 ] ||
		reason="XFAIL $nx on a slow kernel: $(grep -m1 '^XFAIL: ' "$log" | sed 's/^XFAIL: //')" ;;
	4) status=skip
	   reason=$(grep -E '^SKIP: ' "$log" | tail -n1 | sed 's/^SKIP: //')
	   [ -n "$reason" ] || reason="skipped" ;;
	124|137) status=fail; reason="timeout after ${tmo}s" ;;
	*) status=fail
	   reason=$(grep -E '^FAIL: ' "$log" | tail -n1 | sed 's/^FAIL: //')
	   [ -n "$reason" ] || reason="exit status $rc" ;;
	esac
	if [ -n "$bad" ]; then
		kreason="kernel log: $(head -n1 <<<"$bad" | sed 's/^\[[^]]*\] *//')"
		if [ "$status" = fail ]; then
			reason="$reason; $kreason"
		else
			status=fail
			reason=$kreason
		fi
	fi
	reason=${reason//$'\t'/ }
	reason=${reason//$'\n'/ }

	case $status in
	ok) echo "ok $n - net/$name${reason:+ # $reason}" ;;
	skip) echo "ok $n - net/$name # SKIP $reason" ;;
	fail)
		failed=$((failed + 1))
		echo "not ok $n - net/$name # $reason"
		echo "# --- last lines of $log ---"
		sed '/^# --- kernel log during /,$d' "$log" | tail -n 30 | sed 's/^/#   /'
		[ -z "$bad" ] || { echo "# kernel log:"; sed 's/^/#   /' <<<"$bad"; }
		;;
	esac
	echo "# net/$name: ${secs}s, guest CPU ${cpu}% busy${guard:+, ${guard}% in its traffic}, $((pr1 - pr0)) processes"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "net/$name" "$status" "$reason" "$secs" \
		"$cpu" "$guard" "$((pr1 - pr0))" >>"$TSV"
	rm -f "$CURRENT"
	n=$((n + 1))
done

[ $failed -eq 0 ]
