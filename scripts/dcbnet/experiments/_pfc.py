# SPDX-License-Identifier: GPL-2.0
"""What the PFC experiments of two switches share (pfc_tree,
pfc_unfair): the knobs of their fabric, its sch_dcb options, UDP
senders that run until stopped, tc flower sinks that count, counters
of every node before and after, and their rows."""

import os
import subprocess
import tempfile
import time

from .. import TOP, stats
from ..experiment import Param, log, save_run, wait_for
from ._knobs import line_rate, pfc_delay, pool, udp_pkt, xoff

BAND = 3
TOS = 0x60		# DSCP 24 -> band 3
UDP_OVERHEAD = 42	# UDP 8 + IPv4 20 + Ethernet 14 bytes


def rate_bps(s):
    """tc's rate syntax (100mbit, 1gbit, 500kbit, bits/s) in bit/s."""
    s = s.strip().lower()
    for suffix, mult in (("gbit", 1e9), ("mbit", 1e6), ("kbit", 1e3),
                         ("bit", 1)):
        if s.endswith(suffix):
            return float(s[:-len(suffix)]) * mult
    return float(s)


def snap_json(s):
    """A Snapshot as JSON: {"DEV:KEY[:BAND]": value}."""
    return {"%s:%s%s" % (d, k, "" if b is None else ":%d" % b): v
            for (d, k, b), v in s.values.items()}


def snap_load(doc):
    return stats.parse("\n".join("x:%s %d" % kv for kv in doc.items()))


# the knobs both experiments have, as pfc_incast's
FABRIC_PARAMS = (
    line_rate(),
    Param("pfc", "on", "on: PFC on band 3; off: same buffer, no PFC"),
    pool("1mb"),
    xoff("16kb"),
    pfc_delay(),
    Param("quanta", "default", "pause time sent (512 bit times; "
          "default: sch_dcb's, 65535)"),
    udp_pkt(),
)

FOREVER = 10 ** 9	# datagrams of a sender that runs until stopped


def switch_opts(p):
    """sch_dcb options of every switch port from the fabric's knobs."""
    o = "rate %s dscp-map 0:7 buffer %s ecn off" % (p["rate"], p["buffer"])
    if p["pfc"] == "off":
        return o + " pfc off"
    if p["pfc"] != "on":
        raise ValueError("pfc=%s: on or off" % p["pfc"])
    o += " pfc prio-pfc %d xoff %s" % (BAND, p["xoff"])
    for k in ("delay", "quanta"):
        if p[k] != "default":
            o += " %s %s" % (k, p[k])
    return o


def host_opts(p):
    # limit above the socket send buffer, so that a paused sender blocks
    return "rate %s dscp-map 0:7 limit 2mb" % p["rate"]


def sink_add(node, ports):
    """A tc flower rule at node's ingress per UDP port: drops and
    counts."""
    dev = str(node.defaultIntf())
    node.cmd("tc qdisc add dev %s clsact" % dev)
    for port in ports:
        r = node.cmd("tc filter add dev %s ingress pref 10 protocol ip "
                     "flower ip_proto udp dst_port %d action drop && "
                     "echo ok" % (dev, port))
        if "ok" not in r:
            raise RuntimeError("tc flower sink on %s: %s"
                               % (node.name, r.strip()))


def sink_counts(node):
    """({UDP port: datagrams taken so far}, monotonic time of reading:
    the middle of the command's run, whose start in the guest takes a
    while)."""
    t0 = time.monotonic()
    text = node.cmd("tc -s filter show dev %s ingress" % node.defaultIntf())
    t = (t0 + time.monotonic()) / 2
    res, port = {}, None
    for w in (line.split() for line in text.splitlines()):
        if w[:1] == ["dst_port"]:
            port = int(w[1])
        elif w[:1] == ["Sent"] and port is not None:
            res[port] = int(w[3])
            port = None
    return res, t


class Senders:
    """tools/udpflow senders at line rate (back to back on a blocking
    socket, so the NIC's shaper and PAUSE set their pace) until stop().
    start(flows) starts [(host, dst host, port)] together."""

    def __init__(self, scratch, pkt):
        self.scratch, self.pkt, self.procs, self.n = scratch, pkt, [], 0

    def start(self, flows):
        self.n += 1
        go = os.path.join(self.scratch, "go%d" % self.n)
        for h, dst, port in flows:
            argv = [os.path.join(TOP, "tools", "udpflow"), "send", dst.IP(),
                    str(port), "--count", str(FOREVER), "--interval", "0",
                    "--tos", "0x%x" % TOS, "--len", str(self.pkt)]
            self.procs.append((h.name, h.popen(
                ["bash", "-c", ': >"$1.ready-$$"; while [ ! -e "$1" ]; do '
                 'sleep 0.01; done; shift; exec "$@"', "_", go] + argv,
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)))
        ready = os.path.basename(go) + ".ready-"
        wait_for(lambda: len([f for f in os.listdir(self.scratch)
                              if f.startswith(ready)]) >= len(flows), 60,
                 "the senders to start")
        open(go, "w").close()

    def stop(self):
        """End every sender; RuntimeError if one had failed already."""
        errs = []
        for name, p in self.procs:
            if p.poll() is not None:
                errs.append("%s: udpflow: %s" % (
                    name, p.stderr.read().decode().strip()))
            else:
                p.terminate()
        for _, p in self.procs:
            p.wait()
            p.stderr.close()
        self.procs = []
        if errs:
            raise RuntimeError("; ".join(errs))


