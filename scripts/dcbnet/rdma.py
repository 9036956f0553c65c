# SPDX-License-Identifier: GPL-2.0
"""RDMA traffic between RxeHost nodes: perftest pairs, the devices'
hardware counters and a sampler of their sent packets.

    bw = Perftest(folder, size=65536, iters=150)
    bw.add(s1, r, 18901)          # server on r now, client on s1 later
    bw.start()                    # once every server listens
    failed = bw.wait()            # clients and servers that failed

The counters are read in the initial namespace's sysfs: in another
namespace ib_core shows "compat" copies of the devices without
hw_counters.  Capture records the RoCEv2 packets a host receives
(dcbanalysis.roce_flows reads them).
"""

import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time

from .experiment import wait_for

IB = "/sys/class/infiniband"
BASE_PORT = 18900	# perftest's TCP port of the first pair


def prepare(hosts):
    """Make @hosts ready for perftest: its TCP control connection
    ECN-capable (RED and step marking at the switches mark it instead of
    WRED dropping it), and each host's RoCE v2 GID present."""
    for h in hosts:
        h.cmd("sysctl -qw net.ipv4.tcp_ecn=1")
        h.gid()


def select(hosts, algo, mbps, cc=()):
    """cc/algo @algo on every host of @hosts (an algorithm module may
    still be registering, and QPs of the last run still going: retried),
    the line rate @mbps, then the knobs @cc, [(knob, value)] in order (a
    value may be a function of the host, called then); {host: {knob:
    value written last}}."""
    written = {}
    for h in hosts:
        h.setCc("algo", algo, timeout=30)
        if h.getCc("algo") != algo:
            raise RuntimeError("cc/algo of %s does not read back %s"
                               % (h.name, algo))
        h.setCc("max_rate_mbps", mbps)
        w = written[h.name] = {}
        for k, v in cc:
            w[k] = v(h) if callable(v) else v
            h.setCc(k, w[k])
    return written


def hw(host, name):
    """The hardware counter @name of @host's rxe device."""
    with open(os.path.join(IB, host.rxeDev(), "ports", "1", "hw_counters",
                           name)) as f:
        return int(f.read())


def hw_sum(hosts, name):
    """@name summed over @hosts."""
    return sum(hw(h, name) for h in hosts)


def hw_all(host):
    """{counter: value} of @host's device."""
    d = os.path.join(IB, host.rxeDev(), "ports", "1", "hw_counters")
    out = {}
    for n in sorted(os.listdir(d)):
        try:
            with open(os.path.join(d, n)) as f:
                out[n] = int(f.read())
        except (OSError, ValueError):
            pass
    return out


def listening(host, port):
    """A TCP socket listens on @port in @host's namespace."""
    return bool(host.cmd("ss -ltnH 'sport = :%d'" % port).strip())


