# SPDX-License-Identifier: GPL-2.0
"""The one schema of every result: a tidy CSV, one measured value per row.

    scenario,algo,run,metric,value,unit
    pfc_unfair,line-rate,1,goodput.h1,4.71,Mbit/s

scenario
    the dcblab scenario (or test) that measured it.
algo
    how the senders' rate was controlled: an rxe_cc algorithm (none,
    dcqcn, pcn, ldcp), a TCP congestion control (cubic, dctcp), or
    ``line-rate`` for senders offering a fixed rate (UDP, pktgen).  A
    scenario that compares switch settings names the setting here
    instead (dcqcn_buffer: paper, static, ecn-late with dcqcn, pfc-only
    with none).
run
    1..N with ``dcblab run --repeat N``.
metric
    a name from METRICS, optionally followed by ``.`` and what it is
    about (a flow, host or port): ``goodput.h1``, ``drops.sw1-r``; a
    sweep adds ``@KNOB=VALUE``, the step it was measured at:
    ``goodput.F0@f1=8``.
value
    a finite number in ``unit``.  A metric that does not apply to a run
    is left out; it is never written as NaN, ``-`` or 0.
unit
    the metric's unit, as in METRICS.
"""

import csv
import math
import os

COLUMNS = ("scenario", "algo", "run", "metric", "value", "unit")

# The vocabulary is data: metrics.csv beside this file, a row per name
# (metric, unit, kind, meaning), which loads beside the results as they do
# (pandas.read_csv).  One meaning per name: a new quantity gets a new
# name, never a second meaning for an old one.
METRICS_CSV = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "metrics.csv")


def _metrics():
    """{name: (unit, meaning)} of metrics.csv; a name given twice is an
    error."""
    out = {}
    with open(METRICS_CSV, newline="") as f:
        for r in csv.DictReader(f):
            if r["metric"] in out:
                raise ValueError("%s: metric '%s' given twice"
                                 % (METRICS_CSV, r["metric"]))
            out[r["metric"]] = (r["unit"], r["meaning"])
    return out


METRICS = _metrics()


class SchemaError(ValueError):
    """A row that does not fit the schema."""


def base_metric(name):
    """The METRICS key of @name ("goodput.h1" -> "goodput")."""
    return name.split(".", 1)[0]


def check_row(row):
    """Raise SchemaError unless @row (a dict of COLUMNS) fits the schema."""
    missing = [c for c in COLUMNS if c not in row]
    if missing:
        raise SchemaError("missing column(s) %s" % ", ".join(missing))
    for c in ("scenario", "algo", "metric", "unit"):
        if not str(row[c]):
            raise SchemaError("empty %s" % c)
    base = base_metric(row["metric"])
    if base not in METRICS:
        raise SchemaError("unknown metric '%s' (add it to METRICS with "
                          "its unit and meaning)" % row["metric"])
    unit = METRICS[base][0]
    if str(row["unit"]) != unit:
        raise SchemaError("metric '%s' is in %s, not '%s'" %
                          (row["metric"], unit, row["unit"]))
    try:
        run = int(row["run"])
    except (TypeError, ValueError):
        raise SchemaError("run '%s' is not an integer" % row["run"])
    if run < 1:
        raise SchemaError("run %d < 1" % run)
    try:
        value = float(row["value"])
    except (TypeError, ValueError):
        raise SchemaError("%s: value '%s' is not a number" %
                          (row["metric"], row["value"]))
    if not math.isfinite(value):
        raise SchemaError("%s: value %s is not finite (leave the row out "
                          "instead)" % (row["metric"], row["value"]))


def append(path, rows):
    """Append @rows (dicts of COLUMNS) to the CSV @path, with a header
    when the file is new.  Every row is checked first; nothing is written
    when one fails."""
    rows = list(rows)
    for r in rows:
        check_row(r)
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        if new:
            w.writeheader()
        for r in rows:
            w.writerow({c: r[c] for c in COLUMNS})


def check_file(path):
    """Check every row of the CSV @path; return the number of rows."""
    with open(path, newline="") as f:
        rd = csv.DictReader(f)
        if tuple(rd.fieldnames or ()) != COLUMNS:
            raise SchemaError("%s: header %s, expected %s" %
                              (path, ",".join(rd.fieldnames or ()),
                               ",".join(COLUMNS)))
        n = 0
        for n, row in enumerate(rd, 1):
            try:
                check_row(row)
            except SchemaError as e:
                raise SchemaError("%s:%d: %s" % (path, n + 1, e))
    return n


def find(paths):
    """The results.csv of each of @paths (a file, or a results folder:
    one results.csv holds every run of a folder)."""
    out = []
    for p in paths:
        f = p if os.path.isfile(p) else os.path.join(p, "results.csv")
        if not os.path.isfile(f):
            raise FileNotFoundError("no results.csv in %s" % p)
        out.append(f)
    return out


def load(paths):
    """The rows of every results.csv under @paths as one pandas DataFrame."""
    import pandas as pd

    files = find(paths)
    for f in files:
        check_file(f)
    frames = [pd.read_csv(f) for f in files]
    return pd.concat(frames, ignore_index=True)