def window(guard, label, secs, *sinks):
    """Sink counts of each of sinks (nodes) at the start and the end of
    a window of secs seconds, with the CPU guard over it: ({port:
    datagrams in the window}, its length in s between the first sink's
    two readings, the guest's busy %)."""
    guard.start()
    try:
        c0 = [sink_counts(n) for n in sinks]
        time.sleep(secs)
        c1 = [sink_counts(n) for n in sinks]
        busy = guard.check(label)
    finally:
        guard.stop()
    got = {}
    for (a, _), (b, _) in zip(c0, c1):
        for port, v in b.items():
            got[port] = v - a.get(port, 0)
    return got, c1[0][1] - c0[0][1], busy


class _NoMonitor:
    def start(self):
        pass

    def stop(self):
        pass


def monitor(out, ports, interval_ms):
    """stats.Monitor of ports every interval_ms, or with 0 none: dcbmon
    reading every port stalls the one-CPU guest's forwarding for a
    while, and at 20 ms a lone line-rate flow through two switches was
    paused every sample (93 Mbit/s instead of 99)."""
    if interval_ms <= 0:
        return _NoMonitor()
    return stats.Monitor(out, ports, interval_ms)


def drain(nodes, timeout=60):
    wait_for(lambda: all(stats.snapshot(x).backlog() == 0 for x in nodes),
             timeout, "the queues to drain")


def wait_or_warn(cond, timeout, what):
    """Wait for cond(); False (logged) after timeout seconds."""
    try:
        wait_for(cond, timeout, what, step=0.1)
        return True
    except RuntimeError as e:
        log("WARNING: %s" % e)
        return False


def snaps(nodes):
    return {x.name: snap_json(stats.snapshot(x)) for x in nodes}


class Counters:
    """Every node's counters, and the guest's softnet and neighbour-queue
    drops, from the making to doc(): what run.json keeps of them
    ("before", "after", "softnet_drops", "neigh_drops"; load() and
    drop_rows() read them)."""

    def __init__(self, nodes):
        self.nodes = nodes
        self.before = snaps(nodes)
        self.soft0, self.neigh0 = stats.softnet_drops(), stats.neigh_drops()

    def doc(self):
        return {"before": self.before, "after": snaps(self.nodes),
                "softnet_drops": stats.softnet_drops() - self.soft0,
                "neigh_drops": stats.neigh_drops() - self.neigh0}


def load(doc):
    """(before, after): {node: Snapshot} of a run.json."""
    return ({k: snap_load(v) for k, v in doc["before"].items()},
            {k: snap_load(v) for k, v in doc["after"].items()})


def drop_rows(before, after, doc):
    """drops_all and drops_all.NODE:DEV:COUNTER of every counter of a
    lost packet that grew, with the run's softnet and neighbour-queue
    drops (doc's softnet_drops, neigh_drops) and devices' errors (its
    netdev_errors, a NIC's missed frames: pfc_incast's)."""
    drops = {}
    for node in after:
        for k, v in stats.drops_delta(before[node], after[node]).items():
            drops["%s:%s" % (node, k)] = v
    for k in ("softnet", "neigh"):
        if doc.get(k + "_drops"):
            drops[k] = doc[k + "_drops"]
    for k, v in doc.get("netdev_errors", {}).items():
        drops[k + ":netdev_errors"] = v
    return [("drops_all", sum(drops.values()), "packets")] + \
        [("drops_all." + k, v, "packets") for k, v in sorted(drops.items())]


def wire_mbps(datagrams, pkt, secs):
    """Mbit/s on the wire (UDP, IPv4 and Ethernet headers) of datagrams
    of pkt payload bytes over secs."""
    return 8 * datagrams * (pkt + UDP_OVERHEAD) / secs / 1e6 if secs else 0


def nic_rate_lines(out, want):
    """[(label, t_s, Mbit/s)]: the rate each port of want ({label:
    "netns:dev"}) dequeued, between dcbmon samples."""
    from dcbanalysis.scenarios._pfc import series

    lines = []
    for k, (t, v) in series(out, want, "deq_bytes", "all").items():
        ok = [i for i in range(1, len(t)) if t[i] > t[i - 1]]
        if ok:
            lines.append((k, [t[i] for i in ok],
                          [8 * (v[i] - v[i - 1]) / 1e6 / (t[i] - t[i - 1])
                           for i in ok]))
    return lines


def run_two_switches(exp, out, build, measure):
    """Run a PFC experiment on two switches sw1 and sw2 with the fabric's
    sch_dcb options: build(net, sw1, sw2, host_opts) adds the hosts and
    links, measure(net, out, senders) runs the traffic with a Senders
    and returns what run.json keeps."""
    from ..nodes import dcb_net

    sw_opts = switch_opts(exp.p)
    net = dcb_net(out, rxe=False)
    sw1 = net.addSwitch("sw1", dcb=sw_opts)
    sw2 = net.addSwitch("sw2", dcb=sw_opts)
    build(net, sw1, sw2, host_opts(exp.p))
    scratch = tempfile.mkdtemp(prefix=exp.NAME + ".")
    senders = Senders(scratch, int(exp.p["pkt"]))
    try:
        net.start()
        doc = measure(net, out, senders)
        exp.keep_raw(net)
    finally:
        try:
            senders.stop()
        finally:
            net.stop()
            subprocess.run(["rm", "-rf", scratch])
    save_run(out, doc)
