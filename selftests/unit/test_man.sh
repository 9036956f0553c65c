#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The man pages (Documentation/man/*.rst): rst2man builds each without a
# docutils warning, groff formats it without a warning, and each covers
# what its program accepts: tc-dcb(8) every keyword of the tc plugin (the
# list below, each of which the plugin's usage must name too), dcbmon(8)
# every option of `dcbmon -h` and every CSV column, dcblab(1) every
# scenario of `dcblab list`.  Runs on the host.
#
# timeout: 60

. "$(dirname "$0")/../net/lib.sh"

need_cmd rst2man groff
MAN=$TOP/Documentation/man
tmp=$(mktemp -d)
at_exit "rm -rf '$tmp'"

for src in "$MAN"/*.rst; do
	page=$(basename "$src" .rst)
	rst2man --halt=warning "$src" "$tmp/$page" 2>"$tmp/err" ||
		fail "rst2man $page: $(head -n3 "$tmp/err")"
	w=$(groff -man -Tutf8 -ww -z "$tmp/$page" 2>&1)
	[ -z "$w" ] || fail "groff warnings in $page: $(head -n3 <<<"$w")"
done
log "ok: $(ls "$MAN"/*.rst | wc -l) man pages build without warnings"

# bold PAGE WORD: the page writes WORD in bold (**WORD**, or a word of a
# bold phrase such as **red kmin**)
bold() { grep -qE -- "\*\*([^*]* )?$2( [^*]*)?\*\*" "$MAN/$1.rst"; }

# tc-dcb(8): every keyword of the plugin's grammar
KW=(rate overhead burst limit classify dscp prio dscp-map default ecn off red
    kmin kmax pmax step k np-ecn nonect pass drop pool buffer pfc prio-pfc all
    xoff xon beta headroom quanta delay overflow shared band unlimited)
[ -f "$TOP/tc/q_dcb.so" ] || skip "tc/q_dcb.so not built (make user)"
usage=$(TC_LIB_DIR=$TOP/tc tc qdisc add dev lo root dcb help 2>&1)
grep -q '^Usage:' <<<"$usage" || fail "no usage from the plugin: $(head -n2 <<<"$usage")"
for k in "${KW[@]}"; do
	grep -qw -- "$k" <<<"$usage" || fail "keyword '$k' is not in the plugin's usage (stale list?)"
	bold tc-dcb.8 "$k" || fail "tc-dcb.8 does not describe '$k'"
done
log "ok: tc-dcb.8 names all ${#KW[@]} keywords of the plugin"

# dcbmon(8): options and CSV columns
[ -x "$TOP/tools/dcbmon" ] || skip "tools/dcbmon not built (make user)"
opts=$("$TOP/tools/dcbmon" -h 2>&1 | sed -n 's/^ *\(-[a-z]\) .*/\1/p')
[ -n "$opts" ] || fail "no options in dcbmon -h"
for o in $opts; do
	bold dcbmon.8 "$o" || fail "dcbmon.8 does not describe $o"
done
cols=$("$TOP/tools/dcbmon" -d 1 lo 2>/dev/null | head -n1)
[[ $cols == t_ms,* ]] || fail "no CSV header from dcbmon: '$cols'"
for c in ${cols//,/ }; do
	bold dcbmon.8 "$c" || fail "dcbmon.8 does not describe the column $c"
done
log "ok: dcbmon.8 names the options $(echo $opts) and $(tr , '\n' <<<"$cols" | wc -l) columns"

# dcblab(1): scenarios
scn=$("$TOP/scripts/dcblab" list 2>/dev/null | awk '{ print $1 }')
[ -n "$scn" ] || fail "dcblab list printed nothing"
for s in $scn; do
	bold dcblab.1 "$s" || fail "dcblab.1 does not name the scenario $s"
done
log "ok: dcblab.1 names the $(wc -w <<<"$scn") scenarios"
exit "$ksft_pass"
