# SPDX-License-Identifier: GPL-2.0
"""incast: N ECN-capable UDP senders into one shaped sch_dcb port.

Files: senders.csv (sender, offered_bps, rx_bps, loss_pct, packets,
lost_packets: iperf3's totals), dcbmon.csv (the port's samples; the rows
of band "all" are its totals), throughput-hN.csv (t_s, rx_mbps of sender
N on dcbmon's time base).
"""

import csv
import math
import os

from .. import fairness, units

# Headers of a UDP datagram on the wire besides its payload: UDP 8,
# IPv4 20, Ethernet 14 (the shaper's overhead knob adds the rest).
UDP_HEADERS = 42


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def port_samples(d):
    """[(t_s, {counter: int})] of the port's totals, in time order."""
    out = []
    for r in _rows(os.path.join(d, "dcbmon.csv")):
        if r["band"] == "all":
            out.append((int(r["t_ms"]) / 1000.0,
                        {k: int(v) for k, v in r.items()
                         if k not in ("t_ms", "netns", "dev", "band")}))
    return out


def percentile(values, p):
    """The nearest-rank @p-th percentile of @values (not empty)."""
    xs = sorted(values)
    return xs[max(1, math.ceil(p / 100.0 * len(xs))) - 1]


def port_metrics(samples, overhead, kmax):
    """Rows of the port from its samples.  The busy period runs from the
    first to the last sample with a backlog; the wire rate is measured
    over the sample intervals that begin and end with one (the shaper is
    never idle in them, so this is what it delivers)."""
    rows = []
    busy = [i for i, (_, s) in enumerate(samples) if s["backlog_bytes"] > 0]
    if busy:
        q = [samples[i][1]["backlog_bytes"]
             for i in range(busy[0], busy[-1] + 1)]
        rows += [("queue_mean", sum(q) / len(q) / 1024, "KB"),
                 ("queue_p99", percentile(q, 99) / 1024, "KB"),
                 ("queue_max", max(q) / 1024, "KB")]
        if kmax:
            rows.append(("above_kmax",
                         sum(1 for b in q if b > kmax) / len(q), "1"))
    wire = secs = 0.0
    for (t0, a), (t1, b) in zip(samples, samples[1:]):
        if a["backlog_bytes"] > 0 and b["backlog_bytes"] > 0:
            wire += (b["deq_bytes"] - a["deq_bytes"] +
                     overhead * (b["deq_packets"] - a["deq_packets"]))
            secs += t1 - t0
    if secs > 0:
        rows += [("wire_rate", wire * 8 / secs / 1e6, "Mbit/s"),
                 ("busy", secs, "s")]
    if samples:
        last = samples[-1][1]
        rows += [("ecn_marked", last["ecn_marked"], "packets"),
                 ("drops_tail", last["drops_tail"], "packets"),
                 ("drops_wred", last["drops_wred"], "packets")]
        if last["enq_packets"]:
            rows.append(("marked_share",
                         last["ecn_marked"] / last["enq_packets"], "1"))
    return rows


def _overhead(params):
    return int(params.get("overhead") or 0) if params.get("qdisc",
                                                          "dcb") == "dcb" else 0


def analyze(d, params):
    rows = []
    rx = {r["sender"]: float(r["rx_bps"]) / 1e6
          for r in _rows(os.path.join(d, "senders.csv"))}
    rows += fairness.sender_rows(rx)
    total = sum(rx.values())
    rate = units.rate_mbps(params.get("rate") or "0")
    pkt = int(params.get("pkt") or 1000)
    if rate:
        line = rate * pkt / (pkt + UDP_HEADERS + _overhead(params))
        rows.append(("utilisation", total / line, "1"))
    path = os.path.join(d, "dcbmon.csv")
    if os.path.exists(path):
        kmax = units.size_bytes(params.get("kmax") or "0")
        rows += port_metrics(port_samples(d), _overhead(params), kmax)
    return rows


def plot(d, params):
    """queue.png (the port's backlog, Kmin and Kmax dashed), marked.png
    (the marked and dropped fractions of the packets offered per
    window_ms) and throughput.png (each sender's received rate, the fair
    share dashed).  Returns the files written."""
    from .. import plots

    out = []
    keys = ("senders", "rate", "ecn", "kmin", "kmax", "pmax", "duration")
    path = os.path.join(d, "dcbmon.csv")
    samples = port_samples(d) if os.path.exists(path) else []
    if samples:
        t = [s[0] for s in samples]
        lines = [("backlog", t, [s["backlog_bytes"] / 1024
                                 for _, s in samples])]
        for k in ("kmin", "kmax"):
            v = units.size_bytes(params.get(k) or "0")
            if v and params.get("ecn", "red") != "off":
                lines.append((k.capitalize(), [t[0], t[-1]],
                              [v / 1024] * 2, "black"))
        f = os.path.join(d, "queue.png")
        plots.series(f, lines, plots.title("incast", "port backlog",
                                           params, keys), "backlog (KB)")
        out.append(f)
        win = float(params.get("window_ms") or 100) / 1000
        wt, mf, df = [], [], []
        a = samples[0]
        for b in samples[1:]:
            if b[0] - a[0] < win:
                continue
            enq = b[1]["enq_packets"] - a[1]["enq_packets"]
            dr = (b[1]["drops_tail"] + b[1]["drops_wred"] -
                  a[1]["drops_tail"] - a[1]["drops_wred"])
            if enq + dr > 0:
                wt.append(b[0])
                mf.append((b[1]["ecn_marked"] - a[1]["ecn_marked"]) /
                          enq if enq else 0)
                df.append(dr / (enq + dr))
            a = b
        if wt:
            f = os.path.join(d, "marked.png")
            plots.series(f, [("CE-marked", wt, mf), ("dropped", wt, df)],
                         plots.title("incast", "marked and dropped share "
                                     "per %g ms" % (win * 1000), params,
                                     keys), "share of packets")
            out.append(f)
    lines = []
    n = int(params.get("senders") or 0)
    for i in range(1, n + 1):
        rows = _rows_or_none(os.path.join(d, "throughput-h%d.csv" % i))
        if rows:
            lines.append(("h%d" % i, [float(r["t_s"]) for r in rows],
                          [float(r["rx_mbps"]) for r in rows]))
    if lines:
        rate = units.rate_mbps(params.get("rate") or "0")
        pkt = int(params.get("pkt") or 1000)
        share = (rate * pkt / (pkt + UDP_HEADERS + _overhead(params)) / n
                 if rate else None)
        f = os.path.join(d, "throughput.png")
        plots.series(f, lines, plots.title("incast", "received per sender",
                                           params, keys),
                     "received (Mbit/s)", hline=share,
                     hline_label="fair share")
        out.append(f)
    return out


def _rows_or_none(path):
    return _rows(path) if os.path.exists(path) else None
