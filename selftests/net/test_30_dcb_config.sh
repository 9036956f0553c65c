#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 400
#
# Configuration and robustness of sch_dcb, in steps (a step that finds the
# port's configuration changed by an earlier failure restores it first):
#   json output            `tc -j qdisc show` (with and without -s) is
#                          valid JSON;
#   notification           a change reaches a `tc monitor`-like listener
#                          (the message fits a page) and, repeating the
#                          limit in force, changes nothing;
#   plugin refusals        invalid input to the tc plugin is refused with
#                          a one-line message and changes nothing;
#   partial change         a change sets what it is given and keeps the
#                          rest;
#   kernel refusals        invalid input straight to the kernel (raw
#                          netlink, dcb_nl.py) is refused with the expected
#                          extack message and changes nothing (all or
#                          nothing within one message);
#   round trip             printed options parse back to the same
#                          configuration;
#   class change           a class change shows in the qdisc and the class
#                          dumps;
#   change keeps queue     `tc qdisc change` keeps queued packets: at least
#                          30 queued before and 1 after a change to a limit
#                          below the backlog, no drop, all 100 sent and
#                          delivered;
#   replace under traffic  qdisc replace/delete/change under traffic leave
#                          no backlog;
#   unload                 module load/unload loops after namespaces with
#                          queued packets were deleted.
# No step may leave a warning (the runner greps dmesg after every test).
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"

need_cmd iperf3 jq python3
load_dcb
dcb_topo 1
NL="python3 $TOP/selftests/net/dcb_nl.py"

# shellcheck disable=SC2317  # for wait_for
drained() { [ "$(dcb_stat backlog_bytes)" = 0 ]; }
opts() { dcb_tc -j qdisc show dev "$PORT" | jq -cS '.[] | select(.kind == "dcb") | .options'; }

# the reference configuration; at_ref puts it back when a failed step
# left the port changed (delete and add: a change keeps what it is not
# given).
CONF=(rate 20mbit overhead 24 limit 300kb dscp-map "0:7,46:5"
	ecn red kmin 30kb kmax 100kb pmax 0.1 band 3 limit 50kb ecn step k 20kb)
at_ref()
{
	[ "$(opts)" = "$ref" ] && return 0
	log "restoring the reference configuration"
	dcb_tc qdisc del dev "$PORT" root
	dcb_set "${CONF[@]}"
	[ "$(opts)" = "$ref" ]
	check_err $? "the reference configuration could not be restored"
}

dcb_set "${CONF[@]}"
dcb_tc -j qdisc show dev "$PORT" | jq empty
check_err $? "tc -j qdisc show: invalid JSON"
dcb_tc -j -s qdisc show dev "$PORT" | jq empty
check_err $? "tc -j -s qdisc show: invalid JSON"
log_test "json output"
ref=$(opts)
[ -n "$ref" ] || fail "no options in tc -j output"
log "configured: $ref"

# The qdisc's message fits the page-sized buffers of notifications and of
# a fresh socket's first dump: `tc monitor` sees a change (the port's
# xstats used to carry every band, 4120 B, and the kernel dropped the
# notification).  The change repeats the limit in force.
notification()
{
	local out
	# shellcheck disable=SC2086
	if ! out=$(topo_exec sw $NL notify "$PORT" '{"limit": 307200}' 2>&1); then
		check_err 1 "notify: $out"
		return
	fi
	log "$out (bytes)"
	[ "$(opts)" = "$ref" ]
	check_err $? "configuration changed by a change to the same limit"
}

# The plugin refuses bad input; the kernel configuration stays.
plugin_refusals()
{
	local why args out
	at_ref
	while read -r why args; do
		# shellcheck disable=SC2086
		if out=$(dcb_tc qdisc change dev "$PORT" root dcb $args 2>&1); then
			check_err 1 "tc accepted $why: $args"
			at_ref
			continue
		fi
		grep -qE '^(dcb|Error): ' <<<"$out"
		check_err $? "no one-line message for $why: $out"
		[ "$(opts)" = "$ref" ]
		check_err $? "configuration changed by refused $why"
		log "refused ($why): $(head -n1 <<<"$out")"
	done <<'CASES'
kmin>kmax rate 20mbit ecn red kmin 100kb kmax 10kb pmax 0.1
pmax>1 rate 20mbit ecn red kmin 10kb kmax 100kb pmax 1.5
unknown-keyword rate 20mbit frobnicate 3
missing-kmax rate 20mbit ecn red kmin 10kb pmax 0.1
band-range rate 20mbit band 8 limit 10kb
dscp-range rate 20mbit dscp-map 64:1
CASES
}

