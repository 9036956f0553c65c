# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/dcbanalysis (run by test_dcbanalysis.sh)."""

import json
import math
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "scripts"))

import pandas as pd  # noqa: E402

from dcbanalysis import analyze, fairness, metadata, plots, summary  # noqa
from dcbanalysis import cmpmetrics, roce_flows, tidy, timeline, units  # noqa
from dcbnet.experiment import save_run  # noqa: E402


def params_txt(d, name, **knobs):
    """@d/params.txt as `dcblab run NAME` writes it: its header line, then
    KEY=VALUE for each of @knobs."""
    with open(os.path.join(d, "params.txt"), "w") as f:
        f.write("# dcblab run %s 2026\n" % name)
        f.writelines("%s=%s\n" % kv for kv in knobs.items())


def results(d):
    """The results.csv analyze.analyze(@d) writes, as a DataFrame."""
    analyze.analyze(d)
    return pd.read_csv(os.path.join(d, "results.csv"))


def row(**kw):
    r = {"scenario": "s", "algo": "dcqcn", "run": 1, "metric": "jain",
         "value": 0.5, "unit": "1"}
    r.update(kw)
    return r


def pfc_ports(devs, **vals):
    """A run.json snapshot ({"DEV:KEY[:BAND]": value}) of sch_dcb ports
    devs of one pool, every counter 0 but vals ({"DEV:KEY[:BAND]":
    value})."""
    d = {}
    for dev in devs:
        d[dev + ":pool.id"] = 1
        for k in ("pool.drops_full", "drops_tail", "drops_wred",
                  "drops_headroom", "in_drops", "backlog_bytes",
                  "pause_tx:3", "pause_rx:3", "paused_us:3", "in_peak:3"):
            d["%s:%s" % (dev, k)] = 0
    d.update(vals)
    return d


UNFAIR_KNOBS = {"rate": "100mbit", "pfc": "on", "buffer": "1mb",
                "xoff": "16kb", "delay": "default", "quanta": "default",
                "pkt": "1000", "window": "2", "interval_ms": "20"}


def pfc_unfair_run(d, rx):
    """The run.json pfc_unfair leaves in @d, h1..h4 receiving @rx Mbit/s
    over a window of 2 s (250 datagrams of 1000 bytes per Mbit/s)."""
    os.makedirs(d, exist_ok=True)
    sw1 = ("sw1-eth1", "sw1-eth2", "sw1-eth3")
    sw2 = ("sw2-eth1", "sw2-eth2", "sw2-eth3", "sw2-eth4")
    before = {"sw1": pfc_ports(sw1), "sw2": pfc_ports(sw2)}
    after = {"sw1": pfc_ports(sw1, **{"sw1-eth2:pause_tx:3": 12,
                                      "sw1-eth3:pause_tx:3": 40,
                                      "sw1-eth2:in_peak:3": 9216,
                                      "sw1-eth3:in_peak:3": 17408}),
             "sw2": pfc_ports(sw2)}
    doc = {"knobs": UNFAIR_KNOBS, "cpu_busy": 50.0, "both_paused": True,
           "ports": {"sw1-r": "sw1-eth1", "sw1-from-h1": "sw1-eth2",
                     "sw1-from-sw2": "sw1-eth3", "sw2-sw1": "sw2-eth1"},
           "datagrams": {"h%d" % i: round(v * 250)
                         for i, v in enumerate(rx, 1)},
           "window_s": 2.0, "before": before, "after": after,
           "softnet_drops": 0}
    save_run(d, doc)


class Tidy(unittest.TestCase):
    def test_good_row(self):
        tidy.check_row(row())
        tidy.check_row(row(metric="goodput.h1", unit="Mbit/s", value="4"))

    def test_bad_rows(self):
        for bad in (row(value=float("nan")), row(value="nan"),
                    row(value="-"), row(value=""), row(metric="fct_s"),
                    row(unit="%"), row(run=0), row(run="x"), row(algo="")):
            with self.assertRaises(tidy.SchemaError, msg=str(bad)):
                tidy.check_row(bad)

    def test_append_all_or_nothing(self):
        with tempfile.TemporaryDirectory() as t:
            p = os.path.join(t, "results.csv")
            with self.assertRaises(tidy.SchemaError):
                tidy.append(p, [row(), row(value=math.inf)])
            self.assertFalse(os.path.exists(p))
            tidy.append(p, [row(), row(run=2, value=0.7)])
            tidy.append(p, [row(run=3, value=0.9)])
            self.assertEqual(tidy.check_file(p), 3)
            df = pd.read_csv(p)
            self.assertEqual(list(df.columns), list(tidy.COLUMNS))
            self.assertEqual(list(df["value"]), [0.5, 0.7, 0.9])


class Fairness(unittest.TestCase):
    def test_jain(self):
        self.assertAlmostEqual(fairness.jain([3, 3, 3]), 1.0)
        self.assertAlmostEqual(fairness.jain([4, 0, 0, 0]), 0.25)
        self.assertAlmostEqual(fairness.jain([1, 2]), 0.9)
        self.assertIsNone(fairness.jain([0, 0]))
        self.assertIsNone(fairness.jain([]))


class Analyze(unittest.TestCase):
    def folder(self, t, runs):
        with open(os.path.join(t, "params.txt"), "w") as f:
            f.write("# dcblab run pfc_unfair 2026-11-24T00:00:00Z\n"
                    "# kernel x\nrate=100mbit\npfc=on\nwindow=2\n")
        for k, rx in enumerate(runs, 1):
            pfc_unfair_run(os.path.join(t, "run-%d" % k), rx)

    def test_repeat_table(self):
        with tempfile.TemporaryDirectory() as t:
            self.folder(t, [(5, 1.6, 1.7, 1.7), (4.6, 1.8, 1.8, 1.8),
                            (5.2, 1.5, 1.6, 1.7)])
            n = analyze.analyze(t)
            # 4 goodputs + 4 shares + jain + h1_ratio + 5
            # datagrams_received + window + cpu_busy + 2 pause_tx + 2
            # ingress_peak + drops_all + headroom, x 3
            self.assertEqual(n, 3 * 23)
            df = pd.read_csv(os.path.join(t, "results.csv"))
            self.assertEqual(sorted(set(df["run"])), [1, 2, 3])
            self.assertEqual(set(df["algo"]), {"line-rate"})
            g = df[df.metric == "goodput.h1"]["value"]
            self.assertEqual(sorted(g), [4.6, 5.0, 5.2])
            s = summary.summarize(df)
            h1 = s[s.metric == "goodput.h1"].iloc[0]
            self.assertEqual((h1.runs, h1["median"], h1["min"], h1["max"]),
                             (3, 5.0, 4.6, 5.2))
            txt = summary.table([t])
            self.assertRegex(txt, r"\ngoodput\.h1 +Mbit/s +5\.00 \(4\.60-5\.20\)\n")
            self.assertRegex(txt, r"\npause_tx\.sw1-from-h1 +frames +12\n")
            self.assertIn("pause_tx.sw1-from-sw2", txt)
            # h1 / mean(h2..h4) of run 1: 5 / (5 / 3)
            self.assertEqual(
                df[(df.metric == "h1_ratio") & (df.run == 1)]["value"].iloc[0],
                3)
            # again: the same file, not twice the rows
            self.assertEqual(analyze.analyze(t), n)

    def test_guest_metrics_merged(self):
        with tempfile.TemporaryDirectory() as t:
            self.folder(t, [(5, 1, 1, 1)])
            with open(os.path.join(t, "guest-metrics.csv"), "w") as f:
                f.write("scenario,algo,run,metric,value,unit\n"
                        "pfc_unfair,line-rate,1,cnp_rx.h1,7,packets\n")
            self.assertEqual(analyze.analyze(t), 24)
            df = pd.read_csv(os.path.join(t, "results.csv"))
            self.assertEqual(int(df[df.metric == "cnp_rx.h1"]["value"].iloc[0]), 7)

    def test_bad_guest_row_refused(self):
        with tempfile.TemporaryDirectory() as t:
            self.folder(t, [(5, 1, 1, 1)])
            with open(os.path.join(t, "guest-metrics.csv"), "w") as f:
                f.write("scenario,algo,run,metric,value,unit\n"
                        "pfc_unfair,line-rate,1,cnp_rx.h1,7,KB\n")
            with self.assertRaises(tidy.SchemaError):
                analyze.analyze(t)
            self.assertFalse(os.path.exists(os.path.join(t, "results.csv")))

    def test_no_analyser(self):
        with tempfile.TemporaryDirectory() as t:
            # (every scenario has an analyser now)
            params_txt(t, "no_analyser", duration="5")
            self.assertEqual(analyze.analyze(t), 0)
            self.assertFalse(os.path.exists(os.path.join(t, "results.csv")))


CMP_DCBMON_HEAD = "t_ms,netns,dev,band,deq_packets,backlog_bytes\n"


def cmp_dcbmon(d, ports, n):
    """dcbmon.csv and ports.tsv of a cmp_burst or cmp_converge run in
    @d: @n samples 50 ms apart of each port of @ports, {label: (netns,
    dev, backlog(k) in bytes)}; every port dequeues from sample 1 to
    n - 2."""
    with open(os.path.join(d, "ports.tsv"), "w") as f:
        for label, (ns, dev, _) in ports.items():
            f.write("%s\t%s:%s\n" % (label, ns, dev))
    with open(os.path.join(d, "dcbmon.csv"), "w") as f:
        f.write(CMP_DCBMON_HEAD)
        for k in range(n):
            for ns, dev, q in ports.values():
                f.write("%d,%s,%s,all,%d,%d\n"
                        % (50 * k, ns, dev, min(max(k, 0), n - 2), q(k)))


def cmp_doc(d, algo, hosts, switches, **extra):
    """run.json of a cmp_burst or cmp_converge run in @d: @switches
    {name: (ports, {"DEV:KEY[:BAND]": value after})}, every counter 0
    before; 2 go-back-N retries."""
    doc = {"algo": algo, "hosts": hosts, "cpu_busy": 40.5, "failed": 0,
           "retry": 2,
           "before": {sw: pfc_ports(ports)
                      for sw, (ports, _) in switches.items()},
           "after": {sw: pfc_ports(ports, **after)
                     for sw, (ports, after) in switches.items()}}
    doc.update(extra)
    save_run(d, doc)


def burst_run(d, algo="pcn"):
    """A cmp_burst run in @d: F0 and F1 send 100 packets every 0.5 s
    from the first sample, the three bursters 30 each from t = 4 to 6,
    while F0 sends 50; s1 -> r1 holds 8 KB, s0 -> s1 4 KB; s1 sent 89
    PAUSE frames and dropped nothing."""
    os.makedirs(d, exist_ok=True)
    c = [0] * 5
    with open(os.path.join(d, "samples.txt"), "w") as f:
        for i in range(21):
            f.write("%.6f %s\n" % (1000 + i * 0.5, " ".join(map(str, c))))
            c[0] += 50 if 8 <= i < 12 else 100
            c[1] += 100
            for b in (2, 3, 4):
                c[b] += 30 if 8 <= i < 12 else 0
    cmp_dcbmon(d, {"s0-s1": ("ns-s0", "s0-eth1", lambda k: 4096),
                   "s1-r1": ("ns-s1", "s1-eth2", lambda k: 8192),
                   "s1-r0": ("ns-s1", "s1-eth1", lambda k: 0)}, 200)
    cmp_doc(d, algo, ["f0", "f1", "b1", "b2", "b3"],
            {"s0": (("s0-eth1", "s0-eth2"), {}),
             "s1": (("s1-eth1", "s1-eth2", "s1-eth3"),
                    {"s1-eth3:pause_tx:3": 89})})


PCN_EVENT = ("  ib_write_bw-7  [001] d.s1.  %.6f: rxe_cc_pcn_rate: "
             "dev=%s qpn=17 rate_kbps=%d w=1 rec_kbps=0 ecn=1\n")


