#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Raw MAC control frames for the sch_dcb PAUSE receiver (no scapy: it
starts too slowly under TCG).

  pfc_frames.py fuzz IFACE     frames with 0..100 payload bytes and good,
                               odd and reserved opcodes/vectors, some
                               shorter than an Ethernet header; prints
                               "malformed=N valid=N"
  pfc_frames.py big IFACE N    N valid PFC frames pausing band 5 for one
                               quantum and N with a bad opcode, 5000 bytes
                               each, built non-linear (PACKET_VNET_HDR with
                               hdr_len 14: the payload lies in page frags)
  pfc_frames.py storm IFACE    frames alternating PAUSE band 3 (0x100
                               quanta) and RESUME band 3, back to back,
                               until killed
  pfc_frames.py one IFACE pause|resume [QUANTA]  one PFC frame for
                               band 3 (a PAUSE of QUANTA, default 0x100)
  pfc_frames.py hold IFACE MS N  N long pauses of band 3: PAUSE (0xffff
                               quanta, sent again every 0.5 s), MS ms
                               later RESUME, MS ms later the next;
                               prints "held N"
  pfc_frames.py listen IFACE FILE  packet sockets bound to IFACE, one
                               for ETH_P_PAUSE (the receive path delivers
                               PAUSE frames to two handlers: the skb is
                               shared) and one for ETH_P_ALL (a tap
                               without a ring, which clones the skb);
                               touches FILE when bound, then reads
                               until killed
"""
import os
import select
import socket
import struct
import sys
import time

ETH_P_PAUSE = 0x8808
SOL_PACKET = 263
PACKET_VNET_HDR = 15
PFC_DST = bytes.fromhex("0180c2000001")


def mac(iface):
    with open("/sys/class/net/%s/address" % iface) as f:
        return bytes.fromhex(f.read().strip().replace(":", ""))


def sock(iface, vnet=False):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    if vnet:
        s.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
    s.bind((iface, 0))
    return s


def pfc(src, opcode, vector, times, dst=PFC_DST):
    return (dst + src + struct.pack("!HHH", ETH_P_PAUSE, opcode, vector) +
            b"".join(struct.pack("!H", t) for t in times))


def send(s, frame):
    try:
        s.send(frame)
        return True
    except OSError:
        return False


def fuzz(iface):
    s, src = sock(iface), mac(iface)
    hdr = PFC_DST + src + struct.pack("!H", ETH_P_PAUSE)
    bad = good = 0
    # shorter than an Ethernet header: not PAUSE frames once received
    for n in range(0, 14):
        send(s, hdr[:n])
    for opcode in (0x0101, 0x0001, 0x0000, 0x0102, 0x0100, 0xffff):
        for vector in (0x0000, 0x0100):
            for n in range(0, 101):
                body = struct.pack("!HH", opcode, vector) + b"\0" * 96
                if not send(s, hdr + body[:n]):
                    continue
                if n < 4:
                    ok = False
                elif opcode == 0x0001:
                    ok = True          # 802.3x, time 0: resume all
                elif opcode == 0x0101:
                    ok = n >= 20 and vector == 0
                else:
                    ok = False
                good += ok
                bad += not ok
    # a wrong destination: malformed
    for n in range(4, 40):
        body = struct.pack("!HH", 0x0101, 0) + b"\0" * 36
        if send(s, bytes.fromhex("0180c2000002") + src +
                struct.pack("!H", ETH_P_PAUSE) + body[:n]):
            bad += 1
    print("malformed=%d valid=%d" % (bad, good))


def big(iface, n):
    s, src = sock(iface, vnet=True), mac(iface)
    # virtio_net_hdr: flags, gso_type, hdr_len, gso_size, csum_start,
    # csum_offset; hdr_len 14 keeps only the MAC header linear
    vh = struct.pack("<BBHHHH", 0, 0, 14, 0, 0, 0)
    times = [0, 0, 0, 0, 0, 1, 0, 0]
    sent = 0
    for opcode in (0x0101, 0x0155):
        f = pfc(src, opcode, 0x20, times)
        f += b"\0" * (5000 - len(f))
        for _ in range(n):
            s.send(vh + f)
            sent += 1
    print("sent=%d" % sent)


def storm(iface):
    s, src = sock(iface), mac(iface)
    p = pfc(src, 0x0101, 0x08, [0, 0, 0, 0x100, 0, 0, 0, 0])
    r = pfc(src, 0x0101, 0x08, [0] * 8)
    while True:
        send(s, p)
        send(s, r)


def one(iface, what, quanta=0x100):
    s, src = sock(iface), mac(iface)
    q = quanta if what == "pause" else 0
    s.send(pfc(src, 0x0101, 0x08, [0, 0, 0, q, 0, 0, 0, 0]))


def hold(iface, ms, n):
    s, src = sock(iface), mac(iface)
    p = pfc(src, 0x0101, 0x08, [0, 0, 0, 0xffff, 0, 0, 0, 0])
    r = pfc(src, 0x0101, 0x08, [0] * 8)
    for _ in range(n):
        # 0xffff quanta last 3.4 s at 10 Mb/s: refresh every 0.5 s
        end = time.monotonic() + ms / 1000
        while time.monotonic() < end:
            s.send(p)
            time.sleep(min(0.5, max(0, end - time.monotonic())))
        s.send(r)
        time.sleep(ms / 1000)
    print("held %d" % n)


def listen(iface, ready):
    pause = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                          socket.htons(ETH_P_PAUSE))
    pause.bind((iface, ETH_P_PAUSE))
    # a tap without a ring (packet_rcv): it clones the shared skb
    tap = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                        socket.htons(0x0003))
    tap.bind((iface, 0x0003))
    for s in (pause, tap):
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    open(ready, "w").close()
    while True:
        for s in select.select([pause, tap], [], [])[0]:
            s.recv(65536)


def main():
    cmd, iface = sys.argv[1], sys.argv[2]
    if cmd == "fuzz":
        fuzz(iface)
    elif cmd == "big":
        big(iface, int(sys.argv[3]))
    elif cmd == "storm":
        storm(iface)
    elif cmd == "one":
        one(iface, sys.argv[3], *(int(a, 0) for a in sys.argv[4:5]))
    elif cmd == "hold":
        hold(iface, int(sys.argv[3]), int(sys.argv[4]))
    elif cmd == "listen":
        listen(iface, sys.argv[3])
    else:
        sys.exit("unknown command " + cmd)


main()
