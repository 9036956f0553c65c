#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/bench/pfc.sh - cost and timing of sch_dcb's PFC.
#
#   scripts/vm-run --timeout 900 -- bash scripts/bench/pfc.sh   (or: make bench)
#
# 1. Packets per second forwarded by a switch namespace whose ports are
#    sch_dcb, in three modes measured in interleaved rounds (the order
#    rotates every round), medians reported:
#      pfc    buffer + `pfc prio-pfc 3` on both ports (ingress accounting
#             per (port, band); XOFF never reached)
#      nopfc  the same buffer, `pfc off` (pool accounting only)
#      plain  no buffer, no PFC (sch_dcb as measured by pps.sh)
#      bfifo  bfifo on the egress port (pps.sh's yardstick: the simplest
#             qdisc that queues every packet)
#    pktgen runs inside the switch namespace in `xmit_mode netif_receive`
#    on the ingress veth pfa1, so every packet is received there (skb_iif
#    = pfa1, an ingress port of the pool), routed, and queued on the
#    egress sch_dcb of pfb1; the peer pfb0 drops at its clsact ingress.
#    Goal: pfc >= 0.99 x nopfc; pfc/bfifo and plain/bfifo are printed
#    beside it (the whole forwarding path per packet, not pps.sh's).
# 2. PAUSE response times on a host -> switch -> receiver path (host NIC
#    20 Mbit/s into a 10 Mbit/s port, PFC on band 3): from tracepoints
#    (sch_dcb:dcb_pfc_tx on the switch port, sch_dcb:dcb_pfc_rx on the
#    host, net:netif_receive_skb of data arriving at the switch port; one
#    kernel, one trace clock):
#      delivery  PAUSE sent -> handled by the host
#      silence   PAUSE sent -> last data packet from the host arrives
#                (and the packets/bytes that arrived in between)
#      restart   RESUME sent -> first data packet arrives
#      packets from a RESUME to the next PAUSE (about 4 expected; more =
#                the XOFF decision waited for the frame's tasklet)
#
# A benchmark, not a test: exit 0 whatever the numbers, 1 when the
# measurement itself failed.
#
# Environment:
#   DCBLAB_BENCH_ROUNDS  rounds of each mode            (default 9)
#   DCBLAB_BENCH_SECS    seconds per pps measurement    (default 3)
#   DCBLAB_BENCH_PKT     pktgen pkt_size, bytes         (default 64)
#   DCBLAB_BENCH_GOAL    required pfc/nopfc ratio       (default 0.99)
#   DCBLAB_BENCH_TSECS   seconds of traffic for part 2  (default 4;
#                        0 = part 1 only)
#   DCBLAB_DCB_KO        sch_dcb.ko to load if none is  (default
#                        loaded                          sch_dcb/sch_dcb.ko)

set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=lib.sh
. "$TOP/scripts/bench/lib.sh"
ROUNDS=${DCBLAB_BENCH_ROUNDS:-9}
SECS=${DCBLAB_BENCH_SECS:-3}
PKT=${DCBLAB_BENCH_PKT:-64}
GOAL=${DCBLAB_BENCH_GOAL:-0.99}
TSECS=${DCBLAB_BENCH_TSECS:-4}
MODES=(pfc nopfc plain bfifo)
DCB_KO=${DCBLAB_DCB_KO:-$TOP/sch_dcb/sch_dcb.ko}

SW=pf-sw
RX=pf-rx
HOST=pf-h
T=/sys/kernel/tracing

die() { echo "pfc.sh: error: $*" >&2; exit 1; }
note() { echo "# $*"; }

[ "$(id -u)" = 0 ] || die "needs root (run it through scripts/vm-run)"
for c in ip tc awk; do
	command -v "$c" >/dev/null || die "command '$c' not found"
done
export TC_LIB_DIR=$TOP/tc
[ -f "$TC_LIB_DIR/q_dcb.so" ] || die "$TC_LIB_DIR/q_dcb.so not built (run make)"
if [ ! -d /sys/module/sch_dcb ]; then
	[ -f "$DCB_KO" ] || die "$DCB_KO not built (run make)"
	insmod "$DCB_KO" || die "insmod $DCB_KO failed"
