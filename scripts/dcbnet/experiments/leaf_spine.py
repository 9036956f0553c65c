# SPDX-License-Identifier: GPL-2.0
"""leaf_spine: RDMA QPs spread over the spines of a leaf-spine fabric
by ECMP (dcbnet.fabric).

`leaves` leaves of `hosts` hosts each and `spines` spines; host links at
`rate` Mbit/s, leaf-spine links at hosts x rate / (spines x oversub).
Every switch routes, with a multipath route over the spines for each
host behind another leaf, hashing the 5-tuple; every port is sch_dcb at
its link's rate, PFC on RoCE's bands 3 and 6, and the ports of a switch
share one buffer pool of `buffer`.  Each pair of `pairs` runs one
ib_write_bw with `qps` QPs of `iters` writes of `size` bytes (cc/algo
`algo`); rxe gives each QP its own UDP source port, so the QPs of a
pair spread over the spines.

Raw files: run.json (the fabric, the times to build, start and stop the
network, the CPU guard's share, the switches' counters before and after
the traffic, each QP's numbers and the UDP source port rxe derives from
them), bw-*.cli/.srv (perftest), capture.pcap (the RoCEv2 packets the
first pair's receiver got, with `capture`).  Rows: the network's times,
the ECMP report (fabric.spread: bytes and share per spine, per leaf
uplink, every link's utilisation), the payload asked for and the
receivers' delivered bytes, the UDP source ports rxe used, failures,
drops, the guest's CPU share.
"""

import os
import time

from ..experiment import CpuGuard, Experiment, Param, load_run, log, save_run
from .. import fabric

BAND = 3


