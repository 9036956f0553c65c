# SPDX-License-Identifier: GPL-2.0
"""The comparison scenarios of bash (cmp_burst, cmp_converge): each
leaves summary.tsv, a header and one row per algorithm (first column
``algo``; "NaN" where a value could not be measured).  COLUMNS maps each
column to its metric and unit; a column not listed is an error, so a new
column cannot slip into results.csv without a meaning."""

import csv
import math
import os
import re

# column -> (metric, unit); "list" columns hold '/'-separated per-flow
# values, reported as METRIC.fK.  None: deliberately not reported.
COLUMNS = {
    "cmp_burst": {
        "f0_pre": ("rate_pre.f0", "Mbit/s"),
        "f0_burst": ("rate_burst.f0", "Mbit/s"),
        "f0_post": ("rate_post.f0", "Mbit/s"),
        "f1_pre": ("rate_pre.f1", "Mbit/s"),
        "f1_burst": ("rate_burst.f1", "Mbit/s"),
        "f1_post": ("rate_post.f1", "Mbit/s"),
        "burst_mbps": ("burst_rate", "Mbit/s"),
        "burst_s": ("burst_time", "s"),
        "f0_keep": ("victim_keep", "1"),
        "jain_post": ("jain_post", "1"),
        "queue_mean_kb": ("queue_mean", "KB"),
        "queue_p99_kb": ("queue_p99", "KB"),
        "q01_mean_kb": ("queue_mean.s0-s1", "KB"),
        "q01_p99_kb": ("queue_p99.s0-s1", "KB"),
        "pause_tx": ("pause_tx", "frames"),
        "drops": ("drops", "packets"),
        "retries": ("gbn_retries", "retries"),
        "recovery_s": ("recovery", "s"),
        "recovery_share_s": ("recovery_share", "s"),
        "failed": ("flows_failed", "flows"),
    },
    "cmp_converge": {
        "total_mbps": ("total_rate", "Mbit/s"),
        "active_s": ("active", "s"),
        "jain": ("jain", "1"),
        "queue_mean_kb": ("queue_mean", "KB"),
        "queue_p99_kb": ("queue_p99", "KB"),
        "pause_tx": ("pause_tx", "frames"),
        "drops": ("drops", "packets"),
        "retries": ("gbn_retries", "retries"),
        "converge_s": ("converge", "s"),
        "converge_periods": ("converge_periods", "periods"),
        "peak0_kb": ("queue_peak0", "KB"),
        "drain_s": ("drain", "s"),
        "settle_s": ("settle", "s"),
        "failed": ("flows_failed", "flows"),
    },
}
# cmp_converge's per-flow columns f1_mbps, f2_mbps, ...: rates over the
# second half of the run
FLOW_COL = re.compile(r"f([0-9]+)_mbps")


def _num(v):
    """float(@v), or None for what could not be measured (NaN, '-', '')."""
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def tsv(path):
    """The rows of the tab-separated file @path as dicts; [] when it does
    not exist (a run that stopped early)."""
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def queue_kb(path):
    """(t_s, backlog KB) lists of a cmp_incast-style queue.csv at @path,
    or None when it does not exist."""
    if not os.path.exists(path):
        return None
    t, q = [], []
    with open(path, newline="") as f:
        for s in csv.DictReader(f):
            t.append(float(s["t_s"]))
            q.append(float(s["backlog_bytes"]) / 1024)
    return t, q


def rows(scenario, path):
    """(metric, value, unit, algo, scenario) of @path, @scenario's
    summary.tsv."""
    cols = COLUMNS[scenario]
    out = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            algo = r.pop("algo")
            for col, v in r.items():
                m = FLOW_COL.fullmatch(col)
                if m and scenario == "cmp_converge":
                    spec = ("rate_late.f" + m.group(1), "Mbit/s")
                elif col in cols:
                    spec = cols[col]
                    if spec is None:
                        continue
                else:
                    raise ValueError("%s: column '%s' has no metric (add it "
                                     "to scenarios/cmp.py)" % (path, col))
                kind = spec[2] if len(spec) > 2 else None
                if kind == "list":
                    for k, x in enumerate(str(v).split("/"), 1):
                        x = _num(x)
                        if x is not None:
                            out.append(("%s.f%d" % (spec[0], k), x, spec[1],
                                        algo, scenario))
                    continue
                if kind == "fraction":
                    done, _, want = str(v).partition("/")
                    done, want = _num(done), _num(want)
                    if done is not None and want:
                        out.append((spec[0], done / want, spec[1], algo,
                                    scenario))
                    continue
                x = _num(v)
                if x is not None:
                    out.append((spec[0], x, spec[1], algo, scenario))
    return out


