# SPDX-License-Identifier: GPL-2.0
"""dcblab: run DCB lab experiments and collect their results.

    dcblab list
    dcblab params EXPERIMENT
    dcblab run EXPERIMENT [--out DIR] [--duration S] [--repeat N]
               [--vm|--native] [key=value ...]
    dcblab help

An experiment is a module of dcbnet.experiments (dcbnet.experiment).
`run` needs the sch_dcb module.  Where the host cannot load modules,
dcblab re-executes itself as root in the qemu guest (scripts/vm-run),
which mounts the repository at the same path, so the results land in
<repo>/results/<experiment>-<YYYYmmdd-HHMMSS>/ (and results/latest).
Every results folder gets metadata.json (what it ran on and with) and,
for the experiments that report metrics, one tidy results.csv of all
its runs, summarised on the host by scripts/dcbanalysis.  The
experiment itself and the analysis run as child processes of
$DCBLAB_PYTHON (default /usr/bin/python3), each run in a process of its
own.  See Documentation/dcblab.rst.
"""

import datetime
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from . import TOP, experiment

SELF = os.path.join(TOP, "scripts", "dcblab")
VM_RUN = os.path.join(TOP, "scripts", "vm-run")
TOOLS = os.path.join(TOP, "tools")
DCBMON = os.path.join(TOOLS, "dcbmon")
RESULTS = os.path.join(TOP, "results")

# the commands a run in place needs besides Python: iproute2, iperf3
# (the UDP experiments), ethtool (Mininet's links), ss (waiting for a
# listener)
NEEDED = ("ip", "tc", "iperf3", "ethtool", "ss")

USAGE = """usage: dcblab list
       dcblab params EXPERIMENT
       dcblab run EXPERIMENT [--out DIR] [--duration S] [--repeat N] [--vm|--native]
                  [key=value ...]

  list       experiments with a one-line description
  params     the experiment's key=value knobs with defaults
  run        run an experiment; results go to DIR (default
             %s/EXPERIMENT-YYYYmmdd-HHMMSS, plus results/latest)
  --duration S   traffic duration in seconds (same as duration=S)
  --repeat N     run it N times (DIR/run-1 ... DIR/run-N); the table gives
                 the median and range of every metric over the runs
  --vm           always run in the qemu guest (scripts/vm-run)
  --native       never re-execute in the guest""" % RESULTS


class Error(Exception):
    """A refusal: main() prints the message as dcblab's error (or, with
    no message, the usage) and exits with status code."""

    def __init__(self, msg, code=1):
        super().__init__(msg)
        self.msg, self.code = msg, code


def log(msg):
    print("dcblab: %s" % msg, file=sys.stderr, flush=True)


def warn(msg):
    print("dcblab: warning: %s" % msg, file=sys.stderr, flush=True)


def python():
    """The interpreter of the experiments and the analysis: Debian's
    (pandas, matplotlib, mininet), not one earlier in PATH."""
    return os.environ.get("DCBLAB_PYTHON", "/usr/bin/python3")


def py_env(**extra):
    """The environment of `python3 -m dcbnet|dcbanalysis`: ours with
    scripts/ as the module path, plus extra."""
    env = dict(os.environ, PYTHONPATH=os.path.join(TOP, "scripts"))
    env.update(extra)
    return env


def py_module(args, **kw):
    """Run `$DCBLAB_PYTHON -m ARGS...`; its exit status."""
    return subprocess.run([python(), "-m"] + args, env=py_env(), **kw
                          ).returncode


# ------------------------------------------------------------ arguments

class RunArgs:
    """What `dcblab run` was asked: the experiment, --out, --duration,
    --repeat (int), where (auto, vm or native), the key=value knobs as
    (key, value) pairs in their order (--duration S last, as
    duration=S), the arguments a guest is given again (all but --vm,
    --native, --out and --repeat, in their order) and whether help was
    asked for (then nothing else is parsed)."""

    def __init__(self):
        self.name = self.out = self.duration = None
        self.repeat, self.where, self.help = 1, "auto", False
        self.kv, self.again = [], []


