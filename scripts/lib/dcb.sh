# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# scripts/lib/dcb.sh - sch_dcb helpers: a sender(s) -> routing switch ->
# receiver topology (dcb_topo, on topo.sh) with sch_dcb on the switch's
# port toward the receiver, UDP flows with a chosen TOS, PFC senders and
# sinks (tools/udpflow), and readers of
# the qdisc's counters.  Used by the guest tests (selftests/net).
# Source after common.sh (a test: after selftests/net/lib.sh).  Scratch
# files go to $TMPD (removed at exit).

# shellcheck source=topo.sh
. "$TOP/scripts/lib/topo.sh"

TMPD=$(mktemp -d)
at_exit 'rm -rf "$TMPD"'

# dcb_topo NSENDERS: hosts s1..sN and r around switch sw.  Sets PORT (the
# switch port toward r) and RIP (r's address).  Cleans up on exit.
dcb_topo()
{
	local i n=${1:-1}

	topo_init "t$$" || fail "topo_init"
	at_exit topo_cleanup
	need_mod veth
	topo_switch sw >/dev/null || fail "topology: switch"
	for i in $(seq 1 "$n"); do
		topo_host "s$i" && topo_link "s$i" sw >/dev/null ||
			fail "topology: sender s$i"
	done
	topo_host r && topo_link r sw >/dev/null || fail "topology: receiver"
	topo_routes || fail "topology: routes"
	PORT=$(topo_port sw r)
	RIP=$(topo_ip4 r)
	# topo.sh pins neighbours (no ARP under load); check the path works.
	for i in $(seq 1 "$n"); do
		topo_exec "s$i" ping -c1 -W5 "$RIP" >/dev/null ||
			fail "no connectivity s$i -> r"
	done
}

# backlog_at_least BYTES: the port holds at least BYTES.
backlog_at_least() { [ "$(dcb_stat backlog_bytes)" -ge "$1" ]; }

# peak_at_least BYTES: the port's backlog has reached BYTES at some point.
peak_at_least() { [ "$(dcb_stat backlog_peak)" -ge "$1" ]; }

# dcb_tc ARGS...: tc in the switch namespace (with our plugin).
dcb_tc() { topo_tc sw "$@"; }

# dcb_set ARGS...: (re)configure the port: `dcb_set rate 20mbit ...`.
dcb_set()
{
	dcb_tc qdisc replace dev "$PORT" root handle 1: dcb "$@" ||
		fail "tc qdisc replace dcb $*"
}

# dcb_json: the port's root qdisc object, `tc -j -s qdisc show` with its
# bands in .bands (topo_qdiscs_json), for logs and jq programs.
dcb_json()
{
	_topo_qdiscs_json sw "$PORT" \
		'[.[] | select(.kind == "dcb" and .root == true)][0] // empty'
}

# dcb_stat KEY [BAND]: a counter of the port (total) or of one band.
dcb_stat() { pfc_get "$(pfc_read sw "$PORT")" "$@"; }

# dcb_snap [BAND]: the port's totals (or one band's counters) as one line
# "key=value ..." for later dcb_delta.
dcb_snap()
{
	pfc_read sw "$PORT" | awk -v b="${1:-}" '{
		n = split($1, p, ":")
		if ((b == "" && n == 1) || (b != "" && n == 2 && p[2] == b))
			{ printf "%s%s=%s", sep, p[1], $2; sep = " " }
	} END { print "" }'
}

# dcb_delta SNAP1 SNAP2 KEY: KEY's increase between two snapshots.
dcb_delta()
{
	local a b
	a=$(tr ' ' '\n' <<<"$1" | sed -n "s/^$3=//p")
	b=$(tr ' ' '\n' <<<"$2" | sed -n "s/^$3=//p")
	[ -n "$a" ] && [ -n "$b" ] || fail "no counter $3 in stats"
	echo $((b - a))
}

# udp_server PORT [OUTFILE]: one-shot iperf3 server on r writing JSON
# (default $TMPD/server-PORT.json); its pid in SERVER_PID.
udp_server()
{
	ip netns exec "$(topo_ns r)" iperf3 -s -1 -p "$1" -J >"${2:-$TMPD/server-$1.json}" 2>&1 &
	SERVER_PID=$!
	wait_for --timeout 10 listening "$1" || fail "iperf3 server on port $1 did not start"
}

listening() { topo_exec r ss -ltnH "sport = :$1" | grep -q .; }

# udp_flow HOST PORT RATE TOS SECONDS [LEN [JSON]]: UDP flow from HOST to
# r (needs a udp_server on PORT), in the background (pid in FLOW_PID).
udp_flow()
{
	clock_spin
	# no function or subshell in between: $! is iperf3 itself (kill works)
	ip netns exec "$(topo_ns "$1")" iperf3 -c "$RIP" -p "$2" -u -b "$3" --tos "$4" \
		--pacing-timer 100 \
		-t "$5" -l "${6:-1000}" -J >"${7:-$TMPD/client-$2.json}" 2>&1 &
	FLOW_PID=$!
}

