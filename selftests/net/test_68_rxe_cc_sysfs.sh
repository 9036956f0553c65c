#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 200
#
# cc/ knobs read and written while cc/algo switches.  Selecting an
# algorithm removes the directory of the previous one while holding the
# selection lock; if a knob's show or store took that lock too, both
# tasks (and then device removal) would hang.  Steps:
#   fixed_ref   selecting the built-in algorithm fixed takes no reference
#               on rdma_rxe (it would keep the module from being
#               unloaded);
#   concurrent  two readers read every file of cc/ and cc/<algo>/ in a
#               loop, a writer writes every knob back, a third task
#               switches cc/algo between fixed, dcqcn and none, for
#               RXE68_SECS seconds: every task ends in time, the switcher
#               switched;
#   deletions   the device is deleted under a reader and the switcher,
#               RXE68_DELETES (8) times: `rdma link delete` returns in
#               time, the directory goes, the tasks end.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

need_cmd rdma
load_dcqcn
rxe_topo 1
SECS=${RXE68_SECS:-20}
D=/sys/class/infiniband/${RXE_DEV[s1]}/cc
[ -d "$D/.." ] || fail "no $D"

# fixed is built in: selecting it pins nothing
fixed_ref()
{
	local ref0 ref1
	ref0=$(cat /sys/module/rdma_rxe/refcnt)
	check_assert rxe_cc s1 algo fixed
	ref1=$(cat /sys/module/rdma_rxe/refcnt)
	check_assert rxe_cc s1 algo none
	[ "$ref1" = "$ref0" ]
	check_err $? "selecting fixed took a reference on rdma_rxe (refcnt $ref0 -> $ref1)"
	[ "$RET" = 0 ] && log "ok: fixed does not pin rdma_rxe (refcnt $ref0)"
}

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
# shellcheck disable=SC2317  # for wait_for
all_done()
{
	local p
	for p in "${pids[@]}"; do
		kill -0 "$p" 2>/dev/null && return 1
	done
	return 0
}
# shellcheck disable=SC2317  # for wait_for
dev_gone() { [ ! -d "$D" ]; }
# shellcheck disable=SC2317  # for wait_for
dev_back() { [ -f "$D/algo" ]; }

# readers, a writer and the algo switcher together for SECS seconds
concurrent()
{
	local f
	defer_scope_push
	reader 1 & pids+=($!)
	reader 2 & pids+=($!)
	writer & pids+=($!)
	switcher & pids+=($!)
	defer "kill ${pids[*]} 2>/dev/null"
	if ! wait_for --timeout $((SECS + $(safety_margin 60))) all_done; then
		check_err 1 "cc/ readers, writers or the algo switcher hung (sysfs deadlock?)"
		defer_scope_pop
		return
	fi
	wait "${pids[@]}"
	defer_scope_pop
	for f in reader1 reader2 writer switcher; do
		[ -s "$TMPD/$f" ]
		check_err $? "$f did not finish"
	done
	log "$SECS s: readers $(cat "$TMPD/reader1") and $(cat "$TMPD/reader2") passes, writer $(cat "$TMPD/writer"), $(cat "$TMPD/switcher") algo switches"
	check_assert assert_ge "$(cat "$TMPD/switcher")" 10 "algo switches"
}

# deletion I: the device goes under the tasks in pids, which then end
deletion()
{
	if ! timeout 60 ip netns exec "$(topo_ns s1)" rdma link delete "${RXE_DEV[s1]}"; then
		check_err 1 "deletion $1: rdma link delete did not return in 60 s"
		return
	fi
	if ! wait_for --timeout 60 dev_gone; then
		check_err 1 "deletion $1: $D still there"
		return
	fi
	kill "${pids[@]}" 2>/dev/null
	wait_for --timeout 30 all_done
	check_err $? "deletion $1: cc/ users hung after the device went"
}

# The device goes while a reader and the switcher still run, DELETES
# times (the device is added again in between).  A switch that creates
# cc/<algo>/ while device_del() removes the device's sysfs tree could use
# the new directory after the removal freed it (an oops in
# kobject_add_internal()).
deletions()
{
	local i
	if ! all_done; then
		check_err 1 "the tasks of step concurrent still run"
		return
	fi
	SECS=600
	for i in $(seq 1 "$DELETES"); do
		defer_scope_push
		reader 3 & pids=($!)
		switcher & pids+=($!)
		defer "kill ${pids[*]} 2>/dev/null"
		sleep 0.$((RANDOM % 10))
		deletion "$i"
		defer_scope_pop
		[ "$RET" = 0 ] || return
		[ "$i" = "$DELETES" ] && break
		if ! topo_exec s1 rdma link add "${RXE_DEV[s1]}" type rxe netdev eth0; then
			check_err 1 "rdma link add after deletion $i"
			return
		fi
		if ! wait_for --timeout 20 dev_back; then
			check_err 1 "no $D/algo after re-adding"
			return
		fi
	done
	log "ok: device deleted $DELETES times under cc/ readers and the algo switcher"
}

DELETES=${RXE68_DELETES:-8}
fixed_ref
log_test fixed_ref
concurrent
log_test concurrent
deletions
log_test deletions

tests_exit
