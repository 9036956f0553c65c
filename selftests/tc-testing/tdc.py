#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run tc test cases written in the format of the kernel's tc-testing
(tools/testing/selftests/tc-testing): a JSON list of objects

    id, name, category     identification (id: 4 hex digits, unique)
    setup, teardown        commands; an entry is "CMD" (must exit 0) or
                           ["CMD", CODE...] (may exit with any CODE)
    cmdUnderTest           the command tested, expExitCode its exit code
    verifyCmd              run after it; matchPattern (a regex) must match
                           its output matchCount times, or matchJSON (a
                           list of objects) must be contained in its JSON

and one field of our own: errMatch, a regex the standard error of
cmdUnderTest must match (the message of a refused command).

Every command runs in one network namespace holding a veth pair
$DEV0/$DEV1 and a dummy device $DUMMY (the runner enters it once; a
command goes through sh only when it needs a shell); $TC, $IP and $NS are
substituted too.  After a failed case the root qdiscs of the devices are
deleted.  Output is TAP; the exit status is 0 when every selected case
passed.

    tdc.py [-v] [-e ID[,ID...]] [-c CATEGORY] [-l] FILE.json...
"""

import argparse
import json
import os
import re
import shlex
import string
import subprocess
import sys

NS = os.environ.get("TDC_NS", "tdc%d" % os.getpid())
NAMES = {
    "TC": os.environ.get("TC", "tc"),
    "IP": os.environ.get("IP", "ip"),
    "NS": NS,
    "DEV0": "v0tdc",
    "DEV1": "v1tdc",
    "DUMMY": "dumtdc",
}


# characters that make a command need sh
SHELL_SYNTAX = re.compile(r"[|&;<>()$`\\\"'*?\n]")


def sh(cmd, timeout=60):
    """Run CMD (in the namespace); returns (exit code, stdout, stderr)."""
    cmd = string.Template(cmd).safe_substitute(NAMES)
    # process starts are slow under TCG: sh only for shell syntax
    argv = ["sh", "-c", cmd] if SHELL_SYNTAX.search(cmd) else shlex.split(cmd)
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, "", "timed out after %d s: %s" % (timeout, cmd)
    return p.returncode, p.stdout, p.stderr


# tc's options without a value; tc -batch applies them to every line
TC_FLAGS = {"-j", "-json", "-s", "-stats", "-d", "-details", "-p", "-pretty"}


def tc_split(cmd):
    """(options, arguments) of a plain tc command (no shell syntax, no
    option outside TC_FLAGS), else None."""
    cmd = string.Template(cmd).safe_substitute(NAMES)
    if SHELL_SYNTAX.search(cmd):
        return None
    argv = shlex.split(cmd)
    if not argv or argv[0] != NAMES["TC"]:
        return None
    n = 1
    while n < len(argv) and argv[n].startswith("-"):
        if argv[n] not in TC_FLAGS:
            return None
        n += 1
    return argv[1:n], argv[n:]


def verify_teardown(tc):
    """Runs verifyCmd, then the teardown entries; returns verifyCmd's
    output and the teardown's error (or None).  When all are plain tc
    commands, the teardown without options, they run as the lines of one
    tc -batch: nearly every case ends with a tc show and a tc qdisc del,
    and process starts are slow under TCG.  tc stops at the first line
    that fails and names it; a del prints nothing on success."""
    td = tc.get("teardown") or []
    v = tc_split(tc["verifyCmd"])
    parts = [tc_split(c) if isinstance(c, str) else None for c in td]
    if v and td and all(x and not x[0] for x in parts):
        lines = "".join(shlex.join(a) + "\n" for a in [v[1]] + [x[1] for x in parts])
        try:
            p = subprocess.run([NAMES["TC"]] + v[0] + ["-batch", "-"], input=lines,
                               capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            return "", "timed out after 60 s: tc -batch of %s" % lines.split("\n")
        if p.returncode == 0:
            return p.stdout, None
        m = re.search(r"^Command failed -:(\d+)$", p.stderr, re.M)
        if m and int(m.group(1)) > 1:
            return p.stdout, "'%s' failed: %s" % (td[int(m.group(1)) - 2],
                                                  p.stderr.strip()[:200])
        # verifyCmd failed: no teardown ran; run both on their own
    _, out, _ = sh(tc["verifyCmd"])
    return out, run_list(td)


def run_list(cmds):
    """setup/teardown entries; returns an error message or None."""
    for c in cmds or []:
        cmd, codes = (c[0], [int(x) for x in c[1:]]) if isinstance(c, list) else (c, [0])
        rc, _, err = sh(cmd)
        if rc not in codes:
            return "'%s' exited %d: %s" % (cmd, rc, err.strip()[:200])
    return None


def contains(want, got):
    """matchJSON: every key of WANT in GOT with a value WANT contains;
    lists element by element, of the same length."""
    if isinstance(want, dict):
        return isinstance(got, dict) and all(k in got and contains(v, got[k])
                                             for k, v in want.items())
    if isinstance(want, list):
        return isinstance(got, list) and len(want) == len(got) and \
            all(contains(w, g) for w, g in zip(want, got))
    return want == got


def run_case(tc, verbose):
    """Returns None when the case passed, else what went wrong."""
    err = run_list(tc.get("setup"))
    if err:
        return "setup: " + err
    rc, out, err = sh(tc["cmdUnderTest"])
    if verbose:
        print("# %s -> %d\n# %s" % (tc["cmdUnderTest"], rc,
                                     (out + err).strip().replace("\n", "\n# ")))
    if rc != int(tc["expExitCode"]):
        return "cmdUnderTest exited %d, expected %s: %s" % (
            rc, tc["expExitCode"], err.strip()[:300])
    if "errMatch" in tc and not re.search(tc["errMatch"], err, re.M):
        return "stderr does not match /%s/: %s" % (tc["errMatch"], err.strip()[:300])
    out, td_err = verify_teardown(tc)
    if verbose:
        print("# verify: " + out.strip().replace("\n", "\n# "))
    if "matchJSON" in tc:
        try:
            got = json.loads(out)
        except ValueError:
            return "verifyCmd output is not JSON: %s" % out[:300]
        if not contains(tc["matchJSON"], got):
            return "JSON does not contain %s: %s" % (json.dumps(tc["matchJSON"]), out[:600])
    if "matchPattern" in tc:
        n = len(re.findall(tc["matchPattern"], out, re.M))
        if n != int(tc["matchCount"]):
            return "/%s/ matched %d times, expected %s in: %s" % (
                tc["matchPattern"], n, tc["matchCount"], out.strip()[:600])
    return "teardown: " + td_err if td_err else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("-e", "--execute", help="only these ids (comma-separated)")
    ap.add_argument("-c", "--category", help="only cases of this category")
    ap.add_argument("-l", "--list", action="store_true", help="list the cases")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    cases = []
    for f in args.files:
        with open(f, encoding="utf-8") as fh:
            cases += json.load(fh)
    ids = [c["id"] for c in cases]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        sys.exit("tdc: duplicate ids: %s" % ", ".join(sorted(dup)))
    if args.execute:
        cases = [c for c in cases if c["id"] in args.execute.split(",")]
    if args.category:
        cases = [c for c in cases if args.category in c.get("category", [])]
    if args.list:
        for c in cases:
            print("%s  %-10s %s" % (c["id"], ",".join(c.get("category", [])), c["name"]))
        return 0

    if "TDC_NS" not in os.environ:
        # enter the namespace once: run again inside it
        subprocess.run(["ip", "netns", "add", NS], check=True)
        try:
            return subprocess.run(["ip", "netns", "exec", NS, sys.executable] + sys.argv,
                                  env=dict(os.environ, TDC_NS=NS)).returncode
        finally:
            subprocess.run(["ip", "netns", "del", NS])
    failed = []
    # No IPv6 on the namespace's devices: a veth that comes up sends
    # router solicitations (with backoff, for minutes) and MLD reports,
    # which a case's qdisc would count as traffic of its own.
    try:
        for conf in ("default", "all"):
            with open("/proc/sys/net/ipv6/conf/%s/disable_ipv6" % conf, "w") as fh:
                fh.write("1\n")
    except FileNotFoundError:
        pass    # a kernel without IPv6 sends none
    for cmd in ["$IP link set lo up",
                "$IP link add $DEV0 type veth peer name $DEV1",
                "$IP link set $DEV0 up && $IP link set $DEV1 up",
                "$IP link add $DUMMY type dummy && $IP link set $DUMMY up"]:
        rc, _, err = sh(cmd)
        if rc:
            sys.exit("tdc: cannot set up the namespace: %s: %s" % (cmd, err))
    print("TAP version 13\n1..%d" % len(cases))
    for n, tc in enumerate(cases, 1):
        why = run_case(tc, args.verbose)
        if why:
            sh("for d in $DEV0 $DEV1 $DUMMY; do $TC qdisc del dev $d root; done 2>/dev/null")
            line = "not ok %d - %s %s\n# %s" % (n, tc["id"], tc["name"],
                                                 why.replace("\n", "\n# "))
            failed.append(line)
            print(line)
        else:
            print("ok %d - %s %s" % (n, tc["id"], tc["name"]))
        sys.stdout.flush()
    # the failures again, where the tail of a long log shows them
    for line in failed:
        print("# " + line.replace("\n", "\n# "))
    print("# %d cases, %d failed" % (len(cases), len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
