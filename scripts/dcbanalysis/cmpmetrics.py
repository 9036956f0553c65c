# SPDX-License-Identifier: GPL-2.0
"""Metrics of the guest experiments (scripts/lib/cmp.sh, rxe.sh) from their
raw files: rxe's sent_pkts samples, dcbmon CSVs and the algorithms' rate
tracepoints.

Standard library only: the guest tests that assert on these metrics run
it inside the guest (where importing pandas takes most of a minute under
TCG), and the host's analysers use the same functions.  The command line
prints "key=value" lines, the form the scenarios keep in their .env files:

    python3 -m dcbanalysis.cmpmetrics burst SAMPLES FLOWS_CSV
    python3 -m dcbanalysis.cmpmetrics converge TRACE ...
    python3 -m dcbanalysis.cmpmetrics drain DCBMON_CSV NETNS:DEV
    python3 -m dcbanalysis.cmpmetrics queue DCBMON_CSV NETNS:DEV
    python3 -m dcbanalysis.cmpmetrics flows SAMPLES N FLOWS_CSV
    python3 -m dcbanalysis.cmpmetrics incast SAMPLES DCBMON_CSV ...
    python3 -m dcbanalysis.cmpmetrics shares SAMPLES
    python3 -m dcbanalysis.cmpmetrics jain VALUE...

Rates are Mbit/s of RDMA payload (samples.mbps: 1024 bytes a packet).
Values that do not exist (no burst, never converged) are "NaN".
"""

import argparse
import csv
import math
import re
import sys

from .fairness import jain
from .samples import mbps
from .samples import read as read_samples

NAN = "NaN"


