#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Packets per second through a veth pair with sch_dcb (marking armed;
and marking with a sized pool and PFC armed), sch_red, pfifo or bfifo as
the sender's root qdisc.

    scripts/vm-run --timeout 900 -- /usr/bin/python3 scripts/bench/pps.py
    (or: make bench)

Runs as root under the 6.1 guest kernel (Documentation/bench.rst).  The
in-kernel pktgen (one kthread, CPU 0, xmit_mode queue_xmit, so every
packet goes through dev_queue_xmit and the root qdisc) sends small UDP
frames from pb0; the peer pb1 lives in its own netns and drops everything
at its clsact ingress hook.  The qdiscs are measured in interleaved
rounds (the order rotates every round).  The table reports each qdisc's
median, and the ratios are the medians of the per-round ratios: within a
round the qdiscs are measured seconds apart, so the host's drift cancels
in each round's ratio and the median discards the odd round.  A
benchmark, not a test: the exit status is 0 whatever the numbers, 1 only
when the measurement itself failed.

Environment:
  DCBLAB_BENCH_ROUNDS  rounds of each qdisc                (default 9)
  DCBLAB_BENCH_SECS    seconds per measurement             (default 5)
  DCBLAB_BENCH_PKT     pktgen pkt_size, bytes              (default 64)
  DCBLAB_BENCH_GOAL    required dcb/bfifo and dcbpfc/bfifo (default 0.97)
  DCBLAB_DCB_KO        sch_dcb.ko to load if none is loaded
                       (default sch_dcb/sch_dcb.ko)
