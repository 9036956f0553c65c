# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# scripts/lib/rxe.sh - soft-RoCE helpers: our rdma_rxe (rxe_cc) and its
# congestion-control modules, rxe devices on a dcb.sh topology, perftest
# flows and samplers.  Used by the soft-RoCE guest tests
# (selftests/net).  Source after common.sh; it sources dcb.sh.
#
#   load_rxe              our rdma_rxe.ko instead of the distribution's
#   rxe_topo N            dcb_topo N + an rxe device on every host
#   rxe_dev HOST          the rxe device of HOST's namespace
#   rxe_gid HOST 4|6      the RoCE v2 GID index of HOST's address
#   rxe_cnt HOST NAME     a hw counter of HOST's device
#   rxe_cc HOST KNOB [V]  read (or write) cc/KNOB of HOST's device

# shellcheck source=dcb.sh
. "$TOP/scripts/lib/dcb.sh"

RXE_KO=${DCBLAB_BUILD:-$TOP/build}/rxe_cc/rdma_rxe.ko

# Where rxe's packets go in sch_dcb's default DSCP map (band = DSCP >> 3):
# RoCE (cc/roce_dscp, default 26) in band 3, CNPs (cc/cnp_dscp, 48) in
# band 6; TCP and everything else DSCP 0, band 0.  DCBLAB_ROCE_DSCP sets
# another cc/roce_dscp on every device of rxe_topo, for A/B runs (0: the
# old layout, RoCE and TCP in band 0; test_60 then fails its default).
ROCE_DSCP=${DCBLAB_ROCE_DSCP:-26}
ROCE_BAND=$((ROCE_DSCP >> 3))
CNP_DSCP=48
CNP_BAND=$((CNP_DSCP >> 3))
# sch_dcb serves its bands in strict priority (it has no ETS): a port
# that RoCE keeps backlogged in band 3 starves band 0, and with it
# perftest's TCP control connection (DSCP 0), whose flows then start only
# after the others ended.  Ports that carry both put DSCP 0 above RoCE
# with CTRL_MAP (a few packets per flow), as the PFC tests do for their
# control traffic.
CTRL_MAP="dscp-map 0:7"
# (RoCE in band 0 would move with it)
[ "$ROCE_BAND" != 0 ] || CTRL_MAP=

# rxe_is_ours: the loaded rdma_rxe is ours (it has the cc/ engine).
rxe_is_ours() { grep -qw rxe_cc_register /proc/kallsyms 2>/dev/null; }

load_rxe()
{
	local m
	if [ -d /sys/module/rdma_rxe ] && ! rxe_is_ours; then
		modprobe -r rdma_rxe || fail "cannot unload the distribution's rdma_rxe"
	fi
	# (modprobe -r may have taken the tunnel modules with it)
	for m in ib_core ib_uverbs rdma_ucm udp_tunnel ip6_udp_tunnel; do
		[ -d "/sys/module/$m" ] || modprobe -q "$m" 2>/dev/null ||
			skip "kernel module $m not available"
	done
	[ -d /sys/module/rdma_rxe ] && return 0
	[ -f "$RXE_KO" ] || fail "$RXE_KO not built (run make)"
	if ! insmod "$RXE_KO"; then
		dmesg | tail -n 20 >&2
		fail "insmod $RXE_KO failed"
	fi
}

# unload_rxe: rmmod our module and the algorithm modules that hold it
# (every process using it must be gone).
unload_rxe()
{
	local m
	[ -d /sys/module/rdma_rxe ] || return 0
	# the algorithm modules an earlier test loaded hold rdma_rxe
	for m in /sys/module/rdma_rxe/holders/*; do
		[ -e "$m" ] || continue
		rmmod "${m##*/}" || return 1
	done
	rmmod rdma_rxe
}

declare -gA RXE_DEV=()

rxe_dev() { echo "${RXE_DEV[$1]}"; }

