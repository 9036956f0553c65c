#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""RoCEv2 packet fuzzer for rdma_rxe (rxe_cc).

  rxe_bth_fuzz.py [--seed S] [--count N] [--icrc-check] [--verbose]
                  SRC DST QPN[,QPN...]

Sends N RoCEv2 packets (IPv4, UDP to port 4791) from this namespace to
DST through a raw socket: BTH with every opcode (the ones rxe knows, CNP
included, and random bytes), random flags, P_Key, PSN, AckReq, a
destination QP that is one of QPN... (the QPs of the run, or just after the
last one, where the test creates and destroys QPs), 0 or random, payloads
of random length (0 to 1100 bytes, ragged lengths included), headers cut
short, a correct ICRC for most and a corrupted one for some, the source
address SRC for most and a spoofed one for some.  QP 1 (GSI: MADs go to
the InfiniBand core, not to our code) is never targeted.

The ICRC is computed here (CRC-32 over the RoCEv2 pseudo header with the
variant fields masked, as IBTA Annex A17 specifies), so no scapy is needed
at run time; --icrc-check compares it with scapy's for a few packets and
exits.  Prints "sent N" and, with --verbose, one line per packet.
"""
import random
import socket
import struct
import sys
import zlib

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import fuzzopts  # noqa: E402

ROCE_PORT = 4791
CNP = 0x81
# Opcodes rxe implements: RC, UC, RD (rejected), UD, and the CNP.
KNOWN = list(range(0x00, 0x18)) + list(range(0x20, 0x2c)) + \
    list(range(0x40, 0x56)) + [0x64, 0x65, CNP]


def ip_header(src, dst, tos, total):
    return struct.pack("!BBHHHBBH4s4s", 0x45, tos, total, 0, 0x4000, 64,
                       socket.IPPROTO_UDP, 0, socket.inet_aton(src),
                       socket.inet_aton(dst))


def icrc(ip, udp, bth, payload):
    """RoCEv2 ICRC: CRC-32 of 8 bytes of ones, the IP header with TOS, TTL
    and checksum masked, the UDP header with its checksum masked, the BTH
    with FECN/BECN/resv6 masked, and the payload; sent little-endian."""
    ip = bytearray(ip)
    ip[1] = 0xff
    ip[8] = 0xff
    ip[10:12] = b"\xff\xff"
    udp = bytearray(udp)
    udp[6:8] = b"\xff\xff"
    bth = bytearray(bth)
    bth[4] = 0xff
    crc = zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(bth) + payload)
    return struct.pack("<I", crc & 0xffffffff)


def packet(src, dst, opcode, flags, pkey, dqpn, psn, payload, tos=0,
           good_icrc=True, cut=None):
    bth = struct.pack("!BBHII", opcode, flags[0], pkey,
                      (flags[1] << 24) | (dqpn & 0xffffff),
                      (flags[2] << 24) | (psn & 0xffffff))
    udp_len = 8 + len(bth) + len(payload) + 4
    udp = struct.pack("!HHHH", 49152, ROCE_PORT, udp_len, 0)
    ip = ip_header(src, dst, tos, 20 + udp_len)
    crc = icrc(ip, udp, bth, payload)
    if not good_icrc:
        crc = bytes(b ^ 0x5a for b in crc)
    body = bth + payload + crc
    if cut is not None:
        body = body[:cut]
        udp = struct.pack("!HHHH", 49152, ROCE_PORT, 8 + len(body), 0)
        ip = ip_header(src, dst, tos, 28 + len(body))
    return ip + udp + body


def icrc_check():
    # pylint: disable=import-outside-toplevel
    from scapy.all import IP, UDP, Raw
    from scapy.contrib.roce import BTH
    r = random.Random(3)
    for _ in range(20):
        opc = r.choice(KNOWN)
        dqpn, psn = r.getrandbits(24), r.getrandbits(24)
        pay = bytes(r.getrandbits(8) for _ in range(r.randrange(0, 64)))
        ours = packet("10.0.1.2", "10.0.2.2", opc, (0, 0, 0), 0xffff, dqpn, psn, pay)
        ref = bytes(IP(src="10.0.1.2", dst="10.0.2.2", flags="DF", id=0, ttl=64) /
                    UDP(sport=49152, dport=ROCE_PORT, chksum=0) /
                    BTH(opcode=opc, dqpn=dqpn, psn=psn) / Raw(pay))
        if ours[-4:] != ref[-4:]:
            print("ICRC differs from scapy's: opcode %#x len %d" % (opc, len(pay)))
            return 1
    print("ICRC matches scapy's on 20 packets")
    return 0


def main():
    ap = fuzzopts.parser(__doc__)
    ap.add_argument("--icrc-check", action="store_true")
    ap.add_argument("src", nargs="?")
    ap.add_argument("dst", nargs="?")
    ap.add_argument("qpns", nargs="?")
    a = ap.parse_args()
    if a.icrc_check:
        return icrc_check()
    if not a.qpns:
        ap.error("SRC DST QPN[,QPN...] needed")

    r = random.Random(a.seed)
    qpns = [int(q, 0) for q in a.qpns.split(",")]
    sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    sent = 0
    for i in range(a.count):
        opcode = r.choice(KNOWN) if r.random() < 0.75 else r.getrandbits(8)
        x = r.random()
        if x < 0.6:
            dqpn = r.choice(qpns)
        elif x < 0.8:
            dqpn = max(qpns) + r.randrange(1, 64)
        elif x < 0.9:
            dqpn = 0
        else:
            dqpn = r.getrandbits(24)
        if dqpn == 1:
            dqpn = 2
        # byte 1: SE, M, pad count, version; byte 4: FECN, BECN, resv6;
        # byte 8: AckReq, resv7
        flags = (r.getrandbits(8) if r.random() < 0.3 else r.choice((0, 0x30)),
                 r.choice((0, 0x40, 0x80, 0xc0, r.getrandbits(8))),
                 r.choice((0, 0x80, r.getrandbits(8))))
        pkey = 0xffff if r.random() < 0.85 else r.getrandbits(16)
        n = r.choice((0, 4, 16, 28, r.randrange(0, 64), r.randrange(0, 1100)))
        payload = bytes(r.getrandbits(8) for _ in range(n))
        src = a.src if r.random() < 0.8 else \
            "10.%d.%d.%d" % (r.randrange(256), r.randrange(256), r.randrange(1, 255))
        cut = r.randrange(0, 16) if r.random() < 0.08 else None
        pkt = packet(src, a.dst, opcode, flags, pkey, dqpn, r.getrandbits(24),
                     payload, tos=r.choice((0, 2, 3, 26 << 2 | 2)),
                     good_icrc=r.random() < 0.75, cut=cut)
        try:
            sock.sendto(pkt, (a.dst, 0))
            sent += 1
        except OSError as e:
            if a.verbose:
                print("%d: %s" % (i, e))
        if a.verbose:
            print("%d: opcode %#x qpn %#x len %d src %s" % (i, opcode, dqpn, len(pkt), src))
    print("sent %d" % sent)
    return 0


if __name__ == "__main__":
    sys.exit(main())
