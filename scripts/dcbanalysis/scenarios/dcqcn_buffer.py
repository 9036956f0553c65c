# SPDX-License-Identifier: GPL-2.0
"""dcqcn_buffer: cmp_incast's summary.tsv (one row per switch
configuration, in the algo column) and thresholds.tsv (bytes: the pool,
its reservation, the XOFF and Kmin in force, section 4's bound and the
peaks), plus each configuration's PAUSE frames over the PFC-only run's
and the 10th percentile of its flows' rates (the paper's Fig. 18
metric)."""

import csv
import math
import os
import statistics

from .cmp import queue_kb
from .cmp import rows as cmp_rows

SCENARIO = "dcqcn_buffer"
# thresholds.tsv column (bytes) -> metric in KB
THRESHOLDS = {
    "kmin_bound": "kmin_bound",
    "pool_peak": "pool_peak",
    "xoff_low": "xoff_low",
    "ingress_peak": "ingress_peak",
}


def _kb(v):
    """@v bytes in KB; None for what was not measured (NaN, "off")."""
    try:
        x = float(v) / 1024
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def analyze(d, params):
    out = cmp_rows(SCENARIO, os.path.join(d, "summary.tsv"))
    p = os.path.join(d, "thresholds.tsv")
    if os.path.exists(p):
        with open(p, newline="") as f:
            for r in csv.DictReader(f, delimiter="\t"):
                for col, metric in THRESHOLDS.items():
                    x = _kb(r.get(col))
                    if x is not None:
                        out.append((metric, x, "KB", r["config"], SCENARIO))
    rates = {}
    for t in out:
        if t[0].startswith("flow_rate.f"):
            rates.setdefault(t[3], []).append(t[1])
    for cfg, v in rates.items():
        p10 = (statistics.quantiles(v, n=10, method="inclusive")[0]
               if len(v) > 1 else v[0])
        out.append(("flow_rate_p10", p10, "Mbit/s", cfg, SCENARIO))
    pause = {t[3]: t[1] for t in out if t[0] == "pause_tx"}
    base = pause.get("pfc-only")
    if base:
        for cfg, n in pause.items():
            out.append(("pause_vs_pfc_only", n / base, "1", cfg, SCENARIO))
    return out


def plot(d, params):
    """queue.png: the bottleneck's backlog of every configuration (t = 0:
    the first packet), Kmin dashed.  Returns the files written."""
    from .. import plots, units

    lines = []
    for cfg in params.get("configs", "").split(","):
        tq = queue_kb(os.path.join(d, cfg, "queue.csv"))
        if tq is not None:
            lines.append((cfg,) + tq)
    if not lines:
        return []
    kmin = params.get("red", "").split(":")[0]
    f = os.path.join(d, "queue.png")
    plots.series(f, lines, plots.title(
        SCENARIO, "bottleneck backlog per switch setting", params,
        ("senders", "rate", "buffer", "beta", "red")), "backlog (KB)",
        hline=units.size_bytes(kmin) / 1024 if kmin else None,
        hline_label="Kmin (paper, static)")
    return [f]
