# SPDX-License-Identifier: GPL-2.0
"""dcqcn_fig8 (DCQCN paper Fig. 3, 8 and 9): summary.tsv, one row per
run (alone: v by itself; none and dcqcn: h1..h4 into r with v beside
them): each flow's Mbit/s of RDMA payload over the second half, Jain's
index of h1..h4, PAUSE frames and drops of the switches.  Reported per
algorithm: the flows' rates, Jain, PAUSE frames (and per second), drops,
h1's rate over the others' (Fig. 3) and the victim v's share of its rate
alone (Fig. 9)."""

import csv
import os

from .cmp import _num

FLOWS = ("h1", "h2", "h3", "h4", "v")


def analyze(d, params):
    out = []
    runs = {}
    with open(os.path.join(d, "summary.tsv"), newline="") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            runs[r["run"]] = r
    alone = _num(runs["alone"]["v"]) if "alone" in runs else None
    if alone is not None:
        out.append(("rate_alone.v", alone, "Mbit/s", runs["alone"]["algo"]))
    for name in ("none", "dcqcn"):
        r = runs.get(name)
        if r is None:
            continue
        a = r["algo"]
        x = {f: _num(r[f]) for f in FLOWS}
        for f in FLOWS:
            if x[f] is not None:
                out.append(("rate_late." + f, x[f], "Mbit/s", a))
        for col, metric, unit in (("jain", "jain", "1"),
                                  ("pause_tx", "pause_tx", "frames"),
                                  ("drops", "drops", "packets"),
                                  ("drops_wred", "drops_wred", "packets")):
            v = _num(r[col])
            if v is not None:
                out.append((metric, v, unit, a))
        secs, pause = _num(r["secs"]), _num(r["pause_tx"])
        if secs and pause is not None:
            out.append(("pause_rate", pause / secs, "1/s", a))
        others = [x[f] for f in ("h2", "h3", "h4")]
        if x["h1"] is not None and None not in others and sum(others) > 0:
            out.append(("h1_ratio", x["h1"] * 3 / sum(others), "1", a))
        if alone and x["v"] is not None:
            out.append(("victim_share", x["v"] / alone, "1", a))
    return out


def plot(d, params):
    """throughput-RUN.png: each flow's rate in every run, h1..h4's fair
    share of the 10 Mbit/s bottleneck dashed.  Returns the files
    written."""
    from .. import plots, samples

    out = []
    for run, names in (("alone", ["v"]), ("none", list(FLOWS)),
                       ("dcqcn", list(FLOWS))):
        p = os.path.join(d, "samples-%s.txt" % run)
        png = os.path.join(d, "throughput-%s.png" % run)
        if os.path.exists(p) and samples.plot_flows(
                p, png, names, 10 * 1024 / 1082 / 4,
                plots.title("dcqcn_fig8", "run %s" % run, params,
                            ("duration", "none", "t_us", "xoff"))):
            out.append(png)
    return out