def converge_run(d, algo="pcn"):
    """A cmp_converge run in @d: s1, s2, s3 send 100, 90 and 110 packets
    every 0.25 s for 5 s; the bottleneck's queue passes 4 KB at t = 0.05,
    peaks at 40 KB, is at 2 KB at t = 0.2 and 1 KB from then on; PCN's
    first CNPs (period 2 ms) at t = 100.000, .001 and .002 leave the rates
    at 50 + 40 + 30 Mbit/s, and s1's second at .004 at 30: 100 Mbit/s,
    converged 4 ms (2 periods) after the last flow's start (.000)."""
    os.makedirs(d, exist_ok=True)
    c = [0, 0, 0]
    with open(os.path.join(d, "samples.txt"), "w") as f:
        for i in range(21):
            f.write("%.6f %s\n" % (1000 + i * 0.25, " ".join(map(str, c))))
            c = [c[0] + 100, c[1] + 90, c[2] + 110]
    q = {0: 0, 1: 10240, 2: 40960, 3: 20480, 4: 2048}
    cmp_dcbmon(d, {"bottleneck": ("ns-sw", "sw-eth4",
                                  lambda k: q.get(k, 1024))}, 100)
    devs = ["rxe_s%d-eth0" % i for i in (1, 2, 3)]
    with open(os.path.join(d, "trace.txt"), "w") as f:
        f.write("# tracer: nop\n")
        for ts, dev, kbps in ((100.0, 0, 50000), (100.001, 1, 40000),
                              (100.002, 2, 30000), (100.004, 0, 30000)):
            f.write(PCN_EVENT % (ts, devs[dev], kbps))
    extra = {"devs": devs, "line_kbps": 100000}
    if algo == "pcn":
        extra.update({"event": "rxe_cc_pcn_rate", "field": "rate_kbps",
                      "lead_us": 2000, "period_us": 2000})
    cmp_doc(d, algo, ["s1", "s2", "s3"],
            {"sw": (("sw-eth1", "sw-eth4"), {"sw-eth4:drops_tail": 3})},
            **extra)


def incast_run(d, hosts, flows, iters=150, size=65536, done=None,
               **counters):
    """A cmp_incast setting's raw files in @d: each flow (start_s,
    end_s) of @hosts (None: never sent) writing iters x size bytes
    (packets of 1024 bytes), sent_pkts sampled every 0.1 s from t = 1000
    s; the bottleneck's backlog 8 KB while any flow sends (dcbmon every
    20 ms from t0 = 1000); @counters ({"KEY": value}) the switch's port
    totals after the run, @done the writes each client reported."""
    os.makedirs(d, exist_ok=True)
    pkts = iters * size // 1024
    end = max([f[1] for f in flows if f] + [1.0]) + 0.5
    with open(os.path.join(d, "samples.txt"), "w") as f:
        for k in range(int(end * 10) + 1):
            t = k / 10
            v = []
            for fl in flows:
                if fl is None:
                    v.append(0)
                else:
                    x = (t - fl[0]) / (fl[1] - fl[0])
                    v.append(int(pkts * min(max(x, 0), 1)))
            f.write("%.6f %s\n" % (1000 + t, " ".join(map(str, v))))
    with open(os.path.join(d, "dcbmon.csv"), "w") as f:
        f.write(DCBMON_HEAD)
        deq = 0
        for k in range(int(end * 50) + 1):
            t = k / 50
            busy = any(fl and fl[0] <= t <= fl[1] for fl in flows)
            deq += 100 if busy else 0
            f.write("%d,ns-sw,sw-eth4,all,0,0,%d,0,%d,0,0,0,0,0,0,0\n"
                    % (k * 20, deq, 8192 if busy else 0))
    ports = ("sw-eth0", "sw-eth4")
    before = pfc_ports(ports, **{"sw-eth0:pause_tx": 0,
                                 "sw-eth0:ecn_marked": 0,
                                 "sw-eth4:pause_tx": 0,
                                 "sw-eth4:ecn_marked": 0})
    after = dict(before)
    for k, v in counters.items():
        after["sw-eth4:" + k] = v
    done = done or [iters] * len(hosts)
    doc = {"setting": os.path.basename(d), "hosts": hosts, "t0": 1000.0,
           "cpu_busy": 30.5, "failed": [],
           "writes_done": dict(zip(hosts, done)), "retry": 2, "oos": 2,
           "info": {}, "before": before, "after": after}
    save_run(d, doc)


INCAST_HOSTS = ["s1", "s2", "s3", "s4"]


class Compare(unittest.TestCase):
    def folder(self, t, runs=1):
        params_txt(t, "compare", scenarios="cmp_incast,cmp_burst,cmp_converge",
                   algos="ldcp,none,pcn")
        for k in range(1, runs + 1):
            d = os.path.join(t, "run-%d" % k) if runs > 1 else t
            for name, fn in (("cmp_burst", burst_run),
                             ("cmp_converge", converge_run)):
                for a in ("pcn", "ldcp", "none"):
                    fn(os.path.join(d, name, a), a)
            inc = os.path.join(d, "cmp_incast")
            incast_run(os.path.join(inc, "pcn"), INCAST_HOSTS,
                       [(0, 3), (0, 3), (0, 3), (0, 3)])
            incast_run(os.path.join(inc, "ldcp"), INCAST_HOSTS,
                       [(0, 2), (0, 2), (0, 4), (0, 4)],
                       drops_wred=5, ecn_marked=4828)
            incast_run(os.path.join(inc, "none"), INCAST_HOSTS,
                       [(0, 3), (0, 3), None, (0, 3)],
                       done=[150, 150, 0, 150], pause_tx=489)

    def test_compare(self):
        with tempfile.TemporaryDirectory() as t:
            self.folder(t, runs=2)
            df = results(t)
            self.assertEqual(set(df.scenario),
                             {"cmp_incast", "cmp_burst", "cmp_converge"})
            inc = df[(df.scenario == "cmp_incast") & (df.run == 1)]
            ldcp = inc[inc.algo == "ldcp"].set_index("metric")["value"]
            none = inc[inc.algo == "none"].set_index("metric")["value"]
            # 150 x 64 KB in 2 s and in 4 s (from the sample before
            # the counter moves to the first at its final value)
            self.assertEqual(ldcp["fct.f1"], 2.0)
            self.assertEqual(ldcp["fct.f4"], 4.0)
            self.assertAlmostEqual(ldcp["flow_rate.f3"],
                                   150 * 65536 * 8 / 4.0 / 1e6, places=2)
            self.assertEqual(ldcp["completed"], 1.0)
            self.assertEqual(none["completed"], 0.75)
            self.assertEqual(ldcp["gbn_retries"], 2)
            self.assertEqual(ldcp["drops"], 5)
            self.assertEqual(ldcp["drops_wred"], 5)
            self.assertEqual(ldcp["ecn_marked"], 4828)
            self.assertEqual(none["pause_tx"], 489)
            self.assertEqual(ldcp["queue_mean_late"], 8.0)
            # a flow that never sent has no FCT, and so has the incast
            self.assertNotIn("fct.f3", none.index)
            self.assertNotIn("fct_max", none.index)
            self.assertEqual(none["flow_rate.f3"], 0)
            conv = df[df.scenario == "cmp_converge"].set_index(
                ["run", "algo", "metric"])["value"]
            self.assertAlmostEqual(conv[(2, "pcn", "rate_late.f2")],
                                   90 * 1024 * 8 / 0.25 / 1e6, places=3)
            self.assertEqual(conv[(2, "pcn", "converge_periods")], 2)
            self.assertNotIn((1, "ldcp", "converge"), conv.index)
            burst = df[df.scenario == "cmp_burst"].set_index(
                ["run", "algo", "metric"])["value"]
            self.assertEqual(burst[(1, "ldcp", "victim_keep")], 0.5)
            self.assertFalse(df["value"].isna().any())
            txt = summary.table([t])
            self.assertRegex(txt, r"cmp_incast: .*\n")
            self.assertRegex(txt, r"\ncompleted +1 +1 +0\.7500 +1\n")

    def test_incast_plots(self):
        with tempfile.TemporaryDirectory() as t:
            self.folder(t)
            analyze.analyze(t)
            files = analyze.plot(t)
            self.assertEqual(sorted(os.path.basename(f) for f in files),
                             ["cmp_burst-f0.png"] +
                             ["cmp_burst-throughput-%s.png" % a
                              for a in ("ldcp", "none", "pcn")] +
                             ["cmp_converge-queue.png"] +
                             ["cmp_converge-throughput-%s.png" % a
                              for a in ("ldcp", "none", "pcn")] +
                             ["cmp_incast-fct.png", "cmp_incast-queue.png"])
            self.assertTrue(all(os.path.dirname(f) == t for f in files))
            for f in files:
                with open(f, "rb") as fh:
                    self.assertEqual(fh.read(8), b"\x89PNG\r\n\x1a\n")
            # cmp_incast alone: the same plots in its own folder
            params_txt(os.path.join(t, "cmp_incast"), "cmp_incast",
                       algos="none,ldcp")
            files = analyze.plot(os.path.join(t, "cmp_incast"))
            self.assertEqual(sorted(os.path.basename(f) for f in files),
                             ["fct.png", "queue.png"])

    def test_incomplete_run_left_out(self):
        with tempfile.TemporaryDirectory() as t:
            self.folder(t, runs=2)
            os.remove(os.path.join(t, "run-2", "cmp_incast", "ldcp",
                                   "run.json"))
            os.remove(os.path.join(t, "run-2", "cmp_converge", "pcn",
                                   "run.json"))
            n = analyze.analyze(t)
            df = pd.read_csv(os.path.join(t, "results.csv"))
            # an experiment that stopped early is left out of its run,
            # the others of that run count
            self.assertEqual(set(df[df.run == 2].scenario), {"cmp_burst"})
            self.assertEqual(set(df[df.run == 1].scenario),
                             {"cmp_incast", "cmp_burst", "cmp_converge"})
            self.assertEqual(n, len(df))


