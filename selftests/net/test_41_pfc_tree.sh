#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
#
# PAUSE spreads hop by hop (a congestion tree) and hurts a victim flow
# (DCQCN paper Fig. 4, PCN Fig. 1): the pfc_tree experiment
# (scripts/dcbnet/experiments/pfc_tree.py, also `dcblab run pfc_tree`).
#
#   s1 s2 s3  v                 s4 s5
#    \  |  | /                   | /
#       sw1 ------------------- sw2 ---- r     (congested: sw2 -> r)
#                                 \
#                                  vr          (victim's receiver)
#
# s1..s5 send at line rate to r; v sends to vr and never crosses the
# congested port sw2 -> r.  All links 100 Mb/s, PFC on band 3 everywhere.
# One run; steps over its rows:
#   victim alone      the victim's flow arrives, and alone it gets at
#                     least 90% of its line rate (limited by its own NIC,
#                     not starved; a performance check);
#   victim slowed     with s1..s5 sending, the victim's sender is paused
#                     and its throughput is below half its throughput
#                     alone (the paper's Fig. 4: halved with no sender
#                     beside the incast's; a performance check);
#   no drop           once the queues drained, no drop anywhere;
#   pause hop by hop  counters at each hop: sw2 pauses sw1 (sw2's port
#                     toward sw1 pause_tx, sw1's port toward sw2 pause_rx
#                     and paused_us), sw1 then pauses its hosts (sw1's
#                     host ports pause_tx, the hosts' NICs paused_us),
#                     including the victim's sender v, sw2 pauses s4 and
#                     s5, and the victim's receiver vr is never paused.
. "$(dirname "$0")/lib.sh"

need_mininet
load_dcb

# line rate, PFC delay and windows scaled on a slow kernel (DCBLAB_SLOW,
# lib.sh): the same headroom in bytes; sch_dcb's default PAUSE delay
# (5 ms), scaled with the rate
RATE=$(scaled_rate 100mbit)
WIN=${PFC41_WINDOW:-$(scaled_time 1)}	# seconds per measurement window
# no dcbmon series (interval_ms=0): its sampling stalls the guest's
# forwarding, and the old tests measured without it
KNOBS=(rate="$RATE" delay="$(scaled_time 5ms)" window="$WIN" interval_ms=0)
OUT=$TMPD/pfc-tree

# r METRIC: the run's value
r() { exp_row "$OUT" "$1"; }
# ran: the run left its rows (the first step reported it otherwise)
ran() { [ -s "$OUT/rows.csv" ] || { check_err 1 "no pfc_tree run to look at"; return 1; }; }

# the victim alone (line rate: limited by its own shaped NIC)
victim_alone()
{
	exp_run "$OUT" pfc_tree "${KNOBS[@]}"
	check_err $? "the pfc_tree experiment failed (the victim's flow did not arrive, the CPU guard, the queues did not drain: see above)"
	[ "$RET" = 0 ] || return
	log "victim alone: $(r victim_rate.alone) Mb/s on the wire over $(r window) s (guest busy $(r cpu_busy.alone) %)"
	check_perf_assert assert_ge "$(r victim_rate.alone)" \
		"$(awk -v b="$(rate_bps "$RATE")" 'BEGIN { print b * 0.9 / 1e6 }')" "victim alone (Mb/s)"
}

# the incast: the victim's rate while its sender is paused
victim_slowed()
{
	ran || return
	log "victim during the incast: $(r victim_rate.incast) Mb/s (guest busy $(r cpu_busy.incast) %);" \
		"incast senders $(grep '^goodput\.' "$OUT/rows.csv" | cut -d, -f1,2 | paste -sd' ')"
	check_assert assert_ge "$(r pause_rx.nic-v)" 1 "the victim's sender was paused (sw2->sw1 pause_tx $(r pause_tx.sw2-sw1))"
	log "victim throughput during / alone = $(r victim_share)"
	check_perf_assert assert_le "$(r victim_share)" 0.5 "victim's throughput during the incast relative to alone"
}

no_drop()
{
	ran || return
	check_assert assert_le "$(r drops_all)" 0 "drops anywhere ($(grep '^drops_all\.' "$OUT/rows.csv" | paste -sd' '))"
}

pause_hop_by_hop()
{
	local h sw
	ran || return
	log "sw2 port toward sw1: pause_tx $(r pause_tx.sw2-sw1)"
	log "sw1 port toward sw2: pause_rx $(r pause_rx.sw1-sw2) paused_us $(r paused_us.sw1-sw2)"
	for h in s1 s2 s3 v s4 s5; do
		sw=sw1; case $h in s4|s5) sw=sw2;; esac
		log "  $h: $sw port pause_tx $(r pause_tx.$sw-$h), NIC pause_rx $(r pause_rx.nic-$h) paused_us $(r paused_us.nic-$h)"
	done
	check_assert assert_ge "$(r pause_tx.sw2-sw1)" 1 "sw2 paused sw1 (pause_tx toward sw1)"
	check_assert assert_ge "$(r pause_rx.sw1-sw2)" 1 "sw1's port toward sw2 received PAUSE"
	check_assert assert_ge "$(r paused_us.sw1-sw2)" 1 "sw1's port toward sw2 was paused (us)"
	for h in s1 s2 s3 v; do
		check_assert assert_ge "$(r pause_tx.sw1-$h)" 1 "sw1 paused $h"
		check_assert assert_ge "$(r paused_us.nic-$h)" 1 "$h was paused (us)"
	done
	for h in s4 s5; do
		check_assert assert_ge "$(r pause_tx.sw2-$h)" 1 "sw2 paused $h"
	done
	check_assert assert_le "$(r pause_rx.nic-vr)" 0 "the victim's receiver was not paused"
}

victim_alone
log_test "victim alone"
victim_slowed
log_test "victim slowed"
no_drop
log_test "no drop"
pause_hop_by_hop
log_test "pause hop by hop"

tests_exit
