#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# The notification point's CNP window (DCQCN paper, Fig. 6): at most one
# CNP per min_time_between_cnps N for a QP, and a CE packet inside the
# window earns a CNP when the window ends (cc/np_cnp_window_end 1, the
# default); with np_cnp_window_end 0 (mlx5's behaviour) it is forgotten.
# s1 writes single packets to r (rc_verbs.py --gate: the test releases
# each one), ECT(0) with algo fixed, CE-marked by every packet at the
# switch port (ecn step k 0); r's N is 1 s.
#  - paper rule: the first CE packet gets a CNP at once; a second one
#    inside the window does not, but a CNP follows when the window ends,
#    1.0-1.3 s after the first (tracepoint time stamps);
#  - mlx5 rule: after the window a CE packet gets a CNP at once, a second
#    one inside the window gets none, also 2.5 s later.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dcb_lib.sh"
. "$(dirname "$0")/rxe_lib.sh"

PY=/usr/bin/python3
need_cmd rdma
$PY -c 'import pyverbs.qp' 2>/dev/null || skip "python3-pyverbs not installed"
load_rxe
rxe_topo 1
N_US=1000000
for h in s1 r; do
	rxe_cc "$h" algo fixed
done
rxe_cc r min_time_between_cnps "$N_US"
[ "$(rxe_cc r np_cnp_window_end)" = 1 ] || fail "np_cnp_window_end is not 1 by default"
dcb_set rate 10mbit ecn step k 0
tr_on rxe_cc/rxe_cc_cnp_sent || fail "no rxe_cc_cnp_sent tracepoint"
echo >"$TR/trace"
at_exit 'tr_mute rxe_cc/rxe_cc_cnp_sent'

D=$(mktemp -d /var/tmp/rxe87.XXXXXX)
at_exit "rm -rf '$D'"
cnp() { rxe_cnt r np_cnp_sent; }
ce() { rxe_cnt r np_ecn_marked_roce_packets; }
cnp_is() { [ "$(cnp)" = "$1" ]; }
ce_is() { [ "$(ce)" = "$1" ]; }
c0=$(cnp)
e0=$(ce)

# four one-packet WRITEs, each released by go.K
topo_exec r $PY "$TOP/selftests/net/rc_verbs.py" resp "${RXE_DEV[r]}" \
	"$(rxe_gid r 4)" "$D" --count 4 --size 512 --deadline 120 \
	>"$D/resp.out" 2>&1 &
RESP=$!
topo_exec s1 $PY "$TOP/selftests/net/rc_verbs.py" req "${RXE_DEV[s1]}" \
	"$(rxe_gid s1 4)" "$D" --count 4 --size 512 --gate --deadline 100 \
	>"$D/req.out" 2>&1 &
REQ=$!

# 1. paper rule: write 0 -> CE -> CNP at once
wait_for --timeout 60 ce_is $((e0 + 1)) || fail "no CE packet at r ($(cat "$D/req.out"))"
wait_for --timeout 5 cnp_is $((c0 + 1)) || fail "no CNP for the first CE packet"
t1=${EPOCHREALTIME/[.,]/}
# write 1 inside the window: CE, no CNP yet
: >"$D/go.1"
wait_for --timeout 10 ce_is $((e0 + 2)) || fail "write 1 not CE-marked at r"
t2=${EPOCHREALTIME/[.,]/}
n=$(cnp)
log "second CE packet $(( (t2 - t1) / 1000 )) ms after the first CNP was seen: CNPs $((n - c0))"
[ $((t2 - t1)) -lt 800000 ] || fail "the second CE packet came $(( (t2 - t1) / 1000 )) ms late; the window is 1 s"
assert_le "$n" $((c0 + 1)) "paper rule: no CNP for a CE packet inside the window, at once"
# ... but one when the window ends
wait_for --timeout 5 cnp_is $((c0 + 2)) || fail "paper rule: no CNP at the window's end"
ts=($(grep 'rxe_cc_cnp_sent:' "$TR/trace" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { sub(/:$/, "", $i); print $i; break } }'))
[ ${#ts[@]} = 2 ] || fail "rxe_cc_cnp_sent fired ${#ts[@]} times, want 2"
gap=$(awk -v a="${ts[0]}" -v b="${ts[1]}" 'BEGIN { printf "%.3f", b - a }')
log "paper rule: the deferred CNP went ${gap} s after the first (N = 1 s)"
assert_ge "$gap" 0.999 "paper rule: the deferred CNP is not early (s)"
assert_le "$gap" 1.3 "paper rule: the deferred CNP comes at the window's end (s)"

# 2. mlx5 rule: a CE packet after the window gets a CNP at once, one
# inside the window never gets one
rxe_cc r np_cnp_window_end 0
sleep 1.1	# the window (N = 1 s from the deferred CNP) must have ended
: >"$D/go.2"
wait_for --timeout 10 ce_is $((e0 + 3)) || fail "write 2 not CE-marked at r"
wait_for --timeout 5 cnp_is $((c0 + 3)) || fail "mlx5 rule: no CNP for a CE packet after the window"
: >"$D/go.3"
wait_for --timeout 10 ce_is $((e0 + 4)) || fail "write 3 not CE-marked at r"
wait_for --timeout 2.5 cnp_is $((c0 + 4)) &&
	fail "mlx5 rule: a CE packet inside the window got a CNP"
assert_le "$(cnp)" $((c0 + 3)) "mlx5 rule: CNPs 2.5 s after a CE packet inside the window"

wait "$REQ" || fail "requester: $(tail -n2 "$D/req.out")"
wait "$RESP" || fail "responder: $(tail -n2 "$D/resp.out")"
grep -q '^verify ok' "$D/resp.out" || fail "data: $(tail -n1 "$D/resp.out")"
rxe_cc r np_cnp_window_end 1
for v in 2 -1 x; do
	(echo "$v" >"/sys/class/infiniband/${RXE_DEV[r]}/cc/np_cnp_window_end") 2>/dev/null &&
		fail "np_cnp_window_end accepted '$v'"
done
[ "$(rxe_cc r np_cnp_window_end)" = 1 ] || fail "a refused value changed np_cnp_window_end"
log "ok: both NP rules; np_cnp_window_end refuses 2, -1 and x"
exit "$ksft_pass"
