#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# The Mininet example (scripts/examples/mininet-fabric.py on the classes
# of scripts/dcbnet): Mininet builds the 4:1 lossless fabric of
# first-fabric.sh (routing switch with sch_dcb ports at $LINE Mbit/s, PFC
# on bands 3 and 6, rxe hosts), and four ib_write_bw -D $SECS run into r
# with cc/algo none.  Steps:
#   build       the example ran to its end (exit 0) and printed its
#               report; Mininet's build time is logged;
#   senders     each of the four senders has a rate into the switch, and
#               each client printed perftest's result;
#   bottleneck  the senders' rates add up to at least 80 % of $LINE;
#   lossless    no packet of the lossless bands (3, 6) was dropped on any
#               port of the switch;
#   pause       with no congestion control, PFC alone held the senders:
#               the switch sent PAUSE frames.
. "$(dirname "$0")/lib.sh"

need_mininet ifconfig rdma ib_write_bw ss
[ -x "$TOP/tools/dcbmon" ] || fail "$TOP/tools/dcbmon not built (run make)"

SECS=${MNF_SECS:-6}
LINE=${MNF_LINE:-100}
OUT=$(mktemp -d)
defer "rm -rf '$OUT'"
# what a killed run leaves: its rxe devices (the namespaces go with the
# processes)
# shellcheck disable=SC2317  # for at_exit
mnf_cleanup()
{
	local h
	for h in s1 s2 s3 s4 r; do
		rdma link delete "rxe_$h-eth0" 2>/dev/null
	done
	return 0
}
at_exit mnf_cleanup

# key NAME: the value of NAME= in the example's report
key() { sed -n "s/^$1=//p" "$OUT/report" | tail -n1; }

RATE=${LINE}mbit SECS=$SECS FF_REPORT=$OUT/report \
	/usr/bin/python3 "$TOP/scripts/examples/mininet-fabric.py" none >"$OUT/log" 2>&1
check_err $? "the example failed: $(tail -n 5 "$OUT/log")"
[ -s "$OUT/report" ] || check_err 1 "the example printed no report: $(tail -n 5 "$OUT/log")"
sed 's/^/  /' "$OUT/log"
log "Mininet built and started the network in $(key build_secs) s"
log_test build

IFS=, read -r -a RATES <<<"$(key sender_mbps)"
[ ${#RATES[@]} = 4 ] || check_err 1 "${#RATES[@]} sender rates, expected 4"
for i in "${!RATES[@]}"; do
	check_assert assert_ge "${RATES[i]}" 0.1 "s$((i + 1))'s rate (Mb/s)"
done
check_assert assert_ge "$(key clients_reported)" 4 "clients that printed a result"
log_test senders

SUM=$(awk -v r="$(key sender_mbps)" 'BEGIN { n = split(r, a, ","); for (i = 1; i <= n; i++) s += a[i]; printf "%.1f", s }')
log "senders: $(key sender_mbps) Mb/s, $SUM Mb/s in all of $LINE"
check_perf_assert assert_ge "$SUM" "$(awk -v l="$LINE" 'BEGIN { print 0.8 * l }')" "the senders' sum (Mb/s)"
log_test bottleneck

check_assert assert_le "$(key lossless_drops)" 0 "drops in the lossless bands"
log_test lossless

log "PAUSE frames sent: $(key pause_frames) ($(key pause_frames_window) in the measured window)"
check_assert assert_ge "$(key pause_frames)" 1 "PAUSE frames sent by the switch"
log_test pause

tests_exit