"""

import os
import sys
import time

from benchlib import (Bench, Pktgen, clock_note, env_float, env_int,
                      load_sch_dcb, machine, mac, median, netdev,
                      print_medians, print_ratios, qdisc_sent, rotated,
                      run)

B = Bench("pps.py")
NS, TX, RX = "pb-rx", "pb0", "pb1"
QDISCS = ("dcb", "dcbpfc", "red", "pfifo", "bfifo")
DCBS, BASES = ("dcb", "dcbpfc"), ("red", "pfifo", "bfifo")

# Each qdisc's options after `tc qdisc replace dev pb0 root handle 1:`.
ARGS = {
    "dcb": "dcb rate 0 ecn red kmin 1mb kmax 2mb pmax 0.1",
    # The same curve, a sized pool and PFC on band 0 (the packets' band)
    # of this port: every admission checks the pool's shared part;
    # pktgen's packets have no ingress port, so the ingress accounting
    # is pfc.py's to measure.
    "dcbpfc": "dcb rate 0 ecn red kmin 1mb kmax 2mb pmax 0.1 buffer 4mb "
              "pfc prio-pfc 0 xoff 1mb headroom 64kb delay 10us",
    "red": "red limit 4mb min 1mb max 2mb avpkt 1000 burst 1400 "
           "probability 0.1 ecn bandwidth 10gbit",
    "pfifo": "pfifo limit 1000",
    # A byte limit below the MTU: the core takes no bypass
    # (TCQ_F_CAN_BYPASS), so every packet is enqueued and dequeued as
    # with dcb and red; the queue holds one or two 64-byte packets.
    "bfifo": "bfifo limit 1000",
}


def cleanup(pg):
    pg.detach()
    run(["ip", "link", "del", TX], quiet=True)
    run(["ip", "netns", "del", NS], quiet=True)


def setup(pkt):
    run(["ip", "netns", "add", NS])
    run(["ip", "link", "add", TX, "type", "veth", "peer", "name", RX])
    run(["ip", "link", "set", RX, "netns", NS])
    run(["ethtool", "-K", TX, "gro", "off", "gso", "off", "tso", "off"],
        quiet=True)
    run(["ethtool", "-K", RX, "gro", "off", "gso", "off", "tso", "off"],
        ns=NS, quiet=True)
    run(["ip", "addr", "add", "10.99.0.1/24", "dev", TX])
    run(["ip", "-n", NS, "addr", "add", "10.99.0.2/24", "dev", RX])
    run(["ip", "link", "set", TX, "up"])
    run(["ip", "-n", NS, "link", "set", RX, "up"])
    # Receiver: drop every frame at ingress, before the IP stack.
    run(["tc", "qdisc", "add", "dev", RX, "clsact"], ns=NS)
    run(["tc", "filter", "add", "dev", RX, "ingress", "matchall",
         "action", "drop"], ns=NS)
    # veth hands frames to the per-CPU backlog; keep it from overflowing.
    run(["sysctl", "-qw", "net.core.netdev_max_backlog=10000"], quiet=True)
    pg = Pktgen(TX)
    pg.setup("xmit_mode queue_xmit", "count 0", "clone_skb 0", "burst 1",
             "delay 0", "pkt_size %d" % pkt, "dst 10.99.0.2",
             "dst_mac " + mac(RX, NS), "udp_src_min 9", "udp_src_max 9",
             "udp_dst_min 9", "udp_dst_max 9",
             # ECT(0): were the marking curve ever to select a packet,
             # it would be marked, not dropped (the queue stays far
             # below kmin / min)
             "tos 02")
    return pg


def set_qdisc(q):
    # "replace" keeps handle 1: but cannot change the kind: start afresh
    run(["tc", "qdisc", "del", "dev", TX, "root"], quiet=True)
    run(["tc", "qdisc", "replace", "dev", TX, "root", "handle", "1:"] +
        ARGS[q].split())


def measure(pg, q, secs):
    """One run of q: {pps (pktgen's rate), sent (pktgen's count), errs
    (its transmit errors), rxpct (share of sent the receiver saw), qpkts
    (packets the qdisc sent)}."""
    set_qdisc(q)
    time.sleep(0.2)
    r0, s0 = netdev(RX, NS)["rx_packets"], qdisc_sent(TX)
    pps, sent, errs = pg.run(secs)
    r1, s1 = netdev(RX, NS)["rx_packets"], qdisc_sent(TX)
    return {"pps": pps, "sent": sent, "errs": errs,
            "rxpct": 100.0 * (r1 - r0) / sent, "qpkts": s1 - s0}


def main():
    rounds = env_int("DCBLAB_BENCH_ROUNDS", 9)
    secs = env_float("DCBLAB_BENCH_SECS", 5)
    pkt = env_int("DCBLAB_BENCH_PKT", 64)
    goal = env_float("DCBLAB_BENCH_GOAL", 0.97)
    load_sch_dcb(B)
    for m in ("pktgen", "sch_red"):
        if run(["modprobe", m], check=False) != 0:
            B.die("modprobe %s failed" % m)
    if not os.path.exists("/proc/net/pktgen/pgctrl"):
        B.die("/proc/net/pktgen/pgctrl missing")
    pg = Pktgen(TX)
    cleanup(pg)
    try:
        pg = setup(pkt)
        return bench(pg, rounds, secs, pkt, goal)
    except RuntimeError as e:
        B.die(str(e))
    finally:
        cleanup(pg)


def bench(pg, rounds, secs, pkt, goal):
    clock_note(B.name)
    machine(B.name)
    B.say("pktgen queue_xmit, 1 thread (CPU 0), %d-byte UDP, %s -> %s "
          "(netns, ingress drop), %d rounds x %gs per qdisc, order rotated "
          "per round" % (pkt, TX, RX, rounds, secs))
    B.note("warm-up")
    for q in QDISCS:
        measure(pg, q, 1)
    res = {q: [] for q in QDISCS}
    per_round = {(d, q): [] for d in DCBS for q in BASES}
    for r in range(rounds):
        p = {}
        for q in rotated(QDISCS, r):
            m = measure(pg, q, secs)
            res[q].append(m["pps"])
            p[q] = m["pps"]
            B.note("round %d %-5s %8d pps  sent %9d  qdisc-sent %9d  "
                   "received %5.1f%%  errors %d" % (
                       r + 1, q, m["pps"], m["sent"], m["qpkts"],
                       m["rxpct"], m["errs"]))
        for k in per_round:
            per_round[k].append(p[k[0]] / p[k[1]])

    for q, what in (("dcb", "sch_dcb statistics after a 1 s run "
                     "(ecn_marked and drops should be 0):"),
                    ("dcbpfc", "sch_dcb statistics (pool, PFC armed) "
                     "after a 1 s run:"),
                    ("red", "sch_red statistics after a 1 s run (marked "
                     "and drops should be 0):"),
                    ("bfifo", "bfifo statistics after a 1 s run (dropped "
                     "should be 0):")):
        B.note(what)
        measure(pg, q, 1)
        for ln in run(["tc", "-s", "qdisc", "show", "dev", TX],
                      out=True).splitlines():
            print("#   " + ln)

    print()
    print_medians("qdisc", QDISCS, res)
    print()
    print_ratios((("%s/%s" % dq, rs) for dq, rs in per_round.items()), 13)
    # Issue 44: sch_dcb, marking and PFC armed, within 3 % of bfifo,
    # which queues every packet as sch_dcb does (bench.rst says why
    # pfifo, which may bypass its queue, is no yardstick).
    ok = all(round(median(per_round[(d, "bfifo")]), 3) >= goal
             for d in DCBS)
    print("goal: dcb and dcbpfc >= %gx bfifo: %s" % (
        goal, "PASS" if ok else "FAIL"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
