#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 900
#
# LDCP's fast start (the LDCP slides' incast beside a long flow, without
# PFC), the experiment ldcp_faststart (scripts/dcbnet/experiments/
# ldcp_faststart.py, also `dcblab run ldcp_faststart`) at its defaults:
# 32 small flows (4 senders x 8 QPs, 5 writes of 4 KB each) start at
# once beside a long flow, every port sch_dcb at 100 Mbit/s (the lab's
# default) with step marking at 8 KB and no PFC, once with fast start
# (init_window_pkts 8) and once without (0).  Asserted over the rows:
#   fs, nofs    every ib_write_bw ends without an error, every small flow
#               is in the capture and the capture lost nothing, and the
#               switch tail-dropped nothing (the queue stays under its
#               limit: only WRED drops non-ECT packets);
#   nofs ect    without fast start no packet is dropped by WRED: every
#               RoCE packet is ECN-capable (and perftest's TCP is made
#               so), so fast-start packets are the only non-ECT ones.
# The completion times with and without fast start are logged, not
# asserted: the difference between the settings is within the spread
# of single runs (Documentation/results.rst).
# The run's files stay in build/selftests/net/test_93_ldcp_faststart/.
. "$(dirname "$0")/lib.sh"

need_mininet rdma ib_write_bw tcpdump
exp_out
WANT=32	# hosts x qps, the experiment's defaults

exp_run "$OUT" ldcp_faststart settings=fs,nofs long_s="$(scaled_time 6)" ||
	fail "the ldcp_faststart experiment failed (see above)"

for s in fs nofs; do
	r() { exp_row "$OUT" "$1" "$s"; }
	log "$s: $(r flows_seen) small flows, incast $(r incast_time) s, FCT median $(r fct_median) s (p90 $(r fct_p90), max $(r fct_max)); long flow $(r long_rate_incast) Mb/s during the incast; WRED drops $(r drops_wred), go-back-N $(r gbn_retries); busy $(r cpu_busy) %"
	[ "$(r procs_failed)" = 0 ]; check_err $? "$(r procs_failed) ib_write_bw processes failed"
	[ "$(r flows_seen)" = "$WANT" ]; check_err $? "$(r flows_seen) small flows in the capture, want $WANT"
	[ "$(r capture_dropped)" = 0 ]; check_err $? "the capture lost $(r capture_dropped) packets"
	[ "$(r drops_tail)" = 0 ]; check_err $? "the switch tail-dropped $(r drops_tail) packets"
	log_test "$s"
done

[ "$(exp_row "$OUT" drops_wred nofs)" = 0 ]
check_err $? "$(exp_row "$OUT" drops_wred nofs) WRED drops without fast start"
log_test "nofs ect"

log "fast start against none: incast $(exp_row "$OUT" incast_time fs) s against" \
	"$(exp_row "$OUT" incast_time nofs) s, median FCT $(exp_row "$OUT" fct_median fs) s" \
	"against $(exp_row "$OUT" fct_median nofs) s (logged, not asserted)"

tests_exit
