# SPDX-License-Identifier: GPL-2.0
"""incast: N ECN-capable UDP senders (iperf3) through a routing switch
into one receiver rx; the switch's port toward rx is a shaped sch_dcb
with RED (or step) marking, the only qdisc of the topology.

The senders' data rides DSCP 24 (band 3), ECT(0) or not.  iperf3 (3.12)
opens each UDP stream with one 4-byte datagram sent before --tos
applies, so at DSCP 0 and not-ECT, and never resent; its TCP control
connection is not-ECT too.  In the data's band RED would drop that
datagram past Kmin, and a client whose stream opens after the others
filled the queue gives up 30 s later with no result.  So DSCP 0 has
band 7 (dscp-map 0:7), as a switch gives its control traffic a class of
its own, with 64 KB of the port's limit above the data's.

Raw files: qdisc.txt, dcbmon.csv and ports.tsv (the port), iperf3's
JSON reports, senders.csv (sender, offered_bps, rx_bps, loss_pct,
packets, lost_packets: iperf3's totals), throughput-hN.csv (t_s, rx_mbps
of sender N on dcbmon's time base), starts.txt (when the clients
started, ms of dcbmon's time).
"""

import csv
import math
import os
import time

from .. import stats
from ..experiment import CpuGuard, Experiment, Param, log
from ..iperf import Iperf, report
from ._knobs import dcbmon_ms, udp_pkt
from ._pfc import rate_bps

# Headers of a UDP datagram on the wire besides its payload: UDP 8,
# IPv4 20, Ethernet 14 (the shaper's overhead knob adds the rest).
UDP_HEADERS = 42
BASE_PORT = 5200


def size_bytes(s):
    from dcbanalysis import units
    return int(units.size_bytes(s))


def qdisc_args(p):
    """The port's qdisc (tc's words after `root`) for the knobs @p."""
    if p["qdisc"] == "tbf":
        return "tbf rate %s burst 10kb limit %s" % (p["rate"],
                                                     p["limit"] or "300kb")
    a = "dcb rate %s overhead %s" % (p["rate"], p["overhead"])
    if p["limit"]:
        a += " limit %db" % (size_bytes(p["limit"]) + 65536)
    if p["burst"]:
        a += " burst %s" % p["burst"]
    a += " dscp-map 0:7"
    if p["ecn"] == "red":
        a += " ecn red kmin %s kmax %s pmax %s" % (p["kmin"], p["kmax"],
                                                   p["pmax"])
    elif p["ecn"] == "step":
        a += " ecn step k %s" % p["kmin"]
    elif p["ecn"] == "off":
        a += " ecn off"
    else:
        raise ValueError("ecn=%s: want red, step or off" % p["ecn"])
    if p["limit"]:
        a += " band 3 limit %s" % p["limit"]
    return a


def iperf_results(out, n, warn=log):
    """senders.csv and throughput-hN.csv in @out from the iperf3 reports
    of senders h1..h@n.  A sender whose server has no result (its UDP
    stream never opened, or the server was killed mid-report) is a zero
    row; @warn gets why (the server's error, or else the client's)."""
    try:
        with open(os.path.join(out, "starts.txt")) as f:
            off = float(f.read().split()[1]) / 1000
    except (OSError, IndexError, ValueError):
        off = 0.0
    with open(os.path.join(out, "senders.csv"), "w") as f:
        f.write("sender,offered_bps,rx_bps,loss_pct,packets,lost_packets\n")
        for i in range(1, n + 1):
            h = "h%d" % i
            spath = os.path.join(out, "iperf3-server-%s.json" % h)
            s, why = report(spath)
            c, _ = report(os.path.join(out, "iperf3-client-%s.json" % h))
            got = (s or {}).get("end", {}).get("sum_received")
            if not got:
                why = why or (s or {}).get("error") or "client: %s" % (
                    (c or {}).get("error", "no error") if c is not None
                    else "no report")
                warn("%s: no iperf3 server result (%s): %s"
                     % (h, spath, why))
                f.write("%s,0,0,100,0,0\n" % h)
                continue
            offered = (c or {}).get("end", {}).get("sum", {}).get(
                "bits_per_second", 0)
            f.write("%s,%s,%s,%s,%s,%s\n" % (
                h, _num(offered), _num(got["bits_per_second"]),
                _num(got["lost_percent"]), got["packets"],
                got["lost_packets"]))
            with open(os.path.join(out, "throughput-%s.csv" % h), "w") as t:
                t.write("t_s,rx_mbps\n")
                for iv in s.get("intervals", []):
                    x = iv["sum"]
                    if x["seconds"] > 0.05:
                        t.write("%s,%s\n" % (_num(x["end"] + off),
                                             _num(x["bits_per_second"] /
                                                  1e6)))


