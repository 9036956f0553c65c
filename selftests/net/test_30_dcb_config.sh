#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 400
#
# Configuration and robustness of sch_dcb:
#  - invalid input, through the tc plugin and straight to the kernel (raw
#    netlink, dcb_nl.py), is refused with a message and changes nothing;
#  - printed options parse back to the same configuration;
#  - `tc qdisc change` keeps queued packets;
#  - `tc -j` output is valid JSON; the qdisc's notifications reach
#    listeners;
#  - qdisc replace/delete under traffic, module load/unload loops and
#    namespace deletion leave no backlog and no warning (the runner greps
#    dmesg after every test).
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"

need_cmd iperf3 jq python3
load_dcb
dcb_topo 1
NL="python3 $TOP/selftests/net/dcb_nl.py"

drained() { [ "$(dcb_stat backlog_bytes)" = 0 ]; }
opts() { dcb_tc -j qdisc show dev "$PORT" | jq -cS '.[] | select(.kind == "dcb") | .options'; }

dcb_set rate 20mbit overhead 24 limit 300kb dscp-map 0:7,46:5 \
	ecn red kmin 30kb kmax 100kb pmax 0.1 band 3 limit 50kb ecn step k 20kb
dcb_tc -j qdisc show dev "$PORT" | jq empty || fail "tc -j qdisc show: invalid JSON"
dcb_tc -j -s qdisc show dev "$PORT" | jq empty || fail "tc -j -s qdisc show: invalid JSON"
ref=$(opts)
[ -n "$ref" ] || fail "no options in tc -j output"
log "configured: $ref"

# 0. The qdisc's message fits the page-sized buffers of notifications and
# of a fresh socket's first dump: `tc monitor` sees a change (the port's
# xstats used to carry every band, 4120 B, and the kernel dropped the
# notification).  The change repeats the limit in force.
# shellcheck disable=SC2086
out=$(topo_exec sw $NL notify "$PORT" '{"limit": 307200}' 2>&1) || fail "notify: $out"
log "$out (bytes)"
[ "$(opts)" = "$ref" ] || fail "configuration changed by a change to the same limit"

# 1. The plugin refuses bad input; the kernel configuration stays.
while read -r why args; do
	out=$(dcb_tc qdisc change dev "$PORT" root dcb $args 2>&1) &&
		fail "tc accepted $why: $args"
	grep -qE '^(dcb|Error): ' <<<"$out" || fail "no one-line message for $why: $out"
	[ "$(opts)" = "$ref" ] || fail "configuration changed by refused $why"
	log "refused ($why): $(head -n1 <<<"$out")"
done <<'CASES'
kmin>kmax rate 20mbit ecn red kmin 100kb kmax 10kb pmax 0.1
pmax>1 rate 20mbit ecn red kmin 10kb kmax 100kb pmax 1.5
unknown-keyword rate 20mbit frobnicate 3
missing-kmax rate 20mbit ecn red kmin 10kb pmax 0.1
band-range rate 20mbit band 8 limit 10kb
dscp-range rate 20mbit dscp-map 64:1
CASES

# A change sets what it is given and keeps the rest (rate is only
# required to create the qdisc).
dcb_tc qdisc change dev "$PORT" root dcb limit 200kb || fail "partial change refused"
[ "$(opts)" = "$(jq -cS '.limit = 204800' <<<"$ref")" ] ||
	fail "partial change: $(opts), expected only the limit changed from $ref"
dcb_tc qdisc change dev "$PORT" root dcb limit 300kb || fail "partial change back refused"
[ "$(opts)" = "$ref" ] || fail "configuration not restored by a partial change"

