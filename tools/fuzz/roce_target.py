#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
"""The fuzzer's own live QPs (pyverbs), which forged packets may break:

  roce_target.py DEV_A GID_A DEV_B GID_B SECONDS INFO_FILE [GID6_A GID6_B]

It runs until INFO_FILE.stop exists, or SECONDS at most.

On DEV_A: a responder QP (connected to a QP on DEV_B, idle, receives
posted, a 64 KiB MR open to remote READ/WRITE/atomics) whose expected PSN
is exactly the one written to INFO_FILE, so that forged requests at that
PSN are executed against a live MR; and a requester QP whose peer QPN does
not exist, with WRs outstanding (SEND, WRITE, READ, atomic) that only
forged ACKs, NAKs and responses can complete.  Whenever a forged packet
moves a QP to the error state (as the IBA says it must for a fatal NAK or a
bad request at the expected PSN) it is reset and brought back with the same
PSNs and WRs, so that the next forged packets again meet a live QP.
With GID6_A and GID6_B (the IPv6 link-local GIDs), a second responder pair
is connected over IPv6, for the forged IPv6 packets (an RC QP takes
packets only from its path's address: IPv6 ones need an IPv6 path).  Prints
the counts of completions and resurrections; exit status 0 unless the
device refuses a verb that a live device must take (a modify of a QP the
helper owns, a post to a QP in RTS) while its QP is not in the error state.
"""
import json
import os
import random
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import RecvWR, SendWR, SGE

MR_LEN = 64 * 1024
MTU = e.IBV_MTU_1024
MTU_BYTES = 1024
# A QPN no QP on DEV_B has (QPNs start low and the pair creates few).
DEAD_QPN = 0xfff0f1
READ_LEN = 4096
ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)


class Side:
    def __init__(self, name, gid_index):
        self.ctx = Context(name=name)
        self.gid_index = gid_index
        self.gid = self.ctx.query_gid(1, gid_index)
        self.gid6 = None
        self.pd = PD(self.ctx)
        self.cq = CQ(self.ctx, 256)
        self.mr = MR(self.pd, MR_LEN, ACCESS)

    def qp(self):
        cap = QPCap(max_send_wr=32, max_recv_wr=32, max_send_sge=1,
                    max_recv_sge=1)
        init = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq,
                          cap=cap)
        return QP(self.pd, init)


def connect(qp, side, dgid, dqpn, rq_psn, sq_psn):
    """RESET (whatever state it is in) .. RTS, towards dgid/dqpn."""
    a = QPAttr(qp_state=e.IBV_QPS_RESET)
    qp.modify(a, e.IBV_QP_STATE)
    a = QPAttr(port_num=1)
    a.qp_access_flags = ACCESS
    a.path_mtu = MTU
    a.max_dest_rd_atomic = 16
    a.max_rd_atomic = 16
    a.min_rnr_timer = 1
    # About 1 s: the requester's WRs stay outstanding through several
    # rounds of forged packets; 7 retries (not infinite, unlike RNR's 7).
    a.timeout = 18
    a.retry_cnt = 7
    a.rnr_retry = 7
    sgid = side.gid_index if dgid is not side.other.gid6 else side.gid6_index
    gr = GlobalRoute(dgid=dgid, sgid_index=sgid, hop_limit=64)
    a.ah_attr = AHAttr(port_num=1, is_global=1, gr=gr)
    a.dest_qp_num = dqpn
    a.rq_psn = rq_psn
    a.sq_psn = sq_psn
    qp.to_rts(a)


def post_recvs(qp, side, n):
    for i in range(n):
        sge = SGE(side.mr.buf + 256 * i, 256, side.mr.lkey)
        qp.post_recv(RecvWR(wr_id=i, num_sge=1, sg=[sge]))


