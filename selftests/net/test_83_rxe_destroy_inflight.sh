#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
#
# QPs destroyed, and rdma_rxe unloaded, while the network still holds the
# packets they sent.  A tbf at 1 kbit/s on s1's link holds the packets of
# an ib_write_bw (as a PAUSEd port does) until the test releases them
# (rate raised, or qdisc deleted); ib_write_bw is killed meanwhile.
# (netem would not do: it orphans the packets it delays, which runs their
# destructor at once.)  Steps:
#   destroy_held  the QPs are destroyed while their packets are held, in
#                 less than rxe's 50 s wait for a QP's references: a
#                 packet in flight must not keep its QP (rxe waited for
#                 them, then freed the QP under them: the destructor read
#                 the freed QP and, on 6.1, the freed socket: KASAN on
#                 the debug kernel);
#   release       released, the packets leave (their destructor runs on a
#                 destroyed QP's socket) and no QP is left;
#   unload_held   `rmmod rdma_rxe` with packets held waits for them (it
#                 says so in the kernel log) and finishes once they are
#                 freed: the destructor is the module's code.
# The runner fails the test on any kernel report (KASAN, refcount, ...).
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

need_cmd rdma ib_write_bw jq
load_rxe
rxe_topo 1
# rxe's bounded wait for a QP's references (rxe_pool.c), in seconds
RXE_WAIT=50

# qd JQ: JQ applied to the stats of s1's root qdisc
qd() { topo_exec s1 tc -s -j qdisc show dev eth0 root | jq "$1"; }
held() { qd '.[0].qlen // 0'; }
held_some() { [ "$(held)" -ge "$1" ]; }
left_ge() { [ "$(qd '.[0].packets')" -ge "$1" ]; }
# s1_gone: the processes of s1 that were killed (S1_PIDS) have exited or
# are zombies.  A killed ib_write_bw exits once uverbs has destroyed its
# QP; neither `ip netns pids` (it has left the namespace by then) nor
# restrack (the QP is forgotten before the driver destroys it) tell.
S1_PIDS=
s1_gone()
{
	local p
	for p in $S1_PIDS; do
		[ -r "/proc/$p/status" ] || continue
		grep -q '^State:[[:space:]]*Z' "/proc/$p/status" || return 1
	done
	return 0
}
sent_more() { [ "$(rxe_cnt s1 sent_pkts)" -gt "$1" ]; }
# hold RATE: s1's link at RATE (a tbf that takes 10 MB)
hold() { topo_exec s1 tc qdisc replace dev eth0 root tbf rate "$1" burst 4kb limit 10mb; }

# traffic PORT: ib_write_bw s1 -> r; once it sends, s1's link at 1 kbit/s;
# returns (0) when the link holds packets of it
traffic()
{
	local p0
	rxe_bw_start s1 "$1" 120
	rxe_bw_clients 120
	p0=$(rxe_cnt s1 sent_pkts)
	if ! wait_for --timeout 60 sent_more $((p0 + 100)); then
		check_err 1 "port $1: ib_write_bw did not start sending"
		return 1
	fi
	if ! hold 1kbit; then
		check_err 1 "tc qdisc replace tbf"
		return 1
	fi
	wait_for --timeout 30 held_some 16 && return 0
	check_err 1 "port $1: s1's link holds $(held) packets"
	return 1
}

# kill_bw: kill both ends of the transfer: uverbs destroys their QPs
kill_bw()
{
	S1_PIDS=$(ip netns pids "$(topo_ns s1)")
	if [ -z "$S1_PIDS" ]; then
		check_err 1 "no process in s1 to kill"
		return 1
	fi
	rxe_kill_all
	wait
	RXE_BW_PIDS=()
	RXE_BW_SRV=()
}

# packets still held when the test ends (a step failed) are released
# before the processes and namespaces go
defer 'topo_exec s1 tc qdisc del dev eth0 root 2>/dev/null'