# ------------------------------------------------------------------ PFC
# Readers for any sch_dcb of the topology (NODE DEV), for the PFC tests.
# A missing key is a failure of the whole test (the plugin or module not
# reporting a counter must never read as 0).

# die_top MSG: fail the test from inside $(...): report, then stop the
# test's main shell (its TERM trap runs the cleanup).
die_top()
{
	echo "FAIL: $*" >&2
	kill -TERM $$ 2>/dev/null
	exit 1
}

# Process start-up is slow in a TCG guest (jq among the slowest: about
# 0.3 s of guest time each; Documentation/testing.rst), so the readers
# take one snapshot of several nodes with one dcbmon -s (it enters every
# namespace itself and reads the ports' totals, bands and pool and the
# devices' drop counters) and one awk, into a bash associative array:
#
#   pfc_snap S sw1 h1          # S["sw1:swp2:pause_tx:3"], S["h1:eth0:xoff"],
#   sv S sw1 swp2 pause_tx 3   # S["sw1:swp2:pool.used"], S["sw1:swp2:rx_dropped"]
#
# Keys: NODE:DEV:KEY (totals and pfc_malformed), NODE:DEV:KEY:BAND (bands),
# NODE:DEV:pool.KEY (pool), NODE:DEV:rx_dropped / tx_dropped (device).

