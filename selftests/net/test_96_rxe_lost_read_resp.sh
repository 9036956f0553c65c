#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# An RDMA READ response that the responder's own stack drops is lost, as
# on the wire, and the READ recovers (rxe_cc/patches/6.1/0006).  On 6.1
# rxe_xmit_packet() returned -EAGAIN for it and read_reply() took that for
# an RNR condition: it sent an RNR NAK and kept the READ's responder
# resource, already marked past its first packet.  The next request the
# responder took continued that resource with a MIDDLE packet at the
# READ's first PSN; the requester, expecting a FIRST, hit the
# WARN_ON_ONCE() in rxe_completer()'s error state and moved the QP to
# the error state (perftest: "Completion with error", status 5).  6.12's
# rxe loses the packet (patch 0001 of that series).
#
# s1's ib_read_bw reads 64 KB messages from r (64 response packets each,
# several READs outstanding) while a u32 filter on r's clsact egress
# drops every DROP_EVERY-th RDMA READ response FIRST packet (BTH opcode
# 0x0d at byte 28 of the IP packet).  Steps:
#   lost responses  the filter dropped some, r's send_err grew by as
#                   many, and s1 retried;
#   every READ      ib_read_bw completes all READs and exits 0 (before:
#                   status 5 at the first drop).
# These two need act_gact's deterministic drop (CONFIG_GACT_PROB); a
# kernel without it reports them as skipped.  The suite's kernel-log check
# fails the test on the WARNING too.
#   destroy paced   r's device paced at 1 Mb/s (max_rate_mbps), s1 reads
#                   4 MB messages for 3 s; r's ib_read_bw then destroys
#                   its QP with READs still queued for its responder.
#                   The queued request packets hold references the
#                   destroy waits for (50 s, then a WARNING): the
#                   server must exit within 20 s of the client (before
#                   rxe_cc_qp_destroying(): the WARNING in
#                   __rxe_cleanup() on the debug kernel, after 50 s).
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

need_cmd ib_read_bw rdma tc
READS=300
DROP_EVERY=25
RPORT=18960
srv=

load_rxe
rxe_topo 1
ns=$(topo_ns r)
tc -n "$ns" qdisc add dev eth0 clsact || fail "clsact on r"
# drops: packets the filter's action dropped
drops()
{
	tc -n "$ns" -s filter show dev eth0 egress |
		sed -n 's/.*Sent [0-9]* bytes [0-9]* pkt (dropped \([0-9]*\),.*/\1/p' | head -n1
}
# shellcheck disable=SC2317  # for defer
kill_srv() { [ -z "$srv" ] || { kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null; }; srv=; }
defer kill_srv
# gone PID: the process has exited
gone() { ! kill -0 "$1" 2>/dev/null; }

if ! out=$(tc -n "$ns" filter add dev eth0 egress protocol ip prio 1 u32 \
	match ip protocol 17 0xff match ip dport 4791 0xffff \
	match u8 0x0d 0xff at 28 \
	action gact pass random determ drop "$DROP_EVERY" 2>&1); then
	log "SKIP: lost responses, every READ: this kernel's act_gact has no deterministic drop (CONFIG_GACT_PROB): $out"
else
	err0=$(rxe_cnt r send_err)
	retry0=$(rxe_cnt s1 completer_retry_err)
	topo_spawn srv r timeout "$(scaled_time 200)" ib_read_bw -F -d "${RXE_DEV[r]}" \
		-x "$(rxe_gid r 4)" -p "$RPORT" -s 65536 -n "$READS" >"$TMPD/srv" 2>&1
	wait_for --timeout 60 rxe_listen "$RPORT" r ||
		fail "ib_read_bw server did not start: $(tail -n 5 "$TMPD/srv" | tr '\n' ' ')"
	rc=0
	topo_exec s1 timeout "$(scaled_time 200)" ib_read_bw -F -d "${RXE_DEV[s1]}" \
		-x "$(rxe_gid s1 4)" -p "$RPORT" -s 65536 -n "$READS" "$RIP" >"$TMPD/cli" 2>&1 || rc=$?
	wait "$srv" || rc=$((rc ? rc : 100))
	srv=
	d=$(drops)
	errs=$(($(rxe_cnt r send_err) - err0))
	retries=$(($(rxe_cnt s1 completer_retry_err) - retry0))
	log "the filter dropped ${d:-?} READ response FIRST packets, r's send_err +$errs, s1's retries +$retries"

	check_assert assert_ge "${d:-0}" 1 "READ response FIRST packets dropped by the filter"
	[ "$errs" = "${d:-0}" ]
	check_err $? "r's send_err +$errs for ${d:-?} drops"
	check_assert assert_ge "$retries" 1 "s1's completer retries"
	log_test "lost responses"

	if [ "$rc" != 0 ] || ! grep -qE "^ *65536 +$READS " "$TMPD/cli"; then
		tail -n 8 "$TMPD/cli" "$TMPD/srv"
		check_err 1 "ib_read_bw: exit status $rc"
	fi
	log_test "every READ completes"
	tc -n "$ns" filter del dev eth0 egress prio 1
fi

# destroy paced
rxe_cc r max_rate_mbps 1
defer "rxe_cc r max_rate_mbps 0"
delays0=$(rxe_cnt r cc_pacer_delays)
topo_spawn srv r timeout "$(scaled_time 200)" ib_read_bw -F -d "${RXE_DEV[r]}" \
	-x "$(rxe_gid r 4)" -p $((RPORT + 1)) -s 4194304 -D 3 >"$TMPD/srv2" 2>&1
wait_for --timeout 60 rxe_listen $((RPORT + 1)) r ||
	fail "ib_read_bw server did not start: $(tail -n 5 "$TMPD/srv2" | tr '\n' ' ')"
topo_exec s1 timeout "$(scaled_time 200)" ib_read_bw -F -d "${RXE_DEV[s1]}" \
	-x "$(rxe_gid s1 4)" -p $((RPORT + 1)) -s 4194304 -D 3 "$RIP" >"$TMPD/cli2" 2>&1
t0=$EPOCHREALTIME
wait_for --timeout 20 gone "$srv"
check_err $? "r's ib_read_bw still runs 20 s after the client ended (its QP's destroy waits)"
log "r's ib_read_bw exited $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s after the client; r's pacer delays +$(($(rxe_cnt r cc_pacer_delays) - delays0))"
check_assert assert_ge $(($(rxe_cnt r cc_pacer_delays) - delays0)) 1 "r's pacer held its READ responses"
log_test "destroy paced"

tests_exit
