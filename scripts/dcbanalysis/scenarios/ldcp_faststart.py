# SPDX-License-Identifier: GPL-2.0
"""ldcp_faststart: summary.tsv, one row per setting (fs, nofs) in the
algo column, and fct.tsv, every small flow's completion time; fct.png
shows the completion times' distribution per setting."""

import os

from .cmp import COLUMNS, _num, analyzer, tsv

SCENARIO = "ldcp_faststart"
COLUMNS[SCENARIO] = {
    "flows": None,      # the number of small flows, a parameter
    "incast_s": ("incast_time", "s"),
    "fct_median_s": ("fct_median", "s"),
    "fct_p90_s": ("fct_p90", "s"),
    "fct_max_s": ("fct_max", "s"),
    "long_mbps": ("long_rate_incast", "Mbit/s"),
    "drops_wred": ("drops_wred", "packets"),
    "drops_tail": ("drops_tail", "packets"),
    "retries": ("gbn_retries", "retries"),
    "failed": ("procs_failed", "processes"),
    "cap_dropped": ("capture_dropped", "packets"),
}
analyze = analyzer(SCENARIO)


def plot(d, params):
    """fct.png: the small flows' completion times, sorted, per setting
    (a CDF read sideways).  Returns the files written."""
    from .. import plots

    fct = {}
    for r in tsv(os.path.join(d, "fct.tsv")):
        x = _num(r.get("fct_s"))
        if x is not None:
            fct.setdefault(r["setting"], []).append(x)
    if not fct:
        return []
    lines = []
    for s, v in fct.items():
        v.sort()
        lines.append((s, [(i + 1) / len(v) for i in range(len(v))], v))
    f = os.path.join(d, "fct.png")
    plots.series(f, lines, plots.title(
        SCENARIO, "small flows' completion times", params,
        ("hosts", "qps", "iters", "size", "rate", "k", "iw")),
        "completion time (s)", xlabel="fraction of the small flows")
    return [f]