fi
modprobe pktgen || die "modprobe pktgen failed"

cleanup() {
	ip netns exec $SW sh -c 'for f in /proc/net/pktgen/kpktgend_*; do echo rem_device_all >$f; done' 2>/dev/null
	[ -w $T/tracing_on ] && { echo 0 >$T/tracing_on; echo 0 >$T/events/enable; } 2>/dev/null
	ip link del pfa0 2>/dev/null
	for n in $SW $RX $HOST; do ip netns del $n 2>/dev/null; done
	return 0
}
trap cleanup EXIT
cleanup

swx() { ip netns exec $SW "$@"; }
mac() { ip netns exec "$1" cat "/sys/class/net/$2/address"; }

# ------------------------------------------------------------ part 1: pps

ip netns add $SW
ip netns add $RX
ip -n $SW link set lo up
swx sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
	net.ipv4.conf.default.rp_filter=0 || die "sysctl in $SW"
# not per namespace: the one backlog of all namespaces
sysctl -qw net.core.netdev_max_backlog=10000
ip link add pfa0 type veth peer name pfa1 netns $SW
ip link add pfb1 netns $SW type veth peer name pfb0 netns $RX
ip link set pfa0 up
for d in pfa1 pfb1; do
	swx ethtool -K $d gro off gso off tso off >/dev/null 2>&1
	ip -n $SW link set $d up
done
ip netns exec $RX ethtool -K pfb0 gro off >/dev/null 2>&1
ip -n $RX link set pfb0 up
swx sysctl -qw net.ipv4.conf.pfa1.rp_filter=0
ip -n $SW addr add 10.98.1.1/24 dev pfa1
ip -n $SW addr add 10.98.2.1/24 dev pfb1
ip -n $RX addr add 10.98.2.2/24 dev pfb0
ip -n $SW neigh replace 10.98.2.2 lladdr "$(mac $RX pfb0)" dev pfb1 nud permanent
ip netns exec $RX tc qdisc add dev pfb0 clsact
ip netns exec $RX tc filter add dev pfb0 ingress matchall action drop

set_mode() {
	local d a
	case $1 in
	pfc) a="rate 0 dscp-map 0:7 buffer 4mb pfc prio-pfc 3 xoff 1mb headroom 64kb delay 10us" ;;
	nopfc) a="rate 0 dscp-map 0:7 buffer 4mb pfc off" ;;
	plain | bfifo) a="rate 0 dscp-map 0:7" ;;
	esac
	# "replace" cannot change the kind: the egress port starts afresh
	swx tc qdisc del dev pfb1 root 2>/dev/null
	for d in pfa1 pfb1; do
		if [ "$1" = bfifo ] && [ $d = pfb1 ]; then
			# as in pps.sh: a byte limit below the MTU, no bypass
			swx tc qdisc replace dev $d root handle 1: bfifo limit 1000 ||
				die "tc qdisc replace dev $d root bfifo"
			continue
		fi
		# shellcheck disable=SC2086
		swx tc qdisc replace dev $d root handle 1: dcb $a ||
			die "tc qdisc replace dev $d root dcb $a"
	done
}

PG=/proc/net/pktgen
pgset() {	# pgset FILE CMD
	swx sh -c "echo '$2' >$1; grep -q '^Result: OK' $1" ||
		die "pktgen: '$2' on $1: $(swx grep '^Result' "$1" 2>/dev/null)"
}
pgset $PG/kpktgend_0 "rem_device_all"
pgset $PG/kpktgend_0 "add_device pfa1"
PGD=$PG/pfa1
pgset $PGD "xmit_mode netif_receive"
pgset $PGD "count 0"
pgset $PGD "clone_skb 0"
pgset $PGD "burst 1"
pgset $PGD "delay 0"
pgset $PGD "pkt_size $PKT"
pgset $PGD "src_min 10.98.1.2"
pgset $PGD "src_max 10.98.1.2"
pgset $PGD "dst 10.98.2.2"
pgset $PGD "dst_mac $(mac $SW pfa1)"
pgset $PGD "udp_src_min 9"
pgset $PGD "udp_src_max 9"
pgset $PGD "udp_dst_min 9"
pgset $PGD "udp_dst_max 9"
pgset $PGD "tos 60"		# DSCP 24: band 3, the PFC band