# pfc_snap VAR NODE...: snapshot of the root sch_dcb qdiscs and the
# devices of the NODEs into the global associative array VAR.
pfc_snap()
{
	local var=$1 n args=() sw='' raw out
	shift
	for n in "$@"; do
		args+=("$n=${TOPO_PREFIX}-$n")
		[ "${TOPO_KIND[$n]:-}" != switch ] || sw+=" $n"
	done
	raw=$("$TOPO_REPO/tools/dcbmon" -s "${args[@]}") ||
		die_top "cannot read the statistics of $*"
	# Every value as an element of the array, and the sums pfc_sw_sum
	# reads: +KEY (the ports' totals, pool and device counters), +KEY:BAND
	# and +KEY:* (every band) over the ports of the switch nodes, in the
	# same awk run; bash only evaluates the list (a bash loop over the
	# thousand values of a switch costs seconds of a TCG guest's time).
	out=$(awk -v sw="$sw" '
	BEGIN { n = split(sw, a, " "); for (i = 1; i <= n; i++) S[a[i]] = 1 }
	{
		printf "[\047%s\047]=%s\n", $1, $2
		split($1, p, ":")
		if (!(p[1] in S)) next
		if (p[4] == "") { sum["+" p[3]] += $2; next }
		sum["+" p[3] ":" p[4]] += $2
		sum["+" p[3] ":*"] += $2
	}
	END { for (k in sum) printf "[\047%s\047]=%.0f\n", k, sum[k] }' <<<"$raw") ||
		die_top "cannot parse the statistics of $*"
	declare -gA "$var"
	local -n _snap=$var
	eval "_snap=($out)"
}

# pfc_sw_sum VAR KEY [BAND]: KEY summed over every switch port in snapshot
# VAR (pfc_snap sums them); BAND '*' sums every band.
pfc_sw_sum()
{
	local -n _s=$1
	echo "${_s[+$2${3:+:$3}]:-0}"
}

# sv VAR NODE DEV KEY [BAND]: a value of snapshot VAR; a missing key fails
# the test (never read as 0).
sv()
{
	local -n _snap=$1
	local k="$2:$3:$4${5:+:$5}"
	[ -n "${_snap[$k]+x}" ] || die_top "sch_dcb statistics lack '$4'${5:+ of band $5} on $2:$3"
	echo "${_snap[$k]}"
}

# pfc_stat NODE DEV KEY [BAND]: one value, fresh (a snapshot of NODE).
pfc_stat()
{
	pfc_snap _PFC_ONE "$1"
	sv _PFC_ONE "$@"
}

# pfc_read NODE DEV: one reading of DEV's root sch_dcb ("KEY VALUE" lines
# of dcbmon -s without their NODE:DEV: prefix), and
# pfc_get READING KEY [BAND]: KEY of its totals, of band BAND, or of the
# pool (pool.KEY); fails when the key is missing.  (One dcbmon run, and
# pfc_get none: the cheapest reader of one port.)
pfc_read()
{
	local raw
	raw=$("$TOPO_REPO/tools/dcbmon" -s "x=${TOPO_PREFIX}-$1:$2") ||
		die_top "no root sch_dcb on $1:$2"
	echo "${raw//x:$2:/}"
}

pfc_get()
{
	local k=$2${3:+:$3}
	[[ $'\n'$1$'\n' =~ $'\n'"$k "([0-9]+)$'\n' ]] ||
		die_top "sch_dcb statistics lack '$2'${3:+ of band $3}"
	echo "${BASH_REMATCH[1]}"
}

# pfc_sum KEY [BAND] -- NODE...: sum of KEY over every port of the NODEs.
pfc_sum()
{
	local key=$1 band='' n d s=0 v
	shift
	[ "${1:-}" = -- ] || { band=$1; shift; }
	[ "${1:-}" = -- ] && shift
	pfc_snap _PFC_SUM "$@"
	for n in "$@"; do
		for d in $(topo_ports "$n"); do
			v=$(sv _PFC_SUM "$n" "$d" "$key" "$band")
			s=$((s + v))
		done
	done
	echo "$s"
}

# Every drop counter a lossless run must leave at 0.
PFC_DROP_KEYS="drops_tail drops_wred drops_headroom in_drops"

# pfc_sw_drops VAR0 VAR1: the PFC_DROP_KEYS counters of every switch port,
# summed, from snapshot VAR0 to VAR1 (pfc_snap).
pfc_sw_drops()
{
	local k d=0
	for k in $PFC_DROP_KEYS; do
		d=$((d + $(pfc_sw_sum "$2" "$k") - $(pfc_sw_sum "$1" "$k")))
	done
	echo "$d"
}

# softnet_drops: packets dropped by the per-CPU backlogs (all CPUs; the
# counter is not per namespace).
softnet_drops()
{
	local s=0 x
	while read -r _ x _; do
		s=$((s + 16#$x))
	done </proc/net/softnet_stat
	echo "$s"
}

# pfc_drop_report NODE...: one line "NODE:DEV:KEY=N ..." listing every drop
# counter of every port of the NODEs (qdisc keys of PFC_DROP_KEYS, the
# devices' rx_dropped and tx_dropped), each node's pool.drops_full (one
# pool per namespace: read at its first port) and softnet.
pfc_drop_report()
{
	local n d k line='' pool
	pfc_snap _PFC_DROP "$@"
	for n in "$@"; do
		pool=pool.drops_full	# the pool's counter: once per node
		for d in $(topo_ports "$n"); do
			for k in $PFC_DROP_KEYS $pool rx_dropped tx_dropped; do
				line+="$n:$d:$k=$(sv _PFC_DROP "$n" "$d" "$k") "
			done
			pool=
		done
	done
	echo "${line}softnet=$(softnet_drops)"
}

# pfc_all_drained NODE...: no packet queued on any port of the NODEs.
pfc_all_drained()
{
	local n d
	pfc_snap _PFC_DR "$@"
	for n in "$@"; do
		for d in $(topo_ports "$n"); do
			[ "$(sv _PFC_DR "$n" "$d" backlog_bytes)" = 0 ] || return 1
		done
	done
}

# pfc_drops_delta REPORT1 REPORT2: the entries that grew, "what=+N ...",
# and in PFC_DROPS the total growth.
pfc_drops_delta()
{
	local out
	case "$1 $2" in
	*MISSING*) die_top "a drop counter is missing: $(tr ' ' '\n' <<<"$1 $2" | grep MISSING | head -n3 | tr '\n' ' ')";;
	esac
	out=$(awk -v a="$1" -v b="$2" 'BEGIN {
		n = split(a, x, " "); for (i = 1; i <= n; i++) { split(x[i], kv, "="); v[kv[1]] = kv[2] }
		n = split(b, x, " "); t = 0
		for (i = 1; i <= n; i++) { split(x[i], kv, "=")
			d = kv[2] - v[kv[1]]; if (d != 0) { printf "%s=+%d ", kv[1], d; t += d } }
		printf "TOTAL=%d\n", t }')
	PFC_DROPS=${out##*TOTAL=}
	PFC_DROPS_WHAT=${out% TOTAL=*}
	[ "$PFC_DROPS_WHAT" != "$out" ] || PFC_DROPS_WHAT=
}

# pfc_trace_on: record the sch_dcb tracepoints (tracefs), muted at exit
# (tr_mute: switching them off patches kernel text).
pfc_trace_on()
{
	tr_mount || return 1
	TRACEFS=$TR
	echo 0 >$TR/tracing_on
	echo >$TR/trace
	tr_on sch_dcb || return 1
	echo 1 >$TR/tracing_on
	at_exit 'tr_mute sch_dcb; echo 0 >"$TRACEFS/tracing_on"'
}

# pfc_sender NODE DST PORT TOS COUNT [LEN]: a blocking-socket UDP sender
# sending COUNT datagrams back to back (the host's shaped sch_dcb sets the
# pace; a PAUSE blocks the socket), in the background (pid in FLOW_PID,
# the number sent in $TMPD/sent-NODE-PORT).
# With PFC_GO set to a file name, the sender says it is ready (a file
# $PFC_GO.ready-PID) and waits for that file to exist before it starts
# (python start-up takes seconds under TCG): pfc_go N starts N such
# senders at once.
pfc_sender()
{
	ip netns exec "$(topo_ns "$1")" timeout "$(scaled_time 300)" bash -c \
		'[ -z "$1" ] || { : >"$1.ready-$$"; while [ ! -e "$1" ]; do sleep 0.02; done; }
		 shift; exec "$@"' \
		_ "${PFC_GO:-}" "$TOP/tools/udpflow" \
		send "$2" "$3" --count "$5" \
		--interval 0 --tos "$4" --len "${6:-1000}" >"$TMPD/sent-$1-$3" 2>&1 &
	FLOW_PID=$!
}

# pfc_go N: once the N senders started with PFC_GO are ready (or after
# 30 s: one that failed is reported by its exit status), let them go;
# unsets PFC_GO.
_pfc_ready() { local f=("$PFC_GO".ready-*); [ -e "${f[0]}" ] && [ "${#f[@]}" -ge "$1" ]; }
pfc_go()
{
	wait_for --timeout 30 _pfc_ready "$1" || :
	: >"$PFC_GO"
	PFC_GO=
}

# pfc_sink NODE PORT: count UDP datagrams arriving at NODE:PORT until
# $TMPD/stop-PORT exists (count in $TMPD/count-PORT); pid in SINK_PID.
pfc_sink()
{
	ip netns exec "$(topo_ns "$1")" "$TOP/tools/udpflow" \
		sink "$2" "$TMPD/stop-$2" \
		>"$TMPD/count-$2" 2>&1 &
	SINK_PID=$!
	wait_for --timeout 20 udp_bound "$1" "$2" || fail "UDP sink on $1:$2 did not start"
}

udp_bound() { topo_exec "$1" ss -lunH "sport = :$2" | grep -q .; }

# udp_line_dps RATE: datagrams per second a port at RATE (tc units) carries
# of the PFC senders' 1000-byte payloads (1042 bytes on the wire).
udp_line_dps() { echo $(( $(rate_bps "$1") / (8 * 1042) )); }

# iface_rx_bytes NODE DEV / iface_tx_packets NODE DEV: device counters.
iface_stat() { ip netns exec "$(topo_ns "$1")" cat "/sys/class/net/$2/statistics/$3"; }

# tc_sink NODE PORT...: consume UDP datagrams to the PORTs at NODE's eth0
# ingress (clsact + flower, counted per port, then dropped: a receiving
# application that never falls behind; nothing answers with ICMP).
tc_sink()
{
	local n=$1 p; shift
	topo_tc "$n" qdisc add dev eth0 clsact 2>/dev/null
	for p in "$@"; do
		topo_tc "$n" filter add dev eth0 ingress pref 10 protocol ip \
			flower ip_proto udp dst_port "$p" action drop ||
			fail "tc flower sink on $n port $p"
	done
}

# tc_sink_pkts NODE PORT: datagrams the sink on NODE took for PORT so far.
tc_sink_pkts()
{
	local v
	v=$(topo_tc "$1" -s filter show dev eth0 ingress | _tc_sink_counts |
		awk -v p="$2" '$1 == p { print $2; f = 1 } END { exit !f }') ||
		die_top "no sink counter for $1 port $2"
	echo "$v"
}

# _tc_sink_counts: "PORT PACKETS" per sink from `tc -s filter show` text
# (flower's "dst_port N", then its action's "Sent B bytes P pkt"): awk
# instead of jq on tc's JSON, whose start costs a TCG guest 0.3 s.
_tc_sink_counts()
{
	awk '$1 == "dst_port" { p = $2 } $1 == "Sent" && p != "" { print p, $4; p = "" }'
}

# tc_sink_snap VAR NODE: every sink's packet count on NODE into the global
# associative array VAR (VAR[PORT]), with VAR[t] the time of the read.
tc_sink_snap()
{
	local var=$1 p v out t0 text
	# the time of the read: midpoint of the tc call
	t0=$EPOCHREALTIME
	text=$(topo_tc "$2" -s filter show dev eth0 ingress)
	t0=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.6f", (a + b) / 2 }')
	out=$(_tc_sink_counts <<<"$text")
	declare -gA "$var"
	local -n _sk=$var
	_sk=()
	_sk[t]=$t0
	while read -r p v; do
		[ -n "$p" ] && _sk[$p]=$v
	done <<<"$out"
}