# A change sets what it is given and keeps the rest (rate is only
# required to create the qdisc).
partial_change()
{
	at_ref
	if ! dcb_tc qdisc change dev "$PORT" root dcb limit 200kb; then
		check_err 1 "partial change refused"
		return
	fi
	[ "$(opts)" = "$(jq -cS '.limit = 204800' <<<"$ref")" ]
	check_err $? "partial change: $(opts), expected only the limit changed from $ref"
	if ! dcb_tc qdisc change dev "$PORT" root dcb limit 300kb; then
		check_err 1 "partial change back refused"
		return
	fi
	[ "$(opts)" = "$ref" ]
	check_err $? "configuration not restored by a partial change"
}

# The kernel refuses what the plugin would not send, with extack (range
# checks are the netlink policy's: "integer out of range").
# kcheck EXPECT DCB_NL_ARGS...: dcb_nl.py refused with EXPECT, nothing
# changed.
kcheck()
{
	local expect=$1 out; shift
	# shellcheck disable=SC2086
	if out=$(topo_exec sw $NL "$@" 2>&1); then
		check_err 1 "kernel accepted $*"
		at_ref
		return
	fi
	grep -qi -- "$expect" <<<"$out"
	check_err $? "kernel message for $*: '$out', expected '$expect'"
	[ "$(opts)" = "$ref" ]
	check_err $? "configuration changed by refused $*"
	log "kernel refused: $out"
}
kernel_refusals()
{
	at_ref
	kcheck "kmin must be below kmax" change "$PORT" '{"ecn":[1,100000,10000,5]}'
	kcheck "kmin must be below kmax" change "$PORT" '{"ecn":[1,5000,5000,5]}'
	kcheck "out of range" change "$PORT" '{"ecn":[9,1,2,3]}'
	kcheck "out of range" change "$PORT" '{"ecn":[4,0,0,0]}'	# first past np-ecn
	kcheck "ecn: mode missing" change "$PORT" '{"ecn":{"kmin":1000,"kmax":2000}}'
	kcheck "ecn: mode missing" class-change "$PORT" 1:2 '{"ecn":{"kmin":1000}}'
	# the curve as the binary struct it once was (mode 2, kmin 4096, kmax
	# 4096, pmax 1.0) in the reserved numbers: refused at the top and in a
	# band (TCA_DCB_BANDS, 0x8008, holding the nest of band 2)
	kcheck "reserved attribute" change "$PORT" '{"raw":[[7,"020000000010000000100000ffffffff"]]}'
	kcheck "reserved attribute" change "$PORT" '{"raw":[[32776,"20000180050001000200000014000300020000000010000000100000ffffffff"]]}'
	kcheck "out of range" change "$PORT" '{"bands":[{"index":8,"limit":1}]}'
	kcheck "band index missing" change "$PORT" '{"bands":[{"limit":1}]}'
	kcheck "out of range" change "$PORT" '{"limit":0}'
	kcheck "out of range" change "$PORT" '{"overhead":70000}'
	kcheck "out of range" change "$PORT" '{"pfc":{"mask":8,"xoff":16384,"overflow":2}}'
	# shellcheck disable=SC2046
	kcheck "dscp map" change "$PORT" "{\"dscp_map\":[$(printf '9,%.0s' $(seq 63))0]}"
	# a valid change followed by an invalid one in the same message: all
	# or nothing
	kcheck "kmin must be below kmax" change "$PORT" '{"limit":5000,"bands":[{"index":2,"limit":7}],"ecn":[1,9,3,0]}'
	kcheck "No such file" class-change "$PORT" 1:9 '{"limit":7000}'
	kcheck "mutually exclusive" class-change "$PORT" 1:2 '{"ecn":[2,1000,0,0],"ecn_default":true}'
	if ! topo_exec sw ip link add dummy0 type dummy; then
		check_err 1 "dummy device"
		return
	fi
	kcheck "rate is required" add dummy0 '{"limit":1000}'
}

