#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""CPU cost of the DCQCN hooks without congestion: ib_write_bw with
cc/algo dcqcn against algo none, in the same guest run.

    scripts/vm-run --timeout 1200 -- /usr/bin/python3 scripts/bench/dcqcn.py

Two pairs of namespaces, each joined by a veth pair (no qdisc, nothing
marks), one of our rxe devices in each namespace, ib_write_bw (64 KB
writes, -D seconds) from the first to the second of each pair, so every
packet passes the requester hooks (pacer check, per-packet ECT, on_sent
byte counter) and the receiver's (CE check, NP).  No ceiling
(max_rate_mbps 0): dcqcn takes the veth's 10 Gb/s as line rate, far
above what the guest reaches, so its QP never paces: the difference is
the hooks' cost.

Paired rounds (default): both pairs send at once, one under dcqcn and one
under none, so host noise hits both alike; the pairs swap algorithms
every round, and the result is the geometric mean of the rounds'
dcqcn/none ratios (a pair's own advantage cancels over a swap).  A
round's ratio is that of the packets the two senders' devices sent (hw
counter sent_pkts, read every 0.25 s) while both flows ran (from the
second sample in which both counters grew to the last but one), not
perftest's own figures: those include the moments one flow ran alone,
and perftest sometimes prints 0.00 MB/s for a flow that moved data.
DCBLAB_BENCH_PIN=1 runs pair k's processes on CPU k.
DCBLAB_BENCH_MODE=sequential runs one flow at a time instead, alternating
the order, and compares the medians (noisier).  A benchmark: exit status
1 only if the measurement failed.

Environment:
  DCBLAB_BENCH_ROUNDS  rounds (paired: a multiple of 4 is balanced) (default 8)
  DCBLAB_BENCH_SECS    ib_write_bw -D seconds, >= 3      (default 5)
  DCBLAB_BENCH_MODE    paired | sequential               (default paired)
  DCBLAB_BENCH_PIN     1: pair k on CPU k (paired)       (default 0)
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

from benchlib import (BUILD, IB, Bench, env_int, geomean_se, hw_counter,
                      perftest_mbs, read, run, rxe_gid, wait_for, write)

B = Bench("dcqcn.py")
SIZE = 65536
# pair k: namespace A[k] sends to Z[k]
A = ["dqa%d" % os.getpid(), "dqc%d" % os.getpid()]
Z = ["dqb%d" % os.getpid(), "dqd%d" % os.getpid()]
KEEP = os.path.join(BUILD, "bench", "dcqcn")


def dev(ns):
    return "rx_" + ns


def cleanup(tmp):
    for n in A + Z:
        pids = run(["ip", "netns", "pids", n], out=True, quiet=True) or ""
        for p in pids.split():
            try:
                os.kill(int(p), 9)
            except OSError:
                pass
        run(["ip", "netns", "del", n], quiet=True)
    shutil.rmtree(tmp, ignore_errors=True)


def setup():
    """The two pairs; {ns: GID index}."""
    for k in (0, 1):
        a, z = A[k], Z[k]
        run(["ip", "netns", "add", a])
        run(["ip", "netns", "add", z])
        run(["ip", "link", "add", "eth0", "netns", a, "type", "veth", "peer",
             "name", "eth0", "netns", z])
        run(["ip", "-n", a, "addr", "add", "10.98.%d.1/24" % k, "dev",
             "eth0"])
        run(["ip", "-n", z, "addr", "add", "10.98.%d.2/24" % k, "dev",
             "eth0"])
        for n in (a, z):
            run(["ip", "-n", n, "link", "set", "lo", "up"])
            run(["ip", "-n", n, "link", "set", "eth0", "up"])
            run(["rdma", "link", "add", dev(n), "type", "rxe", "netdev",
                 "eth0"], ns=n)
    gid = {}
    for k in (0, 1):
        gid[A[k]] = rxe_gid(dev(A[k]), "10.98.%d.1" % k)
        gid[Z[k]] = rxe_gid(dev(Z[k]), "10.98.%d.2" % k)
    return gid


class Pairs:
    """The perftest processes of the two pairs."""

    def __init__(self, gid, secs, pin, tmp):
        self.gid, self.secs, self.pin, self.tmp = gid, secs, pin, tmp
        self.srv, self.cli = {}, {}

    def _argv(self, k, ns):
        argv = ["ip", "netns", "exec", ns, "ib_write_bw", "-F", "-d",
                dev(ns), "-x", str(self.gid[ns]), "-D", str(self.secs),
                "-s", str(SIZE), "-p", str(18990 + k)]
        return (["taskset", "-c", str(k)] + argv) if self.pin else argv

    def _spawn(self, argv, name):
        with open(os.path.join(self.tmp, name), "w") as f:
            return subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT)

    def server(self, k, algo):
        """algo on pair k's devices, its server started and listening."""
        for n in (A[k], Z[k]):
            write(os.path.join(IB, dev(n), "cc", "algo"), algo + "\n")
        self.srv[k] = self._spawn(self._argv(k, Z[k]), "srv%d" % k)
        try:
            wait_for(lambda: run(["ss", "-ltnH", "sport = :%d" % (18990 + k)],
                                 ns=Z[k], out=True).strip(), 20,
                     "the server of pair %d" % k, step=0.1)
        except RuntimeError:
            pass	# the client then says what went wrong

    def client(self, k):
        self.cli[k] = self._spawn(self._argv(k, A[k]) + ["10.98.%d.2" % k],
                                  "cli%d" % k)

    def finish(self, k):
        """Wait for pair k's flow; its MB/s by perftest."""
        out = os.path.join(self.tmp, "cli%d" % k)
        if self.cli[k].wait() != 0:
            sys.stderr.write(read(out))
            B.die("ib_write_bw (pair %d)" % k)
        self.srv[k].wait()
        bw = perftest_mbs(out, SIZE)
        if bw is None:
            sys.stderr.write(read(out))
            B.die("no result line (pair %d)" % k)
        return bw


