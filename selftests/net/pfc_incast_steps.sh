# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# selftests/net/pfc_incast_steps.sh - the steps test_40 (veth links) and
# test_54 (NIC links) take over the pfc_incast experiment, sourced after
# lib.sh by a test that sets N and PKTS (senders, datagrams each), KNOBS
# (the experiment's knobs), ON and OFF (its folders with PFC on and off)
# and r OUT METRIC (exp_row).  Each test adds its own pause step.
#   lossless  every datagram received, no drop anywhere;
#   wire      the receiver's capture on h1: PFC band 3 frames only, as many
#             PAUSE and RESUME as h1's switch port counted;
#   pfc_off   PFC off, same buffer: drops, datagrams missing.

lossless()
{
	exp_run "$ON" pfc_incast "${KNOBS[@]}" capture=on
	check_err $? "the pfc_incast experiment (PFC on) failed"
	[ "$RET" = 0 ] || return
	log "sent $(r "$ON" datagrams_sent) received $(r "$ON" datagrams_received) in $(r "$ON" fct_max) s;" \
		"drops $(r "$ON" drops_all): $(grep '^drops_all\.' "$ON/rows.csv" | paste -sd' ')"
	log "switch PAUSE sent $(r "$ON" pause_tx.all), senders PAUSE received" \
		"$(r "$ON" pause_rx.all), paused $(r "$ON" paused_us.all) us; rx port peak" \
		"$(r "$ON" queue_max) KB, pool peak $(r "$ON" pool_peak) KB"
	check_assert assert_ge "$(r "$ON" datagrams_sent)" $((N * PKTS)) "datagrams sent"
	check_assert assert_le "$(r "$ON" drops_all)" 0 "drops anywhere with PFC on"
	check_assert assert_ge "$(r "$ON" datagrams_received)" "$(r "$ON" datagrams_sent)" "datagrams received with PFC on"
}

wire()
{
	local npause nresume p1 r1
	if [ ! -s "$ON/rows.csv" ]; then
		check_err 1 "no incast with PFC on to look at"
		return
	fi
	npause=$(r "$ON" wire_pause) nresume=$(r "$ON" wire_resume)
	p1=$(r "$ON" pause_tx.h1) r1=$(r "$ON" resume_tx.h1)
	log "on the wire: $npause PAUSE (quanta 0x1234), $nresume RESUME," \
		"$(r "$ON" wire_other) other; port counted $p1 and $r1"
	check_assert assert_le "$(r "$ON" capture_dropped)" 0 "frames the capture lost (tcpdump's report)"
	check_assert assert_le "$(r "$ON" wire_other)" 0 "frames not decoded as PFC band 3 quanta 0x1234/0"
	check_assert assert_ge "$npause" 1 "PFC PAUSE frames decoded by tshark"
	check_assert assert_ge "$npause" "$p1" "PAUSE frames on the wire vs pause_tx"
	check_assert assert_le "$npause" "$p1" "PAUSE frames on the wire vs pause_tx"
	check_assert assert_ge "$nresume" "$r1" "RESUME frames on the wire vs resume_tx"
	check_assert assert_le "$nresume" "$r1" "RESUME frames on the wire vs resume_tx"
}

pfc_off()
{
	# Without PFC the eight senders offer 8 x line rate to the switch,
	# which saturates the guest's CPU; what this step asserts (drops,
	# datagrams missing) holds whatever the CPU does, so the guard only
	# warns here (the share is in the rows: cpu_busy).
	DCBLAB_CPU_GUARD=warn exp_run "$OFF" pfc_incast "${KNOBS[@]}" pfc=off
	check_err $? "the pfc_incast experiment (PFC off) failed"
	[ "$RET" = 0 ] || return
	log "PFC off: sent $(r "$OFF" datagrams_sent) received $(r "$OFF" datagrams_received);" \
		"drops $(r "$OFF" drops_all): $(grep '^drops_all\.' "$OFF/rows.csv" | paste -sd' ')"
	# The premise: the senders overloaded the port, so that the pool
	# filled (its peak within 10 % of the buffer).  A kernel too slow to
	# offer the overload (the debug kernel in real time: 24 000 of 24 000
	# received, nothing dropped) shows nothing about PFC: check_perf.
	local buf=1mb k
	for k in "${KNOBS[@]}"; do
		case $k in buffer=*) buf=${k#buffer=} ;; esac
	done
	if ! awk -v p="$(r "$OFF" pool_peak)" -v b="$(tc_size_bytes "$buf")" \
		'BEGIN { exit !(p * 1024 >= 0.9 * b) }'; then
		check_perf "the premise: with PFC off the pool peaked at $(r "$OFF" pool_peak) KB of $buf (the senders did not overload the port)" false
		return
	fi
	check_assert assert_ge "$(r "$OFF" drops_all)" 1 "drops with PFC off"
	check_assert assert_le "$(r "$OFF" datagrams_received)" $(($(r "$OFF" datagrams_sent) - 1)) "datagrams received with PFC off"
}
