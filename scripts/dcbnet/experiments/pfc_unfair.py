# SPDX-License-Identifier: GPL-2.0
"""pfc_unfair: PFC pauses ports, not flows (DCQCN paper Fig. 3).

    h1 ------- sw1 ---- r        (congested: sw1 -> r)
                |
    h2 h3 h4 - sw2

h1 is alone on its ingress port of sw1; h2..h4 share sw1's ingress port
from sw2.  All four send UDP at line rate to r (tools/udpflow, back to
back on a blocking socket, until stopped), PFC only (no ECN), band 3;
every switch port and host NIC is sch_dcb shaped to the line rate.  sw1
serves its two ingress ports about equally, so h1 gets about half of
the bottleneck and h2..h4 a sixth each.  Once sw1 has paused both its
ingress ports (or after 30 s), r's tc flower rules count each sender's
datagrams over a window of `window` seconds.

Raw files: run.json (the knobs, datagrams per sender in the window and
its length, the CPU guard's share, sw1's ingress ports, every node's
sch_dcb statistics before and after, softnet drops), dcbmon.csv and
ports.tsv (sw1's ports, sw2's uplink, the senders' NICs).
"""

import os

from .. import stats
from ..experiment import CpuGuard, Experiment, Param, load_run, log
from ._knobs import dcbmon_ms
from . import _pfc
from ._pfc import BAND, UDP_OVERHEAD

BASE_PORT = 7000	# + i for h<i>
HOSTS = ("h1", "h2", "h3", "h4")


