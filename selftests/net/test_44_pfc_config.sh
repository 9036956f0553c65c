#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# PFC configuration and robustness.  Steps:
#   refused          refused with a message, configuration unchanged:
#                    xon >= xoff, headroom below one MTU plus rate * delay,
#                    a pool smaller than the headroom its port reserves,
#                    unknown bands in prio-pfc, beta in a pool without a
#                    size, an unknown band's limit, an unknown overflow;
#   accepted         the same options made valid (the refusals are about
#                    the values, not the syntax); overflow drop, and
#                    shared by default;
#   shared pool      a second port joining a 20 KB pool is refused when
#                    the two ports' headroom exceeds it, accepted when it
#                    fits, and the pool then reserves both ports' headroom;
#   malformed pause  malformed PAUSE frames (scapy from the neighbour:
#                    truncated, wrong opcode, wrong destination) are
#                    counted in pfc_malformed and pause nothing;
#   valid pause      a valid PAUSE then a RESUME (positive control) are
#                    counted in pause_rx / resume_rx of band 3, hold the
#                    band for a while, and pause no other band;
#   non-ethernet     pfc on a device that is not Ethernet (a tun device,
#                    an ipip tunnel) is refused with a message naming
#                    Ethernet; the same qdisc without pfc is accepted there,
#                    and a change adding pfc to it is refused and changes
#                    nothing.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"

need_cmd jq
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 missing"
/usr/bin/python3 -c 'import scapy' 2>/dev/null || skip "python3-scapy missing"
load_dcb

topo_init "p44$$" || fail "topo_init"
at_exit topo_cleanup
topo_switch sw || fail "switch"
topo_host s1 && topo_link s1 sw >/dev/null || fail "s1"
topo_host s2 && topo_link s2 sw >/dev/null || fail "s2"
topo_routes || fail "routes"
P1=$(topo_port sw s1)
P2=$(topo_port sw s2)

REF="rate 10mbit dscp-map 0:7 buffer 64kb pfc prio-pfc 3 xoff 16kb delay 1ms"
# shellcheck disable=SC2086
topo_qdisc sw "$P1" dcb $REF || fail "tc: $REF"
opts() { topo_tc sw -j qdisc show dev "$1" | jq -cS '.[] | select(.kind == "dcb") | .options'; }
ref1=$(opts "$P1")
log "reference: $ref1"

# refused DEV ARGS: `tc qdisc replace` must fail with a message and leave
# DEV's configuration as it was (check_err otherwise).
refused()
{
	local dev=$1 before out; shift
	before=$(opts "$dev")
	if out=$(topo_tc sw qdisc replace dev "$dev" root handle 1: dcb "$@" 2>&1); then
		check_err 1 "accepted: $*"
		return 1
	fi
	[ -n "$out" ] || { check_err 1 "refused without a message: $*"; return 1; }
	[ "$(opts "$dev")" = "$before" ] ||
		{ check_err 1 "configuration changed by refused: $*"; return 1; }
	log "refused ($*): $(head -n1 <<<"$out")"
}
accepted()
{
	local dev=$1 out; shift
	if ! out=$(topo_tc sw qdisc replace dev "$dev" root handle 1: dcb "$@" 2>&1); then
		check_err 1 "refused: $* ($out)"
		return 1
	fi
	log "accepted: $*"
}

refusals()
{
	refused "$P1" rate 10mbit buffer 64kb pfc prio-pfc 3 xoff 10kb xon 10kb delay 1ms
	refused "$P1" rate 10mbit buffer 64kb pfc prio-pfc 3 xoff 10kb xon 12kb delay 1ms
	# 10 Mb/s * 1 ms = 1250 B in flight, plus one MTU: 2750 B at least
	refused "$P1" rate 10mbit buffer 64kb pfc prio-pfc 3 xoff 16kb headroom 2000 delay 1ms
	# the default delay (5 ms) counts too: 1514 + 62500 B at least
	refused "$P1" rate 100mbit buffer 256kb pfc prio-pfc 3 xoff 16kb headroom 60000
	# the default headroom (2 x 1514 + 100 Mb/s x 5 ms = 65528 B) does
	# not fit a 48 KB pool: refused, not silently too small
	refused "$P1" rate 100mbit buffer 48kb pfc prio-pfc 3 xoff 16kb
	# 100 Mb/s * 1 ms = 12500 B, plus one MTU
	refused "$P1" rate 100mbit buffer 256kb pfc prio-pfc 3 xoff 16kb headroom 10000 delay 1ms
	# 2 bands x 8 KB of headroom > a 10 KB pool
	refused "$P1" rate 10mbit buffer 10kb pfc prio-pfc 3,4 xoff 4kb headroom 8kb delay 1ms
	refused "$P1" rate 10mbit buffer 64kb pfc prio-pfc 8 xoff 16kb delay 1ms
	refused "$P1" rate 10mbit buffer 64kb pfc prio-pfc 3,9 xoff 16kb delay 1ms
	# beta needs a pool size: pool 7 of this namespace has none (pool 0 got
	# one from the reference configuration)
	refused "$P2" pool 7 rate 10mbit pfc prio-pfc 3 beta 4 delay 1ms
	refused "$P1" rate 10mbit buffer 64kb band 8 limit 10kb
	refused "$P1" rate 10mbit buffer 64kb pfc prio-pfc 3 xoff 16kb delay 1ms overflow maybe
}

