#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 400
# suite: debug
#
# RoCEv2 fuzzing of rdma_rxe and the rxe_cc engine
# (selftests/net/rxe_bth_fuzz.py): while s1 writes to r (ib_write_bw, RC)
# with PCN on both devices, and a loop on s1 creates and destroys QPs
# (short ib_send_lat runs), both hosts send each other random RoCEv2
# packets: every opcode (CNPs included), random flags, P_Key and PSN, the
# QPs of the run or numbers next to them, ragged and truncated payloads,
# good and bad ICRCs, spoofed sources.  The guest runner fails the test on
# any kernel report.  Packets with a good ICRC may legitimately break the
# flow they hit (RoCE has no authentication), so what must hold afterwards
# is that both devices still work.  Set-up (PCN on both devices, the
# stream running) ends the test if it fails; then the steps:
#   fuzz_s1_r      the fuzzer on s1 sent its packets to r to the end;
#   fuzz_r_s1      the fuzzer on r sent its packets to s1 to the end;
#   fresh_write    after the fuzzing (the stream and the QP churn
#                  stopped) a fresh ib_write_bw between them completes,
#                  server and client.
#
# Environment: DCBLAB_FUZZ_SEED (default 1), DCBLAB_FUZZ_COUNT (packets
# each way, default 2000).
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

SEED=${DCBLAB_FUZZ_SEED:-1}
COUNT=${DCBLAB_FUZZ_COUNT:-2000}
PY=/usr/bin/python3
FUZZ=$TOP/selftests/net/rxe_bth_fuzz.py
PCN_KO=${DCBLAB_BUILD:-$TOP/build}/rxe_cc/rxe_cc_pcn.ko
need_cmd rdma ib_write_bw ib_send_lat "$PY"
[ -f "$PCN_KO" ] || fail "$PCN_KO not built (run make rxe)"

load_rxe
if [ ! -d /sys/module/rxe_cc_pcn ]; then
	insmod "$PCN_KO" || { dmesg | tail -n 20 >&2; fail "insmod $PCN_KO"; }
fi
rxe_topo 1
# the devices' algorithms go before the algorithm module's holders do
defer 'rxe_cc_none s1 r'
for h in s1 r; do
	rxe_cc "$h" algo pcn
	rxe_cc "$h" max_rate_mbps 50
done
SIP=$(topo_ip4 s1)

topo_spawn SRV r ib_write_bw -F -d "${RXE_DEV[r]}" -x "$(rxe_gid r 4)" -p 18967 \
	-D 600 -s 4096 >"$TMPD/srv" 2>&1
defer "kill $SRV 2>/dev/null; wait $SRV 2>/dev/null"
wait_for --timeout 60 rxe_listen 18967 r || fail "server did not start"
topo_spawn CLI s1 ib_write_bw -F -d "${RXE_DEV[s1]}" -x "$(rxe_gid s1 4)" -p 18967 \
	-D 600 -s 4096 "$RIP" >"$TMPD/cli" 2>&1
defer "kill $CLI 2>/dev/null; wait $CLI 2>/dev/null"
rc_qps() { rdma resource show qp link "${RXE_DEV[$1]}/1" | grep 'type RC' |
	awk '{ for (i = 1; i < NF; i++) if ($i == "lqpn") print $(i + 1) }' | paste -sd,; }
connected() { [ -n "$(rc_qps s1)" ] && [ -n "$(rc_qps r)" ]; }
wait_for --timeout 60 connected || fail "no connection"
sent_more() { [ "$(rxe_cnt s1 sent_pkts)" -gt "$1" ]; }
wait_for --timeout 30 sent_more 100 || fail "no traffic"
QS=$(rc_qps s1)
QR=$(rc_qps r)
log "QPs: s1 $QS, r $QR"

# QPs created and destroyed on both ends while the packets arrive.
churn() {
	local i
	for i in $(seq 1 1000); do
		[ ! -e "$TMPD/stop" ] || break
		topo_exec r timeout 20 ib_send_lat -F -d "${RXE_DEV[r]}" -x "$(rxe_gid r 4)" \
			-p 18968 -n 20 >/dev/null 2>&1 &
		wait_for --timeout 20 rxe_listen 18968 r
		topo_exec s1 timeout 20 ib_send_lat -F -d "${RXE_DEV[s1]}" -x "$(rxe_gid s1 4)" \
			-p 18968 -n 20 "$RIP" >/dev/null 2>&1
		wait
	done
	echo "$i" >"$TMPD/churns"
}
churn &
CHURN=$!
defer "kill $CHURN 2>/dev/null; wait $CHURN 2>/dev/null"

# Both directions at once: r's fuzzer in the background, s1's here.
topo_spawn F1 r "$PY" "$FUZZ" --seed "$SEED" --count "$COUNT" "$RIP" "$SIP" "$QS" >"$TMPD/f1" 2>&1
defer "kill $F1 2>/dev/null; wait $F1 2>/dev/null"
topo_exec s1 "$PY" "$FUZZ" --seed $((SEED + 1)) --count "$COUNT" "$SIP" "$RIP" "$QR" >"$TMPD/f2" 2>&1
check_err $? "fuzzer s1 -> r: $(tail -n1 "$TMPD/f2")"
log "s1 -> r: $(cat "$TMPD/f2")"
log_test fuzz_s1_r

wait "$F1"
check_err $? "fuzzer r -> s1: $(tail -n1 "$TMPD/f1")"
log "r -> s1: $(cat "$TMPD/f1")"
log_test fuzz_r_s1

: >"$TMPD/stop"
wait "$CHURN"
log "QP create/destroy rounds during the fuzzing: $(cat "$TMPD/churns")"
log "s1: rp_cnp_handled $(rxe_cnt s1 rp_cnp_handled) rp_cnp_ignored $(rxe_cnt s1 rp_cnp_ignored)"

# Both devices still work: the stream stops, a fresh transfer completes.
fresh_write()
{
	local srv2
	kill "$SRV" "$CLI" 2>/dev/null
	wait "$SRV" "$CLI" 2>/dev/null
	topo_spawn srv2 r timeout 60 ib_write_bw -F -d "${RXE_DEV[r]}" -x "$(rxe_gid r 4)" -p 18969 \
		-n 200 -s 4096 >"$TMPD/srv2" 2>&1
	defer_scope_push
	defer "kill $srv2 2>/dev/null; wait $srv2 2>/dev/null"
	if ! wait_for --timeout 60 rxe_listen 18969 r; then
		check_err 1 "second server did not start"
		defer_scope_pop
		return
	fi
	topo_exec s1 timeout 60 ib_write_bw -F -d "${RXE_DEV[s1]}" -x "$(rxe_gid s1 4)" -p 18969 \
		-n 200 -s 4096 "$RIP" >"$TMPD/cli2" 2>&1
	check_err $? "ib_write_bw after fuzzing: $(tail -n3 "$TMPD/cli2")"
	wait "$srv2"
	check_err $? "ib_write_bw server after fuzzing: $(tail -n3 "$TMPD/srv2")"
	defer_scope_pop
	[ "$RET" = 0 ] && log "a fresh ib_write_bw completed after the fuzzing"
}

fresh_write
log_test fresh_write

tests_exit
