# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# selftests/net/lib.sh - what every DCB lab selftest sources first:
#
#	. "$(dirname "$0")/lib.sh"       (from selftests/net/)
#	. "$(dirname "$0")/../net/lib.sh" (from selftests/unit/)
#
# The helpers themselves are in scripts/lib, shared with the dcblab
# scenarios: common.sh (sourced here: TOP, log/fail/skip, need_*,
# at_exit/defer, wait_for, sub-tests, assertions, ...), then as the test
# needs them, after this file has set TOP:
#
#	# shellcheck source=../../scripts/lib/dcb.sh
#	. "$TOP/scripts/lib/dcb.sh"       (and rxe.sh, cmp.sh, in that order)
#
# A test exits 0 (pass), 1 (fail) or 4 (skip).  See Documentation/testing.rst.

# shellcheck source=../../scripts/lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"
