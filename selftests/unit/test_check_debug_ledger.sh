#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-debug.sh's ledger (runs on the host, no VM, no debug kernel): a
# saved run's output is recorded with its trees and times, and --coverage
# adds up ledgers, counting only passes on the current kernel trees and
# only the newest line of a test, and only lines of its flavour's kernel
# (a KCSAN pass does not count for the KASAN suite, nor the reverse).
#
# timeout: 300

. "$(dirname "$0")/../net/lib.sh"

need_cmd git awk
CD=$TOP/scripts/check-debug.sh
git -C "$TOP" rev-parse -q --verify HEAD >/dev/null 2>&1 ||
	skip "not a git checkout: the ledger is keyed by git trees"
git -C "$TOP" diff --quiet HEAD -- sch_dcb rxe_cc ||
	skip "sch_dcb/ or rxe_cc/ has uncommitted changes: no ledger line can count"

tmp=$(mktemp -d)
at_exit "rm -rf '$tmp'"
export DCBLAB_BUILD=$tmp/build DCBLAB_DEBUG_LEDGER=$tmp/ledger.tsv
sch=$(git -C "$TOP" rev-parse --short=12 HEAD:sch_dcb)
rxe=$(git -C "$TOP" rev-parse --short=12 HEAD:rxe_cc)
mapfile -t suite < <(DCBLAB_CHECK_DEBUG=1 bash "$TOP/selftests/run.sh" \
	--guest-only --list | sed 's|^net/||')
