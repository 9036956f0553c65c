# SPDX-License-Identifier: GPL-2.0
"""What cmp_burst and cmp_converge share: every algorithm of `algos`
run one after the other on one soft-RoCE topology, the switch ports of
each, the counters of a run before and after, the algorithms' rate
tracepoints, and the rows and plots both draw.

Per algorithm (the setting, named after it; Cmp.switch_opts):

  none   PFC on RoCE's band 3 (XOFF 16 KB, sch_dcb's default delay),
         no ECN: lossless by PAUSE alone
  dcqcn  PFC on, RED 5 KB / 20 KB / 1 %
  pcn    PFC on, NP-ECN
  ldcp   PFC off, DCTCP step marking at 8 KB (WRED drops non-ECT above)

on every port of every switch (buffer 1 MB); every algorithm at its
defaults, derived from the line rate (rxe_cc.rst, "The rule").
"""

import csv
import os

from .. import stats
from ..experiment import (CpuGuard, Experiment, Param, load_run, log, save_run,
                          tracefs)
from ._knobs import dcbmon_ms, line_mbps
from ._pfc import snap_json, snap_load

from .cmp_incast import BAND, CTRL_MAP, algo_opts
from .cmp_incast import host_opts as _host_opts

PFC = "pfc prio-pfc %d xoff 16kb" % BAND
LONG_SIZE = 65536	# bytes per write of a long flow

COMMON_PARAMS = (
    Param("algos", "none,dcqcn,pcn,ldcp", "algorithms, run one after the "
          "other"),
    line_mbps(),
)
SAMPLING_PARAMS = (
    Param("interval", 0.25, "sent_pkts sampling interval (s)"),
    dcbmon_ms(50),
)


def switch_opts(algo, mbps):
    """sch_dcb options of every switch port under @algo."""
    return "rate %dmbit %s buffer 1mb %s %s" % ((mbps, CTRL_MAP) +
                                                algo_opts(algo, PFC))


def host_opts(mbps):
    """cmp_incast's host NIC options at @mbps Mbit/s (this family's rate
    knob is a number of Mbit/s)."""
    return _host_opts("%dmbit" % mbps)


def margin(secs, extra=300):
    """A process's time limit: @secs plus @extra, scaled as the guest's
    timeouts (DCBLAB_TIMEOUT_SCALE)."""
    return int(float(secs)) + extra * int(os.environ.get(
        "DCBLAB_TIMEOUT_SCALE", "1"))


class RateTrace:
    """The algorithms' rate tracepoints, which name the sender's device
    (the engine's own names only the QPN, which repeats on every host):
    {algo: (event, rate field, filter)}.  DCQCN's alpha-only events (ev
    3) leave the rate as it was and are filtered out.

    Switching an event on or off patches kernel text on every CPU, and
    under TCG that once hung a guest for minutes (scripts/lib/common.sh,
    tr_on): so an event is switched on at most once per module load and
    never off; mute() sets a filter nothing passes instead.  The ring
    buffer does not overwrite while a run records (its first events, the
    flows' first CNPs, are the ones that matter)."""

    EVENTS = {"pcn": ("rxe_cc_pcn/rxe_cc_pcn_rate", "rate_kbps", "0"),
              "dcqcn": ("rxe_cc_dcqcn/rxe_cc_dcqcn", "rc_kbps", "ev != 3")}
    NOTHING = "common_pid < 0"

    def __init__(self):
        self.tr = None

    def mount(self):
        if self.tr:
            return
        self.tr = tracefs()

    def _write(self, name, value):
        with open(os.path.join(self.tr, name), "w") as f:
            f.write(value)

    def _read(self, name):
        with open(os.path.join(self.tr, name)) as f:
            return f.read().strip()

    def on(self, algo, filt=None):
        """Record @algo's rate event alone, into an empty buffer; @filt
        instead of the event's filter ("0": every event)."""
        event, _, own = self.EVENTS[algo]
        filt = own if filt is None else filt
        self.mount()
        d = "events/" + event
        if not os.path.isdir(os.path.join(self.tr, d)):
            raise RuntimeError("no %s tracepoint" % event)
        self._write("tracing_on", "0")
        self._write("buffer_size_kb", "8192")
        self._write("options/overwrite", "0")
        try:
            self._write("trace_clock", "mono")
        except OSError:
            pass
        self._write("trace", "")
        self._write(d + "/filter", filt)
        if self._read(d + "/enable") != "1":
            self._write(d + "/enable", "1")
        self._write("tracing_on", "1")

    def mute(self):
        """Every rate event records nothing more (events of a module not
        loaded are skipped)."""
        if not self.tr:
            return
        for event, _, _ in self.EVENTS.values():
            f = os.path.join(self.tr, "events", event, "filter")
            if os.path.exists(f):
                try:
                    self._write("events/%s/filter" % event, self.NOTHING)
                except OSError:
                    pass

    def save(self, path):
        """Mute, then copy the trace to @path."""
        self.mute()
        with open(os.path.join(self.tr, "trace")) as src, \
                open(path, "w") as dst:
            for line in src:
                dst.write(line)

    def close(self):
        self.mute()
        if self.tr:
            try:
                self._write("options/overwrite", "1")
            except OSError:
                pass


