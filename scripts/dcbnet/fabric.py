# SPDX-License-Identifier: GPL-2.0
"""Fabrics: a topology as data, leaf-spine (Clos) fabrics with ECMP, and
what their links carried.

A Fabric describes a topology without Mininet: its hosts and switches by
name, the role of each (host, leaf, spine, switch), and its links with a
rate (bit/s) and a delay (s).  leaf_spine() makes one; dcbnet.hpcc reads
the HPCC simulator's topology.txt into one.  build() adds it to a Mininet
network of the lab's classes (dcb_net()): every switch a DcbSwitch with
ECMP (a multipath route over every shortest path's first hop, hashing
the 5-tuple), every port sch_dcb shaped to its link's rate, every host
an RxeHost whose NIC is shaped alike.  All ports of a switch share its
namespace's buffer pool (sch_dcb's pool 0).

    from dcbnet import fabric
    f = fabric.leaf_spine(leaves=4, spines=2, hosts_per_leaf=4,
                          rate_mbps=100, oversub=2)
    net, hosts, paths = fabric.start(out, f, algo="dcqcn")
    ...                          # paths[("h1", "h5")].switches == 3
    net.stop()

RoCEv2 spreads over the spines because rxe gives every QP its own UDP
source port (Documentation/dcblab.rst, "Fabrics"), which the leaves'
multipath routes hash with the rest of the 5-tuple.  spread() turns two
readings of the switches' counters into the ECMP report: bytes and share
of each spine and of each leaf uplink, and every link's utilisation.
"""

import collections

ROLES = ("host", "leaf", "spine", "switch")

# sch_dcb options of a fabric port after its `rate`: perftest's TCP
# control above RoCE, RoCE data (band 3) and CNPs (band 6) lossless
SWITCH_OPTS = "dscp-map 0:7 pfc prio-pfc 3,6 xoff 16kb"
HOST_OPTS = "dscp-map 0:7 limit 2mb"


class Link(collections.namedtuple("Link", "a b rate_bps delay_s error_rate")):
    """A full-duplex link between the nodes a and b: rate_bps each way,
    delay_s of propagation, error_rate (packets, HPCC's; the lab loses
    none on purpose and keeps it only to say what a file asked for)."""

    __slots__ = ()

    def __new__(cls, a, b, rate_bps, delay_s=0.0, error_rate=0.0):
        return super().__new__(cls, a, b, float(rate_bps), float(delay_s),
                               float(error_rate))


Path = collections.namedtuple("Path", "switches links ecmp rate_bps delay_s")
Path.__doc__ = """The shortest paths from one host to another: switches
crossed, links crossed, how many equal-cost paths there are, the lowest
link rate on any of them (bit/s) and the highest sum of their links'
delays (s)."""


