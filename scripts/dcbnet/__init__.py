# SPDX-License-Identifier: GPL-2.0
"""dcbnet: DCB lab topologies on Mininet (Debian's mininet, python3).

Three node and link classes put the lab's kernel parts into an ordinary
Mininet network, without Open vSwitch or a controller:

  DcbSwitch  a routing switch: a network namespace with ip_forward on,
             proxy ARP on every port and a /32 route to every host, so
             hosts keep Mininet's one-subnet addressing (10.0.0.N/8)
             and `pingall` works.  Every port is a sch_dcb qdisc;
             dcb='...' gives its options (what follows
             `tc qdisc add dev PORT root handle 1: dcb`).  Switches
             linked together make one routed fabric: at net.start()
             each switch-switch link gets a /31 of link-local
             addresses (169.254.1.0 onward, numbered alike by every
             switch), and each switch routes a host behind other
             switches via the next switch on a shortest path over
             switch-switch links (breadth-first search; ties go to the
             port whose name sorts first): nodes.fabric_routes.
             ecmp=True: a multipath route over every shortest path
             instead, hashing the 5-tuple (nodes.ecmp_routes).
  RxeHost    a host whose interface gets sch_dcb (dcb='rate 100mbit')
             and a soft-RoCE device rxe_<intf> (`rdma link add`), with
             the congestion-control algorithm algo= ('none', 'dcqcn',
             'pcn', 'ldcp') and knobs cc={'dcqcn/rpg_ai_rate': 5, ...}
             written under /sys/class/infiniband/rxe_<intf>/cc/.
  DcbHost    a host whose interface gets sch_dcb, without RDMA.
  DcbLink    a veth pair of DcbIntf ends: each end is configured with
             the dcb= options of the link (dcb1=, dcb2= for one end)
             or else of its node.

load_modules(algos) loads sch_dcb, the lab's rdma_rxe and the algorithm
modules from the build tree (run `make` first), as root, where modules
load (in the lab's guest: scripts/vm-run).  Importing dcbnet points tc
at the repository's q_dcb.so plugin (TC_LIB_DIR) for every node started
afterwards.

fabric.py describes topologies as data (leaf_spine(), or hpcc.py's
reading of the HPCC simulator's topology.txt and flow.txt) and builds
them with these classes and ECMP (fabric.start()).

Experiments are Python units on these classes (dcbnet.experiment;
`python3 -m dcbnet list`), run by `dcblab run NAME`; stats.py is the
reader of sch_dcb's statistics they share.

A 4:1 lossless fabric (scripts/examples/mininet-fabric.py runs perftest
through it):

    import sys; sys.path.insert(0, TOP + '/scripts')
    from mininet.net import Mininet
    from dcbnet import DcbSwitch, RxeHost, DcbLink, load_modules
    load_modules(['dcqcn'])
    net = Mininet(switch=DcbSwitch, host=RxeHost, link=DcbLink,
                  controller=None)
    sw = net.addSwitch('sw', dcb='rate 100mbit ecn red kmin 5kb kmax 20kb '
                       'pmax 0.01 pfc prio-pfc 3,6 xoff 16kb')
    for name in ('s1', 's2', 's3', 's4', 'r'):
        net.addLink(net.addHost(name, dcb='rate 100mbit', algo='dcqcn'), sw)
    net.start()
    ...
    net.stop()

From Mininet's CLI (the same classes, with --custom; the options of
the ports from the environment, see mn_custom.py):

    DCBLAB_SW_DCB='rate 100mbit pfc prio-pfc 3 xoff 16kb' \
    DCBLAB_HOST_DCB='rate 100mbit' \
    mn --custom scripts/dcbnet/mn_custom.py --switch dcb --host rxe \
       --link dcb --controller none --topo single,4

Then `pingall`, `s1 tc -s qdisc show dev s1-eth1`, `h1 rdma link` work
as usual.  The cc/ files of an rxe device exist only in the initial
namespace's sysfs, not in the one a node's commands see: from the CLI
read them with `py h1.getCc('algo')`, write them with
`py h1.setCc('algo', 'dcqcn')`.
"""

import os

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
os.environ.setdefault("TC_LIB_DIR", os.path.join(TOP, "tc"))

__all__ = ["DcbHost", "DcbIntf", "DcbLink", "DcbSwitch", "RxeHost",
           "load_modules", "TOP"]


def __getattr__(name):
    """The node classes, imported with Mininet on first use: the
    analysis side (python3 -m dcbnet analyze, dcbanalysis) never pays
    for Mininet's import, which takes seconds of a guest's time."""
    if name in __all__:
        from . import nodes
        return getattr(nodes, name)
    raise AttributeError("module 'dcbnet' has no attribute %r" % name)
