#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 200
#
# cc/ knobs read and written while cc/algo switches.  Two readers read
# every file of cc/ and cc/<algo>/ in a loop, a writer writes every knob
# back, a third task switches cc/algo between fixed, dcqcn and none, for
# RXE68_SECS seconds; then the device is deleted under a reader and the
# switcher, RXE68_DELETES (8) times.  Selecting an algorithm
# removes the directory of the previous one while holding the selection
# lock; if a knob's show or store took that lock too, both tasks (and
# then device removal) would hang.  Asserted: every task ends in time,
# the switcher switched, `rdma link delete` returns in time.  Also:
# selecting the built-in algorithm fixed takes no reference on rdma_rxe
# (it would keep the module from being unloaded).
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

need_cmd rdma
load_dcqcn
rxe_topo 1
SECS=${RXE68_SECS:-20}
D=/sys/class/infiniband/${RXE_DEV[s1]}/cc
[ -d "$D/.." ] || fail "no $D"

ref0=$(cat /sys/module/rdma_rxe/refcnt)
rxe_cc s1 algo fixed
ref1=$(cat /sys/module/rdma_rxe/refcnt)
rxe_cc s1 algo none
[ "$ref1" = "$ref0" ] ||
	fail "selecting fixed took a reference on rdma_rxe (refcnt $ref0 -> $ref1)"
log "ok: fixed does not pin rdma_rxe (refcnt $ref0)"

# bash builtins only (read, echo): a fork per file would leave few races
reader()
{
	local f v end=$((SECONDS + SECS)) n=0
	while [ "$SECONDS" -lt "$end" ]; do
		for f in "$D"/* "$D"/*/*; do
			[ -f "$f" ] && read -r v <"$f"
		done
		n=$((n + 1))
	done 2>/dev/null
	echo "$n" >"$TMPD/reader$1"
}

writer()
{
	local f v end=$((SECONDS + SECS)) n=0
	while [ "$SECONDS" -lt "$end" ]; do
		for f in "$D"/* "$D"/*/*; do
			case ${f##*/} in algo|available_algos) continue ;; esac
			[ -f "$f" ] && read -r v <"$f" && echo "$v" >"$f"
		done
		n=$((n + 1))
	done 2>/dev/null
	echo "$n" >"$TMPD/writer"
}

switcher()
{
	local a end=$((SECONDS + SECS)) n=0
	while [ "$SECONDS" -lt "$end" ]; do
		for a in fixed dcqcn none dcqcn fixed none; do
			echo "$a" >"$D/algo" && n=$((n + 1))
		done
	done 2>/dev/null
	echo "$n" >"$TMPD/switcher"
}

pids=()
reader 1 & pids+=($!)
reader 2 & pids+=($!)
writer & pids+=($!)
switcher & pids+=($!)
all_done()
{
	local p
	for p in "${pids[@]}"; do
		kill -0 "$p" 2>/dev/null && return 1
	done
	return 0
}
wait_for --timeout $((SECS + 60)) all_done ||
	fail "cc/ readers, writers or the algo switcher hung (sysfs deadlock?)"
wait "${pids[@]}"
for f in reader1 reader2 writer switcher; do
	[ -s "$TMPD/$f" ] || fail "$f did not finish"
done
log "$SECS s: readers $(cat "$TMPD/reader1") and $(cat "$TMPD/reader2") passes, writer $(cat "$TMPD/writer"), $(cat "$TMPD/switcher") algo switches"
assert_ge "$(cat "$TMPD/switcher")" 10 "algo switches"

# The device goes while a reader and the switcher still run, DELETES
# times (the device is added again in between).  A switch that creates
# cc/<algo>/ while device_del() removes the device's sysfs tree could use
# the new directory after the removal freed it (an oops in
# kobject_add_internal(), seen once in 6540 switches and one deletion).
SECS=600
DELETES=${RXE68_DELETES:-8}
for i in $(seq 1 "$DELETES"); do
	reader 3 & pids=($!)
	switcher & pids+=($!)
	sleep 0.$((RANDOM % 10))
	timeout 60 ip netns exec "$(topo_ns s1)" rdma link delete "${RXE_DEV[s1]}" ||
		fail "deletion $i: rdma link delete did not return in 60 s"
	wait_for --timeout 60 eval '[ ! -d "$D" ]' || fail "deletion $i: $D still there"
	kill "${pids[@]}" 2>/dev/null
	wait_for --timeout 30 all_done || fail "deletion $i: cc/ users hung after the device went"
	[ "$i" = "$DELETES" ] && break
	topo_exec s1 rdma link add "${RXE_DEV[s1]}" type rxe netdev eth0 ||
		fail "rdma link add after deletion $i"
	wait_for --timeout 20 eval '[ -f "$D/algo" ]' || fail "no $D/algo after re-adding"
done
log "ok: device deleted $DELETES times under cc/ readers and the algo switcher"
exit "$ksft_pass"
