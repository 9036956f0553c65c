# SPDX-License-Identifier: GPL-2.0
"""pfc_incast: a lossless incast (DCQCN paper section 2.2).

N UDP senders h1..hN at line rate into one receiver rx through a routing
switch sw; every switch port and every host NIC is sch_dcb shaped to the
line rate, the data rides DSCP 24 (band 3) and PFC guards band 3
(pfc=off: the same buffer without PFC).  Each sender sends the same
number of datagrams back to back on a blocking socket, so its NIC's
shaper, paused by the switch's PAUSE frames, sets its pace; rx counts
what arrives per sender with a tc flower drop rule at its ingress.

Raw files of a run: run.json (the knobs, datagrams sent and received
and the finishing time per sender, the link types, the sch_dcb statistics
and device errors of every node
before and after, softnet and neighbour-queue drops), dcbmon.csv and
ports.tsv (time series of the switch ports and NICs), pfc.pcap
(capture=on: the MAC control frames h1 received, and tcpdump.err with
tcpdump's report).
"""

import os
import subprocess
import tempfile
import time

from .. import TOP, stats
from ..experiment import (CpuGuard, Experiment, Param, load_run, log, save_run,
                          wait_for)
from ._knobs import dcbmon_ms
from ._pfc import (BAND, FABRIC_PARAMS, TOS, UDP_OVERHEAD, Counters,
                   drop_rows, host_opts, load, rate_bps, sink_add,
                   sink_counts, switch_opts)

BASE_PORT = 7000


