#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make install KVER=6.12, a kernel series rather than a release, into a
# staging DESTDIR (issue 17).  The release expected is read here from
# the newest linux-headers-6.12.*-amd64, not from the Makefile:
#  - the five modules go to lib/modules/<that release>/updates/dcblab
#    (nothing to lib/modules/6.12), they are the ones make all KVER=6.12
#    built in build/6.12, their vermagic is that release, and depmod
#    resolves rdma_rxe and the alias rxe-cc-dcqcn to them;
#  - KVER=<the full release> installs the same files;
#  - a module built for another kernel (the default build's sch_dcb) is
#    refused and nothing is installed;
#  - make uninstall KVER=6.12 removes the modules again.
# Builds nothing: `make check-smoke KVER=6.12` runs it after building
# build/6.12 (suite kver: plain make check builds no 6.12 modules, so
# there it could only skip); by hand it skips when no 6.12 headers are
# installed or build/6.12 lacks the modules.  Host only, a few seconds.
#
# suite: kver
# timeout: 60

. "$(dirname "$0")/../net/lib.sh"

need_cmd make modinfo depmod cmp
kdir=$(ls -d /usr/src/linux-headers-6.12.*-amd64 2>/dev/null |
	grep -Ev -- '-(cloud|rt)-amd64$' | sort -V | tail -n1)
[ -n "$kdir" ] || skip "no Debian 6.12 headers (linux-headers-6.12.*-amd64)"
rel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$kdir/include/generated/utsrelease.h")
[ -n "$rel" ] || fail "no UTS_RELEASE in $kdir"

B=${DCBLAB_BUILD:-$TOP/build}
MODS=(sch_dcb/sch_dcb.ko rxe_cc/rdma_rxe.ko rxe_cc/rxe_cc_dcqcn.ko
	rxe_cc/rxe_cc_pcn.ko rxe_cc/rxe_cc_ldcp.ko)
for m in "${MODS[@]}"; do
	[ -f "$B/6.12/$m" ] || skip "$B/6.12/$m not built (make all KVER=6.12 builds it, in minutes)"
	vm=$(modinfo -F vermagic "$B/6.12/$m")
	[ "${vm%% *}" = "$rel" ] ||
		skip "$B/6.12/$m is built for '${vm%% *}', not $rel (stale: make all KVER=6.12)"
done
# make install also wants the userspace and the man pages
for f in "$TOP/tc/q_dcb.so" "$TOP/tools/dcbmon" \
	$(ls "$TOP"/Documentation/man/*.rst | sed "s|.*/\(.*\)\.rst$|$B/man/\1|"); do
	[ -f "$f" ] || skip "$f not built (make all KVER=6.12)"
done

# make as a user runs it: nothing of the environment a make check passes
# down (its KDIR is the default kernel's, exported) chooses the kernel.
MK=(env -u KDIR -u KVER -u DCB_KO -u RXE_BUILD -u MAKEFLAGS -u MAKELEVEL -u MFLAGS
	make -s -C "$TOP")
t=$(mktemp -d /var/tmp/install-kver.XXXXXX)
at_exit "rm -rf '$t'"

"${MK[@]}" install KVER=6.12 DESTDIR="$t/series" >"$t/log" 2>&1 ||
	fail "make install KVER=6.12: $(tail -n3 "$t/log")"
got=$(ls "$t/series/lib/modules")
[ "$got" = "$rel" ] || fail "lib/modules/ has '$(echo $got)', not only $rel"
d=$t/series/lib/modules/$rel/updates/dcblab
for m in "${MODS[@]}"; do
	f=$d/$(basename "$m")
	[ -f "$f" ] || fail "$(basename "$m") not in lib/modules/$rel/updates/dcblab"
	cmp -s "$f" "$B/6.12/$m" || fail "$f is not $B/6.12/$m"
	vm=$(modinfo -F vermagic "$f")
	[ "${vm%% *}" = "$rel" ] || fail "$(basename "$m") installed for $rel has vermagic '$vm'"
done
[ "$(ls "$d" | wc -l)" = "${#MODS[@]}" ] || fail "more than the modules in $d: $(ls "$d")"
log "ok: KVER=6.12: ${#MODS[@]} modules of build/6.12 in lib/modules/$rel/updates/dcblab, vermagic $rel"

# the full release: the same files in the same places
"${MK[@]}" install KVER="$rel" DESTDIR="$t/release" >"$t/log" 2>&1 ||
	fail "make install KVER=$rel: $(tail -n3 "$t/log")"
diff -r --no-dereference "$t/series" "$t/release" >"$t/diff" 2>&1 ||
	fail "KVER=6.12 and KVER=$rel install different trees: $(head -n3 "$t/diff")"
log "ok: KVER=$rel installs the same tree"

# depmod's view of the staged tree
depmod -b "$t/series" "$rel" 2>/dev/null || fail "depmod -b $t/series $rel"
for m in rdma_rxe:rdma_rxe rxe-cc-dcqcn:rxe_cc_dcqcn sch_dcb:sch_dcb; do
	p=$(modinfo -b "$t/series" -k "$rel" -n "${m%%:*}" 2>/dev/null)
	[ "$p" = "$d/${m#*:}.ko" ] || fail "modinfo -k $rel ${m%%:*} names '$p'"
done
log "ok: depmod for $rel resolves rdma_rxe, rxe-cc-dcqcn and sch_dcb to them"

# a module of another kernel is refused before anything is installed
other=$TOP/sch_dcb/sch_dcb.ko
ovm=$( [ -f "$other" ] && modinfo -F vermagic "$other")
if [ -n "$ovm" ] && [ "${ovm%% *}" != "$rel" ]; then
	"${MK[@]}" install KVER=6.12 DESTDIR="$t/other" DCB_KO="$other" >"$t/log" 2>&1 &&
		fail "make install KVER=6.12 took a sch_dcb built for ${ovm%% *}"
	grep -q "built for '${ovm%% *}', not $rel" "$t/log" ||
		fail "no vermagic message: $(tail -n2 "$t/log")"
	[ ! -e "$t/other" ] || fail "a refused install left $(find "$t/other" -type f | head -n3)"
	log "ok: sch_dcb of ${ovm%% *} refused: $(head -n1 "$t/log" | cut -c1-100)"
else
	log "not checked: the refusal of another kernel's module (no default build of sch_dcb)"
fi

"${MK[@]}" uninstall KVER=6.12 DESTDIR="$t/series" >"$t/log" 2>&1 ||
	fail "make uninstall KVER=6.12: $(tail -n3 "$t/log")"
left=$(find "$t/series" -name '*.ko' -o -name dcblab.conf -o -name q_dcb.so)
[ -z "$left" ] || fail "left after make uninstall KVER=6.12: $(echo $left)"
[ ! -e "$d" ] || fail "$d left after make uninstall"
log "ok: make uninstall KVER=6.12 removes them"
exit "$ksft_pass"
