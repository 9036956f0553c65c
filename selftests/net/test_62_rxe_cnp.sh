#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
#
# ECN and CNPs: both devices run the "fixed" algorithm (ECT(0) on data,
# the DCQCN notification point on).  sch_dcb marks CE above 20 KB on a
# 20 Mb/s switch port toward the receiver while ib_write_bw overloads it.
# The receiver counts CE packets and sends CNPs, no more than one per
# min_time_between_cnps (100 ms here) for the QP; tshark decodes them on
# the sender's wire as RoCE CNPs (BTH opcode 0x81) to the sender's QPN with
# DSCP 48, the sender's requests carry DSCP 26 and ECT(0); the sender's rp_cnp_handled equals the receiver's np_cnp_sent,
# and the rxe_cc_cnp_sent / rxe_cc_cnp_rcvd tracepoints fired as often.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dcb_lib.sh"
. "$(dirname "$0")/rxe_lib.sh"

need_cmd rdma ib_write_bw python3 tcpdump tshark
load_rxe
rxe_topo 1
GAP_US=100000
SECS=5

for h in s1 r; do
	rxe_cc "$h" algo fixed
	[ "$(rxe_cc "$h" algo)" = fixed ] || fail "algo does not read back"
done
[ -d "/sys/class/infiniband/${RXE_DEV[r]}/cc/fixed" ] ||
	fail "no cc/fixed/ knob directory"
rxe_cc r min_time_between_cnps "$GAP_US"
dcb_set rate 20mbit ecn step k 20k

tr_on rxe_cc || fail "no rxe_cc tracepoints"
echo >"$TR/trace"
at_exit 'tr_mute rxe_cc'

ALL=$TMPD/all.pcap
PCAP=$TMPD/cnp.pcap
topo_exec s1 tcpdump -i eth0 -n -U -s 96 -w "$ALL" 'udp dst port 4791' \
	>"$TMPD/tcpdump.log" 2>&1 &
TCPDUMP=$!
wait_for --timeout 20 grep -q listening "$TMPD/tcpdump.log" || fail "tcpdump did not start"

topo_exec r ib_write_bw -F -d "${RXE_DEV[r]}" -x "$(rxe_gid r 4)" -p 18801 \
	-D "$SECS" -s 65536 -u 20 >"$TMPD/srv" 2>&1 &
SRV=$!
wait_for --timeout 30 rxe_listen 18801 r || fail "server did not start"
t0=$(date +%s.%N)
topo_exec s1 ib_write_bw -F -d "${RXE_DEV[s1]}" -x "$(rxe_gid s1 4)" -p 18801 \
	-D "$SECS" -s 65536 -u 20 "$RIP" >"$TMPD/cli" 2>&1 || { cat "$TMPD/cli"; fail "ib_write_bw"; }
t1=$(date +%s.%N)
wait "$SRV"
kill "$TCPDUMP" 2>/dev/null
wait "$TCPDUMP" 2>/dev/null

qpn=$(sed -n 's/.*local address:.*QPN \(0x[0-9a-f]*\).*/\1/p' "$TMPD/cli" | head -n1)
[ -n "$qpn" ] || fail "no QPN in ib_write_bw's output"
marked=$(rxe_cnt r np_ecn_marked_roce_packets)
sent=$(rxe_cnt r np_cnp_sent)
handled=$(rxe_cnt s1 rp_cnp_handled)
ignored=$(rxe_cnt s1 rp_cnp_ignored)
log "QPN $qpn: CE $marked, CNPs sent $sent, handled $handled, ignored $ignored; port: $(dcb_stat ecn_marked) marked"
assert_ge "$marked" 1 "CE-marked packets at the receiver"
assert_ge "$sent" 2 "CNPs sent"
max=$(awk -v a="$t0" -v b="$t1" -v g="$GAP_US" 'BEGIN { printf "%d", (b - a) * 1e6 / g + 1 }')
assert_le "$sent" "$max" "CNPs within min_time_between_cnps over $(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}') s"
[ "$handled" = "$sent" ] || fail "rp_cnp_handled $handled != np_cnp_sent $sent"
[ "$ignored" = 0 ] || fail "$ignored CNPs ignored"

# tracepoints
tsent=$(grep -c 'rxe_cc_cnp_sent:' "$TR/trace")
trcvd=$(grep -c 'rxe_cc_cnp_rcvd:' "$TR/trace")
log "tracepoints: $tsent rxe_cc_cnp_sent, $trcvd rxe_cc_cnp_rcvd"
[ "$tsent" = "$sent" ] && [ "$trcvd" = "$handled" ] ||
	fail "tracepoints $tsent/$trcvd, counters $sent/$handled"

# the sender's requests: DSCP 26 (cc/roce_dscp) with the ECN bits of the
# algorithm (ECT(0)), not replaced by the DSCP; ACKs from r DSCP 26
SIP=$(topo_ip4 s1)
ncap() { tcpdump -r "$ALL" -nn "$1" 2>/dev/null | wc -l; }
req=$(ncap "src host $SIP and udp[8] != 0x81 and ip[1] = $((ROCE_DSCP << 2 | 2))")
bad=$(ncap "src host $SIP and udp[8] != 0x81 and ip[1] != $((ROCE_DSCP << 2 | 2))")
acks=$(ncap "src host $RIP and udp[8] = 0x11 and (ip[1] >> 2) = $ROCE_DSCP")
log "s1's requests DSCP $ROCE_DSCP ECT(0): $req, others $bad; r's ACKs DSCP $ROCE_DSCP: $acks"
assert_ge "$req" 1000 "requests with DSCP $ROCE_DSCP and ECT(0)"
[ "$bad" = 0 ] || fail "$bad requests of s1 without DSCP $ROCE_DSCP and ECT(0)"
assert_ge "$acks" 1 "ACKs with DSCP $ROCE_DSCP"

# what tshark sees on the sender's wire
tcpdump -r "$ALL" -w "$PCAP" 'udp[8] == 0x81' 2>/dev/null || fail "tcpdump -r"
tshark -r "$PCAP" -Y 'infiniband.bth.opcode == 0x81' -T fields \
	-e infiniband.bth.destqp -e ip.dsfield.dscp \
	>"$TMPD/cnps" 2>"$TMPD/tshark.err" || { cat "$TMPD/tshark.err"; fail "tshark"; }
n=$(wc -l <"$TMPD/cnps")
log "tshark: $n CNPs, first: $(head -n1 "$TMPD/cnps" | tr '\t' ' ')"
[ "$n" = "$sent" ] || fail "tshark decoded $n CNPs, np_cnp_sent is $sent"
bad=0
while read -r dqp dscp _; do
	[ "$((dqp))" = "$((qpn))" ] && [ "$dscp" = 48 ] || bad=$((bad + 1))
done <"$TMPD/cnps"
[ "$bad" = 0 ] || fail "$bad CNPs not to QPN $qpn with DSCP 48: $(head -n3 "$TMPD/cnps")"

# the algorithm cannot change while QPs use it; it can when they are gone
rxe_cc s1 algo none
[ "$(rxe_cc s1 algo)" = none ] || fail "algo none does not read back"
exit "$ksft_pass"
