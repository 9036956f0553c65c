# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/dcbanalysis/fct.py, the FCT slowdown table of
rdmaflow's messages, and of the fct_workload experiment's analysis, on
synthetic CSVs (run by test_fct.sh)."""

import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "scripts"))

import pandas as pd  # noqa: E402

from dcbanalysis import fct, tidy  # noqa: E402

LINE = 100e6		# bit/s
RTT = 200e-6		# s


def ideal(size):
    return RTT + size * 8 / LINE


def write_csv(path, msgs, src="10.0.0.1"):
    """An rdmaflow CSV of @msgs: (dst, size, arrival_s, fct_s or None)."""
    with open(path, "w") as f:
        f.write(",".join(fct.COLUMNS) + "\n")
        for i, (dst, size, arr, dur) in enumerate(msgs):
            a = round(arr * 1e9)
            done = "" if dur is None else str(a + round(dur * 1e9))
            f.write("%d,%s,%s,0,%d,%d,%d,%s\n" % (i, src, dst, size, a,
                                                 a, done))


class Read(unittest.TestCase):
    def test_read_and_slowdown(self):
        with tempfile.TemporaryDirectory() as t:
            p = os.path.join(t, "h1.csv")
            # 12500 B: 1 ms on the wire, ideal 1.2 ms; twice that
            write_csv(p, [("h2", 12500, 0.0, 2 * ideal(12500)),
                          ("h2", 100, 0.1, None),
                          ("h3", 1000, 0.2, 0.5 * ideal(1000))])
            df = fct.read([p], algo="dcqcn")
            self.assertEqual(len(df), 3)
            self.assertEqual(list(df["completed"]), [True, False, True])
            self.assertEqual(set(df["algo"]), {"dcqcn"})
            s = fct.slowdown(df, LINE, RTT)
            self.assertEqual(len(s), 2)
            self.assertAlmostEqual(s["ideal_s"].iloc[0], 1.2e-3)
            self.assertAlmostEqual(s["slowdown"].iloc[0], 2.0, places=6)
            # faster than the ideal: counted as 1, the raw value kept
            self.assertEqual(s["slowdown"].iloc[1], 1.0)
            self.assertAlmostEqual(s["slowdown_raw"].iloc[1], 0.5, places=6)

    def test_wire_overhead_and_hops(self):
        self.assertAlmostEqual(fct.ideal_fct(1024, 1e6, 0.001, wire=1.5),
                               0.001 + 1024 * 8 * 1.5 / 1e6)
        sizes = pd.Series([1000, 1000])
        hops = pd.Series([2, 4])
        got = fct.ideal_fct(sizes, 1e6, {2: 1e-3, 4: 3e-3}, hops)
        self.assertAlmostEqual(got.iloc[0], 1e-3 + 8e-3)
        self.assertAlmostEqual(got.iloc[1], 3e-3 + 8e-3)
        with self.assertRaisesRegex(ValueError, "hop count.*4"):
            fct.ideal_fct(sizes, 1e6, {2: 1e-3}, hops)
        with self.assertRaisesRegex(ValueError, "needs each message's hops"):
            fct.ideal_fct(sizes, 1e6, {2: 1e-3})

    def test_not_rdmaflow(self):
        with tempfile.TemporaryDirectory() as t:
            p = os.path.join(t, "x.csv")
            with open(p, "w") as f:
                f.write("a,b\n1,2\n")
            with self.assertRaisesRegex(ValueError, "x.csv: columns a,b"):
                fct.read([p])
            with self.assertRaisesRegex(ValueError, "no rdmaflow CSV"):
                fct.read([])


class Bins(unittest.TestCase):
    def test_quantile_edges(self):
        self.assertEqual(fct.quantile_edges(range(1, 101), 4),
                         [0, 25, 50, 75, 100])
        # ties never straddle an edge: two sizes, two bins
        self.assertEqual(fct.quantile_edges([10] * 50 + [20] * 50, 4),
                         [9, 10, 20])
        self.assertEqual(fct.quantile_edges([5], 10), [4, 5])
        with self.assertRaises(ValueError):
            fct.quantile_edges([], 3)

    def test_table(self):
        """Two algorithms over the same sizes: dcqcn's slowdown is 2
        everywhere; none's in the small bin is 1..100 (p50 50.5, p95
        95.05, p99 99.01 by linear interpolation) and 3 in the large."""
        with tempfile.TemporaryDirectory() as t:
            small = [1000 + k for k in range(100)]
            large = [100000 + 1000 * k for k in range(100)]
            a, b = os.path.join(t, "a.csv"), os.path.join(t, "b.csv")
            write_csv(a, [("r", s, 0.01 * i, 2 * ideal(s))
                          for i, s in enumerate(small + large)])
            write_csv(b, [("r", s, 0.01 * i, (i + 1) * ideal(s))
                          for i, s in enumerate(small)] +
                      [("r", s, 1 + 0.01 * i, 3 * ideal(s))
                       for i, s in enumerate(large)] +
                      [("r", 5000, 3.0, None)])
            msgs = pd.concat([fct.read([a], "dcqcn"), fct.read([b], "none")],
                             ignore_index=True)
            s = fct.slowdown(msgs, LINE, RTT)
            edges = fct.quantile_edges(s["size"], 2)
            self.assertEqual(edges, [999, 1099, 199000])
            tab = fct.table(s, edges)
            self.assertEqual(list(tab.columns), list(fct.TABLE))
            self.assertEqual(len(tab), 4)
            d = tab[tab.algo == "dcqcn"]
            self.assertEqual(list(d["count"]), [100, 100])
            for c in ("p50", "p95", "p99"):
                for v in d[c]:
                    self.assertAlmostEqual(v, 2.0, places=6)
            n1 = tab[(tab.algo == "none") & (tab.bin == 1)].iloc[0]
            self.assertEqual(n1["count"], 100)
            self.assertAlmostEqual(n1["p50"], 50.5, places=4)
            self.assertAlmostEqual(n1["p95"], 95.05, places=4)
            self.assertAlmostEqual(n1["p99"], 99.01, places=4)
            self.assertEqual((n1["size_lo"], n1["size_hi"]), (999, 1099))
            n2 = tab[(tab.algo == "none") & (tab.bin == 2)].iloc[0]
            self.assertAlmostEqual(n2["p99"], 3.0, places=6)
            tot = fct.overall(s)
            self.assertEqual(list(tot["count"]), [200, 200])
            rows = fct.tidy_rows(tab, tot)
            for m, v, u, algo in rows:
                tidy.check_row({"scenario": "fct_workload", "algo": algo,
                                "run": 1, "metric": m, "value": v,
                                "unit": u})
            got = {(m, algo): v for m, v, u, algo in rows}
            self.assertEqual(got[("messages.b1", "none")], 100)
            self.assertEqual(got[("bin_max.b2", "dcqcn")], 199000)
            self.assertAlmostEqual(got[("slowdown_p50.b1", "none")], 50.5)
            self.assertEqual(got[("messages.all", "dcqcn")], 200)

            png = os.path.join(t, "fct.png")
            fct.plot(tab, png, "fct_workload: test")
            self.assertGreater(os.path.getsize(png), 10000)

    def test_outside_edges(self):
        s = pd.DataFrame({"size": [10, 500], "slowdown": [1.0, 1.0]})
        with self.assertRaisesRegex(ValueError, "outside the bins"):
            fct.table(s, [0, 100])


def workload_folder(t, algos, base_us=300.0):
    """A results folder as fct_workload's run() leaves it: per algo a
    run.json and two clients' CSVs (h1 -> h2, h2 -> h1), the ping CSV of
    base-rtt/.  Slowdown: dcqcn 1.5, none 4 (x ideal)."""
    from dcbnet.experiments import fct_workload

    os.makedirs(os.path.join(t, "base-rtt"))
    write_csv(os.path.join(t, "base-rtt", "h1.csv"),
              [("h2", 1, 0.001 * i, base_us * 1e-6 * (1 + 0.01 * (i % 3)))
               for i in range(9)])
    with open(os.path.join(t, "base-rtt", "run.json"), "w") as f:
        json.dump({"hosts": ["h1"], "failed": []}, f)
    slow = {"dcqcn": 1.5, "none": 4.0, "pcn": 2.0, "ldcp": 3.0}
    sizes = [100 * (k + 1) for k in range(50)] + [50000, 80000]
    for algo in algos:
        d = os.path.join(t, algo)
        os.makedirs(d)
        for src, dst in (("h1", "h2"), ("h2", "h1")):
            msgs = [(dst, s, 0.01 * i, slow[algo] *
                     (base_us * 1e-6 + s * 8 * fct_workload.WIRE / LINE))
                    for i, s in enumerate(sizes)]
            if src == "h2" and algo == "none":
                msgs.append((dst, 777, 1.0, None))
            write_csv(os.path.join(d, "%s.csv" % src), msgs)
        with open(os.path.join(d, "run.json"), "w") as f:
            json.dump({"algo": algo, "hosts": ["h1", "h2"], "failed": [],
                       "cpu_busy": 40.0, "duration_s": 1.0, "scale": 0.01,
                       "pause_tx": 3, "drops": 0, "ecn_marked": 10,
                       "retry": 2},
                      f)


class FlowFile(unittest.TestCase):
    def test_hpcc_and_ours(self):
        from dcbnet.experiments import fct_workload

        names = ["h1", "h2", "h3"]
        with tempfile.TemporaryDirectory() as t:
            src, out = os.path.join(t, "flow.txt"), os.path.join(t, "o")
            with open(src, "w") as f:
                f.write("3\n0 2 3 100 6000 2.0\n2 1 3 100 350 2.5\n"
                        "h2 h1 3 100 7 0.5  # ours by name\n")
            self.assertEqual(fct_workload.flow_file(src, names, out),
                             (3, 2.5))
            with open(out) as f:
                self.assertEqual(f.read(), "h1 h3 6000 2.0\nh3 h2 350 2.5\n"
                                 "h2 h1 7 0.5\n")
            with open(src, "w") as f:
                f.write("h1 h2 100 0\n0 3 100 0\n")
            with self.assertRaisesRegex(ValueError, "flow.txt:2: no host '3'"):
                fct_workload.flow_file(src, names, out)
            with open(src, "w") as f:
                f.write("h1 h2 100\n")
            with self.assertRaisesRegex(ValueError, "flow.txt:1: want"):
                fct_workload.flow_file(src, names, out)


class Workload(unittest.TestCase):
    def test_analyze_and_plot(self):
        from dcbnet.experiments import fct_workload

        with tempfile.TemporaryDirectory() as t:
            workload_folder(t, ("none", "dcqcn"))
            exp = fct_workload.FctWorkload({"algos": "none,dcqcn",
                                            "rate": "100mbit",
                                            "bins": "4"})
            rows = exp.analyze(t)
            for r in rows:
                m, v, u = r[:3]
                tidy.check_row({"scenario": "fct_workload", "algo": r[3],
                                "run": 1, "metric": m, "value": v,
                                "unit": u})
            got = {(r[0], r[3]): r[1] for r in rows}
            # the median of 300, 303 and 306 us
            self.assertAlmostEqual(got[("base_rtt", "none")], 303.0)
            self.assertAlmostEqual(got[("slowdown_p50.all", "dcqcn")], 1.5,
                                   delta=0.02)
            self.assertAlmostEqual(got[("slowdown_p99.all", "none")], 4.0,
                                   delta=0.06)
            self.assertEqual(got[("messages.all", "none")], 104)
            self.assertEqual(got[("messages_incomplete", "none")], 1)
            self.assertEqual(got[("messages_incomplete", "dcqcn")], 0)
            self.assertEqual(got[("pause_tx", "none")], 3)
            self.assertEqual(got[("gbn_retries", "dcqcn")], 2)
            self.assertEqual(got[("size_scale", "dcqcn")], 0.01)
            # each host's 52 messages, 257,500 bytes, over 1 s of its
            # 100 Mbit/s
            self.assertAlmostEqual(got[("offered_load", "dcqcn")],
                                   2 * 257500 * 8 / (2 * 100e6), places=4)
            nb = len([k for k in got if k[0].startswith("messages.b") and
                      k[1] == "dcqcn"])
            self.assertEqual(nb, 4)
            tab = pd.read_csv(os.path.join(t, "fct.csv"))
            self.assertEqual(list(tab.columns),
                             list(fct.TABLE) + ["scale"])
            self.assertEqual(set(tab["algo"]), {"none", "dcqcn"})
            files = exp.plot(t)
            self.assertEqual([os.path.basename(f) for f in files],
                             ["fct.png"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
