#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/bench/repro.sh - is a result a property of the emulated network
# or of the host that ran it?  (make bench-repro)  The same RDMA scenario,
# scripts/examples/first-fabric.sh (a 4:1 ib_write_bw incast through a
# lossless switch, DCQCN by default), runs twice per clock: once as the
# host is, once with every host CPU kept busy by a spinning process, and
# the key metrics of the two runs are compared: each sender's rate, the
# rate of the port toward the receiver, Jain's index over the senders,
# the queue's mean and the PAUSE frames over the measured window.  Goal:
# in virtual time every metric within 2 % (PAUSE frames and the queue:
# within 2 % or 2 units, as they may be near zero); the real-time spread
# is printed beside it.
# Then, in virtual time, a flow that idles the guest: one UDP sender on a
# port shaped to RATE (scripts/bench/udp_shaped.sh), quiet and loaded,
# with the guest's idle spinner (tools/idlespin, the default) and without
# it (DCBLAB_IDLESPIN=0): without it the guest's idle time follows the
# host's clock (Documentation/testing.rst, "The two clocks").  Goal: with
# the spinner, the wire rate of the loaded run within 1 % of the quiet one.
# Runs on the host; each run is one scripts/vm-run guest.
#
#   scripts/bench/repro.sh [ALGO]     (default dcqcn)
#
# Environment: RATE (default 100mbit), SECS (incast length, default 30;
# measured over its second half, long enough for DCQCN's per-flow rates
# to average over many of its rate cycles),
# CLOCKS (default "virtual real"; empty: none), UDP (default 1; 0 leaves the UDP flow
# out).  Exit 0 whatever the numbers (the goal lines say PASS or FAIL), 1
# when a run gave no result.

set -uo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd -P)
ALGO=${1:-dcqcn}
RATE=${RATE:-100mbit}
SECS=${SECS:-30}
CLOCKS=${CLOCKS-virtual real}
OUT=$(mktemp -d "${DCBLAB_BUILD:-$TOP/build}/bench-repro.XXXXXX") || exit 1
SPIN=()

stop_spin() {
	local p
	for p in "${SPIN[@]}"; do kill "$p" 2>/dev/null; done
	SPIN=()
}
trap stop_spin EXIT

# load LOAD: with LOAD=loaded, keep every host CPU busy until stop_spin
load() {
	local i
	[ "$1" = loaded ] || return 0
	for ((i = 0; i < $(nproc); i++)); do
		( while :; do :; done ) &
		SPIN+=($!)
	done
}

# run CLOCK LOAD: one incast; its report in $OUT/CLOCK-LOAD
run() {
	local f=$OUT/$1-$2
	load "$2"
	RATE=$RATE SECS=$SECS FF_REPORT=$f VMRUN_ENV="RATE SECS FF_REPORT" \
		"$TOP/scripts/vm-run" --clock "$1" --timeout 1800 -- \
		bash "$TOP/scripts/examples/first-fabric.sh" "$ALGO" >"$f.log" 2>&1
	stop_spin
	[ -s "$f" ] && grep -q '^sender_mbps=' "$f"
}

# run_udp IDLESPIN LOAD: the shaped UDP flow in virtual time; its report
# in $OUT/udp-IDLESPIN-LOAD
run_udp() {
	local f=$OUT/udp-$1-$2
	load "$2"
	RATE=$RATE DCBLAB_IDLESPIN=$1 VMRUN_ENV=RATE \
		"$TOP/scripts/vm-run" --clock virtual --timeout 900 -- \
		bash "$TOP/scripts/bench/udp_shaped.sh" >"$f.log" 2>&1
	stop_spin
	grep '=' "$f.log" >"$f"
	grep -q '^wire_mbps=' "$f"
}

rc=0
for c in $CLOCKS; do
	for l in quiet loaded; do
		run "$c" "$l" || { echo "repro.sh: no result for $c/$l (log: $OUT/$c-$l.log)"; rc=1; }
	done
