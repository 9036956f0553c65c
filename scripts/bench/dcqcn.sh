#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/bench/dcqcn.sh - CPU cost of the DCQCN hooks without congestion:
# ib_write_bw with cc/algo dcqcn against algo none, in the same guest run.
#
#   scripts/vm-run --timeout 1200 -- bash scripts/bench/dcqcn.sh
#
# Two pairs of namespaces, each joined by a veth pair (no qdisc, nothing
# marks), one of our rxe devices in each namespace, ib_write_bw (64 KB
# writes, -D seconds) from the first to the second of each pair, so every
# packet passes the requester hooks (pacer check, per-packet ECT, on_sent
# byte counter) and the receiver's (CE check, NP).  No ceiling
# (max_rate_mbps 0): dcqcn takes the veth's 10 Gb/s as line rate, far
# above what the guest reaches, so its QP never paces: the difference is
# the hooks' cost.
#
# Paired rounds (default): both pairs send at once, one under dcqcn and one
# under none, so host noise (this guest is TCG: its speed follows the
# host's load) hits both alike; the pairs swap algorithms every round, and
# the result is the geometric mean of the rounds' dcqcn/none ratios (a
# pair's own advantage cancels over a swap).  A round's ratio is that of
# the packets the two senders' devices sent (hw counter sent_pkts, read
# every 0.25 s) while both flows ran (from the second sample in which both
# counters grew to the last but one), not perftest's own figures: those
# include the moments one flow ran alone, and perftest sometimes prints
# 0.00 MB/s for a flow that moved data.  DCBLAB_BENCH_PIN=1 runs pair k's
# processes on CPU k: worse (8 rounds: standard error x/ 1.13 against
# x/ 1.05 unpinned; CPU 0's pair was the faster one).
# DCBLAB_BENCH_MODE=sequential runs one flow at a time instead, alternating
# the order, and compares the medians (noisier: rounds of one variant spread by 30 % on a loaded host).
# A benchmark: exit status 1 only if the measurement failed.
#
# Environment:
#   DCBLAB_BENCH_ROUNDS  rounds (paired: a multiple of 4 is balanced)  (default 8)
#   DCBLAB_BENCH_SECS    ib_write_bw -D seconds         (default 5)
#   DCBLAB_BENCH_MODE    paired | sequential            (default paired)
#   DCBLAB_BENCH_PIN     1: pair k on CPU k (paired)    (default 0)
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
ROUNDS=${DCBLAB_BENCH_ROUNDS:-8}
SECS=${DCBLAB_BENCH_SECS:-5}
MODE=${DCBLAB_BENCH_MODE:-paired}
PIN=${DCBLAB_BENCH_PIN:-0}
B=${DCBLAB_BUILD:-$TOP/build}/rxe_cc
# pair k: namespace A[k] sends to Z[k]
A=(dqa$$ dqc$$)
Z=(dqb$$ dqd$$)
OUT=$(mktemp -d)
KEEP=${DCBLAB_BUILD:-$TOP/build}/bench/dcqcn

die() { echo "dcqcn.sh: error: $*" >&2; exit 1; }
note() { echo "# $*"; }

case $MODE in paired|sequential) ;; *) die "DCBLAB_BENCH_MODE: paired or sequential, not '$MODE'";; esac
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "DCBLAB_BENCH_ROUNDS: a positive integer"
[[ $SECS =~ ^[1-9][0-9]*$ ]] && [ "$SECS" -ge 3 ] || die "DCBLAB_BENCH_SECS: an integer >= 3"
case $PIN in 0|1) ;; *) die "DCBLAB_BENCH_PIN: 0 or 1, not '$PIN'";; esac
[ "$PIN" = 0 ] || [ "$MODE" = sequential ] || [ "$(nproc)" -ge 2 ] || PIN=0
[ -f "$B/rdma_rxe.ko" ] && [ -f "$B/rxe_cc_dcqcn.ko" ] || die "modules not built (make)"
for m in ib_core ib_uverbs udp_tunnel ip6_udp_tunnel; do modprobe "$m"; done
if [ -d /sys/module/rdma_rxe ] && ! grep -qw rxe_cc_register /proc/kallsyms; then
	modprobe -r rdma_rxe || die "cannot unload the distribution's rdma_rxe"
