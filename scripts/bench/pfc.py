#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Cost and timing of sch_dcb's PFC.

    scripts/vm-run --timeout 900 -- /usr/bin/python3 scripts/bench/pfc.py
    (or: make bench)

1. Packets per second forwarded by a switch namespace whose ports are
   sch_dcb, in four modes measured in interleaved rounds (the order
   rotates every round), medians reported:
     pfc    buffer + `pfc prio-pfc 3` on both ports (ingress accounting
            per (port, band); XOFF never reached)
     nopfc  the same buffer, `pfc off` (pool accounting only)
     plain  no buffer, no PFC (sch_dcb as measured by pps.py)
     bfifo  bfifo on the egress port (pps.py's yardstick)
   pktgen runs inside the switch namespace in `xmit_mode netif_receive`
   on the ingress veth pfa1, so every packet is received there (skb_iif
   = pfa1, an ingress port of the pool), routed, and queued on the
   egress sch_dcb of pfb1; the peer pfb0 drops at its clsact ingress.
   Goal: pfc >= 0.99 x nopfc; pfc/bfifo and plain/bfifo beside it.
2. PAUSE response times on a host -> switch -> receiver path (host NIC
   20 Mbit/s into a 10 Mbit/s port, PFC on band 3), from tracepoints
   (sch_dcb:dcb_pfc_tx on the switch port, sch_dcb:dcb_pfc_rx on the
   host, net:netif_receive_skb of data arriving at the switch port; one
   kernel, one trace clock): delivery (PAUSE sent -> handled by the
   host), silence (PAUSE sent -> last data packet from the host, and the
   packets and bytes in between), restart (RESUME sent -> first data
   packet), packets from a RESUME to the next PAUSE.

A benchmark, not a test: exit 0 whatever the numbers, 1 when the
measurement itself failed.

Environment:
  DCBLAB_BENCH_ROUNDS  rounds of each mode            (default 9)
  DCBLAB_BENCH_SECS    seconds per pps measurement    (default 3)
  DCBLAB_BENCH_PKT     pktgen pkt_size, bytes         (default 64)
  DCBLAB_BENCH_GOAL    required pfc/nopfc ratio       (default 0.99)
  DCBLAB_BENCH_TSECS   seconds of traffic for part 2  (default 4;
                       0 = part 1 only)
  DCBLAB_DCB_KO        sch_dcb.ko to load if none is loaded
"""

import os
import re
import shutil
import sys

from benchlib import (BUILD, TOP, Bench, Pktgen, clock_note, env_float,
                      env_int, load_sch_dcb, machine, mac, median, netdev,
                      print_medians, print_ratios, qdisc_sent, read,
                      rotated, run, write)
from dcbnet.experiment import tracefs  # on sys.path through benchlib

B = Bench("pfc.py")
SW, RXNS, HOST = "pf-sw", "pf-rx", "pf-h"
MODES = ("pfc", "nopfc", "plain", "bfifo")
OPTS = {
    "pfc": "rate 0 dscp-map 0:7 buffer 4mb pfc prio-pfc 3 xoff 1mb "
           "headroom 64kb delay 10us",
    "nopfc": "rate 0 dscp-map 0:7 buffer 4mb pfc off",
    "plain": "rate 0 dscp-map 0:7",
    "bfifo": "rate 0 dscp-map 0:7",
}
# (the ratio's name, numerator, denominator)
RATIOS = (("pfc/nopfc", "pfc", "nopfc"), ("pfc/plain", "pfc", "plain"),
          ("pfc/bfifo", "pfc", "bfifo"), ("plain/bfifo", "plain", "bfifo"))


def cleanup(pg):
    pg.detach()
    try:
        t = tracefs()
    except RuntimeError:	# nothing was traced
        t = None
    for f, v in (("tracing_on", "0"), ("events/enable", "0")) if t else ():
        try:
            write(os.path.join(t, f), v)
        except OSError:
            pass
    run(["ip", "link", "del", "pfa0"], quiet=True)
    for n in (SW, RXNS, HOST):
        run(["ip", "netns", "del", n], quiet=True)


def sw(*argv, **kw):
    return run(list(argv), ns=SW, **kw)


def setup1(pkt):
    run(["ip", "netns", "add", SW])
    run(["ip", "netns", "add", RXNS])
    run(["ip", "-n", SW, "link", "set", "lo", "up"])
    sw("sysctl", "-qw", "net.ipv4.ip_forward=1",
       "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0")
    # not per namespace: the one backlog of all namespaces
    run(["sysctl", "-qw", "net.core.netdev_max_backlog=10000"])
    run(["ip", "link", "add", "pfa0", "type", "veth", "peer", "name", "pfa1",
         "netns", SW])
    run(["ip", "link", "add", "pfb1", "netns", SW, "type", "veth", "peer",
         "name", "pfb0", "netns", RXNS])
    run(["ip", "link", "set", "pfa0", "up"])
    for d in ("pfa1", "pfb1"):
        sw("ethtool", "-K", d, "gro", "off", "gso", "off", "tso", "off",
           quiet=True)
        run(["ip", "-n", SW, "link", "set", d, "up"])
    run(["ethtool", "-K", "pfb0", "gro", "off"], ns=RXNS, quiet=True)
    run(["ip", "-n", RXNS, "link", "set", "pfb0", "up"])
    sw("sysctl", "-qw", "net.ipv4.conf.pfa1.rp_filter=0")
    run(["ip", "-n", SW, "addr", "add", "10.98.1.1/24", "dev", "pfa1"])
    run(["ip", "-n", SW, "addr", "add", "10.98.2.1/24", "dev", "pfb1"])
    run(["ip", "-n", RXNS, "addr", "add", "10.98.2.2/24", "dev", "pfb0"])
    run(["ip", "-n", SW, "neigh", "replace", "10.98.2.2", "lladdr",
         mac("pfb0", RXNS), "dev", "pfb1", "nud", "permanent"])
    run(["tc", "qdisc", "add", "dev", "pfb0", "clsact"], ns=RXNS)
    run(["tc", "filter", "add", "dev", "pfb0", "ingress", "matchall",
         "action", "drop"], ns=RXNS)
    pg = Pktgen("pfa1", SW)
    pg.setup("xmit_mode netif_receive", "count 0", "clone_skb 0", "burst 1",
             "delay 0", "pkt_size %d" % pkt, "src_min 10.98.1.2",
             "src_max 10.98.1.2", "dst 10.98.2.2",
             "dst_mac " + mac("pfa1", SW), "udp_src_min 9", "udp_src_max 9",
             "udp_dst_min 9", "udp_dst_max 9",
             "tos 60")	# DSCP 24: band 3, the PFC band
    return pg


def set_mode(m):
    # "replace" cannot change the kind: the egress port starts afresh
    sw("tc", "qdisc", "del", "dev", "pfb1", "root", quiet=True)
    for d in ("pfa1", "pfb1"):
        if m == "bfifo" and d == "pfb1":
            # as in pps.py: a byte limit below the MTU, no bypass
            sw("tc", "qdisc", "replace", "dev", d, "root", "handle", "1:",
               "bfifo", "limit", "1000")
        else:
            sw(*["tc", "qdisc", "replace", "dev", d, "root", "handle", "1:",
                 "dcb"] + OPTS[m].split())


def measure(pg, m, secs):
    """One run of mode m: (pps of pktgen, % of its packets that left
    pfb1's qdisc, % that reached pfb0)."""
    set_mode(m)
    f0, r0 = qdisc_sent("pfb1", SW), netdev("pfb0", RXNS)["rx_packets"]
    pps, sent, _ = pg.run(secs)
    f1, r1 = qdisc_sent("pfb1", SW), netdev("pfb0", RXNS)["rx_packets"]
    return pps, 100.0 * (f1 - f0) / sent, 100.0 * (r1 - r0) / sent


def part1(pg, rounds, secs, pkt, goal):
    B.say("part 1: pktgen netif_receive on pfa1 (switch ingress), %d-byte "
          "UDP DSCP 24, routed to pfb1 (sch_dcb, unshaped) -> pfb0 (drop); "
          "%d rounds x %gs per mode, order rotated" % (pkt, rounds, secs))
    B.note("warm-up")
    for m in MODES:
        measure(pg, m, 1)
    res = {m: [] for m in MODES}
    per_round = {name: [] for name, _, _ in RATIOS}
    for r in range(rounds):
        p = {}
        for m in rotated(MODES, r):
            pps, fwd, rxp = measure(pg, m, secs)
            res[m].append(pps)
            p[m] = pps
            B.note("round %d %-6s %8d pps  forwarded %5.1f%%  received "
                   "%5.1f%%" % (r + 1, m, pps, fwd, rxp))
        for name, a, b in RATIOS:
            per_round[name].append(p[a] / p[b])
    B.note("sch_dcb statistics of the egress port after a 1 s pfc run:")
    measure(pg, "pfc", 1)
    for ln in sw("tc", "-s", "qdisc", "show", "dev", "pfb1",
                 out=True).splitlines():
        print("#   " + ln)
    print()
    print_medians("mode", MODES, res)
    print_ratios((name, per_round[name]) for name, _, _ in RATIOS)
    ok = round(median(per_round["pfc/nopfc"]), 3) >= goal
    print("goal: pfc >= %gx nopfc: %s" % (goal, "PASS" if ok else "FAIL"),
          flush=True)


def setup2():
    run(["ip", "netns", "add", HOST])
    run(["ip", "-n", HOST, "link", "set", "lo", "up"])
    run(["ip", "link", "add", "eth0", "netns", HOST, "type", "veth", "peer",
         "name", "swp1", "netns", SW])
    run(["ip", "-n", HOST, "link", "set", "eth0", "up"])
    run(["ip", "-n", SW, "link", "set", "swp1", "up"])
    run(["ethtool", "-K", "eth0", "gso", "off", "tso", "off"], ns=HOST,
        quiet=True)
    run(["ip", "-n", HOST, "addr", "add", "10.98.3.2/24", "dev", "eth0"])
    run(["ip", "-n", SW, "addr", "add", "10.98.3.1/24", "dev", "swp1"])
    run(["ip", "-n", HOST, "route", "add", "default", "via", "10.98.3.1"])
    run(["ip", "-n", HOST, "neigh", "replace", "10.98.3.1", "lladdr",
         mac("swp1", SW), "dev", "eth0", "nud", "permanent"])
    run(["ip", "-n", SW, "neigh", "replace", "10.98.3.2", "lladdr",
         mac("eth0", HOST), "dev", "swp1", "nud", "permanent"])
    # Both ends of the host's link run at 20 Mbit/s (PAUSE times are in
    # 512 bit times of the link: with a slower switch end the host's
    # pause would expire before the switch refreshes it); the bottleneck
    # is pfb1 at 10.
    for d, rate in (("swp1", "20mbit"), ("pfb1", "10mbit"),
                    ("pfa1", "10mbit")):
        sw("tc", "qdisc", "replace", "dev", d, "root", "handle", "1:", "dcb",
           "rate", rate, "dscp-map", "0:7", "buffer", "512kb", "pfc",
           "prio-pfc", "3", "xoff", "16kb", "delay", "20ms")
    run(["tc", "qdisc", "replace", "dev", "eth0", "root", "handle", "1:",
         "dcb", "rate", "20mbit", "dscp-map", "0:7", "limit", "2mb"],
        ns=HOST)


def bit_set(line, key, bit=3):
    """Band bit of the hex field key=0x.. of a trace line is set."""
    m = re.search(r"\b%s=0x([0-9a-f]+) " % key, line)
    return bool(m) and bool(int(m.group(1), 16) >> bit & 1)


def cycles(lines):
    """The PAUSE/RESUME cycles of the switch port swp1 in the trace's
    lines: {series: [values]} in seconds, packets and bytes."""
    s = {k: [] for k in ("delivery", "silence", "inflight", "inflight_b",
                         "paused", "restart", "resume_to_pause")}
    state, tp = None, 0.0
    cnt = byt = since = 0
    last = tr = -1.0
    waitrx = False
    for ln in lines:
        m = re.search(r" (\d+\.\d+): (\w+):", ln)
        if not m:
            continue
        t, ev = float(m.group(1)), m.group(2)
        if ev == "dcb_pfc_tx" and "dev=swp1 " in ln:
            if bit_set(ln, "pause") and state != "paused":
                if state in ("running", "resumed"):
                    s["resume_to_pause"].append(since)
                tp, state, cnt, byt, last, waitrx = t, "paused", 0, 0, -1.0, True
            elif bit_set(ln, "resume") and state == "paused":
                s["silence"].append(last - tp if last >= 0 else 0.0)
                s["inflight"].append(cnt)
                s["inflight_b"].append(byt)
                s["paused"].append(t - tp)
                tr, state, since = t, "resumed", 0
        elif ev == "dcb_pfc_rx" and waitrx and bit_set(ln, "pause"):
            s["delivery"].append(t - tp)
            waitrx = False
        elif ev == "netif_receive_skb":
            lm = re.search(r"len=(\d+)", ln)
            n = int(lm.group(1)) if lm else 0
            if n < 500:
                continue	# not a data packet
            if state == "paused":
                cnt, byt, last = cnt + 1, byt + n, t
            else:
                since += 1
                if state == "resumed":
                    s["restart"].append(t - tr)
                    state = "running"
    return s


def stats_line(name, unit, mul, a):
    if not a:
        print("%-34s %s" % (name, "no events"))
        return
    a = sorted(a)
    n = len(a)
    # the lower median and the 90th percentile by rank, as before
    p90 = a[min(n, int(0.9 * n + 0.999)) - 1]
    print("%-34s n %4d  median %9.3f  p90 %9.3f  max %9.3f  mean %9.3f %s"
          % (name, n, a[(n + 1) // 2 - 1] * mul, p90 * mul, a[-1] * mul,
             sum(a) / n * mul, unit))


def part2(tsecs):
    print()
    B.say("part 2: PAUSE response times, host link 20 Mbit/s -> switch "
          "egress 10 Mbit/s, PFC band 3 (xoff 16kb, quanta 0xffff), %gs of "
          "1000-byte UDP" % tsecs)
    setup2()
    t = tracefs()
    if not os.path.isdir(t + "/events/sch_dcb"):
        B.die("no sch_dcb tracepoints in " + t)
    ev = t + "/events/"
    for f, v in (("tracing_on", "0"), ("events/enable", "0"),
                 ("buffer_size_kb", "8192"), ("trace", ""),
                 ("events/net/netif_receive_skb/filter", 'name == "swp1"'),
                 ("events/net/netif_receive_skb/enable", "1"),
                 ("events/sch_dcb/dcb_pfc_tx/enable", "1"),
                 ("events/sch_dcb/dcb_pfc_rx/enable", "1"),
                 ("tracing_on", "1")):
        write(os.path.join(t, f), v + "\n" if f != "trace" else "\n")
    n = int(tsecs * 20e6 / 8 / 1042)
    rc = run(["timeout", str(int(tsecs * 4 + 20)),
              os.path.join(TOP, "tools", "udpflow"), "send", "10.98.2.2",
              "7000", "--count", str(n), "--interval", "0", "--tos", "0x60",
              "--len", "1000"], ns=HOST, quiet=True)
    write(t + "/tracing_on", "0")
    write(t + "/events/enable", "0")
    write(ev + "net/netif_receive_skb/filter", "0\n")
    if rc != 0:
        B.die("sender failed")
    out = os.path.join(BUILD, "bench", "pfc.trace")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    shutil.copyfile(t + "/trace", out)
    B.note("trace saved in " + out)
    lines = read(out).splitlines()
    B.note("trace: %d dcb_pfc_tx, %d dcb_pfc_rx, %d netif_receive_skb "
           "events %s" % (sum("dcb_pfc_tx" in ln for ln in lines),
                          sum("dcb_pfc_rx" in ln for ln in lines),
                          sum("netif_receive_skb" in ln for ln in lines),
                          "(events LOST)" if any("LOST" in ln
                                                  for ln in lines) else ""))
    B.note("switch port toward the host (ingress counters) and the "
           "bottleneck:")
    for ln in sw("tc", "-s", "qdisc", "show", "dev", "swp1",
                 out=True).splitlines():
        print("#   " + ln)
    for ln in sw("tc", "-s", "qdisc", "show", "dev", "pfb1",
                 out=True).splitlines():
        if re.search("total|pool", ln):
            print("#   " + ln)
    s = cycles(lines)
    print("\n%-34s (%d PAUSE/RESUME cycles)" % ("PAUSE response",
                                               len(s["silence"])))
    stats_line("delivery: PAUSE sent -> host", "ms", 1000, s["delivery"])
    stats_line("silence: PAUSE sent -> last pkt", "ms", 1000, s["silence"])
    stats_line("in flight after PAUSE", "packets", 1, s["inflight"])
    stats_line("in flight after PAUSE", "KB", 1 / 1024, s["inflight_b"])
    stats_line("paused: PAUSE -> RESUME sent", "ms", 1000, s["paused"])
    stats_line("restart: RESUME sent -> first pkt", "ms", 1000,
               s["restart"])
    # From XON (RESUME) the counter passes XOFF after about 2 MTU of net
    # growth (4 packets when the host sends twice as fast as the port
    # drains); more packets before the PAUSE goes out = the time between
    # the XOFF decision and the frame (sent from a tasklet).
    stats_line("pkts from RESUME to next PAUSE", "packets", 1,
               s["resume_to_pause"])


def main():
    rounds = env_int("DCBLAB_BENCH_ROUNDS", 9)
    secs = env_float("DCBLAB_BENCH_SECS", 3)
    pkt = env_int("DCBLAB_BENCH_PKT", 64)
    goal = env_float("DCBLAB_BENCH_GOAL", 0.99)
    tsecs = env_float("DCBLAB_BENCH_TSECS", 4)
    load_sch_dcb(B)
    if run(["modprobe", "pktgen"], check=False) != 0:
        B.die("modprobe pktgen failed")
    pg = Pktgen("pfa1", SW)
    cleanup(pg)
    try:
        pg = setup1(pkt)
        clock_note(B.name)
        machine(B.name)
        part1(pg, rounds, secs, pkt, goal)
        pg.detach()
        if tsecs > 0:
            part2(tsecs)
    except RuntimeError as e:
        B.die(str(e))
    finally:
        cleanup(pg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