done
if [ "${UDP:-1}" = 1 ]; then
	for sp in 1 0; do
		for l in quiet loaded; do
			run_udp $sp $l || { echo "repro.sh: no result for udp idlespin=$sp/$l (log: $OUT/udp-$sp-$l.log)"; rc=1; }
		done
	done
fi
[ $rc = 0 ] || exit 1

[ -n "$CLOCKS" ] && /usr/bin/python3 - "$OUT" $CLOCKS <<'PYEOF'
import sys

out, clocks = sys.argv[1], sys.argv[2:]


def load(path):
    kv = dict(ln.strip().split("=", 1) for ln in open(path) if "=" in ln
              and not ln.startswith("rate="))
    rates = [float(x) for x in kv["sender_mbps"].split(",")]
    m = {"s%d_mbps" % (i + 1): r for i, r in enumerate(rates)}
    m["wire_mbps"] = float(kv["wire_mbps"])
    m["jain"] = sum(rates) ** 2 / (len(rates) * sum(r * r for r in rates))
    # PAUSE frames over the measured window: the whole run's count is
    # mostly the start, where four flows begin at the line rate
    m["pause_frames"] = float(kv.get("pause_frames_window", kv["pause_frames"]))
    if "queue_mean_kb" in kv:
        m["queue_mean_kb"] = float(kv["queue_mean_kb"])
    m["kernel_busy_pct"] = float(kv["kernel_busy_pct"])
    return m


ok = True
print("%-16s" % "metric" + "".join("%28s" % ("%s quiet/loaded (diff)" % c)
                                   for c in clocks))
res = {c: (load("%s/%s-quiet" % (out, c)), load("%s/%s-loaded" % (out, c)))
       for c in clocks}
for k in res[clocks[0]][0]:
    row = "%-16s" % k
    for c in clocks:
        a, b = res[c][0].get(k), res[c][1].get(k)
        if a is None or b is None:
            row += "%28s" % "-"
            continue
        d = abs(b - a) / abs(a) * 100 if a else (0.0 if b == a else float("inf"))
        row += "%28s" % ("%.2f/%.2f (%.1f%%)" % (a, b, d))
        small = k in ("pause_frames", "queue_mean_kb") and abs(b - a) <= 2
        if c == "virtual" and k != "kernel_busy_pct" and d > 2 and not small:
            ok = False
    print(row)
if "virtual" in clocks:
    print("goal: virtual time, every metric of the loaded run within 2 %% of "
          "the quiet one: %s" % ("PASS" if ok else "FAIL"))
PYEOF
[ "${UDP:-1}" = 1 ] && /usr/bin/python3 - "$OUT" <<'PYEOF'
import sys

out = sys.argv[1]


def load(path):
    return {k: float(v) for k, v in
            (ln.strip().split("=", 1) for ln in open(path) if "=" in ln)}


print("\nshaped UDP flow, virtual time: quiet/loaded (diff)")
print("%-16s%28s%28s" % ("metric", "idlespin on", "idlespin off"))
res = {sp: (load("%s/udp-%s-quiet" % (out, sp)),
            load("%s/udp-%s-loaded" % (out, sp))) for sp in ("1", "0")}
for k in res["1"][0]:
    row = "%-16s" % k
    for sp in ("1", "0"):
        a, b = res[sp][0][k], res[sp][1][k]
        d = abs(b - a) / abs(a) * 100 if a else (0.0 if b == a else float("inf"))
        row += "%28s" % ("%.2f/%.2f (%.1f%%)" % (a, b, d))
    print(row)
a, b = res["1"][0]["wire_mbps"], res["1"][1]["wire_mbps"]
print("goal: with idlespin, the loaded run's wire rate within 1 %% of the "
      "quiet one: %s" % ("PASS" if abs(b - a) <= a / 100 else "FAIL"))
PYEOF
echo "repro.sh: $ALGO at $RATE, incast $SECS s; runs and logs in $OUT"