fi
[ -d /sys/module/rdma_rxe ] || insmod "$B/rdma_rxe.ko"
[ -d /sys/module/rxe_cc_dcqcn ] || insmod "$B/rxe_cc_dcqcn.ko"
cleanup()
{
	local n p
	for n in "${A[@]}" "${Z[@]}"; do
		for p in $(ip netns pids "$n" 2>/dev/null); do kill -9 "$p"; done
		ip netns del "$n" 2>/dev/null
	done
	rm -rf "$OUT"
}
trap cleanup EXIT
for k in 0 1; do
	a=${A[$k]} z=${Z[$k]}
	ip netns add "$a"
	ip netns add "$z"
	ip link add eth0 netns "$a" type veth peer name eth0 netns "$z"
	ip -n "$a" addr add "10.98.$k.1/24" dev eth0
	ip -n "$z" addr add "10.98.$k.2/24" dev eth0
	for n in "$a" "$z"; do
		ip -n "$n" link set lo up
		ip -n "$n" link set eth0 up
		ip netns exec "$n" rdma link add "rx_$n" type rxe netdev eth0
	done
done
# gid NS WANT: index of NS's RoCE v2 GID that contains WANT
gid()
{
	local n=$1 want=$2 i g
	for i in $(seq 100); do
		g=$(cd "/sys/class/infiniband/rx_$n/ports/1" &&
			grep -l "RoCE v2" gid_attrs/types/? 2>/dev/null |
			while read -r f; do
				grep -q "$want" "gids/${f##*/}" && echo "${f##*/}"
			done | head -n1) || true
		[ -n "$g" ] && { echo "$g"; return 0; }
		sleep 0.1
	done
	die "no GID on rx_$n"
}
declare -a GA GZ
for k in 0 1; do
	GA[k]=$(gid "${A[$k]}" "ffff:0a62:0${k}01")	# 10.98.k.1
	GZ[k]=$(gid "${Z[$k]}" "ffff:0a62:0${k}02")
done

# pin K CMD...: CMD on CPU K (paired mode with DCBLAB_BENCH_PIN=1)
pin()
{
	local k=$1; shift
	if [ "$PIN" = 1 ] && [ "$MODE" = paired ]; then
		taskset -c "$k" "$@"
	else
		"$@"
	fi
}

# server K ALGO: set ALGO on pair K's devices, start its ib_write_bw
# server and wait until it listens
server()
{
	local k=$1 a=${A[$1]} z=${Z[$1]} n i port=$((18990 + $1))
	for n in "$a" "$z"; do echo "$2" >"/sys/class/infiniband/rx_$n/cc/algo"; done
	pin "$k" ip netns exec "$z" ib_write_bw -F -d "rx_$z" -x "${GZ[$k]}" -D "$SECS" -s 65536 -p $port \
		>"$OUT/srv$k" 2>&1 &
	SRV[k]=$!
	for i in $(seq 200); do
		ip netns exec "$z" ss -ltnH "sport = :$port" | grep -q . && break
		sleep 0.1
	done
}

# client K: start pair K's ib_write_bw client in the background
client()
{
	local k=$1
	pin "$k" ip netns exec "${A[$k]}" ib_write_bw -F -d "rx_${A[$k]}" -x "${GA[$k]}" -D "$SECS" -s 65536 \
		-p $((18990 + k)) "10.98.$k.2" >"$OUT/cli$k" 2>&1 &
	CLI[k]=$!
}

# finish K: wait for pair K's flow (in this shell: the flows are its
# children), set BW to its MB/s
finish()
{
	wait "${CLI[$1]}" || { cat "$OUT/cli$1" >&2; die "ib_write_bw (pair $1)"; }
	wait "${SRV[$1]}" || true
	BW=$(awk '$1 == 65536 { print $4 }' "$OUT/cli$1" | tail -n1)
	[ -n "$BW" ] || { cat "$OUT/cli$1" >&2; die "no result line (pair $1)"; }
}

