#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# Algorithm defaults derived from the line rate and cc/base_rtt_us
# (Documentation/rxe_cc.rst, "Default parameters"); the expected values
# are computed here with awk from the line rate, the base RTT and the MTU
# the device reports.  Steps:
#   base_rtt       cc/base_rtt_us defaults to 2000 us and N
#                  (min_time_between_cnps) to the base RTT;
#   line_sch_dcb   with sch_dcb at 40 Mb/s as the root qdisc of s1's eth0,
#                  `echo dcqcn > cc/algo` gives the cc/dcqcn/ knobs the
#                  rule's values at 40 Mb/s, cc/dcqcn/origin says
#                  "line 40000 kb/s (sch_dcb)" and "auto", rpg_threshold
#                  is the constant 5;
#   written_knob   a written knob stays across re-selection and a change
#                  of the base RTT (the others derive again), "auto" gives
#                  it back;
#   k_le_n         K <= N is warned, a written N moves the derived K above
#                  it, N is "auto" again;
#   first_qp       the first QP (ib_send_lat, whose latency gives the
#                  guest's RDMA round trip, logged) derives again from a
#                  qdisc changed to 20 Mb/s after the selection;
#   line_link      without sch_dcb the line is the link speed (veth: 10
#                  Gb/s), below it max_rate_mbps;
#   pcn_ldcp       PCN's period and minimum rate and LDCP's initial window
#                  follow the same inputs;
#   kernel_log     no kernel warning (but the K <= N one).
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

need_cmd rdma ib_send_lat
for a in dcqcn pcn ldcp; do load_algo "$a"; done
DMESG0=$(dmesg | wc -l)
rxe_topo 1
D=/sys/class/infiniband/${RXE_DEV[s1]}/cc
# the devices' algorithms go before the algorithm modules' holders do
defer 'rxe_cc_none s1'

# chk COND... MESSAGE: the step fails with MESSAGE unless COND, and goes on
chk()
{
	local msg=${*: -1}
	if "${@:1:$#-1}"; then
		log "ok: $msg"
	else
		check_err 1 "$msg"
	fi
}

# knob ALGO NAME: value; origin ALGO NAME: auto|set|default
knob() { cat "$D/$1/$2"; }
origin() { awk -v k="$2" '$1 == k { print $3 }' "$D/$1/origin"; }
eq() { [ "$1" = "$2" ]; }

# expect_dcqcn LINE_KBPS RTT_US N_US: every derived knob not written
expect_dcqcn()
{
	local line=$1 rtt=$2 n=$3 k v want mtu
	declare -A w
	mtu=$(awk '/^# line/ { print $NF }' "$D/dcqcn/origin")
	# the rule of dcqcn_sm_auto(), in awk's doubles
	eval "$(awk -v l="$line" -v r="$rtt" -v n="$n" -v mtu="$mtu" 'BEGIN {
		m = r > n ? r : n; k = int(m * 11 / 10); if (k <= n) k = n + 1
		b = int(l * r * 524288 / 1e8); if (b < 1) b = 1
		ai = int(l / 1000); hai = int(l / 800); mr = int(l / 40000)
		if (mr < int(mtu * 800 / r)) mr = int(mtu * 800 / r)
		printf "w[rpg_time_reset]=%d w[dce_tcp_rtt]=%d w[rpg_byte_reset]=%d ", int(r * 11 / 10), k, b
		printf "w[rpg_ai_rate]=%d w[rpg_hai_rate]=%d w[rpg_min_rate]=%d\n", ai < 1 ? 1 : ai, hai < 1 ? 1 : hai, mr < 1 ? 1 : mr
	}')"
	for k in "${!w[@]}"; do
		[ "$(origin dcqcn "$k")" = set ] && continue
		v=$(knob dcqcn "$k")
		want=${w[$k]}
		chk eq "$v" "$want" "dcqcn/$k = $v at $line kb/s, $rtt us (want $want)"
		chk eq "$(origin dcqcn "$k")" auto "dcqcn/$k marked auto"
	done
}

RTT=$(cat "$D/base_rtt_us")

