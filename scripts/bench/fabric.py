#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""How far one machine goes with a leaf-spine fabric (dcbnet.fabric):
per number of hosts, the time to build and stop the Mininet network,
the guest's CPU share while every host writes into a host of the next
leaf, and wall seconds per guest second.

    scripts/bench/fabric.py [N...]        (default 4 8 16 32; on the host)

One guest (scripts/vm-run, virtual time) runs every size in turn: N
hosts on max(2, N / 4) leaves and 2 spines (non-blocking; host links at
RATE Mbit/s), RDMA from host k of each leaf to host k of the next (one
ib_write_bw -D SECS of QPS QPs per host, cc/algo none, PFC alone).  The
guest prints a line per phase boundary into a report file; this script
stamps each line with the host's clock as it arrives, so a phase's wall
seconds per guest second are measured without the guest seeing the
host's clock.  Columns: hosts, switches, guest seconds to build and
start, to stop; the traffic's guest seconds, wall seconds per guest
second over it, the guest kernel's busy share during it (the CPU
guard's measure: above DCBLAB_CPU_BOUND, 85 %, a run measures the
emulator), the guest seconds data moved (fabric.Activity) and the
bytes the spines carried per second of it (Mbit/s; each host's flow
crosses one spine, so N x RATE when the fabric keeps up).

