# SPDX-License-Identifier: GPL-2.0
"""dcqcn_incast: DCQCN against PFC only, soft-RoCE incast.

  s1..s4 -> sw -> r     every link `line` Mb/s, PFC on RoCE's band 3
                        (XOFF 16 KB, sch_dcb's default delay, 1 MB
                        pool), RED 5 KB / 20 KB / 1 % on sw -> r

For each incast of `incasts` (N:1, N senders at once to r) with algo
dcqcn and with none (PFC only, no ECN: the paper's baseline):
ib_write_bw -D `duration` from s1..sN, per-sender rates from the rxe
counters (sent_pkts every 0.5 s) over the second half of the time all
ran, Jain's index of them, PAUSE frames, drops and CE marks of the
switch, and the rxe_cc_dcqcn tracepoint of the 4:1 dcqcn run (every
QP's R_C, R_T and alpha).  DCQCN runs at the defaults rxe_cc derives
from the line rate; the same 4:1 incast is test_85's, the 2:1
test_74's.

Raw files per run, in N-ALGO/: run.json, samples.txt, perftest's
outputs; 4-dcqcn/trace.txt, the tracepoint's events.  analyze() adds
trace-4.csv and trace-4.qps for the timeline plot.
"""

import os
import re

from .. import stats
from ..experiment import CpuGuard, Experiment, Param, load_run, log, save_run
from ._pfc import snap_json, snap_load
from .cmp_incast import BAND, CTRL_MAP, host_opts


