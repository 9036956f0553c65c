#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 900
#
# Lossless means lossless (issue 14).  Senders s1, s2 -> switch sw -> r;
# every host NIC is a sch_dcb that obeys PAUSE, the switch port toward r
# (OUT) marks with RED (kmin 5 KB, kmax 20 KB, pmax 1) on band 3 (DSCP 24)
# and band 1 (DSCP 8).  Every sub-test reports (one failure hides nothing):
#  lossless_pass: PFC on band 3 at the ingress ports, non-ECT (s1) and
#                 ECT(0) (s2) flows into OUT driven above kmax: no WRED
#                 drop, non-ECT packets passed (nonect_passed), ECT ones
#                 CE-marked, no drop anywhere, everything received;
#  nonect_drop:   the same with `band 3 nonect drop` on OUT: WRED drops;
#  lossy_wred:    band 1 has no PFC: non-ECT packets over the curve are
#                 WRED-dropped by default, and passed with `nonect pass`;
#  class_nonect:  `tc class change ... nonect drop|default` and a bad
#                 value (raw netlink): refused with a message, unchanged;
#  limit_lossless: OUT's limit (30 KB) below what the ingress ports' XOFF
#                 admit (2 x 40 KB), the pool sized (buffer 1mb): OUT
#                 queues band 3 above its limit, PFC pauses, no tail drop,
#                 no drop anywhere, everything received;
#  limit_unsized: the same with an unlimited pool (buffer 0): the limit
#                 still bounds OUT (tail drops, peak within the limit);
#  headroom_tiny: headroom 2 KB at s1's ingress port, s1 sending at
#                 1 Gbit/s, `overflow drop`: it overflows (in_drops), the
#                 kernel log names the port, the band and the headroom
#                 that would have sufficed, and the exported in-flight
#                 peak exceeds the headroom;
#  headroom_shared: the same headroom with the default `overflow shared`
#                 and a 256 KB pool: the overflow is queued in the shared
#                 part of the pool (in_borrowed), logged as such, and
#                 nothing is dropped anywhere;
#  headroom_auto: the default headroom and delay, two senders at 40 Mb/s
#                 into OUT at 20 Mb/s through PFC: no drop anywhere, the
#                 in-flight after a PAUSE (pause_inflight_peak) stays below
#                 the headroom; the measured reaction is logged.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"

need_cmd jq
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 missing"
load_dcb

# expect A OP B MSG: a numeric comparison (OP: > >= == <= <) as a step
# of the sub-test; A and B must be integers.
expect()
{
	local a=$1 b=$3 ok=1
	if [[ $a =~ ^-?[0-9]+$ && $b =~ ^-?[0-9]+$ ]]; then
		case $2 in
		">") ((a > b)) && ok=0 ;;
		">=") ((a >= b)) && ok=0 ;;
		"==") ((a == b)) && ok=0 ;;
		"<=") ((a <= b)) && ok=0 ;;
		"<") ((a < b)) && ok=0 ;;
		esac
	fi
	check_err $ok "$4: $1 $2 $3 does not hold"
}

LEN=1000
NONECT=0x60		# DSCP 24 -> band 3, Not-ECT
ECT=0x62		# DSCP 24, ECT(0)
LOSSY=0x20		# DSCP 8 -> band 1, Not-ECT
RED="ecn red kmin 5kb kmax 20kb pmax 1"
# control traffic (DSCP 0) in band 7, out of the way
HOSTOPTS="dscp-map 0:7 limit 2mb"
# rates divided and PFC delays multiplied by DCBLAB_SLOW (lib.sh): the
# same headroom in bytes.  On a slow kernel (real time) headroom_auto
# names the delay, 50 ms scaled, since a vCPU stall holds a PAUSE there
# (sch_dcb.rst, "Sizing headroom"); otherwise it runs on the default.
R10=$(scaled_rate 10mbit)
R20=$(scaled_rate 20mbit)
R40=$(scaled_rate 40mbit)
AUTO_DELAY=
[ "$SLOW" = 1 ] || AUTO_DELAY="delay $(scaled_time 50ms)"

dcb_topo 2
P1=$(topo_port sw s1)
P2=$(topo_port sw s2)
OUT=$PORT
ALL=(sw s1 s2 r)
tc_sink r 7001 7002

