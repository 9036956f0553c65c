#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/debug-kernel.sh [--flavour kasan|kcsan] [--print-kdir] - build
# (once) the guest kernel of `make check-debug`: Debian's linux-source-6.1
# with KASAN, KFENCE, lockdep, kmemleak, UBSAN and debug objects
# (scripts/debug-kernel/debug.config over x86_64_defconfig), everything the
# suite needs built in.  The flavour kcsan (`make check-kcsan`; also
# DCBLAB_DEBUG_FLAVOUR=kcsan) merges kcsan.config over that: KCSAN, the
# data-race detector, instead of KASAN, which it cannot be combined with.
#
# The build lives outside the repository, in $DCBLAB_DEBUG_CACHE (default
# /var/cache/dcblab/debug-kernel)/<key>, where key hashes the source
# tarball (name, size, mtime), the config fragments, this script and the
# compiler's version: a changed input builds a new tree, an unchanged one
# is reused.  Older trees of the same flavour are removed when a new one
# is complete; the flavours coexist.
#
# Layout of <key>/: linux/ (the built tree: KDIR for our modules, vmlinux
# for the guest), modroot/lib/modules/<release>/ (modules.builtin & co, so
# modprobe in the guest knows what is built in), build.log, build-seconds,
# flavour (its name; a tree without it is kasan, built before flavours),
# done (written last).
#
# Prints the tree's path (KDIR) on stdout with --print-kdir; progress goes
# to stderr.

set -euo pipefail

SELF=$(readlink -f "${BASH_SOURCE[0]}")
TOP=$(cd "$(dirname "$SELF")/.." && pwd -P)
FLAVOUR=${DCBLAB_DEBUG_FLAVOUR:-kasan}
CACHE=${DCBLAB_DEBUG_CACHE:-/var/cache/dcblab/debug-kernel}
TARBALL=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
JOBS=${DCBLAB_JOBS:-$(nproc)}
PRINT=0

die() { echo "debug-kernel: error: $*" >&2; exit 1; }
say() { echo "debug-kernel: $*" >&2; }

while [ $# -gt 0 ]; do
	case $1 in
	--print-kdir) PRINT=1; shift ;;
	--flavour) FLAVOUR=${2:-}; shift $(( $# > 1 ? 2 : 1 )) ;;
	--flavour=*) FLAVOUR=${1#*=}; shift ;;
	*) die "usage: debug-kernel.sh [--flavour kasan|kcsan] [--print-kdir]" ;;
	esac
done

# The fragments of each flavour, merged in this order (a later one
# overrides an earlier one's options).
FRAGS=("$TOP/scripts/debug-kernel/debug.config")
case $FLAVOUR in
kasan) ;;
kcsan) FRAGS+=("$TOP/scripts/debug-kernel/kcsan.config") ;;
*) die "unknown flavour '$FLAVOUR' (kasan or kcsan)" ;;
esac

[ -f "$TARBALL" ] || die "$TARBALL not found (apt-get install linux-source-6.1; scripts/deps.sh does it)"
for f in "${FRAGS[@]}"; do
	[ -f "$f" ] || die "$f missing"
done

key=$( {
	stat -c '%n %s %Y' "$TARBALL"
	cat "${FRAGS[@]}" "$SELF"
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

say "building the $FLAVOUR debug kernel in $dir ($JOBS jobs; log: $dir/build.log)"
t0=$(date +%s)
rm -rf "$dir"
mkdir -p "$dir"
echo "$FLAVOUR" >"$dir/flavour"
pkg=$(basename "$TARBALL" .tar.xz)
tar -xJf "$TARBALL" -C "$dir"
mv "$dir/$pkg" "$tree"

{
	make -C "$tree" x86_64_defconfig
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$tree" "$tree/.config" "${FRAGS[@]}"
	make -C "$tree" olddefconfig
} >"$dir/build.log" 2>&1 || die "configuration failed; see $dir/build.log"

# Every option the fragments ask for (the last one that names an option
# wins, as in merge_config.sh) must be what the configuration got (a
# dependency a fragment misses silently drops an option otherwise).
bad=$(awk '
	FNR == NR {
		if ($0 ~ /^CONFIG_[A-Z0-9_]+=/) { split($0, a, "="); got[a[1]] = substr($0, length(a[1]) + 2) }
		next
	}
	/^CONFIG_[A-Z0-9_]+=/ { split($0, a, "="); o = a[1]; v = substr($0, length(o) + 2) }
	/^# CONFIG_[A-Z0-9_]+ is not set/ { o = $2; v = "" }
	o != "" {
		if (!(o in want)) order[++n] = o
		want[o] = v; o = ""
	}
	END {
		for (i = 1; i <= n; i++) {
			o = order[i]
			g = (o in got) ? got[o] : "unset"
			if (want[o] == "") {
				if (g != "unset" && g != "n") print o " unset (got " g ")"
			} else if (g != want[o])
				print o "=" want[o] " (got " g ")"
		}
	}
' "$tree/.config" "${FRAGS[@]}")
[ -z "$bad" ] || die "the configuration lost options of ${FRAGS[*]}:
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

# Keep only this tree of its flavour: each one is several GB.  (A tree
# without a flavour file is kasan's, built before there were flavours.)
for old in "$CACHE"/*/; do
	old=${old%/}
	[ "$old" != "$dir" ] || continue
	f=$(cat "$old/flavour" 2>/dev/null) || f=kasan
	[ "$f" != "$FLAVOUR" ] || rm -rf "$old"
done
finish
