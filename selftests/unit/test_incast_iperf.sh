#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The incast scenario (scripts/scenarios/incast.sh) on the host:
#  - incast_qdisc_args: the data band (3) has the limit knob, the port
#    64 KB more, and DSCP 0 (iperf3's not-ECT stream-opening datagram and
#    its TCP control) goes to band 7; without the knob no limit is set;
#  - incast_iperf: per-sender rows from the servers' JSON; a sender whose
#    UDP stream never opened (iperf3 3.12's server then writes JSON with
#    neither a result nor an error) is a zero row, and the warning gives
#    the client's error.
# Exit: 0 pass, 1 fail, 4 skip (no jq).

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"

command -v jq >/dev/null || { echo "1..0 # SKIP no jq"; exit 4; }

OUT=$(mktemp -d) || exit 1
trap 'rm -rf "$OUT"' EXIT
WARNINGS=$OUT/warnings
warn() { echo "$*" >>"$WARNINGS"; }
die() { echo "die: $*" >&2; exit 1; }
dl_size_bytes() { PYTHONPATH=$REPO/scripts python3 -m dcbanalysis.units size "$1"; }
# shellcheck source=../../scripts/scenarios/incast.sh
. "$REPO/scripts/scenarios/incast.sh"

# shellcheck disable=SC2034 # the scenario's knobs, read by incast.sh
declare -A P=([qdisc]=dcb [rate]=20mbit [overhead]=24 [limit]=300kb
	[burst]=64kb [ecn]=red [kmin]=20kb [kmax]=100kb [pmax]=0.2)
eq "qdisc: data band limit, port 64 KB above it, DSCP 0 in band 7" \
	"$(incast_qdisc_args)" \
	"dcb rate 20mbit overhead 24 limit 372736b burst 64kb dscp-map 0:7 ecn red kmin 20kb kmax 100kb pmax 0.2 band 3 limit 300kb"
# shellcheck disable=SC2034
P[limit]=
eq "qdisc: no limit knob, no limit" "$(incast_qdisc_args)" \
	"dcb rate 20mbit overhead 24 burst 64kb dscp-map 0:7 ecn red kmin 20kb kmax 100kb pmax 0.2"

cat >"$OUT/iperf3-server-h1.json" <<'JSON'
{"intervals": [{"sum": {"start": 0, "end": 0.5, "seconds": 0.5, "bits_per_second": 6000000}},
	       {"sum": {"start": 0.5, "end": 1.0, "seconds": 0.5, "bits_per_second": 4000000}}],
 "end": {"sum_received": {"bits_per_second": 5000000, "lost_percent": 1.5,
	 "packets": 1500, "lost_packets": 22}}}
JSON
echo '{"end": {"sum": {"bits_per_second": 7500000}}}' >"$OUT/iperf3-client-h1.json"
# h2: the stream never opened
cat >"$OUT/iperf3-server-h2.json" <<'JSON'
{"start": {"connected": []}, "intervals": [], "end": {}}
JSON
echo '{"end": {}, "error": "unable to read from stream socket: Resource temporarily unavailable"}' \
	>"$OUT/iperf3-client-h2.json"
# h3: the server killed by its timeout mid-report
printf '{"start": {"connected": [' >"$OUT/iperf3-server-h3.json"
echo '{}' >"$OUT/iperf3-client-h3.json"
printf 'clients_start_ms 1000\n' >"$OUT/starts.txt"

incast_iperf 3
eq "h1: the server's result" "$(sed -n 2p "$OUT/senders.csv")" \
	"h1,7500000,5000000,1.5,1500,22"
eq "h1: throughput series on dcbmon's time base" \
	"$(sed -n '2,$p' "$OUT/throughput-h1.csv" | paste -sd' ')" "1.5,6 2,4"
eq "h2 and h3: zero rows" "$(sed -n '3,$p' "$OUT/senders.csv" | paste -sd' ')" \
	"h2,0,0,100,0,0 h3,0,0,100,0,0"
eq "h2: the warning gives the client's error" "$(sed -n 1p "$WARNINGS")" \
	"h2: no iperf3 server result ($OUT/iperf3-server-h2.json): client: unable to read from stream socket: Resource temporarily unavailable"
eq "h3: the warning says the JSON is cut short" "$(sed -n 2p "$WARNINGS")" \
	"h3: no iperf3 server result ($OUT/iperf3-server-h3.json): incomplete JSON, 25 bytes"

tap_end
