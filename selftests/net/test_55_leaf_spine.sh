#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 900
#
# A 16-host leaf-spine fabric with ECMP (the leaf_spine experiment,
# scripts/dcbnet/experiments/leaf_spine.py on scripts/dcbnet/fabric.py;
# also `dcblab run leaf_spine`): 4 leaves x 4 hosts, 2 spines, host links
# at 100 Mbit/s, leaf-spine links at 200 Mbit/s (non-blocking), every
# port sch_dcb with PFC on RoCE's bands, one buffer pool per switch, each
# leaf a multipath route over both spines per remote host hashing the
# 5-tuple.  h1 -> h5 and h9 -> h13 (leaf1 -> leaf2, leaf3 -> leaf4) each
# run ib_write_bw with LS55_QPS (default 8) QPs of 20 x 64 KB writes.
# Steps, over the run's rows:
#   build      the network was built, started and stopped, and every
#              leaf has a multipath route to each host of the other
#              leaves (12); the times are logged;
#   transfers  both clients ended without an error and reported every
#              iteration (20 per QP), the receivers' switch ports
#              delivered at least the payload asked for, and nothing was
#              dropped;
#   sports     every QP of a pair has its own UDP source port: the
#              ports rxe derives from the QP numbers are distinct within
#              each pair (the pairs repeat each other's: every device
#              numbers its QPs alike), and the capture at h5 shows h1's
#              QPs each on one port, the one derived;
#   ecmp       both spines carried at least 5 % of the spine bytes (16
#              QPs: one QP is 6.25 %; all on one spine has odds of 2^-15
#              per run).
# The run's files stay in build/selftests/net/test_55_leaf_spine/.
. "$(dirname "$0")/lib.sh"

need_mininet rdma ib_write_bw tcpdump
[ -x "$TOP/tools/dcbmon" ] || fail "$TOP/tools/dcbmon not built (run make)"
exp_out
QPS=${LS55_QPS:-8}

r() { exp_row "$OUT" "$1"; }

exp_run "$OUT" leaf_spine leaves=4 spines=2 hosts=4 rate=100 qps="$QPS" \
	iters=20 ||
	fail "the leaf_spine experiment failed (see above)"
log "16 hosts, 6 switches: built and started in $(r build_time) s, stopped in $(r stop_time) s;" \
	"traffic $(r traffic_time) s (data moving $(r active) s), guest busy $(r cpu_busy) %"
check_assert assert_ge "$(r multipath_routes)" 12 "multipath routes of the leaf with the fewest"
log_test build

[ "$(r flows_failed)" = 0 ] || check_err 1 "$(r flows_failed) ib_write_bw clients or servers failed"
check_assert assert_ge "$(r iterations_min)" "$((20 * QPS))" "iterations a client reported (all its QPs')"
check_assert assert_ge "$(r delivered_min)" 1 "bytes delivered over the payload asked for"
check_assert assert_le "$(r drops)" 0 "packets dropped"
log_test transfers

log "QPs $(r qps), UDP source ports $(r udp_sports); capture: $(r capture_qps) QPs on $(r capture_sports) ports, as derived $(r sports_predicted)"
check_assert assert_ge "$(r udp_sports)" "$QPS" "distinct UDP source ports of one pair's QPs"
check_assert assert_ge "$(r capture_sports)" "$QPS" "UDP source ports in the capture"
check_assert assert_le "$(r capture_sports_per_qp)" 1 "UDP source ports of one QP"
check_assert assert_ge "$(r sports_predicted)" "$QPS" "captured ports equal to the derived ones"
log_test sports

log "spine1 $(r spine_bytes.spine1) B ($(r spine_share.spine1)), spine2 $(r spine_bytes.spine2) B ($(r spine_share.spine2));" \
	"leaf1 uplinks $(r uplink_share.leaf1.spine1) / $(r uplink_share.leaf1.spine2)," \
	"leaf3 $(r uplink_share.leaf3.spine1) / $(r uplink_share.leaf3.spine2);" \
	"h1>leaf1 $(r 'link_util.h1>leaf1'), leaf2>h5 $(r 'link_util.leaf2>h5')"
check_assert assert_ge "$(r ecmp_min_share)" 0.05 "the smaller spine's share of the bytes"
log_test ecmp

tests_exit
