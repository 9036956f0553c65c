# SPDX-License-Identifier: GPL-2.0
"""dcqcn_incast: summary.tsv, one row per run (incast N, algo dcqcn or
none): the senders' rates over the second half ('/'-separated, Mbit/s of
RDMA payload), Jain's index, PAUSE frames and drops of the switch and
the bottleneck's CE marks.  Each incast is its own
block of the table: the rows' scenario is "dcqcn_incast N:1"."""

import csv
import os

from .cmp import _num

# column -> (metric, unit[, divisor])
COLUMNS = {
    "jain": ("jain", "1"),
    "pause_tx": ("pause_tx", "frames"),
    "drops": ("drops", "packets"),
    "drops_wred": ("drops_wred", "packets"),
    "ecn_marked": ("ecn_marked", "packets"),
}


def analyze(d, params):
    out = []
    with open(os.path.join(d, "summary.tsv"), newline="") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            scn = "dcqcn_incast %s:1" % r["incast"]
            for k, x in enumerate(r["flows_mbps"].split("/"), 1):
                x = _num(x)
                if x is not None:
                    out.append(("flow_rate.f%d" % k, x, "Mbit/s", r["algo"],
                                scn))
            for col, spec in COLUMNS.items():
                x = _num(r.get(col))
                if x is not None:
                    out.append((spec[0], x / (spec[2] if len(spec) > 2
                                              else 1), spec[1], r["algo"],
                                scn))
    return out


def plot(d, params):
    """throughput-N-ALGO.png: each sender's rate in every run, the fair
    share of the line dashed; timeline-4.png: R_C, R_T and alpha of the
    4:1 dcqcn run's QPs from the tracepoint.  Returns the files written."""
    from .. import plots, samples, timeline

    out = []
    line = float(params.get("line") or 100)
    trace = os.path.join(d, "trace-4.csv")
    qps = os.path.join(d, "trace-4.qps")
    if os.path.exists(trace) and os.path.exists(qps):
        png = os.path.join(d, "timeline-4.png")
        if timeline.plot(trace, timeline.read_qps(qps), png,
                         plots.title("dcqcn_incast",
                                     "4:1, algo dcqcn: R_C (solid), "
                                     "R_T (dotted), alpha",
                                     params, ("line", "duration")),
                         line * 1024 / 1082 / 4):
            out.append(png)
    for name in sorted(os.listdir(d)):
        if not (name.startswith("samples-") and name.endswith(".txt")):
            continue
        run = name[len("samples-"):-len(".txt")]
        n, _, algo = run.partition("-")
        if not n.isdigit():
            continue
        png = os.path.join(d, "throughput-%s.png" % run)
        # the share of 1024-byte payloads in 1082-byte packets on the wire
        if samples.plot_flows(
                os.path.join(d, name), png,
                ["s%d" % k for k in range(1, int(n) + 1)],
                line * 1024 / 1082 / int(n),
                plots.title("dcqcn_incast", "%s:1, algo %s" % (n, algo),
                            params, ("line", "duration"))):
            out.append(png)
    return out
