# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# topo.sh - network-namespace topologies for DCB lab tests and scenarios.
#
# Source it from bash (>= 4.2), then:
#
#   topo_init [PREFIX]          # optional; default prefix "dl<pid>"
#   trap topo_cleanup EXIT      # cleanup is idempotent and trap-safe
#   topo_switch sw              # routing namespace (ip_forward=1)
#   topo_host h1; topo_host rx
#   topo_link h1 sw             # veth h1:eth0 <-> sw:swp1, 10.0.1.0/24
#   topo_link rx sw             # veth rx:eth0 <-> sw:swp2, 10.0.2.0/24
#   topo_routes                 # static routes: every node reaches every host
#   topo_dcb_all switch rate 20mbit pfc ...   # sch_dcb on every switch port
#   topo_qdisc sw "$(topo_port sw rx)" dcb rate 40mbit ecn red ...
#   topo_exec h1 ping -c1 "$(topo_ip4 rx)"
#
# Names given to these functions are logical ("h1", "sw"); the namespaces
# are "<prefix>-<name>" so that parallel runs do not clash (topo_ns NAME
# prints the real name).  Interfaces live only inside the namespaces (the
# veth pair is created directly there), so their names need no prefix:
# a host's ports are eth0, eth1, ...; a switch's ports are swp1, swp2, ...
#
# Addressing: link number L (1, 2, ... in creation order) gets 10.0.L.0/24
# and fd00:dcb:0:L::/64; the switch end is .1 / ::1, the host end .2 / ::2.
# A link between two switches gets the same scheme (first switch .1).
# GRO, GSO and TSO are off on every veth so packets stay MTU sized.
# Neighbour entries of both ends are static (TOPO_STATIC_NEIGH=0: use
# ARP/ND), so no ARP/ND packet competes with the experiment's traffic.
#
# Functions print errors to stderr and return non-zero on failure.
# topo_link prints "IFACE_OF_A IFACE_OF_B"; call it directly, not in $(...),
# because it records state in the calling shell (use topo_port afterwards).

# Repository root (for TC_LIB_DIR of the dcb tc plugin).
TOPO_REPO=${TOPO_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}

declare -gA TOPO_KIND=()	# name -> host|switch
declare -gA TOPO_NIF=()		# name -> number of ports so far
declare -gA TOPO_PORT=()	# "a,b" -> iface of a toward b
declare -gA TOPO_ADDR4=()	# "a,b" -> IPv4 of a on the a-b link
declare -gA TOPO_ADDR6=()	# "a,b" -> IPv6 of a on the a-b link
declare -gA TOPO_SUBNET=()	# "a,b" -> link number
declare -ga TOPO_NAMES=()	# creation order
declare -ga TOPO_LINKS=()	# "a,b" in creation order
TOPO_NLINKS=${TOPO_NLINKS:-0}
TOPO_PREFIX=${TOPO_PREFIX:-dl$$}

topo_log() { [ -n "${TOPO_VERBOSE:-}" ] && echo "topo: $*" >&2; return 0; }
topo_err() { echo "topo: error: $*" >&2; return 1; }

# Under TCG every fork costs tens of milliseconds, so the functions below
# avoid $(...) of shell functions and pipelines: set-up time of a test is
# mostly process creation.

# Run a command, reporting it on failure.
topo_run()
{
	topo_log "$*"
	"$@" || { topo_err "failed: $*"; return 1; }
}

# topo_init [PREFIX]: set the namespace name prefix (default dl<pid>).
topo_init()
{
	[ -n "${1:-}" ] && TOPO_PREFIX=$1
	case $TOPO_PREFIX in
	*[!A-Za-z0-9_.-]*) topo_err "bad prefix '$TOPO_PREFIX'"; return 1;;
	esac
	return 0
}

# topo_ns NAME: the real namespace name of logical node NAME.
topo_ns() { echo "${TOPO_PREFIX}-$1"; }

# topo_exec NAME CMD...: run CMD inside node NAME's namespace.
topo_exec()
{
	local n=$1; shift
	ip netns exec "${TOPO_PREFIX}-$n" "$@"
}

