#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
#
# sch_dcb robustness.  Every sub-test reports (one failure hides nothing);
# the runner also fails the test on any BUG/WARNING/Oops in dmesg.
#  lifecycle:    a replace the core refuses after our ->init succeeded (an
#                empty size table) changes nothing: options, pool size and
#                reserved headroom as before, and the old port still gets
#                the charges of its packets (in_peak grows);
#  class_change: `tc class change` on a port does not re-apply the buffer
#                it once gave over the pool size another port set since;
#  child:        a sch_dcb under a parent class is no port: `buffer`
#                (which only ports apply, once installed) is refused at
#                creation and change, with a message, pool untouched; a
#                child without it joins the pool as a member only;
#  netns:        pool 1 of another namespace is another pool: its buffer
#                changes leave the switch's pool 1 alone and the reverse;
#                the namespace is then deleted while a PFC port of the
#                pool holds packets (the runner fails on any kernel report);
#  validation:   overflowing or out-of-range values (rate x delay, delay,
#                headroom, xoff, band index, overhead, limit) are refused
#                with a message and change nothing; `buffer 0` means an
#                unlimited pool, refused while a port of the pool uses beta;
#  carrier:      a port whose link goes down with PFC state to announce
#                stops trying to send (at most 3 attempts in 2 s) and sends
#                its RESUME when the carrier comes back;
#  storm:        PAUSE/RESUME frames back to back into a port while its
#                qdisc is replaced and deleted in a loop;
#  rx_fuzz:      PAUSE frames of 0..100 payload bytes with good, odd and
#                reserved opcodes, and 5000-byte non-linear ones, received
#                while tcpdump, a packet socket tap (which clones the skb)
#                and a second ETH_P_PAUSE packet socket hold the skb:
#                exactly the malformed ones are counted, the valid ones
#                pause what they say;
#  mtu_raised:   a port whose headroom was resolved for an MTU of 1500
#                gets one 8000-byte packet after the MTU went to 9000: it
#                crosses XOFF and overflows the headroom at once
#                (overflow drop), so it is dropped with nothing charged
#                to the band, and the port resumes its peer at once (no
#                departure would ever do it) and admits the next packet.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"

need_cmd jq
need_cmd tcpdump
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 missing"
load_dcb

FRAMES=$TOP/selftests/net/pfc_frames.py
dcb_topo 2
P1=$(topo_port sw s1)
P2=$(topo_port sw s2)
OUT=$PORT

nl() { topo_exec sw /usr/bin/python3 "$TOP/selftests/net/dcb_nl.py" "$@"; }
# state DEV: the options of DEV's sch_dcb qdiscs, and the pool size and
# reserved headroom seen by its root one (one tc and one jq: they are
# read before and after every refused change)
state()
{
	# shellcheck disable=SC2016
	topo_tc sw -j -s qdisc show dev "$1" | jq -cS '[.[] | select(.kind == "dcb") |
		.options], [.[] | select(.kind == "dcb" and .root == true) |
		"size=\(.pool.size) reserved=\(.pool.reserved)"]'
}
# pool_get DEV KEY: KEY of the pool of DEV's root sch_dcb
pool_get()
{
	topo_tc sw -j -s qdisc show dev "$1" | jq -r --arg k "$2" '.[] |
		select(.kind == "dcb" and .root == true) | .pool[$k] // "(no \($k))"'
}

# refused DEV HOW ARGS...: HOW is "tc" (a `tc qdisc change` of DEV's root
# with ARGS) or "nl" (dcb_nl.py change DEV JSON); it must fail with a
# message and leave DEV's state as it was.
refused()
{
	local dev=$1 how=$2 before out rc after
	shift 2
	before=$(state "$dev")
	if [ "$how" = tc ]; then
		out=$(topo_tc sw qdisc change dev "$dev" root dcb "$@" 2>&1)
	else
		out=$(nl change "$dev" "$@" 2>&1)
	fi
	rc=$?
	check_err $((rc == 0)) "accepted: $*"
	[ -n "$out" ] || check_err 1 "refused without a message: $*"
	after=$(state "$dev")
	[ "$after" = "$before" ] || check_err 1 "state changed by refused $*: $before -> $after"
	log "  refused ($*): $(head -n1 <<<"$out")"
}

