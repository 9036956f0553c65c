# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# cmp_incast: soft-RoCE incast, one run per congestion-control setting in
# the same invocation (issue 6).  N senders s1..sN each RDMA-write a fixed
# amount (ib_write_bw -n ITERS of SIZE bytes) into one receiver r through
# a routing switch; every switch port and host NIC is a sch_dcb shaped to
# the line rate, the switch port toward r is the bottleneck.  Per setting:
#
#   none   PFC on (RoCE's band 3), no ECN: lossless by PAUSE alone
#   dcqcn  PFC on, RED 5 / 20 KB / 1 %, DCQCN RP/NP at its defaults
#   pcn    PFC on, NP-ECN, PCN RP/NP at its defaults
#   ldcp   PFC OFF, DCTCP step marking at K (WRED drops non-ECT above K),
#          LDCP windows; losses recovered by rxe's go-back-N
#
# Measured per setting: completion time (FCT) and throughput of each flow
# (from the devices' sent_pkts sampled every sample_s), Jain's index of
# the flows' throughputs (jain) and of the rates of the flows still
# sending in the incast's second half (jain_late: a client that started
# early and finished alone does not count), bottleneck queue mean/p99
# over the incast and over its second half (dcbmon), PAUSE frames sent by the switch, drops
# (tail, WRED, headroom), go-back-N (completer_retry_err of the senders,
# out_of_seq_request of r).  Results: summary.tsv (one row per setting),
# summary.txt, per-setting directories; on the host, queue.png and fct.png.
#
# The functions cmpi_* are also used by the guest test
# test_78_cmp_ldcp_incast.sh, which sources this file after lib.sh, dcb.sh
# and rxe.sh.

CMPI_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
CMPI_TOP=$(cd "$CMPI_HERE/../.." && pwd -P)

describe()
{
	echo "RDMA incast (ib_write_bw -n) per CC: none/dcqcn/pcn with PFC, ldcp without: FCT, Jain, queue, PAUSE, drops"
}

