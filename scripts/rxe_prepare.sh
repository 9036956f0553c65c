#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/rxe_prepare.sh KDIR OUTDIR
#
# Puts the rdma_rxe sources of the kernel KDIR was built from into OUTDIR,
# patched with the series of that kernel's X.Y (rxe_cc/patches/X.Y/*.patch,
# rxe differs too much between kernel series for one series to fit all),
# next to links to our rxe_cc/ files, ready for `make -C KDIR M=OUTDIR`.
# The upstream files come from Debian's linux-source-X.Y tarball
# (LINUX_SOURCE_TARBALL overrides), whose version must be the one of KDIR.
# Nothing upstream is ever written to the repository outside OUTDIR.
set -euo pipefail

kdir=${1:?usage: rxe_prepare.sh KDIR OUTDIR}
out=${2:?usage: rxe_prepare.sh KDIR OUTDIR}
top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "rxe_prepare: error: $*" >&2; exit 1; }

vh=$kdir/include/generated/uapi/linux/version.h
[ -f "$vh" ] || die "$kdir is not a kernel build directory (no $vh)"
kmaj=$(sed -n 's/^#define LINUX_VERSION_MAJOR \([0-9]*\).*/\1/p' "$vh")
kmin=$(sed -n 's/^#define LINUX_VERSION_PATCHLEVEL \([0-9]*\).*/\1/p' "$vh")
ksub=$(sed -n 's/^#define LINUX_VERSION_SUBLEVEL \([0-9]*\).*/\1/p' "$vh")
[ -n "$kmaj" ] && [ -n "$kmin" ] && [ -n "$ksub" ] ||
	die "cannot read the kernel version from $vh"
kver=$kmaj.$kmin.$ksub
pkg=linux-source-$kmaj.$kmin
series=$top/rxe_cc/patches/$kmaj.$kmin
if [ ! -d "$series" ]; then
	have=$(cd "$top/rxe_cc/patches" && ls -d [0-9]*.[0-9]* 2>/dev/null | sort -V | paste -sd' ')
	die "no rxe patch series for Linux $kmaj.$kmin ($kdir): rxe_cc/patches/ has ${have:-none}; Documentation/porting.rst says how to add one"
fi
tarball=${LINUX_SOURCE_TARBALL:-/usr/src/$pkg.tar.xz}
hint=
! grep -qw -- "$pkg" "$top/scripts/deps.sh" 2>/dev/null || hint="; scripts/deps.sh does it"
[ -f "$tarball" ] ||
	die "$tarball not found: install the package $pkg (apt-get install $pkg$hint), version $kver to match $kdir"

# Extract only the rxe directory and the top Makefile, once per tarball.
cache=$out.src
stamp=$cache/.stamp
want="$tarball $(stat -c '%s %Y' "$tarball")"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
	rm -rf "$cache"
	mkdir -p "$cache"
	tar -xJf "$tarball" -C "$cache" "$pkg/Makefile" \
		"$pkg/drivers/infiniband/sw/rxe" ||
		die "$tarball has no $pkg/drivers/infiniband/sw/rxe"
	echo "$want" >"$stamp"
fi
srcroot=$cache/$pkg
[ -d "$srcroot/drivers/infiniband/sw/rxe" ] || die "no rxe sources in $tarball"
mk=$srcroot/Makefile
if [ -f "$mk" ]; then
	sver=$(awk -F' *= *' '$1=="VERSION"{v=$2} $1=="PATCHLEVEL"{p=$2}
		$1=="SUBLEVEL"{s=$2} END {print v"."p"."s}' "$mk")
	[ "$sver" = "$kver" ] ||
		die "$tarball is Linux $sver but $kdir is $kver: install the matching $pkg (or set KDIR)"
fi

# Fresh copy, our patches, links to our files.
rm -rf "$out"
mkdir -p "$out"
cp -a "$srcroot/drivers/infiniband/sw/rxe/." "$out/"
rm -f "$out/Makefile"
# RXE_PATCH_COUNT=N applies only the first N (scripts/rxe_bisect.sh)
n=0
for p in "$series"/*.patch; do
	[ -f "$p" ] || continue
	n=$((n + 1))
	[ -z "${RXE_PATCH_COUNT:-}" ] || [ "$n" -le "$RXE_PATCH_COUNT" ] || break
	patch -s -p1 -d "$out" --no-backup-if-mismatch <"$p" ||
		die "patch $(basename "$p") does not apply to Linux $kver's rxe"
done
for f in "$top"/rxe_cc/*.[ch] "$top"/rxe_cc/Kbuild; do
	ln -sf "$f" "$out/$(basename "$f")"
done
# the tests' modules, in kmod/ (rxe_cc/Kbuild); a DKMS copy has none
if [ -f "$top/selftests/kmod/Kbuild" ]; then
	mkdir -p "$out/kmod"
	for f in "$top"/selftests/kmod/*.[ch] "$top"/selftests/kmod/Kbuild; do
		ln -sf "$f" "$out/kmod/$(basename "$f")"
	done
fi
echo "rxe_prepare: $out: Linux $kver rxe + $(ls "$series"/*.patch 2>/dev/null | wc -l) patches of rxe_cc/patches/$kmaj.$kmin"
