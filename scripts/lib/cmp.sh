# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# scripts/lib/cmp.sh - the side-by-side comparison of none, dcqcn, pcn and
# ldcp on soft-RoCE (issue 6): the dcblab scenarios cmp_burst, cmp_converge
# and parking_lot and the guest tests test_76_cmp_pcn_burst,
# test_77_cmp_converge and test_85_lossless_fabric share this file.
# Source after common.sh, dcb.sh and rxe.sh (load_rxe, load_dcqcn,
# rxe_algo, rxe_bw_start, rxe_sampler_start, rxe_shares, ...).
#
#   cmp_load ALGO...            rdma_rxe.ko and the algorithms' modules
#   cmp_rxe_add HOST...         an rxe device on eth0 of each HOST
#   cmp_algo HOST ALGO          rxe_algo at CMP_LINE_MBPS + PCN_KNOBS/LDCP_KNOBS
#   cmp_sw_opts ALGO            sch_dcb options of a switch port for ALGO
#   cmp_burst_topo / cmp_burst_run ALGO / cmp_burst_row ALGO
#   cmp_conv_topo N / cmp_conv_run ALGO / cmp_conv_row ALGO
#
# Results of a run go to $CMP_OUT (files named after the algorithm).

CMP_OUT=${CMP_OUT:-$TMPD}
CMP_RATE_MBPS=${CMP_RATE_MBPS:-100}	# every link and host NIC
CMP_LINE_MBPS=${CMP_LINE_MBPS:-$CMP_RATE_MBPS}	# rxe cc/max_rate_mbps
# PFC on RoCE's band, the headroom sized by sch_dcb's default delay
# (5 ms; sch_dcb.rst, "Sizing headroom")
CMP_PFC=${CMP_PFC:-"pfc prio-pfc $ROCE_BAND xoff 16kb"}
# size of the switch's shared buffer pool (sch_dcb's buffer)
CMP_BUFFER=${CMP_BUFFER:-1mb}
CMP_RED=${CMP_RED:-"ecn red kmin 5kb kmax 20kb pmax 0.01"}
CMP_STEP=${CMP_STEP:-"ecn step k 8kb"}
CMP_IV=${CMP_IV:-0.25}		# sent_pkts sampling interval (s)
CMP_MON_MS=${CMP_MON_MS:-50}	# dcbmon interval (ms)
CMP_KO_DIR=${DCBLAB_BUILD:-$TOP/build}/rxe_cc
CMP_DCBMON=${CMP_DCBMON:-$TOP/tools/dcbmon}

# Every algorithm runs at its defaults, derived from the line rate and
# the base RTT (rxe_cc.rst, "The rule"); a scenario that studies a knob
# puts it here (DCQCN's go to rxe.sh's DCQCN_KNOBS).
declare -gA PCN_KNOBS=()
declare -gA LDCP_KNOBS=()

cmp_load()
{
	local a ko
	load_rxe
	for a in "$@"; do
		case $a in
		none) ;;
		dcqcn) load_dcqcn ;;
		pcn|ldcp)
			[ -d "/sys/module/rxe_cc_$a" ] && continue
			ko=$CMP_KO_DIR/rxe_cc_$a.ko
			[ -f "$ko" ] || fail "$ko not built (run make)"
			insmod "$ko" || { dmesg | tail -n 20 >&2; fail "insmod $ko"; } ;;
		*) fail "unknown algorithm '$a'" ;;
		esac
	done
}

# cmp_rxe_add HOST...: an rxe device "<prefix>_<host>" on HOST's eth0.
cmp_rxe_add()
{
	local h
	for h in "$@"; do
		RXE_DEV[$h]=${TOPO_PREFIX}_$h
		topo_exec "$h" rdma link add "${RXE_DEV[$h]}" type rxe netdev eth0 ||
			fail "rdma link add in $h"
		# perftest's TCP control connection: ECN-capable, so that RED
		# and step marking at the switch mark it instead of dropping it
		topo_exec "$h" sysctl -qw net.ipv4.tcp_ecn=1
	done
	[ -n "${CMP_KILL_AT_EXIT:-}" ] || { at_exit 'rxe_kill_all'; CMP_KILL_AT_EXIT=1; }
	for h in "$@"; do
		wait_for --timeout 60 cmp_gid_known "$h" ||
			fail "no RoCE v2 IPv4 GID on ${RXE_DEV[$h]}"
	done
}