def _num(s):
    """The leading number of @s, as awk reads one (0 when there is
    none)."""
    m = re.match(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", s)
    return float(m.group(0)) if m else 0.0


def _moves(c):
    """(first, last) of the series @c: the first index whose value differs
    from the first value (len(@c) when none does) and the last whose value
    differs from the last value (-1 when none does).  For a counter: the
    first sample after it started moving, the last before it stopped."""
    first = 1
    while first < len(c) and c[first] == c[0]:
        first += 1
    last = len(c) - 1
    while last >= 0 and c[last] == c[-1]:
        last -= 1
    return first, last


def _rate(t, c, j, a, z):
    """Mbit/s of counter @j between samples @a and @z (0 when no time
    passed)."""
    return mbps(c[z][j] - c[a][j], t[z] - t[a]) if t[z] > t[a] else 0.0


def burst(rows, flows_csv=None, rec_win=1.0, tol=0.2):
    """cmp_burst's metrics of the samples @rows (counters F0, F1, then the
    bursters B1..BN), as [(key, value)]; writes @flows_csv (t_s from the
    burst's start, F0, F1 and the burst in Mbit/s per interval).

    The two long flows run together from the later one's first packet
    (ls) to the earlier one's last (le).  The burst runs from the sample
    before its first packet (b0) to the first sample with all of it (b1).
    "pre" ends at b0 and starts up to 1 s after ls, past the long flows'
    own start, as long as at least 0.5 s is left; "post" is b1..le.
    recovery_s: the first sample after b1 from which both flows, over the
    next @rec_win s, are within @tol of the pre-burst fair share;
    recovery_share_s: the same with each window's own fair share (half
    the two flows' sum, which must be at least 70 % of the pre-burst fair
    share: the guest's capacity drifts with the host's load)."""
    m = len(rows)
    if m < 4:
        return [("error", "few_samples")]
    # 1-based, as the definitions above count samples
    t = [None] + [r[0] for r in rows]
    c = [None] + [[None] + r[1] for r in rows]
    bs = [None] + [sum(r[1][2:]) for r in rows]

    def rate(j, a, z):
        return _rate(t, c, j, a, z)

    def brate(a, z):
        return mbps(bs[z] - bs[a], t[z] - t[a]) if t[z] > t[a] else 0.0

    # (_moves counts from 0: its first is the 1-based sample before the
    # move, its last + 2 the 1-based sample after it)
    ls, le = 1, m
    for j in (1, 2):
        first, last = _moves([x[j] for x in c[1:]])
        ls = max(ls, first)
        le = min(le, last + 2)
    b0, _ = _moves(bs[1:])
    if b0 == m:
        return [("error", "no_burst")]
    i = b0
    while i <= m and bs[i] < bs[m]:
        i += 1
    b1 = i
    a = ls
    while a < b0 and t[a] < t[ls] + 1 and t[b0] - t[a + 1] >= 0.5:
        a += 1
    fair = (rate(1, a, b0) + rate(2, a, b0)) / 2
    x, y = rate(1, b1, le), rate(2, b1, le)
    out = [
        ("pre_s", "%.2f" % (t[b0] - t[a])),
        ("burst_s", "%.2f" % (t[b1] - t[b0])),
        ("post_s", "%.2f" % (t[le] - t[b1])),
        ("f0_pre", "%.2f" % rate(1, a, b0)),
        ("f1_pre", "%.2f" % rate(2, a, b0)),
        ("f0_burst", "%.2f" % rate(1, b0, b1)),
        ("f1_burst", "%.2f" % rate(2, b0, b1)),
        ("f0_post", "%.2f" % x),
        ("f1_post", "%.2f" % y),
        ("burst_mbps", "%.2f" % brate(b0, b1)),
        ("fair", "%.2f" % fair),
        ("jain_post", "%.4f" % (jain([x, y]) or 0)),
        ("f0_keep", "%.3f" % (rate(1, b0, b1) / rate(1, a, b0)
                              if rate(1, a, b0) > 0 else 0)),
    ]

    def first_window(ok):
        for k in range(b1, le + 1):
            z = k
            while z <= le and t[z] < t[k] + rec_win:
                z += 1
            if z > le:
                break
            if ok(rate(1, k, z), rate(2, k, z)):
                return "%.2f" % (t[k] - t[b1])
        return NAN

    def near(r, f):
        return f * (1 - tol) <= r <= f * (1 + tol)

    out.append(("recovery_s",
                first_window(lambda x, y: near(x, fair) and near(y, fair))))
    out.append(("recovery_share_s", first_window(
        lambda x, y: (x + y) / 2 >= 0.7 * fair and near(x, (x + y) / 2)
        and near(y, (x + y) / 2))))
    if flows_csv:
        with open(flows_csv, "w") as f:
            f.write("t_s,F0,F1,burst\n")
            for i in range(2, m + 1):
                f.write("%.3f,%.3f,%.3f,%.3f\n" % (
                    (t[i - 1] + t[i]) / 2 - t[b0], rate(1, i - 1, i),
                    rate(2, i - 1, i), brate(i - 1, i)))
    return out


def converge(trace, devs, line_kbps, event, field, lead_us=0, period_us=0):
    """cmp_converge's rate convergence from the trace @trace: the events
    @event of the senders' devices @devs (in flow order), @field their rate
    in kbit/s.  Each flow sends at @line_kbps until its first event, which
    came @lead_us after its start.  converge_s: from the last flow's start
    to the first event after which the flows' rates sum to at most 1.1
    times the line; converge_periods: that in periods of @period_us (NaN
    without one); the aggregate then; the number of events."""
    idx = {d: i for i, d in enumerate(devs)}
    rate = [float(line_kbps)] * len(devs)
    pat = re.compile(r"[0-9]+\.[0-9]+: %s:" % re.escape(event))
    ev, first = [], {}
    with open(trace) as f:
        for ln in f:
            mt = pat.search(ln)
            if not mt:
                continue
            v = {}
            for w in ln.split():
                kv = w.split("=")
                if len(kv) == 2:
                    v[kv[0]] = kv[1]
            if v.get("dev") not in idx:
                continue
            ts = float(mt.group(0).split(":")[0])
            d = idx[v["dev"]]
            ev.append((ts, d, _num(v.get(field, ""))))
            first.setdefault(d, ts)
    if not ev or len(first) < len(devs):
        return [("converge_s", NAN), ("converge_periods", NAN),
                ("rate_events", len(ev))]
    st = max(0.0, max(first[i] - lead_us / 1e6 for i in range(len(devs))))
    conv = agg = None
    for ts, d, r in ev:
        rate[d] = r
        if ts < st:
            continue
        if sum(rate) <= 1.1 * line_kbps:
            conv, agg = "%.3f" % (ts - st), sum(rate)
            break
    return [
        ("converge_s", conv or NAN),
        ("converge_periods", "%.1f" % (float(conv) * 1e6 / period_us)
         if conv and period_us else NAN),
        ("agg_at_converge_mbps", "%.2f" % (agg / 1000) if conv else NAN),
        ("rate_events", len(ev)),
    ]


def _pct(v, q):
    """The @q quantile (0 < q <= 1) of the sorted, non-empty @v: the
    smallest value with at least q of them at or below it."""
    return v[min(max(int(q * len(v) + 0.999), 1), len(v)) - 1]


def port_rows(path, port=None):
    """[(t_s, backlog_bytes, deq_packets)] of the port @port ("netns:dev";
    None: every port, for a file of one) in the dcbmon CSV @path, its
    "all" rows."""
    out = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if port in (None, "%s:%s" % (r["netns"], r["dev"])) and \
                    r["band"] == "all":
                out.append((int(r["t_ms"]) / 1000, float(r["backlog_bytes"]),
                            float(r["deq_packets"])))
    return out


def _traffic(rows):
    """(first, last) indices of @rows (port_rows) from the first sample in
    which the port dequeued packets to the first after it stopped; None
    without traffic."""
    if len(rows) < 2:
        return None
    a, b = _moves([r[2] for r in rows])
    b = min(max(b, 0) + 1, len(rows) - 1)
    return (a, b) if a <= b else None


def queue(rows):
    """(mean_kb, p99_kb, peak_kb) of the backlog of @rows (port_rows) over
    _traffic(); None without traffic."""
    span = _traffic(rows)
    if not span:
        return None
    v = sorted(r[1] for r in rows[span[0]:span[1] + 1])
    return (sum(v) / len(v) / 1024, _pct(v, 0.99) / 1024, v[-1] / 1024)


def late(path, port, ingress=()):
    """The bottleneck @port's queue and the PAUSE frames of the @ingress
    ports ("netns:dev") in the second half of the traffic, from the dcbmon
    CSV @path: the second half of _traffic(), the span queue() uses.
    [(key, value)]: queue_late_mean_kb, queue_late_p99_kb, and
    pause_late, the PAUSE frames (pause_tx of the
    ports' "all" rows, refreshes included) sent from the last sample at or
    before the half to the end of the span; NaN without traffic."""
    rows = port_rows(path, port)
    span = _traffic(rows)
    if not span:
        return [("queue_late_mean_kb", "NaN"), ("queue_late_p99_kb", "NaN"),
                ("pause_late", "NaN")]
    a, b = span
    th = (rows[a][0] + rows[b][0]) / 2
    te = rows[b][0]
    v = sorted(r[1] for r in rows[a:b + 1] if r[0] >= th)
    pause = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            nd = "%s:%s" % (r["netns"], r["dev"])
            if nd not in ingress or r["band"] != "all":
                continue
            t = int(r["t_ms"]) / 1000
            c = int(r["pause_tx"])
            p = pause.setdefault(nd, [c, c])
            if t <= th:
                p[0] = c
            if t <= te:
                p[1] = c
    missing = set(ingress) - set(pause)
    if missing:
        raise ValueError("no samples of %s" % " ".join(sorted(missing)))
    return [("queue_late_mean_kb", "%.1f" % (sum(v) / len(v) / 1024)),
            ("queue_late_p99_kb", "%.1f" % (_pct(v, 0.99) / 1024)),
            ("pause_late", sum(e - s for s, e in pause.values()))]


def drain(rows, thr_bytes, win=1.0, peak_win=2.0):
    """Queue drain of @rows (port_rows).  ta: the first sample above
    @thr_bytes (the flows' queue forms); the initial peak: the largest
    backlog within @peak_win s of ta.  drain_s: from ta to the first sample
    after that peak at or below @thr_bytes; settle_s: from ta to the first
    sample from which the mean backlog over @win s stays below it (NaN:
    never, e.g. a queue held up by PFC)."""
    n = len(rows)
    t = [r[0] for r in rows]
    q = [r[1] for r in rows]
    d = [r[2] for r in rows]
    a = 0
    while a < n and q[a] <= thr_bytes:
        a += 1
    if a == n:
        return [("drain_s", "0"), ("settle_s", "0"), ("peak0_kb", "0")]
    e = _moves(d)[1] + 1
    p = a
    k = a
    while k < n and t[k] <= t[a] + peak_win:
        if q[k] > q[p]:
            p = k
        k += 1
    k = p
    while k <= e and q[k] > thr_bytes:
        k += 1
    out = [("drain_s", "%.2f" % (t[k] - t[a]) if k <= e else NAN),
           ("peak0_kb", "%.1f" % (q[p] / 1024))]
    res = NAN
    for k in range(a, e + 1):
        z = k
        s = 0.0
        while z <= e and t[z] < t[k] + win:
            s += q[z]
            z += 1
        if z > e:
            break
        if z > k and s / (z - k) < thr_bytes:
            res = "%.2f" % (t[k] - t[a])
            break
    out.append(("settle_s", res))
    return out


def flows(rows, n, flows_csv=None):
    """All @n flows of the samples @rows together, from the first packet
    of any to the last: total_mbps and active_s; writes @flows_csv (t_s
    from the first packet of any flow, s1..sN in Mbit/s per interval)."""
    m = len(rows)
    t = [r[0] for r in rows]
    tot = [sum(r[1]) for r in rows]
    a, b = _moves(tot)
    a, b = a - 1, b + 1
    if b > a:
        out = [("total_mbps", "%.2f" % mbps(tot[b] - tot[a], t[b] - t[a])),
               ("active_s", "%.2f" % (t[b] - t[a]))]
    else:
        out = [("total_mbps", NAN), ("active_s", NAN)]
    if flows_csv:
        f0 = _moves([r[1][:n] for r in rows])[0]
        t0 = t[f0 - 1] if m else 0
        with open(flows_csv, "w") as f:
            f.write(",".join(["t_s"] + ["s%d" % j for j in range(1, n + 1)])
                    + "\n")
            for i in range(1, m):
                dt = t[i] - t[i - 1]
                f.write(",".join(["%.3f" % ((t[i - 1] + t[i]) / 2 - t0)] + [
                    "%.3f" % mbps(rows[i][1][j] - rows[i - 1][1][j], dt)
                    for j in range(n)]) + "\n")
    return out


def shares(rows):
    """Each flow's rate of the samples @rows over the second half of the
    window in which every flow was running (from the sample at which the
    last flow started to the one at which the first flow sent its last
    packet; stalls inside count): "T0 T1 JAIN RATE1 RATE2 ..." (T from the
    first sample, rates in Mbit/s), "NaN NaN NaN" without such a window
    of at least 4 intervals."""
    m = len(rows)
    n = len(rows[0][1]) if rows else 0
    t = [r[0] for r in rows]
    first, last = 0, m - 1
    for i in range(n):
        r, e = _moves([r[1][i] for r in rows])
        if r == m:
            return "NaN NaN NaN"
        first = max(first, r - 1)
        last = min(last, max(e, 0) + 1)
    if last - first < 4:
        return "NaN NaN NaN"
    mid = t[first] + (t[last] - t[first]) / 2
    a = first
    while a < last and t[a] < mid:
        a += 1
    x = [mbps(rows[last][1][i] - rows[a][1][i], t[last] - t[a])
         for i in range(n)]
    return "%.2f %.2f %.4f%s" % (t[a] - t[0], t[last] - t[0], jain(x) or 0,
                                 "".join(" %.3f" % v for v in x))


def jain_text(values):
    """Jain's index of @values as "%.4f" (0 when all are 0), "NaN" when
    one of them is NaN (a flow not measured)."""
    xs = [float(v) for v in values]
    if not xs or any(math.isnan(x) for x in xs):
        return NAN
    return "%.4f" % (jain(xs) or 0)


def _window(t, q, lo, hi, pfx):
    """The backlog @q of the samples at @t within [@lo, @hi]: PFX_mean_kb,
    _p99_kb, _p50_kb, _max_kb and _n."""
    v = sorted(x for ti, x in zip(t, q) if lo <= ti <= hi)
    if not v:
        return [(pfx + "_mean_kb", NAN), (pfx + "_p99_kb", NAN),
                (pfx + "_p50_kb", NAN), (pfx + "_max_kb", NAN),
                (pfx + "_n", 0)]
    return [(pfx + "_mean_kb", "%.2f" % (sum(v) / len(v) / 1024)),
            (pfx + "_p99_kb", "%.2f" % (_pct(v, 0.99) / 1024)),
            (pfx + "_p50_kb", "%.2f" % (_pct(v, 0.5) / 1024)),
            (pfx + "_max_kb", "%.2f" % (v[-1] / 1024)),
            (pfx + "_n", len(v))]


def incast(rows, dcbmon, t0, hosts, size, iters, flows_tsv, queue_csv):
    """cmp_incast's metrics of one setting.  Each sender of the samples
    @rows (named @hosts, @iters writes of @size bytes) starts at the
    sample before its counter first moves and ends at the sample after it
    last moved; flows_tsv gets flow, start_s and end_s (from @t0, dcbmon's
    clock), fct_s, Mbit/s over the FCT and packets.  The backlog of the
    port in @dcbmon (its "all" rows) goes to @queue_csv (t_s from the first
    start, bytes); its statistics over the incast (first start to last
    end: q_*) and over its second half (qh_*), the span, Jain's index of
    the flows' rates (0 for a flow that never sent), the same over the
    second half (jain_late, below), the longest FCT (NaN when a flow
    never sent) and the rates and FCTs of all flows.

    A flow's rate over its own FCT counts a head start as unfairness: a
    sender whose client started before the others sends alone at line
    rate.  jain_late compares the flows that were still sending in the
    incast's second half, each at its rate from the sample at or before
    the half (or its start, when later) to its end; a flow that never
    sent counts as 0, one that ended before the half is left out."""
    m = len(rows)
    t = [r[0] for r in rows]
    fl = []
    idx = []
    with open(flows_tsv, "w") as f:
        f.write("flow\tstart_s\tend_s\tfct_s\tmbps\tpkts\n")
        for i in range(len(rows[0][1]) if rows else 0):
            c = [r[1][i] for r in rows]
            name = hosts[i] if i < len(hosts) else ""
            r, e = _moves(c)
            e = max(e, 0)
            if r == m:
                f.write("%s\tNaN\tNaN\tNaN\t0\t0\n" % name)
                fl.append((None, None, None, 0.0))
                idx.append(None)
                continue
            idx.append((r - 1, e + 1, c))
            s, fin = t[r - 1], t[e + 1]
            fct = fin - s
            row = ("%.2f" % (s - t0), "%.2f" % (fin - t0), "%.2f" % fct,
                   "%.3f" % (size * iters * 8 / fct / 1e6))
            f.write("%s\t%s\t%s\t%s\t%s\t%d\n"
                    % ((name,) + row + (c[m - 1] - c[0],)))
            # what follows reads the rounded values, as they are printed
            fl.append(tuple(float(x) for x in row))
    starts = [x[0] for x in fl if x[0] is not None]
    ends = [x[1] for x in fl if x[1] is not None]
    ts = min(starts) if starts else 0.0
    te = max([0.0] + ends)
    pr = port_rows(dcbmon)
    qt, qb = [r[0] for r in pr], [r[1] for r in pr]
    with open(queue_csv, "w") as out:
        out.write("t_s,backlog_bytes\n")
        for ti, b in zip(qt, qb):
            out.write("%.3f,%d\n" % (ti - ts, b))
    res = _window(qt, qb, ts, te, "q") + \
        _window(qt, qb, ts + (te - ts) / 2, te, "qh")
    rates = [x[3] for x in fl]
    fcts = [x[2] for x in fl if x[2] is not None]
    # jain_late: the same second half as qh_*, in the samples' clock
    late = []
    if starts:
        mid = t0 + ts + (te - ts) / 2
        h = max([0] + [i for i in range(m) if t[i] <= mid])
        for x in idx:
            if x is None:
                late.append(0.0)
            elif t[x[1]] > mid:
                a, z, c = max(x[0], h), x[1], x[2]
                late.append(mbps(c[z] - c[a], t[z] - t[a]))
    res += [("span_s", "%.2f" % (te - ts)),
            ("jain", "%.4f" % (jain(rates) or 0)),
            ("jain_late", "%.4f" % (jain(late) or 0) if late else NAN),
            # a flow that never sent has no FCT, and so has the incast
            ("fct_max_s", "%.2f" % max([0.0] + fcts)
             if len(fcts) == len(fl) else NAN),
            ("flows_mbps", "/".join("%.2f" % x for x in rates)),
            ("fcts", "/".join("NaN" if x[2] is None else "%.2f" % x[2]
                              for x in fl))]
    return res


def _print(pairs):
    for k, v in pairs:
        print("%s=%s" % (k, v))


def main(argv=None):
    ap = argparse.ArgumentParser(prog="cmpmetrics", description=__doc__.
                                 split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("burst", help="cmp_burst's metrics")
    p.add_argument("samples")
    p.add_argument("flows_csv")
    p.add_argument("--rec-win", type=float, default=1.0, metavar="S")
    p.add_argument("--tol", type=float, default=0.2)
    p = sub.add_parser("converge", help="rate convergence from a trace")
    p.add_argument("trace")
    p.add_argument("--devs", required=True, help="space-separated")
    p.add_argument("--line-kbps", type=float, required=True)
    p.add_argument("--event", required=True)
    p.add_argument("--field", required=True)
    p.add_argument("--lead-us", type=float, default=0)
    p.add_argument("--period-us", type=float, default=0)
    p = sub.add_parser("drain", help="queue drain of a dcbmon port")
    p.add_argument("dcbmon_csv")
    p.add_argument("port", metavar="NETNS:DEV")
    p.add_argument("--thr-kb", type=float, default=4)
    p.add_argument("--win", type=float, default=1.0, metavar="S")
    p.add_argument("--peak-win", type=float, default=2.0, metavar="S")
    p = sub.add_parser("queue", help='"mean_kb p99_kb peak_kb" of a port')
    p.add_argument("dcbmon_csv")
    p.add_argument("port", metavar="NETNS:DEV")
    p = sub.add_parser("late", help="second half: queue, PAUSE frames")
    p.add_argument("dcbmon_csv")
    p.add_argument("port", metavar="NETNS:DEV")
    p.add_argument("--ingress", default="", help="space-separated "
                   "NETNS:DEV whose PAUSE frames are counted")
    p = sub.add_parser("flows", help="all flows' rate; per-flow CSV")
    p.add_argument("samples")
    p.add_argument("n", type=int)
    p.add_argument("flows_csv")
    p = sub.add_parser("jain", help="Jain's index of the values")
    p.add_argument("values", nargs="+")
    p = sub.add_parser("shares", help="rates and Jain's index, second half")
    p.add_argument("samples")
    p = sub.add_parser("incast", help="cmp_incast's flows and queue")
    p.add_argument("samples")
    p.add_argument("dcbmon_csv")
    p.add_argument("--t0", type=float, required=True,
                   help="dcbmon's first sample, in the samples' clock")
    p.add_argument("--hosts", required=True, help="space-separated")
    p.add_argument("--size", type=int, required=True)
    p.add_argument("--iters", type=int, required=True)
    p.add_argument("--flows", required=True, metavar="FLOWS_TSV")
    p.add_argument("--queue", required=True, metavar="QUEUE_CSV")
    a = ap.parse_args(argv)

    try:
        if a.cmd == "burst":
            _print(burst(read_samples(a.samples), a.flows_csv, a.rec_win,
                         a.tol))
        elif a.cmd == "converge":
            _print(converge(a.trace, a.devs.split(), a.line_kbps, a.event,
                            a.field, a.lead_us, a.period_us))
        elif a.cmd == "drain":
            _print(drain(port_rows(a.dcbmon_csv, a.port), a.thr_kb * 1024,
                         a.win, a.peak_win))
        elif a.cmd == "queue":
            r = queue(port_rows(a.dcbmon_csv, a.port))
            print("%.1f %.1f %.1f" % r if r else "NaN NaN NaN")
        elif a.cmd == "late":
            _print(late(a.dcbmon_csv, a.port, a.ingress.split()))
        elif a.cmd == "flows":
            _print(flows(read_samples(a.samples), a.n, a.flows_csv))
        elif a.cmd == "jain":
            print(jain_text(a.values))
        elif a.cmd == "shares":
            print(shares(read_samples(a.samples)))
        elif a.cmd == "incast":
            _print(incast(read_samples(a.samples), a.dcbmon_csv, a.t0,
                          a.hosts.split(), a.size, a.iters, a.flows,
                          a.queue))
    except (OSError, ValueError, KeyError, IndexError) as e:
        print("cmpmetrics: error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
