#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Send crafted RoCEv2 CNPs (scapy computes the ICRC).

rxe_cnp_craft.py DST QPN CASE [SRC]
CASE: valid, wrong_qpn, bad_icrc, truncated, no_becn, unknown_opcode.
SRC: source address (default: the route's)."""
import sys

from scapy.all import IP, UDP, Raw, conf, send
from scapy.contrib.roce import BTH, CNPPadding, CNP_OPCODE

conf.verb = 0


def build(dst, qpn, case, src):
    ip = IP(dst=dst, tos=48 << 2)
    if src:
        ip.src = src
    # checksum 0 (allowed for IPv4, usual for RoCE): a corrupted ICRC
    # must reach rxe, not be dropped by UDP
    udp = UDP(sport=49152, dport=4791, chksum=0)
    if case == "truncated":
        return ip / udp / Raw(bytes(BTH(opcode=CNP_OPCODE, becn=1, dqpn=qpn,
                                        pkey=0xffff))[:12] + b"\0" * 4)
    opc = 0x82 if case == "unknown_opcode" else CNP_OPCODE
    becn = 0 if case == "no_becn" else 1
    if case == "wrong_qpn":
        qpn ^= 0x5a5a
    pkt = ip / udp / BTH(opcode=opc, becn=becn, dqpn=qpn, pkey=0xffff) / \
        CNPPadding()
    raw = bytearray(bytes(pkt))
    if case == "bad_icrc":
        raw[-1] ^= 0xff
    return IP(bytes(raw))


def main():
    dst, qpn, case = sys.argv[1], int(sys.argv[2], 0), sys.argv[3]
    src = sys.argv[4] if len(sys.argv) > 4 else None
    send(build(dst, qpn, case, src))


if __name__ == "__main__":
    main()