fwd_sent() { swx tc -s qdisc show dev pfb1 | awk '/^ *Sent/ { print $4; exit }'; }
rx_pkts() { ip netns exec $RX awk '$1 == "pfb0:" { print $3 }' /proc/net/dev; }

# measure MODE SECS: PPS (pktgen), FWD (% of pktgen's packets that left
# pfb1's sch_dcb), RXP (% that reached pfb0)
measure() {
	local m=$1 secs=$2 f0 f1 r0 r1 res sent pid
	set_mode "$m"
	f0=$(fwd_sent); r0=$(rx_pkts)
	swx sh -c "echo start >$PG/pgctrl" &
	pid=$!
	pg_wait_running pfa1 "$pid" "$SW" || die "pktgen did not start on pfa1"
	sleep "$secs"
	swx sh -c "echo stop >$PG/pgctrl"
	wait "$pid"
	f1=$(fwd_sent); r1=$(rx_pkts)
	res=$(swx grep -A1 '^Result:' $PGD | tr '\n' ' ')
	PPS=$(sed -n 's/.* \([0-9][0-9]*\)pps .*/\1/p' <<<"$res")
	sent=$(sed -n 's/.* usec, \([0-9][0-9]*\) .*/\1/p' <<<"$res")
	[ -n "$PPS" ] && [ "$PPS" -gt 0 ] && [ -n "$sent" ] || die "no pps in pktgen result ($m): $res"
	FWD=$(awk -v a=$((f1 - f0)) -v s="$sent" 'BEGIN { printf "%.1f", 100 * a / s }')
	RXP=$(awk -v a=$((r1 - r0)) -v s="$sent" 'BEGIN { printf "%.1f", 100 * a / s }')
}


CPU_MODEL=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
clock_note pfc.sh
echo "pfc.sh: kernel $(uname -r), $(nproc) CPUs ($CPU_MODEL), vm=${DCBLAB_VM:-0}," \
	"sch_dcb $(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "pfc.sh: part 1: pktgen netif_receive on pfa1 (switch ingress), ${PKT}-byte UDP DSCP 24," \
	"routed to pfb1 (sch_dcb, unshaped) -> pfb0 (drop); $ROUNDS rounds x ${SECS}s per mode, order rotated"
