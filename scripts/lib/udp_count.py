#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/lib/udp_count.py - a UDP sink that counts.

Count UDP datagrams arriving on PORT until the file STOP exists (checked
every 100 ms, or after --max seconds), then print the count.  Used by
pfc_sink in scripts/lib/dcb.sh and by the sch_dcb guest tests."""
import argparse
import os
import socket
import time

ap = argparse.ArgumentParser()
ap.add_argument("port", type=int)
ap.add_argument("stop")
ap.add_argument("--max", type=float, default=120)
a = ap.parse_args()
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", a.port))
s.settimeout(0.1)
n = 0
end = time.monotonic() + a.max
while time.monotonic() < end and not os.path.exists(a.stop):
    try:
        s.recv(65536)
        n += 1
    except socket.timeout:
        pass
print(n)
