# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
"""Two RC QPs on two devices, through pyverbs, for the tests in tools/lib.

Each side is a dict: 'ctx', 'pd', 'cq', 'mr', 'gidx', 'gid', and 'qp'
once rc_qp() made it.  connect() takes a QP from whatever state it is in
to RTS towards its peer's QP, so that a test can bring it back after an
error.
"""
import pyverbs.enums as e
from pyverbs.addr import AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr


def side(name, gid_index, mr_len, access, cq_depth=16):
    ctx = Context(name=name)
    pd = PD(ctx)
    return {'ctx': ctx, 'pd': pd, 'cq': CQ(ctx, cq_depth),
            'mr': MR(pd, mr_len, access), 'gidx': gid_index,
            'gid': ctx.query_gid(1, gid_index)}


def rc_qp(s, depth):
    """s['qp']: an RC QP of depth WRs each way on s's CQ."""
    cap = QPCap(max_send_wr=depth, max_recv_wr=depth, max_send_sge=1,
                max_recv_sge=1)
    s['qp'] = QP(s['pd'], QPInitAttr(qp_type=e.IBV_QPT_RC, scq=s['cq'],
                                     rcq=s['cq'], cap=cap))


def connect(s, peer, access, psn=0):
    """RESET .. RTS towards peer's QP, both PSNs psn."""
    s['qp'].modify(QPAttr(qp_state=e.IBV_QPS_RESET), e.IBV_QP_STATE)
    a = QPAttr(port_num=1)
    a.qp_access_flags = access
    a.path_mtu = e.IBV_MTU_1024
    a.max_dest_rd_atomic = 1
    a.max_rd_atomic = 1
    a.min_rnr_timer = 1
    a.timeout = 14
    a.retry_cnt = 7
    a.rnr_retry = 7
    gr = GlobalRoute(dgid=peer['gid'], sgid_index=s['gidx'], hop_limit=64)
    a.ah_attr = AHAttr(port_num=1, is_global=1, gr=gr)
    a.dest_qp_num = peer['qp'].qp_num
    a.rq_psn = psn
    a.sq_psn = psn
    s['qp'].to_rts(a)


def close(*sides):
    """Everything the sides hold, QPs first."""
    for s in sides:
        s['qp'].close()
        s['mr'].close()
        s['cq'].close()
        s['pd'].close()
        s['ctx'].close()