# cmp_gid_known HOST: HOST's RoCE v2 IPv4 GID index is known (RXE_GID4).
cmp_gid_known()
{
	local g
	[ -n "${RXE_GID4[$1]:-}" ] && return 0
	g=$(rxe_gid "$1" 4) || return 1
	RXE_GID4[$1]=$g
}

# cmp_algo HOST ALGO: select ALGO (waits while old QPs still hold the
# previous algorithm), line rate CMP_LINE_MBPS, the overrides if any.
cmp_algo()
{
	local h=$1 a=$2 k f=/sys/class/infiniband/${RXE_DEV[$1]}/cc/algo
	wait_for --timeout 30 sh -c "echo $a >$f" ||
		fail "cannot select $a on ${RXE_DEV[$h]} (QPs left?)"
	rxe_algo "$h" "$a" "$CMP_LINE_MBPS"
	case $a in
	pcn) for k in "${!PCN_KNOBS[@]}"; do rxe_cc "$h" "pcn/$k" "${PCN_KNOBS[$k]}"; done ;;
	ldcp) for k in "${!LDCP_KNOBS[@]}"; do rxe_cc "$h" "ldcp/$k" "${LDCP_KNOBS[$k]}"; done ;;
	esac
}

# cmp_sw_opts ALGO: sch_dcb options of every switch port.  PFC on RoCE's
# band (ROCE_BAND) and the algorithm's congestion point: RED for
# dcqcn, NP-ECN for pcn, no marking for none; ldcp runs without PFC with
# DCTCP step marking (its fast-start packets are dropped by WRED there).
cmp_sw_opts()
{
	local o="rate ${CMP_RATE_MBPS}mbit $CTRL_MAP buffer $CMP_BUFFER"
	case $1 in
	none) echo "$o $CMP_PFC ecn off" ;;
	dcqcn) echo "$o $CMP_PFC $CMP_RED" ;;
	pcn) echo "$o $CMP_PFC ecn np-ecn" ;;
	ldcp) echo "$o pfc off $CMP_STEP" ;;
	esac
}

# The switch port of "Your first lossless RoCE fabric" (dcblab.rst), as
# test_85 and test_95 run it: PFC on every priority with xoff 16 KB, and
# RED between 5 and 20 KB (none, dcqcn) or np-ecn (pcn); ldcp without PFC,
# with DCTCP step marking at 8 KB.
WALK_KMAX=20480
WALK_STEP_K=8192
WALK_PFC="pfc prio-pfc all xoff 16kb"

# walk_sw_opts ALGO MBIT [PFC [NPECN_K]]: that port's sch_dcb options for
# ALGO at MBIT Mbit/s; PFC replaces WALK_PFC (a longer delay, say), and
# NPECN_K (bytes) np-ecn's default K.
walk_sw_opts()
{
	local o="rate ${2}mbit $CTRL_MAP" pfc=${3:-$WALK_PFC}

	case $1 in
	none|dcqcn) echo "$o $pfc ecn red kmin 5kb kmax 20kb pmax 0.01" ;;
	pcn) echo "$o $pfc ecn np-ecn${4:+ k $4}" ;;
	ldcp) echo "$o pfc off ecn step k $WALK_STEP_K" ;;
	esac
}

cmp_hosts_qdisc()
{
	# shellcheck disable=SC2086
	topo_dcb_all host rate "${CMP_RATE_MBPS}mbit" $CTRL_MAP limit 2mb || fail "tc: host NICs"
}

# cmp_switch ALGO: configure every switch port for ALGO.
cmp_switch()
{
	local o
	o=$(cmp_sw_opts "$1")
	# shellcheck disable=SC2086
	topo_dcb_all switch $o || fail "tc: $o"
	CMP_SWOPTS[$1]=$o
}
declare -gA CMP_SWOPTS=()

# cmp_mon_start FILE NODE:DEV...: dcbmon of the ports into FILE.
cmp_mon_start()
{
	local f=$1 nd a=()
	shift
	[ -x "$CMP_DCBMON" ] || fail "$CMP_DCBMON not built (make tools)"
	for nd in "$@"; do a+=("$(topo_ns "${nd%%:*}"):${nd#*:}"); done
	"$CMP_DCBMON" -i "$CMP_MON_MS" -o "$f" "${a[@]}" 2>"$f.err" &
	CMP_MON=$!
}
cmp_mon_stop() { kill -TERM "$CMP_MON" 2>/dev/null; wait "$CMP_MON" 2>/dev/null; CMP_MON=; }

