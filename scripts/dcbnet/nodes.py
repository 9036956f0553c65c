# SPDX-License-Identifier: GPL-2.0
"""Mininet node, interface and link classes of the DCB lab (see __init__)."""

import functools
import glob
import ipaddress
import os
import shlex
import subprocess
import time

from mininet.link import Intf, Link
from mininet.node import Host, Node

from . import TOP, stats

BUILD = os.environ.get("DCBLAB_BUILD", os.path.join(TOP, "build"))
DCB_KO = os.path.join(TOP, "sch_dcb", "sch_dcb.ko")
RXE_KO = os.path.join(BUILD, "rxe_cc", "rdma_rxe.ko")
IB = "/sys/class/infiniband"


def _run(*argv):
    subprocess.run(argv, check=True)


def _loaded(mod):
    return os.path.isdir("/sys/module/" + mod)


def _rxe_is_ours():
    """The loaded rdma_rxe is the lab's (it exports the cc/ engine)."""
    # a module's symbol reads "ADDR T rxe_cc_register\t[rdma_rxe]"
    with open("/proc/kallsyms") as f:
        return any(line.split()[2:3] == ["rxe_cc_register"] for line in f)


def load_modules(algos=(), rxe=True):
    """Load sch_dcb, the lab's rdma_rxe (unless not rxe) and rxe_cc_ALGO
    for each of algos ('none' needs no module), unless already loaded."""
    if not _loaded("sch_dcb"):
        _run("insmod", os.environ.get("DCBLAB_DCB_KO", DCB_KO))
    if not rxe:
        return
    for m in ("ib_core", "ib_uverbs", "rdma_ucm", "udp_tunnel",
              "ip6_udp_tunnel"):
        if not _loaded(m):
            _run("modprobe", m)
    if _loaded("rdma_rxe") and not _rxe_is_ours():
        _run("modprobe", "-r", "rdma_rxe")
    if not _loaded("rdma_rxe"):
        _run("insmod", RXE_KO)
    for a in algos:
        if a != "none" and not _loaded("rxe_cc_" + a):
            _run("insmod", os.path.join(BUILD, "rxe_cc", "rxe_cc_%s.ko" % a))


def dcb_net(out, algos=(), rxe=True, dcb=True, link="veth"):
    """An empty Mininet network of the lab's nodes for an experiment
    writing to the folder OUT (made): DcbSwitch, RxeHost hosts, or
    DcbHost ones unless rxe; no controller, the switches route.  Links
    are link_class(link): veth pairs (DcbLink) or emulated NIC pairs of
    that model (DcbNicLink); addLink(..., cls=link_class(other)) mixes
    them.  sch_dcb (unless not dcb), rdma_rxe and the algorithms'
    modules are loaded first (load_modules)."""
    from mininet.net import Mininet

    if dcb:
        load_modules(algos, rxe=rxe)
    os.makedirs(out, exist_ok=True)
    return Mininet(switch=DcbSwitch, host=RxeHost if rxe else DcbHost,
                   link=link_class(link), controller=None)


def link_class(kind):
    """The link class of a link type: "veth" (DcbLink) or the model of
    an emulated NIC pair of the guest, "e1000e", "e1000" or "virtio"
    (DcbNicLink taking a pair of that model)."""
    if kind == "veth":
        return DcbLink
    if kind not in NIC_MODELS:
        raise ValueError("link=%s: veth or one of %s"
                         % (kind, ", ".join(NIC_MODELS)))
    return functools.partial(DcbNicLink, nic=kind)

def _dcb_argv(opts):
    return shlex.split(opts) if isinstance(opts, str) else list(opts)


