#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Your first lossless RoCE fabric (Documentation/first-fabric.rst):
# four senders s1..s4 and a receiver r, each in its own network namespace,
# around a routing switch namespace sw.  Every switch port is a sch_dcb
# switch port at $RATE with RED marking and PFC on RoCE's priorities
# (band 3: RoCE data, DSCP 26; band 6: CNPs, DSCP 48); TCP stays lossy in
# band 0.  Every host NIC is shaped to $RATE.  On every soft-RoCE device
# only the congestion-control algorithm is chosen; everything else is a
# default.  Then four ib_write_bw -D $SECS run into r at once.
#
#   scripts/examples/first-fabric.sh [none|dcqcn|pcn|ldcp]
#
# RATE (default 100mbit) and SECS (default 10) change the port rate and
# the length of the incast.  At the end it prints, from the switch's
# counters over the incast's steady state, each sender's rate and the
# rate of the port toward r, the PAUSE frames the switch sent and the
# guest's kernel busy share (the CPU guard's, Documentation/testing.rst)
# and, with tools/dcbmon built, the queue's mean; FF_REPORT=FILE also writes them there as
# key=value lines (scripts/bench/clock.py reads them).
#
# Run it as root where the modules load (or in a guest:
# scripts/vm-run -- scripts/examples/first-fabric.sh dcqcn), after `make`.
# It removes what it created when it ends.
set -euo pipefail
ALGO=${1:-dcqcn}
RATE=${RATE:-100mbit}
SECS=${SECS:-10}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
HOSTS="s1 s2 s3 s4 r"

# 1. The modules: sch_dcb, soft-RoCE with the congestion-control engine,
#    and the algorithm.  The tc plugin q_dcb.so is found via TC_LIB_DIR.
lsmod | grep -q '^sch_dcb ' || insmod "$TOP/sch_dcb/sch_dcb.ko"
for m in ib_core ib_uverbs rdma_ucm udp_tunnel ip6_udp_tunnel; do modprobe "$m"; done
lsmod | grep -q '^rdma_rxe ' || insmod "$TOP/build/rxe_cc/rdma_rxe.ko"
if [ "$ALGO" != none ] && ! lsmod | grep -q "^rxe_cc_$ALGO "; then
	insmod "$TOP/build/rxe_cc/rxe_cc_$ALGO.ko"
fi
export TC_LIB_DIR=$TOP/tc

cleanup()
{
	local h
	for h in $HOSTS sw; do
		# processes first: they hold the RDMA devices
		ip netns pids "ff-$h" 2>/dev/null | xargs -r kill -KILL
		ip netns del "ff-$h" 2>/dev/null || true
	done
}
trap cleanup EXIT

# 2. The namespaces and links: host i is 10.77.i.2/24 behind sw's 10.77.i.1.
ip netns add ff-sw
ip -n ff-sw link set lo up
ip netns exec ff-sw sysctl -qw net.ipv4.ip_forward=1
i=0
for h in $HOSTS; do
	i=$((i + 1))
	ip netns add "ff-$h"
	ip -n "ff-$h" link set lo up
	ip link add eth0 netns "ff-$h" type veth peer name "$h" netns ff-sw
	ip -n "ff-$h" addr add "10.77.$i.2/24" dev eth0
	ip -n ff-sw addr add "10.77.$i.1/24" dev "$h"
	ip -n "ff-$h" link set eth0 up
	ip -n ff-sw link set "$h" up
	ip -n "ff-$h" route add default via "10.77.$i.1"
done

