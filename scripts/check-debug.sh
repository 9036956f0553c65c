#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/check-debug.sh [selftests/run.sh options] - `make check-debug`:
# the test suite on the debug kernel (KASAN, KFENCE, lockdep, kmemleak,
# UBSAN, debug objects; scripts/debug-kernel.sh builds it once and caches
# it outside the repository).
#
# Our modules are built for that kernel in $DCBLAB_BUILD (default
# build/debug: sch_dcb from links to sch_dcb/, rdma_rxe and the algorithms
# as `make rxe` builds them), so the tree's own build for `make check`
# stays as it is.  Test timeouts are scaled by DCBLAB_TIMEOUT_SCALE
# (default 6: the checkers slow the guest down, and the tests scaled by
# DCBLAB_SLOW run about that much longer), and the fuzzers send
# DCBLAB_FUZZ_COUNT cases (default 2000).  Logs and TAP results
# go to $DCBLAB_BUILD/selftests.

set -euo pipefail

TOP=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd -P)

kdir=$(bash "$TOP/scripts/debug-kernel.sh" --print-kdir)
export DCBLAB_BUILD=${DCBLAB_BUILD:-$TOP/build/debug}
export DCBLAB_TIMEOUT_SCALE=${DCBLAB_TIMEOUT_SCALE:-6}
# Timing-sensitive tests scale their rates down and durations up by this
# (scripts/lib/common.sh, scaled_rate / scaled_time).
export DCBLAB_SLOW=${DCBLAB_SLOW:-5}
# The guest is CPU-bound there: assertions about how well the emulation
# performs (rates, shares, Jain's index, queue levels) are logged as XFAIL
# instead of failing (scripts/lib/common.sh, xfail_on_slow); safety and
# correctness assertions and the kernel-report checks stay as they are.
export DCBLAB_MACHINE_SLOW=${DCBLAB_MACHINE_SLOW:-yes}
# More fuzz cases than make check can afford.
export DCBLAB_FUZZ_COUNT=${DCBLAB_FUZZ_COUNT:-2000}
# ... and the tests marked `# suite: debug` (the fuzzers) run too.
export DCBLAB_CHECK_DEBUG=1
sch=$DCBLAB_BUILD/sch_dcb

mkdir -p "$sch"
rm -f "$sch"/*.[ch] "$sch/Kbuild" "$sch/uapi"
for f in "$TOP"/sch_dcb/*.[ch] "$TOP/sch_dcb/Kbuild" "$TOP/sch_dcb/uapi"; do
	ln -s "$f" "$sch/"
done
make -C "$kdir" M="$sch" W=1 modules
make -C "$TOP" KDIR="$kdir" rxe user man

export DCBLAB_DCB_KO=$sch/sch_dcb.ko DCBLAB_GUEST_KERNEL=$kdir
echo "check-debug: guest kernel $(cat "$kdir/include/config/kernel.release") ($kdir)"
# What ran: a suite run in parts (--shard) covers one code base when these
# match across the parts.
if git -C "$TOP" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	echo "check-debug: commit $(git -C "$TOP" rev-parse --short HEAD)," \
		"kernel code sch_dcb $(git -C "$TOP" rev-parse --short HEAD:sch_dcb)" \
		"rxe_cc $(git -C "$TOP" rev-parse --short HEAD:rxe_cc)" \
		"$(git -C "$TOP" diff --quiet HEAD -- sch_dcb rxe_cc || echo '(modified)')"
fi
exec bash "$TOP/selftests/run.sh" "$@"
