# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# dcqcn_fig8: PFC's unfairness and the victim flow, then DCQCN (issue 5;
# DCQCN paper Fig. 3 -> Fig. 8 and Fig. 4 -> Fig. 9).
#
#   h1 ----------- sw1 ---- r     (congested: sw1 -> r, 100 Mb/s)
#                  / |
#   h2 h3 h4 v - sw2  vr          (trunk sw2 <-> sw1: 400 Mb/s)
#
# Host links 100 Mb/s, PFC on RoCE's band 3 everywhere, RED ECN on sw1 -> r
# in the dcqcn run.  h1..h4 send to r (ib_write_bw); v sends to vr over
# the trunk and never crosses the congested port.  Runs: v alone; the
# incast with v under algo none (PFC only: sw1 pauses the trunk, h1 gets
# about half of the bottleneck, v is slowed); the same with dcqcn.
# Measured per run, over the second half: each flow's Mb/s (rxe's
# sent_pkts), PAUSE frames and drops of the switches.  Results:
# summary.tsv (one row per run), summary.txt, samples-RUN.txt,
# counters-RUN.txt, throughput-RUN.png; results.csv on the host (h1's
# advantage under PFC, the victim's share of its rate alone, Jain).
#
# The functions dcq8_* are also used by the guest test
# test_71_dcqcn_fig8.sh, which sources this file after lib.sh, dcb.sh and
# rxe.sh and asserts on what they measured.

describe()
{
	echo "DCQCN Fig. 3/8/9: PFC unfairness and victim flow, none vs dcqcn, table and plots"
}

