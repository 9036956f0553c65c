#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# dcblab's command line (scripts/dcbnet/cli.py): parsing, refusals, the
# folders and files of a run, the guests' shares (dcblab_test.py); runs
# on the host, no VM, nothing of a real run started.
#
# timeout: 60

. "$(dirname "$0")/../net/lib.sh"

PY=/usr/bin/python3
[ -x $PY ] || skip "$PY missing"
$PY "$TOP/selftests/unit/dcblab_test.py" 2>&1 || fail "dcblab unit tests failed"
exit "$ksft_pass"
