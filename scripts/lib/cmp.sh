# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# scripts/lib/cmp.sh - the walkthrough's lossless fabric in bash, for the
# guest tests test_85_lossless_fabric and test_95_rxe_read_incast (the
# comparison experiments are Python: scripts/dcbnet/experiments/).
# Source after common.sh, dcb.sh and rxe.sh.
#
#   walk_sw_opts ALGO MBIT [PFC [NPECN_K]]   the switch port's options
#   cmp_bw_measured SECS MON NODE:DEV SAMPLES HOST...
#                               perftest clients with dcbmon and samplers
#   cmp_queue_stats CSV NODE:DEV   "mean_kb p99_kb peak_kb" of a port

CMP_MON_MS=${CMP_MON_MS:-50}	# dcbmon interval (ms)
CMP_DCBMON=${CMP_DCBMON:-$TOP/tools/dcbmon}

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

# cmp_bw_measured SECS MON NODE:DEV SAMPLES HOST...: start the clients of
# the perftest servers rxe_bw_start started and wait for all, with
# dcbmon of NODE:DEV into MON (every CMP_MON_MS) and the HOSTs' sent
# packets every 0.5 s into SAMPLES (rxe_sampler_start) while they run.
cmp_bw_measured()
{
	local secs=$1 mon=$2 nd=$3 samples=$4 pid
	shift 4
	[ -x "$CMP_DCBMON" ] || fail "$CMP_DCBMON not built (make tools)"
	"$CMP_DCBMON" -i "$CMP_MON_MS" -o "$mon" \
		"$(topo_ns "${nd%%:*}"):${nd#*:}" 2>"$mon.err" &
	pid=$!
	rxe_sampler_start 0.5 "$samples" "$@"
	rxe_bw_clients "$secs"
	rxe_bw_wait
	rxe_sampler_stop
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

# cmp_queue_stats CSV NODE:DEV: "mean_kb p99_kb peak_kb" of the port's
# backlog over the samples from the first to the last in which it
# dequeued packets (traffic running).
cmp_queue_stats()
{
	lab_metrics queue "$1" "$(topo_ns "${2%%:*}"):${2#*:}"
}