# rxe_topo N: hosts s1..sN and r around the routing switch sw (sch_dcb on
# the port toward r, unshaped unless the test reconfigures it), an rxe
# device "<prefix>_<host>" on eth0 of every host, created inside the
# host's namespace.
rxe_topo()
{
	local h
	load_dcb
	dcb_topo "${1:-1}"
	dcb_set rate 10gbit
	for h in $(seq 1 "${1:-1}" | sed 's/^/s/') r; do
		RXE_DEV[$h]=${TOPO_PREFIX}_$h
		topo_exec "$h" rdma link add "${RXE_DEV[$h]}" type rxe netdev eth0 ||
			fail "rdma link add in $h"
		[ "$ROCE_DSCP" = 26 ] || rxe_cc "$h" roce_dscp "$ROCE_DSCP"
	done
	# processes die before the namespaces go (they hold the devices)
	at_exit 'rxe_kill_all'
	for h in "${!RXE_DEV[@]}"; do
		wait_for --timeout 20 rxe_gid "$h" 4 ||
			fail "no RoCE v2 IPv4 GID on ${RXE_DEV[$h]}"
	done
}

# rxe_rping_topo: rxe_topo 1 in issue 14's rping setting, the hosts' NICs
# a sch_dcb at 40 Mbit/s and the switch port toward r at 20 Mbit/s
# (test_82, scripts/experiments/cm_rtu_loss.sh).
rxe_rping_topo()
{
	local h
	rxe_topo 1
	for h in s1 r; do
		topo_qdisc "$h" eth0 dcb rate 40mbit || fail "tc on $h"
	done
	dcb_set rate 20mbit
}

rxe_kill_all()
{
	local n pids
	for n in "${TOPO_NAMES[@]}"; do
		pids=$(ip netns pids "$(topo_ns "$n")" 2>/dev/null)
		[ -z "$pids" ] || kill -KILL $pids 2>/dev/null
	done
	return 0
}

# rxe_gid HOST 4|6: index of the RoCE v2 GID of HOST's address on eth0.
rxe_gid()
{
	local h=$1 fam=$2 dev=${RXE_DEV[$1]} want addr
	if [ "$fam" = 6 ]; then
		addr=$(topo_ip6 "$h") || return 1
		want=$(python3 -c 'import ipaddress,sys; print(ipaddress.ip_address(sys.argv[1]).exploded)' "$addr")
	else
		addr=$(topo_ip4 "$h") || return 1
		# shellcheck disable=SC2046
		want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' $(tr . ' ' <<<"$addr"))
	fi
	topo_exec "$h" sh -c "cd /sys/class/infiniband/$dev/ports/1 && grep -H . gids/? gids/?? gid_attrs/types/? gid_attrs/types/?? 2>/dev/null" |
		awk -v want="$want" '
		{ p = index($0, ":"); k = substr($0, 1, p - 1); v = substr($0, p + 1) }
		k ~ /^gids\// { g[substr(k, 6)] = v }
		k ~ /^gid_attrs\/types\// { t[substr(k, 17)] = v }
		END { for (i in g) if (g[i] == want && t[i] == "RoCE v2") { print i; exit 0 }
		      exit 1 }'
}

# rxe_cnt HOST NAME: hw counter NAME of HOST's device.
rxe_cnt()
{
	# the initial namespace's sysfs: other namespaces see ib_core's
	# "compat" copies of the devices, without hw_counters
	cat "/sys/class/infiniband/${RXE_DEV[$1]}/ports/1/hw_counters/$2"
}

