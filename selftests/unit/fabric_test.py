# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the fabric description (scripts/dcbnet/fabric.py) and
the HPCC simulator's file formats (scripts/dcbnet/hpcc.py), run by
test_fabric.sh: leaf-spine shapes and paths, the ECMP report from
counters, rxe's UDP source port, and the parsers' readings and
refusals.  Nothing here starts Mininet or a guest."""

import io
import os
import sys
import tempfile
import unittest

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "scripts")
sys.path.insert(0, SCRIPTS)

from dcbnet import fabric, hpcc  # noqa: E402


class LeafSpine(unittest.TestCase):
    def test_shape(self):
        f = fabric.leaf_spine(4, 2, 4, rate_mbps=100)
        self.assertEqual(len(f.hosts), 16)
        self.assertEqual(f.role_nodes("leaf"),
                         ["leaf1", "leaf2", "leaf3", "leaf4"])
        self.assertEqual(f.role_nodes("spine"), ["spine1", "spine2"])
        self.assertEqual(len(f.links), 16 + 4 * 2)
        self.assertEqual(f.attachment("h5"), "leaf2")
        self.assertEqual(f.attachment("h16"), "leaf4")
        f.check()

    def test_oversubscription(self):
        f = fabric.leaf_spine(2, 2, 4, rate_mbps=100, oversub=2)
        up = [lk.rate_bps for lk in f.links if lk.b.startswith("spine")]
        self.assertEqual(set(up), {100e6})
        self.assertAlmostEqual(f.oversubscription("leaf1"), 2.0)
        f = fabric.leaf_spine(2, 2, 4, rate_mbps=100)
        self.assertAlmostEqual(f.oversubscription("leaf2"), 1.0)
        f = fabric.leaf_spine(2, 4, 4, rate_mbps=100, uplink_mbps=25)
        self.assertAlmostEqual(f.oversubscription("leaf1"), 4.0)

    def test_paths(self):
        f = fabric.leaf_spine(3, 4, 2, rate_mbps=100, oversub=2,
                              delay_us=2)
        p = f.paths()
        self.assertEqual(len(p), 6 * 5)
        same = p[("h1", "h2")]
        self.assertEqual((same.switches, same.links, same.ecmp),
                         (1, 2, 1))
        far = p[("h1", "h6")]
        self.assertEqual((far.switches, far.links, far.ecmp), (3, 4, 4))
        # uplinks 2 x 100 / (4 x 2) = 25 Mbit/s: the path's lowest rate
        self.assertAlmostEqual(far.rate_bps, 25e6)
        self.assertAlmostEqual(far.delay_s, 8e-6)

    def test_paths_not_through_hosts(self):
        f = fabric.Fabric()
        for n in ("a", "b", "c"):
            f.add_node(n, "host")
        f.add_node("s1", "switch")
        f.add_node("s2", "switch")
        f.add_link("a", "s1", 1e9)
        f.add_link("b", "s2", 1e9)
        f.add_link("c", "s1", 1e9)
        with self.assertRaises(ValueError):
            f.check()
        with self.assertRaises(ValueError):
            f.paths([("a", "b")])

    def test_refusals(self):
        for args in ((0, 2, 4), (2, 0, 4), (2, 2, 0)):
            with self.assertRaises(ValueError):
                fabric.leaf_spine(*args)
        with self.assertRaises(ValueError):
            fabric.leaf_spine(2, 2, 2, oversub=0)
        f = fabric.Fabric()
        f.add_node("h1", "host")
        with self.assertRaises(ValueError):
            f.add_node("h1", "host")
        with self.assertRaises(ValueError):
            f.add_node("verylongname", "switch")
        with self.assertRaises(ValueError):
            f.add_node("x", "router")
        with self.assertRaises(ValueError):
            f.add_link("h1", "nowhere", 1e9)
        f.add_node("s", "switch")
        with self.assertRaises(ValueError):
            f.add_link("h1", "s", 0)

    def test_pairs(self):
        f = fabric.leaf_spine(4, 2, 4)
        self.assertEqual(fabric.host_pairs(f, "auto"),
                         [("h1", "h5"), ("h9", "h13")])
        self.assertEqual(fabric.host_pairs(f, "h2:h3, h4:h16"),
                         [("h2", "h3"), ("h4", "h16")])
        with self.assertRaises(ValueError):
            fabric.host_pairs(f, "h1:leaf1")

    def test_rate_opt(self):
        self.assertEqual(fabric.rate_opt(100e6), "rate 100000kbit")
        self.assertEqual(fabric.rate_opt(100e6 / 3), "rate 33333kbit")


class Spread(unittest.TestCase):
    """fabric.spread() over two made-up readings of a 2 x 2 x 1 fabric."""

    def setUp(self):
        self.f = fabric.leaf_spine(2, 2, 1, rate_mbps=100)
        # links: h1-leaf1, leaf1-spine1, leaf1-spine2, h2-leaf2,
        # leaf2-spine1, leaf2-spine2
        self.devs = {0: ("h1-eth0", "leaf1-eth1"),
                     1: ("leaf1-eth2", "spine1-eth1"),
                     2: ("leaf1-eth3", "spine2-eth1"),
                     3: ("h2-eth0", "leaf2-eth1"),
                     4: ("leaf2-eth2", "spine1-eth2"),
                     5: ("leaf2-eth3", "spine2-eth2")}

    def reading(self, k):
        """h1 -> h2: k x 3 MB over spine1 and k x 1 MB over spine2."""
        mb = 1000000
        dcb = {"leaf1": {"leaf1-eth1": 0, "leaf1-eth2": 3 * k * mb,
                         "leaf1-eth3": k * mb},
               "leaf2": {"leaf2-eth1": 4 * k * mb, "leaf2-eth2": 0,
                         "leaf2-eth3": 0},
               "spine1": {"spine1-eth1": 0, "spine1-eth2": 3 * k * mb},
               "spine2": {"spine2-eth1": 0, "spine2-eth2": k * mb}}
        dev = {sw: {d: [0, v] for d, v in ports.items()}
               for sw, ports in dcb.items()}
        dev["leaf1"]["leaf1-eth1"] = [4 * k * mb, 0]
        return {"dcb": dcb, "dev": dev}

    def test_report(self):
        rows = {m: v for m, v, _ in fabric.spread(
            self.f, self.devs, self.reading(1), self.reading(2), 1.0)}
        self.assertEqual(rows["spine_bytes.spine1"], 3e6)
        self.assertEqual(rows["spine_bytes.spine2"], 1e6)
        self.assertAlmostEqual(rows["spine_share.spine1"], 0.75)
        self.assertAlmostEqual(rows["ecmp_min_share"], 0.25)
        self.assertAlmostEqual(rows["uplink_share.leaf1.spine2"], 0.25)
        self.assertNotIn("uplink_share.leaf2.spine1", rows)
        # h1's NIC: the rx counter of leaf1's port; 4 MB in 1 s at 100M
        self.assertAlmostEqual(rows["link_util.h1>leaf1"], 0.32)
        self.assertAlmostEqual(rows["link_util.leaf2>h2"], 0.32)
        # leaf-spine links at 100 Mbit/s (1 host x 100 / 2 spines x 1)
        self.assertAlmostEqual(rows["link_util.leaf1>spine1"], 0.48)
        self.assertAlmostEqual(rows["link_util.spine2>leaf2"], 0.16)
        self.assertEqual(rows["link_util.spine1>leaf1"], 0)

    def test_idle(self):
        rows = {m: v for m, v, _ in fabric.spread(
            self.f, self.devs, self.reading(1), self.reading(1), 1.0)}
        self.assertNotIn("ecmp_min_share", rows)
        self.assertEqual(rows["spine_bytes.spine1"], 0)


class Activity(unittest.TestCase):
    def span(self, samples):
        class Net:
            switches = []
        a = fabric.Activity(Net())
        a.samples = samples
        return a.span()

    def test_span(self):
        # TCP's few bytes at 0-0.2 s, data from 0.3 to 0.6 s, a tail
        s = [(0.0, 0), (0.1, 500), (0.2, 900), (0.3, 900), (0.4, 100900),
             (0.5, 200900), (0.6, 250900), (0.7, 251000), (0.8, 251000)]
        secs, total = self.span(s)
        self.assertAlmostEqual(secs, 0.3)
        self.assertEqual(total, 251000)
        self.assertEqual(self.span([(0.0, 5), (1.0, 5)]), (0.0, 0))
        self.assertEqual(self.span([]), (0.0, 0))


class RxeSport(unittest.TestCase):
    """rdma_get_udp_sport() of include/rdma/ib_verbs.h, computed by hand
    for a few QP numbers."""

    def test_values(self):
        # 17 x 17 = 289 = 0x121: no bits above 20, folded into 14 bits
        self.assertEqual(fabric.rdma_sport(17, 17), 0xC121)
        # 0x12345 x 1 = 0x12345: high bits 0x10000 >> 14 = 4 xor 0x2345
        self.assertEqual(fabric.rdma_sport(0x12345, 1), 0xC000 | 0x2341)
        # a flow label wins over the QP numbers
        self.assertEqual(fabric.rdma_sport(17, 17, flow_label=5), 0xC005)

    def test_symmetric_range_distinct(self):
        ports = set()
        for q in range(17, 33):
            p = fabric.rdma_sport(q, q + 100)
            self.assertEqual(p, fabric.rdma_sport(q + 100, q))
            self.assertTrue(0xC000 <= p <= 0xFFFF)
            ports.add(p)
        self.assertEqual(len(ports), 16)

    def test_perftest_qpns(self):
        text = (" local address: LID 0000 QPN 0x0011 PSN 0x1 RKey 0x1 "
                "VAddr 0x1\n"
                " local address: LID 0000 QPN 0x0012 PSN 0x2 RKey 0x2 "
                "VAddr 0x2\n"
                " remote address: LID 0000 QPN 0x0031 PSN 0x3 RKey 0x3 "
                "VAddr 0x3\n"
                " remote address: LID 0000 QPN 0x0032 PSN 0x4 RKey 0x4 "
                "VAddr 0x4\n")
        with tempfile.NamedTemporaryFile("w", suffix=".cli") as t:
            t.write(text)
            t.flush()
            self.assertEqual(fabric.perftest_qpns(t.name),
                             [(0x11, 0x31), (0x12, 0x32)])
        self.assertEqual(fabric.perftest_qpns("/nonexistent"), [])


TOPO = """5 2 4
3 4
0 3 100Gbps 0.001ms 0
1 3 25Gbps 1000ns 0
2 4 100Gbps 1us 0.001
3 4 400Gbps 2000ns 0
trailing notes are ignored, as the simulator does
"""

CLOS = """6 3 6
0 1 2
3 0 10Gbps 1us 0
4 0 10Gbps 1us 0
5 1 10Gbps 1us 0
0 1 40Gbps 1us 0
0 2 40Gbps 1us 0
1 2 40Gbps 1us 0
"""

LEAF_SPINE = """8 4 8
0 1 2 3
4 0 10Gbps 1us 0
5 0 10Gbps 1us 0
6 1 10Gbps 1us 0
7 1 10Gbps 1us 0
0 2 10Gbps 1us 0
0 3 10Gbps 1us 0
1 2 10Gbps 1us 0
1 3 10Gbps 1us 0
"""

FLOWS = """3
0 2 3 100 1000000 2
1 2 3 100 5000 2.000001
2 0 5 7000 64 3.5
First line: # of flows (notes after the flows are ignored)
"""


def parse_topo(text):
    return hpcc.topology(io.StringIO(text))


class HpccUnits(unittest.TestCase):
    def test_rates(self):
        for text, bps in (("100Gbps", 100e9), ("25Gb/s", 25e9),
                          ("10Mbps", 10e6), ("1kbps", 1e3), ("8bps", 8),
                          ("1GBps", 8e9), ("1Kibps", 1024),
                          ("2.5Gbps", 2.5e9)):
            self.assertAlmostEqual(hpcc.rate_bps(text), bps, msg=text)
        for bad in ("100G", "Gbps", "100 Gbps", "100gbps", "-1Gbps", ""):
            with self.assertRaises(ValueError, msg=bad):
                hpcc.rate_bps(bad)

    def test_times(self):
        for text, s in (("0.001ms", 1e-6), ("1000ns", 1e-6), ("1us", 1e-6),
                        ("2", 2.0), ("1.5s", 1.5), ("10ps", 1e-11)):
            self.assertAlmostEqual(hpcc.time_s(text), s, msg=text)
        for bad in ("1 ms", "ms", "1sec", "-1ms"):
            with self.assertRaises(ValueError, msg=bad):
                hpcc.time_s(bad)


class HpccTopology(unittest.TestCase):
    def test_read(self):
        f = parse_topo(TOPO)
        self.assertEqual(f.hosts, ["h0", "h1", "h2"])
        self.assertEqual(f.switches, ["sw3", "sw4"])
        self.assertEqual(f.ids["sw4"], 4)
        self.assertEqual(f.roles["sw3"], "switch")
        self.assertEqual(len(f.links), 4)
        lk = f.links[1]
        self.assertEqual((lk.a, lk.b), ("h1", "sw3"))
        self.assertAlmostEqual(lk.rate_bps, 25e9)
        self.assertAlmostEqual(lk.delay_s, 1e-6)
        self.assertAlmostEqual(f.links[2].error_rate, 0.001)
        f.check()
        p = f.paths()[("h0", "h2")]
        self.assertEqual((p.switches, p.ecmp), (2, 1))
        self.assertAlmostEqual(p.rate_bps, 100e9)
        self.assertAlmostEqual(p.delay_s, 1e-6 + 2e-6 + 1e-6)

    def test_path_file(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as t:
            t.write(TOPO)
            t.flush()
            self.assertEqual(len(hpcc.topology(t.name).links), 4)

    def test_clos_roles(self):
        f = parse_topo(LEAF_SPINE)
        self.assertEqual(f.role_nodes("leaf"), ["sw0", "sw1"])
        self.assertEqual(f.role_nodes("spine"), ["sw2", "sw3"])
        self.assertEqual(f.paths()[("h4", "h6")].ecmp, 2)
        # leaves linked to each other: not a two-tier Clos
        f = parse_topo(CLOS)
        self.assertEqual(set(f.roles[s] for s in f.switches), {"switch"})

    def test_roles_off(self):
        f = hpcc.topology(io.StringIO(LEAF_SPINE), roles=False)
        self.assertEqual(f.role_nodes("leaf"), [])

    def refused(self, text, *words):
        with self.assertRaises(hpcc.FormatError) as c:
            parse_topo(text)
        for w in words:
            self.assertIn(w, str(c.exception))

    def test_refusals(self):
        self.refused("", "expected the node count")
        self.refused("3 1 1\n0\n1 0 10Gbps 1us", "expected an error rate")
        self.refused("3 4 0\n", "4 switches of 3 nodes")
        self.refused("3 1 0\n5\n", ":2:", "switch id 5")
        self.refused("3 2 0\n1 1\n", "listed twice")
        self.refused("3 1 1\n0\n1 7 10Gbps 1us 0\n", ":3:", "node 7")
        self.refused("3 1 1\n0\n1 1 10Gbps 1us 0\n", "to itself")
        self.refused("3 1 1\n0\n1 0 10G 1us 0\n", ":3:", "'10G'",
                     "data rate")
        self.refused("3 1 1\n0\n1 0 10Gbps 1 us 0\n", "'us'")
        self.refused("3 1 2\n0\n1 0 1Gbps 1us 0\n0 1 1Gbps 1us 0\n",
                     "second link")
        self.refused("3 1 1\n0\n1 0 0Gbps 1us 0\n", "rate 0")
        self.refused("3 1 1\n0\n1 0 1Gbps 1us 2\n", "error rate 2")
        self.refused("x 1 1\n", "'x' is not the node count")
        self.refused("3 -1 1\n", "switch count")

    def test_dual_homed_host_refused_by_check(self):
        f = parse_topo("4 2 2\n2 3\n0 2 1Gbps 1us 0\n0 3 1Gbps 1us 0\n")
        with self.assertRaises(ValueError) as c:
            f.check()
        self.assertIn("one link", str(c.exception))


class HpccFlows(unittest.TestCase):
    def test_read(self):
        topo = parse_topo(TOPO)
        fl = hpcc.flows(io.StringIO(FLOWS), topo)
        self.assertEqual(len(fl), 3)
        self.assertEqual(fl[0], hpcc.Flow("h0", "h2", 3, 100, 1000000, 2.0))
        self.assertEqual((fl[2].src, fl[2].priority, fl[2].dport,
                          fl[2].size), ("h2", 5, 7000, 64))
        self.assertAlmostEqual(fl[1].start, 2.000001)
        self.assertEqual(hpcc.flows(io.StringIO("0\n")), [])

    def test_scale(self):
        fl = hpcc.flows(io.StringIO(FLOWS))
        s = hpcc.scale_flows(fl, size=0.001, time=1000)
        self.assertEqual([x.size for x in s], [1000, 5, 1])
        self.assertAlmostEqual(s[2].start, 3500)

    def refused(self, text, *words, topo=None):
        with self.assertRaises(hpcc.FormatError) as c:
            hpcc.flows(io.StringIO(text), topo)
        for w in words:
            self.assertIn(w, str(c.exception))

    def test_refusals(self):
        self.refused("2\n0 1 3 100 10 1\n", "ends after line 2",
                     "source node")
        self.refused("1\n0 1 3 100 10\n", "start time")
        self.refused("1\n0 1 9 100 10 1\n", ":2:", "priority group 9")
        self.refused("1\n0 1 3 70000 10 1\n", "port 70000")
        self.refused("1\n0 1 3 100 -5 1\n", "'-5'", "size")
        self.refused("1\n0 0 3 100 5 1\n", "to itself")
        self.refused("2\n0 1 3 100 5 2\n1 0 3 100 5 1\n", ":3:",
                     "ascending")
        self.refused("1\n0 3 3 100 5 1\n", "node 3 is not a host",
                     topo=parse_topo(TOPO))
        self.refused("1\n0 9 3 100 5 1\n", "node 9 is not a host",
                     topo=parse_topo(TOPO))


if __name__ == "__main__":
    unittest.main()
