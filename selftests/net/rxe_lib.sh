# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the rdma_rxe (rxe_cc) guest tests.  Source after lib.sh and
# dcb_lib.sh.
#
#   load_rxe              our rdma_rxe.ko instead of the distribution's
#   rxe_topo N            dcb_topo N + an rxe device on every host
#   rxe_dev HOST          the rxe device of HOST's namespace
#   rxe_gid HOST 4|6      the RoCE v2 GID index of HOST's address
#   rxe_cnt HOST NAME     a hw counter of HOST's device
#   rxe_cc HOST KNOB [V]  read (or write) cc/KNOB of HOST's device

RXE_KO=${DCBLAB_BUILD:-$TOP/build}/rxe_cc/rdma_rxe.ko

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

# unload_rxe: rmmod our module (every process using it must be gone).
unload_rxe()
{
	[ -d /sys/module/rdma_rxe ] || return 0
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
	done
	# processes die before the namespaces go (they hold the devices)
	at_exit 'rxe_kill_all'
	for h in "${!RXE_DEV[@]}"; do
		wait_for --timeout 20 rxe_gid "$h" 4 ||
			fail "no RoCE v2 IPv4 GID on ${RXE_DEV[$h]}"
	done
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
