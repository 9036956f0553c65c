# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the shell unit tests that print TAP themselves (test_topo.sh):
# ok/nok DESC count one result, check DESC CMD...
# is ok when CMD succeeds, eq DESC GOT WANT when GOT is WANT; tap_end
# prints the plan and exits 1 if anything failed.

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() {
	local d=$1
	shift
	if "$@"; then ok "$d"; else nok "$d"; fi
}
eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else nok "$1: got '$2', want '$3'"; fi
}
tap_end() {
	echo "1..$n"
	[ "$failed" = 0 ] || exit 1
	exit 0
}
