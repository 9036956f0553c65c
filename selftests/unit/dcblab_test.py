# SPDX-License-Identifier: GPL-2.0
"""Unit tests of dcblab's command line, scripts/dcbnet/cli.py (run by
test_dcblab.sh): parsing, the refusals, and the parts of a run that do
not need a kernel (folders, params.txt, metadata's input, the guests'
shares and their merge).  Nothing here starts a guest or a network."""

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "scripts")
sys.path.insert(0, SCRIPTS)

from dcbnet import cli, experiment  # noqa: E402

DCBLAB = os.path.realpath(os.path.join(SCRIPTS, "dcblab"))


def parse(*argv):
    return cli.parse_run(list(argv))


class ParseRun(unittest.TestCase):
    def refused(self, *argv):
        with self.assertRaises(cli.Error) as c:
            parse(*argv)
        return c.exception

    def test_defaults(self):
        r = parse("incast")
        self.assertEqual((r.name, r.out, r.duration, r.repeat, r.where),
                         ("incast", None, None, 1, "auto"))
        self.assertEqual(r.kv, [])
        self.assertEqual(r.again, ["incast"])

    def test_options_both_forms(self):
        for argv in (("--out", "/x", "--repeat", "3", "incast"),
                     ("incast", "--out=/x", "--repeat=3")):
            r = parse(*argv)
            self.assertEqual((r.out, r.repeat), ("/x", 3))

    def test_duration_is_the_last_knob(self):
        r = parse("--duration", "5", "incast", "duration=7", "rate=1gbit")
        self.assertEqual(r.kv, [("duration", "7"), ("rate", "1gbit"),
                                ("duration", "5")])
        # the guest gets every argument but --vm, --out and --repeat,
        # in their order
        r = parse("--vm", "--duration=0.5", "--out", "o", "incast",
                  "--repeat", "2", "a=b")
        self.assertEqual(r.again, ["--duration=0.5", "incast", "a=b"])
        self.assertEqual(r.where, "vm")

    def test_where(self):
        self.assertEqual(parse("x", "--native").where, "native")
        self.assertEqual(parse("x", "--native", "--vm").where, "vm")
        self.assertNotIn("--native", parse("x", "--native").again)

    def test_repeat_bounds(self):
        self.assertEqual(parse("x", "--repeat", "999").repeat, 999)
        for bad in ("0", "1000", "01", "-1", "x", "2.5", ""):
            e = self.refused("x", "--repeat=" + bad)
            self.assertEqual(e.code, 1)
            self.assertIn("--repeat wants 1 to 999, not '%s'" % bad, e.msg)
        self.assertIn("--repeat wants a count",
                      self.refused("x", "--repeat").msg)

    def test_duration(self):
        self.assertEqual(parse("x", "--duration", "0.25").duration, "0.25")
        for bad in ("0", "-1", "1e3", "x", "5s"):
            self.assertIn("--duration wants seconds",
                          self.refused("x", "--duration", bad).msg)

    def test_refusals(self):
        self.assertEqual(self.refused("x", "--bogus").msg,
                         "unknown option --bogus")
        self.assertEqual(self.refused("x", "y").msg, "extra argument 'y'")
        self.assertEqual(self.refused("x", "=5").msg,
                         "want key=value, not '=5'")
        self.assertEqual(self.refused("x", "a-b=5").msg,
                         "want key=value, not 'a-b=5'")
        self.assertEqual(self.refused("x", "--out").msg,
                         "--out wants a directory")
        # no experiment: the usage (no message), status 2
        e = self.refused("--native")
        self.assertEqual((e.msg, e.code), (None, 2))

    def test_help_stops_parsing(self):
        self.assertTrue(parse("-h", "--bogus").help)
        self.assertTrue(parse("--help").help)

    def test_empty_value(self):
        self.assertEqual(parse("x", "limit=").kv, [("limit", "")])


