# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# scripts/lib/cmp_scenario.sh - what the bash scenarios built on cmp.sh
# (parking_lot, pcn_flows, ldcp_faststart) share: their helpers and
# dcblab's knobs in cmp.sh's variables.  Sourced at the top of the
# scenario file; the functions run inside dcblab's `run`.

# cmp_source_libs: the helpers of scripts/lib shared with the tests
# (common.sh, dcb.sh, rxe.sh, cmp.sh)
cmp_source_libs()
{
	# the scenario keeps dcblab's topology prefix (run_once's topo_init),
	# whatever the libraries set
	local l=$REPO/scripts/lib prefix=$TOPO_PREFIX
	# shellcheck source=common.sh
	. "$l/common.sh"
	# shellcheck source=dcb.sh
	. "$l/dcb.sh"
	# shellcheck source=rxe.sh
	. "$l/rxe.sh"
	# shellcheck source=cmp.sh
	. "$l/cmp.sh"
	# common.sh's exit handling (_lib_exit), and dcblab's own as well
	trap '_cmp_rc=$?; dl_monitor_stop; topo_cleanup; (exit $_cmp_rc); _lib_exit' EXIT
	TOPO_PREFIX=$prefix
}

# cmp_setup_common: knobs from P[] into the cmp.sh variables
cmp_setup_common()
{
	CMP_RATE_MBPS=${P[rate]}; CMP_LINE_MBPS=${P[rate]}
	CMP_SECS=${P[duration]}; CMP_IV=${P[interval]}; CMP_MON_MS=${P[interval_ms]}
	CMP_OUT=$OUT
	CMP_ALGOS=$(tr ',' ' ' <<<"${P[algos]}")
}