declare -a SRV CLI
declare -A R=()
declare -a ST SD SO
ctr() { cat "/sys/class/infiniband/rx_$1/ports/1/hw_counters/$2"; }
# sample_round NS_D NS_O PID_D PID_O: sent_pkts of both devices every
# 0.25 s while either client runs (ST, SD, SO)
sample_round()
{
	local x y
	ST=(); SD=(); SO=()
	while kill -0 "$3" 2>/dev/null || kill -0 "$4" 2>/dev/null; do
		read -r x <"/sys/class/infiniband/rx_$1/ports/1/hw_counters/sent_pkts"
		read -r y <"/sys/class/infiniband/rx_$2/ports/1/hw_counters/sent_pkts"
		ST+=("$EPOCHREALTIME"); SD+=("$x"); SO+=("$y")
		sleep 0.25
	done
}
# window: from the samples, pd and po = packets of each flow, WT = seconds,
# between the second sample after both counters first grew together and
# the last but one before they last did (0 if that is under 1 s)
window()
{
	local i a=-1 b=-1 n=${#ST[@]}
	for ((i = 1; i < n; i++)); do
		if [ "${SD[i]}" -gt "${SD[i - 1]}" ] && [ "${SO[i]}" -gt "${SO[i - 1]}" ]; then
			[ $a -ge 0 ] || a=$i
			b=$((i - 1))
		fi
	done
	a=$((a + 1)); b=$((b - 1))
	pd=0; po=0; WT=0
	[ $a -ge 1 ] && [ $b -gt $a ] || return 0
	WT=$(awk -v x="${ST[a]}" -v y="${ST[b]}" 'BEGIN { printf "%.3f", y - x }')
	awk -v t="$WT" 'BEGIN { exit !(t >= 1) }' || { WT=0; return 0; }
	pd=$((SD[b] - SD[a])); po=$((SO[b] - SO[a]))
}
c0=$(( $(ctr "${A[0]}" cc_pacer_delays) + $(ctr "${A[1]}" cc_pacer_delays) ))
RATIOS=
for r in $(seq "$ROUNDS"); do
	if [ "$MODE" = paired ]; then
		# pair (r % 2) runs dcqcn; which client starts first (it may
		# run alone for a moment) alternates every two rounds, so that
		# 4 rounds cover each pair x algorithm x first/second once
		d=$((r % 2)); o=$((1 - d))
		server $d dcqcn
		server $o none
		if [ $(((r - 1) / 2 % 2)) = 0 ]; then
			client $d; client $o; first=dcqcn
		else
			client $o; client $d; first=none
		fi
		sample_round "${A[$d]}" "${A[$o]}" "${CLI[$d]}" "${CLI[$o]}"
		finish $d; bd=$BW
		finish $o; bo=$BW
		window
		if [ "${pd:-0}" -le 0 ] || [ "${po:-0}" -le 0 ]; then
			# a flow that moved nothing says nothing about the hooks
			mkdir -p "$KEEP"
			for f in cli0 cli1 srv0 srv1; do cp "$OUT/$f" "$KEEP/round$r-$f.txt"; done
			note "round $r discarded: no 1 s in which both flows ran (outputs in $KEEP)"
			continue
		fi
		# MB/s of 64 KB payload in the window (sent_pkts counts
		# 1024-byte payload packets at the path MTU)
		bd=$(awk -v p="$pd" -v t="$WT" 'BEGIN { printf "%.2f", p * 1024 / t / 1e6 }')
		bo=$(awk -v p="$po" -v t="$WT" 'BEGIN { printf "%.2f", p * 1024 / t / 1e6 }')
		ratio=$(awk -v a="$pd" -v b="$po" 'BEGIN { printf "%.4f", a / b }')
		note "round $r: pair $d dcqcn $bd MB/s, pair $o none $bo MB/s in a $WT s window, ratio $ratio ($first started first)"
		R[dcqcn]+="$bd "; R[none]+="$bo "; RATIOS+="$ratio "
	else
		if [ $((r % 2)) = 1 ]; then order="none dcqcn"; else order="dcqcn none"; fi
		for v in $order; do
			server 0 "$v"
			client 0
			finish 0; bw=$BW
			note "round $r $v: $bw MB/s"
			R[$v]+="$bw "
		done
	fi
done
c1=$(( $(ctr "${A[0]}" cc_pacer_delays) + $(ctr "${A[1]}" cc_pacer_delays) ))
cnp=$(( $(ctr "${Z[0]}" np_cnp_sent) + $(ctr "${Z[1]}" np_cnp_sent) ))

med() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
[ -n "${R[none]:-}" ] && [ -n "${R[dcqcn]:-}" ] || die "no round gave a result"
n=$(med "${R[none]}"); d=$(med "${R[dcqcn]}")
if [ "$MODE" = paired ]; then
	ratio=$(tr ' ' '\n' <<<"$RATIOS" | grep . |
		awk '{ s += log($1); m++ } END { printf "%.3f", exp(s / m) }')
	# and the spread of the rounds' log ratios: the mean's standard error
	se=$(tr ' ' '\n' <<<"$RATIOS" | grep . | awk '{ x[NR] = log($1); s += x[NR] }
		END { m = s / NR; for (i = 1; i <= NR; i++) v += (x[i] - m) ^ 2
		      printf "%.3f", (NR > 1) ? sqrt(v / (NR - 1) / NR) : 0 }')
	what="geometric mean of the rounds' ratios ($RATIOS), standard error x/ $(awk -v e="$se" 'BEGIN { printf "%.3f", exp(e) }')"
else
	ratio=$(awk -v a="$d" -v b="$n" 'BEGIN { printf "%.3f", a / b }')
	what="ratio of the medians"
fi
printf '%-8s %10s %8s   %s\n' algo "MB/s" ratio "rounds ($MODE)"
printf '%-8s %10s %8s   %s\n' none "$n" 1.00 "${R[none]}"
printf '%-8s %10s %8s   %s\n' dcqcn "$d" "$ratio" "${R[dcqcn]}"
note "dcqcn/none $ratio: $what; goal >= 0.98"
note "pacer delays during the runs: $((c1 - c0)), CNPs: $cnp (both should be 0: no congestion)"
