# SPDX-License-Identifier: GPL-2.0
"""The dcbnet classes for Mininet's command line:

    mn --custom scripts/dcbnet/mn_custom.py --switch dcb --host rxe \
       --link dcb --controller none --topo single,4

loads sch_dcb and the lab's rdma_rxe (DCBLAB_ALGOS='dcqcn pcn' also
loads those algorithms); the ports are sch_dcb with their defaults
unless DCBLAB_SW_DCB and DCBLAB_HOST_DCB give options (as dcb=).
"""

import os
import sys


def _here():
    """This file: mn runs it with exec(), without __file__, so it is the
    argument of --custom on mn's command line."""
    for i, a in enumerate(sys.argv):
        if a.startswith("--custom="):
            a = a[len("--custom="):]
        elif a == "--custom" and i + 1 < len(sys.argv):
            a = sys.argv[i + 1]
        else:
            continue
        for f in a.split(","):
            if f.endswith("mn_custom.py"):
                return f
    return __file__


sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(_here()))))

from functools import partial  # noqa: E402

from mininet.link import Link, OVSLink, TCLink, TCULink  # noqa: E402

from dcbnet import DcbLink, DcbSwitch, RxeHost, load_modules  # noqa: E402

load_modules(os.environ.get("DCBLAB_ALGOS", "").split())

switches = {"dcb": partial(DcbSwitch, dcb=os.environ.get("DCBLAB_SW_DCB", ""))}
hosts = {"rxe": partial(RxeHost, dcb=os.environ.get("DCBLAB_HOST_DCB", ""))}
links = {"dcb": DcbLink}
# Mininet 2.3.0's mn does not read links (a comma is missing in its list
# of custom dictionaries), but sets any other name as its global: its
# LINKS with dcb added
LINKS = {"default": Link, "tc": TCLink, "tcu": TCULink, "ovs": OVSLink,
         "dcb": DcbLink}
