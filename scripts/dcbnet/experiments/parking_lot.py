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

import json
import os

from .. import stats
from ..experiment import CpuGuard, Experiment, Param, clock_spin, log
from ._pfc import snap_json, snap_load
from .cmp_incast import BAND, CTRL_MAP, algo_opts, host_opts

FLOWS = (("f1", "h1", "r1"), ("f2", "h2", "r2"), ("f3", "h3", "r2"))


class ParkingLot(Experiment):
    NAME = "parking_lot"
    DESCRIPTION = ("parking lot: f2 crosses two bottlenecks, f1 and f3 one "
                   "each; rates, utilisation, per algorithm (DCQCN section "
                   "7, PCN Fig. 19)")
    PARAMS = (
        Param("algos", "none,dcqcn,pcn", "algorithms, run one after the "
              "other (PFC on, as cmp_converge)"),
        Param("rate", 100, "line rate of every port, host NIC and rxe "
              "device (Mb/s)"),
        Param("duration", 8, "flows' duration (s, ib_write_bw -D)"),
        Param("interval", 0.25, "sent_pkts sampling interval (s)"),
        Param("interval_ms", 50, "dcbmon interval (ms)"),
    )

    def algos(self):
        return [a for a in self.p["algos"].split(",") if a]

    def switch_opts(self, algo):
        pfc, ecn = algo_opts(algo, "pfc prio-pfc %d xoff 16kb" % BAND)
        return "rate %smbit %s buffer 1mb %s %s" % (self.p["rate"], CTRL_MAP,
                                                    pfc, ecn)

    def run(self, out):
        from mininet.net import Mininet

        from ..nodes import DcbLink, DcbSwitch, RxeHost, load_modules
        from ..rdma import prepare

        load_modules([a for a in self.algos() if a != "none"])
        clock_spin()
        os.makedirs(out, exist_ok=True)
        net = Mininet(switch=DcbSwitch, host=RxeHost, link=DcbLink,
                      controller=None)
        hopts = host_opts("%smbit" % self.p["rate"])
        sw1, sw2 = net.addSwitch("sw1"), net.addSwitch("sw2")
        net.addLink(sw1, sw2)
        for h, sw in (("h1", sw1), ("h2", sw1), ("h3", sw2), ("r1", sw2),
                      ("r2", sw2)):
            net.addLink(net.addHost(h, dcb=hopts), sw)
        try:
            net.start()
            prepare(net.hosts)
            for _, src, dst in FLOWS:
                self.resolve([net[src]], net[dst].IP())
            ports = {"A": (sw1, str(sw1.connectionsTo(sw2)[0][0])),
                     "B": (sw2, str(sw2.connectionsTo(net["r2"])[0][0]))}
            for a in self.algos():
                self.run_algo(net, ports, a, os.path.join(out, a))
            self.keep_raw(net)
        finally:
            net.stop()

    def run_algo(self, net, ports, algo, d):
        from ..rdma import BASE_PORT, Perftest, Sampler, select

        os.makedirs(d, exist_ok=True)
        opts = self.switch_opts(algo)
        select(net.hosts, algo, self.p["rate"])
        switches = [net["sw1"], net["sw2"]]
        for sw in switches:
            for intf in sw.intfList():
                if str(intf) != "lo":
                    intf.setDcb(opts)
        before = {sw.name: snap_json(stats.snapshot(sw)) for sw in switches}
        bw = Perftest(d, secs=int(self.p["duration"]))
        for k, (_, src, dst) in enumerate(FLOWS):
            bw.add(net[src], net[dst], BASE_PORT + k)
        bw.ready()
        mon = stats.Monitor(d, [(k, sw, dev) for k, (sw, dev) in
                                sorted(ports.items())],
                            int(self.p["interval_ms"]))
        sampler = Sampler(os.path.join(d, "samples.txt"),
                          [net[src] for _, src, _ in FLOWS],
                          self.p["interval"])
        guard = CpuGuard()
        try:
            mon.start()
            sampler.start()
            guard.start()
            bw.start()
            log("%s: f1 h1 -> r1, f2 h2 -> r2, f3 h3 -> r2 for %s s"
                % (algo, self.p["duration"]))
            failed = bw.wait()
            busy = guard.check("%s: three flows" % algo)
        finally:
            bw.kill()
            guard.stop()
            sampler.stop()
            mon.stop()
        after = {sw.name: snap_json(stats.snapshot(sw)) for sw in switches}
        doc = {"algo": algo, "switch": opts, "ports": {
            k: "%s:%s" % (stats.Monitor.netns(sw), dev)
            for k, (sw, dev) in ports.items()},
            "cpu_busy": busy, "failed": [os.path.basename(f)
                                         for f in failed],
            "before": before, "after": after}
        with open(os.path.join(d, "run.json"), "w") as f:
            json.dump(doc, f, indent=1)
        log("%s: done, %d perftest failures" % (algo, len(failed)))

    def analyze(self, out):
        rows = []
        for a in self.algos():
            rows += [r + (a,) for r in self.algo_rows(os.path.join(out, a))]
        return rows

    def algo_rows(self, d):
        from dcbanalysis import cmpmetrics
        from dcbanalysis.samples import read as read_samples

        with open(os.path.join(d, "run.json")) as f:
            doc = json.load(f)
        b = {k: snap_load(v) for k, v in doc["before"].items()}
        a = {k: snap_load(v) for k, v in doc["after"].items()}

        def delta(key, band=None):
            return sum(a[n].total(key, band) - b[n].total(key, band)
                       for n in a)
        c = float(self.p["rate"])
        out = []
        sh = cmpmetrics.shares(read_samples(os.path.join(d, "samples.txt")))
        v = sh.split()
        if v[0] != "NaN":
            f1, f2, f3 = (float(x) for x in v[3:6])
            out += [("rate_late.f1", f1, "Mbit/s"),
                    ("rate_late.f2", f2, "Mbit/s"),
                    ("rate_late.f3", f3, "Mbit/s"),
                    ("jain", float(v[2]), "1"),
                    ("line_share.f2", f2 / c, "1"),
                    ("utilisation.A", (f1 + f2) / c, "1"),
                    ("utilisation.B", (f2 + f3) / c, "1")]
        for k, port in sorted(doc["ports"].items()):
            q = cmpmetrics.queue(cmpmetrics.port_rows(
                os.path.join(d, "dcbmon.csv"), port))
            if q:
                out.append(("queue_mean." + k, q[0], "KB"))
        hr = delta("drops_headroom")
        out += [("pause_tx", delta("pause_tx", BAND), "frames"),
                ("drops", delta("drops_tail") + delta("drops_wred") + hr,
                 "packets"),
                ("headroom_drops", hr, "packets"),
                ("flows_failed", len(doc["failed"]), "flows"),
                ("cpu_busy", doc["cpu_busy"], "%")]
        return out