def _opt_value(argv, i, opt, what):
    """(value, next index) of the option argv[i], given as OPT=VALUE or
    as OPT VALUE."""
    a = argv[i]
    if a.startswith(opt + "="):
        return a[len(opt) + 1:], i + 1
    if i + 1 >= len(argv) or argv[i + 1] == "":
        raise Error("%s wants %s" % (opt, what))
    return argv[i + 1], i + 2


def parse_run(argv):
    """RunArgs of `dcblab run`'s arguments argv; Error on a bad one."""
    r = RunArgs()
    repeat = "1"
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--out" or a.startswith("--out="):
            r.out, i = _opt_value(argv, i, "--out", "a directory")
            continue
        if a == "--duration" or a.startswith("--duration="):
            j = i
            r.duration, i = _opt_value(argv, i, "--duration", "seconds")
            r.again += argv[j:i]
            continue
        if a == "--repeat" or a.startswith("--repeat="):
            repeat, i = _opt_value(argv, i, "--repeat", "a count")
            continue
        i += 1
        if a in ("--vm", "--native"):
            r.where = a[2:]
        elif a in ("-h", "--help"):
            r.help = True
            return r
        elif a.startswith("-"):
            raise Error("unknown option %s" % a)
        elif "=" in a:
            k, _, v = a.partition("=")
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k):
                raise Error("want key=value, not '%s'" % a)
            r.kv.append((k, v))
            r.again.append(a)
        elif r.name is not None:
            raise Error("extra argument '%s'" % a)
        else:
            r.name = a
            r.again.append(a)
    if r.name is None:
        raise Error(None, 2)
    if not re.fullmatch(r"[1-9][0-9]{0,2}", repeat):
        raise Error("--repeat wants 1 to 999, not '%s'" % repeat)
    r.repeat = int(repeat)
    if r.duration is not None:
        if not re.fullmatch(r"[0-9]+(\.[0-9]+)?", r.duration) or \
                float(r.duration) <= 0:
            raise Error("--duration wants seconds, not '%s'" % r.duration)
        r.kv.append(("duration", r.duration))
    return r


def experiment_class(name):
    """The Experiment subclass called name; Error if there is none."""
    if not name or name[0] in "._" or "/" in name:
        raise Error("bad experiment name '%s'" % name)
    if name not in experiment.names():
        raise Error("no experiment '%s' (try: dcblab list)" % name)
    try:
        return experiment.get(name)
    except ValueError as e:
        raise Error(str(e)) from None


def knobs(cls, kv):
    """The experiment's knobs in force: {name: value} in its PARAMS'
    order, the defaults overridden by the (key, value) pairs kv, as the
    experiment itself resolves them; Error naming the first key that is
    not one of its knobs."""
    try:
        return cls(dict(kv)).p
    except KeyError as e:
        raise Error(e.args[0]) from None


# ------------------------------------------------------------ list, params

def cmd_list():
    for n in experiment.names():
        try:
            desc = experiment.get(n).DESCRIPTION
        except Exception:
            # one broken module must not hide the others
            desc = "(broken experiment file)"
        print("%-16s %s" % (n, desc))
    return 0


def cmd_params(name):
    cls = experiment_class(name)
    print("%-16s %-14s %s" % ("KEY", "DEFAULT", "DESCRIPTION"))
    for q in cls.PARAMS:
        print("%-16s %-14s %s" % (q.name, q.default or '""', q.doc))
    return 0


# ------------------------------------------------------------ host side

