#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# LDCP smoke test: rxe_cc_ldcp.ko loaded, algo ldcp on both senders and
# the receiver.  Two ib_write_bw (64 KB writes) from s1 and s2 into r
# through the switch port toward r: sch_dcb at 20 Mb/s, DCTCP step
# marking at 8 KB (non-ECT fast-start packets dropped there by WRED),
# PFC off.  Steps:
#   defaults       cc/ldcp/ knobs at their defaults (init_window_pkts one
#                  BDP at the line rate and base RTT the device derives
#                  from);
#   transfers      both ib_write_bw, client and server, exit 0 and each
#                  client completed writes;
#   marking        the port CE-marked packets and r received CE packets;
#   becn           r sent ACKs with BECN (cc_becn_sent) and each sender
#                  received some (cc_becn_received);
#   no_cnps        ldcp sent no CNP;
#   trace          the rxe_cc_ldcp tracepoint saw cwnd changes on ECE and
#                  on plain ACKs;
#   release        with the QPs gone algo none is accepted on every
#                  device and the module unloads;
#   kernel_log     dmesg has no warning.
# The timeout leaves room for the topology's start on a host loaded by
# other guests (it can take longer than the transfers).
. "$(dirname "$0")/lib.sh"
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
# the devices' algorithms go before the algorithm module's holders do
defer 'rxe_cc_none s1 s2 r'

for h in s1 s2 r; do
	rxe_cc "$h" algo ldcp
	[ "$(rxe_cc "$h" algo)" = ldcp ] || fail "algo ldcp does not read back on $h"
done

# positive VALUE MSG: the step fails unless VALUE is an integer > 0
# (bash only, no process per check)
positive()
{
	if ! [[ "$1" =~ ^[0-9]+$ ]] || [ "$1" -eq 0 ]; then
		check_err 1 "$2: '$1', want > 0"
	fi
}

# the fast-start window is one BDP at the line rate and base RTT the
# device derives its defaults from (rxe_cc.rst, "Default parameters"):
# here veth's 10 Gb/s, so rxe's largest window
iw=$(awk '/^# line/ { b = $3 * $7 / 8000 / $NF; w = int(b); if (w < b) w++
	if (w < 1) w = 1; if (w > 128) w = 128; print w }' \
	"/sys/class/infiniband/${RXE_DEV[r]}/cc/ldcp/origin")
for k in alpha:1024 beta:128 min_cwnd_pkts:1 max_cwnd_pkts:128 \
	 init_window_pkts:"$iw" ack_every:1; do
	if ! v=$(rxe_cc r "ldcp/${k%%:*}"); then
		check_err 1 "no cc/ldcp/${k%%:*}"
		continue
	fi
	[ "$v" = "${k#*:}" ]
	check_err $? "cc/ldcp/${k%%:*} = $v, want ${k#*:}"
done
log "init_window_pkts $iw ($(head -n 1 "/sys/class/infiniband/${RXE_DEV[r]}/cc/ldcp/origin"))"
log_test defaults

dcb_set rate 20mbit ecn step k 8k

tr_on rxe_cc_ldcp || fail "no rxe_cc_ldcp tracepoint"
echo >"$TR/trace"
defer 'tr_mute rxe_cc_ldcp'

i=0
for h in s1 s2; do
	port=$((18831 + i))
	topo_spawn "SRV[$h]" r ib_write_bw -F -d "${RXE_DEV[r]}" -x "$(rxe_gid r 4)" \
		-p "$port" -D "$SECS" -s 65536 -u 14 >"$TMPD/srv_$h" 2>&1
	defer "kill ${SRV[$h]} 2>/dev/null; wait ${SRV[$h]} 2>/dev/null"
	i=$((i + 1))
done
for port in 18831 18832; do
	wait_for --timeout 60 rxe_listen "$port" r || fail "server on port $port did not start"
done
log "servers up"
i=0
for h in s1 s2; do
	port=$((18831 + i))
	topo_spawn "CLI[$h]" "$h" ib_write_bw -F -d "${RXE_DEV[$h]}" -x "$(rxe_gid "$h" 4)" \
		-p "$port" -D "$SECS" -s 65536 -u 14 "$RIP" >"$TMPD/cli_$h" 2>&1
	defer "kill ${CLI[$h]} 2>/dev/null; wait ${CLI[$h]} 2>/dev/null"
	i=$((i + 1))
done
for h in s1 s2; do
	if ! wait "${CLI[$h]}"; then
		cat "$TMPD/cli_$h"
		check_err 1 "ib_write_bw on $h failed"
	fi
	if ! wait "${SRV[$h]}"; then
		cat "$TMPD/srv_$h"
		check_err 1 "ib_write_bw server for $h failed"
	fi
done

for h in s1 s2; do
	# the result line: bytes iterations BW-peak BW-average MsgRate (in -D
	# mode rxe's BW columns are unreliable: notebook/results-history.rst)
	it=$(awk '$1 == 65536 && NF >= 5 { print $2 }' "$TMPD/cli_$h" | tail -n1)
	if [ -z "$it" ]; then
		cat "$TMPD/cli_$h"
		check_err 1 "no result from ib_write_bw on $h"
	fi
	grep -A1 '#bytes' "$TMPD/cli_$h" | sed "s/^/$h: /"
	ITER[$h]=$it
done
positive "${ITER[s1]}" "writes completed by s1"
positive "${ITER[s2]}" "writes completed by s2"
log_test transfers

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
positive "$marked" "CE marks at the port"
positive "$ce" "CE packets at the receiver"
log_test marking
positive "$becn_tx" "ACKs with BECN sent (r)"
positive "$becn_rx1" "ACKs with BECN received (s1)"
positive "$becn_rx2" "ACKs with BECN received (s2)"
log_test becn
[ "$cnps" = 0 ]
check_err $? "ldcp sent $cnps CNPs"
log_test no_cnps

# read the trace once (formatting it is slow in TCG)
tr_mute rxe_cc_ldcp
grep 'rxe_cc_ldcp:' "$TR/trace" >"$TMPD/trace"
ece=$(grep -c ' ece=1' "$TMPD/trace")
plain=$(grep -c ' ece=0' "$TMPD/trace")
log "tracepoint: $ece cwnd changes on ECE, $plain on plain ACKs; last: $(tail -n1 "$TMPD/trace" | sed 's/.*rxe_cc_ldcp: //')"
positive "$ece" "cwnd decreases (tracepoint)"
positive "$plain" "cwnd increases (tracepoint)"
log_test trace

# QPs gone: the algorithm can be switched off and the module unloaded
rxe_kill_all
for h in s1 s2 r; do
	wait_for --timeout 20 sh -c "echo none >/sys/class/infiniband/${RXE_DEV[$h]}/cc/algo"
	check_err $? "algo none on $h"
done
rmmod rxe_cc_ldcp
check_err $? "rmmod rxe_cc_ldcp"
log_test release

warn=$(dmesg | tail -n +"$((DMESG0 + 1))" | grep -E 'WARNING|BUG|Oops|Call Trace|refcount|leak' || true)
[ -z "$warn" ] || echo "$warn" >&2
[ -z "$warn" ]
check_err $? "dmesg not clean"
log_test kernel_log

tests_exit
