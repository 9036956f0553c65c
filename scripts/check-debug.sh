#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/check-debug.sh [selftests/run.sh options] - `make check-debug`:
# the test suite on the debug kernel (KASAN, KFENCE, lockdep, kmemleak,
# UBSAN, debug objects; scripts/debug-kernel.sh builds it once and caches
# it outside the repository).
#
# DCBLAB_DEBUG_FLAVOUR=kcsan (`make check-kcsan`) runs on the KCSAN
# flavour of that kernel instead (KCSAN in place of KASAN, the rest
# alike) and, unless --filter is given, only the concurrency-heavy tests
# of KCSAN_TESTS below: that is its suite, for --coverage and --remaining
# too.  Its build directory is build/debug-kcsan.
#
# Our modules are built for that kernel in $DCBLAB_BUILD (default
# build/debug: sch_dcb from links to sch_dcb/, rdma_rxe and the algorithms
# as `make rxe` builds them), so the tree's own build for `make check`
# stays as it is.  Test timeouts are scaled by DCBLAB_TIMEOUT_SCALE
# (default 6: the checkers slow the guest down, and the tests scaled by
# DCBLAB_SLOW run about that much longer), and the fuzzers send
# DCBLAB_FUZZ_COUNT cases (default 2000).  Logs and TAP results
# go to $DCBLAB_BUILD/selftests.
#
# Each guest test's result is appended to a ledger ($DCBLAB_DEBUG_LEDGER,
# default $DCBLAB_BUILD/check-debug.tsv) with the git trees of sch_dcb/ and
# rxe_cc/ it ran on and the kernel (its release names the flavour:
# -dcblab-debug is kasan, -dcblab-kcsan kcsan), so that a suite run in
# parts, on different days or machines, can be added up:
#
#   check-debug.sh --coverage [LEDGER...]   which tests of the suite passed
#                                           on the current kernel trees
#                                           and this flavour's kernel
#   check-debug.sh --remaining [OPTIONS]    run only the others
#   check-debug.sh --record RUN_OUTPUT...   add a saved run's results (the
#                                           run writes $DCBLAB_BUILD/run.out)
#
# Both read that ledger and the project's record of earlier runs,
# notebook/check-debug.tsv (lines copied from ledgers).

set -euo pipefail

TOP=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd -P)

FLAVOUR=${DCBLAB_DEBUG_FLAVOUR:-kasan}
case $FLAVOUR in
kasan) export DCBLAB_BUILD=${DCBLAB_BUILD:-$TOP/build/debug} ;;
kcsan) export DCBLAB_BUILD=${DCBLAB_BUILD:-$TOP/build/debug-kcsan} ;;
*) echo "check-debug: unknown DCBLAB_DEBUG_FLAVOUR '$FLAVOUR' (kasan or kcsan)" >&2; exit 2 ;;
esac
export DCBLAB_DEBUG_FLAVOUR=$FLAVOUR
# The KCSAN pass: the tests where our code runs in several contexts at once
# (Documentation/testing.rst, "KCSAN: make check-kcsan").
#   PFC across ports   test_40 (8 ingress ports of one pool, PAUSE both
#                      ways), test_41 (PAUSE spreading over two switches),
#                      test_47 (netlink reconfiguration of ports sharing a
#                      pool under traffic), test_48 (PAUSE frames received
#                      while the port transmits)
#   pacer and CNP      test_62 (CNPs, NP and RP), test_64 (200 paced QPs),
#                      test_72 (PCN's NP timer and CNPs), test_97 (pacer
#                      and window)
#   teardown           test_45 (PFC ports replaced and removed under
#                      traffic), test_67 (paced QPs killed mid-transfer),
#                      test_83 (QPs destroyed, rdma_rxe unloaded, packets
#                      in flight)
#   sysfs              test_68 (cc/ knobs while cc/algo switches and the
#                      device goes), test_80 (the sysfs fuzzer with QP
#                      churn, module loads and device deletes)
KCSAN_TESTS='test_40_pfc_incast|test_41_pfc_tree|test_45_pfc_teardown|test_47_dcb_nl_fuzz|test_48_pfc_frame_fuzz|test_62_rxe_cnp|test_64_rxe_many_qps|test_67_rxe_qp_destroy|test_68_rxe_cc_sysfs|test_72_rxe_pcn|test_80_rxe_sysfs_fuzz|test_83_rxe_destroy_inflight|test_97_rxe_pacer_hold'
LEDGER=${DCBLAB_DEBUG_LEDGER:-$DCBLAB_BUILD/check-debug.tsv}
LEDGER_HEAD=$'date\tcommit\tsch_dcb\trxe_cc\tkernel\ttest\tresult\tseconds\tnote'

# tree_of DIR: the git tree of DIR at HEAD, with a "+" when the work tree
# differs from it (uncommitted kernel code is no code base to count on)
tree_of() {
	local t
	t=$(git -C "$TOP" rev-parse -q --short=12 "HEAD:$1" 2>/dev/null) || t=none
	git -C "$TOP" diff --quiet HEAD -- "$1" 2>/dev/null || t=$t+
	echo "$t"
}