def can_run_here():
    """True where sch_dcb can be used in place: in the guest's half of
    a run (DCBLAB_IN_GUEST), in scripts/vm-run's guest (DCBLAB_VM),
    with sch_dcb loaded, or on a kernel that loads modules."""
    if os.environ.get("DCBLAB_IN_GUEST", "0") == "1" or \
            os.environ.get("DCBLAB_VM", "0") == "1" or \
            os.path.isdir("/sys/module/sch_dcb"):
        return True
    if not os.path.exists("/proc/modules"):
        return False
    try:
        with open("/proc/sys/kernel/modules_disabled") as f:
            return f.read().strip() == "0"
    except OSError:
        return True


def time_budget(cls, r):
    """Seconds one run may take, for the guest's time limit: the
    duration asked for (--duration or duration=), else the experiment's
    default duration when above 60 s (some give a time budget there),
    else 60 s."""
    given = [v for k, v in r.kv if k == "duration"]
    default = {q.name: q.default for q in cls.PARAMS}.get("duration", "")
    try:
        return float(given[-1]) if given else max(float(default), 60.0)
    except ValueError:
        return 60.0


def guest_timeout(budget, runs):
    """scripts/vm-run's time limit (s) for runs runs of budget seconds
    each: in virtual time a guest second can take several on the wall
    clock (bench-clock's wall/guest, Documentation/testing.rst)."""
    return int(runs * (10 * budget + 240) + 180)


def split_runs(repeat, guests):
    """[(first run, count)] of each guest when repeat runs are shared
    by guests guests, the first ones taking one more when they do not
    divide evenly."""
    out, base = [], 1
    for j in range(guests):
        n = repeat // guests + (1 if j < repeat % guests else 0)
        out.append((base, n))
        base += n
    return out


def vm_print(what):
    return subprocess.run([VM_RUN, "--print-" + what], stdout=subprocess.PIPE,
                          text=True).stdout.strip()


def vm_guests(repeat):
    """How many guests share repeat runs.  Virtual-time guests run on
    one host thread each and do not change each other's results
    (testing.rst, "The two clocks"), so the runs are spread over as many
    guests as vm-run --print-jobs says the host runs side by side
    (DCBLAB_GUESTS overrides); a real-time guest runs them all."""
    if repeat == 1:
        return 1
    n = os.environ.get("DCBLAB_GUESTS") or vm_print("jobs")
    if not re.fullmatch(r"[1-9][0-9]*", n):
        raise Error("DCBLAB_GUESTS wants a count, not '%s'" % n)
    if vm_print("clock") != "virtual":
        return 1
    return min(int(n), repeat)


def new_out_dir(name, out=None, results=RESULTS):
    """Create out, or else results/NAME-STAMP with results/latest
    pointing at it; its path."""
    try:
        if out:
            os.makedirs(out, exist_ok=True)
            return out
        out = os.path.join(results, "%s-%s" % (
            name, datetime.datetime.now().strftime("%Y%m%d-%H%M%S")))
        os.makedirs(results, exist_ok=True)
        if os.path.exists(out):
            out += "-%d" % os.getpid()
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        raise Error("cannot create %s: %s" % (e.filename, e.strerror))
    # a new link renamed over the old one: results/latest never missing
    tmp = os.path.join(results, ".latest-%d" % os.getpid())
    if os.path.lexists(tmp):
        os.unlink(tmp)
    os.symlink(os.path.basename(out), tmp)
    os.replace(tmp, os.path.join(results, "latest"))
    return out


def copy_into(src, dst):
    """Move the files of folder src into folder dst (`cp -a src/. dst/`,
    then src removed); Error if that fails."""
    try:
        shutil.copytree(src, dst, symlinks=True, dirs_exist_ok=True)
        shutil.rmtree(src)
    except (OSError, shutil.Error) as e:
        raise Error("could not move the results from %s to %s: %s"
                    % (src, dst, e))


