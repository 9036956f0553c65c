#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/debug-kernel.sh [--print-kdir] - build (once) the guest kernel of
# `make check-debug`: Debian's linux-source-6.1 with KASAN, KFENCE, lockdep,
# kmemleak, UBSAN and debug objects (scripts/debug-kernel/debug.config over
# x86_64_defconfig), everything the suite needs built in.
#
# The build lives outside the repository, in $DCBLAB_DEBUG_CACHE (default
# /var/cache/dcblab/debug-kernel)/<key>, where key hashes the source
# tarball (name, size, mtime), the config fragment, this script and the
# compiler's version: a changed input builds a new tree, an unchanged one
# is reused.  Older trees are removed when a new one is complete.
#
# Layout of <key>/: linux/ (the built tree: KDIR for our modules, vmlinux
# for the guest), modroot/lib/modules/<release>/ (modules.builtin & co, so
# modprobe in the guest knows what is built in), build.log, build-seconds,
# done (written last).
#
# Prints the tree's path (KDIR) on stdout with --print-kdir; progress goes
# to stderr.

set -euo pipefail

SELF=$(readlink -f "${BASH_SOURCE[0]}")
TOP=$(cd "$(dirname "$SELF")/.." && pwd -P)
FRAG=$TOP/scripts/debug-kernel/debug.config
CACHE=${DCBLAB_DEBUG_CACHE:-/var/cache/dcblab/debug-kernel}
TARBALL=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
JOBS=${DCBLAB_JOBS:-$(nproc)}
PRINT=0

die() { echo "debug-kernel: error: $*" >&2; exit 1; }
say() { echo "debug-kernel: $*" >&2; }

case ${1:-} in
--print-kdir) PRINT=1 ;;
'') ;;
*) die "usage: debug-kernel.sh [--print-kdir]" ;;
esac

[ -f "$TARBALL" ] || die "$TARBALL not found (apt-get install linux-source-6.1; scripts/deps.sh does it)"
[ -f "$FRAG" ] || die "$FRAG missing"

key=$( {
	stat -c '%n %s %Y' "$TARBALL"
	cat "$FRAG" "$SELF"
	gcc --version | head -n1
} | sha256sum | cut -c1-16)
dir=$CACHE/$key
tree=$dir/linux

finish() {
	[ "$PRINT" = 0 ] || echo "$tree"
	exit 0
}

[ ! -f "$dir/done" ] || finish

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
say "waiting for the build lock $CACHE/.lock"
flock 9
[ ! -f "$dir/done" ] || finish

say "building the debug kernel in $dir ($JOBS jobs; log: $dir/build.log)"
t0=$(date +%s)
rm -rf "$dir"
mkdir -p "$dir"
pkg=$(basename "$TARBALL" .tar.xz)
tar -xJf "$TARBALL" -C "$dir"
mv "$dir/$pkg" "$tree"

{
	make -C "$tree" x86_64_defconfig
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$tree" "$tree/.config" "$FRAG"
	make -C "$tree" olddefconfig
} >"$dir/build.log" 2>&1 || die "configuration failed; see $dir/build.log"

# Every option the fragment asks for must be what the configuration got
# (a dependency the fragment misses silently drops an option otherwise).
bad=$(awk '
	FNR == NR {
		if ($0 ~ /^CONFIG_[A-Z0-9_]+=/) { split($0, a, "="); got[a[1]] = substr($0, length(a[1]) + 2) }
		next
	}
	/^CONFIG_[A-Z0-9_]+=/ { split($0, a, "="); want = substr($0, length(a[1]) + 2)
		if (got[a[1]] != want) print a[1] "=" want " (got " (a[1] in got ? got[a[1]] : "unset") ")" }
	/^# CONFIG_[A-Z0-9_]+ is not set/ { if (got[$2] != "" && got[$2] != "n") print $2 " unset (got " got[$2] ")" }
' "$tree/.config" "$FRAG")
[ -z "$bad" ] || die "the configuration lost options of $FRAG:
$bad"

if ! make -C "$tree" -j"$JOBS" vmlinux bzImage modules >>"$dir/build.log" 2>&1; then
	tail -n 30 "$dir/build.log" >&2
	die "build failed; see $dir/build.log"
fi
make -C "$tree" INSTALL_MOD_PATH="$dir/modroot" modules_install >>"$dir/build.log" 2>&1 ||
	die "modules_install failed; see $dir/build.log"
echo $(( $(date +%s) - t0 )) >"$dir/build-seconds"
date -u +%FT%TZ >"$dir/done"
say "built $(cat "$tree/include/config/kernel.release") in $(cat "$dir/build-seconds") s"

# Keep only this tree: each one is several GB.
for old in "$CACHE"/*/; do
	old=${old%/}
	[ "$old" = "$dir" ] || rm -rf "$old"
done
finish
