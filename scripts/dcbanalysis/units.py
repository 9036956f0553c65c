# SPDX-License-Identifier: GPL-2.0
"""tc's rate and size notations, the one parser of them in Python."""

import re
import sys

_RATE = {"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9, "tbit": 1e12,
         "kibit": 1024, "mibit": 1024 ** 2, "gibit": 1024 ** 3,
         "bps": 8, "kbps": 8e3, "mbps": 8e6, "gbps": 8e9, "": 1}
_SIZE = {"": 1, "b": 1, "k": 1024, "kb": 1024, "m": 1024 ** 2,
         "mb": 1024 ** 2, "g": 1024 ** 3, "gb": 1024 ** 3, "kbit": 128,
         "mbit": 131072, "gbit": 134217728}
_NUM = re.compile(r"([0-9]+(?:\.[0-9]*)?)([a-z]*)")


def _parse(text, table, what):
    m = _NUM.fullmatch(str(text).strip().lower())
    if not m or m.group(2) not in table:
        raise ValueError("bad %s '%s'" % (what, text))
    return float(m.group(1)) * table[m.group(2)]


def rate_bps(text):
    """tc rate ("40mbit", "10mbps" = bytes/s, "1000") in bit/s."""
    return _parse(text, _RATE, "rate")


def rate_mbps(text):
    return rate_bps(text) / 1e6


def size_bytes(text):
    """tc size ("16kb" = 16384, "1mb", "1500", "8kbit") in bytes."""
    return _parse(text, _SIZE, "size")


def main(argv=None):
    """python3 -m dcbanalysis.units rate|size TEXT: bit/s or bytes, as an
    integer, for the shell (scripts/lib/common.sh, dcblab); exit 1 with a
    message on a bad value."""
    argv = sys.argv[1:] if argv is None else argv
    conv = {"rate": rate_bps, "size": size_bytes}
    if len(argv) != 2 or argv[0] not in conv:
        print("usage: python3 -m dcbanalysis.units rate|size VALUE",
              file=sys.stderr)
        return 2
    try:
        print("%.0f" % conv[argv[0]](argv[1]))
    except ValueError as e:
        print("units: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