Environment: RATE (Mbit/s, default 100), SECS (default 5), QPS (default
1), VMRUN_TIMEOUT (default 3600), VMRUN_MEM (the guest's MB, default
4096: 32 hosts run 64 perftest processes).
"""

import os
import subprocess
import sys
import tempfile
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "scripts"))


def shape(n):
    """(leaves, hosts per leaf) of n hosts."""
    leaves = max(2, n // 4)
    if n % leaves:
        raise SystemExit("fabric.py: %d hosts do not fill %d leaves"
                         % (n, leaves))
    return leaves, n // leaves


# -- in the guest ---------------------------------------------------------

def guest(report, sizes, rate, secs, qps):
    from dcbnet import fabric, rdma
    from dcbnet.experiment import CpuGuard

    rep = open(report, "a", buffering=1)

    def say(*words):
        rep.write(" ".join(str(w) for w in words) + "\n")
        os.fsync(rep.fileno())

    out = tempfile.mkdtemp(prefix="bench-fabric.")
    for n in sizes:
        leaves, hpl = shape(n)
        f = fabric.leaf_spine(leaves, 2, hpl, rate_mbps=rate)
        say("mark", n, "build", time.monotonic())
        t0 = time.monotonic()
        net, hosts, _ = fabric.start(out, f, switch_opts="buffer 4mb "
                                     + fabric.SWITCH_OPTS)
        build = time.monotonic() - t0
        say("mark", n, "built", time.monotonic())
        rc = 0
        try:
            pairs = [(hosts[i], hosts[(i + hpl) % n]) for i in range(n)]
            for s, d in pairs:
                out_, err, r = s.pexec(["ping", "-c", "1", "-W", "5",
                                        d.IP()])
                if r:
                    raise RuntimeError("%s cannot reach %s" % (s, d))
            rdma.prepare(hosts)
            bw = rdma.Perftest(out, size=65536, secs=secs,
                               args=["-q", str(qps)], limit=secs + 600)
            for k, (s, d) in enumerate(pairs):
                bw.add(s, d, rdma.BASE_PORT + k)
            guard = CpuGuard()
            act = fabric.Activity(net)
            before = fabric.reading(net)
            guard.start()
            act.start()
            try:
                bw.ready()
                say("mark", n, "traffic", time.monotonic())
                t1 = time.monotonic()
                bw.start(together=True)
                failed = bw.wait()
                traffic = time.monotonic() - t1
                say("mark", n, "traffic-end", time.monotonic())
                busy = guard.busy()
            finally:
                act.stop()
                bw.kill()
                guard.stop()
            active, _ = act.span()
            after = fabric.reading(net)
            spines = sum(after["dcb"][s][d] - before["dcb"][s][d]
                         for s in f.role_nodes("spine")
                         for d in after["dcb"][s])
            rc = len(failed)
        finally:
            t2 = time.monotonic()
            net.stop()
            stop = time.monotonic() - t2
        say("result", n, len(f.switches), "%.2f" % build, "%.2f" % stop,
            "%.2f" % traffic, "%.1f" % busy, "%.2f" % active,
            "%.1f" % (8 * spines / active / 1e6 if active else 0), rc)
    say("done")
    return 0


# -- on the host ----------------------------------------------------------

def host(sizes):
    build = os.environ.get("DCBLAB_BUILD", os.path.join(TOP, "build"))
    os.makedirs(build, exist_ok=True)
    report = tempfile.mktemp(prefix="bench-fabric.", suffix=".txt",
                             dir=build)
    open(report, "w").close()
    rate = os.environ.get("RATE", "100")
    secs = os.environ.get("SECS", "5")
    qps = os.environ.get("QPS", "1")
    stamps = []		# (wall, line)
    done = threading.Event()

    def tail():
        seen = 0
        while True:
            with open(report) as fh:
                lines = fh.read().splitlines()
            now = time.time()
            for ln in lines[seen:]:
                stamps.append((now, ln))
            seen = len(lines)
            if done.wait(0.1):
                break

    th = threading.Thread(target=tail, daemon=True)
    th.start()
    argv = [os.path.join(TOP, "scripts", "vm-run"), "--timeout",
            os.environ.get("VMRUN_TIMEOUT", "3600"), "--mem",
            os.environ.get("VMRUN_MEM", "4096"), "--",
            "/usr/bin/python3", os.path.abspath(__file__), "--guest",
            report, rate, secs, qps] + [str(n) for n in sizes]
    t0 = time.time()
    rc = subprocess.run(argv).returncode
    wall = time.time() - t0
    time.sleep(0.3)
    done.set()
    th.join()
    marks, results = {}, []
    for t, ln in stamps:
        w = ln.split()
        if w[:1] == ["mark"]:
            marks[(int(w[1]), w[2])] = (t, float(w[3]))
        elif w[:1] == ["result"]:
            results.append(w[1:])
    print("fabric.py: leaf-spine, 2 spines, hosts at %s Mbit/s, ib_write_bw "
          "-D %s -q %s from each host to the next leaf; clock: %s"
          % (rate, secs, qps, os.environ.get("VMRUN_CLOCK", "virtual")))
    print("%5s %4s %8s %7s %8s %11s %7s %8s %10s %6s" % (
        "hosts", "sw", "build_s", "stop_s", "guest_s", "wall/guest",
        "busy%", "active_s", "spine_Mb/s", "failed"))
    for r in results:
        n = int(r[0])
        ratio = "-"
        a, b = marks.get((n, "traffic")), marks.get((n, "traffic-end"))
        if a and b and b[1] > a[1]:
            ratio = "%.2f" % ((b[0] - a[0]) / (b[1] - a[1]))
        print("%5s %4s %8s %7s %8s %11s %7s %8s %10s %6s" % (
            r[0], r[1], r[2], r[3], r[4], ratio, r[5], r[6], r[7], r[8]))
    print("fabric.py: the whole guest took %.0f s of wall time; report %s"
          % (wall, report))
    print("fabric.py: wall/guest over the traffic, stamped on arrival of "
          "the guest's lines (+- 0.1 s); busy% above 85 is past the CPU "
          "guard")
    return 1 if rc or not results else 0


def main(argv):
    if argv[:1] == ["--guest"]:
        report, rate, secs, qps = argv[1:5]
        return guest(report, [int(a) for a in argv[5:]], float(rate),
                     int(secs), int(qps))
    return host([int(a) for a in argv] or [4, 8, 16, 32])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
