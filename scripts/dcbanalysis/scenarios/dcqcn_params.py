# SPDX-License-Identifier: GPL-2.0
"""dcqcn_params: cmp_incast's summary.tsv with one row per (incast,
setting), named N-SETTING in the algo column; queue-N.png, the
bottleneck's backlog of every setting of the N:1 incast, and jain.png,
Jain's index per setting and incast."""

import os

from .cmp import COLUMNS, _num, queue_kb, rows, tsv

SCENARIO = "dcqcn_params"
COLUMNS[SCENARIO] = COLUMNS["cmp_incast"]


def analyze(d, params):
    return rows(SCENARIO, os.path.join(d, "summary.tsv"))


def plot(d, params):
    """queue-N.png per incast and jain.png.  Returns the files written."""
    from .. import plots

    table = tsv(os.path.join(d, "summary.tsv"))
    keys = ("rate", "iters", "size", "red")
    out = []
    incasts = []
    for r in table:
        n = r["algo"].split("-", 1)[0]
        if n not in incasts:
            incasts.append(n)
    for n in incasts:
        lines = []
        for r in table:
            run_n, _, setting = r["algo"].partition("-")
            if run_n != n:
                continue
            tq = queue_kb(os.path.join(d, r["algo"], "queue.csv"))
            if tq is not None:
                lines.append((setting,) + tq)
        if lines:
            f = os.path.join(d, "queue-%s.png" % n)
            plots.series(f, lines, plots.title(
                SCENARIO, "%s:1 incast, bottleneck backlog per setting" % n,
                params, keys), "backlog (KB)",
                xlabel="time since the first packet (s)")
            out.append(f)
    settings = []
    for r in table:
        s = r["algo"].partition("-")[2]
        if s not in settings:
            settings.append(s)
    if table and settings:
        jain = {r["algo"]: _num(r.get("jain")) for r in table}
        series = [("%s:1" % n, [jain.get("%s-%s" % (n, s)) for s in settings])
                  for n in incasts]
        f = os.path.join(d, "jain.png")
        plots.bars(f, settings, series, plots.title(
            SCENARIO, "Jain's index of the senders' rates", params, keys),
            "Jain's index")
        out.append(f)
    return out
