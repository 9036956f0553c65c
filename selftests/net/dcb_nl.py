#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Raw rtnetlink client for sch_dcb, independent of the tc plugin, so the
tests can send what the plugin would refuse and check the kernel's own
validation (error code and extack message).

  dcb_nl.py {add|change|replace} DEV 'JSON'
  dcb_nl.py class-change DEV CLASSID 'JSON'
  dcb_nl.py notify DEV 'JSON'

notify changes the qdisc as `change` does, with a listener on RTNLGRP_TC,
and checks that the kernel tells it (RTM_NEWQDISC of kind dcb for DEV)
and that the first dump on a fresh socket lists the qdisc: both are
built in a page-sized buffer, which a dcb qdisc message must fit.  Prints
"ok notify LEN dump LEN" (the messages' lengths) or what is missing.

JSON keys (qdisc): rate (bytes/s), overhead, burst, limit, classify,
dscp_map (64 bands), ecn [mode, kmin, kmax, pmax_u32] (or an object with
some of mode, kmin, kmax, pmax: only those are sent),
bands [{index, limit, ecn, ecn_default, nonect}], pool, buffer, nonect,
pfc {mask, xoff, xon, beta, headroom, quanta, delay, overflow}; and, not sch_dcb
options: handle ("2:", default "1:"), bad_stab (true: an empty TCA_STAB,
which the core refuses after the qdisc's init succeeded), raw [[TYPE,
"HEX"], ...] (attributes appended as given).  (class): limit, ecn,
ecn_default, nonect, index.  Prints "ok" or "error ERRNO: MESSAGE"; exit
0/1.  The attribute numbers come from sch_dcb/uapi/pkt_sched_dcb.h
through scripts/dcbanalysis/uapi.py (`make user` generates it)."""
import json
import os
import socket
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "scripts"))
try:
    from dcbanalysis import uapi as U
except ImportError:
    sys.exit("dcb_nl.py: scripts/dcbanalysis/uapi.py is missing: run make user")

RTM_NEWQDISC, RTM_GETQDISC, RTM_NEWTCLASS = 36, 38, 40
RTNLGRP_TC = 4
F_DUMP = 0x300
NLMSG_DONE = 3
F_REQUEST, F_ACK, F_REPLACE, F_EXCL, F_CREATE = 1, 4, 0x100, 0x200, 0x400
NLMSG_ERROR = 2
NETLINK_EXT_ACK, NETLINK_CAP_ACK = 11, 10
TCA_KIND, TCA_OPTIONS, TCA_STAB = 1, 2, 8
NLA_F_NESTED = 0x8000
RATE64, OVERHEAD, BURST, LIMIT = U.TCA_DCB_RATE64, U.TCA_DCB_OVERHEAD, U.TCA_DCB_BURST, U.TCA_DCB_LIMIT
CLASSIFY, DSCP_MAP, ECN, BANDS = U.TCA_DCB_CLASSIFY, U.TCA_DCB_DSCP_MAP, U.TCA_DCB_ECN, U.TCA_DCB_BANDS
POOL, BUFFER, PFC, NONECT = U.TCA_DCB_POOL, U.TCA_DCB_BUFFER, U.TCA_DCB_PFC, U.TCA_DCB_NONECT
BAND = U.TCA_DCB_BAND
B_INDEX, B_LIMIT, B_ECN = U.TCA_DCB_BAND_INDEX, U.TCA_DCB_BAND_LIMIT, U.TCA_DCB_BAND_ECN
B_ECN_DEFAULT, B_NONECT = U.TCA_DCB_BAND_ECN_DEFAULT, U.TCA_DCB_BAND_NONECT
PFC_FIELDS = (("mask", U.TCA_DCB_PFC_PRIO_MASK, "=B"), ("xoff", U.TCA_DCB_PFC_XOFF, "=I"),
              ("xon", U.TCA_DCB_PFC_XON, "=I"), ("beta", U.TCA_DCB_PFC_BETA, "=I"),
              ("headroom", U.TCA_DCB_PFC_HEADROOM, "=I"),
              ("quanta", U.TCA_DCB_PFC_QUANTA, "=H"), ("delay", U.TCA_DCB_PFC_DELAY, "=I"),
              ("overflow", U.TCA_DCB_PFC_OVERFLOW, "=B"))
ECN_FIELDS = (("mode", U.TCA_DCB_ECN_MODE, "=B"), ("kmin", U.TCA_DCB_ECN_KMIN, "=I"),
              ("kmax", U.TCA_DCB_ECN_KMAX, "=I"), ("pmax", U.TCA_DCB_ECN_PMAX, "=I"))


def attr(kind, payload):
    n = 4 + len(payload)
    return struct.pack("=HH", n, kind) + payload + b"\0" * ((4 - n % 4) % 4)


def ecn(v):
    """The TCA_DCB_ECN_* attributes of a curve: [mode, kmin, kmax, pmax],
    or a dict of some of them (only those)"""
    if not isinstance(v, dict):
        v = dict(zip(("mode", "kmin", "kmax", "pmax"), v))
    return b"".join(attr(kind, struct.pack(fmt, v[key]))
                    for key, kind, fmt in ECN_FIELDS if key in v)


def band_attrs(b):
    out = b""
    if "index" in b:
        out += attr(B_INDEX, struct.pack("=B", b["index"]))
    if "limit" in b:
        out += attr(B_LIMIT, struct.pack("=I", b["limit"]))
    if "ecn" in b:
        out += attr(B_ECN | NLA_F_NESTED, ecn(b["ecn"]))
    if b.get("ecn_default"):
        out += attr(B_ECN_DEFAULT, b"")
    if "nonect" in b:
        out += attr(B_NONECT, struct.pack("=B", b["nonect"]))
    return out


def qdisc_attrs(o):
    out = b""
    if "rate" in o:
        out += attr(RATE64, struct.pack("=Q", o["rate"]))
    for key, kind in (("overhead", OVERHEAD), ("burst", BURST), ("limit", LIMIT)):
        if key in o:
            out += attr(kind, struct.pack("=I", o[key]))
    if "classify" in o:
        out += attr(CLASSIFY, struct.pack("=B", o["classify"]))
    if "dscp_map" in o:
        out += attr(DSCP_MAP, bytes(o["dscp_map"]))
    if "ecn" in o:
        out += attr(ECN | NLA_F_NESTED, ecn(o["ecn"]))
    if "nonect" in o:
        out += attr(NONECT, struct.pack("=B", o["nonect"]))
    for key, kind in (("pool", POOL), ("buffer", BUFFER)):
        if key in o:
            out += attr(kind, struct.pack("=I", o[key]))
    if "pfc" in o:
        out += attr(PFC | NLA_F_NESTED,
                    b"".join(attr(kind, struct.pack(fmt, o["pfc"][key]))
                             for key, kind, fmt in PFC_FIELDS if key in o["pfc"]))
    if "bands" in o:
        out += attr(BANDS | NLA_F_NESTED,
                    b"".join(attr(BAND | NLA_F_NESTED, band_attrs(b)) for b in o["bands"]))
    for kind, data in o.get("raw", ()):
        out += attr(kind, bytes.fromhex(data))
    return out


def talk(msgtype, flags, ifindex, handle, parent, payload, extra=b""):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    s.setsockopt(270, NETLINK_EXT_ACK, 1)
    s.setsockopt(270, NETLINK_CAP_ACK, 1)
    tcm = struct.pack("=BxxxiIII", socket.AF_UNSPEC, ifindex, handle, parent, 0)
    body = tcm + attr(TCA_KIND, b"dcb\0") + attr(TCA_OPTIONS | NLA_F_NESTED, payload) + extra
    s.send(struct.pack("=IHHII", 16 + len(body), msgtype, flags | F_REQUEST | F_ACK, 1, 0) + body)
    data = s.recv(65536)
    _, mtype, mflags, _, _ = struct.unpack_from("=IHHII", data)
    if mtype != NLMSG_ERROR:
        return 0, "unexpected reply"
    err = struct.unpack_from("=i", data, 16)[0]
    msg = ""
    off = 16 + 4 + 16          # nlmsgerr with the request header only
    while off + 4 <= len(data):
        alen, akind = struct.unpack_from("=HH", data, off)
        if alen < 4:
            break
        if akind == 1:          # NLMSGERR_ATTR_MSG
            msg = data[off + 4:off + alen].rstrip(b"\0").decode()
        off += (alen + 3) & ~3
    return err, msg


def qdisc_msgs(data):
    """(type, ifindex, kind, length) of each message in data"""
    off = 0
    while off + 16 <= len(data):
        mlen, mtype = struct.unpack_from("=IH", data, off)
        if mlen < 16:
            break
        kind = ""
        if mtype == RTM_NEWQDISC and mlen >= 36:
            ifindex = struct.unpack_from("=i", data, off + 20)[0]
            a = off + 36
            while a + 4 <= off + mlen:
                alen, akind = struct.unpack_from("=HH", data, a)
                if alen < 4:
                    break
                if akind == TCA_KIND:
                    kind = data[a + 4:a + alen].rstrip(b"\0").decode()
                a += (alen + 3) & ~3
        else:
            ifindex = 0
        yield mtype, ifindex, kind, mlen
        off += (mlen + 3) & ~3


def notify(ifindex, opts):
    mon = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    mon.bind((0, 1 << (RTNLGRP_TC - 1)))
    err, msg = talk(RTM_NEWQDISC, 0, ifindex, 1 << 16, 0xFFFFFFFF, qdisc_attrs(opts))
    if err:
        print("error %d: %s" % (-err, msg or os.strerror(-err)))
        return 1
    # the notification is queued before the change's ACK: it is there now
    mon.setblocking(False)
    nlen = 0
    try:
        while not nlen:
            for mtype, idx, kind, mlen in qdisc_msgs(mon.recv(65536)):
                if mtype == RTM_NEWQDISC and idx == ifindex and kind == "dcb":
                    nlen = mlen
    except BlockingIOError:
        pass
    # A fresh socket: its first dump buffer is page-sized (no recv yet).
    d = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    tcm = struct.pack("=BxxxiIII", socket.AF_UNSPEC, 0, 0, 0, 0)
    d.send(struct.pack("=IHHII", 16 + len(tcm), RTM_GETQDISC, F_REQUEST | F_DUMP, 1, 0) + tcm)
    dlen, done = 0, False
    while not done:
        for mtype, idx, kind, mlen in qdisc_msgs(d.recv(65536)):
            if mtype == RTM_NEWQDISC and idx == ifindex and kind == "dcb":
                dlen = mlen
            done |= mtype in (NLMSG_DONE, NLMSG_ERROR)
    if not nlen or not dlen:
        print("missing:%s%s" % ("" if nlen else " notification",
                                "" if dlen else " qdisc in the first dump"))
        return 1
    print("ok notify %d dump %d" % (nlen, dlen))
    return 0


def main():
    op = sys.argv[1]
    dev = sys.argv[2]
    ifindex = socket.if_nametoindex(dev)
    if op == "notify":
        return notify(ifindex, json.loads(sys.argv[3]))
    if op == "class-change":
        classid = int(sys.argv[3].split(":")[0], 16) << 16 | int(sys.argv[3].split(":")[1], 16)
        opts = json.loads(sys.argv[4])
        err, msg = talk(RTM_NEWTCLASS, 0, ifindex, classid, 0, band_attrs(opts))
    else:
        opts = json.loads(sys.argv[3])
        handle = int(opts.pop("handle", "1:").rstrip(":"), 16) << 16
        extra = attr(TCA_STAB | NLA_F_NESTED, b"") if opts.pop("bad_stab", False) else b""
        flags = {"add": F_CREATE | F_EXCL, "change": 0,
                 "replace": F_CREATE | F_REPLACE}[op]
        err, msg = talk(RTM_NEWQDISC, flags, ifindex, handle, 0xFFFFFFFF,
                        qdisc_attrs(opts), extra)
    if err:
        print("error %d: %s" % (-err, msg or os.strerror(-err)))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