def reported(path):
    """The perftest output @path has its result line (numbers under the
    "#bytes" header)."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError:
        return False
    for k, line in enumerate(lines[:-1]):
        w = lines[k + 1].split()
        if "#bytes" in line and len(w) >= 2 and w[0].isdigit() and \
                w[1].isdigit():
            return True
    return False


def iterations(path, size):
    """Iterations perftest's result line in @path reports for messages of
    @size bytes (0 without one)."""
    n = 0
    try:
        with open(path) as f:
            for line in f:
                w = line.split()
                if len(w) >= 5 and w[0] == str(size) and w[1].isdigit():
                    n = int(w[1])
    except OSError:
        pass
    return n


class Perftest:
    """ib_write_bw (or another perftest @tool) pairs: add() starts the
    server on the receiving host at once, start() the clients once every
    server listens, wait() waits for them all.  Each pair writes for
    @iters iterations (-n) or @secs seconds (-D), messages of @size bytes,
    transport timeout 4.096 us * 2^@u; outputs go to
    @folder/bw-CLIENT.srv and bw-CLIENT.cli.  Each process runs under
    `timeout` @limit seconds."""

    def __init__(self, folder, size=65536, iters=None, secs=None, u=20,
                 tool="ib_write_bw", limit=300, args=()):
        if (iters is None) == (secs is None):
            raise ValueError("Perftest: iters or secs, one of them")
        self.folder, self.tool, self.limit = folder, tool, limit
        self.common = ["-F", "-s", str(size), "-u", str(u)] + list(args)
        self.common += ["-n", str(iters)] if iters is not None else \
            ["-D", str(secs)]
        self.pairs, self.procs, self.scratch = [], [], None

    def _argv(self, host, port):
        return ["timeout", str(self.limit), self.tool, "-d", host.rxeDev(),
                "-x", str(host.gid()), "-p", str(port)] + self.common

    def _popen(self, host, argv, path):
        f = open(path, "w")
        p = host.popen(argv, stdout=f, stderr=subprocess.STDOUT)
        f.close()
        self.procs.append((host.name, p, path))
        return p

    def out(self, client, kind="cli"):
        return os.path.join(self.folder, "bw-%s.%s" % (client.name, kind))

    def add(self, client, server, port):
        """A pair: its server starts on @server now, on TCP @port."""
        self._popen(server, self._argv(server, port), self.out(client, "srv"))
        self.pairs.append((client, server, port))

    def ready(self, timeout=60):
        """Wait until every server listens."""
        for _, server, port in self.pairs:
            wait_for(lambda: listening(server, port), timeout,
                     "%s on %s port %d to listen" % (self.tool, server.name,
                                                     port))

    def start(self, timeout=60, together=False):
        """The clients, once every server listens.  With @together they
        start at once: each waits on a FIFO until all are spawned (this
        process, Mininet's, spawns one after the other, and in a TCG
        guest four clients took most of a second to start)."""
        self.ready(timeout)
        fifo = None
        if together:
            self.scratch = tempfile.mkdtemp(prefix="perftest.")
            fifo = os.path.join(self.scratch, "go")
            os.mkfifo(fifo)
        for client, server, port in self.pairs:
            argv = self._argv(client, port) + [server.IP()]
            if fifo:
                # (a FIFO opened read-write never blocks the open; each
                # read takes one of the lines written once all are ready)
                argv = ["bash", "-c", 'exec 9<>"$1"; : >"$1.ready-$$"; '
                        'read -r -t %d -u 9 _; exec 9<&-; shift; exec "$@"'
                        % timeout, "_", fifo] + argv
            self._popen(client, argv, self.out(client))
        if fifo:
            wait_for(lambda: len([f for f in os.listdir(self.scratch)
                                  if f.startswith("go.ready-")]) >=
                     len(self.pairs), timeout, "the clients to be ready")
            fd = os.open(fifo, os.O_RDWR)
            os.write(fd, b"\n" * len(self.pairs))
            os.close(fd)

    def wait(self):
        """Wait for every process; the outputs of those that failed."""
        failed = []
        for _, p, path in self.procs:
            if p.wait() != 0:
                failed.append(path)
        self.procs = []
        self._clean()
        return failed

    def end(self, grace=10):
        """End a -D run before its time: stop the clients, give the
        servers @grace seconds to see their peers go, then stop them.
        Returns the outputs of the clients that had ended already (each a
        flow that stopped early).  SIGTERM, which `timeout` passes on to
        perftest; SIGKILL would leave perftest running."""
        early = []
        for _, p, path in self.procs:
            if path.endswith(".cli"):
                if p.poll() is not None:
                    early.append(path)
                else:
                    p.terminate()
        deadline = time.monotonic() + grace
        for _, p, _ in self.procs:
            try:
                p.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.terminate()
        for _, p, _ in self.procs:
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                pass
        self.kill()
        return early

    def kill(self):
        """Kill what still runs; remove the start's FIFO."""
        for _, p, _ in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.procs = []
        self._clean()

    def _clean(self):
        if self.scratch:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None