class DcqcnIncast(Experiment):
    NAME = "dcqcn_incast"
    DESCRIPTION = ("DCQCN vs PFC only: 2:1 and 4:1 soft-RoCE incast, Jain, "
                   "PAUSE ratio, rate timeline")
    PARAMS = (
        Param("incasts", "4,2", "incasts to run (N senders to one "
              "receiver), in this order"),
        Param("line", 100, "line rate of every link and rxe device (Mb/s)"),
        Param("duration", 16, "ib_write_bw -D seconds per run"),
        Param("timeout_exp", 20, "ib_write_bw -u (transport timeout "
              "4.096 us * 2^N)"),
    )

    def incasts(self):
        return [int(n) for n in self.p["incasts"].split(",") if n]

    def runs(self):
        return ["%d-%s" % (n, a) for n in self.incasts()
                for a in ("dcqcn", "none")]

    def switch_opts(self):
        return "rate %smbit %s buffer 1mb pfc prio-pfc %d xoff 16kb" % (
            self.p["line"], CTRL_MAP, BAND)

    def run(self, out):
        from ..nodes import dcb_net
        from ..rdma import prepare
        from ._cmp import RateTrace

        n = max(self.incasts())
        net = dcb_net(out, ["dcqcn"])
        sw = net.addSwitch("sw", dcb=self.switch_opts())
        for h in ["s%d" % i for i in range(1, n + 1)] + ["r"]:
            net.addLink(net.addHost(h, dcb=host_opts("%smbit" %
                                                     self.p["line"])), sw)
        trace = RateTrace()
        try:
            net.start()
            prepare(net.hosts)
            self.resolve([net["s%d" % i] for i in range(1, n + 1)],
                         net["r"].IP())
            bott = sw.intf(str(sw.connectionsTo(net["r"])[0][0]))
            for run in self.runs():
                self.run_one(net, sw, bott, trace, run,
                             os.path.join(out, run))
            self.keep_raw(net)
        finally:
            trace.close()
            net.stop()

    def run_one(self, net, sw, bott, trace, run, d):
        from ..rdma import BASE_PORT, Perftest, Sampler, select

        os.makedirs(d, exist_ok=True)
        n, algo = run.split("-")
        senders = [net["s%d" % i] for i in range(1, int(n) + 1)]
        select(net.hosts, algo, self.p["line"])
        bott.setDcb(self.switch_opts() + (
            " ecn red kmin 5kb kmax 20kb pmax 0.01" if algo == "dcqcn"
            else " ecn off"))
        traced = run == "4-dcqcn"
        if traced:
            # every event, the alpha-only ones too (the timeline's alpha)
            trace.on("dcqcn", "0")
        before = stats.snapshot(sw)
        bw = Perftest(d, secs=int(self.p["duration"]),
                      u=int(self.p["timeout_exp"]))
        for i, h in enumerate(senders, 1):
            bw.add(h, net["r"], BASE_PORT + i)
        sampler = Sampler(os.path.join(d, "samples.txt"), senders, 0.5)
        guard = CpuGuard()
        try:
            bw.ready()
            sampler.start()
            guard.start()
            bw.start()
            log("%s:1 %s: clients started" % (n, algo))
            failed = bw.wait()
            busy = guard.check("%s:1 %s" % (n, algo))
        finally:
            bw.kill()
            guard.stop()
            sampler.stop()
            if traced:
                trace.save(os.path.join(d, "trace.txt"))
        after = stats.snapshot(sw)
        doc = {"run": run, "algo": algo, "hosts": [h.name for h in senders],
               "devs": {h.name: h.rxeDev() for h in senders},
               "port": str(bott), "cpu_busy": busy,
               "failed": [os.path.basename(f) for f in failed],
               "before": snap_json(before), "after": snap_json(after)}
        save_run(d, doc)
        log("%s: done, %d perftest failures" % (run, len(failed)))

    # ---------------------------------------------------------- metrics

    def analyze(self, out):
        from dcbanalysis import cmpmetrics
        from dcbanalysis.samples import read as read_samples

        rows = []
        for run in self.runs():
            d = os.path.join(out, run)
            doc = load_run(d)
            b, a = snap_load(doc["before"]), snap_load(doc["after"])

            def delta(key, band=None, devs=None):
                return a.total(key, band, devs) - b.total(key, band, devs)
            n, algo = run.split("-")
            scn = "dcqcn_incast %s:1" % n
            r = []
            v = cmpmetrics.shares(read_samples(os.path.join(d,
                                                            "samples.txt")))
            v = v.split()
            if v[0] != "NaN":
                r += [("flow_rate.f%d" % k, float(x), "Mbit/s")
                      for k, x in enumerate(v[3:], 1)]
                r.append(("jain", float(v[2]), "1"))
            # in_drops count at the ingress port what drops_headroom
            # counts where the packet was queued: once in the sum; WRED
            # drops are perftest's non-ECT TCP control packets
            r += [("pause_tx", delta("pause_tx", BAND), "frames"),
                  ("drops", delta("drops_headroom") + delta("drops_tail"),
                   "packets"),
                  ("drops_wred", delta("drops_wred"), "packets"),
                  ("ecn_marked", delta("ecn_marked", devs=[doc["port"]]),
                   "packets"),
                  ("flows_failed", len(doc["failed"]), "flows"),
                  ("cpu_busy", doc["cpu_busy"], "%")]
            rows += [t + (algo, scn) for t in r]
            if os.path.exists(os.path.join(d, "trace.txt")):
                self.timeline_files(out, d, doc)
        return rows

    @staticmethod
    def timeline_files(out, d, doc):
        """trace-4.csv, "t_s,qpn,rc_mbps,rt_mbps,alpha,ev,dev" (t from the
        first event, alpha on a 0..1 scale), and trace-4.qps, "host qpn
        dev" of each sender's QP (from perftest's output).  Events of one
        QP come from two CPUs (the CNP's softirq, the timers), and the
        trace orders events of equal time stamps by CPU: at equal time
        stamps a QP's CNP events go last (a cut restarts the increase
        timers, so an increase at the same microsecond came before)."""
        ev = []
        with open(os.path.join(d, "trace.txt")) as f:
            for line in f:
                m = re.search(r"([0-9]+\.[0-9]+): rxe_cc_dcqcn:(.*)", line)
                if not m:
                    continue
                kv = dict(w.split("=", 1) for w in m.group(2).split()
                          if "=" in w)
                ev.append((float(m.group(1)), "cnp" in kv.get("ev", ""),
                           kv))
        ev.sort(key=lambda e: (e[0], e[1]))
        t0 = ev[0][0] if ev else 0
        with open(os.path.join(out, "trace-4.csv"), "w") as f:
            for t, _, kv in ev:
                f.write("%.6f,%d,%.3f,%.3f,%.5f,%s,%s\n" % (
                    t - t0, int(kv["qpn"]), int(kv["rc_kbps"]) / 1000,
                    int(kv["rt_kbps"]) / 1000, int(kv["alpha"]) / 1048576,
                    kv["ev"], kv.get("dev", "")))
        with open(os.path.join(out, "trace-4.qps"), "w") as f:
            for h in doc["hosts"]:
                try:
                    with open(os.path.join(d, "bw-%s.cli" % h)) as c:
                        m = re.search(r"local address:.*QPN (0x[0-9a-fA-F]+)",
                                      c.read())
                except OSError:
                    m = None
                if m:
                    f.write("%s %d %s\n" % (h, int(m.group(1), 16),
                                            doc["devs"][h]))

    def plot(self, out):
        """throughput-N-ALGO.png: each sender's rate in every run, the fair
        share of the line dashed; timeline-4.png: R_C, R_T and alpha of the
        4:1 dcqcn run's QPs from the tracepoint."""
        from dcbanalysis import samples, timeline

        files = []
        line = float(self.p["line"])
        keys = ("line", "duration")
        trace = os.path.join(out, "trace-4.csv")
        qps = os.path.join(out, "trace-4.qps")
        if os.path.exists(trace) and os.path.exists(qps):
            png = os.path.join(out, "timeline-4.png")
            if timeline.plot(trace, timeline.read_qps(qps), png,
                             self.title("4:1, algo dcqcn: R_C (solid), "
                                        "R_T (dotted), alpha", keys),
                             line * 1024 / 1082 / 4):
                files.append(png)
        for run in self.runs():
            path = os.path.join(out, run, "samples.txt")
            n, _, algo = run.partition("-")
            png = os.path.join(out, "throughput-%s.png" % run)
            # the share of 1024-byte payloads in 1082-byte packets
            if os.path.exists(path) and samples.plot_flows(
                    path, png, ["s%d" % k for k in range(1, int(n) + 1)],
                    line * 1024 / 1082 / int(n),
                    self.title("%s:1, algo %s" % (n, algo), keys)):
                files.append(png)
        return files
