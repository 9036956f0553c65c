#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 1200
#
# Our rdma_rxe across network namespaces: devices created with `rdma link
# add` inside two host namespaces talk through a routing switch namespace
# (sch_dcb on the port toward the receiver).  ibv_rc_pingpong, ib_write_bw,
# ib_read_bw, ib_send_bw and ib_send_lat over IPv4 and IPv6 RoCE v2 GIDs,
# ib_write_bw over rdma_cm (-R); then `rdma link delete`, deleting a
# namespace that holds a device, and rmmod with devices in two namespaces.
# The runner fails the test on any oops/WARNING in the kernel log.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dcb_lib.sh"
. "$(dirname "$0")/rxe_lib.sh"

need_cmd rdma ibv_rc_pingpong ib_write_bw ib_read_bw ib_send_bw ib_send_lat python3
load_rxe
rxe_topo 1
S=${RXE_DEV[s1]}
R=${RXE_DEV[r]}
log "devices $S (s1) and $R (r)"
wait_for --timeout 20 rxe_gid s1 6 || fail "no RoCE v2 IPv6 GID on $S"
wait_for --timeout 20 rxe_gid r 6 || fail "no RoCE v2 IPv6 GID on $R"

PORT=18600
# pair NAME FAM CMD ARGS...: CMD as server in r, as client in s1.
pair()
{
	local name=$1 fam=$2 sg rg srv out rc=0 listen
	shift 2
	PORT=$((PORT + 1))
	out=$TMPD/$name-$fam
	if [ "$fam" = cm ]; then
		sg=(); rg=()
	else
		sg=(-x "$(rxe_gid s1 "$fam")"); rg=(-x "$(rxe_gid r "$fam")")
	fi
	if [ "$1" = ibv_rc_pingpong ]; then
		sg[0]=-g; rg[0]=-g
		[ "$fam" = cm ] && fail "ibv_rc_pingpong has no rdma_cm mode"
	fi
	topo_exec r timeout 150 "$@" -d "$R" "${rg[@]}" -p "$PORT" >"$out.srv" 2>&1 &
	srv=$!
	listen=rxe_listen
	[ "$fam" = cm ] && listen=rxe_cm_listen
	wait_for --timeout 30 "$listen" "$PORT" r || {
		cat "$out.srv"; fail "$name/$fam: server did not start"; }
	topo_exec s1 timeout 120 "$@" -d "$S" "${sg[@]}" -p "$PORT" "$RIP" \
		>"$out.cli" 2>&1 || rc=$?
	if [ $rc -ge 128 ] && [ "$fam" = cm ] && [ -z "${RETRIED:-}" ]; then
		# perftest's rdma_cm client has crashed in librdmacm (SIGSEGV,
		# userspace) once under heavy load: retry once, say so
		log "note: $name/cm client died with status $rc; retrying once"
		kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null
		RETRIED=1 pair "$name" cm "$@"
		return
	fi
	wait "$srv" || rc=$((rc ? rc : 100))
	if [ $rc != 0 ]; then
		tail -n 15 "$out.srv" "$out.cli"
		fail "$name over $fam: exit status $rc"
	fi
	log "ok: $name over $fam: $(grep -E '^ *[0-9]+ +[0-9]+ ' "$out.cli" | tail -n1 | tr -s ' ')$(grep -E 'Mbit/sec' "$out.cli")"
}

for fam in 4 6; do
	pair pingpong "$fam" ibv_rc_pingpong -n 200
	pair write_bw "$fam" ib_write_bw -F -s 4096 -n 500
	pair read_bw "$fam" ib_read_bw -F -s 4096 -n 500
	pair send_bw "$fam" ib_send_bw -F -s 4096 -n 500
	pair send_lat "$fam" ib_send_lat -F -s 64 -n 200
done
pair write_bw cm ib_write_bw -F -R -s 4096 -n 500
pair send_lat cm ib_send_lat -F -R -s 64 -n 200

sent=$(rxe_cnt s1 sent_pkts)
assert_ge "$sent" 2000 "packets sent by $S"

# rdma link delete, then re-add: works again
topo_exec s1 rdma link delete "$S" || fail "rdma link delete $S"
[ ! -e "/sys/class/infiniband/$S" ] || fail "$S still exists after delete"
topo_exec s1 rdma link add "$S" type rxe netdev eth0 || fail "re-adding $S"
wait_for --timeout 20 rxe_gid s1 4 || fail "no GID on $S after re-adding"
pair pingpong2 4 ibv_rc_pingpong -n 50 ||
	fail "pingpong after re-adding"

# A namespace that holds a device goes away: the device goes with it.
topo_exec r ip link set eth0 down
ip netns del "$(topo_ns r)"
wait_for --timeout 30 test ! -e "/sys/class/infiniband/$R" ||
	fail "$R survived the deletion of its namespace"
log "ok: $R removed with its namespace"

# rmmod with devices in two namespaces (s1 and a new one)
netns_add "rx2$$"
ip link add rxv$$ netns "rx2$$" type veth peer name rxp$$ netns "rx2$$"
ip -n "rx2$$" link set rxv$$ up
ip -n "rx2$$" link set rxp$$ up
ip netns exec "rx2$$" rdma link add "rx2_$$" type rxe netdev rxv$$ ||
	fail "rdma link add in a second namespace"
unload_rxe || fail "rmmod with devices in two namespaces"
[ ! -e "/sys/class/infiniband/$S" ] || fail "$S left after rmmod"
log "ok: rmmod with devices in two namespaces"
exit "$ksft_pass"
