# SPDX-License-Identifier: GPL-2.0
"""pfc_tree: a congestion tree and its victim (DCQCN paper Fig. 4, PCN
Fig. 1).

    s1 s2 s3  v                 s4 s5
     \\  |  | /                   | /
        sw1 ------------------- sw2 ---- r     (congested: sw2 -> r)
                                  \\
                                   vr          (the victim's receiver)

Two routing switches (dcbnet routes across them); every switch port and
host NIC is sch_dcb shaped to the line rate, data on DSCP 24 (band 3),
PFC on band 3.  The victim v -> vr never crosses the congested port
sw2 -> r, but shares sw1's port toward sw2, which sw2 pauses; sw1 then
pauses its hosts, v too.  The senders are tools/udpflow at line rate
(back to back on a blocking socket) until stopped; tc flower rules at
vr and r count what arrives.  Two windows of `window` seconds: the
victim alone (once its flow arrives), then beside s1..s5 -> r (once v
was paused, or after 30 s).

Raw files: run.json (the knobs, datagrams per sink port in each window
and the windows' lengths, the CPU guard's share, every node's sch_dcb
statistics before and after, the switch ports of each hop, softnet
drops), dcbmon.csv and ports.tsv (series of the hops the plots draw).
"""

import os
import time

from .. import stats
from ..experiment import CpuGuard, Experiment, Param, load_run, log, wait_for
from ._knobs import dcbmon_ms
from . import _pfc
from ._pfc import BAND, UDP_OVERHEAD

VICTIM_PORT = 7001
INCAST_PORT = 7010	# + i for s<i>
LEFT = ("s1", "s2", "s3", "v")		# behind sw1
RIGHT = ("s4", "s5", "r", "vr")		# behind sw2
SENDERS = ("s1", "s2", "s3", "s4", "s5")


