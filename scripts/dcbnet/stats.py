# SPDX-License-Identifier: GPL-2.0
"""The one reader of sch_dcb's statistics for the experiment layer.

Both forms come from tools/dcbmon, whose names are the uAPI's field list
(include/dcb_stats_fields.h: every member of struct tc_dcb_stats, then
the port and pool counters), so nothing here types a counter's name
or position:

  snapshot(node)   one reading of every root sch_dcb of the node's
                   namespace (`dcbmon -s -` run in it): a Snapshot
  Monitor          dcbmon sampling ports of several nodes into a CSV
                   file while traffic runs; series(path) reads it back

plus the kernel's receive-backlog drops (softnet_drops) and packets
dropped waiting for ARP (neigh_drops), which count for every namespace
at once.
"""

import csv
import os
import subprocess
import time

from . import TOP

DCBMON = os.path.join(TOP, "tools", "dcbmon")

# The counters of a packet sch_dcb dropped, each packet once, at the
# port that dropped it: a pool's drops_full (shared part full) is a
# cause of some of its ports' drops_tail and an ingress port's in_drops
# the origin of some drops_headroom, so neither is added again.
DROP_KEYS = ("drops_tail", "drops_wred", "drops_headroom")


class Snapshot:
    """One reading: {(dev, key, band): value}, band None for a port's
    totals, its pool (pool.KEY) and device counters (rx_dropped,
    tx_dropped)."""

    def __init__(self, values):
        self.values = values

    def __getitem__(self, k):
        return self.values[k]

    def get(self, dev, key, band=None):
        """A value; KeyError names what the module did not report."""
        try:
            return self.values[(dev, key, band)]
        except KeyError:
            raise KeyError("sch_dcb statistics lack %s%s on %s"
                           % (key, "" if band is None else
                              " of band %d" % band, dev)) from None

    def ports(self):
        """The devices with a root sch_dcb, in name order."""
        return sorted({d for (d, k, b) in self.values if k == "pool.id"})

    def total(self, key, band=None, devs=None):
        """key summed over the ports devs (default: all)."""
        devs = self.ports() if devs is None else devs
        return sum(self.get(d, key, band) for d in devs)

    def drops(self):
        """{where: count} of the counters of lost packets, each packet
        counted once: each port's DROP_KEYS (totals) and every device's
        rx/tx_dropped."""
        out = {}
        for d in self.ports():
            for k in DROP_KEYS:
                out["%s:%s" % (d, k)] = self.get(d, k)
        for (d, k, b), v in self.values.items():
            if k in ("rx_dropped", "tx_dropped"):
                out["%s:%s" % (d, k)] = v
        return out

    def backlog(self):
        """Bytes queued on all ports."""
        return self.total("backlog_bytes")


def parse(text):
    """The "LABEL:DEV:KEY[:BAND] VALUE" lines of `dcbmon -s` as a
    Snapshot (the label dropped: one namespace per reading)."""
    res = {}
    for line in text.splitlines():
        key, _, val = line.strip().rpartition(" ")
        parts = key.split(":")
        if len(parts) < 3 or not val.isdigit():
            continue
        band = int(parts[3]) if len(parts) > 3 else None
        res[(parts[1], parts[2], band)] = int(val)
    return Snapshot(res)


def snapshot(node):
    """One reading of the node's namespace (a Mininet node)."""
    out, err, rc = node.pexec([DCBMON, "-s", "-"])
    if rc != 0:
        raise RuntimeError("%s: dcbmon -s: %s" % (node.name, err.strip()))
    return parse(out)


def drops_delta(a, b):
    """{where: growth} of the drop counters that grew from a to b."""
    da, db = a.drops(), b.drops()
    return {k: v - da.get(k, 0) for k, v in db.items() if v != da.get(k, 0)}


def neigh_drops():
    """Packets dropped while waiting for a neighbour (ARP, NDISC) to
    resolve, all namespaces (/proc/net/stat/*_cache's
    unresolved_discards, per CPU)."""
    n = 0
    for t in ("arp_cache", "ndisc_cache"):
        try:
            with open("/proc/net/stat/" + t) as f:
                head = f.readline().split()
                i = head.index("unresolved_discards")
                n += sum(int(line.split()[i], 16) for line in f
                         if line.strip())
        except (OSError, ValueError):
            pass
    return n


def softnet_drops():
    """Packets the kernel dropped from a full receive backlog, all CPUs
    (/proc/net/softnet_stat's second column; not per namespace)."""
    with open("/proc/net/softnet_stat") as f:
        return sum(int(line.split()[1], 16) for line in f if line.strip())


class Monitor:
    """dcbmon sampling the root sch_dcb of ports into DIR/dcbmon.csv,
    started with start(), ended with stop().  ports: (label, node, dev)
    triples.  Each node's namespace is attached under a name of this
    run (`ip netns attach`, removed by stop()), which is the CSV's netns
    column; DIR/ports.tsv maps each label to its "netns:dev"."""

    def __init__(self, out, ports, interval_ms=20):
        self.path = os.path.join(out, "dcbmon.csv")
        self.ports = list(ports)
        self.interval_ms = interval_ms
        self.proc = None
        self.names = []
        with open(os.path.join(out, "ports.tsv"), "w") as f:
            for label, node, dev in self.ports:
                f.write("%s\t%s:%s\n" % (label, self.netns(node), dev))

    @staticmethod
    def netns(node):
        return "dcbnet%d-%s" % (os.getpid(), node.name)

    def start(self):
        for node in {n for _, n, _ in self.ports}:
            subprocess.run(["ip", "netns", "attach", self.netns(node),
                            str(node.pid)], check=True)
            self.names.append(self.netns(node))
        argv = [DCBMON, "-i", str(self.interval_ms), "-o", self.path]
        argv += ["%s:%s" % (self.netns(n), d) for _, n, d in self.ports]
        self.proc = subprocess.Popen(argv, stderr=subprocess.PIPE)

    def start_aligned(self, timeout=30):
        """start(), then the wall clock (time.time()) of dcbmon's t_ms 0:
        its clock counts from its own start, which a busy guest delays,
        so it is read off its first rows (error below one interval)."""
        self.start()
        deadline = time.monotonic() + timeout
        while True:
            rows = self.rows()
            if len(rows) >= 2:
                return time.time() - int(rows[-1].split(",")[0]) / 1000
            if time.monotonic() > deadline:
                raise RuntimeError("dcbmon wrote no samples in %d s"
                                   % timeout)
            time.sleep(0.05)

    def rows(self):
        """The CSV's data lines written so far."""
        try:
            with open(self.path) as f:
                return [ln for ln in f.read().splitlines()[1:] if ln]
        except OSError:
            return []

    def stop(self):
        if self.proc is not None:
            self.proc.terminate()
            _, err = self.proc.communicate()
            rc, self.proc = self.proc.returncode, None
            if rc not in (0, -15):
                raise RuntimeError("dcbmon: %s" % err.decode().strip())
        for n in self.names:
            subprocess.run(["ip", "netns", "delete", n])
        self.names = []


def series(path):
    """dcbmon's CSV as a list of dicts: t_ms, netns, dev and band as
    they are, every counter an int."""
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            for k, v in r.items():
                if k not in ("netns", "dev", "band") and v.isdigit():
                    r[k] = int(v)
            rows.append(r)
    return rows