def merge_parts(out, parts):
    """Put the parts (folders .part-J of out, one per guest, in guest
    order) together in out: their run-K folders moved there, their
    cpu-guard.tsv added up, params.txt and metadata.json taken from the
    first; each part removed."""
    for j, part in enumerate(parts):
        for e in sorted(os.listdir(part)):
            if re.fullmatch(r"run-[0-9]+", e):
                os.replace(os.path.join(part, e), os.path.join(out, e))
        guard = os.path.join(part, "cpu-guard.tsv")
        if os.path.isfile(guard):
            with open(guard) as f, \
                    open(os.path.join(out, "cpu-guard.tsv"), "a") as g:
                g.write(f.read())
        for f in ("params.txt", "metadata.json"):
            if j == 0 and os.path.isfile(os.path.join(part, f)):
                shutil.copy2(os.path.join(part, f), out)
        shutil.rmtree(part)


def run_child(argv, **kw):
    """Run argv to its end; its exit status.  If dcblab is stopped
    meanwhile, so is the child, and dcblab waits for it to clean up (an
    experiment removes its network, vm-run stops its guest): after
    Ctrl-C, which the terminal sends to the child as well, dcblab only
    waits; otherwise (SIGTERM) it sends the child SIGTERM.  A child
    still running a minute later gets SIGTERM (again), one more minute
    later SIGKILL."""
    p = subprocess.Popen(argv, **kw)
    try:
        return p.wait()
    except BaseException as e:
        if not isinstance(e, KeyboardInterrupt):
            p.terminate()
        for stop in (p.terminate, p.kill):
            try:
                p.wait(60)
                break
            except subprocess.TimeoutExpired:
                stop()
        p.wait()
        raise


def run_guests(r, guests, budget, out):
    """The runs 1..r.repeat in guests guests side by side, guest J
    writing its runs (run-K folders, numbered as one guest would) to
    out/.part-J, then put together in out (merge_parts), with
    metadata.json made the whole run's.  The exit status of the last
    guest that failed, else 0."""
    env = dict(os.environ, DCBLAB_IN_GUEST="1", DCBLAB_RUN_DIRS="1",
               DCBLAB_HOST_LOADAVG=host_loadavg())
    procs, parts, rc = [], [], 0
    try:
        for j, (base, n) in enumerate(split_runs(r.repeat, guests), 1):
            part = os.path.join(out, ".part-%d" % j)
            shutil.rmtree(part, ignore_errors=True)
            os.makedirs(part)
            parts.append(part)
            log("guest %d of %d: runs %d-%d" % (j, guests, base, base + n - 1))
            with open(part + ".log", "w") as f:
                procs.append(subprocess.Popen(
                    guest_argv(r, part, n, budget),
                    env=dict(env, DCBLAB_RUN_BASE=str(base)),
                    stdout=f, stderr=subprocess.STDOUT))
        for j, p in enumerate(procs, 1):
            if p.wait() != 0:
                rc = p.returncode
                warn("guest %d failed (status %d)" % (j, rc))
            with open(parts[j - 1] + ".log") as f:
                for line in f:
                    sys.stdout.write("[guest %d] %s" % (j, line))
            sys.stdout.flush()
            os.unlink(parts[j - 1] + ".log")
    except BaseException:
        for p in procs:
            p.terminate()
            p.wait()
        raise
    merge_parts(out, parts)
    if os.path.isfile(os.path.join(out, "metadata.json")) and \
            py_module(["dcbanalysis", "metadata-merge", out, str(r.repeat),
                       str(guests)], stdout=subprocess.DEVNULL) != 0:
        warn("metadata.json: the merge failed")
    return rc


def guest_argv(r, out, runs, budget):
    """vm-run's command line for runs runs of r into out."""
    return [VM_RUN, "--timeout", str(guest_timeout(budget, runs)), "--",
            SELF, "run", "--native", "--out", out, "--repeat", str(runs)] + \
        r.again


