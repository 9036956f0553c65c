#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# LDCP's window counts the packets an RDMA READ puts on the wire: its
# response packets, not the one request packet.  s1 READs 4 KB messages
# (4 response packets at rxe's 1024-byte MTU) from r with ib_read_bw, algo
# ldcp on both, s1's window pinned to W = 8 packets (min_cwnd_pkts =
# max_cwnd_pkts = 8, no fast start).  A capture on s1's eth0 gives, after
# every READ request s1 sends, the response PSNs outstanding: from the
# last response seen to the requested one's last PSN.  The switch port
# toward s1 is shaped to RESP_RATE: unshaped, a READ's request, its
# responses and its completion can all run in the softirqs of the
# ibv_post_send() that posted it, so on a fast enough guest every READ
# completes before the next is posted and the window is never reached.
# Shaped, the responses leave on the qdisc's timer while ib_read_bw posts
# its queue depth of READs.  Steps:
#   read window   ib_read_bw completes READS iterations; s1's requester
#                 stalled on the window (cc_window_stalls grew); at most
#                 W response PSNs were outstanding after any request
#                 (before the window counted a READ's responses: up to
#                 W - 1 + 4 = 11, a READ went while W - 1 were out).
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

need_cmd rdma ib_read_bw tcpdump python3
W=8
READS=400
SIZE=4096
RESP_RATE=20mbit
RPORT=18911
srv=

load_algo ldcp
rxe_topo 1
dcb_tc qdisc replace dev "$(topo_port sw s1)" root dcb rate $RESP_RATE ||
	fail "tc qdisc replace dcb on the port toward s1"
for h in s1 r; do
	rxe_cc "$h" algo ldcp
done
defer 'rxe_cc_none s1 r'
rxe_cc s1 ldcp/init_window_pkts 0
rxe_cc s1 ldcp/min_cwnd_pkts $W
rxe_cc s1 ldcp/max_cwnd_pkts $W
SIP=$(topo_ip4 s1)

# resp_seen N: the capture holds at least N read responses
# shellcheck disable=SC2317  # for wait_for
resp_seen()
{
	[ "$(tcpdump -r "$TMPD/cap.pcap" -nn "udp port 4791 and src host $RIP" 2>/dev/null |
		wc -l)" -ge "$1" ]
}

# outstanding PCAP MTU: the largest number of response PSNs outstanding
# after a READ request, and the number of requests, from s1's capture
outstanding()
{
	PYTHONPATH=$TOP/scripts python3 - "$1" "$2" "$SIP" <<'EOF'
import sys
from dcbanalysis.roce_flows import read_bth
path, mtu, sip = sys.argv[1], int(sys.argv[2]), sys.argv[3]
req_end, last, worst, reads = None, None, 0, 0
for _, src, bth in read_bth(path):
    op, psn = bth[0], int.from_bytes(bth[9:12], 'big')
    # READ requests (the RETH's DMA length at 24-27) and read responses
    if src == sip and op == 0x0c and len(bth) >= 28:
        n = max(1, -(-int.from_bytes(bth[24:28], 'big') // mtu))
        end = (psn + n - 1) & 0xffffff
        if last is None:
            last = (psn - 1) & 0xffffff
        if req_end is None or ((end - req_end) & 0xffffff) < 0x800000:
            req_end = end
        reads += 1
        worst = max(worst, (req_end - last) & 0xffffff)
    elif src != sip and 0x0d <= op <= 0x10 and last is not None:
        if ((psn - last) & 0xffffff) < 0x800000:
            last = psn
print(worst, reads)
EOF
}

# read window
ip netns exec "$(topo_ns s1)" tcpdump -i eth0 -U -s 96 -w "$TMPD/cap.pcap" 'udp port 4791' \
	2>"$TMPD/cap.err" &
CAP=$!
defer "kill $CAP 2>/dev/null; wait $CAP 2>/dev/null"
wait_for --timeout 30 grep -q listening "$TMPD/cap.err" || fail "tcpdump did not start"
stalls0=$(rxe_cnt s1 cc_window_stalls)
topo_spawn srv r timeout 200 ib_read_bw -F -d "${RXE_DEV[r]}" -x "$(rxe_gid r 4)" -p "$RPORT" \
	-s $SIZE -n $READS >"$TMPD/srv" 2>&1
defer "kill $srv 2>/dev/null; wait $srv 2>/dev/null"
wait_for --timeout 60 rxe_listen "$RPORT" r ||
	fail "ib_read_bw server did not start: $(tail -n 5 "$TMPD/srv" | tr '\n' ' ')"
rc=0
topo_exec s1 timeout 200 ib_read_bw -F -d "${RXE_DEV[s1]}" -x "$(rxe_gid s1 4)" -p "$RPORT" \
	-s $SIZE -n $READS "$RIP" >"$TMPD/cli" 2>&1 || rc=$?
wait "$srv" || rc=$((rc ? rc : 100))
mtu=$(sed -n 's/^ *Mtu *: *\([0-9]*\)\[B\].*/\1/p' "$TMPD/cli" | head -n1)
if [ "$rc" != 0 ] || [ -z "$mtu" ] || ! grep -qE "^ *$SIZE +$READS " "$TMPD/cli"; then
	tail -n 15 "$TMPD/cli" "$TMPD/srv"
	check_err 1 "ib_read_bw: exit status $rc, MTU '${mtu:-none}'"
else
	npkts=$(((SIZE + mtu - 1) / mtu))
	# tcpdump in a TCG guest writes seconds behind the wire
	wait_for --timeout 60 resp_seen $((READS * npkts)) ||
		log "note: the capture holds fewer than $((READS * npkts)) read responses"
	kill "$CAP"
	wait "$CAP" 2>/dev/null
	grep -q '^0 packets dropped by kernel' "$TMPD/cap.err"
	check_err $? "the capture lost packets: $(grep dropped "$TMPD/cap.err" | tr '\n' ' ')"
	read -r worst reads < <(outstanding "$TMPD/cap.pcap" "$mtu")
	stalls=$(($(rxe_cnt s1 cc_window_stalls) - stalls0))
	log "read window: $reads READ requests of $npkts packets, at most $worst response PSNs" \
		"outstanding (window $W), $stalls window stalls"
	check_assert assert_ge "$reads" "$READS" "READ requests in the capture"
	check_assert assert_ge "$stalls" 1 "s1's window stalls"
	check_assert assert_le "$worst" "$W" "response PSNs outstanding after a READ request"
fi
log_test "read window"

tests_exit
