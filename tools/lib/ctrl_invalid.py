#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
"""Send invalid control commands to a virtio-rdma device and check each answer.

    ctrl_invalid.py /sys/kernel/debug/virtio_rdma/<ibdev>/raw_cmd

Every command goes through the driver's raw_cmd debugfs file (see
drivers/infiniband/hw/virtio_rdma/vrdma_debugfs.c for the contract) and must come
back with the status Documentation/virtio-rdma-spec.rst gives for that
input.  Rings and page lists live in locked pages of this process whose
physical addresses come from /proc/self/pagemap: bound to virtio_vdpa the
device's IOTLB is the identity, so those are the DMA addresses.  Every
object this script creates is destroyed before the pages go away.

Exit status: 0 all checks passed, 1 a check failed, 77 cannot run here.
"""
import ctypes
import mmap
import os
import struct
import sys

PAGE = 4096

# Command codes and statuses, from include/uapi/linux/virtio_rdma.h.
QUERY_DEVICE, QUERY_PORT, CREATE_PD, DESTROY_PD, GET_DMA_MR, CREATE_MR = 1, 2, 3, 4, 5, 6
ALLOC_MR, DEREG_MR, CREATE_CQ, DESTROY_CQ, CREATE_QP, MODIFY_QP = 7, 8, 9, 10, 11, 12
QUERY_QP, DESTROY_QP, ADD_GID, DEL_GID, QUERY_STATS = 13, 14, 15, 16, 17
STATUS = ['OK', 'INVAL', 'NOENT', 'NOMEM', 'NOSPC', 'BUSY', 'PERM', 'ACCES',
          'OPNOTSUPP', 'FAULT', 'MALFORMED']
OK, INVAL, NOENT, NOSPC, BUSY, PERM, ACCES, OPNOTSUPP, FAULT, MALFORMED = (
    0, 1, 2, 4, 5, 6, 7, 8, 9, 10)

QPT_SMI, QPT_GSI, QPT_RC, QPT_UC, QPT_UD = 0, 1, 2, 3, 4
RESET, INIT, RTR, RTS, SQD, SQE, ERR = range(7)
A_STATE, A_CUR_STATE, A_ACCESS, A_PKEY, A_PORT, A_QKEY, A_AV = 0x1, 0x2, 0x8, 0x10, 0x20, 0x40, 0x80
A_PATH_MTU, A_TIMEOUT, A_RETRY, A_RNR_RETRY, A_RQ_PSN = 0x100, 0x200, 0x400, 0x800, 0x1000
A_MAX_QP_RD, A_ALT_PATH, A_MIN_RNR, A_SQ_PSN, A_MAX_DEST_RD = 0x2000, 0x4000, 0x8000, 0x10000, 0x20000
A_DEST_QPN = 0x100000
LOCAL_WRITE, REMOTE_WRITE, REMOTE_ATOMIC = 0x1, 0x2, 0x8
STAT_CMD_ERRORS = 14
WC_WR_FLUSH_ERR, WC_OP_SEND, WC_OP_RDMA_READ, WC_OP_RECV = 5, 0, 2, 0x80
RING_F_ERROR, RING_F_OVERFLOW = 0x1, 0x2
UNMAPPED = 1 << 50          # far above any RAM: the IOTLB finds no page
GID_IDX = 63                # a GID slot the driver leaves empty

failures = []


def st(code):
    return STATUS[code] if 0 <= code < len(STATUS) else str(code)