class Fabric:
    """A topology as data: nodes (name -> role, in the order added),
    links (Link), ids (name -> the number a file gave the node, if any).
    Names are Mininet's: short, so that NAME-ethNN fits an interface
    name (15 bytes)."""

    def __init__(self):
        self.roles = {}
        self.links = []
        self.ids = {}

    def add_node(self, name, role, ident=None):
        if role not in ROLES:
            raise ValueError("%s: role %s, not one of %s"
                             % (name, role, ", ".join(ROLES)))
        if name in self.roles:
            raise ValueError("two nodes named %s" % name)
        if len(name) > 9:
            raise ValueError("node name %s: at most 9 characters (its "
                             "interfaces are NAME-ethNN)" % name)
        self.roles[name] = role
        if ident is not None:
            self.ids[name] = ident
        return name

    def add_link(self, a, b, rate_bps, delay_s=0.0, error_rate=0.0):
        for n in (a, b):
            if n not in self.roles:
                raise ValueError("link %s-%s: no node %s" % (a, b, n))
        if a == b:
            raise ValueError("link from %s to itself" % a)
        if rate_bps <= 0:
            raise ValueError("link %s-%s: rate %s bit/s" % (a, b, rate_bps))
        if delay_s < 0:
            raise ValueError("link %s-%s: delay %s s" % (a, b, delay_s))
        link = Link(a, b, rate_bps, delay_s, error_rate)
        self.links.append(link)
        return link

    @property
    def hosts(self):
        return [n for n, r in self.roles.items() if r == "host"]

    @property
    def switches(self):
        return [n for n, r in self.roles.items() if r != "host"]

    def role_nodes(self, role):
        return [n for n, r in self.roles.items() if r == role]

    def adjacency(self):
        """{node: [(peer, Link)]} in link order."""
        adj = {n: [] for n in self.roles}
        for link in self.links:
            adj[link.a].append((link.b, link))
            adj[link.b].append((link.a, link))
        return adj

    def attachment(self, host):
        """The switch a host is linked to (ValueError unless exactly one:
        the lab's hosts have one interface)."""
        peers = [p for p, _ in self.adjacency()[host]]
        if len(peers) != 1 or self.roles[peers[0]] == "host":
            raise ValueError("host %s is linked to %s: the lab's hosts have "
                             "one link, to a switch" % (host, peers or
                                                        "nothing"))
        return peers[0]

    def check(self):
        """ValueError unless build() can make the fabric: every host on
        one link to a switch, every host reachable from every other."""
        for h in self.hosts:
            self.attachment(h)
        hosts = self.hosts
        if hosts:
            seen = _bfs(self.adjacency(), hosts[0], through=self._transit)
            lost = [h for h in hosts if h not in seen]
            if lost:
                raise ValueError("hosts %s cannot reach %s"
                                 % (", ".join(lost[:5]), hosts[0]))

    def _transit(self, node):
        return self.roles[node] != "host"

    def paths(self, pairs=None):
        """{(src, dst): Path} of the host pairs (default: every ordered
        pair of distinct hosts).  Shortest by links crossed, through
        switches only, as the switches route (nodes.ecmp_routes)."""
        adj = self.adjacency()
        hosts = self.hosts
        pairs = pairs if pairs is not None else \
            [(s, d) for s in hosts for d in hosts if s != d]
        out, by_src = {}, {}
        for src, dst in pairs:
            if src not in by_src:
                by_src[src] = _path_counts(adj, src, self._transit)
            dist, count, rate, delay = by_src[src]
            if dst not in dist:
                raise ValueError("no path from %s to %s" % (src, dst))
            out[(src, dst)] = Path(dist[dst] - 1, dist[dst], count[dst],
                                   rate[dst], delay[dst])
        return out

    def oversubscription(self, leaf):
        """A leaf's host-facing capacity over its capacity toward the
        other switches (1: non-blocking)."""
        down = up = 0.0
        for peer, link in self.adjacency()[leaf]:
            if self.roles[peer] == "host":
                down += link.rate_bps
            else:
                up += link.rate_bps
        return down / up if up else float("inf")

    def describe(self):
        """A dict for run.json: nodes with roles, links with rates."""
        return {"nodes": dict(self.roles),
                "links": [[lk.a, lk.b, lk.rate_bps, lk.delay_s,
                           lk.error_rate] for lk in self.links]}


def _bfs(adj, start, through):
    seen, frontier = {start}, [start]
    while frontier:
        nxt = []
        for n in frontier:
            if n is not start and not through(n):
                continue
            for p, _ in adj[n]:
                if p not in seen:
                    seen.add(p)
                    nxt.append(p)
        frontier = nxt
    return seen


def _path_counts(adj, src, through):
    """Breadth-first from src: ({node: links}, {node: shortest paths},
    {node: lowest rate on them}, {node: highest delay on them}), only
    through nodes for which through() holds (src aside)."""
    dist, count = {src: 0}, {src: 1}
    rate, delay = {src: float("inf")}, {src: 0.0}
    frontier = [src]
    while frontier:
        nxt = []
        for n in frontier:
            if n != src and not through(n):
                continue
            for p, link in adj[n]:
                if p not in dist:
                    dist[p], count[p] = dist[n] + 1, 0
                    rate[p], delay[p] = float("inf"), 0.0
                    nxt.append(p)
                if dist[p] == dist[n] + 1:
                    count[p] += count[n]
                    rate[p] = min(rate[p], rate[n], link.rate_bps)
                    delay[p] = max(delay[p], delay[n] + link.delay_s)
        frontier = nxt
    return dist, count, rate, delay


