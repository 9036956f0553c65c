# SPDX-License-Identifier: GPL-2.0
"""The comparison scenarios (cmp_incast, cmp_burst, cmp_converge): each
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
    "cmp_incast": {
        "flows_mbps": ("flow_rate", "Mbit/s", "list"),
        "jain": ("jain", "1"),
        "queue_mean_kb": ("queue_mean", "KB"),
        "queue_p99_kb": ("queue_p99", "KB"),
        "q2_mean_kb": ("queue_mean_late", "KB"),
        "q2_p99_kb": ("queue_p99_late", "KB"),
        "pause_tx": ("pause_tx", "frames"),
        "drops": ("drops", "packets"),
        "drops_tail": ("drops_tail", "packets"),
        "drops_wred": ("drops_wred", "packets"),
        "gbn_retry": ("gbn_retries", "retries"),
        "oos_req": ("oos_requests", "packets"),
        "fct_max_s": ("fct_max", "s"),
        "fct_s": ("fct", "s", "list"),
        "writes": ("completed", "1", "fraction"),
        "ecn_marked": ("ecn_marked", "packets"),
    },
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
COLUMNS["parking_lot"] = {
    "f1_mbps": ("rate_late.f1", "Mbit/s"),
    "f2_mbps": ("rate_late.f2", "Mbit/s"),
    "f3_mbps": ("rate_late.f3", "Mbit/s"),
    "f2_share": ("line_share.f2", "1"),
    "util_a": ("utilisation.A", "1"),
    "util_b": ("utilisation.B", "1"),
    "jain": ("jain", "1"),
    "queue_a_kb": ("queue_mean.A", "KB"),
    "queue_b_kb": ("queue_mean.B", "KB"),
    "pause_tx": ("pause_tx", "frames"),
    "drops": ("drops", "packets"),
    "drops_headroom": ("headroom_drops", "packets"),
    "failed": ("flows_failed", "flows"),
}
# dcqcn_buffer runs cmp_incast once per switch setting (algo column: the
# setting)
COLUMNS["dcqcn_buffer"] = COLUMNS["cmp_incast"]
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
