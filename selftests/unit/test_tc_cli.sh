#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The sch_dcb tc plugin (tc/q_dcb.so) inside the real tc binary, on a host
# whose kernel has no sch_dcb:
#  - tc loads the plugin (TC_LIB_DIR) and prints our usage for "help";
#  - invalid command lines exit non-zero with our message and the usage;
#  - valid ones get past our parser (in a private netns, if possible; the
#    kernel then refuses the unknown kind);
#  - the text tc prints for kernel-style dumps (fed through
#    "tc monitor file") is what we expect and parses back;
#  - "tc -j [-s] qdisc show" through tc's JSON writer (dump answered by
#    the LD_PRELOAD helper test_tc_nlfake.so) is valid JSON with our keys;
#  - tools/dcbmon writes the expected CSV for the same dumps.
# Exit: 0 pass, 1 fail, 4 skip.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
TC=${TC:-$(command -v tc || echo /usr/sbin/tc)}

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - # SKIP $*"; }
check() { # check DESC CMD... : ok if CMD succeeds
	local d=$1
	shift
	if "$@"; then ok "$d"; else nok "$d"; fi
}

if [ ! -x "$TC" ]; then
	echo "1..0 # SKIP no tc binary"
	exit 4
fi
if ! out=$(make -s -C "$REPO/tc" all test-bin 2>&1); then
	echo "$out"
	echo "not ok 1 - build tc plugin"
	exit 1
fi

export TC_LIB_DIR=$REPO/tc
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
HAVE_JQ=0
command -v jq >/dev/null 2>&1 && HAVE_JQ=1

# A private network namespace keeps the host's lo untouched.
NS=()
if unshare -rn true 2>/dev/null; then
	NS=(unshare -rn)
fi

# --- help and usage --------------------------------------------------------

"$TC" qdisc add dev lo root dcb help >"$TMP/out" 2>"$TMP/err"
rc=$?
check "qdisc help exits non-zero ($rc)" test $rc -ne 0
check "qdisc help prints our usage (plugin loaded)" \
	grep -q "Usage: ... dcb rate RATE" "$TMP/err"
"$TC" class change dev lo classid 1:4 dcb help >"$TMP/out" 2>"$TMP/err"
rc=$?
check "class help exits non-zero and prints usage" \
	eval "[ $rc -ne 0 ] && grep -q 'class change' '$TMP/err'"

# --- invalid command lines -------------------------------------------------

