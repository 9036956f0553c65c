#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The lab's two clocks side by side (make bench-clock).  For each port
rate, a 4:1 RDMA incast (ib_write_bw, scripts/examples/first-fabric.sh:
RED and PFC on the RoCE bands) runs in a guest in virtual time and, right
after it, in one in real time, so both see the same host.  Per run: the
wire rate the switch port toward the receiver reached, the guest's CPU
busy share during the incast, PAUSE frames, how many perftest clients
printed a result, and wall seconds per guest second (the whole guest:
boot, set-up, incast).  Runs on the host; each guest is a scripts/vm-run.

    scripts/bench/clock.py [RATE_MBIT...]     (default: 40 100 200 400)

Environment: ALGO (none|dcqcn|pcn|ldcp, default none: PFC alone, the rate
the fabric carries), SECS (incast length, guest seconds, default 5),
CLOCKS (default "virtual real").
"""

import os
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def report(path):
    """{key: value} of a key=value report (the last value of a key)."""
    kv = {}
    try:
        with open(path) as f:
            for line in f:
                k, eq, v = line.rstrip("\n").partition("=")
                if eq:
                    kv[k] = v
    except OSError:
        pass
    return kv


def tail(path, n=5):
    try:
        with open(path) as f:
            return f.read().splitlines()[-n:]
    except OSError:
        return []


def main(argv):
    algo = os.environ.get("ALGO") or "none"
    secs = os.environ.get("SECS") or "5"
    clocks = (os.environ.get("CLOCKS") or "virtual real").split()
    rates = argv or ["40", "100", "200", "400"]
    build = os.environ.get("DCBLAB_BUILD", os.path.join(TOP, "build"))
    os.makedirs(build, exist_ok=True)
    out = tempfile.mkdtemp(prefix="bench-clock.", dir=build)
    print("%-8s %-8s %8s %6s %8s %8s %7s %9s" % (
        "rate", "clock", "wire_Mb/s", "link%", "kernel%", "pauses",
        "clients", "wall/guest"), flush=True)
    rc = 0
    for r in rates:
        for c in clocks:
            f = os.path.join(out, "%s-%s" % (r, c))
            env = dict(os.environ, RATE=r + "mbit", SECS=secs, FF_REPORT=f,
                       VMRUN_ENV="RATE SECS FF_REPORT")
            t0 = time.time()
            # the guest appends its uptime to the report: the guest
            # seconds of the whole run, boot included
            if subprocess.run(
                    [os.path.join(TOP, "scripts", "vm-run"), "--clock", c,
                     "--timeout", "1800", "--", "bash", "-c",
                     'bash "$1" "$2" >"$3.log" 2>&1; s=$?; '
                     'read -r u _ </proc/uptime; '
                     'echo "guest_uptime=$u" >>"$3"; exit $s', "_",
                     os.path.join(TOP, "scripts", "examples",
                                  "first-fabric.sh"), algo, f],
                    env=env).returncode != 0:
                rc = 1
            t1 = time.time()
            kv = report(f)
            if not kv.get("wire_mbps"):
                print("%-8s %-8s no result (guest log: %s.log)" % (r, c, f))
                for ln in tail(f + ".log"):
                    print("  " + ln)
                rc = 1
                continue
            w = float(kv["wire_mbps"])
            print("%-8s %-8s %8.1f %6.1f %8d %8d %5d/4 %9.2f" % (
                r, c, w, 100 * w / float(r),
                float(kv.get("kernel_busy_pct") or 0),
                int(float(kv.get("pause_frames") or 0)),
                int(kv.get("clients_reported") or 0),
                (t1 - t0) / float(kv["guest_uptime"])), flush=True)
    print("clock.py: guest logs and reports in %s" % out)
    print("clock.py: algo %s, incast %s s; virtual = qemu icount shift=%s, "
          "one vCPU; real = TCG, two vCPUs"
          % (algo, secs, os.environ.get("VMRUN_ICOUNT", "0")))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