# destroy with packets held; N_IN: the packets that entered s1's link
# before the QP went (for release)
N_IN=
destroy_held()
{
	local t0 ms n
	traffic 18701 || return
	log "s1's link holds $(held) packets of its QP; killing ib_write_bw"
	t0=${EPOCHREALTIME/[.,]/}
	kill_bw || return
	N_IN=$(qd '.[0].packets + .[0].qlen')
	if ! wait_for --timeout $((RXE_WAIT * 2)) s1_gone; then
		check_err 1 "s1's QP not destroyed"
		return
	fi
	ms=$(((${EPOCHREALTIME/[.,]/} - t0) / 1000))
	n=$(held)
	[ "$n" -gt 0 ]
	check_err $? "the link let the packets go before the QP was destroyed"
	[ "$ms" -lt $((RXE_WAIT * 1000 * 9 / 10)) ]
	check_err $? "s1's QP destroyed after $ms ms, with $n packets held: destroy waits for packets in flight"
	[ "$RET" = 0 ] && log "ok: s1's QP destroyed in $ms ms while $n of its packets are held"
}

# released, the packets leave; their destructors run on the destroyed
# QP's socket (what the link sends later, TCP's FIN for one, not counted)
release()
{
	if [ -z "$N_IN" ]; then
		check_err 1 "no packets held: destroy_held did not kill ib_write_bw"
		return
	fi
	if ! hold 100mbit; then
		check_err 1 "tc qdisc change tbf"
		return
	fi
	if wait_for --timeout 60 left_ge "$N_IN"; then
		log "ok: the $N_IN packets that entered the link before the QP went left it"
	else
		check_err 1 "s1's link still holds $(held) packets"
	fi
	wait_for --timeout 30 no_qps
	check_err $? "QPs left: s1 $(rxe_nqp s1), r $(rxe_nqp r)"
	topo_exec s1 tc qdisc del dev eth0 root
	check_err $? "tc qdisc del tbf"
}

# unload with packets held (until the test frees them)
unload_held()
{
	local h m n mark rm_pid
	# what a failed step before left held goes first
	[ "$(held)" = 0 ] || topo_exec s1 tc qdisc del dev eth0 root 2>/dev/null
	traffic 18702 || return
	kill_bw || return
	if ! wait_for --timeout $((RXE_WAIT * 2)) s1_gone; then
		check_err 1 "s1's QP not destroyed"
		return
	fi
	if ! wait_for --timeout 30 no_qps; then
		check_err 1 "QPs left: s1 $(rxe_nqp s1), r $(rxe_nqp r)"
		return
	fi
	for h in s1 r; do
		if ! topo_exec "$h" rdma link delete "${RXE_DEV[$h]}"; then
			check_err 1 "rdma link delete in $h"
			return
		fi
	done
	n=$(held)
	if ! [ "$n" -gt 0 ]; then
		check_err 1 "the link let the packets go before the unload"
		return
	fi
	for m in /sys/module/rdma_rxe/holders/*; do
		[ -e "$m" ] || continue
		if ! rmmod "${m##*/}"; then
			check_err 1 "rmmod ${m##*/}"
			return
		fi
	done
	mark="test_83 unload $$ $RANDOM"
	echo "$mark" >/dev/kmsg
	rmmod rdma_rxe >"$TMPD/rmmod" 2>&1 &
	rm_pid=$!
	# shellcheck disable=SC2317  # for wait_for
	rm_done() { ! kill -0 "$rm_pid" 2>/dev/null; }
	# shellcheck disable=SC2317  # for wait_for
	waiting() { dmesg | sed -n "/$mark/,\$p" | grep -q 'waiting for [0-9]* sent packets to be freed'; }
	if wait_for --timeout 60 waiting; then
		if rm_done; then
			check_err 1 "rmmod returned while packets were held"
		else
			log "ok: rmmod waits for the $(held) held packets"
		fi
	else
		check_err 1 "rmmod did not say it waits for the $n held packets (rmmod: $(cat "$TMPD/rmmod"))"
	fi
	# the packets are freed in any case: rmmod must finish then
	topo_exec s1 tc qdisc del dev eth0 root
	check_err $? "tc qdisc del tbf"
	if ! wait_for --timeout 60 rm_done; then
		check_err 1 "rmmod still waiting after the packets were freed"
		return
	fi
	wait "$rm_pid"
	check_err $? "rmmod rdma_rxe failed: $(cat "$TMPD/rmmod")"
	[ ! -d /sys/module/rdma_rxe ]
	check_err $? "rdma_rxe still loaded"
	[ "$RET" = 0 ] && log "ok: rmmod finished once the packets were freed"
}

destroy_held
log_test destroy_held
release
log_test release
unload_held
log_test unload_held

tests_exit
