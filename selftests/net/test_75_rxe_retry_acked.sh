#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# RC retry of a send queue whose head WQE the responder has already
# acknowledged in full.  Two 32 KB RDMA WRITEs (A, B: 32 packets each at
# MTU 1024) leave s1 paced at 1 Mb/s (cc/max_rate_mbps); the switch drops
# every ACK r sends, so the retransmit timer (IB timeout 16: 268 ms)
# fires and the requester resends A, then B, again and again.  Resending
# A takes about as long as the timeout, so while the ACKs are blocked the
# requester is resending A most of the time.  During one of these resends
# the ACK for A's last PSN arrives (forged here, from the switch with r's
# address: it stands for an ACK that a long PAUSE delayed rather than
# lost).  The completer, seeing A being resent, only advances its PSN: A
# stays at the head of the queue, fully acknowledged.  On the next timeout
# the requester retries again.  Without the fix
# (rxe_cc/patches/6.1/0000-RDMA-rxe-do-not-resend-a-fully-acknowledged-wqe)
# it sends A as a 0-byte WRITE ONLY at the next PSN and every later packet
# one PSN late: r NAKs an opcode out of sequence, or the QP retries
# until its deadline without completing.  Steps:
#   forged_ack     the scenario: the requester retried, A's resend left,
#                  and the forged ACK for A's last PSN reached s1's rxe;
#   second_retry   the requester retried again, from the fully
#                  acknowledged head WQE (then the ACKs pass again);
#   no_zero_write  r saw no 0-byte WRITE ONLY (a retry past an
#                  acknowledged WQE);
#   completions    both WRITEs completed successfully;
#   data           r's buffer holds exactly the data written.
# The programs' deadlines (50 and 60 s) count from their start, before
# the ACKs are blocked and the ACK is forged: on a slow kernel
# (DCBLAB_SLOW) they are scaled with the rest, or the transfer's end
# would miss them.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

PY=/usr/bin/python3
need_cmd rdma tcpdump
$PY -c 'import pyverbs.qp' 2>/dev/null || skip "python3-pyverbs not installed"
load_rxe
rxe_topo 1
D=$(mktemp -d /var/tmp/rxe75.XXXXXX)
at_exit "rm -rf '$D'"
SIP=$(topo_ip4 s1)
PORT_S1=$(topo_port sw s1)

# Every ACK (BTH opcode 0x11) from r with rxe's DSCP (ROCE_DSCP) toward s1
# dies at the switch's egress; the forged one carries DSCP 10 and passes.
ack_block()
{
	topo_tc sw qdisc replace dev "$PORT_S1" clsact
	topo_tc sw filter replace dev "$PORT_S1" egress pref 10 protocol ip u32 \
		match ip src "$RIP"/32 match ip protocol 17 0xff \
		match ip tos "$((ROCE_DSCP << 2))" 0xfc match u16 4791 0xffff at 22 \
		match u8 0x11 0xff at 28 action drop ||
		fail "cannot install the ACK filter"
}
ack_unblock() { topo_tc sw filter del dev "$PORT_S1" egress pref 10; }

retries() { rxe_cnt s1 completer_retry_err; }
retries_ge() { [ "$(retries)" -ge "$1" ]; }
sent_ge() { [ "$(rxe_cnt s1 sent_pkts)" -ge "$1" ]; }

rxe_cc s1 max_rate_mbps 1

topo_exec r tcpdump -i eth0 -U -w "$D/r.pcap" "udp port 4791" 2>/dev/null &
DUMP=$!
defer "kill $DUMP 2>/dev/null; wait $DUMP 2>/dev/null"
ack_block
r0=$(retries)
p0=$(rxe_cnt s1 sent_pkts)
a0=$(rxe_cnt s1 rcvd_pkts)

# The forger starts now (a Python start-up in the guest takes longer than
# the window it must hit) and sends when it reads "QPN PSN" from its FIFO:
# an ACK (syndrome 0x1f: ACK, no credit count) from r's address.
mkfifo "$D/go"
cat >"$D/forger.py" <<'EOF'
import socket, struct, sys
sys.path.insert(0, sys.argv[1])
from rxe_bth_fuzz import packet
src, dst = sys.argv[2], sys.argv[3]
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
with open(sys.argv[4], encoding="ascii") as go:
    qpn, psn = (int(x, 0) for x in go.readline().split())
aeth = struct.pack("!I", (0x1f << 24) | 1)
s.sendto(packet(src, dst, 0x11, (0, 0, 0), 0xffff, qpn, psn, aeth,
                tos=0x28), (dst, 0))
EOF
topo_exec sw $PY "$D/forger.py" "$TOP/selftests/net" "$RIP" "$SIP" "$D/go" &
FORGER=$!
# (still waiting on its FIFO if forged_ack failed before writing it)
defer "kill $FORGER 2>/dev/null; wait $FORGER 2>/dev/null"