def leaf_spine(leaves=4, spines=2, hosts_per_leaf=4, rate_mbps=100,
               oversub=1.0, uplink_mbps=None, delay_us=1.0):
    """A leaf-spine fabric: hosts h1..hN (h1..hH on leaf1, the next H on
    leaf2, ...), leaves leaf1..leafL, spines spine1..spineM, every leaf
    linked to every spine.  Host links at rate_mbps; leaf-spine links at
    uplink_mbps, by default H x rate_mbps / (M x oversub) so that a
    leaf's hosts can offer oversub times what its uplinks carry (1:
    non-blocking).  delay_us: every link's delay (the description's;
    sch_dcb has none to emulate)."""
    leaves, spines, hpl = int(leaves), int(spines), int(hosts_per_leaf)
    if leaves < 1 or spines < 1 or hpl < 1:
        raise ValueError("leaf_spine: at least one leaf, spine and host "
                         "per leaf, not %d, %d, %d" % (leaves, spines, hpl))
    rate = float(rate_mbps) * 1e6
    if uplink_mbps is None:
        if float(oversub) <= 0:
            raise ValueError("oversub %s: above 0" % oversub)
        up = hpl * rate / (spines * float(oversub))
    else:
        up = float(uplink_mbps) * 1e6
    d = float(delay_us) * 1e-6
    f = Fabric()
    sp = [f.add_node("spine%d" % (j + 1), "spine") for j in range(spines)]
    for i in range(leaves):
        leaf = f.add_node("leaf%d" % (i + 1), "leaf")
        for k in range(hpl):
            h = f.add_node("h%d" % (i * hpl + k + 1), "host")
            f.add_link(h, leaf, rate, d)
        for s in sp:
            f.add_link(leaf, s, up, d)
    return f


def rate_opt(bps):
    """sch_dcb's rate option of bps bit/s (kbit, as tc takes it)."""
    return "rate %dkbit" % max(1, round(bps / 1e3))


def build(net, f, switch_opts=SWITCH_OPTS, host_opts=HOST_OPTS,
          rate_scale=1.0, ecmp=True, **host_params):
    """Add the fabric f to the Mininet network net (dcb_net()'s): a
    DcbSwitch per switch (ecmp), a host per host with host_params (algo=,
    cc=), a link per link; both ends of a link shaped to its rate times
    rate_scale, switch ends with switch_opts after the rate, host NICs
    with host_opts.  Returns {link index: (dev at a, dev at b)}.  Hosts
    get Mininet's addresses in f's order (h1 10.0.0.1, ...)."""
    f.check()
    for n in f.roles:
        if f.roles[n] == "host":
            net.addHost(n, **host_params)
        else:
            net.addSwitch(n, ecmp=ecmp)
    devs = {}
    for k, link in enumerate(f.links):
        r = rate_opt(link.rate_bps * rate_scale)
        ends = []
        for n in (link.a, link.b):
            extra = host_opts if f.roles[n] == "host" else switch_opts
            ends.append(" ".join(x for x in (r, extra) if x))
        lk = net.addLink(net[link.a], net[link.b], dcb1=ends[0],
                         dcb2=ends[1])
        devs[k] = (lk.intf1.name, lk.intf2.name)
    return devs


def start(out, f, algo="none", algos=None, switch_opts=SWITCH_OPTS,
          host_opts=HOST_OPTS, rate_scale=1.0, cc=None):
    """A started Mininet network of the fabric f for an experiment
    writing to out (dcb_net(out, ...)): (net, hosts, paths), hosts the
    Mininet hosts in f's order, paths f.paths() by host names.  net.devs
    is build()'s {link index: (dev, dev)}, net.fabric is f."""
    from .nodes import dcb_net

    net = dcb_net(out, algos=algos or [algo])
    try:
        net.devs = build(net, f, switch_opts, host_opts, rate_scale,
                         algo=algo, cc=cc)
        net.fabric = f
        net.start()
    except BaseException:
        net.stop()
        raise
    return net, [net[h] for h in f.hosts], f.paths()