# safety_margin SECONDS: how long after a run should have ended its
# traffic processes are killed, a safety net: SECONDS times the tests'
# timeout scale (DCBLAB_TIMEOUT_SCALE, 6 under make check-debug, where
# starting and connecting the processes takes that much longer).
safety_margin() { echo $(($1 * ${DCBLAB_TIMEOUT_SCALE:-1})); }

# topo_spawn VAR NAME CMD...: start CMD in node NAME's namespace in the
# background and put its pid in VAR.  `topo_exec NAME CMD &` puts the pid
# of a subshell running the function in $!, and killing that leaves CMD
# running; here the pid is ip netns exec's, which CMD replaces.
# Redirections given to topo_spawn apply to CMD.
topo_spawn()
{
	local n=$2
	ip netns exec "${TOPO_PREFIX}-$n" "${@:3}" &
	printf -v "$1" '%s' "$!"
}

topo_new_ns()
{
	local name=$1 kind=$2 ns
	[ -n "$name" ] || { topo_err "missing node name"; return 1; }
	[ -z "${TOPO_KIND[$name]:-}" ] || { topo_err "node $name exists"; return 1; }
	ns=${TOPO_PREFIX}-$name
	topo_run ip netns add "$ns" || return 1
	TOPO_KIND[$name]=$kind
	TOPO_NIF[$name]=0
	TOPO_NAMES+=("$name")
	topo_run ip -n "$ns" link set lo up || return 1
	# Addresses are usable at once (no DAD wait for the tests); a switch
	# forwards IPv4 and IPv6.  One process: start-up is slow under TCG.
	if [ "$kind" = switch ]; then
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 net.ipv4.ip_forward=1 \
			net.ipv6.conf.all.forwarding=1 >/dev/null || return 1
	else
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 >/dev/null 2>&1
	fi
	return 0
}

# topo_host NAME: create an end-host namespace.
topo_host() { topo_new_ns "$1" host; }

# topo_switch NAME: create a routing switch namespace (IPv4 and IPv6
# forwarding on).
topo_switch() { topo_new_ns "$1" switch; }

topo_ifname()
{
	_topo_ifname "$1"
	echo "$TOPO_IFNAME"
}

# _topo_ifname NODE: TOPO_IFNAME = the name of NODE's next port.
_topo_ifname()
{
	local i=${TOPO_NIF[$1]}
	if [ "${TOPO_KIND[$1]}" = switch ]; then
		TOPO_IFNAME=swp$((i + 1))
	else
		TOPO_IFNAME=eth$i
	fi
}

# topo_veth_setup NODE DEV: offloads and RPS of NODE's DEV (one process).
topo_veth_setup() { _topo_end_setup "$1" "$2" ""; }

# _topo_end_setup NODE DEV IPCMDS: offloads and RPS of NODE's DEV, then the
# ip commands IPCMDS (batch), in one process chain.
_topo_end_setup()
{
	local n=$1 dev=$2 rps=
	# A veth hands a packet to the backlog of the CPU that sent it, so
	# a flow sent from two CPUs in turn (a paced requester, a qdisc run
	# from its watchdog) arrives reordered, which RoCE's go-back-N pays
	# for.  RPS on every CPU hashes each flow to one backlog, as a NIC's
	# RSS would.  TOPO_RPS=0 keeps the kernel default (off).  (Set inside
	# the namespace: moving a device to another one drops its RPS map.)
	[ -n "${TOPO_CPUMASK:-}" ] || TOPO_CPUMASK=$(topo_cpumask)
	[ "${TOPO_RPS:-1}" = 1 ] &&
		rps="echo $TOPO_CPUMASK > /sys/class/net/$dev/queues/rx-0/rps_cpus || echo 'cannot set rps_cpus of $dev' >&2"
	topo_log "set-up of $dev in $n: $3"
	# MTU-sized packets: no aggregation on receive, no offload on send.
	ip netns exec "${TOPO_PREFIX}-$n" sh -c "ethtool -K $dev gro off gso off tso off >/dev/null 2>&1 ||
		echo 'topo: error: ethtool -K $dev failed (packets may not be MTU sized)' >&2
		$rps
		${3:+exec ip -batch -}" <<<"$3" ||
		{ topo_err "failed in $n: $3"; return 1; }
}

