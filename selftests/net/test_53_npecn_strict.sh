#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# NP-ECN exempts exactly the packets that waited through a PAUSE, also
# when strict priority hides the paused band from the dequeue.  Step:
#   hidden pause     r pauses band 3 of the switch port toward it (a
#                    crafted PFC frame, 0xffff quanta: 134 s at 250 kbit/s);
#                    s1 sends 800 datagrams in band 6 (27 s), which stays
#                    backlogged throughout, then 20 ECT datagrams in band
#                    3 (np-ecn, K 1 KB); r resumes band 3; s1 sends 10
#                    more in band 3.  Once drained: the 20 that waited
#                    through the pause left unmarked (np_unmarked +20),
#                    and of the 10 queued after the RESUME those that
#                    left with more than K behind them were CE-marked
#                    (ecn_marked between 1 and 10).
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"

need_cmd jq
load_dcb
dcb_topo 1
FRAMES=$TOP/selftests/net/pfc_frames.py

drained() { [ "$(dcb_stat backlog_bytes)" = 0 ]; }
b3_queued() { [ "$(dcb_stat backlog_packets 3)" -ge "$1" ]; }
rx_at_least() { [ "$(dcb_stat "$1" 3)" -ge "$2" ]; }
# send N TOS: s1 sends N datagrams of 1000 bytes with TOS to r
send() {
	topo_exec s1 "$TOP/tools/udpflow" send "$RIP" 9 \
		--count "$1" --interval 0 --tos "$2" --len 1000 >/dev/null
}

hidden_pause()
{
	local s0 s1 unmarked marked b6
	dcb_set rate 250kbit band 3 ecn np-ecn k 1kb
	s0=$(dcb_snap 3)
	topo_exec r /usr/bin/python3 "$FRAMES" one eth0 pause 0xffff
	if ! wait_for --timeout 10 rx_at_least pause_rx 1; then
		check_err 1 "the switch port did not take r's PAUSE"
		return
	fi
	send 800 0xc0		# DSCP 48: band 6, not ECT
	send 20 0x62		# DSCP 24: band 3, ECT(0)
	if ! wait_for --timeout 10 b3_queued 20; then
		check_err 1 "20 datagrams not queued in band 3: $(dcb_stat backlog_packets 3)"
		return
	fi
	b6=$(dcb_stat backlog_packets 6)
	topo_exec r /usr/bin/python3 "$FRAMES" one eth0 resume
	if ! wait_for --timeout 10 rx_at_least resume_rx 1; then
		check_err 1 "the switch port did not take r's RESUME"
		return
	fi
	send 10 0x62
	# the premise: band 6 hid band 3 from the dequeue until after these
	b6="$b6 $(dcb_stat backlog_packets 6)"
	log "band 6 backlog (packets) when band 3 held 20 and after the last send: $b6"
	[ "${b6##* }" -gt 0 ] ||
		check_err 1 "band 6 drained before the test's last datagrams: the dequeue looked at band 3"
	if ! wait_for --timeout 60 drained; then
		check_err 1 "the port did not drain"
		return
	fi
	s1=$(dcb_snap 3)
	unmarked=$(dcb_delta "$s0" "$s1" np_unmarked)
	marked=$(dcb_delta "$s0" "$s1" ecn_marked)
	log "band 3: $(dcb_delta "$s0" "$s1" deq_packets) dequeued, np_unmarked +$unmarked, ecn_marked +$marked"
	check_assert assert_ge "$unmarked" 20 "band-3 datagrams let go unmarked (queued during the pause)"
	check_assert assert_le "$unmarked" 20 "band-3 datagrams let go unmarked (queued during the pause)"
	check_assert assert_ge "$marked" 1 "band-3 datagrams queued after the RESUME and CE-marked"
	check_assert assert_le "$marked" 10 "band-3 datagrams CE-marked"
}

hidden_pause
log_test "hidden pause"

tests_exit