class CmpBurstConverge(unittest.TestCase):
    """The experiments cmp_burst and cmp_converge on raw files small
    enough to work out by hand (burst_run, converge_run)."""

    def exp(self, name, **knobs):
        from dcbnet import experiment
        return experiment.get(name)(dict(algos="pcn,none", **knobs))

    def analyzed(self, name, t):
        """Experiment @name (pcn and none) and its rows of the runs in
        @t, each checked against the schema, as {(algo, metric): value}."""
        exp = self.exp(name)
        rows = exp.analyze(t)
        for r in rows:
            tidy.check_row(dict(zip(("metric", "value", "unit", "algo"),
                                    r), scenario=name, run=1))
        return exp, {(r[3], r[0]): r[1] for r in rows}

    def test_burst(self):
        with tempfile.TemporaryDirectory() as t:
            burst_run(os.path.join(t, "pcn"))
            burst_run(os.path.join(t, "none"), "none")
            exp, v = self.analyzed("cmp_burst", t)
            # 100 packets of 1024 B per 0.5 s: 1.6384 Mbit/s; F0 at half
            # of it during the 2 s burst of 3 x 30 packets per 0.5 s
            self.assertEqual(v[("pcn", "rate_pre.f0")], 1.64)
            self.assertEqual(v[("pcn", "rate_burst.f0")], 0.82)
            self.assertEqual(v[("pcn", "rate_post.f1")], 1.64)
            self.assertEqual(v[("pcn", "victim_keep")], 0.5)
            self.assertEqual(v[("pcn", "burst_time")], 2.0)
            self.assertEqual(v[("pcn", "burst_rate")], 1.47)
            self.assertEqual(v[("pcn", "recovery")], 0)
            self.assertEqual(v[("pcn", "recovery_share")], 0)
            self.assertEqual(v[("pcn", "jain_post")], 1)
            self.assertEqual(v[("pcn", "queue_mean")], 8.0)
            self.assertEqual(v[("pcn", "queue_p99.s0-s1")], 4.0)
            self.assertEqual(v[("pcn", "pause_tx")], 89)
            self.assertEqual(v[("pcn", "drops")], 0)
            self.assertEqual(v[("pcn", "gbn_retries")], 2)
            self.assertEqual(v[("none", "flows_failed")], 0)
            with open(os.path.join(t, "pcn", "flows.csv")) as f:
                lines = f.read().splitlines()
            self.assertEqual(lines[0], "t_s,F0,F1,burst")
            self.assertEqual(lines[9], "0.250,0.819,1.638,1.475")
            files = exp.plot(t)
            self.assertEqual(sorted(os.path.basename(f) for f in files),
                             ["f0.png", "throughput-none.png",
                              "throughput-pcn.png"])

    def test_converge(self):
        with tempfile.TemporaryDirectory() as t:
            converge_run(os.path.join(t, "pcn"))
            converge_run(os.path.join(t, "none"), "none")
            exp, v = self.analyzed("cmp_converge", t)
            for k, pkts in enumerate((100, 90, 110), 1):
                self.assertAlmostEqual(v[("pcn", "rate_late.f%d" % k)],
                                       pkts * 1024 * 8 / 0.25 / 1e6,
                                       places=3)
            self.assertAlmostEqual(v[("pcn", "total_rate")],
                                   300 * 1024 * 8 / 0.25 / 1e6, places=2)
            self.assertEqual(v[("pcn", "active")], 5.0)
            self.assertLess(v[("pcn", "jain")], 1)
            # from the 4 ms-later event (period 2 ms)
            self.assertEqual(v[("pcn", "converge")], 0.004)
            self.assertEqual(v[("pcn", "converge_periods")], 2)
            self.assertNotIn(("none", "converge"), v)
            # above 4 KB at t = 0.05, its peak 40 KB at 0.1, down to 2 KB
            # at 0.2
            self.assertEqual(v[("pcn", "queue_peak0")], 40)
            self.assertEqual(v[("pcn", "drain")], 0.15)
            self.assertEqual(v[("pcn", "pause_tx")], 0)
            self.assertEqual(v[("pcn", "drops")], 3)
            # a peak window of 0.01 s ends before the peak: 10 KB at 0.05
            v = {r[0]: r[1] for r in self.exp("cmp_converge", peak_s="0.01")
                 .analyze(t) if r[3] == "pcn"}
            self.assertEqual(v["queue_peak0"], 10)
            files = exp.plot(t)
            self.assertEqual(sorted(os.path.basename(f) for f in files),
                             ["queue.png", "throughput-none.png",
                              "throughput-pcn.png"])


class DcqcnBuffer(unittest.TestCase):
    def test_analyze(self):
        with tempfile.TemporaryDirectory() as t:
            params_txt(t, "dcqcn_buffer", configs="paper,pfc-only,no-pfc",
                       red="5kb:50kb:0.01")
            b, r = 2097152, 1152000
            for cfg, xoff, kmin, bound, peak, in_peak, pause in (
                    ("paper", "dynamic", 5120, 52531, 40960, 6144, 12),
                    ("pfc-only", "dynamic", None, 52531, 843776, 104448,
                     489),
                    ("no-pfc", "off", 5120, None, 125544, 70346, 0)):
                d = os.path.join(t, cfg)
                incast_run(d, INCAST_HOSTS,
                           [(0, 2), (0, 2), (0, 2.5), (0, 2)]
                           if cfg != "pfc-only" else
                           [(0, 3), (0, 3), None, (0, 3)],
                           pause_tx=pause)
                with open(os.path.join(d, "run.json")) as f:
                    doc = json.load(f)
                doc["info"] = {"pool_b": b, "reserved": r, "ports": 9,
                               "xoff": xoff, "kmin": kmin,
                               "kmin_bound": bound}
                doc["after"]["sw-eth0:pool.peak"] = peak
                doc["after"]["sw-eth4:pool.peak"] = peak
                doc["after"]["sw-eth0:in_peak:3"] = in_peak
                doc["after"]["sw-eth4:in_peak:3"] = 0
                save_run(d, doc)
            df = results(t)
            self.assertEqual(set(df.scenario), {"dcqcn_buffer"})
            v = df.set_index(["algo", "metric"])["value"]
            self.assertEqual(v[("pfc-only", "pause_tx")], 489)
            self.assertEqual(v[("paper", "pause_tx")], 12)
            self.assertAlmostEqual(v[("paper", "pause_vs_pfc_only")],
                                   12 / 489)
            self.assertEqual(v[("pfc-only", "pause_vs_pfc_only")], 1)
            self.assertEqual(v[("paper", "pool_peak")], 40)
            self.assertEqual(v[("paper", "kmin")], 5)
            # beta (B - R - s) / 8 at the pool's peak s
            self.assertAlmostEqual(v[("pfc-only", "xoff_low")],
                                   (b - r - 843776) // 1024 * 1024 / 1024,
                                   delta=1)
            self.assertEqual(v[("paper", "ingress_peak")], 6)
            # None and "off" (PFC off) are left out
            self.assertNotIn(("no-pfc", "kmin_bound"), v.index)
            self.assertNotIn(("no-pfc", "xoff_low"), v.index)
            self.assertNotIn(("pfc-only", "kmin"), v.index)
            # a flow with no rate is left out of the percentile; paper's
            # four rates: three equal and one lower
            fr = [v[("paper", "flow_rate.f%d" % k)] for k in (1, 2, 3, 4)]
            self.assertAlmostEqual(v[("paper", "flow_rate_p10")],
                                   min(fr) + 0.3 * (sorted(fr)[1] - min(fr)))


CAP_DCBMON_HEAD = "t_ms,netns,dev,band,deq_packets,backlog_bytes,pause_tx\n"


def pcn_flows_run(d, rates, pause_late=0, cap_dropped=0, **counters):
    """A pcn_flows run's raw files in @d: flows from 10.0.0.1.. (QP 17)
    sending 1000-byte IPv4 packets at @rates (packets per second, 0: a
    flow that never sent) for 10 s; dcbmon every 100 ms of the
    bottleneck (8 KB queued in the first half, 4 KB in the second) and
    two ingress ports (from-s1 pausing 10 times in the first half and
    @pause_late times in the second); @counters the switch's totals after
    the run (KEY or KEY:BAND: value)."""
    os.makedirs(d, exist_ok=True)
    pkts = []
    for i, r in enumerate(rates, 1):
        pkts += [(k / r, "10.0.0.%d" % i, 17, 960) for k in range(10 * r)]
    roce_pcap(os.path.join(d, "capture.pcap"), sorted(pkts))
    with open(os.path.join(d, "ports.tsv"), "w") as f:
        f.write("bottleneck\tns:sw-eth2\nfrom-s1\tns:sw-eth0\n"
                "from-s2\tns:sw-eth1\n")
    with open(os.path.join(d, "dcbmon.csv"), "w") as f:
        f.write(CAP_DCBMON_HEAD)
        for k in range(101):
            p1 = min(k, 10) + (pause_late if k > 60 else 0)
            f.write("%d,ns,sw-eth2,all,%d,%d,0\n%d,ns,sw-eth0,all,0,0,%d\n"
                    "%d,ns,sw-eth1,all,0,0,0\n"
                    % (k * 100, 100 * k, 8192 if k < 50 else 4096,
                       k * 100, p1, k * 100))
    ports = ("sw-eth0", "sw-eth1", "sw-eth2")
    after = pfc_ports(ports)
    for k, v in counters.items():
        after["sw-eth0:" + k] = v
    doc = {"setting": os.path.basename(d), "cpu_busy": 40.5, "failed": [],
           "retry": 0, "capture_dropped": cap_dropped,
           "before": pfc_ports(ports), "after": after}
    save_run(d, doc)


class PcnFlows(unittest.TestCase):
    def test_analyze_and_plot(self):
        from dcbnet.experiments.pcn_flows import PcnFlows
        with tempfile.TemporaryDirectory() as t:
            params_txt(t, "pcn_flows", algos="pcn,dcqcn", flows="2,4",
                       hosts="2", window_s="1")
            pcn_flows_run(os.path.join(t, "pcn-2"), [100, 100],
                          **{"pause_tx:3": 12})
            pcn_flows_run(os.path.join(t, "pcn-4"), [100, 100, 100, 50],
                          pause_late=3, cap_dropped=None)
            pcn_flows_run(os.path.join(t, "dcqcn-2"), [100, 0],
                          drops_wred=2, drops_headroom=1)
            pcn_flows_run(os.path.join(t, "dcqcn-4"), [100] * 4)
            df = results(t)
            self.assertEqual(set(df.scenario), {"pcn_flows"})
            v = df.set_index(["algo", "metric"])["value"]
            self.assertAlmostEqual(v[("pcn", "jain.n2")], 1.0)
            # three flows at 0.8 Mbit/s of IPv4 bytes, one at 0.4
            self.assertAlmostEqual(v[("pcn", "jain.n4")],
                                   2.8 ** 2 / 4 / (3 * 0.64 + 0.16),
                                   places=2)
            self.assertAlmostEqual(v[("pcn", "low_share.n4")], 0.4 / 0.7,
                                   places=2)
            self.assertAlmostEqual(v[("pcn", "ip_rate_late.n4")], 2.8,
                                   delta=0.05)
            self.assertEqual(v[("pcn", "flows_seen.n4")], 4)
            # a flow that never sent counts as 0, and is not seen
            self.assertEqual(v[("dcqcn", "flows_seen.n2")], 1)
            self.assertEqual(v[("dcqcn", "jain.n2")], 0.5)
            self.assertEqual(v[("dcqcn", "low_share.n2")], 0)
            self.assertEqual(v[("pcn", "pause_tx.n2")], 12)
            self.assertEqual(v[("pcn", "pause_late.n2")], 0)
            self.assertEqual(v[("pcn", "pause_late.n4")], 3)
            self.assertEqual(v[("dcqcn", "drops.n2")], 3)
            self.assertEqual(v[("pcn", "queue_mean_late.n2")], 4.0)
            self.assertGreater(v[("pcn", "queue_mean.n2")], 4.0)
            self.assertEqual(v[("pcn", "procs_failed.n2")], 0)
            self.assertEqual(v[("pcn", "capture_dropped.n2")], 0)
            self.assertNotIn(("pcn", "capture_dropped.n4"), v.index)
            with open(os.path.join(t, "pcn-4", "rates.tsv")) as f:
                self.assertEqual(len(f.read().splitlines()), 5)
            files = analyze.plot(t)
            self.assertEqual([os.path.basename(f) for f in files],
                             ["flows.png"])
            self.assertGreater(os.path.getsize(files[0]), 1000)
        # knobs refused before any run
        with self.assertRaises(ValueError):
            PcnFlows({"flows": "4,6", "hosts": "4"}).check()
        with self.assertRaises(ValueError):
            PcnFlows({"pcn_w_min": "half"}).check()
        e = PcnFlows({"pcn_w_min": "paper"})
        self.assertEqual(e.w_min(64), "102")
        cc = dict(e.setting("pcn-64")["cc"])
        self.assertEqual(cc["pcn/period_us"], "auto")
        self.assertEqual(cc["pcn/w_min"], "102")
        self.assertIn("xoff 64kb", e.setting("pcn-64")["switch"])


def ldcp_faststart_run(d, small, wred, cap_dropped=0):
    """An ldcp_faststart setting's raw files in @d: the long flow from
    10.0.0.9 every 10 ms for 4 s, small flows from 10.0.0.1 (QP 20, 21,
    ...) each sending 960-byte payloads every 10 ms over its (start, end)
    of @small; @wred WRED drops before the incast's start and after."""
    os.makedirs(d, exist_ok=True)
    pkts = [(k * 0.01, "10.0.0.9", 17, 960) for k in range(400)]
    for i, (a, b) in enumerate(small):
        k = 0
        while a + k * 0.01 <= b + 1e-9:
            pkts.append((a + k * 0.01 + 0.001, "10.0.0.1", 20 + i, 960))
            k += 1
    roce_pcap(os.path.join(d, "capture.pcap"), sorted(pkts))
    ports = ("sw-eth0", "sw-eth1")
    before = pfc_ports(ports)
    mid = pfc_ports(ports, **{"sw-eth1:drops_wred": wred[0]})
    after = pfc_ports(ports, **{"sw-eth1:drops_wred": sum(wred)})
    doc = {"setting": os.path.basename(d), "long_src": "10.0.0.9",
           "cpu_busy": 30.0, "failed": [], "retry": 5,
           "capture_dropped": cap_dropped, "before": before, "mid": mid,
           "after": after}
    save_run(d, doc)