class DcbIntf(Intf):
    """An interface whose root qdisc is sch_dcb.

    dcb: the qdisc's options as one string or a list of words (tc's
    syntax after `dcb`); None takes the node's dcb= parameter, and an
    interface of a node without one keeps the kernel's qdisc."""

    def config(self, dcb=None, **params):
        r = super().config(**params)
        opts = dcb if dcb is not None else self.node.params.get("dcb")
        if opts is not None:
            r["dcb"] = self.setDcb(opts)
        return r

    def setDcb(self, opts):
        """Replace the root qdisc by sch_dcb with opts (see the class)."""
        argv = ["tc", "qdisc", "replace", "dev", self.name, "root",
                "handle", "1:", "dcb"] + _dcb_argv(opts)
        out, err, rc = self.node.pexec(argv)
        if rc != 0:
            raise RuntimeError("%s: %s: %s" % (self.node.name,
                                               " ".join(argv), err.strip()))
        self.dcb = opts
        return out


class DcbLink(Link):
    """A veth pair whose two ends are DcbIntf.

    dcb1, dcb2: sch_dcb options of node1's and node2's end; without
    them each end takes its node's dcb= parameter."""

    def __init__(self, node1, node2, dcb1=None, dcb2=None, **params):
        # (Mininet.addLink passes its own intf=: the ends' classes win)
        params.setdefault("cls1", DcbIntf)
        params.setdefault("cls2", DcbIntf)
        p1 = dict(params.pop("params1", None) or {})
        p2 = dict(params.pop("params2", None) or {})
        if dcb1 is not None:
            p1["dcb"] = dcb1
        if dcb2 is not None:
            p2["dcb"] = dcb2
        super().__init__(node1, node2, params1=p1, params2=p2, **params)


NIC_MODELS = ("e1000e", "e1000", "virtio")


def nic_pairs(model=None):
    """[(model, end a, end b)] of the guest's emulated NIC pairs
    (DCBLAB_NICS of scripts/vm-run --nic-pairs), of model if given."""
    res = []
    for w in os.environ.get("DCBLAB_NICS", "").split():
        m, a, b = w.split(":")
        if model is None or m == model:
            res.append((m, a, b))
    return res


def _nic_mac(home):
    """The MAC of the end nicKa or nicKb (scripts/lib/nics.sh)."""
    return "52:54:00:dc:%02x:0%s" % (int(home[3:-1]), home[-1])


def _nic_rehome(ends):
    """Give the ends (nicKa, nicKb) that are in this namespace under
    another name or MAC (a deleted namespace returns its devices as
    they were in it) their own back, known by their permanent address;
    returns the ends at home."""
    import json

    macs = {_nic_mac(e): e for e in ends}
    r = subprocess.run(["ip", "-j", "link", "show"], capture_output=True,
                       text=True, check=True)
    home = set()
    for d in json.loads(r.stdout):
        perm = d.get("permaddr", d.get("address"))
        want = macs.get(perm)
        if not want:
            continue
        if d["ifname"] != want or d.get("address") != perm:
            subprocess.run(["ip", "link", "set", "dev", d["ifname"], "down"])
            if subprocess.run(["ip", "link", "set", "dev", d["ifname"],
                               "name", want, "address", perm]).returncode:
                continue
        home.add(want)
    return home


def take_nic_pair(model, timeout=30.0):
    """A free pair of model: both ends in this namespace, at home.  Ends
    a deleted namespace still gives back are waited for (timeout s)."""
    pairs = nic_pairs(model)
    if not pairs:
        raise RuntimeError("no %s NIC pair in this guest (DCBLAB_NICS=%r; "
                           "scripts/vm-run --nic-pairs N --nic-model %s)"
                           % (model, os.environ.get("DCBLAB_NICS", ""),
                              model))
    deadline = time.monotonic() + timeout
    while True:
        home = _nic_rehome([e for _, a, b in pairs for e in (a, b)])
        for _, a, b in pairs:
            if a in home and b in home:
                return a, b
        if time.monotonic() > deadline:
            raise RuntimeError("every %s NIC pair is in use" % model)
        time.sleep(0.2)


