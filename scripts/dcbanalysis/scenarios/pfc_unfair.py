# SPDX-License-Identifier: GPL-2.0
"""pfc_unfair (DCQCN paper Fig. 3): h1 alone on an ingress port of sw1
against h2..h4 sharing the other; PFC only, UDP senders at line rate.

Files: senders.tsv (name, offered bit/s, received bit/s, loss %, packets
received: iperf3's totals), ingress.tsv (port label, then band 3's
pause_tx resume_tx pause_rx paused_us, the port's drops_headroom
drops_tail, band 3's in_peak, ...), headroom_drops.txt (all switch ports),
throughput-hN.csv (t_s, rx_mbps), dcbmon.csv and ingress.ports (the
dcbmon port of each of sw1's two ingress ports and its label).
"""

import csv
import os

from .. import fairness


def _tsv(path):
    with open(path, newline="") as f:
        return [r for r in csv.reader(f, delimiter="\t") if r]


def analyze(d, params):
    rows = []
    senders = _tsv(os.path.join(d, "senders.tsv"))
    rx = {s[0]: float(s[2]) / 1e6 for s in senders}
    rows += fairness.sender_rows(rx, total_row=False)
    others = [rx[h] for h in ("h2", "h3", "h4") if h in rx]
    if "h1" in rx and len(others) == 3 and sum(others) > 0:
        rows.append(("h1_ratio", rx["h1"] * 3 / sum(others), "1"))
    for r in _tsv(os.path.join(d, "ingress.tsv")):
        port = r[0].replace("<-", "-from-")
        rows.append(("pause_tx." + port, int(r[1]), "frames"))
    with open(os.path.join(d, "headroom_drops.txt")) as f:
        rows.append(("headroom_drops", int(f.read().strip() or 0),
                     "packets"))
    return rows


def _csv_cols(path):
    """{column: [floats]} of a CSV with a header."""
    with open(path, newline="") as f:
        rd = csv.reader(f)
        head = next(rd)
        cols = {h: [] for h in head}
        for r in rd:
            for h, v in zip(head, r):
                cols[h].append(float(v))
    return cols


def _ingress(d):
    """{label: ([t_s], [bytes])}: band 3's in_bytes of the ingress ports
    listed in ingress.ports ("NETNS:DEV LABEL..." per line), from the
    run's dcbmon.csv; {} without either file."""
    ports = {}
    path = os.path.join(d, "ingress.ports")
    mon = os.path.join(d, "dcbmon.csv")
    if not (os.path.exists(path) and os.path.exists(mon)):
        return {}
    with open(path) as f:
        for ln in f:
            v = ln.split(None, 1)
            if len(v) == 2:
                ports[v[0]] = v[1].strip()
    out = {label: ([], []) for label in ports.values()}
    with open(mon, newline="") as f:
        for r in csv.DictReader(f):
            label = ports.get("%s:%s" % (r["netns"], r["dev"]))
            if label is not None and r["band"] == "3":
                out[label][0].append(int(r["t_ms"]) / 1000)
                out[label][1].append(float(r["in_bytes"]))
    return out


def plot(d, params):
    """throughput.png (each sender's received rate, the fair share of the
    bottleneck dashed) and ingress.png (band 3 bytes charged to sw1's two
    ingress ports, XOFF dashed).  Returns the files written."""
    from .. import plots, units

    out = []
    keys = ("rate", "pfc", "xoff", "delay", "duration")
    rate = units.rate_mbps(params.get("rate", "0"))
    lines = []
    for i in range(1, 5):
        p = os.path.join(d, "throughput-h%d.csv" % i)
        if os.path.exists(p):
            c = _csv_cols(p)
            lines.append(("h%d" % i, c["t_s"], c["rx_mbps"]))
    if lines:
        f = os.path.join(d, "throughput.png")
        plots.series(f, lines, plots.title(
            "pfc_unfair", "h1 alone on its port vs h2..h4 behind sw2",
            params, keys), "received (Mbit/s)",
            hline=rate / 4 if rate else None, hline_label="fair share")
        out.append(f)
    lines = [(k, t, [v / 1024 for v in vs])
             for k, (t, vs) in _ingress(d).items()]
    if lines:
        f = os.path.join(d, "ingress.png")
        xoff = units.size_bytes(params.get("xoff", "0"))
        plots.series(f, lines, plots.title(
            "pfc_unfair", "band 3 bytes charged to sw1's ingress ports",
            params, keys), "charged (KB)",
            hline=xoff / 1024 if xoff else None, hline_label="XOFF")
        out.append(f)
    return out