class LdcpFaststart(unittest.TestCase):
    def test_analyze_and_plot(self):
        from dcbnet.experiments.ldcp_faststart import LdcpFaststart
        with tempfile.TemporaryDirectory() as t:
            params_txt(t, "ldcp_faststart", settings="fs,nofs", hosts="4",
                       qps="8")
            ldcp_faststart_run(os.path.join(t, "fs"),
                               [(2.0, 2.1), (2.0, 2.2), (2.05, 2.5)],
                               (7, 40))
            ldcp_faststart_run(os.path.join(t, "nofs"),
                               [(2.0, 2.3), (2.0, 2.3)], (0, 0),
                               cap_dropped=None)
            df = results(t)
            v = df.set_index(["algo", "metric"])["value"]
            self.assertEqual(v[("fs", "flows_seen")], 3)
            self.assertAlmostEqual(v[("fs", "incast_time")], 0.5)
            self.assertAlmostEqual(v[("fs", "fct_median")], 0.2)
            self.assertAlmostEqual(v[("fs", "fct_p90")], 0.45)
            self.assertAlmostEqual(v[("fs", "fct_max")], 0.45)
            self.assertAlmostEqual(v[("nofs", "fct_median")], 0.3)
            # the long flow's 50 packets of 1000 IPv4 bytes in 0.5 s
            self.assertAlmostEqual(v[("fs", "long_rate_incast")], 0.8,
                                   delta=0.02)
            # counted from the incast's start
            self.assertEqual(v[("fs", "drops_wred")], 40)
            self.assertEqual(v[("nofs", "drops_wred")], 0)
            self.assertEqual(v[("fs", "drops_tail")], 0)
            self.assertEqual(v[("fs", "gbn_retries")], 5)
            self.assertEqual(v[("fs", "capture_dropped")], 0)
            self.assertNotIn(("nofs", "capture_dropped"), v.index)
            with open(os.path.join(t, "fs", "fct.tsv")) as f:
                self.assertEqual(f.read().splitlines()[1:2],
                                 ["10.0.0.1:20\t0.1000"])
            files = analyze.plot(t)
            self.assertEqual([os.path.basename(f) for f in files],
                             ["fct.png"])
            with open(files[0], "rb") as fh:
                self.assertEqual(fh.read(8), b"\x89PNG\r\n\x1a\n")
        with self.assertRaises(ValueError):
            LdcpFaststart({"marking": "wred"}).check()
        with self.assertRaises(ValueError):
            LdcpFaststart({"settings": "fs,slow"}).check()
        s = LdcpFaststart({"iw": "4"}).setting("fs")
        self.assertEqual(s["cc"], [("ldcp/init_window_pkts", "4")])
        self.assertIn("pfc off ecn step k 8kb", s["switch"])


class PcnFig5(unittest.TestCase):
    def test_analyze_and_plot(self):
        with tempfile.TemporaryDirectory() as t:
            params_txt(t, "pcn_fig5", rate="20mbit", f0_share="0.5",
                       f1_shares="0.5,0.125")
            with open(os.path.join(t, "steps.tsv"), "w") as f:
                f.write("f1_send_mbps\tf1_rx_mbps\tf0_send_mbps\t"
                        "f0_rx_mbps\tburst_rx_mbps\tpause_tx\t"
                        "pause_per_s\ts0_held\n"
                        "10\t4.9\t10\t6.1\t14.2\t120\t24.00\t0.3512\n"
                        "2.5\t2.5\t10\t9.9\t17.1\t0\t0.00\t0.0000\n")
            df = results(t)
            v = df.set_index("metric")["value"]
            self.assertEqual(v["goodput.F0@f1=10"], 6.1)
            self.assertEqual(v["goodput.F0@f1=2.5"], 9.9)
            self.assertEqual(v["pause_rate.s1-s0@f1=10"], 24)
            self.assertEqual(v["paused_share.s0-s1@f1=2.5"], 0)
            self.assertEqual(set(df.algo), {"line-rate"})
            files = analyze.plot(t)
            self.assertEqual(sorted(os.path.basename(f) for f in files),
                             ["pause.png", "rates.png"])


class ParkingLot(unittest.TestCase):
    def test_analyze(self):
        with tempfile.TemporaryDirectory() as t:
            params_txt(t, "parking_lot", rate="20", algos="pcn")
            d = os.path.join(t, "pcn")
            os.makedirs(d)
            # f1 12, f2 6, f3 12 Mbit/s of 1024-byte packets for 8 s
            with open(os.path.join(d, "samples.txt"), "w") as f:
                for k in range(33):
                    x = [int(r * 1e6 / 8192 * k / 4) for r in (12, 6, 12)]
                    f.write("%.2f %d %d %d\n" % ((100 + k / 4,) + tuple(x)))
            with open(os.path.join(d, "dcbmon.csv"), "w") as f:
                f.write(DCBMON_HEAD)
                for k in range(10):
                    f.write("%d,ns1,a,all,0,0,%d,0,8192,0,0,0,0,0,0,0\n"
                            % (50 * k, 10 * k))
            snap = pfc_ports(["a", "b"])
            after = dict(snap, **{"a:pause_tx:3": 3, "b:drops_headroom": 1})
            with open(os.path.join(d, "ports.tsv"), "w") as f:
                f.write("A\tns1:a\nB\tns2:b\n")
            save_run(d, {"cpu_busy": 20, "failed": 0,
                         "before": {"sw1": snap, "sw2": snap},
                         "after": {"sw1": after, "sw2": snap}})
            df = results(t)
            v = df.set_index("metric")["value"]
            self.assertAlmostEqual(v["rate_late.f2"], 6, places=1)
            self.assertAlmostEqual(v["line_share.f2"], 0.3, places=2)
            self.assertAlmostEqual(v["utilisation.B"], 0.9, places=2)
            self.assertEqual(v["queue_mean.A"], 8)
            self.assertNotIn("queue_mean.B", v.index)
            self.assertEqual(v["pause_tx"], 3)
            self.assertEqual(v["drops"], 1)
            self.assertEqual(v["headroom_drops"], 1)
            self.assertEqual(set(df.algo), {"pcn"})


DCBMON_HEAD = ("t_ms,netns,dev,band,enq_packets,enq_bytes,deq_packets,"
               "deq_bytes,backlog_bytes,backlog_packets,backlog_peak,"
               "ecn_marked,drops_tail,drops_wred,pool_used,t_unix_ms\n")


class Incast(unittest.TestCase):
    def folder(self, t):
        params_txt(t, "incast", senders="2", rate="20mbit", overhead="24",
                   pkt="1000", ecn="red", kmin="20kb", kmax="100kb",
                   window_ms="100", qdisc="dcb")
        with open(os.path.join(t, "senders.csv"), "w") as f:
            f.write("sender,offered_bps,rx_bps,loss_pct,packets,"
                    "lost_packets\nh1,15000000,9000000,40,1000,600\n"
                    "h2,15000000,9000000,40,1000,600\n")
        with open(os.path.join(t, "dcbmon.csv"), "w") as f:
            f.write(DCBMON_HEAD)
            # idle, then 1 s backlogged: 2 600 000 B and 2 000 packets
            # dequeued (20.8 + 0.384 Mbit on the wire with 24 B each),
            # queue 10, 30, 150 KB; then idle again
            for ms, enq, deq, dpk, q, mk in ((0, 0, 0, 0, 0, 0),
                                             (100, 100, 0, 0, 10240, 0),
                                             (600, 1100, 1300000, 1000,
                                              30720, 50),
                                             (1100, 2100, 2600000, 2000,
                                              153600, 150),
                                             (1200, 2100, 2730000, 2100,
                                              0, 150)):
                f.write("%d,-,p,all,%d,0,%d,%d,%d,0,0,%d,3,1,0,1\n"
                        % (ms, enq, dpk, deq, q, mk))
                f.write("%d,-,p,0,%d,0,%d,%d,%d,0,0,%d,3,1,0,1\n"
                        % (ms, enq, dpk, deq, q, mk))
        for i in (1, 2):
            with open(os.path.join(t, "throughput-h%d.csv" % i), "w") as f:
                f.write("t_s,rx_mbps\n0.5,9\n1.0,9\n")

    def test_analyze_and_plot(self):
        with tempfile.TemporaryDirectory() as t:
            self.folder(t)
            df = results(t)
            v = df.set_index("metric")["value"]
            self.assertEqual(v["goodput.h1"], 9)
            self.assertEqual(v["goodput.all"], 18)
            self.assertEqual(v["jain"], 1)
            self.assertAlmostEqual(v["utilisation"], 18 / (20 * 1000 / 1066))
            self.assertAlmostEqual(v["wire_rate"], (2600000 + 24 * 2000) * 8
                                   / 1.0 / 1e6)
            self.assertEqual(v["busy"], 1)
            self.assertAlmostEqual(v["queue_mean"], (10 + 30 + 150) / 3)
            self.assertEqual(v["queue_max"], 150)
            self.assertAlmostEqual(v["above_kmax"], 1 / 3)
            self.assertEqual(v["ecn_marked"], 150)
            self.assertEqual(v["drops_tail"], 3)
            self.assertAlmostEqual(v["marked_share"], 150 / 2100)
            self.assertEqual(set(df.algo), {"line-rate"})
            files = analyze.plot(t)
            self.assertEqual(sorted(os.path.basename(f) for f in files),
                             ["marked.png", "queue.png", "throughput.png"])


class IncastRun(unittest.TestCase):
    """The incast experiment's pieces that run in the guest."""

    def test_qdisc_args(self):
        from dcbnet.experiments import incast

        p = {"qdisc": "dcb", "rate": "20mbit", "overhead": "24",
             "limit": "300kb", "burst": "64kb", "ecn": "red",
             "kmin": "20kb", "kmax": "100kb", "pmax": "0.2"}
        # the data band's limit, the port 64 KB above it, DSCP 0 (iperf3's
        # not-ECT stream-opening datagram and its control) in band 7
        self.assertEqual(incast.qdisc_args(p),
                         "dcb rate 20mbit overhead 24 limit 372736b burst "
                         "64kb dscp-map 0:7 ecn red kmin 20kb kmax 100kb "
                         "pmax 0.2 band 3 limit 300kb")
        p["limit"] = ""
        self.assertEqual(incast.qdisc_args(p),
                         "dcb rate 20mbit overhead 24 burst 64kb dscp-map "
                         "0:7 ecn red kmin 20kb kmax 100kb pmax 0.2")
        p["ecn"] = "pie"
        with self.assertRaises(ValueError):
            incast.qdisc_args(p)

    def test_iperf_results(self):
        from dcbnet.experiments import incast

        with tempfile.TemporaryDirectory() as t:
            def put(name, text):
                with open(os.path.join(t, name), "w") as f:
                    f.write(text)
            put("iperf3-server-h1.json", json.dumps({
                "intervals": [
                    {"sum": {"start": 0, "end": 0.5, "seconds": 0.5,
                             "bits_per_second": 6000000}},
                    {"sum": {"start": 0.5, "end": 1.0, "seconds": 0.5,
                             "bits_per_second": 4000000}}],
                "end": {"sum_received": {
                    "bits_per_second": 5000000, "lost_percent": 1.5,
                    "packets": 1500, "lost_packets": 22}}}))
            put("iperf3-client-h1.json",
                '{"end": {"sum": {"bits_per_second": 7500000}}}')
            # h2: the stream never opened
            put("iperf3-server-h2.json",
                '{"start": {"connected": []}, "intervals": [], "end": {}}')
            put("iperf3-client-h2.json",
                '{"end": {}, "error": "unable to read from stream socket"}')
            # h3: the server killed by its timeout mid-report
            put("iperf3-server-h3.json", '{"start": {"connected": [')
            put("iperf3-client-h3.json", "{}")
            put("starts.txt", "clients_start_ms 1000\n")
            warnings = []
            incast.iperf_results(t, 3, warnings.append)
            with open(os.path.join(t, "senders.csv")) as f:
                lines = f.read().splitlines()
            self.assertEqual(lines[1], "h1,7500000,5000000,1.5,1500,22")
            self.assertEqual(lines[2:], ["h2,0,0,100,0,0", "h3,0,0,100,0,0"])
            # on dcbmon's time base
            with open(os.path.join(t, "throughput-h1.csv")) as f:
                self.assertEqual(f.read(), "t_s,rx_mbps\n1.5,6\n2,4\n")
            self.assertTrue(warnings[0].endswith(
                "client: unable to read from stream socket"))
            self.assertTrue(warnings[1].endswith("incomplete JSON, 25 bytes"))