def multipath_routes(switch):
    """{destination: [gateways]} of the switch's multipath routes (ip -j
    route), read back from the kernel."""
    import json

    out, err, rc = switch.pexec(["ip", "-j", "route", "show"])
    if rc != 0:
        raise RuntimeError("%s: ip route: %s" % (switch.name, err.strip()))
    res = {}
    for r in json.loads(out or "[]"):
        if r.get("nexthops"):
            res[r["dst"]] = [h.get("gateway") for h in r["nexthops"]]
    return res


def reading(net):
    """One reading of the fabric's counters: {"dcb": {switch: {dev:
    deq_bytes}}, "dev": {switch: {dev: [rx_bytes, tx_bytes]}}} (sch_dcb's
    dequeued bytes by dcbmon, link counters from /proc)."""
    from . import stats

    doc = {"dcb": {}, "dev": {}}
    for sw in net.switches:
        snap = stats.snapshot(sw)
        doc["dcb"][sw.name] = {d: snap.get(d, "deq_bytes")
                               for d in snap.ports()}
        doc["dev"][sw.name] = {d: list(v) for d, v in
                               sw.netdev_bytes().items()}
    return doc


class Activity:
    """When the fabric carried traffic: a thread sums the bytes every
    switch port sent (/proc/PID/net/dev, no process started) every
    interval seconds from start() to stop(); span() is the time from
    the first interval that carried a tenth of the busiest interval's
    bytes to the last one that did (0 if none grew).  Link utilisation
    over it is over the time data moved, not over the clients' start-up
    and their TCP exchanges of QP numbers."""

    def __init__(self, net, interval=0.05):
        import threading

        self.switches, self.interval = list(net.switches), interval
        self.samples = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _total(self):
        return sum(tx for sw in self.switches
                   for dev, (_, tx) in sw.netdev_bytes().items()
                   if dev != "lo")

    def _loop(self):
        import time

        while True:
            self.samples.append((time.monotonic(), self._total()))
            if self.stopping.wait(self.interval):
                break
        self.samples.append((time.monotonic(), self._total()))

    def start(self):
        self.thread.start()

    def stop(self):
        self.stopping.set()
        self.thread.join()

    def span(self):
        """(seconds from the first growth to the last, bytes in all)."""
        steps = [(t0, t1, v1 - v0) for (t0, v0), (t1, v1) in
                 zip(self.samples, self.samples[1:])]
        peak = max((b for _, _, b in steps), default=0)
        busy = [(t0, t1) for t0, t1, b in steps if peak and b >= peak / 10]
        if not busy:
            return 0.0, 0
        return busy[-1][1] - busy[0][0], \
            self.samples[-1][1] - self.samples[0][1]