def host_loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run_in_guest(cls, r):
    """dcblab run r in scripts/vm-run's guest(s), then the results'
    summary here; the exit status."""
    if not os.access(VM_RUN, os.X_OK):
        raise Error("cannot load modules here and scripts/vm-run is missing")
    # the monitor is built here: the guest sees the repository
    if subprocess.run(["make", "-s", "-C", TOOLS],
                      stdout=subprocess.DEVNULL).returncode != 0:
        raise Error("make -C tools failed")
    # The guest writes only in the repository (the rest of the host's /
    # is a read-only share under an overlay that vanishes with the
    # guest): a folder outside it is created here first, the guest
    # writes into a staging folder of the repository, and its files
    # move to the folder asked for afterwards.
    out, stage = r.out, None
    if out:
        try:
            os.makedirs(out, exist_ok=True)
        except OSError:
            pass
        if not (os.path.isdir(out) and os.access(out, os.W_OK)):
            raise Error("cannot create or write %s" % out)
        out = os.path.realpath(out)
        if out != TOP and not out.startswith(TOP + "/"):
            try:
                os.makedirs(RESULTS, exist_ok=True)
                stage = tempfile.mkdtemp(prefix=".stage-%s." % r.name,
                                         dir=RESULTS)
            except OSError:
                raise Error("cannot create a staging folder in %s"
                            % RESULTS) from None
    if not stage:
        out = new_out_dir(r.name, out)
    budget = time_budget(cls, r)
    log("this host cannot load modules: running in the guest "
        "(scripts/vm-run)")
    guests = vm_guests(r.repeat)
    if guests > 1:
        rc = run_guests(r, guests, budget, stage or out)
    else:
        rc = run_child(guest_argv(r, stage or out, r.repeat, budget),
                       env=dict(os.environ, DCBLAB_IN_GUEST="1",
                                DCBLAB_HOST_LOADAVG=host_loadavg()))
    if stage:
        copy_into(stage, out)
    if not summarize(out) and rc == 0:
        rc = 1
    if rc == 0:
        log("results in %s" % out)
    return rc


def summarize(out):
    """out/results.csv from the runs' files, the plots the experiment
    draws, and the table, kept in out/table.txt and printed; nothing for
    experiments that report no metrics.  False if a step failed."""
    if not os.path.isfile(os.path.join(out, "params.txt")):
        return True
    for step in ("analyze", "plot"):
        if py_module(["dcbanalysis", step, out],
                     stdout=subprocess.DEVNULL) != 0:
            warn("dcbanalysis %s %s failed" % (step, out))
            return False
    res = os.path.join(out, "results.csv")
    if not os.path.isfile(res) or os.path.getsize(res) == 0:
        return True
    table = os.path.join(out, "table.txt")
    with open(table, "w") as f:
        if py_module(["dcbanalysis", "summary", out], stdout=f) != 0:
            warn("dcbanalysis summary %s failed" % out)
            return False
    with open(table) as f:
        sys.stdout.write(f.read())
    sys.stdout.flush()
    return True


# ------------------------------------------------------------ guest side

def load_sch_dcb():
    """insmod sch_dcb ($DCBLAB_DCB_KO, default the tree's) unless it is
    loaded, and check that tc finds its plugin."""
    if not os.path.isdir("/sys/module/sch_dcb"):
        ko = os.environ.get("DCBLAB_DCB_KO",
                            os.path.join(TOP, "sch_dcb", "sch_dcb.ko"))
        if not os.path.isfile(ko):
            raise Error("%s not built (make modules)" % ko)
        if subprocess.run(["insmod", ko]).returncode != 0:
            raise Error("insmod %s failed" % ko)
    so = os.path.join(os.environ["TC_LIB_DIR"], "q_dcb.so")
    if not os.path.isfile(so):
        raise Error("%s not built (make tc)" % so)


def fs_type(path):
    """The type of the file system path lives on."""
    return subprocess.run(["findmnt", "-n", "-o", "FSTYPE", "--target",
                           path], stdout=subprocess.PIPE,
                          text=True).stdout.strip()


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


