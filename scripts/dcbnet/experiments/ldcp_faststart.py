# SPDX-License-Identifier: GPL-2.0
"""ldcp_faststart: LDCP's fast start (the LDCP slides, "LDCP - fast
start algorithm") under an incast of many small messages beside a long
flow, without PFC, with and without fast start.

  s1..sH -> sw -> r      every port and host NIC sch_dcb at `rate`, PFC
  sL     -> sw -> r      off, DCTCP step marking at `k` on the switch's
                         ports (non-ECT packets above it are dropped by
                         WRED: LDCP's fast-start packets)

Per setting the long flow sL -> r (ib_write_bw -D long_s, 64 KB writes)
runs alone for `warmup` seconds, then the incast starts: each of the H
senders runs one ib_write_bw -q qps -n iters -s size -t tx_depth, so H x
qps small flows (RC connections, 32 by default) write into r at once.  A
capture at r (dcbanalysis.roce_flows) gives each flow's first and last
packet: every small flow's completion time (FCT), the incast's (first
to last packet of any small flow: the slides' "incast completion time")
and the long flow's rate while the incast ran; the switch's counters the
WRED and tail drops from the incast's start, the senders' rxe the
go-back-N retries.

  fs     LDCP with fast start: ldcp/init_window_pkts = iw
  nofs   LDCP without: init_window_pkts = 0

iw is set, not derived: two 4-packet writes (at 100 Mb/s and the 2 ms
base RTT the automatic window, one BDP, would be 24 packets).  LDCP's
other knobs keep their defaults.  Raw files per setting, in SETTING/:
run.json (options, counters before, at the incast's start and after,
failures, the CPU guard), capture.pcap, tcpdump.err, dcbmon.csv and
ports.tsv (the bottleneck), perftest's outputs; analyze() adds fct.tsv
(every small flow's FCT).
"""

import os
import re
import time

from .. import stats
from ..experiment import CpuGuard, Param, load_run, log
from ._knobs import budget, dcbmon_ms, line_mbps
from ._pfc import snap_json, snap_load
from .cmp_incast import Incast, capture_rows, host_opts, measured

LONG_SIZE = 65536	# the long flow's bytes per write
NUMERIC = ("hosts", "qps", "iters", "size", "tx_depth", "rate", "iw",
           "warmup", "long_s", "interval_ms")


def nan_if_none(x):
    """@x, or NaN (a row left out) for None."""
    return float("nan") if x is None else x


