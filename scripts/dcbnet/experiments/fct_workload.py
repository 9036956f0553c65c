# SPDX-License-Identifier: GPL-2.0
"""fct_workload: RDMA messages from a flow-size CDF at a load, FCT
slowdown per size bin, for each algorithm in one invocation.

Every host runs an rdmaflow server and a client (tools/rdmaflow): the
client offers `load` x `rate` over its NIC in messages whose sizes come
from `cdf` (times `scale`), Poisson arrivals, each to another host drawn
uniformly, over `qps` QPs per destination; every message's size,
arrival and completion go to a CSV.  The topology comes from a function
(`topology`): `star` (the hosts on one switch), `dumbbell` (two
switches, half the hosts on each) or MODULE:FUNCTION, called as
FUNCTION(net, experiment, **topo_args) on an empty dcb_net() network,
which adds hosts (RxeHost, NICs with experiment.host_opts()) and
switches and returns a Topology.  Switch ports are configured per
algorithm here, so the function needs only build.

With `flows`, every client replays its lines of a flow file instead
(ours, or the HPCC simulator's flow.txt, whose node N is host h(N+1)).

First the idle fabric's completion time of a 1-byte message, per pair
of hosts (rdmaflow --ping, one at a time, algo none), then per
algorithm of `algos` (their switch settings as cmp_incast's: none, dcqcn
and pcn with PFC on RoCE's band 3, ldcp without PFC) the same workload
(the same seeds), with fresh servers.  Every switch port marks (any can
be the bottleneck).

Raw files: base-rtt/HOST.csv (pings), base-rtt/run.json (the hop
counts of every pair); per algorithm ALGO/HOST.csv (rdmaflow's CSV),
ALGO/HOST.err (its summary), ALGO/srv-HOST.txt, ALGO/run.json (counters,
CPU guard).  analyze() writes fct.csv, the FCT table (fct.TABLE columns
and scale), and returns its rows; plot() draws fct.png.
"""

import collections
import importlib
import os
import statistics
import subprocess
import time

from .. import TOP, stats
from ..experiment import CpuGuard, Experiment, Param, load_run, log, save_run
from ._pfc import rate_bps
from .cmp_incast import BAND, CTRL_MAP, algo_opts, host_opts

RDMAFLOW = os.path.join(TOP, "tools", "rdmaflow")
CDFS = {"websearch": "WebSearch_distribution.txt",
        "hadoop": "FbHdp_distribution.txt"}
# bytes on the wire per byte of RDMA WRITE payload: a 1024-byte payload
# is a 1082-byte frame (Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4, FCS
# 4 and the RETH or immediate of a message's first or last packet aside)
WIRE = 1082 / 1024
PORT = 18515


class Topology:
    """What a topology function returns: the hosts (RxeHost nodes) that
    run the workload and the switches whose ports the experiment
    configures."""

    def __init__(self, hosts, switches):
        self.hosts, self.switches = list(hosts), list(switches)


def star(net, exp, hosts=None):
    """The hosts h1..hN (N = the hosts knob) on one switch sw."""
    n = int(hosts or exp.p["hosts"])
    sw = net.addSwitch("sw")
    hs = [net.addHost("h%d" % i, dcb=exp.host_opts())
          for i in range(1, n + 1)]
    for h in hs:
        net.addLink(h, sw)
    return Topology(hs, [sw])


