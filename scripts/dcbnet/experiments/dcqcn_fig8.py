# SPDX-License-Identifier: GPL-2.0
"""dcqcn_fig8: PFC's unfairness and the victim flow, then DCQCN (DCQCN
paper Fig. 3 -> Fig. 8 and Fig. 4 -> Fig. 9).

  h1 ----------- sw1 ---- r     (congested: sw1 -> r, 100 Mb/s)
                 / |
  h2 h3 h4 v - sw2  vr          (trunk sw2 <-> sw1: 400 Mb/s)

Host links 100 Mb/s, PFC on RoCE's band 3 everywhere, RED on sw1 -> r in
the dcqcn run.  h1..h4 send to r (ib_write_bw -D); v sends to vr over
the trunk and never crosses the congested port.  Runs (`runs`): alone, v
by itself; none, the incast with v under algo none (PFC only: sw1 pauses
the trunk, h1 gets about half of the bottleneck, v is slowed); dcqcn,
the same with DCQCN.

XOFF 96 KB: ECN must act before PFC (DCQCN section 3: the PFC threshold
above RED's Kmax), and it counts per ingress port, where sw1's port from
the trunk carries three of the four senders: at 16 KB the dcqcn run sent
thousands of PAUSE frames; at 48 KB DCQCN's overshoots (the queue peaks
at 40-60 KB when the four flows increase together) still crossed it in
two of five runs.  A transport timeout of 2.1 s (-u 19): PFC alone holds
v behind the paused trunk for long stretches, and a shorter timeout
retransmits while the originals are still queued; the responder then
NAKs an invalid request (dcqcn.rst).  Nothing is lost under PFC: a long
timeout costs nothing.

Raw files per run, in RUN/: run.json (algo, flows, seconds, switch
counters before and after, failures, the CPU guard), samples.txt (each
flow's sent_pkts every 0.5 s), perftest's outputs.  Rows per run: each
flow's rate over the second half of the time all ran (rate_late.F, and
rate_alone.v for alone), the window, Jain's index of h1..h4, PAUSE
frames and their rate, drops (WRED drops of perftest's non-ECT TCP
control packets apart), h1's rate over the others' (Fig. 3) and v's
share of its rate alone (Fig. 9).
"""

import os

from .. import stats
from ..experiment import CpuGuard, Experiment, Param, load_run, log, save_run
from ._knobs import xoff
from ._pfc import snap_json, snap_load
from .cmp_incast import BAND, CTRL_MAP, host_opts

LINE = 100			# Mb/s of the host links; the trunk 4 x
FLOWS = ("h1", "h2", "h3", "h4", "v")
RUNS = {"alone": ("dcqcn", ("v",)), "none": ("none", FLOWS),
        "dcqcn": ("dcqcn", FLOWS)}