# sw_fresh OUT_ARGS IN_ARGS: new sch_dcb on every switch port (counters
# and peaks from zero): OUT_ARGS toward r, IN_ARGS on the ingress ports.
sw_fresh()
{
	local d
	for d in "$P1" "$P2" "$OUT"; do
		topo_tc sw qdisc del dev "$d" root 2>/dev/null
	done
	# shellcheck disable=SC2086
	topo_qdisc sw "$P1" dcb $2 && topo_qdisc sw "$P2" dcb $2 &&
		topo_qdisc sw "$OUT" dcb $1 || check_err 1 "switch: $1 / $2"
}

# flows "NODE TOS PORT COUNT"...: blocking UDP senders started together;
# waits for them and for every queue to drain; sets SENT.
flows()
{
	local f pids=() node tos port cnt
	PFC_GO=$TMPD/go-$RANDOM
	for f in "$@"; do
		read -r node tos port cnt <<<"$f"
		pfc_sender "$node" "$RIP" "$port" "$tos" "$cnt" "$LEN"
		pids+=("$FLOW_PID")
	done
	pfc_go $#
	for f in "${pids[@]}"; do
		wait "$f" || check_err 1 "a sender failed"
	done
	wait_for --timeout 60 pfc_all_drained "${ALL[@]}" || check_err 1 "queues did not drain"
	SENT=0
	for f in "$@"; do
		read -r node tos port cnt <<<"$f"
		SENT=$((SENT + $(cat "$TMPD/sent-$node-$port")))
	done
}

# counted_flows FLOW...: flows to r's sinks 7001 and 7002; sets SENT,
# RCV (datagrams r received) and the drops anywhere (pfc_drops_delta:
# PFC_DROPS, PFC_DROPS_WHAT).
counted_flows()
{
	local d0 d1 c0
	d0=$(pfc_drop_report "${ALL[@]}")
	c0=$(( $(tc_sink_pkts r 7001) + $(tc_sink_pkts r 7002) ))
	flows "$@"
	d1=$(pfc_drop_report "${ALL[@]}")
	pfc_drops_delta "$d0" "$d1"
	RCV=$(( $(tc_sink_pkts r 7001) + $(tc_sink_pkts r 7002) - c0 ))
}

# ---------------------------------------------------------------------
# lossless_pass: band 3 lossless by PFC at the ingress ports
PFC="pfc prio-pfc 3 xoff 40kb delay $(scaled_time 50ms)"
# shellcheck disable=SC2086
topo_dcb_all host rate $R20 $HOSTOPTS || fail "host qdiscs"
sw_fresh "rate $R10 dscp-map 0:7 $RED" "rate $R20 dscp-map 0:7 $PFC"
counted_flows "s1 $NONECT 7001 600" "s2 $ECT 7002 600"
pfc_snap A sw
wred=$(sv A sw "$OUT" drops_wred 3)
passed=$(sv A sw "$OUT" nonect_passed 3)
marked=$(sv A sw "$OUT" ecn_marked 3)
peak=$(sv A sw "$OUT" backlog_peak 3)
log "lossless band 3: sent $SENT received $RCV; OUT band 3 peak $peak B," \
	"drops_wred $wred nonect_passed $passed ecn_marked $marked;" \
	"PAUSEs $(( $(sv A sw "$P1" pause_tx 3) + $(sv A sw "$P2" pause_tx 3) ));" \
	"drops ${PFC_DROPS} ${PFC_DROPS_WHAT}"
expect "$peak" ">" 20480 "OUT band 3 driven above kmax"
expect "$wred" "==" 0 "WRED drops on a lossless band"
expect "$passed" ">" 0 "non-ECT packets passed (nonect_passed)"
expect "$marked" ">" 0 "ECT packets CE-marked"
expect "$PFC_DROPS" "==" 0 "drops anywhere (${PFC_DROPS_WHAT:-none})"
expect "$RCV" ">=" "$SENT" "datagrams received"
log_test lossless_pass