# topo_batch NODE [-6]: run the ip commands on stdin in NODE's namespace,
# in one process (process start-up is what makes set-up slow in a TCG
# guest).
topo_batch()
{
	local n=$1 cmds; shift
	IFS= read -r -d '' cmds || true
	while [[ $cmds == *$'\n' ]]; do cmds=${cmds%$'\n'}; done
	topo_log "batch in $n: $cmds"
	ip -n "${TOPO_PREFIX}-$n" "$@" -batch - <<<"$cmds" ||
		{ topo_err "failed in $n: $cmds"; return 1; }
}

# The hex mask of every online CPU.
topo_cpumask() { printf '%x\n' $(( (1 << $(nproc)) - 1 )); }

# topo_link_end NODE DEV ADDR4 ADDR6 PEER4 PEER6 PEERMAC: up, addresses
# and (unless TOPO_STATIC_NEIGH=0) static neighbours of one veth end.
topo_link_end()
{
	_topo_link_cmds "$@"
	topo_batch "$1" <<<"$TOPO_CMDS"
}

# _topo_link_cmds: as topo_link_end, the ip commands into TOPO_CMDS.
_topo_link_cmds()
{
	TOPO_CMDS="link set dev $2 up
addr add $3/24 dev $2
addr add $4/64 dev $2 nodad"
	if [ "${TOPO_STATIC_NEIGH:-1}" = 1 ]; then
		TOPO_CMDS+="
neigh replace $5 lladdr $7 dev $2 nud permanent
neigh replace $6 lladdr $7 dev $2 nud permanent"
	fi
}

# topo_link A B: veth between nodes A and B (host-switch or switch-switch).
# Prints "IFACE_A IFACE_B".
topo_link()
{
	local a=$1 b=$2 ia ib l a4 b4 a6 b6 ma mb tmp swapped=
	[ -n "${TOPO_KIND[$a]:-}" ] || { topo_err "no node $a"; return 1; }
	[ -n "${TOPO_KIND[$b]:-}" ] || { topo_err "no node $b"; return 1; }
	[ -z "${TOPO_PORT[$a,$b]:-}" ] || { topo_err "$a and $b already linked"; return 1; }
	if [ "${TOPO_KIND[$a]}" = host ] && [ "${TOPO_KIND[$b]}" = host ]; then
		topo_err "link $a-$b: one end must be a switch"; return 1
	fi
	# the switch end (or the first switch) gets .1
	if [ "${TOPO_KIND[$a]}" = host ]; then
		tmp=$a; a=$b; b=$tmp
		swapped=1
	fi
	# a fresh guest may not have the veth driver loaded yet
	[ -d /sys/module/veth ] || modprobe -q veth 2>/dev/null
	l=$((TOPO_NLINKS + 1))
	[ $l -le 254 ] || { topo_err "too many links"; return 1; }
	_topo_ifname "$a"; ia=$TOPO_IFNAME
	_topo_ifname "$b"; ib=$TOPO_IFNAME
	# fixed MACs (link number, end): the static neighbours need no lookup
	printf -v ma '02:dc:b0:00:%02x:01' "$l"; printf -v mb '02:dc:b0:00:%02x:02' "$l"
	topo_run ip link add "$ia" address "$ma" mtu "${TOPO_MTU:-1500}" \
		netns "${TOPO_PREFIX}-$a" type veth peer name "$ib" address "$mb" \
		mtu "${TOPO_MTU:-1500}" netns "${TOPO_PREFIX}-$b" || return 1
	TOPO_NLINKS=$l
	TOPO_NIF[$a]=$((TOPO_NIF[$a] + 1))
	TOPO_NIF[$b]=$((TOPO_NIF[$b] + 1))
	TOPO_PORT[$a,$b]=$ia; TOPO_PORT[$b,$a]=$ib
	TOPO_SUBNET[$a,$b]=$l; TOPO_SUBNET[$b,$a]=$l
	TOPO_LINKS+=("$a,$b")
	a4=10.0.$l.1; b4=10.0.$l.2
	a6=fd00:dcb:0:$l::1; b6=fd00:dcb:0:$l::2
	TOPO_ADDR4[$a,$b]=$a4; TOPO_ADDR4[$b,$a]=$b4
	TOPO_ADDR6[$a,$b]=$a6; TOPO_ADDR6[$b,$a]=$b6
	# Static neighbours: no ARP/ND, whose packets would queue behind (or
	# be dropped by) a congested port in the middle of an experiment.
	_topo_link_cmds "$a" "$ia" "$a4" "$a6" "$b4" "$b6" "$mb"
	_topo_end_setup "$a" "$ia" "$TOPO_CMDS" || return 1
	_topo_link_cmds "$b" "$ib" "$b4" "$b6" "$a4" "$a6" "$ma"
	_topo_end_setup "$b" "$ib" "$TOPO_CMDS" || return 1
	if [ -n "${swapped:-}" ]; then
		echo "$ib $ia"
	else
		echo "$ia $ib"
	fi
}

