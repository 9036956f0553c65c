#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# suite: debug
#
# Netlink fuzzing of sch_dcb (selftests/net/dcb_nl_fuzz.py): thousands of
# random add / change / replace / delete / class-change messages, with
# truncated, oversized, misnested, duplicated and boundary-valued
# attributes, on the three ports of one switch namespace that share pools,
# while UDP traffic is forwarded through those ports (so PFC accounting,
# PAUSE frames and queued packets meet every reconfiguration); the guest
# runner fails the test on any kernel report.  Steps:
#   fuzz     after each message the ports' configurations are the old ones
#            (an error) or only the target's changed (success), and the
#            fuzzer sent every message;
#   forward  the ports still take a fresh valid configuration and forward.
#
# Environment: DCBLAB_FUZZ_SEED (default 1), DCBLAB_FUZZ_COUNT (messages,
# default 500; make check-debug sends 2000).  Runs in make check-debug
# (suite: debug), not in make check.
# A failure prints the seed and message index: DCBLAB_FUZZ_SEED=S
# DCBLAB_FUZZ_COUNT=I+1
# replays it.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"

SEED=${DCBLAB_FUZZ_SEED:-1}
COUNT=${DCBLAB_FUZZ_COUNT:-500}
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 missing"
load_dcb

topo_init "f47$$" || fail "topo_init"
defer topo_cleanup
topo_switch sw || fail "switch"
for h in h1 h2 h3; do
	topo_host $h && topo_link $h sw >/dev/null || fail "$h"
done
topo_routes || fail "routes"
PORTS=()
for h in h1 h2 h3; do PORTS+=("$(topo_port sw $h)"); done

# A valid PFC configuration to start from, all ports in pool 1.
for p in "${PORTS[@]}"; do
	topo_qdisc sw "$p" dcb rate 20mbit dscp-map 0:3 pool 1 buffer 1mb \
		pfc prio-pfc 3 xoff 64kb || fail "initial qdisc on $p"
done

# Forwarded traffic h1 -> h2 -> h3 -> h1 for the whole run.
n=0
for pair in h1:h2 h2:h3 h3:h1; do
	n=$((n + 1))
	ip netns exec "$(topo_ns "${pair%:*}")" timeout 600 "$TOP/tools/udpflow" \
		send "$(topo_ip4 "${pair#*:}")" 900$n \
		--count 100000000 --interval 0.002 --len 1000 >/dev/null 2>&1 &
	defer "kill $! 2>/dev/null"
done
sent_over() {
	local b
	b=$(topo_tc sw -s qdisc show dev "$1" | awk '/Sent/ { print $2; exit }')
	[ "${b:-0}" -gt "$2" ]
}
wait_for --timeout 60 sent_over "${PORTS[1]}" 100000 || fail "no traffic through ${PORTS[1]}"

# every message leaves the configurations as they were or changes only
# its target's (dcb_nl_fuzz.py checks after each)
fuzz()
{
	local out=$TMPD/fuzz.log rc
	ip netns exec "$(topo_ns sw)" /usr/bin/python3 "$TOP/selftests/net/dcb_nl_fuzz.py" \
		--seed "$SEED" --count "$COUNT" "${PORTS[@]}" >"$out" 2>&1
	rc=$?
	head -n 60 "$out"
	! grep -q '^FAIL' "$out"
	check_err $? "$(grep -c '^FAIL' "$out") violation(s): $(grep -m1 '^FAIL' "$out")"
	[ $rc = 0 ]
	check_err $? "fuzzer exited with status $rc: $(tail -n1 "$out")"
	grep -q "^seed $SEED: $COUNT messages, 0 violations" "$out"
	check_err $? "fuzzer did not finish"
	[ "$RET" = 0 ] && log "seed $SEED: $COUNT messages, configuration checked after each"
}

# The ports still forward after all that: a fresh valid configuration.
forward()
{
	local p
	for p in "${PORTS[@]}"; do
		topo_tc sw qdisc del dev "$p" root 2>/dev/null
		topo_tc sw qdisc add dev "$p" root handle 1: dcb rate 20mbit
		check_err $? "valid qdisc on $p after fuzzing"
	done
	topo_exec h1 ping -c 1 -W 5 "$(topo_ip4 h2)" >/dev/null
	check_err $? "h1 cannot reach h2 after fuzzing"
}

fuzz
log_test fuzz
forward
log_test forward

tests_exit