base_rtt()
{
	chk eq "$RTT" 2000 "cc/base_rtt_us defaults to 2000"
	chk eq "$(cat "$D/min_time_between_cnps")" "$RTT" "N defaults to the base RTT"
}

# sch_dcb at 40 Mb/s on s1's eth0, then dcqcn selected
line_sch_dcb()
{
	if ! topo_tc s1 qdisc replace dev eth0 root handle 1: dcb rate 40mbit; then
		check_err 1 "sch_dcb on s1's eth0"
		return
	fi
	check_assert rxe_cc s1 algo dcqcn
	[ "$RET" = 0 ] || return
	log "cc/dcqcn/origin: $(tr '\n' ';' <"$D/dcqcn/origin")"
	chk grep -q '^# line 40000 kb/s (sch_dcb)' "$D/dcqcn/origin" \
		"origin: line 40000 kb/s from sch_dcb"
	expect_dcqcn 40000 "$RTT" "$RTT"
	chk eq "$(origin dcqcn rpg_threshold)" default "rpg_threshold is a constant"
	chk eq "$(knob dcqcn rpg_threshold)" 5 "rpg_threshold 5"
}

# a written knob sticks across re-selection and re-derivation
written_knob()
{
	check_assert rxe_cc s1 dcqcn/rpg_time_reset 7777
	check_assert rxe_cc s1 algo none
	check_assert rxe_cc s1 algo dcqcn
	chk eq "$(knob dcqcn rpg_time_reset)" 7777 "written rpg_time_reset kept across re-selection"
	chk eq "$(origin dcqcn rpg_time_reset)" set "rpg_time_reset marked set"
	check_assert rxe_cc s1 base_rtt_us 3000
	chk eq "$(knob dcqcn rpg_time_reset)" 7777 "written rpg_time_reset kept when the RTT changes"
	chk eq "$(cat "$D/min_time_between_cnps")" 3000 "N follows the base RTT"
	expect_dcqcn 40000 3000 3000
	check_assert rxe_cc s1 dcqcn/rpg_time_reset auto
	chk eq "$(knob dcqcn rpg_time_reset)" 3300 "auto gives rpg_time_reset back to the rule"
	chk eq "$(origin dcqcn rpg_time_reset)" auto "rpg_time_reset marked auto again"
}

# K <= N: warned; a written N moves the derived K above it (the base RTT
# is 3000 us here, from written_knob, and goes back to RTT at the end)
k_le_n()
{
	local n0
	n0=$(dmesg | wc -l)
	check_assert rxe_cc s1 dcqcn/dce_tcp_rtt 2500
	chk eval "dmesg | tail -n +$((n0 + 1)) | grep -q 'dce_tcp_rtt (K) is not larger'" \
		"K 2500 us <= N 3000 us warned"
	check_assert rxe_cc s1 dcqcn/dce_tcp_rtt auto
	check_assert rxe_cc s1 min_time_between_cnps 5000
	chk eq "$(knob dcqcn dce_tcp_rtt)" 5500 "K = 1.1 N above a written N"
	check_assert rxe_cc s1 min_time_between_cnps auto
	check_assert rxe_cc s1 base_rtt_us "$RTT"
	chk eq "$(cat "$D/min_time_between_cnps")" "$RTT" "N auto again"
}