class DcbNicIntf(DcbIntf):
    """An end of an emulated NIC pair in a node (DcbNicLink): deleting
    it gives the NIC back to the initial namespace under its home name
    (home)."""

    home = None

    def delete(self):
        # (Mininet deletes an interface twice: with its node's, then
        # with its link's)
        if self.home:
            self.cmd("ip link set dev %s down && ip link set dev %s netns 1"
                     % (self.name, self.name))
            subprocess.run(["ip", "link", "set", "dev", self.name, "name",
                            self.home, "address", _nic_mac(self.home)],
                           stderr=subprocess.DEVNULL)
            self.home = None
        self.node.delIntf(self)
        self.link = None


class DcbNicLink(DcbLink):
    """A link over an emulated NIC pair of the guest (scripts/vm-run
    --nic-pairs) in place of a veth pair: a free pair of model nic
    (take_nic_pair) whose ends move into node1's and node2's namespaces
    under Mininet's names; sch_dcb on both as DcbLink (dcb1, dcb2).  The
    link is up, with carrier on both ends, when made: carrier_s says
    how long that took.

    sch_dcb as the root qdisc of an end joins 01:80:c2:00:00:01, the
    PAUSE/PFC frames' destination, itself, so that a NIC that filters
    multicast by its table (virtio-net) passes them to its handler."""

    def __init__(self, node1, node2, nic="e1000e", **params):
        self.nic = nic
        self.homes = None
        # a NIC keeps its own MAC (Mininet.addLink offers random ones)
        params.pop("addr1", None)
        params.pop("addr2", None)
        params.setdefault("cls1", DcbNicIntf)
        params.setdefault("cls2", DcbNicIntf)
        super().__init__(node1, node2, **params)
        self.intf1.home, self.intf2.home = self.homes
        t0 = time.monotonic()
        for intf in (self.intf1, self.intf2):
            cmd = "ip link set dev %s up" % intf.name
            out = intf.cmd(cmd + " && echo ok")
            if "ok" not in out:
                raise RuntimeError("%s: %s: %s" % (intf.node.name, cmd,
                                                   out.strip()))
        for intf in (self.intf1, self.intf2):
            path = "/sys/class/net/%s/carrier" % intf.name
            out = intf.cmd("for i in $(seq 300); do [ \"$(cat %s)\" = 1 ] "
                           "&& break; sleep 0.1; done; cat %s" % (path, path))
            if out.strip() != "1":
                raise RuntimeError("%s: no carrier on %s (%s) after 30 s"
                                   % (intf.node.name, intf.name, self.nic))
        self.carrier_s = time.monotonic() - t0

    def makeIntfPair(self, intfname1, intfname2, addr1=None, addr2=None,
                     node1=None, node2=None, deleteIntfs=True):
        self.homes = take_nic_pair(self.nic)
        for home, name, addr, node in ((self.homes[0], intfname1, addr1, node1),
                                       (self.homes[1], intfname2, addr2, node2)):
            argv = ["ip", "link", "set", "dev", home, "name", name]
            if addr:
                argv += ["address", addr]
            _run(*argv)
            if node is not None and node.inNamespace:
                _run("ip", "link", "set", "dev", name, "netns", str(node.pid))


class NsenterPopen:
    """popen() (and so pexec()) entering only the node's network
    namespace, with nsenter: Mininet's `mnexec -a` enters its mount
    namespace too, which moves the process to the namespace's root and
    out of a chroot such as the lab guest's (scripts/vm-run)."""

    def popen(self, *args, **kwargs):
        kwargs.setdefault("mncmd", ["nsenter",
                                    "--net=/proc/%d/ns/net" % self.pid])
        return super().popen(*args, **kwargs)


def _peer(intf):
    link = intf.link
    if link is None:
        return None
    return link.intf2 if link.intf1 is intf else link.intf1


def _fabric_links(switch):
    """The switch-switch links of the fabric reachable from switch, in
    an order every switch computes alike: [(intf_a, intf_b)], the end
    whose name sorts first as intf_a."""
    seen, todo, links = {switch}, [switch], set()
    while todo:
        for intf in todo.pop().intfList():
            peer = _peer(intf)
            if peer is None or not isinstance(peer.node, DcbSwitch):
                continue
            links.add(tuple(sorted((intf, peer), key=lambda i: i.name)))
            if peer.node not in seen:
                seen.add(peer.node)
                todo.append(peer.node)
    return sorted(links, key=lambda ab: (ab[0].name, ab[1].name))