# Printed options round-trip through tc qdisc change.
round_trip()
{
	local text
	at_ref
	text=$(dcb_tc qdisc show dev "$PORT" | sed -n 's/^qdisc dcb 1: root refcnt [0-9]* //p')
	if [ -z "$text" ]; then
		check_err 1 "no text options"
		return
	fi
	dcb_set rate 1mbit
	if [ "$(opts)" = "$ref" ]; then
		check_err 1 "reset did not change the configuration"
		return
	fi
	# shellcheck disable=SC2086
	if ! dcb_tc qdisc change dev "$PORT" root dcb $text; then
		check_err 1 "printed options do not parse: $text"
		return
	fi
	[ "$(opts)" = "$ref" ]
	check_err $? "round trip changed the configuration: $text -> $(opts)"
	[ "$RET" = 0 ] && log "round trip ok: $text"
}

# Class options: a class change shows in the qdisc dump and the class dump.
class_change()
{
	if ! dcb_tc class change dev "$PORT" classid 1:5 dcb limit 7000b ecn step k 3000b; then
		check_err 1 "tc class change"
		return
	fi
	dcb_tc -j qdisc show dev "$PORT" | jq -e '.[0].options.bands[] | select(.band == 4) |
		select(.limit == 7000 and .ecn.mode == "step" and .ecn.kmin == 3000)' >/dev/null
	check_err $? "class change not in the qdisc dump"
	dcb_tc class show dev "$PORT" | grep -q '^class dcb 1:5 .*limit 7000b'
	check_err $? "class change not in the class dump"
}

# `tc qdisc change` keeps queued packets (100 packets queued at 16 kbit/s,
# 50 s to drain, so a slow (debug) kernel still finds them; the change
# lowers the limit below the backlog).  On an early return the port is
# sped up so that the queue drains before the next step.
# shellcheck disable=SC2119  # dcb_snap: the port's totals
keeps_queue()
{
	local s0 s1 noport0 noport1 b0 b1 enq deq drops
	dcb_set rate 16kbit limit 300kb
	s0=$(dcb_snap)
	noport0=$(topo_exec r nstat -az UdpNoPorts | awk '/UdpNoPorts/{print $2}')
	topo_exec s1 "$TOP/tools/udpflow" send "$RIP" 6000 --count 100 \
		--interval 0 --tos 0x02 --len 1000 >/dev/null
	b0=$(dcb_stat backlog_packets)
	check_assert assert_ge "$b0" 30 "packets queued before the change"
	if [ "$RET" != 0 ]; then
		dcb_set rate 1mbit limit 300kb
		return
	fi
	if ! dcb_tc qdisc change dev "$PORT" root dcb rate 16kbit limit 2kb ecn step k 1kb; then
		check_err 1 "valid change refused"
		dcb_set rate 1mbit limit 300kb
		return
	fi
	b1=$(dcb_stat backlog_packets)
	log "backlog $b0 packets before the change, $b1 right after"
	check_assert assert_ge "$b1" 1 "queued packets after the change"
	dcb_set rate 1mbit limit 300kb
	if ! wait_for --timeout 30 drained; then
		check_err 1 "queue did not drain"
		return
	fi
	s1=$(dcb_snap)
	noport1=$(topo_exec r nstat -az UdpNoPorts | awk '/UdpNoPorts/{print $2}')
	enq=$(dcb_delta "$s0" "$s1" enq_packets)
	deq=$(dcb_delta "$s0" "$s1" deq_packets)
	drops=$(( $(dcb_delta "$s0" "$s1" drops_tail) + $(dcb_delta "$s0" "$s1" drops_wred) ))
	log "enq $enq deq $deq drops $drops, receiver got $((noport1 - noport0))"
	[ "$drops" -eq 0 ]
	check_err $? "$drops packets dropped across the change"
	check_assert assert_ge "$deq" 100 "packets sent after the change"
	check_assert assert_ge $((noport1 - noport0)) 100 "packets delivered after the change"
}

