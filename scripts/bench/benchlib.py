# SPDX-License-Identifier: GPL-2.0
"""What the benchmarks under scripts/bench share: the command line of
tc/ip in a namespace, pktgen driven through /proc/net/pktgen, medians
and ratios, and the lines that say where and on which clock a benchmark
measured.  Each benchmark is a script run as
/usr/bin/python3 scripts/bench/NAME.py (Documentation/bench.rst).
"""

import contextlib
import ctypes
import glob
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "scripts"))

from dcbnet.experiment import wait_for  # noqa: E402

__all__ = ["TOP", "wait_for"]

BUILD = os.environ.get("DCBLAB_BUILD", os.path.join(TOP, "build"))
DCB_KO = os.environ.get("DCBLAB_DCB_KO",
                        os.path.join(TOP, "sch_dcb", "sch_dcb.ko"))
CLONE_NEWNET = 0x40000000


class Bench:
    """A benchmark's name for its messages, and its exits."""

    def __init__(self, name):
        self.name = name

    def die(self, msg):
        print("%s: error: %s" % (self.name, msg), file=sys.stderr, flush=True)
        sys.exit(1)

    def say(self, msg):
        print("%s: %s" % (self.name, msg), flush=True)

    @staticmethod
    def note(msg):
        print("# " + msg, flush=True)


def env_int(name, default, minimum=1):
    """The integer environment variable name (default), at least minimum."""
    v = os.environ.get(name, "")
    if v == "":
        return default
    if not re.fullmatch(r"[0-9]+", v) or int(v) < minimum:
        raise SystemExit("%s: an integer >= %d, not '%s'" % (name, minimum, v))
    return int(v)


def env_float(name, default):
    v = os.environ.get(name, "")
    try:
        return float(v) if v else default
    except ValueError:
        raise SystemExit("%s: a number, not '%s'" % (name, v)) from None


def median(xs):
    """The median; of an even count the mean of the middle two."""
    return statistics.median(xs)


def ratio(a, b):
    """a / b to 3 decimals, as a string."""
    return "%.3f" % (a / b)


def print_medians(label, names, res):
    """The table of the benchmarks: per name of names its median over the
    rounds of res[name] (packets per second), then every round's."""
    print("%-8s %12s   %s" % (label, "pps(median)", "rounds"))
    for n in names:
        print("%-8s %12.0f   %s" % (n, median(res[n]),
                                    " ".join(str(x) for x in res[n])))


def print_ratios(rounds, width=0):
    """A line per (name, per-round ratios) of rounds: the median of the
    rounds' ratios (the benchmarks' figure: bench.rst says why), then
    every round's; names left-aligned in width columns."""
    for name, rs in rounds:
        print("ratio %-*s %s   (median of rounds: %s)" % (
            width, name + ":", ratio(median(rs), 1),
            " ".join(ratio(x, 1) for x in rs)))

def geomean_se(ratios):
    """The geometric mean of ratios and the standard error of the mean
    of their logarithms, as a factor (x/ it)."""
    logs = [math.log(r) for r in ratios]
    m = sum(logs) / len(logs)
    if len(logs) < 2:
        return math.exp(m), 1.0
    var = sum((x - m) ** 2 for x in logs) / (len(logs) - 1)
    return math.exp(m), math.exp(math.sqrt(var / len(logs)))


def run(argv, ns=None, check=True, out=False, quiet=False):
    """Run argv (in the named network namespace ns); its stdout if out.
    quiet: its messages are discarded, a failure is ignored."""
    if ns is not None:
        argv = ["ip", "netns", "exec", ns] + list(argv)
    p = subprocess.run(argv, stdout=subprocess.PIPE if out else
                       (subprocess.DEVNULL if quiet else None),
                       stderr=subprocess.DEVNULL if quiet else None,
                       text=True)
    if check and not quiet and p.returncode != 0:
        raise RuntimeError("%s: exit status %d" % (" ".join(argv),
                                                   p.returncode))
    return p.stdout if out else p.returncode


def read(path):
    with open(path) as f:
        return f.read()


def write(path, text):
    """One write() of text to path, truncating it as the shell's > does
    (proc and sysfs files take a command per write; tracefs' trace file
    is emptied by the truncation)."""
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


_libc = ctypes.CDLL(None, use_errno=True)


def _setns(fd):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "setns: " + os.strerror(e))


