# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the sch_dcb guest tests: a sender(s) -> routing switch ->
# receiver topology with sch_dcb on the switch's port toward the receiver,
# UDP flows with a chosen TOS, and readers of the qdisc's counters.
# Source after lib.sh.  Scratch files go to $TMPD (removed at exit).

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

# dcb_json: `tc -j -s qdisc show` of the port's root qdisc object.
dcb_json()
{
	dcb_tc -j -s qdisc show dev "$PORT" | jq -c '.[] | select(.kind == "dcb")'
}

# dcb_stat KEY [BAND]: a counter of the port (total) or of one band.
dcb_stat()
{
	local key=$1 band=${2:-}
	if [ -z "$band" ]; then
		dcb_json | jq -r ".$key"
	else
		dcb_json | jq -r ".bands[] | select(.band == $band) | .$key"
	fi
}

# dcb_snap [BAND]: the port's totals (or one band's counters) as one line
# "key=value ..." for later dcb_delta.
dcb_snap()
{
	if [ -n "${1:-}" ]; then
		dcb_json | jq -r ".bands[] | select(.band == $1) | [to_entries[] |
			\"\\(.key)=\\(.value)\"] | join(\" \")"
	else
		dcb_json | jq -r '[to_entries[] | select(.value | type == "number") |
			"\(.key)=\(.value)"] | join(" ")'
	fi
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
	# no function or subshell in between: $! is iperf3 itself (kill works)
	ip netns exec "$(topo_ns "$1")" iperf3 -c "$RIP" -p "$2" -u -b "$3" --tos "$4" \
		--pacing-timer 100 \
		-t "$5" -l "${6:-1000}" -J >"${7:-$TMPD/client-$2.json}" 2>&1 &
	FLOW_PID=$!
}