# "ARGS|expected message"
bad_qdisc=(
	"|dcb: rate is required"
	"limit 1m|dcb: rate is required"
	"rate|dcb: missing value after \"rate\""
	"rate 5xbit|dcb: invalid rate \"5xbit\""
	"rate 1gbit foo|dcb: unknown option \"foo\""
	"rate 1gbit rate 2gbit|dcb: duplicate \"rate\""
	"rate 1gbit limit 12q|dcb: invalid limit \"12q\""
	"rate 1gbit ecn red kmin 90k kmax 30k pmax 0.1|dcb: kmin (92160) is greater than kmax (30720)"
	"rate 1gbit ecn red kmin 30k kmax 30k pmax 0.1|dcb: kmin and kmax are equal"
	"rate 1gbit ecn red kmin 1k kmax 2k pmax 1.5|dcb: invalid pmax \"1.5\""
	"rate 1gbit ecn red kmin 1k kmax 2k pmax -1|dcb: invalid pmax"
	"rate 1gbit ecn red kmin 1k kmax 2k|dcb: \"ecn red\" needs kmin, kmax and pmax"
	"rate 1gbit ecn step|dcb: \"ecn step\" needs \"k SIZE\""
	"rate 1gbit band 8 limit 1k|dcb: band 8 out of range (0..7)"
	"rate 1gbit band x limit 1k|dcb: invalid band \"x\""
	"rate 1gbit band 3|dcb: band 3: nothing to set"
	"rate 1gbit band 3 limit 1k band 3 ecn off|dcb: band 3 given twice"
	"rate 1gbit dscp-map 64:1|dcb: dscp 64 out of range (0..63)"
	"rate 1gbit dscp-map 1:9|dcb: band 9 of dscp 1 out of range"
	"rate 1gbit dscp-map 1:1,1:2|dcb: dscp 1 mapped twice"
	"rate 1gbit dscp-map 1:|dcb: invalid dscp-map entry"
	"rate 1gbit ecn default|dcb: \"ecn default\" is only valid for a band or class"
	"rate 1gbit ecn np-ecn kmin 1k|dcb: \"ecn np-ecn\" takes no \"kmin\""
	"rate 1gbit ecn np-ecn k 1q|dcb: invalid k \"1q\""
	"rate 1gbit pool x|dcb: invalid pool \"x\""
	"rate 1gbit buffer 1q|dcb: invalid buffer \"1q\""
	"rate 1gbit band 3 limit 1k pfc off|dcb: \"pfc\" must come before the first \"band\""
	"rate 1gbit pfc|dcb: pfc: needs \"xoff SIZE\" (static threshold) or \"beta N\""
	"rate 1gbit pfc prio-pfc 3,8 xoff 10k|dcb: prio-pfc: band 8 out of range (0..7)"
	"rate 1gbit pfc xon 5k|dcb: pfc: \"xon\" requires \"xoff\""
	"rate 1gbit pfc xoff 10k xon 10k|dcb: pfc: xon (10240) must be below xoff (10240)"
	"rate 1gbit pfc xoff 10k beta 8|dcb: pfc: \"xoff\" and \"beta\" are mutually exclusive (xoff for a static threshold, beta for the dynamic one)"
	"rate 1gbit pfc xoff 10k quanta 0|dcb: invalid quanta \"0\" (expected 1..65535, decimal or 0x hex)"
	"rate 1gbit pfc beta 1001|dcb: invalid beta \"1001\" (expected 1..1000)"
	"rate 1gbit pfc xoff 10k delay 1h|dcb: invalid delay \"1h\""
	"rate 1gbit pfc off xoff 1k|dcb: \"pfc off\" takes no \"xoff\""
)
for t in "${bad_qdisc[@]}"; do
	args=${t%%|*}
	msg=${t#*|}
	# shellcheck disable=SC2086
	"$TC" qdisc add dev lo root handle 1: dcb $args >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc -ne 0 ] && grep -qF -- "$msg" "$TMP/err" &&
	   grep -q "Usage: ... dcb" "$TMP/err" &&
	   [ "$(head -1 "$TMP/err")" = "$(grep -F -m1 -- "$msg" "$TMP/err")" ]; then
		ok "qdisc dcb '$args' -> $msg"
	else
		nok "qdisc dcb '$args' -> $msg (rc $rc: $(head -1 "$TMP/err"))"
	fi
done

bad_class=(
	"foo|dcb: unknown class option \"foo\""
	"limit|dcb: missing value after \"limit\""
	"rate 1gbit|dcb: unknown class option \"rate\""
	"ecn red kmin 5k kmax 1k pmax 1|dcb: kmin (5120) is greater than kmax (1024)"
	"ecn step k|dcb: missing value after \"k\""
)
for t in "${bad_class[@]}"; do
	args=${t%%|*}
	msg=${t#*|}
	# shellcheck disable=SC2086
	"$TC" class change dev lo classid 1:4 dcb $args >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc -ne 0 ] && grep -qF -- "$msg" "$TMP/err"; then
		ok "class dcb '$args' -> $msg"
	else
		nok "class dcb '$args' -> $msg (rc $rc: $(head -1 "$TMP/err"))"
	fi
done

# --- valid command lines get past the parser ------------------------------