@contextlib.contextmanager
def netns(name):
    """The calling thread in the network namespace name (None: where it
    is) until the block ends.  Only this thread moves: what it reads
    under /proc/thread-self/net is that namespace's."""
    if name is None:
        yield
        return
    home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    fd = os.open("/run/netns/" + name, os.O_RDONLY)
    try:
        _setns(fd)
        try:
            yield
        finally:
            _setns(home)
    finally:
        os.close(fd)
        os.close(home)


def netdev(dev, ns=None):
    """{field: value} of dev in /proc/net/dev of namespace ns:
    rx_packets, tx_packets, rx_bytes, tx_bytes."""
    with netns(ns):
        text = read("/proc/thread-self/net/dev")
    for line in text.splitlines()[2:]:
        name, _, rest = line.partition(":")
        if name.strip() == dev:
            v = [int(x) for x in rest.split()]
            return {"rx_bytes": v[0], "rx_packets": v[1],
                    "tx_bytes": v[8], "tx_packets": v[9]}
    raise RuntimeError("no %s in /proc/net/dev%s" % (
        dev, "" if ns is None else " of " + ns))


def mac(dev, ns=None):
    """The MAC address of dev in namespace ns (from ip: /sys shows the
    namespace that mounted it, not the thread's)."""
    m = re.search(r"link/ether ([0-9a-f:]+)",
                  run(["ip", "-o", "link", "show", "dev", dev], ns=ns,
                      out=True))
    if not m:
        raise RuntimeError("no MAC address of " + dev)
    return m.group(1)


def qdisc_sent(dev, ns=None):
    """Packets the root qdisc of dev has sent (tc -s, the first Sent)."""
    m = re.search(r"^ *Sent \d+ bytes (\d+) pkt", run(
        ["tc", "-s", "qdisc", "show", "dev", dev], ns=ns, out=True), re.M)
    if not m:
        raise RuntimeError("no Sent line in tc -s qdisc show dev " + dev)
    return int(m.group(1))


def load_sch_dcb(bench):
    """sch_dcb loaded (DCBLAB_DCB_KO, default the tree's) and tc pointed
    at the tree's q_dcb.so; the bench dies unless it runs as root (every
    bench that loads the module then makes namespaces and qdiscs)."""
    if os.geteuid() != 0:
        bench.die("needs root (run it through scripts/vm-run)")
    os.environ["TC_LIB_DIR"] = os.path.join(TOP, "tc")
    if not os.path.isfile(os.path.join(TOP, "tc", "q_dcb.so")):
        bench.die("tc/q_dcb.so not built (run make)")
    if not os.path.isdir("/sys/module/sch_dcb"):
        if not os.path.isfile(DCB_KO):
            bench.die("%s not built (run make)" % DCB_KO)
        if run(["insmod", DCB_KO], check=False) != 0:
            bench.die("insmod %s failed" % DCB_KO)


def clock_note(name):
    """Which clock the rates are measured on.  Under icount
    (scripts/vm-run's virtual time) the guest's time counts the
    instructions executed, so a rate is the inverse of the work per
    packet and does not move with the host's load; otherwise it is the
    wall clock of a guest that shares the host."""
    shift = os.environ.get("DCBLAB_ICOUNT", "")
    if shift:
        print("%s: clock: icount shift=%s (2^%s ns per guest instruction; "
              "rates are instructions per packet, inverted)"
              % (name, shift, shift))
    else:
        print("%s: clock: wall clock (rates move with the host's load)"
              % name)