class LdcpFaststart(Incast):
    NAME = "ldcp_faststart"
    DESCRIPTION = ("LDCP fast start: 32+ small RDMA flows beside a long "
                   "flow without PFC, with and without fast start: FCT, "
                   "WRED drops")
    PARAMS = (
        Param("settings", "fs,nofs", "fast start on (fs) and off (nofs), "
              "in this order"),
        Param("hosts", 4, "incast senders (the long flow has its own "
              "host)"),
        Param("qps", 8, "small flows per incast sender (RC connections)"),
        Param("iters", 5, "writes per small flow (perftest: at least 5)"),
        Param("size", 4096, "bytes per write (4 packets at RoCE MTU "
              "1024)"),
        Param("tx_depth", 1, "ib_write_bw -t: writes in flight per small "
              "flow (1: each starts on an idle QP, where fast start "
              "applies)"),
        line_mbps(),
        Param("k", "8kb", "marking threshold of the switch ports (step: "
              "k; red: kmin)"),
        Param("marking", "step", "step (DCTCP at k) or red (kmin k, kmax, "
              "pmax); non-ECT fast-start packets meet the same curve "
              "(WRED)"),
        Param("kmax", "64kb", "RED's kmax (marking red)"),
        Param("pmax", 0.1, "RED's pmax (marking red)"),
        Param("iw", 8, "fast-start window (packets) of the fs setting"),
        Param("warmup", 2, "seconds the long flow runs alone first"),
        Param("long_s", 6, "the long flow's ib_write_bw -D (s)"),
        dcbmon_ms(20),
        budget(200),
    )
    SETTINGS_KNOB = "settings"
    TITLE_KEYS = ("hosts", "qps", "iters", "size", "rate", "k", "iw")

    # ---------------------------------------------------------- settings

    def line(self):
        return "%smbit" % self.p["rate"]

    def check(self):
        """ValueError on a knob the runs cannot use, before any runs."""
        for k in NUMERIC:
            if not re.fullmatch(r"[0-9]+", self.p[k]):
                raise ValueError("%s: '%s' is not a number" % (k, self.p[k]))
        self.marking()
        for s in self.settings():
            self.setting(s)

    def marking(self):
        p = self.p
        if p["marking"] == "step":
            return "ecn step k %s" % p["k"]
        if p["marking"] == "red":
            return "ecn red kmin %s kmax %s pmax %s" % (p["k"], p["kmax"],
                                                        p["pmax"])
        raise ValueError("marking: '%s' is neither step nor red"
                         % p["marking"])

    def setting(self, name):
        iw = {"fs": self.p["iw"], "nofs": 0}
        if name not in iw:
            raise ValueError("unknown setting '%s' (fs, nofs)" % name)
        sw = "%s pfc off %s" % (self.base_opts(), self.marking())
        return {"algo": "ldcp", "cc": [("ldcp/init_window_pkts", iw[name])],
                "switch": sw, "bottleneck": sw, "info": {}}

    def base_opts(self):
        # the comparison's pool (cmp_incast's default buffer)
        return "rate %s dscp-map 0:7 buffer 1mb" % self.line()

    def modules(self):
        return ["ldcp"]

    def hosts_needed(self):
        return int(self.p["hosts"]) + 1

    # ---------------------------------------------------------- run

    def run_setting(self, name, d):
        from ..rdma import BASE_PORT, Capture, Perftest, hw_sum, recording

        cfg, written = self.configure(name)
        p, r = self.p, self.r
        nh = int(p["hosts"])
        incast, lh = self.senders[:nh], self.senders[nh]
        long_s = int(p["long_s"])
        before = stats.snapshot(self.sw)
        retry0 = hw_sum(self.senders, "completer_retry_err")
        # servers: the long flow's, then one per incast sender
        longbw = Perftest(d, size=LONG_SIZE, secs=long_s,
                          limit=long_s + 300)
        longbw.add(lh, r, BASE_PORT)
        small = Perftest(d, size=int(p["size"]), iters=int(p["iters"]),
                         limit=long_s + 120,
                         args=["-q", p["qps"], "-t", p["tx_depth"]])
        for i, h in enumerate(incast, 1):
            small.add(h, r, BASE_PORT + i)
        longbw.ready()
        small.ready()
        log("%s: servers listen" % name)
        cap = Capture(r, d)
        mon = stats.Monitor(d, [("bottleneck", self.sw, self.port_to(r))],
                            int(p["interval_ms"]))
        guard = CpuGuard()
        with recording(cap, mon, guard, small, longbw):
            longbw.start()
            # the long flow's head start is part of the experiment
            time.sleep(float(p["warmup"]))
            # WRED and tail drops are counted from the incast's start
            mid = stats.snapshot(self.sw)
            log("%s: incast of %d x %s flows x %s x %s B beside the long "
                "flow" % (name, nh, p["qps"], p["iters"], p["size"]))
            small.start(together=True)
            failed = small.wait() + longbw.wait()
            busy = guard.check("%s: long flow and small flows" % name)
        after = stats.snapshot(self.sw)
        doc = {
            "setting": name, "algo": cfg["algo"], "cc": written,
            "switch": cfg["switch"], "host": host_opts(self.line()),
            "incast": [h.name for h in incast], "long": lh.name,
            "long_src": lh.IP(), "cpu_busy": busy,
            "failed": [os.path.basename(f) for f in failed],
            "retry": hw_sum(self.senders, "completer_retry_err") - retry0,
            "capture_dropped": cap.dropped,
            "before": snap_json(before), "mid": snap_json(mid),
            "after": snap_json(after),
        }
        self.save_captured(name, d, doc)

    # ---------------------------------------------------------- metrics

    @staticmethod
    def fcts(d, pkts, long_src):
        """{"SRC:QPN": FCT} of every small flow (every source but the
        long flow's) in @pkts; also written to @d/fct.tsv."""
        from dcbanalysis import roce_flows

        out = {"%s:%d" % fl: v[1] - v[0] for fl, v in
               sorted(roce_flows.spans(pkts).items()) if fl[0] != long_src}
        with open(os.path.join(d, "fct.tsv"), "w") as f:
            f.write("flow\tfct_s\n")
            for k, v in out.items():
                f.write("%s\t%.4f\n" % (k, v))
        return out

    def setting_rows(self, d):
        """(metric, value, unit) of the setting run in @d."""
        from dcbanalysis import roce_flows

        doc = load_run(d)
        m, a = snap_load(doc["mid"]), snap_load(doc["after"])
        pkts = roce_flows.read_pcap(os.path.join(d, "capture.pcap"))
        inc = roce_flows.incast(pkts, doc["long_src"])
        self.fcts(d, pkts, doc["long_src"])

        def num(k):
            return nan_if_none(inc.get(k))
        out = [
            ("flows_seen", inc["flows"], "flows"),
            ("incast_time", num("incast_s"), "s"),
            ("fct_median", num("fct_median_s"), "s"),
            ("fct_p90", num("fct_p90_s"), "s"),
            ("fct_max", num("fct_max_s"), "s"),
            ("long_rate_incast", num("long_mbps"), "Mbit/s"),
            ("drops_wred", a.total("drops_wred") - m.total("drops_wred"),
             "packets"),
            ("drops_tail", a.total("drops_tail") - m.total("drops_tail"),
             "packets"),
        ] + capture_rows(doc)
        return measured(out)

    # ---------------------------------------------------------- plots

    def plot(self, out):
        """fct.png: the small flows' completion times, sorted, per
        setting (a CDF read sideways)."""
        from dcbanalysis import plots

        self.analyze(out)	# (fct.tsv)
        lines = []
        for s in self.settings():
            f = os.path.join(out, s, "fct.tsv")
            if not os.path.exists(f):
                continue
            with open(f) as fh:
                v = sorted(float(ln.split("\t")[1]) for ln in
                           fh.read().splitlines()[1:] if ln)
            if v:
                lines.append((s, [(i + 1) / len(v) for i in range(len(v))],
                              v))
        if not lines:
            return []
        f = os.path.join(out, "fct.png")
        plots.series(f, lines, self.title("small flows' completion times"),
                     "completion time (s)",
            xlabel="fraction of the small flows")
        return [f]
