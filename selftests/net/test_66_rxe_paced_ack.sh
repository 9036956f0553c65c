#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# A slowly paced QP must not time out when nothing is lost.  rxe asks for
# an ACK only at the end of a message or every 64 packets, only ACKs
# restart the retransmission timer, and an ACK of everything sent leaves
# an old timer running; a 64 KB message paced at 1 Mb/s takes 0.55 s,
# longer than a 268 ms transport timeout (-u 16).  With cc/paced_ack (the
# default) a paced QP asks for an ACK once the bytes since its last
# AckReq take a quarter of the timeout at its rate, and restarts the timer
# when it sends with nothing older unacknowledged.
# s1 -> sw -> r, no congestion (a 10 Gb/s port), ceiling cc/max_rate_mbps
# 1 on s1, ib_write_bw -n 6 -s 65536 -u 16 (algo none: the ceiling alone
# paces).  Steps:
#  paced_ack_on:  with paced_ack 1 the transfer completes;
#                 completer_retry_err does not move at s1,
#                 duplicate_request does not move at r; cc_ackreq_added
#                 moved; the sender kept the ceiling (its eth0 at most
#                 1.05 Mb/s);
#  paced_ack_off: paced_ack 0 (rxe's own AckReqs only), same transfer: no
#                 AckReq added, and with 6.1's rxe at least one
#                 completer_retry_err (the timeouts this knob removes;
#                 6.12's rxe has none, see below).
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

need_cmd rdma ib_write_bw
load_rxe
rxe_topo 1
RATE=1
ITERS=6
rxe_cc s1 max_rate_mbps $RATE

# transfer KNOB PORT: ib_write_bw s1 -> r with cc/paced_ack KNOB; sets
# RETRY DUP ADDED (counter growth), RC (client status) and MBPS (s1's eth0)
transfer()
{
	local port=$2 r0 d0 a0 b0 t0 t1 srv
	rxe_cc s1 paced_ack "$1"
	r0=$(rxe_cnt s1 completer_retry_err)
	d0=$(rxe_cnt r duplicate_request)
	a0=$(rxe_cnt s1 cc_ackreq_added)
	ip netns exec "$(topo_ns r)" ib_write_bw -F -d "${RXE_DEV[r]}" -x "$(rxe_gid r 4)" \
		-p "$port" -n $ITERS -s 65536 -u 16 >"$TMPD/srv-$port" 2>&1 &
	srv=$!
	wait_for --timeout 30 rxe_listen "$port" r || fail "server on $port"
	b0=$(rxe_tx_bytes s1); t0=${EPOCHREALTIME//[.,]/}
	RC=0
	ip netns exec "$(topo_ns s1)" timeout 120 ib_write_bw -F -d "${RXE_DEV[s1]}" \
		-x "$(rxe_gid s1 4)" -p "$port" -n $ITERS -s 65536 -u 16 "$RIP" \
		>"$TMPD/cli-$port" 2>&1 || RC=$?
	t1=${EPOCHREALTIME//[.,]/}
	MBPS=$(awk -v b=$(( $(rxe_tx_bytes s1) - b0 )) -v t=$((t1 - t0)) 'BEGIN { printf "%.3f", b * 8 / t }')
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
	RETRY=$(( $(rxe_cnt s1 completer_retry_err) - r0 ))
	DUP=$(( $(rxe_cnt r duplicate_request) - d0 ))
	ADDED=$(( $(rxe_cnt s1 cc_ackreq_added) - a0 ))
	log "paced_ack $1: client status $RC, ${MBPS} Mb/s on s1's eth0; completer_retry_err +$RETRY," \
		"duplicate_request at r +$DUP, cc_ackreq_added +$ADDED; $(grep -iE 'error|failed' "$TMPD/cli-$port" | head -n2)"
}

transfer 1 18661
[ "$RC" = 0 ] || { cat "$TMPD/cli-18661"; check_err 1 "the transfer failed with paced_ack 1"; }
check_assert assert_le "$RETRY" 0 "paced_ack 1: transport timeouts (completer_retry_err)"
check_assert assert_le "$DUP" 0 "paced_ack 1: duplicate requests at r"
check_assert assert_ge "$ADDED" 1 "paced_ack 1: AckReqs added by the engine"
check_assert assert_le "$MBPS" 1.05 "paced_ack 1: s1's eth0 Mb/s under the 1 Mb/s ceiling"
log_test paced_ack_on

transfer 0 18662
check_assert assert_le "$ADDED" 0 "paced_ack 0: AckReqs added by the engine"
# Since 6.12's rxe runs the completer in the send task, after every pass
# of the requester, and the completer re-arms the retransmission timer
# whenever something is unacknowledged: a QP that keeps sending pushes its
# timer ahead with every packet and does not time out, however seldom it
# asks for an ACK.  The timeouts paced_ack removes are those of 6.1's rxe,
# whose completer runs only for ACKs and the timer.
if grep -q '^int rxe_sender(' "$(dirname "$RXE_KO")/rxe_req.c" 2>/dev/null; then
	log "paced_ack 0: $RETRY transport timeouts (not asserted: this rxe re-arms the timer on every send)"
else
	check_assert assert_ge "$RETRY" 1 "paced_ack 0: transport timeouts (completer_retry_err)"
fi
log_test paced_ack_off
tests_exit