# fresh P1_ARGS P2_ARGS OUT_ARGS: every sch_dcb of the switch deleted (and
# pool 1 with them), then new ones: each sub-test starts from a known state.
fresh()
{
	local d
	for d in "$P1" "$P2" "$OUT"; do
		topo_tc sw qdisc del dev "$d" root 2>/dev/null
	done
	# shellcheck disable=SC2086
	topo_qdisc sw "$P1" dcb $1 || check_err 1 "P1: $1"
	# shellcheck disable=SC2086
	topo_qdisc sw "$P2" dcb $2 || check_err 1 "P2: $2"
	# shellcheck disable=SC2086
	topo_qdisc sw "$OUT" dcb $3 || check_err 1 "OUT: $3"
}

# delay 1ms: the small pools below hold two ports' headroom
PFC="pfc prio-pfc 3 xoff 16kb delay 1ms"
SW="rate 10mbit dscp-map 0:7 pool 1"

# ---------------------------------------------------------------------
# lifecycle
fresh "$SW buffer 64kb $PFC" "$SW $PFC" "rate 1mbit dscp-map 0:7 pool 1"
before=$(state "$P1")
out=$(nl replace "$P1" '{"handle": "2:", "rate": 1250000, "pool": 1,
	"buffer": 131072, "pfc": {"mask": 24, "xoff": 16384, "delay": 1000},
	"bad_stab": true}')
check_err $(($? == 0)) "replace with an empty size table accepted: $out"
log "  replace refused by the core after init: $out"
after=$(state "$P1")
[ "$after" = "$before" ] || check_err 1 "failed replace changed the port: $before -> $after"
# the old port must still be the pool's port of P1: its packets charge it
peak0=$(pfc_get "$(pfc_read sw "$P1")" in_peak 3)
topo_exec s1 "$TOP/tools/udpflow" send "$RIP" 9 \
	--count 30 --interval 0 --tos 0x60 --len 1000 >/dev/null 2>&1
charged() { [ "$(pfc_get "$(pfc_read sw "$P1")" in_peak 3)" -gt "$peak0" ]; }
wait_for --timeout 10 charged
check_err $? "P1 no longer charged for its packets after a failed replace (in_peak $peak0 -> $(pfc_get "$(pfc_read sw "$P1")" in_peak 3))"
log_test lifecycle

# ---------------------------------------------------------------------
# class_change: P2 grows the pool and reserves more than P1's old 64 KB
fresh "$SW buffer 64kb $PFC" "$SW $PFC" "rate 1mbit dscp-map 0:7 pool 1"
topo_tc sw qdisc change dev "$P2" root dcb rate 10mbit buffer 512kb \
	pfc prio-pfc 3 xoff 16kb headroom 80kb
check_err $? "P2: buffer 512kb headroom 80kb"
size0=$(pool_get "$P1" size)
res0=$(pool_get "$P1" reserved)
topo_tc sw class change dev "$P1" classid 1:4 dcb limit 100kb
check_err $? "class change on P1"
size1=$(pool_get "$P1" size)
log "  pool size $size0 -> $size1 after a class change (reserved $res0)"
[ "$size1" = "$size0" ] || check_err 1 "class change re-applied P1's buffer: pool $size0 -> $size1, reserved $res0"
log_test class_change

# ---------------------------------------------------------------------
# child: sch_dcb under prio's class 1:1 on the egress port
fresh "$SW buffer 64kb $PFC" "$SW $PFC" "rate 1mbit dscp-map 0:7 pool 1"
topo_tc sw qdisc del dev "$OUT" root
topo_tc sw qdisc add dev "$OUT" root handle 1: prio
check_err $? "prio root on OUT"
size0=$(pool_get "$P1" size)
out=$(topo_tc sw qdisc add dev "$OUT" parent 1:1 handle 10: dcb rate 0 pool 1 buffer 1mb 2>&1)
check_err $((! $?)) "child with buffer 1mb accepted"
log "  child with buffer refused: $(head -n1 <<<"$out")"
[ "$(pool_get "$P1" size)" = "$size0" ] || check_err 1 "refused child resized the pool: $size0 -> $(pool_get "$P1" size)"
topo_tc sw qdisc add dev "$OUT" parent 1:1 handle 10: dcb rate 0 pool 1
check_err $? "child without buffer"
[ "$(pool_get "$P1" size)" = "$size0" ] || check_err 1 "child resized the pool: $size0 -> $(pool_get "$P1" size)"
[ "$(pool_get "$P1" ports)" = 2 ] || check_err 1 "pool 1 has $(pool_get "$P1" ports) ports with a child, expected 2"
out=$(topo_tc sw qdisc change dev "$OUT" parent 1:1 handle 10: dcb buffer 2mb 2>&1)
check_err $((! $?)) "child change to buffer 2mb accepted"
[ "$(pool_get "$P1" size)" = "$size0" ] || check_err 1 "child change resized the pool: $size0 -> $(pool_get "$P1" size)"
topo_tc sw qdisc del dev "$OUT" root
log_test child