# Replace and delete under traffic; backlog returns to 0.  The port at
# 5 Mb/s offered 8 (rates divided by DCBLAB_SLOW on a slow kernel, lib.sh).
replace_under_traffic()
{
	local i R5 R2
	R5=$(scaled_rate 5mbit)
	R2=$(scaled_rate 2mbit)
	dcb_set rate "$R5" limit 100kb ecn red kmin 10kb kmax 50kb pmax 0.2
	udp_server 5401
	udp_flow s1 5401 "$(scaled_rate 8M)" 0x02 "$(scaled_time 120)" 1000
	if ! wait_for --timeout 20 backlog_at_least 10000; then
		check_err 1 "no backlog under traffic"
		kill "$FLOW_PID" 2>/dev/null
		wait "$FLOW_PID" 2>/dev/null
		return
	fi
	for i in 1 2 3 4 5; do
		if ! dcb_tc qdisc replace dev "$PORT" root handle 2: pfifo limit 100; then
			check_err 1 "replace by pfifo"
			break
		fi
		dcb_set rate "$R5" limit 100kb ecn red kmin 10kb kmax 50kb pmax 0.2
		if ! dcb_tc qdisc del dev "$PORT" root; then
			check_err 1 "delete under traffic"
			break
		fi
		dcb_set rate "$R5" limit 100kb
		if ! dcb_tc qdisc change dev "$PORT" root dcb rate "$R2" limit 20kb ecn step k 5kb; then
			check_err 1 "change under traffic"
			break
		fi
	done
	kill "$FLOW_PID" 2>/dev/null
	wait "$FLOW_PID" 2>/dev/null
	if ! wait_for --timeout 20 drained; then
		check_err 1 "backlog did not return to 0 ($(dcb_stat backlog_bytes) bytes)"
		return
	fi
	[ "$(dcb_stat backlog_packets)" = 0 ]
	check_err $? "backlog packets not 0"
	[ "$RET" = 0 ] && log "replace/delete under traffic: backlog back to 0"
}

# Unload safety: qdiscs go with their namespace; module load/unload loop.
# unload_cycle I: a namespace whose sch_dcb holds packets is deleted, then
# the module is unloaded and loaded again.
unload_cycle()
{
	local i=$1 ns=dcbu$1
	if ! ip netns add "$ns"; then
		check_err 1 "netns"
		return 1
	fi
	if ! ip -n "$ns" link add va type veth peer name vb; then
		check_err 1 "veth"
		ip netns del "$ns"
		return 1
	fi
	ip -n "$ns" link set va up && ip -n "$ns" link set vb up
	if ! TC_LIB_DIR=$TOP/tc ip netns exec "$ns" tc qdisc add dev va root handle 1: \
		dcb rate 1mbit ecn red kmin 1kb kmax 10kb pmax 0.5; then
		check_err 1 "qdisc in netns"
		ip netns del "$ns"
		return 1
	fi
	ip netns exec "$ns" "$TOP/tools/udpflow" send 10.9.9.9 9 \
		--count 20 --interval 0 >/dev/null 2>&1 || true
	ip netns del "$ns"
	if ! wait_for --timeout 20 rmmod sch_dcb; then
		check_err 1 "rmmod after namespace deletion ($i)"
		return 1
	fi
	if ! insmod "$DCB_KO"; then
		check_err 1 "insmod ($i)"
		return 1
	fi
}
# Ten cycles; three on a slow kernel, where deleting a namespace takes tens
# of seconds (the checkers watch every free), and three already unload the
# module after qdiscs with queued packets went with their namespace.
unload()
{
	local i cycles=10
	[ "$SLOW" = 1 ] || cycles=3
	topo_cleanup
	for i in $(seq 1 $cycles); do
		unload_cycle "$i" || return
	done
	log "$cycles load/unload cycles with queued packets in deleted namespaces"
}

notification
log_test "notification"
plugin_refusals
log_test "plugin refusals"
partial_change
log_test "partial change"
kernel_refusals
log_test "kernel refusals"
round_trip
log_test "round trip"
class_change
log_test "class change"
keeps_queue
log_test "change keeps queue"
replace_under_traffic
log_test "replace under traffic"
unload
log_test "unload"

tests_exit
