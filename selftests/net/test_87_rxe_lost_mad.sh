#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A MAD that the sender's own stack drops is lost, not sent again
# forever (rxe_cc/patches/6.1/0005: on 6.1 a UD or UC packet dropped by
# a qdisc or a tc filter made the requester roll the WQE back and resend
# it for as long as the drop lasted; 6.12's rxe loses it, patch 0001 of
# that series).  rping's client on s1 connects to r while a u32 filter on
# s1's clsact egress drops every CM RTU (RoCEv2, management class 0x07
# at byte 49 of the IP packet, attribute 0x0014 at byte 64), so the
# server sends its REP again every CM timeout (about 4 s) and each REP
# gets one RTU back.  Steps:
#   lost RTU      when the second RTU is dropped, the filter has dropped
#                 at most 3 packets and s1's send_err grew by as many
#                 (before the fix: thousands, the first RTU in a loop);
#   kill client   the client, killed, exits within 30 s and leaves no
#                 rdma_cm ID on s1 (before: the ID waited for the RTU's
#                 send to complete and the process could not be killed);
#   QP1 after     with the filter gone, 3 verified rping iterations pass.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

need_cmd rping rdma
load_rxe
rxe_topo 1
rtu_drops_ge() { [ "$(rtu_drops s1)" -ge "$1" ]; }
# no_cm_id HOST PORT: no rdma_cm ID on HOST's device for port PORT
no_cm_id() { ! topo_exec "$1" rdma resource show cm_id link "${RXE_DEV[$1]}/1" | grep -q ":$2 "; }
# gone PID: the process has exited
gone() { ! kill -0 "$1" 2>/dev/null; }

port=7410
srv=
cli=
# shellcheck disable=SC2317  # for defer
kill_rping()
{
	local p
	for p in $srv $cli; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	srv=
	cli=
	return 0
}
defer kill_rping

# lost RTU
rtu_drop_on s1 || fail "u32 filter on s1"
err0=$(rxe_cnt s1 send_err)
topo_spawn srv r timeout "$(scaled_time 120)" rping -s -a "$RIP" -p $port -S 4096 -C 1 \
	>"$TMPD/srv" 2>&1
if wait_for --timeout 30 rxe_cm_listen $port r; then
	topo_spawn cli s1 rping -c -a "$RIP" -p $port -S 4096 -C 1 -V >"$TMPD/cli" 2>&1
	if wait_for --timeout "$(scaled_time 30)" rtu_drops_ge 2; then
		drops=$(rtu_drops s1)
		errs=$(($(rxe_cnt s1 send_err) - err0))
		log "lost RTU: the filter dropped $drops packets, s1's send_err +$errs"
		check_assert assert_le "$drops" 3 "packets dropped by the RTU filter"
		[ "$errs" = "$drops" ]
		check_err $? "send_err +$errs for $drops drops"
	else
		check_err 1 "fewer than 2 RTUs dropped in $(scaled_time 30) s: $(rtu_drops s1)"
	fi
else
	check_err 1 "rping server did not listen"
fi
log_test "lost RTU"

# kill client
if [ -n "$cli" ]; then
	kill -KILL "$cli"
	wait_for --timeout 30 gone "$cli"
	check_err $? "the rping client did not exit within 30 s of SIGKILL"
	wait_for --timeout 30 no_cm_id s1 $port
	check_err $? "an rdma_cm ID for port $port is left on s1: $(topo_exec s1 rdma resource show cm_id link "${RXE_DEV[s1]}/1")"
fi
kill_rping
rtu_drop_off s1 || fail "removing the u32 filter"
log_test "kill client"

# QP1 after
port=$((port + 1))
topo_spawn srv r timeout "$(scaled_time 60)" rping -s -a "$RIP" -p $port -S 4096 -C 3 \
	>"$TMPD/srv2" 2>&1
if wait_for --timeout 30 rxe_cm_listen $port r; then
	rc=0
	topo_exec s1 timeout "$(scaled_time 60)" rping -c -a "$RIP" -p $port -S 4096 -C 3 -V -v \
		>"$TMPD/cli2" 2>&1 || rc=$?
	src=0
	wait "$srv" || src=$?
	srv=
	pings=$(grep -c '^ping data: ' "$TMPD/cli2")
	log "QP1 after: client $rc, server $src, $pings of 3 pings"
	[ "$rc" = 0 ] && [ "$src" = 0 ] && [ "$pings" = 3 ]
	check_err $? "rping after the drop: client $rc, server $src, $pings of 3 pings: $(grep -hv '^ping data' "$TMPD/cli2" "$TMPD/srv2" | tr '\n' ' ')"
else
	check_err 1 "rping server did not listen"
fi
log_test "QP1 after"

tests_exit
