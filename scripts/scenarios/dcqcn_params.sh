# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# dcqcn_params: the DCQCN paper's parameter study (section 5: Fig. 11,
# the strawman parameters against its own, and Fig. 12, g and R_AI under
# 2:1 and 16:1 incasts) on soft-RoCE at the lab's defaults.  The paper
# made these figures with its fluid model; selftests/unit/dcqcn/model -f
# makes them at 40 Gb/s (dcqcn.rst, "The paper's parameter analyses").
# Here the real rdma_rxe, DCQCN module and sch_dcb switch run them.
#
# cmp_incast's topology, traffic and analysis: N senders s1..sN each
# RDMA-write ITERS x SIZE bytes into r through one routing switch, every
# port and host NIC sch_dcb at the line rate, PFC on RoCE's band 3, RED on
# the bottleneck toward r.  One run per (incast, setting), named N-SETTING
# in the algo column of summary.tsv:
#
#   paper     DCQCN's defaults, derived from the line rate and the base
#             RTT (rxe_cc.rst, "The rule"; g = 1/256)
#   g16       the same with g = 1/16 (dce_tcp_g 960)
#   ai4       the same with R_AI and R_HAI four times larger
#   strawman  QCN's and DCTCP's recommendations the paper starts from,
#             scaled by the rule as DCQCN's own timer is (T = 1.5 ms x
#             the derived T / 55 us; the byte counter firing 50 times
#             per T at line rate, as 150 KB does at 40 Gb/s; g = 1/16;
#             cut-off marking at 40 KB x the lab's Kmax / the paper's
#             200 KB: step k 4 KB)
#   pfc-only  no ECN marking and rxe's algorithm none: the baseline, the
#             queue PFC alone holds
#
# The functions are also used by the guest test test_91_dcqcn_incast16.sh.

DCQP_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
# shellcheck source=cmp_incast.sh
. "$DCQP_HERE/cmp_incast.sh"

describe()
{
	echo "DCQCN section 5 (Fig. 11, 12): strawman, g and R_AI under 2:1 and 16:1 RDMA incasts: queue, Jain, PAUSE"
}

params()
{
	cat <<'EOF'
settings        paper,g16,ai4,strawman,pfc-only  settings to run per incast, in this order
incasts         2,16      incasts to run (N senders to one receiver), in this order
rate            100mbit   line rate of every port and host NIC (cc/max_rate_mbps too)
iters           100       ib_write_bw -n: writes per sender
size            65536     bytes per write
buffer          4mb       switch buffer pool (above the headroom its 17 ports reserve)
xoff            16kb      PFC static XOFF per (ingress port, RoCE's band 3)
delay           default   PAUSE response time the headroom is sized for (default: sch_dcb's, 5 ms)
red             5kb:20kb:0.01  RED kmin:kmax:pmax (cmp_incast's: the paper's Kmax 200 KB scaled by line rate x base RTT)
strawman_k      4kb       strawman: DCTCP cut-off marking threshold (40 KB x 20 KB / 200 KB)
timeout_u       20        ib_write_bw -u (transport timeout 4.096 us * 2^u)
interval_ms     20        dcbmon sampling interval
sample_s        0.1       sent_pkts sampling interval (FCT resolution)
duration        300       time budget (s): only sizes dcblab's guest timeout (10 x duration + 240 per run)
EOF
}

# dcqp_knobs SETTING: DCQCN_KNOBS for SETTING.  Every knob a setting
# may change is written, "auto" where the setting keeps the derived
# default: a written knob stays set across re-selection of the algorithm
# (rxe_cc.rst), so one setting's values would otherwise leak into the
# next run.  ai4's rates are multiplied per host by cmpi_rxe, from the
# derived defaults.  The strawman's T scales as the derived T does (the
# rule's ratio to the paper's 55 us, read from s1).
dcqp_knobs()
{
	local k t
	DCQCN_KNOBS=()
	for k in rpg_time_reset rpg_byte_reset dce_tcp_g rpg_ai_rate rpg_hai_rate; do
		DCQCN_KNOBS[$k]=auto
	done
	case $1 in
	paper|pfc-only|ai4) ;;
	g16) DCQCN_KNOBS[dce_tcp_g]=960;;
	strawman)
		# T: 1.5 ms x T / 55 us; B: line rate x T / 50 (bytes)
		rxe_cc s1 dcqcn/rpg_time_reset auto
		t=$(( $(rxe_cc s1 dcqcn/rpg_time_reset) * 1500 / 55 ))
		DCQCN_KNOBS[rpg_time_reset]=$t
		DCQCN_KNOBS[rpg_byte_reset]=$((CMPI_MBPS * t / 8 / 50))
		DCQCN_KNOBS[dce_tcp_g]=960
		;;
	*) fail "unknown setting '$1' (paper, g16, ai4, strawman, pfc-only)";;
	esac
}

