# SPDX-License-Identifier: GPL-2.0
"""The knobs several experiments have, each with one name, one meaning
and one description (what `dcblab params NAME` shows): an experiment's
PARAMS takes them with its own default."""

from ..experiment import Param


def line_mbps(default=100):
    """The line rate as a number of Mbit/s (the RDMA experiments', which
    write it to cc/max_rate_mbps too)."""
    return Param("rate", default, "line rate of every port, host NIC and "
                 "rxe device (Mb/s)")


def line_rate(default="100mbit"):
    """The line rate in tc's syntax."""
    return Param("rate", default, "line rate of every port and host NIC")


def dcbmon_ms(default, note=""):
    """How often dcbmon samples the ports (0: not at all, where an
    experiment allows it, says its @note)."""
    return Param("interval_ms", default, "dcbmon sampling interval (ms%s)"
                 % ("; " + note if note else ""))


def budget(default, per_run=False):
    """duration, where it is no traffic's length but the guest's time
    limit: dcblab's guest timeout is 10 x duration + 240 (per run of a
    comparison: @per_run)."""
    return Param("duration", default, "time budget (s): only sizes "
                 "dcblab's guest timeout (10 x duration + 240%s)"
                 % (" per run" if per_run else ""))


def udp_pkt(default=1000):
    """The UDP senders' datagrams."""
    return Param("pkt", default, "UDP payload bytes per datagram")


def pool(default, note=""):
    """Each switch's shared buffer pool (sch_dcb buffer)."""
    return Param("buffer", default, "buffer pool of each switch (sch_dcb "
                 "buffer%s)" % ("; " + note if note else ""))


def xoff(default, note=""):
    """PFC's static XOFF (sch_dcb pfc xoff)."""
    return Param("xoff", default, "PFC's static XOFF per (ingress port, "
                 "band 3)%s" % (": " + note if note else ""))


def pfc_delay(default="default"):
    """The PAUSE response time sch_dcb sizes the headroom for ("default":
    none given)."""
    return Param("delay", default, "PAUSE response time the headroom is "
                 "sized for (default: sch_dcb's, 5 ms)")
