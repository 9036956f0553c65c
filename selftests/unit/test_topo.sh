#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/lib/topo.sh on the host (network namespaces and veth need no
# module of ours): two switches, three hosts,
#   h1 - sw1 - sw2 - h2, h3
# then checks what the guest tests rely on:
#  - port names, addresses, the static neighbours of both ends;
#  - topo_routes: IPv4 and IPv6 pings across both switches;
#  - GRO/GSO/TSO off and RPS on every CPU of each veth end;
#  - the query helpers (topo_peers, topo_ports, topo_port, topo_ip4/6);
#  - bad input (unknown node, host-host link, double link) refused;
#  - topo_cleanup removes every namespace.
# Exit: 0 pass, 1 fail, 4 skip (no root, no netns, no veth).

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"

for c in ip ethtool ping; do
	command -v "$c" >/dev/null || { echo "1..0 # SKIP no $c"; exit 4; }
done
if [ "$(id -u)" != 0 ] || ! ip netns add "tt$$-probe" 2>/dev/null; then
	echo "1..0 # SKIP needs root and network namespaces"
	exit 4
fi
ip netns del "tt$$-probe"
if ! ip link add "tt$$a" type veth peer name "tt$$b" 2>/dev/null; then
	echo "1..0 # SKIP no veth"
	exit 4
fi
ip link del "tt$$a"

. "$REPO/scripts/lib/topo.sh"
topo_init "tt$$"
trap topo_cleanup EXIT

check "two switches, three hosts" eval \
	'topo_switch sw1 && topo_switch sw2 && topo_host h1 && topo_host h2 && topo_host h3'
# (topo_link records state in the calling shell: never in $(...))
out=$(mktemp)
topo_link h1 sw1 >"$out"
eq "topo_link h1 sw1 prints the host's port first" "$(cat "$out")" "eth0 swp1"
rm -f "$out"
topo_link sw1 sw2 >/dev/null && topo_link h2 sw2 >/dev/null && topo_link h3 sw2 >/dev/null
eq "ports of sw2" "$(topo_ports sw2 | tr '\n' ' ')" "swp1 swp2 swp3 "
eq "peers of sw2" "$(topo_peers sw2 | tr '\n' ' ')" "sw1 h2 h3 "
eq "sw2's port toward h3" "$(topo_port sw2 h3)" "swp3"
eq "h3's address" "$(topo_ip4 h3)" "10.0.4.2"
eq "h3's IPv6 address" "$(topo_ip6 h3)" "fd00:dcb:0:4::2"
eq "sw1's address toward sw2" "$(topo_ip4 sw1 sw2)" "10.0.2.1"
check "routes" topo_routes
check "IPv4 h1 -> h3 across both switches" eval 'topo_exec h1 ping -c1 -W5 "$(topo_ip4 h3)" >/dev/null'
check "IPv6 h1 -> h2 across both switches" eval 'topo_exec h1 ping -6 -c1 -W5 "$(topo_ip6 h2)" >/dev/null'
eq "sw1's static neighbour sw2" \
	"$(topo_exec sw1 ip neigh show 10.0.2.2 dev swp2 | awk '{print $2, $3, $4}')" \
	"lladdr 02:dc:b0:00:02:02 PERMANENT"
eq "h3's static IPv6 neighbour" \
	"$(topo_exec h3 ip -6 neigh show fd00:dcb:0:4::1 dev eth0 | awk '{print $2, $3, $4}')" \
	"lladdr 02:dc:b0:00:04:01 PERMANENT"
mask=$(printf '%x' $(( (1 << $(nproc)) - 1 )))
for e in h1:eth0 sw1:swp1 sw1:swp2 sw2:swp1 h3:eth0; do
	node=${e%:*} dev=${e#*:}
	off=$(topo_exec "$node" ethtool -k "$dev" |
		grep -cE '^(generic-receive-offload|generic-segmentation-offload|tcp-segmentation-offload): off')
	eq "$node $dev: GRO, GSO and TSO off" "$off" 3
	eq "$node $dev: RPS on every CPU" \
		"$(topo_exec "$node" cat "/sys/class/net/$dev/queues/rx-0/rps_cpus" | sed 's/^[0,]*//')" "$mask"
done
check "unknown node refused" eval '! topo_link h1 nowhere 2>/dev/null'
check "host-host link refused" eval '! topo_link h1 h2 2>/dev/null'
check "second link h1-sw1 refused" eval '! topo_link sw1 h1 2>/dev/null'
eq "a refused link changes nothing" "$(topo_ports sw1 | tr '\n' ' ')" "swp1 swp2 "
topo_cleanup
eq "cleanup removes the namespaces" "$(ip netns list | grep -c "^tt$$-")" 0

tap_end