def machine(name):
    """One line: kernel, CPUs, the module's commit."""
    model = "?"
    for line in read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    rev = subprocess.run(["git", "-C", TOP, "rev-parse", "--short", "HEAD"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True).stdout.strip() or "?"
    print("%s: kernel %s, %d CPUs (%s), vm=%s, sch_dcb %s" % (
        name, platform.release(), os.cpu_count(), model,
        os.environ.get("DCBLAB_VM", "0"), rev), flush=True)


class Pktgen:
    """The in-kernel packet generator on one device, from kpktgend_0
    (CPU 0), in network namespace ns (pktgen is per namespace; None:
    the initial one)."""

    def __init__(self, dev, ns=None):
        self.dev, self.ns = dev, ns
        self.base = "/proc/thread-self/net/pktgen/"

    def _set(self, name, cmd):
        path = self.base + name
        try:
            write(path, cmd + "\n")
            ok = any(ln.startswith("Result: OK")
                     for ln in read(path).splitlines())
        except OSError as e:
            ok, err = False, str(e)
        else:
            err = "".join(ln for ln in read(path).splitlines()
                          if ln.startswith("Result"))
        if not ok:
            raise RuntimeError("pktgen: '%s' on %s: %s" % (cmd, name, err))

    def setup(self, *cmds):
        """Attach the device alone to kpktgend_0, then each of cmds on it."""
        with netns(self.ns):
            self._set("kpktgend_0", "rem_device_all")
            self._set("kpktgend_0", "add_device " + self.dev)
            for c in cmds:
                self._set(self.dev, c)

    def detach(self):
        """Detach every device of every thread (errors ignored: the
        namespace may be gone)."""
        try:
            with netns(self.ns):
                for f in glob.glob(self.base + "kpktgend_*"):
                    write(f, "rem_device_all\n")
        except OSError:
            pass

    def _running(self):
        pat = re.compile(r"^Running:.* %s " % re.escape(self.dev), re.M)
        for f in glob.glob(self.base + "kpktgend_*"):
            try:
                if pat.search(read(f)):
                    return True
            except OSError:
                pass
        return False

    def _start(self, errors):
        with netns(self.ns):
            try:
                # (with the newline echo adds: pgctrl drops the last
                # byte of what is written)
                write(self.base + "pgctrl", "start\n")
            except OSError as e:
                errors.append(e)

    def run(self, secs):
        """Send for secs seconds; (pps, packets sent, errors) from the
        device's Result line.  "start" blocks until the run ends, so a
        thread writes it; "stop" is written only once a kpktgend thread
        lists the device as running (a stop before the start reached
        pktgen would be lost, and a start with count 0 never return)."""
        errors = []
        t = threading.Thread(target=self._start, args=(errors,))
        t.start()
        with netns(self.ns):
            deadline = time.monotonic() + 10
            while not self._running():
                if not t.is_alive() or time.monotonic() > deadline:
                    t.join()
                    raise RuntimeError("pktgen did not start on %s%s" % (
                        self.dev, ": %s" % errors[0] if errors else ""))
                time.sleep(0.01)
            time.sleep(secs)
            write(self.base + "pgctrl", "stop\n")
            t.join()
            res = read(self.base + self.dev)
        # Result: OK: 5000123(c4999000+d1123) usec, 500000 (64byte,0frags)
        #   99997pps 51Mb/sec (51198464bps) errors: 0
        m = re.search(r"^Result: OK: \d+\(.*?\) usec, (\d+) .*\n\s*(\d+)pps"
                      r".*errors: (\d+)", res, re.M)
        if not m or int(m.group(2)) <= 0:
            raise RuntimeError("no pps in pktgen's result on %s: %s" % (
                self.dev, " ".join(ln.strip() for ln in res.splitlines()
                                   if ln.strip().startswith("Result") or
                                   "pps" in ln)))
        return int(m.group(2)), int(m.group(1)), int(m.group(3))


def rotated(items, r):
    """items in round r's order: rotated left by r, so that across rounds
    every item takes every position (position effects hit all alike)."""
    k = r % len(items)
    return list(items[k:]) + list(items[:k])


IB = "/sys/class/infiniband"


def rxe_gid(dev, ipv4, timeout=10.0):
    """The index of rxe device dev's RoCE v2 GID of the IPv4 address
    ipv4 (waits up to timeout seconds for rxe to add it).  Read in the
    initial namespace's sysfs, which lists every namespace's devices."""
    want = bytes(10) + b"\xff\xff" + bytes(int(x) for x in ipv4.split("."))
    port = os.path.join(IB, dev, "ports", "1")

    def find():
        for t in glob.glob(os.path.join(port, "gid_attrs", "types", "*")):
            i = os.path.basename(t)
            try:
                if read(t).strip() != "RoCE v2":
                    continue
                g = read(os.path.join(port, "gids", i)).strip()
            except OSError:
                continue
            if bytes.fromhex(g.replace(":", "")) == want:
                return int(i)
        return None
    found = []
    wait_for(lambda: found.append(find()) or found[-1] is not None, timeout,
             "the RoCE v2 GID of %s on %s" % (ipv4, dev), step=0.1)
    return found[-1]


def hw_counter(dev, name):
    """The hardware counter name of rxe device dev."""
    return int(read(os.path.join(IB, dev, "ports", "1", "hw_counters",
                                 name)))


def perftest_mbs(path, size=65536):
    """MB/s of perftest's result line for messages of size bytes in the
    output path (its fourth column, BW average), None without one."""
    bw = None
    for line in read(path).splitlines():
        w = line.split()
        if len(w) >= 4 and w[0] == str(size):
            bw = float(w[3])
    return bw