class DcqcnIncast(unittest.TestCase):
    def test_analyze(self):
        with tempfile.TemporaryDirectory() as t:
            params_txt(t, "dcqcn_incast", incasts="4")
            for algo, mbps, pause, marks in (
                    ("dcqcn", (23, 24, 22, 25), 3, 410),
                    ("none", (41, 19, 1, 20), 488, 0)):
                d = os.path.join(t, "4-" + algo)
                os.makedirs(d)
                with open(os.path.join(d, "samples.txt"), "w") as f:
                    for k in range(33):
                        f.write("%.1f %s\n" % (100 + k / 2, " ".join(
                            str(int(x * 1e6 / 8192 * k / 2))
                            for x in mbps)))
                snap = pfc_ports(["p1", "p4"], **{"p1:ecn_marked": 0,
                                                  "p4:ecn_marked": 0})
                after = dict(snap, **{"p1:pause_tx:3": pause,
                                      "p4:ecn_marked": marks,
                                      "p1:drops_wred": 2})
                hosts = ["s1", "s2", "s3", "s4"]
                save_run(d, {"run": "4-" + algo, "algo": algo,
                             "hosts": hosts, "port": "p4",
                             "devs": {h: "rxe_%s-eth0" % h
                                      for h in hosts},
                             "cpu_busy": 30, "failed": [],
                             "before": snap, "after": after})
            with open(os.path.join(t, "4-dcqcn", "trace.txt"), "w") as f:
                f.write(
                    "  ib-1 [0] ..s1. 10.000100: rxe_cc_dcqcn: dev=rxe_s1-eth0"
                    " qpn=17 rc_kbps=100000 rt_kbps=100000 alpha=1048576 t=0"
                    " bc=0 ev=cnp\n"
                    "  ib-1 [1] ..s1. 10.000100: rxe_cc_dcqcn: dev=rxe_s1-eth0"
                    " qpn=17 rc_kbps=90000 rt_kbps=100000 alpha=524288 t=1"
                    " bc=0 ev=timer\n")
            with open(os.path.join(t, "4-dcqcn", "bw-s1.cli"), "w") as f:
                f.write(" local address: LID 0000 QPN 0x0011 PSN 0x1\n")
            df = results(t)
            self.assertEqual(set(df.scenario), {"dcqcn_incast 4:1"})
            v = df.set_index(["algo", "metric"])["value"]
            self.assertAlmostEqual(v[("dcqcn", "flow_rate.f4")], 25,
                                   places=0)
            self.assertEqual(v[("none", "pause_tx")], 488)
            self.assertEqual(v[("dcqcn", "ecn_marked")], 410)
            self.assertEqual(v[("dcqcn", "drops_wred")], 2)
            self.assertAlmostEqual(v[("none", "flow_rate.f3")], 1,
                                   places=1)
            # the trace as CSV, the CNP event last at an equal time stamp
            with open(os.path.join(t, "trace-4.csv")) as f:
                self.assertEqual(f.read().splitlines(), [
                    "0.000000,17,90.000,100.000,0.50000,timer,rxe_s1-eth0",
                    "0.000000,17,100.000,100.000,1.00000,cnp,rxe_s1-eth0"])
            with open(os.path.join(t, "trace-4.qps")) as f:
                self.assertEqual(f.read(), "s1 17 rxe_s1-eth0\n")
            self.assertRegex(summary.table([t]), r"dcqcn_incast 4:1: .*\n")


class CmpMetrics(unittest.TestCase):
    """scripts/lib/cmp.sh's metrics (cmpmetrics), on inputs small enough
    to work out by hand."""

    DCBMON_HDR = "t_ms,netns,dev,band,deq_packets,backlog_bytes,t_unix_ms\n"

    @staticmethod
    def write(d, name, text):
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_burst(self):
        # 0.5 s samples; F0 and F1 send 100 packets an interval from the
        # first; the bursters from t = 4 to 6, when F0 sends 50
        rows, c = [], [0, 0, 0, 0]
        for i in range(21):
            rows.append((i * 0.5, list(c)))
            c[0] += 50 if 8 <= i < 12 else 100
            c[1] += 100
            if 8 <= i < 12:
                c[2] += 30
                c[3] += 30
        with tempfile.TemporaryDirectory() as t:
            f = os.path.join(t, "flows.csv")
            m = dict(cmpmetrics.burst(rows, f))
            with open(f) as fh:
                lines = fh.read().splitlines()
        # "pre": 1 s after both started (t = 1) to the burst (t = 4)
        self.assertEqual((m["pre_s"], m["burst_s"], m["post_s"]),
                         ("3.00", "2.00", "4.00"))
        # 100 packets of 1024 B per 0.5 s = 1.6384 Mbit/s
        self.assertEqual((m["f0_pre"], m["f1_pre"], m["fair"]),
                         ("1.64", "1.64", "1.64"))
        self.assertEqual((m["f0_burst"], m["f0_keep"]), ("0.82", "0.500"))
        self.assertEqual(m["burst_mbps"], "0.98")
        self.assertEqual((m["jain_post"], m["recovery_s"],
                          m["recovery_share_s"]), ("1.0000", "0.00",
                                                   "0.00"))
        self.assertEqual(lines[0], "t_s,F0,F1,burst")
        self.assertEqual(lines[9], "0.250,0.819,1.638,0.983")
        self.assertEqual(len(lines), 21)
        self.assertEqual(cmpmetrics.burst(rows[:3]),
                         [("error", "few_samples")])
        flat = [(r[0], r[1][:2] + [0, 0]) for r in rows]
        self.assertEqual(cmpmetrics.burst(flat), [("error", "no_burst")])
        # a burst 1.5 s after both started: "pre" skips their first 1 s
        # but keeps 0.5 s
        rows, c = [], [0, 0, 0, 0]
        for i in range(12):
            rows.append((i * 0.5, list(c)))
            c[0] += 200 if i < 2 else 100
            c[1] += 100
            if 3 <= i < 5:
                c[2] += 30
        m = dict(cmpmetrics.burst(rows))
        self.assertEqual((m["pre_s"], m["f0_pre"]), ("0.50", "1.64"))

    def test_converge(self):
        ev = ("  ib_write_bw-7  [001] d.s1.  %.6f: rxe_cc_pcn_rate: "
              "dev=%s qpn=17 rate_kbps=%d\n")
        with tempfile.TemporaryDirectory() as t:
            tr = self.write(t, "trace", "# tracer: nop\n"
                            + ev % (1.0, "rxe_a", 8000)
                            + ev % (1.05, "rxe_other", 1)
                            + "  x-1 [000] 1.100000: rxe_cc_dcqcn: "
                            "dev=rxe_b rate_kbps=1\n"
                            + ev % (1.2, "rxe_b", 2500)
                            + ev % (1.3, "rxe_a", 9000))
            m = dict(cmpmetrics.converge(tr, ["rxe_a", "rxe_b"], 10000,
                                         "rxe_cc_pcn_rate", "rate_kbps",
                                         lead_us=100000, period_us=20000))
            # the last flow started 0.1 s before its first event (1.1 s);
            # at 1.2 s the rates sum to 8000 + 2500 <= 1.1 x 10000
            self.assertEqual(m, {"converge_s": "0.100",
                                 "converge_periods": "5.0",
                                 "agg_at_converge_mbps": "10.50",
                                 "rate_events": 3})
            m = dict(cmpmetrics.converge(tr, ["rxe_a", "rxe_c"], 10000,
                                         "rxe_cc_pcn_rate", "rate_kbps"))
            self.assertEqual(m, {"converge_s": "NaN",
                                 "converge_periods": "NaN",
                                 "rate_events": 2})

    def test_queue_and_drain(self):
        q = [0, 0, 5000, 9000, 12000, 7000, 3000, 2000, 1000, 0, 0, 0]
        deq = [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 8]
        rows = "".join("%d,ns,eth0,all,%d,%d,0\n%d,ns,eth0,3,%d,1,0\n"
                       "%d,ns,eth1,all,0,99999,0\n"
                       % (100 * i, d, b, 100 * i, d, 100 * i)
                       for i, (b, d) in enumerate(zip(q, deq)))
        with tempfile.TemporaryDirectory() as t:
            path = self.write(t, "dcbmon.csv", self.DCBMON_HDR + rows)
            pr = cmpmetrics.port_rows(path, "ns:eth0")
        self.assertEqual(len(pr), 12)
        # from the first sample that dequeued (t = 0.2) to the first
        # after the last dequeue (t = 0.9): 8 samples; p99 and peak 12000 B
        mean, p99, peak = cmpmetrics.queue(pr)
        self.assertAlmostEqual(mean, 39000 / 8 / 1024)
        self.assertEqual((p99, peak), (12000 / 1024, 12000 / 1024))
        # above 4 KB from t = 0.2, peak at 0.4, at or below 4 KB at 0.6;
        # the 0.3 s mean is first below 4 KB from t = 0.5 (7000, 3000,
        # 2000)
        self.assertEqual(cmpmetrics.drain(pr, 4096, win=0.3),
                         [("drain_s", "0.40"), ("peak0_kb", "11.7"),
                          ("settle_s", "0.30")])
        self.assertEqual(cmpmetrics.drain(pr[:2], 4096),
                         [("drain_s", "0"), ("settle_s", "0"),
                          ("peak0_kb", "0")])
        self.assertIsNone(cmpmetrics.queue(pr[:1]))

    def test_late(self):
        # the bottleneck dequeues from t = 0.1 to 0.9 (span 0.1-1.0, half
        # at 0.55); swp1 sends 3 PAUSE frames before the half, 2 after;
        # swp2 1 after; swp9 (not asked for) 7
        hdr = "t_ms,netns,dev,band,deq_packets,backlog_bytes,pause_tx\n"
        q = [0, 1024, 2048, 3072, 4096, 5120, 6144, 7168, 8192, 9216, 0, 0]
        deq = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10]
        p1 = [0, 1, 2, 3, 3, 3, 4, 4, 5, 5, 5, 9]
        p2 = [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1]
        rows = "".join("%d,ns,bn,all,%d,%d,0\n%d,ns,swp1,all,0,0,%d\n"
                       "%d,ns,swp2,all,0,0,%d\n%d,ns,swp2,3,0,0,50\n"
                       "%d,ns,swp9,all,0,0,%d\n"
                       % (100 * i, d, b, 100 * i, a, 100 * i, c, 100 * i,
                          100 * i, 7 * i)
                       for i, (b, d, a, c) in enumerate(zip(q, deq, p1, p2)))
        with tempfile.TemporaryDirectory() as t:
            path = self.write(t, "dcbmon.csv", hdr + rows)
            m = dict(cmpmetrics.late(path, "ns:bn", ["ns:swp1", "ns:swp2"]))
            # queue from t = 0.6 to 1.0: 6, 7, 8, 9 and 0 KB
            self.assertEqual(m, {"queue_late_mean_kb": "6.0",
                                 "queue_late_p99_kb": "9.0",
                                 "pause_late": 3})
            self.assertEqual(dict(cmpmetrics.late(path, "ns:bn"))[
                "pause_late"], 0)
            self.assertRaises(ValueError, cmpmetrics.late, path, "ns:bn",
                              ["ns:swp3"])
            self.assertEqual(dict(cmpmetrics.late(path, "ns:none"))[
                "queue_late_mean_kb"], "NaN")

    def test_shares(self):
        # s1 sends from the sample at t = 0.5 to 5.0, s2 from 1.5 to 4.5
        # at half s1's rate: both ran from 1.5 to 4.5, the second half
        # from 3.0
        rows, c = [], [0, 0]
        for i in range(11):
            rows.append((100 + i * 0.5, list(c)))
            if 1 <= i < 10:
                c[0] += 200
            if 3 <= i < 9:
                c[1] += 100
        self.assertEqual(cmpmetrics.shares(rows),
                         "3.00 4.50 0.9000 3.277 1.638")
        self.assertEqual(cmpmetrics.shares(rows[:6]), "NaN NaN NaN")
        self.assertEqual(cmpmetrics.shares([(0, [0, 0]), (1, [1, 0])]),
                         "NaN NaN NaN")

    def test_jain_text(self):
        self.assertEqual(cmpmetrics.jain_text([1, 1, 2, 0]), "0.6667")
        self.assertEqual(cmpmetrics.jain_text([0, 0]), "0.0000")
        self.assertEqual(cmpmetrics.jain_text(["1.5", "NaN"]), "NaN")

    def test_flows_and_incast(self):
        # s1 sends 2 s (t = 1..3), s2 1 s (t = 2..3), 0.5 s samples
        rows = []
        for i in range(9):
            t = i * 0.5
            rows.append((10 + t, [max(0, min(t, 3) - 1) * 200,
                                  max(0, min(t, 3) - 2) * 200]))
        with tempfile.TemporaryDirectory() as t:
            f = os.path.join(t, "flows.csv")
            m = dict(cmpmetrics.flows(rows, 2, f))
            with open(f) as fh:
                lines = fh.read().splitlines()
            # 600 packets of 1024 B in 2 s
            self.assertEqual(m, {"total_mbps": "2.46", "active_s": "2.00"})
            self.assertEqual(lines[:4], ["t_s,s1,s2", "-0.750,0.000,0.000",
                                         "-0.250,0.000,0.000",
                                         "0.250,1.638,0.000"])
            mon = self.write(t, "dcbmon.csv", self.DCBMON_HDR + "".join(
                "%d,ns,eth0,all,0,%d,0\n" % (500 * i, 1024 * i)
                for i in range(10)))
            m = dict(cmpmetrics.incast(
                rows, mon, 10, ["s1", "s2"], 1024, 200,
                os.path.join(t, "flows.tsv"), os.path.join(t, "q.csv")))
            with open(os.path.join(t, "flows.tsv")) as fh:
                flows = fh.read().splitlines()
        self.assertEqual(flows[1:], ["s1\t1.00\t3.00\t2.00\t0.819\t400",
                                     "s2\t2.00\t3.00\t1.00\t1.638\t200"])
        # the queue from t = 1 to 3: 2, 3, 4, 5, 6 KB; second half 4-6
        self.assertEqual((m["q_mean_kb"], m["q_p50_kb"], m["q_max_kb"],
                          m["q_n"]), ("4.00", "4.00", "6.00", 5))
        self.assertEqual((m["qh_mean_kb"], m["qh_n"]), ("5.00", 3))
        self.assertEqual((m["span_s"], m["fct_max_s"], m["jain"]),
                         ("2.00", "2.00", "0.9000"))
        self.assertEqual((m["flows_mbps"], m["fcts"]),
                         ("0.82/1.64", "2.00/1.00"))
        # second half (t = 2 to 3): 200 packets each
        self.assertEqual(m["jain_late"], "1.0000")

    def test_incast_jain_late(self):
        # s1 starts first (t = 0) and ends at 1 s, s2 and s3 send from
        # 0.5 to 4 s at the same rate: over their FCTs s1 looks 3.5 times
        # faster, over the second half (t = 2 to 4) s1 has ended and
        # s2, s3 are equal; a flow that never sent counts as 0
        rows = []
        for i in range(11):
            t = i * 0.5
            c = max(0, min(t, 4) - 0.5) * 100
            rows.append((t, [min(t, 1) * 200, c, c, 0]))
        with tempfile.TemporaryDirectory() as t:
            mon = self.write(t, "dcbmon.csv", self.DCBMON_HDR)
            args = (mon, 0, ["s1", "s2", "s3", "s4"], 1024, 200,
                    os.path.join(t, "flows.tsv"), os.path.join(t, "q.csv"))
            m3 = dict(cmpmetrics.incast([(r[0], r[1][:3]) for r in rows],
                                        *args))
            m4 = dict(cmpmetrics.incast(rows, *args))
            none = dict(cmpmetrics.incast([(r[0], [0, 0]) for r in rows],
                                          *args))
        self.assertEqual(m3["jain"], "0.7076")
        self.assertEqual(m3["jain_late"], "1.0000")
        self.assertEqual(m4["jain_late"], "0.6667")
        self.assertEqual(none["jain_late"], "NaN")


