# SPDX-License-Identifier: GPL-2.0
"""parking_lot: flows crossing two bottlenecks (DCQCN paper section 7's
parking lot, PCN Fig. 19 with N = 2), one run per algorithm of `algos`.

  h1 --\\                  /-- r1     f1: h1 -> r1  bottleneck A only
        sw1 ---- A ---- sw2          f2: h2 -> r2  A and B
  h2 --/                  |\\-- r2    f3: h3 -> r2  B only
                         h3   (B: sw2 -> r2)

Every port and host NIC is sch_dcb at `rate` Mbit/s; A (sw1 -> sw2) and
B (sw2 -> r2) are the bottlenecks.  Max-min fairness gives every flow
half of the line rate; proportional fairness gives f2 a third and f1
and f3 two thirds (PCN's claim for PCN: f2 gets 1 / (N + 1)); DCQCN's
slides: a flow through two RED points is marked more often and gets
less than the max-min share.  Every switch port has the algorithm's
marking and PFC on RoCE's band 3 (ldcp: no PFC, step marking).

Raw files per algorithm, in ALGO/: run.json (options, counters before
and after, failures, the CPU guard), samples.txt (each flow's sent_pkts
every `interval` s), dcbmon.csv and ports.tsv (A and B), perftest's
outputs.  Rows: each flow's rate over the second half of the time all
three ran, f2's share of the line rate, A's and B's utilisation (f1 + f2
and f2 + f3 over the line rate), Jain's index of the three, PAUSE
frames, drops (and of them at full headrooms), the queues of A and B.
"""

import os

from ..experiment import Param, log
from ._cmp import BAND, COMMON_PARAMS, LONG_SIZE, SAMPLING_PARAMS, Cmp, \
    host_opts, margin

FLOWS = (("f1", "h1", "r1"), ("f2", "h2", "r2"), ("f3", "h3", "r2"))


class ParkingLot(Cmp):
    NAME = "parking_lot"
    DESCRIPTION = ("parking lot: f2 crosses two bottlenecks, f1 and f3 one "
                   "each; rates, utilisation, per algorithm (DCQCN section "
                   "7, PCN Fig. 19)")
    PARAMS = (
        Param("algos", "none,dcqcn,pcn", "algorithms, run one after the "
              "other (PFC on, as cmp_converge)"),
    ) + COMMON_PARAMS[1:] + (
        Param("duration", 8, "flows' duration (s, ib_write_bw -D)"),
    ) + SAMPLING_PARAMS

    def build(self, net):
        sw1, sw2 = net.addSwitch("sw1"), net.addSwitch("sw2")
        net.addLink(sw1, sw2)
        for h, sw in (("h1", sw1), ("h2", sw1), ("h3", sw2), ("r1", sw2),
                      ("r2", sw2)):
            net.addLink(net.addHost(h, dcb=host_opts(self.mbps())), sw)

    def resolve_paths(self):
        for _, src, dst in FLOWS:
            self.resolve([self.net[src]], self.net[dst].IP())

    def run_algo(self, algo, d, k):
        from ..rdma import BASE_PORT, Perftest, Sampler

        net, secs = self.net, self.p["duration"]
        before = self.snapshots()
        bw = Perftest(d, size=LONG_SIZE, secs=secs, limit=margin(secs))
        for i, (_, src, dst) in enumerate(FLOWS):
            bw.add(net[src], net[dst], BASE_PORT + 20 * k + i)
        mon = sampler = guard = None
        try:
            mon = self.monitor(d, [
                ("A",) + self.port(net["sw1"], net["sw2"]),
                ("B",) + self.port(net["sw2"], net["r2"])])
            sampler = Sampler(os.path.join(d, "samples.txt"),
                              [net[src] for _, src, _ in FLOWS],
                              self.p["interval"])
            sampler.start()
            guard = self.guard()
            bw.start(together=True)
            log("%s: f1 h1 -> r1, f2 h2 -> r2, f3 h3 -> r2 for %s s"
                % (algo, secs))
            failed = bw.wait()
            busy = guard.check("%s: three flows" % algo)
        finally:
            bw.kill()
            for x in (guard, sampler, mon):
                if x is not None:
                    x.stop()
        self.write_run(d, algo, {"cpu_busy": busy, "failed": len(failed),
                                 "before": before,
                                 "after": self.snapshots()})

    def algo_rows(self, d):
        from dcbanalysis import cmpmetrics
        from dcbanalysis.samples import read as read_samples

        from ._pfc import snap_load

        doc = self.load(d)
        b = {k: snap_load(v) for k, v in doc["before"].items()}
        a = {k: snap_load(v) for k, v in doc["after"].items()}

        def delta(key, band=None):
            return sum(a[n].total(key, band) - b[n].total(key, band)
                       for n in a)
        c = float(self.mbps())
        out = []
        v = cmpmetrics.shares(read_samples(os.path.join(d, "samples.txt")))
        v = v.split()
        if v[0] != "NaN":
            f1, f2, f3 = (float(x) for x in v[3:6])
            out += [("rate_late.f1", f1, "Mbit/s"),
                    ("rate_late.f2", f2, "Mbit/s"),
                    ("rate_late.f3", f3, "Mbit/s"),
                    ("jain", float(v[2]), "1"),
                    ("line_share.f2", f2 / c, "1"),
                    ("utilisation.A", (f1 + f2) / c, "1"),
                    ("utilisation.B", (f2 + f3) / c, "1")]
        for label in ("A", "B"):
            q = cmpmetrics.queue(self.port_rows(d, label))
            if q:
                out.append(("queue_mean." + label, q[0], "KB"))
        hr = delta("drops_headroom")
        out += [("pause_tx", delta("pause_tx", BAND), "frames"),
                ("drops", delta("drops_tail") + delta("drops_wred") + hr,
                 "packets"),
                ("headroom_drops", hr, "packets"),
                ("flows_failed", doc["failed"], "flows"),
                ("cpu_busy", doc["cpu_busy"], "%")]
        return out
