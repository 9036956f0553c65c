# SPDX-License-Identifier: GPL-2.0
"""cmp_converge: PCN Fig. 11, scaled: `flows` long flows s1..sN -> sw ->
r (ib_write_bw -D duration, 64 KB writes) start together at the line
rate into the port sw -> r, run with each algorithm of `algos` in one
invocation.  Measured per algorithm: the time until the sum of the
algorithm's rates is at most 1.1 x the line rate (pcn and dcqcn, from
their rate tracepoints, _cmp.RateTrace), the time until the port's
queue drains, per-flow throughput and Jain's index over the second half,
PAUSE frames, drops.  The switch ports and algorithms of each run: _cmp.
Raw files per algorithm in ALGO/ (_cmp.Cmp), with trace.txt (pcn,
dcqcn); analyze() adds ALGO/flows.csv (each flow in Mbit/s per sampling
interval, t = 0 at the first packet of any).
"""

import os

from ..experiment import Param, log
from ._cmp import COMMON_PARAMS, LONG_SIZE, SAMPLING_PARAMS, Cmp, \
    RateTrace, color, host_opts, margin, num

DRAIN_WIN = 1.0		# s: the window the settled queue's mean is over


class CmpConverge(Cmp):
    NAME = "cmp_converge"
    DESCRIPTION = ("long-flow convergence: N flows start at line rate into "
                   "one port, per algorithm (none dcqcn pcn ldcp)")
    PARAMS = COMMON_PARAMS + (
        Param("flows", 3, "long flows (senders)"),
        Param("duration", 5, "flows' duration (s, ib_write_bw -D)"),
        Param("drain_kb", 4, "the queue is drained when its mean over 1 s "
              "is below this (KB)"),
        Param("peak_s", 2, "the queue's initial peak: its largest backlog "
              "this long after it first passed drain_kb (s)"),
    ) + SAMPLING_PARAMS
    TITLE_KEYS = ("flows", "rate", "duration")

    def build(self, net):
        n = int(self.p["flows"])
        if n < 1:
            raise ValueError("flows=%d" % n)
        sw = net.addSwitch("sw")
        for h in ["s%d" % i for i in range(1, n + 1)] + ["r"]:
            net.addLink(net.addHost(h, dcb=host_opts(self.mbps())), sw)

    def resolve_paths(self):
        net = self.net
        self.senders = [net["s%d" % i]
                        for i in range(1, int(self.p["flows"]) + 1)]
        self.r = net["r"]
        self.resolve(self.senders, self.r.IP())

    def run_algo(self, algo, d, k):
        from ..rdma import BASE_PORT, Perftest, Sampler, hw_sum

        p, sw, senders = self.p, self.net["sw"], self.senders
        secs = p["duration"]
        before = self.snapshots()
        retry0 = hw_sum(senders, "completer_retry_err")
        bw = Perftest(d, size=LONG_SIZE, secs=secs, limit=margin(secs))
        for i, h in enumerate(senders):
            bw.add(h, self.r, BASE_PORT + 20 * k + i)
        traced = algo in RateTrace.EVENTS
        if traced:
            self.trace.on(algo)
        mon = sampler = guard = None
        try:
            mon = self.monitor(d, [("bottleneck",) + self.port(sw, self.r)])
            sampler = Sampler(os.path.join(d, "samples.txt"), senders,
                              p["interval"])
            sampler.start()
            guard = self.guard()
            bw.start(together=True)
            log("%s: %d flows started" % (algo, len(senders)))
            failed = bw.wait()
            busy = guard.check("%s: %d flows" % (algo, len(senders)))
            self.keep_counters(d)
        finally:
            bw.kill()
            for x in (guard, sampler, mon):
                if x is not None:
                    x.stop()
            if traced:
                self.trace.save(os.path.join(d, "trace.txt"))
        doc = {"hosts": [h.name for h in senders], "cpu_busy": busy,
               "failed": len(failed),
               "failed_outputs": [os.path.basename(f) for f in failed],
               "retry": hw_sum(senders, "completer_retry_err") - retry0,
               "before": before, "after": self.snapshots(),
               "devs": [h.rxeDev() for h in senders],
               "line_kbps": self.mbps() * 1000}
        if traced:
            # a pcn flow starts one period T before its first event, its
            # first CNP (the NP's first period opens with its first
            # packet); a dcqcn flow's first CNP comes after a queue
            # build-up of a few packets at line rate, taken as 0
            event, field, _ = RateTrace.EVENTS[algo]
            per = int(senders[0].getCc("pcn/period_us")) \
                if algo == "pcn" else 0
            doc.update({"event": event.split("/")[1], "field": field,
                        "lead_us": per, "period_us": per})
        self.write_run(d, algo, doc)
        if failed:
            log("%s: perftest failed: %s (see %s)"
                % (algo, " ".join(doc["failed_outputs"]), d))

    # ---------------------------------------------------------- metrics

    def algo_rows(self, d):
        from dcbanalysis import cmpmetrics
        from dcbanalysis.samples import read as read_samples

        doc = self.load(d)
        samples = read_samples(os.path.join(d, "samples.txt"))
        n = len(doc["hosts"])
        out = []
        sh = cmpmetrics.shares(samples).split()
        for k, x in enumerate(sh[3:], 1):
            out.append(("rate_late.f%d" % k, float(x), "Mbit/s"))
        out.append(("jain", float(sh[2]), "1"))
        m = dict(cmpmetrics.flows(samples, n, os.path.join(d, "flows.csv")))
        out += [("total_rate", num(m, "total_mbps"), "Mbit/s"),
                ("active", num(m, "active_s"), "s")]
        out += self.queue_rows(d, "bottleneck")
        m = dict(cmpmetrics.drain(
            self.port_rows(d, "bottleneck"),
            float(self.p["drain_kb"]) * 1024, DRAIN_WIN,
            float(self.p["peak_s"])))
        out += [("queue_peak0", num(m, "peak0_kb"), "KB"),
                ("drain", num(m, "drain_s"), "s"),
                ("settle", num(m, "settle_s"), "s")]
        if "event" in doc:
            m = dict(cmpmetrics.converge(
                os.path.join(d, "trace.txt"), doc["devs"], doc["line_kbps"],
                doc["event"], doc["field"], doc["lead_us"],
                doc["period_us"]))
            out += [("converge", num(m, "converge_s"), "s"),
                    ("converge_periods", num(m, "converge_periods"),
                     "periods")]
        out += self.counter_rows(doc)
        return [r for r in out if r[1] == r[1]]	# NaN: not measured

    # ---------------------------------------------------------- plots

    def plot(self, out):
        """throughput-ALGO.png (each flow) and queue.png (the bottleneck's
        backlog under every algorithm, dcbmon's clock)."""
        from dcbanalysis import plots

        self.analyze(out)
        files = self.throughput_plots(out, "flows into one port")
        lines = []
        for a in self.settings():
            d = os.path.join(out, a)
            if not os.path.exists(os.path.join(d, "dcbmon.csv")):
                continue
            rows = self.port_rows(d, "bottleneck")
            if rows:
                lines.append((a, [r[0] for r in rows],
                              [r[1] / 1024 for r in rows]) + color(a))
        if lines:
            f = os.path.join(out, "queue.png")
            plots.series(f, lines, self.title(
                "bottleneck backlog per algorithm"), "backlog (KB)")
            files.append(f)
        return files
