#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 900
#
# Crafted CNPs (scapy) toward a sender whose RC QP is busy with ib_write_bw
# at a 20 Mb/s ceiling: wrong QPN, wrong source address, bad ICRC,
# truncated, BECN clear are counted in rp_cnp_ignored and dropped; an
# unknown opcode is dropped by rxe; a well-formed CNP from the peer is
# handled (so the others failed for the reason they were built for).
# Nothing crashes (the runner checks the kernel log) and the QP stays in
# RTS, sending.  The flow lasts 600 s, times SLOW on a slow kernel (the
# debug kernel needs most of that for the cases, and a CNP for a QP that
# is gone is ignored).  Steps, one per crafted case (the counters move by
# exactly the case's amount): valid, wrong_qpn, valid_src (from the
# switch's address), bad_icrc, truncated, no_becn, unknown_opcode (sent
# before a valid one, which shows it was processed), valid_again; then
# qp_alive: the QP is in RTS and still sending.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

PY=/usr/bin/python3
need_cmd rdma ib_write_bw "$PY"
"$PY" -c 'import scapy.contrib.roce' 2>/dev/null || skip "python3-scapy with contrib.roce missing"
load_rxe
rxe_topo 1
rxe_cc s1 algo fixed
rxe_cc s1 max_rate_mbps 20
SIP=$(topo_ip4 s1)
CRAFT=$TOP/selftests/net/rxe_cnp_craft.py

topo_exec r ib_write_bw -F -d "${RXE_DEV[r]}" -x "$(rxe_gid r 4)" -p 18901 \
	-D "$(scaled_time 600)" -s 65536 -u 20 >"$TMPD/srv" 2>&1 &
wait_for --timeout 30 rxe_listen 18901 r || fail "server did not start"
SRV=$!
topo_exec s1 ib_write_bw -F -d "${RXE_DEV[s1]}" -x "$(rxe_gid s1 4)" -p 18901 \
	-D "$(scaled_time 600)" -s 65536 -u 20 "$RIP" >"$TMPD/cli" 2>&1 &
CLI=$!
# the sender's RC QP (ib_write_bw's stdout is buffered: ask rdma)
rc_qp() { rdma resource show qp link "${RXE_DEV[s1]}/1" | grep 'type RC state RTS'; }
wait_for --timeout 60 rc_qp || fail "no connection"
qpn=$(rc_qp | awk '{ for (i = 1; i < NF; i++) if ($i == "lqpn") { print $(i + 1); exit } }')
[ -n "$qpn" ] || fail "no QPN"
# sent_more N: the sender has sent more than N packets
sent_more() { [ "$(rxe_cnt s1 sent_pkts)" -gt "$1" ]; }
wait_for --timeout 30 sent_more 100 || fail "no traffic"
log "sender QP $qpn"

# counters: "handled ignored"
cnts() { echo "$(rxe_cnt s1 rp_cnp_handled) $(rxe_cnt s1 rp_cnp_ignored)"; }

cnts_moved() { [ "$(cnts)" != "$1" ]; }

# all packets built at once (one scapy import), sent later without scapy
mkdir -p "$TMPD/cnp"
topo_exec r "$PY" "$CRAFT" build "$TMPD/cnp" "$SIP" "$qpn" "$(topo_ip4 sw s1)" ||
	fail "crafting the CNPs"

# expect FROM_HOST HANDLED_DELTA IGNORED_DELTA CASE...: send the CASEs'
# packets in order from FROM_HOST; the step fails unless the counters
# move by exactly that much.
expect()
{
	local h=$1 dh=$2 di=$3 a b c files=()
	shift 3
	for c in "$@"; do files+=("$TMPD/cnp/$c.bin"); done
	a=($(cnts))
	topo_exec "$h" "$PY" "$CRAFT" send "${files[@]}" ||
		{ check_err 1 "sending $*"; return; }
	wait_for --timeout 10 cnts_moved "${a[*]}" ||
		{ check_err 1 "$*: no counter moved"; return; }
	b=($(cnts))
	if [ $((b[0] - a[0])) = "$dh" ] && [ $((b[1] - a[1])) = "$di" ]; then
		log "ok: $*: handled +$dh ignored +$di"
	else
		check_err 1 "$*: handled +$((b[0] - a[0])) ignored +$((b[1] - a[1])), want +$dh +$di"
	fi
}

# a well-formed CNP from the peer first: handled (crafting is right)
expect r 1 0 valid
log_test valid
expect r 0 1 wrong_qpn
log_test wrong_qpn
expect sw 0 1 valid_src		# wrong source (the switch)
log_test valid_src
expect r 0 1 bad_icrc
log_test bad_icrc
expect r 0 1 truncated
log_test truncated
expect r 0 1 no_becn
log_test no_becn
# an unknown opcode moves neither counter: a valid CNP sent after it
# (same socket, in order) shows it has been processed
expect r 1 0 unknown_opcode valid
log_test unknown_opcode
expect r 1 0 valid
log_test valid_again

# the QP is still connected and moving data
state=$(rdma resource show qp link "${RXE_DEV[s1]}/1" lqpn "$((qpn))" | grep -o "state [A-Z]*" | head -n1)
[ "$state" = "state RTS" ] || check_err 1 "QP $qpn: $state"
n0=$(rxe_cnt s1 sent_pkts)
wait_for --timeout 20 sent_more $((n0 + 100))
check_err $? "the QP stopped sending"
log_test qp_alive
kill "$CLI" "$SRV" 2>/dev/null
tests_exit