def dumbbell(net, exp, hosts=None):
    """h1..hN, the first half on sw1, the rest on sw2, sw1 - sw2."""
    n = int(hosts or exp.p["hosts"])
    sw1, sw2 = net.addSwitch("sw1"), net.addSwitch("sw2")
    hs = [net.addHost("h%d" % i, dcb=exp.host_opts())
          for i in range(1, n + 1)]
    for k, h in enumerate(hs):
        net.addLink(h, sw1 if k < (n + 1) // 2 else sw2)
    net.addLink(sw1, sw2)
    return Topology(hs, [sw1, sw2])


TOPOLOGIES = {"star": star, "dumbbell": dumbbell}


def topology_function(name):
    """The function of a topology knob: a name of TOPOLOGIES or
    MODULE:FUNCTION (dcbnet.fabric:leaf_spine)."""
    if name in TOPOLOGIES:
        return TOPOLOGIES[name]
    mod, colon, fn = name.partition(":")
    if not colon or not mod or not fn:
        raise ValueError("topology=%s: %s or MODULE:FUNCTION"
                         % (name, ", ".join(sorted(TOPOLOGIES))))
    return getattr(importlib.import_module(mod), fn)


def flow_file(path, names, out):
    """Write the flow file @path for rdmaflow --flows to @out, its hosts
    by name: lines "SRC DST SIZE START" or the HPCC simulator's flow.txt
    (a first line with the number of flows, then "SRC DST PG DPORT SIZE
    START"), where a node number N that is not a host's name is the
    (N+1)-th host of @names (the simulator numbers the hosts first).
    Returns (flows, the last start in seconds); ValueError naming the
    line for a line of neither form or an unknown host."""
    def host(tok, ln):
        if tok in names:
            return tok
        if tok.isdigit() and int(tok) < len(names):
            return names[int(tok)]
        raise ValueError("%s:%d: no host '%s' (%s, or 0..%d)"
                         % (path, ln, tok, ", ".join(names),
                            len(names) - 1))

    n, last, first, rows = 0, 0.0, True, []
    with open(path) as f:
        for ln, line in enumerate(f, 1):
            w = line.split("#", 1)[0].split()
            if not w:
                continue
            if first and len(w) == 1 and w[0].isdigit():
                first = False
                continue
            first = False
            if len(w) not in (4, 6):
                raise ValueError("%s:%d: want SRC DST SIZE START or SRC "
                                 "DST PG DPORT SIZE START" % (path, ln))
            src, dst, size, start = w[0], w[1], w[-2], w[-1]
            try:
                last = max(last, float(start))
            except ValueError:
                raise ValueError("%s:%d: bad start '%s'" % (path, ln, start))
            rows.append("%s %s %s %s\n" % (host(src, ln), host(dst, ln), size,
                                           start))
            n += 1
    with open(out, "w") as f:
        f.writelines(rows)
    return n, last


def hop_counts(hosts):
    """{src: {dst: links on a shortest path}} between @hosts (nodes),
    by breadth-first search over the nodes' links."""
    def peers(node):
        for intf in node.intfList():
            link = intf.link
            if link is not None:
                yield (link.intf2 if link.intf1 is intf else link.intf1).node

    out = {}
    for h in hosts:
        dist, todo = {h: 0}, collections.deque([h])
        while todo:
            n = todo.popleft()
            for p in peers(n):
                if p not in dist:
                    dist[p] = dist[n] + 1
                    todo.append(p)
        out[h.name] = {d.name: dist[d] for d in hosts
                       if d is not h and d in dist}
    return out


class FctWorkload(Experiment):
    NAME = "fct_workload"
    DESCRIPTION = ("RDMA messages from a flow-size CDF at a load "
                   "(rdmaflow): FCT slowdown per size bin, per CC")
    PARAMS = (
        Param("algos", "none,dcqcn,pcn,ldcp", "algorithms to run, in this "
              "order (switch settings as cmp_incast's)"),
        Param("topology", "star", "star, dumbbell or MODULE:FUNCTION "
              "(FUNCTION(net, experiment, **topo_args) -> Topology)"),
        Param("topo_args", "", "KEY=VALUE,... passed to the topology "
              "function (strings)"),
        Param("hosts", 4, "hosts of star and dumbbell"),
        Param("rate", "100mbit", "line rate of every port and host NIC "
              "(cc/max_rate_mbps too)"),
        Param("cdf", "websearch", "flow sizes: websearch, hadoop "
              "(data/cdf) or a CDF file"),
        Param("scale", 0.01, "factor on the CDF's sizes (WebSearch's "
              "mean 1.71 MB x 0.01 = 17 KB)"),
        Param("load", 0.3, "each host's offered load, share of rate"),
        Param("seconds", 3, "seconds of arrivals per algorithm"),
        Param("flows", "", "a flow file to replay instead (rdmaflow "
              "--flows; the HPCC simulator's flow.txt, node N = host "
              "h(N+1)); sizes times scale, load and seconds unused"),
        Param("qps", 4, "QPs per (client, destination)"),
        Param("seed", 1, "seed of host hK's client: seed + K - 1, the "
              "same for every algorithm"),
        Param("bins", 10, "size bins: N (N bins of equal numbers of "
              "messages) or edges in bytes, comma-separated"),
        Param("pings", 20, "1-byte messages per pair measuring the base "
              "RTT"),
        Param("buffer", "1mb", "switch buffer pool"),
        Param("xoff", "16kb", "PFC static XOFF per (ingress port, band 3)"),
        Param("red", "5kb:20kb:0.01", "dcqcn: RED kmin:kmax:pmax"),
        Param("ldcp_k", "8kb", "ldcp: DCTCP step K"),
        Param("timeout_u", 20, "transport timeout 4.096 us * 2^u"),
        Param("duration", 300, "time budget (s): only sizes dcblab's guest "
              "timeout (10 x duration + 240 per run)"),
    )
    TITLE_KEYS = ("topology", "hosts", "rate", "cdf", "scale", "load",
                  "seconds")

    # ---------------------------------------------------------- knobs

    def algos(self):
        return [a for a in self.p["algos"].split(",") if a]

    def mbps(self):
        return rate_bps(self.p["rate"]) / 1e6

    def host_opts(self):
        """sch_dcb options of a host NIC."""
        return host_opts(self.p["rate"])

    def switch_opts(self, algo):
        pfc, ecn = algo_opts(algo, "pfc prio-pfc %d xoff %s"
                             % (BAND, self.p["xoff"]), self.p["red"],
                             self.p["ldcp_k"])
        return "rate %s %s buffer %s %s %s" % (
            self.p["rate"], CTRL_MAP, self.p["buffer"], pfc, ecn)

    def cdf_path(self):
        c = self.p["cdf"]
        return os.path.join(TOP, "data", "cdf", CDFS[c]) if c in CDFS \
            else os.path.abspath(c)

    def topo_args(self):
        kv = {}
        for w in self.p["topo_args"].split(","):
            if w:
                k, eq, v = w.partition("=")
                if not eq or not k:
                    raise ValueError("topo_args: want KEY=VALUE, not '%s'"
                                     % w)
                kv[k] = v
        return kv

    # ---------------------------------------------------------- run

    def run(self, out):
        from ..nodes import dcb_net
        from ..rdma import prepare

        for a in self.algos():
            algo_opts(a, "")	# an unknown algo fails here, not later
        if not os.access(RDMAFLOW, os.X_OK):
            raise RuntimeError("%s not built (make tools)" % RDMAFLOW)
        if not self.p["flows"] and not os.path.exists(self.cdf_path()):
            raise RuntimeError("cdf=%s: no file %s" % (self.p["cdf"],
                                                        self.cdf_path()))
        net = dcb_net(out, [a for a in self.algos() if a != "none"])
        topo = topology_function(self.p["topology"])(net, self,
                                                     **self.topo_args())
        if len(topo.hosts) < 2:
            raise ValueError("topology %s has %d hosts, want 2 or more"
                             % (self.p["topology"], len(topo.hosts)))
        self.net, self.topo = net, topo
        self.flows = None
        if self.p["flows"]:
            self.flows = os.path.join(out, "flows.txt")
            n, last = flow_file(self.p["flows"], [h.name for h in
                                                  topo.hosts], self.flows)
            log("flows: %d from %s, the last at %g s"
                % (n, self.p["flows"], last))
            self.flows_last = last
        try:
            net.start()
            prepare(topo.hosts)
            for h in topo.hosts:
                self.resolve([h], topo.hosts[0 if h is not topo.hosts[0]
                                             else 1].IP())
            log("topology %s up: %d hosts, %d switches"
                % (self.p["topology"], len(topo.hosts), len(topo.switches)))
            self.base_rtt(os.path.join(out, "base-rtt"))
            for algo in self.algos():
                self.run_algo(algo, os.path.join(out, algo))
            self.keep_raw(net)
        finally:
            net.stop()

    def configure(self, algo):
        from ..rdma import select

        select(self.topo.hosts, algo, int(self.mbps()))
        for sw in self.topo.switches:
            for intf in sw.intfList():
                if str(intf) != "lo":
                    intf.setDcb(self.switch_opts(algo))

    def servers(self, d):
        """An rdmaflow server on every host, listening; the processes."""
        procs = []
        for h in self.topo.hosts:
            f = open(os.path.join(d, "srv-%s.txt" % h.name), "w")
            procs.append((h, h.popen([RDMAFLOW, "server", "-p", str(PORT)],
                                     stdout=f, stderr=subprocess.STDOUT)))
            f.close()
        for h, p in procs:
            path = os.path.join(d, "srv-%s.txt" % h.name)
            deadline = time.monotonic() + 60
            while True:
                with open(path) as f:
                    if "listening" in f.read():
                        break
                if p.poll() is not None or time.monotonic() > deadline:
                    with open(path) as f:
                        raise RuntimeError("rdmaflow server on %s: %s"
                                           % (h.name, f.read().strip()))
                time.sleep(0.05)
        return procs

    @staticmethod
    def stop_servers(procs):
        for _, p in procs:
            if p.poll() is None:
                p.terminate()
        for _, p in procs:
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def dests(self, h):
        return ["%s=%s" % (d.name, d.IP()) for d in self.topo.hosts
                if d is not h]

    def clients(self, d, argv_of, limit):
        """A client per host at once (argv_of(host): its arguments after
        `rdmaflow client`), CSV to d/HOST.csv, stderr to d/HOST.err, each
        under `timeout` @limit; the hosts whose client failed."""
        procs = []
        for h in self.topo.hosts:
            argv = ["timeout", str(int(limit)), RDMAFLOW, "client",
                    "-o", os.path.join(d, "%s.csv" % h.name),
                    "--src", h.name, "-p", str(PORT),
                    "--ack-timeout", str(self.p["timeout_u"])] + \
                argv_of(h) + self.dests(h)
            err = open(os.path.join(d, "%s.err" % h.name), "w")
            procs.append((h, h.popen(argv, stdout=subprocess.DEVNULL,
                                     stderr=err)))
            err.close()
        failed = []
        for h, p in procs:
            if p.wait() != 0:
                failed.append(h.name)
        return failed

    def base_rtt(self, d):
        """Every host pings every other with 1-byte messages, one host
        at a time, algo none: the idle fabric."""
        os.makedirs(d, exist_ok=True)
        self.configure("none")
        srv = self.servers(d)
        failed = []
        # (the CPU guard's idle spinner: a ping's arrival is a timer, which
        # a halted virtual-time CPU would fire late by the host's load)
        guard = CpuGuard()
        try:
            guard.start()
            for h in self.topo.hosts:
                argv = [RDMAFLOW, "client", "--ping", str(self.p["pings"]),
                        "--size", "1", "--qps", "1", "-p", str(PORT),
                        "--src", h.name, "--ack-timeout",
                        str(self.p["timeout_u"]), "-o",
                        os.path.join(d, "%s.csv" % h.name)] + self.dests(h)
                with open(os.path.join(d, "%s.err" % h.name), "w") as err:
                    p = h.popen(["timeout", "120"] + argv,
                                stdout=subprocess.DEVNULL, stderr=err)
                if p.wait() != 0:
                    failed.append(h.name)
            busy = guard.check("base RTT")
        finally:
            guard.stop()
            self.stop_servers(srv)
        save_run(d, {"hosts": [h.name for h in self.topo.hosts],
                     "hops": hop_counts(self.topo.hosts),
                     "failed": failed, "cpu_busy": busy})
        if failed:
            raise RuntimeError("base RTT: rdmaflow --ping failed on %s "
                               "(see %s)" % (", ".join(failed), d))
        log("base RTT measured")

    def run_algo(self, algo, d):
        os.makedirs(d, exist_ok=True)
        log("%s: configuring" % algo)
        self.configure(algo)
        from ..rdma import hw_sum

        srv = self.servers(d)
        before = [stats.snapshot(sw) for sw in self.topo.switches]
        hosts = self.topo.hosts
        retry0 = hw_sum(hosts, "completer_retry_err")
        dur = float(self.p["seconds"])
        if self.flows:
            dur = self.flows_last

        def argv_of(h):
            if self.flows:
                return ["--flows", self.flows, "--scale",
                        str(self.p["scale"]), "--qps", str(self.p["qps"]),
                        "--stall", "30"]
            return ["--cdf", self.cdf_path(), "--rate", str(self.mbps()),
                    "--load", str(self.p["load"]), "--duration", str(dur),
                    "--scale", str(self.p["scale"]), "--qps",
                    str(self.p["qps"]), "--seed",
                    str(int(self.p["seed"]) + hosts.index(h)),
                    "--stall", "30"]
        guard = CpuGuard()
        try:
            guard.start()
            log("%s: %d clients, %s for %g s" % (
                algo, len(hosts), "flows of " + self.p["flows"]
                if self.flows else "load %s of %s" % (self.p["load"],
                                                       self.p["rate"]),
                dur))
            failed = self.clients(d, argv_of, 10 * dur + 120)
            busy = guard.check("%s: workload" % algo)
        finally:
            guard.stop()
            self.stop_servers(srv)
        after = [stats.snapshot(sw) for sw in self.topo.switches]
        retry = hw_sum(hosts, "completer_retry_err") - retry0

        def delta(key, band=None):
            return sum(a.total(key, band) - b.total(key, band)
                       for a, b in zip(after, before))
        doc = {"algo": algo, "hosts": [h.name for h in hosts],
               "switch": self.switch_opts(algo), "host": self.host_opts(),
               "cdf": None if self.flows else self.cdf_path(),
               "flows": self.p["flows"] or None,
               "scale": float(self.p["scale"]),
               "duration_s": dur, "failed": failed, "cpu_busy": busy,
               "pause_tx": delta("pause_tx", BAND),
               "drops": sum(delta(k) for k in stats.DROP_KEYS),
               "ecn_marked": delta("ecn_marked"), "retry": retry}
        save_run(d, doc)
        log("%s: done%s" % (algo, ", failed: " + " ".join(failed)
                            if failed else ""))

    # ---------------------------------------------------------- metrics

    def edges(self, sizes):
        from dcbanalysis import fct

        b = str(self.p["bins"])
        if "," not in b:
            return fct.quantile_edges(sizes, int(b))
        e = sorted(float(x) for x in b.split(",") if x)
        top = float(max(sizes))
        return [0.0] + [x for x in e if 0 < x < top] + [top]

    def base(self, out):
        """The base RTT (s): {hops: median} of the ping CSVs, or one
        median when base-rtt/run.json has no hop counts; and the hop
        counts {src: {dst: hops}} (or None)."""
        from dcbanalysis import fct

        d = os.path.join(out, "base-rtt")
        doc = load_run(d)
        pings = fct.read([os.path.join(d, "%s.csv" % h)
                          for h in doc["hosts"]])
        pings = pings[pings["completed"]]
        hops = doc.get("hops")
        if not hops:
            return statistics.median(pings["fct_s"]), None
        pings = pings.assign(hops=[hops[s][t] for s, t in
                                   zip(pings["src"], pings["dst"])])
        return {int(k): float(g["fct_s"].median())
                for k, g in pings.groupby("hops")}, hops

    def messages(self, out):
        """Every algorithm's messages as one DataFrame (fct.read)."""
        import pandas as pd
        from dcbanalysis import fct

        frames = []
        for algo in self.algos():
            d = os.path.join(out, algo)
            doc = load_run(d)
            frames.append(fct.read([os.path.join(d, "%s.csv" % h)
                                    for h in doc["hosts"]], algo))
        return pd.concat(frames, ignore_index=True)

    def analyze(self, out):
        from dcbanalysis import fct

        base, hops = self.base(out)
        msgs = self.messages(out)
        if hops:
            msgs["hops"] = [hops[s][t] for s, t in zip(msgs["src"],
                                                       msgs["dst"])]
        line = rate_bps(self.p["rate"])
        s = fct.slowdown(msgs, line, base, WIRE)
        tab = fct.table(s, self.edges(s["size"]))
        tot = fct.overall(s)
        tab.round({"p50": 4, "p95": 4, "p99": 4}).assign(
            scale=float(self.p["scale"])).to_csv(
            os.path.join(out, "fct.csv"), index=False)
        rows = [(m, v, u, a) for m, v, u, a in fct.tidy_rows(tab, tot)]
        # one per hop count (.Nhop) when the topology has several
        bases = [("base_rtt.%dhop" % k, v) for k, v in sorted(base.items())] \
            if isinstance(base, dict) and len(base) > 1 else \
            [("base_rtt", statistics.median(base.values())
              if isinstance(base, dict) else base)]
        for algo in self.algos():
            doc = load_run(os.path.join(out, algo))
            m = msgs[msgs["algo"] == algo]
            if doc["duration_s"] > 0:
                offered = m["size"].sum() * 8 / (doc["duration_s"] * line *
                                                 len(doc["hosts"]))
                rows.append(("offered_load", round(float(offered), 4), "1",
                             algo))
            if "retry" in doc:	# (not in the first runs' files)
                rows.append(("gbn_retries", doc["retry"], "retries", algo))
            rows += [(m, round(v * 1e6, 1), "us", algo) for m, v in bases]
            rows += [("size_scale", doc["scale"], "1", algo),
                     ("messages_incomplete", int((~m["completed"]).sum()),
                      "messages", algo),
                     ("pause_tx", doc["pause_tx"], "frames", algo),
                     ("drops", doc["drops"], "packets", algo),
                     ("ecn_marked", doc["ecn_marked"], "packets", algo),
                     ("procs_failed", len(doc["failed"]), "processes",
                      algo),
                     ("cpu_busy", doc["cpu_busy"], "%", algo)]
        return rows

    def plot(self, out):
        """fct.png: slowdown against message size (p50, p95, p99), one
        line per algorithm, from fct.csv (analyze() writes it)."""
        import pandas as pd
        from dcbanalysis import fct, plots

        path = os.path.join(out, "fct.csv")
        if not os.path.exists(path):
            self.analyze(out)
        tab = pd.read_csv(path)
        png = os.path.join(out, "fct.png")
        fct.plot(tab, png, plots.title(
            self.NAME, "FCT slowdown by message size (bins of %s)"
            % self.p["bins"], self.p, self.TITLE_KEYS))
        return [png]

