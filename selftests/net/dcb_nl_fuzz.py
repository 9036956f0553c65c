#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Netlink fuzzer for sch_dcb.

  dcb_nl_fuzz.py [--seed S] [--count N] [--verbose] DEV...

Sends N random messages to the root qdiscs of DEV... (in the caller's
network namespace): RTM_NEWQDISC add / change / replace of `dcb` with a
random attribute set, RTM_DELQDISC, and RTM_NEWTCLASS (class change) of
a band.  Attributes take boundary values (0, 1, MTU-sized, 2^31, 2^32-1,
2^64-1, ...), and some are truncated, oversized, nested where they should
not be (or flat where a nest is expected), duplicated or unknown.  All
devices use pool ids 0..3, so several of them share pools.

After each message the configuration of every DEV (the root qdisc's kind
and TCA_OPTIONS as dumped) is checked against what the answer allows:

  * an error changes nothing on any device;
  * a successful message changes nothing on the other devices but the
    size of a pool they share (TCA_DCB_BUFFER), and a class change does
    not even change that (a class change is not pool configuration);
  * a successful class change changes only the target's bands.

Exit 0 when every message passed, 1 otherwise; for each violation (the
first 5 in full) the seed, the message's index, the message itself (hex)
and both dumps are printed, so `--seed S --count I+1` reproduces it.
The kernel log is the test's business (the guest runner fails a test on
any splat)."""
import random
import socket
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import fuzzopts
from dcb_nl import (attr, ecn, RTM_NEWQDISC, RTM_NEWTCLASS, F_REQUEST, F_ACK,
                    F_REPLACE, F_EXCL, F_CREATE, NLMSG_ERROR, NETLINK_EXT_ACK,
                    NETLINK_CAP_ACK, TCA_KIND, TCA_OPTIONS, NLA_F_NESTED,
                    RATE64, OVERHEAD,
                    BURST, LIMIT, CLASSIFY, DSCP_MAP, ECN, BANDS, BAND,
                    B_INDEX, B_LIMIT, B_ECN, B_ECN_DEFAULT, POOL, BUFFER, PFC,
                    PFC_FIELDS, U)

TCA_DCB_MAX = U.TCA_DCB_MAX

RTM_DELQDISC, RTM_GETQDISC = 37, 38
NLM_F_DUMP = 0x300
NLMSG_DONE = 3
ROOT = 0xFFFFFFFF
HANDLE = 0x10000
UNKNOWN = TCA_DCB_MAX + 1     # the first type no nest of sch_dcb knows

U32 = (0, 1, 2, 7, 8, 63, 64, 1499, 1500, 1501, 3000, 9000, 65535, 65536,
       1 << 20, 100 << 20, (1 << 31) - 1, 1 << 31, (1 << 32) - 2, (1 << 32) - 1)
U64 = (0, 1, 125, 125000, 1250000, 5000000, 1250000000, 1 << 32, 1 << 62,
       (1 << 63) - 1, 1 << 63, (1 << 64) - 1)
U16 = (0, 1, 2, 0x7fff, 0xfffe, 0xffff)
U8 = (0, 1, 2, 3, 7, 8, 9, 0x7f, 0x80, 0xff)


class Fuzz:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def pick(self, values, bits):
        r = self.r
        if r.random() < 0.7:
            return r.choice(values)
        return r.getrandbits(bits)

    def u8(self):
        return struct.pack("=B", self.pick(U8, 8))

    def u16(self):
        return struct.pack("=H", self.pick(U16, 16))

    def u32(self):
        return struct.pack("=I", self.pick(U32, 32))

    def u64(self):
        return struct.pack("=Q", self.pick(U64, 64))

    def ecn(self):
        r = self.r
        kmin = self.pick(U32, 32)
        kmax = kmin + r.choice((0, 1, 1500, 100000)) if r.random() < 0.6 else self.pick(U32, 32)
        v = {"mode": r.choice((0, 1, 1, 2, 2, 3, 3, 4, 255)), "kmin": kmin,
             "kmax": kmax & 0xffffffff,
             "pmax": self.pick((0, 1, 1 << 24, 1 << 31, 0xffffffff), 32)}
        for key in list(v):     # members left out (mode: refused)
            if r.random() < 0.05:
                del v[key]
        return b"".join(self.mangle(kind, data) for kind, data in parse_list(ecn(v)))

    def mangle(self, kind, payload):
        """One attribute, sometimes damaged."""
        r = self.r
        x = r.random()
        if x < 0.02 and payload:
            return attr(kind, payload[:r.randrange(len(payload))])   # truncated
        if x < 0.04:
            return attr(kind, payload + bytes(r.randrange(1, 9)))     # oversized
        if x < 0.055:
            return attr(kind ^ NLA_F_NESTED, payload)                 # nest flag flipped
        if x < 0.065:
            return attr(r.randrange(UNKNOWN, 40), payload)           # unknown type
        if x < 0.08:
            return attr(kind, payload) * 2                            # duplicated
        return attr(kind, payload)

    def band(self, with_index):
        r = self.r
        out = b""
        if with_index and r.random() < 0.9:
            out += self.mangle(B_INDEX, struct.pack("=B", r.choice((0, 1, 3, 6, 7, 8, 255))))
        if r.random() < 0.5:
            out += self.mangle(B_LIMIT, self.u32())
        if r.random() < 0.5:
            out += self.mangle(B_ECN | NLA_F_NESTED, self.ecn())
        if r.random() < 0.2:
            out += self.mangle(B_ECN_DEFAULT, b"" if r.random() < 0.9 else b"\1")
        return out

    def pfc(self):
        r = self.r
        out = b""
        gens = {"=B": self.u8, "=H": self.u16, "=I": self.u32}
        for _, kind, fmt in PFC_FIELDS:
            if r.random() < 0.5:
                out += self.mangle(kind, gens[fmt]())
        return out

    def qdisc_opts(self):
        r = self.r
        if r.random() < 0.03:
            return bytes(r.getrandbits(8) for _ in range(r.randrange(0, 64)))
        out = b""
        gens = ((RATE64, self.u64), (OVERHEAD, self.u32), (BURST, self.u32),
                (LIMIT, self.u32), (CLASSIFY, self.u8))
        for kind, gen in gens:
            if r.random() < 0.35:
                out += self.mangle(kind, gen())
        if r.random() < 0.2:
            n = r.choice((64, 64, 64, 63, 65, 0))
            out += self.mangle(DSCP_MAP, bytes(r.choice((0, 1, 3, 7, 7, 8, 255))
                                               for _ in range(n)))
        if r.random() < 0.35:
            out += self.mangle(ECN | NLA_F_NESTED, self.ecn())
        if r.random() < 0.3:
            if r.random() < 0.1:    # band attributes without their BAND nest
                inner = self.band(True)
            else:
                inner = b"".join(self.mangle(BAND | NLA_F_NESTED, self.band(True))
                                 for _ in range(r.randrange(0, 10)))
            out += self.mangle(BANDS | NLA_F_NESTED, inner)
        if r.random() < 0.4:
            out += self.mangle(POOL, struct.pack("=I", r.choice((0, 1, 2, 3))))
        if r.random() < 0.3:
            out += self.mangle(BUFFER, self.u32())
        if r.random() < 0.35:
            out += self.mangle(PFC | NLA_F_NESTED, self.pfc())
        return out


class Netlink:
    def __init__(self):
        s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
        s.setsockopt(270, NETLINK_EXT_ACK, 1)
        s.setsockopt(270, NETLINK_CAP_ACK, 1)
        s.bind((0, 0))
        self.s = s
        self.seq = 0

    def send(self, mtype, flags, body):
        self.seq += 1
        msg = struct.pack("=IHHII", 16 + len(body), mtype, flags | F_REQUEST, self.seq, 0) + body
        self.s.send(msg)
        return msg

    def request(self, mtype, flags, body):
        msg = self.send(mtype, flags | F_ACK, body)
        while True:
            data = self.s.recv(1 << 16)
            off = 0
            while off + 16 <= len(data):
                ln, t, _, seq, _ = struct.unpack_from("=IHHII", data, off)
                if t == NLMSG_ERROR and seq == self.seq:
                    err = struct.unpack_from("=i", data, off + 16)[0]
                    return msg, err, extack(data[off:off + ln])
                off += (ln + 3) & ~3

    def roots(self):
        """{ifindex: (kind, {attr type: payload})} of the root qdiscs."""
        self.send(RTM_GETQDISC, NLM_F_DUMP, struct.pack("=BxxxiIII", 0, 0, 0, 0, 0))
        out = {}
        while True:
            data = self.s.recv(1 << 20)
            off = 0
            while off + 16 <= len(data):
                ln, t, _, seq, _ = struct.unpack_from("=IHHII", data, off)
                if t == NLMSG_DONE:
                    return out
                if t == NLMSG_ERROR:
                    raise OSError("qdisc dump failed")
                _, ifindex, _, parent, _ = struct.unpack_from("=BxxxiIII", data, off + 16)
                if parent == ROOT:
                    attrs = parse(data[off + 36:off + ln])
                    kind = attrs.get(TCA_KIND, b"").rstrip(b"\0").decode()
                    out[ifindex] = (kind, parse(attrs.get(TCA_OPTIONS, b"")))
                off += (ln + 3) & ~3


def parse_list(buf):
    """[(type with flags, payload)] of the attributes in buf"""
    out = []
    off = 0
    while off + 4 <= len(buf):
        ln, kind = struct.unpack_from("=HH", buf, off)
        if ln < 4:
            break
        out.append((kind, bytes(buf[off + 4:off + ln])))
        off += (ln + 3) & ~3
    return out


def parse(buf):
    out = {}
    off = 0
    while off + 4 <= len(buf):
        ln, kind = struct.unpack_from("=HH", buf, off)
        if ln < 4:
            break
        out[kind & 0x3fff] = bytes(buf[off + 4:off + ln])
        off += (ln + 3) & ~3
    return out


def extack(data):
    off = 16 + 4 + 16
    while off + 4 <= len(data):
        ln, kind = struct.unpack_from("=HH", data, off)
        if ln < 4:
            break
        if kind == 1:
            return data[off + 4:off + ln].rstrip(b"\0").decode(errors="replace")
        off += (ln + 3) & ~3
    return ""


def without(conf, *kinds):
    kind, opts = conf
    return kind, {k: v for k, v in opts.items() if k not in kinds}


def check(op, target, err, before, after):
    """What is wrong with the change from before to after, or None."""
    for ifi in before:
        b, a = before[ifi], after.get(ifi)
        if err:
            if a != b:
                return "failed message changed the configuration of ifindex %d" % ifi
            continue
        if ifi == target:
            if op == "class" and without(a, BANDS) != without(b, BANDS):
                return "class change changed more than the bands of its qdisc"
            continue
        if op == "class":
            if a != b:
                return "class change changed another port (ifindex %d)" % ifi
        elif b[0] == "dcb" and without(a, BUFFER) != without(b, BUFFER):
            return "message for ifindex %d changed ifindex %d" % (target, ifi)
    return None


def main():
    ap = fuzzopts.parser(__doc__)
    ap.add_argument("devs", nargs="+")
    a = ap.parse_args()

    fz = Fuzz(a.seed)
    nl = Netlink()
    ifindex = [socket.if_nametoindex(d) for d in a.devs]
    ops = ("change",) * 8 + ("replace",) * 4 + ("add",) * 2 + ("delete",) * 2 + ("class",) * 4
    stats = {}
    bad = 0
    for i in range(a.count):
        target = fz.r.choice(ifindex)
        before = nl.roots()
        before = {k: v for k, v in before.items() if k in ifindex}
        op = fz.r.choice(ops)
        # Mostly (re)create a port that has no dcb: there is more to find
        # on a port that exists.
        if before.get(target, ("",))[0] != "dcb" and fz.r.random() < 0.7:
            op = fz.r.choice(("add", "replace"))
        if op == "class":
            band = fz.r.choice((0, 1, 3, 7, 8, 9, 0xffff))
            tcm = struct.pack("=BxxxiIII", 0, target, HANDLE | band, 0, 0)
            body = tcm + attr(TCA_KIND, b"dcb\0") + \
                attr(TCA_OPTIONS | NLA_F_NESTED, fz.band(False))
            msg, err, why = nl.request(RTM_NEWTCLASS, 0, body)
        elif op == "delete":
            tcm = struct.pack("=BxxxiIII", 0, target, 0, ROOT, 0)
            msg, err, why = nl.request(RTM_DELQDISC, 0, tcm)
        else:
            flags = {"add": F_CREATE | F_EXCL, "change": 0,
                     "replace": F_CREATE | F_REPLACE}[op]
            tcm = struct.pack("=BxxxiIII", 0, target, HANDLE, ROOT, 0)
            body = tcm + attr(TCA_KIND, b"dcb\0") + \
                attr(TCA_OPTIONS | NLA_F_NESTED, fz.qdisc_opts())
            msg, err, why = nl.request(RTM_NEWQDISC, flags, body)
        after = nl.roots()
        key = "%s %s" % (op, "ok" if not err else "E%d" % -err)
        stats[key] = stats.get(key, 0) + 1
        if a.verbose:
            print("%d %s ifindex %d: %s %s" % (i, op, target, err, why))
        what = check(op, target, err, before, after)
        if what:
            bad += 1
            print("FAIL seed %d message %d: %s" % (a.seed, i, what))
            if bad <= 5:
                print("  %s to ifindex %d, answer %d (%s)" % (op, target, err, why))
                print("  message: %s" % msg.hex())
                for ifi in before:
                    print("  before %d: %r" % (ifi, before[ifi]))
                    print("  after  %d: %r" % (ifi, after.get(ifi)))
    print("seed %d: %d messages, %d violations; %s" %
          (a.seed, a.count, bad, ", ".join("%s %d" % kv for kv in sorted(stats.items()))))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