def sample_round(d, o, procs):
    """sent_pkts of the devices of namespaces d and o every 0.25 s while
    either of procs runs: [(time, count d, count o)]."""
    samples = []
    while any(p.poll() is None for p in procs):
        samples.append((time.time(), hw_counter(dev(d), "sent_pkts"),
                        hw_counter(dev(o), "sent_pkts")))
        time.sleep(0.25)
    return samples


def window(s):
    """(packets of d, packets of o, seconds) between the second sample
    after both counters first grew together and the last but one before
    they last did; (0, 0, 0) if that is under 1 s."""
    both = [i for i in range(1, len(s))
            if s[i][1] > s[i - 1][1] and s[i][2] > s[i - 1][2]]
    if not both:
        return 0, 0, 0.0
    a, b = both[0] + 1, both[-1] - 2
    if a < 1 or b <= a:
        return 0, 0, 0.0
    wt = s[b][0] - s[a][0]
    if wt < 1:
        return 0, 0, 0.0
    return s[b][1] - s[a][1], s[b][2] - s[a][2], wt


def main():
    rounds = env_int("DCBLAB_BENCH_ROUNDS", 8)
    secs = env_int("DCBLAB_BENCH_SECS", 5, minimum=3)
    mode = os.environ.get("DCBLAB_BENCH_MODE") or "paired"
    pin = os.environ.get("DCBLAB_BENCH_PIN") or "0"
    if mode not in ("paired", "sequential"):
        B.die("DCBLAB_BENCH_MODE: paired or sequential, not '%s'" % mode)
    if pin not in ("0", "1"):
        B.die("DCBLAB_BENCH_PIN: 0 or 1, not '%s'" % pin)
    pin = pin == "1" and mode == "paired" and os.cpu_count() >= 2
    rx = os.path.join(BUILD, "rxe_cc")
    if not (os.path.isfile(os.path.join(rx, "rdma_rxe.ko")) and
            os.path.isfile(os.path.join(rx, "rxe_cc_dcqcn.ko"))):
        B.die("modules not built (make)")
    # the lab's rdma_rxe and rxe_cc_dcqcn, replacing the distribution's
    from dcbnet.nodes import load_modules
    load_modules(["dcqcn"])
    tmp = tempfile.mkdtemp()
    try:
        gid = setup()
        return bench(Pairs(gid, secs, pin, tmp), rounds, mode, tmp)
    except RuntimeError as e:
        B.die(str(e))
    finally:
        cleanup(tmp)


