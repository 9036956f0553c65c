# SPDX-License-Identifier: GPL-2.0
"""pcn_flows: summary.tsv, one row per (algorithm, flow count) named
ALGO-N in the algo column; results.csv names the algorithm alone and the
flow count in the metric (jain.n16, ...).  Plots: flows.png, Jain's index
and the bottleneck's mean queue against the number of flows per
algorithm."""

import os

from .cmp import _num, tsv

SCENARIO = "pcn_flows"
# column -> (metric, unit)
COLUMNS = {
    "jain": ("jain", "1"),
    "jain_w_min": ("jain_window_min", "1"),
    "jain_w_median": ("jain_window_median", "1"),
    "total_mbps": ("ip_rate_late", "Mbit/s"),
    "queue_mean_kb": ("queue_mean", "KB"),
    "queue_p99_kb": ("queue_p99", "KB"),
    "pause_tx": ("pause_tx", "frames"),
    "drops": ("drops", "packets"),
    "retries": ("gbn_retries", "retries"),
    "failed": ("procs_failed", "processes"),
    "cap_dropped": ("capture_dropped", "packets"),
    "queue_late_mean_kb": ("queue_mean_late", "KB"),
    "queue_late_p99_kb": ("queue_p99_late", "KB"),
    "pause_late": ("pause_late", "frames"),
}


def analyze(d, params):
    out = []
    for r in tsv(os.path.join(d, "summary.tsv")):
        algo = r["algo"].rpartition("-")[0]
        n = r["flows"]
        for col, (metric, unit) in COLUMNS.items():
            x = _num(r.get(col))
            if x is not None:
                out.append(("%s.n%s" % (metric, n), x, unit, algo,
                            SCENARIO))
    return out


def plot(d, params):
    """flows.png: Jain's index and the mean queue against N."""
    from .. import plots

    table = tsv(os.path.join(d, "summary.tsv"))
    if not table:
        return []
    import matplotlib.pyplot as plt

    series = {}
    for r in table:
        algo = r["algo"].rpartition("-")[0]
        series.setdefault(algo, []).append(
            (int(r["flows"]), _num(r["jain"]), _num(r["queue_mean_kb"])))
    f = os.path.join(d, "flows.png")
    title = plots.title(SCENARIO, "Jain's index and queue against flows",
                        params, ("hosts", "rate", "duration"))
    with plt.rc_context(plots.STYLE):
        fig, (a1, a2) = plt.subplots(2, 1, sharex=True)
        for algo, pts in series.items():
            pts.sort()
            kw = ({"color": plots.ALGO_COLORS[algo]}
                  if algo in plots.ALGO_COLORS else {})
            a1.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                    label=algo, **kw)
            a2.plot([p[0] for p in pts], [p[2] for p in pts], marker="o",
                    label=algo, **kw)
        a1.set_ylabel("Jain's index")
        a1.set_ylim(0, 1.05)
        a2.set_ylabel("mean queue (KB)")
        a2.set_ylim(bottom=0)
        a2.set_xlabel("flows")
        a2.set_xscale("log", base=2)
        a1.set_title(title)
        a1.legend(loc="best")
        fig.tight_layout()
        fig.savefig(f)
        plt.close(fig)
    return [f]
