# SPDX-License-Identifier: GPL-2.0
"""dcqcn_buffer: the DCQCN paper's buffer settings (section 4; its Fig. 18
compares the 10th percentile throughput of four configurations in an 8:1
incast), at the lab's defaults.

cmp_incast's topology, traffic and analysis (cmp_incast.Incast), one run
per switch configuration; PFC on RoCE's band 3 in one shared pool of
size B, each (port, band 3) reserving the auto headroom (R in all):

  paper     dynamic XOFF, beta (8): XOFF = beta (B - R - s) / 8, and RED
            at Kmin/Kmax/Pmax below section 4's bound, DCQCN on
  static    the same RED, a static XOFF of (B - R) / (8 n), the
            threshold section 4 computes for a static setting (n ports,
            8 priorities), DCQCN on
  ecn-late  dynamic XOFF as paper, RED with Kmin at B - R: PFC must act
            before the queue can reach it, DCQCN on
  no-pfc    the paper's RED, PFC off (lossy: drops and go-back-N), DCQCN
  pfc-only  dynamic XOFF as paper, no ECN, rxe's algorithm none: the
            baseline of the PAUSE counts

Section 4's bound: with s bytes in the pool, all from one ingress (its
worst case), and every one of the n egress queues at Kmin (s = n Kmin),
ECN marks before PFC pauses while beta (B - R - s) / 8 > s, i.e.
Kmin < beta (B - R) / (n (beta + 8)) with sch_dcb's formula (one lossless
priority); for a static XOFF, Kmin < XOFF / n.

Besides cmp_incast's rows, per configuration: the bound, Kmin, the XOFF
in force at the pool's peak occupancy (static, or the lowest dynamic
one), the pool's and the ingress counters' peaks, the 10th percentile of
the flows' rates (the paper's Fig. 18 metric) and the PAUSE frames over
the PFC-only run's.
"""

import json
import os
import statistics

from ..experiment import Param, load_run
from ._knobs import pool
from ._pfc import snap_load
from .cmp_incast import BAND, Incast, queue_kb, red_opts, size_bytes

CONFIGS = ("paper", "static", "ecn-late", "no-pfc", "pfc-only")