class Cmp(Experiment):
    """One topology (build()), one run per algorithm (run_algo()), raw
    files per algorithm in ALGO/: run.json (options in force, sch_dcb
    counters of every switch before and after, hw counter deltas, the
    CPU guard, failures), samples.txt (the senders' sent_pkts),
    dcbmon.csv and ports.tsv, counters.txt (every non-zero hw counter of
    every device) and perftest's outputs (bw-HOST.cli/.srv)."""

    def settings(self):
        return [a for a in self.p["algos"].split(",") if a]

    def mbps(self):
        return int(float(self.p["rate"]))

    def build(self, net):
        """Add the hosts, switches and links to @net."""
        raise NotImplementedError

    def resolve_paths(self):
        """Name the started network's hosts for run_algo() and resolve
        every path the traffic takes (Experiment.resolve)."""
        raise NotImplementedError

    def run_algo(self, algo, d, k):
        """One run of @algo, its files in @d; @k counts the runs (perftest
        ports differ per run)."""
        raise NotImplementedError

    def run(self, out):
        from ..nodes import dcb_net
        from ..rdma import prepare

        algos = self.settings()
        for a in algos:
            switch_opts(a, 1)	# an unknown one fails before the network
        net = dcb_net(out, [a for a in algos if a != "none"])
        self.net = net
        self.trace = RateTrace()
        self.build(net)
        try:
            net.start()
            prepare(net.hosts)
            self.resolve_paths()
            log("topology up")
            for k, a in enumerate(algos):
                d = os.path.join(out, a)
                os.makedirs(d, exist_ok=True)
                self.apply(a)
                self.run_algo(a, d, k)
            self.keep_raw(net)
        finally:
            self.trace.close()
            net.stop()

    def apply(self, algo):
        """@algo at the line rate on every host, its options on every
        switch port."""
        from ..rdma import select

        log("%s: configuring" % algo)
        select(self.net.hosts, algo, self.mbps())
        opts = switch_opts(algo, self.mbps())
        for sw in self.net.switches:
            for intf in sw.intfList():
                if str(intf) != "lo":
                    intf.setDcb(opts)

    @staticmethod
    def port(a, b):
        """(a, its interface toward b)."""
        return a, str(a.connectionsTo(b)[0][0])

    def snapshots(self):
        return {sw.name: snap_json(stats.snapshot(sw))
                for sw in self.net.switches}

    def monitor(self, d, ports):
        """stats.Monitor of @ports [(label, node, dev)] into @d, started."""
        mon = stats.Monitor(d, ports, int(self.p["interval_ms"]))
        mon.start()
        return mon

    def keep_counters(self, d):
        """Every device's non-zero hw counters into d/counters.txt."""
        from ..rdma import hw_all

        with open(os.path.join(d, "counters.txt"), "w") as f:
            for h in self.net.hosts:
                for k, v in hw_all(h).items():
                    if v:
                        f.write("%s %s %d\n" % (h.name, k, v))

    def write_run(self, d, algo, doc):
        doc.update({"algo": algo, "switch": switch_opts(algo, self.mbps()),
                    "host": host_opts(self.mbps())})
        save_run(d, doc)

    @staticmethod
    def guard():
        g = CpuGuard()
        g.start()
        return g

    # ---------------------------------------------------------- metrics

    def analyze(self, out):
        rows = []
        for a in self.settings():
            rows += [r + (a,) for r in self.algo_rows(os.path.join(out, a))]
        return rows

    def algo_rows(self, d):
        raise NotImplementedError

    @staticmethod
    def load(d):
        return load_run(d)

    @staticmethod
    def port_rows(d, label):
        """cmpmetrics.port_rows of the port @label of @d's dcbmon.csv."""
        from dcbanalysis import cmpmetrics

        with open(os.path.join(d, "ports.tsv")) as f:
            ports = dict(line.rstrip("\n").split("\t") for line in f
                         if line.strip())
        return cmpmetrics.port_rows(os.path.join(d, "dcbmon.csv"),
                                    ports[label])

    @classmethod
    def queue_rows(cls, d, label, suffix=""):
        """queue_mean and queue_p99 (KB, as cmp.sh rounded them) of the
        port @label, named METRIC@suffix."""
        from dcbanalysis import cmpmetrics

        q = cmpmetrics.queue(cls.port_rows(d, label))
        if not q:
            return []
        return [("queue_mean" + suffix, round(q[0], 1), "KB"),
                ("queue_p99" + suffix, round(q[1], 1), "KB")]

    @staticmethod
    def counter_rows(doc):
        """pause_tx (band 3) and drops (tail, WRED, headroom) over every
        switch port, the senders' go-back-N retries, the processes that
        failed and the CPU guard."""
        pause = drops = 0
        for sw in doc["after"]:
            b, a = snap_load(doc["before"][sw]), snap_load(doc["after"][sw])
            pause += a.total("pause_tx", BAND) - b.total("pause_tx", BAND)
            for k in stats.DROP_KEYS:
                drops += a.total(k) - b.total(k)
        return [("pause_tx", pause, "frames"), ("drops", drops, "packets"),
                ("gbn_retries", doc["retry"], "retries"),
                ("flows_failed", doc["failed"], "flows"),
                ("cpu_busy", doc["cpu_busy"], "%")]

    # ---------------------------------------------------------- plots

    def throughput_plots(self, out, what):
        """throughput-ALGO.png of each algorithm: the columns of its
        ALGO/flows.csv (t_s, then one Mbit/s column per flow)."""
        from dcbanalysis import plots

        files = []
        for a in self.settings():
            c = columns(os.path.join(out, a, "flows.csv"))
            if not c or "t_s" not in c:
                continue
            t = c.pop("t_s")
            f = os.path.join(out, "throughput-%s.png" % a)
            plots.series(f, [(k, t, v) for k, v in c.items()],
                         self.title("%s: %s" % (a, what)),
                "sent (Mbit/s of payload)")
            files.append(f)
        return files


def columns(path):
    """{column: [floats]} of the CSV @path, or None when it does not
    exist."""
    if not os.path.exists(path):
        return None
    with open(path, newline="") as f:
        rd = csv.DictReader(f)
        cols = {h: [] for h in rd.fieldnames or []}
        for r in rd:
            for h in cols:
                cols[h].append(float(r[h]))
    return cols


def color(algo):
    from dcbanalysis import plots
    return (plots.ALGO_COLORS[algo],) if algo in plots.ALGO_COLORS else ()


def num(m, k):
    """float of the metric @k of cmpmetrics' [(key, value)] dict @m; NaN
    when it is missing or not a number."""
    try:
        return float(m[k])
    except (KeyError, ValueError):
        return float("nan")

