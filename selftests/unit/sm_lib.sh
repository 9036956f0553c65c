# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the unit tests of the rxe_cc state machines (test_dcqcn*.sh,
# test_pcn*.sh, test_ldcp*.sh): sm_build ALGO PROGRAM builds
# selftests/unit/ALGO/PROGRAM (against selftests/unit/include/) into
# build/ALGO/PROGRAM and prints its path; it exits the test with 4 (skip)
# without a compiler and 1 (fail) if the build fails.  The unit tests use
# the kernel's selftest harness (kselftest_harness.h, kselftest.h), which
# sm_ksft extracts once from Debian's linux-source-6.1 into build/ksft.
set -u

# sm_ksft DIR: DIR/kselftest_harness.h and DIR/kselftest.h from the
# linux-source tarball (LINUX_SOURCE_TARBALL overrides), unless there.
sm_ksft()
{
	local tb=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.1.tar.xz} top
	[ -f "$1/kselftest_harness.h" ] && [ -f "$1/kselftest.h" ] && return 0
	[ -f "$tb" ] || { echo "FAIL: $tb missing (apt-get install linux-source-6.1)" >&2; exit 1; }
	top=$(basename "$tb" .tar.xz)
	mkdir -p "$1.tmp" &&
		tar -xJf "$tb" -C "$1.tmp" --strip-components=4 \
			"$top/tools/testing/selftests/kselftest_harness.h" \
			"$top/tools/testing/selftests/kselftest.h" &&
		rm -rf "$1" && mv "$1.tmp" "$1" ||
		{ rm -rf "$1.tmp"; echo "FAIL: cannot extract the selftest harness from $tb" >&2; exit 1; }
}

sm_build()
{
	local here out
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	out=${DCBLAB_BUILD:-$here/../../build}/$1
	command -v "${CC:-gcc}" >/dev/null && command -v make >/dev/null ||
		{ echo "SKIP: no compiler/make" >&2; exit 4; }
	mkdir -p "$out" || { echo "FAIL: cannot create $out" >&2; exit 1; }
	# run.sh runs unit tests side by side, and the programs of one ALGO
	# share objects in $out: one build at a time
	{
		flock 9
		sm_ksft "$out/../ksft"
		make -s -C "$here/$1" OUT="$out" KSFT="$(cd "$out/.." && pwd)/ksft" "$out/$2" >&2 ||
			{ echo "FAIL: build of $1/$2" >&2; exit 1; }
	} 9>"$out/../.sm_build.lock"
	echo "$out/$2"
}