# A u32 filter on HOST's eth0 egress (clsact) that drops the CM RTU MADs
# HOST sends: RoCEv2 (UDP 4791) whose MAD (IP 20 + UDP 8 + BTH 12 + DETH
# 8 bytes in) has management class 0x07 (byte 49 of the IP packet) and
# attribute RTU, 0x0014 (bytes 64-65).  test_87, cm_rtu_loss.sh.
#   rtu_drop_on HOST, rtu_drop_off HOST, rtu_drops HOST (packets dropped)
rtu_drop_on()
{
	local ns
	ns=$(topo_ns "$1")
	{ tc -n "$ns" qdisc show dev eth0 | grep -q clsact ||
		tc -n "$ns" qdisc add dev eth0 clsact; } &&
	tc -n "$ns" filter add dev eth0 egress protocol ip prio 1 u32 \
		match ip protocol 17 0xff match ip dport 4791 0xffff \
		match u8 0x07 0xff at 49 match u16 0x0014 0xffff at 64 action drop
}
rtu_drop_off() { tc -n "$(topo_ns "$1")" filter del dev eth0 egress prio 1; }
rtu_drops()
{
	tc -n "$(topo_ns "$1")" -s filter show dev eth0 egress |
		sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' | head -n1
}

# rxe_cc_none HOST...: algo none on the HOSTs' devices, errors ignored:
# for a test's cleanup (defer, at_exit), where nothing is left to assert.
rxe_cc_none()
{
	local h
	for h in "$@"; do
		echo none 2>/dev/null >"/sys/class/infiniband/${RXE_DEV[$h]}/cc/algo"
	done
	return 0
}

