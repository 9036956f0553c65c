# SPDX-License-Identifier: GPL-2.0
"""rxe's sent_pkts sampled by scripts/lib/rxe.sh's rxe_sampler_start: one
line per sample, "T C1 C2 ..." (T the wall clock in seconds, Ck flow k's
device counter of sent packets, 1024 bytes of RDMA payload each; NaN once
a device is gone)."""

import math

PAYLOAD = 1024


def read(path):
    """[(t, [counter, ...])] of the samples file @path, one per line."""
    rows = []
    with open(path) as f:
        for ln in f:
            v = ln.split()
            if v:
                rows.append((float(v[0]), [float(x) for x in v[1:]]))
    return rows


def mbps(packets, seconds):
    """Mbit/s of RDMA payload of @packets sent in @seconds."""
    return packets * PAYLOAD * 8 / seconds / 1e6


def rates(path):
    """(t, [flow 1's Mbit/s, ...]) of @path: each interval's rate at its
    end, t in seconds from the first sample.  Intervals with a NaN are
    left out."""
    rows = [r for r in read(path) if r[1]]
    if len(rows) < 2:
        return [], []
    n = len(rows[0][1])
    t, out = [], [[] for _ in range(n)]
    for a, b in zip(rows, rows[1:]):
        dt = b[0] - a[0]
        d = [b[1][k] - a[1][k] for k in range(n)]
        if dt <= 0 or any(math.isnan(x) for x in d):
            continue
        t.append(b[0] - rows[0][0])
        for k in range(n):
            out[k].append(mbps(d[k], dt))
    return t, out


def plot_flows(path, png, names, share, plot_title):
    """@png: the per-flow rates of the samples @path, flows named @names,
    a dashed fair-share line at @share Mbit/s."""
    from . import plots

    t, r = rates(path)
    if not t:
        return None
    lines = [(names[k] if k < len(names) else "f%d" % (k + 1), t, r[k])
             for k in range(len(r))]
    plots.series(png, lines, plot_title, "sent (Mbit/s of payload)",
                 hline=share, hline_label="fair share")
    return png