class Knobs(unittest.TestCase):
    def test_names(self):
        for bad in ("", ".x", "_cmp", "../x", "a/b"):
            with self.assertRaisesRegex(cli.Error, "bad experiment name"):
                cli.experiment_class(bad)
        with self.assertRaisesRegex(cli.Error, r"no experiment 'nosuch' "
                                    r"\(try: dcblab list\)"):
            cli.experiment_class("nosuch")
        self.assertEqual(cli.experiment_class("incast").NAME, "incast")

    def test_every_knob_parses(self):
        # every knob of every experiment can be given as key=value
        for n in experiment.names():
            cls = experiment.get(n)
            kv = ["%s=%s" % (q.name, q.default) for q in cls.PARAMS]
            r = parse(n, *kv)
            self.assertEqual(cli.knobs(cls, r.kv),
                             {q.name: q.default for q in cls.PARAMS})

    def test_override(self):
        cls = experiment.get("incast")
        p = cli.knobs(cls, [("rate", "40mbit"), ("rate", "1gbit")])
        self.assertEqual(p["rate"], "1gbit")
        self.assertEqual(list(p), [q.name for q in cls.PARAMS])
        with self.assertRaisesRegex(cli.Error, r"experiment incast has no "
                                    r"knob 'nosuch' \(dcblab params incast\)"):
            cli.knobs(cls, [("nosuch", "1")])

    def test_time_budget(self):
        inc, cmp = experiment.get("incast"), experiment.get("compare")
        # the default only when above 60 s; one given counts as it is
        self.assertEqual(cli.time_budget(inc, parse("incast")), 60)
        self.assertEqual(cli.time_budget(cmp, parse("compare")), 900)
        self.assertEqual(cli.time_budget(
            inc, parse("incast", "--duration", "5")), 5)
        self.assertEqual(cli.time_budget(inc, parse("incast", "duration=7")),
                         7)
        tree = experiment.get("pfc_tree")
        self.assertEqual(cli.time_budget(tree, parse("pfc_tree")), 60)

    def test_guest_timeout(self):
        self.assertEqual(cli.guest_timeout(5, 1), 470)
        self.assertEqual(cli.guest_timeout(900, 3), 3 * 9240 + 180)
        self.assertEqual(cli.guest_timeout(0.55, 1), 425)

    def test_guest_argv(self):
        r = parse("--vm", "incast", "--out", "o", "--duration", "5",
                  "rate=40mbit", "--repeat", "4")
        self.assertEqual(cli.guest_argv(r, "/p", 2, 5), [
            cli.VM_RUN, "--timeout", str(2 * 290 + 180), "--", DCBLAB,
            "run", "--native", "--out", "/p", "--repeat", "2", "incast",
            "--duration", "5", "rate=40mbit"])


class Guests(unittest.TestCase):
    def test_split_runs(self):
        self.assertEqual(cli.split_runs(3, 2), [(1, 2), (3, 1)])
        self.assertEqual(cli.split_runs(5, 3), [(1, 2), (3, 2), (5, 1)])
        self.assertEqual(cli.split_runs(4, 4), [(1, 1), (2, 1), (3, 1),
                                                (4, 1)])
        for n in range(1, 20):
            for g in range(1, n + 1):
                s = cli.split_runs(n, g)
                self.assertEqual(sum(c for _, c in s), n)
                self.assertEqual(s[-1][0] + s[-1][1] - 1, n)

    def test_vm_guests(self):
        with mock.patch.dict(os.environ, {"DCBLAB_GUESTS": "3"}), \
                mock.patch.object(cli, "vm_print", return_value="virtual"):
            self.assertEqual(cli.vm_guests(2), 2)
            self.assertEqual(cli.vm_guests(5), 3)
            self.assertEqual(cli.vm_guests(1), 1)
        with mock.patch.dict(os.environ, {"DCBLAB_GUESTS": "3"}), \
                mock.patch.object(cli, "vm_print", return_value="real"):
            self.assertEqual(cli.vm_guests(5), 1)
        with mock.patch.dict(os.environ, {"DCBLAB_GUESTS": "x"}), \
                mock.patch.object(cli, "vm_print", return_value="virtual"):
            self.assertRaisesRegex(cli.Error, "DCBLAB_GUESTS wants a count",
                                   cli.vm_guests, 2)

    def test_merge_parts(self):
        with tempfile.TemporaryDirectory() as out:
            parts = []
            for j, runs in ((1, (1, 2)), (2, (3,))):
                part = os.path.join(out, ".part-%d" % j)
                parts.append(part)
                for k in runs:
                    os.makedirs(os.path.join(part, "run-%d" % k))
                    with open(os.path.join(part, "run-%d" % k, "x"),
                              "w") as f:
                        f.write(str(k))
                with open(os.path.join(part, "cpu-guard.tsv"), "w") as f:
                    f.write("traffic\t%d\n" % (10 * j))
                for name in ("params.txt", "metadata.json"):
                    with open(os.path.join(part, name), "w") as f:
                        f.write("part %d\n" % j)
            cli.merge_parts(out, parts)
            self.assertEqual(sorted(os.listdir(out)),
                             ["cpu-guard.tsv", "metadata.json", "params.txt",
                              "run-1", "run-2", "run-3"])
            with open(os.path.join(out, "run-3", "x")) as f:
                self.assertEqual(f.read(), "3")
            with open(os.path.join(out, "cpu-guard.tsv")) as f:
                self.assertEqual(f.read(), "traffic\t10\ntraffic\t20\n")
            with open(os.path.join(out, "params.txt")) as f:
                self.assertEqual(f.read(), "part 1\n")