# ---------------------------------------------------------------------
# nonect_drop, lossy_wred: who decides about non-ECT packets over the curve.
# wred_case WHAT BAND MORE S1 S2 WRED PASSED: fresh switch qdiscs (OUT
# marking with RED and MORE options, the ingress ports with PFC), flows of
# TOS S1 from s1 and S2 from s2, then OUT band BAND's WRED drops and
# non-ECT passes (nonect_passed) compared with 0 by WRED and PASSED (">"
# or "=="); WHAT names the case.
wred_case()
{
	local wred passed
	sw_fresh "rate $R10 dscp-map 0:7 $RED$3" "rate $R20 dscp-map 0:7 $PFC"
	flows "s1 $4 7001 600" "s2 $5 7002 600"
	pfc_snap A sw
	wred=$(sv A sw "$OUT" drops_wred "$2")
	passed=$(sv A sw "$OUT" nonect_passed "$2")
	log "$1: sent $SENT; drops_wred $wred nonect_passed $passed" \
		"ecn_marked $(sv A sw "$OUT" ecn_marked "$2")"
	expect "$wred" "$6" 0 "WRED drops ($1)"
	expect "$passed" "$7" 0 "non-ECT passed ($1)"
}

# nonect_drop: the operator asks for WRED on the lossless band
wred_case "band 3 nonect drop" 3 " band 3 nonect drop" "$NONECT" "$ECT" ">" "=="
log_test nonect_drop

# ---------------------------------------------------------------------
# lossy_wred: band 1 has no PFC: WRED by default, or the port's nonect pass
wred_case "lossy band 1 (default)" 1 "" "$LOSSY" "$LOSSY" ">" "=="
wred_case "lossy band 1, port nonect pass" 1 " nonect pass" "$LOSSY" "$LOSSY" "==" ">"
log_test lossy_wred

# ---------------------------------------------------------------------
# class_nonect: settings through tc class change and raw netlink
nl() { topo_exec sw /usr/bin/python3 "$TOP/selftests/net/dcb_nl.py" "$@"; }
bandj() { topo_tc sw -j qdisc show dev "$OUT" | jq -c '.[] | select(.kind == "dcb") | .options | [.nonect, .bands]'; }
topo_tc sw class change dev "$OUT" classid 1:4 dcb nonect drop
check_err $? "class change nonect drop"
v=$(topo_tc sw class show dev "$OUT" | grep "^class dcb 1:4 " | grep -o 'nonect [a-z]*')
log "class 1:4 after nonect drop: $v"
case $v in *drop) ;; *) check_err 1 "class 1:4 shows nonect drop (got '$v')";; esac
before=$(bandj)
for bad in '{"nonect": 3}' '{"nonect": 255}' '{"bands": [{"index": 3, "nonect": 3}]}'; do
	out=$(nl change "$OUT" "$bad" 2>&1)
	rc=$?
	log "  refused ($bad): $out"
	check_err $((rc == 0)) "accepted: $bad"
	case $out in "error "*": "?*) ;; *) check_err 1 "no extack message for $bad: $out";; esac
done
out=$(nl class-change "$OUT" 1:4 '{"nonect": 7}' 2>&1)
check_err $(($? == 0)) "class change nonect 7 accepted"
log "  refused (class nonect 7): $out"
after=$(bandj)
[ "$after" = "$before" ] || check_err 1 "refused input changed the config: $before -> $after"
out=$(topo_tc sw qdisc change dev "$OUT" root dcb rate 10mbit nonect maybe 2>&1)
check_err $(($? == 0)) "tc accepted nonect maybe"
grep -q 'argument "maybe" is wrong' <<<"$out" || check_err 1 "tc error for nonect maybe: $out"
topo_tc sw class change dev "$OUT" classid 1:4 dcb nonect default
check_err $? "class change nonect default"
bands=$(bandj)
log "after nonect default: $bands"
grep -q '"nonect"' <<<"$(jq -c '.[1][] | select(.band == 3)' <<<"$bands")" &&
	check_err 1 "band 3 still has a nonect override: $bands"
log_test class_nonect