class Timeline(unittest.TestCase):
    TRACE = ("0.000000,17,10.000,10.000,1.00000,first_cnp,rxe_s1\n"
             "0.000000,17,8.000,8.000,0.50000,inc,rxe_s2\n"
             "0.010000,17,5.000,10.000,1.00000,cnp,rxe_s1\n"
             "0.050000,18,4.000,9.000,0.25000,cnp,rxe_s2\n"
             "0.090000,17,7.500,10.000,0.93750,inc,rxe_s1\n")

    def test_read(self):
        with tempfile.TemporaryDirectory() as t:
            trace = os.path.join(t, "trace.csv")
            qps = os.path.join(t, "trace.qps")
            with open(trace, "w") as f:
                f.write(self.TRACE)
            with open(qps, "w") as f:
                f.write("s1 17 rxe_s1\ns2 18\ns3 19 rxe_s3\n")
            q = timeline.read_qps(qps)
            self.assertEqual(q, [("s1", 17, "rxe_s1"), ("s2", 18, None),
                                 ("s3", 19, "rxe_s3")])
            tr = timeline.read_trace(trace, q)
            # the device tells s1's QP 17 from s2's QP 17
            self.assertEqual(tr["s1"][0], [0.0, 0.01, 0.09])
            self.assertEqual(tr["s1"][1], [10.0, 5.0, 7.5])
            self.assertEqual(tr["s2"], ([0.05], [4.0], [9.0], [0.25]))
            self.assertEqual(tr["s3"], ([], [], [], []))
            png = os.path.join(t, "timeline.png")
            self.assertEqual(timeline.plot(trace, q, png, "t", 2.5), png)
            self.assertGreater(os.path.getsize(png), 1000)
            self.assertIsNone(timeline.plot(trace, [("x", 99, None)],
                                            os.path.join(t, "none.png"),
                                            "t"))

    def test_dcqcn_incast_plot(self):
        from dcbnet.experiments.dcqcn_incast import DcqcnIncast
        with tempfile.TemporaryDirectory() as t:
            with open(os.path.join(t, "trace-4.csv"), "w") as f:
                f.write(self.TRACE)
            with open(os.path.join(t, "trace-4.qps"), "w") as f:
                f.write("s1 17 rxe_s1\ns2 18 rxe_s2\n")
            out = DcqcnIncast({"line": "10", "duration": "12"}).plot(t)
            self.assertEqual(out, [os.path.join(t, "timeline-4.png")])

    def test_bad_input(self):
        with tempfile.TemporaryDirectory() as t:
            bad = os.path.join(t, "bad")
            with open(bad, "w") as f:
                f.write("s1 QP17\n")
            with self.assertRaisesRegex(ValueError, "bad:1: expected"):
                timeline.read_qps(bad)
            with open(bad, "w") as f:
                f.write("0.1,17,1,2,0.5,cnp\n")
            with self.assertRaisesRegex(ValueError, "bad:1: expected 7"):
                timeline.read_trace(bad, [("s1", 17, None)])
            with open(bad, "w") as f:
                f.write("0.1,17,x,2,0.5,cnp,rxe_s1\n")
            with self.assertRaisesRegex(ValueError, "bad:1: not a number"):
                timeline.read_trace(bad, [("s1", 17, None)])


class DcqcnFig8(unittest.TestCase):
    def test_analyze(self):
        with tempfile.TemporaryDirectory() as t:
            params_txt(t, "dcqcn_fig8", duration="48", none="12", alone="6")
            # Mb/s of each flow (1024-byte packets, samples every 0.5 s)
            for run, algo, secs, mbps, pause in (
                    ("alone", "dcqcn", 6, {"v": 9.0}, 0),
                    ("none", "none", 12, {"h1": 4.5, "h2": 1.5, "h3": 1.5,
                                          "h4": 1.5, "v": 1.8}, 240),
                    ("dcqcn", "dcqcn", 48, {"h1": 2.4, "h2": 2.4,
                                            "h3": 2.4, "h4": 2.4,
                                            "v": 8.1}, 48)):
                d = os.path.join(t, run)
                os.makedirs(d)
                flows = list(mbps)
                with open(os.path.join(d, "samples.txt"), "w") as f:
                    for k in range(2 * secs + 1):
                        f.write("%.1f %s\n" % (100 + k / 2, " ".join(
                            str(int(mbps[x] * 1e6 / 8192 * k / 2))
                            for x in flows)))
                snap = pfc_ports(["p1", "p2"])
                after = dict(snap, **{"p1:pause_tx:3": pause,
                                      "p2:drops_wred": 3})
                save_run(d, {"run": run, "algo": algo, "flows": flows,
                             "secs": secs, "cpu_busy": 30, "failed": [],
                             "before": {"sw1": snap},
                             "after": {"sw1": after}})
            df = results(t)
            v = df.set_index(["algo", "metric"])["value"]
            self.assertAlmostEqual(v[("none", "h1_ratio")], 3, places=2)
            self.assertAlmostEqual(v[("none", "victim_share")], 0.2,
                                   places=2)
            self.assertAlmostEqual(v[("dcqcn", "victim_share")], 0.9,
                                   places=2)
            self.assertEqual(v[("none", "pause_rate")], 20)
            self.assertAlmostEqual(v[("alone", "rate_alone.v")], 9, places=1)
            self.assertAlmostEqual(v[("dcqcn", "rate_late.h2")], 2.4,
                                   places=1)
            self.assertEqual(v[("dcqcn", "drops_wred")], 3)
            self.assertEqual(v[("dcqcn", "drops")], 0)
            self.assertNotIn(("alone", "jain"), v.index)
            files = analyze.plot(t)
            self.assertEqual(sorted(os.path.basename(f) for f in files),
                             ["throughput-alone.png", "throughput-dcqcn.png",
                              "throughput-none.png"])


PFC_DCBMON_HEAD = ("t_ms,netns,dev,band,backlog_bytes,in_bytes,pause_tx,"
                   "paused_us,pool_used,deq_bytes,t_unix_ms\n")


