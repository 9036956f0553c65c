# SPDX-License-Identifier: GPL-2.0
"""pcn_flows: PCN's flow scalability (its Fig. 17: 4 to 64 flows into
one port; queue, PAUSE, utilisation and Jain's index per algorithm) at
the lab's 100 Mb/s.  selftests/unit/pcn/model -n makes the same sweep at
the paper's 10 Gb/s (pcn.rst).

  s1..sH -> sw -> r      every port and host NIC sch_dcb at `rate`, PFC
                         on RoCE's band 3 and the algorithm's marking
                         on every switch port (RED for dcqcn, NP-ECN for
                         pcn, none for none; ldcp: PFC off, step at 8 KB)

N flows are N RC connections: each of the H senders runs one ib_write_bw
-q N/H -D run_s to its own server on r.  A capture at r (RoCEv2 to r, 96
bytes a packet; dcbanalysis.roce_flows: a flow is a source address and a
destination QP) gives, over the second half of the run, Jain's index of
the N flows (a flow that sent nothing counts as 0), its lowest and
median value over windows of window_s, the slowest flow's share of the
fair share and the total; dcbmon the bottleneck's queue, over the run
and over the second half of the traffic, and the PAUSE frames the
senders' ingress ports sent in that half (the steady state the paper's
"no PAUSE" is about: every flow starts at the line rate, so the first
seconds fill the queue to the XOFF whatever the algorithm); the
switch's counters the PAUSE frames and drops over the run.

Raw files per run, in ALGO-N/: run.json (options, counters before and
after, failures, the CPU guard), capture.pcap, tcpdump.err, dcbmon.csv,
ports.tsv, perftest's outputs; analyze() adds rates.tsv (each flow's
rate over the second half).  Rows: the metric names N (jain.n16), the
fourth column the algorithm.

The switch's PFC keeps an XOFF of 64 KB per ingress port, not the
comparison's 16 KB: PCN's queue oscillates by (N - 2 + w_min) w_min C T
in steady state (the paper's eq. 15; 12 KB at N = 64, 100 Mb/s and T =
2 ms) above NP-ECN's K, unevenly over the ingress ports, and at 16 KB
the steady state of 64 flows drew PAUSE frames (its second-half queue's
p99 near 50 KB), against the paper's "no PAUSE".  PCN's period and rate
floor are derived from the line rate (rxe_cc.rst, "The rule": T 2 ms,
floor 409 kb/s at 100 Mb/s, 64 flows at the floor a quarter of the
line); its ecn_threshold_pct is set to the knob pcn_ecn_pct (95, the
module's default).
"""

import os
import re

from .. import stats
from ..experiment import CpuGuard, Param, load_run, log
from ._knobs import budget, dcbmon_ms, line_mbps, pfc_delay, pool, xoff
from ._pfc import snap_json, snap_load
from .cmp_incast import BAND, Incast, capture_rows, host_opts, \
    measured, red_opts

RED = "5kb:20kb:0.01"	# the comparison's RED for dcqcn (cmp_incast's)
LDCP_K = "8kb"		# the comparison's step marking for ldcp


def ports_tsv(d):
    """{label: "netns:dev"} of a Monitor's ports.tsv in @d."""
    with open(os.path.join(d, "ports.tsv")) as f:
        return dict(ln.rstrip("\n").split("\t") for ln in f if ln.strip())