# cmp_bw_measured SECS MON NODE:DEV SAMPLES HOST...: start the clients of
# the perftest servers rxe_bw_start started and wait for all, with
# dcbmon of NODE:DEV into MON and the HOSTs' sent packets every 0.5 s
# into SAMPLES (rxe_sampler_start) while they run.
cmp_bw_measured()
{
	local secs=$1 mon=$2 nd=$3 samples=$4
	shift 4
	cmp_mon_start "$mon" "$nd"
	rxe_sampler_start 0.5 "$samples" "$@"
	rxe_bw_clients "$secs"
	rxe_bw_wait
	rxe_sampler_stop
	cmp_mon_stop
}

# cmp_counters VAR HOST...: sum of a few rxe hw counters of the HOSTs into
# the associative array VAR (retries = completer_retry_err).
cmp_rxe_sum()
{
	local key=$1 h v t=0
	shift
	for h in "$@"; do
		read -r v <"/sys/class/infiniband/${RXE_DEV[$h]}/ports/1/hw_counters/$key" || v=0
		t=$((t + v))
	done
	echo "$t"
}

# cmp_wait PID...: wait for each; the number that failed in CMP_FAILED.
cmp_wait()
{
	local p
	CMP_FAILED=0
	for p in "$@"; do wait "$p" || CMP_FAILED=$((CMP_FAILED + 1)); done
}