class DcqcnBuffer(Incast):
    NAME = "dcqcn_buffer"
    DESCRIPTION = ("DCQCN section 4 / Fig. 18: 8:1 RDMA incast under four "
                   "PFC/ECN settings and PFC alone: PAUSE frames, drops, "
                   "p10 rate")
    SETTINGS_KNOB = "configs"
    PARAMS = tuple(
        {"senders": Param("senders", 8, "number of RDMA senders"),
         "iters": Param("iters", 100, "ib_write_bw -n: writes per sender"),
         "buffer": pool("1300kb", "B, R + about 700 KB with the "
                        "defaults"),
         "xoff": Param("beta", 8, "dynamic PFC threshold factor (paper: "
                       "8)"),
         "red": Param("red", "5kb:20kb:0.01", "RED kmin:kmax:pmax of paper "
                      "and static (cmp_incast's)"),
         }.get(q.name, q) for q in Incast.PARAMS)
    PARAMS = (Param("configs", ",".join(CONFIGS), "switch settings to run, "
                    "in this order"),) + PARAMS
    TITLE_KEYS = ("senders", "rate", "buffer", "beta", "red")

    def modules(self):
        return ["dcqcn"]

    def reserved(self):
        """R: the headroom the switch's ports reserve in the pool (sch_dcb
        computes it; read from the configuration in force)."""
        port = self.switch_ports()[0]
        for q in json.loads(self.sw.cmd("tc -j -s qdisc show dev %s"
                                        % port)):
            if q.get("kind") == "dcb" and q.get("root"):
                return int(q["pool"]["reserved"])
        raise RuntimeError("no sch_dcb on %s" % port)

    def setting(self, name):
        if name not in CONFIGS:
            raise ValueError("unknown configuration '%s' (%s)"
                             % (name, ", ".join(CONFIGS)))
        p = self.p
        base = self.base_opts()
        dl = "" if p["delay"] == "default" else " delay %s" % p["delay"]
        pfc = "pfc prio-pfc %d beta %s%s" % (BAND, p["beta"], dl)
        # a fresh pool, so that its peak is this run's; R from the same
        # ports with PFC (the headroom does not depend on XOFF)
        for port in self.switch_ports():
            self.sw.cmd("tc qdisc del dev %s root" % port)
        for port in self.switch_ports():
            self.sw.intf(port).setDcb("%s %s" % (base, pfc))
        b, r = size_bytes(p["buffer"]), self.reserved()
        n = len(self.switch_ports())
        if r <= 0 or b <= r:
            raise RuntimeError("pool %d B, reserved %d B: no shared part "
                               "(raise buffer)" % (b, r))
        beta = int(p["beta"])
        kmin_s, kmax_s, pmax = p["red"].split(":")
        kmin = size_bytes(kmin_s)
        ecn = red_opts(p["red"])
        xoff, bound = "dynamic", beta * (b - r) // (n * (beta + 8))
        algo = "dcqcn"
        if name == "static":
            xoff = (b - r) // (8 * n)
            pfc = "pfc prio-pfc %d xoff %d%s" % (BAND, xoff, dl)
            bound = xoff // n
        elif name == "ecn-late":
            kmin = b - r
            ecn = "ecn red kmin %d kmax %d pmax %s" % (
                kmin, kmin + size_bytes(kmax_s), pmax)
        elif name == "no-pfc":
            pfc, xoff, bound = "pfc off", "off", None
        elif name == "pfc-only":
            ecn, kmin, algo = "ecn off", None, "none"
        sw = "%s %s" % (base, pfc)
        return {"algo": algo, "cc": [], "switch": sw,
                "bottleneck": "%s %s" % (sw, ecn),
                "info": {"pool_b": b, "reserved": r, "ports": n,
                         "xoff": xoff, "kmin": kmin, "kmin_bound": bound}}

    def setting_rows(self, d):
        rows = super().setting_rows(d)
        doc = load_run(d)
        info, a = doc["info"], snap_load(doc["after"])
        ports = a.ports()
        peak = max(a.get(x, "pool.peak") for x in ports)
        in_peak = max(a.get(x, "in_peak", BAND) for x in ports)
        if info["xoff"] == "dynamic":
            # the XOFF in force at the pool's peak: the lowest it got
            xlow = max(0, int(self.p["beta"]) * (info["pool_b"] -
                                                 info["reserved"] - peak)
                       // 8)
        else:
            xlow = None if info["xoff"] == "off" else info["xoff"]
        kb = [("kmin", info["kmin"]), ("kmin_bound", info["kmin_bound"]),
              ("pool_peak", peak), ("xoff_low", xlow),
              ("ingress_peak", in_peak)]
        rows += [(k, v / 1024, "KB") for k, v in kb if v is not None]
        rates = [r[1] for r in rows if r[0].startswith("flow_rate.f")]
        if rates:
            p10 = (statistics.quantiles(rates, n=10, method="inclusive")[0]
                   if len(rates) > 1 else rates[0])
            rows.append(("flow_rate_p10", p10, "Mbit/s"))
        return rows

    def analyze(self, out):
        rows = super().analyze(out)
        pause = {r[3]: r[1] for r in rows if r[0] == "pause_tx"}
        base = pause.get("pfc-only")
        if base:
            rows += [("pause_vs_pfc_only", v / base, "1", cfg)
                     for cfg, v in pause.items()]
        return rows

    def plot(self, out):
        """queue.png: the bottleneck's backlog of every configuration (t =
        0: the first packet), Kmin dashed."""
        from dcbanalysis import plots

        lines = []
        for cfg in self.settings():
            path = os.path.join(out, cfg, "queue.csv")
            if os.path.exists(path):
                lines.append((cfg,) + queue_kb(path))
        if not lines:
            return []
        f = os.path.join(out, "queue.png")
        plots.series(f, lines, self.title(
            "bottleneck backlog per switch setting"), "backlog (KB)",
            hline=size_bytes(self.p["red"].split(":")[0]) / 1024,
            hline_label="Kmin (paper, static)")
        return [f]