acceptances()
{
	accepted "$P1" rate 10mbit buffer 64kb pfc prio-pfc 3 xoff 10kb xon 6kb delay 1ms
	accepted "$P1" rate 100mbit buffer 256kb pfc prio-pfc 3 xoff 16kb headroom 15000 delay 1ms
	accepted "$P1" rate 10mbit buffer 20kb pfc prio-pfc 3,4 xoff 4kb headroom 8kb delay 1ms
	accepted "$P1" rate 10mbit buffer 64kb pfc prio-pfc 3 beta 4 delay 1ms
	overflow_is drop overflow drop
	overflow_is shared
}

# overflow_is WANT [OPTS]: P1 accepts the PFC options with OPTS and then
# shows overflow WANT
overflow_is()
{
	local want=$1 got; shift
	accepted "$P1" rate 10mbit buffer 64kb pfc prio-pfc 3 xoff 16kb delay 1ms "$@" ||
		return
	got=$(opts "$P1" | jq -r .pfc.overflow)
	[ "$got" = "$want" ] || check_err 1 "overflow ${*:-default}: shows '$got', not $want"
}

# a second port joining the 20 KB pool: 8 KB + 16 KB of reserve > 20 KB
shared_pool()
{
	accepted "$P1" rate 10mbit buffer 20kb pfc prio-pfc 3 xoff 4kb headroom 8kb delay 1ms ||
		return
	pfc_snap S sw
	log "pool: ports $(sv S sw "$P1" pool.ports) reserved $(sv S sw "$P1" pool.reserved) size $(sv S sw "$P1" pool.size)"
	refused "$P2" rate 10mbit buffer 20kb pfc prio-pfc 3 xoff 4kb headroom 16kb delay 1ms
	accepted "$P2" rate 10mbit buffer 20kb pfc prio-pfc 3 xoff 4kb headroom 8kb delay 1ms ||
		return
	pfc_snap S sw
	check_assert assert_ge "$(sv S sw "$P1" pool.reserved)" 16384 "pool reserve of two ports"
	check_assert assert_ge "$(sv S sw "$P1" pool.ports)" 2 "ports in the pool"
}

# ------------------------------------------------------------ PAUSE frames
SMAC=$(topo_exec s1 cat /sys/class/net/eth0/address)
cat >"$TMPD/frames.py" <<'PY'
import struct, sys, time
from scapy.all import sendp, Raw
src = bytes.fromhex(sys.argv[2].replace(":", ""))
pfc_dst = bytes.fromhex("0180c2000001")

def frame(dst, opcode, cev, times, pad=True):
    b = dst + src + struct.pack("!HHH", 0x8808, opcode, cev)
    b += b"".join(struct.pack("!H", t) for t in times)
    if pad and len(b) < 60:
        b += b"\0" * (60 - len(b))
    return b

t3 = [0, 0, 0, 0x1000, 0, 0, 0, 0]
frames = {
    "truncated": frame(pfc_dst, 0x0101, 0x0008, [], pad=False),
    "opcode": frame(pfc_dst, 0x0102, 0x0008, t3),
    "dst": frame(bytes.fromhex("0180c2000002"), 0x0101, 0x0008, t3),
    "pause": frame(pfc_dst, 0x0101, 0x0008, t3),
    "resume": frame(pfc_dst, 0x0101, 0x0008, [0] * 8),
}
for name in sys.argv[3].split(","):
    sendp(Raw(frames[name]), iface=sys.argv[1], verbose=False)
    time.sleep(0.05)
PY
# frames NAMES: s1 sends the frames NAMES (comma-separated) to the switch
frames()
{
	topo_exec s1 /usr/bin/python3 "$TMPD/frames.py" eth0 "$SMAC" "$1" ||
		{ check_err 1 "scapy: $1"; return 1; }
}
mal_seen() { [ "$(pfc_stat sw "$P1" pfc_malformed)" -ge $(($(sv J0 sw "$P1" pfc_malformed) + 3)) ]; }
res_seen() { [ "$(pfc_stat sw "$P1" resume_rx 3)" -ge $(($(sv J1 sw "$P1" resume_rx 3) + 1)) ]; }
# dd J0 J1 KEY [BAND]: growth of KEY on the port between two snapshots
dd() { echo $(( $(sv "$2" sw "$P1" "$3" "${4:-}") - $(sv "$1" sw "$P1" "$3" "${4:-}") )); }

