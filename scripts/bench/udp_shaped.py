#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""One UDP sender, back to back on a blocking socket, through a sch_dcb
port shaped to RATE (default 100mbit): the flow that idles a virtual-time
guest (the sender waits for the shaper's hrtimer), for repro.py.  Runs as
root where sch_dcb loads (in a guest:
scripts/vm-run -- /usr/bin/python3 scripts/bench/udp_shaped.py).  Prints,
over SECS seconds (default 4) after 1 s of warm-up, as key=value lines:
wire_mbps (the receiver's bytes), shaper_lag_ms (line time the shaper
lost to late dequeues) and idle_pct (the guest CPU's idle share).
"""

import os
import subprocess
import sys
import time

from benchlib import TOP, Bench, env_float, load_sch_dcb, netdev, run

B = Bench("udp_shaped.py")
NA, NB = "us-a", "us-b"
STOP = "/run/us-stop"


def lag():
    """The shaper's lag of us-a's eth0, microseconds (dcbmon -s)."""
    out = run([os.path.join(TOP, "tools", "dcbmon"), "-s", NA + ":eth0"],
              out=True)
    for line in out.splitlines():
        w = line.split()
        if len(w) >= 2 and w[0].endswith(":shaper_lag_us"):
            return int(w[1])
    raise RuntimeError("dcbmon gave no shaper_lag_us")


def idle():
    """(idle, total) jiffies of all CPUs from /proc/stat's cpu line."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return v[3], sum(v)


def main():
    rate = os.environ.get("RATE") or "100mbit"
    secs = env_float("SECS", 4)
    load_sch_dcb(B)
    procs = []
    try:
        run(["ip", "netns", "add", NA])
        run(["ip", "netns", "add", NB])
        run(["ip", "-n", NA, "link", "add", "eth0", "type", "veth", "peer",
             "name", "eth0", "netns", NB])
        run(["ip", "-n", NA, "addr", "add", "10.77.0.1/24", "dev", "eth0"])
        run(["ip", "-n", NB, "addr", "add", "10.77.0.2/24", "dev", "eth0"])
        run(["ip", "-n", NA, "link", "set", "eth0", "up"])
        run(["ip", "-n", NB, "link", "set", "eth0", "up"])
        run(["tc", "-n", NA, "qdisc", "add", "dev", "eth0", "root", "dcb",
             "rate", rate])
        udpflow = os.path.join(TOP, "tools", "udpflow")
        procs.append(subprocess.Popen(
            ["ip", "netns", "exec", NB, udpflow, "sink", "9000", STOP,
             "--max", "600"], stdout=subprocess.DEVNULL))
        procs.append(subprocess.Popen(
            ["ip", "netns", "exec", NA, udpflow, "send", "10.77.0.2",
             "9000", "--count", "1000000000", "--interval", "0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        time.sleep(1)
        # the receiver's bytes and the time of that reading, together,
        # read in this process (no process start inside the window)
        l0, (i0, t0) = lag(), idle()
        s0, b0 = time.time(), netdev("eth0", NB)["rx_bytes"]
        time.sleep(secs)
        s1, b1 = time.time(), netdev("eth0", NB)["rx_bytes"]
        l1, (i1, t1) = lag(), idle()
        open(STOP, "w").close()
    except RuntimeError as e:
        B.die(str(e))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()
        run(["ip", "netns", "del", NA], quiet=True)
        run(["ip", "netns", "del", NB], quiet=True)
    print("wire_mbps=%.2f" % (8 * (b1 - b0) / (s1 - s0) / 1e6))
    print("shaper_lag_ms=%.1f" % ((l1 - l0) / 1000))
    print("idle_pct=%.1f" % (100 * (i1 - i0) / (t1 - t0) if t1 > t0 else 0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
