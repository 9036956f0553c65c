#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write an RTM_NEWQDISC (dcb 1: on ifindex 1) and an RTM_NEWTCLASS (1:4)
as sch_dcb dumps them, for `tc -s monitor file FILE`: the plugin's output
checked on a host without the module (the attribute numbers from
scripts/dcbanalysis/uapi.py, `make user`).  --xstats-version N writes the
qdisc's statistics with another version number."""
import argparse
import os
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "scripts"))
from dcbanalysis import uapi as U  # noqa: E402


def nla(t, data):
    n = 4 + len(data)
    return struct.pack("=HH", n, t) + data + b"\0" * (-n % 4)


def nest(t, *parts):
    return nla(t | 0x8000, b"".join(parts))


def u8(v): return struct.pack("=B", v)
def u16(v): return struct.pack("=H", v)
def u32(v): return struct.pack("=I", v)
def u64(v): return struct.pack("=Q", v)
def ecn(mode, kmin, kmax, pmax):
    return (nla(U.TCA_DCB_ECN_MODE, u8(mode)) + nla(U.TCA_DCB_ECN_KMIN, u32(kmin)) +
            nla(U.TCA_DCB_ECN_KMAX, u32(kmax)) + nla(U.TCA_DCB_ECN_PMAX, u32(pmax)))


def stats(base, pfc):
    """28 counters: base*1000 + i for the first ten, PFC ones 5 (xoff 61440)"""
    v = [base * 1000 + i for i in range(10)] + [5 if pfc else 0] * 18
    v[20] = 61440 if pfc else 0
    return struct.pack("=28Q", *v)


def msg(kind, handle, info, body):
    tcm = struct.pack("=BBHiIII", 0, 0, 0, 1, handle, 0xffffffff, info)
    return struct.pack("=IHHII", 16 + len(tcm) + len(body), kind, 0, 0, 0) + tcm + body


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--xstats-version", type=int, default=7)
    a = ap.parse_args()
    dmap = bytearray(d >> 3 for d in range(64))
    dmap[0], dmap[46] = 7, 6
    opts = nest(2, nla(1, u64(2500000)), nla(2, u32(24)), nla(3, u32(0)),
                nla(4, u32(307200)), nla(5, u8(0)), nla(6, bytes(dmap)),
                nest(U.TCA_DCB_ECN, ecn(1, 30720, 102400, 429496730)), nla(13, u8(0)),
                nest(8, nest(1, nla(1, u8(3)), nla(2, u32(51200)),
                             nest(U.TCA_DCB_BAND_ECN, ecn(2, 20480, 20480, 0xffffffff))),
                     nest(1, nla(1, u8(5)), nla(2, u32(0)), nla(5, u8(2)))),
                nla(10, u32(2)), nla(11, u32(4194304)),
                nest(12, nla(1, u8(0x48)), nla(2, u32(61440)), nla(3, u32(0)),
                     nla(4, u32(0)), nla(5, u32(20480)), nla(6, u16(65535)),
                     nla(7, u32(1500)), nla(8, u8(1))))
    x = struct.pack("=IIQ", a.xstats_version, 8, 2500000) + stats(6, True)
    x += struct.pack("=IIQQQQQQ", 2, 2, 4194304, 40960, 90000, 180000, 1500, 3) + u64(4)
    qst = nest(7, nla(1, struct.pack("=QI", 9000000, 6000)),
               nla(3, struct.pack("=IIIII", 60, 90000, 12, 0, 0)), nla(4, x))
    copts = nest(2, nla(2, u32(51200)), nest(U.TCA_DCB_BAND_ECN, ecn(2, 20480, 20480, 0xffffffff)))
    cst = nest(7, nla(1, struct.pack("=QI", 3000000, 2000)),
               nla(3, struct.pack("=IIIII", 20, 30000, 4, 0, 0)), nla(4, stats(2, True)))
    with open(a.file, "wb") as f:
        f.write(msg(36, 0x10000, 1, nla(1, b"dcb\0") + opts + qst))      # RTM_NEWQDISC
        f.write(msg(40, 0x10004, 0, nla(1, b"dcb\0") + copts + cst))     # RTM_NEWTCLASS


if __name__ == "__main__":
    main()
