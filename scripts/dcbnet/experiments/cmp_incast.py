# SPDX-License-Identifier: GPL-2.0
"""cmp_incast: a soft-RoCE incast, one run per congestion-control setting
in the same invocation.

N senders s1..sN each RDMA-write a fixed amount (ib_write_bw -n ITERS of
SIZE bytes) into one receiver r through a routing switch sw; every switch
port and host NIC is sch_dcb shaped to the line rate, and the switch's
port toward r is the bottleneck.  Per setting:

  none   PFC on (RoCE's band 3), no ECN: lossless by PAUSE alone
  dcqcn  PFC on, RED at the bottleneck, DCQCN at its defaults
  pcn    PFC on, NP-ECN, PCN at its defaults
  ldcp   PFC off, DCTCP step marking at K (WRED drops non-ECT above
         it), LDCP's windows; losses recovered by rxe's go-back-N

Every algorithm runs at its defaults, derived from the line rate and the
base RTT (rxe_cc.rst, "The rule").  Raw files per setting, in SETTING/:
run.json (the options in force, counters before and after, perftest's
failures, the CPU guard), samples.txt (each sender's sent_pkts every
sample_s), dcbmon.csv and ports.tsv (the bottleneck), bw-*.srv/.cli
(perftest's outputs).  analyze() adds flows.tsv and queue.csv.

dcqcn_buffer and dcqcn_params are this experiment with other settings
(Incast.setting).
"""

import os
import time

from .. import stats
from ..experiment import CpuGuard, Experiment, Param, load_run, log, save_run
from ._knobs import budget, dcbmon_ms, pfc_delay, pool, xoff
from ._pfc import rate_bps, snap_json, snap_load

BAND = 3		# RoCE's: cc/roce_dscp 26 >> 3
CTRL_MAP = "dscp-map 0:7"	# perftest's TCP control above RoCE
MTU = 1100		# a 1024-byte RoCE payload on the wire


def host_opts(rate):
    return "rate %s %s limit 2mb" % (rate, CTRL_MAP)


def size_bytes(s):
    """tc's size syntax (20kb, 1mb, 1500) in bytes."""
    from dcbanalysis import units
    return int(units.size_bytes(s))


def queue_kb(path):
    """(t_s, backlog KB) lists of an incast's queue.csv at @path (written
    by analyze()), or None when it does not exist."""
    if not os.path.exists(path):
        return None
    t, q = [], []
    with open(path) as f:
        for line in f.read().splitlines()[1:]:
            a, b = line.split(",")
            t.append(float(a))
            q.append(float(b) / 1024)
    return t, q


def capture_rows(doc):
    """The closing rows of a setting whose run.json @doc records a
    capture (pcn_flows, ldcp_faststart): go-back-N retries, failed
    perftest processes, packets the capture lost (none: not known) and
    the CPU guard's share."""
    rows = [("gbn_retries", doc["retry"], "retries"),
            ("procs_failed", len(doc["failed"]), "processes")]
    if doc["capture_dropped"] is not None:
        rows.append(("capture_dropped", doc["capture_dropped"], "packets"))
    return rows + [("cpu_busy", doc["cpu_busy"], "%")]


def measured(rows):
    """@rows without the values not measured (NaN), floats to 4 places."""
    return [(m, round(v, 4) if isinstance(v, float) else v, u)
            for m, v, u in rows if v == v]


def red_opts(red):
    kmin, kmax, pmax = red.split(":")
    return "ecn red kmin %s kmax %s pmax %s" % (kmin, kmax, pmax)


ALGOS = ("none", "dcqcn", "pcn", "ldcp")


def algo_opts(algo, pfc, red="5kb:20kb:0.01", step_k="8kb"):
    """(PFC, marking) options of a switch port for algorithm @algo: PFC
    @pfc and no marking (none), RED @red (dcqcn), NP-ECN (pcn); ldcp
    runs without PFC, with DCTCP step marking at @step_k (WRED drops
    non-ECT packets above it)."""
    ecn = {"none": "ecn off", "dcqcn": red_opts(red), "pcn": "ecn np-ecn",
           "ldcp": "ecn step k %s" % step_k}
    if algo not in ecn:
        raise ValueError("unknown algo '%s' (%s)" % (algo, ", ".join(ALGOS)))
    return ("pfc off" if algo == "ldcp" else pfc), ecn[algo]


