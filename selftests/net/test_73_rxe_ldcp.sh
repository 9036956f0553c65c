#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# LDCP smoke test: rxe_cc_ldcp.ko loaded, algo ldcp on both senders and
# the receiver.  Two ib_write_bw (64 KB writes) from s1 and s2 into r
# through the switch port toward r: sch_dcb at 20 Mb/s, DCTCP step
# marking at 8 KB (non-ECT fast-start packets dropped there by WRED),
# PFC off.  Asserted: both transfers complete, the port CE-marked
# packets, the receiver sent ACKs with BECN (cc_becn_sent) and each sender
# received some (cc_becn_received), the rxe_cc_ldcp tracepoint saw both
# ECE and plain ACKs, no CNPs, the algorithm is released and the module
# unloads, and dmesg has no warning.  About 50 s after the topology is up
# (which took 50-70 s more with two other guests on the 2-core host:
# 104 s in all at load 7.4; the timeout leaves room for such a host).
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

need_cmd rdma ib_write_bw
LDCP_KO=${DCBLAB_BUILD:-$TOP/build}/rxe_cc/rxe_cc_ldcp.ko
SECS=3
declare -A SRV=() CLI=() ITER=()

load_rxe
[ -f "$LDCP_KO" ] || fail "$LDCP_KO not built (run make)"
if [ ! -d /sys/module/rxe_cc_ldcp ]; then
	insmod "$LDCP_KO" || { dmesg | tail -n 20 >&2; fail "insmod $LDCP_KO"; }
fi
DMESG0=$(dmesg | wc -l)
rxe_topo 2
log "topology up"

for h in s1 s2 r; do
	rxe_cc "$h" algo ldcp
	[ "$(rxe_cc "$h" algo)" = ldcp ] || fail "algo ldcp does not read back on $h"
done
# the fast-start window is one BDP at the line rate and base RTT the
# device derives its defaults from (rxe_cc.rst, "Default parameters"):
# here veth's 10 Gb/s, so rxe's largest window
iw=$(awk '/^# line/ { b = $3 * $7 / 8000 / $NF; w = int(b); if (w < b) w++
	if (w < 1) w = 1; if (w > 128) w = 128; print w }' \
	"/sys/class/infiniband/${RXE_DEV[r]}/cc/ldcp/origin")
for k in alpha:1024 beta:128 min_cwnd_pkts:1 max_cwnd_pkts:128 \
	 init_window_pkts:"$iw" ack_every:1; do
	v=$(rxe_cc r "ldcp/${k%%:*}") || fail "no cc/ldcp/${k%%:*}"
	[ "$v" = "${k#*:}" ] || fail "cc/ldcp/${k%%:*} = $v, want ${k#*:}"
done
log "init_window_pkts $iw ($(head -n 1 "/sys/class/infiniband/${RXE_DEV[r]}/cc/ldcp/origin"))"
dcb_set rate 20mbit ecn step k 8k

tr_on rxe_cc_ldcp || fail "no rxe_cc_ldcp tracepoint"
echo >"$TR/trace"
at_exit 'tr_mute rxe_cc_ldcp'

i=0
for h in s1 s2; do
	port=$((18831 + i))
	topo_exec r ib_write_bw -F -d "${RXE_DEV[r]}" -x "$(rxe_gid r 4)" \
		-p "$port" -D "$SECS" -s 65536 -u 14 >"$TMPD/srv_$h" 2>&1 &
	SRV[$h]=$!
	i=$((i + 1))
done
for port in 18831 18832; do
	wait_for --timeout 60 rxe_listen "$port" r || fail "server on port $port did not start"
done
log "servers up"
i=0
for h in s1 s2; do
	port=$((18831 + i))
	topo_exec "$h" ib_write_bw -F -d "${RXE_DEV[$h]}" -x "$(rxe_gid "$h" 4)" \
		-p "$port" -D "$SECS" -s 65536 -u 14 "$RIP" >"$TMPD/cli_$h" 2>&1 &
	CLI[$h]=$!
	i=$((i + 1))
