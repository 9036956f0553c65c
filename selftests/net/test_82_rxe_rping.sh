#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
#
# rping (rdma_cm, RDMA READ and WRITE of 65000 bytes, verified) through a
# switch port shaped to 20 Mb/s, host NICs at 40 Mb/s, the port's default
# limit.  rping's server on r READs the client's buffer (64 read
# responses s1 -> r through the shaped port), then WRITEs it back; the
# client on s1 compares (-V).  With algo none and dcqcn (rxe ceiling 40
# Mb/s on both hosts), RPING_C (50) iterations each.  One step per algo
# (none, dcqcn), each asserting: no QP left from the run before, client
# and server exit 0 within 90 s, the client printed every iteration, no
# data mismatch, no rdma_cm error event, the port carried the read
# responses in RoCE's band (at least RPING_C * 65000 bytes) and dropped
# nothing, and no device or per-CPU backlog dropped a packet.  On a slow kernel (DCBLAB_SLOW, lib.sh) the 90 s and the other
# waits are multiplied by SLOW: rxe's CPU time per packet is the
# bottleneck there, not the port.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

need_cmd rping rdma jq
load_algo dcqcn
rxe_rping_topo
N=${RPING_C:-50}
SIZE=65000

defer 'rxe_cc_none s1 r'

# silent_drops: packets dropped where no qdisc counts them, by the
# devices of s1, sw and r (rx_dropped, tx_dropped: a full veth peer
# backlog) and by the per-CPU backlogs; a lost CM MAD ends rping with
# RDMA_CM_EVENT_UNREACHABLE (test_87)
silent_drops()
{
	local n s
	s=$(softnet_drops)
	for n in s1 sw r; do
		s=$((s + $(ip -n "$(topo_ns "$n")" -j -s link show |
			jq '[.[].stats64 | .rx.dropped + .tx.dropped] | add')))
	done
	echo "$s"
}

port=7173
# rping_algo ALGO: N verified iterations of rping with ALGO on both hosts
rping_algo()
{
	local algo=$1 o=$TMPD/$1 h b0 d0 s0 srv t0 t1 rc src pings bytes drops secs errs silent
	port=$((port + 1))
	if ! wait_for --timeout 30 no_qps; then
		check_err 1 "$algo: QPs left from the last run"
		return
	fi
	for h in s1 r; do
		check_assert rxe_algo "$h" "$algo" 40
	done
	[ "$RET" = 0 ] || return
	b0=$(dcb_stat deq_bytes "$ROCE_BAND")
	d0=$(dcb_stat drops)
	s0=$(silent_drops)
	# srv: the server's timeout(1), which passes a kill on to rping
	topo_spawn srv r timeout "$(scaled_time 100)" rping -s -a "$RIP" -p "$port" -S "$SIZE" \
		-C "$N" >"$o.srv" 2>&1
	defer_scope_push
	defer "kill $srv 2>/dev/null; wait $srv 2>/dev/null"
	if ! wait_for --timeout 30 rxe_cm_listen "$port" r; then
		check_err 1 "$algo: rping server did not listen"
		defer_scope_pop
		return
	fi
	t0=$EPOCHREALTIME
	rc=0
	topo_exec s1 timeout "$(scaled_time 90)" rping -c -a "$RIP" -p "$port" -S "$SIZE" \
		-C "$N" -V -v >"$o.cli" 2>&1 || rc=$?
	t1=$EPOCHREALTIME
	src=0
	wait "$srv" || src=$?
	defer_scope_pop
	pings=$(grep -c '^ping data: ' "$o.cli")
	bytes=$(($(dcb_stat deq_bytes "$ROCE_BAND") - b0))
	drops=$(($(dcb_stat drops) - d0))
	silent=$(($(silent_drops) - s0))
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	log "$algo: client $rc, server $src, $pings of $N pings in $secs s; port band $ROCE_BAND $bytes bytes, $drops drops"
	errs=$(cat "$o.cli" "$o.srv" | grep -v '^ping data: ' |
		grep 'cma event\|mismatch\|failed\|error' | sort | uniq -c | tr '\n' ' ')
	[ "$rc" = 0 ] && [ "$src" = 0 ]
	check_err $? "$algo: rping client $rc server $src: $errs"
	[ -z "$errs" ]
	check_err $? "$algo: $errs"
	[ "$pings" = "$N" ]
	check_err $? "$algo: $pings of $N iterations"
	check_assert assert_ge "$bytes" $((N * SIZE)) "$algo: bytes through the shaped port in band $ROCE_BAND"
	[ "$drops" = 0 ]
	check_err $? "$algo: $drops drops at the port"
	[ "$silent" = 0 ]
	check_err $? "$algo: $silent packets dropped by devices or backlogs"
}

for algo in none dcqcn; do
	rping_algo "$algo"
	log_test "rping $algo"
done

tests_exit