# cmp_keep_bw PREFIX: keep the ib_write_bw outputs of the run (PREFIX-bw/)
# and the non-zero rxe counters of every device.
cmp_keep_bw()
{
	local h
	mkdir -p "$1-bw"
	mv "$TMPD"/bw-* "$1-bw/" 2>/dev/null
	for h in "${!RXE_DEV[@]}"; do
		( cd "/sys/class/infiniband/${RXE_DEV[$h]}/ports/1/hw_counters" &&
		  grep -H . ./* | sed "s|^\./|$h |; s|:| |" | awk '$3 != 0' )
	done >"$1-bw/counters.txt" 2>/dev/null
}

# cmp_queue_stats CSV NODE:DEV: "mean_kb p99_kb peak_kb" of the port's
# backlog over the samples from the first to the last in which it
# dequeued packets (traffic running).
cmp_queue_stats()
{
	lab_metrics queue "$1" "$(topo_ns "${2%%:*}"):${2#*:}"
}

# ------------------------------------------------------------ cmp_burst
# PCN section 3.1, scaled:
#
#   f0 --\                    /-- r0
#         s0 ------------- s1 --- r1     F0: f0 -> r0, F1: f1 -> r1
#   f1 --/                 |  \          burst: b1..bN -> r1
#                         b1 .. bN
#
# F0 and F1 share s0 -> s1 (fair share C/2 each).  The burst congests
# s1 -> r1; with PFC s1 pauses s0, whose port toward s1 then holds F0 too
# (F0 never crosses s1 -> r1: it is the victim).

CMP_NB=${CMP_NB:-3}			# burst senders
CMP_BURST_MSGS=${CMP_BURST_MSGS:-64}	# messages per burst sender
CMP_BURST_SIZE=${CMP_BURST_SIZE:-16384}	# bytes per message
CMP_PRE=${CMP_PRE:-4}			# seconds of both long flows before the burst
CMP_SECS=${CMP_SECS:-60}		# long flows' longest duration (ib_write_bw -D)
CMP_POST=${CMP_POST:-6}			# seconds of the long flows after the burst (CMP_STOP=kill)
CMP_STOP=${CMP_STOP:-kill}		# kill: stop the long flows CMP_POST s after the burst; wait: let them end
CMP_RUN=0				# runs so far (perftest ports differ per run)

cmp_burst_topo()
{
	local h i
	CMP_B=()
	for i in $(seq 1 "$CMP_NB"); do CMP_B+=("b$i"); done
	topo_switch s0 && topo_switch s1 && topo_link s0 s1 >/dev/null || fail "switches"
	for h in f0 f1; do topo_host $h && topo_link $h s0 >/dev/null || fail "$h"; done
	for h in r0 r1 "${CMP_B[@]}"; do topo_host "$h" && topo_link "$h" s1 >/dev/null || fail "$h"; done
	topo_routes || fail "routes"
	cmp_hosts_qdisc
	cmp_switch none
	topo_exec f0 ping -c1 -W5 "$(topo_ip4 r0)" >/dev/null || fail "no path f0 -> r0"
	topo_exec b1 ping -c1 -W5 "$(topo_ip4 r1)" >/dev/null || fail "no path b1 -> r1"
	cmp_rxe_add f0 f1 r0 r1 "${CMP_B[@]}"
}

cmp_ns_idle() { [ -z "$(ip netns pids "$(topo_ns "$1")")" ]; }
cmp_sent_ge() { [ "$(cmp_rxe_sum sent_pkts "$1")" -ge "$2" ]; }

# cmp_burst_run ALGO: one run; files $CMP_OUT/burst-ALGO.{samples,dcbmon.csv,env}
cmp_burst_run()
{
	local a=$1 h i port base f0s f1s pids=() bpids=() bsrv=()
	local o=$CMP_OUT/burst-$a
	for h in f0 f1 r0 r1 "${CMP_B[@]}"; do cmp_algo "$h" "$a"; done
	cmp_switch "$a"
	base=$((18900 + 20 * CMP_RUN)); CMP_RUN=$((CMP_RUN + 1))
	pfc_snap CMP_S0 s0 s1
	local rt0 k
	rt0=$(cmp_rxe_sum completer_retry_err f0 f1 "${CMP_B[@]}")
	RXE_BW_SRV=()
	RXE_BW_DST=r0 rxe_bw_start f0 "$base" "$CMP_SECS"
	RXE_BW_DST=r1 rxe_bw_start f1 $((base + 1)) "$CMP_SECS"
	i=0
	for h in "${CMP_B[@]}"; do
		port=$((base + 2 + i)); i=$((i + 1))
		topo_exec r1 timeout $((CMP_SECS + $(safety_margin 90))) ib_write_bw -F -d "${RXE_DEV[r1]}" \
			-x "${RXE_GID4[r1]}" -p "$port" -n "$CMP_BURST_MSGS" -s "$CMP_BURST_SIZE" \
			-u "$RXE_BW_U" >"$o-srv-$h.txt" 2>&1 &
		bsrv+=($!)
	done
	for i in $(seq 0 $((CMP_NB - 1))); do
		wait_for --timeout 60 rxe_listen $((base + 2 + i)) r1 || fail "$a: burst server $i did not start"
	done
	f0s=$(cmp_rxe_sum sent_pkts f0); f1s=$(cmp_rxe_sum sent_pkts f1)
	cmp_mon_start "$o-dcbmon.csv" "s0:$(topo_port s0 s1)" "s1:$(topo_port s1 r1)" "s1:$(topo_port s1 r0)"
	rxe_sampler_start "$CMP_IV" "$o-samples.txt" f0 f1 "${CMP_B[@]}"
	rxe_bw_clients "$CMP_SECS"
	pids=("${RXE_BW_PIDS[@]}"); RXE_BW_PIDS=()
	# both long flows running, then the pre-burst window
	wait_for --timeout 60 cmp_sent_ge f0 $((f0s + 200)) || log "$a: F0 did not start"
	wait_for --timeout 60 cmp_sent_ge f1 $((f1s + 200)) || log "$a: F1 did not start"
	sleep "$CMP_PRE"
	log "$a: burst: ${CMP_NB} x ${CMP_BURST_MSGS} x ${CMP_BURST_SIZE} B -> r1"
	i=0
	for h in "${CMP_B[@]}"; do
		port=$((base + 2 + i)); i=$((i + 1))
		topo_exec "$h" timeout $((CMP_SECS + $(safety_margin 90))) ib_write_bw -F -d "${RXE_DEV[$h]}" \
			-x "${RXE_GID4[$h]}" -p "$port" -n "$CMP_BURST_MSGS" -s "$CMP_BURST_SIZE" \
			-u "$RXE_BW_U" "$(topo_ip4 r1)" >"$o-cli-$h.txt" 2>&1 &
		bpids+=($!)
	done
	cmp_wait "${bpids[@]}" "${bsrv[@]}"
	local bfail=$CMP_FAILED
	# the CPU guard over the long flows and the burst (rxe_bw_clients
	# marked their start)
	cpu_guard "$a: long flows and burst"
	log "$a: burst done ($bfail failed); ${CMP_POST} s after it"
	# the post-burst window, then the long flows end (they would run up
	# to CMP_SECS: process start-up under a loaded TCG guest delays the
	# burst by seconds, so they are sized for the worst case and stopped)
	local lfail=0 p
	if [ "$CMP_STOP" != kill ]; then
		cmp_wait "${pids[@]}"
		lfail=$CMP_FAILED
	else
		sleep "$CMP_POST"
		for h in f0 f1; do
			# still running?  (a flow that ended before is a failure)
			[ -n "$(ip netns pids "$(topo_ns "$h")")" ] || lfail=$((lfail + 1))
			for p in $(ip netns pids "$(topo_ns "$h")"); do kill "$p" 2>/dev/null; done
		done
		for h in r0 r1; do
			wait_for --timeout 10 cmp_ns_idle "$h" ||
				for p in $(ip netns pids "$(topo_ns "$h")"); do kill "$p" 2>/dev/null; done
		done
		for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	fi
	cmp_keep_bw "$o"
	rxe_sampler_stop
	cmp_mon_stop
	pfc_snap CMP_S1 s0 s1
	local retries
	retries=$(( $(cmp_rxe_sum completer_retry_err f0 f1 "${CMP_B[@]}") - rt0 ))
	{
		cmp_pause_drops
		echo "retries=$retries"
		echo "failed=$((bfail + lfail))"
		read -r qm qp qk <<<"$(cmp_queue_stats "$o-dcbmon.csv" "s1:$(topo_port s1 r1)")"
		echo "queue_mean_kb=$qm"; echo "queue_p99_kb=$qp"; echo "queue_peak_kb=$qk"
		read -r qm qp qk <<<"$(cmp_queue_stats "$o-dcbmon.csv" "s0:$(topo_port s0 s1)")"
		echo "q01_mean_kb=$qm"; echo "q01_p99_kb=$qp"
		cmp_burst_analyse "$o-samples.txt" "$o-flows.csv"
	} >"$o.env"
	log "$a: $(tr '\n' ' ' <"$o.env")"
}

# cmp_pause_drops: the lines pause_tx=N (PAUSE frames the switches sent
# for the RoCE band) and drops=N (their packets dropped: tail, WRED and
# headroom) of a run's .env, between the snapshots CMP_S0 and CMP_S1.
cmp_pause_drops()
{
	local k drops=0
	for k in drops_tail drops_wred drops_headroom; do
		drops=$((drops + $(pfc_sw_sum CMP_S1 $k) - $(pfc_sw_sum CMP_S0 $k)))
	done
	echo "pause_tx=$(( $(pfc_sw_sum CMP_S1 pause_tx "$ROCE_BAND") - $(pfc_sw_sum CMP_S0 pause_tx "$ROCE_BAND") ))"
	echo "drops=$drops"
}

# cmp_burst_analyse SAMPLES CSV: metrics from the sent_pkts samples (F0 F1
# B1..BN), as key=value lines; CSV: t_s (from the burst start), F0, F1,
# burst in Mb/s (1024-byte payloads) per sampling interval.  Recovery:
# the first sample after the burst from which both flows stay within
# CMP_REC_TOL of their fair share for CMP_REC_WIN s (cmpmetrics.burst).
cmp_burst_analyse()
{
	lab_metrics burst "$1" "$2" --rec-win "${CMP_REC_WIN:-1.0}" --tol "${CMP_REC_TOL:-0.2}"
}

CMP_BURST_COLS="algo f0_pre f0_burst f0_post f1_pre f1_burst f1_post burst_mbps burst_s f0_keep jain_post queue_mean_kb queue_p99_kb q01_mean_kb q01_p99_kb pause_tx drops retries recovery_s recovery_share_s failed"

# cmp_row ENVFILE ALGO COLS: one TSV row.
cmp_row()
{
	awk -F= -v a="$2" -v cols="$3" '{ v[$1] = $2 }
		END { n = split(cols, k, " "); line = a
		      for (i = 2; i <= n; i++) line = line "\t" ((k[i] in v) ? v[k[i]] : "NaN")
		      print line }' "$1"
}

# cmp_table TSV: the summary as an aligned table.
cmp_table() { column -t -s "$(printf '\t')" "$1" 2>/dev/null || cat "$1"; }

# ------------------------------------------------------------ cmp_converge
# PCN Fig. 11, scaled: s1..sN -> sw -> r, every flow starts at line rate.

CMP_N=${CMP_N:-3}
CMP_DRAIN_KB=${CMP_DRAIN_KB:-4}		# "drained": mean backlog below this over CMP_DRAIN_WIN
CMP_DRAIN_WIN=${CMP_DRAIN_WIN:-1.0}

cmp_conv_topo()
{
	local h
	CMP_S=()
	for h in $(seq 1 "$CMP_N"); do CMP_S+=("s$h"); done
	topo_switch sw || fail "switch"
	for h in "${CMP_S[@]}" r; do topo_host "$h" && topo_link "$h" sw >/dev/null || fail "$h"; done
	topo_routes || fail "routes"
	cmp_hosts_qdisc
	cmp_switch none
	topo_exec s1 ping -c1 -W5 "$(topo_ip4 r)" >/dev/null || fail "no path s1 -> r"
	cmp_rxe_add "${CMP_S[@]}" r
}

# Rate tracepoints that name the sender's device, per algorithm: the
# event (system/name), its rate field and an event filter.  How long
# before its first event a flow started (the lead, cmp_rate_converge):
# PCN's first event is its first CNP, one period T after the flow's first
# packet (the NP's first period opens with it); DCQCN's is its first CNP,
# a queue build-up after the start (RED marks from Kmin: a few packets at
# line rate), taken as 0.  Alpha-only DCQCN events (ev 3) do not change
# the rate and are filtered out.
declare -gA CMP_TR_EVENT=([pcn]=rxe_cc_pcn/rxe_cc_pcn_rate [dcqcn]=rxe_cc_dcqcn/rxe_cc_dcqcn)
declare -gA CMP_TR_FIELD=([pcn]=rate_kbps [dcqcn]=rc_kbps)
declare -gA CMP_TR_FILTER=([dcqcn]='ev != 3')

# cmp_trace_on ALGO: record the algorithm's rate tracepoint (pcn, dcqcn;
# the engine's own names only the QPN, which repeats on every host).  The
# ring buffer does not overwrite: the first events (the flows' first CNPs)
# are the ones that matter.
cmp_trace_on()
{
	local ev=${CMP_TR_EVENT[$1]:-}
	tr_mount || fail "no tracefs"
	CMP_TR=$TR
	[ -n "$ev" ] || return 0
	[ -d "$CMP_TR/events/$ev" ] || fail "no $ev tracepoint"
	echo 0 >$CMP_TR/tracing_on
	echo 8192 >$CMP_TR/buffer_size_kb
	echo 0 >$CMP_TR/options/overwrite
	echo mono >$CMP_TR/trace_clock 2>/dev/null
	echo >$CMP_TR/trace
	tr_on "$ev" "${CMP_TR_FILTER[$1]:-0}" || fail "cannot enable $ev"
	echo 1 >$CMP_TR/tracing_on
	[ -n "${CMP_TR_AT_EXIT:-}" ] || {
		at_exit 'cmp_trace_off; echo 1 >"$CMP_TR/options/overwrite" 2>/dev/null'
		CMP_TR_AT_EXIT=1
	}
}

# cmp_trace_off [OUT]: mute every rate tracepoint (tr_mute: they stay
# switched on); copy the trace to OUT.
cmp_trace_off()
{
	tr_mute "${CMP_TR_EVENT[@]}"
	[ -z "${1:-}" ] || cp "$CMP_TR/trace" "$1"
}

# cmp_rate_converge ALGO TRACE: from the rate events of the senders'
# devices (CMP_TR_EVENT): each flow's rate is the line rate until its
# first event, which came a lead after its start (PCN: one period T,
# DCQCN: 0).  Prints converge_s (from the last flow's start until the sum
# of the rates is first at most 1.1 C), converge_periods (in PCN periods
# T; NaN for other algorithms), the aggregate then and the event count.
cmp_rate_converge()
{
	local devs='' h lead=0 per=0
	[ "$1" = pcn ] && { per=$(rxe_cc "${CMP_S[0]}" pcn/period_us); lead=$per; }
	for h in "${CMP_S[@]}"; do devs+="${devs:+ }${RXE_DEV[$h]}"; done
	lab_metrics converge "$2" --devs "$devs" --line-kbps "$((CMP_LINE_MBPS * 1000))" \
		--event "${CMP_TR_EVENT[$1]#*/}" --field "${CMP_TR_FIELD[$1]}" \
		--lead-us "$lead" --period-us "$per"
}

