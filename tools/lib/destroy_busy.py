#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
"""Destroying an RC QP that is not in ERR, with WQEs posted that the device
never fetched, while the QP's work still runs (a packet, an ACK or a timer
of a live peer), leaves the device working:

  destroy_busy.py DEV_A GID_A DEV_B GID_B FAULTS_A

An RC QP on DEV_A, connected to one on DEV_B, sends two laps of its SQ (so
that every slot of the device's copy holds a finished WQE), moves to SQD
(which fetches nothing new), gets two more SENDs posted, and is destroyed
with FAULTS_A/destroy_qp_delay_ms set: the device runs the QP's work once
more after its flush and waits before it stops it.  A flush that left the
QP in SQD (or RTS) made that run walk the SQ from the flushed consumer
index to the fetched one, 2^32 slots away: it completed every stale slot
again until the CQ overflowed (what this test saw before the fix), or spun
for good (the soft lockup that rmmod vdpa_rdma under traffic hit).  Then:
the destroy returned within ALARM s, none of its completions is left, and
a new QP pair on the same devices and CQs carries SENDs.
"""
import os
import signal
import sys

import pyverbs.enums as e
from pyverbs.qp import QPAttr
from pyverbs.wr import RecvWR, SendWR, SGE

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rc_pair  # noqa: E402

DEPTH = 4
MSG = 64
ALARM = 60
DELAY_MS = 300


def new_pair(a, b):
    """A new QP on each side, connected to each other."""
    for s in (a, b):
        rc_pair.rc_qp(s, DEPTH)
    rc_pair.connect(a, b, e.IBV_ACCESS_LOCAL_WRITE)
    rc_pair.connect(b, a, e.IBV_ACCESS_LOCAL_WRITE)


def sge(s):
    return SGE(s['mr'].buf, MSG, s['mr'].lkey)


def send(s, wr_id):
    s['qp'].post_send(SendWR(wr_id=wr_id, opcode=e.IBV_WR_SEND,
                             num_sge=1, sg=[sge(s)],
                             send_flags=e.IBV_SEND_SIGNALED))


def recv(s, wr_id):
    s['qp'].post_recv(RecvWR(wr_id=wr_id, num_sge=1, sg=[sge(s)]))


def poll(s, n):
    """n successful completions from s's CQ, within ALARM s."""
    got = 0
    signal.alarm(ALARM)
    while got < n:
        npolled, wcs = s['cq'].poll(n - got)
        for wc in wcs[:npolled]:
            if wc.status != e.IBV_WC_SUCCESS:
                sys.exit(f'FAIL: completion status {wc.status}')
        got += npolled
    signal.alarm(0)


def laps(a, b, n):
    """n laps of a's SQ, each SEND received by b."""
    for lap in range(n):
        for i in range(DEPTH):
            recv(b, lap * DEPTH + i)
        for i in range(DEPTH):
            send(a, lap * DEPTH + i)
        poll(a, DEPTH)
        poll(b, DEPTH)


def timed_out(signum, frame):
    sys.exit(f'FAIL: nothing within {ALARM} s (a hung destroy, or a CQ '
             'that overflowed)')


def main():
    signal.signal(signal.SIGALRM, timed_out)
    dev_a, gid_a, dev_b, gid_b, faults_a = sys.argv[1:6]
    a = rc_pair.side(dev_a, int(gid_a), 4096, e.IBV_ACCESS_LOCAL_WRITE)
    b = rc_pair.side(dev_b, int(gid_b), 4096, e.IBV_ACCESS_LOCAL_WRITE)
    new_pair(a, b)
    laps(a, b, 2)
    print(f'ok: {2 * DEPTH} SENDs, two laps of the SQ')

    a['qp'].modify(QPAttr(qp_state=e.IBV_QPS_SQD), e.IBV_QP_STATE)
    send(a, 100)
    send(a, 101)
    with open(f'{faults_a}/destroy_qp_delay_ms', 'w') as f:
        f.write(f'{DELAY_MS}\n')
    # A hung destroy ends the test with SIGALRM, and the guest reports the
    # soft lockup.
    signal.alarm(ALARM)
    a['qp'].close()
    signal.alarm(0)
    with open(f'{faults_a}/destroy_qp_delay_ms', 'w') as f:
        f.write('0\n')
    print('ok: the QP in SQD with two unfetched SENDs was destroyed')
    # The provider drops a destroyed QP's CQEs (its flushed SENDs among them).
    npolled, _ = a['cq'].poll(4 * DEPTH)
    if npolled:
        sys.exit(f'FAIL: {npolled} completions of the destroyed QP left')

    b['qp'].close()
    new_pair(a, b)
    laps(a, b, 1)
    print(f'ok: a new QP pair on the same CQs carries {DEPTH} SENDs')
    rc_pair.close(a, b)


if __name__ == '__main__':
    main()
