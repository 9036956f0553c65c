#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Crafted RoCEv2 CNPs (scapy computes the ICRC).

rxe_cnp_craft.py build DIR DST QPN [SRC]
    Write one raw IPv4 packet per case to DIR/CASE.bin (built with the
    route's source address), and DIR/valid_src.bin from SRC if given.
rxe_cnp_craft.py send FILE...
    Send the packets in FILEs, in order, through a raw socket (no scapy:
    importing it takes 15 s in a TCG guest, so it is done once, in build).
CASE: valid, wrong_qpn, bad_icrc, truncated, no_becn, unknown_opcode."""
import os
import socket
import sys

CASES = ("valid", "wrong_qpn", "bad_icrc", "truncated", "no_becn",
         "unknown_opcode")


def build(dst, qpn, case, src):
    # pylint: disable=import-outside-toplevel
    from scapy.all import IP, UDP, Raw
    from scapy.contrib.roce import BTH, CNPPadding, CNP_OPCODE

    ip = IP(dst=dst, tos=48 << 2)
    if src:
        ip.src = src
    # checksum 0 (allowed for IPv4, usual for RoCE): a corrupted ICRC
    # must reach rxe, not be dropped by UDP
    udp = UDP(sport=49152, dport=4791, chksum=0)
    if case == "truncated":
        return bytes(ip / udp / Raw(bytes(BTH(opcode=CNP_OPCODE, becn=1,
                                              dqpn=qpn, pkey=0xffff))[:12] +
                                    b"\0" * 4))
    opc = 0x82 if case == "unknown_opcode" else CNP_OPCODE
    becn = 0 if case == "no_becn" else 1
    if case == "wrong_qpn":
        qpn ^= 0x5a5a
    pkt = ip / udp / BTH(opcode=opc, becn=becn, dqpn=qpn, pkey=0xffff) / \
        CNPPadding()
    raw = bytearray(bytes(pkt))
    if case == "bad_icrc":
        raw[-1] ^= 0xff
    return bytes(raw)


def cmd_build(outdir, dst, qpn, src=None):
    qpn = int(qpn, 0)
    todo = [(c, c, None) for c in CASES]
    if src:
        todo.append(("valid_src", "valid", src))
    for name, case, s in todo:
        with open(os.path.join(outdir, name + ".bin"), "wb") as f:
            f.write(build(dst, qpn, case, s))


def cmd_send(files):
    with socket.socket(socket.AF_INET, socket.SOCK_RAW,
                       socket.IPPROTO_RAW) as sock:
        for name in files:
            with open(name, "rb") as f:
                pkt = f.read()
            sock.sendto(pkt, (socket.inet_ntoa(pkt[16:20]), 0))


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "build":
        cmd_build(*sys.argv[2:6])
    elif len(sys.argv) >= 3 and sys.argv[1] == "send":
        cmd_send(sys.argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
