# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# dcqcn_incast: DCQCN against PFC only, soft-RoCE incast (issue 5).
#
#   s1..s4 -> sw -> r     every link `line` Mb/s, PFC on RoCE's band 3
#                         (XOFF 16 KB, sch_dcb's default delay, 1 MB
#                         pool), RED 5 KB / 20 KB / 1 % on sw -> r
#
# For each incast of `incasts` (N:1, N senders at once to r) with algo
# dcqcn and with none (PFC only, no ECN: the paper's baseline):
# ib_write_bw -D `duration` from s1..sN, per-sender rates from the rxe
# counters (sent_pkts every 0.5 s) over the second half of the time all
# ran, Jain's index of them, PAUSE frames, drops and CE marks of the
# switch, and the
# rxe_cc_dcqcn tracepoint of the 4:1 dcqcn run (every QP's R_C, R_T and
# alpha).  Results: summary.tsv (one row per run), summary.txt,
# samples-N-ALGO.txt, counters-N-ALGO.txt, trace-4.csv and trace-4.qps;
# results.csv, throughput-N-ALGO.png and timeline-4.png on the host.
#
# DCQCN runs at the defaults rxe_cc derives from the line rate (only
# cc/algo and cc/max_rate_mbps are written); the same 4:1 incast is
# test_85_lossless_fabric's, the 2:1 test_74_dcqcn_timeline's.

describe()
{
	echo "DCQCN vs PFC only: 2:1 and 4:1 soft-RoCE incast, Jain, PAUSE ratio, rate timeline"
}