# ---------------------------------------------------------------------
# pair NSA NSB DEVA DEVB NET: new namespaces NSA and NSB joined by a veth
# pair, DEVA = NET.1 in NSA, DEVB = NET.2 in NSB.
pair()
{
	ip netns add "$1" && ip netns add "$2" || return 1
	at_exit "ip netns del $1 2>/dev/null; ip netns del $2 2>/dev/null"
	ip link add name "$3" netns "$1" type veth peer name "$4" netns "$2" &&
		ip -n "$1" addr add "$5.1/24" dev "$3" &&
		ip -n "$2" addr add "$5.2/24" dev "$4" &&
		ip -n "$1" link set dev "$3" up && ip -n "$2" link set dev "$4" up
}

# netns: a second namespace with ports in its own pool 1
NS2="$(topo_ns sw)-b"
tc2() { ip netns exec "$NS2" tc "$@"; }
pair "$NS2" "$NS2-peer" a b 10.77.0 && ip -n "$NS2" link add name b type veth peer name b2 &&
	ip -n "$NS2" link set dev b up
check_err $? "veth to $NS2-peer and a second pair in $NS2"
fresh "$SW buffer 64kb $PFC" "$SW $PFC" "rate 1mbit dscp-map 0:7 pool 1"
tc2 qdisc add dev a root dcb rate 100kbit dscp-map 0:3 pool 1 buffer 1mb $PFC
check_err $? "$NS2: port a in pool 1 with buffer 1mb"
tc2 qdisc add dev b root dcb rate 0 pool 1
check_err $? "$NS2: port b in pool 1"
size2() { tc2 -j -s qdisc show dev a | jq -r '.[] | select(.kind == "dcb") | .pool.size'; }
ports2() { tc2 -j -s qdisc show dev a | jq -r '.[] | select(.kind == "dcb") | .pool.ports'; }
log "  pool 1: switch size $(pool_get "$P1" size) ports $(pool_get "$P1" ports); $NS2 size $(size2) ports $(ports2)"
[ "$(pool_get "$P1" size)" = 65536 ] || check_err 1 "switch pool 1 resized by $NS2's port: $(pool_get "$P1" size)"
[ "$(pool_get "$P1" ports)" = 3 ] || check_err 1 "switch pool 1 has $(pool_get "$P1" ports) ports, expected 3"
[ "$(size2)" = 1048576 ] && [ "$(ports2)" = 2 ] ||
	check_err 1 "$NS2 pool 1: size $(size2) ports $(ports2), expected 1048576 and 2"
tc2 qdisc change dev a root dcb rate 100kbit buffer 2mb
check_err $? "$NS2: buffer 2mb"
[ "$(pool_get "$P1" size)" = 65536 ] || check_err 1 "$NS2's buffer 2mb resized the switch's pool 1: $(pool_get "$P1" size)"
topo_tc sw qdisc change dev "$P1" root dcb rate 10mbit buffer 128kb
check_err $? "switch: buffer 128kb"
[ "$(size2)" = 2097152 ] || check_err 1 "the switch's buffer 128kb resized $NS2's pool 1: $(size2)"
# queue packets behind the 100 kbit/s port, then delete the namespace
ip netns exec "$NS2" ping -q -i 0.002 -c 100 -s 1000 -Q 0x60 10.77.0.2 >/dev/null 2>&1 &
PING=$!
backlog2() { [ "$(tc2 -j -s qdisc show dev a | jq -r '.[] | select(.kind == "dcb") | .backlog_bytes')" -gt 0 ]; }
wait_for --timeout 10 backlog2
check_err $? "no backlog on $NS2's port a"
log "  deleting $NS2 with $(tc2 -j -s qdisc show dev a | jq -r '.[] | select(.kind == "dcb") | .pool.used') bytes in its pool"
ip netns del "$NS2"
check_err $? "ip netns del $NS2"
kill $PING 2>/dev/null
wait $PING 2>/dev/null
sleep 1
[ "$(pool_get "$P1" ports)" = 3 ] || check_err 1 "switch pool 1 has $(pool_get "$P1" ports) ports after $NS2 went"
log_test netns

