#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
"""A forged RDMA READ or WRITE whose RETH length is longer than any message
(max_msg_sz, 2^31) is an invalid request, whatever MR it names:

  reth_len.py DEV_A GID_A DEV_B GID_B SRC DST NETNS_B

An RC QP on DEV_A, connected to one on DEV_B, gets forged requests at its
expected PSN from its peer's address SRC (a raw socket in NETNS_B, where
SRC is): a READ and a WRITE FIRST of 2^31 + 1 bytes must raise
IBV_EVENT_QP_REQ_ERR (NAK invalid request, as rxe answers); a READ of one
byte past a live MR, the control, IBV_EVENT_QP_ACCESS_ERR.  Without the
length rule both lengths would be caught by the MR's bounds instead, as an
access error.  The QP is brought back to RTS between the cases.
"""
import ctypes
import os
import signal
import socket
import struct
import sys

import pyverbs.enums as e

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rc_pair  # noqa: E402
import roce_forge  # noqa: E402

MR_LEN = 64 * 1024
RC_RDMA_WRITE_FIRST = 0x06
RC_RDMA_READ_REQUEST = 0x0c
CLONE_NEWNET = 0x40000000
PSN = 0x2345
TOO_LONG = (1 << 31) + 1
ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ)


def request(src, dst, dqpn, opcode, va, rkey, length):
    """An RC READ request or WRITE FIRST (one path MTU of payload) at PSN."""
    bth = struct.pack('>BBHII', opcode, 0, 0xffff, dqpn & 0xffffff,
                      (1 << 31) | PSN)
    reth = struct.pack('>QII', va, rkey, length)
    payload = bytes(1024) if opcode == RC_RDMA_WRITE_FIRST else b''
    body = bth + reth + payload
    udp_len = 8 + len(body) + 4
    ip = roce_forge.ip4(src, dst, udp_len, ident=0x4242, csum=False)
    udp = struct.pack('>HHHH', 49152, roce_forge.ROCE_PORT, udp_len, 0)
    return ip + udp + body + roce_forge.icrc(ip, udp, body)


def event(ctx):
    """The next async event of ctx (acknowledged), 20 s at most."""
    signal.alarm(20)
    ev = ctx.get_async_event()
    signal.alarm(0)
    ev.ack()
    return ev.event_type


def main():
    dev_a, gid_a, dev_b, gid_b, src, dst, netns_b = sys.argv[1:8]
    a = rc_pair.side(dev_a, int(gid_a), MR_LEN, ACCESS)
    b = rc_pair.side(dev_b, int(gid_b), MR_LEN, ACCESS)
    for s in (a, b):
        rc_pair.rc_qp(s, 4)
    rc_pair.connect(b, a, ACCESS, PSN)
    # The raw socket lives where the peer's address is.
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(f'/run/netns/{netns_b}', os.O_RDONLY)
    if libc.setns(fd, CLONE_NEWNET):
        sys.exit(f'setns {netns_b}: {os.strerror(ctypes.get_errno())}')
    os.close(fd)
    sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)

    names = {e.IBV_EVENT_QP_REQ_ERR: 'IBV_EVENT_QP_REQ_ERR',
             e.IBV_EVENT_QP_ACCESS_ERR: 'IBV_EVENT_QP_ACCESS_ERR'}
    mr = a['mr']
    cases = (
        ('READ of 2^31 + 1 bytes', RC_RDMA_READ_REQUEST, TOO_LONG,
         e.IBV_EVENT_QP_REQ_ERR),
        ('WRITE FIRST of 2^31 + 1 bytes', RC_RDMA_WRITE_FIRST, TOO_LONG,
         e.IBV_EVENT_QP_REQ_ERR),
        ('READ one byte past the MR', RC_RDMA_READ_REQUEST, MR_LEN + 1,
         e.IBV_EVENT_QP_ACCESS_ERR),
    )
    failed = 0
    for what, opcode, length, want in cases:
        rc_pair.connect(a, b, ACCESS, PSN)
        sock.sendto(request(src, dst, a['qp'].qp_num, opcode, mr.buf,
                            mr.rkey, length), (dst, 0))
        got = event(a['ctx'])
        ok = got == want
        failed += not ok
        print(f'{"ok" if ok else "FAIL"}: {what}: '
              f'{names.get(got, f"event {got}")}, expected {names[want]}')
    rc_pair.close(a, b)
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
