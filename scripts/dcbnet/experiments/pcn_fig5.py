# SPDX-License-Identifier: GPL-2.0
"""pcn_fig5: PCN paper Fig. 5 (section 4.1), scaled: a flow sent no
faster than its receiving rate triggers no PAUSE, and then spares the
flows it shares its upstream link with.

  f0 --\\                  /-- r0      F0: f0 -> r0 at its fair share
        s0 ------------ s1 --- r1     F1: f1 -> r1, swept down step by step
  f1 --/                  |           b1..b3 -> r1 at line rate (the
                       b1 b2 b3        "uncontrollable bursts")

PFC only (no ECN, no congestion control: iperf3 UDP senders at fixed
rates, as the paper's rate limiters).  r1's port is congested; F1's
packets queue at s1's ingress from s0 (the paper's p1/S1) while F1 sends
faster than it receives, that port pauses s0, and F0, which crosses no
congested port, loses throughput.  One step of `step_s` seconds per F1
rate of `f1_shares`; per step: F0's and F1's sending and receiving
rates, the bursters' sum, PAUSE frames from s1's port toward s0 per
second, and the share of the step s0's port toward s1 was held by PAUSE.
F0's and F1's rates are fractions of the line rate C, the paper's 0.5 C
for F0 and its sweep of F1 from 0.5 C down.

Scaling: F1's bytes at s1's ingress are F1's rate times the queueing
delay of r1's port, whose queue the n ingress ports feeding it (F1's and
the bursters') can fill to XOFF + headroom each: F1 pauses s0 when
F1 / C > XOFF / (n (XOFF + H)).  In the paper H (22.4 KB, 4.5 us at
40 Gb/s) is small against the queue a rate mismatch builds, so the
threshold is F1's receiving rate C / n; sch_dcb's headroom (2 MTU + C x
its default delay of 5 ms, 64 KB at 100 Mb/s) is not, so XOFF is made
large against it: XOFF = 4 H, 256 KB at 100 Mb/s, puts the threshold at
0.8 C / n (F1 at 0.2 C with the three bursters).  The pool holds the six
ports' headrooms and the four loaded ingress ports' XOFF.

Raw files: steps.tsv (one row per step, from iperf3's reports and the
ports' counters), the reports of every step, qdisc.txt, dcbmon.csv and
ports.tsv (s1 toward s0 and r1, s0 toward s1).
"""

import csv
import os

from .. import stats
from ..experiment import CpuGuard, Experiment, Param, log
from ..iperf import Iperf, received_bps
from ._knobs import budget, dcbmon_ms, line_rate, pool, udp_pkt, xoff
from ._pfc import BAND, rate_bps

COLS = ("f1_send_mbps", "f1_rx_mbps", "f0_send_mbps", "f0_rx_mbps",
        "burst_rx_mbps", "pause_tx", "pause_per_s", "s0_held")


