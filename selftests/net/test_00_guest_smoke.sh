#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Smoke test of the guest: two hosts in their own namespaces talk through a
# third, routing namespace over veth pairs.
#
#   h1 (10.91.1.1) --veth-- r (10.91.1.254 | 10.91.2.254) --veth-- h2 (10.91.2.1)
#
# timeout: 120

. "$(dirname "$0")/lib.sh"

need_root
need_cmd ip ping
need_mod veth

S=$$
H1=smk-h1-$S
R=smk-r-$S
H2=smk-h2-$S
netns_add "$H1" "$R" "$H2"

ip link add h1 netns "$H1" type veth peer name r1 netns "$R" || fail "veth h1-r"
ip link add h2 netns "$H2" type veth peer name r2 netns "$R" || fail "veth h2-r"

ip -n "$H1" addr add 10.91.1.1/24 dev h1
ip -n "$R" addr add 10.91.1.254/24 dev r1
ip -n "$R" addr add 10.91.2.254/24 dev r2
ip -n "$H2" addr add 10.91.2.1/24 dev h2
for l in "$H1 h1" "$R r1" "$R r2" "$H2 h2"; do
	set -- $l
	ip -n "$1" link set "$2" up || fail "link $2 up in $1"
done
ip -n "$H1" route add default via 10.91.1.254
ip -n "$H2" route add default via 10.91.2.254
ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=1 || fail "ip_forward"

wait_for --timeout 10 ip netns exec "$H1" ping -c1 -W1 10.91.2.1
check_err $? "h2 not reachable from h1 within 10s"
log_test "path h1 -> h2 up"

out=$(ip netns exec "$H1" ping -c 10 -i 0.2 -W 2 10.91.2.1)
check_err $? "ping failed"
echo "$out"
loss=$(sed -n 's/.* \([0-9.]*\)% packet loss.*/\1/p' <<<"$out")
if [ -n "$loss" ]; then
	check_assert assert_le "$loss" 0 "packet loss (%)"
else
	check_err 1 "cannot parse ping output"
fi
ttl=$(sed -n 's/.*ttl=\([0-9]*\).*/\1/p' <<<"$out" | head -n1)
check_assert assert_le "${ttl:-64}" 63 "ttl shows one routed hop"
log_test "ping h1 -> h2: no loss, one routed hop"

tests_exit