# ---------------------------------------------------------------------
# validation (a pool large enough for every headroom asked below)
fresh "$SW $PFC" "$SW buffer 4000mb $PFC" "rate 1mbit dscp-map 0:7 pool 1"
refused "$P1" nl '{"rate": 4611686018427387904, "pfc": {"mask": 8, "xoff": 16384, "delay": 4000000}}'
refused "$P1" nl '{"rate": 1250000, "pfc": {"mask": 8, "xoff": 16384, "delay": 20000000}}'
refused "$P1" nl '{"rate": 1250000, "pfc": {"mask": 8, "xoff": 16384, "headroom": 2147483648}}'
refused "$P1" nl '{"rate": 1250000, "pfc": {"mask": 8, "xoff": 2147483648}}'
refused "$P1" nl '{"rate": 1250000, "pfc": {"mask": 8, "xoff": 16384, "xon": 2147483648}}'
refused "$P1" nl '{"rate": 1250000, "pfc": {"mask": 8, "beta": 1001}}'
refused "$P1" nl '{"bands": [{"index": 8, "limit": 1000}]}'
refused "$P1" nl '{"overhead": 70000}'
refused "$P1" nl '{"limit": 0}'
refused "$P1" nl '{"classify": 2}'
# buffer 0 = unlimited: refused while P2 uses beta, then taken
topo_tc sw qdisc change dev "$P2" root dcb rate 10mbit pfc prio-pfc 3 beta 4
check_err $? "P2: beta 4"
refused "$P1" tc rate 10mbit buffer 0
topo_tc sw qdisc change dev "$P2" root dcb rate 10mbit $PFC
check_err $? "P2: back to xoff"
topo_tc sw qdisc change dev "$P1" root dcb rate 10mbit buffer 0
check_err $? "buffer 0 refused without a beta port"
size=$(pool_get "$P1" size)
log "  pool size after buffer 0: $size"
[ "$size" = 0 ] || check_err 1 "buffer 0 did not make the pool unlimited (size $size)"
log_test validation

# ---------------------------------------------------------------------
# carrier: P1 pauses s1, then P1's link goes down
if pfc_trace_on; then
	# the egress port drains 30 KB in about 12 s: P1 stays paused a while.
	# s1 ignores the PAUSE: with the default overflow shared its flood
	# would take the 1 MB pool's shared part (minutes to drain at
	# 20 kbit/s); overflow drop holds the band at XOFF + headroom
	xon=2048
	fresh "rate 2mbit dscp-map 0:7 pool 1 buffer 1mb pfc prio-pfc 3 xoff 20kb xon ${xon}b delay 30ms overflow drop" \
		"$SW" "rate 20kbit dscp-map 0:7 pool 1"
	# s1 (no sch_dcb) ignores the PAUSE: the flood, which runs until
	# the link goes down, keeps P1's band 3 above XOFF until then
	ip netns exec "$(topo_ns s1)" timeout 120 "$TOP/tools/udpflow" send \
		"$RIP" 9 --count 12000 --interval 0.01 --tos 0x60 --len 1000 >/dev/null 2>&1 &
	FLOOD=$!
	p1_paused() { [ "$(pfc_get "$(pfc_read sw "$P1")" pause_tx 3)" -ge 1 ]; }
	wait_for --timeout 30 p1_paused
	check_err $? "P1 never paused s1"
	ip -n "$(topo_ns s1)" link set eth0 down
	kill $FLOOD 2>/dev/null
	wait $FLOOD 2>/dev/null
	# the premise, read with the link down: P1 had paused s1 and sent no
	# RESUME, so it still held s1 when the link went down and owes it
	# one.  (A RESUME sent before would count in resume_tx; with the link
	# down none can leave.  The band's bytes are no proof: the port
	# drains it in about 10 s, which a slow guest can take to read them.)
	j=$(pfc_read sw "$P1")
	log "  link down: band 3 in_bytes $(pfc_get "$j" in_bytes 3)," \
		"pause_tx $(pfc_get "$j" pause_tx 3), resume_tx $(pfc_get "$j" resume_tx 3)"
	[ "$(pfc_get "$j" pause_tx 3)" -ge 1 ] && [ "$(pfc_get "$j" resume_tx 3)" = 0 ] ||
		check_err 1 "P1 had resumed s1 before its link went down: no RESUME owed"
	# the band drains below XON with the link down: a RESUME to send
	drained() { [ "$(pfc_get "$(pfc_read sw "$P1")" in_bytes 3)" = 0 ]; }
	wait_for --timeout 60 drained
	check_err $? "P1's band 3 did not drain"
	r0=$(pfc_get "$(pfc_read sw "$P1")" resume_tx 3)
	echo >"$TRACEFS/trace"
	sleep 2		# the measurement window: attempts per 2 s
	tries=$(grep -c "dcb_pfc_tx: dev=$P1 " "$TRACEFS/trace")
	log "  carrier down: $tries PFC transmit attempts on $P1 in 2 s"
	[ "$tries" -le 3 ] || check_err 1 "$tries PFC transmit attempts in 2 s with the carrier down"
	ip -n "$(topo_ns s1)" link set eth0 up
	check_err $? "s1's link did not come up"
	resumed() { [ "$(pfc_get "$(pfc_read sw "$P1")" resume_tx 3)" -gt "$r0" ]; }
	if ! wait_for --timeout 10 resumed; then
		# what a failure needs to be understood: P1's link state, its
		# band 3 and every PFC transmit attempt since the carrier went
		# down
		ip -n "$(topo_ns sw)" -d link show "$P1" | sed 's/^/  /'
		pfc_read sw "$P1" | grep ':3 ' | paste -sd ' ' | sed 's/^/  /'
		grep "dcb_pfc_tx: dev=$P1 " "$TRACEFS/trace" | tail -n 5 | sed 's/^/  /'
		check_err 1 "no RESUME sent after the carrier came back (resume_tx $r0)"
	fi