# topo_port A B: A's interface toward B.
topo_port()
{
	[ -n "${TOPO_PORT[$1,$2]:-}" ] || { topo_err "no link $1-$2"; return 1; }
	echo "${TOPO_PORT[$1,$2]}"
}

# topo_peers NAME: the nodes linked to NAME (one per line).
topo_peers()
{
	_topo_peers "$1"
	[ ${#TOPO_PEERS[@]} = 0 ] || printf '%s\n' "${TOPO_PEERS[@]}"
}

# _topo_peers NAME: TOPO_PEERS = the nodes linked to NAME (an array).
_topo_peers()
{
	local k
	TOPO_PEERS=()
	for k in "${TOPO_LINKS[@]}"; do
		case $k in
		"$1",*) TOPO_PEERS+=("${k#*,}");;
		*,"$1") TOPO_PEERS+=("${k%,*}");;
		esac
	done
}

# topo_ip4 NAME [PEER] / topo_ip6 NAME [PEER]: NAME's address on its link
# to PEER (default: its first link).
topo_ip4()
{
	local p=${2:-}
	[ -n "$p" ] || { _topo_peers "$1"; p=${TOPO_PEERS[0]:-}; }
	[ -n "${TOPO_ADDR4[$1,$p]:-}" ] || { topo_err "no address for $1"; return 1; }
	echo "${TOPO_ADDR4[$1,$p]}"
}

topo_ip6()
{
	local p=${2:-}
	[ -n "$p" ] || { _topo_peers "$1"; p=${TOPO_PEERS[0]:-}; }
	[ -n "${TOPO_ADDR6[$1,$p]:-}" ] || { topo_err "no address for $1"; return 1; }
	echo "${TOPO_ADDR6[$1,$p]}"
}

