# SPDX-License-Identifier: GPL-2.0
"""UDP flows with iperf3 between Mininet hosts, started together.

    ip = Iperf(folder, limit=70)
    ip.server(rx, 5201)                      # one-shot, JSON report
    ip.ready()                               # every server listens
    ip.client(h1, rx, 5201, secs=5, bps=37.5e6, tos="0x62")
    ip.go()                                  # all clients at once
    ip.wait()

Reports go to FOLDER/iperf3-server-ID.json and iperf3-client-ID.json
(ID: the port, or the id= given).  Every client waits for a start file
before it execs iperf3, so that they all start at the same moment:
starting a process in a namespace takes a while in the guest.
"""

import json
import os
import subprocess
import tempfile
import time

from .experiment import wait_for


class Iperf:
    def __init__(self, folder, limit, interval=0.5):
        self.folder, self.limit, self.interval = folder, str(int(limit)), \
            str(interval)
        self.servers, self.procs = [], []
        self.scratch = tempfile.mkdtemp(prefix="iperf.")
        self.gofile = os.path.join(self.scratch, "go")

    def path(self, kind, ident):
        return os.path.join(self.folder, "iperf3-%s-%s.json" % (kind, ident))

    def _popen(self, node, argv, path):
        with open(path, "w") as f:
            self.procs.append(node.popen(argv, stdout=f,
                                         stderr=subprocess.STDOUT))

    def server(self, node, port, ident=None):
        """A one-shot server on @node's TCP/UDP @port."""
        self._popen(node, ["timeout", self.limit, "iperf3", "-s", "-1", "-p",
                           str(port), "-i", self.interval, "-J"],
                    self.path("server", ident or port))
        self.servers.append((node, port))

    def ready(self, timeout=60):
        for node, port in self.servers:
            wait_for(lambda: node.cmd("ss -ltnH 'sport = :%d'"
                                      % port).strip(), timeout,
                     "iperf3 on %s port %d to listen" % (node.name, port))

    def client(self, node, dst, port, secs, bps, pkt, tos, ident=None):
        """A UDP client from @node to @dst's @port for @secs seconds at
        @bps bit/s of @pkt-byte payloads with TOS @tos, started by go()."""
        self._popen(node, ["timeout", self.limit, "bash", "-c",
                           'while [ ! -e "$1" ]; do sleep 0.02; done; '
                           'shift; exec "$@"', "_", self.gofile, "iperf3",
                           "-c", dst.IP(), "-p", str(port), "-u", "-b",
                           str(int(bps)), "-l", str(pkt), "-t", str(secs),
                           "--tos", tos, "-J"],
                    self.path("client", ident or port))

    def go(self):
        """Start the waiting clients; the time they were released."""
        time.sleep(0.3)
        t = time.time()
        open(self.gofile, "w").close()
        return t

    def wait(self):
        for p in self.procs:
            p.wait()
        self.close()

    def close(self):
        """Stop what still runs: SIGTERM, which `timeout` passes on to
        iperf3 (SIGKILL would leave iperf3 running), SIGKILL for what
        is left after 5 s."""
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.procs, self.servers = [], []
        subprocess.run(["rm", "-rf", self.scratch])


def report(path):
    """(iperf3's JSON report @path, None), or (None, why it is not one)."""
    try:
        with open(path) as f:
            return json.load(f), None
    except (OSError, ValueError):
        size = os.path.getsize(path) if os.path.exists(path) else 0
        return None, "incomplete JSON, %d bytes" % size


def received_bps(path):
    """bit/s the server whose report is @path received (0 without one)."""
    doc, _ = report(path)
    return ((doc or {}).get("end", {}).get("sum_received") or
            {}).get("bits_per_second", 0)