note "warm-up"
for m in "${MODES[@]}"; do measure "$m" 1; done
declare -A RES R1
for ((r = 0; r < ROUNDS; r++)); do
	declare -A P=()
	for ((i = 0; i < ${#MODES[@]}; i++)); do
		m=${MODES[(i + r) % ${#MODES[@]}]}
		measure "$m" "$SECS"
		RES[$m]+="$PPS "
		P[$m]=$PPS
		printf '# round %d %-6s %8d pps  forwarded %5s%%  received %5s%%\n' $((r + 1)) "$m" "$PPS" "$FWD" "$RXP"
	done
	R1[nopfc]+="$(ratio "${P[pfc]}" "${P[nopfc]}") "
	R1[plain]+="$(ratio "${P[pfc]}" "${P[plain]}") "
	R1[bfifo]+="$(ratio "${P[pfc]}" "${P[bfifo]}") "
	R1[plainbfifo]+="$(ratio "${P[plain]}" "${P[bfifo]}") "
done
note "sch_dcb statistics of the egress port after a 1 s pfc run:"
measure pfc 1
swx tc -s qdisc show dev pfb1 | sed 's/^/#   /'
echo
printf '%-8s %12s   %s\n' mode "pps(median)" rounds
declare -A MED
for m in "${MODES[@]}"; do
	# shellcheck disable=SC2086
	MED[$m]=$(median ${RES[$m]})
	printf '%-8s %12.0f   %s\n' "$m" "${MED[$m]}" "${RES[$m]}"
done
# The ratios are the medians of the per-round ratios (pps.sh says why).
# shellcheck disable=SC2086
R_OFF=$(ratio "$(median ${R1[nopfc]})" 1)
# shellcheck disable=SC2086
R_PLAIN=$(ratio "$(median ${R1[plain]})" 1)
echo "ratio pfc/nopfc: $R_OFF   (median of rounds: ${R1[nopfc]})"
echo "ratio pfc/plain: $R_PLAIN   (median of rounds: ${R1[plain]})"
# shellcheck disable=SC2086
echo "ratio pfc/bfifo: $(ratio "$(median ${R1[bfifo]})" 1)   (median of rounds: ${R1[bfifo]})"
# shellcheck disable=SC2086
echo "ratio plain/bfifo: $(ratio "$(median ${R1[plainbfifo]})" 1)   (median of rounds: ${R1[plainbfifo]})"
if awk -v r="$R_OFF" -v g="$GOAL" 'BEGIN { exit !(r >= g) }'; then v=PASS; else v=FAIL; fi
echo "goal: pfc >= ${GOAL}x nopfc: $v"
swx sh -c "echo rem_device_all >$PG/kpktgend_0"
[ "$TSECS" = 0 ] && exit 0

# ------------------------------------------------------------ part 2: timing

echo
echo "pfc.sh: part 2: PAUSE response times, host link 20 Mbit/s -> switch egress 10 Mbit/s," \
	"PFC band 3 (xoff 16kb, quanta 0xffff), ${TSECS}s of 1000-byte UDP"
ip netns add $HOST
ip -n $HOST link set lo up
ip link add eth0 netns $HOST type veth peer name swp1 netns $SW
ip -n $HOST link set eth0 up
ip -n $SW link set swp1 up
ip netns exec $HOST ethtool -K eth0 gso off tso off >/dev/null 2>&1
ip -n $HOST addr add 10.98.3.2/24 dev eth0
ip -n $SW addr add 10.98.3.1/24 dev swp1
ip -n $HOST route add default via 10.98.3.1
ip -n $HOST neigh replace 10.98.3.1 lladdr "$(mac $SW swp1)" dev eth0 nud permanent
ip -n $SW neigh replace 10.98.3.2 lladdr "$(mac $HOST eth0)" dev swp1 nud permanent
# Both ends of the host's link run at 20 Mbit/s (PAUSE times are in 512
# bit times of the link: with a slower switch end the host's pause would
# expire before the switch refreshes it); the bottleneck is pfb1 at 10.
PFC="pfc prio-pfc 3 xoff 16kb delay 20ms"
for d in swp1:20mbit pfb1:10mbit pfa1:10mbit; do
	# shellcheck disable=SC2086
	swx tc qdisc replace dev ${d%:*} root handle 1: dcb rate ${d#*:} dscp-map 0:7 buffer 512kb $PFC ||
		die "tc on ${d%:*}"
done
ip netns exec $HOST tc qdisc replace dev eth0 root handle 1: dcb rate 20mbit dscp-map 0:7 limit 2mb ||
	die "tc on the host"

[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null || T=/sys/kernel/debug/tracing
[ -d $T/events/sch_dcb ] || die "no sch_dcb tracepoints in $T"
echo 0 >$T/tracing_on
echo 0 >$T/events/enable
echo 8192 >$T/buffer_size_kb
echo >$T/trace
echo 'name == "swp1"' >$T/events/net/netif_receive_skb/filter
echo 1 >$T/events/net/netif_receive_skb/enable
echo 1 >$T/events/sch_dcb/dcb_pfc_tx/enable
echo 1 >$T/events/sch_dcb/dcb_pfc_rx/enable
echo 1 >$T/tracing_on
n=$(awk -v s="$TSECS" 'BEGIN { printf "%d", s * 20e6 / 8 / 1042 }')
ip netns exec $HOST timeout $((TSECS * 4 + 20)) "$TOP/tools/udpflow" send \
	10.98.2.2 7000 --count "$n" --interval 0 --tos 0x60 --len 1000 >/dev/null ||
	die "sender failed"
echo 0 >$T/tracing_on
echo 0 >$T/events/enable
echo >$T/events/net/netif_receive_skb/filter 0 2>/dev/null
TRACE_OUT=${DCBLAB_BUILD:-$TOP/build}/bench/pfc.trace
mkdir -p "$(dirname "$TRACE_OUT")" && cp $T/trace "$TRACE_OUT" && note "trace saved in $TRACE_OUT"
note "trace: $(grep -c dcb_pfc_tx $T/trace) dcb_pfc_tx, $(grep -c dcb_pfc_rx $T/trace) dcb_pfc_rx," \
	"$(grep -c netif_receive_skb $T/trace) netif_receive_skb events" \
	"$(grep -q 'LOST' $T/trace && echo '(events LOST)')"
note "switch port toward the host (ingress counters) and the bottleneck:"
swx tc -s qdisc show dev swp1 | sed 's/^/#   /'
swx tc -s qdisc show dev pfb1 | grep -E 'total|pool' | sed 's/^/#   /'

# events: TIME KIND ... (trace lines "... 123.456789: dcb_pfc_tx: dev=swp1 pause=0x08 resume=0x00 quanta=65535")
awk '
function stats(name, unit, mul, a, n,    i, j, x, s) {
	if (n == 0) { printf "%-34s %s\n", name, "no events"; return }
	for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
	for (i = 1; i <= n; i++) s += a[i]
	printf "%-34s n %4d  median %9.3f  p90 %9.3f  max %9.3f  mean %9.3f %s\n", name, n,
		a[int((n + 1) / 2)] * mul, a[int(0.9 * n + 0.999)] * mul, a[n] * mul, s / n * mul, unit
}
{
	t = -1
	for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = substr($i, 1, length($i) - 1) + 0; ev = $(i + 1); break }
	if (t < 0) next
	if (ev == "dcb_pfc_tx:" && $0 ~ /dev=swp1 /) {
		p = $0 ~ /pause=0x[0-9a-f]*[89a-f] / ; r = $0 ~ /resume=0x[0-9a-f]*[89a-f] /
		if (p && state != "paused") {
			if (state == "running" || state == "resumed") { rp[++nrp] = since }
			tp = t; state = "paused"; cnt = 0; byt = 0; last = -1; waitrx = 1
		}
		else if (r && state == "paused") {
			sil[++ns] = (last >= 0 ? last - tp : 0); inf[ns] = cnt; infb[ns] = byt
			pd[ns] = t - tp; tr = t; state = "resumed"; since = 0
		}
	} else if (ev == "dcb_pfc_rx:" && waitrx && $0 ~ /pause=0x[0-9a-f]*[89a-f] /) {
		del[++nd] = t - tp; waitrx = 0
	} else if (ev == "netif_receive_skb:") {
		len = 0; if (match($0, /len=[0-9]+/)) len = substr($0, RSTART + 4, RLENGTH - 4) + 0
		if (len < 500) next
		if (state == "paused") { cnt++; byt += len; last = t }
		else { since++; if (state == "resumed") { rs[++nr] = t - tr; state = "running" } }
	}
}
END {
	printf "\n%-34s (%d PAUSE/RESUME cycles)\n", "PAUSE response", ns
	stats("delivery: PAUSE sent -> host", "ms", 1000, del, nd)
	stats("silence: PAUSE sent -> last pkt", "ms", 1000, sil, ns)
	stats("in flight after PAUSE", "packets", 1, inf, ns)
	stats("in flight after PAUSE", "KB", 1 / 1024, infb, ns)
	stats("paused: PAUSE -> RESUME sent", "ms", 1000, pd, ns)
	stats("restart: RESUME sent -> first pkt", "ms", 1000, rs, nr)
	# From XON (RESUME) the counter passes XOFF after about 2 MTU of net
	# growth (4 packets when the host sends twice as fast as the port
	# drains); more packets before the PAUSE goes out = the time between
	# the XOFF decision and the frame (sent from a tasklet).
	stats("pkts from RESUME to next PAUSE", "packets", 1, rp, nrp)
}' $T/trace
exit 0