def spread(f, devs, before, after, secs):
    """The ECMP report of the fabric f from two reading()s (devs:
    build()'s, secs: the time between them), as [(metric, value, unit)]:

      spine_bytes.SPINE     bytes sch_dcb dequeued on all of a spine's
                            ports (every packet crossing it, once)
      spine_share.SPINE     that over all spines' bytes
      uplink_share.LEAF.SPINE  a leaf's bytes dequeued toward one spine
                            over all its uplinks' (0 rows for an idle leaf)
      ecmp_min_share        the lowest spine_share
      link_util.A>B         bytes the link carried from A to B, headers
                            included, over its rate x secs (a switch end's
                            tx counter, for a host's own NIC the switch
                            end's rx counter)
    """
    rows = []

    def d_dcb(sw, dev):
        return after["dcb"][sw].get(dev, 0) - before["dcb"][sw].get(dev, 0)

    def d_dev(sw, dev, i):
        return after["dev"][sw][dev][i] - before["dev"][sw][dev][i]

    spines = f.role_nodes("spine")
    sb = {s: sum(d_dcb(s, dev) for dev in after["dcb"].get(s, {}))
          for s in spines}
    total = sum(sb.values())
    for s in spines:
        rows.append(("spine_bytes." + s, sb[s], "bytes"))
        if total:
            rows.append(("spine_share." + s, sb[s] / total, "1"))
    if total and spines:
        rows.append(("ecmp_min_share", min(sb.values()) / total, "1"))
    up = collections.defaultdict(dict)
    for k, link in enumerate(f.links):
        a, b = link.a, link.b
        da, db = devs[k]
        for src, dst, sdev, ddev in ((a, b, da, db), (b, a, db, da)):
            if f.roles[src] == "leaf" and f.roles[dst] == "spine":
                up[src][dst] = d_dcb(src, sdev)
            if f.roles[src] != "host":
                n = d_dev(src, sdev, 1)
            else:
                n = d_dev(dst, ddev, 0)
            if secs > 0:
                rows.append(("link_util.%s>%s" % (src, dst),
                             8 * n / (link.rate_bps * secs), "1"))
    for leaf in sorted(up, key=lambda n: list(f.roles).index(n)):
        t = sum(up[leaf].values())
        if t:
            for s, v in up[leaf].items():
                rows.append(("uplink_share.%s.%s" % (leaf, s), v / t, "1"))
    return rows


def rdma_sport(lqpn, rqpn, flow_label=0):
    """The UDP source port rdma_rxe gives a connected QP: the kernel's
    rdma_get_udp_sport() (include/rdma/ib_verbs.h), which rxe_modify_qp()
    applies when the address vector is set: a flow label, or if it is 0
    one folded from the product of the two QP numbers, in 14 bits, in
    0xc000-0xffff.  Both ends compute the same port."""
    fl = flow_label
    if not fl:
        v = (lqpn * rqpn) & (2 ** 64 - 1)
        v ^= v >> 20
        v ^= v >> 40
        fl = v & 0xFFFFF
    low, high = fl & 0x3FFF, fl & 0xFC000
    return (low ^ (high >> 14)) | 0xC000


def perftest_qpns(path):
    """[(local QPN, remote QPN)] of a perftest output (its "local
    address" and "remote address" lines, one pair per QP)."""
    loc, rem = [], []
    try:
        with open(path) as fh:
            for line in fh:
                if "QPN" not in line:
                    continue
                w = line.replace(",", " ").split()
                try:
                    qpn = int(w[w.index("QPN") + 1], 16)
                except (ValueError, IndexError):
                    continue
                (loc if "local address" in line else rem).append(qpn)
    except OSError:
        return []
    return list(zip(loc, rem))


def pcap_sports(path):
    """{(IPv4 source, destination QPN): {UDP source ports}} of the
    RoCEv2 packets in a pcap (dcbanalysis.roce_flows' reader)."""
    import struct

    from dcbanalysis import roce_flows

    res = collections.defaultdict(set)
    for _, d in roce_flows._frames(path):
        p = roce_flows._roce(d)
        if not p:
            continue
        src, bth = p[0], p[1]
        sport = struct.unpack("!H", d[bth - 8:bth - 6])[0]
        res[(src, int.from_bytes(d[bth + 5:bth + 8], "big"))].add(sport)
    return dict(res)


def host_pairs(f, spec):
    """[(src, dst)] host names of spec: "h1:h5,h9:h13", or "auto": the
    first host of every odd leaf to the first host of the next leaf
    (leaf1 -> leaf2, leaf3 -> leaf4, ...)."""
    if spec == "auto":
        leaves = f.role_nodes("leaf")
        adj = f.adjacency()
        first = [next(p for p, _ in adj[lf] if f.roles[p] == "host")
                 for lf in leaves
                 if any(f.roles[p] == "host" for p, _ in adj[lf])]
        return [(first[i], first[i + 1]) for i in range(0, len(first) - 1,
                                                        2)]
    pairs = []
    for w in spec.split(","):
        s, _, d = w.strip().partition(":")
        for h in (s, d):
            if f.roles.get(h) != "host":
                raise ValueError("pairs: %s is not a host of the fabric" % h)
        pairs.append((s, d))
    return pairs