class Device:
    """One raw_cmd file; counts the commands the device must reject."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_RDWR)
        self.rejected = 0

    def raw(self, req, resp_len):
        os.write(self.fd, struct.pack('<II', resp_len, 0) + req)
        data = b''
        while len(data) < resp_len:
            chunk = os.read(self.fd, resp_len - len(data))
            if not chunk:
                break
            data += chunk
        return data

    def cmd(self, code, body=b'', resp_size=0, resp_len=None):
        """Returns (status, response body)."""
        if resp_len is None:
            resp_len = 8 + resp_size
        data = self.raw(struct.pack('<II', code, 0) + body, resp_len)
        status = struct.unpack_from('<I', data)[0] if len(data) >= 4 else None
        return status, data[8:]


def check(what, expected, got):
    if expected == got:
        print(f'ok: {what}: {got}')
    else:
        print(f'FAIL: {what}: expected {expected}, got {got}')
        failures.append(what)


DESTROY = {CREATE_PD: DESTROY_PD, GET_DMA_MR: DEREG_MR, CREATE_MR: DEREG_MR,
           ALLOC_MR: DEREG_MR, CREATE_CQ: DESTROY_CQ, CREATE_QP: DESTROY_QP}
# Objects alive in the device that point at this process's pages or were
# made by this script: (destroy command, handle), oldest first.
alive = []


def expect(dev, what, want, code, body=b'', resp_size=0):
    status, resp = dev.cmd(code, body, resp_size)
    if want != OK:
        dev.rejected += 1
    check(what, st(want), st(status))
    if status == OK and code in DESTROY:
        alive.append((DESTROY[code], struct.unpack_from('<I', resp)[0]))
    if status == OK and code in DESTROY.values():
        handle = struct.unpack_from('<I', body)[0]
        alive[:] = [o for o in alive if o != (code, handle)]
    return resp


class Pages:
    """Locked anonymous pages and their physical addresses."""

    def __init__(self, n):
        flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x2000 | 0x8000  # LOCKED|POPULATE
        self.m = mmap.mmap(-1, n * PAGE, flags=flags)
        self.m[:] = b'\0' * (n * PAGE)
        va = ctypes.addressof(ctypes.c_char.from_buffer(self.m))
        self.pa = []
        with open('/proc/self/pagemap', 'rb') as f:
            for i in range(n):
                f.seek((va // PAGE + i) * 8)
                ent = struct.unpack('<Q', f.read(8))[0]
                pfn = ent & ((1 << 55) - 1)
                if not (ent >> 63) or not pfn:
                    raise OSError('pagemap gives no PFN (not root?)')
                self.pa.append(pfn * PAGE)

    def u32(self, page, off):
        return struct.unpack_from('<I', self.m, page * PAGE + off)[0]

    def put(self, page, off, data):
        self.m[page * PAGE + off:page * PAGE + off + len(data)] = data


def create_cq(ring, size, depth, eventq=0):
    return struct.pack('<QQII8x', ring, size, depth, eventq)


def create_qp(pd, qpt, scq, rcq, sq_addr, rq_addr, sq_depth=4, rq_depth=4,
              sq_shift=1, rq_shift=1, send_sge=1, recv_sge=1, inline=0,
              sq_size=PAGE, rq_size=PAGE):
    return struct.pack('<IBBBBIIIIIIIIQQQQ8x', pd, qpt, 0, sq_shift, rq_shift,
                       scq, rcq, sq_depth, rq_depth, send_sge, recv_sge,
                       inline, 0, sq_addr, sq_size, rq_addr, rq_size)


def av(sgid_index=GID_IDX, network_type=2, dgid=None, flow_label=0):
    dgid = dgid or bytes(10) + b'\xff\xff' + bytes([10, 0, 0, 2])
    return struct.pack('<16s6sBBBBHI', dgid, b'\x02\0\0\0\0\2', sgid_index,
                       64, 0, network_type, 0, flow_label)


def modify_qp(qpn, mask, state=0, cur_state=0, path_mtu=3, timeout=14,
              retry_cnt=7, rnr_retry=7, min_rnr_timer=12, max_rd_atomic=1,
              max_dest_rd_atomic=1, port=1, pkey_index=0, qkey=0, rq_psn=0,
              sq_psn=0, dest_qpn=3, access=LOCAL_WRITE, addr=None):
    attr = struct.pack('<12BHHIIIIII', state, cur_state, path_mtu, 0, 0,
                       timeout, retry_cnt, rnr_retry, min_rnr_timer,
                       max_rd_atomic, max_dest_rd_atomic, port, pkey_index, 0,
                       qkey, rq_psn, sq_psn, dest_qpn, access, 0)
    attr += addr if addr is not None else av()
    attr += bytes(24)
    assert len(attr) == 96
    return struct.pack('<II', qpn, mask) + attr


def h(x):
    return struct.pack('<II', x, 0)


def main():
    try:
        return run()
    finally:
        if alive and dev_global:
            print(f'destroying {len(alive)} leftover object(s)')
            for code, handle in reversed(alive):
                dev_global.cmd(code, h(handle))


dev_global = None


def run():
    global dev_global
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    try:
        dev = Device(sys.argv[1])
        mem = Pages(8)
        dev_global = dev
    except OSError as e:
        print(f'cannot run: {e}')
        return 77

    status, stats = dev.cmd(QUERY_STATS, resp_size=264)
    check('QUERY_STATS works', 'OK', st(status))
    errors0 = struct.unpack_from('<Q', stats, 8 + 8 * STAT_CMD_ERRORS)[0]
    status, qd = dev.cmd(QUERY_DEVICE, resp_size=256)
    check('QUERY_DEVICE works', 'OK', st(status))
    max_qp, max_qp_wr, max_send_sge, max_recv_sge = struct.unpack_from('<4I', qd, 52)
    max_cq, max_cqe, max_mr, max_pd = struct.unpack_from('<4I', qd, 72)
    frpl_len, max_inline = struct.unpack_from('<2I', qd, 100)
    atomic_cap = qd[111]
    print(f'device limits: max_qp {max_qp} max_qp_wr {max_qp_wr} sge {max_send_sge}/'
          f'{max_recv_sge} max_cq {max_cq} max_cqe {max_cqe} max_mr {max_mr} '
          f'max_pd {max_pd} frpl {frpl_len} inline {max_inline}')
    nqp = 4

    # --- descriptor chain shape ----------------------------------------------
    print('--- chain shape')
    dev.rejected += 1
    check('readable part shorter than the header', 'MALFORMED',
          st(struct.unpack_from('<I', dev.raw(b'\1\0\0\0', 8))[0]))
    dev.rejected += 1
    check('QUERY_PORT request 4 bytes short', 'MALFORMED',
          st(struct.unpack_from('<I', dev.raw(struct.pack('<III', QUERY_PORT, 0, 1), 72))[0]))
    dev.rejected += 1
    check('QUERY_PORT request 8 bytes long', 'MALFORMED',
          st(struct.unpack_from('<I', dev.raw(struct.pack('<IIIIII', QUERY_PORT, 0, 1, 0, 0, 0), 72))[0]))
    dev.rejected += 1
    check('CREATE_PD with a request body', 'MALFORMED',
          st(struct.unpack_from('<I', dev.raw(struct.pack('<IIII', CREATE_PD, 0, 0, 0), 16))[0]))
    status, _ = dev.cmd(QUERY_DEVICE, resp_len=8 + 255)
    dev.rejected += 1
    check('QUERY_DEVICE writable part 1 byte short', 'MALFORMED', st(status))
    status, _ = dev.cmd(QUERY_STATS, resp_len=8 + 263)
    dev.rejected += 1
    check('QUERY_STATS writable part 1 byte short', 'MALFORMED', st(status))
    data = dev.raw(struct.pack('<II', QUERY_DEVICE, 0), 4)
    dev.rejected += 1
    check('writable part shorter than a status: nothing written', bytes(4), data)
    data = dev.raw(struct.pack('<II', CREATE_PD, 0), 0)
    dev.rejected += 1
    check('no writable part at all: nothing written', b'', data)
    for code in (0, 18, 0x80000000, 0xffffffff):
        expect(dev, f'unknown command {code:#x}', OPNOTSUPP, code)
    # Reserved fields are ignored (spec "Conventions"), not rejected.
    status, _ = dev.cmd(QUERY_PORT, struct.pack('<II', 1, 0xffffffff), 64)
    check('QUERY_PORT with a non-zero reserved field is served', 'OK', st(status))

    # --- QUERY_PORT, GIDs ----------------------------------------------------
    print('--- QUERY_PORT, ADD_GID, DEL_GID')
    for port in (0, 2, 0xffffffff):
        expect(dev, f'QUERY_PORT port {port}', INVAL, QUERY_PORT, h(port), 64)
    gid4 = bytes(10) + b'\xff\xff' + bytes([10, 0, 0, 1])
    expect(dev, 'ADD_GID index 64', INVAL, ADD_GID, struct.pack('<II16s', 64, 2, gid4))
    expect(dev, 'ADD_GID index 0xffffffff', INVAL, ADD_GID, struct.pack('<II16s', 0xffffffff, 2, gid4))
    expect(dev, 'ADD_GID RoCE v1', OPNOTSUPP, ADD_GID, struct.pack('<II16s', GID_IDX, 1, gid4))
    expect(dev, 'ADD_GID type 0', INVAL, ADD_GID, struct.pack('<II16s', GID_IDX, 0, gid4))
    expect(dev, 'ADD_GID type 3', INVAL, ADD_GID, struct.pack('<II16s', GID_IDX, 3, gid4))
    expect(dev, 'DEL_GID index 64', INVAL, DEL_GID, h(64))
    expect(dev, f'DEL_GID empty index {GID_IDX}', NOENT, DEL_GID, h(GID_IDX))
    expect(dev, f'ADD_GID ::ffff:10.0.0.1 at {GID_IDX}', OK, ADD_GID,
           struct.pack('<II16s', GID_IDX, 2, gid4))

    # --- PD ------------------------------------------------------------------
    print('--- PD')
    for handle in (0, 0xffffff, 0xffffffff):
        expect(dev, f'DESTROY_PD handle {handle:#x}', NOENT, DESTROY_PD, h(handle))
    resp = expect(dev, 'CREATE_PD', OK, CREATE_PD, resp_size=8)
    pd = struct.unpack_from('<I', resp)[0]
    check('PD handle is not 0', True, pd != 0)

    # --- MR ------------------------------------------------------------------
    print('--- MR')
    for acc, why in ((0x10, 'unknown access bit 0x10'), (0x80000000, 'unknown access bit 31'),
                     (REMOTE_WRITE, 'REMOTE_WRITE without LOCAL_WRITE'),
                     (REMOTE_ATOMIC, 'REMOTE_ATOMIC without LOCAL_WRITE')):
        expect(dev, f'GET_DMA_MR {why}', INVAL, GET_DMA_MR, struct.pack('<II', pd, acc), 16)
    expect(dev, 'GET_DMA_MR unknown PD', NOENT, GET_DMA_MR, struct.pack('<II', 0xfffff0, 1), 16)
    if atomic_cap == 0:
        expect(dev, 'GET_DMA_MR REMOTE_ATOMIC without the ATOMIC feature', ACCES,
               GET_DMA_MR, struct.pack('<II', pd, LOCAL_WRITE | REMOTE_ATOMIC), 16)

    # Page list in page 0 describing pages 1..2 (4 KiB each).
    pl_addr = mem.pa[0]
    mem.put(0, 0, struct.pack('<QQ', mem.pa[1], mem.pa[2]))

    def create_mr(pd=pd, access=LOCAL_WRITE, iova=0x10000, length=2 * PAGE,
                  pla=pl_addr, npages=2, shift=12, flags=0, replace=0):
        return struct.pack('<IIQQQIIII', pd, access, iova, length, pla, npages,
                           shift, flags, replace)

    expect(dev, 'CREATE_MR unknown PD', NOENT, CREATE_MR, create_mr(pd=0xfffff0), 16)
    expect(dev, 'CREATE_MR unknown access bit', INVAL, CREATE_MR, create_mr(access=0x20), 16)
    expect(dev, 'CREATE_MR unknown flag', INVAL, CREATE_MR, create_mr(flags=4), 16)
    expect(dev, 'CREATE_MR replace_handle without MR_F_REPLACE', INVAL, CREATE_MR,
           create_mr(replace=1), 16)
    expect(dev, 'CREATE_MR MR_F_REPLACE of an unknown MR', NOENT, CREATE_MR,
           create_mr(flags=2, replace=0xfffff0), 16)
    for shift in (11, 22, 64, 0xffffffff):
        expect(dev, f'CREATE_MR page_shift {shift}', INVAL, CREATE_MR, create_mr(shift=shift), 16)
    expect(dev, 'CREATE_MR length 0', INVAL, CREATE_MR, create_mr(length=0, npages=0), 16)
    expect(dev, 'CREATE_MR length above max_mr_size', INVAL, CREATE_MR,
           create_mr(length=(1 << 40) + PAGE, npages=(1 << 28) + 1), 16)
    expect(dev, 'CREATE_MR iova + length wraps', INVAL, CREATE_MR,
           create_mr(iova=(1 << 64) - PAGE), 16)
    expect(dev, 'CREATE_MR npages one too many', INVAL, CREATE_MR, create_mr(npages=3), 16)
    expect(dev, 'CREATE_MR npages one too few', INVAL, CREATE_MR, create_mr(npages=1), 16)
    expect(dev, 'CREATE_MR npages ignoring the iova offset', INVAL, CREATE_MR,
           create_mr(iova=0x10800), 16)
    expect(dev, 'CREATE_MR page list address not 8-byte aligned', INVAL, CREATE_MR,
           create_mr(pla=pl_addr + 4), 16)
    expect(dev, 'CREATE_MR unmapped page list', FAULT, CREATE_MR, create_mr(pla=UNMAPPED), 16)
    mem.put(0, 64, struct.pack('<QQ', mem.pa[1], mem.pa[2] + 8))
    expect(dev, 'CREATE_MR page address not page aligned', INVAL, CREATE_MR,
           create_mr(pla=pl_addr + 64), 16)
    mem.put(0, 128, struct.pack('<Q', mem.pa[3] + 8))
    expect(dev, 'CREATE_MR indirect list page not 4 KiB aligned', INVAL, CREATE_MR,
           create_mr(pla=pl_addr + 128, flags=1), 16)
    mem.put(0, 136, struct.pack('<Q', UNMAPPED))
    expect(dev, 'CREATE_MR indirect list page unmapped', FAULT, CREATE_MR,
           create_mr(pla=pl_addr + 136, flags=1), 16)
    resp = expect(dev, 'CREATE_MR valid (2 pages)', OK, CREATE_MR, create_mr(), 16)
    mr, lkey, rkey = struct.unpack_from('<3I', resp)
    check('CREATE_MR lkey == rkey, index << 8 | key byte', (mr, mr), (lkey >> 8, rkey >> 8))

    def alloc_mr(pd=pd, max_pages=16, pla=pl_addr):
        return struct.pack('<IIQ', pd, max_pages, pla)

    expect(dev, 'ALLOC_MR unknown PD', NOENT, ALLOC_MR, alloc_mr(pd=0xfffff0), 16)
    expect(dev, 'ALLOC_MR max_pages 0', INVAL, ALLOC_MR, alloc_mr(max_pages=0), 16)
    expect(dev, f'ALLOC_MR max_pages {frpl_len + 1}', INVAL, ALLOC_MR,
           alloc_mr(max_pages=frpl_len + 1), 16)
    expect(dev, 'ALLOC_MR page list not 8-byte aligned', INVAL, ALLOC_MR,
           alloc_mr(pla=pl_addr + 1), 16)
    for handle in (0, 0xffffff, 0xffffffff):
        expect(dev, f'DEREG_MR handle {handle:#x}', NOENT, DEREG_MR, h(handle))
    expect(dev, 'DESTROY_PD with an MR', BUSY, DESTROY_PD, h(pd))

    # --- CQ ------------------------------------------------------------------
    print('--- CQ')
    cq_ring = mem.pa[4]
    for depth in (0, 3, 6, max_cqe * 2, 0xffffffff):
        expect(dev, f'CREATE_CQ depth {depth}', INVAL, CREATE_CQ,
               create_cq(cq_ring, 1 << 40, depth), 8)
    expect(dev, 'CREATE_CQ ring address not 128-byte aligned', INVAL, CREATE_CQ,
           create_cq(cq_ring + 64, PAGE, 4), 8)
    expect(dev, 'CREATE_CQ ring 1 byte too small for depth 4', INVAL, CREATE_CQ,
           create_cq(cq_ring, 128 + 4 * 64 - 1, 4), 8)
    expect(dev, f'CREATE_CQ eventq {nqp} (num_queue_pairs)', INVAL, CREATE_CQ,
           create_cq(cq_ring, PAGE, 4, nqp), 8)
    expect(dev, 'CREATE_CQ unmapped ring', FAULT, CREATE_CQ, create_cq(UNMAPPED, PAGE, 4), 8)
    for handle in (0, 0xffffff, 0xffffffff):
        expect(dev, f'DESTROY_CQ handle {handle:#x}', NOENT, DESTROY_CQ, h(handle))
    resp = expect(dev, 'CREATE_CQ depth 16 in page 4', OK, CREATE_CQ,
                  create_cq(cq_ring, PAGE, 16), 8)
    cq = struct.unpack_from('<I', resp)[0]
    # A depth-1 CQ in page 7 followed by a sentinel, for the overflow check.
    mem.put(7, 0, b'\0' * 192 + b'\xa5' * (PAGE - 192))
    resp = expect(dev, 'CREATE_CQ depth 1 in page 7', OK, CREATE_CQ,
                  create_cq(mem.pa[7], 192, 1), 8)
    cq1 = struct.unpack_from('<I', resp)[0]

    # --- QP creation -----------------------------------------------------------
    print('--- CREATE_QP')
    sq, rq = mem.pa[5], mem.pa[6]

    def cqp(what, want, **kw):
        args = dict(pd=pd, qpt=QPT_RC, scq=cq, rcq=cq, sq_addr=sq, rq_addr=rq)
        args.update(kw)
        return expect(dev, f'CREATE_QP {what}', want, CREATE_QP, create_qp(**args), 8)

    for qpt in (QPT_SMI, 5, 255):
        cqp(f'type {qpt}', OPNOTSUPP, qpt=qpt)
    cqp('second GSI QP (the driver owns QP1)', BUSY, qpt=QPT_GSI)
    cqp('unknown PD', NOENT, pd=0xfffff0)
    cqp('unknown send CQ', NOENT, scq=0xfffff0)
    cqp('unknown recv CQ', NOENT, rcq=0xfffff0)
    for d in (0, 3, max_qp_wr * 2):
        cqp(f'sq_depth {d}', INVAL, sq_depth=d)
    cqp('rq_depth 3', INVAL, rq_depth=3)
    cqp(f'rq_depth {max_qp_wr * 2}', INVAL, rq_depth=max_qp_wr * 2)
    cqp('sq_wqe_shift 4', INVAL, sq_shift=4)
    cqp('rq_wqe_shift 6', INVAL, rq_shift=6)
    cqp(f'max_send_sge {max_send_sge + 1}', INVAL, send_sge=max_send_sge + 1, sq_shift=3)
    cqp(f'max_recv_sge {max_recv_sge + 1}', INVAL, recv_sge=max_recv_sge + 1, rq_shift=5)
    cqp(f'max_inline_data {max_inline + 1}', INVAL, inline=max_inline + 1, sq_shift=3)
    cqp('5 SGEs in a 128-byte SQ stride', INVAL, send_sge=5, sq_shift=1)
    cqp('65 inline bytes in a 128-byte SQ stride', INVAL, inline=65, sq_shift=1)
    cqp('2 SGEs in a 32-byte RQ stride', INVAL, recv_sge=2, rq_shift=1)
    cqp('SQ ring not 128-byte aligned', INVAL, sq_addr=sq + 64)
    cqp('RQ ring not 128-byte aligned', INVAL, rq_addr=rq + 8)
    cqp('SQ ring 1 byte too small', INVAL, sq_size=128 + 4 * 128 - 1)
    cqp('RQ ring 1 byte too small', INVAL, rq_size=128 + 4 * 32 - 1)
    cqp('SQ ring unmapped', FAULT, sq_addr=UNMAPPED)
    cqp('RQ ring unmapped', FAULT, rq_addr=UNMAPPED)
    resp = cqp('no RQ ignores bad rq_* fields', OK, rq_depth=0, rq_shift=99,
               recv_sge=99, rq_addr=1, rq_size=0)
    norq = struct.unpack_from('<I', resp)[0]
    expect(dev, 'QUERY_QP handle 0', NOENT, QUERY_QP, struct.pack('<II', 0, 0), 96)
    resp = cqp('RC, depth 4/4, in pages 5/6', OK)
    qp = struct.unpack_from('<I', resp)[0]
    check('QPN of a non-GSI QP is >= 2 and < 2^24', True, 2 <= qp < (1 << 24))
    check('SQ notify after CREATE_QP', 0, mem.u32(5, 68))
    check('RQ notify after CREATE_QP', 0x80000000, mem.u32(6, 68))
    expect(dev, 'DESTROY_PD with a QP', BUSY, DESTROY_PD, h(pd))
    expect(dev, 'DESTROY_CQ with a QP', BUSY, DESTROY_CQ, h(cq))

    # --- MODIFY_QP -------------------------------------------------------------
    print('--- MODIFY_QP')

    def mqp(what, want, mask, **kw):
        return expect(dev, f'MODIFY_QP {what}', want, MODIFY_QP, modify_qp(qp, mask, **kw))

    init_mask = A_STATE | A_PKEY | A_PORT | A_ACCESS
    expect(dev, 'MODIFY_QP unknown QP', NOENT, MODIFY_QP, modify_qp(0xfffff0, init_mask, INIT))
    expect(dev, 'QUERY_QP unknown QP', NOENT, QUERY_QP, struct.pack('<II', 0xfffff0, 0), 96)
    expect(dev, 'DESTROY_QP unknown QP', NOENT, DESTROY_QP, h(0xfffff0))
    mqp('alternate path bit', OPNOTSUPP, init_mask | A_ALT_PATH, state=INIT)
    mqp('mask bit 21', OPNOTSUPP, init_mask | (1 << 21), state=INIT)
    mqp('mask bit 31', OPNOTSUPP, init_mask | (1 << 31), state=INIT)
    mqp('state 7', INVAL, init_mask, state=7)
    mqp('RESET->RTR', INVAL, A_STATE | A_AV | A_PATH_MTU | A_DEST_QPN | A_RQ_PSN |
        A_MAX_DEST_RD | A_MIN_RNR, state=RTR)
    mqp('RESET->ERR', INVAL, A_STATE, state=ERR)
    mqp('RESET->INIT without PORT', INVAL, init_mask & ~A_PORT, state=INIT)
    mqp('RESET->INIT with QKEY on RC', INVAL, init_mask | A_QKEY, state=INIT)
    mqp('RESET->INIT with CUR_STATE', INVAL, init_mask | A_CUR_STATE, state=INIT)
    mqp('pkey_index 1', INVAL, init_mask, state=INIT, pkey_index=1)
    mqp('port 2', INVAL, init_mask, state=INIT, port=2)
    mqp('unknown access bit', INVAL, init_mask, state=INIT, access=0x40)
    if atomic_cap == 0:
        mqp('REMOTE_ATOMIC without the feature', ACCES, init_mask, state=INIT,
            access=REMOTE_ATOMIC | LOCAL_WRITE)
    resp = expect(dev, 'QUERY_QP after refused modifies', OK, QUERY_QP, struct.pack('<II', qp, 0), 96)
    check('QP still in RESET', RESET, resp[0])

    # Receive and send WQEs posted before the QP leaves RESET.
    for i in range(3):
        mem.put(6, 128 + i * 32, struct.pack('<QB7x', 0x100 + i, 0))
    mem.put(6, 0, struct.pack('<I', 3))
    mem.put(5, 128, struct.pack('<QBBBx', 0x200, 2, 0, 0))      # SEND
    mem.put(5, 256, struct.pack('<QBBBx', 0x201, 4, 0, 0))      # RDMA READ
    mem.put(5, 0, struct.pack('<I', 2))

    mqp('RESET->INIT', OK, init_mask, state=INIT)
    rtr = A_STATE | A_AV | A_PATH_MTU | A_DEST_QPN | A_RQ_PSN | A_MAX_DEST_RD | A_MIN_RNR
    mqp('INIT->RTR without MIN_RNR_TIMER', INVAL, rtr & ~A_MIN_RNR, state=RTR)
    mqp('INIT->RTS', INVAL, A_STATE | A_SQ_PSN, state=RTS)
    mqp('CUR_STATE not the current state', INVAL, rtr | A_CUR_STATE, state=RTR, cur_state=RTS)
    for mtu in (0, 6, 255):
        mqp(f'path_mtu {mtu}', INVAL, rtr, state=RTR, path_mtu=mtu)
    mqp('dest_qpn 2^24', INVAL, rtr, state=RTR, dest_qpn=1 << 24)
    mqp('rq_psn 2^24', INVAL, rtr, state=RTR, rq_psn=1 << 24)
    mqp('max_dest_rd_atomic 17', INVAL, rtr, state=RTR, max_dest_rd_atomic=17)
    mqp('min_rnr_timer 32', INVAL, rtr, state=RTR, min_rnr_timer=32)
    mqp('AV sgid_index 64', INVAL, rtr, state=RTR, addr=av(sgid_index=64))
    mqp('AV network_type 1', INVAL, rtr, state=RTR, addr=av(network_type=1))
    mqp('AV IPv6 type with an IPv4 GID', INVAL, rtr, state=RTR, addr=av(network_type=3))
    mqp('AV flow_label 2^20', INVAL, rtr, state=RTR, addr=av(flow_label=1 << 20))
    mqp('INIT->RTR', OK, rtr, state=RTR)
    rts = A_STATE | A_TIMEOUT | A_RETRY | A_RNR_RETRY | A_SQ_PSN | A_MAX_QP_RD
    mqp('RTR->RTS timeout 32', INVAL, rts, state=RTS, timeout=32)
    mqp('RTR->RTS retry_cnt 8', INVAL, rts, state=RTS, retry_cnt=8)
    mqp('RTR->RTS rnr_retry 8', INVAL, rts, state=RTS, rnr_retry=8)
    mqp('RTR->RTS sq_psn 2^24', INVAL, rts, state=RTS, sq_psn=1 << 24)
    mqp('RTR->RTS max_rd_atomic 17', INVAL, rts, state=RTS, max_rd_atomic=17)
    mqp('RTR->RTS without RETRY_CNT', INVAL, rts & ~A_RETRY, state=RTS)
    mqp('RTR->SQD', INVAL, A_STATE, state=SQD)
    mqp('RTR->RTS', OK, rts, state=RTS, sq_psn=0x123456)
    resp = expect(dev, 'QUERY_QP in RTS', OK, QUERY_QP, struct.pack('<II', qp, 0), 96)
    check('QUERY_QP state', RTS, resp[0])
    check('QUERY_QP sq_psn', 0x123456, struct.unpack_from('<I', resp, 24)[0])
    check('QUERY_QP dest_qp_num', 3, struct.unpack_from('<I', resp, 28)[0])

    # --- flush on ERR -----------------------------------------------------------
    print('--- MODIFY_QP to ERR flushes')
    mqp('RTS->ERR with CUR_STATE', INVAL, A_STATE | A_CUR_STATE, state=ERR, cur_state=RTS)
    mqp('RTS->ERR', OK, A_STATE, state=ERR)
    check('CQ prod after flushing 2 send + 3 receive WQEs', 5, mem.u32(4, 0))
    cqes = [struct.unpack_from('<QBBBxII', mem.m, 4 * PAGE + 128 + i * 64) for i in range(5)]
    got = [(c[0], c[1], c[2], c[5]) for c in cqes]
    want = [(0x200, WC_WR_FLUSH_ERR, WC_OP_SEND, qp), (0x201, WC_WR_FLUSH_ERR, WC_OP_RDMA_READ, qp)]
    want += [(0x100 + i, WC_WR_FLUSH_ERR, WC_OP_RECV, qp) for i in range(3)]
    check('flush CQEs (wr_id, status, opcode, qp) in ring order', want, got)
    check('SQ cons after flush', 2, mem.u32(5, 64))
    check('RQ cons after flush', 3, mem.u32(6, 64))
    check('SQ flags ERROR', RING_F_ERROR, mem.u32(5, 72))
    check('RQ notify: next post rings (= prod)', 3, mem.u32(6, 68))
    mqp('ERR->RTS', INVAL, A_STATE, state=RTS)
    mqp('ERR->RESET', OK, A_STATE, state=RESET)
    check('SQ flags cleared in RESET', 0, mem.u32(5, 72))

    # --- CQ overflow -----------------------------------------------------------
    print('--- CQ overflow')
    expect(dev, 'DESTROY_QP', OK, DESTROY_QP, h(qp))
    for pg in (5, 6):
        mem.put(pg, 0, bytes(PAGE))
    resp = cqp('RC on the depth-1 CQ', OK, scq=cq1, rcq=cq1)
    qp = struct.unpack_from('<I', resp)[0]
    for i in range(3):
        mem.put(6, 128 + i * 32, struct.pack('<QB7x', 0x300 + i, 0))
    mem.put(6, 0, struct.pack('<I', 3))
    mqp('RESET->INIT (overflow QP)', OK, init_mask, state=INIT)
    expect(dev, 'DESTROY_QP flushes into a 1-entry CQ', OK, DESTROY_QP, h(qp))
    check('depth-1 CQ prod stops at 1', 1, mem.u32(7, 0))
    check('depth-1 CQ flags OVERFLOW|ERROR', RING_F_OVERFLOW | RING_F_ERROR, mem.u32(7, 72))
    check('first flush CQE written', 0x300, struct.unpack_from('<Q', mem.m, 7 * PAGE + 128)[0])
    tail = bytes(mem.m[7 * PAGE + 192:8 * PAGE])
    check('bytes written past the 192-byte ring', 0, sum(b != 0xa5 for b in tail))

    # --- UD: controlled QKEY ----------------------------------------------------
    print('--- UD QP')
    for pg in (5, 6):
        mem.put(pg, 0, bytes(PAGE))
    resp = cqp('UD', OK, qpt=QPT_UD)
    ud = struct.unpack_from('<I', resp)[0]
    ud_init = A_STATE | A_PKEY | A_PORT | A_QKEY
    expect(dev, 'MODIFY_QP UD controlled QKEY', PERM, MODIFY_QP,
           modify_qp(ud, ud_init, INIT, qkey=0x80000000))
    expect(dev, 'MODIFY_QP UD RESET->INIT with ACCESS_FLAGS', INVAL, MODIFY_QP,
           modify_qp(ud, ud_init | A_ACCESS, INIT, qkey=0x1234))
    expect(dev, 'MODIFY_QP UD RESET->INIT', OK, MODIFY_QP, modify_qp(ud, ud_init, INIT, qkey=0x1234))
    expect(dev, 'DESTROY_QP UD', OK, DESTROY_QP, h(ud))

    # --- tables full -------------------------------------------------------------
    print('--- NOSPC')
    pds = []
    while len(pds) <= max_pd:
        status, resp = dev.cmd(CREATE_PD, resp_size=8)
        if status != OK:
            dev.rejected += 1
            break
        pds.append(struct.unpack_from('<I', resp)[0])
    check(f'CREATE_PD once the table is full (after {len(pds)} more)', 'NOSPC', st(status))
    check('PDs in use never exceed max_pd', True, len(pds) < max_pd)
    for p in pds:
        status, _ = dev.cmd(DESTROY_PD, h(p))
        if status != OK:
            check(f'DESTROY_PD {p}', 'OK', st(status))
            break
    print(f'destroyed {len(pds)} PDs')

    # --- cleanup (before the pages are freed) ---------------------------------------
    print('--- cleanup')
    expect(dev, 'DESTROY_QP (no RQ)', OK, DESTROY_QP, h(norq))
    expect(dev, 'DESTROY_CQ', OK, DESTROY_CQ, h(cq))
    expect(dev, 'DESTROY_CQ of the overflowed CQ', OK, DESTROY_CQ, h(cq1))
    expect(dev, 'DEREG_MR', OK, DEREG_MR, h(mr))
    expect(dev, f'DEL_GID {GID_IDX}', OK, DEL_GID, h(GID_IDX))
    expect(dev, f'DEL_GID {GID_IDX} again', NOENT, DEL_GID, h(GID_IDX))
    expect(dev, 'DESTROY_PD', OK, DESTROY_PD, h(pd))
    check('every object this script created is destroyed', [], alive)
    status, stats = dev.cmd(QUERY_STATS, resp_size=264)
    errors1 = struct.unpack_from('<Q', stats, 8 + 8 * STAT_CMD_ERRORS)[0]
    check('CMD_ERRORS grew by the number of rejected commands', dev.rejected, errors1 - errors0)

    if failures:
        print(f'{len(failures)} check(s) failed: ' + '; '.join(failures))
        return 1
    print('all checks passed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
