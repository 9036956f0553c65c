#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 900
#
# Data integrity of RC RDMA WRITEs over a path that loses, reorders (by
# go-back-N retransmission) and pauses.  rc_verbs.py moves RDMA WRITEs
# (8 x 16 KB in the drop cases, 16 x 32 KB in the pause cases) from s1 to
# r, and r compares its buffer byte for byte with what was written.  The
# switch port toward r (10 Mb/s) is configured per case:
#   drop   a 12 KB tail-drop limit, s1 sending at 20 Mb/s (none: at its
#          line rate), IB timeout 12 (17 ms); with none, dcqcn, pcn, ldcp
#          (ldcp's first window 32 packets, 32 KB: its derived one, a BDP
#          of 5 KB, kept a debug kernel's slower sender under the limit,
#          and the case would not have happened; notebook/results-history.rst)
#   wred   RED between 4 and 12 KB, pmax 1, rxe's packets not ECT: WRED
#          drops (none)
#   pause  RoCE's band 3 lossless, r sends PAUSEs of 300 ms every
#          600 ms until the transfer ended: every pause outlasts the
#          transport timeout (IB timeout 12), the requester retries into
#          the paused port; with none and dcqcn
#   exhaust a 30 s PAUSE and retry count 2: the first WRITE completes with
#          IBV_WC_RETRY_EXC_ERR, the others are flushed (none)
# Asserted per case: every WRITE completes with IBV_WC_SUCCESS within
# 60 s, r's buffer holds exactly the data written, and the case happened
# (tail or WRED drops at the port, retries, or PAUSEs received); in
# exhaust, 4 error completions, the first RETRY_EXC_ERR, within 25 s of
# posting.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

PY=/usr/bin/python3
FRAMES=$TOP/selftests/net/pfc_frames.py
need_cmd rdma
$PY -c 'import pyverbs.qp' 2>/dev/null || skip "python3-pyverbs not installed"
for m in dcqcn pcn ldcp; do
	load_algo "$m"
done
rxe_topo 1
D=$(mktemp -d /var/tmp/rxe81.XXXXXX)
at_exit "rm -rf '$D'"

# xfer NAME ALGO MBPS TIMEOUT COUNT SIZE: one verified transfer s1 -> r
# of COUNT WRITEs of SIZE bytes with ALGO on both hosts, s1's ceiling
# MBPS; sets RETRIES (completer retries of s1).  A failed transfer fails
# the step.
xfer()
{
	local name=$1 algo=$2 mbps=$3 tmo=$4 n=$5 size=$6 d=$D/$1-$2 r0 rc=0 h
	mkdir -p "$d"
	RETRIES=0
	# the last transfer's QPs are gone: cc/algo can change
	if ! wait_for --timeout 30 no_qps; then
		check_err 1 "$name/$algo: QPs left from the last transfer"
		return 0
	fi
	for h in s1 r; do
		rxe_algo "$h" "$algo" "$mbps"
	done
	[ "$algo" != ldcp ] || [ -z "${LDCP_IW:-}" ] ||
		rxe_cc s1 ldcp/init_window_pkts "$LDCP_IW"
	r0=$(rxe_cnt s1 completer_retry_err)
	topo_exec r $PY "$TOP/selftests/net/rc_verbs.py" resp "${RXE_DEV[r]}" \
		"$(rxe_gid r 4)" "$d" --count "$n" --size "$size" --deadline 90 \
		>"$d/resp.out" 2>&1 &
	topo_exec s1 $PY "$TOP/selftests/net/rc_verbs.py" req "${RXE_DEV[s1]}" \
		"$(rxe_gid s1 4)" "$d" --count "$n" --size "$size" --timeout "$tmo" \
		--deadline 60 >"$d/req.out" 2>&1 || rc=$?
	wait $! || rc=$((rc + 100))
	RETRIES=$(($(rxe_cnt s1 completer_retry_err) - r0))
	log "$name/$algo: $(grep -h '^completed\|^verify' "$d/req.out" "$d/resp.out" | tr '\n' ' ')retries $RETRIES"
	[ "$rc" = 0 ] ||
		check_err 1 "$name/$algo: $(grep -h '^wc [0-9]* [A-Z_]*ERR\|^completed\|^verify\|Error' "$d/req.out" "$d/resp.out" | sort | uniq -c | tr '\n' ' ')"
}

drops() { echo $(($(dcb_stat drops_tail "$ROCE_BAND") + $(dcb_stat drops_wred "$ROCE_BAND"))); }