FAKE_GUEST = r"""
import os, sys
out, runs = sys.argv[1], int(sys.argv[2])
base = int(os.environ["DCBLAB_RUN_BASE"])
assert os.environ["DCBLAB_RUN_DIRS"] == "1"
assert os.environ["DCBLAB_IN_GUEST"] == "1"
for k in range(base, base + runs):
    os.makedirs(os.path.join(out, "run-%d" % k))
with open(os.path.join(out, "cpu-guard.tsv"), "w") as f:
    f.write("runs from %d\t50\n" % base)
for name in ("params.txt", "metadata.json"):
    with open(os.path.join(out, name), "w") as f:
        f.write("base %d\n" % base)
print("guest from run", base)
sys.exit(3 if base == 3 else 0)
"""


class RunGuests(unittest.TestCase):
    """run_guests with each guest replaced by a process that writes what
    a guest's dcblab would."""

    def test_three_guests(self):
        merged = []

        def argv(r, out, runs, budget):
            return [sys.executable, "-c", FAKE_GUEST, out, str(runs)]

        def module(args, **kw):
            merged.append(args)
            return 0

        with tempfile.TemporaryDirectory() as out, \
                mock.patch.object(cli, "guest_argv", argv), \
                mock.patch.object(cli, "py_module", module), \
                contextlib.redirect_stdout(io.StringIO()) as so, \
                contextlib.redirect_stderr(io.StringIO()) as se:
            rc = cli.run_guests(parse("incast", "--repeat", "5"), 3, 5, out)
            self.assertEqual(rc, 3)
            self.assertEqual(sorted(os.listdir(out)),
                             ["cpu-guard.tsv", "metadata.json", "params.txt"]
                             + ["run-%d" % k for k in range(1, 6)])
            with open(os.path.join(out, "cpu-guard.tsv")) as f:
                self.assertEqual(f.read(), "runs from 1\t50\nruns from 3"
                                 "\t50\nruns from 5\t50\n")
            with open(os.path.join(out, "metadata.json")) as f:
                self.assertEqual(f.read(), "base 1\n")
        self.assertEqual(merged, [["dcbanalysis", "metadata-merge", out, "5",
                                   "3"]])
        # each guest's output, named, in guest order
        self.assertEqual(so.getvalue(), "[guest 1] guest from run 1\n"
                         "[guest 2] guest from run 3\n"
                         "[guest 3] guest from run 5\n")
        self.assertIn("guest 1 of 3: runs 1-2", se.getvalue())
        self.assertIn("guest 2 failed (status 3)", se.getvalue())


