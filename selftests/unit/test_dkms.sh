#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# DKMS (dkms.conf, make dkms-source): dkms adds, builds and installs the
# five modules for Debian's 6.1 kernel from the staged sources, in trees
# of its own (--dkmstree, --sourcetree, --installtree: nothing of the
# host's /lib/modules or /var/lib/dkms changes).  Then:
#  - the modules are in updates/dkms, built for that kernel (vermagic);
#  - our rdma_rxe (version = dkms.conf's PACKAGE_VERSION, so DKMS's
#    version check lets it replace a versionless original) wins over a
#    copy of the distribution's in depmod's view;
#  - without the kernel's linux-source package the build fails and says
#    which package to install.
# Runs on the host; about two minutes (the rxe build), so in make
# check-long.
#
# timeout: 600
# suite: long

. "$(dirname "$0")/../net/lib.sh"

need_cmd dkms depmod modinfo make
kdir=$(ls -d /usr/src/linux-headers-6.1.*-amd64 2>/dev/null | sort | tail -n1)
[ -n "$kdir" ] || skip "no Debian 6.1 headers"
kver=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$kdir/include/generated/utsrelease.h")
[ -d "/lib/modules/$kver/build" ] || skip "/lib/modules/$kver/build missing"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TOP/dkms.conf")
[ -n "$ver" ] || fail "no PACKAGE_VERSION in dkms.conf"
t=$(mktemp -d /var/tmp/dkms-test.XXXXXX)
at_exit "rm -rf '$t'"
mkdir -p "$t/tree" "$t/lib/modules/$kver"
D=(dkms --dkmstree "$t/tree" --sourcetree "$t/src" --installtree "$t/lib/modules")

make -s -C "$TOP" dkms-source DKMS_SRC="$t/src" || fail "make dkms-source"
[ -f "$t/src/dcblab-$ver/dkms.conf" ] || fail "no dkms.conf in the staged sources"
! find "$t/src" -name '*.o' -o -name '*.ko' -o -name '*.mod.c' | grep -q . ||
	fail "build products in the staged sources"
"${D[@]}" add -m dcblab -v "$ver" >"$t/add.log" 2>&1 || { cat "$t/add.log"; fail "dkms add"; }

# no linux-source: a clear message naming the package
LINUX_SOURCE_TARBALL=$t/none.tar.xz "${D[@]}" build -m dcblab -v "$ver" -k "$kver" \
	>"$t/nosrc.log" 2>&1 && fail "dkms build succeeded without the kernel's source"
grep -q "install the package linux-source-6.1" "$t/nosrc.log" ||
	fail "no message naming linux-source-6.1: $(grep -i error "$t/nosrc.log" | head -n3)"
log "ok: without linux-source: $(grep -m1 'rxe_prepare: error' "$t/nosrc.log" | cut -c1-90)"

"${D[@]}" build -m dcblab -v "$ver" -k "$kver" >"$t/build.log" 2>&1 ||
	{ tail -n 20 "$t/build.log"; fail "dkms build"; }
# a copy of the distribution's rdma_rxe, as the original
orig=$(find "/lib/modules/$kver/kernel" -name 'rdma_rxe.ko*' | head -n1)
[ -n "$orig" ] || fail "no distribution rdma_rxe for $kver"
mkdir -p "$t/lib/modules/$kver/kernel/rxe" && cp "$orig" "$t/lib/modules/$kver/kernel/rxe/"
"${D[@]}" --no-depmod install -m dcblab -v "$ver" -k "$kver" >"$t/install.log" 2>&1 ||
	{ tail -n 20 "$t/install.log"; fail "dkms install"; }
for m in sch_dcb rdma_rxe rxe_cc_dcqcn rxe_cc_pcn rxe_cc_ldcp; do
	f=$(ls "$t/lib/modules/$kver/updates/dkms/$m.ko"* 2>/dev/null | head -n1)
	[ -n "$f" ] || fail "$m not installed in updates/dkms: $(grep -A3 "^$m" "$t/install.log" | tr '\n' ' ')"
	vm=$(modinfo -F vermagic "$f")
	[ "${vm%% *}" = "$kver" ] || fail "$m built for '${vm%% *}', not $kver"
done
[ "$(modinfo -F version "$t/lib/modules/$kver/updates/dkms/rdma_rxe.ko"*)" = "$ver" ] ||
	fail "rdma_rxe's version is not dkms.conf's $ver"
depmod -b "$t" "$kver" 2>/dev/null || fail "depmod -b"
p=$(modinfo -b "$t" -k "$kver" -n rdma_rxe)
[[ $p == */updates/dkms/rdma_rxe.ko* ]] || fail "depmod resolves rdma_rxe to $p"
log "ok: 5 modules for $kver in updates/dkms; rdma_rxe $ver resolves to ours"
exit "$ksft_pass"
