#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Concurrency fuzzer of the rxe_cc sysfs interface (test_80).

  rxe_sysfs_fuzz.py --seed S --count N --secs T --op-timeout T --ko-dir DIR
                    --dev DEV --ns NS --gid G --peer-dev DEV --peer-ns NS
                    --peer-gid G --peer-ip IP

Workers, all at once, each with its own random stream (seeded with
"S:<worker>", so every worker repeats its own sequence of operations for a
seed; how they interleave depends on the scheduler):

  reader0, reader1  read every file of cc/ and cc/<algo>/ and check that it
                    holds a valid value (a number in the knob's range, a
                    known algorithm name)
  writer0, writer1  write the knobs they own (device knobs and the selected
                    algorithm's knobs, split between them by name): valid,
                    boundary and invalid values (negative, huge, past the
                    range, non-numeric, empty, blanks, 4096 and 5000 bytes);
                    a valid write must succeed and read back, an invalid one
                    must fail (EINVAL, ERANGE, E2BIG) and leave the value as
                    it was.  A check is skipped ("unchecked") when the
                    algorithm or the device changed meanwhile
  switcher          cc/algo among none, fixed, dcqcn, pcn, ldcp and invalid
                    names: EBUSY while QPs exist, ENOENT only for an unknown
                    name or an algorithm module not loaded
  modules           loads and unloads rxe_cc_dcqcn/pcn/ldcp (finit_module,
                    delete_module): refused (EAGAIN/EBUSY) while selected or
                    in use; once unloaded, no device may show it selected
  qps0, qps1        QPs created and destroyed: a lone ibv_rc_pingpong server
                    on DEV killed after 0-0.5 s (RC QP in INIT; qps1 only
                    these), or a ping-pong DEV -> PEER (RC QPs in RTS, paced
                    when a ceiling is set), sometimes killed mid-transfer
  device            `rdma link delete DEV` and `rdma link add` again, every
                    1-3 s; half the time the QP workers kill their processes
                    as the delete starts, otherwise it waits for them

Runs until the writers made N writes (and the device was deleted and added
again at least twice), or T seconds.  Any operation in progress for longer
than --op-timeout is a stuck task (kernel stacks of the thread are printed).
Prints the operations per kind; on a failure the seed, the failure and the
last operations of every worker, merged by time.  Exit 0 or 1.
"""
import argparse
import collections
import ctypes
import errno
import os
import random
import signal
import subprocess
import sys
import threading
import time
import zlib

U32_MAX = 0xffffffff
# cc/<knob>: (min, max), as rxe_cc_knobs.c's RXE_CC_DEV_KNOB lines
DEV_KNOBS = {
    "max_rate_mbps": (0, 4000000),
    "base_rtt_us": (1, 1000000),
    "pacer_slack_us": (0, 1000000),
    "pacer_catchup_us": (0, 10000000),
    "min_time_between_cnps": (0, 1000000),
    "roce_dscp": (0, 63),
    "cnp_dscp": (0, 63),
    "cnp_802p_prio": (0, 7),
    "ecn": (0, 1),
    "paced_ack": (0, 1),
    "np_cnp_window_end": (0, 1),
}
# cc/<algo>/<knob>: (min, max), as the algorithms' knob tables
ALGO_KNOBS = {
    "fixed": {"rate_mbps": (0, 4000000)},
    "dcqcn": {
        "rpg_time_reset": (0, 4000000),
        "rpg_byte_reset": (0, U32_MAX),
        "rpg_threshold": (1, 1000),
        "rpg_ai_rate": (0, 100000000),
        "rpg_hai_rate": (0, 100000000),
        "rpg_min_rate": (1, 100000000),
        "rpg_max_rate": (0, 4000000000),
        "rpg_min_dec_fac": (0, 100),
        "rate_to_set_on_first_cnp": (0, 4000000000),
        "clamp_tgt_rate": (0, 1),
        "dce_tcp_g": (0, 1024),
        "dce_tcp_rtt": (0, 4000000),
        "initial_alpha_value": (0, 1024),
    },
    "pcn": {
        "period_us": (1, 1000000),
        "ecn_threshold_pct": (0, 100),
        "w_min": (1, 65535),
        "w_max": (1, 65535),
        "min_rate_kbps": (1, 100000000),
    },
    "ldcp": {
        "alpha": (1, 1024),
        "beta": (1, 1024),
        "min_cwnd_pkts": (1, 128),
        "max_cwnd_pkts": (1, 128),
        "init_window_pkts": (0, 128),
        "ack_every": (1, 64),
    },
}
ALGOS = ["none", "fixed", "dcqcn", "pcn", "ldcp"]
MODULES = {"dcqcn": "rxe_cc_dcqcn", "pcn": "rxe_cc_pcn", "ldcp": "rxe_cc_ldcp"}
GONE = (errno.ENOENT, errno.ENODEV)     # the file or the device went away
PAGE = 4096

libc = ctypes.CDLL(None, use_errno=True)
SYS_finit_module = 313                  # x86_64
SYS_delete_module = 176


class Failure(Exception):
    pass


def kstrtou32(s):
    """What the kernel's kstrtou32(buf, 0, &v) makes of a sysfs write:
    (value, None) or (None, errno).  Writes longer than a page fail with
    E2BIG in kernfs; the store sees the bytes up to the first NUL."""
    if len(s) > PAGE:
        return None, errno.E2BIG
    s = s.split(b"\0", 1)[0]
    if not s:
        return None, errno.EINVAL
    if s.endswith(b"\n"):
        s = s[:-1]
    if s.startswith(b"+"):
        s = s[1:]
    base = 10
    if s[:1] == b"0":
        if s[1:2] in (b"x", b"X") and s[2:3] and s[2:3] in b"0123456789abcdefABCDEF":
            base, s = 16, s[2:]
        else:
            base = 8
    digits = b"0123456789abcdef"[:base]
    if not s or any(c not in digits for c in s.lower()):
        return None, errno.EINVAL
    v = int(s, base)
    if v > U32_MAX:
        return None, errno.ERANGE
    return v, None


class Fuzz:
    def __init__(self, a):
        self.a = a
        self.cc = "/sys/class/infiniband/%s/cc" % a.dev
        self.stop = threading.Event()
        # set by the device thread: kill the QPs' processes now
        self.kill_qps = threading.Event()
        self.lock = threading.Lock()
        self.counts = collections.Counter()
        self.logs = {}                  # worker -> deque of (t, text)
        self.cur = {}                   # worker -> (t0, op) in progress
        self.tids = {}                  # worker -> native thread id
        self.failures = []
        # generations: odd while a change is in progress
        self.dev_gen = 0
        self.algo_gen = 0
        # dev_gen when min_time_between_cnps was last written
        self.cnp_gen = -1
        # algorithm -> (epoch, state of its module): loaded, unloaded, or
        # loading / unloading while the module thread is at it
        self.mod_state = {m: (0, "loaded") for m in MODULES}
        self.writes = 0
        self.t0 = time.monotonic()
        self.max_op = collections.defaultdict(float)

    # -------------------------------------------------------- bookkeeping
    def count(self, kind, n=1):
        with self.lock:
            self.counts[kind] += n

    def log(self, w, text):
        # "final" (final_check) is no worker: its log starts on first use
        d = self.logs.setdefault(w, collections.deque(maxlen=200))
        d.append((time.monotonic() - self.t0, text))

    def fail(self, w, text):
        with self.lock:
            self.failures.append("%s: %s" % (w, text))
        self.log(w, "FAILURE: " + text)
        self.stop.set()

    def begin(self, w, op):
        self.cur[w] = (time.monotonic(), op)

    def end(self, w, kind):
        t0, _ = self.cur.pop(w)
        d = time.monotonic() - t0
        if d > self.max_op[kind]:
            self.max_op[kind] = d

    # ------------------------------------------------------------ sysfs io
    def read(self, w, path):
        """The file's bytes, or an errno (int) if it cannot be read."""
        self.begin(w, "read " + path)
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError as e:
            self.end(w, "read")
            return e.errno
        try:
            return os.read(fd, 2 * PAGE)
        except OSError as e:
            return e.errno
        finally:
            os.close(fd)
            self.end(w, "read")

    def write(self, w, path, data):
        """0 if the write took everything, else an errno; ('open', errno)
        if the file could not be opened."""
        self.begin(w, "write %s %r" % (path, data[:40]))
        try:
            fd = os.open(path, os.O_WRONLY)
        except OSError as e:
            self.end(w, "write")
            return ("open", e.errno)
        try:
            n = os.write(fd, data)
            return 0 if n == len(data) else -1
        except OSError as e:
            return e.errno
        finally:
            os.close(fd)
            self.end(w, "write")

    def gens(self):
        return (self.dev_gen, self.algo_gen)

    # ------------------------------------------------------------ checking
    def knob_range(self, rel):
        """(min, max) of cc/<rel>, or None for a file we do not know."""
        parts = rel.split("/")
        if len(parts) == 1:
            return DEV_KNOBS.get(parts[0])
        return ALGO_KNOBS.get(parts[0], {}).get(parts[1])

    def validate(self, w, rel, data):
        """A value read from cc/<rel> must be valid."""
        if rel == "algo":
            s = data.decode(errors="replace").strip()
            if data[-1:] != b"\n" or s not in ALGOS:
                self.fail(w, "cc/algo reads %r" % data)
            elif s in MODULES:
                return s
            return None
        if rel == "available_algos":
            names = data.decode(errors="replace").split()
            if data[-1:] != b"\n" or not names or names[0] != "none" or \
                    any(n not in ALGOS for n in names) or \
                    len(set(names)) != len(names):
                self.fail(w, "cc/available_algos reads %r" % data)
            return None
        parts = rel.split("/")
        if len(parts) == 2 and parts[1] == "origin":
            self.validate_origin(w, parts[0], data)
            return None
        rng = self.knob_range(rel)
        if rng is None:
            self.fail(w, "unknown file cc/%s (update the fuzzer's knob tables)" % rel)
            return None
        v, err = kstrtou32(data)
        if err or data[-1:] != b"\n" or not rng[0] <= v <= rng[1]:
            self.fail(w, "cc/%s reads %r, not in [%d, %d]" % (rel, data, rng[0], rng[1]))
        return None

    def validate_origin(self, w, algo, data):
        """cc/<algo>/origin: "# line ..." then "knob value set|auto|default"
        for every knob of the algorithm, each value in its range."""
        lines = data.decode(errors="replace").split("\n")
        knobs = ALGO_KNOBS.get(algo, {})
        seen = set()
        ok = data[-1:] == b"\n" and lines[0].startswith("# line ")
        for ln in lines[1:-1]:
            f = ln.split()
            if len(f) != 3 or f[0] not in knobs or f[0] in seen or \
                    f[2] not in ("set", "auto", "default"):
                ok = False
                break
            seen.add(f[0])
            v, err = kstrtou32(f[1].encode())
            if err or not knobs[f[0]][0] <= v <= knobs[f[0]][1]:
                ok = False
        if not ok or seen != set(knobs):
            self.fail(w, "cc/%s/origin reads %r" % (algo, data[:300]))

    def derived(self, w, rel):
        """Is cc/<algo>/<knob> derived now (it may change without a
        write: when a device knob is written or a first QP created)?"""
        algo, knob = rel.split("/")
        data = self.read(w, self.cc + "/" + algo + "/origin")
        if isinstance(data, int):
            return True
        for ln in data.decode(errors="replace").split("\n")[1:]:
            f = ln.split()
            if len(f) == 3 and f[0] == knob:
                return f[2] == "auto"
        return True

    def listing(self):
        """Files of cc/ and cc/<algo>/ as paths relative to cc/ (a
        snapshot: they may be gone when read)."""
        out = []
        try:
            for e in os.scandir(self.cc):
                if e.is_dir(follow_symlinks=False):
                    try:
                        out += [e.name + "/" + f for f in os.listdir(e.path)]
                    except OSError:
                        pass
                else:
                    out.append(e.name)
        except OSError:
            pass
        return out

    # ------------------------------------------------------------- workers
    def reader(self, w, r):
        while not self.stop.is_set():
            files = self.listing()
            if not files:
                self.count("read_nodev")
                time.sleep(0.05)
                continue
            r.shuffle(files)
            # (a pause per pass leaves the vCPUs to the other workers)
            time.sleep(r.uniform(0, 0.02))
            for rel in files:
                if self.stop.is_set():
                    break
                m0 = dict(self.mod_state)
                data = self.read(w, self.cc + "/" + rel)
                if isinstance(data, int):
                    if data not in GONE:
                        self.fail(w, "read cc/%s: %s" % (rel, os.strerror(data)))
                    self.count("read_gone")
                    continue
                self.count("read")
                algo = self.validate(w, rel, data)
                if algo and m0[algo] == self.mod_state[algo] and m0[algo][1] == "unloaded":
                    self.fail(w, "cc/algo reads %s, whose module was unloaded (%s)"
                              % (algo, MODULES[algo]))

    def valid_value(self, r, lo, hi, v0):
        x = r.random()
        if x < 0.15:
            v = lo
        elif x < 0.3:
            v = hi
        elif x < 0.4 and v0 is not None:
            v = v0
        elif x < 0.5:
            v = min(hi, lo + r.randrange(0, 3))
        else:
            v = r.randint(lo, hi)
        f = r.random()
        if f < 0.1:
            s = b"0x%x" % v
        elif f < 0.15:
            s = b"0%o" % v
        elif f < 0.2:
            s = b"+%d" % v
        elif f < 0.25:
            s = b"0" * r.randrange(100, 4000) + b"%d" % v
        elif f < 0.3:
            s = b"%d\0junk" % v       # sysfs stores stop at the NUL
        else:
            s = b"%d" % v
        if r.random() < 0.6:
            s += b"\n"
        return s

    def invalid_value(self, r, lo, hi):
        cases = [b"-1", b"-0", b"-%d" % r.randint(1, U32_MAX), b"4294967296",
                 b"18446744073709551616", b"9" * r.randrange(11, 40),
                 b"abc", b"", b"\n", b"\n\n", b" 5", b"5 ", b"5\n\n", b"0x",
                 b"08", b"1e3", b"1.5", b"0x1g", b"5,", b"\t1",
                 b"9" * PAGE, b"1" * (PAGE + 1), b"a" * 5000,
                 bytes(r.getrandbits(8) | 0x80 for _ in range(r.randrange(1, 64)))]
        if hi < U32_MAX:
            cases += [b"%d" % (hi + 1), b"%d" % r.randint(hi + 1, U32_MAX)]
        if lo > 0:
            cases += [b"%d" % (lo - 1)]
        s = r.choice(cases)
        if s and r.random() < 0.3 and len(s) < PAGE:
            s += b"\n"
        return s

    def writer(self, w, r, mine):
        while not self.stop.is_set():
            if r.random() < 0.5:
                knobs = [k for k in DEV_KNOBS if mine(k)]
            else:
                knobs = [d for d in self.listing()
                         if "/" in d and mine(d) and self.knob_range(d)]
                if not knobs:
                    knobs = [k for k in DEV_KNOBS if mine(k)]
            rel = r.choice(knobs)
            lo, hi = self.knob_range(rel)
            path = self.cc + "/" + rel
            g0 = self.gens()
            # min_time_between_cnps follows base_rtt_us until written on
            # this device (dev_gen)
            auto = self.derived(w, rel) if "/" in rel else \
                rel == "min_time_between_cnps" and self.cnp_gen != g0[0]
            v0 = self.read(w, path)
            if isinstance(v0, int):
                self.count("write_nodev")
                time.sleep(0.05)
                continue
            v0n, _ = kstrtou32(v0)
            valid = r.random() < 0.6
            data = self.valid_value(r, lo, hi, v0n) if valid else \
                self.invalid_value(r, lo, hi)
            want, werr = kstrtou32(data)
            if want is not None and not lo <= want <= hi:
                want, werr = None, errno.ERANGE
            # sysfs does not call the store for an empty write: a no-op
            empty = not data
            res = self.write(w, path, data)
            self.writes += 1
            v1 = self.read(w, path)
            # an algorithm switch resets only the algorithm's knobs
            g1 = self.gens()
            if "/" not in rel:
                g0, g1 = g0[0], g1[0]
            stable = g0 == g1 and all(g % 2 == 0 for g in
                                      (g0 if isinstance(g0, tuple) else (g0,)))
            # a derived knob follows device knobs and first QPs: only a
            # valid write (which makes it the user's) is checked
            if auto and want is None:
                stable = False
            kind = "write_empty" if empty else \
                "write_valid" if want is not None else "write_invalid"
            self.log(w, "cc/%s <- %r: %s, %r -> %r%s" % (
                rel, data[:40] + (b"..." if len(data) > 40 else b""),
                "ok" if res == 0 else (os.strerror(res) if isinstance(res, int) else
                                       "open: " + os.strerror(res[1])),
                v0, v1, "" if stable else " (changed meanwhile)"))
            if isinstance(res, tuple) or res in GONE or isinstance(v1, int):
                self.count(kind + "_gone")
                continue
            if empty:
                if res != 0:
                    self.fail(w, "empty write to cc/%s: %s" % (rel, os.strerror(res)))
                elif stable and v1 != v0:
                    self.fail(w, "cc/%s changed %r -> %r on an empty write" % (rel, v0, v1))
            elif want is not None:
                if res != 0:
                    self.fail(w, "valid write %r to cc/%s: %s" % (
                        data[:60], rel, os.strerror(res) if res > 0 else "short"))
                elif stable and kstrtou32(v1)[0] != want:
                    self.fail(w, "cc/%s reads %r after writing %r" % (rel, v1, data[:60]))
                elif rel == "min_time_between_cnps" and stable:
                    self.cnp_gen = g1
            else:
                if res == 0 or res == -1:
                    self.fail(w, "invalid write %r to cc/%s accepted" % (data[:60], rel))
                elif res not in (errno.EINVAL, errno.ERANGE, errno.E2BIG):
                    self.fail(w, "invalid write %r to cc/%s: %s (want %s)" % (
                        data[:60], rel, os.strerror(res), errno.errorcode[werr]))
                elif stable and v1 != v0:
                    self.fail(w, "cc/%s changed %r -> %r on a refused write of %r"
                              % (rel, v0, v1, data[:60]))
            self.count(kind if stable else kind + "_unchecked")

    def switcher(self, w, r):
        path = self.cc + "/algo"
        invalid = [b"", b"\n", b"DCQCN", b"dcqcnx", b"dcq", b"x" * 31, b"x" * 32,
                   b"x" * PAGE, b"x" * 5000, b"dcqcn/rpg", b"../fixed", b"\xff\xfe",
                   b"non", b"fixed" + b"x" * 40]
        while not self.stop.is_set():
            time.sleep(r.uniform(0, 0.05))
            if r.random() < 0.75:
                name = r.choice(ALGOS)
                data = name.encode() + r.choice((b"", b"\n", b"\0junk", b" extra"))
                if r.random() < 0.1:
                    data = b"\t " + data
            else:
                name, data = None, r.choice(invalid)
            empty = not data
            g0 = self.dev_gen
            m0 = dict(self.mod_state)
            v0 = self.read(w, path)
            self.algo_gen += 1
            res = self.write(w, path, data)
            self.algo_gen += 1
            v1 = self.read(w, path)
            stable = g0 == self.dev_gen and g0 % 2 == 0
            self.log(w, "cc/algo <- %r: %s, %r -> %r%s" % (
                data[:40], "ok" if res == 0 else (os.strerror(res) if isinstance(res, int)
                                                  else "open: " + os.strerror(res[1])),
                v0, v1, "" if stable else " (device changed meanwhile)"))
            if isinstance(res, tuple) or res in (errno.ENODEV,) or isinstance(v1, int) \
                    or isinstance(v0, int):
                self.count("algo_gone")
                continue
            mod_stable = name in MODULES and m0[name] == self.mod_state[name]
            if empty:
                if res != 0:
                    self.fail(w, "empty write to cc/algo: %s" % os.strerror(res))
                elif stable and v1 != v0:
                    self.fail(w, "cc/algo changed %r -> %r on an empty write" % (v0, v1))
                self.count("algo_empty")
            elif name is not None:
                if res == 0:
                    self.count("algo_switch")
                    if stable and v1.strip().decode() != name:
                        self.fail(w, "cc/algo reads %r after selecting %r" % (v1, data))
                    if mod_stable and m0[name][1] == "unloaded":
                        self.fail(w, "%r selected while %s was unloaded" % (name, MODULES[name]))
                elif res == errno.EBUSY:
                    self.count("algo_busy")
                elif res == errno.ENOENT and name in MODULES and \
                        not (mod_stable and m0[name][1] == "loaded"):
                    self.count("algo_unloaded")
                else:
                    self.fail(w, "selecting %r: %s" % (data, os.strerror(res)))
            else:
                if res == 0 or res not in (errno.EINVAL, errno.ENOENT, errno.E2BIG):
                    self.fail(w, "invalid algo %r: %s" % (
                        data[:60], "accepted" if res == 0 else os.strerror(res)))
                elif stable and v1 != v0:
                    self.fail(w, "cc/algo changed %r -> %r on the refused %r" % (v0, v1, data[:60]))
                self.count("algo_invalid")

    def modules(self, w, r):
        while not self.stop.is_set():
            time.sleep(r.uniform(0.02, 0.2))
            algo = r.choice(sorted(MODULES))
            mod = MODULES[algo]
            epoch, state = self.mod_state[algo]
            if state == "loaded":
                self.mod_state[algo] = (epoch + 1, "unloading")
                self.begin(w, "delete_module " + mod)
                rc = libc.syscall(SYS_delete_module, mod.encode(), os.O_NONBLOCK)
                err = ctypes.get_errno() if rc else 0
                self.end(w, "rmmod")
                self.log(w, "rmmod %s: %s" % (mod, os.strerror(err) if err else "ok"))
                if rc == 0:
                    self.mod_state[algo] = (epoch + 2, "unloaded")
                    self.count("rmmod")
                elif err in (errno.EAGAIN, errno.EBUSY):
                    self.mod_state[algo] = (epoch + 2, "loaded")
                    self.count("rmmod_busy")
                else:
                    self.fail(w, "rmmod %s: %s" % (mod, os.strerror(err)))
            else:
                self.mod_state[algo] = (epoch + 1, "loading")
                ko = os.path.join(self.a.ko_dir, mod + ".ko")
                self.begin(w, "finit_module " + ko)
                fd = os.open(ko, os.O_RDONLY)
                rc = libc.syscall(SYS_finit_module, fd, b"", 0)
                err = ctypes.get_errno() if rc else 0
                os.close(fd)
                self.end(w, "insmod")
                self.log(w, "insmod %s: %s" % (mod, os.strerror(err) if err else "ok"))
                if rc:
                    self.fail(w, "insmod %s: %s" % (ko, os.strerror(err)))
                self.mod_state[algo] = (epoch + 2, "loaded")
                self.count("insmod")

    def ns_cmd(self, ns, *cmd):
        return ["ip", "netns", "exec", ns] + list(cmd)

    def reap(self, w, p, what):
        """Kill @p and wait: a process that does not die is stuck in the
        kernel (destroying its QPs)."""
        try:
            p.kill()
        except ProcessLookupError:
            pass
        self.begin(w, "reap " + what)
        try:
            p.wait(timeout=self.a.op_timeout)
        except subprocess.TimeoutExpired:
            self.fail(w, "%s (pid %d) did not exit %d s after SIGKILL: %s" % (
                what, p.pid, self.a.op_timeout, kstack(p.pid)))
            return
        self.end(w, "qp_reap")

    def qps(self, w, r, lone_only, port0):
        a = self.a
        i = 0
        while not self.stop.is_set():
            if self.dev_gen % 2:
                # no device to open: leave the vCPUs to the delete / add
                time.sleep(0.1)
                continue
            i += 1
            port = str(port0 + i % 100)
            pp = ["ibv_rc_pingpong", "-d"]
            if lone_only or r.random() < 0.3:
                # a lone server: its QP is created and moved to INIT, then
                # it waits for a client that never comes
                d = r.uniform(0, 0.5)
                p = subprocess.Popen(self.ns_cmd(a.ns, *pp, a.dev, "-g", a.gid, "-p", port),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                rc = self.hold(p, d)
                self.log(w, "lone QP, %s" % ("killed after %.2f s" % d if rc is None
                                              else "exit %d" % rc))
                self.reap(w, p, "lone ibv_rc_pingpong")
                self.count("qp_lone")
                continue
            n, size = str(r.choice((1, 5, 20, 50))), str(r.choice((64, 1024, 4096)))
            srv = subprocess.Popen(self.ns_cmd(a.peer_ns, *pp, a.peer_dev, "-g", a.peer_gid,
                                               "-p", port, "-n", n, "-s", size),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.3)
            cli = subprocess.Popen(self.ns_cmd(a.ns, *pp, a.dev, "-g", a.gid, "-p", port,
                                               "-n", n, "-s", size, a.peer_ip),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            kill_at = r.uniform(0.05, 1.0) if r.random() < 0.3 else 15.0
            rc = self.hold(cli, kill_at)
            self.log(w, "ping-pong -n %s -s %s: %s" % (
                n, size, "killed after %.2f s" % kill_at if rc is None else "exit %d" % rc))
            self.reap(w, cli, "ibv_rc_pingpong client")
            self.reap(w, srv, "ibv_rc_pingpong server")
            self.count("qp_pair_ok" if rc == 0 else "qp_pair_killed" if rc is None
                       else "qp_pair_failed")

    def hold(self, p, secs):
        """Let @p run for at most @secs, less if the device thread wants
        the QPs gone or the run stops: its exit status, None if it runs."""
        t_end = time.monotonic() + secs
        while True:
            rc = p.poll()
            if rc is not None or time.monotonic() >= t_end or \
                    self.kill_qps.is_set() or self.stop.is_set():
                return rc
            time.sleep(0.05)

    def run_cmd(self, w, cmd, what):
        self.begin(w, what)
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=self.a.op_timeout)
        except subprocess.TimeoutExpired:
            self.fail(w, "%s did not return in %d s" % (what, self.a.op_timeout))
            return None
        self.end(w, what.replace(" ", "_"))
        return p

    def device(self, w, r):
        a = self.a
        while True:
            t_end = time.monotonic() + r.uniform(1.0, 3.0)
            while not self.stop.is_set() and time.monotonic() < t_end:
                time.sleep(0.05)
            if self.stop.is_set():
                return
            self.dev_gen += 1
            # half the time the QPs' processes are killed as the delete
            # starts, otherwise it waits for them (rxe cannot disassociate)
            if r.random() < 0.5:
                self.kill_qps.set()
            t = time.monotonic()
            p = self.run_cmd(w, self.ns_cmd(a.ns, "rdma", "link", "delete", a.dev),
                             "rdma link delete")
            if p is None:
                return
            self.log(w, "rdma link delete %s: exit %d in %.2f s %s" % (
                a.dev, p.returncode, time.monotonic() - t, p.stdout.strip()[:80]))
            if p.returncode:
                self.fail(w, "rdma link delete %s: %s" % (a.dev, p.stdout.strip()))
                return
            if os.path.exists(self.cc):
                self.fail(w, "%s still there after rdma link delete" % self.cc)
            self.count("dev_delete")
            time.sleep(r.uniform(0, 0.3))
            t = time.monotonic()
            while True:
                p = self.run_cmd(w, self.ns_cmd(a.ns, "rdma", "link", "add", a.dev, "type",
                                                "rxe", "netdev", "eth0"), "rdma link add")
                if p is None:
                    return
                if p.returncode == 0:
                    break
                self.log(w, "rdma link add: exit %d %s" % (p.returncode, p.stdout.strip()[:80]))
                if time.monotonic() - t > 30:
                    self.fail(w, "rdma link add %s: %s" % (a.dev, p.stdout.strip()))
                    return
                time.sleep(0.2)
            self.log(w, "rdma link add %s in %.2f s" % (a.dev, time.monotonic() - t))
            if not os.path.isdir(self.cc):
                self.fail(w, "no %s after rdma link add" % self.cc)
            self.count("dev_add")
            self.kill_qps.clear()
            self.dev_gen += 1

    # ---------------------------------------------------------------- main
    def start(self, name, fn, *args):
        self.logs[name] = collections.deque(maxlen=200)

        def body():
            self.tids[name] = threading.get_native_id()
            try:
                fn(name, random.Random("%d:%s" % (self.a.seed, name)), *args)
            except Exception as e:      # a bug here, not in the kernel
                self.fail(name, "exception %r" % e)
        t = threading.Thread(target=body, name=name, daemon=True)
        t.start()
        return t

    def watchdog(self):
        """An operation in progress longer than --op-timeout: stuck."""
        now = time.monotonic()
        for w, (t0, op) in list(self.cur.items()):
            if now - t0 > self.a.op_timeout:
                tid = self.tids.get(w)
                self.fail(w, "stuck for %.0f s in: %s\nkernel stack of %s (tid %s):\n%s" % (
                    now - t0, op, w, tid, kstack(os.getpid(), tid)))
                return True
        return False

    def final_check(self):
        """After the run: every file reads back a valid value."""
        files = self.listing()
        if "algo" not in files:
            self.fail("final", "no %s/algo after the run" % self.cc)
        for rel in files:
            data = self.read("final", self.cc + "/" + rel)
            if isinstance(data, int):
                self.fail("final", "read cc/%s: %s" % (rel, os.strerror(data)))
            else:
                self.validate("final", rel, data)
        self.count("final_read", len(files))

    def report(self):
        el = time.monotonic() - self.t0
        print("seed %d, %.1f s, %d writes" % (self.a.seed, el, self.writes))
        print("operations: " + ", ".join("%s %d" % kv for kv in sorted(self.counts.items())))
        print("longest: " + ", ".join("%s %.2f s" % kv for kv in sorted(self.max_op.items())))

    def dump(self):
        ev = []
        for w, d in self.logs.items():
            ev += [(t, w, s) for t, s in d]
        ev.sort()
        print("last operations (of every worker, by time):")
        for t, w, s in ev[-self.a.tail:]:
            print("  %8.3f %-9s %s" % (t, w, s))


def kstack(pid, tid=None):
    path = "/proc/%d/task/%d/stack" % (pid, tid) if tid else "/proc/%d/stack" % pid
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        return "(%s: %s)" % (path, e.strerror)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=1000, help="knob writes")
    ap.add_argument("--secs", type=float, default=30, help="at most this long")
    ap.add_argument("--min-dev-cycles", type=int, default=2)
    ap.add_argument("--op-timeout", type=int, default=60)
    ap.add_argument("--tail", type=int, default=60)
    ap.add_argument("--ko-dir", required=True)
    for o in ("dev", "ns", "gid", "peer-dev", "peer-ns", "peer-gid", "peer-ip"):
        ap.add_argument("--" + o, required=True)
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    f = Fuzz(a)
    print("seed %d, count %d, at most %.0f s, device %s" % (a.seed, a.count, a.secs, a.dev),
          flush=True)
    ws = [f.start("reader0", f.reader), f.start("reader1", f.reader),
          f.start("writer0", f.writer, lambda k: hash_name(k) % 2 == 0),
          f.start("writer1", f.writer, lambda k: hash_name(k) % 2 == 1),
          f.start("switcher", f.switcher), f.start("modules", f.modules),
          f.start("qps0", f.qps, False, 19800), f.start("qps1", f.qps, True, 19900),
          f.start("device", f.device)]
    deadline = f.t0 + a.secs
    while not f.stop.is_set():
        time.sleep(0.2)
        if f.watchdog():
            break
        if f.writes >= a.count and f.counts["dev_add"] >= a.min_dev_cycles:
            break
        if time.monotonic() > deadline:
            break
    f.stop.set()
    # every worker must finish its current operation in time
    t_stop = time.monotonic()
    for t in ws:
        while t.is_alive() and time.monotonic() - t_stop < a.op_timeout + 10:
            t.join(0.5)
            if f.watchdog():
                break
        if t.is_alive():
            f.fail(t.name, "did not finish within %d s of the stop" % (a.op_timeout + 10))
            break
    alive = [t.name for t in ws if t.is_alive()]
    if not alive:
        f.final_check()
    f.report()
    if f.failures:
        print("FAILED with seed %d (DCBLAB_FUZZ_SEED=%d DCBLAB_FUZZ_COUNT=%d):"
              % (a.seed, a.seed, a.count))
        for x in f.failures:
            print("  " + x)
        f.dump()
        sys.stdout.flush()
        os._exit(1)
    sys.stdout.flush()
    return 0


def hash_name(k):
    """A stable split of the knobs between the two writers."""
    return zlib.crc32(k.encode())


if __name__ == "__main__":
    sys.exit(main())
