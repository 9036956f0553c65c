# SPDX-License-Identifier: GPL-2.0
"""pfc_incast (DCQCN paper section 2.2): N UDP senders at line rate into
one switch port, PFC on band 3.

Files: senders.tsv (sender, offered_bps, rx_bps, loss_pct, packets: iperf3's
totals; then, band 3, the sender NIC's pause_rx and paused_s, the PAUSE
frames the switch sent it and the in_peak of its switch port), port.tsv
(band 3 of the congested port: pause_tx resume_tx pause_rx paused_us, the
port's drops_headroom drops_tail, band 3's in_peak, the port's
backlog_peak, the pool's peak and drops_full), headroom_drops.txt (all
switch ports), dcbmon.csv, ports.tsv (label, netns:dev: "port" the
congested one, hN the switch port of sender hN), throughput-hN.csv.
"""

import csv
import os

from .. import fairness, units


def _tsv(path):
    with open(path, newline="") as f:
        return [r for r in csv.reader(f, delimiter="\t") if r]


def ports(d):
    """{label: "netns:dev"} of ports.tsv, in its order."""
    return {r[0]: r[1] for r in _tsv(os.path.join(d, "ports.tsv"))}


def series(d, want, key, band):
    """{label: (t_s, values)} of dcbmon.csv's @key of @band ("all": the
    totals) at the ports @want ({label: "netns:dev"})."""
    by_port = {v: k for k, v in want.items()}
    out = {k: ([], []) for k in want}
    with open(os.path.join(d, "dcbmon.csv"), newline="") as f:
        for r in csv.DictReader(f):
            label = by_port.get(r["netns"] + ":" + r["dev"])
            if label is None or r["band"] != str(band):
                continue
            out[label][0].append(int(r["t_ms"]) / 1000)
            out[label][1].append(float(r[key]))
    return out


def flow_lines(d, names):
    """[(name, t_s, rx_mbps)] of throughput-NAME.csv of @names that
    exist: iperf3's received rate per interval."""
    out = []
    for n in names:
        path = os.path.join(d, "throughput-%s.csv" % n)
        if os.path.exists(path):
            with open(path, newline="") as f:
                r = list(csv.DictReader(f))
            out.append((n, [float(x["t_s"]) for x in r],
                        [float(x["rx_mbps"]) for x in r]))
    return out


def analyze(d, params):
    rows = []
    secs = float(params.get("duration") or 0)
    senders = _tsv(os.path.join(d, "senders.tsv"))[1:]
    rx = {s[0]: float(s[2]) / 1e6 for s in senders}
    rows += fairness.sender_rows(rx)
    for s in senders:
        rows.append(("pause_tx." + s[0], int(s[7]), "frames"))
        rows.append(("ingress_peak." + s[0], int(s[8]) / 1024, "KB"))
        if secs:
            rows.append(("paused_share." + s[0], float(s[6]) / secs, "1"))
    port = _tsv(os.path.join(d, "port.tsv"))[0]
    rows += [("drops_tail", int(port[5]), "packets"),
             ("queue_max", int(port[7]) / 1024, "KB"),
             ("pool_peak", int(port[8]) / 1024, "KB")]
    with open(os.path.join(d, "headroom_drops.txt")) as f:
        rows.append(("headroom_drops", int(f.read().strip() or 0),
                     "packets"))
    return rows


def plot(d, params):
    """ingress.png (band 3 bytes charged to each sender's switch port,
    XOFF dashed), pauses.png (PAUSE frames each of them sent), queue.png
    (the congested port's backlog and the pool's occupancy) and
    throughput.png (each sender's received rate, the fair share dashed).
    Returns the files written."""
    from .. import plots

    out = []
    keys = ("senders", "rate", "pfc", "xoff", "delay", "duration")
    p = ports(d)
    senders = {k: v for k, v in p.items() if k != "port"}
    if os.path.exists(os.path.join(d, "dcbmon.csv")):
        xoff = units.size_bytes(params.get("xoff") or "0")
        for name, key, what, ylabel, scale, hline in (
                ("ingress.png", "in_bytes", "band 3 bytes charged per "
                 "sender port", "charged (KB)", 1024,
                 xoff / 1024 if xoff and params.get("pfc") != "off"
                 else None),
                ("pauses.png", "pause_tx", "PAUSE frames sent per sender "
                 "port", "PAUSE frames sent (cumulative)", 1, None)):
            s = series(d, senders, key, 3)
            lines = [(k, t, [x / scale for x in v])
                     for k, (t, v) in s.items() if t]
            if lines:
                f = os.path.join(d, name)
                plots.series(f, lines, plots.title("pfc_incast", what,
                                                   params, keys),
                             ylabel, hline=hline,
                             hline_label="XOFF" if hline else None)
                out.append(f)
        lines = []
        if "port" in p:
            for label, key in (("congested port", "backlog_bytes"),
                               ("pool", "pool_used")):
                t, v = series(d, {"x": p["port"]}, key, "all")["x"]
                if t:
                    lines.append((label, t, [x / 1024 for x in v]))
        if lines:
            f = os.path.join(d, "queue.png")
            plots.series(f, lines, plots.title(
                "pfc_incast", "congested port's backlog and the pool",
                params, keys), "bytes (KB)")
            out.append(f)
    lines = flow_lines(d, senders)
    if lines:
        rate = units.rate_mbps(params.get("rate") or "0")
        pkt = int(params.get("pkt") or 1000)
        # UDP 8 + IPv4 20 + Ethernet 14 bytes besides the payload
        share = rate * pkt / (pkt + 42) / len(senders) if rate else None
        f = os.path.join(d, "throughput.png")
        plots.series(f, lines, plots.title("pfc_incast", "received per "
                                           "sender", params, keys),
                     "received (Mbit/s)", hline=share,
                     hline_label="fair share")
        out.append(f)
    return out
