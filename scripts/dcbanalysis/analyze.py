# SPDX-License-Identifier: GPL-2.0
"""Build a results folder's results.csv from what its runs left.

results.csv = what the scenario's analyser (scenarios/: an experiment's
analyze()) computes from each run's files + the rows of a
guest-metrics.csv, which the bash scenarios of older results folders
measured live.  Rebuilt from scratch every time, so analysing a
folder twice gives the same file.
"""

import csv
import os
import re
import sys

from . import tidy
from .scenarios import analyzer, plotter


def params(d):
    """(scenario, {knob: value}) from @d/params.txt."""
    scn, knobs = None, {}
    with open(os.path.join(d, "params.txt")) as f:
        for ln in f:
            ln = ln.rstrip("\n")
            m = re.match(r"# dcblab run (\S+)", ln)
            if m:
                scn = m.group(1)
            elif ln and not ln.startswith("#") and "=" in ln:
                k, v = ln.split("=", 1)
                knobs[k] = v
    if not scn:
        raise tidy.SchemaError("%s/params.txt names no scenario" % d)
    return scn, knobs


def runs(d):
    """[(run, directory)] of the results folder @d."""
    out = []
    for e in os.listdir(d):
        m = re.fullmatch(r"run-([0-9]+)", e)
        if m and os.path.isdir(os.path.join(d, e)):
            out.append((int(m.group(1)), os.path.join(d, e)))
    return sorted(out) or [(1, d)]


def analyze(d):
    """Write @d/results.csv; return its number of rows (0: the scenario
    reports no metrics, and no file is written)."""
    scn, knobs = params(d)
    rows = []
    guest = os.path.join(d, "guest-metrics.csv")
    if os.path.exists(guest):
        with open(guest, newline="") as f:
            rows += list(csv.DictReader(f))
    fn = analyzer(scn)
    if fn:
        algo = knobs.get("algo") or "line-rate"
        for run, rd in runs(d):
            try:
                found = fn(rd, knobs)
            except FileNotFoundError as e:
                # a run stopped before it wrote its results (a guest
                # timeout): the others still count
                print("dcbanalysis: run %d left out: %s" % (run, e),
                      file=sys.stderr)
                continue
            for t in found:
                rows.append({"scenario": t[4] if len(t) > 4 else scn,
                             "algo": t[3] if len(t) > 3 else algo,
                             "run": run, "metric": t[0],
                             "value": t[1], "unit": t[2]})
    out = os.path.join(d, "results.csv")
    if os.path.exists(out):
        os.remove(out)
    if rows:
        tidy.append(out, rows)
    return len(rows)


def plot(d):
    """The scenario's plots of every run of @d; the files written."""
    scn, knobs = params(d)
    fn = plotter(scn)
    out = []
    if fn:
        for _, rd in runs(d):
            out += fn(rd, knobs)
    return out