params()
{
	cat <<'EOF'
algos           none,dcqcn,pcn,ldcp  settings to run, in this order
senders         4         number of RDMA senders
rate            100mbit   line rate of every port and host NIC (cc/max_rate_mbps too)
iters           150       ib_write_bw -n: writes per sender
size            65536     bytes per write
buffer          1mb       switch buffer pool
xoff            16kb      PFC static XOFF per (ingress port, RoCE's band 3) (none, dcqcn, pcn)
delay           default   PAUSE response time the headroom is sized for (default: sch_dcb's, 5 ms)
red             5kb:20kb:0.01  dcqcn: RED kmin:kmax:pmax (the paper's Kmax 200 KB scaled by line rate x base RTT)
ldcp_k          8kb       ldcp: DCTCP step K (WRED drops non-ECT above it)
timeout_u       20        ib_write_bw -u (transport timeout 4.096 us * 2^u)
interval_ms     20        dcbmon sampling interval
sample_s        0.1       sent_pkts sampling interval (FCT resolution)
duration        300       time budget (s): only sizes dcblab's guest timeout (10 x duration + 240 per run)
EOF
}

# cmpi_defaults: fill P[] from params for the keys not set (tests).
cmpi_defaults()
{
	local k v _
	declare -gA P
	while read -r k v _; do
		[ -n "$k" ] || continue
		[ -n "${P[$k]+x}" ] || P[$k]=$v
	done <<<"$(params)"
}

cmpi_mbps() { echo $(( $(tc_rate_bps "$1") / 1000000 )); }

# cmpi_delay: sch_dcb's "delay D" for P[delay]; nothing for "default"
# (sch_dcb's own).
cmpi_delay() { [ "${P[delay]}" = default ] || echo "delay ${P[delay]}"; }

# cmpi_setup: modules, topology (rxe_topo: s1..sN, sw, r), host settings.
cmpi_setup()
{
	local h m
	cmpi_defaults
	load_dcqcn
	for m in pcn ldcp; do
		[ -d "/sys/module/rxe_cc_$m" ] && continue
		insmod "${DCBLAB_BUILD:-$CMPI_TOP/build}/rxe_cc/rxe_cc_$m.ko" ||
			fail "insmod rxe_cc_$m.ko"
	done
	rxe_topo "${P[senders]}"
	CMPI_HOSTS=()
	for h in $(seq 1 "${P[senders]}"); do CMPI_HOSTS+=("s$h"); done
	# perftest's TCP control connection ECN-capable: RED/step mark it
	# instead of WRED dropping it
	for h in "${CMPI_HOSTS[@]}" r; do
		topo_exec "$h" sysctl -qw net.ipv4.tcp_ecn=1
		rxe_gid4 "$h" >/dev/null
	done
	CMPI_MBPS=$(cmpi_mbps "${P[rate]}")
	CMPI_OUT=${CMPI_OUT:-${OUT:-$TMPD}}
	: >"$CMPI_OUT/summary.tsv.rows"
}

# cmpi_qdiscs ALGO: sch_dcb on every switch port and host NIC; the
# bottleneck (toward r) gets the setting's ECN mode.
cmpi_qdiscs()
{
	local algo=$1 sw ecn kmin kmax pmax
	sw="rate ${P[rate]} $CTRL_MAP buffer ${P[buffer]}"
	if [ "$algo" = ldcp ]; then
		sw="$sw pfc off"
	else
		sw="$sw pfc prio-pfc $ROCE_BAND xoff ${P[xoff]} $(cmpi_delay)"
	fi
	IFS=: read -r kmin kmax pmax <<<"${P[red]}"
	case $algo in
	none) ecn="ecn off";;
	dcqcn) ecn="ecn red kmin $kmin kmax $kmax pmax $pmax";;
	pcn) ecn="ecn np-ecn";;
	ldcp) ecn="ecn step k ${P[ldcp_k]}";;
	*) fail "unknown algo '$algo' (none, dcqcn, pcn, ldcp)";;
	esac
	# shellcheck disable=SC2086
	topo_dcb_all switch $sw || fail "tc: switch ports: $sw"
	# shellcheck disable=SC2086
	# shellcheck disable=SC2086
	topo_dcb_all host rate "${P[rate]}" $CTRL_MAP limit 2mb || fail "tc: host NICs"
	# shellcheck disable=SC2086
	dcb_set $sw $ecn
	echo "switch ports: $sw; bottleneck $PORT: $sw $ecn; host NICs: rate ${P[rate]} $CTRL_MAP limit 2mb"
}

# cmpi_rxe ALGO: cc/algo and line rate on every host (the receiver's NP
# and responder matter too); every knob at its default.
cmpi_rxe()
{
	local h
	for h in "${CMPI_HOSTS[@]}" r; do
		rxe_algo "$h" "$1" "$CMPI_MBPS"
	done
	return 0
}

cmpi_cnt_sum() # NAME HOST...: sum of a hw counter
{
	local n=$1 h t=0
	shift
	for h in "$@"; do t=$((t + $(rxe_cnt "$h" "$n"))); done
	echo "$t"
}