class PcnFig5(Experiment):
    NAME = "pcn_fig5"
    DESCRIPTION = ("PCN Fig. 5: PAUSEs from the congested path vs the "
                   "victim's throughput as F1's sending rate is swept (UDP, "
                   "PFC only)")
    PARAMS = (
        line_rate(),
        Param("f0_share", 0.5, "F0's sending rate, a fraction of the line "
              "rate: its fair share of s0 -> s1"),
        Param("f1_shares", "0.5,0.4,0.3,0.25,0.2,0.15,0.1,0.05",
              "F1's sending rates (fractions of the line rate), one step "
              "each, in this order"),
        Param("bursters", 3, "senders b1..bN at line rate into r1"),
        pool("2mb"),
        xoff("256kb", "4 x the headroom (see above)"),
        Param("delay", "5ms", "PAUSE response time the headroom is sized "
              "for (sch_dcb's default)"),
        udp_pkt(),
        Param("step_s", 8, "seconds of traffic per step"),
        budget(200),
        dcbmon_ms(20),
        Param("report_interval", 0.5, "iperf3 interval (s)"),
    )

    def switch_opts(self):
        p = self.p
        return ("rate %s dscp-map 0:7 buffer %s pfc prio-pfc %d xoff %s "
                "delay %s" % (p["rate"], p["buffer"], BAND, p["xoff"],
                              p["delay"]))

    def host_opts(self):
        # limit above the socket send buffer: a paused sender blocks
        return "rate %s dscp-map 0:7 limit 2mb" % self.p["rate"]

    def run(self, out):
        from ..nodes import dcb_net

        nb = int(self.p["bursters"])
        net = dcb_net(out, rxe=False)
        s0 = net.addSwitch("s0", dcb=self.switch_opts())
        s1 = net.addSwitch("s1", dcb=self.switch_opts())
        net.addLink(s0, s1)
        for h, sw in [("f0", s0), ("f1", s0), ("r0", s1), ("r1", s1)] + \
                [("b%d" % i, s1) for i in range(1, nb + 1)]:
            net.addLink(net.addHost(h, dcb=self.host_opts()), sw)
        with open(os.path.join(out, "qdisc.txt"), "w") as f:
            f.write("switch ports: %s\nhost NICs: %s\n"
                    % (self.switch_opts(), self.host_opts()))
        try:
            net.start()
            self.resolve([net["f0"]], net["r0"].IP())
            self.resolve([net["f1"]] + [net["b%d" % i]
                                        for i in range(1, nb + 1)],
                         net["r1"].IP())
            port = {"s1-s0": (s1, str(s1.connectionsTo(s0)[0][0])),
                    "s1-r1": (s1, str(s1.connectionsTo(net["r1"])[0][0])),
                    "s0-s1": (s0, str(s0.connectionsTo(s1)[0][0]))}
            mon = stats.Monitor(out, [(k, n, d) for k, (n, d) in
                                      port.items()],
                                int(self.p["interval_ms"]))
            mon.start()
            try:
                with open(os.path.join(out, "steps.tsv"), "w") as f:
                    w = csv.writer(f, delimiter="\t", lineterminator="\n")
                    w.writerow(COLS)
                    for k, share in enumerate(
                            self.p["f1_shares"].split(","), 1):
                        w.writerow(self.step(net, port, out, k,
                                             float(share)))
                        f.flush()
            finally:
                mon.stop()
            self.keep_raw(net)
        finally:
            net.stop()

    def step(self, net, port, out, k, f1_share):
        """One step: steps.tsv's row."""
        p, nb = self.p, int(self.p["bursters"])
        c = rate_bps(p["rate"])
        f0, f1 = float(p["f0_share"]) * c, f1_share * c
        secs = float(p["step_s"])
        base = 5500 + 10 * k
        ip = Iperf(out, secs + 90, p["report_interval"])
        ip.server(net["r0"], base)
        for i in range(1, nb + 2):
            ip.server(net["r1"], base + i)
        ip.ready()
        flows = [("f0", "r0", base, f0), ("f1", "r1", base + 1, f1)] + \
            [("b%d" % i, "r1", base + 1 + i, c) for i in range(1, nb + 1)]
        for src, dst, q, bps in flows:
            ip.client(net[src], net[dst], q, p["step_s"], bps, p["pkt"],
                      "0x60")

        def held():
            a = stats.snapshot(port["s1-s0"][0])
            b = stats.snapshot(port["s0-s1"][0])
            return (a.get(port["s1-s0"][1], "pause_tx", BAND),
                    b.get(port["s0-s1"][1], "paused_us", BAND))
        pause0, held0 = held()
        log("step %d: F0 %g Mb/s, F1 %g Mb/s, %d bursters at %s, %s s"
            % (k, f0 / 1e6, f1 / 1e6, nb, p["rate"], p["step_s"]))
        guard = CpuGuard()
        try:
            guard.start()
            ip.go()
            ip.wait()
            guard.check("step %d" % k)
        finally:
            guard.stop()
            ip.close()
        pause1, held1 = held()
        rx = {q: received_bps(ip.path("server", q)) / 1e6
              for _, _, q, _ in flows}
        dp = pause1 - pause0
        row = ["%g" % (f1 / 1e6), "%.3f" % rx[base + 1], "%g" % (f0 / 1e6),
               "%.3f" % rx[base], "%.3f" % sum(rx[base + 1 + i]
                                              for i in range(1, nb + 1)),
               "%d" % dp, "%.2f" % (dp / secs),
               "%.4f" % ((held1 - held0) / (secs * 1e6))]
        log("step %d: %s" % (k, " ".join(row)))
        return row

    # ---------------------------------------------------------- metrics

    def steps(self, d):
        path = os.path.join(d, "steps.tsv")
        if not os.path.exists(path):
            return []
        with open(path, newline="") as f:
            return [{k: float(v) for k, v in r.items()}
                    for r in csv.DictReader(f, delimiter="\t")]

    def analyze(self, d):
        """Each step's values with the step in the qualifier, ``@f1=RATE``
        (F1's sending rate in Mbit/s): goodput.F0@f1=50, ..."""
        out = []
        for r in self.steps(d):
            at = "@f1=%g" % r["f1_send_mbps"]
            out += [
                ("goodput.F0" + at, r["f0_rx_mbps"], "Mbit/s"),
                ("goodput.F1" + at, r["f1_rx_mbps"], "Mbit/s"),
                ("goodput.bursts" + at, r["burst_rx_mbps"], "Mbit/s"),
                ("pause_rate.s1-s0" + at, r["pause_per_s"], "1/s"),
                ("paused_share.s0-s1" + at, r["s0_held"], "1"),
            ]
        return out

    def plot(self, d):
        """rates.png (F0's and F1's receiving rates against F1's sending
        rate, F0's sending rate dashed) and pause.png (PAUSE frames per
        second from s1's port toward s0)."""
        from dcbanalysis import plots

        steps = self.steps(d)
        if not steps:
            return []
        keys = ("rate", "f0_share", "bursters", "xoff", "delay", "step_s")
        x = [r["f1_send_mbps"] for r in steps]
        f = os.path.join(d, "rates.png")
        plots.series(f, [
            ("F1 sent", x, x),
            ("F1 received", x, [r["f1_rx_mbps"] for r in steps]),
            ("F0 received (victim)", x, [r["f0_rx_mbps"] for r in steps]),
        ], self.title("receiving rates as F1's sending rate is swept", keys),
            "Mbit/s",
            xlabel="F1's sending rate (Mbit/s)",
            hline=steps[0]["f0_send_mbps"] or None, hline_label="F0 sent")
        g = os.path.join(d, "pause.png")
        plots.series(g, [
            ("PAUSE frames/s s1 -> s0", x, [r["pause_per_s"] for r in steps]),
        ], self.title("PAUSEs from the congested path", keys),
            "PAUSE frames per second",
            xlabel="F1's sending rate (Mbit/s)")
        return [f, g]
