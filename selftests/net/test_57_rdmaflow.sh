#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# tools/rdmaflow over our rdma_rxe (issue 46's workload generator):
# s1, s2 -> sw -> r, the switch port toward r shaped to 100 Mbit/s, an
# rdmaflow server on r.  Asserted:
#  - ping: five 1-byte messages complete, one at a time;
#  - a flow file, one QP, WRs of 16 KB: a 300,000-byte message is split
#    into 19 WRITEs (the server counts one message: one immediate), the
#    two small messages that arrive with it wait for the QP (posted after
#    it completed) and their FCT counts the wait (above 300,000 bytes at
#    100 Mbit/s);
#  - a CDF at 50 % load from s1 and s2 at once, 200 messages each: all
#    complete, the sizes' mean and the last arrival are those of FbHdp at
#    scale 0.1 and a Poisson process of that load;
#  - the server received 408 messages, 5 + 3 + 400, whatever their WRs;
#  - a client whose destination has no server ends with status 1.
# The CSVs stay in build/selftests/net/test_57_rdmaflow/.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

need_cmd rdma
RF=$TOP/tools/rdmaflow
[ -x "$RF" ] || fail "$RF not built (make tools)"
exp_out
mkdir -p "$OUT" || fail "mkdir $OUT"
load_rxe
rxe_topo 2
dcb_set rate 100mbit
clock_spin
R=$(topo_ip4 r)

# (ip netns exec forks: the server's own PID, from the shell it replaces)
topo_exec r bash -c 'echo $$ >"$1"; exec "$2" server -p 18515' _ "$OUT/srv.pid" "$RF" \
	>"$OUT/srv.txt" 2>&1 &
wait_for --timeout 30 grep -q listening "$OUT/srv.txt" || fail "rdmaflow server: $(cat "$OUT/srv.txt")"

# client HOST ARGS...: rdmaflow client on HOST to r, its status
client() {
	local h=$1
	shift
	topo_exec "$h" timeout 120 "$RF" client --src "$h" "$@" r="$R" 2>>"$OUT/$h.err"
}
# col FILE EXPR: awk EXPR over the CSV's rows ($5 size, $6 arrival, $7
# post, $8 done)
col() { awk -F, "NR > 1 { $2 }" "$1"; }

client s1 --ping 5 -o "$OUT/ping.csv"
check_err $? "rdmaflow --ping exit status $?"
n=$(col "$OUT/ping.csv" 'if ($8 != "") n++ } END { print n + 0')
check_assert assert_ge "$n" 5 "pings completed"
log "ping FCTs (us): $(col "$OUT/ping.csv" 'printf "%.1f ", ($8 - $6) / 1000')"
log_test "ping: 5 x 1 byte"

printf '# src dst size start\ns1 r 300000 0\ns1 r 1000 0\ns1 r 2000 0.0001\ns2 r 5 0\n' >"$OUT/flows.txt"
client s1 --flows "$OUT/flows.txt" --qps 1 --wr-size 16384 --depth 2 -o "$OUT/flows.csv"
check_err $? "rdmaflow --flows exit status"
log "flows: $(col "$OUT/flows.csv" 'printf "[%s B: arrival %.3f post %.3f done %.3f ms] ", $5, $6 / 1e6, $7 / 1e6, $8 / 1e6')"
check_assert assert_ge "$(col "$OUT/flows.csv" 'n++ } END { print n + 0')" 3 "s1's three flows, not s2's"
check_assert assert_le "$(col "$OUT/flows.csv" 'n++ } END { print n + 0')" 3 "s1's three flows, not s2's"
big_done=$(col "$OUT/flows.csv" 'if ($5 == 300000) print $8')
for s in 1000 2000; do
	post=$(col "$OUT/flows.csv" "if (\$5 == $s) print \$7")
	fct=$(col "$OUT/flows.csv" "if (\$5 == $s) print (\$8 - \$6) / 1e9")
	check_assert assert_ge "$post" "$big_done" "the $s-byte message posted after the 300,000-byte one completed (ns)"
	check_assert assert_ge "$fct" 0.024 "FCT (s) of the $s-byte message, its wait for the QP included"
done
log_test "flow file: one QP, 16 KB WRs, queueing at the sender"

pids=()
for h in s1 s2; do
	client "$h" --cdf "$TOP/data/cdf/FbHdp_distribution.txt" --scale 0.1 \
		--rate 100 --load 0.5 --count 200 --seed "${h#s}" -o "$OUT/cdf-$h.csv" &
	pids+=($!)
done
for k in 0 1; do
	wait "${pids[k]}"
	check_err $? "rdmaflow --cdf on s$((k + 1))"
done
for h in s1 s2; do
	f=$OUT/cdf-$h.csv
	done_n=$(col "$f" 'if ($8 != "") n++ } END { print n + 0')
	mean=$(col "$f" 's += $5; n++ } END { print s / n')
	last=$(col "$f" 'if ($6 > m) m = $6 } END { print m / 1e9')
	log "$h: $done_n completed, mean size $mean B (FbHdp x 0.1: 12042), last arrival $last s (200 x 1.93 ms = 0.385 s)"
	check_assert assert_ge "$done_n" 200 "$h's messages completed"
	# the mean of 200 sizes of FbHdp: a heavy tail, a wide margin
	check_assert assert_within_pct "$mean" 12042 60 "$h's mean size (B)"
	# the sum of 200 exponential gaps: 7 % standard deviation
	check_assert assert_within_pct "$last" 0.3853 30 "$h's last arrival (s)"
done
log_test "CDF at 50 % load from two clients"

kill -TERM "$(cat "$OUT/srv.pid")"
wait
log "server: $(tail -n1 "$OUT/srv.txt")"
grep -q ' 408 messages received, 0 errors' "$OUT/srv.txt"
check_err $? "the server counted $(grep -o '[0-9]* messages' "$OUT/srv.txt"), want 408 (5 + 3 + 400: one per message, not per WR)"
log_test "one receive per message at the server"

client s1 --ping 1 --stall 5 -o "$OUT/none.csv"
st=$?
[ "$st" = 1 ] || check_err 1 "a client without a server: exit $st, want 1"
log "no server: exit $st, $(tail -n1 "$OUT/s1.err")"
log_test "no server: exit status 1"
tests_exit
