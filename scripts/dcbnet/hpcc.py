# SPDX-License-Identifier: GPL-2.0
"""The HPCC ns-3 simulator's input files as the lab's fabric and flows.

The simulator (github.com/alibaba-edu/High-Precision-Congestion-Control,
simulation/mix/) reads two whitespace-separated files, token by token:

  topology.txt   N S L              nodes, switches, links
                 ID ... (S ids)     which nodes are switches (the rest
                                    are hosts)
                 A B RATE DELAY ERR L links: node ids, an ns-3 DataRate
                                    (100Gbps), an ns-3 Time (0.001ms,
                                    1000ns) and a packet error rate
  flow.txt       F                  flows
                 SRC DST PG DPORT SIZE START   F flows: host ids, the
                                    priority group, the destination
                                    port, bytes, start time in seconds

What follows the counted entries is ignored, as the simulator does (the
shipped files end with notes).  topology() returns a dcbnet.fabric.Fabric
(hosts h<id>, switches sw<id>, roles "switch" or, for a two-tier
leaf-spine, "leaf" and "spine"; ids keep the file's numbers), flows() a
list of Flow with host names, ready for a workload to replay on the real
stack.  The simulator runs at 25-400 Gbit/s and microseconds; the lab's
guest at tens to hundreds of Mbit/s: fabric.build(rate_scale=) scales
the rates, scale_flows() the sizes and times.
"""

import collections
import re

from .fabric import Fabric

Flow = collections.namedtuple("Flow", "src dst priority dport size start")
Flow.__doc__ = """One flow of flow.txt: source and destination host
names, priority group (PG, 802.1p priority), destination port, size in
bytes, start time in seconds."""

# ns-3's DataRate units (src/network/utils/data-rate.cc): bits, bytes
# (B), SI (k, K, M, G) and binary (Ki, Mi, Gi) multipliers, "ps" or "/s"
_RATE = re.compile(r"([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)"
                   r"([kKMG]i?)?(b|B)(ps|/s)")
_RATE_MUL = {None: 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9,
             "ki": 1024, "Ki": 1024, "Mi": 1024 ** 2, "Gi": 1024 ** 3}
# ns-3's Time units; a number alone is seconds
_TIME = re.compile(r"([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)"
                   r"(s|ms|us|ns|ps|fs|min|h|d|y)?")
_TIME_MUL = {None: 1, "s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9,
             "ps": 1e-12, "fs": 1e-15, "min": 60, "h": 3600, "d": 86400,
             "y": 365 * 86400}


class FormatError(ValueError):
    """A file the simulator would not read as meant: the message names
    the file, the line and what was expected."""


def rate_bps(text):
    """An ns-3 DataRate string ("100Gbps", "25Gb/s", "10MBps") in bit/s."""
    m = _RATE.fullmatch(text)
    if not m:
        raise ValueError("not an ns-3 data rate: '%s'" % text)
    v = float(m.group(1)) * _RATE_MUL[m.group(2)]
    return v * 8 if m.group(3) == "B" else v


def time_s(text):
    """An ns-3 Time string ("0.001ms", "1000ns", "2") in seconds."""
    m = _TIME.fullmatch(text)
    if not m:
        raise ValueError("not an ns-3 time: '%s'" % text)
    return float(m.group(1)) * _TIME_MUL[m.group(2)]


class _Tokens:
    """The whitespace-separated tokens of a text with their line numbers,
    read the way the simulator's >> does."""

    def __init__(self, text, name):
        self.name = name
        self.toks = [(w, n) for n, line in enumerate(text.splitlines(), 1)
                     for w in line.split()]
        self.i = 0

    def next(self, what, conv=str):
        if self.i >= len(self.toks):
            last = self.toks[-1][1] if self.toks else 1
            raise FormatError("%s: ends after line %d, expected %s"
                              % (self.name, last, what))
        w, n = self.toks[self.i]
        self.i += 1
        try:
            return conv(w)
        except ValueError:
            raise FormatError("%s:%d: '%s' is not %s"
                              % (self.name, n, w, what)) from None

    def line(self):
        return self.toks[self.i - 1][1] if self.i else 1


def _count(w):
    v = int(w)
    if v < 0:
        raise ValueError(w)
    return v


def _read(src):
    """(text, name) of a path or a file object."""
    if hasattr(src, "read"):
        return src.read(), getattr(src, "name", "<file>")
    with open(src) as f:
        return f.read(), src


def host_name(i):
    return "h%d" % i


def switch_name(i):
    return "sw%d" % i


