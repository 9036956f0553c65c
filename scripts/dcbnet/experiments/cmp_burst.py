# SPDX-License-Identifier: GPL-2.0
"""cmp_burst: PCN's concurrent burst (PCN section 3.1, scaled), run with
each algorithm of `algos` in one invocation:

  f0 --\\                    /-- r0
        s0 ------------- s1 --- r1     F0: f0 -> r0, F1: f1 -> r1 (long)
  f1 --/                 |  \\          burst: b1..bN -> r1 (short writes)
                        b1 .. bN

F0 and F1 (ib_write_bw -D, 64 KB writes) share s0 -> s1, half of it
each.  After `pre` seconds of both, the burst senders start at once,
each `burst_msgs` writes of `burst_size` bytes to r1; `post` seconds
after the burst's last completion the long flows are stopped (their -D
is an upper bound only: starting processes in a loaded TCG guest takes
seconds).  s1 -> r1 is congested; with PFC s1 pauses s0, whose port
toward s1 then holds F0 too, which never crosses s1 -> r1 (the victim).
The switch ports and algorithms of each run: _cmp.  Raw files per
algorithm in ALGO/ (_cmp.Cmp); analyze() adds ALGO/flows.csv (F0, F1
and the burst in Mbit/s per sampling interval, t = 0 at the burst's
start).
"""

import os
import time

from ..experiment import Param, log, wait_for
from ._cmp import COMMON_PARAMS, LONG_SIZE, SAMPLING_PARAMS, Cmp, color, \
    columns, host_opts, margin, num

REC_WIN = 1.0	# s: the window both long flows must stay fair over
REC_TOL = 0.2	# within 20 % of the fair share


