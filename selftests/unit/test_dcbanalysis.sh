#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/dcbanalysis (results schema, analysers, tables, metadata.json)
# on synthetic results folders; runs on the host, no VM.
#
# timeout: 120

. "$(dirname "$0")/../net/lib.sh"

PY=/usr/bin/python3
[ -x $PY ] || skip "$PY missing"
$PY -c 'import pandas' 2>/dev/null || fail "python3-pandas missing (run scripts/deps.sh)"
$PY "$TOP/selftests/unit/dcbanalysis_test.py" 2>&1 || fail "dcbanalysis unit tests failed"
exit "$ksft_pass"