class PcnFlows(Incast):
    NAME = "pcn_flows"
    DESCRIPTION = ("PCN Fig. 17: 4 to 64 RDMA flows into one port, per "
                   "algorithm: Jain (from a capture), queue, PAUSE")
    PARAMS = (
        Param("algos", "pcn,dcqcn", "algorithms, in this order"),
        Param("flows", "4,8,16,32,64", "flow counts (RC connections), in "
              "this order"),
        Param("hosts", 4, "senders (the flows are spread evenly over "
              "them)"),
        line_mbps(),
        Param("run_s", 60, "ib_write_bw -D per run (s)"),
        Param("size", 16384, "bytes per write"),
        Param("window_s", 2, "window of the windowed Jain's index (s)"),
        Param("pcn_period_us", "default", "PCN's period T (us; default: "
              "derived, 2000 at 100 Mb/s)"),
        Param("pcn_min_rate_kbps", "default", "PCN's rate floor (kb/s; "
              "default: derived, 409 at 100 Mb/s)"),
        Param("pcn_w_min", "default", "PCN's w_min (1/65536): default "
              "(1/128), paper (0.1/N of each run, PCN section 5), or a "
              "number"),
        Param("pcn_ecn_pct", 95, "PCN's ecn_threshold_pct: a period is "
              "congested when more than this % of its packets are CE"),
        xoff("64kb", "see the module's comment"),
        pfc_delay(),
        pool("1mb", "4 x xoff and the headroom must fit"),
        dcbmon_ms(20),
        budget(1200),
    )
    TITLE_KEYS = ("hosts", "rate", "run_s")

    # ---------------------------------------------------------- settings

    def line(self):
        return "%smbit" % self.p["rate"]

    def algos(self):
        return [a for a in self.p["algos"].split(",") if a]

    def counts(self):
        return [int(n) for n in self.p["flows"].split(",") if n]

    def settings(self):
        return ["%s-%d" % (a, n) for a in self.algos() for n in
                self.counts()]

    @staticmethod
    def split(name):
        """(algo, N) of a setting's name."""
        a, _, n = name.rpartition("-")
        return a, int(n)

    def check(self):
        """ValueError on a knob the runs cannot use, before any runs."""
        for k in ("hosts", "rate", "run_s", "size"):
            if not re.fullmatch(r"[1-9][0-9]*", self.p[k]):
                raise ValueError("%s: '%s' is not a number" % (k, self.p[k]))
        for a in self.algos():
            if a not in ("none", "dcqcn", "pcn", "ldcp"):
                raise ValueError("unknown algorithm '%s'" % a)
        h = int(self.p["hosts"])
        for n in self.p["flows"].split(","):
            if not re.fullmatch(r"[1-9][0-9]*", n) or int(n) % h:
                raise ValueError("flows: '%s' is not a multiple of hosts "
                                 "(%d)" % (n, h))
        self.w_min(1)

    def w_min(self, n):
        """PCN's w_min knob for a run of @n flows from pcn_w_min: auto
        (the module's 1/128), 0.1/N in 1/65536 (paper: PCN section 5's
        guideline) or the number given."""
        v = self.p["pcn_w_min"]
        if v == "default":
            return "auto"
        if v == "paper":
            return str(65536 // (10 * n))
        if re.fullmatch(r"[1-9][0-9]*", v):
            return v
        raise ValueError("pcn_w_min: '%s' is not default, paper or a "
                         "number" % v)

    def setting(self, name):
        algo, n = self.split(name)
        pfc = self.pfc_opts()
        ecn = {"none": "ecn off", "dcqcn": red_opts(RED),
               "pcn": "ecn np-ecn", "ldcp": "ecn step k %s" % LDCP_K}[algo]
        if algo == "ldcp":
            pfc = "pfc off"
        cc = []
        if algo == "pcn":
            # "default" gives a knob back to its derivation ("auto")
            cc = [("pcn/period_us", self.p["pcn_period_us"]),
                  ("pcn/min_rate_kbps", self.p["pcn_min_rate_kbps"]),
                  ("pcn/ecn_threshold_pct", self.p["pcn_ecn_pct"]),
                  ("pcn/w_min", self.w_min(n))]
            cc = [(k, "auto" if v == "default" else v) for k, v in cc]
        # the marking on every switch port, as the comparison's switch
        sw = "%s %s %s" % (self.base_opts(), pfc, ecn)
        return {"algo": algo, "cc": cc, "switch": sw, "bottleneck": sw,
                "info": {}}

    def modules(self):
        return self.algos()

    def hosts_needed(self):
        return int(self.p["hosts"])

    # ---------------------------------------------------------- run

    def run_setting(self, name, d):
        from ..rdma import BASE_PORT, Capture, Perftest, hw_sum, recording

        algo, n = self.split(name)
        cfg, written = self.configure(name)
        p, senders, r = self.p, self.senders, self.r
        q, secs = n // len(senders), int(p["run_s"])
        before = stats.snapshot(self.sw)
        retry0 = hw_sum(senders, "completer_retry_err")
        bw = Perftest(d, size=int(p["size"]), secs=secs, limit=secs + 300,
                      args=["-q", str(q)])
        for i, h in enumerate(senders, 1):
            bw.add(h, r, BASE_PORT + i)
        bw.ready()
        log("%s: servers listen" % name)
        cap = Capture(r, d)
        # the bottleneck, then the senders' ingress ports (their PAUSEs)
        mon = stats.Monitor(d, [("bottleneck", self.sw, self.port_to(r))] +
                            [("from-" + h.name, self.sw, self.port_to(h))
                             for h in senders], int(p["interval_ms"]))
        guard = CpuGuard()
        with recording(cap, mon, guard, bw):
            bw.start(together=True)
            log("%s: %d senders x %d QPs for %d s"
                % (name, len(senders), q, secs))
            failed = bw.wait()
            busy = guard.check("%s: %d x %d QPs" % (name, len(senders), q))
        after = stats.snapshot(self.sw)
        doc = {
            "setting": name, "algo": algo, "flows": n, "qps": q,
            "cc": written, "switch": cfg["switch"],
            "host": host_opts(self.line()),
            "hosts": [h.name for h in senders], "cpu_busy": busy,
            "failed": [os.path.basename(f) for f in failed],
            "retry": hw_sum(senders, "completer_retry_err") - retry0,
            "capture_dropped": cap.dropped,
            "before": snap_json(before), "after": snap_json(after),
        }
        self.save_captured(name, d, doc)

    # ---------------------------------------------------------- metrics

    def analyze(self, out):
        rows = []
        for name in self.settings():
            algo, n = self.split(name)
            rows += [("%s.n%d" % (m, n), v, u, algo) for m, v, u in
                     self.setting_rows(os.path.join(out, name), n)]
        return rows

    def setting_rows(self, d, n):
        """(metric, value, unit) of the run of @n flows in @d; writes
        rates.tsv (each flow's rate over the second half)."""
        from dcbanalysis import cmpmetrics, roce_flows

        doc = load_run(d)
        b, a = snap_load(doc["before"]), snap_load(doc["after"])

        def delta(key, band=None):
            return a.total(key, band) - b.total(key, band)
        ports = ports_tsv(d)
        mon = os.path.join(d, "dcbmon.csv")
        bott = ports.pop("bottleneck")
        q = cmpmetrics.queue(cmpmetrics.port_rows(mon, bott)) or (None,) * 3
        late = dict(cmpmetrics.late(mon, bott, list(ports.values())))
        pause_late = late["pause_late"]	# an int, "NaN" without traffic
        s = roce_flows.summary(roce_flows.read_pcap(
            os.path.join(d, "capture.pcap")), float(self.p["window_s"]), n)
        with open(os.path.join(d, "rates.tsv"), "w") as f:
            f.write("src\tqpn\tmbps\n")
            for (src, qpn), v in sorted(s["rates"].items()):
                f.write("%s\t%d\t%.3f\n" % (src, qpn, v))

        def num(x):
            try:
                return float(x)
            except (TypeError, ValueError):
                return float("nan")
        out = [
            ("jain", num(s.get("jain")), "1"),
            ("jain_window_min", num(s.get("jain_w_min")), "1"),
            ("jain_window_median", num(s.get("jain_w_median")), "1"),
            ("low_share", num(s.get("low_share")), "1"),
            ("flows_seen", s["flows"], "flows"),
            ("ip_rate_late", num(s.get("total_mbps")), "Mbit/s"),
            ("queue_mean", num(q[0]), "KB"),
            ("queue_p99", num(q[1]), "KB"),
            ("queue_mean_late", num(late["queue_late_mean_kb"]), "KB"),
            ("queue_p99_late", num(late["queue_late_p99_kb"]), "KB"),
            ("pause_late", pause_late if isinstance(pause_late, int) else
             float("nan"), "frames"),
            ("pause_tx", delta("pause_tx", BAND), "frames"),
            ("drops", delta("drops_tail") + delta("drops_wred") +
             delta("drops_headroom"), "packets"),
        ] + capture_rows(doc)
        return measured(out)

    # ---------------------------------------------------------- plots

    def plot(self, out):
        """flows.png: Jain's index and the bottleneck's mean queue
        against the number of flows, per algorithm."""
        from dcbanalysis import plots

        val = {(r[3], r[0]): r[1] for r in self.analyze(out)}
        series = {}
        for a in self.algos():
            pts = [(n, val.get((a, "jain.n%d" % n)),
                    val.get((a, "queue_mean.n%d" % n)))
                   for n in sorted(self.counts())]
            pts = [x for x in pts if x[1] is not None or x[2] is not None]
            if pts:
                series[a] = pts
        if not series:
            return []
        import matplotlib.pyplot as plt

        f = os.path.join(out, "flows.png")
        with plt.rc_context(plots.STYLE):
            fig, (a1, a2) = plt.subplots(2, 1, sharex=True)
            for a, pts in series.items():
                kw = ({"color": plots.ALGO_COLORS[a]}
                      if a in plots.ALGO_COLORS else {})
                a1.plot([x[0] for x in pts], [x[1] for x in pts],
                        marker="o", label=a, **kw)
                a2.plot([x[0] for x in pts], [x[2] for x in pts],
                        marker="o", label=a, **kw)
            a1.set_ylabel("Jain's index")
            a1.set_ylim(0, 1.05)
            a2.set_ylabel("mean queue (KB)")
            a2.set_ylim(bottom=0)
            a2.set_xlabel("flows")
            a2.set_xscale("log", base=2)
            a1.set_title(self.title("Jain's index and queue against flows"))
            a1.legend(loc="best")
            fig.tight_layout()
            fig.savefig(f)
            plt.close(fig)
        return [f]