class LeafSpine(Experiment):
    NAME = "leaf_spine"
    DESCRIPTION = ("leaf-spine fabric with ECMP: RDMA QPs between leaves "
                   "spread over the spines; per-spine bytes, link "
                   "utilisation")
    PARAMS = (
        Param("leaves", 4, "leaf switches"),
        Param("spines", 2, "spine switches"),
        Param("hosts", 4, "hosts per leaf"),
        Param("rate", 100, "host link rate (Mbit/s)"),
        Param("oversub", 1, "oversubscription: a leaf's host capacity over "
              "its uplink capacity"),
        Param("buffer", "2mb", "each switch's shared buffer pool (tc size)"),
        Param("pairs", "auto", "client:server host pairs, h1:h5,h9:h13; "
              "auto: the first host of each odd leaf to the next leaf's"),
        Param("qps", 8, "QPs per pair (ib_write_bw -q)"),
        Param("size", 65536, "bytes per write"),
        Param("iters", 20, "writes per QP (ib_write_bw -n)"),
        Param("algo", "none", "cc/algo of every host"),
        Param("capture", 1, "1: capture the RoCEv2 packets at the first "
              "pair's receiver (UDP source ports per QP)"),
    )

    def fabric(self):
        p = self.p
        return fabric.leaf_spine(int(p["leaves"]), int(p["spines"]),
                                 int(p["hosts"]), float(p["rate"]),
                                 float(p["oversub"]))

    def run(self, out):
        from .. import rdma

        p = self.p
        f = self.fabric()
        pairs = fabric.host_pairs(f, p["pairs"])
        if not pairs:
            raise ValueError("no host pairs")
        sw_opts = "buffer %s %s" % (p["buffer"], fabric.SWITCH_OPTS)
        log("leaf-spine: %d leaves x %d hosts, %d spines, %s Mbit/s hosts, "
            "oversubscription %s" % (int(p["leaves"]), int(p["hosts"]),
                                     int(p["spines"]), p["rate"],
                                     p["oversub"]))
        t0 = time.monotonic()
        net, hosts, paths = fabric.start(out, f, algo=p["algo"],
                                         switch_opts=sw_opts)
        doc = {"knobs": p, "fabric": f.describe(),
               "devs": {str(k): v for k, v in net.devs.items()},
               "pairs": pairs, "build_s": time.monotonic() - t0,
               "hosts": [h.name for h in hosts],
               "ips": {h.name: h.IP() for h in hosts}}
        log("network of %d hosts, %d switches built and started in %.1f s"
            % (len(hosts), len(net.switches), doc["build_s"]))
        try:
            self._traffic(net, f, pairs, out, doc, rdma)
        finally:
            t1 = time.monotonic()
            net.stop()
            doc["stop_s"] = time.monotonic() - t1
            log("network stopped in %.1f s" % doc["stop_s"])
            save_run(out, doc)

    def _traffic(self, net, f, pairs, out, doc, rdma):
        p = self.p
        doc["multipath"] = {lf: len(fabric.multipath_routes(net[lf]))
                            for lf in f.role_nodes("leaf")}
        used = sorted({h for pr in pairs for h in pr},
                      key=lambda n: f.hosts.index(n))
        for s, d in pairs:
            self.resolve([net[s]], net[d].IP())
        rdma.prepare([net[h] for h in used])
        rdma.select([net[h] for h in used], p["algo"], int(float(p["rate"])))
        cap = None
        if int(p["capture"]):
            cap = rdma.Capture(net[pairs[0][1]], out)
            cap.start()
        bw = rdma.Perftest(out, size=int(p["size"]), iters=int(p["iters"]),
                           args=["-q", str(int(p["qps"]))], limit=600)
        for k, (s, d) in enumerate(pairs):
            bw.add(net[s], net[d], rdma.BASE_PORT + k)
        guard = CpuGuard()
        act = fabric.Activity(net)
        before = fabric.reading(net)
        guard.start()
        act.start()
        try:
            t0 = time.monotonic()
            bw.start(together=True)
            log("%d pairs x %s QPs x %s writes of %s bytes"
                % (len(pairs), p["qps"], p["iters"], p["size"]))
            failed = bw.wait()
            doc["traffic_s"] = time.monotonic() - t0
            doc["cpu_busy"] = guard.check("leaf_spine: %d pairs"
                                          % len(pairs))
        finally:
            act.stop()
            bw.kill()
            guard.stop()
            if cap is not None:
                cap.stop()
        doc["active_s"], _ = act.span()
        doc["after"] = fabric.reading(net)
        doc["before"] = before
        doc["failed"] = failed
        doc["drops"] = self._drops(net)
        doc["delivered"] = {}
        for s, d in pairs:
            sw = f.attachment(d)
            dev = str(net[sw].connectionsTo(net[d])[0][0])
            doc["delivered"][d] = [sw, dev]
        qps = {}
        for s, d in pairs:
            qps[s] = [[lq, rq, fabric.rdma_sport(lq, rq)] for lq, rq in
                      fabric.perftest_qpns(bw.out(net[s]))]
        doc["qps"] = qps
        doc["iterations"] = {s: rdma.iterations(bw.out(net[s]),
                                                int(p["size"]))
                             for s, _ in pairs}

    @staticmethod
    def _drops(net):
        from .. import stats

        n = 0
        for sw in net.switches + net.hosts:
            snap = stats.snapshot(sw)
            n += sum(v for k, v in snap.drops().items()
                     if not k.endswith("_dropped"))
        return n

    def analyze(self, out):
        doc = load_run(out)
        p = doc["knobs"]
        f = fabric.Fabric()
        for n, r in doc["fabric"]["nodes"].items():
            f.add_node(n, r)
        for a, b, rate, delay, err in doc["fabric"]["links"]:
            f.add_link(a, b, rate, delay, err)
        devs = {int(k): v for k, v in doc["devs"].items()}
        rows = [("build_time", doc["build_s"], "s"),
                ("stop_time", doc["stop_s"], "s")]
        if "after" not in doc:
            return rows
        rows += fabric.spread(f, devs, doc["before"], doc["after"],
                              doc["active_s"])
        rows += [("traffic_time", doc["traffic_s"], "s"),
                 ("active", doc["active_s"], "s"),
                 ("cpu_busy", doc["cpu_busy"], "%"),
                 ("flows_failed", len(doc["failed"]), "flows"),
                 ("drops", doc["drops"], "packets"),
                 ("multipath_routes", min(doc["multipath"].values()),
                  "routes")]
        want = int(p["qps"]) * int(p["iters"]) * int(p["size"])
        got = []
        for d, (sw, dev) in doc["delivered"].items():
            n = doc["after"]["dcb"][sw][dev] - doc["before"]["dcb"][sw][dev]
            got.append(n)
            rows.append(("delivered_bytes." + d, n, "bytes"))
        rows += [("payload_bytes", want, "bytes"),
                 ("delivered_min", min(got) / want, "1")]
        its = [v for v in doc["iterations"].values()]
        rows.append(("iterations_min", min(its) if its else 0,
                     "iterations"))
        # (each host's device numbers its QPs from the same first QPN,
        # so pairs repeat each other's ports; their addresses differ)
        per_pair = [len({sp for _, _, sp in v}) for v in doc["qps"].values()]
        nq = sum(len(v) for v in doc["qps"].values())
        rows += [("qps", nq, "QPs"),
                 ("udp_sports", min(per_pair) if per_pair else 0, "ports")]
        pcap = os.path.join(out, "capture.pcap")
        if os.path.exists(pcap):
            seen = fabric.pcap_sports(pcap)
            src = doc["pairs"][0][0]
            ip = doc["ips"][src]
            mine = {k: v for k, v in seen.items() if k[0] == ip}
            rows += [("capture_qps", len(mine), "QPs"),
                     ("capture_sports", len(set().union(*mine.values()))
                      if mine else 0, "ports"),
                     ("capture_sports_per_qp",
                      max(len(v) for v in mine.values()) if mine else 0,
                      "ports")]
            want_sp = {sp for _, _, sp in doc["qps"].get(src, [])}
            got_sp = set().union(*mine.values()) if mine else set()
            rows.append(("sports_predicted", len(want_sp & got_sp),
                         "ports"))
        return rows