class PfcTree(Experiment):
    NAME = "pfc_tree"
    DESCRIPTION = ("PFC congestion tree: PAUSE spreads sw2 -> sw1 -> hosts; "
                   "a victim flow loses throughput")
    PARAMS = _pfc.FABRIC_PARAMS + (
        Param("window", 2, "seconds of each measurement window (the "
              "victim alone, then beside the incast)"),
        dcbmon_ms(50, "0: no series; each sample stalls the guest's "
                  "forwarding a while"),
    )
    TITLE_KEYS = ("rate", "pfc", "xoff", "delay", "window")

    def run(self, out):
        def build(net, sw1, sw2, hopts):
            net.addLink(sw1, sw2)
            for names, sw in ((LEFT, sw1), (RIGHT, sw2)):
                for h in names:
                    net.addLink(net.addHost(h, dcb=hopts), sw)
        _pfc.run_two_switches(self, out, build, self._tree)

    def hops(self, net):
        """{hop: (node, dev)}: "sw2-sw1" is sw2's port toward sw1,
        "nic-v" v's NIC."""
        sw1, sw2 = net["sw1"], net["sw2"]
        hops = {"sw2-sw1": (sw2, sw2.connectionsTo(sw1)[0][0]),
                "sw1-sw2": (sw1, sw1.connectionsTo(sw2)[0][0])}
        for names, sw in ((LEFT, sw1), (RIGHT, sw2)):
            for h in names:
                hops["%s-%s" % (sw.name, h)] = \
                    (sw, sw.connectionsTo(net[h])[0][0])
        for h in LEFT + RIGHT:
            hops["nic-" + h] = (net[h], net[h].defaultIntf())
        return {k: (n, str(d)) for k, (n, d) in hops.items()}

    def _tree(self, net, out, senders):
        p = self.p
        win = float(p["window"])
        v, vr, r = net["v"], net["vr"], net["r"]
        nodes = net.switches + net.hosts
        hops = self.hops(net)
        # every neighbour on the way resolved before the traffic
        self.resolve([v], vr.IP())
        self.resolve([net[h] for h in SENDERS], r.IP())
        _pfc.sink_add(vr, [VICTIM_PORT])
        _pfc.sink_add(r, [INCAST_PORT + i for i in range(1, 6)])
        mon = _pfc.monitor(out, [(k, hops[k][0], hops[k][1]) for k in (
            "sw2-r", "sw2-sw1", "sw1-sw2", "sw1-v", "sw1-s1", "nic-v",
            "nic-s1", "nic-s4")], int(p["interval_ms"]))
        guard = CpuGuard()
        counters = _pfc.Counters(nodes)
        mon.start()
        try:
            t0 = time.monotonic()
            log("victim v -> vr alone at %s, PFC %s" % (p["rate"], p["pfc"]))
            senders.start([(v, vr, VICTIM_PORT)])
            wait_for(lambda: _pfc.sink_counts(vr)[0].get(
                VICTIM_PORT, 0) >= 100, 20, "the victim's flow to arrive")
            alone, alone_s, busy_a = _pfc.window(
                guard, "the victim alone", win, vr)
            t_incast = time.monotonic() - t0
            log("incast s1..s5 -> r beside the victim")
            senders.start([(net[h], r, INCAST_PORT + i)
                           for i, h in enumerate(SENDERS, 1)])
            paused = _pfc.wait_or_warn(
                lambda: stats.snapshot(v).get(
                    str(v.defaultIntf()), "pause_rx", BAND) >= 1, 30,
                "the victim's sender to be paused")
            during, during_s, busy_d = _pfc.window(
                guard, "the victim during the incast", win, vr, r)
            senders.stop()
            t_end = time.monotonic() - t0
            _pfc.drain(nodes)
        finally:
            mon.stop()
        return {
            "knobs": p, "switch": _pfc.switch_opts(p),
            "host": _pfc.host_opts(p),
            "hops": {k: [n.name, d] for k, (n, d) in hops.items()},
            "alone": {"datagrams": alone, "s": alone_s, "cpu_busy": busy_a},
            "incast": {"datagrams": during, "s": during_s,
                       "cpu_busy": busy_d, "victim_paused": paused},
            "t_incast_s": t_incast, "t_end_s": t_end,
            **counters.doc(),
        }

    def analyze(self, out):
        doc = load_run(out)
        b, a = _pfc.load(doc)
        pkt = int(doc["knobs"]["pkt"])
        rows = []

        def d(node, dev, key, band=None):
            return a[node].get(dev, key, band) - b[node].get(dev, key, band)

        al, inc = doc["alone"], doc["incast"]
        n_al = al["datagrams"].get(str(VICTIM_PORT), 0)
        n_inc = inc["datagrams"].get(str(VICTIM_PORT), 0)
        wire_al = _pfc.wire_mbps(n_al, pkt, al["s"])
        wire_inc = _pfc.wire_mbps(n_inc, pkt, inc["s"])
        rows += [("victim_rate.alone", wire_al, "Mbit/s"),
                 ("victim_rate.incast", wire_inc, "Mbit/s"),
                 ("rate_alone.v", wire_al * pkt / (pkt + UDP_OVERHEAD),
                  "Mbit/s")]
        if wire_al:
            rows.append(("victim_share", wire_inc / wire_al, "1"))
        for i, h in enumerate(SENDERS, 1):
            n = inc["datagrams"].get(str(INCAST_PORT + i), 0)
            rows.append(("goodput." + h, 8 * pkt * n / inc["s"] / 1e6
                         if inc["s"] else 0, "Mbit/s"))
        rows += [("window", al["s"], "s"),
                 ("cpu_busy.alone", al["cpu_busy"], "%"),
                 ("cpu_busy.incast", inc["cpu_busy"], "%")]
        rows += _pfc.drop_rows(b, a, doc)
        hr = tail = 0
        for hop, (node, dev) in sorted(doc["hops"].items()):
            rows += [("pause_tx." + hop, d(node, dev, "pause_tx", BAND),
                      "frames"),
                     ("pause_rx." + hop, d(node, dev, "pause_rx", BAND),
                      "frames"),
                     ("paused_us." + hop, d(node, dev, "paused_us", BAND),
                      "us"),
                     ("paused_share." + hop, d(node, dev, "paused_us", BAND)
                      / 1e6 / doc["t_end_s"], "1")]
            hr += d(node, dev, "drops_headroom")
            tail += d(node, dev, "drops_tail")
        rows += [("headroom_drops", hr, "packets"),
                 ("drops_tail", tail, "packets")]
        return rows

    def plot(self, out):
        """throughput.png (what the NICs of v, s1 behind sw1 and s4
        behind sw2 sent), pauses.png (PAUSE frames sent, hop by hop) and
        paused.png (time held by PAUSE frames).  Returns the files
        written."""
        from dcbanalysis import plots
        from dcbanalysis.scenarios._pfc import ports, series

        if not os.path.exists(os.path.join(out, "dcbmon.csv")):
            return []
        lab, files = ports(out), []
        lines = _pfc.nic_rate_lines(out, {k[4:]: v for k, v in lab.items()
                                          if k.startswith("nic-")})
        if lines:
            f = os.path.join(out, "throughput.png")
            plots.series(f, lines, self.title("sent by the victim v and the "
                                              "incast senders s1, s4"),
                         "rate (Mbit/s)")
            files.append(f)
        for name, labels, key, what, ylabel, scale in (
                ("pauses.png", ("sw2-sw1", "sw1-v", "sw1-s1"), "pause_tx",
                 "PAUSE frames sent, hop by hop",
                 "PAUSE frames sent (cumulative)", 1),
                ("paused.png", ("sw1-sw2", "nic-v", "nic-s1"), "paused_us",
                 "time held by PAUSE frames", "time paused (s, cumulative)",
                 1e6)):
            s = series(out, {k: lab[k] for k in labels if k in lab}, key,
                       BAND)
            lines = [(k, t, [x / scale for x in v])
                     for k, (t, v) in s.items() if t]
            if lines:
                f = os.path.join(out, name)
                plots.series(f, lines, self.title(what), ylabel)
                files.append(f)
        return files