# cmpi_rxe N-SETTING: DCQCN with SETTING's knobs on the senders and r
# (pfc-only: none; ai4: four times the derived R_AI and R_HAI)
cmpi_rxe()
{
	local h algo=dcqcn k
	dcqp_knobs "${1#*-}"
	[ "${1#*-}" = pfc-only ] && algo=none
	for h in "${CMPI_HOSTS[@]}" r; do
		rxe_algo "$h" "$algo" "$CMPI_MBPS"
		[ "${1#*-}" = ai4 ] || continue
		for k in rpg_ai_rate rpg_hai_rate; do
			rxe_cc "$h" "dcqcn/$k" $((4 * $(rxe_cc "$h" "dcqcn/$k")))
		done
	done
	return 0
}

# cmpi_qdiscs N-SETTING: sch_dcb on every switch port and host NIC, PFC on
# RoCE's band; the bottleneck marks with RED, or the strawman's step.
cmpi_qdiscs()
{
	local sw ecn kmin kmax pmax
	sw="rate ${P[rate]} $CTRL_MAP buffer ${P[buffer]} pfc prio-pfc $ROCE_BAND xoff ${P[xoff]} $(cmpi_delay)"
	IFS=: read -r kmin kmax pmax <<<"${P[red]}"
	ecn="ecn red kmin $kmin kmax $kmax pmax $pmax"
	[ "${1#*-}" = strawman ] && ecn="ecn step k ${P[strawman_k]}"
	[ "${1#*-}" = pfc-only ] && ecn="ecn off"
	# shellcheck disable=SC2086
	topo_dcb_all switch $sw || fail "tc: switch ports: $sw"
	# shellcheck disable=SC2086
	topo_dcb_all host rate "${P[rate]}" $CTRL_MAP limit 2mb || fail "tc: host NICs"
	# shellcheck disable=SC2086
	dcb_set $sw $ecn || fail "tc: bottleneck: $sw $ecn"
	echo "switch ports: $sw; bottleneck $PORT: $sw $ecn; host NICs: rate ${P[rate]} $CTRL_MAP limit 2mb"
	local k
	[ "${1#*-}" = pfc-only ] && return 0
	for k in $(printf '%s\n' "${!DCQCN_KNOBS[@]}" | sort); do
		echo "dcqcn/$k ${DCQCN_KNOBS[$k]}"
	done
	[ "${1#*-}" != ai4 ] || echo "dcqcn/rpg_ai_rate, rpg_hai_rate: 4 x the derived defaults"
}

# dcqp_setup: cmp_incast's topology with as many senders as the largest
# incast
dcqp_setup()
{
	local n max=0
	cmpi_defaults
	for n in ${P[incasts]//,/ }; do
		[[ $n =~ ^[1-9][0-9]*$ ]] || fail "incasts: '$n' is not a number of senders"
		[ "$n" -gt "$max" ] && max=$n
	done
	P[senders]=$max
	cmpi_setup
}

# dcqp_run N SETTING: one N:1 incast with SETTING (run N-SETTING)
dcqp_run()
{
	local n=$1 i
	CMPI_HOSTS=()
	for i in $(seq 1 "$n"); do CMPI_HOSTS+=("s$i"); done
	cmpi_run "$n-$2"
}

# dcqp_summary: summary.tsv (cmp_incast's columns; algo: N-SETTING) and
# summary.txt (printed).  The host draws the plots
# (scripts/dcbanalysis/scenarios/dcqcn_params.py).
dcqp_summary()
{
	{ echo "$CMPI_HDR"; cat "$CMPI_OUT/summary.tsv.rows"; } >"$CMPI_OUT/summary.tsv"
	rm -f "$CMPI_OUT/summary.tsv.rows"
	{
		echo "dcqcn_params: N senders x ${P[iters]} x ${P[size]} B -> r, ${P[rate]} ports," \
			"PFC on RoCE's band $ROCE_BAND, DCQCN; runs named N-SETTING"
		echo "(queue: bottleneck port over the incast; q2: its second half; KB)"
		echo
		column -t -s "$(printf '\t')" "$CMPI_OUT/summary.tsv"
	} >"$CMPI_OUT/summary.txt"
	cat "$CMPI_OUT/summary.txt"
}

run()
{
	local n s
	dl_test_libs
	CMPI_OUT=$OUT
	dcqp_setup
	log "topology up: ${P[senders]} senders, $PORT toward r"
	for n in ${P[incasts]//,/ }; do
		for s in ${P[settings]//,/ }; do
			dcqp_run "$n" "$s"
		done
	done
	dcqp_summary
}
