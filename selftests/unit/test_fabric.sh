#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The fabric description and the HPCC simulator's file formats
# (scripts/dcbnet/fabric.py, hpcc.py): leaf-spine shapes and paths, the
# ECMP report, rxe's UDP source port, the parsers' readings and refusals
# (fabric_test.py); runs on the host, no VM, no Mininet.
#
# timeout: 60

. "$(dirname "$0")/../net/lib.sh"

PY=/usr/bin/python3
[ -x $PY ] || skip "$PY missing"
$PY "$TOP/selftests/unit/fabric_test.py" 2>&1 || fail "fabric unit tests failed"
exit "$ksft_pass"