params()
{
	cat <<'EOF2'
duration        16        ib_write_bw -D seconds of the dcqcn incast run
none            6         ib_write_bw -D seconds of the PFC-only incast run
alone           3         ib_write_bw -D seconds of v alone
t_us            auto      DCQCN T (rpg_time_reset), us; auto: derived (2.2 ms at 100 Mb/s)
k_us            auto      DCQCN K (dce_tcp_rtt), us; auto: derived, above the CNP interval N
xoff            96kb      PFC XOFF of every switch port (above RED's kmax 20 KB)
timeout_exp     19        ib_write_bw -u (transport timeout 4.096 us * 2^N)
EOF2
}

# dcq8_setup XOFF OUTDIR: DCQCN loaded, the topology above with PFC XOFF
# XOFF on every switch port; results go to OUTDIR.
#
# sch_dcb's default PFC delay (5 ms); in real time at 10 Mb/s the
# PFC-only run needed 100 ms (170 drops with 50 ms).  XOFF 96kb: ECN
# must act before PFC (DCQCN paper section 3: the PFC threshold above
# RED's Kmax).  Here it counts per ingress port, and
# sw1's port from the trunk carries three of the four senders: with
# xoff 16kb, under RED's kmax of 20 KB, the dcqcn run still sent 2366
# PAUSE frames and the shares were 1.6-3.1 Mb/s.  With 48kb, DCQCN's
# overshoots (the queue peaks at 40-60 KB when the four flows increase
# together) crossed it in two of five dcqcn runs (4141 and 4546 PAUSE
# frames; h1 then got 18 and 21 % less than the fair share, PFC's
# unfairness back).
#
# A transport timeout of 2.1 s by default (RXE_BW_U 19): PFC alone holds
# the victim v behind the paused trunk for long stretches, and a shorter
# timeout retransmits while the originals are still queued; the
# responder then NAKs an invalid request (IBV_WC_REM_INV_REQ_ERR,
# dcqcn.rst).  The PFC-only run ended so at h1, h2 with -u 15 (134 ms),
# and once in five runs at v with -u 17 (537 ms).  Nothing is lost under
# PFC: a long timeout costs nothing.
dcq8_setup()
{
	local h xoff=$1
	DCQ8_OUT=$2
	DCQ8_LINE=${DCQ8_LINE:-100}
	RXE_BW_U=${RXE_BW_U:-19}
	DCQ8_SW="rate ${DCQ8_LINE}mbit $CTRL_MAP buffer 2mb pfc prio-pfc $ROCE_BAND xoff $xoff"
	DCQ8_TRUNK="rate $((4 * DCQ8_LINE))mbit $CTRL_MAP buffer 2mb pfc prio-pfc $ROCE_BAND xoff $xoff"
	DCQ8_RED="ecn red kmin 5kb kmax 20kb pmax 0.01"
	DCQ8_HOSTS="h1 h2 h3 h4 v r vr"
	mkdir -p "$DCQ8_OUT" || fail "mkdir $DCQ8_OUT"
	load_dcb
	load_dcqcn
	topo_switch sw1 && topo_switch sw2 || fail "switches"
	topo_host r && topo_link r sw1 >/dev/null || fail "r"
	topo_host vr && topo_link vr sw1 >/dev/null || fail "vr"
	topo_host h1 && topo_link h1 sw1 >/dev/null || fail "h1"
	topo_link sw2 sw1 >/dev/null || fail "sw2-sw1"
	for h in h2 h3 h4 v; do topo_host $h && topo_link $h sw2 >/dev/null || fail "$h"; done
	topo_routes || fail "routes"
	# shellcheck disable=SC2086
	topo_dcb_all switch $DCQ8_SW || fail "tc: switch ports"
	# shellcheck disable=SC2086
	topo_qdisc sw1 "$(topo_port sw1 sw2)" dcb $DCQ8_TRUNK || fail "trunk sw1"
	# shellcheck disable=SC2086
	topo_qdisc sw2 "$(topo_port sw2 sw1)" dcb $DCQ8_TRUNK || fail "trunk sw2"
	# shellcheck disable=SC2086
	topo_dcb_all host rate ${DCQ8_LINE}mbit $CTRL_MAP limit 2mb || fail "tc: host NICs"
	DCQ8_BN=$(topo_port sw1 r)
	for h in $DCQ8_HOSTS; do
		topo_exec $h sysctl -qw net.ipv4.tcp_ecn=1
		RXE_DEV[$h]=${TOPO_PREFIX}_$h
		topo_exec $h rdma link add "${RXE_DEV[$h]}" type rxe netdev eth0 ||
			fail "rdma link add in $h"
	done
	at_exit rxe_kill_all
	for h in $DCQ8_HOSTS; do
		wait_for --timeout 30 rxe_gid "$h" 4 || fail "no RoCE v2 GID on ${RXE_DEV[$h]}"
	done
	printf 'run\talgo\tsecs\th1\th2\th3\th4\tv\tjain\tpause_tx\tdrops\tdrops_wred\n' \
		>"$DCQ8_OUT/summary.tsv"
	declare -gA DCQ8_SH=() DCQ8_PAUSE=() DCQ8_DROPS=() DCQ8_OVERLAP=()
	log "topology up"
}

# dcq8_run NAME ALGO SECS FLOWS...: one run; FLOWS are h1..h4 and/or v.
# Sets DCQ8_SH[NAME-flow] (Mb/s over the second half), DCQ8_PAUSE[NAME]
# (PAUSE frames of the switches), DCQ8_DROPS[NAME] (headroom, ingress
# and tail drops as "key=+n ...", empty for none; WRED drops of
# perftest's non-ECT TCP control packets are counted apart) and
# DCQ8_OVERLAP[NAME] (the second half's start-end, s, or NaN when the
# flows did not overlap long enough); appends the run to summary.tsv.
dcq8_run()
{
	local name=$1 algo=$2 secs=$3 f i=0 res r k drops='' dsum=0 wred
	shift 3
	for f in $DCQ8_HOSTS; do rxe_algo "$f" "$algo" "$DCQ8_LINE"; done
	if [ "$algo" = dcqcn ]; then
		# shellcheck disable=SC2086
		topo_qdisc sw1 "$DCQ8_BN" dcb $DCQ8_SW $DCQ8_RED || fail "tc: bottleneck"
	else
		# shellcheck disable=SC2086
		topo_qdisc sw1 "$DCQ8_BN" dcb $DCQ8_SW ecn off || fail "tc: bottleneck"
	fi
	pfc_snap DCQ8_S0 sw1 sw2
	for f in "$@"; do
		i=$((i + 1))
		if [ "$f" = v ]; then
			RXE_BW_DST=vr rxe_bw_start v $((18800 + i)) "$secs"
		else
			rxe_bw_start "$f" $((18800 + i)) "$secs"
		fi
	done
	rxe_sampler_start 0.5 "$DCQ8_OUT/samples-$name.txt" "$@"
	rxe_bw_clients "$secs"
	rxe_bw_wait
	rxe_sampler_stop
	pfc_snap DCQ8_S1 sw1 sw2
	DCQ8_PAUSE[$name]=$(( $(pfc_sw_sum DCQ8_S1 pause_tx "$ROCE_BAND") -
		$(pfc_sw_sum DCQ8_S0 pause_tx "$ROCE_BAND") ))
	wred=$(( $(pfc_sw_sum DCQ8_S1 drops_wred) - $(pfc_sw_sum DCQ8_S0 drops_wred) ))
	for k in drops_headroom in_drops drops_tail; do
		i=$(( $(pfc_sw_sum DCQ8_S1 "$k") - $(pfc_sw_sum DCQ8_S0 "$k") ))
		[ "$i" = 0 ] || drops+="$k=+$i "
		# (in_drops counts at the ingress port what drops_headroom
		# counts where it was queued: once in the sum)
		[ "$k" = in_drops ] || dsum=$((dsum + i))
	done
	DCQ8_DROPS[$name]=$drops
	res=$(rxe_shares "$DCQ8_OUT/samples-$name.txt")
	read -r -a r <<<"$res"
	DCQ8_OVERLAP[$name]=${r[0]}-${r[1]}
	_lib_num "${r[2]}" || DCQ8_OVERLAP[$name]=NaN
	i=3
	for f in "$@"; do DCQ8_SH[$name-$f]=${r[$i]:-NaN}; i=$((i + 1)); done
	log "$name ($algo): second half ${r[0]}-${r[1]} s, Mb/s: $(for f in "$@"; do printf '%s %s  ' "$f" "${DCQ8_SH[$name-$f]}"; done)" \
		"PAUSE frames ${DCQ8_PAUSE[$name]}; switch drops: ${drops:-none}; WRED (TCP control) $wred"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$algo" "$secs" \
		"${DCQ8_SH[$name-h1]:-NaN}" "${DCQ8_SH[$name-h2]:-NaN}" "${DCQ8_SH[$name-h3]:-NaN}" \
		"${DCQ8_SH[$name-h4]:-NaN}" "${DCQ8_SH[$name-v]:-NaN}" \
		"$(dcq8_jain "$name")" "${DCQ8_PAUSE[$name]}" "$dsum" "$wred" >>"$DCQ8_OUT/summary.tsv"
	grep -H . /sys/class/infiniband/*/ports/1/hw_counters/* | grep -v ':0$' |
		sed 's|/sys/class/infiniband/||; s|/ports/1/hw_counters/| |' >"$DCQ8_OUT/counters-$name.txt"
}

# dcq8_jain NAME: Jain's index of h1..h4 in run NAME (NaN without them).
dcq8_jain()
{
	lab_metrics jain "${DCQ8_SH[$1-h1]:-NaN}" "${DCQ8_SH[$1-h2]:-NaN}" \
		"${DCQ8_SH[$1-h3]:-NaN}" "${DCQ8_SH[$1-h4]:-NaN}"
}

run()
{
	dl_test_libs
	RXE_BW_U=${P[timeout_exp]}
	[ "${P[t_us]}" = auto ] || DCQCN_KNOBS[rpg_time_reset]=${P[t_us]}
	[ "${P[k_us]}" = auto ] || DCQCN_KNOBS[dce_tcp_rtt]=${P[k_us]}
	dcq8_setup "${P[xoff]}" "$OUT"
	dcq8_run alone dcqcn "${P[alone]}" v
	dcq8_run none none "${P[none]}" h1 h2 h3 h4 v
	dcq8_run dcqcn dcqcn "${P[duration]}" h1 h2 h3 h4 v
	{
		echo "dcqcn_fig8: $DCQ8_LINE Mb/s bottleneck sw1 -> r, $((4 * DCQ8_LINE)) Mb/s trunk, runs of ${P[none]} s (none) and ${P[duration]} s (dcqcn, T = $(rxe_cc h1 dcqcn/rpg_time_reset) us)"
		echo "(Mb/s of RDMA payload per flow over the second half; paper: Fig. 3 h1 about 3x, Fig. 8 fair, Fig. 9 victim kept)"
		echo
		column -t -s "$(printf '\t')" "$OUT/summary.tsv"
	} >"$OUT/summary.txt"
	cat "$OUT/summary.txt"
	# (the per-flow throughput plots are drawn on the host:
	# scripts/dcbanalysis/scenarios)
	return 0
}