class PfcUnfair(Experiment):
    NAME = "pfc_unfair"
    DESCRIPTION = ("PFC unfairness: a lone sender vs three behind one "
                   "ingress port (DCQCN Fig. 3)")
    PARAMS = _pfc.FABRIC_PARAMS + (
        Param("window", 2, "seconds of the measurement window"),
        dcbmon_ms(50, "0: no series; each sample stalls the guest's "
                  "forwarding a while"),
    )
    TITLE_KEYS = ("rate", "pfc", "xoff", "delay", "window")

    def run(self, out):
        def build(net, sw1, sw2, hopts):
            net.addLink(net.addHost("r", dcb=hopts), sw1)
            net.addLink(net.addHost("h1", dcb=hopts), sw1)
            net.addLink(sw2, sw1)
            for h in HOSTS[1:]:
                net.addLink(net.addHost(h, dcb=hopts), sw2)
        _pfc.run_two_switches(self, out, build, self._unfair)

    def _unfair(self, net, out, senders):
        p = self.p
        sw1, sw2, r = net["sw1"], net["sw2"], net["r"]
        nodes = net.switches + net.hosts
        port = {"sw1-r": str(sw1.connectionsTo(r)[0][0]),
                "sw1-from-h1": str(sw1.connectionsTo(net["h1"])[0][0]),
                "sw1-from-sw2": str(sw1.connectionsTo(sw2)[0][0]),
                "sw2-sw1": str(sw2.connectionsTo(sw1)[0][0])}
        self.resolve([net[h] for h in HOSTS], r.IP())
        _pfc.sink_add(r, [BASE_PORT + i for i in range(1, 5)])
        mon = _pfc.monitor(
            out, [(k, sw1 if k.startswith("sw1") else sw2, d)
                  for k, d in port.items()] +
            [("nic-" + h, net[h], str(net[h].defaultIntf())) for h in HOSTS],
            int(p["interval_ms"]))
        guard = CpuGuard()
        counters = _pfc.Counters(nodes)
        mon.start()
        try:
            log("h1 alone, h2..h4 behind sw2 -> r at %s, PFC %s"
                % (p["rate"], p["pfc"]))
            senders.start([(net[h], r, BASE_PORT + i)
                           for i, h in enumerate(HOSTS, 1)])

            def both_paused():
                s = stats.snapshot(sw1)
                return all(s.get(port[k], "pause_tx", BAND) >= 1
                           for k in ("sw1-from-h1", "sw1-from-sw2"))
            paused = _pfc.wait_or_warn(both_paused, 30, "sw1 to pause both "
                                       "of its ingress ports")
            got, secs, busy = _pfc.window(guard, "the window",
                                          float(p["window"]), r)
            senders.stop()
            _pfc.drain(nodes)
        finally:
            mon.stop()
        return {
            "knobs": p, "switch": _pfc.switch_opts(p),
            "host": _pfc.host_opts(p), "ports": port,
            "datagrams": {h: got.get(BASE_PORT + i, 0)
                          for i, h in enumerate(HOSTS, 1)},
            "window_s": secs, "cpu_busy": busy, "both_paused": paused,
            **counters.doc(),
        }

    def analyze(self, out):
        from dcbanalysis.fairness import sender_rows

        doc = load_run(out)
        b, a = _pfc.load(doc)
        pkt = int(doc["knobs"]["pkt"])
        secs = doc["window_s"]
        n = doc["datagrams"]
        rx = {h: 8 * pkt * n[h] / secs / 1e6 for h in HOSTS}
        rows = sender_rows(rx, total_row=False)
        others = sum(rx[h] for h in HOSTS[1:])
        if others > 0:
            rows.append(("h1_ratio", rx["h1"] * 3 / others, "1"))
        rows += [("datagrams_received." + h, n[h], "datagrams")
                 for h in HOSTS]
        rows += [("datagrams_received", sum(n.values()), "datagrams"),
                 ("window", secs, "s"),
                 ("cpu_busy", doc["cpu_busy"], "%")]
        port = doc["ports"]
        for k in ("sw1-from-h1", "sw1-from-sw2"):
            dev = port[k]
            rows += [("pause_tx." + k, a["sw1"].get(dev, "pause_tx", BAND) -
                      b["sw1"].get(dev, "pause_tx", BAND), "frames"),
                     ("ingress_peak." + k,
                      a["sw1"].get(dev, "in_peak", BAND) / 1024, "KB")]
        rows += _pfc.drop_rows(b, a, doc)
        hr = sum(a[x].get(d, "drops_headroom") - b[x].get(d, "drops_headroom")
                 for x in ("sw1", "sw2") for d in a[x].ports())
        rows.append(("headroom_drops", hr, "packets"))
        return rows

    def plot(self, out):
        """throughput.png (what each sender's NIC sent, the fair share of
        the bottleneck dashed) and ingress.png (band 3 bytes charged to
        sw1's two ingress ports, XOFF dashed).  Returns the files
        written."""
        from dcbanalysis import plots, units
        from dcbanalysis.scenarios._pfc import ports, series

        if not os.path.exists(os.path.join(out, "dcbmon.csv")):
            return []
        p = self.p
        lab, files = ports(out), []
        lines = _pfc.nic_rate_lines(out, {k[4:]: v for k, v in lab.items()
                                          if k.startswith("nic-")})
        if lines:
            pkt = int(p["pkt"])
            share = units.rate_mbps(p["rate"]) * pkt / (pkt + UDP_OVERHEAD) \
                / len(HOSTS)
            f = os.path.join(out, "throughput.png")
            plots.series(f, lines, self.title(
                "h1 alone on its port vs h2..h4 behind sw2"), "rate (Mbit/s)",
                         hline=share, hline_label="fair share")
            files.append(f)
        want = {k: lab[k] for k in ("sw1-from-h1", "sw1-from-sw2")
                if k in lab}
        lines = [(k, t, [x / 1024 for x in v]) for k, (t, v) in
                 series(out, want, "in_bytes", BAND).items() if t]
        if lines:
            xoff = units.size_bytes(p["xoff"]) if p["pfc"] == "on" else 0
            f = os.path.join(out, "ingress.png")
            plots.series(f, lines, self.title(
                "band 3 bytes charged to sw1's ingress ports"), "charged (KB)",
                         hline=xoff / 1024 if xoff else None,
                         hline_label="XOFF" if xoff else None)
            files.append(f)
        return files
