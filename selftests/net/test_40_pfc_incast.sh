#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
#
# Lossless incast (DCQCN paper section 2.2): the pfc_incast experiment
# (scripts/dcbnet/experiments/pfc_incast.py, also `dcblab run pfc_incast`),
# 8 senders at line rate into one shaped switch port, every switch port
# and host NIC a sch_dcb at the same rate, data on DSCP 24 (band 3), PFC
# on band 3.  Steps, over the experiment's rows:
#   lossless  PFC on: every sender sent its datagrams, no drop anywhere
#             (every sch_dcb drop counter, pool drops, the veths'
#             rx/tx_dropped, softnet), every datagram sent is received;
#   pause     in that incast the switch sent PAUSE frames, the senders
#             received them and spent time paused;
#   wire      the frames h1 received (tcpdump, decoded by tshark) are
#             802.1Qbb PFC: dst 01:80:c2:00:00:01, ethertype 0x8808,
#             opcode 0x0101, class-enable vector 0x0008, quanta 0x1234
#             (PAUSE) or 0 (RESUME), as many as the switch port counted;
#   pfc_off   PFC off, same buffer: drops, and not every datagram is
#             received.
# shellcheck disable=SC2034,SC2317 # tests_run reads ALL_TESTS, calls the steps
ALL_TESTS="lossless pause wire pfc_off"
. "$(dirname "$0")/lib.sh"

need_mininet tcpdump tshark
load_dcb

N=8
PKTS=${PFC40_PKTS:-3000}	# per sender: 8 x 3000 x 1042 B at 100 Mb/s = 2.0 s
# line rate; on a slow kernel divided by DCBLAB_SLOW and the PFC delay
# (sch_dcb's default, 5 ms) multiplied by it (lib.sh): the same headroom
# in bytes, the same packets
# dcbmon samples every 100 ms: its netlink dumps of 17 ports are kernel
# time the CPU guard counts
KNOBS=(senders="$N" datagrams="$PKTS" rate="$(scaled_rate 100mbit)" interval_ms=100
       delay="$(scaled_time 5ms)" quanta=0x1234)
ON=$TMPD/pfc-on
OFF=$TMPD/pfc-off

# r OUT METRIC: the experiment's value
r() { exp_row "$@"; }
# shellcheck source=pfc_incast_steps.sh
. "$(dirname "$0")/pfc_incast_steps.sh"

pause()
{
	if [ ! -s "$ON/rows.csv" ]; then
		check_err 1 "no incast with PFC on to look at"
		return
	fi
	check_assert assert_ge "$(r "$ON" pause_tx.all)" 1 "PAUSE frames sent by the switch"
	check_assert assert_ge "$(r "$ON" pause_rx.all)" 1 "PAUSE frames received by the senders"
	check_assert assert_ge "$(r "$ON" paused_us.all)" 1 "time the senders spent paused (us)"
}

tests_run
tests_exit
