#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""What Mininet costs the lab: seconds to build, start and stop a star of
N hosts around one DcbSwitch, per phase, for each N given.

    scripts/vm-run -- scripts/bench/mininet_cost.py [N...]   (default 5 17)

Two kinds of star per N: 'lab' (RxeHost with a sch_dcb NIC and an rxe
device, sch_dcb switch ports: what mininet-fabric.py builds) and 'bare'
(Mininet's Host, plain veth links, the switch without qdiscs: Mininet's
own cost).  One line per star: kind, hosts, then the seconds of adding
the hosts (a shell each), the switch, the links, net.start() (addresses,
rxe devices and cc/algo, routes), net.stop(), and in all (build =
hosts + switch + links + start), and the per-host cost of the build.
Clock: the machine's (the guest's in scripts/vm-run).
"""

import os
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "scripts"))

from mininet.link import Link  # noqa: E402
from mininet.net import Mininet  # noqa: E402
from mininet.node import Host  # noqa: E402

from dcbnet import DcbLink, DcbSwitch, RxeHost, load_modules  # noqa: E402


def star(kind, n):
    lab = kind == "lab"
    t = [time.monotonic()]
    net = Mininet(switch=DcbSwitch, host=RxeHost if lab else Host,
                  link=DcbLink if lab else Link, controller=None,
                  build=False)
    hosts = [net.addHost("h%d" % i, **({"dcb": "rate 100mbit"} if lab
                                        else {}))
             for i in range(1, n + 1)]
    t.append(time.monotonic())
    sw = net.addSwitch("sw", **({"dcb": "rate 100mbit pfc prio-pfc 3 xoff 16kb"}
                                if lab else {}))
    t.append(time.monotonic())
    for h in hosts:
        net.addLink(h, sw)
    t.append(time.monotonic())
    net.start()
    t.append(time.monotonic())
    loss = net.ping([hosts[0], hosts[-1]], timeout=5)
    net.stop()
    t.append(time.monotonic())
    d = [b - a for a, b in zip(t, t[1:])]
    build = sum(d[:4])
    print("%-4s %3d hosts: add hosts %.2f  switch %.2f  links %.2f  "
          "start %.2f  stop %.2f  build %.2f s (%.3f s/host), ping loss %d%%"
          % (kind, n, d[0], d[1], d[2], d[3], d[4], build, build / n, loss),
          flush=True)


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [5, 17]
    t = time.monotonic()
    load_modules(["dcqcn"])
    print("modules loaded in %.2f s" % (time.monotonic() - t), flush=True)
    for n in sizes:
        for kind in ("bare", "lab"):
            star(kind, n)


if __name__ == "__main__":
    main()