done
for h in s1 s2; do
	wait "${CLI[$h]}" || { cat "$TMPD/cli_$h"; fail "ib_write_bw on $h failed"; }
	wait "${SRV[$h]}" || { cat "$TMPD/srv_$h"; fail "ib_write_bw server for $h failed"; }
done

for h in s1 s2; do
	# the result line: bytes iterations BW-peak BW-average MsgRate (in -D
	# mode rxe's BW columns are unreliable: 0.00 with 59 iterations)
	it=$(awk '$1 == 65536 && NF >= 5 { print $2 }' "$TMPD/cli_$h" | tail -n1)
	[ -n "$it" ] || { cat "$TMPD/cli_$h"; fail "no result from ib_write_bw on $h"; }
	grep -A1 '#bytes' "$TMPD/cli_$h" | sed "s/^/$h: /"
	ITER[$h]=$it
done
# one tc/jq call: process starts are slow in a loaded TCG guest
read -r marked wred tail_drops peak < <(dcb_json |
	jq -r '"\(.ecn_marked) \(.drops_wred) \(.drops_tail) \(.backlog_peak)"')
ce=$(rxe_cnt r np_ecn_marked_roce_packets)
becn_tx=$(rxe_cnt r cc_becn_sent)
becn_rx1=$(rxe_cnt s1 cc_becn_received)
becn_rx2=$(rxe_cnt s2 cc_becn_received)
stalls1=$(rxe_cnt s1 cc_window_stalls)
stalls2=$(rxe_cnt s2 cc_window_stalls)
cnps=$(rxe_cnt r np_cnp_sent)
log "64 KB writes in ${SECS} s: s1 ${ITER[s1]} s2 ${ITER[s2]}; port: marked $marked wred $wred tail $tail_drops peak $peak B"
log "r: CE $ce becn_sent $becn_tx cnp $cnps; s1: becn_rcvd $becn_rx1 stalls $stalls1; s2: becn_rcvd $becn_rx2 stalls $stalls2"
# positive: integer > 0 (bash only, no process per check)
positive()
{
	if ! [[ "$1" =~ ^[0-9]+$ ]] || [ "$1" -eq 0 ]; then
		fail "$2: '$1', want > 0"
	fi
}
positive "${ITER[s1]}" "writes completed by s1"
positive "${ITER[s2]}" "writes completed by s2"
positive "$marked" "CE marks at the port"
positive "$ce" "CE packets at the receiver"
positive "$becn_tx" "ACKs with BECN sent (r)"
positive "$becn_rx1" "ACKs with BECN received (s1)"
positive "$becn_rx2" "ACKs with BECN received (s2)"
[ "$cnps" = 0 ] || fail "ldcp sent $cnps CNPs"

# read the trace once (formatting it is slow in TCG)
tr_mute rxe_cc_ldcp
grep 'rxe_cc_ldcp:' "$TR/trace" >"$TMPD/trace"
ece=$(grep -c ' ece=1' "$TMPD/trace")
plain=$(grep -c ' ece=0' "$TMPD/trace")
log "tracepoint: $ece cwnd changes on ECE, $plain on plain ACKs; last: $(tail -n1 "$TMPD/trace" | sed 's/.*rxe_cc_ldcp: //')"
positive "$ece" "cwnd decreases (tracepoint)"
positive "$plain" "cwnd increases (tracepoint)"

# QPs gone: the algorithm can be switched off and the module unloaded
rxe_kill_all
for h in s1 s2 r; do
	wait_for --timeout 20 sh -c "echo none >/sys/class/infiniband/${RXE_DEV[$h]}/cc/algo" ||
		fail "algo none on $h"
done
rmmod rxe_cc_ldcp || fail "rmmod rxe_cc_ldcp"

bad=$(dmesg | tail -n +"$((DMESG0 + 1))" | grep -E 'WARNING|BUG|Oops|Call Trace|refcount|leak' || true)
[ -z "$bad" ] || { echo "$bad" >&2; fail "dmesg not clean"; }
exit "$ksft_pass"