params()
{
	cat <<'EOF2'
incasts         4,2       incasts to run (N senders to one receiver), in this order
line            100       line rate of every link and rxe device (Mb/s)
duration        16        ib_write_bw -D seconds per run
timeout_exp     20        ib_write_bw -u (transport timeout 4.096 us * 2^N; rxe.sh's default)
EOF2
}

# dcqi_setup LINE OUTDIR: DCQCN loaded, s1..s4 -> sw -> r with every link
# at LINE Mb/s (sch_dcb on every switch port and host NIC), PFC on RoCE's
# band 3 with sch_dcb's default delay (its headroom holds 5 ms at the line
# rate); results go to OUTDIR.
dcqi_setup()
{
	local h
	DCQI_LINE=$1 DCQI_OUT=$2
	DCQI_SW="rate ${DCQI_LINE}mbit $CTRL_MAP buffer 1mb pfc prio-pfc $ROCE_BAND xoff 16kb"
	DCQI_RED=${DCQI_RED:-"ecn red kmin 5kb kmax 20kb pmax 0.01"}
	mkdir -p "$DCQI_OUT" || fail "mkdir $DCQI_OUT"
	load_dcqcn
	rxe_topo 4
	# shellcheck disable=SC2086
	topo_dcb_all switch $DCQI_SW || fail "tc: $DCQI_SW"
	# shellcheck disable=SC2086
	topo_dcb_all host rate "${DCQI_LINE}mbit" $CTRL_MAP limit 2mb || fail "tc: host NICs"
	# TCP (perftest's control connection) ECN-capable: RED marks it, no
	# WRED drop
	for h in s1 s2 s3 s4 r; do topo_exec "$h" sysctl -qw net.ipv4.tcp_ecn=1; done
	# distinct QPNs per sender (the tracepoint names QPs, not devices)
	rxe_qpn_skip s2:1 s3:2 s4:3
	printf 'incast\talgo\tflows_mbps\tjain\tpause_tx\tdrops\tdrops_wred\tecn_marked\n' \
		>"$DCQI_OUT/summary.tsv"
	declare -gA DCQI_JAIN=() DCQI_PAUSE=() DCQI_DROPS=()
	DCQI_QPNS=()
	log "topology up: s1..s4 -> sw -> r at $DCQI_LINE Mb/s, QPNs skipped"
}

# dcqi_run N ALGO SECS: one N:1 incast of SECS seconds with ALGO (dcqcn:
# RED on the bottleneck; none: ECN off).  Sets DCQI_JAIN[N-ALGO] (Jain's
# index over the second half; NaN when the flows did not overlap long
# enough), DCQI_PAUSE[N-ALGO] (PAUSE frames the switch sent) and
# DCQI_DROPS[N-ALGO] (headroom, ingress and tail drops as "key=+n ...",
# empty for none; WRED drops of perftest's non-ECT TCP control packets
# are counted apart), appends the run to summary.tsv.  The 4:1 dcqcn run
# also records the tracepoint: trace-4.csv, trace-4.qps (the QPs to plot)
# and DCQI_QPNS ("sK:QPN" of each sender).
dcqi_run()
{
	local n=$1 algo=$2 secs=$3 h i hosts=() res k drops='' dsum=0 wred r
	for i in $(seq 1 "$n"); do hosts+=("s$i"); done
	for h in "${hosts[@]}" r; do rxe_algo "$h" "$algo" "$DCQI_LINE"; done
	if [ "$algo" = dcqcn ]; then
		# shellcheck disable=SC2086
		dcb_set $DCQI_SW $DCQI_RED
	else
		# shellcheck disable=SC2086
		dcb_set $DCQI_SW ecn off
	fi
	[ "$algo.$n" = dcqcn.4 ] && dcqcn_trace_on
	pfc_snap DCQI_S0 sw
	for i in $(seq 1 "$n"); do rxe_bw_start "s$i" $((18700 + i)) "$secs"; done
	rxe_sampler_start 0.5 "$DCQI_OUT/samples-$n-$algo.txt" "${hosts[@]}"
	rxe_bw_clients "$secs"
	log "$n:1 $algo: clients started"
	rxe_bw_wait
	rxe_sampler_stop
	[ "$algo.$n" = dcqcn.4 ] && dcqcn_trace_off
	pfc_snap DCQI_S1 sw
	DCQI_PAUSE[$n-$algo]=$(( $(pfc_sw_sum DCQI_S1 pause_tx "$ROCE_BAND") -
		$(pfc_sw_sum DCQI_S0 pause_tx "$ROCE_BAND") ))
	wred=$(( $(pfc_sw_sum DCQI_S1 drops_wred) - $(pfc_sw_sum DCQI_S0 drops_wred) ))
	for k in drops_headroom in_drops drops_tail; do
		i=$(( $(pfc_sw_sum DCQI_S1 "$k") - $(pfc_sw_sum DCQI_S0 "$k") ))
		[ "$i" = 0 ] || drops+="$k=+$i "
		# (in_drops counts at the ingress port what drops_headroom
		# counts where it was queued: once in the sum)
		[ "$k" = in_drops ] || dsum=$((dsum + i))
	done
	DCQI_DROPS[$n-$algo]=$drops
	res=$(rxe_shares "$DCQI_OUT/samples-$n-$algo.txt")
	grep -H . /sys/class/infiniband/*/ports/1/hw_counters/* | grep -v ':0$' |
		sed 's|/sys/class/infiniband/||; s|/ports/1/hw_counters/| |' \
		>"$DCQI_OUT/counters-$n-$algo.txt"
	read -r -a r <<<"$res"
	DCQI_JAIN[$n-$algo]=${r[2]}
	k=$(( ${DCQI_S1[sw:$PORT:ecn_marked]} - ${DCQI_S0[sw:$PORT:ecn_marked]} ))
	log "$n:1 $algo: second half ${r[0]}-${r[1]} s: Mb/s ${r[*]:3}, Jain ${r[2]};" \
		"PAUSE frames sent by sw ${DCQI_PAUSE[$n-$algo]}; bottleneck marked $k," \
		"peak since the port was set up ${DCQI_S1[sw:$PORT:backlog_peak]} B; CNPs sent by r so far" \
		"$(rxe_cnt r np_cnp_sent); switch drops: ${drops:-none}; WRED (TCP control) $wred"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$algo" \
		"$(IFS=/; echo "${r[*]:3}")" "${r[2]}" "${DCQI_PAUSE[$n-$algo]}" \
		"$dsum" "$wred" "$k" >>"$DCQI_OUT/summary.tsv"
	if [ "$algo.$n" = dcqcn.4 ]; then
		dcqcn_trace_csv "$DCQI_OUT/trace-4.csv"
		DCQI_QPNS=()
		for i in $(seq 1 "$n"); do
			DCQI_QPNS+=("s$i:$(rxe_bw_qpn "s$i" $((18700 + i)))")
		done
		log "QPNs ${DCQI_QPNS[*]}; $(wc -l <"$DCQI_OUT/trace-4.csv") trace events," \
			"$(awk -F, '$6 == "cnp"' "$DCQI_OUT/trace-4.csv" | wc -l) cuts"
		dcqcn_trace_qps "$DCQI_OUT/trace-4.csv" "$DCQI_OUT/trace-4.qps" "${DCQI_QPNS[@]}"
	fi
}

run()
{
	local n
	dl_test_libs
	# shellcheck disable=SC2034  # rxe.sh's rxe_bw_start reads it
	RXE_BW_U=${P[timeout_exp]}
	dcqi_setup "${P[line]}" "$OUT"
	# 4:1 first: its QPNs are then 17..20 (rxe_qpn_skip), distinct in the
	# trace
	for n in ${P[incasts]//,/ }; do
		dcqi_run "$n" dcqcn "${P[duration]}"
		dcqi_run "$n" none "${P[duration]}"
	done
	{
		echo "dcqcn_incast: ${P[line]} Mb/s links, ${P[duration]} s per run (paper: fair shares and far fewer PAUSE frames with DCQCN)"
		echo "(Mb/s of RDMA payload per sender over the second half of the overlap)"
		echo
		column -t -s "$(printf '\t')" "$OUT/summary.tsv"
	} >"$OUT/summary.txt"
	cat "$OUT/summary.txt"
	# (the per-flow throughput plots and the rate timeline are drawn on
	# the host: scripts/dcbanalysis/scenarios/dcqcn_incast.py)
	return 0
}