def post_requests(qp, side, rkey, raddr):
    """SEND, WRITE, READ, FETCH_ADD, twice: returns the PSNs they take."""
    psns = 0
    base = side.mr.buf + MR_LEN // 2
    for rnd in range(2):
        for op, length in ((e.IBV_WR_SEND, 64), (e.IBV_WR_RDMA_WRITE, 64),
                           (e.IBV_WR_RDMA_READ, READ_LEN),
                           (e.IBV_WR_ATOMIC_FETCH_AND_ADD, 8)):
            off = base + rnd * 8192 + (0 if op != e.IBV_WR_RDMA_READ else 4096)
            wr = SendWR(wr_id=op, opcode=op, num_sge=1,
                        sg=[SGE(off, length, side.mr.lkey)],
                        send_flags=e.IBV_SEND_SIGNALED)
            if op == e.IBV_WR_ATOMIC_FETCH_AND_ADD:
                wr.set_wr_atomic(rkey=rkey, addr=raddr, compare_add=1, swap=0)
            elif op != e.IBV_WR_SEND:
                wr.set_wr_rdma(rkey, raddr)
            qp.post_send(wr)
            psns += -(-length // MTU_BYTES)
    return psns


def main():
    dev_a, gid_a, dev_b, gid_b, seconds, info = sys.argv[1:7]
    a = Side(dev_a, int(gid_a))
    b = Side(dev_b, int(gid_b))
    a.other, b.other = b, a
    v6 = len(sys.argv) > 8
    if v6:
        for side, i in ((a, sys.argv[7]), (b, sys.argv[8])):
            side.gid6_index = int(i)
            side.gid6 = side.ctx.query_gid(1, int(i))
    resp, peer, req = a.qp(), b.qp(), a.qp()
    rnd = random.Random(os.getpid())
    resp_rq, resp_sq, req_sq, r6_rq, r6_sq = (rnd.randrange(1 << 24) for _ in range(5))

    def up_resp():
        connect(resp, a, b.gid, peer.qp_num, resp_rq, resp_sq)
        post_recvs(resp, a, 16)

    def up_req():
        connect(req, a, b.gid, DEAD_QPN, 0, req_sq)
        return post_requests(req, a, a.mr.rkey, a.mr.buf)

    up_resp()
    connect(peer, b, a.gid, resp.qp_num, resp_sq, resp_rq)
    span = up_req()
    live = [(resp, up_resp), (req, up_req)]
    desc = {'resp_qpn': resp.qp_num, 'resp_psn': resp_rq,
            'resp_sq_psn': resp_sq, 'req_qpn': req.qp_num,
            'req_psn': req_sq, 'req_span': span,
            'rkey': a.mr.rkey, 'va': a.mr.buf, 'len': MR_LEN}
    if v6:
        resp6, peer6 = a.qp(), b.qp()

        def up_resp6():
            connect(resp6, a, b.gid6, peer6.qp_num, r6_rq, r6_sq)
            post_recvs(resp6, a, 16)
        up_resp6()
        connect(peer6, b, a.gid6, resp6.qp_num, r6_sq, r6_rq)
        live.append((resp6, up_resp6))
        desc.update(resp6_qpn=resp6.qp_num, resp6_psn=r6_rq)
    with open(info + '.tmp', 'w') as f:
        json.dump(desc, f)
    os.rename(info + '.tmp', info)

    ok = err = revived = races = 0
    end = time.monotonic() + float(seconds)
    while time.monotonic() < end and not os.path.exists(info + '.stop'):
        time.sleep(0.5)
        for cq in (a.cq, b.cq):
            while True:
                n, wcs = cq.poll(16)
                if n <= 0:
                    break
                for wc in wcs[:n]:
                    if wc.status == e.IBV_WC_SUCCESS:
                        ok += 1
                    else:
                        err += 1
        for qp, up in live:
            state = qp.query(e.IBV_QP_STATE)[0].qp_state
            if state in (e.IBV_QPS_ERR, e.IBV_QPS_SQE):
                # The flushed WRs are polled on the next round.
                try:
                    up()
                    revived += 1
                except PyverbsRDMAError as ex:
                    # A forged packet can kill the QP again between RTR
                    # and RTS (RTR already takes packets): the modify to
                    # RTS then meets the error state.  Next round again.
                    now = qp.query(e.IBV_QP_STATE)[0].qp_state
                    print(f'bringing QP {qp.qp_num} back: {ex} (now in state {now})')
                    if now not in (e.IBV_QPS_ERR, e.IBV_QPS_SQE):
                        raise
                    races += 1
    print(f'target QPs: {ok} good and {err} error completions, '
          f'{revived} QPs brought back from the error state ({races} times '
          'killed again while being brought back)')
    # Children before parents: left to the interpreter's exit, pyverbs may
    # free a PD before its QPs and MR and complain.
    for qp, _ in live:
        qp.close()
    for qp in (peer, peer6) if v6 else (peer,):
        qp.close()
    for side in (a, b):
        side.mr.close()
        side.cq.close()
        side.pd.close()
        side.ctx.close()


if __name__ == '__main__':
    main()
