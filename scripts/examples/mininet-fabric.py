#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""first-fabric.sh on Mininet: a 4:1 lossless RoCE fabric in Python.

Four senders s1..s4 and a receiver r around a routing switch sw, built
with Mininet and the lab's classes (scripts/dcbnet): every switch port
is sch_dcb at RATE with RED marking and PFC on RoCE's priorities (band
3: RoCE data, DSCP 26; band 6: CNPs), perftest's TCP control (DSCP 0)
mapped above them to band 7; every host NIC is sch_dcb at RATE and has
a soft-RoCE device whose cc/algo is ALGO.  Then four ib_write_bw -D SECS
run into r at once.

    scripts/examples/mininet-fabric.py [none|dcqcn|pcn|ldcp]

RATE (default 100mbit) and SECS (default 10) as in first-fabric.sh.
Printed at the end, as key=value lines (FF_REPORT=FILE writes them there
too): the seconds Mininet took to build and start the network
(build_secs, after the modules were loaded), each sender's rate into
the switch over the incast's steady state (half its length, from the
port toward r's first megabyte on), the rate of the port toward r, the
PAUSE frames the switch sent, the drops of the lossless bands (3 and 6)
on every port, and how many clients printed perftest's result.

Run it as root where the modules load, after `make` (in the lab's guest:
scripts/vm-run -- scripts/examples/mininet-fabric.py none).  It removes
what it created when it ends.
"""

import os
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "scripts"))

from mininet.net import Mininet  # noqa: E402

from dcbnet import DcbLink, DcbSwitch, RxeHost, load_modules  # noqa: E402

ALGO = sys.argv[1] if len(sys.argv) > 1 else "dcqcn"
RATE = os.environ.get("RATE", "100mbit")
SECS = int(os.environ.get("SECS", "10"))
SENDERS = ["s1", "s2", "s3", "s4"]

# The fabric: the whole topology is these lines.
load_modules([ALGO])
t0 = time.monotonic()
net = Mininet(switch=DcbSwitch, host=RxeHost, link=DcbLink, controller=None)
sw = net.addSwitch("sw", dcb="rate %s dscp-map 0:7 ecn red kmin 5kb kmax 20kb "
                   "pmax 0.01 pfc prio-pfc 3,6 xoff 16kb" % RATE)
for name in SENDERS + ["r"]:
    net.addLink(net.addHost(name, dcb="rate " + RATE, algo=ALGO), sw)
net.start()
build_secs = time.monotonic() - t0


def port_to(host):
    """The switch's port toward host."""
    return str(sw.connectionsTo(net[host])[0][0])


def incast():
    """Four ib_write_bw into r; returns (seconds, {port: (rx, tx) bytes
    over the window}, PAUSE frames sent in the window, clients)."""
    r = net["r"]
    procs = []
    for i, s in enumerate(SENDERS, 1):
        out = open("/var/tmp/mnf-srv-%d.txt" % i, "w")
        procs.append(r.popen(["ib_write_bw", "-F", "-d", r.rxeDev(), "-x",
                              str(r.gid()), "-p", str(18515 + i), "-D",
                              str(SECS)], stdout=out, stderr=out))
    for i in range(1, 5):
        while not r.cmd("ss -ltnH 'sport = :%d'" % (18515 + i)).strip():
            time.sleep(0.1)
    clients = []
    for i, s in enumerate(SENDERS, 1):
        h = net[s]
        out = open("/var/tmp/mnf-cli-%d.txt" % i, "w")
        clients.append(h.popen(["ib_write_bw", "-F", "-d", h.rxeDev(), "-x",
                                str(h.gid()), "-p", str(18515 + i), "-D",
                                str(SECS), r.IP()], stdout=out, stderr=out))
    procs += clients
    # the steady state: from the port toward r's first megabyte on
    to_r = port_to("r")
    b0 = sw.netdev_bytes()[to_r][1]
    while sw.netdev_bytes()[to_r][1] - b0 < 1000000:
        time.sleep(0.05)
    p0 = pauses()
    t1, x = time.monotonic(), sw.netdev_bytes()
    time.sleep(SECS / 2)
    t2, y = time.monotonic(), sw.netdev_bytes()
    p1 = pauses()
    rc = 0
    for p in procs:
        rc |= p.wait() != 0
    return t2 - t1, {d: (y[d][0] - x[d][0], y[d][1] - x[d][1]) for d in x}, \
        p1 - p0, rc


def pauses():
    c = sw.counters()
    return sum(v for (dev, name, band), v in c.items()
               if name == "pause_tx" and band is None)


def reported(i):
    """The client printed perftest's result line."""
    with open("/var/tmp/mnf-cli-%d.txt" % i) as f:
        lines = f.read().splitlines()
    for k, line in enumerate(lines[:-1]):
        if "#bytes" in line and lines[k + 1].split()[:2] and \
                all(w.isdigit() for w in lines[k + 1].split()[:2]):
            return True
    return False


try:
    secs, delta, pause_window, rc = incast()
    c = sw.counters()
    lossless_drops = sum(v for (dev, name, band), v in c.items()
                         if band in (3, 6) and
                         (name.startswith("drops") or name == "in_drops"))
    mbps = {s: 8 * delta[port_to(s)][0] / secs / 1e6 for s in SENDERS}
    report = [
        "rate=%s algo=%s clock=%s" % (RATE, ALGO,
                                      os.environ.get("DCBLAB_CLOCK",
                                                     "real native")),
        "build_secs=%.2f" % build_secs,
        "sender_mbps=" + ",".join("%.1f" % mbps[s] for s in SENDERS),
        "wire_mbps=%.1f" % (8 * delta[port_to("r")][1] / secs / 1e6),
        "measured_secs=%.2f" % secs,
        "pause_frames=%d" % pauses(),
        "pause_frames_window=%d" % pause_window,
        "lossless_drops=%d" % lossless_drops,
        "clients_reported=%d" % sum(reported(i) for i in range(1, 5)),
    ]
    for s in SENDERS:
        print("%s: %.1f Mb/s into the switch" % (s, mbps[s]))
    print("\n".join(report))
    if os.environ.get("FF_REPORT"):
        with open(os.environ["FF_REPORT"], "w") as f:
            f.write("\n".join(report) + "\n")
finally:
    net.stop()
sys.exit(rc)