class PfcScenarios(unittest.TestCase):
    def dcbmon(self, t, ports):
        with open(os.path.join(t, "dcbmon.csv"), "w") as f:
            f.write(PFC_DCBMON_HEAD)
            for ms in (0, 20, 40):
                for k, (_, nd) in enumerate(ports):
                    ns, dev = nd.split(":")
                    for band in ("all", "3"):
                        f.write("%d,%s,%s,%s,%d,%d,%d,%d,%d,%d,1\n" % (
                            ms, ns, dev, band, 1000 * k + ms, 100 * ms,
                            ms // 20, 1000 * ms, 5000, 250 * ms))
        with open(os.path.join(t, "ports.tsv"), "w") as f:
            for label, nd in ports:
                f.write("%s\t%s\n" % (label, nd))

    def test_pfc_incast(self):
        """The pfc_incast experiment (dcbnet): its rows from a run.json
        of two senders, through dcblab's analyser lookup."""
        def sw(ptx, peak, tail, backlog_peak, pool_peak):
            d = {}
            for dev in ("sw-eth1", "sw-eth2", "sw-eth3"):
                d.update({dev + ":pool.id": 1, dev + ":pool.drops_full": 0,
                          dev + ":pause_tx:3": 0, dev + ":resume_tx:3": 0,
                          dev + ":in_peak:3": 0, dev + ":pool.peak": pool_peak,
                          dev + ":backlog_peak": backlog_peak})
                for k in ("drops_tail", "drops_wred", "drops_headroom",
                          "in_drops"):
                    d[dev + ":" + k] = 0
            d["sw-eth1:drops_tail"] = tail
            d["sw-eth2:pause_tx:3"], d["sw-eth3:pause_tx:3"] = ptx
            d["sw-eth2:in_peak:3"], d["sw-eth3:in_peak:3"] = peak
            return d

        def nic(h, prx, pus, rxd=0):
            d = {"%s-eth0:%s" % (h, k): 0 for k in
                 ("drops_tail", "drops_wred", "drops_headroom", "in_drops",
                  "pool.drops_full", "pause_rx:3", "paused_us:3",
                  "resume_tx:3", "pause_tx:3")}
            d.update({"%s-eth0:pool.id" % h: 2,
                      "%s-eth0:pause_rx:3" % h: prx,
                      "%s-eth0:paused_us:3" % h: pus,
                      "%s-eth0:rx_dropped" % h: rxd})
            return d

        knobs = {"senders": "2", "rate": "100mbit", "pfc": "on",
                 "buffer": "1mb", "xoff": "16kb", "delay": "default",
                 "quanta": "default", "pkt": "1000", "duration": "4",
                 "datagrams": "", "capture": "off", "interval_ms": "20"}
        doc = {"knobs": knobs, "datagrams": 1000, "cpu_busy": 40.5,
               "ports": {"rx": "sw-eth1", "h1": "sw-eth2", "h2": "sw-eth3"},
               "sent": {"h1": 1000, "h2": 1000},
               "received": {"h1": 1000, "h2": 999},
               "end_s": {"h1": 0.16, "h2": 0.2},
               "before": {"sw": sw((0, 0), (0, 0), 0, 0, 0),
                          "rx": nic("rx", 0, 0), "h1": nic("h1", 0, 0),
                          "h2": nic("h2", 0, 0)},
               "after": {"sw": sw((31, 29), (20480, 19456), 3, 61440,
                                  90112),
                         "rx": nic("rx", 0, 0, rxd=1),
                         "h1": nic("h1", 30, 80000),
                         "h2": nic("h2", 28, 100000)},
               "softnet_drops": 0}
        with tempfile.TemporaryDirectory() as t:
            params_txt(t, "pfc_incast", **knobs)
            save_run(t, doc)
            self.dcbmon(t, [("port", "x-sw:p0"), ("h1", "x-sw:p1"),
                            ("h2", "x-sw:p2"), ("nic-h1", "x-h1:eth0")])
            df = results(t)
            v = df.set_index("metric")["value"]
            self.assertEqual(v["goodput.h1"], 50)
            self.assertAlmostEqual(v["goodput.h2"], 39.96)
            self.assertEqual(v["datagrams_sent"], 2000)
            self.assertEqual(v["datagrams_lost"], 1)
            self.assertEqual(v["drops_all"], 4)
            self.assertEqual(v["drops_all.rx:rx-eth0:rx_dropped"], 1)
            self.assertEqual(v["drops_all.sw:sw-eth1:drops_tail"], 3)
            self.assertEqual(v["pause_tx.h2"], 29)
            self.assertEqual(v["pause_tx.all"], 60)
            self.assertEqual(v["pause_rx.all"], 58)
            self.assertEqual(v["paused_share.h1"], 0.5)
            self.assertEqual(v["ingress_peak.h1"], 20)
            self.assertEqual(v["queue_max"], 60)
            self.assertEqual(v["pool_peak"], 88)
            self.assertEqual(v["drops_tail"], 3)
            self.assertEqual(v["fct_max"], 0.2)
            files = analyze.plot(t)
            self.assertEqual(sorted(os.path.basename(f) for f in files),
                             ["ingress.png", "pauses.png", "queue.png",
                              "throughput.png"])

    def test_pfc_tree(self):
        """The pfc_tree experiment's rows from a synthetic run.json: the
        victim's two windows, the incast's goodputs, PAUSE hop by hop,
        drops."""
        knobs = dict(UNFAIR_KNOBS, window="1")
        hops = {"sw2-sw1": ["sw2", "sw2-eth1"], "sw1-sw2": ["sw1", "sw1-eth1"],
                "sw1-v": ["sw1", "sw1-eth2"], "nic-v": ["v", "v-eth0"],
                "nic-vr": ["vr", "vr-eth0"]}
        before = {"sw1": pfc_ports(("sw1-eth1", "sw1-eth2")),
                  "sw2": pfc_ports(("sw2-eth1",)),
                  "v": pfc_ports(("v-eth0",)), "vr": pfc_ports(("vr-eth0",))}
        after = {"sw1": pfc_ports(("sw1-eth1", "sw1-eth2"),
                                  **{"sw1-eth1:pause_rx:3": 40,
                                     "sw1-eth1:paused_us:3": 2000000,
                                     "sw1-eth2:pause_tx:3": 12}),
                 "sw2": pfc_ports(("sw2-eth1",),
                                  **{"sw2-eth1:pause_tx:3": 40}),
                 "v": pfc_ports(("v-eth0",), **{"v-eth0:pause_rx:3": 12,
                                                "v-eth0:paused_us:3": 1000000,
                                                "v-eth0:drops_headroom": 1}),
                 "vr": pfc_ports(("vr-eth0",), **{"vr-eth0:rx_dropped": 2})}
        # the victim: 12,000 datagrams (1042 bytes on the wire) in 1 s,
        # then 3,000 in 1 s; s1 1,250 datagrams in that second
        doc = {"knobs": knobs, "hops": hops,
               "alone": {"datagrams": {"7001": 12000}, "s": 1.0,
                         "cpu_busy": 40.0},
               "incast": {"datagrams": {"7001": 3000, "7011": 1250},
                          "s": 1.0, "cpu_busy": 60.0,
                          "victim_paused": True},
               "t_incast_s": 1.5, "t_end_s": 4.0, "before": before,
               "after": after, "softnet_drops": 0, "neigh_drops": 1}
        with tempfile.TemporaryDirectory() as t:
            params_txt(t, "pfc_tree", **knobs)
            save_run(t, doc)
            self.dcbmon(t, [("sw2-sw1", "x-sw2:p1"), ("nic-v", "x-v:eth0"),
                            ("nic-s1", "x-s1:eth0")])
            df = results(t)
            v = df.set_index("metric")["value"]
            self.assertAlmostEqual(v["victim_rate.alone"], 100.032)
            self.assertAlmostEqual(v["victim_rate.incast"], 25.008)
            self.assertAlmostEqual(v["rate_alone.v"], 96)
            self.assertEqual(v["victim_share"], 0.25)
            self.assertEqual(v["goodput.s1"], 10)
            self.assertEqual(v["goodput.s2"], 0)
            self.assertEqual(v["pause_tx.sw2-sw1"], 40)
            self.assertEqual(v["pause_rx.sw1-sw2"], 40)
            self.assertEqual(v["paused_us.sw1-sw2"], 2000000)
            self.assertEqual(v["pause_tx.sw1-v"], 12)
            self.assertEqual(v["pause_rx.nic-v"], 12)
            self.assertEqual(v["pause_rx.nic-vr"], 0)
            self.assertEqual(v["paused_share.nic-v"], 0.25)
            self.assertEqual(v["paused_share.sw1-sw2"], 0.5)
            self.assertEqual(v["headroom_drops"], 1)
            self.assertEqual(v["drops_all"], 4)
            self.assertEqual(v["drops_all.vr:vr-eth0:rx_dropped"], 2)
            self.assertEqual(v["drops_all.neigh"], 1)
            self.assertEqual(v["cpu_busy.incast"], 60)
            self.assertEqual(v["window"], 1)
            files = analyze.plot(t)
            self.assertEqual(sorted(os.path.basename(f) for f in files),
                             ["paused.png", "pauses.png", "throughput.png"])

    def test_pfc_unfair(self):
        """The pfc_unfair experiment's rows from a synthetic run.json."""
        with tempfile.TemporaryDirectory() as t:
            params_txt(t, "pfc_unfair", **UNFAIR_KNOBS)
            pfc_unfair_run(t, (48, 16, 16, 16))
            self.dcbmon(t, [("sw1-from-h1", "x-sw1:p2"),
                            ("sw1-from-sw2", "x-sw1:p3"),
                            ("nic-h1", "x-h1:eth0"), ("nic-h2", "x-h2:eth0")])
            df = results(t)
            v = df.set_index("metric")["value"]
            self.assertEqual(v["goodput.h1"], 48)
            self.assertEqual(v["datagrams_received.h2"], 4000)
            self.assertEqual(v["datagrams_received"], 24000)
            self.assertEqual(v["h1_ratio"], 3)
            self.assertEqual(v["share.h1"], 0.5)
            self.assertEqual(v["window"], 2)
            self.assertEqual(v["pause_tx.sw1-from-h1"], 12)
            self.assertEqual(v["pause_tx.sw1-from-sw2"], 40)
            self.assertEqual(v["ingress_peak.sw1-from-sw2"], 17)
            self.assertEqual(v["drops_all"], 0)
            self.assertEqual(v["headroom_drops"], 0)
            files = analyze.plot(t)
            self.assertEqual(sorted(os.path.basename(f) for f in files),
                             ["ingress.png", "throughput.png"])
            for f in files:
                with open(f, "rb") as fh:
                    self.assertEqual(fh.read(8), b"\x89PNG\r\n\x1a\n")


def roce_pcap(path, pkts, magic=b"\xd4\xc3\xb2\xa1", extra=()):
    """A pcap at @path of RoCEv2 frames: @pkts is [(t_s, src, qpn,
    payload_len[, tos])]; @extra frames (bytes) are appended unchanged."""
    import struct
    with open(path, "wb") as f:
        f.write(magic + struct.pack("<HHiIII", 2, 4, 0, 0, 65535, 1))
        frames = []
        for p in pkts:
            t, src, qpn, n = p[:4]
            tos = p[4] if len(p) > 4 else 0
            ip_len = 20 + 8 + 12 + n
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, tos, ip_len, 0, 0, 64,
                             17, 0, bytes(int(x) for x in src.split(".")),
                             bytes([10, 0, 0, 9]))
            udp = struct.pack("!HHHH", 49152, 4791, 8 + 12 + n, 0)
            bth = bytes([10, 0, 0xff, 0xff, 0]) + qpn.to_bytes(3, "big") + \
                bytes(4)
            eth = bytes(12) + b"\x08\x00"
            frames.append((t, eth + ip + udp + bth))
        frames += [(9.0, e) for e in extra]
        for t, fr in frames:
            sec = int(t)
            f.write(struct.pack("<IIII", sec, int(round((t - sec) * 1e6)),
                                len(fr), len(fr)))
            f.write(fr)


class RoceFlows(unittest.TestCase):
    def test_rates_and_jain(self):
        # two flows over 10 s: flow A 1000-byte packets every 10 ms, flow
        # B every 20 ms; a third (another source, same QPN) every 10 ms
        # in the first half only
        pkts = []
        for k in range(1000):
            pkts.append((k * 0.01, "10.0.0.1", 17, 960))
            if k % 2 == 0:
                pkts.append((k * 0.01 + 0.001, "10.0.0.2", 17, 960))
            if k < 400:
                pkts.append((k * 0.01 + 0.002, "10.0.0.3", 18, 960))
        pkts.sort()
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "c.pcap")
            # an ARP frame and a TCP frame, skipped
            roce_pcap(p, pkts, extra=(bytes(12) + b"\x08\x06" + bytes(28),
                                      bytes(12) + b"\x08\x00\x45" +
                                      bytes(8) + b"\x06" + bytes(30)))
            got = roce_flows.read_pcap(p)
            self.assertEqual(len(got), len(pkts))
            self.assertEqual(got[0][1], ("10.0.0.1", 17))
            self.assertEqual(got[0][2], 1000)
            s = roce_flows.summary(got, window=1.0, nflows=3)
            sp = roce_flows.spans(got)
        self.assertEqual(sp[("10.0.0.3", 18)][0], 0.002)
        self.assertAlmostEqual(sp[("10.0.0.3", 18)][1], 3.992)
        self.assertEqual(sp[("10.0.0.3", 18)][2], 400 * 1000)
        # 10.0.0.3 as the long flow: the small flows A and B span
        # [0, 9.99] and [0.001, 9.981]; the long flow's bytes in that span
        inc = roce_flows.incast(got, "10.0.0.3")
        self.assertEqual(inc["flows"], 2)
        self.assertAlmostEqual(inc["incast_s"], 9.99)
        self.assertAlmostEqual(inc["fct_median_s"], 9.98)
        self.assertAlmostEqual(inc["fct_max_s"], 9.99)
        self.assertAlmostEqual(inc["long_mbps"], 400 * 1000 * 8 / 9.99 / 1e6)
        self.assertEqual(roce_flows.incast(got, "10.0.0.1")["flows"], 2)
        self.assertEqual(roce_flows.incast([], "x")["flows"], 0)
        # second half [~5, ~9.99): A 0.8, B 0.4 Mbit/s of IPv4 bytes,
        # the third flow (seen in the first half) silent: 0
        self.assertEqual(s["flows"], 3)
        r = s["rates"]
        self.assertEqual(r[("10.0.0.3", 18)], 0)
        self.assertAlmostEqual(r[("10.0.0.1", 17)], 0.8, delta=0.01)
        self.assertAlmostEqual(r[("10.0.0.2", 17)], 0.4, delta=0.01)
        self.assertAlmostEqual(s["jain"], 1.2 ** 2 / (3 * (0.64 + 0.16)),
                               delta=0.01)
        self.assertAlmostEqual(s["jain_w_min"], s["jain"], delta=0.02)
        self.assertAlmostEqual(s["total_mbps"], 1.2, delta=0.02)
        # the silent third flow: 0 of the fair share
        self.assertEqual(s["low_share"], 0)
        s2 = roce_flows.summary(got, window=1.0)
        self.assertEqual(s2["low_share"], 0)
        two = [p for p in got if p[1][0] != "10.0.0.3"]
        # A 0.8, B 0.4: B at 0.4 / (1.2 / 2)
        self.assertAlmostEqual(roce_flows.summary(two)["low_share"],
                               0.4 / 0.6, delta=0.02)

    def test_chunks(self):
        # A: every 10 ms over 10 s, every other packet CE (ECN 3); B:
        # every 10 ms from 5 to 7.5 s, every 20 ms after, ECT(0)
        pkts = [(k * 0.01, "10.0.0.1", 17, 960, 0x03 if k % 2 else 0x02)
                for k in range(1000)]
        pkts += [(5 + k * 0.01 + 0.001, "10.0.0.2", 17, 960, 0x02)
                 for k in range(250)]
        pkts += [(7.5 + k * 0.02 + 0.001, "10.0.0.2", 17, 960, 0x02)
                 for k in range(125)]
        pkts.sort()
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "c.pcap")
            roce_pcap(p, pkts)
            got = roce_flows.read_pcap(p, ce=True)
            self.assertEqual(roce_flows.main([p, "--chunks", "2"]), 0)
        self.assertEqual(len(got[0]), 4)
        c = roce_flows.chunks(got, 2)
        a, b = c["rates"][("10.0.0.1", 17)], c["rates"][("10.0.0.2", 17)]
        # second half [4.995, 9.99) in two chunks of 2.4975 s
        self.assertAlmostEqual(a[0], 0.8, delta=0.01)
        self.assertAlmostEqual(a[1], 0.8, delta=0.01)
        self.assertAlmostEqual(b[0], 0.8, delta=0.01)
        self.assertAlmostEqual(b[1], 0.4, delta=0.01)
        self.assertAlmostEqual(c["jain"][0], 1.0, delta=0.001)
        self.assertAlmostEqual(c["jain"][1], 0.9, delta=0.01)
        self.assertAlmostEqual(c["ce"][("10.0.0.1", 17)], 0.5, delta=0.01)
        self.assertEqual(c["ce"][("10.0.0.2", 17)], 0)
        self.assertEqual(roce_flows.chunks([], 3)["jain"], [])

    def test_nanosecond_and_bad_files(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "n.pcap")
            roce_pcap(p, [(0.5, "10.0.0.1", 5, 100)],
                      magic=b"\x4d\x3c\xb2\xa1")
            got = roce_flows.read_pcap(p)
            # microsecond field read as nanoseconds: 0.5 s -> 0.0005 s
            self.assertAlmostEqual(got[0][0], 0.0005, places=6)
            bad = os.path.join(d, "bad")
            with open(bad, "wb") as f:
                f.write(b"not a capture at all, really")
            with self.assertRaises(roce_flows.CaptureError):
                roce_flows.read_pcap(bad)
            self.assertEqual(roce_flows.main([bad]), 1)
            self.assertEqual(roce_flows.summary([])["flows"], 0)