class Incast(Experiment):
    """The incast and its analysis; a subclass names its settings
    (settings()) and what each sets (setting())."""

    PARAMS = (
        Param("senders", 4, "number of RDMA senders"),
        Param("rate", "100mbit", "line rate of every port and host NIC "
              "(cc/max_rate_mbps too)"),
        Param("iters", 150, "ib_write_bw -n: writes per sender"),
        Param("size", 65536, "bytes per write"),
        pool("1mb"),
        xoff("16kb"),
        pfc_delay(),
        Param("red", "5kb:20kb:0.01", "RED kmin:kmax:pmax (the paper's "
              "Kmax 200 KB scaled by line rate x base RTT)"),
        Param("timeout_u", 20, "ib_write_bw -u (transport timeout "
              "4.096 us * 2^u)"),
        dcbmon_ms(20),
        Param("sample_s", 0.1, "sent_pkts sampling interval (FCT "
              "resolution)"),
        budget(300, per_run=True),
    )
    SETTINGS_KNOB = "algos"
    TITLE_KEYS = ("senders", "rate", "iters", "size")

    # ---------------------------------------------------------- settings

    def settings(self):
        return [s for s in self.p[self.SETTINGS_KNOB].split(",") if s]

    def line(self):
        """The line rate in tc's syntax (the rate knob's own here)."""
        return self.p["rate"]

    def mbps(self):
        return int(rate_bps(self.line()) / 1e6)

    def pfc_opts(self):
        o = "pfc prio-pfc %d xoff %s" % (BAND, self.p["xoff"])
        if self.p["delay"] != "default":
            o += " delay %s" % self.p["delay"]
        return o

    def base_opts(self):
        return "rate %s %s buffer %s" % (self.line(), CTRL_MAP,
                                         self.p["buffer"])

    def setting(self, name):
        """What setting @name sets: {"algo": cc/algo of every host,
        "cc": [(knob, value)] written after it in this order (a value
        may be a function of the host, called then), "switch": sch_dcb
        options of every switch port, "bottleneck": those of the port
        toward r, "info": what run.json keeps besides}."""
        pfc, ecn = algo_opts(name, self.pfc_opts(), self.p["red"],
                             self.p.get("ldcp_k", "8kb"))
        sw = "%s %s" % (self.base_opts(), pfc)
        return {"algo": name, "cc": [], "switch": sw,
                "bottleneck": "%s %s" % (sw, ecn), "info": {}}

    def modules(self):
        return ["dcqcn", "pcn", "ldcp"]

    def hosts_needed(self):
        """Senders the topology has."""
        return int(self.p["senders"])

    def flows(self, name):
        """The senders of setting @name's incast."""
        return self.senders

    def check(self):
        """ValueError on a knob the runs cannot use, before any run (a
        subclass with such knobs checks them here)."""

    # ---------------------------------------------------------- run

    def run(self, out):
        from ..nodes import dcb_net
        from ..rdma import prepare

        self.check()
        n = self.hosts_needed()
        if n < 1:
            raise ValueError("senders=%d" % n)
        net = dcb_net(out, self.modules())
        sw = net.addSwitch("sw")
        for h in ["s%d" % i for i in range(1, n + 1)] + ["r"]:
            net.addLink(net.addHost(h, dcb=host_opts(self.line())), sw)
        self.net, self.sw = net, sw
        try:
            net.start()
            self.senders = [net["s%d" % i] for i in range(1, n + 1)]
            self.r = net["r"]
            prepare(self.senders + [self.r])
            self.resolve(self.senders, self.r.IP())
            log("topology up: %d senders, %s toward r"
                % (n, self.port_to(self.r)))
            for name in self.settings():
                d = os.path.join(out, name)
                os.makedirs(d, exist_ok=True)
                self.run_setting(name, d)
            self.keep_raw(net)
        finally:
            net.stop()

    def port_to(self, node):
        return str(self.sw.connectionsTo(node)[0][0])

    def switch_ports(self):
        return [str(i) for i in self.sw.intfList() if str(i) != "lo"]

    def apply(self, cfg):
        """cfg's algorithm and knobs on every host, its options on every
        switch port; {host: {knob: value written last}}."""
        from ..rdma import select

        written = select(self.senders + [self.r], cfg["algo"], self.mbps(),
                         cfg["cc"])
        bott = self.port_to(self.r)
        for port in self.switch_ports():
            intf = self.sw.intf(port)
            intf.setDcb(cfg["bottleneck"] if port == bott else cfg["switch"])
        return written

    def configure(self, name):
        """Setting @name on the hosts and switch ports: (its setting(),
        what apply() wrote)."""
        log("%s: configuring" % name)
        cfg = self.setting(name)
        written = self.apply(cfg)
        log("%s: hosts and switch configured" % name)
        return cfg, written

    @staticmethod
    def save_captured(name, d, doc):
        """Save @doc, what setting @name's run with a capture at r
        measured (its failed, retry and capture_dropped too), in @d."""
        save_run(d, doc)
        log("%s: done, %d failed, %d retries, capture dropped %s"
            % (name, len(doc["failed"]), doc["retry"],
               doc["capture_dropped"]))

    def run_setting(self, name, d):
        """Run setting @name, its raw files in the folder @d."""
        cfg, written = self.configure(name)
        p, senders, r = self.p, self.flows(name), self.r
        from ..rdma import BASE_PORT, Perftest, Sampler, hw_sum, iterations

        before = stats.snapshot(self.sw)
        retry0 = hw_sum(senders, "completer_retry_err")
        oos0 = hw_sum([r], "out_of_seq_request")
        bw = Perftest(d, size=int(p["size"]), iters=int(p["iters"]),
                      u=int(p["timeout_u"]))
        for i, h in enumerate(senders, 1):
            bw.add(h, r, BASE_PORT + i)
        bw.ready()
        mon = stats.Monitor(d, [("bottleneck", self.sw, self.port_to(r))],
                            int(p["interval_ms"]))
        sampler = Sampler(os.path.join(d, "samples.txt"), senders,
                          p["sample_s"])
        guard = CpuGuard()
        try:
            t0 = mon.start_aligned()
            sampler.start()
            guard.start()
            bw.start()
            log("%s: %d x %s x %s B writes -> r"
                % (name, len(senders), p["iters"], p["size"]))
            failed = bw.wait()
            busy = guard.check("%s: incast" % name)
            time.sleep(0.5)
        finally:
            bw.kill()
            guard.stop()
            sampler.stop()
            mon.stop()
        after = stats.snapshot(self.sw)
        done = {h.name: iterations(bw.out(h), p["size"]) for h in senders}
        doc = {
            "setting": name, "algo": cfg["algo"], "cc": written,
            "switch": cfg["switch"], "bottleneck": cfg["bottleneck"],
            "host": host_opts(self.line()), "info": cfg["info"],
            "hosts": [h.name for h in senders], "t0": t0,
            "cpu_busy": busy, "failed": [os.path.basename(f)
                                          for f in failed],
            "writes_done": done,
            "retry": hw_sum(senders, "completer_retry_err") - retry0,
            "oos": hw_sum([r], "out_of_seq_request") - oos0,
            "before": snap_json(before), "after": snap_json(after),
        }
        save_run(d, doc)
        if failed:
            log("%s: perftest failed: %s (see %s)"
                % (name, " ".join(doc["failed"]), d))
        log("%s: done, writes %s, %d retries" % (name, done, doc["retry"]))

    # ---------------------------------------------------------- metrics

    def analyze(self, out):
        rows = []
        for name in self.settings():
            d = os.path.join(out, name)
            rows += [r + (name,) for r in self.setting_rows(d)]
        return rows

    def setting_rows(self, d):
        """(metric, value, unit) of the setting run in @d."""
        from dcbanalysis import cmpmetrics
        from dcbanalysis.samples import read as read_samples

        doc = load_run(d)
        b, a = snap_load(doc["before"]), snap_load(doc["after"])
        size, iters = int(self.p["size"]), int(self.p["iters"])
        m = dict(cmpmetrics.incast(
            read_samples(os.path.join(d, "samples.txt")),
            os.path.join(d, "dcbmon.csv"), doc["t0"], doc["hosts"], size,
            iters, os.path.join(d, "flows.tsv"),
            os.path.join(d, "queue.csv")))

        def delta(key, band=None):
            return a.total(key, band) - b.total(key, band)

        def num(k):
            try:
                return float(m[k])
            except (KeyError, ValueError):
                return float("nan")
        out = []
        for k, x in enumerate(m["flows_mbps"].split("/"), 1):
            out.append(("flow_rate.f%d" % k, float(x), "Mbit/s"))
        for k, x in enumerate(m["fcts"].split("/"), 1):
            out.append(("fct.f%d" % k, float(x), "s"))
        tail, wred, hr = (delta("drops_tail"), delta("drops_wred"),
                          delta("drops_headroom"))
        out += [
            ("jain", num("jain"), "1"),
            ("jain_late", num("jain_late"), "1"),
            ("fct_max", num("fct_max_s"), "s"),
            ("queue_mean", num("q_mean_kb"), "KB"),
            ("queue_p99", num("q_p99_kb"), "KB"),
            ("queue_mean_late", num("qh_mean_kb"), "KB"),
            ("queue_p50_late", num("qh_p50_kb"), "KB"),
            ("queue_p99_late", num("qh_p99_kb"), "KB"),
            ("queue_max_late", num("qh_max_kb"), "KB"),
            ("queue_samples_late", num("qh_n"), "samples"),
            ("pause_tx", delta("pause_tx"), "frames"),
            ("drops", tail + wred + hr, "packets"),
            ("drops_tail", tail, "packets"),
            ("drops_wred", wred, "packets"),
            ("headroom_drops", hr, "packets"),
            ("ecn_marked", delta("ecn_marked"), "packets"),
            ("gbn_retries", doc["retry"], "retries"),
            ("oos_requests", doc["oos"], "packets"),
            ("completed", sum(doc["writes_done"].values()) /
             (iters * len(doc["hosts"])), "1"),
            ("procs_failed", len(doc["failed"]), "processes"),
            ("cpu_busy", doc["cpu_busy"], "%"),
        ]
        return [r for r in out if r[1] == r[1]]	# NaN: not measured

    # ---------------------------------------------------------- plots

    def plot(self, out):
        """queue.png, the bottleneck's backlog of every setting (t = 0:
        the first packet), and fct.png, each flow's completion time per
        setting."""
        from dcbanalysis import plots

        rows = self.analyze(out)
        names = [s for s in self.settings()
                 if os.path.exists(os.path.join(out, s, "queue.csv"))]
        files = []
        lines = [(s,) + queue_kb(os.path.join(out, s, "queue.csv")) +
                 ((plots.ALGO_COLORS[s],) if s in plots.ALGO_COLORS else ())
                 for s in names]
        if lines:
            f = os.path.join(out, "queue.png")
            plots.series(f, lines, self.title(
                "bottleneck backlog (t = first packet)"), "backlog (KB)",
                xlabel="time since the first packet (s)")
            files.append(f)
        fct = {s: [r[1] for r in rows if r[3] == s and
                   r[0].startswith("fct.f")] for s in names}
        nflows = max((len(v) for v in fct.values()), default=0)
        if nflows:
            series = [("f%d" % (k + 1), [fct[s][k] if k < len(fct[s])
                                         else None for s in names])
                      for k in range(nflows)]
            f = os.path.join(out, "fct.png")
            plots.bars(f, names, series, self.title("flow completion times"),
                       "completion time (s)")
            files.append(f)
        return files


class CmpIncast(Incast):
    NAME = "cmp_incast"
    DESCRIPTION = ("RDMA incast (ib_write_bw -n) per CC: none/dcqcn/pcn "
                   "with PFC, ldcp without: FCT, Jain, queue, PAUSE, drops")
    PARAMS = (Param("algos", "none,dcqcn,pcn,ldcp", "settings to run, in "
                    "this order"),) + Incast.PARAMS + (
        Param("ldcp_k", "8kb", "ldcp: DCTCP step K (WRED drops non-ECT "
              "above it)"),)
