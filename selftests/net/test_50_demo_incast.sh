#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# test_50_demo_incast: run the dcblab `incast` scenario briefly and check
# its outputs: non-empty CSV files and results.csv (dcbanalysis computes
# it, as on the host after a guest run), a result from every sender
# (iperf3's control traffic has a band of its own), the shaped
# port sending at its configured rate (within 5%), ECN marks, and a queue
# that grew past Kmin.  Runs as root where sch_dcb can be loaded (inside
# the guest); never calls vm-run itself.
#
# Exit: 0 pass, 1 fail, 4 skip (sch_dcb.ko not built).
#
# Environment: INCAST_DURATION (seconds of traffic, default 5),
# INCAST_ARGS (key=value knobs for the scenario, default the scenario's
# 100 Mbit/s, divided by DCBLAB_SLOW on a slow kernel).

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
ARGS=${INCAST_ARGS-rate=$(scaled_rate 100mbit)}
OUT=$(mktemp -d "${TMPDIR:-/tmp}/test50-incast.XXXXXX") || fail "mktemp"

log "dcblab run incast --duration $DUR $ARGS (results in $OUT)"
# --native: we are where the module can be loaded; never start a guest.
# DCBLAB_IN_GUEST: the guest's half of a run, as under `dcblab run` on a
# host that cannot load modules; then the host's first step, results.csv
# (dcbanalysis analyze).  The plots and the table need matplotlib and
# pandas, which take a minute to import in a TCG guest: the unit tests
# draw them from files like these, and test_90 runs the whole native path.
# shellcheck disable=SC2086
DCBLAB_IN_GUEST=1 "$TOP/scripts/dcblab" run incast --native \
	--out "$OUT" --duration "$DUR" $ARGS >"$OUT/dcblab.log" 2>&1
rc=$?
cat "$OUT/dcblab.log"
[ $rc -eq 0 ] || fail "dcblab exited with status $rc"
PYTHONPATH=$TOP/scripts python3 -m dcbanalysis analyze "$OUT" ||
	fail "dcbanalysis analyze $OUT"

# metric NAME: its value in results.csv (empty when missing)
metric() { awk -F, -v m="$1" '$4 == m { print $5; exit }' "$OUT/results.csv"; }
# param NAME: a knob in force (params.txt)
param() { sed -n "s/^$1=//p" "$OUT/params.txt" | head -n1; }
# py EXPR: a value of dcbanalysis' units (the tc notations)
py() { PYTHONPATH=$TOP/scripts python3 -c "from dcbanalysis import units; print($1)"; }

for f in dcbmon.csv senders.csv throughput-h1.csv results.csv; do
	check_cmd "$f exists and is not empty" test -s "$OUT/$f"
done
check_cmd "results have Jain's index" test -n "$(metric jain)"
check_cmd "results have a goodput per sender" \
	test "$(grep -c ',goodput\.h[0-9],' "$OUT/results.csv")" -eq 4
check_cmd "dcbmon.csv has samples of the port" \
	test "$(grep -c ',all,' "$OUT/dcbmon.csv")" -ge 10
# each server reported what it received: iperf3's control traffic and
# the datagram opening each UDP stream (DSCP 0, not-ECT) have band 7,
# where nothing is dropped, and the data (DSCP 24) band 3
# band_last BAND COLUMN: COLUMN of BAND's last dcbmon row (0: none)
band_last() {
	awk -F, -v b="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$4 == b { v = $(col[c]) } END { print v + 0 }' "$OUT/dcbmon.csv"
}
c_enq=$(band_last 7 enq_packets) d_enq=$(band_last 3 enq_packets)
c_drop=$(( $(band_last 7 drops_tail) + $(band_last 7 drops_wred) ))
log "band 7 (control): $c_enq packets, $c_drop dropped; band 3 (data): $d_enq packets"
check_cmd "control traffic in band 7" test "$c_enq" -gt 0
check_cmd "nothing of band 7 dropped" test "$c_drop" -eq 0
check_cmd "data in band 3" test "$d_enq" -gt 1000
grep -q 'no iperf3 server result' "$OUT/dcblab.log"
check_fail $? "no sender without a result"
check_cmd "every sender received traffic" \
	awk -F, 'NR > 1 { n++; if ($3 > 0) ok++ } END { exit !(n == 4 && ok == 4) }' \
	"$OUT/senders.csv"
log_test results

rate=$(py "units.rate_mbps('$(param rate)')")
kmin=$(py "units.size_bytes('$(param kmin)') / 1024")
wire=$(metric wire_rate) busy=$(metric busy) marked=$(metric marked_share)
qmax=$(metric queue_max) jain=$(metric jain)
log "port wire throughput ${wire:-?} Mb/s of $rate configured, busy ${busy:-?} s"
log "marked share ${marked:-?}, queue peak ${qmax:-?} KB (kmin $kmin KB), Jain ${jain:-?}"

within5() { awk -v w="$1" -v c="$2" 'BEGIN { d = (w - c) / c; exit !(d <= 0.05 && d >= -0.05) }'; }
# the rate is only measurable while the port is backlogged
check_cmd "port backlogged for at least $(scaled_time 1) s (busy ${busy:-0} s)" \
	awk -v b="${busy:-0}" -v m="$(scaled_time 1)" 'BEGIN { exit !(b >= m) }'
check_perf "port throughput within 5% of the configured rate" \
	within5 "${wire:-0}" "$rate"
log_test shaping
check_cmd "some packets ECN-marked (marked share ${marked:-0} > 0)" \
	awk -v f="${marked:-0}" 'BEGIN { exit !(f > 0) }'
check_cmd "queue peak ${qmax:-0} KB > kmin $kmin KB" \
	awk -v q="${qmax:-0}" -v k="$kmin" 'BEGIN { exit !(q > k) }'
log_test marking

if tests_passed; then rm -rf "$OUT"; else echo "results kept in $OUT" >&2; fi
tests_exit
