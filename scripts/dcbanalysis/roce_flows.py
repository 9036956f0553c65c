# SPDX-License-Identifier: GPL-2.0
"""Per-flow throughput of RoCEv2 traffic from a packet capture.

A flow is one RC connection seen at the receiver: (IPv4 source,
destination QP number of the BTH).  read_pcap() takes a classic pcap
file (tcpdump -w, Ethernet, microsecond or nanosecond timestamps) and
returns, per packet to UDP port 4791, its time, flow and IPv4 length.
flow_rates() turns them into each flow's rate over a time span and per
window; summary() into the numbers the scenarios report.  Standard
library only: the guest tests run it too.

    python3 -m dcbanalysis.roce_flows CAPTURE [--window S] [--flows N]
    python3 -m dcbanalysis.roce_flows CAPTURE --spans
    python3 -m dcbanalysis.roce_flows CAPTURE --incast LONG_SRC
    python3 -m dcbanalysis.roce_flows CAPTURE --chunks N

prints ``key value`` lines: flows (seen in the capture), jain (second half of the capture),
jain_w_min and jain_w_median (over windows of S seconds in the second
half), total_mbps, low_share (the slowest flow's rate over the fair
share, total / N) and the per-flow rates (Mbit/s of IPv4 bytes);
with --spans, a table of each flow's first and last packet and bytes;
with --incast, incast()'s metrics; with --chunks, chunks()'s table.
"""

import argparse
import math
import statistics
import struct
import sys

from .fairness import jain

ROCE_PORT = 4791
_MAGIC = {
    b"\xd4\xc3\xb2\xa1": ("<", 1e-6),
    b"\xa1\xb2\xc3\xd4": (">", 1e-6),
    b"\x4d\x3c\xb2\xa1": ("<", 1e-9),
    b"\xa1\xb2\x3c\x4d": (">", 1e-9),
}
LINKTYPE_ETHERNET = 1


class CaptureError(ValueError):
    pass


def read_pcap(path, ce=False):
    """[(t_s, (src_ip, dest_qpn), ip_len)] of the RoCEv2 packets in the
    pcap @path (IPv4 over Ethernet, optionally one 802.1Q tag); with @ce
    a fourth element, True when the packet's ECN field is CE.  Other
    packets, and packets cut before the BTH, are skipped; a file that is
    not a pcap of Ethernet raises CaptureError."""
    out = []
    for t, d in _frames(path):
        p = _roce(d)
        if p:
            src, bth, ip_len, ecn = p
            qpn = int.from_bytes(d[bth + 5:bth + 8], "big")
            out.append((t, (src, qpn), ip_len, ecn == 3) if ce else
                       (t, (src, qpn), ip_len))
    return out


def read_bth(path):
    """[(t_s, src_ip, bth)] of the RoCEv2 packets in the pcap @path, as
    read_pcap() selects them; bth: the bytes from the BTH on, as far as
    the capture has them."""
    out = []
    for t, d in _frames(path):
        p = _roce(d)
        if p:
            out.append((t, p[0], d[p[1]:]))
    return out


def _frames(path):
    """(t_s, frame) of every record of the pcap @path."""
    with open(path, "rb") as f:
        hdr = f.read(24)
        if len(hdr) < 24 or hdr[:4] not in _MAGIC:
            raise CaptureError("%s: not a pcap file" % path)
        end, scale = _MAGIC[hdr[:4]]
        link = struct.unpack(end + "I", hdr[20:24])[0]
        if link != LINKTYPE_ETHERNET:
            raise CaptureError("%s: link type %d, want Ethernet" %
                               (path, link))
        rec = struct.Struct(end + "IIII")
        while True:
            r = f.read(16)
            if len(r) < 16:
                break
            sec, frac, incl, _ = rec.unpack(r)
            data = f.read(incl)
            if len(data) < incl:
                break
            yield sec + frac * scale, data