class Sampler:
    """The sent_pkts counters of @hosts' devices every @interval seconds
    into @path, one line per sample: "T C1 C2 ..." (T the wall clock in
    seconds; dcbanalysis.samples reads it), from start() to stop()."""

    def __init__(self, path, hosts, interval):
        self.path, self.interval = path, float(interval)
        self.files = [os.path.join(IB, h.rxeDev(), "ports", "1",
                                   "hw_counters", "sent_pkts")
                      for h in hosts]
        self.stopping = threading.Event()
        self.thread = None

    def _sample(self):
        v = []
        for p in self.files:
            try:
                with open(p) as f:
                    v.append(f.read().strip())
            except OSError:
                v.append("NaN")	# a device gone at cleanup
        return "%.6f %s\n" % (time.time(), " ".join(v))

    def _loop(self):
        with open(self.path, "w") as f:
            while True:
                f.write(self._sample())
                if self.stopping.wait(self.interval):
                    break
            f.write(self._sample())

    def start(self):
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def stop(self):
        if self.thread is not None:
            self.stopping.set()
            self.thread.join()
            self.thread = None


class Capture:
    """tcpdump of the RoCEv2 packets to @host at its interface, 96 bytes
    of each (up to the BTH: what dcbanalysis.roce_flows reads), from
    start() to stop(), into @folder/capture.pcap; tcpdump's messages go
    to @folder/tcpdump.err.  It writes to the guest's tmpfs with a 16 MB
    kernel buffer and the file is moved at stop(): a TCG guest writing
    every packet to the shared results folder lost 70 % of them.
    dropped: the packets the kernel dropped by tcpdump's count (None if
    it gave none)."""

    def __init__(self, host, folder):
        self.host, self.folder = host, folder
        self.err = os.path.join(folder, "tcpdump.err")
        self.proc = self.tmp = self.dropped = None

    def start(self, timeout=30):
        fd, self.tmp = tempfile.mkstemp(prefix="capture.", suffix=".pcap")
        os.close(fd)
        with open(self.err, "w") as err:
            self.proc = self.host.popen(
                ["tcpdump", "-Z", "root", "-i", str(self.host.defaultIntf()),
                 "-s", "96", "-B", "16384", "-w", self.tmp,
                 "udp dst port 4791 and dst host %s" % self.host.IP()],
                stdout=subprocess.DEVNULL, stderr=err)

        def listening():
            if self.proc.poll() is not None:
                raise RuntimeError("tcpdump on %s: %s" % (
                    self.host.name, self._messages().strip()))
            return "listening on" in self._messages()
        wait_for(listening, timeout, "tcpdump on %s" % self.host.name)

    def _messages(self):
        with open(self.err) as f:
            return f.read()

    def stop(self):
        """End the capture (SIGINT: tcpdump prints its counts), move it
        to the folder; the path of capture.pcap."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None
        dst = os.path.join(self.folder, "capture.pcap")
        shutil.move(self.tmp, dst)
        self.tmp = None
        m = re.search(r"^(\d+) packets? dropped by kernel$",
                      self._messages(), re.M)
        self.dropped = int(m.group(1)) if m else None
        return dst

    def discard(self):
        """Stop without keeping the file (an error path)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None
        if self.tmp and os.path.exists(self.tmp):
            os.unlink(self.tmp)
        self.tmp = None


@contextlib.contextmanager
def recording(cap, mon, guard, *tests):
    """The measured part of a run: the Capture cap and the
    stats.Monitor mon started (its first samples in), then the CpuGuard
    guard; on the way out the Perftests tests killed, the guard and mon
    stopped, and the capture kept if the block ended normally or
    discarded if it raised."""
    ok = False
    try:
        cap.start()
        mon.start()
        wait_for(lambda: mon.rows(), 30, "dcbmon's first samples")
        guard.start()
        yield
        ok = True
    finally:
        for t in tests:
            t.kill()
        guard.stop()
        try:
            mon.stop()
        finally:
            if ok:
                cap.stop()
            else:
                cap.discard()
