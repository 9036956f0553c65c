# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# dcqcn_buffer: the DCQCN paper's buffer settings (section 4; its Fig. 18
# compares the 10th percentile throughput of four configurations in an
# 8:1 incast), at the lab's defaults.
# N senders s1..sN each RDMA-write a fixed amount into r through one
# routing switch (cmp_incast's topology, traffic and analysis); every
# switch port and host NIC is sch_dcb at the line rate, PFC on RoCE's band
# 3 in one shared buffer pool of size B, each (port, band 3) reserving the
# auto headroom (R in all).  One run per switch configuration:
#
#   paper     dynamic XOFF, beta (8): XOFF = beta (B - R - s) / 8, and RED
#             at Kmin/Kmax/Pmax below section 4's bound, DCQCN on
#   static    the same RED, a static XOFF of (B - R) / (8 n), the
#             threshold section 4 computes for a static setting (n ports,
#             8 priorities), DCQCN on
#   ecn-late  dynamic XOFF as paper, RED with Kmin at B - R: PFC must
#             act before the queue can reach it, DCQCN on
#   no-pfc    the paper's RED, PFC off (lossy: drops and go-back-N),
#             DCQCN on
#   pfc-only  dynamic XOFF as paper, no ECN, rxe's algorithm none: the
#             baseline of the PAUSE counts
#
# Section 4's bound: with s bytes in the pool, all from one ingress (its
# worst case), and every one of the n egress queues at Kmin
# (s = n Kmin), ECN marks before PFC pauses while beta (B - R - s) / 8 > s,
# i.e. Kmin < beta (B - R) / (n (beta + 8)) with sch_dcb's formula (one
# lossless priority); for a static XOFF, Kmin < XOFF / n.
#
# Per configuration, besides cmp_incast's columns (summary.tsv: FCT,
# Jain, queue, PAUSE frames, drops, marks): thresholds.tsv with B, R, the
# XOFF in force (static, or the lowest dynamic one, at the pool's peak
# occupancy), the pool's and the ingress counters' peaks, Kmin and the
# bound.  The tidy results name the configuration in the algo column.
#
# The functions are also used by the guest test test_89_dcqcn_buffer.sh.

DCQB_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
# shellcheck source=cmp_incast.sh
. "$DCQB_HERE/cmp_incast.sh"

describe()
{
	echo "DCQCN section 4 / Fig. 18: 8:1 RDMA incast under four PFC/ECN settings and PFC alone: PAUSE frames, drops, p10 rate"
}

params()
{
	cat <<'EOF'
configs         paper,static,ecn-late,no-pfc,pfc-only  switch settings to run, in this order
senders         8         number of RDMA senders
rate            100mbit   line rate of every port and host NIC (cc/max_rate_mbps too)
iters           100       ib_write_bw -n: writes per sender
size            65536     bytes per write
buffer          1300kb    switch buffer pool B (R + about 700 KB with the defaults)
beta            8         dynamic PFC threshold factor (paper: 8)
delay           default   PAUSE response time the auto headroom is sized for (default: sch_dcb's, 5 ms)
red             5kb:20kb:0.01  RED kmin:kmax:pmax of paper and static (cmp_incast's)
timeout_u       20        ib_write_bw -u (transport timeout 4.096 us * 2^u)
interval_ms     20        dcbmon sampling interval
sample_s        0.1       sent_pkts sampling interval (FCT resolution)
duration        300       time budget (s): only sizes dcblab's guest timeout (10 x duration + 240 per run)
EOF
}

# dcqb_reserved: R, the headroom the switch's ports reserve in the pool
# with PFC on band 3 (read from a probe configuration: sch_dcb computes it)
dcqb_reserved()
{
	local p
	p=$(topo_ports sw | head -n1)
	topo_tc sw -j -s qdisc show dev "$p" |
		jq -r '.[] | select(.kind == "dcb" and .root == true) | .pool.reserved'
}

# cmpi_rxe CONFIG: cmp_incast's, with the configuration's algorithm
cmpi_rxe()
{
	local h algo=dcqcn
	[ "$1" = pfc-only ] && algo=none
	for h in "${CMPI_HOSTS[@]}" r; do
		rxe_algo "$h" "$algo" "$CMPI_MBPS"
	done
	return 0
}

# cmpi_qdiscs CONFIG: the switch's ports get CONFIG, a fresh pool (the
# old qdiscs are deleted first, so the pool's peak is this run's), the
# host NICs the line rate.  Sets DCQB_ROW (thresholds.tsv's columns after
# the first).
cmpi_qdiscs()
{
	local cfg=$1 base pfc ecn kmin kmax pmax p b r n xoff bound cmds='' dl
	base="rate ${P[rate]} $CTRL_MAP buffer ${P[buffer]}"
	dl=$(cmpi_delay)
	for p in $(topo_ports sw); do cmds+="qdisc del dev $p root"$'\n'; done
	topo_tc sw -force -batch - <<<"$cmds" >/dev/null 2>&1 || true
	# R: the same ports with PFC (the headroom does not depend on XOFF)
	# shellcheck disable=SC2086
	topo_dcb_all switch $base pfc prio-pfc "$ROCE_BAND" beta "${P[beta]}" \
		$dl || fail "tc: switch ports: $base"
	b=$(tc_size_bytes "${P[buffer]}")
	r=$(dcqb_reserved)
	n=$(topo_ports sw | wc -l)
	[ -n "$r" ] && [ "$r" -gt 0 ] && [ "$b" -gt "$r" ] ||
		fail "pool $b B, reserved '$r' B: no shared part (raise buffer)"
	IFS=: read -r kmin kmax pmax <<<"${P[red]}"
	pfc="pfc prio-pfc $ROCE_BAND beta ${P[beta]} $dl"
	ecn="ecn red kmin $kmin kmax $kmax pmax $pmax"
	xoff=dynamic
	bound=$(awk -v be="${P[beta]}" -v b="$b" -v r="$r" -v n="$n" \
		'BEGIN { printf "%d", be * (b - r) / (n * (be + 8)) }')
	case $cfg in
	paper) ;;
	static)
		xoff=$(( (b - r) / (8 * n) ))
		pfc="pfc prio-pfc $ROCE_BAND xoff $xoff $dl"
		bound=$((xoff / n));;
	ecn-late)
		kmin=$((b - r)); kmax=$((kmin + $(tc_size_bytes "$kmax")))
		ecn="ecn red kmin $kmin kmax $kmax pmax $pmax";;
	no-pfc) pfc="pfc off"; xoff=off; bound=NaN;;
	pfc-only) ecn="ecn off";;
	*) fail "unknown configuration '$cfg' (paper, static, ecn-late, no-pfc, pfc-only)";;
	esac
	[ "$cfg" = pfc-only ] && kmin=NaN
	[ "$kmin" = NaN ] || kmin=$(tc_size_bytes "$kmin")
	# shellcheck disable=SC2086
	topo_dcb_all switch $base $pfc || fail "tc: switch ports: $base $pfc"
	# shellcheck disable=SC2086
	dcb_set $base $pfc $ecn || fail "tc: bottleneck: $base $pfc $ecn"
	# shellcheck disable=SC2086
	topo_dcb_all host rate "${P[rate]}" $CTRL_MAP limit 2mb || fail "tc: host NICs"
	DCQB_ROW="$b	$r	$n	$xoff	$kmin	$bound"
	echo "$cfg: switch ports: $base $pfc; bottleneck $PORT: $base $pfc $ecn; host NICs: rate ${P[rate]} $CTRL_MAP limit 2mb"
	echo "$cfg: pool B $b, reserved R $r, $n ports, XOFF $xoff, Kmin $kmin, section 4 bound on Kmin $bound"
}