topo_exec r $PY "$TOP/selftests/net/rc_verbs.py" resp "${RXE_DEV[r]}" \
	"$(rxe_gid r 4)" "$D" --count 2 --size 32768 --deadline "$(scaled_time 60)" \
	>"$D/resp.out" 2>&1 &
RESP=$!
defer "kill $RESP 2>/dev/null; wait $RESP 2>/dev/null"
topo_exec s1 $PY "$TOP/selftests/net/rc_verbs.py" req "${RXE_DEV[s1]}" \
	"$(rxe_gid s1 4)" "$D" --count 2 --size 32768 --timeout 16 \
	--mtu 1024 --deadline "$(scaled_time 50)" >"$D/req.out" 2>&1 &
REQ=$!
defer "kill $REQ 2>/dev/null; wait $REQ 2>/dev/null"
# without the requester's QP there is no scenario to look at
wait_for --timeout 90 grep -q '^qpn' "$D/req.out" ||
	fail "requester did not start: $(cat "$D/req.out")"
read -r _ qpn _ _ _ psn <"$D/req.out"
log "requester QP $qpn, first PSN $psn"

# First retry (A was sent, its ACK did not come back), then the resend of
# A is under way: the first resent packet has left; the forged ACK for
# A's last PSN goes now and must reach s1's rxe.
forged_ack()
{
	local p1 a_last
	if ! wait_for --timeout 30 retries_ge $((r0 + 1)); then
		check_err 1 "no retry: $(cat "$D/req.out")"
		return
	fi
	p1=$(rxe_cnt s1 sent_pkts)
	if ! wait_for --timeout 10 --interval 0.01 sent_ge $((p1 + 1)); then
		check_err 1 "A is not being resent"
		return
	fi
	a_last=$(((psn + 31) & 0xffffff))
	echo "$qpn $a_last" >"$D/go"
	if ! wait "$FORGER"; then
		check_err 1 "forging the ACK failed"
		return
	fi
	wait_for --timeout 10 test "$(rxe_cnt s1 rcvd_pkts)" -gt "$a0"
	check_err $? "the forged ACK did not reach s1's rxe"
	[ "$RET" = 0 ] && log "forged ACK for PSN $a_last (A's last) injected during A's resend"
}

# The second retry starts from a fully acknowledged head WQE.
second_retry()
{
	wait_for --timeout 30 retries_ge $((r0 + 2))
	check_err $? "no second retry: $(cat "$D/req.out")"
}

forged_ack
log_test forged_ack
second_retry
log_test second_retry

# The ACKs pass again so that the transfer can finish.
ack_unblock
req_rc=0; wait "$REQ" || req_rc=$?
resp_rc=0; wait "$RESP" || resp_rc=$?
sleep 0.2
kill "$DUMP" 2>/dev/null; wait "$DUMP" 2>/dev/null
log "requester: $(tr '\n' ';' <"$D/req.out")"
log "responder: $(tr '\n' ';' <"$D/resp.out")"
zero=$(tcpdump -nr "$D/r.pcap" "dst $RIP and udp[8] == 0x0a and udp[4:2] == 40" 2>/dev/null | wc -l)
# the packets r saw and sent, runs of consecutive PSNs on one line:
# time of the first, source, opcode, PSNs (shown on failure)
wire()
{
	tshark -r "$D/r.pcap" -d udp.port==4791,infiniband -T fields \
		-e frame.time_relative -e ip.src -e infiniband.bth.opcode \
		-e infiniband.bth.psn -e udp.length 2>/dev/null |
	awk '$2 != src || $3 != op || $4 != last + 1 {
		if (n) printf "%.3f %s op %s psn %d-%d len %s\n", t, src, op, first, last, len
		t = $1; src = $2; op = $3; first = $4; len = $5; n = 0 }
	{ last = $4; n++ }
	END { if (n) printf "%.3f %s op %s psn %d-%d len %s\n", t, src, op, first, last, len }' |
		head -n 80 >&2
}
[ "$zero" = 0 ] && [ "$req_rc" = 0 ] && [ "$resp_rc" = 0 ] || wire

log "retries $(($(retries) - r0)), packets sent $(($(rxe_cnt s1 sent_pkts) - p0)), 0-byte WRITE ONLY seen by r: $zero"
check_assert assert_le "$zero" 0 "0-byte WRITE ONLY packets (a retry past an acknowledged WQE)"
log_test no_zero_write

[ "$req_rc" = 0 ]
check_err $? "the WRITEs did not all succeed: $(grep '^wc\|^completed' "$D/req.out" | tr '\n' ' ')"
[ "$RET" = 0 ] && log "ok: both WRITEs completed"
log_test completions

[ "$resp_rc" = 0 ]
check_err $? "responder: $(cat "$D/resp.out")"
[ "$RET" = 0 ] && log "ok: the data is where it was written"
log_test data

tests_exit
