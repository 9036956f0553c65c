#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A verifying RC RDMA WRITE pair on pyverbs, for transport tests.

  rc_verbs.py resp DEV GIDX DIR [--count N] [--size BYTES] [--deadline S]
  rc_verbs.py req  DEV GIDX DIR [--count N] [--size BYTES] [--timeout T]
                   [--retry R] [--mtu 256|512|1024|2048|4096] [--deadline S]
                   [--gate]

The two ends meet through files in DIR (a directory both namespaces see):
each writes DIR/<role>.json (QP number, GID, PSN, and for the responder
its buffer's address and rkey) and waits for the other's, and again
DIR/<role>.ready once its QP is connected, so that no request reaches a
responder QP that cannot take it yet.  The requester
connects an RC QP (IB timeout exponent T, retry count R), fills its
buffer with a pattern and posts COUNT signalled RDMA WRITEs of SIZE bytes,
the k-th to offset k*SIZE of the responder's buffer, all at once.  It
prints one line per completion ("wc WR_ID STATUS_NAME"), then "completed
N success M of COUNT in T s" (T from posting to the last completion), and
exits 0 only when all COUNT completed with IBV_WC_SUCCESS within DEADLINE
seconds; then it writes DIR/req.done.  With --gate the k-th WRITE (k >= 1)
is posted only once DIR/go.k exists and the one before it completed, so
the test decides when each leaves (it prints "posted k" for each, and the
CLOCK_MONOTONIC time of each completion: "wc K STATUS t=SECONDS").  The responder waits for that file (or DEADLINE), compares
its buffer with the pattern, prints "verify ok BYTES" or "verify bad
OFFSET" and exits 0 or 1.
"""
import argparse
import json
import os
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AHAttr, GID, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, SendWR

MTUS = {256: e.IBV_MTU_256, 512: e.IBV_MTU_512, 1024: e.IBV_MTU_1024,
        2048: e.IBV_MTU_2048, 4096: e.IBV_MTU_4096}
STATUS = {getattr(e, "IBV_WC_" + s): s for s in (
    "SUCCESS", "LOC_LEN_ERR", "LOC_QP_OP_ERR", "LOC_PROT_ERR", "WR_FLUSH_ERR",
    "MW_BIND_ERR", "BAD_RESP_ERR", "LOC_ACCESS_ERR", "REM_INV_REQ_ERR",
    "REM_ACCESS_ERR", "REM_OP_ERR", "RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR",
    "REM_ABORT_ERR", "FATAL_ERR", "RESP_TIMEOUT_ERR", "GENERAL_ERR")}


def pattern(n):
    """Bytes that differ at every 1 KB boundary and every offset in it, so
    data landing at a wrong offset or a missing packet shows."""
    return bytes(((i * 7) ^ (i >> 10)) & 0xff for i in range(n))


def wait_file(path, deadline):
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            sys.exit(f"rc_verbs: timed out waiting for {path}")
        time.sleep(0.02)
    # the writer renames a complete file into place
    with open(path, encoding="ascii") as f:
        return json.load(f)


def publish(path, info):
    with open(path + ".tmp", "w", encoding="ascii") as f:
        json.dump(info, f)
    os.rename(path + ".tmp", path)


def connect(args, ctx, pd, role, extra, access):
    cq = CQ(ctx, 2 * args.count + 4)
    cap = QPCap(max_send_wr=args.count + 1, max_recv_wr=1, max_send_sge=1,
                max_recv_sge=1)
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap))
    gid = ctx.query_gid(port_num=1, index=args.gidx)
    psn = 0x10000 if role == "req" else 0x20000
    deadline = time.monotonic() + args.deadline
    publish(os.path.join(args.dir, role + ".json"),
            dict(qpn=qp.qp_num, gid=str(gid), psn=psn, **extra))
    peer = wait_file(os.path.join(args.dir, ("resp" if role == "req"
                                             else "req") + ".json"), deadline)

    attr = QPAttr(qp_state=e.IBV_QPS_INIT, port_num=1)
    attr.qp_access_flags = access
    attr.pkey_index = 0
    qp.to_init(attr)

    attr = QPAttr(qp_state=e.IBV_QPS_RTR)
    attr.path_mtu = MTUS[args.mtu]
    attr.dest_qp_num = peer["qpn"]
    attr.rq_psn = peer["psn"]
    attr.max_dest_rd_atomic = 1
    attr.min_rnr_timer = 1
    dgid = GID(peer["gid"])
    gr = GlobalRoute(dgid=dgid, sgid_index=args.gidx, hop_limit=64)
    attr.ah_attr = AHAttr(gr=gr, is_global=1, port_num=1)
    qp.to_rtr(attr)

    attr = QPAttr(qp_state=e.IBV_QPS_RTS)
    attr.sq_psn = psn
    attr.timeout = args.timeout
    attr.retry_cnt = args.retry
    attr.rnr_retry = 7
    attr.max_rd_atomic = 1
    qp.to_rts(attr)
    # A request that reaches a responder QP still in RESET or INIT is
    # dropped (and retransmitted only after the transport timeout), but the
    # receiver has already counted it, a CE mark too.  So both ends say when
    # their QP is ready and neither goes on before the other is.
    publish(os.path.join(args.dir, role + ".ready"), dict(qpn=qp.qp_num))
    wait_file(os.path.join(args.dir, ("resp" if role == "req"
                                      else "req") + ".ready"), deadline)
    print(f"qpn {qp.qp_num} peer {peer['qpn']} psn {psn:#x}", flush=True)
    return qp, cq, peer


def responder(args):
    ctx = Context(name=args.dev)
    pd = PD(ctx)
    n = args.size * args.count
    mr = MR(pd, n, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE)
    mr.write(bytes(n), n, 0)
    # keep the QP referenced: pyverbs destroys it with its last reference
    qp, _, _ = connect(args, ctx, pd, "resp", dict(addr=mr.buf, rkey=mr.rkey),
                       e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE)
    deadline = time.monotonic() + args.deadline
    done = os.path.join(args.dir, "req.done")
    while not os.path.exists(done) and time.monotonic() < deadline:
        time.sleep(0.05)
    got = mr.read(n, 0)
    want = pattern(n)
    if got == want:
        print(f"verify ok {n}", flush=True)
        qp.close()
        return 0
    bad = next(i for i in range(n) if got[i] != want[i])
    print(f"verify bad {bad}", flush=True)
    qp.close()
    return 1


def requester(args):
    ctx = Context(name=args.dev)
    pd = PD(ctx)
    n = args.size * args.count
    mr = MR(pd, n, e.IBV_ACCESS_LOCAL_WRITE)
    mr.write(pattern(n), n, 0)
    qp, cq, peer = connect(args, ctx, pd, "req", {},
                           e.IBV_ACCESS_LOCAL_WRITE)
    start = time.monotonic()
    deadline = start + args.deadline

    def post(k):
        wr = SendWR(wr_id=k, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                    sg=[SGE(mr.buf + k * args.size, args.size, mr.lkey)],
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_rdma(peer["rkey"], peer["addr"] + k * args.size)
        qp.post_send(wr)

    if args.gate:
        post(0)
        print("posted 0", flush=True)
        posted = 1
    else:
        for k in range(args.count):
            post(k)
        print(f"posted {args.count}", flush=True)
        posted = args.count
    ok = seen = 0
    while seen < args.count and time.monotonic() < deadline:
        if posted < args.count and seen == posted and \
                os.path.exists(os.path.join(args.dir, f"go.{posted}")):
            post(posted)
            print(f"posted {posted}", flush=True)
            posted += 1
        npolled, wcs = cq.poll(num_entries=args.count)
        for wc in wcs[:npolled]:
            seen += 1
            ok += wc.status == e.IBV_WC_SUCCESS
            # with --gate also when (CLOCK_MONOTONIC, as ftrace's "mono")
            when = f" t={time.monotonic():.6f}" if args.gate else ""
            print(f"wc {wc.wr_id} {STATUS.get(wc.status, wc.status)}{when}",
                  flush=True)
        if not npolled:
            time.sleep(0.005)
    print(f"completed {seen} success {ok} of {args.count} in "
          f"{time.monotonic() - start:.2f} s", flush=True)
    publish(os.path.join(args.dir, "req.done"), dict(ok=ok, seen=seen))
    return 0 if ok == args.count else 1


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("role", choices=("req", "resp"))
    p.add_argument("dev")
    p.add_argument("gidx", type=int)
    p.add_argument("dir")
    p.add_argument("--count", type=int, default=2)
    p.add_argument("--size", type=int, default=8192)
    p.add_argument("--timeout", type=int, default=14)
    p.add_argument("--retry", type=int, default=7)
    p.add_argument("--mtu", type=int, choices=sorted(MTUS), default=1024)
    p.add_argument("--deadline", type=float, default=60)
    p.add_argument("--gate", action="store_true")
    args = p.parse_args()
    return responder(args) if args.role == "resp" else requester(args)


if __name__ == "__main__":
    sys.exit(main())
