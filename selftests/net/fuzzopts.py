# SPDX-License-Identifier: GPL-2.0
"""The command-line options every fuzzer of selftests/net takes."""

import argparse


def parser(doc):
    """An ArgumentParser described by doc's first line, with --seed (of
    the random generator: the same seed sends the same cases, so a
    failure can be replayed), --count (cases to send) and --verbose
    (print each case)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--verbose", action="store_true")
    return ap