# 3. The switch ports: one tc line per port.  RED marks ECT packets
#    between 5 and 20 KB of band queue; bands 3 (RoCE) and 6 (CNPs) are
#    lossless (PAUSE above 16 KB per ingress port, headroom sized
#    automatically); non-ECT packets in them are never dropped by the
#    curve (nonect pass, the default of a lossless band).  TCP (DSCP 0)
#    is lossy; the bands are served in strict priority, so DSCP 0 is
#    mapped to band 7, above RoCE, for perftest's few control packets
#    (in band 0 they would wait until every RDMA flow ended).  The host
#    NICs are shaped to the same rate (and obey the switch's PAUSEs).
for h in $HOSTS; do
	tc -n ff-sw qdisc add dev "$h" root handle 1: dcb rate "$RATE" dscp-map 0:7 \
		ecn red kmin 5kb kmax 20kb pmax 0.01 pfc prio-pfc 3,6 xoff 16kb
	tc -n "ff-$h" qdisc add dev eth0 root dcb rate "$RATE"
done

# 4. A soft-RoCE device per host, and the algorithm: nothing else is set.
for h in $HOSTS; do
	ip netns exec "ff-$h" rdma link add "ff_$h" type rxe netdev eth0
	echo "$ALGO" >"/sys/class/infiniband/ff_$h/cc/algo"
done

# gid HOST: the index of HOST's RoCE v2 GID of its IPv4 address
gid()
{
	local d=/sys/class/infiniband/ff_$1/ports/1 t i
	for t in "$d"/gid_attrs/types/*; do
		i=${t##*/}
		[ "$(cat "$t" 2>/dev/null)" = "RoCE v2" ] || continue
		case $(cat "$d/gids/$i") in
		0000:0000:0000:0000:0000:ffff:*) echo "$i"; return 0 ;;
		esac
	done
	return 1
}
for h in $HOSTS; do
	for _ in $(seq 50); do gid "$h" >/dev/null && break; sleep 0.1; done
done

# measure SECS: in the switch's namespace, from the moment its port
# toward r has sent its first megabyte, for SECS seconds: "seconds
# kernel_jiffies total_jiffies bytes_to_r bytes_from_s1 .. bytes_from_s4
# pause_frames"
# (each sample reads the ports' byte counters, the clock and /proc/stat
# with bash builtins, back to back, so that a busy guest does not
# stretch one reading against the other)
measure()
{
	ip netns exec ff-sw bash -c '
		sample() {
			local d=/sys/class/net b r1 r2 r3 r4
			read -r b <$d/r/statistics/tx_bytes
			read -r r1 <$d/s1/statistics/rx_bytes; read -r r2 <$d/s2/statistics/rx_bytes
			read -r r3 <$d/s3/statistics/rx_bytes; read -r r4 <$d/s4/statistics/rx_bytes
			t=$EPOCHREALTIME
			read -r _ u n s i w q sq st _ </proc/stat
			echo "$t $((s + q + sq + st)) $((u + n + s + i + w + q + sq + st)) $b $r1 $r2 $r3 $r4"
		}
		read -r b0 </sys/class/net/r/statistics/tx_bytes
		until read -r b </sys/class/net/r/statistics/tx_bytes && [ $((b - b0)) -ge 1000000 ]; do
			sleep 0.05
		done
		# the PAUSE frames the switch sent to the senders, read just
		# inside the window (tc runs between the samples, not in them)
		pauses() {
			local h n t=0
			for h in s1 s2 s3 s4; do
				n=$(tc -s -j qdisc show dev "$h" | jq "[.[] | select(.kind == \"dcb\") | .pause_tx] | add // 0")
				t=$((t + ${n:-0}))
			done
			echo "$t"
		}
		x=($(sample)); p0=$(pauses); sleep "$1"; p1=$(pauses); y=($(sample))
		echo "$(awk -v a="${x[0]}" -v z="${y[0]}" "BEGIN { print z - a }")" \
			$((y[1] - x[1])) $((y[2] - x[2])) $((y[3] - x[3])) $((y[4] - x[4])) \
			$((y[5] - x[5])) $((y[6] - x[6])) $((y[7] - x[7])) $((p1 - p0))
	' _ "$1"
}