# The malformed frames' step ends with snapshot J1 (J1_TAKEN), from which
# the valid frames' step counts.
J1_TAKEN=
malformed_pause()
{
	local mal prx rrx pus
	# shellcheck disable=SC2086
	if ! topo_qdisc sw "$P1" dcb $REF; then
		check_err 1 "tc: $REF"
		return
	fi
	pfc_snap J0 sw
	frames truncated,opcode,dst || return
	wait_for --timeout 10 mal_seen
	pfc_snap J1 sw
	J1_TAKEN=1
	mal=$(dd J0 J1 pfc_malformed)
	prx=$(dd J0 J1 pause_rx)
	rrx=$(dd J0 J1 resume_rx)
	pus=$(dd J0 J1 paused_us)
	log "3 malformed frames: pfc_malformed +$mal, pause_rx +$prx, resume_rx +$rrx, paused_us +$pus"
	check_assert assert_ge "$mal" 3 "malformed PAUSE frames counted"
	check_assert assert_le "$mal" 3 "malformed PAUSE frames counted"
	check_assert assert_le "$prx" 0 "PAUSE received from malformed frames"
	check_assert assert_le "$rrx" 0 "RESUME received from malformed frames"
	check_assert assert_le "$pus" 0 "time paused by malformed frames (us)"
}

# positive control: the same sender, a valid PAUSE then a RESUME
valid_pause()
{
	local mal prx rrx pus
	if [ -z "$J1_TAKEN" ]; then
		check_err 1 "no snapshot of the port before the valid frames"
		return
	fi
	frames pause,resume || return
	wait_for --timeout 10 res_seen
	pfc_snap J2 sw
	prx=$(dd J1 J2 pause_rx 3)
	rrx=$(dd J1 J2 resume_rx 3)
	pus=$(dd J1 J2 paused_us 3)
	mal=$(dd J1 J2 pfc_malformed)
	log "valid PAUSE + RESUME: band 3 pause_rx +$prx resume_rx +$rrx paused_us +$pus, malformed +$mal"
	check_assert assert_ge "$prx" 1 "valid PAUSE counted in pause_rx of band 3"
	check_assert assert_ge "$rrx" 1 "valid RESUME counted in resume_rx of band 3"
	check_assert assert_ge "$pus" 1 "band 3 held between PAUSE and RESUME (us)"
	check_assert assert_le "$mal" 0 "valid frames counted as malformed"
	check_assert assert_le "$(sv J2 sw "$P1" pause_rx 2)" 0 "band 2 not paused by a band 3 PAUSE"
}

# non_ethernet: PFC frames are Ethernet MAC control frames, which a tun
# device (ARPHRD_NONE) or an ipip tunnel (ARPHRD_TUNNEL) can neither send
# nor receive.
non_ethernet()
{
	local dev out devs=tun44
	modprobe -q tun 2>/dev/null
	modprobe -q ipip 2>/dev/null
	topo_exec sw ip tuntap add dev tun44 mode tun ||
		{ check_err 1 "ip tuntap add dev tun44 mode tun"; return; }
	# a kernel without ipip (the debug kernel's configuration) tests the
	# tun device alone, and says so
	if [ -d /sys/module/ipip ] || modprobe -nq ipip 2>/dev/null; then
		topo_exec sw ip link add ipip44 type ipip local 192.0.2.1 remote 192.0.2.2 ||
			{ check_err 1 "ip link add ipip44 type ipip"; return; }
		devs="tun44 ipip44"
	else
		log "this kernel ($(uname -r)) has no ipip: the tun device only"
	fi
	for dev in $devs; do
		refused "$dev" rate 10mbit pfc prio-pfc 3 xoff 16kb delay 1ms
		out=$(topo_tc sw qdisc replace dev "$dev" root handle 1: dcb \
			rate 10mbit pfc prio-pfc 3 xoff 16kb delay 1ms 2>&1)
		grep -q Ethernet <<<"$out" ||
			check_err 1 "$dev: pfc refused without naming Ethernet: $out"
		accepted "$dev" rate 10mbit || continue
		# refused checks that the configuration stayed as it was
		refused "$dev" rate 10mbit pfc prio-pfc 3 xoff 16kb delay 1ms
		topo_tc sw qdisc del dev "$dev" root
	done
}

refusals
log_test refused
acceptances
log_test accepted
shared_pool
log_test "shared pool"
malformed_pause
log_test "malformed pause"
valid_pause
log_test "valid pause"
non_ethernet
log_test "non-ethernet"

tests_exit