class Units(unittest.TestCase):
    def test_units(self):
        self.assertEqual(units.rate_bps("40mbit"), 40e6)
        self.assertEqual(units.rate_bps("10mbps"), 80e6)
        self.assertEqual(units.rate_bps("1000"), 1000)
        self.assertEqual(units.size_bytes("16kb"), 16384)
        self.assertEqual(units.size_bytes("8kbit"), 1024)
        for bad in ("", "mbit", "10 furlongs", "-1mbit"):
            with self.assertRaises(ValueError):
                units.rate_bps(bad)

    def test_command_line(self):
        import contextlib
        import io
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            self.assertEqual(units.main(["rate", "20mbit"]), 0)
            self.assertEqual(units.main(["size", "1.5kb"]), 0)
            self.assertEqual(units.main(["size", "5 furlongs"]), 1)
            self.assertEqual(units.main(["speed", "1"]), 2)
        self.assertEqual(out.getvalue(), "20000000\n1536\n")
        self.assertIn("bad size '5 furlongs'", err.getvalue())


class Plots(unittest.TestCase):
    def test_title(self):
        t = plots.title("s", "what", {"rate": "10mbit", "pfc": "", "x": 1},
                        ("rate", "pfc", "burst"))
        self.assertEqual(t, "s: what\nrate=10mbit")


class Metadata(unittest.TestCase):
    def test_build_id(self):
        import struct
        bid = bytes(range(20))
        other = struct.pack("<III", 4, 4, 1) + b"XYZ\0" + b"abcd"
        gnu = struct.pack("<III", 4, 20, 3) + b"GNU\0" + bid
        with tempfile.TemporaryDirectory() as t:
            p = os.path.join(t, "note")
            with open(p, "wb") as f:
                f.write(other + gnu)
            self.assertEqual(metadata.build_id(p), bid.hex())
            with open(p, "wb") as f:
                f.write(gnu[:15])
            self.assertIsNone(metadata.build_id(p))
        self.assertIsNone(metadata.build_id("/nonexistent"))

    def test_build(self):
        with tempfile.TemporaryDirectory() as t:
            raw = os.path.join(t, ".raw")
            os.mkdir(raw)
            with open(os.path.join(raw, "dcblab.json"), "w") as f:
                json.dump({"scenario": "x", "repeat": 3}, f)
            with open(os.path.join(raw, "knobs-h1.txt"), "w") as f:
                f.write("/sys/class/infiniband/rxe0/cc/algo:dcqcn\n"
                        "/sys/class/infiniband/rxe0/cc/dcqcn/rai_mbps:40\n"
                        "garbage line\n")
            with open(os.path.join(raw, "qdisc-sw.json"), "w") as f:
                f.write('[{"kind": "dcb", "handle": "1:"}]')
            p = metadata.write(t, raw, os.getcwd())
            with open(p) as f:
                doc = json.load(f)
            self.assertEqual(doc["dcblab"]["repeat"], 3)
            self.assertEqual(doc["rxe_cc"]["h1"]["rxe0"],
                             {"algo": "dcqcn", "dcqcn/rai_mbps": "40"})
            self.assertEqual(doc["qdiscs"]["sw"][0]["kind"], "dcb")
            for k in ("git", "kernel", "machine", "modules", "tools"):
                self.assertIn(k, doc)
            self.assertIn(doc["machine"]["accelerator"],
                          ("tcg", "kvm", "none"))
            self.assertIn("iproute2", doc["tools"])
            self.assertIn(doc["machine"]["clock"]["kind"],
                          ("virtual", "real"))

    def test_clock(self):
        self.assertEqual(
            metadata.clock({"DCBLAB_CLOCK": "virtual shift=0 vcpus=1"}),
            {"kind": "virtual", "icount_shift": 0, "vcpus": 1})
        self.assertEqual(
            metadata.clock({"DCBLAB_CLOCK": "real tcg vcpus=2"}),
            {"kind": "real", "accel": "tcg", "vcpus": 2})
        self.assertEqual(metadata.clock({})["accel"], "native")

    def test_clock_line(self):
        with tempfile.TemporaryDirectory() as t:
            with open(os.path.join(t, "cpu-guard.tsv"), "w") as f:
                f.write("ib_write_bw traffic\t41\nbad\nx\t77\n")
            self.assertEqual(metadata.cpu_guard(os.path.join(t, "cpu-guard.tsv")),
                             [{"phase": "ib_write_bw traffic", "busy_pct": 41},
                              {"phase": "x", "busy_pct": 77}])
            doc = {"machine": {"clock": {"kind": "virtual", "icount_shift": 0,
                                         "vcpus": 1},
                               "cpu_guard": [{"phase": "a", "busy_pct": 41},
                                             {"phase": "b", "busy_pct": 77}]}}
            with open(os.path.join(t, "metadata.json"), "w") as f:
                json.dump(doc, f)
            self.assertEqual(summary.clock_line([t]),
                             "clock: virtual (qemu icount shift 0, 1 vCPU); "
                             "guest kernel busy during traffic: at most 77%\n")
            self.assertEqual(summary.clock_line(["/nonexistent"]), "")
            # a compare run: its own metadata.json has no guard, its
            # scenarios' (run-K/NAME/) have theirs
            doc["machine"]["cpu_guard"] = []
            with open(os.path.join(t, "metadata.json"), "w") as f:
                json.dump(doc, f)
            sub = os.path.join(t, "run-2", "cmp_incast")
            os.makedirs(sub)
            doc["machine"]["cpu_guard"] = [{"phase": "c", "busy_pct": 47}]
            with open(os.path.join(sub, "metadata.json"), "w") as f:
                json.dump(doc, f)
            self.assertEqual(summary.clock_line([t]),
                             "clock: virtual (qemu icount shift 0, 1 vCPU); "
                             "guest kernel busy during traffic: at most 47%\n")

    def test_merge(self):
        # the first part's metadata.json, made the whole run's by dcblab's
        # run_guests: repeat and guests, every part's CPU guard
        with tempfile.TemporaryDirectory() as t:
            with open(os.path.join(t, "metadata.json"), "w") as f:
                json.dump({"dcblab": {"repeat": 2, "scenario": "incast"},
                           "machine": {"cpu_guard": [
                               {"phase": "a", "busy_pct": 41}]}}, f)
            with open(os.path.join(t, "cpu-guard.tsv"), "w") as f:
                f.write("a\t41\nb\t52\n")
            metadata.merge(t, 3, 2)
            with open(os.path.join(t, "metadata.json")) as f:
                doc = json.load(f)
            self.assertEqual(doc["dcblab"], {"repeat": 3, "guests": 2,
                                             "scenario": "incast"})
            self.assertEqual([r["busy_pct"] for r in doc["machine"]["cpu_guard"]],
                             [41, 52])
            self.assertRaises(OSError, metadata.merge, "/nonexistent", 1, 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