class Folders(unittest.TestCase):
    def test_new_out_dir(self):
        with tempfile.TemporaryDirectory() as t:
            res = os.path.join(t, "results")
            a = cli.new_out_dir("incast", results=res)
            self.assertRegex(os.path.basename(a), r"^incast-\d{8}-\d{6}$")
            self.assertEqual(os.readlink(os.path.join(res, "latest")),
                             os.path.basename(a))
            # the same second: the pid makes it new
            with mock.patch.object(os.path, "exists", return_value=True):
                b = cli.new_out_dir("incast", results=res)
            self.assertEqual(b, a + "-%d" % os.getpid())
            self.assertEqual(os.readlink(os.path.join(res, "latest")),
                             os.path.basename(b))
            # a folder asked for: created, results/latest untouched
            c = cli.new_out_dir("incast", os.path.join(t, "o", "p"),
                                results=res)
            self.assertTrue(os.path.isdir(c))
            self.assertEqual(os.readlink(os.path.join(res, "latest")),
                             os.path.basename(b))
            self.assertEqual(sorted(os.listdir(res)),
                             sorted([os.path.basename(a),
                                     os.path.basename(b), "latest"]))

    def test_copy_into(self):
        with tempfile.TemporaryDirectory() as t:
            src, dst = os.path.join(t, "s"), os.path.join(t, "d")
            os.makedirs(os.path.join(src, "run-1"))
            os.makedirs(dst)
            with open(os.path.join(src, "run-1", "f"), "w") as f:
                f.write("x")
            os.symlink("run-1", os.path.join(src, "l"))
            cli.copy_into(src, dst)
            self.assertFalse(os.path.exists(src))
            self.assertTrue(os.path.isfile(os.path.join(dst, "run-1", "f")))
            self.assertEqual(os.readlink(os.path.join(dst, "l")), "run-1")

    def test_shown(self):
        s = cli.Shown("/tmp/dcblab-run.x", "/repo/results/a")
        self.assertEqual(s("/tmp/dcblab-run.x/run-2"),
                         "/repo/results/a/run-2")
        self.assertEqual(s("/tmp/dcblab-run.x"), "/repo/results/a")
        self.assertEqual(s("/tmp/dcblab-run.xy"), "/tmp/dcblab-run.xy")
        self.assertEqual(cli.Shown()("/a"), "/a")

    def test_progress(self):
        self.assertEqual(cli.progress("x", 1, 1, 3, 0), "[1/3] x")
        self.assertEqual(cli.progress("x", 2, 1, 3, 200),
                         "[2/3] x, 3:20 elapsed, about 7 min left")
        # a guest's share, numbered as one guest would
        self.assertEqual(cli.progress("x", 5, 4, 6, 61),
                         "[5/6] x, 1:01 elapsed, about 3 min left")


