# SPDX-License-Identifier: GPL-2.0
"""Experiments as Python units.

An experiment is one module of dcbnet.experiments holding a subclass of
Experiment: its parameters as one table (PARAMS), its topology and its
run (build() and run(): raw files in the results folder, in the guest),
its metrics (analyze(): tidy rows (metric, value, unit) from those files,
anywhere) and its plots.  `dcblab run NAME` runs it (dcbnet.cli: the
results folder, metadata.json, results.csv, table and plots), and a
test runs it and asserts over its rows.

    python3 -m dcbnet list | params NAME | describe NAME
    python3 -m dcbnet run NAME OUT [KEY=VALUE ...]      (root, in the guest)
    python3 -m dcbnet analyze NAME OUT [KEY=VALUE ...]  (rows on stdout)
"""

import importlib
import json
import os
import pkgutil
import subprocess
import sys
import time

from . import TOP


class Param:
    """One knob: name, default (a string, as on the command line; "" for
    none) and what it is, with its unit."""

    def __init__(self, name, default, doc):
        self.name, self.default, self.doc = name, str(default), doc


class Experiment:
    """Subclasses set NAME, DESCRIPTION, PARAMS and write run() and
    analyze(); self.p is the knobs, defaults overridden by the command
    line's KEY=VALUE (strings: the experiment converts)."""

    NAME = ""
    DESCRIPTION = ""
    PARAMS = ()

    def __init__(self, overrides=None):
        self.p = {q.name: q.default for q in self.PARAMS}
        for k, v in (overrides or {}).items():
            if k not in self.p:
                raise KeyError("experiment %s has no knob '%s' (dcblab "
                               "params %s)" % (self.NAME, k, self.NAME))
            self.p[k] = v

    def run(self, out):
        """Build the network, run the traffic, write raw files to out."""
        raise NotImplementedError

    def analyze(self, out):
        """[(metric, value, unit)] from the raw files in out."""
        raise NotImplementedError

    def plot(self, out):
        """Draw the experiment's plots into out; the files written."""
        return []

    # the knobs a plot's title shows with their values
    TITLE_KEYS = ()

    def title(self, what, keys=None):
        """A plot's title: "NAME: @what", and below it the knobs of @keys
        (default TITLE_KEYS) with their values."""
        from dcbanalysis import plots

        return plots.title(self.NAME, what, self.p,
                           self.TITLE_KEYS if keys is None else keys)

    @staticmethod
    def resolve(srcs, dst):
        """Each host of srcs pings dst once, so that every neighbour on
        the way is resolved before the traffic starts: a datagram sent
        while ARP is unresolved waits in a short queue and is dropped
        unseen when it overflows (stats.neigh_drops)."""
        for h in srcs:
            out, err, rc = h.pexec(["ping", "-c", "1", "-W", "5", dst])
            if rc != 0:
                raise RuntimeError("%s cannot reach %s: %s"
                                   % (h.name, dst, (out + err).strip()))

    @staticmethod
    def keep_raw(net):
        """What metadata.json records of the live network, into the
        folder $DCBLAB_RAW_DIR (dcblab sets it; nothing without it):
        every node's qdiscs (tc -j -s) and rxe cc/ knobs."""
        raw = os.environ.get("DCBLAB_RAW_DIR")
        if not raw:
            return
        os.makedirs(raw, exist_ok=True)
        for node in net.hosts + net.switches:
            with open(os.path.join(raw, "qdisc-%s.json" % node.name),
                      "w") as f:
                f.write(node.cmd("tc -j -s qdisc show"))
            with open(os.path.join(raw, "knobs-%s.txt" % node.name),
                      "w") as f:
                f.write(node.cmd("grep -rs . /sys/class/infiniband/*/cc/"))


def save_run(folder, doc):
    """Write doc, what a run measured, as folder/run.json."""
    with open(os.path.join(folder, "run.json"), "w") as f:
        json.dump(doc, f, indent=1)


def load_run(folder):
    """The document save_run() wrote to folder/run.json."""
    with open(os.path.join(folder, "run.json")) as f:
        return json.load(f)


def names():
    """The experiments' names, sorted."""
    from . import experiments
    return sorted(m.name for m in pkgutil.iter_modules(experiments.__path__)
                  if not m.name.startswith("_"))


def get(name):
    """The Experiment subclass of experiment name (ValueError if none)."""
    if name not in names():
        raise ValueError("no experiment '%s'" % name)
    mod = importlib.import_module("dcbnet.experiments." + name)
    for v in vars(mod).values():
        if isinstance(v, type) and issubclass(v, Experiment) and \
                v is not Experiment and v.NAME == name:
            return v
    raise ValueError("dcbnet.experiments.%s defines no experiment" % name)


_T0 = time.monotonic()


def log(msg):
    """@msg on stderr, with the seconds since the module was loaded."""
    print("dcbnet: [%7.2f] %s" % (time.monotonic() - _T0, msg),
          file=sys.stderr, flush=True)