def analyzer(scenario):
    def analyze(d, params):
        return rows(scenario, os.path.join(d, "summary.tsv"))
    return analyze


def _algos(d):
    """The algorithms of @d's summary.tsv, in its order."""
    path = os.path.join(d, "summary.tsv")
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return [r["algo"] for r in csv.DictReader(f, delimiter="\t")]


def _columns(path):
    """{column: [floats]} of the CSV @path (NaN for what is not a
    number), or None when it does not exist."""
    if not os.path.exists(path):
        return None
    with open(path, newline="") as f:
        rd = csv.DictReader(f)
        cols = {h: [] for h in rd.fieldnames or []}
        for r in rd:
            for h in cols:
                x = _num(r[h])
                cols[h].append(x if x is not None else math.nan)
    return cols


def _color(algo):
    from .. import plots
    return (plots.ALGO_COLORS[algo],) if algo in plots.ALGO_COLORS else ()


def _flow_plots(d, out_dir, params, prefix, scenario, csv_name, what,
                keys):
    """PREFIXthroughput-ALGO.png in @out_dir of each algorithm of @d: the
    columns of its CSV @csv_name % algo (t_s, then one Mbit/s column per
    flow)."""
    from .. import plots

    out = []
    for a in _algos(d):
        c = _columns(os.path.join(d, csv_name % a))
        if not c or "t_s" not in c:
            continue
        t = c.pop("t_s")
        f = os.path.join(out_dir, "%sthroughput-%s.png" % (prefix, a))
        plots.series(f, [(k, t, v) for k, v in c.items()], plots.title(
            scenario, "%s: %s" % (a, what), params, keys),
            "sent (Mbit/s of payload)")
        out.append(f)
    return out


def plot_burst(d, params, prefix="", out_dir=None):
    """cmp_burst's plots of @d: PREFIXthroughput-ALGO.png (F0, F1 and the
    burst, t = 0 at the burst's start) and PREFIXf0.png (the victim F0
    under every algorithm), in @out_dir (default @d).  Returns the files
    written."""
    from .. import plots

    keys = ("rate", "bursters", "burst_msgs", "burst_size")
    out = _flow_plots(d, out_dir or d, params, prefix, "cmp_burst",
                      "burst-%s-flows.csv",
                      "F0, F1 and the burst (t = 0: burst start)", keys)
    lines = []
    for a in _algos(d):
        c = _columns(os.path.join(d, "burst-%s-flows.csv" % a))
        if c and "F0" in c:
            lines.append((a, c["t_s"], c["F0"]) + _color(a))
    if lines:
        f = os.path.join(out_dir or d, prefix + "f0.png")
        plots.series(f, lines, plots.title(
            "cmp_burst", "F0 (the victim) per algorithm, t = 0: burst "
            "start", params, keys), "sent (Mbit/s of payload)")
        out.append(f)
    return out


def plot_converge(d, params, prefix="", out_dir=None):
    """cmp_converge's plots of @d: PREFIXthroughput-ALGO.png (each flow)
    and PREFIXqueue.png (the bottleneck's backlog under every algorithm,
    from its dcbmon samples), in @out_dir (default @d).  Returns the
    files written."""
    from .. import plots

    keys = ("flows", "rate", "duration")
    out = _flow_plots(d, out_dir or d, params, prefix, "cmp_converge",
                      "conv-%s-flows.csv", "flows into one port", keys)
    lines = []
    for a in _algos(d):
        path = os.path.join(d, "conv-%s-dcbmon.csv" % a)
        if not os.path.exists(path):
            continue
        t, q = [], []
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r["band"] == "all":
                    t.append(int(r["t_ms"]) / 1000)
                    q.append(int(r["backlog_bytes"]) / 1024)
        if t:
            lines.append((a, t, q) + _color(a))
    if lines:
        f = os.path.join(out_dir or d, prefix + "queue.png")
        plots.series(f, lines, plots.title(
            "cmp_converge", "bottleneck backlog per algorithm", params,
            keys), "backlog (KB)")
        out.append(f)
    return out
