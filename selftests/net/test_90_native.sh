#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 900
# suite: long
#
# The native path: what a user whose kernel loads modules runs, without a
# guest.  The guest is such a machine (it loads modules and has the
# running kernel's headers), so the tools must choose native mode here by
# themselves, with nothing forcing it:
#  - make builds against the running kernel's headers
#    (/lib/modules/RELEASE/build: the Makefile's KDIR);
#  - scripts/vm-run decides to run its command natively;
#  - selftests/run.sh --guest-only (what make check runs after building)
#    runs test_10 (sch_dcb's ECN marking) and test_60 (our rdma_rxe across
#    namespaces with perftest) natively: both pass, their logs say they
#    ran on this kernel, no qemu is started;
#  - dcblab run incast, without --native, runs natively and writes its
#    results: table.txt, and metadata.json naming this kernel.
# Run in make check-smoke, so CI proves it on the second kernel (6.12).
# The modules are the ones the host built for this kernel (DCBLAB_BUILD);
# building them again in a TCG guest would take most of the time limit.
. "$(dirname "$0")/lib.sh"

need_cmd make timeout
in_vm || skip "runs the native path inside a scripts/vm-run guest (on a host that loads modules, make check already is that path)"
rel=$(uname -r)
[ -d "/lib/modules/$rel/build" ] ||
	skip "no headers for $rel in the guest (/lib/modules/$rel/build)"

TMPD=$(mktemp -d)
at_exit "rm -rf '$TMPD'"

# make: the running kernel by default (KDIR as the Makefile sets it; a
# dry run of `make modules` would parse the kernel's Makefiles, minutes
# in a TCG guest)
kdir=$(make -s -C "$TOP" --eval 'dcblab-kdir: ; @echo $(KDIR)' dcblab-kdir)
log "make: KDIR $kdir"
kdir_rel=$(readlink -f "$kdir")
[ "$kdir_rel" = "$(readlink -f "/lib/modules/$rel/build")" ] ||
	check_err 1 "make builds against '$kdir' ($kdir_rel), not the running kernel $rel"
log_test "make: the running kernel's headers"

# vm-run's own decision, with the environment the suite gives it
dec=$(bash "$TOP/scripts/vm-run" -v -- uname -r 2>&1)
log "$(echo "$dec" | tr "\n" " ")"
echo "$dec" | grep -q "^vm-run: running natively on $rel\$"
check_err $? "vm-run did not choose native mode: $dec"
log_test "vm-run: native mode"

# the suite's runner, natively
q0=$(pgrep -c qemu || true)
res=$TMPD/results
DCBLAB_RESULTS=$res timeout "$(scaled_time 600)" bash "$TOP/selftests/run.sh" \
	--guest-only --filter 'net/test_(10|60)_' >"$TMPD/run.out" 2>&1
rc=$?
sed 's/^/  | /' "$TMPD/run.out"
q1=$(pgrep -c qemu || true)
[ "$rc" = 0 ] || check_err 1 "selftests/run.sh natively: exit $rc"
tail -n1 "$TMPD/run.out" | grep -q '^2 passed, 0 failed'
check_err $? "selftests/run.sh natively: $(tail -n1 "$TMPD/run.out")"
[ "${q1:-0}" -le "${q0:-0}" ] || check_err 1 "a qemu was started ($q0 -> $q1 processes)"
for t in test_10_dcb_ecn test_60_rxe_netns; do
	head -n1 "$res/net/$t.log" 2>/dev/null | grep -q " on $rel, "
	check_err $? "$t's log does not say it ran on $rel: $(head -n1 "$res/net/$t.log" 2>&1)"
done
log_test "run.sh: test_10 and test_60 natively"

# a scenario, natively, by dcblab's own choice
out=$TMPD/incast
env -u DCBLAB_IN_GUEST timeout "$(scaled_time 300)" "$TOP/scripts/dcblab" run incast \
	--out "$out" --duration "$(scaled_time 5)" >"$TMPD/dcblab.log" 2>&1
rc=$?
tail -n 15 "$TMPD/dcblab.log" | sed 's/^/  | /'
[ "$rc" = 0 ] || check_err 1 "dcblab run incast: exit $rc"
! grep -q 'running in the guest' "$TMPD/dcblab.log"
check_err $? "dcblab chose the guest"
[ -s "$out/table.txt" ] || check_err 1 "no table.txt in $out: $(ls "$out" 2>&1 | tr '\n' ' ')"
k=$(jq -r '.kernel.release // empty' "$out/metadata.json" 2>/dev/null)
[ "$k" = "$rel" ] || check_err 1 "metadata.json's kernel is '$k', not $rel"
log "dcblab run incast natively: $(grep -c . "$out/table.txt" 2>/dev/null) lines of table, kernel $k"
log_test "dcblab: incast natively, metadata of this kernel"

tests_exit
