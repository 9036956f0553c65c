# SPDX-License-Identifier: GPL-2.0
"""pfc_unfair (DCQCN paper Fig. 3): h1 alone on an ingress port of sw1
against h2..h4 sharing the other; PFC only, UDP senders at line rate.

Files: senders.tsv (name, offered bit/s, received bit/s, loss %, packets
received: iperf3's totals), ingress.tsv (port label, then band 3's
pause_tx resume_tx pause_rx paused_us, the port's drops_headroom
drops_tail, band 3's in_peak, ...), headroom_drops.txt (all switch ports).
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
    for name, mbps in rx.items():
        rows.append(("goodput." + name, mbps, "Mbit/s"))
    total = sum(rx.values())
    if total > 0:
        for name, mbps in rx.items():
            rows.append(("share." + name, mbps / total, "1"))
    j = fairness.jain(rx.values())
    if j is not None:
        rows.append(("jain", j, "1"))
    for r in _tsv(os.path.join(d, "ingress.tsv")):
        port = r[0].replace("<-", "-from-")
        rows.append(("pause_tx." + port, int(r[1]), "frames"))
    with open(os.path.join(d, "headroom_drops.txt")) as f:
        rows.append(("headroom_drops", int(f.read().strip() or 0),
                     "packets"))
    return rows