class Runs(unittest.TestCase):
    """run_runs with the experiment and the analysis replaced by
    recorders: what dcblab itself writes and starts."""

    def run_runs(self, top, argv, env=None):
        calls, meta = [], {}

        def child(cmd, env):
            calls.append((cmd, env))
            return 0

        def module(args, **kw):
            if args[:2] == ["dcbanalysis", "metadata"]:
                with open(os.path.join(args[3], "dcblab.json")) as f:
                    meta.update(json.load(f))
            return 0

        r = parse(*argv)
        cls = experiment.get(r.name)
        p = cli.knobs(cls, r.kv)
        with mock.patch.object(cli, "run_child", child), \
                mock.patch.object(cli, "py_module", module), \
                mock.patch.dict(os.environ, env or {}), \
                contextlib.redirect_stderr(io.StringIO()) as err:
            rc = cli.run_runs(cls, r, p, argv, top, cli.Shown())
        return rc, calls, meta, err.getvalue()

    def test_repeat(self):
        with tempfile.TemporaryDirectory() as top:
            rc, calls, meta, err = self.run_runs(
                top, ["incast", "--repeat", "2", "rate=40mbit"],
                {"DCBLAB_IN_GUEST": "1"})
            self.assertEqual(rc, 0)
            self.assertEqual([c[0][4:6] for c in calls],
                             [["incast", os.path.join(top, "run-%d" % k)]
                              for k in (1, 2)])
            cmd, env = calls[0]
            self.assertEqual(cmd[1:4], ["-m", "dcbnet", "run"])
            self.assertIn("rate=40mbit", cmd)
            self.assertEqual(len(cmd), 6 + len(experiment.get(
                "incast").PARAMS))
            self.assertEqual(env["DCBLAB_CPU_GUARD"], "warn")
            self.assertEqual(env["DCBLAB_CPU_LOG"],
                             os.path.join(top, "cpu-guard.tsv"))
            self.assertEqual(env["DCBLAB_RAW_DIR"], os.path.join(top, ".raw"))
            self.assertTrue(env["PYTHONPATH"].endswith("scripts"))
            with open(os.path.join(top, "params.txt")) as f:
                lines = f.read().splitlines()
            self.assertRegex(lines[0], r"^# dcblab run incast \d{4}-\d\d-\d\dT"
                             r"\d\d:\d\d:\d\dZ$")
            self.assertRegex(lines[1], r"^# kernel \S+, repo \S+$")
            self.assertIn("rate=40mbit", lines)
            self.assertEqual(meta["scenario"], "incast")
            self.assertEqual(meta["repeat"], 2)
            self.assertEqual(meta["knobs"]["rate"], "40mbit")
            self.assertEqual(meta["command"],
                             "dcblab run incast --repeat 2 rate=40mbit")
            self.assertIn("[2/2] incast,", err)
            self.assertFalse(os.path.exists(os.path.join(top, ".raw")))

    def test_guest_share(self):
        # guest 2 of a shared --repeat: runs numbered from its base,
        # always in run-K folders; the numbering is not the
        # experiment's
        with tempfile.TemporaryDirectory() as top:
            rc, calls, _, _ = self.run_runs(
                top, ["incast", "--repeat", "2"],
                {"DCBLAB_IN_GUEST": "1", "DCBLAB_RUN_BASE": "3",
                 "DCBLAB_RUN_DIRS": "1"})
            self.assertEqual([c[0][5] for c in calls],
                             [os.path.join(top, "run-%d" % k)
                              for k in (3, 4)])
            self.assertNotIn("DCBLAB_RUN_BASE", calls[0][1])
            self.assertNotIn("DCBLAB_RUN_DIRS", calls[0][1])

    def test_failed_run(self):
        with tempfile.TemporaryDirectory() as top, \
                mock.patch.object(cli, "run_child", return_value=1), \
                contextlib.redirect_stderr(io.StringIO()):
            r = parse("incast")
            cls = experiment.get("incast")
            with self.assertRaisesRegex(cli.Error, r"experiment incast failed "
                                        r"in run 1 \(partial results in "):
                cli.run_runs(cls, r, cli.knobs(cls, []), ["incast"], top,
                             cli.Shown())


CLEANING_CHILD = r"""
import signal, sys, time
def stopped(sig, frame):
    with open(sys.argv[1], "w") as f:
        f.write("cleaned up after %d" % sig)
    sys.exit(143)
signal.signal(signal.SIGTERM, stopped)
open(sys.argv[1] + ".ready", "w").close()
time.sleep(30)
"""


class RunChild(unittest.TestCase):
    def test_stopped(self):
        # dcblab stopped by SIGTERM (here: a SIGALRM handler exiting as
        # the SIGTERM one does, once the child is ready) while an
        # experiment runs: the experiment gets SIGTERM and dcblab waits
        # for its clean-up
        t = tempfile.TemporaryDirectory()
        f = os.path.join(t.name, "done")

        def exit143(sig, frame):
            if not os.path.exists(f + ".ready"):
                signal.setitimer(signal.ITIMER_REAL, 0.1)
                return
            sys.exit(143)
        old = signal.signal(signal.SIGALRM, exit143)
        try:
            with t:
                signal.setitimer(signal.ITIMER_REAL, 0.1)
                with self.assertRaises(SystemExit) as c:
                    cli.run_child([sys.executable, "-c", CLEANING_CHILD, f])
                self.assertEqual(c.exception.code, 143)
                self.assertTrue(os.path.exists(f + ".ready"))
                with open(f) as fd:
                    self.assertEqual(fd.read(), "cleaned up after %d"
                                     % signal.SIGTERM)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)

    def test_status(self):
        self.assertEqual(cli.run_child([sys.executable, "-c",
                                        "raise SystemExit(7)"]), 7)