else
	check_err 1 "no tracefs"
fi
log_test carrier

# ---------------------------------------------------------------------
# storm: PAUSE/RESUME into P1 while its qdisc comes and goes
ip netns exec "$(topo_ns s1)" timeout 200 /usr/bin/python3 "$FRAMES" storm eth0 &
STORM=$!
at_exit 'kill $STORM 2>/dev/null'
storm_in() { [ "$(pfc_get "$(pfc_read sw "$P1")" resume_rx 3)" -ge 10 ]; }
wait_for --timeout 30 storm_in
check_err $? "storm frames not received"
for i in $(seq 1 24); do
	h=$((i % 2 + 1))
	if [ $((i % 4)) = 0 ]; then
		topo_tc sw qdisc del dev "$P1" root
		check_err $? "delete $i"
	else
		topo_tc sw qdisc replace dev "$P1" root handle $h: dcb rate 2mbit \
			dscp-map 0:7 pool 1 $PFC
		check_err $? "replace $i (handle $h:)"
	fi
done
topo_qdisc sw "$P1" dcb rate 10mbit dscp-map 0:7 pool 1 $PFC || check_err 1 "P1 after storm"
wait_for --timeout 30 storm_in
check_err $? "storm frames not received by the last qdisc"
kill $STORM 2>/dev/null
wait $STORM 2>/dev/null
log "  24 replace/delete under the storm; last qdisc: resume_rx $(pfc_get "$(pfc_read sw "$P1")" resume_rx 3)"
log_test storm

# ---------------------------------------------------------------------
# rx_fuzz
ip -n "$(topo_ns s1)" link set eth0 mtu 9000
ip -n "$(topo_ns sw)" link set "$P1" mtu 9000
topo_qdisc sw "$P1" dcb rate 10mbit dscp-map 0:7 pool 1 $PFC || check_err 1 "P1 for fuzz"
ip netns exec "$(topo_ns sw)" tcpdump -i "$P1" -n -U -w /dev/null 2>"$TMPD/tcpdump.err" &
TCPDUMP=$!
ip netns exec "$(topo_ns sw)" timeout 300 /usr/bin/python3 "$FRAMES" listen "$P1" "$TMPD/listening" &
LISTEN=$!
at_exit 'kill $TCPDUMP $LISTEN 2>/dev/null'
wait_for --timeout 30 grep -q listening "$TMPD/tcpdump.err"
check_err $? "tcpdump did not start"
wait_for --timeout 30 test -e "$TMPD/listening"
check_err $? "packet socket did not start"

m0=$(pfc_get "$(pfc_read sw "$P1")" pfc_malformed)
out=$(topo_exec s1 /usr/bin/python3 "$FRAMES" fuzz eth0)
check_err $? "fuzz sender"
bad=$(sed -n 's/.*malformed=\([0-9]*\).*/\1/p' <<<"$out")
log "  fuzz: $out"
mal_ge() { [ "$(pfc_get "$(pfc_read sw "$P1")" pfc_malformed)" -ge "$1" ]; }
wait_for --timeout 20 mal_ge $((m0 + bad))
m1=$(pfc_get "$(pfc_read sw "$P1")" pfc_malformed)
log "  pfc_malformed +$((m1 - m0)), expected +$bad"
[ $((m1 - m0)) = "$bad" ] || check_err 1 "pfc_malformed +$((m1 - m0)), expected +$bad"