# 2. The kernel refuses what the plugin would not send, with extack
# (range checks are the netlink policy's: "integer out of range").
kcheck()
{
	local expect=$1 out; shift
	out=$(topo_exec sw $NL "$@" 2>&1) && fail "kernel accepted $*"
	grep -qi -- "$expect" <<<"$out" || fail "kernel message for $*: '$out', expected '$expect'"
	[ "$(opts)" = "$ref" ] || fail "configuration changed by refused $*"
	log "kernel refused: $out"
}
kcheck "kmin must be below kmax" change "$PORT" '{"ecn":[1,100000,10000,5]}'
kcheck "kmin must be below kmax" change "$PORT" '{"ecn":[1,5000,5000,5]}'
kcheck "unknown ECN mode" change "$PORT" '{"ecn":[9,1,2,3]}'
kcheck "unknown ECN mode" change "$PORT" '{"ecn":[4,0,0,0]}'	# first past np-ecn
kcheck "out of range" change "$PORT" '{"bands":[{"index":8,"limit":1}]}'
kcheck "band index missing" change "$PORT" '{"bands":[{"limit":1}]}'
kcheck "out of range" change "$PORT" '{"limit":0}'
kcheck "out of range" change "$PORT" '{"overhead":70000}'
kcheck "dscp map" change "$PORT" "{\"dscp_map\":[$(printf '9,%.0s' $(seq 63))0]}"
# a valid change followed by an invalid one in the same message: all or nothing
kcheck "kmin must be below kmax" change "$PORT" '{"limit":5000,"bands":[{"index":2,"limit":7}],"ecn":[1,9,3,0]}'
kcheck "No such file" class-change "$PORT" 1:9 '{"limit":7000}'
kcheck "mutually exclusive" class-change "$PORT" 1:2 '{"ecn":[2,1000,0,0],"ecn_default":true}'
topo_exec sw ip link add dummy0 type dummy || fail "dummy device"
kcheck "rate is required" add dummy0 '{"limit":1000}'

# 3. Printed options round-trip through tc qdisc change.
text=$(dcb_tc qdisc show dev "$PORT" | sed -n 's/^qdisc dcb 1: root refcnt [0-9]* //p')
[ -n "$text" ] || fail "no text options"
dcb_set rate 1mbit
[ "$(opts)" != "$ref" ] || fail "reset did not change the configuration"
dcb_tc qdisc change dev "$PORT" root dcb $text || fail "printed options do not parse: $text"
[ "$(opts)" = "$ref" ] || fail "round trip changed the configuration: $text -> $(opts)"
log "round trip ok: $text"

# Class options: a class change shows in the qdisc dump and the class dump.
dcb_tc class change dev "$PORT" classid 1:5 dcb limit 7000b ecn step k 3000b ||
	fail "tc class change"
dcb_tc -j qdisc show dev "$PORT" | jq -e '.[0].options.bands[] | select(.band == 4) |
	select(.limit == 7000 and .ecn.mode == "step" and .ecn.kmin == 3000)' >/dev/null ||
	fail "class change not in the qdisc dump"
dcb_tc class show dev "$PORT" | grep -q '^class dcb 1:5 .*limit 7000b' ||
	fail "class change not in the class dump"

# 4. `tc qdisc change` keeps queued packets (100 packets queued at 16 kbit/s,
# 50 s to drain, so a slow (debug) kernel still finds them; the change
# lowers the limit below the backlog).
dcb_set rate 16kbit limit 300kb
s0=$(dcb_snap)
noport0=$(topo_exec r nstat -az UdpNoPorts | awk '/UdpNoPorts/{print $2}')
topo_exec s1 python3 "$TOP/scripts/lib/udp_send.py" "$RIP" 6000 --count 100 \
	--interval 0 --tos 0x02 --len 1000 >/dev/null
b0=$(dcb_stat backlog_packets)
assert_ge "$b0" 30 "packets queued before the change"
dcb_tc qdisc change dev "$PORT" root dcb rate 16kbit limit 2kb ecn step k 1kb ||
	fail "valid change refused"