def _link_addr(k, end):
    """The address of end (0, 1) of the k-th switch-switch link: the
    k-th /31 of 169.254.1.0-169.254.254.255 (link-local: no host's)."""
    n = (169 << 24 | 254 << 16 | 1 << 8) + 2 * k + end
    if k >= 254 * 128:
        raise ValueError("more than %d switch-switch links" % (254 * 128))
    return str(ipaddress.IPv4Address(n))


def fabric_routes(switch):
    """The switch's addresses and routes in its fabric: ([(intf, addr)]
    of its switch-switch ports, {host IP: (intf, gateway or None)}).

    Each switch-switch link is a /31 of link-local addresses
    (_link_addr); a host attached to this switch is reached on its port
    (gateway None), a host behind other switches through the first hop
    of a shortest path over switch-switch links (breadth-first search,
    ties broken by port name), via the peer's address on that link."""
    links = _fabric_links(switch)
    addr = {}
    for k, (a, b) in enumerate(links):
        addr[a], addr[b] = _link_addr(k, 0), _link_addr(k, 1)
    own = [(i, addr[i]) for i in switch.intfList() if i in addr]
    routes = {}
    # first: the port of this switch the path leaves by, per switch
    first, frontier = {switch: None}, [switch]
    while frontier:
        nxt = []
        for sw in frontier:
            for intf in sorted(sw.intfList(), key=lambda i: i.name):
                peer = _peer(intf)
                if peer is None:
                    continue
                hop = first[sw] or (intf, peer)
                if isinstance(peer.node, DcbSwitch):
                    if peer.node not in first:
                        first[peer.node] = hop
                        nxt.append(peer.node)
                elif peer.IP() and peer.IP() not in routes:
                    out, gw = hop
                    routes[peer.IP()] = (out, None if sw is switch
                                         else addr[gw])
        frontier = nxt
    return own, routes


def ecmp_routes(switch):
    """{host IP: [(intf, gateway)]} of the hosts behind other switches:
    the first hop of every shortest path over switch-switch links, by
    port name (addresses as fabric_routes).  A host with more than one
    is reached by a multipath route (DcbSwitch's ecmp=True)."""
    links = _fabric_links(switch)
    addr, adj = {}, {}
    for k, (a, b) in enumerate(links):
        addr[a], addr[b] = _link_addr(k, 0), _link_addr(k, 1)
        adj.setdefault(a.node, []).append(b.node)
        adj.setdefault(b.node, []).append(a.node)
    routes = {}
    for dst in adj:
        if dst is switch:
            continue
        # hop counts to dst over switch-switch links
        dist, frontier = {dst: 0}, [dst]
        while frontier:
            nxt = []
            for sw in frontier:
                for n in adj[sw]:
                    if n not in dist:
                        dist[n] = dist[sw] + 1
                        nxt.append(n)
            frontier = nxt
        if switch not in dist:
            continue
        hops = []
        for intf in sorted(switch.intfList(), key=lambda i: i.name):
            peer = _peer(intf)
            if peer is not None and peer in addr and \
                    dist.get(peer.node) == dist[switch] - 1:
                hops.append((intf, addr[peer]))
        for intf in dst.intfList():
            peer = _peer(intf)
            if peer is not None and peer.IP() and \
                    not isinstance(peer.node, DcbSwitch):
                routes.setdefault(peer.IP(), hops)
    return routes


