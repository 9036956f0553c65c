#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 1200
#
# The tc plugin against the real sch_dcb: the tdc-style cases of
# selftests/tc-testing/dcb.json (the format of the kernel's tc-testing),
# run by selftests/tc-testing/tdc.py in a namespace of their own.  Each
# case sets up a qdisc, runs one tc command, checks its exit status (and,
# for a refused command, its message) and what tc shows afterwards: for
# a refused command, the configuration set up before, unchanged.
#
# TDC_ARGS passes options to tdc.py (-e ID,..., -c CATEGORY, -v).
. "$(dirname "$0")/lib.sh"

need_root
need_cmd tc ip jq python3
need_mod veth dummy
load_dcb

# shellcheck disable=SC2086
python3 "$TOP/selftests/tc-testing/tdc.py" ${TDC_ARGS:-} \
	"$TOP/selftests/tc-testing/dcb.json"
check_err $? "tdc: some cases failed (above)"
log_test "tdc cases of dcb.json"

tests_exit