[ ${#suite[@]} -ge 4 ] || fail "run.sh --list gave ${#suite[@]} tests"

# A run's output as check-debug.sh prints it (the runner's time line with
# and without the guest's CPU share); the older format had 7-digit
# hashes and "(modified)" for either tree.
kdir=/var/cache/dcblab/debug-kernel/0123456789abcdef/linux
cat >"$tmp/run1.out" <<EOF
check-debug: guest kernel 6.1.999-dcblab-debug ($kdir)
check-debug: commit ${sch:0:7}, kernel code sch_dcb ${sch:0:7} rxe_cc ${rxe:0:7} 
TAP version 13
1..3
ok 1 - net/${suite[0]}
# net/${suite[0]}: 56.6s
not ok 2 - net/${suite[1]} # fail: queue never reached 1000000 bytes
# net/${suite[1]}: 300.2s, guest CPU 55% busy, 329 processes
ok 3 - net/${suite[2]} # SKIP no perftest
# net/${suite[2]}: 3.0s
2 passed, 1 failed
EOF
touch -d 2026-01-02T03:04:05Z "$tmp/run1.out"
bash "$CD" --record "$tmp/run1.out" 2>"$tmp/err" || fail "--record failed: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/ledger.tsv")" = 4 ] ||
	fail "ledger has $(wc -l <"$tmp/ledger.tsv") lines, want header + 3"
line=$(awk -F'\t' -v t="${suite[1]}" '$6 == t' "$tmp/ledger.tsv")
IFS=$'\t' read -r date _ l_sch l_rxe kernel _ res secs note <<<"$line"
[ "$date" = 2026-01-02T03:04:05Z ] || fail "date '$date', want the output's mtime"
[ "$l_sch/$l_rxe" = "$sch/$rxe" ] || fail "trees '$l_sch/$l_rxe', want $sch/$rxe (expanded)"
[ "$kernel" = 6.1.999-dcblab-debug/0123456789abcdef ] || fail "kernel '$kernel'"
[ "$res/$secs" = fail/300.2 ] || fail "result '$res/$secs', want fail/300.2"
[ "$note" = "fail: queue never reached 1000000 bytes" ] || fail "note '$note'"
[ "$(awk -F'\t' -v t="${suite[2]}" '$6 == t { print $7 }' "$tmp/ledger.tsv")" = skip ] ||
	fail "a SKIP is not recorded as skip"
log "ok: --record keeps result, time, note and expands the trees"

# Coverage: one pass of three; a skip and a fail do not count.
rc=0
bash "$CD" --coverage "$tmp/ledger.tsv" >"$tmp/cov" || rc=$?
[ $rc = 1 ] || fail "--coverage exit $rc with tests missing"
grep -q "^1 of ${#suite[@]} covered$" "$tmp/cov" || fail "coverage: $(tail -n1 "$tmp/cov")"
log "ok: $(tail -n1 "$tmp/cov") after one pass, one fail, one skip"

# A later pass of the failed test counts; a later failure of the passed one
# takes it back.  Lines of other trees and of uncommitted code never count.
{
	printf '2026-01-03T00:00:00Z\tc\t%s\t%s\tk\t%s\tok\t1\t\n' "$sch" "$rxe" "${suite[1]}"
	printf '2026-01-03T00:00:00Z\tc\t%s\t%s\tk\t%s\tfail\t1\tBUG: KASAN\n' "$sch" "$rxe" "${suite[0]}"
	printf '2026-01-04T00:00:00Z\tc\t%s\t%s\tk\t%s\tok\t1\t\n' "${sch}0" "$rxe" "${suite[3]}"
	printf '2026-01-04T00:00:00Z\tc\t%s+\t%s\tk\t%s\tok\t1\t\n' "$sch" "$rxe" "${suite[2]}"
} >"$tmp/more.tsv"
bash "$CD" --coverage "$tmp/ledger.tsv" "$tmp/more.tsv" >"$tmp/cov" && rc=0 || rc=$?
grep -q "^1 of ${#suite[@]} covered$" "$tmp/cov" || fail "coverage: $(tail -n1 "$tmp/cov")"
grep -qE "^  ${suite[0]} +fail .*\(1 failed run" "$tmp/cov" ||
	fail "the newer failure of ${suite[0]} is not shown: $(grep "${suite[0]}" "$tmp/cov")"
grep -qE "^  ${suite[1]} +ok .*\(1 failed run" "$tmp/cov" ||
	fail "the pass after a failure of ${suite[1]}: $(grep "${suite[1]}" "$tmp/cov")"
grep -qE "^  ${suite[3]} +not run" "$tmp/cov" || fail "another tree's line counted"
log "ok: newest line wins, other trees and uncommitted code do not count"

# Every test passed: exit 0.
for t in "${suite[@]}"; do
	printf '2026-01-05T00:00:00Z\tc\t%s\t%s\tk\t%s\tok\t1\t\n' "$sch" "$rxe" "$t"
done >>"$tmp/more.tsv"
bash "$CD" --coverage "$tmp/ledger.tsv" "$tmp/more.tsv" >"$tmp/cov" ||
	fail "--coverage failed with every test passed: $(tail -n1 "$tmp/cov")"
grep -q "^${#suite[@]} of ${#suite[@]} covered$" "$tmp/cov" || fail "coverage: $(tail -n1 "$tmp/cov")"

# Bad input: an output that is not a run's, a missing ledger.
bash "$CD" --record /dev/null 2>/dev/null && fail "--record took a file without the run's header"
bash "$CD" --coverage "$tmp/none.tsv" 2>/dev/null && fail "--coverage took a missing ledger"
log "ok: all passed exits 0; bad input rejected"

# The KCSAN flavour: its ledger lines name the -dcblab-kcsan kernel, its
# suite is its own list, and neither flavour counts the other's passes.
mapfile -t ksuite < <(DCBLAB_DEBUG_FLAVOUR=kcsan bash "$CD" --coverage /dev/null |
	sed -n 's/^  \([^ ]*\) .*/\1/p')
if [ ${#ksuite[@]} -lt 2 ] || [ ${#ksuite[@]} -ge ${#suite[@]} ]; then
	fail "the KCSAN suite has ${#ksuite[@]} tests (the whole suite ${#suite[@]})"
fi
sed -e 's/6\.1\.999-dcblab-debug/6.1.999-dcblab-kcsan/' \
	-e "s|net/${suite[0]}|net/${ksuite[0]}|" "$tmp/run1.out" >"$tmp/run2.out"
touch -d 2026-01-06T00:00:00Z "$tmp/run2.out"
DCBLAB_DEBUG_LEDGER=$tmp/kcsan.tsv bash "$CD" --record "$tmp/run2.out" 2>"$tmp/err" ||
	fail "--record of a KCSAN run failed: $(cat "$tmp/err")"
[ "$(awk -F'\t' -v t="${ksuite[0]}" '$6 == t { print $5 "/" $7 }' "$tmp/kcsan.tsv")" = \
	6.1.999-dcblab-kcsan/0123456789abcdef/ok ] ||
	fail "KCSAN ledger line: $(grep "${ksuite[0]}" "$tmp/kcsan.tsv")"
bash "$CD" --coverage "$tmp/kcsan.tsv" >"$tmp/cov" && fail "a KCSAN pass covered the KASAN suite"
grep -qE "^  ${ksuite[0]} +not run" "$tmp/cov" ||
	fail "the KASAN coverage counted a KCSAN line: $(grep "${ksuite[0]}" "$tmp/cov")"
DCBLAB_DEBUG_FLAVOUR=kcsan bash "$CD" --coverage "$tmp/kcsan.tsv" "$tmp/ledger.tsv" \
	"$tmp/more.tsv" >"$tmp/cov" && rc=0 || rc=$?
[ $rc = 1 ] || fail "KCSAN --coverage exit $rc with tests missing"
grep -q "^1 of ${#ksuite[@]} covered$" "$tmp/cov" ||
	fail "KCSAN coverage (KASAN lines must not count): $(tail -n1 "$tmp/cov")"
grep -qE "^  ${ksuite[0]} +ok " "$tmp/cov" || fail "the KCSAN pass is not shown: $(cat "$tmp/cov")"
log "ok: KCSAN lines name their kernel and count only for the KCSAN suite"
exit 0