class DcbSwitch(NsenterPopen, Node):
    """A routing switch: its own network namespace, IPv4 forwarding,
    proxy ARP on every port and a /32 route to every host of the fabric;
    sch_dcb on every port (dcb=, see DcbIntf).  Mininet's switch
    arguments (dpid, listenPort, ...) are accepted and ignored.  The
    switch answers ARP from its own address, 169.254.0.1 on lo unless
    addr= says otherwise (no host uses it).

    Several switches: each switch-switch link gets a /31 of link-local
    addresses (169.254.1.0 onward, one per link in an order every
    switch computes alike), and a host behind other switches is routed
    via the next switch on a shortest path over switch-switch links
    (breadth-first search from this switch; see fabric_routes).  Every
    switch computes its own routes in start(), so hosts keep Mininet's
    one-subnet addressing across the fabric.

    ecmp=True: a host reached over several shortest paths gets a
    multipath route over all of their first hops (ecmp_routes), and the
    namespace hashes the 5-tuple (fib_multipath_hash_policy=1), so
    RoCEv2 flows with different UDP source ports (QPs) spread."""

    def __init__(self, name, addr="169.254.0.1/32", ecmp=False, **params):
        for k in ("inNamespace", "listenPort", "dpid", "opts", "batch",
                  "protocols", "failMode", "datapath"):
            params.pop(k, None)
        self.addr = addr
        self.ecmp = ecmp
        super().__init__(name, inNamespace=True, **params)

    def start(self, controllers=None):
        """Forward, answer ARP for the hosts behind other ports, address
        the switch-switch ports and route to every host of the fabric
        (called by Mininet.start)."""
        cmds = ["sysctl -qw net.ipv4.ip_forward=1",
                "ip addr replace %s dev lo" % self.addr]
        for intf in self.intfList():
            if intf.name == "lo":
                continue
            # (proxy ARP answers after up to proxy_delay, 0.8 s by
            # default: a sender's first datagrams would be dropped
            # unseen in the neighbour queue meanwhile)
            cmds += ["ip link set %s up" % intf,
                     "sysctl -qw net.ipv4.conf.%s.proxy_arp=1" % intf,
                     "sysctl -qw net.ipv4.neigh.%s.proxy_delay=0" % intf,
                     "sysctl -qw net.ipv4.conf.%s.rp_filter=0" % intf]
            peer = _peer(intf)
            if peer is not None and peer.IP() and \
                    not isinstance(peer.node, DcbSwitch):
                cmds.append("ip route replace %s/32 dev %s"
                            % (peer.IP(), intf))
        # the fabric: hosts behind other switches
        own, routes = fabric_routes(self)
        multi = ecmp_routes(self) if self.ecmp else {}
        if self.ecmp:
            cmds.append("sysctl -qw net.ipv4.fib_multipath_hash_policy=1")
        cmds += ["ip addr replace %s/31 dev %s" % (a, i) for i, a in own]
        for ip, (intf, gw) in sorted(routes.items()):
            if len(multi.get(ip, ())) > 1:
                cmds.append("ip route replace %s/32 %s" % (ip, " ".join(
                    "nexthop via %s dev %s" % (g, i) for i, g in multi[ip])))
            elif gw is not None:
                cmds.append("ip route replace %s/32 dev %s via %s"
                            % (ip, intf, gw))
        # (as one argument, not through the node's shell: a terminal
        # takes lines of at most 4095 bytes, and a switch of a 32-host
        # fabric has more to say; a failing step fails the start)
        _, err, rc = self.pexec(["sh", "-c", " && ".join(cmds)])
        if rc != 0:
            raise RuntimeError("%s: setting up the switch: %s"
                               % (self.name, err.strip()))

    def stop(self, deleteIntfs=True):
        super().stop(deleteIntfs=deleteIntfs)

    def connected(self):
        return True

    def counters(self):
        """{(dev, name, band or None): value} of every sch_dcb port, one
        `dcbmon -s` reading (band None: the port's totals; stats.py)."""
        return stats.snapshot(self).values

    def netdev_bytes(self):
        """{dev: (rx_bytes, tx_bytes)} of the switch's namespace, read
        from /proc/PID/net/dev without a command."""
        res = {}
        with open("/proc/%d/net/dev" % self.pid) as f:
            for line in f.readlines()[2:]:
                dev, _, rest = line.partition(":")
                v = rest.split()
                res[dev.strip()] = (int(v[0]), int(v[8]))
        return res


