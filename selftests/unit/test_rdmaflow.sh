#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unit tests of rdmaflow's workload (tools/flowgen.c): the shipped
# flow-size CDFs (data/cdf), inverse-transform sampling, Poisson gaps,
# flow files and the sender's scheduler of messages over QPs; then
# rdmaflow's refusals of bad input (exit 2, one line) where it is built.
# Exit: 0 pass, 1 fail, 4 skip.
. "$(dirname "$0")/sm_lib.sh"
bin=$(sm_build rdmaflow test_flowgen) || exit $?
"$bin" || { echo "FAIL: flowgen unit tests"; exit 1; }

top=$(cd "$(dirname "$0")/../.." && pwd)
rf=$top/tools/rdmaflow
[ -x "$rf" ] || { echo "# tools/rdmaflow not built: its command line untested"; exit 0; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
printf '10 0\n5 100\n' >"$tmp/bad.cdf"
rc=0
# refused: ARGS... -> exit 2 and a message containing WANT
refused() {
	local want=$1 out st
	shift
	out=$("$rf" "$@" 2>&1 </dev/null)
	st=$?
	if [ $st -ne 2 ] || ! grep -qF -- "$want" <<<"$out"; then
		echo "FAIL: rdmaflow $* -> exit $st, want 2 and '$want':"
		echo "$out" | sed 's/^/#   /'
		rc=1
	else
		echo "ok: rdmaflow $* -> 2: $(grep -F -- "$want" <<<"$out" | head -1)"
	fi
}
refused "usage: rdmaflow"
refused "unknown mode 'x'" x
refused "needs one of --cdf, --flows and --ping" client 10.0.0.1
refused "needs one of --cdf, --flows and --ping" client --ping 1 --flows f 10.0.0.1
refused "--cdf needs --rate and --load" client --cdf "$top/data/cdf/FbHdp_distribution.txt" 10.0.0.1
refused "--cdf needs --duration or --count" client --cdf "$top/data/cdf/FbHdp_distribution.txt" --rate 100 --load 0.3 10.0.0.1
refused "no destination" client --ping 1
refused "bad value '0' for --qps" client --ping 1 --qps 0 10.0.0.1
refused "bad value '1.5x' for --load" client --cdf x --rate 100 --load 1.5x --count 1 10.0.0.1
refused "bad.cdf:2: sizes and probabilities must not decrease" client --cdf "$tmp/bad.cdf" --rate 100 --load 0.3 --count 5 10.0.0.1
refused "bad destination" client --ping 1 =10.0.0.1
refused "destination a given twice" client --ping 1 a=10.0.0.1 a=10.0.0.2
printf 'h1 h9 100 0\n' >"$tmp/f.txt"
refused "a flow from h1 to h9, which is not a destination" client --flows "$tmp/f.txt" h2=10.0.0.2
refused "unexpected argument" server extra
"$rf" --help | grep -q -- "--scale S" || { echo "FAIL: --help"; rc=1; }
exit $rc