# ---------------------------------------------------------------------
# limit_lossless / limit_unsized: a port limit below what PFC admits.
# limit_run POOL_ARGS: two non-ECT flows into OUT (limit 30 KB); sets
# tail, peak and pauses, and counted_flows' variables.
LIMIT=30720
limit_run()
{
	# shellcheck disable=SC2086
	topo_dcb_all host rate $R20 $HOSTOPTS || fail "host qdiscs"
	sw_fresh "rate $R10 dscp-map 0:7 ecn off limit ${LIMIT}b $1" \
		"rate $R20 dscp-map 0:7 $PFC"
	counted_flows "s1 $NONECT 7001 600" "s2 $NONECT 7002 600"
	pfc_snap A sw
	tail=$(sv A sw "$OUT" drops_tail 3)
	peak=$(sv A sw "$OUT" backlog_peak 3)
	pauses=$(( $(sv A sw "$P1" pause_tx 3) + $(sv A sw "$P2" pause_tx 3) ))
	log "limit $LIMIT B, $1: sent $SENT received $RCV; OUT band 3 peak $peak B," \
		"drops_tail $tail; PAUSEs $pauses; drops ${PFC_DROPS} ${PFC_DROPS_WHAT}"
}
limit_run "buffer 1mb"
expect "$peak" ">" "$LIMIT" "OUT band 3 queued above its limit"
expect "$tail" "==" 0 "tail drops at OUT's limit on a lossless band"
expect "$pauses" ">" 0 "PAUSEs sent (PFC bounded the band)"
expect "$PFC_DROPS" "==" 0 "drops anywhere (${PFC_DROPS_WHAT:-none})"
expect "$RCV" ">=" "$SENT" "datagrams received"
log_test limit_lossless

limit_run "buffer 0"
expect "$tail" ">" 0 "tail drops at OUT's limit with an unlimited pool"
expect "$peak" "<=" "$LIMIT" "OUT band 3 within its limit"
log_test limit_unsized

# ---------------------------------------------------------------------
# headroom_tiny: 2 KB of headroom cannot absorb what a sender at 1 Gbit/s
# has in flight when its PAUSE arrives; with `overflow drop` what does not
# fit is dropped.  (The in-flight is the sender's rate times its reaction
# time: at 40 Mbit/s one 1042 B packet in virtual time, where the guest
# reacts without vCPU stalls, which 2 KB held; a 1 Gbit/s NIC dequeues
# several before the PAUSE is seen.  The headroom cannot go below one MTU
# plus the in-flight over `delay`: sch_dcb refuses it.)
# tiny OVERFLOW_OPTS: the tiny-headroom incast; sets ind, borrowed, infl,
# hr and msg (the first overflow warning the kernel logged meanwhile).
tiny()
{
	local mark="dcb-test49-$$-$RANDOM"
	# shellcheck disable=SC2086
	topo_dcb_all host rate "$(scaled_rate 1gbit)" $HOSTOPTS || fail "host qdiscs"
	sw_fresh "rate $R10 dscp-map 0:7 ecn off $1" \
		"rate $R40 dscp-map 0:7 $1 pfc prio-pfc 3 xoff 16kb headroom 2000 delay 1us $2"
	echo "$mark" >/dev/kmsg
	D0=$(pfc_drop_report "${ALL[@]}")
	c0=$(tc_sink_pkts r 7001)
	flows "s1 $NONECT 7001 600"
	D1=$(pfc_drop_report "${ALL[@]}")
	pfc_drops_delta "$D0" "$D1"
	RCV=$(( $(tc_sink_pkts r 7001) - c0 ))
	pfc_snap A sw
	ind=$(sv A sw "$P1" in_drops 3)
	borrowed=$(sv A sw "$P1" in_borrowed 3)
	infl=$(sv A sw "$P1" pause_inflight_peak 3)
	react=$(sv A sw "$P1" pause_react_us 3)
	hr=$(topo_tc sw -j qdisc show dev "$P1" | jq -r '.[] | select(.kind == "dcb") | .options.pfc.headroom')
	msg=$(dmesg | awk -v m="$mark" 'index($0, m) { f = 1; next } f' | grep "sch_dcb band 3 headroom overflow" | head -n1)
	log "tiny headroom $hr B (${2:-default overflow}): in_drops $ind, in_borrowed $borrowed, pause_inflight_peak $infl B, pause_react_us $react;" \
		"sent $SENT received $RCV, drops $PFC_DROPS $PFC_DROPS_WHAT"
	log "  kernel: ${msg:-<nothing>}"
	expect "$infl" ">" "$hr" "in-flight peak above the headroom"
	grep -qE "headroom [0-9]+ B or delay [0-9]+ us would have held them" <<<"$msg" ||
		check_err 1 "kernel warning with the headroom and delay that would have sufficed"
}
# The overflow warnings are net_warn_ratelimited(): at most 10 in any
# net.core.message_cost seconds (5) across the guest, and headroom_tiny's
# fill them, so headroom_shared would find its own only when the steps
# happen to run 5 s apart.  No rate limit while they run.
cost=$(sysctl -n net.core.message_cost) || fail "net.core.message_cost"
defer "sysctl -qw net.core.message_cost=$cost"
sysctl -qw net.core.message_cost=0 || fail "net.core.message_cost=0"
tiny "" "overflow drop"
expect "$ind" ">" 0 "headroom overflow drops (in_drops)"
expect "$borrowed" "==" 0 "overflows queued with overflow drop (in_borrowed)"
grep -q "$P1: sch_dcb band 3 headroom overflow (dropped): headroom $hr B" <<<"$msg" ||
	check_err 1 "kernel warning naming $P1, band 3, the drop and headroom $hr"