b1=$(dcb_stat backlog_packets)
log "backlog $b0 packets before the change, $b1 right after"
assert_ge "$b1" 1 "queued packets after the change"
dcb_set rate 1mbit limit 300kb
wait_for --timeout 30 drained || fail "queue did not drain"
s1=$(dcb_snap)
noport1=$(topo_exec r nstat -az UdpNoPorts | awk '/UdpNoPorts/{print $2}')
enq=$(dcb_delta "$s0" "$s1" enq_packets)
deq=$(dcb_delta "$s0" "$s1" deq_packets)
drops=$(( $(dcb_delta "$s0" "$s1" drops_tail) + $(dcb_delta "$s0" "$s1" drops_wred) ))
log "enq $enq deq $deq drops $drops, receiver got $((noport1 - noport0))"
[ "$drops" -eq 0 ] || fail "$drops packets dropped across the change"
assert_ge "$deq" 100 "packets sent after the change"
assert_ge $((noport1 - noport0)) 100 "packets delivered after the change"

# 5. Replace and delete under traffic; backlog returns to 0.  The port at
# 5 Mb/s offered 8 (rates divided by DCBLAB_SLOW on a slow kernel, lib.sh).
R5=$(scaled_rate 5mbit)
R2=$(scaled_rate 2mbit)
dcb_set rate "$R5" limit 100kb ecn red kmin 10kb kmax 50kb pmax 0.2
udp_server 5401
udp_flow s1 5401 "$(scaled_rate 8M)" 0x02 "$(scaled_time 120)" 1000
wait_for --timeout 20 backlog_at_least 10000 || fail "no backlog under traffic"
for i in 1 2 3 4 5; do
	dcb_tc qdisc replace dev "$PORT" root handle 2: pfifo limit 100 || fail "replace by pfifo"
	dcb_set rate "$R5" limit 100kb ecn red kmin 10kb kmax 50kb pmax 0.2
	dcb_tc qdisc del dev "$PORT" root || fail "delete under traffic"
	dcb_set rate "$R5" limit 100kb
	dcb_tc qdisc change dev "$PORT" root dcb rate "$R2" limit 20kb ecn step k 5kb ||
		fail "change under traffic"
done
kill "$FLOW_PID" 2>/dev/null
wait "$FLOW_PID" 2>/dev/null
wait_for --timeout 20 drained ||
	fail "backlog did not return to 0 ($(dcb_stat backlog_bytes) bytes)"
[ "$(dcb_stat backlog_packets)" = 0 ] || fail "backlog packets not 0"
log "replace/delete under traffic: backlog back to 0"

# 6. Unload safety: qdiscs go with their namespace; module load/unload loop.
topo_cleanup
# Ten cycles; three on a slow kernel, where deleting a namespace takes tens
# of seconds (the checkers watch every free), and three already unload the
# module after qdiscs with queued packets went with their namespace.
CYCLES=10
[ "$SLOW" = 1 ] || CYCLES=3
for i in $(seq 1 $CYCLES); do
	ip netns add dcbu$i || fail "netns"
	ip -n dcbu$i link add va type veth peer name vb || fail "veth"
	ip -n dcbu$i link set va up && ip -n dcbu$i link set vb up
	TC_LIB_DIR=$TOP/tc ip netns exec dcbu$i tc qdisc add dev va root handle 1: \
		dcb rate 1mbit ecn red kmin 1kb kmax 10kb pmax 0.5 || fail "qdisc in netns"
	ip netns exec dcbu$i python3 "$TOP/scripts/lib/udp_send.py" 10.9.9.9 9 \
		--count 20 --interval 0 >/dev/null 2>&1 || true
	ip netns del dcbu$i
	wait_for --timeout 20 rmmod sch_dcb || fail "rmmod after namespace deletion ($i)"
	insmod "$DCB_KO" || fail "insmod ($i)"
done
log "$CYCLES load/unload cycles with queued packets in deleted namespaces"
exit 0
