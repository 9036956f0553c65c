#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# Algorithm defaults derived from the line rate and cc/base_rtt_us
# (Documentation/rxe_cc.rst, "Default parameters").  sch_dcb at 40 Mb/s
# as the root qdisc of s1's eth0, then `echo dcqcn > cc/algo`: the
# cc/dcqcn/ knobs are the rule's values at 40 Mb/s (computed here with
# awk from the base RTT and the MTU the device reports) and cc/dcqcn/origin
# says "line 40000 kb/s (sch_dcb)" and "auto"; a written knob stays
# across re-selection and a change of the base RTT, "auto" gives it back;
# K <= N is warned; the first QP (ib_send_lat, whose latency gives the
# guest's RDMA round trip, logged) derives again from a changed qdisc;
# without sch_dcb the link speed (veth: 10 Gb/s), below it max_rate_mbps;
# PCN's period and LDCP's initial window follow the same inputs.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

need_cmd rdma ib_send_lat
for a in dcqcn pcn ldcp; do load_algo "$a"; done
DMESG0=$(dmesg | wc -l)
rxe_topo 1
D=/sys/class/infiniband/${RXE_DEV[s1]}/cc
ERRS=0

# chk COND... -- MESSAGE: count a failed check, go on
chk()
{
	local msg=${*: -1}
	if "${@:1:$#-1}"; then
		log "ok: $msg"
	else
		log "FAIL: $msg"
		ERRS=$((ERRS + 1))
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
chk eq "$RTT" 2000 "cc/base_rtt_us defaults to 2000"
chk eq "$(cat "$D/min_time_between_cnps")" "$RTT" "N defaults to the base RTT"

topo_tc s1 qdisc replace dev eth0 root handle 1: dcb rate 40mbit ||
	fail "sch_dcb on s1's eth0"
rxe_cc s1 algo dcqcn
log "cc/dcqcn/origin: $(tr '\n' ';' <"$D/dcqcn/origin")"
chk grep -q '^# line 40000 kb/s (sch_dcb)' "$D/dcqcn/origin" \
	"origin: line 40000 kb/s from sch_dcb"
expect_dcqcn 40000 "$RTT" "$RTT"
chk eq "$(origin dcqcn rpg_threshold)" default "rpg_threshold is a constant"
chk eq "$(knob dcqcn rpg_threshold)" 5 "rpg_threshold 5"

# a written knob sticks across re-selection and re-derivation
rxe_cc s1 dcqcn/rpg_time_reset 7777
rxe_cc s1 algo none
rxe_cc s1 algo dcqcn
chk eq "$(knob dcqcn rpg_time_reset)" 7777 "written rpg_time_reset kept across re-selection"
chk eq "$(origin dcqcn rpg_time_reset)" set "rpg_time_reset marked set"
rxe_cc s1 base_rtt_us 3000
chk eq "$(knob dcqcn rpg_time_reset)" 7777 "written rpg_time_reset kept when the RTT changes"
chk eq "$(cat "$D/min_time_between_cnps")" 3000 "N follows the base RTT"
expect_dcqcn 40000 3000 3000
rxe_cc s1 dcqcn/rpg_time_reset auto
chk eq "$(knob dcqcn rpg_time_reset)" 3300 "auto gives rpg_time_reset back to the rule"
chk eq "$(origin dcqcn rpg_time_reset)" auto "rpg_time_reset marked auto again"

# K <= N: warned
n0=$(dmesg | wc -l)
rxe_cc s1 dcqcn/dce_tcp_rtt 2500
chk eval 'dmesg | tail -n +$((n0 + 1)) | grep -q "dce_tcp_rtt (K) is not larger"' \
	"K 2500 us <= N 3000 us warned"
rxe_cc s1 dcqcn/dce_tcp_rtt auto
# a written N moves the derived K above it
rxe_cc s1 min_time_between_cnps 5000
chk eq "$(knob dcqcn dce_tcp_rtt)" 5500 "K = 1.1 N above a written N"
rxe_cc s1 min_time_between_cnps auto
rxe_cc s1 base_rtt_us "$RTT"
chk eq "$(cat "$D/min_time_between_cnps")" "$RTT" "N auto again"

# the first QP derives again: the qdisc changed after the selection
topo_tc s1 qdisc replace dev eth0 root handle 1: dcb rate 20mbit ||
	fail "sch_dcb 20mbit"
topo_exec r timeout 120 ib_send_lat -F -s 64 -n 500 -d "${RXE_DEV[r]}" \
	-x "$(rxe_gid r 4)" -p 18861 >"$TMPD/lat.srv" 2>&1 &
srv=$!
wait_for --timeout 30 rxe_listen 18861 r || fail "ib_send_lat server did not start"
topo_exec s1 timeout 120 ib_send_lat -F -s 64 -n 500 -d "${RXE_DEV[s1]}" \
	-x "$(rxe_gid s1 4)" -p 18861 "$RIP" >"$TMPD/lat.cli" 2>&1 ||
	{ cat "$TMPD/lat.cli"; fail "ib_send_lat"; }
wait "$srv" || fail "ib_send_lat server"
# perftest: bytes iterations t_min t_max t_typical t_avg ... (one way, us)
lat=$(awk '$1 == 64 && NF >= 6 { print $3, $5, $6; exit }' "$TMPD/lat.cli")
log "ib_send_lat 64 B over the 20 Mb/s host qdisc, one-way us (min typical avg): $lat; RTT = 2 x typical"
chk grep -q '^# line 20000 kb/s (sch_dcb)' "$D/dcqcn/origin" \
	"the first QP derived from the 20 Mb/s qdisc"
expect_dcqcn 20000 "$RTT" "$RTT"

# no sch_dcb: the link speed (veth 10 Gb/s); max_rate_mbps below it
topo_tc s1 qdisc del dev eth0 root || fail "qdisc del"
rxe_cc s1 algo none
rxe_cc s1 algo dcqcn
chk grep -q '^# line 10000000 kb/s (link)' "$D/dcqcn/origin" "line from the link"
expect_dcqcn 10000000 "$RTT" "$RTT"
rxe_cc s1 max_rate_mbps 30
chk grep -q '^# line 30000 kb/s (max_rate_mbps)' "$D/dcqcn/origin" \
	"line from max_rate_mbps"
expect_dcqcn 30000 "$RTT" "$RTT"

# PCN and LDCP from the same inputs (30 Mb/s, the base RTT, the MTU)
MTU=$(awk '/^# line/ { for (i = 1; i < NF; i++) if ($i == "mtu") print $(i + 1) }' "$D/dcqcn/origin")
rxe_cc s1 algo pcn
want=$(awk -v l=30000 -v r="$RTT" -v m="$MTU" 'BEGIN {
	p = int(16 * m * 8 * 1000 / l); print (p > r ? p : r) }')
chk eq "$(knob pcn period_us)" "$want" "pcn/period_us = max(RTT, 16 packets) = $want"
chk eq "$(origin pcn period_us)" auto "pcn/period_us marked auto"
want=$(awk -v l=30000 -v r="$RTT" -v m="$MTU" 'BEGIN {
	a = int(l / 40000); b = int(m * 800 / r); print (a > b ? a : b) }')
chk eq "$(knob pcn min_rate_kbps)" "$want" "pcn/min_rate_kbps = one packet per 10 RTT = $want"
rxe_cc s1 algo ldcp
want=$(awk -v l=30000 -v r="$RTT" -v m="$MTU" 'BEGIN {
	b = l * r / 8000 / m; w = int(b); if (w < b) w++; if (w < 1) w = 1
	if (w > 128) w = 128; print w }')
chk eq "$(knob ldcp init_window_pkts)" "$want" "ldcp/init_window_pkts = one BDP = $want"
chk eq "$(origin ldcp init_window_pkts)" auto "ldcp/init_window_pkts marked auto"
rxe_cc s1 algo none
rxe_cc s1 max_rate_mbps 0

dmesg | tail -n +$((DMESG0 + 1)) | grep -v "dce_tcp_rtt (K)" | grep -q "WARNING\|BUG" &&
	fail "kernel warning"
[ "$ERRS" = 0 ] || fail "$ERRS checks failed"
exit "$ksft_pass"
