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

from dcbanalysis import analyze, fairness, metadata, summary, tidy  # noqa


def row(**kw):
    r = {"scenario": "s", "algo": "dcqcn", "run": 1, "metric": "jain",
         "value": 0.5, "unit": "1"}
    r.update(kw)
    return r


def pfc_unfair_run(d, rx):
    """The files pfc_unfair leaves in @d, h1..h4 receiving @rx Mbit/s."""
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "senders.tsv"), "w") as f:
        for i, v in enumerate(rx, 1):
            f.write("h%d\t10000000\t%d\t0.5\t1000\n" % (i, v * 1e6))
    with open(os.path.join(d, "ingress.tsv"), "w") as f:
        f.write("sw1<-h1\t12\t12\t0\t0\t0\t0\t9000\n")
        f.write("sw1<-sw2\t40\t40\t0\t0\t0\t0\t17000\n")
    with open(os.path.join(d, "headroom_drops.txt"), "w") as f:
        f.write("0\n")


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
                    "# kernel x\nrate=10mbit\npfc=on\nduration=10\n")
        for k, rx in enumerate(runs, 1):
            pfc_unfair_run(os.path.join(t, "run-%d" % k), rx)

    def test_repeat_table(self):
        with tempfile.TemporaryDirectory() as t:
            self.folder(t, [(5, 1.6, 1.7, 1.7), (4.6, 1.8, 1.8, 1.8),
                            (5.2, 1.5, 1.6, 1.7)])
            n = analyze.analyze(t)
            # 4 goodputs + 4 shares + jain + 2 pause_tx + headroom, x 3
            self.assertEqual(n, 3 * 12)
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
            # again: the same file, not twice the rows
            self.assertEqual(analyze.analyze(t), n)

    def test_guest_metrics_merged(self):
        with tempfile.TemporaryDirectory() as t:
            self.folder(t, [(5, 1, 1, 1)])
            with open(os.path.join(t, "guest-metrics.csv"), "w") as f:
                f.write("scenario,algo,run,metric,value,unit\n"
                        "pfc_unfair,line-rate,1,cnp_rx.h1,7,packets\n")
            self.assertEqual(analyze.analyze(t), 13)
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
            with open(os.path.join(t, "params.txt"), "w") as f:
                f.write("# dcblab run incast 2026\nduration=5\n")
            self.assertEqual(analyze.analyze(t), 0)
            self.assertFalse(os.path.exists(os.path.join(t, "results.csv")))


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


if __name__ == "__main__":
    unittest.main(verbosity=2)