def topology(src, roles=True):
    """The Fabric of an HPCC topology.txt (a path or a file).  With
    roles, a two-tier Clos (every switch linked to hosts is linked to
    every switch that is not, and those only to switches) gets roles
    leaf and spine; any other switch is "switch"."""
    text, name = _read(src)
    t = _Tokens(text, name)
    n = t.next("the node count", _count)
    ns = t.next("the switch count", _count)
    nl = t.next("the link count", _count)
    if ns > n:
        raise FormatError("%s:1: %d switches of %d nodes" % (name, ns, n))
    sw = set()
    for _ in range(ns):
        i = t.next("a switch id", _count)
        if i >= n:
            raise FormatError("%s:%d: switch id %d, nodes are 0-%d"
                              % (name, t.line(), i, n - 1))
        if i in sw:
            raise FormatError("%s:%d: switch %d listed twice"
                              % (name, t.line(), i))
        sw.add(i)
    f = Fabric()
    names = {}
    for i in range(n):
        names[i] = switch_name(i) if i in sw else host_name(i)
        f.add_node(names[i], "switch" if i in sw else "host", ident=i)
    seen = set()
    for _ in range(nl):
        a = t.next("a link's first node", _count)
        b = t.next("a link's second node", _count)
        rate = t.next("a data rate (e.g. 100Gbps)", rate_bps)
        delay = t.next("a time (e.g. 1000ns)", time_s)
        err = t.next("an error rate", float)
        ln = t.line()
        for x in (a, b):
            if x >= n:
                raise FormatError("%s:%d: node %d, nodes are 0-%d"
                                  % (name, ln, x, n - 1))
        if a == b:
            raise FormatError("%s:%d: link from node %d to itself"
                              % (name, ln, a))
        if (min(a, b), max(a, b)) in seen:
            raise FormatError("%s:%d: a second link between %d and %d "
                              "(the lab has no parallel links)"
                              % (name, ln, a, b))
        seen.add((min(a, b), max(a, b)))
        if rate <= 0 or not 0 <= err <= 1:
            raise FormatError("%s:%d: rate %s bit/s, error rate %s"
                              % (name, ln, rate, err))
        f.add_link(names[a], names[b], rate, delay, err)
    if roles:
        _clos_roles(f)
    return f


def _clos_roles(f):
    """Roles leaf and spine if f is a two-tier Clos (see topology())."""
    adj = f.adjacency()
    sw = f.switches
    leaves = [s for s in sw if any(f.roles[p] == "host" for p, _ in adj[s])]
    spines = [s for s in sw if s not in leaves]
    if not leaves or not spines:
        return
    for s in spines:
        if {p for p, _ in adj[s]} != set(leaves):
            return
    for lf in leaves:
        if {p for p, _ in adj[lf] if f.roles[p] != "host"} != set(spines):
            return
    for s in leaves:
        f.roles[s] = "leaf"
    for s in spines:
        f.roles[s] = "spine"


def flows(src, fab=None):
    """The flows of an HPCC flow.txt (a path or a file), in the file's
    order.  With the Fabric fab of its topology, every source and
    destination must be one of its hosts (as the simulator asserts)."""
    text, name = _read(src)
    t = _Tokens(text, name)
    n = t.next("the flow count", _count)
    out = []
    prev = 0.0
    for _ in range(n):
        s = t.next("a source node id", _count)
        d = t.next("a destination node id", _count)
        pg = t.next("a priority group", _count)
        dport = t.next("a destination port", _count)
        size = t.next("a size in bytes", _count)
        start = t.next("a start time in seconds", float)
        ln = t.line()
        if pg > 7:
            raise FormatError("%s:%d: priority group %d, 0-7"
                              % (name, ln, pg))
        if dport > 65535:
            raise FormatError("%s:%d: port %d" % (name, ln, dport))
        if start < 0:
            raise FormatError("%s:%d: start time %s" % (name, ln, start))
        if start < prev:
            raise FormatError("%s:%d: start time %s before the previous "
                              "flow's %s (the simulator wants ascending "
                              "start times)" % (name, ln, start, prev))
        prev = start
        if s == d:
            raise FormatError("%s:%d: a flow from node %d to itself"
                              % (name, ln, s))
        if fab is not None:
            for x in (s, d):
                if fab.roles.get(host_name(x)) != "host":
                    raise FormatError("%s:%d: node %d is not a host of the "
                                      "topology" % (name, ln, x))
        out.append(Flow(host_name(s), host_name(d), pg, dport, size, start))
    return out


def scale_flows(flows_, size=1.0, time=1.0):
    """The flows with sizes times size (at least 1 byte) and start times
    times time: for a fabric whose rates build() scaled, size=1 and
    time=1/rate_scale keeps each flow's offered load; size=rate_scale
    keeps the flows' durations instead."""
    return [fl._replace(size=max(1, round(fl.size * size)),
                        start=fl.start * time) for fl in flows_]
