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

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from functools import partial  # noqa: E402

from dcbnet import DcbLink, DcbSwitch, RxeHost, load_modules  # noqa: E402

load_modules(os.environ.get("DCBLAB_ALGOS", "").split())

switches = {"dcb": partial(DcbSwitch, dcb=os.environ.get("DCBLAB_SW_DCB", ""))}
hosts = {"rxe": partial(RxeHost, dcb=os.environ.get("DCBLAB_HOST_DCB", ""))}
links = {"dcb": DcbLink}