# 5. The incast: four servers on r, then the four clients (-F: do not
#    refuse to run when the CPU frequency cannot be read, as in a guest).
pids=()
for i in 1 2 3 4; do
	ip netns exec ff-r ib_write_bw -F -d ff_r -x "$(gid r)" -p $((18515 + i)) \
		-D "$SECS" >"/var/tmp/ff-srv-$i.txt" 2>&1 &
	pids+=($!)
done
for i in 1 2 3 4; do
	until ip netns exec ff-r ss -ltnH "sport = :$((18515 + i))" | grep -q .; do
		sleep 0.1
	done
done
for i in 1 2 3 4; do
	ip netns exec "ff-s$i" ib_write_bw -F -d "ff_s$i" -x "$(gid "s$i")" \
		-p $((18515 + i)) -D "$SECS" 10.77.5.2 >"/var/tmp/ff-cli-$i.txt" 2>&1 &
	pids+=($!)
done
# The wire rate in the incast's steady state: half its length, from the
# first megabyte on.
# (with tools/dcbmon built: the queue of the port toward r, every 10 ms)
half=$(awk -v s="$SECS" 'BEGIN { print s / 2 }')
mon=
if [ -x "$TOP/tools/dcbmon" ]; then
	"$TOP/tools/dcbmon" -i 10 -o /var/tmp/ff-queue.csv ff-sw:r 2>/dev/null &
	mon=$!
fi
m=($(measure "$half"))
[ -z "$mon" ] || { kill "$mon"; wait "$mon" 2>/dev/null; }
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done

# 6. What happened, from the switch's counters: each sender's rate into
#    the switch and the rate of the port toward r in the incast's steady
#    state, that port's bands, the PAUSE frames sent to the senders.
#    (perftest's own BW columns are not shown: it times with the TSC and
#    its calibration fails when the guest's CPU is busy, so they often
#    read 0.00 in a guest.)
mbps() { awk -v b="$1" -v t="${m[0]}" 'BEGIN { printf "%.1f", 8 * b / t / 1e6 }'; }
for i in 1 2 3 4; do
	echo "s$i: $(mbps "${m[$((3 + i))]}") Mb/s into the switch"
done
echo "port toward r: $(mbps "${m[3]}") Mb/s of $RATE over ${m[0]} s"
# band 3 (RoCE) is class 1:4, band 6 (CNPs) 1:7, band 7 (TCP) 1:8
tc -n ff-sw -s class show dev r | grep -A3 -E '^class dcb 1:(4|7|8) '
pause=0
for h in s1 s2 s3 s4; do
	p=$(tc -n ff-sw -s -j qdisc show dev "$h" | jq '[.[] | select(.kind == "dcb") | .pause_tx] | add // 0')
	pause=$((pause + ${p:-0}))
done
reported=$(for i in 1 2 3 4; do grep -A1 '#bytes' "/var/tmp/ff-cli-$i.txt" | tail -n1; done |
	grep -cE '^ *[0-9]+ +[0-9]+ ')
{
	echo "rate=$RATE algo=$ALGO clock=${DCBLAB_CLOCK:-real native}"
	echo "wire_mbps=$(mbps "${m[3]}")"
	echo "sender_mbps=$(mbps "${m[4]}"),$(mbps "${m[5]}"),$(mbps "${m[6]}"),$(mbps "${m[7]}")"
	echo "measured_secs=${m[0]}"
	echo "kernel_busy_pct=$(( (100 * m[1] + m[2] / 2) / (m[2] > 0 ? m[2] : 1) ))"
	echo "pause_frames=$pause"
	echo "pause_frames_window=${m[8]}"
	# the queue's mean over the samples of the steady state's second
	# half (the first includes the ramp to the first megabyte)
	[ -z "$mon" ] || awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$4 == "all" { q[n++] = $(c["backlog_bytes"]) }
		END { for (i = int(n / 2); i < n; i++) { s += q[i]; k++ }
		      if (k) printf "queue_mean_kb=%.2f\n", s / k / 1024 }' /var/tmp/ff-queue.csv
	echo "clients_reported=$reported"
} | tee "${FF_REPORT:-/dev/null}"
exit $rc
