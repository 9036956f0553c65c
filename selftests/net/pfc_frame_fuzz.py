#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""MAC-control frame fuzzer for sch_dcb's PAUSE receiver.

  pfc_frame_fuzz.py [--seed S] [--count N] [--sweep] [--resume-storm]
                    DEV PEER_MAC

Sends ethertype 0x8808 frames out of DEV (an AF_PACKET socket) to the
sch_dcb device at the other end of the link:

  --sweep          one frame of every length from 0 to DEV's MTU + 14
                   bytes, alternately linear and nonlinear (see below);
  N random frames  (default 2000): 802.3x PAUSE, 802.1Qbb PFC and other
                   opcodes, the PFC multicast, the peer's unicast,
                   broadcast and other MAC-control destinations, reserved
                   vector bits, random times, truncated or padded to a
                   random length (jumbo lengths when the MTU allows);
  --resume-storm   N frames that are all valid PFC PAUSEs and RESUMEs
                   alternating, to hit the resume path (which reschedules
                   the qdisc) while the test replaces the qdisc.

Nonlinear frames come from a second socket with PACKET_VNET_HDR whose
virtio header sets hdr_len to 14: the kernel then builds the skb with only
the Ethernet header in its linear part and the MAC-control payload in page
fragments, so the receiver must pull what it reads.

Prints one line "sent N failed F valid V malformed M" (and per-frame
lines with --verbose), where V counts the well-formed PFC frames to the
PFC multicast address of at least 60 bytes with a non-empty class vector,
M the frames of at least 60 bytes that are malformed by any reading
(wrong destination, unknown opcode, reserved vector bits): lower bounds
for the receiver's pause_rx/resume_rx and pfc_malformed counters."""
import random
import socket
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import fuzzopts  # noqa: E402

SOL_PACKET, PACKET_VNET_HDR = 263, 15
PFC_DST = bytes.fromhex("0180c2000001")
ETH_P_PAUSE = 0x8808


def mac(s):
    return bytes.fromhex(s.replace(":", ""))


def main():
    ap = fuzzopts.parser(__doc__)
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--resume-storm", action="store_true")
    ap.add_argument("dev")
    ap.add_argument("peer")
    a = ap.parse_args()

    r = random.Random(a.seed)
    with open("/sys/class/net/%s/mtu" % a.dev) as f:
        maxlen = int(f.read()) + 14
    with open("/sys/class/net/%s/address" % a.dev) as f:
        src = mac(f.read().strip())
    peer = mac(a.peer)

    lin = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    lin.bind((a.dev, 0))
    nonlin = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    nonlin.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
    nonlin.bind((a.dev, 0))
    # virtio_net_hdr: no offload, hdr_len 14 (only the Ethernet header linear)
    vnet = struct.pack("=BBHHHH", 0, 0, 14, 0, 0, 0)

    sent = failed = valid = malformed = 0

    def send(frame, nonlinear, is_valid, is_bad):
        nonlocal sent, failed, valid, malformed
        try:
            if nonlinear:
                nonlin.send(vnet + frame)
            else:
                lin.send(frame)
        except OSError as e:
            failed += 1
            if a.verbose:
                print("len %d: %s" % (len(frame), e))
            return
        sent += 1
        if len(frame) >= 60:
            valid += is_valid
            malformed += is_bad

    def random_frame(length=None):
        dst = r.choice((PFC_DST, PFC_DST, PFC_DST, peer, b"\xff" * 6,
                        bytes.fromhex("0180c2000002")))
        opcode = r.choice((0x0101, 0x0101, 0x0101, 0x0001, 0x0000, 0x0102,
                           0xffff, r.getrandbits(16)))
        vector = r.choice((0, 0x01, 0x08, 0x88, 0xff, 0x100, 0x8000,
                           r.getrandbits(16)))
        times = [r.choice((0, 1, 0xffff, r.getrandbits(16))) for _ in range(8)]
        body = struct.pack("!HHH", ETH_P_PAUSE, opcode, vector) + \
            struct.pack("!8H", *times)
        f = dst + src + body
        if length is None:
            length = r.choice((r.randrange(0, 64), r.randrange(0, 128),
                               r.randrange(0, maxlen + 1), len(f), 60, 64))
        if length <= len(f):
            f = f[:length]
        else:
            f += bytes(r.getrandbits(8) for _ in range(min(length - len(f), 64)))
            f += bytes(length - len(f))
        ok_len = len(f) >= 34
        is_valid = int(dst == PFC_DST and opcode == 0x0101 and ok_len and
                       not vector & 0xff00 and vector != 0)
        is_bad = int(dst != PFC_DST or opcode not in (0x0001, 0x0101) or
                     (opcode == 0x0101 and bool(vector & 0xff00)))
        return f, is_valid, is_bad

    if a.sweep:
        for length in range(0, maxlen + 1):
            f, v, b = random_frame(length)
            send(f, length % 2 == 1, v, b)
    for i in range(a.count):
        if a.resume_storm:
            t = 0 if i % 2 else 0xffff
            f = PFC_DST + src + struct.pack("!HHH", ETH_P_PAUSE, 0x0101, 0xff) + \
                struct.pack("!8H", *([t] * 8)) + bytes(26)
            send(f, r.random() < 0.5, 1, 0)
        else:
            f, v, b = random_frame()
            send(f, r.random() < 0.5, v, b)
    print("sent %d failed %d valid %d malformed %d" % (sent, failed, valid, malformed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
