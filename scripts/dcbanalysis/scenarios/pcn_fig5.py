# SPDX-License-Identifier: GPL-2.0
"""pcn_fig5: steps.tsv, one row per F1 sending rate.  Each step's values
are reported with the step in the qualifier, ``@f1=RATE`` (F1's sending
rate in Mbit/s): goodput.F0@f1=50, pause_rate.s1-s0@f1=50, ..."""

import csv
import os

SCENARIO = "pcn_fig5"


def _steps(d):
    p = os.path.join(d, "steps.tsv")
    if not os.path.exists(p):
        return []
    with open(p, newline="") as f:
        return [{k: float(v) for k, v in r.items()}
                for r in csv.DictReader(f, delimiter="\t")]


def _fmt(x):
    return ("%g" % x)


def analyze(d, params):
    out = []
    for r in _steps(d):
        at = "@f1=" + _fmt(r["f1_send_mbps"])
        out += [
            ("goodput.F0" + at, r["f0_rx_mbps"], "Mbit/s"),
            ("goodput.F1" + at, r["f1_rx_mbps"], "Mbit/s"),
            ("goodput.bursts" + at, r["burst_rx_mbps"], "Mbit/s"),
            ("pause_rate.s1-s0" + at, r["pause_per_s"], "1/s"),
            ("paused_share.s0-s1" + at, r["s0_held"], "1"),
        ]
    return out


def plot(d, params):
    """rates.png (F0's and F1's receiving rates against F1's sending rate,
    F0's sending rate dashed) and pause.png (PAUSE frames per second from
    s1's port toward s0, and the share of time s0 -> s1 was paused).
    Returns the files written."""
    from .. import plots

    steps = _steps(d)
    if not steps:
        return []
    keys = ("rate", "f0_share", "bursters", "xoff", "delay", "step_s")
    x = [r["f1_send_mbps"] for r in steps]
    out = []
    f = os.path.join(d, "rates.png")
    plots.series(f, [
        ("F1 sent", x, x),
        ("F1 received", x, [r["f1_rx_mbps"] for r in steps]),
        ("F0 received (victim)", x, [r["f0_rx_mbps"] for r in steps]),
    ], plots.title(SCENARIO, "receiving rates as F1's sending rate is "
                   "swept", params, keys), "Mbit/s",
        xlabel="F1's sending rate (Mbit/s)",
        hline=steps[0]["f0_send_mbps"] or None,
        hline_label="F0 sent")
    out.append(f)
    f = os.path.join(d, "pause.png")
    plots.series(f, [
        ("PAUSE frames/s s1 -> s0", x, [r["pause_per_s"] for r in steps]),
    ], plots.title(SCENARIO, "PAUSEs from the congested path", params,
                   keys), "PAUSE frames per second",
        xlabel="F1's sending rate (Mbit/s)")
    out.append(f)
    return out