good_qdisc=(
	"rate 50mbit"
	"rate unlimited"
	"rate 1gbit overhead 24 burst 64k limit 1mb classify prio dscp-map 46:7,48:6 ecn red kmin 30kb kmax 90kb pmax 0.1"
	"rate 10Mbit ecn step k 20k band 0 limit 10k band 3 limit 64k ecn red kmin 10k kmax 20k pmax 1% band 7 ecn default"
	"rate 1gbit pool 2 buffer 4mb ecn np-ecn pfc prio-pfc 3,6 xoff 60k xon 57k headroom 20k quanta 0xffff delay 1ms band 3 ecn np-ecn"
	"rate 1gbit pfc beta 8"
	"rate 1gbit pfc off"
	"rate 40mbit ecn np-ecn k 3kb band 3 ecn np-ecn k 0"
)
if [ ${#NS[@]} -eq 0 ]; then
	skip "valid command lines (no unshare -rn for a private netns)"
else
	for args in "${good_qdisc[@]}"; do
		# shellcheck disable=SC2086
		"${NS[@]}" "$TC" qdisc add dev lo root handle 1: dcb $args \
			>"$TMP/out" 2>"$TMP/err"
		rc=$?
		if ! grep -q -e "^dcb:" -e "Usage:" "$TMP/err"; then
			ok "qdisc dcb '$args' parses (kernel: rc $rc $(head -1 "$TMP/err"))"
		else
			nok "qdisc dcb '$args' parses ($(head -1 "$TMP/err"))"
		fi
	done
	for args in "limit 64k" "ecn default" "limit 0 ecn step k 20k" \
		    "ecn red kmin 1k kmax 5k pmax 0.5" "ecn np-ecn" "ecn np-ecn k 8kb"; do
		# shellcheck disable=SC2086
		"${NS[@]}" "$TC" class change dev lo classid 1:4 dcb $args \
			>"$TMP/out" 2>"$TMP/err"
		if ! grep -q -e "^dcb:" -e "Usage:" "$TMP/err"; then
			ok "class dcb '$args' parses"
		else
			nok "class dcb '$args' parses ($(head -1 "$TMP/err"))"
		fi
	done
fi

# --- text output of kernel-style dumps ------------------------------------

GEN=$REPO/tc/test_tc_parse
CFG="rate 50mbit dscp-map 46:7 ecn red kmin 30k kmax 90k pmax 0.1 band 3 limit 64k ecn step k 20k band 5 ecn off"
WANT="rate 50Mbit overhead 0 burst 0 limit 1Mb classify dscp dscp-map 46:7 ecn red kmin 30Kb kmax 90Kb pmax 0.1 pool 0 band 3 limit 64Kb ecn step k 20Kb band 5 ecn off"
# PFC counters (only band 3 has them): printed where not 0
PFC_STATS="drops_headroom 2 pause_tx 20 resume_tx 18 pause_rx 6 resume_rx 6 paused_us 1000 in_bytes 3000 in_peak 90000 in_drops 2 xoff 61440 np_unmarked 14"
# shellcheck disable=SC2086
"$GEN" --gen-nlmsg "$TMP/dump.nl" $CFG
"$TC" -s monitor file "$TMP/dump.nl" >"$TMP/mon" 2>"$TMP/mon.err"
check "tc -s monitor file prints the dump" test -s "$TMP/mon"
line=$(grep "^qdisc dcb 1: dev lo root" "$TMP/mon")
opts=${line#qdisc dcb 1: dev lo root }
opts=${opts% }
check "qdisc text is '$WANT'" test "$opts" = "$WANT"
# shellcheck disable=SC2086
again=$("$GEN" --format $opts)
check "printed qdisc text parses back to itself" test "$again" = "$opts"
if [ ${#NS[@]} -gt 0 ]; then
	# shellcheck disable=SC2086
	"${NS[@]}" "$TC" qdisc change dev lo root handle 1: dcb $opts \
		>/dev/null 2>"$TMP/chg.err"
	check "printed qdisc text accepted by tc qdisc change" \
		eval "! grep -q -e '^dcb:' -e 'Usage:' '$TMP/chg.err'"
fi
check "xstats totals line" grep -q "^ total: rate 50Mbit enq 6000p 9000000b deq 5940p 8910000b backlog 60p 90000b peak 180000b ecn_marked 30 drops_tail 6 drops_wred 12 $PFC_STATS$" "$TMP/mon"
check "xstats pool line" grep -q "^ pool 0 used 90000/0 peak 180000 headroom 1500 drops_full 3 ports 2 pfc_malformed 4$" "$TMP/mon"
check "xstats lines for bands 0, 3, 7" \
	eval "grep -q '^  band 0: enq 1000p' '$TMP/mon' && grep -q '^  band 3: enq 2000p' '$TMP/mon' && grep -q '^  band 7: enq 3000p' '$TMP/mon'"
check "PFC counters on band 3's line only" \
	eval "grep -q '^  band 3: enq .* drops_wred 4 $PFC_STATS\$' '$TMP/mon' && grep -q '^  band 0: enq .* drops_wred 2\$' '$TMP/mon' && grep -q '^  band 7: enq .* drops_wred 6\$' '$TMP/mon'"
check "no xstats line for idle bands" \
	eval "! grep -q -e '^  band [124567]: enq 0p' -e '^  band [12456]:' '$TMP/mon'"
cline=$(grep "^class dcb 1:4 " "$TMP/mon")
check "class text ends with 'limit 64Kb ecn step k 20Kb nonect default'" \
	eval "[[ '$cline' == *'leaf 0: limit 64Kb ecn step k 20Kb nonect default ' ]]"
check "class xstats line" grep -q "^ enq 2000p 3000000b deq 1980p 2970000b backlog 20p 30000b peak 60000b ecn_marked 10 drops_tail 2 drops_wred 4 $PFC_STATS$" "$TMP/mon"
check "tc monitor: nothing on stderr" test ! -s "$TMP/mon.err"

# pool, buffer, PFC and NP-ECN in the options
PCFG="rate 1gbit pool 2 buffer 4mb ecn np-ecn pfc prio-pfc 6,3 xoff 60k xon 57k headroom 20k quanta 0xffff delay 1000 band 3 ecn np-ecn k 3kb"
PWANT="rate 1Gbit overhead 0 burst 0 limit 1Mb classify dscp ecn np-ecn k 10Kb pool 2 buffer 4Mb pfc prio-pfc 3,6 xoff 60Kb xon 57Kb headroom 20Kb quanta 65535 delay 1ms band 3 ecn np-ecn k 3Kb"
# shellcheck disable=SC2086
"$GEN" --gen-nlmsg "$TMP/pfc.nl" $PCFG
"$TC" -s monitor file "$TMP/pfc.nl" >"$TMP/pmon" 2>"$TMP/pmon.err"
line=$(grep "^qdisc dcb 1: dev lo root" "$TMP/pmon")
opts=${line#qdisc dcb 1: dev lo root }
opts=${opts% }
check "pfc qdisc text is '$PWANT'" test "$opts" = "$PWANT"
# shellcheck disable=SC2086
again=$("$GEN" --format $opts)
check "printed pfc text parses back to itself" test "$again" = "$opts"
check "pool line with the pool's size" grep -q "^ pool 2 used 90000/4194304 peak 180000 " "$TMP/pmon"
# shellcheck disable=SC2086
"$GEN" --gen-nlmsg "$TMP/beta.nl" rate 1gbit pool 1 pfc beta 8 quanta 100
t=$("$TC" monitor file "$TMP/beta.nl" 2>&1 | grep "^qdisc dcb")
check "dynamic threshold text: '... pool 1 pfc prio-pfc all beta 8 quanta 100'" \
	eval "[[ '$t' == *'ecn off pool 1 pfc prio-pfc all beta 8 quanta 100 ' ]]"
"$GEN" --gen-nlmsg "$TMP/off.nl" rate 1gbit pfc off buffer 0
t=$("$TC" monitor file "$TMP/off.nl" 2>&1 | grep "^qdisc dcb")
check "pfc off and buffer 0 not printed" \
	eval "[[ '$t' == *'ecn off pool 0 ' ]]"
check "tc monitor (pfc dumps): nothing on stderr" test ! -s "$TMP/pmon.err"

# xstats of an older (version 1) module are refused with a message
"$GEN" --gen-nlmsg-v1 "$TMP/v1.nl" rate 50mbit
"$TC" -s monitor file "$TMP/v1.nl" >"$TMP/v1" 2>"$TMP/v1.err"
check "version 1 xstats: 'older sch_dcb module' message" \
	grep -q "dcb: xstats version 1 from an older sch_dcb module; this tc needs version 3" "$TMP/v1.err"
check "version 1 xstats: options still printed" grep -q "^qdisc dcb 1: dev lo root rate 50Mbit " "$TMP/v1"

# --- JSON through tc's writer --------------------------------------------

FAKE=$REPO/tc/test_tc_nlfake.so
fake_tc() { LD_PRELOAD=$FAKE DCB_FAKE_NL=$1 "$TC" "${@:2}"; }
jqt() { # jqt FILE EXPR : EXPR must yield true
	[ "$(jq -e "$2" "$1" 2>/dev/null)" = "true" ]
}
if [ $HAVE_JQ -eq 0 ]; then
	skip "JSON checks (no jq)"
elif ! fake_tc "$TMP/dump.nl" qdisc show dev lo 2>/dev/null | grep -q "qdisc dcb"; then
	skip "JSON checks (LD_PRELOAD dump helper does not work here)"
else
	fake_tc "$TMP/dump.nl" -j -s qdisc show dev lo >"$TMP/j" 2>"$TMP/err"
	check "tc -j -s qdisc show is valid JSON" eval "jq -e . '$TMP/j' >/dev/null"
	check "kind dcb, rate in bit/s" jqt "$TMP/j" '.[0].kind == "dcb" and .[0].options.rate == 50000000'
	check "overhead, burst, limit, classify" jqt "$TMP/j" \
		'.[0].options | .overhead == 0 and .burst == 0 and .limit == 1048576 and .classify == "dscp"'
	check "dscp_map: 64 bands, 46 -> 7, rest dscp>>3" jqt "$TMP/j" \
		'.[0].options.dscp_map as $m | ($m | length) == 64 and $m[46] == 7 and $m[45] == 5 and $m[63] == 7 and $m[0] == 0'
	check "ecn {mode, kmin, kmax, pmax float}" jqt "$TMP/j" \
		'.[0].options.ecn == {"mode":"red","kmin":30720,"kmax":92160,"pmax":0.1}'
	check "bands overrides" jqt "$TMP/j" \
		'.[0].options.bands == [{"band":3,"limit":65536,"ecn":{"mode":"step","kmin":20480,"kmax":20480,"pmax":1}},{"band":5,"ecn":{"mode":"off","kmin":0,"kmax":0,"pmax":0}}]'
	check "xstats totals keys" jqt "$TMP/j" \
		'.[0] | .enq_packets == 6000 and .enq_bytes == 9000000 and .deq_packets == 5940 and .deq_bytes == 8910000 and .backlog_bytes == 90000 and .backlog_packets == 60 and .backlog_peak == 180000 and .ecn_marked == 30 and .drops_tail == 6 and .drops_wred == 12'
	STATS_KEYS='"backlog_bytes","backlog_packets","backlog_peak","deq_bytes","deq_packets","drops_tail","drops_wred","ecn_marked","enq_bytes","enq_packets","drops_headroom","pause_tx","resume_tx","pause_rx","resume_rx","paused_us","in_bytes","in_peak","in_headroom","in_drops","xoff","np_unmarked","nonect_passed","pause_inflight_peak","pause_react_us"'
	check "xstats bands: 8 entries with the same 25 keys" jqt "$TMP/j" \
		".[0].bands | length == 8 and all(.[]; keys == ([\"band\",$STATS_KEYS] | sort))"
	check "xstats totals: all 25 keys at the top level" jqt "$TMP/j" \
		".[0] as \$q | [$STATS_KEYS] | all(. as \$k | \$q | has(\$k))"
	check "xstats PFC totals (sum; in_peak, xoff max) and band 3 values" jqt "$TMP/j" \
		'.[0] | .pause_tx == 20 and .resume_tx == 18 and .pause_rx == 6 and .resume_rx == 6 and .paused_us == 1000 and .drops_headroom == 2 and .in_bytes == 3000 and .in_peak == 90000 and .in_headroom == 0 and .in_drops == 2 and .xoff == 61440 and .np_unmarked == 14 and .bands[3].pause_tx == 20 and .bands[0].pause_tx == 0'
	check "xstats pool object and pfc_malformed" jqt "$TMP/j" \
		'.[0].pool == {"id":0,"ports":2,"size":0,"reserved":40960,"used":90000,"peak":180000,"headroom_used":1500,"drops_full":3} and .[0].pfc_malformed == 4'
	check "xstats band values" jqt "$TMP/j" \
		'.[0].bands | map(.band) == [0,1,2,3,4,5,6,7] and .[3].enq_packets == 2000 and .[1].enq_packets == 0 and .[7].drops_wred == 6'
	fake_tc "$TMP/dump.nl" -j qdisc show dev lo >"$TMP/j2" 2>>"$TMP/err"
	check "tc -j qdisc show (no -s) is valid JSON without stats" \
		jqt "$TMP/j2" '.[0].options.rate == 50000000 and (.[0] | has("enq_packets") | not)'

	"$GEN" --gen-nlmsg "$TMP/dflt.nl" rate 0
	fake_tc "$TMP/dflt.nl" -j -s qdisc show dev lo >"$TMP/j3" 2>>"$TMP/err"
	check "default config: rate 0, ecn off, no dscp_map, no bands" jqt "$TMP/j3" \
		'.[0].options | .rate == 0 and .ecn.mode == "off" and (has("dscp_map") | not) and .bands == []'
	t=$(fake_tc "$TMP/dflt.nl" qdisc show dev lo)
	check "default config text" \
		eval "[[ '$t' == *'root rate unlimited overhead 0 burst 0 limit 1Mb classify dscp ecn off pool 0 ' ]]"
	check "default config: pool 0, buffer 0, pfc off" jqt "$TMP/j3" \
		'.[0].options | .pool == 0 and .buffer == 0 and .pfc.prio_pfc == [] and .pfc.xoff == 0'

	fake_tc "$TMP/pfc.nl" -j qdisc show dev lo >"$TMP/jp" 2>>"$TMP/err"
	check "pfc JSON: pool, buffer, pfc object" jqt "$TMP/jp" \
		'.[0].options | .pool == 2 and .buffer == 4194304 and .pfc == {"prio_pfc":[3,6],"xoff":61440,"xon":58368,"beta":0,"headroom":20480,"quanta":65535,"delay_us":1000}'
	check "np-ecn JSON: port (default K) and band 3 (k 3kb)" jqt "$TMP/jp" \
		'.[0].options | .ecn == {"mode":"np-ecn","kmin":10240,"kmax":0,"pmax":0} and .bands == [{"band":3,"ecn":{"mode":"np-ecn","kmin":3072,"kmax":0,"pmax":0}}]'
	fake_tc "$TMP/beta.nl" -j qdisc show dev lo >"$TMP/jb" 2>>"$TMP/err"
	check "beta JSON: prio_pfc all bands, beta 8, xoff 0" jqt "$TMP/jb" \
		'.[0].options.pfc | .prio_pfc == [0,1,2,3,4,5,6,7] and .beta == 8 and .xoff == 0 and .quanta == 100'

	fake_tc "$TMP/dump.nl" -j -s class show dev lo >"$TMP/jc" 2>>"$TMP/err"
	if ! jq -e . "$TMP/jc" >/dev/null 2>&1; then
		skip "class JSON: this tc ($("$TC" -V | head -1)) prints text for 'tc -j class show'"
	else
		check "class JSON: limit, ecn, stats keys" jqt "$TMP/jc" \
			'.[0].limit == 65536 and .[0].ecn.mode == "step" and .[0].stats.enq_packets == 2000 and .[0].stats.drops_wred == 4 and .[0].stats.pause_tx == 20'
	fi
	check "no errors from JSON printing" test ! -s "$TMP/err"
fi

# --- dcbmon's CSV from the same dumps ---------------------------------------

DCBMON=$REPO/tools/dcbmon
if ! make -s -C "$REPO/tools" dcbmon >"$TMP/mk" 2>&1; then
	skip "dcbmon CSV (tools/dcbmon does not build here: $(tail -1 "$TMP/mk"))"
elif ! LD_PRELOAD=$FAKE DCB_FAKE_NL=$TMP/pfc.nl "$DCBMON" -i 50 -d 0.12 lo \
	>"$TMP/csv" 2>"$TMP/csv.err" || ! grep -q ",lo,all," "$TMP/csv"; then
	skip "dcbmon CSV (LD_PRELOAD dump helper does not work with libnl here)"
else
	check "dcbmon header: old columns first, new ones appended" \
		test "$(head -1 "$TMP/csv")" = "t_ms,netns,dev,band,backlog_bytes,backlog_packets,enq_packets,deq_packets,deq_bytes,ecn_marked,drops_tail,drops_wred,backlog_peak,drops_headroom,pause_tx,resume_tx,pause_rx,resume_rx,paused_us,in_bytes,xoff,pool_used,nonect_passed,pause_inflight_peak,pause_react_us,t_unix_ms"
	check "dcbmon totals row" \
		grep -q "^[0-9]*,-,lo,all,90000,60,6000,5940,8910000,30,6,12,180000,2,20,18,6,6,1000,3000,61440,90000,0,0,0,1[0-9]\{12\}$" "$TMP/csv"
	check "dcbmon band 3 row with PFC counters, pool_used on every row" \
		eval "grep -q '^[0-9]*,-,lo,3,.*,60000,2,20,18,6,6,1000,3000,61440,90000,0,0,0,[0-9]*\$' '$TMP/csv' && grep -q '^[0-9]*,-,lo,0,.*,0,0,0,0,0,0,0,0,90000,0,0,0,[0-9]*\$' '$TMP/csv'"
	LD_PRELOAD=$FAKE DCB_FAKE_NL=$TMP/v1.nl "$DCBMON" -i 50 -d 0.12 lo \
		>"$TMP/csv1" 2>"$TMP/csv1.err"
	rc=$?
	check "dcbmon refuses version 1 xstats (rc $rc)" \
		eval "[ $rc -ne 0 ] && grep -q 'xstats version 1, dcbmon reads 3 (older' '$TMP/csv1.err'"
fi

echo "1..$n"
echo "# $n tests, $failed failed"
[ $failed -eq 0 ]