# drop: tail drops at a small limit
for algo in none dcqcn pcn ldcp; do
	dcb_set rate 10mbit limit 12kb
	d0=$(drops)
	mbps=20
	[ "$algo" = none ] && mbps=0
	LDCP_IW=32 xfer drop "$algo" "$mbps" 12 8 16384
	check_assert assert_ge $(($(drops) - d0)) 1 "drop/$algo: packets dropped at the port"
	log_test "drop/$algo: every WRITE intact"
done

# wred: non-ECT packets above the curve
dcb_set rate 10mbit limit 64kb ecn red kmin 4kb kmax 12kb pmax 1
d0=$(drops)
xfer wred none 0 12 8 16384
check_assert assert_ge $(($(drops) - d0)) 1 "wred/none: packets dropped at the port"
log_test "wred/none: every WRITE intact"

# pause: long PAUSEs of the lossless band into the port, from r
for algo in none dcqcn; do
	dcb_set rate 10mbit limit 1mb pfc prio-pfc "$ROCE_BAND" xoff 512kb
	p0=$(pfc_get "$(pfc_read sw "$PORT")" pause_rx "$ROCE_BAND")
	# PAUSEs until the transfer ended: four of them could all pass
	# before rc_verbs.py started sending in a slow guest (ip netns exec
	# execs: $! is the sender itself)
	ip netns exec "$(topo_ns r)" $PY "$FRAMES" hold eth0 300 100 >"$D/hold.out" 2>&1 &
	hold=$!
	xfer pause "$algo" 20 12 16 32768
	kill "$hold" 2>/dev/null
	wait "$hold"
	topo_exec r $PY "$FRAMES" one eth0 resume
	p1=$(pfc_get "$(pfc_read sw "$PORT")" pause_rx "$ROCE_BAND")
	check_assert assert_ge $((p1 - p0)) 1 "pause/$algo: PAUSE frames received by the port"
	check_assert assert_ge "$RETRIES" 1 "pause/$algo: retries while paused"
	log_test "pause/$algo: every WRITE intact"
done
# exhausted retries: a PAUSE far longer than retry_cnt 2 timeouts.  The
# first WRITE must fail with RETRY_EXC_ERR and the others be flushed
# within the requester's deadline: an error, not a QP that hangs.
wait_for --timeout 30 no_qps || fail "QPs left from the last transfer"
for h in s1 r; do rxe_algo "$h" none 0; done
dcb_set rate 10mbit limit 1mb pfc prio-pfc "$ROCE_BAND" xoff 512kb
p1=$(pfc_get "$(pfc_read sw "$PORT")" pause_rx "$ROCE_BAND")
# Paused until the requester is done (killed below, then a RESUME): with
# a fixed 30 s the PAUSE ended before the WRITEs were posted on the debug
# kernel, where starting the two pyverbs ends takes longer than that, and
# all four completed with success (notebook/results-history.rst).
ip netns exec "$(topo_ns r)" $PY "$FRAMES" hold eth0 600000 1 >"$D/hold.out" 2>&1 &
hold=$!
held() { [ "$(pfc_get "$(pfc_read sw "$PORT")" pause_rx "$ROCE_BAND")" -gt "$p1" ]; }
wait_for --timeout 30 held || fail "exhaust: the port was not paused"
d=$D/exhaust
mkdir -p "$d"
topo_exec r $PY "$TOP/selftests/net/rc_verbs.py" resp "${RXE_DEV[r]}" \
	"$(rxe_gid r 4)" "$d" --count 4 --size 16384 --deadline 60 \
	>"$d/resp.out" 2>&1 &
resp=$!
topo_exec s1 $PY "$TOP/selftests/net/rc_verbs.py" req "${RXE_DEV[s1]}" \
	"$(rxe_gid s1 4)" "$d" --count 4 --size 16384 --timeout 12 --retry 2 \
	--deadline 25 >"$d/req.out" 2>&1
kill "$hold" 2>/dev/null
wait "$resp"
topo_exec r $PY "$FRAMES" one eth0 resume
log "exhaust/none: $(grep '^wc\|^completed' "$d/req.out" | tr '\n' ' ')"
first=$(awk '$1 == "wc" { print $3; exit }' "$d/req.out")
[ "$first" = RETRY_EXC_ERR ] ||
	check_err 1 "exhaust: first completion ${first:-missing}, expected RETRY_EXC_ERR"
grep -q '^completed 4 success 0 of 4 in' "$d/req.out"
check_err $? "exhaust: not every WRITE completed with an error: $(grep '^completed' "$d/req.out")"
log_test "exhaust/none: RETRY_EXC_ERR, then flushed"
for h in s1 r; do rxe_cc "$h" algo none; done
tests_exit
