#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The tc plugin's text output on the host, without the module: tc prints
# dumps written by tc_dump.py as sch_dcb sends them (`tc -s monitor file`).
# The options print in the syntax the plugin parses, and parse back; the
# statistics print as the guest tests and scripts read them (the port's
# in the qdisc, a band's in its class).  Statistics are read as far as
# the plugin knows them: a newer module's (counters appended to every
# block, a longer header, a block the plugin does not know) print the
# same lines, an older module's print the counters it sends; statistics
# of the layout before the blocks had sizes are refused with a message.
# Option parsing and
# JSON are tested against the real module: selftests/tc-testing, run by
# net/test_35_tc_tdc.
#
# timeout: 120
. "$(dirname "$0")/../net/lib.sh"

need_cmd tc python3 "${CC:-gcc}"
[ -f "$TOP/tc/q_dcb.so" ] || skip "tc/q_dcb.so not built (make user)"
export TC_LIB_DIR=$TOP/tc
tmp=$(mktemp -d)
at_exit "rm -rf '$tmp'"

python3 "$TOP/selftests/unit/tc_dump.py" "$tmp/d.nl" || fail "tc_dump.py"
tc -s monitor file "$tmp/d.nl" >"$tmp/out" 2>"$tmp/err" || fail "tc monitor file: $(cat "$tmp/err")"
[ ! -s "$tmp/err" ] || fail "tc printed errors: $(cat "$tmp/err")"

# want LINE: the output has exactly this line
want() { grep -qxF -- "$1" "$tmp/out" || fail "no line '$1' in: $(cat "$tmp/out")"; }

want "qdisc dcb 1: dev lo root rate 20Mbit overhead 24 burst 0b limit 300Kb classify dscp dscp-map 0:7,46:6 ecn red kmin 30Kb kmax 100Kb pmax 0.1 pool 2 buffer 4Mb pfc prio-pfc 3,6 xoff 60Kb headroom 20Kb quanta 65535 delay 1.5ms overflow drop band 3 limit 50Kb ecn step k 20Kb band 5 limit 0b nonect drop "
PFC="drops_headroom 5 pause_tx 5 resume_tx 5 pause_rx 5 resume_rx 5 paused_us 5 in_bytes 5 in_peak 5 in_headroom 5 in_drops 5 xoff 61440 np_unmarked 5 nonect_passed 5 pause_inflight_peak 5 pause_react_us 5 shaper_lag_us 5 in_borrowed 5 pause_lapses 5"
want " total: rate 20Mbit enq 6000p 6001b deq 6002p 6003b backlog 6005p 6004b peak 6006b ecn_marked 6007 drops_tail 6008 drops_wred 6009 $PFC"
want " pool 2 used 90000/4194304 peak 180000 headroom 1500 drops_full 3 ports 2 pfc_malformed 4"
grep -q '^  band ' "$tmp/out" && fail "band lines in the qdisc's statistics (they are its classes'): $(cat "$tmp/out")"
want "class dcb 1:4 dev lo root limit 50Kb ecn step k 20Kb nonect default "
want " enq 2000p 2001b deq 2002p 2003b backlog 2005p 2004b peak 2006b ecn_marked 2007 drops_tail 2008 drops_wred 2009 $PFC"
log "ok: qdisc, class and statistics text"

# The printed options parse back (the host's kernel then refuses the
# unknown kind; a parse error would say dcb: or Error: argument).
opts=$(sed -n 's/^qdisc dcb 1: dev lo root //p' "$tmp/out")
# shellcheck disable=SC2086
out=$(tc qdisc add dev lo root handle 1: dcb $opts 2>&1)
grep -qE '^(dcb:|Error: argument|Error: duplicate|Usage|Command line)' <<<"$out" &&
	fail "printed options do not parse: $out"
cls=$(sed -n 's/^class dcb 1:4 dev lo root //p' "$tmp/out")
# shellcheck disable=SC2086
out=$(tc class change dev lo classid 1:4 dcb $cls 2>&1)
grep -qE '^(dcb:|Error: argument|Error: duplicate|Usage|Command line)' <<<"$out" &&
	fail "printed class options do not parse: $out"
log "ok: printed options parse back"

# A newer module: what this build knows prints as before, nothing else
python3 "$TOP/selftests/unit/tc_dump.py" --newer 3 "$tmp/n.nl" || fail "tc_dump.py --newer"
tc -s monitor file "$tmp/n.nl" >"$tmp/n.out" 2>"$tmp/err" || fail "tc monitor file (newer): $(cat "$tmp/err")"
[ ! -s "$tmp/err" ] || fail "tc printed errors for a newer module: $(cat "$tmp/err")"
diff -u "$tmp/out" "$tmp/n.out" || fail "a newer module's statistics print differently"
log "ok: a newer module's statistics (3 counters appended to each block, a longer header, an unknown block) print as this build knows them"

