#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/dcbanalysis/fct.py (FCT slowdown per size bin of rdmaflow's
# messages) and the fct_workload experiment's analysis and plot, on
# synthetic CSVs; runs on the host, no VM.
#
# timeout: 120

. "$(dirname "$0")/../net/lib.sh"

PY=/usr/bin/python3
[ -x $PY ] || skip "$PY missing"
$PY -c 'import pandas, matplotlib' 2>/dev/null || fail "python3-pandas or python3-matplotlib missing (run scripts/deps.sh)"
$PY "$TOP/selftests/unit/fct_test.py" 2>&1 || fail "fct unit tests failed"
exit "$ksft_pass"