class DcqcnFig8(Experiment):
    NAME = "dcqcn_fig8"
    DESCRIPTION = ("DCQCN Fig. 3/8/9: PFC unfairness and victim flow, none "
                   "vs dcqcn, table and plots")
    PARAMS = (
        Param("runs", "alone,none,dcqcn", "runs, in this order (alone: v "
              "by itself; none, dcqcn: the incast with v)"),
        Param("duration", 16, "ib_write_bw -D seconds of the dcqcn incast "
              "run"),
        Param("none", 6, "ib_write_bw -D seconds of the PFC-only incast "
              "run"),
        Param("alone", 3, "ib_write_bw -D seconds of v alone"),
        Param("t_us", "auto", "DCQCN T (rpg_time_reset), us; auto: derived "
              "(2.2 ms at 100 Mb/s)"),
        Param("k_us", "auto", "DCQCN K (dce_tcp_rtt), us; auto: derived, "
              "above the CNP interval N"),
        Param("knobs", "", "more DCQCN knobs, KNOB=VALUE,... (cc/dcqcn/)"),
        xoff("96kb", "above RED's kmax 20 KB"),
        Param("timeout_exp", 19, "ib_write_bw -u (transport timeout "
              "4.096 us * 2^N)"),
    )

    def runs(self):
        out = [r for r in self.p["runs"].split(",") if r]
        for r in out:
            if r not in RUNS:
                raise ValueError("runs: unknown run '%s' (%s)"
                                 % (r, ", ".join(RUNS)))
        return out

    def secs(self, run):
        return int(self.p["duration" if run == "dcqcn" else run])

    def dcqcn_knobs(self):
        kv = [("rpg_time_reset", self.p["t_us"]),
              ("dce_tcp_rtt", self.p["k_us"])]
        kv = [(k, v) for k, v in kv if v != "auto"]
        for a in self.p["knobs"].split(","):
            if a:
                k, eq, v = a.partition("=")
                if not eq:
                    raise ValueError("knobs: want KNOB=VALUE, not '%s'" % a)
                kv.append((k, v))
        return kv

    def port_opts(self, rate):
        return "rate %dmbit %s buffer 2mb pfc prio-pfc %d xoff %s" % (
            rate, CTRL_MAP, BAND, self.p["xoff"])

    def run(self, out):
        from ..nodes import dcb_net
        from ..rdma import prepare

        net = dcb_net(out, ["dcqcn"])
        sw = self.port_opts(LINE)
        sw1 = net.addSwitch("sw1", dcb=sw)
        sw2 = net.addSwitch("sw2", dcb=sw)
        trunk = self.port_opts(4 * LINE)
        net.addLink(sw2, sw1, dcb1=trunk, dcb2=trunk)
        for h, s in (("r", sw1), ("vr", sw1), ("h1", sw1), ("h2", sw2),
                     ("h3", sw2), ("h4", sw2), ("v", sw2)):
            net.addLink(net.addHost(h, dcb=host_opts("%dmbit" % LINE)), s)
        try:
            net.start()
            prepare(net.hosts)
            self.resolve([net[f] for f in FLOWS[:4]], net["r"].IP())
            self.resolve([net["v"]], net["vr"].IP())
            bott = sw1.intf(str(sw1.connectionsTo(net["r"])[0][0]))
            for run in self.runs():
                self.run_one(net, bott, run, os.path.join(out, run))
            self.keep_raw(net)
        finally:
            net.stop()

    def run_one(self, net, bott, run, d):
        from ..rdma import BASE_PORT, Perftest, Sampler, select

        os.makedirs(d, exist_ok=True)
        algo, flows = RUNS[run]
        select(net.hosts, algo, LINE, [("dcqcn/" + k, v) for k, v in
                                       self.dcqcn_knobs()]
               if algo == "dcqcn" else [])
        bott.setDcb(self.port_opts(LINE) + (
            " ecn red kmin 5kb kmax 20kb pmax 0.01" if algo == "dcqcn"
            else " ecn off"))
        switches = [net["sw1"], net["sw2"]]
        before = {s.name: snap_json(stats.snapshot(s)) for s in switches}
        bw = Perftest(d, secs=self.secs(run), u=int(self.p["timeout_exp"]))
        for i, f in enumerate(flows, 1):
            bw.add(net[f], net["vr" if f == "v" else "r"], BASE_PORT + i)
        sampler = Sampler(os.path.join(d, "samples.txt"),
                          [net[f] for f in flows], 0.5)
        guard = CpuGuard()
        try:
            bw.ready()
            sampler.start()
            guard.start()
            bw.start()
            log("%s (%s): %s for %d s" % (run, algo, " ".join(flows),
                                           self.secs(run)))
            failed = bw.wait()
            busy = guard.check("%s: %d flows" % (run, len(flows)))
        finally:
            bw.kill()
            guard.stop()
            sampler.stop()
        after = {s.name: snap_json(stats.snapshot(s)) for s in switches}
        doc = {"run": run, "algo": algo, "flows": list(flows),
               "secs": self.secs(run), "cpu_busy": busy,
               "knobs": dict(self.dcqcn_knobs()) if algo == "dcqcn" else {},
               "failed": [os.path.basename(f) for f in failed],
               "before": before, "after": after}
        save_run(d, doc)
        log("%s: done, %d perftest failures" % (run, len(failed)))

    # ---------------------------------------------------------- metrics

    def shares(self, d):
        """({flow: Mb/s over the second half}, window s) of run folder @d,
        ({}, None) when the flows did not overlap long enough."""
        from dcbanalysis import cmpmetrics
        from dcbanalysis.samples import read as read_samples

        flows = load_run(d)["flows"]
        v = cmpmetrics.shares(read_samples(os.path.join(d, "samples.txt")))
        v = v.split()
        if v[0] == "NaN":
            return {}, None
        return dict(zip(flows, (float(x) for x in v[3:]))), \
            float(v[1]) - float(v[0])

    def analyze(self, out):
        from dcbanalysis.fairness import jain

        rows, rate = [], {}
        for run in self.runs():
            d = os.path.join(out, run)
            doc = load_run(d)
            b = {k: snap_load(v) for k, v in doc["before"].items()}
            a = {k: snap_load(v) for k, v in doc["after"].items()}

            def delta(key, band=None):
                return sum(a[n].total(key, band) - b[n].total(key, band)
                           for n in a)
            x, window = self.shares(d)
            rate[run] = x
            r = []
            if window is not None:
                r.append(("window", window, "s"))
            for f, v in x.items():
                r.append(("rate_alone." + f if run == "alone" else
                          "rate_late." + f, v, "Mbit/s"))
            h = [x.get(f) for f in FLOWS[:4]]
            if None not in h:
                r.append(("jain", jain(h) or 0, "1"))
                if sum(h[1:]) > 0:
                    r.append(("h1_ratio", h[0] * 3 / sum(h[1:]), "1"))
            pause = delta("pause_tx", BAND)
            # in_drops count at the ingress port what drops_headroom
            # counts where the packet was queued: once in the sum
            r += [("pause_tx", pause, "frames"),
                  ("pause_rate", pause / doc["secs"], "1/s"),
                  ("drops", delta("drops_headroom") + delta("drops_tail"),
                   "packets"),
                  ("drops_wred", delta("drops_wred"), "packets"),
                  ("flows_failed", len(doc["failed"]), "flows"),
                  ("cpu_busy", doc["cpu_busy"], "%")]
            rows += [t + (run,) for t in r]
        alone = rate.get("alone", {}).get("v")
        for run in ("none", "dcqcn"):
            if alone and "v" in rate.get(run, {}):
                rows.append(("victim_share", rate[run]["v"] / alone, "1",
                             run))
        return rows

    def plot(self, out):
        """throughput-RUN.png: each flow's rate in every run, h1..h4's
        fair share of the bottleneck dashed."""
        from dcbanalysis import samples

        files = []
        for run in self.runs():
            path = os.path.join(out, run, "samples.txt")
            png = os.path.join(out, "throughput-%s.png" % run)
            if os.path.exists(path) and samples.plot_flows(
                    path, png, list(RUNS[run][1]), LINE * 1024 / 1082 / 4,
                    self.title("run %s" % run,
                               ("duration", "none", "t_us", "xoff"))):
                files.append(png)
        return files