# An older plugin, built before the last 3 counters were appended, reads
# this module's statistics: the counters it knows
old=$tmp/old
mkdir -p "$old/inc" "$old/lib"
cp "$TOP/include/dcb_xstats.h" "$old/inc/"
python3 - "$TOP" "$old/inc" <<'PY' || fail "truncating the field list"
import re, sys
top, out = sys.argv[1:]
drop = ("shaper_lag_us", "in_borrowed", "pause_lapses")
h = open(top + "/sch_dcb/uapi/pkt_sched_dcb.h").read()
for f in drop:
    h, n = re.subn(r"\t__u64\t%s;\s*/\*.*?\*/\n" % f, "", h, flags=re.S)
    assert n == 1, f
open(out + "/pkt_sched_dcb.h", "w").write(h)
x = open(top + "/include/dcb_stats_fields.h").read()
for f in drop:
    x, n = re.subn(r"\\\n\tX\(%s\)\t*" % f, "", x)
    assert n == 1, f
open(out + "/dcb_stats_fields.h", "w").write(x)
PY
${CC:-gcc} -O2 -Wall -Wextra -Wno-unused-parameter -Werror -fPIC -shared -I"$old/inc" -I"$TOP/tc" \
	-o "$old/lib/q_dcb.so" "$TOP/tc/q_dcb.c" || fail "building the older plugin"
TC_LIB_DIR=$old/lib tc -s monitor file "$tmp/d.nl" >"$tmp/out" 2>"$tmp/err" ||
	fail "older plugin: $(cat "$tmp/err")"
[ ! -s "$tmp/err" ] || fail "the older plugin printed errors: $(cat "$tmp/err")"
want " total: rate 20Mbit enq 6000p 6001b deq 6002p 6003b backlog 6005p 6004b peak 6006b ecn_marked 6007 drops_tail 6008 drops_wred 6009 ${PFC% shaper_lag_us*}"
want " enq 2000p 2001b deq 2002p 2003b backlog 2005p 2004b peak 2006b ecn_marked 2007 drops_tail 2008 drops_wred 2009 ${PFC% shaper_lag_us*}"
want " pool 2 used 90000/4194304 peak 180000 headroom 1500 drops_full 3 ports 2 pfc_malformed 4"
log "ok: a plugin built without the last 3 counters reads this module's statistics"

# An older module: the counters it sends
python3 "$TOP/selftests/unit/tc_dump.py" --older 3 "$tmp/o.nl" || fail "tc_dump.py --older"
tc -s monitor file "$tmp/o.nl" >"$tmp/out" 2>"$tmp/err" || fail "tc monitor file (older): $(cat "$tmp/err")"
[ ! -s "$tmp/err" ] || fail "tc printed errors for an older module: $(cat "$tmp/err")"
want " total: rate 20Mbit enq 6000p 6001b deq 6002p 6003b backlog 6005p 6004b peak 6006b ecn_marked 6007 drops_tail 6008 drops_wred 6009 ${PFC% shaper_lag_us*}"
log "ok: an older module's statistics (3 counters fewer) print what it sends"

python3 "$TOP/selftests/unit/tc_dump.py" --xstats-version 7 "$tmp/v.nl" || fail "tc_dump.py"
tc -s monitor file "$tmp/v.nl" >"$tmp/out" 2>"$tmp/err"
grep -q "^dcb: xstats version 7 of an older sch_dcb module; this reader needs 8 or later$" "$tmp/err" ||
	fail "xstats version 7: $(cat "$tmp/err")"
grep -q '^qdisc dcb 1: dev lo root rate 20Mbit ' "$tmp/out" ||
	fail "xstats version 7: options not printed"
grep -q '^ total:' "$tmp/out" && fail "xstats version 7 printed"
log "ok: statistics of xstats version 7 (no sizes) refused with a message"

# Running from the tree (TC_LIB_DIR=tc) hides none of the distribution's
# tc files: netem finds its distribution tables through tc/'s links
# (tc/Makefile, dist-links).  In a namespace of its own: where the host
# kernel has netem, the qdisc is really added.
dist=$(dpkg -L iproute2 2>/dev/null | grep '/normal\.dist$' | head -n1)
if [ -n "$dist" ]; then
	ns=tcdist$$
	ip netns add "$ns" || fail "ip netns add $ns"
	at_exit "ip netns del '$ns' 2>/dev/null"
	out=$(ip netns exec "$ns" tc qdisc add dev lo root netem delay 10ms 2ms distribution normal 2>&1)
	grep -q "No distribution data" <<<"$out" &&
		fail "the distribution's $dist hidden by TC_LIB_DIR=$TC_LIB_DIR: $out"
	log "ok: netem's distribution tables through TC_LIB_DIR=$TC_LIB_DIR"
else
	log "iproute2 has no normal.dist here: the distribution-links check did not run"
fi