def tracefs():
    """The tracefs folder, mounted at /sys/kernel/tracing if it is not
    yet (a guest's init mounts none), else debugfs's tracing folder;
    RuntimeError if neither has events."""
    t = "/sys/kernel/tracing"
    if not os.path.isdir(t + "/events"):
        subprocess.run(["mount", "-t", "tracefs", "nodev", t],
                       stderr=subprocess.DEVNULL)
    if not os.path.isdir(t + "/events"):
        t = "/sys/kernel/debug/tracing"
    if not os.path.isdir(t + "/events"):
        raise RuntimeError("no tracefs")
    return t


def wait_for(cond, timeout, what, step=0.05):
    """Poll cond() until it is true; RuntimeError naming what after
    timeout seconds."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise RuntimeError("timed out after %g s waiting for %s"
                               % (timeout, what))
        time.sleep(step)


class CpuGuard:
    """The CPU guard (Documentation/testing.rst, "The CPU guard"): the
    guest kernel's busy share from start() to check(label), sampled by
    tools/cpusample, logged to $DCBLAB_CPU_LOG ("label<TAB>percent") and
    compared with DCBLAB_CPU_BOUND (default 85 %): above it an error, or
    a warning with DCBLAB_CPU_GUARD=warn (dcblab's) or on a slow machine
    (DCBLAB_MACHINE_SLOW=yes), as scripts/lib/common.sh's cpu_guard.

    It brackets an experiment's traffic, so it also keeps a virtual-time
    guest's CPU from halting from start() to stop(): tools/idlespin at
    SCHED_IDLE, as common.sh's clock_spin (a timer due while the CPU
    halts fires when the host wakes qemu, late by the host's load).
    Only then: while it spins, the guest's clock runs on through every
    wait for the host (each file the 9p root serves, each program
    started), and building a Mininet network took 28 guest seconds
    beside it against 1.4 without it.  DCBLAB_IDLESPIN=0: no spinner."""

    def __init__(self):
        self.proc = self.fifo = self.fd = self.spin = None

    def _spin(self):
        if not os.environ.get("DCBLAB_ICOUNT") or \
                os.environ.get("DCBLAB_IDLESPIN", "1") == "0":
            return
        path = os.path.join(TOP, "tools", "idlespin")
        if not os.access(path, os.X_OK):
            log("WARNING: %s not built (make tools): idle time follows "
                "the host's clock" % path)
            return
        self.spin = subprocess.Popen([path, "--while", str(os.getpid())],
                                     stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)

    def start(self):
        self._spin()
        path = os.path.join(TOP, "tools", "cpusample")
        self.fifo = "/run/dcbnet-cpusample.%d" % os.getpid()
        if os.path.exists(self.fifo):
            os.unlink(self.fifo)
        os.mkfifo(self.fifo, 0o600)
        self.fd = os.open(self.fifo, os.O_RDWR)
        self.proc = subprocess.Popen([path, self.fifo, "--while",
                                      str(os.getpid())])
        line = self._line()
        if not line.startswith("ready "):
            self.stop()
            raise RuntimeError("tools/cpusample did not start: %s" % line)

    def _line(self, timeout=30):
        deadline, buf = time.monotonic() + timeout, b""
        os.set_blocking(self.fd, False)
        while not buf.endswith(b"\n"):
            try:
                buf += os.read(self.fd, 256)
            except BlockingIOError:
                if time.monotonic() > deadline:
                    return "no answer in %d s" % timeout
                time.sleep(0.01)
        return buf.decode().strip()

    def busy(self):
        """The kernel's busy share since start(), percent (one decimal)."""
        self.proc.send_signal(10)	# SIGUSR1
        line = self._line()
        try:
            return float(line.split()[0])
        except (ValueError, IndexError):
            raise RuntimeError("tools/cpusample: %s" % line) from None

    def check(self, label):
        busy = self.busy()
        bound = float(os.environ.get("DCBLAB_CPU_BOUND", "85"))
        logf = os.environ.get("DCBLAB_CPU_LOG")
        if logf:
            with open(logf, "a") as f:
                f.write("%s\t%d\n" % (label, round(busy)))
        if busy <= bound:
            log("cpu guard: guest kernel busy %.1f%% during %s (bound %g%%)"
                % (busy, label, bound))
        elif os.environ.get("DCBLAB_CPU_GUARD", "fail") != "warn" and \
                os.environ.get("DCBLAB_MACHINE_SLOW", "no") != "yes":
            raise RuntimeError("guest kernel busy %.1f%% during %s, above "
                               "the CPU guard's %g%%" % (busy, label, bound))
        else:
            log("WARNING: guest kernel busy %.1f%% during %s, above the CPU "
                "guard's %g%%: the run measured the emulated hosts' CPU, "
                "not the network" % (busy, label, bound))
        return busy

    def stop(self):
        for p in (self.proc, self.spin):
            if p is not None:
                p.terminate()
                p.wait()
        self.proc = self.spin = None
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        if self.fifo and os.path.exists(self.fifo):
            os.unlink(self.fifo)


def parse_kv(args):
    """{KEY: VALUE} of KEY=VALUE arguments."""
    kv = {}
    for a in args:
        k, eq, v = a.partition("=")
        if not eq or not k:
            raise ValueError("want KEY=VALUE, not '%s'" % a)
        kv[k] = v
    return kv
