# SPDX-License-Identifier: GPL-2.0
"""Tables of a results folder: median and min-max over the runs."""

import glob
import json
import os

from . import tidy

KEYS = ["scenario", "algo", "metric", "unit"]


def summarize(df):
    """One row per (scenario, algo, metric, unit) of the tidy DataFrame
    @df: the number of runs, the median and the range of the values."""
    g = df.groupby(KEYS, sort=False)["value"]
    out = g.agg(runs="count", median="median", min="min", max="max")
    return out.reset_index()


def _fmt(*values):
    """@values formatted alike: integers as such, otherwise with the
    decimals the first one's magnitude calls for (3 significant digits
    from 1 up, 4 decimals below 1)."""
    if all(float(v).is_integer() for v in values):
        return ["%d" % v for v in values]
    a = abs(values[0])
    dec = 0 if a >= 100 else 1 if a >= 10 else 2 if a >= 1 else 4
    return ["%.*f" % (dec, v) for v in values]


def render(summary):
    """@summary (from summarize()) as a plain-text table: one block per
    scenario, the metric and its unit in the first columns, then one
    column per algorithm with "median (min-max)" when the runs differ,
    the value alone when there is one run or all agree."""
    lines = []
    for scn, sdf in summary.groupby("scenario", sort=False):
        algos = list(dict.fromkeys(sdf["algo"]))
        runs = sorted(set(sdf["runs"]))
        head = ["metric", "unit"] + algos
        rows = []
        for (metric, unit), mdf in sdf.groupby(["metric", "unit"],
                                               sort=False):
            cells = [metric, unit]
            by_algo = {r.algo: r for r in mdf.itertuples()}
            for a in algos:
                r = by_algo.get(a)
                if r is None:
                    cells.append("")	# not measured for this algo
                elif r.runs > 1 and r.min != r.max:
                    cells.append("%s (%s-%s)" % tuple(_fmt(r.median,
                                                          r.min, r.max)))
                else:
                    cells.append(_fmt(r.median)[0])
            rows.append(cells)
        widths = [max(len(str(c)) for c in col)
                  for col in zip(head, *rows)]
        runs_txt = ", ".join(str(r) for r in runs)
        lines.append("%s: median (min-max) over %s run(s)" % (scn, runs_txt))
        fmt = "  ".join("%%-%ds" % w for w in widths)
        lines.append((fmt % tuple(head)).rstrip())
        lines.append(fmt % tuple("-" * w for w in widths))
        for r in rows:
            lines.append((fmt % tuple(r)).rstrip())
        lines.append("")
    return "\n".join(lines)


def _metadata_files(path):
    """@path/metadata.json and those of the scenarios a run of compare
    made below it (@path/NAME/, @path/run-K/NAME/)."""
    found = [os.path.join(path, "metadata.json")]
    found += sorted(glob.glob(os.path.join(path, "*", "metadata.json")))
    found += sorted(glob.glob(os.path.join(path, "run-*", "*",
                                           "metadata.json")))
    return found


def clock_line(paths):
    """One line naming the clock and the CPU guard's largest busy share
    of the results folders @paths (their metadata.json, and those of
    the scenarios below them), or ""."""
    clocks, busy = [], []
    for mf in [f for p in paths for f in _metadata_files(p)]:
        try:
            with open(mf) as f:
                m = json.load(f).get("machine", {})
        except (OSError, ValueError):
            continue
        c = m.get("clock") or {}
        if c.get("kind") == "virtual":
            txt = "virtual (qemu icount shift %s, %s vCPU)" % (
                c.get("icount_shift", "?"), c.get("vcpus", "?"))
        elif c:
            txt = "real (%s, %s vCPU)" % (c.get("accel", "?"),
                                          c.get("vcpus", "?"))
        else:
            continue
        if txt not in clocks:
            clocks.append(txt)
        busy += [g["busy_pct"] for g in m.get("cpu_guard", [])]
    if not clocks:
        return ""
    line = "clock: " + "; ".join(clocks)
    if busy:
        line += "; guest kernel busy during traffic: at most %d%%" % max(busy)
    return line + "\n"


def table(paths):
    """The rendered table of the results folders @paths, after the line
    that names their clock."""
    return clock_line(paths) + render(summarize(tidy.load(paths)))