DCQB_HDR='config	algo	pool_b	reserved	ports	xoff	kmin	kmin_bound	pool_peak	xoff_low	ingress_peak'

# dcqb_run CONFIG: cmp_incast's run of CONFIG, then its thresholds.tsv row
dcqb_run()
{
	local cfg=$1 algo=dcqcn peak in_peak xlow
	[ "$cfg" = pfc-only ] && algo=none
	DCQB_ROW=
	cmpi_run "$cfg"	# cmpi_qdiscs set DCQB_ROW
	[ -n "$DCQB_ROW" ] || fail "$cfg: no thresholds"
	peak=$(cmpi_sw_max CMPI_S1 'pool\.peak')
	in_peak=$(cmpi_sw_max CMPI_S1 "in_peak:$ROCE_BAND")
	# the XOFF in force at the pool's peak: the lowest a dynamic one got
	xlow=$(awk -v row="$DCQB_ROW" -v be="${P[beta]}" -v s="$peak" 'BEGIN {
		split(row, f, "\t"); if (f[4] != "dynamic") { print f[4]; exit }
		x = be * (f[1] - f[2] - s) / 8; printf "%d\n", x < 0 ? 0 : x }')
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$cfg" "$algo" "$DCQB_ROW" "$peak" "$xlow" "$in_peak" \
		>>"$CMPI_OUT/thresholds.tsv"
	log "$cfg: pool peak $peak B, lowest XOFF $xlow B, ingress peak $in_peak B"
}

# cmpi_sw_max VAR KEYREGEX: largest of the snapshot's sw entries matching
cmpi_sw_max()
{
	local -n _m=$1
	local k t=0
	for k in "${!_m[@]}"; do
		[[ $k =~ ^sw:[^:]+:$2$ ]] && [ "${_m[$k]}" -gt "$t" ] && t=${_m[$k]}
	done
	echo "$t"
}

# dcqb_setup: cmp_incast's topology; thresholds.tsv's header
dcqb_setup()
{
	cmpi_defaults
	cmpi_setup
	printf '%s\n' "$DCQB_HDR" >"$CMPI_OUT/thresholds.tsv"
}

run()
{
	local c
	dl_test_libs
	CMPI_OUT=$OUT
	dcqb_setup
	log "topology up: ${#CMPI_HOSTS[@]} senders, $PORT toward r"
	for c in ${P[configs]//,/ }; do
		dcqb_run "$c"
	done
	cmpi_summary
	{
		echo
		echo "thresholds (bytes; xoff_low: the XOFF in force at the pool's peak):"
		column -t -s "$(printf '\t')" "$CMPI_OUT/thresholds.tsv"
	} | tee -a "$CMPI_OUT/summary.txt"
}
