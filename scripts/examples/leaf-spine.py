#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A leaf-spine fabric with ECMP in a few lines (scripts/dcbnet/fabric.py),
or the fabric of an HPCC simulator topology.txt (scripts/dcbnet/hpcc.py).

    scripts/examples/leaf-spine.py [LEAVES SPINES HOSTS_PER_LEAF]
    scripts/examples/leaf-spine.py --hpcc TOPOLOGY.txt [RATE_SCALE]

Builds the fabric (every port sch_dcb at its link's rate, PFC on RoCE's
bands; an HPCC file's rates times RATE_SCALE, default 0.001: 100 Gbit/s
becomes 100 Mbit/s), pings from the first host to every other, prints
each switch's multipath routes and the paths' hop counts, and stops it.
Run it as root where the modules load, after `make` (in the lab's
guest: scripts/vm-run -- scripts/examples/leaf-spine.py 4 2 4).
"""

import os
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "scripts"))

from dcbnet import fabric, hpcc  # noqa: E402

args = sys.argv[1:]
scale = 1.0
if args[:1] == ["--hpcc"]:
    f = hpcc.topology(args[1])
    scale = float(args[2]) if len(args) > 2 else 1e-3
else:
    leaves, spines, hpl = (int(a) for a in (args or ["4", "2", "4"]))
    f = fabric.leaf_spine(leaves, spines, hpl, rate_mbps=100)

net, hosts, paths = fabric.start(tempfile.mkdtemp(prefix="leaf-spine."), f,
                                 rate_scale=scale)
try:
    src = hosts[0]
    lost = [h.name for h in hosts[1:]
            if src.pexec(["ping", "-c", "1", "-W", "5", h.IP()])[2]]
    print("%s reaches %d of %d hosts" % (src.name, len(hosts) - 1 - len(lost),
                                         len(hosts) - 1))
    for sw in net.switches:
        multi = fabric.multipath_routes(sw)
        print("%-8s %d multipath routes%s" % (
            sw.name, len(multi), "" if not multi else ", e.g. %s via %s" %
            next(iter(multi.items()))))
    for dst in hosts[1:]:
        p = paths[(src.name, dst.name)]
        print("%s -> %s: %d switches, %d equal-cost paths, %.0f Mbit/s"
              % (src.name, dst.name, p.switches, p.ecmp,
                 p.rate_bps * scale / 1e6))
finally:
    net.stop()
sys.exit(1 if lost else 0)