def bench(pairs, rounds, mode, tmp):
    def pacer_delays():
        return sum(hw_counter(dev(n), "cc_pacer_delays") for n in A)
    c0 = pacer_delays()
    res = {"none": [], "dcqcn": []}
    ratios = []
    for r in range(1, rounds + 1):
        if mode == "sequential":
            for v in (("none", "dcqcn") if r % 2 else ("dcqcn", "none")):
                pairs.server(0, v)
                pairs.client(0)
                bw = pairs.finish(0)
                B.note("round %d %s: %.2f MB/s" % (r, v, bw))
                res[v].append(bw)
            continue
        # pair (r % 2) runs dcqcn; which client starts first (it may run
        # alone for a moment) alternates every two rounds, so that 4
        # rounds cover each pair x algorithm x first/second once
        d, o = r % 2, 1 - r % 2
        pairs.server(d, "dcqcn")
        pairs.server(o, "none")
        first = "dcqcn" if (r - 1) // 2 % 2 == 0 else "none"
        for k in ((d, o) if first == "dcqcn" else (o, d)):
            pairs.client(k)
        s = sample_round(A[d], A[o], (pairs.cli[d], pairs.cli[o]))
        pairs.finish(d)
        pairs.finish(o)
        pd, po, wt = window(s)
        if pd <= 0 or po <= 0:
            # a flow that moved nothing says nothing about the hooks
            os.makedirs(KEEP, exist_ok=True)
            for f in ("cli0", "cli1", "srv0", "srv1"):
                shutil.copyfile(os.path.join(tmp, f),
                                os.path.join(KEEP, "round%d-%s.txt" % (r, f)))
            B.note("round %d discarded: no 1 s in which both flows ran "
                   "(outputs in %s)" % (r, KEEP))
            continue
        # MB/s of 64 KB payload in the window (sent_pkts counts
        # 1024-byte payload packets at the path MTU)
        bd, bo = pd * 1024 / wt / 1e6, po * 1024 / wt / 1e6
        B.note("round %d: pair %d dcqcn %.2f MB/s, pair %d none %.2f MB/s in "
               "a %.3f s window, ratio %.4f (%s started first)"
               % (r, d, bd, o, bo, wt, pd / po, first))
        res["dcqcn"].append(round(bd, 2))
        res["none"].append(round(bo, 2))
        ratios.append(round(pd / po, 4))
    c1 = pacer_delays()
    cnp = sum(hw_counter(dev(n), "np_cnp_sent") for n in Z)
    if not res["none"] or not res["dcqcn"]:
        B.die("no round gave a result")
    # (the lower median, of an even count of rounds)
    n, d = (sorted(res[v])[(len(res[v]) + 1) // 2 - 1]
            for v in ("none", "dcqcn"))
    if mode == "paired":
        g, se = geomean_se(ratios)
        what = ("geometric mean of the rounds' ratios (%s), standard error "
                "x/ %.3f" % (" ".join("%.4f" % x for x in ratios), se))
    else:
        g, what = d / n, "ratio of the medians"
    print("%-8s %10s %8s   %s" % ("algo", "MB/s", "ratio",
                                  "rounds (%s)" % mode))
    print("%-8s %10.2f %8s   %s" % ("none", n, "1.00",
                                    " ".join("%.2f" % x for x in res["none"])))
    print("%-8s %10.2f %8.3f   %s" % (
        "dcqcn", d, g, " ".join("%.2f" % x for x in res["dcqcn"])))
    B.note("dcqcn/none %.3f: %s; goal >= 0.98" % (g, what))
    B.note("pacer delays during the runs: %d, CNPs: %d (both should be 0: "
           "no congestion)" % (c1 - c0, cnp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