log_test headroom_tiny

# ---------------------------------------------------------------------
# headroom_shared: the same overflow queued in the pool's shared part
tiny "buffer 256kb" ""
expect "$borrowed" ">" 0 "overflows queued in the shared buffer (in_borrowed)"
expect "$ind" "==" 0 "headroom overflow drops (in_drops)"
expect "$PFC_DROPS" "==" 0 "drops anywhere (${PFC_DROPS_WHAT:-none})"
expect "$RCV" ">=" "$SENT" "datagrams received"
grep -q "$P1: sch_dcb band 3 headroom overflow (queued in the shared buffer): headroom $hr B" <<<"$msg" ||
	check_err 1 "kernel warning naming $P1, band 3, the shared buffer and headroom $hr"
log_test headroom_shared

# ---------------------------------------------------------------------
# headroom_auto: defaults (auto headroom from rate and the default delay)
# at the lab's rate: hosts and ingress ports at 100 Mbit/s, the port
# toward r at 50.  The auto headroom assumes the upstream sends at most
# at the port's rate, so the hosts leave headroom_tiny's 1 Gbit/s (there
# 93 780 B arrived in the 471 us after a PAUSE).  Up to 45 848 B arrived
# after a PAUSE here, packets that waited in the receive backlog of the
# guest's one CPU (sch_dcb.rst, "Sizing headroom"): the 2 ms default
# tried before (28 028 B) did not hold them, 5 ms (65 528 B) does.
R50=$(scaled_rate 50mbit)
R100=$(scaled_rate 100mbit)
# shellcheck disable=SC2086
topo_dcb_all host rate $R100 $HOSTOPTS || fail "host qdiscs"
sw_fresh "rate $R50 dscp-map 0:7 ecn off" "rate $R100 dscp-map 0:7 pfc prio-pfc 3 xoff 32kb $AUTO_DELAY"
hr=$(topo_tc sw -j qdisc show dev "$P1" | jq -r '.[] | select(.kind == "dcb") | .options.pfc | "\(.headroom) \(.delay_us)"')
read -r hr delay <<<"$hr"
D0=$(pfc_drop_report "${ALL[@]}")
flows "s1 $NONECT 7001 1500" "s2 $NONECT 7002 1500"
D1=$(pfc_drop_report "${ALL[@]}")
pfc_drops_delta "$D0" "$D1"
pfc_snap A sw
p=0
for d in "$P1" "$P2"; do
	infl=$(sv A sw "$d" pause_inflight_peak 3)
	react=$(sv A sw "$d" pause_react_us 3)
	log "default headroom $hr B (delay $delay us) at $d: pause_tx $(sv A sw "$d" pause_tx 3)" \
		"pause_inflight_peak $infl B pause_react_us $react in_peak $(sv A sw "$d" in_peak 3)"
	p=$((p + $(sv A sw "$d" pause_tx 3)))
	expect "$infl" "<" "$hr" "in-flight after PAUSE at $d below the default headroom"
done
log "defaults: sent $SENT, drops ${PFC_DROPS} ${PFC_DROPS_WHAT}"
expect "$p" ">" 0 "PAUSEs sent (the test exercised PFC)"
expect "$PFC_DROPS" "==" 0 "drops anywhere with the defaults (${PFC_DROPS_WHAT:-none})"
log_test headroom_auto

tests_exit