def _roce(d):
    """(src, BTH offset, ip_len, ECN field) of one Ethernet frame, or
    None."""
    off = 12
    if len(d) < off + 2:
        return None
    etype = struct.unpack("!H", d[off:off + 2])[0]
    off += 2
    if etype == 0x8100:
        if len(d) < off + 4:
            return None
        etype = struct.unpack("!H", d[off + 2:off + 4])[0]
        off += 4
    if etype != 0x0800 or len(d) < off + 20:
        return None
    ihl = (d[off] & 0x0F) * 4
    if d[off] >> 4 != 4 or ihl < 20 or d[off + 9] != 17:
        return None
    ip_len = struct.unpack("!H", d[off + 2:off + 4])[0]
    src = ".".join(str(b) for b in d[off + 12:off + 16])
    udp = off + ihl
    if len(d) < udp + 8 + 8:
        return None
    if struct.unpack("!H", d[udp + 2:udp + 4])[0] != ROCE_PORT:
        return None
    return src, udp + 8, ip_len, d[off + 1] & 3


def flow_rates(pkts, t0, t1, window):
    """({flow: Mbit/s over [t0, t1)}, [{flow: Mbit/s} per window of
    @window seconds from t0]) of @pkts (read_pcap's)."""
    flows = sorted({p[1] for p in pkts})
    total = dict.fromkeys(flows, 0)
    nwin = max(int((t1 - t0) // window), 0) if window > 0 else 0
    wins = [dict.fromkeys(flows, 0) for _ in range(nwin)]
    for t, fl, n in pkts:
        if t < t0 or t >= t1:
            continue
        total[fl] += n
        k = int((t - t0) // window) if window > 0 else -1
        if 0 <= k < nwin:
            wins[k][fl] += n
    span = t1 - t0
    rates = {f: b * 8 / span / 1e6 for f, b in total.items()} if span > 0 \
        else {}
    wrates = [{f: b * 8 / window / 1e6 for f, b in w.items()} for w in wins]
    return rates, wrates


def spans(pkts):
    """{flow: (first_t, last_t, ip_bytes)} of @pkts (read_pcap's)."""
    out = {}
    for t, fl, n in pkts:
        if fl in out:
            a, _, b = out[fl]
            out[fl] = (a, t, b + n)
        else:
            out[fl] = (t, t, n)
    return out


def incast(pkts, long_src):
    """An incast of small flows beside a long flow (every flow from
    @long_src): flows (the small ones), incast_s (first packet of any
    small flow to the last of all), fct_median_s, fct_p90_s, fct_max_s
    (first to last packet of each small flow; nearest-rank percentiles)
    and long_mbps (the long flow's IPv4 bytes per second over the
    incast's span; None when the span is empty)."""
    small = [v for f, v in spans(pkts).items() if f[0] != long_src]
    if not small:
        return {"flows": 0}
    t0 = min(v[0] for v in small)
    t1 = max(v[1] for v in small)
    fct = sorted(v[1] - v[0] for v in small)

    def rank(p):
        return fct[max(1, math.ceil(p * len(fct) - 1e-9)) - 1]
    long_bytes = sum(n for t, fl, n in pkts
                     if fl[0] == long_src and t0 <= t < t1)
    return {
        "flows": len(fct),
        "incast_s": t1 - t0,
        "fct_median_s": rank(0.5),
        "fct_p90_s": rank(0.9),
        "fct_max_s": fct[-1],
        "long_mbps": long_bytes * 8 / (t1 - t0) / 1e6 if t1 > t0 else None,
    }


def chunks(pkts, n):
    """The second half of the capture @pkts (read_pcap's with ce=True)
    cut into @n equal chunks: {"jain": [Jain's index per chunk], "rates":
    {flow: [Mbit/s per chunk]}, "ce": {flow: share of its packets in the
    half that were CE}}.  Whether a flow's rate persists from chunk to
    chunk tells a lasting unfairness from noise."""
    if not pkts or n < 1:
        return {"jain": [], "rates": {}, "ce": {}}
    t_first, t_last = pkts[0][0], pkts[-1][0]
    t0 = t_first + (t_last - t_first) / 2
    width = (t_last - t0) / n
    flows = sorted({p[1] for p in pkts})
    b = {f: [0] * n for f in flows}
    cnt = dict.fromkeys(flows, 0)
    ce = dict.fromkeys(flows, 0)
    for t, fl, nb, c in pkts:
        if t < t0:
            continue
        k = min(int((t - t0) / width), n - 1) if width > 0 else 0
        b[fl][k] += nb
        cnt[fl] += 1
        ce[fl] += c
    rates = {f: [x * 8 / width / 1e6 if width > 0 else 0.0 for x in v]
             for f, v in b.items()}
    return {
        "jain": [jain([rates[f][k] for f in flows]) for k in range(n)],
        "rates": rates,
        "ce": {f: ce[f] / cnt[f] if cnt[f] else None for f in flows},
    }


def summary(pkts, window=2.0, nflows=None):
    """The metrics over the second half of the capture: flows, jain,
    jain_w_min, jain_w_median, total_mbps, low_share (the slowest flow
    over the fair share: a starved flow shows here, where Jain's index
    over many flows hardly moves), and rates ({flow: Mbit/s}).
    With @nflows, flows that sent nothing in that half count as 0."""
    if not pkts:
        return {"flows": 0, "rates": {}}
    t_first, t_last = pkts[0][0], pkts[-1][0]
    t0 = t_first + (t_last - t_first) / 2
    rates, wrates = flow_rates(pkts, t0, t_last, window)
    vals = list(rates.values())
    if nflows is not None and len(vals) < nflows:
        vals += [0.0] * (nflows - len(vals))
    wj = [jain(list(w.values()) + [0.0] * max(0, (nflows or 0) - len(w)))
          for w in wrates]
    wj = [x for x in wj if x is not None]
    return {
        "flows": len(rates),
        "jain": jain(vals),
        "jain_w_min": min(wj) if wj else None,
        "jain_w_median": statistics.median(wj) if wj else None,
        "total_mbps": sum(vals),
        "low_share": (min(vals) * len(vals) / sum(vals)
                      if sum(vals) > 0 else None),
        "span_s": t_last - t0,
        "rates": rates,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(prog="roce_flows", description=__doc__.split(
        "\n\n")[0])
    ap.add_argument("capture")
    ap.add_argument("--window", type=float, default=2.0,
                    help="window for the windowed Jain's index (s)")
    ap.add_argument("--flows", type=int, default=None,
                    help="flows expected (missing ones count as 0)")
    ap.add_argument("--spans", action="store_true",
                    help="print each flow's first and last packet time "
                    "(s from the capture's first packet) and IPv4 bytes "
                    "instead")
    ap.add_argument("--incast", metavar="LONG_SRC",
                    help="print the incast metrics (incast()) of the small "
                    "flows beside the long flow from LONG_SRC instead")
    ap.add_argument("--chunks", type=int, metavar="N",
                    help="print each flow's Mbit/s in N equal chunks of the "
                    "second half, its share of CE packets there and "
                    "Jain's index per chunk instead")
    a = ap.parse_args(argv)
    if a.chunks is not None and a.chunks < 1:
        ap.error("--chunks must be at least 1")
    try:
        pkts = read_pcap(a.capture, ce=a.chunks is not None)
    except (OSError, CaptureError) as e:
        print("roce_flows: %s" % e, file=sys.stderr)
        return 1

    def fmt(x):
        return "NaN" if x is None else "%.4f" % x
    if a.incast:
        r = incast(pkts, a.incast)
        print("flows %d" % r["flows"])
        for k in ("incast_s", "fct_median_s", "fct_p90_s", "fct_max_s",
                  "long_mbps"):
            print("%s %s" % (k, fmt(r.get(k))))
        return 0
    if a.chunks:
        c = chunks(pkts, a.chunks)
        print("jain_chunks %s" % "/".join(fmt(j) for j in c["jain"]))
        print("src\tqpn\t%s\tce_share" % "\t".join(
            "mbps_%d" % (k + 1) for k in range(a.chunks)))
        for (src, qpn), v in sorted(c["rates"].items()):
            print("%s\t%d\t%s\t%s" % (src, qpn, "\t".join(
                "%.3f" % x for x in v), fmt(c["ce"][(src, qpn)])))
        return 0
    if a.spans:
        t0 = pkts[0][0] if pkts else 0
        print("src\tqpn\tfirst_s\tlast_s\tbytes")
        for (src, qpn), (f, l, b) in sorted(spans(pkts).items()):
            print("%s\t%d\t%.4f\t%.4f\t%d" % (src, qpn, f - t0, l - t0, b))
        return 0
    s = summary(pkts, a.window, a.flows)
    print("flows %d" % s["flows"])
    for k in ("jain", "jain_w_min", "jain_w_median", "total_mbps",
              "low_share", "span_s"):
        print("%s %s" % (k, fmt(s.get(k))))
    print("rates_mbps %s" % "/".join("%.3f" % v for _, v in
                                     sorted(s["rates"].items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
