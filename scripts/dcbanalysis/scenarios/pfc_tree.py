# SPDX-License-Identifier: GPL-2.0
"""pfc_tree (DCQCN paper Fig. 4, PCN Fig. 1): a congestion tree and its
victim v, alone for the first third of the run, then beside an incast
s1..s5 -> r whose PAUSE frames spread sw2 -> sw1 -> hosts.

Files: hops.tsv (hop, port, then band 3's pause_tx resume_tx pause_rx
paused_s and the port's drops_headroom drops_tail; hop "sw2-sw1" is sw2's
port toward sw1, "nic-v" v's NIC), senders.tsv and victim.tsv (name,
offered_bps, rx_bps, loss_pct, packets), iperf3-server-5300.json (the
victim's intervals), dcbmon.csv, ports.tsv, throughput-NAME.csv.
"""

import csv
import json
import os

from ._pfc import flow_lines, ports, series


def _tsv(path):
    with open(path, newline="") as f:
        return [r for r in csv.reader(f, delimiter="\t") if r]


def victim_rates(d, late):
    """(alone, during): the victim's mean Mbit/s over iperf3's intervals
    before the incast (after the first 0.6 s) and from 1 s into it."""
    with open(os.path.join(d, "iperf3-server-5300.json")) as f:
        doc = json.load(f)
    a, b = [], []
    for iv in doc.get("intervals", []):
        s = iv["sum"]
        if 0.6 < s["end"] <= late:
            a.append(s["bits_per_second"] / 1e6)
        elif s["end"] > late + 1:
            b.append(s["bits_per_second"] / 1e6)
    return (sum(a) / len(a) if a else None, sum(b) / len(b) if b else None)


def analyze(d, params):
    rows = []
    secs = float(params.get("duration") or 0)
    with open(os.path.join(d, "hops.tsv"), newline="") as f:
        hops = list(csv.DictReader(f, delimiter="\t"))
    for h in hops:
        rows.append(("pause_tx." + h["hop"], int(h["pause_tx"]), "frames"))
        if secs:
            rows.append(("paused_share." + h["hop"],
                         float(h["paused_s"]) / secs, "1"))
    rows.append(("headroom_drops", sum(int(h["drops_headroom"])
                                       for h in hops), "packets"))
    rows.append(("drops_tail", sum(int(h["drops_tail"]) for h in hops),
                 "packets"))
    for s in _tsv(os.path.join(d, "senders.tsv")):
        rows.append(("goodput." + s[0], float(s[2]) / 1e6, "Mbit/s"))
    alone, during = victim_rates(d, secs / 3)
    if alone:
        rows.append(("rate_alone.v", alone, "Mbit/s"))
        if during is not None:
            rows.append(("victim_share", during / alone, "1"))
    return rows


def plot(d, params):
    """throughput.png (the victim, s1 behind sw1 and s4 behind sw2; the
    incast starts at a third of the run), pauses.png (PAUSE frames sent,
    hop by hop) and paused.png (time held by PAUSE frames).  Returns the
    files written."""
    from .. import plots

    out = []
    keys = ("rate", "pfc", "xoff", "delay", "duration")
    lines = flow_lines(d, ("v", "s1", "s4"))
    if lines:
        f = os.path.join(d, "throughput.png")
        plots.series(f, lines, plots.title(
            "pfc_tree", "victim v before and during the incast (from "
            "%.1f s)" % (float(params.get("duration") or 0) / 3), params,
            keys), "received (Mbit/s)")
        out.append(f)
    if not os.path.exists(os.path.join(d, "dcbmon.csv")):
        return out
    p = ports(d)
    for name, labels, key, what, ylabel, scale in (
            ("pauses.png", ("sw2-sw1", "sw1-v", "sw1-s1"), "pause_tx",
             "PAUSE frames sent, hop by hop",
             "PAUSE frames sent (cumulative)", 1),
            ("paused.png", ("sw1-sw2", "nic-v", "nic-s1"), "paused_us",
             "time held by PAUSE frames", "time paused (s, cumulative)",
             1e6)):
        s = series(d, {k: p[k] for k in labels if k in p}, key, 3)
        lines = [(k, t, [x / scale for x in v])
                 for k, (t, v) in s.items() if t]
        if lines:
            f = os.path.join(d, name)
            plots.series(f, lines, plots.title("pfc_tree", what, params,
                                               keys), ylabel)
            out.append(f)
    return out
