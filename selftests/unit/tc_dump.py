#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write an RTM_NEWQDISC (dcb 1: on ifindex 1) and an RTM_NEWTCLASS (1:4)
as sch_dcb dumps them, for `tc -s monitor file FILE`: the plugin's output
checked on a host without the module.  The numbers and the statistics
layout come from the uAPI header (scripts/dcbanalysis/uapi.py, `make
user`).

  --xstats-version N  the statistics' header says version N
  --newer N           the statistics of a newer module: N counters appended
                      to every block and a header N * 8 bytes longer
                      followed by a block of N * 8 bytes this build does
                      not know (their values 77)
  --older N           the statistics of an older module: N counters fewer
                      in each band's and the totals' block"""
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


def block(name, values, extra, fewer=0):
    """struct NAME of values, with extra u64 counters of 77 appended
    (a newer module) or its last fewer u64 counters left out (an older)"""
    data = struct.pack(U.struct_format(name), *values) + struct.pack("=%dQ" % extra, *[77] * extra)
    return data[:len(data) - 8 * fewer]


def stats(base, pfc):
    """the counters of struct tc_dcb_stats: base*1000 + i for the first
    ten, the PFC ones 5 (xoff 61440)"""
    v = [base * 1000 + i for i in range(10)] + [5 if pfc else 0] * (len(U.STATS_FIELDS) - 10)
    v[U.STATS_FIELDS.index("xoff")] = 61440 if pfc else 0
    return v


def xstats(version, blocks, extra):
    """The header with the size of each block, then the blocks; a newer
    module's header is longer and a block it adds follows the others."""
    sizes = [len(b) for b in blocks]
    hdr_size = struct.calcsize(U.struct_format("tc_dcb_xstats")) + 8 * extra
    hdr = struct.pack(U.struct_format("tc_dcb_xstats"), version, U.TC_DCB_NUM_BANDS,
                      hdr_size, *sizes)
    hdr += struct.pack("=%dI" % (2 * extra), *[8] * (2 * extra))
    return hdr + b"".join(blocks) + struct.pack("=%dQ" % extra, *[77] * extra)


def msg(kind, handle, info, body):
    tcm = struct.pack("=BBHiIII", 0, 0, 0, 1, handle, 0xffffffff, info)
    return struct.pack("=IHHII", 16 + len(tcm) + len(body), kind, 0, 0, 0) + tcm + body


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--xstats-version", type=int, default=U.TC_DCB_XSTATS_VERSION)
    ap.add_argument("--newer", type=int, default=0)
    ap.add_argument("--older", type=int, default=0)
    a = ap.parse_args()
    n = a.newer
    dmap = bytearray(d >> 3 for d in range(64))
    dmap[0], dmap[46] = 7, 6
    pfc = nest(U.TCA_DCB_PFC,
               nla(U.TCA_DCB_PFC_PRIO_MASK, u8(0x48)), nla(U.TCA_DCB_PFC_XOFF, u32(61440)),
               nla(U.TCA_DCB_PFC_XON, u32(0)), nla(U.TCA_DCB_PFC_BETA, u32(0)),
               nla(U.TCA_DCB_PFC_HEADROOM, u32(20480)), nla(U.TCA_DCB_PFC_QUANTA, u16(65535)),
               nla(U.TCA_DCB_PFC_DELAY, u32(1500)), nla(U.TCA_DCB_PFC_OVERFLOW, u8(1)))
    bands = nest(U.TCA_DCB_BANDS,
                 nest(U.TCA_DCB_BAND, nla(U.TCA_DCB_BAND_INDEX, u8(3)),
                      nla(U.TCA_DCB_BAND_LIMIT, u32(51200)),
                      nest(U.TCA_DCB_BAND_ECN, ecn(U.TC_DCB_ECN_STEP, 20480, 20480, U.TC_DCB_PROB_ONE))),
                 nest(U.TCA_DCB_BAND, nla(U.TCA_DCB_BAND_INDEX, u8(5)),
                      nla(U.TCA_DCB_BAND_LIMIT, u32(0)),
                      nla(U.TCA_DCB_BAND_NONECT, u8(U.TC_DCB_NONECT_DROP))))
    opts = nest(2, nla(U.TCA_DCB_RATE64, u64(2500000)), nla(U.TCA_DCB_OVERHEAD, u32(24)),
                nla(U.TCA_DCB_BURST, u32(0)), nla(U.TCA_DCB_LIMIT, u32(307200)),
                nla(U.TCA_DCB_CLASSIFY, u8(U.TC_DCB_CLASSIFY_DSCP)),
                nla(U.TCA_DCB_DSCP_MAP, bytes(dmap)),
                nest(U.TCA_DCB_ECN, ecn(U.TC_DCB_ECN_RED, 30720, 102400, 429496730)),
                nla(U.TCA_DCB_NONECT, u8(0)), bands,
                nla(U.TCA_DCB_POOL, u32(2)), nla(U.TCA_DCB_BUFFER, u32(4194304)), pfc)
    x = xstats(a.xstats_version,
               [block("tc_dcb_port_stats", (2500000, 4), n),
                block("tc_dcb_stats", stats(6, True), n, a.older),
                block("tc_dcb_pool_stats", (2, 2, 4194304, 40960, 90000, 180000, 1500, 3), n)], n)
    qst = nest(7, nla(1, struct.pack("=QI", 9000000, 6000)),
               nla(3, struct.pack("=IIIII", 60, 90000, 12, 0, 0)), nla(4, x))
    copts = nest(2, nla(U.TCA_DCB_BAND_LIMIT, u32(51200)),
                 nest(U.TCA_DCB_BAND_ECN, ecn(U.TC_DCB_ECN_STEP, 20480, 20480, U.TC_DCB_PROB_ONE)))
    cx = xstats(a.xstats_version, [b"", block("tc_dcb_stats", stats(2, True), n, a.older), b""], n)
    cst = nest(7, nla(1, struct.pack("=QI", 3000000, 2000)),
               nla(3, struct.pack("=IIIII", 20, 30000, 4, 0, 0)), nla(4, cx))
    with open(a.file, "wb") as f:
        f.write(msg(36, 0x10000, 1, nla(1, b"dcb\0") + opts + qst))      # RTM_NEWQDISC
        f.write(msg(40, 0x10004, 0, nla(1, b"dcb\0") + copts + cst))     # RTM_NEWTCLASS


if __name__ == "__main__":
    main()