# the first QP derives again: the qdisc changed after the selection
first_qp()
{
	local srv lat
	if ! topo_tc s1 qdisc replace dev eth0 root handle 1: dcb rate 20mbit; then
		check_err 1 "sch_dcb 20mbit"
		return
	fi
	topo_spawn srv r timeout 120 ib_send_lat -F -s 64 -n 500 -d "${RXE_DEV[r]}" \
		-x "$(rxe_gid r 4)" -p 18861 >"$TMPD/lat.srv" 2>&1
	defer_scope_push
	defer "kill $srv 2>/dev/null; wait $srv 2>/dev/null"
	if ! wait_for --timeout 30 rxe_listen 18861 r; then
		check_err 1 "ib_send_lat server did not start"
		defer_scope_pop
		return
	fi
	if ! topo_exec s1 timeout 120 ib_send_lat -F -s 64 -n 500 -d "${RXE_DEV[s1]}" \
		-x "$(rxe_gid s1 4)" -p 18861 "$RIP" >"$TMPD/lat.cli" 2>&1; then
		cat "$TMPD/lat.cli"
		check_err 1 "ib_send_lat"
	fi
	wait "$srv"
	check_err $? "ib_send_lat server"
	defer_scope_pop
	# perftest: bytes iterations t_min t_max t_typical t_avg ... (one way, us)
	lat=$(awk '$1 == 64 && NF >= 6 { print $3, $5, $6; exit }' "$TMPD/lat.cli")
	log "ib_send_lat 64 B over the 20 Mb/s host qdisc, one-way us (min typical avg): $lat; RTT = 2 x typical"
	chk grep -q '^# line 20000 kb/s (sch_dcb)' "$D/dcqcn/origin" \
		"the first QP derived from the 20 Mb/s qdisc"
	expect_dcqcn 20000 "$RTT" "$RTT"
}

# no sch_dcb: the link speed (veth 10 Gb/s); max_rate_mbps below it
line_link()
{
	topo_tc s1 qdisc del dev eth0 root
	check_err $? "qdisc del"
	check_assert rxe_cc s1 algo none
	check_assert rxe_cc s1 algo dcqcn
	chk grep -q '^# line 10000000 kb/s (link)' "$D/dcqcn/origin" "line from the link"
	expect_dcqcn 10000000 "$RTT" "$RTT"
	check_assert rxe_cc s1 max_rate_mbps 30
	chk grep -q '^# line 30000 kb/s (max_rate_mbps)' "$D/dcqcn/origin" \
		"line from max_rate_mbps"
	expect_dcqcn 30000 "$RTT" "$RTT"
}

# PCN and LDCP from the same inputs (30 Mb/s, the base RTT, the MTU)
pcn_ldcp()
{
	local mtu want
	mtu=$(awk '/^# line/ { for (i = 1; i < NF; i++) if ($i == "mtu") print $(i + 1) }' "$D/dcqcn/origin")
	check_assert rxe_cc s1 algo pcn
	want=$(awk -v l=30000 -v r="$RTT" -v m="$mtu" 'BEGIN {
		p = int(16 * m * 8 * 1000 / l); print (p > r ? p : r) }')
	chk eq "$(knob pcn period_us)" "$want" "pcn/period_us = max(RTT, 16 packets) = $want"
	chk eq "$(origin pcn period_us)" auto "pcn/period_us marked auto"
	want=$(awk -v l=30000 -v r="$RTT" -v m="$mtu" 'BEGIN {
		a = int(l / 40000); b = int(m * 800 / r); print (a > b ? a : b) }')
	chk eq "$(knob pcn min_rate_kbps)" "$want" "pcn/min_rate_kbps = one packet per 10 RTT = $want"
	check_assert rxe_cc s1 algo ldcp
	want=$(awk -v l=30000 -v r="$RTT" -v m="$mtu" 'BEGIN {
		b = l * r / 8000 / m; w = int(b); if (w < b) w++; if (w < 1) w = 1
		if (w > 128) w = 128; print w }')
	chk eq "$(knob ldcp init_window_pkts)" "$want" "ldcp/init_window_pkts = one BDP = $want"
	chk eq "$(origin ldcp init_window_pkts)" auto "ldcp/init_window_pkts marked auto"
	check_assert rxe_cc s1 algo none
	check_assert rxe_cc s1 max_rate_mbps 0
}

# no kernel warning but the one k_le_n asks for
kernel_log()
{
	! dmesg | tail -n +$((DMESG0 + 1)) | grep -v "dce_tcp_rtt (K)" | grep -q "WARNING\|BUG"
	check_err $? "kernel warning"
}

base_rtt
log_test base_rtt
line_sch_dcb
log_test line_sch_dcb
written_knob
log_test written_knob
k_le_n
log_test k_le_n
first_qp
log_test first_qp
line_link
log_test line_link
pcn_ldcp
log_test pcn_ldcp
kernel_log
log_test kernel_log

tests_exit