# topo_routes: static routes for any tree or mesh of switches.  Each
# host gets a default route (IPv4 and IPv6) via the switch of its first
# link.  Every node (switch, or host with more than one link) gets a route
# to every host subnet it is not attached to, via the neighbour on a
# shortest path (breadth-first search over the recorded links; hosts never
# forward, so paths cross switches only).  Links between two switches are
# not routed beyond their two ends.
topo_routes()
{
	local n sw h s l nh r4 r6 np
	for n in "${TOPO_NAMES[@]}"; do
		r4=; r6=
		_topo_peers "$n"; np=${#TOPO_PEERS[@]}
		if [ "${TOPO_KIND[$n]}" = host ]; then
			sw=${TOPO_PEERS[0]:-}
			[ -n "$sw" ] || continue
			r4="route replace default via ${TOPO_ADDR4[$sw,$n]}"$'\n'
			r6="route replace default via ${TOPO_ADDR6[$sw,$n]}"$'\n'
		fi
		if [ "${TOPO_KIND[$n]}" = switch ] || [ "$np" -gt 1 ]; then
			topo_bfs "$n"
			# every host subnet: the link of host h to its switch s
			for h in "${TOPO_NAMES[@]}"; do
				[ "${TOPO_KIND[$h]}" = host ] || continue
				[ "$h" = "$n" ] && continue
				_topo_peers "$h"
				for s in "${TOPO_PEERS[@]}"; do
					l=${TOPO_SUBNET[$h,$s]}
					# attached to that subnet already
					[ "$s" = "$n" ] && continue
					nh=${TOPO_FIRSTHOP[$s]:-}
					[ -n "$nh" ] || continue	# not reachable
					r4+="route replace 10.0.$l.0/24 via ${TOPO_ADDR4[$nh,$n]}"$'\n'
					r6+="route replace fd00:dcb:0:$l::/64 via ${TOPO_ADDR6[$nh,$n]}"$'\n'
				done
			done
		fi
		[ -z "$r4" ] || topo_batch "$n" <<<"$r4" || return 1
		[ -z "$r6" ] || topo_batch "$n" -6 <<<"$r6" || return 1
	done
}

# topo_bfs NODE: breadth-first search from NODE through switches; fills
# TOPO_FIRSTHOP[X] with NODE's neighbour on a shortest path to switch X
# (and TOPO_HOPS[X] with the number of links).  Ties go to the link
# created first.
declare -gA TOPO_FIRSTHOP=()
declare -gA TOPO_HOPS=()
topo_bfs()
{
	local src=$1 cur p head=0
	local -a queue=("$src")
	TOPO_FIRSTHOP=(); TOPO_HOPS=()
	TOPO_HOPS[$src]=0
	while [ $head -lt ${#queue[@]} ]; do
		cur=${queue[$head]}; head=$((head + 1))
		# only the source and switches forward
		[ "$cur" = "$src" ] || [ "${TOPO_KIND[$cur]}" = switch ] || continue
		_topo_peers "$cur"
		for p in "${TOPO_PEERS[@]}"; do
			[ -n "${TOPO_HOPS[$p]:-}" ] && continue
			TOPO_HOPS[$p]=$((TOPO_HOPS[$cur] + 1))
			if [ "$cur" = "$src" ]; then
				TOPO_FIRSTHOP[$p]=$p
			else
				TOPO_FIRSTHOP[$p]=${TOPO_FIRSTHOP[$cur]}
			fi
			queue+=("$p")
		done
	done
}

# topo_ports NODE: NODE's interfaces, one per line (creation order).
topo_ports()
{
	local p
	for p in $(topo_peers "$1"); do
		echo "${TOPO_PORT[$1,$p]}"
	done
}

# topo_dcb_node NODE ARGS...: sch_dcb as the root qdisc of every port of
# NODE: `tc qdisc replace dev PORT root handle 1: dcb ARGS...`.  With PFC
# every port of a switch must carry one (a port is an ingress port of the
# pool only when its device's root qdisc is sch_dcb), and so must every
# host NIC (it obeys the PAUSE frames it receives).
topo_dcb_node()
{
	local n=$1 p cmds=; shift
	_topo_peers "$n"
	for p in "${TOPO_PEERS[@]}"; do
		cmds+="qdisc replace dev ${TOPO_PORT[$n,$p]} root handle 1: dcb $*"$'\n'
	done
	[ -n "$cmds" ] || return 0
	topo_log "tc batch in $n: $cmds"
	# one tc for every port (process start-up is slow under TCG)
	topo_tc "$n" -batch - <<<"$cmds" ||
		{ topo_err "failed in $n: $cmds"; return 1; }
}

# topo_dcb_all KIND ARGS...: topo_dcb_node on every node of KIND (host or
# switch), e.g.  topo_dcb_all switch rate 20mbit buffer 300kb pfc ...
#                topo_dcb_all host rate 20mbit limit 4mb pfc ...
topo_dcb_all()
{
	local kind=$1 n; shift
	for n in "${TOPO_NAMES[@]}"; do
		[ "${TOPO_KIND[$n]}" = "$kind" ] || continue
		topo_dcb_node "$n" "$@" || return 1
	done
}

# topo_tc NAME ARGS...: tc inside NAME's namespace with the dcb plugin.
# tc -n enters the namespace itself: one process start instead of the two
# of `ip netns exec NS tc` (process starts are slow in a TCG guest).
topo_tc()
{
	local n=$1; shift
	TC_LIB_DIR=${TC_LIB_DIR:-$TOPO_REPO/tc} tc -n "${TOPO_PREFIX}-$n" "$@"
}

# topo_qdiscs_json NAME [DEV]: `tc -j -s qdisc show` of NAME (or of its
# DEV), where each root sch_dcb qdisc has .bands: its 8 bands' counters,
# each with "band": N.  sch_dcb dumps a band's counters in its class only
# (band N is class 1:N+1), and Debian 12's tc prints classes as text, so
# they come from one dcbmon snapshot of NAME's sch_dcb ports.
# (_topo_qdiscs_json NAME DEV FILTER: the same piped through the jq
# program FILTER, in the same jq run, strings printed raw: each jq start
# costs about 0.25 s in a TCG guest.)
topo_qdiscs_json() { _topo_qdiscs_json "$1" "${2:-}" .; }

_topo_qdiscs_json()
{
	local n=$1 dev=$2 ns=${TOPO_PREFIX}-$1 q b='' devs
	q=$(topo_tc "$n" -j -s qdisc show ${dev:+dev "$dev"}) || return 1
	# the ports as dcbmon's NETNS:DEV (it enters the namespace itself).
	# One device: dcbmon refuses it when its root qdisc is not sch_dcb.
	if [ -n "$dev" ]; then
		b=$("$TOPO_REPO/tools/dcbmon" -c 1 -a -j "$ns:$dev" 2>/dev/null) ||
			b=
	else
		devs=$(jq -r --arg ns "$ns" '.[] | select(.kind == "dcb" and
			.root == true) | "\($ns):\(.dev)"' <<<"$q")
		if [ -n "$devs" ]; then
			# shellcheck disable=SC2086
			b=$("$TOPO_REPO/tools/dcbmon" -c 1 -a -j $devs) || return 1
		fi
	fi
	# (tc omits "dev" when asked for one device)
	# shellcheck disable=SC2016
	jq -rc --arg dev "$dev" --argjson b "[${b//$'\n'/,}]" 'map(if
		.kind == "dcb" and .root == true then (.dev // $dev) as $d | .bands = [$b[] |
			select(.dev == $d and .band != "all") |
			del(.t_ms, .t_unix_ms, .netns, .dev, .pool_used)]
		else . end) | '"$3" <<<"$q"
}

# topo_qdisc NAME DEV ARGS...: install a qdisc on NAME's DEV.  ARGS that
# start with a qdisc kind are installed as "root handle 1: KIND ..."
# (replacing what was there); ARGS starting with root/parent/handle are
# passed as they are.
topo_qdisc()
{
	local n=$1 dev=$2; shift 2
	case ${1:-} in
	root|parent|handle)
		topo_run topo_tc "$n" qdisc replace dev "$dev" "$@";;
	*)
		topo_run topo_tc "$n" qdisc replace dev "$dev" root handle 1: "$@";;
	esac
}

# topo_cleanup: kill what runs in our namespaces and delete them.
# Idempotent; safe to call from an EXIT/INT/TERM trap.
topo_cleanup()
{
	local n ns pids i
	for n in "${TOPO_NAMES[@]}"; do
		ns=${TOPO_PREFIX}-$n
		pids=$(ip netns pids "$ns" 2>/dev/null)
		[ -n "$pids" ] && kill $pids 2>/dev/null
	done
	for n in "${TOPO_NAMES[@]}"; do
		ns=${TOPO_PREFIX}-$n
		for i in 1 2 3 4 5 6 7 8 9 10; do
			pids=$(ip netns pids "$ns" 2>/dev/null)
			[ -z "$pids" ] && break
			[ $i -eq 10 ] && kill -9 $pids 2>/dev/null
			sleep 0.1
		done
		ip netns del "$ns" 2>/dev/null
	done
	TOPO_NAMES=(); TOPO_LINKS=(); TOPO_NLINKS=0
	TOPO_KIND=(); TOPO_NIF=(); TOPO_PORT=(); TOPO_ADDR4=(); TOPO_ADDR6=()
	TOPO_SUBNET=()
	return 0
}
