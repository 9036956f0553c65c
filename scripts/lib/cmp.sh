# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# scripts/lib/cmp.sh - the side-by-side comparison of none, dcqcn, pcn and
# ldcp on soft-RoCE (issue 6) in bash: the dcblab scenarios parking_lot,
# pcn_flows and ldcp_faststart and the guest tests test_85, test_92,
# test_93 and test_95 share this file (cmp_burst and cmp_converge are
# experiments of the Python layer: scripts/dcbnet/experiments/_cmp.py).
# Source after common.sh, dcb.sh and rxe.sh (load_rxe, load_dcqcn,
# rxe_algo, rxe_bw_start, rxe_sampler_start, rxe_shares, ...).
#
#   cmp_load ALGO...            rdma_rxe.ko and the algorithms' modules
#   cmp_rxe_add HOST...         an rxe device on eth0 of each HOST
#   cmp_algo HOST ALGO          rxe_algo at CMP_LINE_MBPS + PCN_KNOBS/LDCP_KNOBS
#   cmp_sw_opts ALGO            sch_dcb options of a switch port for ALGO
#   cmp_conv_topo               s1..sN -> sw -> r (CMP_N senders)
#   cmp_cap_start HOST DIR / cmp_cap_stop   capture of the RoCEv2 packets
#                               to HOST (DIR/capture.pcap)
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

# cmp_cap_start HOST DIR: capture the RoCEv2 packets to HOST at its eth0,
# 96 bytes of each (up to the BTH; scripts/dcbanalysis/roce_flows.py
# reads them), until cmp_cap_stop; tcpdump's messages go to
# DIR/tcpdump.err.  The capture is written to the guest's tmpfs with a
# 16 MB buffer and moved to DIR at the end: a TCG guest writing every
# packet to the shared results folder lost 70 % of them.
cmp_cap_start()
{
	CMP_CAP_DIR=$2
	CMP_CAP_FILE=$(mktemp "$TMPD/capture.XXXXXX") || fail "mktemp"
	# not through topo_exec: $! must be tcpdump itself, which prints its
	# counts when interrupted
	ip netns exec "$(topo_ns "$1")" tcpdump -Z root -i eth0 -s 96 -B 16384 \
		-w "$CMP_CAP_FILE" "udp dst port 4791 and dst host $(topo_ip4 "$1")" \
		2>"$CMP_CAP_DIR/tcpdump.err" &
	CMP_CAP=$!
	wait_for --timeout 30 grep -q "listening on" "$CMP_CAP_DIR/tcpdump.err" ||
		fail "tcpdump did not start ($(cat "$CMP_CAP_DIR/tcpdump.err"))"
}

# cmp_cap_stop: end the capture: DIR/capture.pcap, and in CMP_CAP_DROPPED
# the packets the kernel dropped by tcpdump's count (NaN if it gave none).
cmp_cap_stop()
{
	kill -INT "$CMP_CAP" 2>/dev/null
	wait "$CMP_CAP" 2>/dev/null
	mv "$CMP_CAP_FILE" "$CMP_CAP_DIR/capture.pcap" || fail "no capture in $CMP_CAP_FILE"
	CMP_CAP_DROPPED=$(sed -n 's/^\([0-9]*\) packets* dropped by kernel$/\1/p' \
		"$CMP_CAP_DIR/tcpdump.err")
	CMP_CAP_DROPPED=${CMP_CAP_DROPPED:-NaN}
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

CMP_RUN=0				# runs so far (perftest ports differ per run)

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

# s1..sN -> sw -> r, every flow into one port (pcn_flows, ldcp_faststart)
CMP_N=${CMP_N:-3}

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
