#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/lib/udp_send.py - a UDP sender without any handshake.

Send COUNT UDP datagrams of LEN bytes to DST:PORT with a given TOS byte,
one every INTERVAL seconds (absolute schedule, no drift; --interval 0:
back to back on a blocking socket).  Prints the number sent.  Used where
a flow must start without any handshake (a non-ECT flow into a queue that
WRED-drops every non-ECT packet): pfc_sender in scripts/lib/dcb.sh, the
sch_dcb guest tests and scripts/bench/pfc.sh."""
import argparse
import socket
import time

ap = argparse.ArgumentParser()
ap.add_argument("dst")
ap.add_argument("port", type=int)
ap.add_argument("--count", type=int, default=500)
ap.add_argument("--interval", type=float, default=0.002)
ap.add_argument("--tos", type=lambda s: int(s, 0), default=0)
ap.add_argument("--len", type=int, default=1000)
a = ap.parse_args()

fam = socket.AF_INET6 if ":" in a.dst else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
if fam == socket.AF_INET:
    s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, a.tos)
else:
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS, a.tos)
payload = b"\0" * a.len
t0 = time.monotonic()
sent = 0
for i in range(a.count):
    delay = t0 + i * a.interval - time.monotonic()
    if delay > 0:
        time.sleep(delay)
    try:
        s.sendto(payload, (a.dst, a.port))
        sent += 1
    except OSError:
        pass
print(sent)
