#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# nic-pairs: 2
# nic-model: e1000e,virtio
#
# sch_dcb on emulated NICs with their real Linux drivers (e1000e and
# virtio_net, qemu's e1000e and virtio-net-pci wired back to back:
# scripts/vm-run --nic-pairs; Documentation/testing.rst, "Emulated NICs")
# in place of veth.  Steps:
#   frames    per driver, one NIC pair in two namespaces, sch_dcb on the
#             receiving end: five 802.1Qbb PAUSE frames (band 3) from the
#             other end cross the driver and reach sch_dcb's handler
#             (pause_rx of band 3 grows by 5): sch_dcb joins their group,
#             01:80:c2:00:00:01, which virtio-net filters otherwise;
#   lossless  the pfc_incast experiment of test_40 (4 senders, link
#             e1000e,virtio,veth taken in turn: rx on e1000e, h1 virtio,
#             h2 veth, h3 e1000e, h4 virtio): every datagram received, no
#             drop anywhere (sch_dcb's counters, softnet, the devices'
#             errors, drops and missed frames);
#   pause     in it the switch sent PAUSE frames and the senders on each
#             driver (h1 virtio, h3 e1000e) received them and were paused;
#   wire      the frames h1 captured are 802.1Qbb PFC band 3, as many as
#             its switch port sent;
#   pfc_off   PFC off, same buffer: drops, datagrams missing.
# A driver the guest kernel lacks (DCBLAB_NICS_LACK: the debug kernel of
# make check-debug has no e1000e) is left out and said so: its frames step
# is skipped and veth takes its place in the link list.
# shellcheck disable=SC2034,SC2317 # tests_run reads ALL_TESTS, calls the steps
ALL_TESTS="frames lossless pause wire pfc_off"
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/nics.sh
. "$TOP/scripts/lib/nics.sh"

need_mininet tcpdump tshark jq
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 missing"
# LINKS: the link of the receiver and h1..h4 in turn (index modulo 3)
MODELS=() LINKS=()
for m in e1000e virtio; do
	case " ${DCBLAB_NICS_LACK:-} " in
	*" $m "*)
		log "the guest kernel ($(uname -r)) has no $m driver: $m left out"
		LINKS+=(veth)
		continue ;;
	esac
	[ "$(nics_of $m | wc -l)" -ge 2 ] ||
		skip "needs 2 $m NIC pairs (scripts/vm-run --nic-pairs 2 --nic-model e1000e,virtio)"
	MODELS+=("$m") LINKS+=("$m")
done
LINKS+=(veth)
[ ${#MODELS[@]} -gt 0 ] || skip "the guest kernel has neither e1000e nor virtio_net"
load_dcb

N=4
PKTS=${NIC54_PKTS:-1500}	# per sender: 4 x 1500 x 1042 B at 100 Mb/s = 0.5 s
# shellcheck disable=SC2054 # link= takes a comma list
KNOBS=(senders="$N" datagrams="$PKTS" rate="$(scaled_rate 100mbit)" interval_ms=100
       delay="$(scaled_time 5ms)" quanta=0x1234 link="$(IFS=,; echo "${LINKS[*]}")")
exp_out
ON=$OUT/pfc-on
OFF=$OUT/pfc-off

r() { exp_row "$@"; }
# shellcheck source=pfc_incast_steps.sh
. "$(dirname "$0")/pfc_incast_steps.sh"

# pause_rx NS: band 3's pause_rx of eth0's sch_dcb in NS
pause_rx() {
	"$TOP/tools/dcbmon" -s "x=$1:eth0" | awk '$1 == "x:eth0:pause_rx:3" { print $2 }'
}

# frames_on MODEL: five PFC frames across a pair of MODEL
frames_on()
{
	local m=$1 a b ns=n54$$ p0 p1 p2
	read -r a b <<<"$(nics_of "$m" | head -n1)"
	defer_scope_push
	netns_add "$ns-a" "$ns-b"
	defer "ip netns del $ns-a 2>/dev/null; ip netns del $ns-b 2>/dev/null; nics_home"
	ip link set dev "$a" netns "$ns-a" && ip link set dev "$b" netns "$ns-b" &&
		ip -n "$ns-a" link set dev "$a" name eth0 up &&
		ip -n "$ns-b" link set dev "$b" name eth0 up
	check_err $? "$m: cannot move $a and $b into namespaces"
	ip netns exec "$ns-b" tc qdisc replace dev eth0 root handle 1: dcb rate 100mbit
	check_err $? "$m: sch_dcb on the receiving end"
	carrier() { [ "$(ip netns exec "$1" cat /sys/class/net/eth0/carrier 2>/dev/null)" = 1 ]; }
	wait_for --timeout 30 carrier "$ns-a" && wait_for --timeout 30 carrier "$ns-b"
	check_err $? "$m: no carrier"
	if [ "$RET" = 0 ]; then
		p0=$(pause_rx "$ns-b")
		for _ in 1 2 3 4 5; do
			ip netns exec "$ns-a" /usr/bin/python3 "$TOP/selftests/net/pfc_frames.py" one eth0 pause 0x10
		done
		got5() { [ $(($(pause_rx "$ns-b") - p0)) -ge 5 ]; }
		wait_for --timeout 10 got5
		p1=$(pause_rx "$ns-b")
		log "$m: of 5 PFC frames sch_dcb received $((p1 - p0))"
		check_assert assert_ge "$((p1 - p0))" 5 "$m: PFC frames received"
		check_assert assert_le "$((p1 - p0))" 5 "$m: PFC frames received"
	fi
	defer_scope_pop
}

frames()
{
	local m
	for m in "${MODELS[@]}"; do frames_on "$m"; done
}

pause()
{
	local h i nic=()
	# the first sender on each NIC model (h1..h3 take each link once)
	for i in 1 2 3; do
		[ "${LINKS[i % 3]}" = veth ] || nic+=("h$i:${LINKS[i % 3]}")
	done
	if [ ! -s "$ON/rows.csv" ]; then
		check_err 1 "no incast with PFC on to look at"
		return
	fi
	check_assert assert_ge "$(r "$ON" pause_tx.all)" 1 "PAUSE frames sent by the switch"
	for i in 1 2 3 4; do
		h=h$i:${LINKS[i % 3]}
		log "${h#*:} sender ${h%:*}: switch port sent $(r "$ON" "pause_tx.${h%:*}") PAUSE," \
			"NIC received $(r "$ON" "pause_rx.${h%:*}"), paused share $(r "$ON" "paused_share.${h%:*}")"
	done
	for h in "${nic[@]}"; do
		check_assert assert_ge "$(r "$ON" "pause_rx.${h%:*}")" 1 "PAUSE frames received over ${h#*:} (${h%:*})"
		check_assert assert_ge "$(r "$ON" "pause_rx.${h%:*}")" "$(r "$ON" "pause_tx.${h%:*}")" \
			"PAUSE frames received over ${h#*:} (${h%:*}) vs sent"
	done
	check_assert assert_ge "$(r "$ON" paused_us.all)" 1 "time the senders spent paused (us)"
}

tests_run
tests_exit