# rxe_cc HOST KNOB [VALUE]: cc/KNOB of HOST's device.
rxe_cc()
{
	local f=/sys/class/infiniband/${RXE_DEV[$1]}/cc/$2
	if [ $# -ge 3 ]; then
		echo "$3" >"$f" || fail "cannot set cc/$2 of ${RXE_DEV[$1]} to $3"
	else
		cat "$f"
	fi
}

# rxe_tx_bytes HOST: bytes sent on HOST's eth0.
rxe_tx_bytes() { topo_exec "$1" cat /sys/class/net/eth0/statistics/tx_bytes; }

# rxe_listen PORT HOST: a TCP listener on PORT in HOST (perftest's control).
rxe_listen() { topo_exec "$2" ss -ltnH "sport = :$1" | grep -q .; }

# rxe_cm_listen PORT HOST: an rdma_cm listener on PORT in HOST.
rxe_cm_listen() { topo_exec "$2" rdma resource show cm_id | grep LISTEN | grep -q ":$1 "; }

# ------------------------------------------------------------------ DCQCN
# Helpers of the DCQCN guest tests (test_71, test_74).
#
#   load_algo NAME             rdma_rxe.ko and rxe_cc_NAME.ko (load_dcqcn: dcqcn)
#   rxe_algo HOST ALGO MBPS    cc/algo, cc/max_rate_mbps (the line rate);
#                              for dcqcn also the overrides in DCQCN_KNOBS
#                              and DCQCN_CNP_US (none by default)
#   rxe_qpn_skip HOST:K...     use up K QP numbers of HOST's device, so the
#                              QPNs of different hosts differ in traces
#   rxe_bw_start HOST PORT SECS  ib_write_bw server on r (or $RXE_BW_DST)
#                              + client on HOST (rxe_bw_clients starts them)
#   rxe_bw_wait                wait for them all; fail on an error
#   rxe_sampler_start IV HOST...  sent_pkts of the HOSTs every IV s
#   rxe_jain FILE              flow shares over the second half
#   dcqcn_trace_on / dcqcn_trace_csv FILE

# load_algo NAME: rdma_rxe and the algorithm module rxe_cc_NAME.
load_algo()
{
	local ko=${DCBLAB_BUILD:-$TOP/build}/rxe_cc/rxe_cc_$1.ko
	load_rxe
	[ -d "/sys/module/rxe_cc_$1" ] && return 0
	[ -f "$ko" ] || fail "$ko not built (run make)"
	insmod "$ko" || fail "insmod $ko failed"
}

load_dcqcn() { load_algo dcqcn; }

# Knobs a caller overrides on top of the algorithms' defaults: empty, so
# that every test and scenario runs DCQCN as a user gets it, its knobs
# derived from the line rate and the base RTT (rxe_cc.rst, "The rule").
# A test that studies a knob sets DCQCN_KNOBS[knob] (and DCQCN_CNP_US,
# the NP's min_time_between_cnps) and says why.
declare -gA DCQCN_KNOBS=()
DCQCN_CNP_US=${DCQCN_CNP_US:-}

rxe_algo()
{
	local h=$1 algo=$2 mbps=$3 k
	rxe_cc "$h" algo "$algo"
	[ "$(rxe_cc "$h" algo)" = "$algo" ] || fail "cc/algo of $h does not read back $algo"
	rxe_cc "$h" max_rate_mbps "$mbps"
	[ "$algo" = dcqcn ] || return 0
	for k in "${!DCQCN_KNOBS[@]}"; do
		rxe_cc "$h" "dcqcn/$k" "${DCQCN_KNOBS[$k]}"
	done
	[ -z "$DCQCN_CNP_US" ] || rxe_cc "$h" min_time_between_cnps "$DCQCN_CNP_US"
}

# rxe_nqp HOST: QPs of HOST's device.
rxe_nqp() { topo_exec "$1" rdma resource show qp link "${RXE_DEV[$1]}/1" 2>/dev/null | grep -c 'type RC'; }

# no_qps: neither s1's nor r's device has an RC QP.
no_qps() { [ "$(rxe_nqp s1)" = 0 ] && [ "$(rxe_nqp r)" = 0 ]; }

rxe_qpn_skip()
{
	local hk h k i pids=() want=0
	for hk in "$@"; do
		h=${hk%:*}; k=${hk#*:}
		for i in $(seq 1 "$k"); do
			# (ip netns exec execs: $! is ibv_rc_pingpong itself)
			ip netns exec "$(topo_ns "$h")" ibv_rc_pingpong -d "${RXE_DEV[$h]}" \
				-g "$(rxe_gid4 "$h")" -p $((19500 + i)) >/dev/null 2>&1 &
			pids+=($!)
		done
	done
	for hk in "$@"; do
		wait_for --timeout 60 rxe_nqp_ge "${hk%:*}" "${hk#*:}" ||
			fail "ibv_rc_pingpong did not create ${hk#*:} QPs on ${hk%:*}"
	done
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	for hk in "$@"; do
		wait_for --timeout 20 rxe_nqp_ge0 "${hk%:*}" || fail "QPs of ${hk%:*} not destroyed"
	done
}
rxe_nqp_ge() { [ "$(rxe_nqp "$1")" -ge "$2" ]; }
rxe_nqp_ge0() { [ "$(rxe_nqp "$1")" = 0 ]; }

# rxe_bw_start HOST PORT SECS [ARGS...]: ib_write_bw -D SECS from HOST to r
# (server first, started when it listens); client output in
# $TMPD/bw-HOST-PORT.cli, pids in RXE_BW_PIDS.  RXE_BW_DST names the
# server's host instead of r, RXE_BW_TOOL another perftest program
# (ib_read_bw: the client on HOST reads from the server, whose host sends
# the data).
declare -ga RXE_BW_PIDS=()
RXE_BW_TOOL=${RXE_BW_TOOL:-ib_write_bw}
# perftest's transport timeout exponent (-u): 4.096 us * 2^U
RXE_BW_U=${RXE_BW_U:-20}
# and its message size (-s), bytes
RXE_BW_SIZE=${RXE_BW_SIZE:-65536}
declare -gA RXE_GID4=()
# rxe_gid4 HOST: rxe_gid HOST 4, remembered
rxe_gid4()
{
	[ -n "${RXE_GID4[$1]:-}" ] || RXE_GID4[$1]=$(rxe_gid "$1" 4) || fail "no GID of $1"
	echo "${RXE_GID4[$1]}"
}
rxe_bw_start()
{
	local h=$1 port=$2 secs=$3 o=$TMPD/bw-$1-$2 d=${RXE_BW_DST:-r}
	shift 3
	[ -n "${RXE_GID4[$d]:-}" ] || rxe_gid4 "$d" >/dev/null
	[ -n "${RXE_GID4[$h]:-}" ] || rxe_gid4 "$h" >/dev/null
	topo_exec "$d" timeout $((secs + $(safety_margin 300))) "$RXE_BW_TOOL" -F -d "${RXE_DEV[$d]}" -x "${RXE_GID4[$d]}" \
		-p "$port" -D "$secs" -s "$RXE_BW_SIZE" -u "$RXE_BW_U" "$@" >"$o.srv" 2>&1 &
	RXE_BW_PIDS+=($!)
	RXE_BW_SRV+=("$h:$port:$d")
}
declare -ga RXE_BW_SRV=()
# rxe_bw_clients SECS [ARGS...]: start the clients of every started server
# once all of them listen; the CPU guard's measurement starts with them
# (cpu_mark; rxe_bw_wait checks it).
rxe_bw_clients()
{
	local secs=$1 hp h port d
	shift
	for hp in "${RXE_BW_SRV[@]}"; do
		port=${hp#*:}; port=${port%:*}
		wait_for --timeout 60 rxe_listen "$port" "${hp##*:}" || fail "$RXE_BW_TOOL server on port $port did not start"
	done
	for hp in "${RXE_BW_SRV[@]}"; do
		h=${hp%%:*}; port=${hp#*:}; port=${port%:*}; d=${hp##*:}
		topo_exec "$h" timeout $((secs + $(safety_margin 300))) "$RXE_BW_TOOL" -F -d "${RXE_DEV[$h]}" \
			-x "${RXE_GID4[$h]}" -p "$port" -D "$secs" -s "$RXE_BW_SIZE" -u "$RXE_BW_U" "$@" \
			"$(topo_ip4 "$d")" >"$TMPD/bw-$h-$port.cli" 2>&1 &
		RXE_BW_PIDS+=($!)
	done
	cpu_mark
}

# rxe_bw_printed FILE: the perftest client output FILE has its result
# line (it follows the "#bytes" header).
rxe_bw_printed()
{
	grep -A1 '#bytes' "$1" | tail -n1 | grep -qE '^ *[0-9]+ +[0-9]+ '
}

# rxe_bw_wait: wait for every ib_write_bw; fail (with its output) if one
# failed, or if the guest's CPU was saturated while they ran (cpu_guard,
# common.sh).  Resets the lists.
rxe_bw_wait()
{
	local p rc=0 bad=()
	for p in "${RXE_BW_PIDS[@]}"; do
		wait "$p" || { rc=$?; bad+=("$p:$rc"); }
	done
	RXE_BW_PIDS=()
	if [ ${#bad[@]} -gt 0 ]; then
		for f in "$TMPD"/bw-*.cli "$TMPD"/bw-*.srv; do
			grep -H -iE 'error|fail|WC|unable|couldn' "$f" | head -n 5
		done
		RXE_BW_SRV=()
		fail "$RXE_BW_TOOL failed (pid:status ${bad[*]})"
	fi
	RXE_BW_SRV=()
	cpu_guard "$RXE_BW_TOOL traffic"
}

# rxe_bw_qpn HOST PORT: the client's local QPN (decimal).
rxe_bw_qpn()
{
	local q
	q=$(sed -n 's/.*local address:.*QPN \(0x[0-9a-fA-F]*\).*/\1/p' "$TMPD/bw-$1-$2.cli" | head -n1)
	[ -n "$q" ] && echo $((q))
}

# rxe_sampler_start IV FILE HOST...: every IV seconds a line "t pkts..."
# (EPOCHREALTIME, sent_pkts of each HOST's device; read with bash builtins,
# no process per sample) into FILE until rxe_sampler_stop.
rxe_sampler_start()
{
	local iv=$1 out=$2 h files=()
	shift 2
	for h in "$@"; do
		files+=("/sys/class/infiniband/${RXE_DEV[$h]}/ports/1/hw_counters/sent_pkts")
	done
	(
		exec >"$out" 3<> <(:)
		while :; do
			line=$EPOCHREALTIME
			for f in "${files[@]}"; do
				# (a device gone at cleanup: NaN, quietly)
				{ read -r v <"$f"; } 2>/dev/null || v=NaN
				line+=" $v"
			done
			echo "$line"
			read -r -t "$iv" -u 3
		done
	) &
	RXE_SAMPLER=$!
	# a test that fails between start and stop must not leave it running
	[ -n "${RXE_SAMPLER_AT_EXIT:-}" ] || { at_exit rxe_sampler_stop; RXE_SAMPLER_AT_EXIT=1; }
}
rxe_sampler_stop()
{
	[ -n "${RXE_SAMPLER:-}" ] || return 0
	kill "$RXE_SAMPLER" 2>/dev/null
	wait "$RXE_SAMPLER" 2>/dev/null
	RXE_SAMPLER=
}

# rxe_shares FILE: per-flow payload rates over the second half of the
# window in which every flow was running (from the sample at which the
# last flow started to the one at which the first flow sent its last
# packet; stalls inside count), from a rxe_sampler_start file: prints
# "t0 t1 jain rate1 rate2 ..." (t from the first sample, rates in Mb/s of
# 1024-byte packets).
rxe_shares()
{
	lab_metrics shares "$1"
}

# dcqcn_trace_on: record the rxe_cc_dcqcn tracepoint (cleared, 4 MB per
# CPU), muted at exit (tr_mute: switching it off patches kernel text).
dcqcn_trace_on()
{
	tr_mount || fail "no tracefs"
	DCQCN_TR=$TR
	echo 0 >$TR/tracing_on
	echo 4096 >$TR/buffer_size_kb
	echo >$TR/trace
	tr_on rxe_cc_dcqcn || fail "no rxe_cc_dcqcn tracepoint"
	echo 1 >$TR/tracing_on
	at_exit 'tr_mute rxe_cc_dcqcn'
}
dcqcn_trace_off() { tr_mute rxe_cc_dcqcn; }

# dcqcn_trace_csv FILE: the trace as CSV "t_s,qpn,rc_mbps,rt_mbps,alpha,ev,dev"
# (t from the first event; alpha on a 0..1 scale).  Events of one QP come
# from two CPUs (the CNP's softirq, the timers), and the trace orders
# events of equal time stamps by CPU, not by when they happened: in one
# run of test_74 an additive increase and the CNP cut taken after it
# (R_T' = the increased R_C) carried the same microsecond and the cut
# came first.  At equal time stamps a QP's CNP events go last: a cut
# restarts the increase timers, so an increase at the same microsecond
# can only have come before it.
dcqcn_trace_csv()
{
	awk 'match($0, /[0-9]+\.[0-9]+: rxe_cc_dcqcn:/) {
		ts = substr($0, RSTART, RLENGTH); sub(/:.*/, "", ts)
		if (t0 == "") t0 = ts
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "%.6f,%d,%.3f,%.3f,%.5f,%s,%s,%d\n", ts - t0, v["qpn"], v["rc_kbps"] / 1000,
			v["rt_kbps"] / 1000, v["alpha"] / 1048576, v["ev"], v["dev"],
			v["ev"] ~ /cnp/ }' "$DCQCN_TR/trace" |
		sort -s -t, -k1,1n -k8,8n | cut -d, -f1-7 >"$1"
}

# dcqcn_trace_qps CSV QPS HOST:QPN...: write the list of the QPs to draw
# (QPS, "host qpn dev" per line) for `python3 -m dcbanalysis timeline CSV
# QPS PNG`, which plots R_C, R_T and alpha of each on the host; fails when
# one of them has no event in the trace CSV.
dcqcn_trace_qps()
{
	local csv=$1 qps=$2 hq d
	shift 2
	: >"$qps"
	for hq in "$@"; do
		d=${RXE_DEV[${hq%:*}]:-}
		awk -F, -v q="${hq#*:}" -v d="$d" '$2 == q && (d == "" || $7 == d) { n++ }
			END { exit !n }' "$csv" ||
			fail "no rxe_cc_dcqcn event of ${hq%:*}'s QP ${hq#*:}"
		echo "${hq%:*} ${hq#*:}${d:+ $d}" >>"$qps"
	done
}