# cmpi_run ALGO: one incast; results in $CMPI_OUT/ALGO/, a row appended to
# summary.tsv.rows; sets CMPI_ROW.
cmpi_run()
{
	local algo=$1 d=$CMPI_OUT/$1 i h port pids=() t0 mon rc=0 c0r c0o
	mkdir -p "$d"
	log "$algo: configuring"
	cmpi_rxe "$algo"
	cmpi_qdiscs "$algo" >"$d/qdisc.txt"
	c0r=$(cmpi_cnt_sum completer_retry_err "${CMPI_HOSTS[@]}")
	c0o=$(rxe_cnt r out_of_seq_request)
	pfc_snap CMPI_S0 sw

	# servers, then clients once all listen
	i=0
	for h in "${CMPI_HOSTS[@]}"; do
		i=$((i + 1)); port=$((18900 + i))
		topo_exec r timeout 300 ib_write_bw -F -d "${RXE_DEV[r]}" -x "${RXE_GID4[r]}" \
			-p "$port" -s "${P[size]}" -n "${P[iters]}" -u "${P[timeout_u]}" \
			>"$d/bw-$h.srv" 2>&1 &
		pids+=($!)
	done
	i=0
	for h in "${CMPI_HOSTS[@]}"; do
		i=$((i + 1))
		wait_for --timeout 60 rxe_listen $((18900 + i)) r ||
			fail "$algo: ib_write_bw server $((18900 + i)) did not start"
	done
	"$CMPI_TOP/tools/dcbmon" -i "${P[interval_ms]}" -o "$d/dcbmon.csv" \
		"$(topo_ns sw):$PORT" 2>"$d/dcbmon.err" &
	mon=$!
	# dcbmon's t_ms counts from its own start, which a busy guest delays
	# by up to a second: align on its first rows (error < interval_ms)
	local rows=() _
	for _ in $(seq 600); do
		[ -s "$d/dcbmon.csv" ] && mapfile -t rows <"$d/dcbmon.csv"
		[ ${#rows[@]} -ge 2 ] && break
		sleep 0.05
	done
	t0=$EPOCHREALTIME
	[ ${#rows[@]} -ge 2 ] || fail "$algo: dcbmon wrote no sample ($(cat "$d/dcbmon.err"))"
	t0=$(awk -v n="$t0" -v ms="${rows[-1]%%,*}" 'BEGIN { printf "%.6f", n - ms / 1000 }')
	rxe_sampler_start "${P[sample_s]}" "$d/samples.txt" "${CMPI_HOSTS[@]}"
	cpu_mark
	i=0
	for h in "${CMPI_HOSTS[@]}"; do
		i=$((i + 1))
		topo_exec "$h" timeout 300 ib_write_bw -F -d "${RXE_DEV[$h]}" -x "${RXE_GID4[$h]}" \
			-p $((18900 + i)) -s "${P[size]}" -n "${P[iters]}" -u "${P[timeout_u]}" \
			"$RIP" >"$d/bw-$h.cli" 2>&1 &
		pids+=($!)
	done
	log "$algo: ${#CMPI_HOSTS[@]} x ${P[iters]} x ${P[size]} B writes -> r"
	for i in "${pids[@]}"; do wait "$i" || rc=1; done
	cpu_guard "$algo: incast"
	sleep 0.5
	rxe_sampler_stop
	kill -TERM "$mon" 2>/dev/null; wait "$mon" 2>/dev/null
	echo "$t0" >"$d/dcbmon.t0"

	pfc_snap CMPI_S1 sw
	local pause drops tail wred hr retry oos
	pause=$(( $(pfc_sw_sum CMPI_S1 pause_tx '*') - $(pfc_sw_sum CMPI_S0 pause_tx '*') ))
	tail=$(( $(pfc_sw_sum CMPI_S1 drops_tail) - $(pfc_sw_sum CMPI_S0 drops_tail) ))
	wred=$(( $(pfc_sw_sum CMPI_S1 drops_wred) - $(pfc_sw_sum CMPI_S0 drops_wred) ))
	hr=$(( $(pfc_sw_sum CMPI_S1 drops_headroom) - $(pfc_sw_sum CMPI_S0 drops_headroom) ))
	drops=$((tail + wred + hr))
	retry=$(( $(cmpi_cnt_sum completer_retry_err "${CMPI_HOSTS[@]}") - c0r ))
	oos=$(( $(rxe_cnt r out_of_seq_request) - c0o ))
	{
		echo "pause_tx=$pause"; echo "drops=$drops"; echo "drops_tail=$tail"
		echo "drops_wred=$wred"; echo "drops_headroom=$hr"
		echo "retry=$retry"; echo "oos=$oos"; echo "bw_rc=$rc"
		echo "ecn_marked=$(( $(pfc_sw_sum CMPI_S1 ecn_marked) - $(pfc_sw_sum CMPI_S0 ecn_marked) ))"
	} >"$d/counters.env"
	cmpi_analyze "$algo" "$d"
	[ $rc = 0 ] || {
		grep -H -iE 'error|fail|WC|unable|couldn' "$d"/bw-* | head -n 8 >&2
		log "$algo: an ib_write_bw failed (see $d/bw-*)"
	}
	return 0
}

# cmpi_analyze ALGO DIR: flows.tsv (per flow: first/last packet, FCT,
# Mb/s, writes done), queue.csv, metrics.env; appends the summary row.
cmpi_analyze()
{
	local algo=$1 d=$2 h i n=${#CMPI_HOSTS[@]} done_w
	# writes each client completed (perftest's result line)
	done_w=0
	for h in "${CMPI_HOSTS[@]}"; do
		i=$(awk -v s="${P[size]}" '$1 == s && NF >= 5 { print $2 }' "$d/bw-$h.cli" | tail -n1)
		[ -n "$i" ] && done_w=$((done_w + i))
	done

	# per flow (flows.tsv): its first and last packet, FCT, Mb/s; the
	# queue (queue.csv) over the incast [first start, last end] and over
	# its second half; Jain's index (cmpmetrics.incast)
	{
		lab_metrics incast "$d/samples.txt" "$d/dcbmon.csv" --t0 "$(cat "$d/dcbmon.t0")" \
			--hosts "${CMPI_HOSTS[*]}" --size "${P[size]}" --iters "${P[iters]}" \
			--flows "$d/flows.tsv" --queue "$d/queue.csv" || fail "$algo: cmpmetrics incast"
		echo "writes_done=$done_w"
		echo "writes_want=$((n * P[iters]))"
	} >"$d/metrics.env"

	# shellcheck disable=SC1091
	CMPI_ROW=$( . "$d/metrics.env"; . "$d/counters.env"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
			"$algo" "$flows_mbps" "$jain" "$q_mean_kb" "$q_p99_kb" "$qh_mean_kb" "$qh_p99_kb" \
			"$pause_tx" "$drops" "$drops_tail" "$drops_wred" "$retry" "$oos" \
			"$fct_max_s" "$fcts" "$writes_done/$writes_want" "$ecn_marked" "$jain_late" )
	echo "$CMPI_ROW" >>"$CMPI_OUT/summary.tsv.rows"
	log "$algo: $CMPI_ROW"
}

CMPI_HDR='algo	flows_mbps	jain	queue_mean_kb	queue_p99_kb	q2_mean_kb	q2_p99_kb	pause_tx	drops	drops_tail	drops_wred	gbn_retry	oos_req	fct_max_s	fct_s	writes	ecn_marked	jain_late'

# cmpi_summary: summary.tsv, summary.txt (printed).  The host draws the
# plots (scripts/dcbanalysis/scenarios/cmp.py).
cmpi_summary()
{
	{ echo "$CMPI_HDR"; cat "$CMPI_OUT/summary.tsv.rows"; } >"$CMPI_OUT/summary.tsv"
	rm -f "$CMPI_OUT/summary.tsv.rows"
	{
		echo "cmp_incast: ${#CMPI_HOSTS[@]} senders x ${P[iters]} x ${P[size]} B -> r, ${P[rate]} ports;" \
			"PFC on (RoCE's band $ROCE_BAND) for none/dcqcn/pcn, off for ldcp"
		echo "(queue: bottleneck port over the incast; q2: its second half; KB)"
		echo
		column -t -s "$(printf '\t')" "$CMPI_OUT/summary.tsv"
	} >"$CMPI_OUT/summary.txt"
	cat "$CMPI_OUT/summary.txt"
}

run()
{
	local a
	dl_test_libs
	# dcblab's EXIT trap was replaced by common.sh's (which cleans up the
	# rxe processes, the namespaces and the scratch directory)
	CMPI_OUT=$OUT
	cmpi_setup
	log "topology up: ${#CMPI_HOSTS[@]} senders, $PORT toward r"
	for a in ${P[algos]//,/ }; do
		cmpi_run "$a"
	done
	cmpi_summary
}
