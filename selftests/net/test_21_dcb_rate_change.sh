#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# `tc qdisc change ... rate` restarts the shaper's clock, as tbf does.
# Step:
#   rate raised      at 8 bit/s one 1042-byte datagram holds the port
#                    for 17 minutes; with three more queued behind it,
#                    raising the rate to 100 Mbit/s sends them within 10 s
#                    (the departure timed at the old rate does not hold
#                    the port), and the change drops nothing.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"

need_cmd jq
load_dcb
dcb_topo 1

drained() { [ "$(dcb_stat backlog_bytes)" = 0 ]; }

rate_raised()
{
	local s0 s1 q t0 t1 deq drops
	dcb_set rate 8bit
	s0=$(dcb_snap)
	# four datagrams of 1042 bytes on the wire, back to back: the first
	# leaves at once, the others wait 1042 s each at 8 bit/s
	topo_exec s1 "$TOP/tools/udpflow" send "$RIP" 9 \
		--count 4 --interval 0 --len 1000 >/dev/null
	if ! wait_for --timeout 10 backlog_at_least 3000; then
		check_err 1 "fewer than 3 packets queued at 8 bit/s: $(dcb_stat backlog_bytes) B"
		return
	fi
	q=$(dcb_stat backlog_packets)
	t0=${EPOCHREALTIME//[.,]/}
	if ! dcb_tc qdisc change dev "$PORT" root dcb rate 100mbit; then
		check_err 1 "tc qdisc change rate 100mbit"
		return
	fi
	wait_for --timeout 10 drained
	check_err $? "$(dcb_stat backlog_packets) of $q packets still queued 10 s after the rate went from 8 bit/s to 100 Mbit/s"
	t1=${EPOCHREALTIME//[.,]/}
	s1=$(dcb_snap)
	deq=$(dcb_delta "$s0" "$s1" deq_packets)
	drops=$(( $(dcb_delta "$s0" "$s1" drops_tail) + $(dcb_delta "$s0" "$s1" drops_wred) ))
	log "$q packets queued at 8 bit/s; $(( (t1 - t0) / 1000 )) ms from the change to 100 Mbit/s to the end of the wait, $deq dequeued in all, $drops dropped"
	check_assert assert_ge "$deq" 4 "datagrams dequeued"
	check_assert assert_le "$drops" 0 "packets dropped across the change"
}

rate_raised
log_test "rate raised"

tests_exit