# The tests make check-debug (or check-kcsan) runs in the guest, one name
# per line
suite_tests() {
	local f=
	[ "$FLAVOUR" != kcsan ] || f="^net/($KCSAN_TESTS)\$"
	DCBLAB_CHECK_DEBUG=1 bash "$TOP/selftests/run.sh" --guest-only --list ${f:+--filter "$f"} |
		sed 's|^net/||'
}

# coverage_table LEDGER...: for each test of the suite the newest ledger
# line on the current trees and a kernel of this flavour (its release's
# -dcblab-NAME; debug, or none, is kasan: the lines from before flavours);
# a test is covered when that line is a pass.
# Prints a table and "N of M covered"; the uncovered names go to fd 3.
coverage_table() {
	local sch rxe
	sch=$(tree_of sch_dcb) rxe=$(tree_of rxe_cc)
	case "$sch$rxe" in
	*+*|*none*)
		echo "check-debug: kernel code is not committed (sch_dcb $sch," \
			"rxe_cc $rxe): nothing counts" >&2
		suite_tests >&3
		return 1 ;;
	esac
	awk -F'\t' -v sch="$sch" -v rxe="$rxe" -v flavour="$FLAVOUR" \
		-v list="$(suite_tests | paste -sd' ')" '
	BEGIN { n = split(list, order, " ") }
	$1 == "date" || $3 != sch || $4 != rxe { next }
	{
		k = $5; sub(/\/.*/, "", k); f = "kasan"
		if (match(k, /-dcblab-[a-z0-9]+$/)) f = substr(k, RSTART + 8)
		if (f == "debug") f = "kasan"
		if (f != flavour) next
	}
	{
		if (!($6 in last) || $1 >= date[$6]) {
			last[$6] = $7; date[$6] = $1; secs[$6] = $8
			note[$6] = $9
		}
		if ($7 == "fail") fails[$6]++
	}
	END {
		printf "sch_dcb %s, rxe_cc %s, %s kernel\n", sch, rxe, flavour
		for (i = 1; i <= n; i++) {
			t = order[i]
			if (!(t in last)) {
				printf "  %-28s not run\n", t
				print t > "/dev/fd/3"
				continue
			}
			f = fails[t] ? sprintf(" (%d failed run(s))", fails[t]) : ""
			printf "  %-28s %-4s %8s s  %s%s%s\n", t, last[t], secs[t],
				substr(date[t], 1, 10), f,
				note[t] == "" ? "" : "  " note[t]
			if (last[t] == "ok") ok++
			else print t > "/dev/fd/3"
		}
		printf "%d of %d covered\n", ok, n
		exit ok == n ? 0 : 1
	}' "$@"
}

# The ledgers to add up by default: this build's and the project's record
ledgers() {
	local f
	for f in "$TOP/notebook/check-debug.tsv" "$LEDGER"; do
		[ ! -r "$f" ] || echo "$f"
	done
}

# full_hash H: H as 12 hex digits when git knows it ("+" kept)
full_hash() {
	local h=${1%+} t
	t=$(git -C "$TOP" rev-parse -q --short=12 "$h^{object}" 2>/dev/null) || t=$h
	[ "$h" = "$1" ] || t=$t+
	echo "$t"
}