class CmpBurst(Cmp):
    NAME = "cmp_burst"
    DESCRIPTION = ("PCN concurrent burst: long flows F0/F1 + a short burst "
                   "into r1, per algorithm (none dcqcn pcn ldcp)")
    PARAMS = COMMON_PARAMS + (
        Param("bursters", 3, "burst senders on s1"),
        Param("burst_msgs", 64, "RDMA WRITEs per burst sender"),
        Param("burst_size", 16384, "bytes per WRITE"),
        Param("pre", 1.5, "seconds of both long flows before the burst"),
        Param("post", 2, "seconds of the long flows after the burst (then "
              "they are stopped)"),
        Param("duration", 30, "long flows' longest duration (s, "
              "ib_write_bw -D; stopped earlier)"),
    ) + SAMPLING_PARAMS
    TITLE_KEYS = ("rate", "bursters", "burst_msgs", "burst_size")

    def build(self, net):
        n = int(self.p["bursters"])
        if n < 1:
            raise ValueError("bursters=%d" % n)
        s0, s1 = net.addSwitch("s0"), net.addSwitch("s1")
        net.addLink(s0, s1)
        opts = {"dcb": host_opts(self.mbps())}
        for h in ("f0", "f1"):
            net.addLink(net.addHost(h, **opts), s0)
        for h in ["r0", "r1"] + ["b%d" % i for i in range(1, n + 1)]:
            net.addLink(net.addHost(h, **opts), s1)

    def resolve_paths(self):
        net = self.net
        self.f = [net["f0"], net["f1"]]
        self.r = [net["r0"], net["r1"]]
        self.b = [net["b%d" % i]
                  for i in range(1, int(self.p["bursters"]) + 1)]
        self.resolve([self.f[0]], self.r[0].IP())
        self.resolve([self.f[1]] + self.b, self.r[1].IP())

    def run_algo(self, algo, d, k):
        from ..rdma import BASE_PORT, Perftest, Sampler, hw, hw_sum

        p, net = self.p, self.net
        s0, s1 = net["s0"], net["s1"]
        senders = self.f + self.b
        secs = p["duration"]
        base = BASE_PORT + 20 * k
        before = self.snapshots()
        retry0 = hw_sum(senders, "completer_retry_err")
        long = Perftest(d, size=LONG_SIZE, secs=secs, limit=margin(secs))
        burst = Perftest(d, size=int(p["burst_size"]),
                         iters=int(p["burst_msgs"]),
                         limit=margin(secs, 90))
        long.add(self.f[0], self.r[0], base)
        long.add(self.f[1], self.r[1], base + 1)
        for i, h in enumerate(self.b):
            burst.add(h, self.r[1], base + 2 + i)
        burst.ready()
        f0s, f1s = hw(self.f[0], "sent_pkts"), hw(self.f[1], "sent_pkts")
        mon = sampler = guard = None
        try:
            mon = self.monitor(d, [
                ("s0-s1",) + self.port(s0, s1),
                ("s1-r1",) + self.port(s1, self.r[1]),
                ("s1-r0",) + self.port(s1, self.r[0])])
            sampler = Sampler(os.path.join(d, "samples.txt"), senders,
                              p["interval"])
            sampler.start()
            guard = self.guard()
            long.start(together=True)
            # both long flows running, then the pre-burst window
            for h, s in ((self.f[0], f0s), (self.f[1], f1s)):
                try:
                    wait_for(lambda: hw(h, "sent_pkts") >= s + 200, 60,
                             "%s's flow to start" % h.name)
                except RuntimeError as e:
                    log("%s: %s" % (algo, e))
            time.sleep(float(p["pre"]))
            log("%s: burst: %d x %s x %s B -> r1"
                % (algo, len(self.b), p["burst_msgs"], p["burst_size"]))
            burst.start(together=True)
            bfail = burst.wait()
            busy = guard.check("%s: long flows and burst" % algo)
            log("%s: burst done (%d failed); %s s after it"
                % (algo, len(bfail), p["post"]))
            time.sleep(float(p["post"]))
            lfail = long.end()
            self.keep_counters(d)
        finally:
            long.kill()
            burst.kill()
            for x in (guard, sampler, mon):
                if x is not None:
                    x.stop()
        failed = [os.path.basename(f) for f in bfail + lfail]
        self.write_run(d, algo, {
            "hosts": [h.name for h in senders], "cpu_busy": busy,
            "failed": len(failed), "failed_outputs": failed,
            "retry": hw_sum(senders, "completer_retry_err") - retry0,
            "before": before, "after": self.snapshots()})
        if failed:
            log("%s: perftest failed: %s (see %s)"
                % (algo, " ".join(failed), d))

    # ---------------------------------------------------------- metrics

    def algo_rows(self, d):
        from dcbanalysis import cmpmetrics
        from dcbanalysis.samples import read as read_samples

        doc = self.load(d)
        m = dict(cmpmetrics.burst(read_samples(os.path.join(d,
                                                            "samples.txt")),
                                  os.path.join(d, "flows.csv"), REC_WIN,
                                  REC_TOL))
        if "error" in m:
            log("%s: %s" % (d, m["error"]))
        out = []
        for f in ("f0", "f1"):
            for w in ("pre", "burst", "post"):
                out.append(("rate_%s.%s" % (w, f), num(m, "%s_%s" % (f, w)),
                            "Mbit/s"))
        out += [
            ("burst_rate", num(m, "burst_mbps"), "Mbit/s"),
            ("burst_time", num(m, "burst_s"), "s"),
            ("victim_keep", num(m, "f0_keep"), "1"),
            ("jain_post", num(m, "jain_post"), "1"),
            ("recovery", num(m, "recovery_s"), "s"),
            ("recovery_share", num(m, "recovery_share_s"), "s"),
        ]
        out += self.queue_rows(d, "s1-r1")
        out += self.queue_rows(d, "s0-s1", ".s0-s1")
        out += self.counter_rows(doc)
        return [r for r in out if r[1] == r[1]]	# NaN: not measured

    # ---------------------------------------------------------- plots

    def plot(self, out):
        """throughput-ALGO.png (F0, F1 and the burst, t = 0 at the
        burst's start) and f0.png (the victim F0 under every
        algorithm)."""
        from dcbanalysis import plots

        self.analyze(out)
        files = self.throughput_plots(
            out, "F0, F1 and the burst (t = 0: burst start)")
        lines = []
        for a in self.settings():
            c = columns(os.path.join(out, a, "flows.csv"))
            if c and "F0" in c:
                lines.append((a, c["t_s"], c["F0"]) + color(a))
        if lines:
            f = os.path.join(out, "f0.png")
            plots.series(f, lines, self.title(
                "F0 (the victim) per algorithm, t = 0: burst start"),
                "sent (Mbit/s of payload)")
            files.append(f)
        return files
