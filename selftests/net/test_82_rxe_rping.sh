#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
#
# rping (rdma_cm, RDMA READ and WRITE of 65000 bytes, verified) through a
# switch port shaped to 20 Mb/s, host NICs at 40 Mb/s, the port's default
# limit.  rping's server on r READs the client's buffer (64 read
# responses s1 -> r through the shaped port), then WRITEs it back; the
# client on s1 compares (-V).  With algo none and dcqcn (rxe ceiling 40
# Mb/s on both hosts), RPING_C (50) iterations each.  Asserted per algo:
# client and server exit 0 within 90 s, the client printed every
# iteration, no data mismatch, no rdma_cm error event, the port carried
# the read responses in RoCE's band (at least RPING_C * 65000 bytes) and
# dropped nothing.  On a slow kernel (DCBLAB_SLOW, lib.sh) the 90 s and
# the other waits are multiplied by SLOW: rxe's CPU time per packet is the
# bottleneck there, not the port.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

need_cmd rping rdma
load_algo dcqcn
rxe_rping_topo
N=${RPING_C:-50}
SIZE=65000

port=7173
for algo in none dcqcn; do
	port=$((port + 1))
	o=$TMPD/$algo
	wait_for --timeout 30 no_qps || fail "QPs left from the last run"
	for h in s1 r; do
		rxe_algo "$h" "$algo" 40
	done
	b0=$(dcb_stat deq_bytes "$ROCE_BAND")
	d0=$(dcb_stat drops)
	topo_exec r timeout "$(scaled_time 100)" rping -s -a "$RIP" -p "$port" -S "$SIZE" \
		-C "$N" >"$o.srv" 2>&1 &
	srv=$!
	wait_for --timeout 30 rxe_cm_listen "$port" r ||
		fail "$algo: rping server did not listen"
	t0=$EPOCHREALTIME
	rc=0
	topo_exec s1 timeout "$(scaled_time 90)" rping -c -a "$RIP" -p "$port" -S "$SIZE" \
		-C "$N" -V -v >"$o.cli" 2>&1 || rc=$?
	t1=$EPOCHREALTIME
	src=0
	wait "$srv" || src=$?
	pings=$(grep -c '^ping data: ' "$o.cli")
	bytes=$(($(dcb_stat deq_bytes "$ROCE_BAND") - b0))
	drops=$(($(dcb_stat drops) - d0))
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	log "$algo: client $rc, server $src, $pings of $N pings in $secs s; port band $ROCE_BAND $bytes bytes, $drops drops"
	errs=$(cat "$o.cli" "$o.srv" | grep -v '^ping data: ' |
		grep 'cma event\|mismatch\|failed\|error' | sort | uniq -c | tr '\n' ' ')
	[ "$rc" = 0 ] && [ "$src" = 0 ] ||
		fail "$algo: rping client $rc server $src: $errs"
	[ -z "$errs" ] || fail "$algo: $errs"
	[ "$pings" = "$N" ] || fail "$algo: $pings of $N iterations"
	assert_ge "$bytes" $((N * SIZE)) "$algo: bytes through the shaped port in band $ROCE_BAND"
	[ "$drops" = 0 ] || fail "$algo: $drops drops at the port"
done
for h in s1 r; do rxe_cc "$h" algo none; done
exit "$ksft_pass"