class PfcIncast(Experiment):
    NAME = "pfc_incast"
    DESCRIPTION = ("PFC lossless incast: N line-rate UDP senders into one "
                   "port, PAUSE counts, drops (pfc=on|off)")
    PARAMS = (
        Param("senders", 8, "number of UDP senders"),
    ) + FABRIC_PARAMS + (
        Param("duration", 4, "seconds the incast lasts at line rate "
              "(sizes the datagrams per sender)"),
        Param("datagrams", "", "datagrams per sender (\"\": from duration)"),
        Param("capture", "off", "on: capture the MAC control frames h1 "
              "receives (pfc.pcap)"),
        dcbmon_ms(50),
        Param("link", "veth", "link type: veth, or an emulated NIC pair "
              "of the guest (e1000e, e1000, virtio: scripts/vm-run "
              "--nic-pairs); a comma list is taken in turn, rx's link "
              "first, then h1..hN"),
    )
    TITLE_KEYS = ("senders", "rate", "pfc", "xoff", "delay", "datagrams")

    # ---------------------------------------------------------- options

    def n(self):
        return int(self.p["senders"])

    def count(self):
        """Datagrams per sender."""
        if self.p["datagrams"]:
            return int(self.p["datagrams"])
        wire = 8 * (int(self.p["pkt"]) + UDP_OVERHEAD)
        return int(float(self.p["duration"]) * rate_bps(self.p["rate"]) /
                   wire / self.n())

    def switch_opts(self):
        return switch_opts(self.p)

    def host_opts(self):
        return host_opts(self.p)

    # ---------------------------------------------------------- run

    def run(self, out):
        from ..nodes import dcb_net, link_class

        if self.p["pfc"] not in ("on", "off"):
            raise ValueError("pfc=%s: on or off" % self.p["pfc"])
        n, count = self.n(), self.count()
        if n < 1 or count < 1:
            raise ValueError("senders=%d, datagrams=%d" % (n, count))
        kinds = self.p["link"].split(",")
        for k in kinds:
            link_class(k)	# (ValueError before anything is made)
        net = dcb_net(out, rxe=False)
        sw = net.addSwitch("sw", dcb=self.switch_opts())
        hosts = ["rx"] + ["h%d" % i for i in range(1, n + 1)]
        self.links = {h: kinds[i % len(kinds)] for i, h in enumerate(hosts)}
        for h in hosts:
            net.addLink(net.addHost(h, dcb=self.host_opts()), sw,
                        cls=link_class(self.links[h]))
        scratch = tempfile.mkdtemp(prefix="pfc_incast.")
        guard = CpuGuard()
        try:
            net.start()
            doc = self._incast(net, sw, out, scratch, guard, count)
            self.keep_raw(net)
        finally:
            guard.stop()
            net.stop()
            subprocess.run(["rm", "-rf", scratch])
        save_run(out, doc)

    def _incast(self, net, sw, out, scratch, guard, count):
        n = self.n()
        rx = net["rx"]
        senders = [net["h%d" % i] for i in range(1, n + 1)]
        nodes = [sw, rx] + senders
        port = {h.name: str(sw.connectionsTo(h)[0][0]) for h in
                [rx] + senders}
        sink_add(rx, [BASE_PORT + i for i in range(1, n + 1)])

        cap_proc = None
        if self.p["capture"] == "on":
            h1 = senders[0]
            err = os.path.join(out, "tcpdump.err")
            cap_proc = h1.popen(["tcpdump", "-i", str(h1.defaultIntf()),
                                 "-n", "-U", "-w",
                                 os.path.join(out, "pfc.pcap"),
                                 "ether", "proto", "0x8808"],
                                stdout=subprocess.DEVNULL,
                                stderr=open(err, "w"))
            wait_for(lambda: "listening on" in open(err).read(), 30,
                     "tcpdump to start")

        # the series the plots draw: "port" the congested one, hN the
        # switch port toward hN, nic-hN hN's NIC
        mon = stats.Monitor(out, [("port", sw, port["rx"])] +
                            [(h.name, sw, port[h.name]) for h in senders] +
                            [("nic-" + h.name, h, str(h.defaultIntf()))
                             for h in senders],
                            int(self.p["interval_ms"]))

        self.resolve(senders, rx.IP())
        try:
            counters = Counters(nodes)
            dev0 = self._netdev_errors(nodes)
            go = os.path.join(scratch, "go")
            procs = []
            for i, h in enumerate(senders, 1):
                argv = [os.path.join(TOP, "tools", "udpflow"), "send", rx.IP(),
                        str(BASE_PORT + i), "--count", str(count),
                        "--interval", "0", "--tos", "0x%x" % TOS,
                        "--len", self.p["pkt"]]
                # start together: a process start takes a while in the guest
                procs.append(h.popen(
                    ["bash", "-c", ': >"$1.ready-$$"; while [ ! -e "$1" ]; do '
                     'sleep 0.01; done; shift; exec "$@"', "_", go] + argv,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE))
            wait_for(lambda: len([f for f in os.listdir(scratch)
                                  if f.startswith("go.ready-")]) >= n, 60,
                     "the senders to start")
            mon.start()
            guard.start()
            log("%d senders x %d datagrams at %s into rx, PFC %s"
                % (n, count, self.p["rate"], self.p["pfc"]))
            t0 = time.monotonic()
            open(go, "w").close()
            ends, sent, errs = {}, {}, []
            while len(ends) < n:
                for h, p in zip(senders, procs):
                    if h.name not in ends and p.poll() is not None:
                        ends[h.name] = time.monotonic() - t0
                        o, e = p.communicate()
                        if p.returncode != 0:
                            errs.append("%s: udpflow: %s"
                                        % (h.name, e.decode().strip()))
                        sent[h.name] = int(o.split()[0]) if o.split() else 0
                time.sleep(0.005)
            busy = guard.check("pfc_incast")
            # everything queued anywhere has left
            wait_for(lambda: all(stats.snapshot(x).backlog() == 0
                                 for x in nodes), 60, "the queues to drain")
            if errs:
                raise RuntimeError("; ".join(errs))
        finally:
            mon.stop()
            if cap_proc is not None:
                self._stop_capture(cap_proc, os.path.join(out, "pfc.pcap"))
        counted = counters.doc()
        dev1 = self._netdev_errors(nodes)
        counts, _ = sink_counts(rx)
        received = {"h%d" % (p - BASE_PORT): c for p, c in counts.items()}
        return {
            "knobs": self.p, "datagrams": count, "cpu_busy": busy,
            "switch": self.switch_opts(), "host": self.host_opts(),
            "ports": port, "sent": sent, "received": received,
            "end_s": ends, "links": self.links,
            "netdev_errors": {k: v - dev0.get(k, 0) for k, v in dev1.items()
                              if v > dev0.get(k, 0)},
            **counted,
        }

    @staticmethod
    def _netdev_errors(nodes):
        """{"NODE:DEV": frames lost} of every device of the nodes: the
        receive and transmit drop and fifo columns of /proc/PID/net/dev (a
        NIC's missed and overrun frames are there, not in the rx_dropped
        that sch_dcb's statistics keep).  The errs columns are left out:
        each end of an e1000e link counts one receive error per run, a
        frame that is neither a datagram (all arrive) nor a PAUSE frame
        (pause_rx equals the peer's pause_tx); its cause is not known."""
        res = {}
        for node in nodes:
            with open("/proc/%d/net/dev" % node.pid) as f:
                for line in f.readlines()[2:]:
                    dev, _, rest = line.partition(":")
                    v = [int(x) for x in rest.split()]
                    res["%s:%s" % (node.name, dev.strip())] = \
                        sum(v[3:5]) + sum(v[11:13])
        return res

    @staticmethod
    def _stop_capture(proc, pcap):
        """End tcpdump once it has written what it was given: the frames
        still in its socket when it exits are lost, and a busy guest can
        leave it behind the traffic.  After the drain no MAC control
        frame is sent, so the file stops growing once it caught up."""
        last, steady = -1, 0
        deadline = time.monotonic() + 30
        while steady < 3 and time.monotonic() < deadline:
            size = os.path.getsize(pcap) if os.path.exists(pcap) else 0
            steady = steady + 1 if size == last else 0
            last = size
            time.sleep(0.2)
        proc.terminate()
        proc.wait()

    # ---------------------------------------------------------- metrics

    def analyze(self, out):
        from dcbanalysis.fairness import sender_rows

        doc = load_run(out)
        b, a = load(doc)
        port = doc["ports"]
        pkt = int(doc["knobs"]["pkt"])
        names = sorted(doc["sent"], key=lambda s: int(s[1:]))
        rows = []

        def d(node, dev, key, band=None):
            return a[node].get(dev, key, band) - b[node].get(dev, key, band)

        rx = {h: 8 * pkt * doc["received"].get(h, 0) / doc["end_s"][h] / 1e6
              for h in names}
        rows += sender_rows(rx)
        sent, received = sum(doc["sent"].values()), \
            sum(doc["received"].values())
        rows += [("datagrams_sent", sent, "datagrams"),
                 ("datagrams_received", received, "datagrams"),
                 ("datagrams_lost", sent - received, "datagrams"),
                 ("fct_max", max(doc["end_s"].values()), "s"),
                 ("cpu_busy", doc["cpu_busy"], "%")]
        # device errors (a NIC's missed frames) count among the drops
        rows += drop_rows(b, a, doc)
        tot = {"pause_tx": 0, "pause_rx": 0, "paused_us": 0}
        for h in names:
            sp = port[h]
            ptx = d("sw", sp, "pause_tx", BAND)
            nic = "%s-eth0" % h
            prx = d(h, nic, "pause_rx", BAND)
            pus = d(h, nic, "paused_us", BAND)
            tot["pause_tx"] += ptx
            tot["pause_rx"] += prx
            tot["paused_us"] += pus
            rows += [("pause_tx." + h, ptx, "frames"),
                     ("resume_tx." + h, d("sw", sp, "resume_tx", BAND),
                      "frames"),
                     ("pause_rx." + h, prx, "frames"),
                     ("ingress_peak." + h, a["sw"].get(sp, "in_peak", BAND) /
                      1024, "KB"),
                     ("paused_share." + h, pus / 1e6 / doc["end_s"][h], "1")]
        rows += [("pause_tx.all", tot["pause_tx"], "frames"),
                 ("pause_rx.all", tot["pause_rx"], "frames"),
                 ("paused_us.all", tot["paused_us"], "us")]
        rp = port["rx"]
        rows += [("drops_tail", d("sw", rp, "drops_tail"), "packets"),
                 ("queue_max", a["sw"].get(rp, "backlog_peak") / 1024, "KB"),
                 ("pool_peak", a["sw"].get(rp, "pool.peak") / 1024, "KB"),
                 ("headroom_drops", sum(d("sw", x, "drops_headroom")
                                        for x in port.values()), "packets")]
        pcap = os.path.join(out, "pfc.pcap")
        if os.path.exists(pcap):
            rows += self._wire(pcap, doc)
            rows += self._capture_dropped(os.path.join(out, "tcpdump.err"))
        return rows

    @staticmethod
    def _capture_dropped(err):
        """capture_dropped: tcpdump's "N packets dropped by kernel"."""
        try:
            with open(err) as f:
                for line in f:
                    w = line.split()
                    if w[1:5] == ["packets", "dropped", "by", "kernel"]:
                        return [("capture_dropped", int(w[0]), "packets")]
        except OSError:
            pass
        return []

    def _wire(self, pcap, doc):
        """The MAC control frames h1 received, decoded by tshark:
        wire_pause and wire_resume (802.1Qbb frames for band 3 only,
        pause time the port's quanta or 0), wire_other (any other
        frame)."""
        q = doc["knobs"]["quanta"]
        quanta = 65535 if q == "default" else int(q, 0)
        r = subprocess.run(["tshark", "-r", pcap, "-T", "fields", "-E",
                            "separator= ", "-e", "eth.dst", "-e", "eth.type",
                            "-e", "macc.opcode", "-e", "macc.cbfc.enbv",
                            "-e", "macc.cbfc.pause_time.c3"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("tshark: %s" % r.stderr.strip())
        pause = resume = other = 0
        for f in (line.split() for line in r.stdout.splitlines()):
            ok = f[:4] == ["01:80:c2:00:00:01", "0x8808", "0x0101",
                           "0x%04x" % (1 << BAND)] and len(f) == 5
            if ok and int(f[4]) == quanta:
                pause += 1
            elif ok and int(f[4]) == 0:
                resume += 1
            else:
                other += 1
        return [("wire_pause", pause, "frames"),
                ("wire_resume", resume, "frames"),
                ("wire_other", other, "frames")]

    # ---------------------------------------------------------- plots

    def plot(self, out):
        """ingress.png (band 3 bytes charged to each sender's switch port,
        XOFF dashed), pauses.png (PAUSE frames each of them sent),
        queue.png (the congested port's backlog and the pool's occupancy)
        and throughput.png (each sender's NIC rate, the fair share
        dashed).  Returns the files written."""
        from dcbanalysis import plots, units
        from dcbanalysis.scenarios._pfc import ports, series

        if not os.path.exists(os.path.join(out, "dcbmon.csv")):
            return []
        p = self.p
        lab = ports(out)
        senders = {k: v for k, v in lab.items() if k.startswith("h")}
        files = []
        xoff = units.size_bytes(p["xoff"]) if p["pfc"] == "on" else None
        for name, key, what, ylabel, scale, hline in (
                ("ingress.png", "in_bytes", "band 3 bytes charged per "
                 "sender port", "charged (KB)", 1024,
                 xoff / 1024 if xoff else None),
                ("pauses.png", "pause_tx", "PAUSE frames sent per sender "
                 "port", "PAUSE frames sent (cumulative)", 1, None)):
            lines = [(k, t, [x / scale for x in v]) for k, (t, v) in
                     series(out, senders, key, BAND).items() if t]
            if lines:
                f = os.path.join(out, name)
                plots.series(f, lines, self.title(what), ylabel, hline=hline,
                             hline_label="XOFF" if hline else None)
                files.append(f)
        lines = []
        for label, key in (("congested port", "backlog_bytes"),
                           ("pool", "pool_used")):
            t, v = series(out, {"x": lab["port"]}, key, "all")["x"]
            if t:
                lines.append((label, t, [x / 1024 for x in v]))
        if lines:
            f = os.path.join(out, "queue.png")
            plots.series(f, lines, self.title(
                "congested port's backlog and the pool"), "bytes (KB)")
            files.append(f)
        nics = {k[4:]: v for k, v in lab.items() if k.startswith("nic-")}
        lines = []
        for k, (t, v) in series(out, nics, "deq_bytes", "all").items():
            if len(t) > 1:
                ok = [i for i in range(1, len(t)) if t[i] > t[i - 1]]
                lines.append((k, [t[i] for i in ok],
                              [8 * (v[i] - v[i - 1]) / 1e6 / (t[i] - t[i - 1])
                               for i in ok]))
        if lines:
            pkt = int(p["pkt"])
            share = rate_bps(p["rate"]) / 1e6 * pkt / (pkt + UDP_OVERHEAD) \
                / len(lines)
            f = os.path.join(out, "throughput.png")
            plots.series(f, lines, self.title("sent per sender NIC"),
                         "rate (Mbit/s)", hline=share,
                         hline_label="fair share")
            files.append(f)
        return files
