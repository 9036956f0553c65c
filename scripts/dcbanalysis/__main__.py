# SPDX-License-Identifier: GPL-2.0
"""python3 -m dcbanalysis COMMAND ... (see __init__.py)."""

import argparse
import os
import sys

from . import analyze, metadata, summary, tidy, timeline


def main(argv=None):
    ap = argparse.ArgumentParser(prog="dcbanalysis",
                                 description="DCB lab results")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("summary", help="median (min-max) table of folders")
    p.add_argument("dirs", nargs="+", metavar="DIR")
    p = sub.add_parser("analyze", help="(re)build folders' results.csv")
    p.add_argument("dirs", nargs="+", metavar="DIR")
    p = sub.add_parser("plot", help="the scenario's plots of each run")
    p.add_argument("dirs", nargs="+", metavar="DIR")
    p = sub.add_parser("check", help="check folders' results.csv")
    p.add_argument("dirs", nargs="+", metavar="DIR")
    p = sub.add_parser("metadata", help="write OUT/metadata.json")
    p.add_argument("out", metavar="OUT")
    p.add_argument("raw", metavar="RAW", help="dcblab's raw facts")
    p = sub.add_parser("metadata-merge",
                       help="OUT/metadata.json of runs shared by guests")
    p.add_argument("out", metavar="OUT")
    p.add_argument("repeat", type=int, metavar="REPEAT")
    p.add_argument("guests", type=int, metavar="GUESTS")
    p = sub.add_parser("timeline",
                       help="DCQCN's R_C, R_T and alpha per QP to a PNG")
    p.add_argument("trace", metavar="TRACE", help="the trace CSV")
    p.add_argument("qps", metavar="QPS", help="the QP list")
    p.add_argument("png", metavar="PNG")
    p.add_argument("--title", default="DCQCN rate timeline")
    p.add_argument("--share", type=float, metavar="MBPS",
                   help="a dashed fair-share level")
    a = ap.parse_args(argv)

    try:
        if a.cmd == "summary":
            sys.stdout.write(summary.table(a.dirs))
        elif a.cmd == "analyze":
            for d in a.dirs:
                print("%s: %d rows" % (d, analyze.analyze(d)))
        elif a.cmd == "plot":
            for d in a.dirs:
                for f in analyze.plot(d):
                    print(f)
        elif a.cmd == "check":
            for f in tidy.find(a.dirs):
                print("%s: %d rows" % (f, tidy.check_file(f)))
        elif a.cmd == "metadata":
            repo = os.path.dirname(os.path.dirname(
                os.path.dirname(os.path.abspath(__file__))))
            print(metadata.write(a.out, a.raw, repo))
        elif a.cmd == "metadata-merge":
            print(metadata.merge(a.out, a.repeat, a.guests))
        elif a.cmd == "timeline":
            qps = timeline.read_qps(a.qps)
            if not timeline.plot(a.trace, qps, a.png, a.title, a.share):
                raise ValueError("%s: no event of the QPs in %s"
                                 % (a.trace, a.qps))
            print(a.png)
    except (ValueError, OSError) as e:
        print("dcbanalysis: error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