def git_describe():
    p = subprocess.run(["git", "-C", TOP, "describe", "--always", "--dirty"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True)
    return p.stdout.strip() if p.returncode == 0 else "?"


class Shown:
    """Paths as the user will find them: in a guest, a run writes into a
    tmpfs staging folder whose files move to the folder asked for."""

    def __init__(self, stage=None, dest=None):
        self.stage, self.dest = stage, dest

    def __call__(self, path):
        s = self.stage
        if s and (path == s or path.startswith(s + "/")):
            return self.dest + path[len(s):]
        return path


def progress(name, k, base, last, elapsed):
    """The line before run k of base..last, elapsed s after the first
    started: how far it is and, after the first, the time left at the
    pace so far."""
    if k == base:
        return "[%d/%d] %s" % (k, last, name)
    left = (elapsed * (last - k + 1) // (k - base) + 59) // 60
    return "[%d/%d] %s, %d:%02d elapsed, about %d min left" % (
        k, last, name, elapsed // 60, elapsed % 60, left)


def run_here(cls, r, p, argv):
    """dcblab run r in place, with the knobs p; argv is this command's
    (after `run`), for metadata.json.  The exit status."""
    if os.geteuid() != 0:
        raise Error("run needs root (network namespaces, modules)")
    for c in NEEDED:
        if not shutil.which(c):
            raise Error("%s not installed" % c)
    srcs = [os.path.join(TOOLS, f) for f in ("dcbmon.c", "dcbmon_nl.c")]
    if not os.access(DCBMON, os.X_OK) or \
            max(map(os.path.getmtime, srcs)) > os.path.getmtime(DCBMON):
        if subprocess.run(["make", "-s", "-C", TOOLS],
                          stdout=subprocess.DEVNULL).returncode != 0:
            raise Error("make -C tools failed")
    if p.get("qdisc", "dcb") == "dcb":
        load_sch_dcb()
    else:
        warn("qdisc=%s: debugging fallback, not sch_dcb" % p["qdisc"])

    out = os.path.realpath(new_out_dir(r.name, r.out))
    # In a guest of scripts/vm-run the results folder is a 9p share:
    # each write waits for the host, and in virtual time the guest's
    # clock runs on while it waits (vm-run, sleep=on), so files written
    # during the traffic would let the host's speed into what is
    # measured.  The run writes into the guest's own memory (tmpfs) and
    # its files move to out when it ends, whatever way it ends.
    shown = Shown()
    if os.environ.get("DCBLAB_VM") == "1" and fs_type(out) == "9p":
        try:
            top = tempfile.mkdtemp(prefix="dcblab-run.", dir="/tmp")
        except OSError:
            raise Error("cannot create a staging folder in /tmp") from None
        shown = Shown(top, out)
    else:
        top = out
    try:
        return run_runs(cls, r, p, argv, top, shown)
    finally:
        if shown.stage:
            copy_into(shown.stage, shown.dest)


def run_runs(cls, r, p, argv, top, shown):
    """The runs of r into top (the run-K folders of --repeat), then
    metadata.json and, outside the guest's half of a run, the
    summary."""
    raw = os.path.join(top, ".raw")
    shutil.rmtree(raw, ignore_errors=True)
    with open(os.path.join(top, "params.txt"), "w") as f:
        f.write("# dcblab run %s %s\n" % (r.name, utc_now()))
        f.write("# kernel %s, repo %s\n" % (os.uname().release,
                                            git_describe()))
        f.writelines("%s=%s\n" % kv for kv in p.items())
    for f in ("guest-metrics.csv", "results.csv", "table.txt"):
        if os.path.exists(os.path.join(top, f)):
            os.unlink(os.path.join(top, f))
    # The CPU guard (dcbnet.experiment.CpuGuard) warns when the guest's
    # CPU was saturated during the traffic; every traffic phase's busy
    # share goes to metadata.json.
    env = py_env(DCBLAB_CPU_LOG=os.path.join(top, "cpu-guard.tsv"),
                 DCBLAB_CPU_GUARD="warn", DCBLAB_RAW_DIR=raw)
    open(env["DCBLAB_CPU_LOG"], "w").close()
    # (run_guests' numbering is for this command only)
    for k in ("DCBLAB_RUN_BASE", "DCBLAB_RUN_DIRS"):
        env.pop(k, None)
    base = int(os.environ.get("DCBLAB_RUN_BASE", "1"))
    dirs = os.environ.get("DCBLAB_RUN_DIRS", "0") == "1"
    last = base + r.repeat - 1
    started, t0 = utc_now(), time.monotonic()
    log("running %s, results in %s" % (r.name, shown(top)))
    for k in range(base, last + 1):
        d = top
        if r.repeat > 1 or dirs:
            d = os.path.join(top, "run-%d" % k)
            os.makedirs(d, exist_ok=True)
            log(progress(r.name, k, base, last, int(time.monotonic() - t0)))
        argv_run = [python(), "-m", "dcbnet", "run", r.name, d] + \
            ["%s=%s" % kv for kv in p.items()]
        if run_child(argv_run, env=env) != 0:
            raise Error("experiment %s failed in run %d (partial results "
                        "in %s)" % (r.name, k, shown(d)))
    if not write_metadata(top, raw, r, p, started, argv):
        warn("no metadata.json")
    if os.environ.get("DCBLAB_IN_GUEST", "0") != "1" and not summarize(top):
        return 1
    log("results in %s" % shown(top))
    return 0


def write_metadata(top, raw, r, p, started, argv):
    """top/metadata.json (scripts/dcbanalysis/metadata.py) from what
    the last run kept of its live network in raw and what dcblab ran;
    False if that failed."""
    info = {"scenario": r.name, "repeat": r.repeat, "started": started,
            "ended": utc_now(), "command": " ".join(["dcblab", "run"] + argv),
            "knobs": p}
    try:
        os.makedirs(raw, exist_ok=True)
        with open(os.path.join(raw, "dcblab.json"), "w") as f:
            json.dump(info, f)
    except OSError:
        return False
    if py_module(["dcbanalysis", "metadata", top, raw],
                 stdout=subprocess.DEVNULL) != 0:
        return False
    shutil.rmtree(raw)
    return True


# ------------------------------------------------------------ main

def cmd_run(argv):
    r = parse_run(argv)
    if r.help:
        print(USAGE)
        return 0
    # every refusal before anything is created or started
    cls = experiment_class(r.name)
    p = knobs(cls, r.kv)
    # the tbf debugging fallback needs no module
    tbf = p.get("qdisc") == "tbf"
    if r.where == "vm" or (r.where == "auto" and not tbf and
                           not can_run_here()):
        return run_in_guest(cls, r)
    return run_here(cls, r, p, argv)


def _terminated(signum, frame):
    # as a shell's status after SIGTERM; the children are stopped and
    # a guest's staged files moved on the way out (finally clauses),
    # which a second SIGTERM must not cut short
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sys.exit(128 + signum)


def main(argv):
    signal.signal(signal.SIGTERM, _terminated)
    cmd = argv[0] if argv else ""
    try:
        if cmd in ("list", "params"):
            want = 1 if cmd == "list" else 2
            if len(argv) < want:
                raise Error("params wants an experiment (dcblab list)")
            if len(argv) > want:
                raise Error("extra argument '%s'" % argv[want])
            return cmd_list() if cmd == "list" else cmd_params(argv[1])
        if cmd == "run":
            return cmd_run(argv[1:])
        if cmd in ("help", "-h", "--help"):
            print(USAGE)
            return 0
        if not cmd:
            raise Error(None, 2)
        raise Error("unknown command '%s' (dcblab help)" % cmd)
    except Error as e:
        if e.msg is None:
            print(USAGE, file=sys.stderr)
        else:
            print("dcblab: error: %s" % e.msg, file=sys.stderr)
        return e.code
    except KeyboardInterrupt:
        return 130