# record OUT: append to the ledger one line per guest test that reported in
# OUT, the output of a check-debug.sh run (its "check-debug:" lines name
# the kernel and the trees; TAP "ok"/"not ok" lines and "# net/NAME: Ns"
# give each result and time).  The date is OUT's mtime: the run's end.
record() {
	local out=$1 k c commit sch rxe modified kdir_run
	k=$(sed -n 's/^check-debug: guest kernel \([^ ]*\) (\(.*\))$/\1 \2/p' "$out" | head -n1)
	c=$(sed -n 's/^check-debug: commit \([^,]*\), kernel code sch_dcb \([^ ]*\) rxe_cc \([^ ]*\)\(.*\)$/\1 \2 \3 \4/p' "$out" | head -n1)
	if [ -z "$k" ] || [ -z "$c" ]; then
		echo "check-debug: $out is not the output of a check-debug run" >&2
		return 2
	fi
	read -r commit sch rxe modified <<<"$c"
	# (an older format said "(modified)" for either tree)
	if [ -n "${modified:-}" ]; then sch=$sch+ rxe=$rxe+; fi
	kdir_run=${k#* }
	[ -s "$LEDGER" ] || echo "$LEDGER_HEAD" >"$LEDGER"
	awk -v date="$(date -u -r "$out" +%Y-%m-%dT%H:%M:%SZ)" \
		-v commit="$(full_hash "$commit")" -v sch="$(full_hash "$sch")" \
		-v rxe="$(full_hash "$rxe")" \
		-v kernel="${k%% *}/$(basename "$(dirname "$kdir_run")")" '
	/^(not )?ok [0-9]+ - net\// {
		name = $0; sub(/^(not )?ok [0-9]+ - net\//, "", name)
		note = ""
		if (match(name, / # /)) {
			note = substr(name, RSTART + 3); name = substr(name, 1, RSTART - 1)
		}
		res[name] = /^not ok/ ? "fail" : (note ~ /^SKIP/ ? "skip" : "ok")
		gsub(/\t/, " ", note); why[name] = note; order[++n] = name
	}
	# (the runner appends ", guest CPU N% busy, ..." since d06ba38;
	# older outputs end at the time)
	/^# net\/[^ ]+: [0-9.]+s(,|$)/ {
		t = $2; sub(/^net\//, "", t); sub(/:$/, "", t)
		sec = $3; sub(/,$/, "", sec); sub(/s$/, "", sec); secs[t] = sec
	}
	END {
		for (i = 1; i <= n; i++) {
			t = order[i]
			printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", date, commit,
				sch, rxe, kernel, t, res[t], (t in secs) ? secs[t] : "",
				why[t]
		}
		printf "check-debug: %d result(s) recorded in %s\n", n, ledger > "/dev/stderr"
	}' ledger="$LEDGER" "$out" >>"$LEDGER"
}

case ${1:-} in
--coverage)
	shift
	for f in "$@"; do
		[ -r "$f" ] || { echo "check-debug: no ledger $f" >&2; exit 2; }
	done
	[ $# -gt 0 ] || mapfile -t argv < <(ledgers)
	[ $# -gt 0 ] || set -- "${argv[@]}" /dev/null
	coverage_table "$@" 3>/dev/null
	exit ;;
--record)
	shift
	[ $# -gt 0 ] || { echo "usage: check-debug.sh --record RUN_OUTPUT..." >&2; exit 2; }
	for f in "$@"; do record "$f"; done
	exit ;;
--remaining)
	shift
	for a in "$@"; do
		case $a in
		--filter*|--shard*|--unit-only)
			echo "check-debug: --remaining chooses the tests itself" >&2
			exit 2 ;;
		esac
	done
	mapfile -t argv < <(ledgers)
	todo=$(coverage_table "${argv[@]}" /dev/null 3>&1 >/dev/null | paste -sd'|') || true
	if [ -z "$todo" ]; then
		echo "check-debug: every test is covered ($LEDGER)"
		exit 0
	fi
	set -- --guest-only --filter "^net/($todo)\$" "$@" ;;
esac

# The KCSAN pass runs its own list unless the tests are chosen here.
if [ "$FLAVOUR" = kcsan ]; then
	f=
	for a in "$@"; do
		case $a in --filter*|--unit-only) f=1 ;; esac
	done
	[ -n "$f" ] || set -- --guest-only --filter "^net/($KCSAN_TESTS)\$" "$@"
fi

kdir=$(bash "$TOP/scripts/debug-kernel.sh" --flavour "$FLAVOUR" --print-kdir)
export DCBLAB_TIMEOUT_SCALE=${DCBLAB_TIMEOUT_SCALE:-6}
# Timing-sensitive tests scale their rates down and durations up by this
# (scripts/lib/common.sh, scaled_rate / scaled_time).
export DCBLAB_SLOW=${DCBLAB_SLOW:-5}
# The guest is CPU-bound there: assertions about how well the emulation
# performs (rates, shares, Jain's index, queue levels) are logged as XFAIL
# instead of failing (scripts/lib/common.sh, xfail_on_slow); safety and
# correctness assertions and the kernel-report checks stay as they are.
export DCBLAB_MACHINE_SLOW=${DCBLAB_MACHINE_SLOW:-yes}
# More fuzz cases than make check can afford.
export DCBLAB_FUZZ_COUNT=${DCBLAB_FUZZ_COUNT:-2000}
# ... and the tests marked `# suite: debug` (the fuzzers) run too.
export DCBLAB_CHECK_DEBUG=1
sch=$DCBLAB_BUILD/sch_dcb

mkdir -p "$sch"
rm -f "$sch"/*.[ch] "$sch/Kbuild" "$sch/uapi"
for f in "$TOP"/sch_dcb/*.[ch] "$TOP/sch_dcb/Kbuild" "$TOP/sch_dcb/uapi"; do
	ln -s "$f" "$sch/"
done
make -C "$kdir" M="$sch" W=1 modules
make -C "$TOP" KDIR="$kdir" rxe user man

export DCBLAB_DCB_KO=$sch/sch_dcb.ko DCBLAB_GUEST_KERNEL=$kdir
# The run's output, kept for the ledger (record) with these first lines.
out=$DCBLAB_BUILD/run.out
echo "check-debug: guest kernel $(cat "$kdir/include/config/kernel.release") ($kdir)" | tee "$out"
# What ran: a suite run in parts (--shard, --remaining) covers one code
# base when these match across the parts ("+": uncommitted changes).
echo "check-debug: commit $(git -C "$TOP" rev-parse -q --short=12 HEAD 2>/dev/null || echo none)," \
	"kernel code sch_dcb $(tree_of sch_dcb) rxe_cc $(tree_of rxe_cc)" | tee -a "$out"
set +e
bash "$TOP/selftests/run.sh" "$@" | tee -a "$out"
rc=${PIPESTATUS[0]}
set -e

record "$out" || echo "check-debug: results not recorded (see above)" >&2
exit "$rc"