class Main(unittest.TestCase):
    """main(): exit statuses and messages; a refusal starts nothing."""

    def main(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        never = mock.Mock(side_effect=AssertionError("started a run"))
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err),\
                mock.patch.object(cli, "run_in_guest", never), \
                mock.patch.object(cli, "run_here", never), \
                mock.patch.object(cli, "new_out_dir", never):
            rc = cli.main(list(argv))
        return rc, out.getvalue(), err.getvalue()

    def test_refusals(self):
        for argv, msg in (
                (("run", "nosuch"), "no experiment 'nosuch'"),
                (("run", "incast", "nosuch=1"), "has no knob 'nosuch'"),
                (("run", "incast", "--vm", "x=1"), "has no knob 'x'"),
                (("run", "pfc_tree", "--duration", "5"),
                 "has no knob 'duration'"),
                (("run", "incast", "--repeat", "0"), "--repeat wants"),
                (("run", "incast", "rate"), "extra argument 'rate'"),
                (("params",), "params wants an experiment"),
                (("params", "nosuch"), "no experiment 'nosuch'"),
                (("params", "incast", "x"), "extra argument 'x'"),
                (("list", "x"), "extra argument 'x'"),
                (("foo",), "unknown command 'foo' (dcblab help)")):
            rc, out, err = self.main(*argv)
            self.assertEqual(rc, 1, argv)
            self.assertEqual(out, "")
            self.assertTrue(err.startswith("dcblab: error: "), err)
            self.assertIn(msg, err)
            self.assertEqual(err.count("\n"), 1, err)

    def test_usage(self):
        for argv in ((), ("run",), ("run", "--vm")):
            rc, out, err = self.main(*argv)
            self.assertEqual((rc, out), (2, ""))
            self.assertTrue(err.startswith("usage: dcblab list"))
        for argv in (("help",), ("-h",), ("--help",), ("run", "-h")):
            rc, out, err = self.main(*argv)
            self.assertEqual((rc, err), (0, ""))
            self.assertTrue(out.startswith("usage: dcblab list"))

    def test_list_params(self):
        rc, out, _ = self.main("list")
        self.assertEqual(rc, 0)
        self.assertEqual([ln.split()[0] for ln in out.splitlines()],
                         experiment.names())
        rc, out, _ = self.main("params", "incast")
        self.assertEqual(rc, 0)
        lines = out.splitlines()
        self.assertEqual(lines[0].split(), ["KEY", "DEFAULT", "DESCRIPTION"])
        self.assertEqual([ln.split()[0] for ln in lines[1:]],
                         [q.name for q in experiment.get("incast").PARAMS])
        # an empty default shows as ""
        burst = [ln for ln in lines if ln.startswith("burst ")][0]
        self.assertEqual(burst.split()[1], '""')

    def test_in_guest_runs_here(self):
        with mock.patch.dict(os.environ, {"DCBLAB_IN_GUEST": "1"}):
            self.assertTrue(cli.can_run_here())


class EntryPoint(unittest.TestCase):
    """scripts/dcblab itself, also through a link as make install
    leaves it."""

    def test_link(self):
        with tempfile.TemporaryDirectory() as t:
            link = os.path.join(t, "dcblab")
            os.symlink(DCBLAB, link)
            p = subprocess.run([link, "list"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=t)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(len(p.stdout.splitlines()),
                             len(experiment.names()))
            p = subprocess.run([link, "run", "incast", "--repeat", "x"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, cwd=t)
            self.assertEqual(p.returncode, 1)
            self.assertEqual(p.stderr, "dcblab: error: --repeat wants 1 to "
                             "999, not 'x'\n")
            self.assertEqual(os.listdir(t), ["dcblab"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
