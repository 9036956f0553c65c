# SPDX-License-Identifier: GPL-2.0
"""python3 -m dcbnet: the experiments' command line (dcblab calls it;
see dcbnet.experiment)."""

import csv
import signal
import sys

from . import experiment

USAGE = """usage: python3 -m dcbnet list
       python3 -m dcbnet params NAME
       python3 -m dcbnet describe NAME
       python3 -m dcbnet run NAME OUT [KEY=VALUE ...]
       python3 -m dcbnet analyze NAME OUT [KEY=VALUE ...]"""


def _terminated(signum, frame):
    # SIGTERM (dcblab stopped, a timeout): leave through the experiment's
    # finally clauses, which remove its network; a second SIGTERM must
    # not cut that clean-up short
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sys.exit(128 + signum)


def main(argv):
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0 if argv else 2
    cmd, args = argv[0], argv[1:]
    if cmd == "list":
        for n in experiment.names():
            print("%-16s %s" % (n, experiment.get(n).DESCRIPTION))
        return 0
    if not args:
        print(USAGE, file=sys.stderr)
        return 2
    try:
        cls = experiment.get(args[0])
    except ValueError as e:
        print("dcbnet: error: %s" % e, file=sys.stderr)
        return 2
    if cmd == "params":
        # dcblab's format: name, default ("" for none), what it is
        for q in cls.PARAMS:
            print("%-15s %-9s %s" % (q.name, q.default or '""', q.doc))
        return 0
    if cmd == "describe":
        print(cls.DESCRIPTION)
        return 0
    if cmd in ("run", "analyze") and len(args) >= 2:
        try:
            exp = cls(experiment.parse_kv(args[2:]))
        except (KeyError, ValueError) as e:
            print("dcbnet: error: %s" % e.args[0], file=sys.stderr)
            return 2
        if cmd == "run":
            signal.signal(signal.SIGTERM, _terminated)
            exp.run(args[1])
            return 0
        # an experiment of several settings names each row's in a
        # fourth column, one of several experiments (compare) in a fifth
        rows = exp.analyze(args[1])
        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(("metric", "value", "unit", "setting", "scenario")
                   [:max([3] + [len(r) for r in rows])])
        w.writerows(rows)
        return 0
    print(USAGE, file=sys.stderr)
    return 2


sys.exit(main(sys.argv[1:]))
