#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/experiments/nic_probe.sh - what the guest's emulated NICs do to
# sch_dcb's PFC (issue 47; testing.rst, "Emulated NICs").  Not a test: it
# prints what happens.  Run in the guest:
#	scripts/vm-run --nic-pairs 1 --nic-model e1000e,virtio -- \
#		bash scripts/experiments/nic_probe.sh
#
# For the first pair of each model, its ends in two namespaces, a -> b:
#   driver    ethtool -i/-k/-a/-g of b, BQL of a's queue;
#   filter    five raw PFC frames (band 3) into b's sch_dcb as the driver
#             set its filter, then promiscuous, allmulticast, and with
#             01:80:c2:00:00:01 joined: b's pause_rx of band 3 each time;
#   gap       a floods UDP (band 3) through sch_dcb shaped to 100 Mbit/s
#             (RATE), b pauses it (one PAUSE of 0xffff quanta, then a
#             RESUME), RUNS times; from one trace of net_dev_xmit on a
#             and netif_receive_skb on b: the packets between them when
#             the PAUSE reached a's sch_dcb, and their peak over the run.
. "$(dirname "$0")/../../selftests/net/lib.sh"
# shellcheck source=../lib/nics.sh
. "$TOP/scripts/lib/nics.sh"

RATE=${RATE:-100mbit}
RUNS=${RUNS:-3}
T=/sys/kernel/tracing
[ -n "${DCBLAB_NICS:-}" ] || skip "no NICs (scripts/vm-run --nic-pairs 1 --nic-model e1000e,virtio)"
need_cmd ethtool jq
load_dcb
echo 8192 >"$T/buffer_size_kb"

# pause_rx NS DEV: band 3's pause_rx of DEV's sch_dcb
pause_rx() { "$TOP/tools/dcbmon" -s "x=$1:$2" | awk -v k="x:$2:pause_rx:3" '$1 == k { print $2 }'; }
frames() { # frames NS DEV N: N PFC frames pausing band 3
	local i
	for ((i = 0; i < $3; i++)); do
		ip netns exec "$1" /usr/bin/python3 "$TOP/selftests/net/pfc_frames.py" one "$2" "${4:-pause}" "${5:-0x10}"
	done
}
up() { [ "$(ip netns exec "$1" cat "/sys/class/net/$2/carrier" 2>/dev/null)" = 1 ]; }

seen=
for p in $DCBLAB_NICS; do
	IFS=: read -r m a b <<<"$p"
	[[ " $seen " != *" $m "* ]] || continue
	seen="$seen $m"
	netns_add pa pb
	if ! ip link set dev "$a" netns pa name tx0 || ! ip link set dev "$b" netns pb name rx0; then
		fail "cannot move $a and $b"
	fi
	ip -n pa link set tx0 up && ip -n pb link set rx0 up
	ip -n pa addr add 10.9.0.1/24 dev tx0 && ip -n pb addr add 10.9.0.2/24 dev rx0
	wait_for --timeout 30 up pa tx0 || fail "$m: no carrier on $a"
	wait_for --timeout 30 up pb rx0 || fail "$m: no carrier on $b"

	echo "== $m: driver"
	ip netns exec pb ethtool -i rx0 | head -n1
	ip netns exec pb ethtool -k rx0 | grep -E '^(tx-checksumming|scatter-gather|tcp-segmentation-offload|generic-segmentation-offload|generic-receive-offload):' | paste -sd' '
	ip netns exec pb ethtool -a rx0 2>&1 | paste -sd' '
	ip netns exec pb ethtool -g rx0 | awk '/^Current/ { c = 1 } c && /^(RX|TX):/ { printf "%s %s ", $1, $2 } END { print "" }'
	echo "BQL limit of tx0: $(ip netns exec pa cat /sys/class/net/tx0/queues/tx-0/byte_queue_limits/limit)"

	echo "== $m: filter (5 PFC frames each)"
	ip netns exec pb tc qdisc replace dev rx0 root handle 1: dcb rate "$RATE" dscp-map 0:7
	for mode in driver promisc allmulticast joined; do
		case $mode in
		promisc) ip -n pb link set rx0 promisc on ;;
		allmulticast) ip -n pb link set rx0 promisc off allmulticast on ;;
		joined) ip -n pb link set rx0 allmulticast off
			ip -n pb maddr add 01:80:c2:00:00:01 dev rx0 ;;
		esac
		p0=$(pause_rx pb rx0)
		frames pa tx0 5
		sleep 0.2
		echo "$m $mode: pause_rx +$(( $(pause_rx pb rx0) - p0 ))"
	done

	echo "== $m: gap (sch_dcb at $RATE, $RUNS runs)"
	ip -n pa maddr add 01:80:c2:00:00:01 dev tx0
	ip netns exec pa tc qdisc replace dev tx0 root handle 1: dcb rate "$RATE" dscp-map 0:7 limit 4mb
	ip netns exec pb tc qdisc add dev rx0 clsact
	ip netns exec pb tc filter add dev rx0 ingress pref 10 protocol ip flower ip_proto udp dst_port 9 action drop
	ip netns exec pa ping -c1 -W5 10.9.0.2 >/dev/null || fail "$m: no ping"
	for ((run = 1; run <= RUNS; run++)); do
		echo >"$T/trace"
		for e in net/net_dev_xmit net/netif_receive_skb sch_dcb/dcb_pfc_rx; do
			echo 1 >"$T/events/$e/enable"
		done
		ip netns exec pa "$TOP/tools/udpflow" send 10.9.0.2 9 --count 6000 --interval 0 \
			--len 1000 --tos 0x60 >/dev/null &
		fl=$!
		sleep 0.1
		frames pb rx0 1 pause 0xffff
		sleep 0.15
		frames pb rx0 1 resume 0
		wait "$fl"
		sleep 0.2
		echo 0 >"$T/events/enable"
		awk -v m="$m" -v run="$run" '
		/net_dev_xmit: dev=tx0 / && / len=10[0-9][0-9] / { x++; if (x - r > mx) mx = x - r }
		/netif_receive_skb: dev=rx0 / && / len=10[0-9][0-9]/ { r++ }
		/dcb_pfc_rx: dev=tx0 pause=0x08/ && at == "" { at = x - r }
		END { printf "%s run %d: %d sent, %d received; between them when the PAUSE came %s, at most %d\n",
		      m, run, x, r, at == "" ? "(no PAUSE seen)" : at, mx }' "$T/trace"
	done
	cleanup_netns
	nics_home || fail "$NICS_ERR"
done
