#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# test_50_demo_incast: run the dcblab `incast` scenario briefly and check
# its outputs: the results table, non-empty CSV and PNG files, the shaped
# port sending at its configured rate (within 5%), ECN marks, and a queue
# that grew past Kmin.  Runs as root where sch_dcb can be loaded (inside
# the guest); never calls vm-run itself.
#
# Exit: 0 pass, 1 fail, 4 skip (sch_dcb.ko not built).
#
# Environment: INCAST_DURATION (seconds of traffic, default 5),
# INCAST_ARGS (key=value knobs for the scenario, default "rate=20mbit":
# a TCG guest on a shared host could not always overload a 40 Mb/s port
# for long; at 20 Mb/s the 4 x 7.5 Mb/s senders need half the packets).

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
TOP=$(cd "$HERE/../.." && pwd -P)

if [ -f "$HERE/lib.sh" ]; then
	# shellcheck source=lib.sh
	. "$HERE/lib.sh"
fi
# minimal fallbacks when lib.sh is absent or older
declare -F log >/dev/null || log() { echo "$*"; }
declare -F fail >/dev/null || fail() { echo "FAIL: $*" >&2; exit 1; }
declare -F skip >/dev/null || skip() { echo "SKIP: $*"; exit 4; }

[ -f "${DCB_KO:-$TOP/sch_dcb/sch_dcb.ko}" ] || [ -d /sys/module/sch_dcb ] ||
	skip "sch_dcb/sch_dcb.ko not built (make modules)"
[ "$(id -u)" = 0 ] || fail "needs root"
[ -f "$TOP/tc/q_dcb.so" ] || fail "tc/q_dcb.so not built (make tc)"

# on a slow kernel the port rate divided and the duration multiplied by
# DCBLAB_SLOW (lib.sh)
DUR=${INCAST_DURATION:-$(scaled_time 5)}
ARGS=${INCAST_ARGS-rate=$(scaled_rate 20mbit)}
OUT=$(mktemp -d "${TMPDIR:-/tmp}/test50-incast.XXXXXX") || fail "mktemp"

log "dcblab run incast --duration $DUR $ARGS (results in $OUT)"
# --native: we are where the module can be loaded; never start a guest
# shellcheck disable=SC2086
DCBLAB_IN_GUEST=1 bash "$TOP/scripts/dcblab" run incast --native \
	--out "$OUT" --duration "$DUR" $ARGS >"$OUT/dcblab.log" 2>&1
rc=$?
cat "$OUT/dcblab.log"
[ $rc -eq 0 ] || fail "dcblab exited with status $rc"

check_cmd "results table written" grep -q "Jain's fairness index" "$OUT/summary.txt"
check_cmd "table has a row per sender" \
	test "$(grep -c '^h[0-9]' "$OUT/summary.txt")" -eq 4
for f in dcbmon.csv senders.csv queue.csv window.csv throughput-h1.csv \
	 queue.png marked.png throughput.png metrics.env; do
	check_cmd "$f exists and is not empty" test -s "$OUT/$f"
done
for f in queue.png marked.png throughput.png; do
	check_cmd "$f is a PNG" \
		test "$(head -c 8 "$OUT/$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a
done
check_cmd "dcbmon.csv has samples of the port" \
	test "$(grep -c ',all,' "$OUT/dcbmon.csv")" -ge 10
log_test results

# shellcheck disable=SC1091
. "$OUT/metrics.env" || fail "cannot read metrics.env"
log "port wire throughput ${port_wire_bps:-?} b/s of $rate_bps configured, busy ${busy_s:-?} s"
log "marked fraction $marked_frac, queue peak $queue_peak_bytes B (kmin $kmin_bytes B), Jain $jain"

within5() { awk -v w="$1" -v c="$2" 'BEGIN { d = (w - c) / c; exit !(d <= 0.05 && d >= -0.05) }'; }
# the rate is only measurable while the port is backlogged
check_cmd "port backlogged for at least $(scaled_time 1) s (busy ${busy_s:-0} s)" \
	awk -v b="${busy_s:-0}" -v m="$(scaled_time 1)" 'BEGIN { exit !(b >= m) }'
check_perf "port throughput within 5% of the configured rate" \
	within5 "${port_wire_bps:-0}" "$rate_bps"
log_test shaping
check_cmd "some packets ECN-marked (marked fraction $marked_frac > 0)" \
	awk -v f="$marked_frac" 'BEGIN { exit !(f > 0) }'
check_cmd "queue peak $queue_peak_bytes > kmin $kmin_bytes" \
	test "$queue_peak_bytes" -gt "$kmin_bytes"
log_test marking

if tests_passed; then rm -rf "$OUT"; else echo "results kept in $OUT" >&2; fi
tests_exit
