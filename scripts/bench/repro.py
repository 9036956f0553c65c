#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Is a result a property of the emulated network or of the host that ran
it?  (make bench-repro)  The same RDMA scenario,
scripts/examples/first-fabric.sh (a 4:1 ib_write_bw incast through a
lossless switch, DCQCN by default), runs twice per clock: once as the
host is, once with every host CPU kept busy by a spinning process, and
the key metrics of the two runs are compared: each sender's rate, the
rate of the port toward the receiver, Jain's index over the senders, the
queue's mean and the PAUSE frames over the measured window.  Goal: in
virtual time every metric within 2 % (PAUSE frames and the queue: within
2 % or 2 units, as they may be near zero); the real-time spread is
printed beside it.
Then, in virtual time, a flow that idles the guest: one UDP sender on a
port shaped to RATE (udp_shaped.py), quiet and loaded, with the guest's
idle spinner (tools/idlespin, the default) and without it
(DCBLAB_IDLESPIN=0): without it the guest's idle time follows the host's
clock (Documentation/testing.rst, "The two clocks").  Goal: with the
spinner, the wire rate of the loaded run within 1 % of the quiet one.
Runs on the host; each run is one scripts/vm-run guest.

    scripts/bench/repro.py [ALGO]     (default dcqcn)

Environment: RATE (default 100mbit), SECS (incast length, default 30;
measured over its second half), CLOCKS (default "virtual real"; empty:
none), UDP (default 1; 0 leaves the UDP flow out).  Exit 0 whatever the
numbers (the goal lines say PASS or FAIL), 1 when a run gave no result.
"""

import os
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
VMRUN = os.path.join(TOP, "scripts", "vm-run")


class Load:
    """With loaded, every host CPU kept busy by a spinning process until
    the block ends."""

    def __init__(self, loaded):
        self.loaded, self.procs = loaded, []

    def __enter__(self):
        if self.loaded:
            self.procs = [subprocess.Popen(["sh", "-c", "while :; do :; done"])
                          for _ in os.sched_getaffinity(0)]
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            p.kill()
            p.wait()
        self.procs = []


def kv(path):
    """{key: value} of the key=value lines of path."""
    out = {}
    with open(path) as f:
        for ln in f:
            k, eq, v = ln.strip().partition("=")
            if eq:
                out[k] = v
    return out


def run_incast(out, clock, load, algo, rate, secs):
    """One incast; its report in OUT/CLOCK-LOAD.  True if it has one."""
    f = os.path.join(out, "%s-%s" % (clock, load))
    env = dict(os.environ, RATE=rate, SECS=secs, FF_REPORT=f,
               VMRUN_ENV="RATE SECS FF_REPORT")
    with Load(load == "loaded"), open(f + ".log", "w") as log:
        subprocess.run([VMRUN, "--clock", clock, "--timeout", "1800", "--",
                        "bash", os.path.join(TOP, "scripts", "examples",
                                             "first-fabric.sh"), algo],
                       env=env, stdout=log, stderr=subprocess.STDOUT)
    return os.path.isfile(f) and "sender_mbps" in kv(f)


def run_udp(out, spin, load, rate):
    """The shaped UDP flow in virtual time; its report in
    OUT/udp-SPIN-LOAD.  True if it has one."""
    f = os.path.join(out, "udp-%s-%s" % (spin, load))
    env = dict(os.environ, RATE=rate, DCBLAB_IDLESPIN=spin, VMRUN_ENV="RATE")
    with Load(load == "loaded"), open(f + ".log", "w") as log:
        subprocess.run([VMRUN, "--clock", "virtual", "--timeout", "900", "--",
                        "/usr/bin/python3",
                        os.path.join(TOP, "scripts", "bench",
                                     "udp_shaped.py")],
                       env=env, stdout=log, stderr=subprocess.STDOUT)
    with open(f + ".log") as src, open(f, "w") as dst:
        dst.writelines(ln for ln in src if "=" in ln)
    return "wire_mbps" in kv(f)


def incast_metrics(path):
    """The compared metrics of one incast report."""
    r = {k: v for k, v in kv(path).items() if k != "rate"}
    rates = [float(x) for x in r["sender_mbps"].split(",")]
    m = {"s%d_mbps" % (i + 1): x for i, x in enumerate(rates)}
    m["wire_mbps"] = float(r["wire_mbps"])
    m["jain"] = sum(rates) ** 2 / (len(rates) * sum(x * x for x in rates))
    # PAUSE frames over the measured window: the whole run's count is
    # mostly the start, where four flows begin at the line rate
    m["pause_frames"] = float(r.get("pause_frames_window",
                                    r["pause_frames"]))
    if "queue_mean_kb" in r:
        m["queue_mean_kb"] = float(r["queue_mean_kb"])
    m["kernel_busy_pct"] = float(r["kernel_busy_pct"])
    return m


def diff(a, b):
    """|b - a| in percent of a."""
    if a:
        return abs(b - a) / abs(a) * 100
    return 0.0 if b == a else float("inf")


def cell(a, b):
    return "%28s" % ("%.2f/%.2f (%.1f%%)" % (a, b, diff(a, b)))


def incast_table(out, clocks):
    ok = True
    print("%-16s" % "metric" + "".join(
        "%28s" % ("%s quiet/loaded (diff)" % c) for c in clocks))
    res = {c: (incast_metrics(os.path.join(out, c + "-quiet")),
               incast_metrics(os.path.join(out, c + "-loaded")))
           for c in clocks}
    for k in res[clocks[0]][0]:
        row = "%-16s" % k
        for c in clocks:
            a, b = res[c][0].get(k), res[c][1].get(k)
            if a is None or b is None:
                row += "%28s" % "-"
                continue
            row += cell(a, b)
            small = k in ("pause_frames", "queue_mean_kb") and \
                abs(b - a) <= 2
            if c == "virtual" and k != "kernel_busy_pct" and \
                    diff(a, b) > 2 and not small:
                ok = False
        print(row)
    if "virtual" in clocks:
        print("goal: virtual time, every metric of the loaded run within "
              "2 %% of the quiet one: %s" % ("PASS" if ok else "FAIL"))


def udp_table(out):
    def load(name):
        return {k: float(v) for k, v in kv(os.path.join(out, name)).items()}
    print("\nshaped UDP flow, virtual time: quiet/loaded (diff)")
    print("%-16s%28s%28s" % ("metric", "idlespin on", "idlespin off"))
    res = {sp: (load("udp-%s-quiet" % sp), load("udp-%s-loaded" % sp))
           for sp in ("1", "0")}
    for k in res["1"][0]:
        print("%-16s" % k + "".join(cell(res[sp][0][k], res[sp][1][k])
                                    for sp in ("1", "0")))
    a, b = res["1"][0]["wire_mbps"], res["1"][1]["wire_mbps"]
    print("goal: with idlespin, the loaded run's wire rate within 1 %% of "
          "the quiet one: %s" % ("PASS" if abs(b - a) <= a / 100 else "FAIL"))


def main(argv):
    algo = argv[0] if argv else "dcqcn"
    rate = os.environ.get("RATE") or "100mbit"
    secs = os.environ.get("SECS") or "30"
    clocks = os.environ.get("CLOCKS", "virtual real").split()
    udp = os.environ.get("UDP", "1") == "1"
    build = os.environ.get("DCBLAB_BUILD", os.path.join(TOP, "build"))
    os.makedirs(build, exist_ok=True)
    out = tempfile.mkdtemp(prefix="bench-repro.", dir=build)
    rc = 0
    for c in clocks:
        for load in ("quiet", "loaded"):
            if not run_incast(out, c, load, algo, rate, secs):
                print("repro.py: no result for %s/%s (log: %s/%s-%s.log)"
                      % (c, load, out, c, load), flush=True)
                rc = 1
    if udp:
        for sp in ("1", "0"):
            for load in ("quiet", "loaded"):
                if not run_udp(out, sp, load, rate):
                    print("repro.py: no result for udp idlespin=%s/%s (log: "
                          "%s/udp-%s-%s.log)" % (sp, load, out, sp, load),
                          flush=True)
                    rc = 1
    if rc:
        return 1
    if clocks:
        incast_table(out, clocks)
    if udp:
        udp_table(out)
    print("repro.py: %s at %s, incast %s s; runs and logs in %s"
          % (algo, rate, secs, out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