def _num(x):
    """@x as jq prints a number: integers without a fraction."""
    return "%d" % x if float(x).is_integer() else repr(float(x))


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


class Incast(Experiment):
    NAME = "incast"
    DESCRIPTION = ("N ECT(0) UDP senders overload one sch_dcb port (RED "
                   "marking): queue, marking, fairness")
    PARAMS = (
        Param("senders", 4, "number of UDP senders"),
        Param("rate", "100mbit", "port line rate (sch_dcb rate)"),
        Param("overhead", 24, "bytes added per packet by the shaper "
              "(preamble+IFG+FCS)"),
        Param("limit", "300kb", "data band limit (tail drop); \"\" = "
              "module default port limit (1000 MTUs)"),
        Param("burst", "", "shaper burst (sch_dcb burst); \"\" = module "
              "default"),
        Param("ecn", "red", "port ECN mode: red, step (K = kmin) or off"),
        Param("kmin", "5kb", "RED Kmin / step K (the lab's RED: DCQCN's "
              "scaled by line rate x base RTT)"),
        Param("kmax", "20kb", "RED Kmax"),
        Param("pmax", 0.01, "RED Pmax"),
        Param("sender_rate", "auto", "per-sender UDP payload rate; auto = "
              "1.5 * rate / senders"),
        udp_pkt(),
        Param("ect", 1, "1 = senders send ECT(0) (tos 0x62), 0 = non-ECT "
              "(tos 0x60, WRED drops)"),
        Param("duration", 10, "seconds of traffic"),
        dcbmon_ms(10),
        Param("report_interval", 0.5, "iperf3 interval (s) of the "
              "throughput time series"),
        Param("window_ms", 100, "window of the marked-fraction time "
              "series"),
        Param("qdisc", "dcb", "dcb; tbf = debugging fallback without the "
              "module"),
    )

    def n(self):
        n = self.p["senders"]
        if not n.isdigit() or int(n) < 1:
            raise ValueError("senders=%s" % n)
        return int(n)

    def sender_bps(self):
        if self.p["sender_rate"] == "auto":
            return round(1.5 * rate_bps(self.p["rate"]) / self.n())
        return int(rate_bps(self.p["sender_rate"]))

    # ---------------------------------------------------------- run

    def run(self, out):
        from ..nodes import dcb_net

        n, p = self.n(), self.p
        qargs = qdisc_args(p)
        net = dcb_net(out, rxe=False, dcb=p["qdisc"] == "dcb")
        sw = net.addSwitch("sw")
        for h in ["rx"] + ["h%d" % i for i in range(1, n + 1)]:
            net.addLink(net.addHost(h), sw)
        try:
            net.start()
            self._run(net, sw, out, qargs)
            self.keep_raw(net)
        finally:
            net.stop()
        iperf_results(out, n)

    def _run(self, net, sw, out, qargs):
        n, p = self.n(), self.p
        rx = net["rx"]
        senders = [net["h%d" % i] for i in range(1, n + 1)]
        port = str(sw.connectionsTo(rx)[0][0])
        r = sw.cmd("tc qdisc replace dev %s root %s && echo ok"
                   % (port, qargs))
        if not r.strip().endswith("ok"):
            raise RuntimeError("tc qdisc replace dev %s root %s: %s"
                               % (port, qargs, r.strip()))
        with open(os.path.join(out, "qdisc.txt"), "w") as f:
            f.write("%s:%s %s\n" % (stats.Monitor.netns(sw), port, qargs))
        self.resolve(senders, rx.IP())
        dur = float(p["duration"])
        # the limit is a safety net for a stuck process
        ip = Iperf(out, int(dur) + 60, p["report_interval"])
        for i in range(1, n + 1):
            ip.server(rx, BASE_PORT + i, "h%d" % i)
        ip.ready()
        srate = self.sender_bps()
        tos = "0x62" if p["ect"] == "1" else "0x60"
        log("%d senders x %.2f Mb/s -> %s (%s), %g s"
            % (n, srate / 1e6, port, qargs, dur))
        for i, h in enumerate(senders, 1):
            ip.client(h, rx, BASE_PORT + i, p["duration"], srate, p["pkt"],
                      tos, "h%d" % i)
        time.sleep(0.5)
        mon = None
        if p["qdisc"] == "dcb":
            mon = stats.Monitor(out, [("port", sw, port)],
                                int(p["interval_ms"]))
            t0 = mon.start_aligned()
        else:
            t0 = time.time()
        guard = CpuGuard()
        try:
            guard.start()
            start = ip.go()
            with open(os.path.join(out, "starts.txt"), "w") as f:
                f.write("clients_start_ms %d\n" % ((start - t0) * 1000))
            ip.wait()
            guard.check("incast")
            time.sleep(0.5)	# let the queue drain into the samples
        finally:
            guard.stop()
            ip.close()
            if mon is not None:
                mon.stop()

    # ---------------------------------------------------------- metrics

    def overhead(self):
        return int(self.p["overhead"] or 0) if self.p["qdisc"] == "dcb" \
            else 0

    def analyze(self, d):
        from dcbanalysis import fairness, units

        rows = []
        rx = {r["sender"]: float(r["rx_bps"]) / 1e6
              for r in _rows(os.path.join(d, "senders.csv"))}
        rows += fairness.sender_rows(rx)
        rate = units.rate_mbps(self.p["rate"])
        pkt = int(self.p["pkt"])
        line = rate * pkt / (pkt + UDP_HEADERS + self.overhead())
        rows.append(("utilisation", sum(rx.values()) / line, "1"))
        if os.path.exists(os.path.join(d, "dcbmon.csv")):
            rows += port_metrics(port_samples(d), self.overhead(),
                                 units.size_bytes(self.p["kmax"] or "0"))
        return rows

    def plot(self, d):
        """queue.png (the port's backlog, Kmin and Kmax dashed), marked.png
        (the marked and dropped shares of the packets offered per
        window_ms) and throughput.png (each sender's received rate, the
        fair share dashed)."""
        from dcbanalysis import plots, units

        out, p = [], self.p
        keys = ("senders", "rate", "ecn", "kmin", "kmax", "pmax",
                "duration")

        def title(what):
            return plots.title("incast", what, p, keys)
        samples = port_samples(d) \
            if os.path.exists(os.path.join(d, "dcbmon.csv")) else []
        if samples:
            t = [s[0] for s in samples]
            lines = [("backlog", t, [s["backlog_bytes"] / 1024
                                     for _, s in samples])]
            for k in ("kmin", "kmax"):
                v = units.size_bytes(p[k] or "0")
                if v and p["ecn"] != "off":
                    lines.append((k.capitalize(), [t[0], t[-1]],
                                  [v / 1024] * 2, "black"))
            f = os.path.join(d, "queue.png")
            plots.series(f, lines, title("port backlog"), "backlog (KB)")
            out.append(f)
            win = float(p["window_ms"]) / 1000
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
                             title("marked and dropped share per %g ms"
                                   % (win * 1000)), "share of packets")
                out.append(f)
        lines = []
        for i in range(1, self.n() + 1):
            path = os.path.join(d, "throughput-h%d.csv" % i)
            if os.path.exists(path):
                rows = _rows(path)
                lines.append(("h%d" % i, [float(r["t_s"]) for r in rows],
                              [float(r["rx_mbps"]) for r in rows]))
        if lines:
            rate = units.rate_mbps(p["rate"])
            pkt = int(p["pkt"])
            share = rate * pkt / (pkt + UDP_HEADERS + self.overhead()) / \
                self.n()
            f = os.path.join(d, "throughput.png")
            plots.series(f, lines, title("received per sender"),
                         "received (Mbit/s)", hline=share,
                         hline_label="fair share")
            out.append(f)
        return out