# (802.3x frames of the fuzz paused every band: band 5 counts from here)
p0=$(pfc_get "$(pfc_read sw "$P1")" pause_rx 5)
out=$(topo_exec s1 /usr/bin/python3 "$FRAMES" big eth0 20)
check_err $? "non-linear sender: $out"
p5_ge() { [ "$(pfc_get "$(pfc_read sw "$P1")" pause_rx 5)" -ge "$1" ]; }
wait_for --timeout 20 p5_ge $((p0 + 20))
wait_for --timeout 20 mal_ge $((m1 + 20))
j=$(pfc_read sw "$P1")
m2=$(pfc_get "$j" pfc_malformed)
p2=$(pfc_get "$j" pause_rx 5)
log "  non-linear: pause_rx(5) +$((p2 - p0)) (20 sent), malformed +$((m2 - m1)) (20 sent)"
[ $((p2 - p0)) = 20 ] || check_err 1 "non-linear PAUSE frames: pause_rx +$((p2 - p0)), expected +20"
[ $((m2 - m1)) = 20 ] || check_err 1 "non-linear bad frames: malformed +$((m2 - m1)), expected +20"
kill $TCPDUMP $LISTEN 2>/dev/null
log_test rx_fuzz

# ---------------------------------------------------------------------
# mtu_raised
for l in "s1 eth0" "sw $P1"; do
	ip -n "$(topo_ns "${l% *}")" link set "${l#* }" mtu 1500
done
# headroom 3 KB >= one MTU + 10 Mbit/s x 1 ms: accepted at MTU 1500
fresh "$SW buffer 64kb pfc prio-pfc 3 xoff 4kb headroom 3kb delay 1ms overflow drop" \
	"$SW" "$SW"
# the whole path carries 8000 bytes unfragmented, so the packet the
# egress port charges to P1 is the one s1 sent
for l in "s1 eth0" "sw $P1" "sw $OUT" "r eth0"; do
	ip -n "$(topo_ns "${l% *}")" link set "${l#* }" mtu 9000
done
# s1's default route went with its link in the carrier step
ip -n "$(topo_ns s1)" route replace default via "${TOPO_ADDR4[sw,s1]}"
check_err $? "s1's default route"
j=$(pfc_read sw "$P1")
d0=$(pfc_get "$j" in_drops 3)
r0=$(pfc_get "$j" resume_tx 3)
sent=$(topo_exec s1 "$TOP/tools/udpflow" send "$RIP" 9 \
	--count 1 --interval 0 --tos 0x60 --len 8000 2>&1)
[ "$sent" = 1 ] || check_err 1 "s1 could not send the 8000-byte packet: $sent"
band3_ge() { [ "$(pfc_get "$(pfc_read sw "$P1")" "$1" 3)" -ge "$2" ]; }
wait_for --timeout 10 band3_ge in_drops $((d0 + 1))
check_err $? "the 8000-byte packet was not dropped at P1's headroom"
if ! wait_for --timeout 10 band3_ge resume_tx $((r0 + 1)); then
	j=$(pfc_read sw "$P1")
	check_err 1 "P1 left s1 paused with nothing charged to band 3: pause_tx $(pfc_get "$j" pause_tx 3), resume_tx $(pfc_get "$j" resume_tx 3), in_bytes $(pfc_get "$j" in_bytes 3)"
fi
sent=$(topo_exec s1 "$TOP/tools/udpflow" send "$RIP" 9 \
	--count 1 --interval 0 --tos 0x60 --len 1000 2>&1)
[ "$sent" = 1 ] || check_err 1 "s1 could not send the 1000-byte packet: $sent"
wait_for --timeout 10 band3_ge in_peak 1000
check_err $? "P1's band 3 did not admit a 1000-byte packet after the drop"
j=$(pfc_read sw "$P1")
log "  band 3: in_drops $(pfc_get "$j" in_drops 3), pause_tx $(pfc_get "$j" pause_tx 3)," \
	"resume_tx $(pfc_get "$j" resume_tx 3), in_peak $(pfc_get "$j" in_peak 3)"
log_test mtu_raised

tests_exit
