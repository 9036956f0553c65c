# SPDX-License-Identifier: GPL-2.0
"""The comparison scenarios of bash (pcn_flows and ldcp_faststart add
theirs to COLUMNS): each leaves summary.tsv, a header
and one row per algorithm (first column ``algo``; "NaN" where a value
could not be measured).  COLUMNS maps each
column to its metric and unit; a column not listed is an error, so a new
column cannot slip into results.csv without a meaning."""

import csv
import math
import os

# column -> (metric, unit); "list" columns hold '/'-separated per-flow
# values, reported as METRIC.fK.  None: deliberately not reported.
# One entry per scenario.
COLUMNS = {}


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
                if col in cols:
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