class DcbHost(NsenterPopen, Host):
    """A host whose NIC is sch_dcb (dcb='rate 100mbit ...', see
    DcbIntf), without an RDMA device."""


class RxeHost(NsenterPopen, Host):
    """A host with a soft-RoCE device rxe_<intf> on its interface.

    dcb: sch_dcb options of its NIC (see DcbIntf), e.g. 'rate 100mbit'.
    algo: cc/algo of its device ('none' by default).
    cc: {knob: value} written to cc/<knob> after algo, e.g.
    {'roce_dscp': 26, 'dcqcn/rpg_ai_rate': 5}."""

    def config(self, algo="none", cc=None, **params):
        r = super().config(**params)
        self.rxe = {}
        for intf in self.intfList():
            if intf.name == "lo":
                continue
            dev = "rxe_" + intf.name
            out, err, rc = self.pexec(["rdma", "link", "add", dev, "type",
                                       "rxe", "netdev", intf.name])
            if rc != 0:
                raise RuntimeError("%s: rdma link add %s: %s"
                                   % (self.name, dev, err.strip()))
            self.rxe[intf.name] = dev
        if self.rxe:
            self.setCc("algo", algo)
            for knob, val in (cc or {}).items():
                self.setCc(knob, val)
        r["rxe"] = dict(self.rxe)
        return r

    def rxeDev(self, intf=None):
        """The rxe device of intf (default: the default interface)."""
        return self.rxe[str(intf or self.defaultIntf())]

    def setCc(self, knob, value, intf=None, timeout=10.0):
        """Write cc/<knob> of the device (an algorithm module may still be
        registering: retried for up to timeout seconds)."""
        path = os.path.join(IB, self.rxeDev(intf), "cc", knob)
        deadline = time.monotonic() + timeout
        while True:
            try:
                with open(path, "w") as f:
                    f.write("%s\n" % value)
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def getCc(self, knob, intf=None):
        with open(os.path.join(IB, self.rxeDev(intf), "cc", knob)) as f:
            return f.read().strip()

    def gid(self, intf=None, timeout=20.0):
        """The index of the RoCE v2 GID of intf's IPv4 address (waits for
        rxe to add it, up to timeout seconds)."""
        intf = intf or self.defaultIntf()
        want = ipaddress.IPv4Address(intf.IP()).packed
        port = os.path.join(IB, self.rxeDev(intf), "ports", "1")
        deadline = time.monotonic() + timeout
        while True:
            for t in glob.glob(os.path.join(port, "gid_attrs/types/*")):
                i = os.path.basename(t)
                try:
                    with open(t) as f:
                        if f.read().strip() != "RoCE v2":
                            continue
                    with open(os.path.join(port, "gids", i)) as f:
                        g = bytes.fromhex(f.read().strip().replace(":", ""))
                except OSError:
                    continue
                if g == bytes(10) + b"\xff\xff" + want:
                    return int(i)
            if time.monotonic() > deadline:
                raise RuntimeError("%s: no RoCE v2 GID of %s"
                                   % (self.name, intf.IP()))
            time.sleep(0.1)

    def netnsPids(self):
        """Processes in this host's network namespace, its shell too."""
        me = os.readlink("/proc/%d/ns/net" % self.pid)
        pids = []
        for p in os.listdir("/proc"):
            if not p.isdigit():
                continue
            try:
                if os.readlink("/proc/%s/ns/net" % p) == me:
                    pids.append(int(p))
            except OSError:
                pass
        return pids

    def terminate(self):
        """Kill what runs in the namespace (it holds the RDMA device),
        delete the device, then end the shell."""
        if self.shell and self.shell.poll() is None:
            for p in self.netnsPids():
                if p != self.pid:
                    try:
                        os.kill(p, 9)
                    except OSError:
                        pass
            for dev in getattr(self, "rxe", {}).values():
                subprocess.run(["rdma", "link", "delete", dev],
                               stderr=subprocess.DEVNULL)
        super().terminate()
