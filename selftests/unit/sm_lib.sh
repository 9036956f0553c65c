# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the unit tests of the rxe_cc state machines (test_dcqcn*.sh,
# test_pcn*.sh, test_ldcp*.sh): sm_build ALGO PROGRAM builds
# selftests/unit/ALGO/PROGRAM (against the kernel shim) into
# build/ALGO/PROGRAM and prints its path; it exits the test with 4 (skip)
# without a compiler and 1 (fail) if the build fails.
set -u

sm_build()
{
	local here out
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	out=${DCBLAB_BUILD:-$here/../../build}/$1
	command -v "${CC:-gcc}" >/dev/null && command -v make >/dev/null ||
		{ echo "SKIP: no compiler/make" >&2; exit 4; }
	make -s -C "$here/$1" OUT="$out" "$out/$2" >&2 ||
		{ echo "FAIL: build of $1/$2" >&2; exit 1; }
	echo "$out/$2"
}