# cmp_drain CSV NODE:DEV: queue drain from dcbmon samples of the port.
# ta: the first sample with the backlog above CMP_DRAIN_KB (the flows'
# queue forms); the initial peak: the largest backlog in the
# CMP_PEAK_WIN s after ta.  drain_s: from ta to the first sample after
# that peak at or below CMP_DRAIN_KB; settle_s: from ta to the first
# sample from which the mean backlog over CMP_DRAIN_WIN s stays below
# it (NaN: never, e.g. a queue held up by PFC).
cmp_drain()
{
	lab_metrics drain "$1" "$(topo_ns "${2%%:*}"):${2#*:}" --thr-kb "$CMP_DRAIN_KB" \
		--win "$CMP_DRAIN_WIN" --peak-win "${CMP_PEAK_WIN:-2}"
}

# cmp_conv_run ALGO: one run; files $CMP_OUT/conv-ALGO.*
cmp_conv_run()
{
	local a=$1 h base pids port
	local o=$CMP_OUT/conv-$a
	for h in "${CMP_S[@]}" r; do cmp_algo "$h" "$a"; done
	cmp_switch "$a"
	base=$((18900 + 20 * CMP_RUN)); CMP_RUN=$((CMP_RUN + 1))
	pfc_snap CMP_S0 sw
	local r0
	r0=$(cmp_rxe_sum completer_retry_err "${CMP_S[@]}")
	RXE_BW_SRV=()
	port=$base
	for h in "${CMP_S[@]}"; do rxe_bw_start "$h" "$port" "$CMP_SECS"; port=$((port + 1)); done
	cmp_trace_on "$a"
	cmp_mon_start "$o-dcbmon.csv" "sw:$(topo_port sw r)"
	rxe_sampler_start "$CMP_IV" "$o-samples.txt" "${CMP_S[@]}"
	rxe_bw_clients "$CMP_SECS"
	pids=("${RXE_BW_PIDS[@]}"); RXE_BW_PIDS=()
	log "$a: ${CMP_N} flows started"
	cmp_wait "${pids[@]}"
	local fl=$CMP_FAILED
	cpu_guard "$a: ${CMP_N} flows"
	cmp_keep_bw "$o"
	rxe_sampler_stop
	cmp_mon_stop
	[ -z "${CMP_TR_EVENT[$a]:-}" ] || cmp_trace_off "$o-trace.txt"
	pfc_snap CMP_S1 sw
	local k
	{
		cmp_pause_drops
		echo "retries=$(( $(cmp_rxe_sum completer_retry_err "${CMP_S[@]}") - r0 ))"
		echo "failed=$fl"
		read -r qm qp qk <<<"$(cmp_queue_stats "$o-dcbmon.csv" "sw:$(topo_port sw r)")"
		echo "queue_mean_kb=$qm"; echo "queue_p99_kb=$qp"; echo "queue_peak_kb=$qk"
		cmp_drain "$o-dcbmon.csv" "sw:$(topo_port sw r)"
		if [ -n "${CMP_TR_EVENT[$a]:-}" ]; then
			cmp_rate_converge "$a" "$o-trace.txt"
		else
			echo "converge_s=NaN"
		fi
		read -r -a sh <<<"$(rxe_shares "$o-samples.txt")"
		echo "half_from_s=${sh[0]}"; echo "half_to_s=${sh[1]}"; echo "jain=${sh[2]}"
		for k in $(seq 1 "$CMP_N"); do echo "f${k}_mbps=${sh[$((k + 2))]:-NaN}"; done
		# all flows together, from the first packet of any to the last;
		# the per-flow throughput per interval (t from the first packet of
		# any flow) to the CSV
		lab_metrics flows "$o-samples.txt" "$CMP_N" "$o-flows.csv"
	} >"$o.env"
	log "$a: $(tr '\n' ' ' <"$o.env")"
}

cmp_conv_cols()
{
	local c="algo" k
	for k in $(seq 1 "$CMP_N"); do c+=" f${k}_mbps"; done
	echo "$c total_mbps active_s jain queue_mean_kb queue_p99_kb pause_tx drops retries converge_s converge_periods peak0_kb drain_s settle_s failed"
}
