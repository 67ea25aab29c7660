#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
"""Send invalid control commands to a virtio-rdma device and check each answer.

    ctrl_invalid.py /sys/kernel/debug/virtio_rdma/<ibdev>/raw_cmd

Every command goes through the driver's raw_cmd debugfs file (see
drivers/infiniband/hw/virtio_rdma/vrdma_debugfs.c for the contract) and must come
back with the status Documentation/virtio-rdma-spec.rst gives for that
input.  Command codes, statuses, flags and every request, response, ring and
WQE layout come from include/uapi/linux/virtio_rdma.h (virtio_rdma_abi.py);
the limits the invalid values exceed come from the device's own QUERY_DEVICE
and QUERY_PORT answers.  Rings and page lists live in locked pages of this
process whose physical addresses come from /proc/self/pagemap: bound to
virtio_vdpa the device's IOTLB is the identity, so those are the DMA
addresses.  Every object this script creates is destroyed before the pages
go away.

The checks run in the order of the sections below (one function per control
command or per behaviour); later sections use the objects earlier ones made,
and the last one checks that CMD_ERRORS counted every rejection.

Exit status: 0 all checks passed, 1 a check failed, 77 cannot run here.
"""
import ctypes
import mmap
import os
import socket
import struct
import sys

from virtio_rdma_abi import Abi, AbiError, RawCmd

PAGE = 4096
UNMAPPED = 1 << 50          # far above any RAM: the IOTLB finds no page

ABI = Abi.load()
CMD = ABI.group('CMD_')
STATUS = {v: k for k, v in ABI.group('STATUS_').items()}
OK, INVAL, NOENT, NOSPC, BUSY, PERM, ACCES, OPNOTSUPP, FAULT = (
    ABI.c('STATUS_' + n) for n in
    ('OK', 'INVAL', 'NOENT', 'NOSPC', 'BUSY', 'PERM', 'ACCES', 'OPNOTSUPP', 'FAULT'))
QPT = ABI.group('QPT_')
QPT_SMI = 0                 # IB_QPT_SMI: the ABI has no SMI QP
QPS = ABI.group('QPS_')
RESET, INIT, RTR, RTS, SQD, ERR = (QPS[n] for n in ('RESET', 'INIT', 'RTR', 'RTS', 'SQD', 'ERR'))
A = ABI.group('QP_')        # MODIFY_QP attribute mask bits
A_ALT_PATH = 0x4000         # IB_QP_ALT_PATH: not in the ABI, must be refused
ACC = ABI.group('ACCESS_')
LOCAL_WRITE = ACC['LOCAL_WRITE']

# Layouts.
HDR = ABI.s('cmd_hdr')
RESP_HDR = ABI.s('cmd_resp_hdr')
RING_CTL = ABI.s('ring_ctl')
CQE = ABI.s('cqe')
SQ_WQE = ABI.s('sq_wqe')
RQ_WQE = ABI.s('rq_wqe')
SGE = ABI.s('sge')
CTL = ABI.c('RING_CTL_SIZE')


def sq_stride(shift):
    return 1 << (ABI.c('SQ_WQE_BASE_SHIFT') + shift)


def rq_stride(shift):
    return 1 << (ABI.c('RQ_WQE_BASE_SHIFT') + shift)


# Requests whose success creates an object, and the command that destroys it.
DESTROY = {CMD['CREATE_PD']: CMD['DESTROY_PD'], CMD['GET_DMA_MR']: CMD['DEREG_MR'],
           CMD['CREATE_MR']: CMD['DEREG_MR'], CMD['ALLOC_MR']: CMD['DEREG_MR'],
           CMD['CREATE_CQ']: CMD['DESTROY_CQ'], CMD['CREATE_QP']: CMD['DESTROY_QP'],
           CMD['CREATE_SRQ']: CMD['DESTROY_SRQ'], CMD['ALLOC_MW']: CMD['DEALLOC_MW'],
           CMD['CREATE_MKEY']: CMD['DEREG_MR'], CMD['CREATE_XRCD']: CMD['DESTROY_XRCD']}
# The response struct of each command that has a response body.
RESP = {'QUERY_DEVICE': 'query_device_resp', 'QUERY_PORT': 'query_port_resp',
        'CREATE_PD': 'create_pd_resp', 'GET_DMA_MR': 'mr_resp', 'CREATE_MR': 'mr_resp',
        'ALLOC_MR': 'mr_resp', 'CREATE_CQ': 'create_cq_resp',
        'CREATE_QP': 'create_qp_resp', 'QUERY_QP': 'query_qp_resp',
        'QUERY_STATS': 'query_stats_resp', 'CREATE_SRQ': 'create_srq_resp',
        'QUERY_SRQ': 'query_srq_resp', 'ALLOC_MW': 'alloc_mw_resp', 'CREATE_MKEY': 'mr_resp',
        'CREATE_XRCD': 'create_xrcd_resp'}


def st(code):
    return STATUS.get(code, str(code))


def resp_size(name):
    return ABI.s(RESP[name]).size if name in RESP else 0


class Checks:
    """The failures so far and the commands the device must have rejected."""

    def __init__(self):
        self.failures = []
        self.rejected = 0

    def check(self, what, expected, got):
        if expected == got:
            print(f'ok: {what}: {got}')
        else:
            print(f'FAIL: {what}: expected {expected}, got {got}')
            self.failures.append(what)
        return expected == got

    def true(self, what, cond, detail):
        """A check of a condition, with DETAIL to show either way."""
        if cond:
            print(f'ok: {what}: {detail}')
        else:
            print(f'FAIL: {what}: {detail}')
            self.failures.append(what)
        return cond


def phys_addr(uaddr):
    """The physical address of this process's byte at UADDR, which must be
    in a present page (/proc/self/pagemap, whose frame numbers root sees)."""
    with open('/proc/self/pagemap', 'rb') as f:
        f.seek(uaddr // PAGE * 8)
        ent = struct.unpack('<Q', f.read(8))[0]
    pfn = ent & ((1 << 55) - 1)
    if not (ent >> 63) or not pfn:
        raise OSError(f'pagemap gives no PFN for {uaddr:#x} (not root?)')
    return pfn * PAGE + uaddr % PAGE


class Pages:
    """Locked anonymous pages and their physical addresses."""

    def __init__(self, n):
        flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x2000 | 0x8000  # LOCKED|POPULATE
        self.m = mmap.mmap(-1, n * PAGE, flags=flags)
        self.m[:] = b'\0' * (n * PAGE)
        va = ctypes.addressof(ctypes.c_char.from_buffer(self.m))
        self.pa = [phys_addr(va + i * PAGE) for i in range(n)]

    def u32(self, page, off):
        return struct.unpack_from('<I', self.m, page * PAGE + off)[0]

    def put(self, page, off, data):
        self.m[page * PAGE + off:page * PAGE + off + len(data)] = data

    # Rings: a struct virtio_rdma_ring_ctl, then the entries.
    def ctl(self, page, field):
        return self.u32(page, RING_CTL.offset(field))

    def set_ctl(self, page, field, value):
        self.put(page, RING_CTL.offset(field), struct.pack('<I', value))

    def entry(self, page, stride, i, layout, **fields):
        self.put(page, CTL + i * stride, layout.pack(**fields))

    def cqe(self, page, i):
        return CQE.unpack(self.m, page * PAGE + CTL + i * CQE.size)


class Session:
    """The device, this process's pages, the device's limits and the objects
    the checks create, shared by the sections below."""

    def __init__(self, path):
        self.dev = RawCmd(ABI, path)
        self.mem = Pages(12)    # 8: an SRQ ring, 9: the SQ of its QP, 10-11: CQ resize
        self.c = Checks()
        # Objects alive in the device that point at this process's pages or
        # were made by this script: (destroy command, handle), oldest first.
        self.alive = []
        self.nqp = 4            # num_queue_pairs of a tools/vrdma device

    def check(self, what, expected, got):
        self.c.check(what, expected, got)

    def req(self, name, **fields):
        return ABI.s(name).pack(**fields)

    def expect(self, what, want, name, body=b''):
        """Send command NAME; check its status; returns the decoded response
        (or {} when it has none)."""
        code = CMD[name]
        size = resp_size(name)
        status, resp = self.dev.cmd(code, body, size)
        if want != OK:
            self.c.rejected += 1
        self.check(what, st(want), st(status))
        out = ABI.s(RESP[name]).unpack(resp) if size and status == OK else {}
        if status == OK and code in DESTROY:
            self.alive.append((DESTROY[code], struct.unpack_from('<I', resp)[0]))
        if status == OK and code in DESTROY.values():
            handle = struct.unpack_from('<I', body)[0]
            self.alive[:] = [o for o in self.alive if o != (code, handle)]
        return out

    def expect_raw(self, what, want, code, body=b''):
        """A command code the ABI does not name; no response body."""
        status, _ = self.dev.cmd(code, body, 0)
        if want != OK:
            self.c.rejected += 1
        self.check(what, st(want), st(status))

    def malformed(self, what, req, resp_len):
        """A chain of the wrong shape: the device must answer MALFORMED."""
        self.c.rejected += 1
        data = self.dev.raw(req, resp_len)
        self.check(what, 'MALFORMED', st(RESP_HDR.unpack(data)['status']))

    def destroy_leftovers(self):
        if self.alive:
            print(f'destroying {len(self.alive)} leftover object(s)')
            for code, handle in reversed(self.alive):
                self.dev.cmd(code, h(handle))


def h(handle):
    """The request of a DESTROY_*/DEREG_MR/DEL_GID/QUERY_PORT: a handle (or
    index, or port) and a reserved word."""
    return struct.pack('<II', handle, 0)


def stats(s):
    status, resp = s.dev.cmd(CMD['QUERY_STATS'], b'', resp_size('QUERY_STATS'))
    s.check('QUERY_STATS works', 'OK', st(status))
    return ABI.s('query_stats_resp').unpack(resp)['counters'][ABI.c('STAT_CMD_ERRORS')]


def limits(s):
    status, resp = s.dev.cmd(CMD['QUERY_DEVICE'], b'', resp_size('QUERY_DEVICE'))
    s.check('QUERY_DEVICE works', 'OK', st(status))
    d = ABI.s('query_device_resp').unpack(resp)
    status, resp = s.dev.cmd(CMD['QUERY_PORT'], h(1), resp_size('QUERY_PORT'))
    s.check('QUERY_PORT works', 'OK', st(status))
    p = ABI.s('query_port_resp').unpack(resp)
    d['gid_tbl_len'] = p['gid_tbl_len']
    print(f'device limits: max_qp {d["max_qp"]} max_qp_wr {d["max_qp_wr"]} sge '
          f'{d["max_send_sge"]}/{d["max_recv_sge"]} max_cq {d["max_cq"]} '
          f'max_cqe {d["max_cqe"]} max_mr {d["max_mr"]} max_pd {d["max_pd"]} '
          f'frpl {d["max_fast_reg_page_list_len"]} inline {d["max_inline_data"]} '
          f'wqe shifts {d["max_sq_wqe_shift"]}/{d["max_rq_wqe_shift"]} '
          f'rd_atom {d["max_qp_rd_atom"]}/{d["max_qp_init_rd_atom"]} '
          f'gids {d["gid_tbl_len"]}')
    s.lim = d
    # A GID slot the driver leaves empty (it fills them from index 0).
    s.gid_idx = d['gid_tbl_len'] - 1


# --- descriptor chain shape --------------------------------------------------
def check_chain_shape(s):
    print('--- chain shape')
    port_req = ABI.s('query_port_req').pack(port=1)
    port_resp = RESP_HDR.size + resp_size('QUERY_PORT')
    s.malformed('readable part shorter than the header',
                HDR.pack(cmd=CMD['QUERY_DEVICE'])[:HDR.size // 2], RESP_HDR.size)
    s.malformed('QUERY_PORT request 4 bytes short',
                HDR.pack(cmd=CMD['QUERY_PORT']) + port_req[:-4], port_resp)
    s.malformed('QUERY_PORT request 8 bytes long',
                HDR.pack(cmd=CMD['QUERY_PORT']) + port_req + bytes(8), port_resp)
    s.malformed('CREATE_PD with a request body',
                HDR.pack(cmd=CMD['CREATE_PD']) + bytes(8),
                RESP_HDR.size + resp_size('CREATE_PD'))
    for name in ('QUERY_DEVICE', 'QUERY_STATS'):
        s.malformed(f'{name} writable part 1 byte short', HDR.pack(cmd=CMD[name]),
                    RESP_HDR.size + resp_size(name) - 1)
    data = s.dev.raw(HDR.pack(cmd=CMD['QUERY_DEVICE']), RESP_HDR.size // 2)
    s.c.rejected += 1
    s.check('writable part shorter than a status: nothing written',
            bytes(RESP_HDR.size // 2), data)
    data = s.dev.raw(HDR.pack(cmd=CMD['CREATE_PD']), 0)
    s.c.rejected += 1
    s.check('no writable part at all: nothing written', b'', data)
    for code in (0, max(CMD.values()) + 1, 0x80000000, 0xffffffff):
        s.expect_raw(f'unknown command {code:#x}', OPNOTSUPP, code)
    # Reserved fields are ignored (spec "Conventions"), not rejected.
    status, _ = s.dev.cmd(CMD['QUERY_PORT'],
                          ABI.s('query_port_req').pack(port=1, reserved=0xffffffff),
                          resp_size('QUERY_PORT'))
    s.check('QUERY_PORT with a non-zero reserved field is served', 'OK', st(status))


# --- QUERY_PORT, ADD_GID, DEL_GID ---------------------------------------------
# ADD_GID takes only the addresses of the device's netdev: lo's by default,
# VRDMA_GID_IP where the device sits on another netdev (fuzz-commands).
GID4 = bytes(10) + b'\xff\xff' + socket.inet_aton(os.environ.get('VRDMA_GID_IP', '127.0.0.1'))
FOREIGN4 = bytes(10) + b'\xff\xff' + bytes([10, 0, 0, 1])             # ::ffff:10.0.0.1
FOREIGN6 = bytes([0x20, 0x01, 0x0d, 0xb8]) + bytes(11) + b'\x01'      # 2001:db8::1


def add_gid(index, gid_type, gid=GID4):
    return ABI.s('add_gid_req').pack(index=index, gid_type=gid_type, gid=gid)


def check_port_and_gids(s):
    print('--- QUERY_PORT, ADD_GID, DEL_GID')
    for port in (0, 2, 0xffffffff):
        s.expect(f'QUERY_PORT port {port}', INVAL, 'QUERY_PORT', h(port))
    v1, v2 = ABI.c('GID_TYPE_ROCE_V1'), ABI.c('GID_TYPE_ROCE_V2')
    n, idx = s.lim['gid_tbl_len'], s.gid_idx
    s.expect(f'ADD_GID index {n}', INVAL, 'ADD_GID', add_gid(n, v2))
    s.expect('ADD_GID index 0xffffffff', INVAL, 'ADD_GID', add_gid(0xffffffff, v2))
    s.expect('ADD_GID RoCE v1', OPNOTSUPP, 'ADD_GID', add_gid(idx, v1))
    s.expect('ADD_GID type 0', INVAL, 'ADD_GID', add_gid(idx, 0))
    s.expect('ADD_GID type 3', INVAL, 'ADD_GID', add_gid(idx, 3))
    s.expect(f'DEL_GID index {n}', INVAL, 'DEL_GID', h(n))
    s.expect(f'DEL_GID empty index {idx}', NOENT, 'DEL_GID', h(idx))
    # A driver (a VM's) cannot take an address its host did not give the netdev.
    s.expect('ADD_GID ::ffff:10.0.0.1 (not the netdev\'s)', PERM, 'ADD_GID',
             add_gid(idx, v2, FOREIGN4))
    s.expect('ADD_GID 2001:db8::1 (not the netdev\'s)', PERM, 'ADD_GID',
             add_gid(idx, v2, FOREIGN6))
    s.expect(f'DEL_GID {idx} after the refusals (still empty)', NOENT, 'DEL_GID', h(idx))
    s.expect(f'ADD_GID {socket.inet_ntoa(GID4[12:])} (the netdev\'s) at {idx}', OK, 'ADD_GID',
             add_gid(idx, v2))


# --- CREATE_PD, DESTROY_PD -----------------------------------------------------
def check_pd(s):
    print('--- PD')
    for handle in (0, 0xffffff, 0xffffffff):
        s.expect(f'DESTROY_PD handle {handle:#x}', NOENT, 'DESTROY_PD', h(handle))
    s.pd = s.expect('CREATE_PD', OK, 'CREATE_PD')['pd_handle']
    s.check('PD handle is not 0', True, s.pd != 0)


# --- GET_DMA_MR, CREATE_MR, ALLOC_MR, DEREG_MR --------------------------------------
def check_mr(s):
    print('--- MR')
    mem, pd = s.mem, s.pd

    def dma_mr(pd, access):
        return s.req('get_dma_mr_req', pd_handle=pd, access_flags=access)

    # 0x20 (ZERO_BASED) is a window right, never an MR's; 0x40 is no right at all.
    for acc, why in ((0x20, 'ZERO_BASED (windows only)'), (0x40, 'unknown access bit 0x40'),
                     (0x80000000, 'unknown access bit 31'),
                     (ACC['REMOTE_WRITE'], 'REMOTE_WRITE without LOCAL_WRITE'),
                     (ACC['REMOTE_ATOMIC'], 'REMOTE_ATOMIC without LOCAL_WRITE')):
        s.expect(f'GET_DMA_MR {why}', INVAL, 'GET_DMA_MR', dma_mr(pd, acc))
    s.expect('GET_DMA_MR unknown PD', NOENT, 'GET_DMA_MR', dma_mr(0xfffff0, 1))
    # Key bytes are random: eight MRs in a row do not count up (odds 2^-56).
    mrs = [s.expect(f'GET_DMA_MR #{i}', OK, 'GET_DMA_MR', dma_mr(pd, LOCAL_WRITE))
           for i in range(8)]
    kb = [r['lkey'] & 0xff for r in mrs]
    s.check(f'key bytes {kb} not a counter', False,
            all((kb[i + 1] - kb[i]) % 256 == 1 for i in range(7)))
    for r in mrs:
        s.expect('DEREG_MR', OK, 'DEREG_MR', h(r['mr_handle']))
    if s.lim['atomic_cap'] == ABI.c('ATOMIC_NONE'):
        s.expect('GET_DMA_MR REMOTE_ATOMIC without the ATOMIC feature', ACCES,
                 'GET_DMA_MR', dma_mr(pd, LOCAL_WRITE | ACC['REMOTE_ATOMIC']))

    # Page list in page 0 describing pages 1..2 (4 KiB each).
    pl_addr = mem.pa[0]
    mem.put(0, 0, struct.pack('<QQ', mem.pa[1], mem.pa[2]))
    pl_indirect, replace = ABI.c('MR_F_PL_INDIRECT'), ABI.c('MR_F_REPLACE')

    def create_mr(pd=pd, access=LOCAL_WRITE, iova=0x10000, length=2 * PAGE,
                  pla=pl_addr, npages=2, shift=12, flags=0, replace=0):
        return s.req('create_mr_req', pd_handle=pd, access_flags=access, iova=iova,
                     length=length, page_list_addr=pla, npages=npages,
                     page_shift=shift, flags=flags, replace_handle=replace)

    def cmr(what, want, **kw):
        return s.expect(f'CREATE_MR {what}', want, 'CREATE_MR', create_mr(**kw))

    cmr('unknown PD', NOENT, pd=0xfffff0)
    cmr('unknown access bit', INVAL, access=0x20)
    cmr('unknown flag', INVAL, flags=4)
    cmr('replace_handle without MR_F_REPLACE', INVAL, replace=1)
    cmr('MR_F_REPLACE of an unknown MR', NOENT, flags=replace, replace=0xfffff0)
    for shift in (11, 22, 64, 0xffffffff):
        cmr(f'page_shift {shift}', INVAL, shift=shift)
    cmr('length 0', INVAL, length=0, npages=0)
    cmr('length above max_mr_size', INVAL, length=(1 << 40) + PAGE, npages=(1 << 28) + 1)
    cmr('iova + length wraps', INVAL, iova=(1 << 64) - PAGE)
    cmr('npages one too many', INVAL, npages=3)
    cmr('npages one too few', INVAL, npages=1)
    cmr('npages ignoring the iova offset', INVAL, iova=0x10800)
    cmr('page list address not 8-byte aligned', INVAL, pla=pl_addr + 4)
    cmr('unmapped page list', FAULT, pla=UNMAPPED)
    mem.put(0, 64, struct.pack('<QQ', mem.pa[1], mem.pa[2] + 8))
    cmr('page address not page aligned', INVAL, pla=pl_addr + 64)
    mem.put(0, 128, struct.pack('<Q', mem.pa[3] + 8))
    cmr('indirect list page not 4 KiB aligned', INVAL, pla=pl_addr + 128, flags=pl_indirect)
    mem.put(0, 136, struct.pack('<Q', UNMAPPED))
    cmr('indirect list page unmapped', FAULT, pla=pl_addr + 136, flags=pl_indirect)
    r = cmr('valid (2 pages)', OK)
    s.mr = r['mr_handle']
    shift = ABI.c('KEY_INDEX_SHIFT')
    s.check('CREATE_MR lkey == rkey, index << 8 | key byte', (s.mr, s.mr),
            (r['lkey'] >> shift, r['rkey'] >> shift))

    def alloc_mr(pd=pd, max_pages=16, pla=pl_addr):
        return s.req('alloc_mr_req', pd_handle=pd, max_pages=max_pages, page_list_addr=pla)

    frpl_len = s.lim['max_fast_reg_page_list_len']
    s.expect('ALLOC_MR unknown PD', NOENT, 'ALLOC_MR', alloc_mr(pd=0xfffff0))
    s.expect('ALLOC_MR max_pages 0', INVAL, 'ALLOC_MR', alloc_mr(max_pages=0))
    s.expect(f'ALLOC_MR max_pages {frpl_len + 1}', INVAL, 'ALLOC_MR',
             alloc_mr(max_pages=frpl_len + 1))
    s.expect('ALLOC_MR page list not 8-byte aligned', INVAL, 'ALLOC_MR',
             alloc_mr(pla=pl_addr + 1))
    for handle in (0, 0xffffff, 0xffffffff):
        s.expect(f'DEREG_MR handle {handle:#x}', NOENT, 'DEREG_MR', h(handle))
    s.expect('DESTROY_PD with an MR', BUSY, 'DESTROY_PD', h(pd))


# --- memory windows and indirect memory keys -----------------------------------------
def check_mw_mkey(s):
    """ALLOC_MW / DEALLOC_MW (VIRTIO_RDMA_F_MW) and CREATE_MKEY
    (VIRTIO_RDMA_F_INDIRECT_MKEY): arguments, the shared key space (no
    window handle is an MR's and none of an MR a window's), DEREG_MR of an
    indirect key, and an MR that windows may bind to."""
    print('--- MW, MKEY')
    pd, shift = s.pd, ABI.c('KEY_INDEX_SHIFT')

    def alloc_mw(pd=pd, t=ABI.c('MW_TYPE_2'), reserved=b'\0\0\0'):
        return s.req('alloc_mw_req', pd_handle=pd, type=t, reserved=reserved)

    s.expect('ALLOC_MW unknown PD', NOENT, 'ALLOC_MW', alloc_mw(pd=0xfffff0))
    for t in (0, 3, 255):
        s.expect(f'ALLOC_MW type {t}', INVAL, 'ALLOC_MW', alloc_mw(t=t))
    s.expect('ALLOC_MW reserved byte', INVAL, 'ALLOC_MW', alloc_mw(reserved=b'\0\1\0'))
    w1 = s.expect('ALLOC_MW type 1', OK, 'ALLOC_MW', alloc_mw(t=ABI.c('MW_TYPE_1')))
    w2 = s.expect('ALLOC_MW type 2', OK, 'ALLOC_MW', alloc_mw())
    s.check('ALLOC_MW rkey index is the handle', (w1['mw_handle'], w2['mw_handle']),
            (w1['rkey'] >> shift, w2['rkey'] >> shift))
    mr = s.expect('GET_DMA_MR with MW_BIND', OK, 'GET_DMA_MR',
                  s.req('get_dma_mr_req', pd_handle=pd,
                        access_flags=LOCAL_WRITE | ACC['MW_BIND']))
    s.expect('DEREG_MR of a window', NOENT, 'DEREG_MR', h(w1['mw_handle']))
    s.expect('DEALLOC_MW of an MR', NOENT, 'DEALLOC_MW', h(mr['mr_handle']))
    s.expect('DEALLOC_MW type 1', OK, 'DEALLOC_MW', h(w1['mw_handle']))
    s.expect('DEALLOC_MW again', NOENT, 'DEALLOC_MW', h(w1['mw_handle']))
    s.expect('DEALLOC_MW type 2', OK, 'DEALLOC_MW', h(w2['mw_handle']))
    s.expect('DEREG_MR (MW_BIND)', OK, 'DEREG_MR', h(mr['mr_handle']))

    def mkey(pd=pd, n=8):
        return s.req('create_mkey_req', pd_handle=pd, max_entries=n)

    s.expect('CREATE_MKEY unknown PD', NOENT, 'CREATE_MKEY', mkey(pd=0xfffff0))
    for n in (0, s.lim['max_mkey_entries'] + 1, 0xffffffff):
        s.expect(f'CREATE_MKEY max_entries {n}', INVAL, 'CREATE_MKEY', mkey(n=n))
    k = s.expect('CREATE_MKEY', OK, 'CREATE_MKEY', mkey())
    s.check('CREATE_MKEY lkey == rkey, index << 8 | key byte',
            (k['mr_handle'], k['mr_handle']), (k['lkey'] >> shift, k['rkey'] >> shift))
    s.expect('DEALLOC_MW of an indirect key', NOENT, 'DEALLOC_MW', h(k['mr_handle']))
    s.expect('DEREG_MR of an indirect key', OK, 'DEREG_MR', h(k['mr_handle']))


# --- CREATE_CQ, DESTROY_CQ -------------------------------------------------------
def create_cq(ring, size, depth, eventq=0):
    return ABI.s('create_cq_req').pack(ring_addr=ring, ring_size=size, depth=depth,
                                       eventq=eventq)


def check_cq(s):
    print('--- CQ')
    mem = s.mem
    cq_ring = mem.pa[4]
    for depth in (0, 3, 6, s.lim['max_cqe'] * 2, 0xffffffff):
        s.expect(f'CREATE_CQ depth {depth}', INVAL, 'CREATE_CQ',
                 create_cq(cq_ring, 1 << 40, depth))
    s.expect(f'CREATE_CQ ring address not {CTL}-byte aligned', INVAL, 'CREATE_CQ',
             create_cq(cq_ring + 64, PAGE, 4))
    s.expect('CREATE_CQ ring 1 byte too small for depth 4', INVAL, 'CREATE_CQ',
             create_cq(cq_ring, CTL + 4 * CQE.size - 1, 4))
    s.expect(f'CREATE_CQ eventq {s.nqp} (num_queue_pairs)', INVAL, 'CREATE_CQ',
             create_cq(cq_ring, PAGE, 4, s.nqp))
    s.expect('CREATE_CQ unmapped ring', FAULT, 'CREATE_CQ', create_cq(UNMAPPED, PAGE, 4))
    for handle in (0, 0xffffff, 0xffffffff):
        s.expect(f'DESTROY_CQ handle {handle:#x}', NOENT, 'DESTROY_CQ', h(handle))
    s.cq = s.expect('CREATE_CQ depth 16 in page 4', OK, 'CREATE_CQ',
                    create_cq(cq_ring, PAGE, 16))['cq_handle']
    # A depth-1 CQ in page 7 followed by a sentinel, for the overflow check.
    s.cq1_size = CTL + CQE.size
    mem.put(7, 0, b'\0' * s.cq1_size + b'\xa5' * (PAGE - s.cq1_size))
    s.cq1 = s.expect('CREATE_CQ depth 1 in page 7', OK, 'CREATE_CQ',
                     create_cq(mem.pa[7], s.cq1_size, 1))['cq_handle']


# --- CREATE_QP ---------------------------------------------------------------------
def create_qp(pd, qpt, scq, rcq, sq_addr, rq_addr, sq_depth=4, rq_depth=4,
              sq_shift=1, rq_shift=1, send_sge=1, recv_sge=1, inline=0,
              sq_size=PAGE, rq_size=PAGE, srq=0, xrcd=0):
    return ABI.s('create_qp_req').pack(srq_handle=srq, xrcd_handle=xrcd,
        pd_handle=pd, qp_type=qpt, sq_wqe_shift=sq_shift, rq_wqe_shift=rq_shift,
        send_cq=scq, recv_cq=rcq, sq_depth=sq_depth, rq_depth=rq_depth,
        max_send_sge=send_sge, max_recv_sge=recv_sge, max_inline_data=inline,
        sq_ring_addr=sq_addr, sq_ring_size=sq_size, rq_ring_addr=rq_addr,
        rq_ring_size=rq_size)


def cqp(s, what, want, **kw):
    """CREATE_QP of an RC QP with SQ in page 5 and RQ in page 6, changed by KW."""
    args = dict(pd=s.pd, qpt=QPT['RC'], scq=s.cq, rcq=s.cq, sq_addr=s.mem.pa[5],
                rq_addr=s.mem.pa[6])
    args.update(kw)
    return s.expect(f'CREATE_QP {what}', want, 'CREATE_QP',
                    create_qp(**args)).get('qp_handle')


def check_create_qp(s):
    print('--- CREATE_QP')
    sq, rq, lim = s.mem.pa[5], s.mem.pa[6], s.lim
    max_sq_shift, max_rq_shift = lim['max_sq_wqe_shift'], lim['max_rq_wqe_shift']
    for qpt in (QPT_SMI, 5, 255):
        cqp(s, f'type {qpt}', OPNOTSUPP, qpt=qpt)
    cqp(s, 'second GSI QP (the driver owns QP1)', BUSY, qpt=QPT['GSI'])
    cqp(s, 'unknown PD', NOENT, pd=0xfffff0)
    cqp(s, 'unknown send CQ', NOENT, scq=0xfffff0)
    cqp(s, 'unknown recv CQ', NOENT, rcq=0xfffff0)
    for d in (0, 3, lim['max_qp_wr'] * 2):
        cqp(s, f'sq_depth {d}', INVAL, sq_depth=d)
    cqp(s, 'rq_depth 3', INVAL, rq_depth=3)
    cqp(s, f'rq_depth {lim["max_qp_wr"] * 2}', INVAL, rq_depth=lim['max_qp_wr'] * 2)
    cqp(s, f'sq_wqe_shift {max_sq_shift + 1}', INVAL, sq_shift=max_sq_shift + 1)
    cqp(s, f'rq_wqe_shift {max_rq_shift + 1}', INVAL, rq_shift=max_rq_shift + 1)
    # Limits exceeded in the largest strides, so that only the limit is wrong.
    cqp(s, f'max_send_sge {lim["max_send_sge"] + 1}', INVAL,
        send_sge=lim['max_send_sge'] + 1, sq_shift=max_sq_shift)
    cqp(s, f'max_recv_sge {lim["max_recv_sge"] + 1}', INVAL,
        recv_sge=lim['max_recv_sge'] + 1, rq_shift=max_rq_shift)
    cqp(s, f'max_inline_data {lim["max_inline_data"] + 1}', INVAL,
        inline=lim['max_inline_data'] + 1, sq_shift=max_sq_shift)
    # One SGE or inline byte more than the WQE stride holds after its header.
    sq_room, rq_room = sq_stride(1) - SQ_WQE.size, rq_stride(1) - RQ_WQE.size
    cqp(s, f'{sq_room // SGE.size + 1} SGEs in a {sq_stride(1)}-byte SQ stride', INVAL,
        send_sge=sq_room // SGE.size + 1, sq_shift=1)
    cqp(s, f'{sq_room + 1} inline bytes in a {sq_stride(1)}-byte SQ stride', INVAL,
        inline=sq_room + 1, sq_shift=1)
    cqp(s, f'{rq_room // SGE.size + 1} SGEs in a {rq_stride(1)}-byte RQ stride', INVAL,
        recv_sge=rq_room // SGE.size + 1, rq_shift=1)
    cqp(s, f'SQ ring not {CTL}-byte aligned', INVAL, sq_addr=sq + 64)
    cqp(s, f'RQ ring not {CTL}-byte aligned', INVAL, rq_addr=rq + 8)
    cqp(s, 'SQ ring 1 byte too small', INVAL, sq_size=CTL + 4 * sq_stride(1) - 1)
    cqp(s, 'RQ ring 1 byte too small', INVAL, rq_size=CTL + 4 * rq_stride(1) - 1)
    cqp(s, 'SQ ring unmapped', FAULT, sq_addr=UNMAPPED)
    cqp(s, 'RQ ring unmapped', FAULT, rq_addr=UNMAPPED)
    s.norq = cqp(s, 'no RQ ignores bad rq_* fields', OK, rq_depth=0, rq_shift=99,
                 recv_sge=99, rq_addr=1, rq_size=0)
    s.expect('QUERY_QP handle 0', NOENT, 'QUERY_QP', s.req('query_qp_req', qp_handle=0))
    s.qp = qp = cqp(s, 'RC, depth 4/4, in pages 5/6', OK)
    s.check('QPN of a non-GSI QP is >= 2 and < 2^24', True, 2 <= qp < (1 << 24))
    s.check('SQ notify after CREATE_QP', 0, s.mem.ctl(5, 'notify'))
    s.check('RQ notify after CREATE_QP', 0x80000000, s.mem.ctl(6, 'notify'))
    s.expect('DESTROY_PD with a QP', BUSY, 'DESTROY_PD', h(s.pd))
    s.expect('DESTROY_CQ with a QP', BUSY, 'DESTROY_CQ', h(s.cq))


# --- MODIFY_QP, QUERY_QP -------------------------------------------------------------
def av(gid_idx, sgid_index=None, network_type=None, dgid=None, flow_label=0):
    """The primary path to ::ffff:10.0.0.2 from our GID slot."""
    return dict(dgid=dgid or bytes(10) + b'\xff\xff' + bytes([10, 0, 0, 2]),
                dmac=b'\x02\0\0\0\0\2',
                sgid_index=gid_idx if sgid_index is None else sgid_index,
                hop_limit=64,
                network_type=ABI.c('NETWORK_IPV4') if network_type is None else network_type,
                flow_label=flow_label)


def modify_qp(s, qpn, mask, state=0, cur_state=0, path_mtu=ABI.c('MTU_1024'),
              timeout=14, retry_cnt=7, rnr_retry=7, min_rnr_timer=12, max_rd_atomic=1,
              max_dest_rd_atomic=1, port=1, pkey_index=0, qkey=0, rq_psn=0,
              sq_psn=0, dest_qpn=3, access=LOCAL_WRITE, addr=None):
    attr = dict(qp_state=state, cur_qp_state=cur_state, path_mtu=path_mtu,
                timeout=timeout, retry_cnt=retry_cnt, rnr_retry=rnr_retry,
                min_rnr_timer=min_rnr_timer, max_rd_atomic=max_rd_atomic,
                max_dest_rd_atomic=max_dest_rd_atomic, port_num=port,
                pkey_index=pkey_index, qkey=qkey, rq_psn=rq_psn, sq_psn=sq_psn,
                dest_qp_num=dest_qpn, qp_access_flags=access,
                av=addr if addr is not None else av(s.gid_idx))
    return ABI.s('modify_qp_req').pack(qp_handle=qpn, attr_mask=mask, attr=attr)


INIT_MASK = A['STATE'] | A['PKEY_INDEX'] | A['PORT'] | A['ACCESS_FLAGS']
RTR_MASK = (A['STATE'] | A['AV'] | A['PATH_MTU'] | A['DEST_QPN'] | A['RQ_PSN'] |
            A['MAX_DEST_RD_ATOMIC'] | A['MIN_RNR_TIMER'])
RTS_MASK = (A['STATE'] | A['TIMEOUT'] | A['RETRY_CNT'] | A['RNR_RETRY'] | A['SQ_PSN'] |
            A['MAX_QP_RD_ATOMIC'])


def mqp(s, what, want, mask, qp=None, **kw):
    return s.expect(f'MODIFY_QP {what}', want, 'MODIFY_QP',
                    modify_qp(s, s.qp if qp is None else qp, mask, **kw))


def query_qp(s, what, qp):
    return s.expect(what, OK, 'QUERY_QP', s.req('query_qp_req', qp_handle=qp))['attr']


def check_modify_qp(s):
    print('--- MODIFY_QP')
    mem = s.mem
    s.expect('MODIFY_QP unknown QP', NOENT, 'MODIFY_QP',
             modify_qp(s, 0xfffff0, INIT_MASK, INIT))
    s.expect('QUERY_QP unknown QP', NOENT, 'QUERY_QP', s.req('query_qp_req', qp_handle=0xfffff0))
    s.expect('DESTROY_QP unknown QP', NOENT, 'DESTROY_QP', h(0xfffff0))
    mqp(s, 'alternate path bit', OPNOTSUPP, INIT_MASK | A_ALT_PATH, state=INIT)
    mqp(s, 'mask bit 21', OPNOTSUPP, INIT_MASK | (1 << 21), state=INIT)
    mqp(s, 'mask bit 31', OPNOTSUPP, INIT_MASK | (1 << 31), state=INIT)
    mqp(s, f'state {max(QPS.values()) + 1}', INVAL, INIT_MASK, state=max(QPS.values()) + 1)
    mqp(s, 'RESET->RTR', INVAL, RTR_MASK, state=RTR)
    mqp(s, 'RESET->ERR', INVAL, A['STATE'], state=ERR)
    mqp(s, 'RESET->INIT without PORT', INVAL, INIT_MASK & ~A['PORT'], state=INIT)
    mqp(s, 'RESET->INIT with QKEY on RC', INVAL, INIT_MASK | A['QKEY'], state=INIT)
    mqp(s, 'RESET->INIT with CUR_STATE', INVAL, INIT_MASK | A['CUR_STATE'], state=INIT)
    mqp(s, 'pkey_index 1', INVAL, INIT_MASK, state=INIT, pkey_index=1)
    mqp(s, 'port 2', INVAL, INIT_MASK, state=INIT, port=2)
    mqp(s, 'unknown access bit', INVAL, INIT_MASK, state=INIT, access=0x40)
    if s.lim['atomic_cap'] == ABI.c('ATOMIC_NONE'):
        mqp(s, 'REMOTE_ATOMIC without the feature', ACCES, INIT_MASK, state=INIT,
            access=ACC['REMOTE_ATOMIC'] | LOCAL_WRITE)
    attr = query_qp(s, 'QUERY_QP after refused modifies', s.qp)
    s.check('QP still in RESET', RESET, attr['qp_state'])

    # Receive and send WQEs posted before the QP leaves RESET.
    for i in range(3):
        mem.entry(6, rq_stride(1), i, RQ_WQE, wr_id=0x100 + i)
    mem.set_ctl(6, 'prod', 3)
    mem.entry(5, sq_stride(1), 0, SQ_WQE, wr_id=0x200, opcode=ABI.c('WR_SEND'))
    mem.entry(5, sq_stride(1), 1, SQ_WQE, wr_id=0x201, opcode=ABI.c('WR_RDMA_READ'))
    mem.set_ctl(5, 'prod', 2)

    mqp(s, 'RESET->INIT', OK, INIT_MASK, state=INIT)
    mqp(s, 'INIT->RTR without MIN_RNR_TIMER', INVAL, RTR_MASK & ~A['MIN_RNR_TIMER'], state=RTR)
    mqp(s, 'INIT->RTS', INVAL, A['STATE'] | A['SQ_PSN'], state=RTS)
    mqp(s, 'CUR_STATE not the current state', INVAL, RTR_MASK | A['CUR_STATE'], state=RTR,
        cur_state=RTS)
    mtus = ABI.group('MTU_').values()
    for mtu in (min(mtus) - 1, max(mtus) + 1, 255):
        mqp(s, f'path_mtu {mtu}', INVAL, RTR_MASK, state=RTR, path_mtu=mtu)
    mqp(s, 'dest_qpn 2^24', INVAL, RTR_MASK, state=RTR, dest_qpn=1 << 24)
    mqp(s, 'rq_psn 2^24', INVAL, RTR_MASK, state=RTR, rq_psn=1 << 24)
    n = s.lim['max_qp_rd_atom'] + 1
    mqp(s, f'max_dest_rd_atomic {n}', INVAL, RTR_MASK, state=RTR, max_dest_rd_atomic=n)
    mqp(s, 'min_rnr_timer 32', INVAL, RTR_MASK, state=RTR, min_rnr_timer=32)
    n = s.lim['gid_tbl_len']
    mqp(s, f'AV sgid_index {n}', INVAL, RTR_MASK, state=RTR, addr=av(s.gid_idx, sgid_index=n))
    mqp(s, 'AV network_type 1', INVAL, RTR_MASK, state=RTR, addr=av(s.gid_idx, network_type=1))
    mqp(s, 'AV IPv6 type with an IPv4 GID', INVAL, RTR_MASK, state=RTR,
        addr=av(s.gid_idx, network_type=ABI.c('NETWORK_IPV6')))
    mqp(s, 'AV flow_label 2^20', INVAL, RTR_MASK, state=RTR,
        addr=av(s.gid_idx, flow_label=1 << 20))
    mqp(s, 'INIT->RTR', OK, RTR_MASK, state=RTR)
    mqp(s, 'RTR->RTS timeout 32', INVAL, RTS_MASK, state=RTS, timeout=32)
    mqp(s, 'RTR->RTS retry_cnt 8', INVAL, RTS_MASK, state=RTS, retry_cnt=8)
    mqp(s, 'RTR->RTS rnr_retry 8', INVAL, RTS_MASK, state=RTS, rnr_retry=8)
    mqp(s, 'RTR->RTS sq_psn 2^24', INVAL, RTS_MASK, state=RTS, sq_psn=1 << 24)
    n = s.lim['max_qp_init_rd_atom'] + 1
    mqp(s, f'RTR->RTS max_rd_atomic {n}', INVAL, RTS_MASK, state=RTS, max_rd_atomic=n)
    mqp(s, 'RTR->RTS without RETRY_CNT', INVAL, RTS_MASK & ~A['RETRY_CNT'], state=RTS)
    mqp(s, 'RTR->SQD', INVAL, A['STATE'], state=SQD)
    mqp(s, 'RTR->RTS', OK, RTS_MASK, state=RTS, sq_psn=0x123456)
    attr = query_qp(s, 'QUERY_QP in RTS', s.qp)
    s.check('QUERY_QP state', RTS, attr['qp_state'])
    s.check('QUERY_QP sq_psn', 0x123456, attr['sq_psn'])
    s.check('QUERY_QP dest_qp_num', 3, attr['dest_qp_num'])


# --- MODIFY_QP to ERR flushes ----------------------------------------------------------
def check_flush_on_err(s):
    print('--- MODIFY_QP to ERR flushes')
    mem, qp = s.mem, s.qp
    mqp(s, 'RTS->ERR with CUR_STATE', INVAL, A['STATE'] | A['CUR_STATE'], state=ERR,
        cur_state=RTS)
    mqp(s, 'RTS->ERR', OK, A['STATE'], state=ERR)
    s.check('CQ prod after flushing 2 send + 3 receive WQEs', 5, mem.ctl(4, 'prod'))
    got = [(c['wr_id'], c['status'], c['opcode'], c['qp_handle'])
           for c in (mem.cqe(4, i) for i in range(5))]
    flush = ABI.c('WC_WR_FLUSH_ERR')
    want = [(0x200, flush, ABI.c('WC_OP_SEND'), qp),
            (0x201, flush, ABI.c('WC_OP_RDMA_READ'), qp)]
    want += [(0x100 + i, flush, ABI.c('WC_OP_RECV'), qp) for i in range(3)]
    s.check('flush CQEs (wr_id, status, opcode, qp) in ring order', want, got)
    s.check('SQ cons after flush', 2, mem.ctl(5, 'cons'))
    s.check('RQ cons after flush', 3, mem.ctl(6, 'cons'))
    s.check('SQ flags ERROR', ABI.c('RING_F_ERROR'), mem.ctl(5, 'flags'))
    s.check('RQ notify: next post rings (= prod)', 3, mem.ctl(6, 'notify'))
    mqp(s, 'ERR->RTS', INVAL, A['STATE'], state=RTS)
    mqp(s, 'ERR->RESET', OK, A['STATE'], state=RESET)
    s.check('SQ flags cleared in RESET', 0, mem.ctl(5, 'flags'))


# --- CQ overflow ------------------------------------------------------------------------
def check_cq_overflow(s):
    print('--- CQ overflow')
    mem = s.mem
    s.expect('DESTROY_QP', OK, 'DESTROY_QP', h(s.qp))
    for pg in (5, 6):
        mem.put(pg, 0, bytes(PAGE))
    qp = cqp(s, 'RC on the depth-1 CQ', OK, scq=s.cq1, rcq=s.cq1)
    for i in range(3):
        mem.entry(6, rq_stride(1), i, RQ_WQE, wr_id=0x300 + i)
    mem.set_ctl(6, 'prod', 3)
    mqp(s, 'RESET->INIT (overflow QP)', OK, INIT_MASK, qp=qp, state=INIT)
    s.expect('DESTROY_QP flushes into a 1-entry CQ', OK, 'DESTROY_QP', h(qp))
    s.check('depth-1 CQ prod stops at 1', 1, mem.ctl(7, 'prod'))
    s.check('depth-1 CQ flags OVERFLOW|ERROR',
            ABI.c('RING_F_OVERFLOW') | ABI.c('RING_F_ERROR'), mem.ctl(7, 'flags'))
    s.check('first flush CQE written', 0x300, mem.cqe(7, 0)['wr_id'])
    tail = bytes(mem.m[7 * PAGE + s.cq1_size:8 * PAGE])
    s.check(f'bytes written past the {s.cq1_size}-byte ring', 0,
            sum(b != 0xa5 for b in tail))


# --- UD QP: controlled QKEY ----------------------------------------------------------------
def check_ud_qkey(s):
    print('--- UD QP')
    for pg in (5, 6):
        s.mem.put(pg, 0, bytes(PAGE))
    ud = cqp(s, 'UD', OK, qpt=QPT['UD'])
    ud_init = A['STATE'] | A['PKEY_INDEX'] | A['PORT'] | A['QKEY']
    mqp(s, 'UD controlled QKEY', PERM, ud_init, qp=ud, state=INIT, qkey=0x80000000)
    mqp(s, 'UD RESET->INIT with ACCESS_FLAGS', INVAL, ud_init | A['ACCESS_FLAGS'], qp=ud,
        state=INIT, qkey=0x1234)
    mqp(s, 'UD RESET->INIT', OK, ud_init, qp=ud, state=INIT, qkey=0x1234)
    s.expect('DESTROY_QP UD', OK, 'DESTROY_QP', h(ud))


# --- RESIZE_CQ (VIRTIO_RDMA_F_RESIZE) ------------------------------------------------------
def resize_cq(cq, ring, depth, size=PAGE):
    return ABI.s('resize_cq_req').pack(cq_handle=cq, depth=depth, ring_addr=ring,
                                       ring_size=size)


def flush_into(s, cq, wr_ids):
    """A QP on CQ whose RQ holds WR_IDS, destroyed in INIT: one FLUSH_ERR CQE
    each, in order."""
    for pg in (5, 6):
        s.mem.put(pg, 0, bytes(PAGE))
    qp = cqp(s, f'RC on CQ {cq}', OK, scq=cq, rcq=cq)
    for i, wr_id in enumerate(wr_ids):
        s.mem.entry(6, rq_stride(1), i, RQ_WQE, wr_id=wr_id)
    s.mem.set_ctl(6, 'prod', len(wr_ids))
    mqp(s, 'RESET->INIT (resize QP)', OK, INIT_MASK, qp=qp, state=INIT)
    s.expect(f'DESTROY_QP flushes {len(wr_ids)} WQEs', OK, 'DESTROY_QP', h(qp))


def check_cq_resize(s):
    print('--- RESIZE_CQ')
    mem, lim = s.mem, s.lim
    old, new = mem.pa[10], mem.pa[11]
    for pg in (10, 11):
        mem.put(pg, 0, b'\xa5' * PAGE)
        mem.put(pg, 0, bytes(CTL))
    cq = s.expect('CREATE_CQ depth 4 in page 10', OK, 'CREATE_CQ',
                  create_cq(old, PAGE, 4)).get('cq_handle')
    flush_into(s, cq, [0x500, 0x501, 0x502])
    s.check('old ring prod after 3 flush CQEs', 3, mem.ctl(10, 'prod'))
    mem.set_ctl(10, 'cons', 1)          # the consumer took 0x500

    # Refusals leave the CQ on its ring and never touch the new one.
    s.expect('RESIZE_CQ unknown CQ', NOENT, 'RESIZE_CQ', resize_cq(0xfffff0, new, 4))
    for depth in (0, 3, lim['max_cqe'] * 2, 0xffffffff):
        s.expect(f'RESIZE_CQ depth {depth}', INVAL, 'RESIZE_CQ',
                 resize_cq(cq, new, depth, 1 << 40))
    s.expect(f'RESIZE_CQ ring not {CTL}-byte aligned', INVAL, 'RESIZE_CQ',
             resize_cq(cq, new + 64, 4))
    s.expect('RESIZE_CQ ring 1 byte too small', INVAL, 'RESIZE_CQ',
             resize_cq(cq, new, 4, CTL + 4 * CQE.size - 1))
    s.expect('RESIZE_CQ unmapped ring', FAULT, 'RESIZE_CQ', resize_cq(cq, UNMAPPED, 4))
    s.expect('RESIZE_CQ depth 1 below 2 unconsumed CQEs', INVAL, 'RESIZE_CQ',
             resize_cq(cq, new, 1))
    mem.set_ctl(10, 'cons', 0xfffffff0)
    s.expect('RESIZE_CQ with an impossible cons', INVAL, 'RESIZE_CQ', resize_cq(cq, new, 4))
    mem.set_ctl(10, 'cons', 1)
    s.expect('RESIZE_CQ of an overflowed CQ', INVAL, 'RESIZE_CQ', resize_cq(s.cq1, new, 4))
    s.check('refused resizes: new ring untouched (ring_ctl, entries)', (True, True),
            (bytes(mem.m[11 * PAGE:11 * PAGE + CTL]) == bytes(CTL),
             bytes(mem.m[11 * PAGE + CTL:12 * PAGE]) == b'\xa5' * (PAGE - CTL)))
    s.check('refused resizes: old ring prod and cons', (3, 1),
            (mem.ctl(10, 'prod'), mem.ctl(10, 'cons')))

    # Shrink to exactly the unconsumed CQEs: they keep their indices.
    mem.set_ctl(11, 'cons', 1)
    mem.set_ctl(11, 'notify', 0x80000005)
    s.expect('RESIZE_CQ to depth 2 in page 11 with 2 unconsumed', OK, 'RESIZE_CQ',
             resize_cq(cq, new, 2))
    s.check('new ring prod, cons, flags', (3, 1, 0),
            (mem.ctl(11, 'prod'), mem.ctl(11, 'cons'), mem.ctl(11, 'flags')))
    s.check('CQEs 1 and 2 at slots 1 and 0 of the new ring', (0x501, 0x502),
            (mem.cqe(11, 1)['wr_id'], mem.cqe(11, 0)['wr_id']))
    s.check('an arm the device never answered stays armed', 0x80000005,
            mem.ctl(11, 'notify'))

    # New CQEs go to the new ring only; the arm there is answered.
    mem.set_ctl(11, 'cons', 3)
    mem.set_ctl(11, 'notify', 0x80000007)
    flush_into(s, cq, [0x503, 0x504])
    s.check('new ring prod after 2 more', 5, mem.ctl(11, 'prod'))
    s.check('old ring prod unchanged', 3, mem.ctl(10, 'prod'))
    s.check('CQEs 3 and 4 at slots 1 and 0', (0x503, 0x504),
            (mem.cqe(11, 1)['wr_id'], mem.cqe(11, 0)['wr_id']))
    s.check('the device answered arm 7', 7, mem.ctl(11, 'notify'))

    # Grow back into page 10, with arm 7 copied there after the device had
    # answered it: one arm, one event, so the device disarms the copy.
    mem.put(10, 0, bytes(CTL))
    mem.set_ctl(10, 'cons', 3)
    mem.set_ctl(10, 'notify', 0x80000007)
    s.expect('RESIZE_CQ to depth 16 in page 10', OK, 'RESIZE_CQ', resize_cq(cq, old, 16))
    s.check('grown ring prod', 5, mem.ctl(10, 'prod'))
    s.check('CQEs 3 and 4 at slots 3 and 4', (0x503, 0x504),
            (mem.cqe(10, 3)['wr_id'], mem.cqe(10, 4)['wr_id']))
    s.check('an arm answered in the old ring is disarmed in the new', 7,
            mem.ctl(10, 'notify'))
    mem.set_ctl(10, 'cons', 5)
    mem.put(11, 0, bytes(CTL))
    mem.set_ctl(11, 'cons', 5)
    mem.set_ctl(11, 'notify', 0x80000008)
    s.expect('RESIZE_CQ to depth 4 in page 11', OK, 'RESIZE_CQ', resize_cq(cq, new, 4))
    s.check('a newer arm is kept', 0x80000008, mem.ctl(11, 'notify'))
    s.check('empty CQ: prod 5 in the new ring', 5, mem.ctl(11, 'prod'))
    s.expect('DESTROY_CQ (resized)', OK, 'DESTROY_CQ', h(cq))


# --- shared receive queues (VIRTIO_RDMA_F_SRQ) ---------------------------------------------
def create_srq(pd, addr, depth=4, shift=1, sge=1, limit=0, size=PAGE, srq_type=0, xrcd=0,
               cq=0, **tm):
    return ABI.s('create_srq_req').pack(pd_handle=pd, depth=depth, max_sge=sge,
                                        srq_limit=limit, wqe_shift=shift,
                                        ring_addr=addr, ring_size=size, srq_type=srq_type,
                                        xrcd_handle=xrcd, cq_handle=cq, **tm)


def check_srq(s):
    print('--- SRQ')
    lim, ring = s.lim, s.mem.pa[8]
    if not lim['max_srq']:
        print('skip: the device reports no SRQs')
        return
    max_shift = lim['max_rq_wqe_shift']
    s.expect('CREATE_SRQ unknown PD', NOENT, 'CREATE_SRQ', create_srq(0xfffff0, ring))
    for d in (0, 3, lim['max_srq_wr'] * 2):
        s.expect(f'CREATE_SRQ depth {d}', INVAL, 'CREATE_SRQ', create_srq(s.pd, ring, depth=d))
    s.expect(f'CREATE_SRQ wqe_shift {max_shift + 1}', INVAL, 'CREATE_SRQ',
             create_srq(s.pd, ring, shift=max_shift + 1))
    s.expect('CREATE_SRQ max_sge 0', INVAL, 'CREATE_SRQ', create_srq(s.pd, ring, sge=0))
    s.expect(f'CREATE_SRQ max_sge {lim["max_srq_sge"] + 1}', INVAL, 'CREATE_SRQ',
             create_srq(s.pd, ring, sge=lim['max_srq_sge'] + 1, shift=max_shift))
    room = rq_stride(1) - RQ_WQE.size
    s.expect(f'CREATE_SRQ {room // SGE.size + 1} SGEs in a {rq_stride(1)}-byte stride',
             INVAL, 'CREATE_SRQ', create_srq(s.pd, ring, sge=room // SGE.size + 1))
    s.expect('CREATE_SRQ srq_limit above depth', INVAL, 'CREATE_SRQ',
             create_srq(s.pd, ring, limit=5))
    s.expect(f'CREATE_SRQ ring not {CTL}-byte aligned', INVAL, 'CREATE_SRQ',
             create_srq(s.pd, ring + 8))
    s.expect('CREATE_SRQ ring 1 byte too small', INVAL, 'CREATE_SRQ',
             create_srq(s.pd, ring, size=CTL + 4 * rq_stride(1) - 1))
    s.expect('CREATE_SRQ ring unmapped', FAULT, 'CREATE_SRQ', create_srq(s.pd, UNMAPPED))
    srq = s.expect('CREATE_SRQ depth 4 in page 8', OK, 'CREATE_SRQ',
                   create_srq(s.pd, ring)).get('srq_handle')
    s.check('SRQ notify after CREATE_SRQ (no doorbells)', 0x80000000, s.mem.ctl(8, 'notify'))
    mask = ABI.group('SRQ_')
    msrq = ABI.s('modify_srq_req')
    s.expect('MODIFY_SRQ max_wr (no resize)', OPNOTSUPP, 'MODIFY_SRQ',
             msrq.pack(srq_handle=srq, attr_mask=mask['MAX_WR'], srq_limit=0))
    s.expect('MODIFY_SRQ unknown handle', NOENT, 'MODIFY_SRQ',
             msrq.pack(srq_handle=0xfffff0, attr_mask=mask['LIMIT'], srq_limit=1))
    s.expect('MODIFY_SRQ limit above depth', INVAL, 'MODIFY_SRQ',
             msrq.pack(srq_handle=srq, attr_mask=mask['LIMIT'], srq_limit=5))
    s.expect('MODIFY_SRQ limit 2', OK, 'MODIFY_SRQ',
             msrq.pack(srq_handle=srq, attr_mask=mask['LIMIT'], srq_limit=2))
    q = s.expect('QUERY_SRQ', OK, 'QUERY_SRQ', h(srq))
    s.check('QUERY_SRQ max_wr, max_sge, limit', (4, 1, 2),
            (q.get('max_wr'), q.get('max_sge'), q.get('srq_limit')))
    sq = s.mem.pa[9]
    cqp(s, 'with an SRQ and an RQ', INVAL, srq=srq, sq_addr=sq)
    cqp(s, 'with an unknown SRQ', NOENT, srq=0xfffff0, rq_depth=0, sq_addr=sq)
    cqp(s, 'GSI with an SRQ', INVAL, qpt=QPT['GSI'], srq=srq, rq_depth=0, sq_addr=sq)
    qp = cqp(s, 'RC with the SRQ', OK, srq=srq, rq_depth=0, sq_addr=sq)
    s.expect('DESTROY_SRQ with a QP', BUSY, 'DESTROY_SRQ', h(srq))
    s.expect('DESTROY_QP of the SRQ\'s QP', OK, 'DESTROY_QP', h(qp))
    s.expect('DESTROY_SRQ', OK, 'DESTROY_SRQ', h(srq))
    s.expect('DESTROY_SRQ again', NOENT, 'DESTROY_SRQ', h(srq))
    s.expect('QUERY_SRQ of a destroyed SRQ', NOENT, 'QUERY_SRQ', h(srq))


# --- XRC (VIRTIO_RDMA_F_XRC) -------------------------------------------------------------
def check_xrc(s):
    """Domains, XRC SRQs and the two XRC QP types: what each must and must
    not name, and what keeps a domain or a CQ in use."""
    print('--- XRC')
    mem, srqt = s.mem, ABI.group('SRQT_')
    x = s.expect('CREATE_XRCD', OK, 'CREATE_XRCD').get('xrcd_handle')
    x2 = s.expect('CREATE_XRCD (a second)', OK, 'CREATE_XRCD').get('xrcd_handle')
    s.check('two domains, two handles', True, bool(x and x2 and x != x2))
    s.expect('DESTROY_XRCD unknown', NOENT, 'DESTROY_XRCD', h(0xfffff0))
    # A CQ of its own for the SRQ, in page 10 (free again after check_cq_resize).
    cq = s.expect('CREATE_CQ for the XRC SRQ', OK, 'CREATE_CQ',
                  create_cq(mem.pa[10], PAGE, 16))['cq_handle']
    ring, xsrq = mem.pa[8], srqt['XRC']
    s.expect('CREATE_SRQ XRC unknown domain', NOENT, 'CREATE_SRQ',
             create_srq(s.pd, ring, srq_type=xsrq, xrcd=0xfffff0, cq=cq))
    s.expect('CREATE_SRQ XRC unknown CQ', NOENT, 'CREATE_SRQ',
             create_srq(s.pd, ring, srq_type=xsrq, xrcd=x, cq=0xfffff0))
    s.expect('CREATE_SRQ type 3', OPNOTSUPP, 'CREATE_SRQ',
             create_srq(s.pd, ring, srq_type=3, xrcd=x, cq=cq))
    s.expect('CREATE_SRQ basic naming a domain', INVAL, 'CREATE_SRQ',
             create_srq(s.pd, ring, xrcd=x))
    s.expect('CREATE_SRQ basic naming a CQ', INVAL, 'CREATE_SRQ', create_srq(s.pd, ring, cq=cq))
    srq = s.expect('CREATE_SRQ XRC', OK, 'CREATE_SRQ',
                   create_srq(s.pd, ring, srq_type=xsrq, xrcd=x, cq=cq)).get('srq_handle')
    s.check('an XRC SRQ number is below 2^24', True, 0 < (srq or 0) < (1 << 24))
    s.expect('DESTROY_CQ of an XRC SRQ', BUSY, 'DESTROY_CQ', h(cq))
    s.expect('DESTROY_XRCD with an SRQ', BUSY, 'DESTROY_XRCD', h(x))
    # XRC_TGT: the domain and nothing else; XRC_INI: PD, send CQ and SQ only.
    none = dict(pd=0, scq=0, rcq=0, sq_addr=0, rq_addr=0, sq_depth=0, rq_depth=0,
                sq_shift=0, rq_shift=0, send_sge=0, recv_sge=0, sq_size=0, rq_size=0,
                qpt=QPT['XRC_TGT'])
    cqp(s, 'XRC_TGT unknown domain', NOENT, **dict(none, xrcd=0xfffff0))
    cqp(s, 'XRC_TGT without a domain', NOENT, **none)
    cqp(s, 'XRC_TGT with a PD', INVAL, **dict(none, xrcd=x, pd=s.pd))
    cqp(s, 'XRC_TGT with a send queue', INVAL,
        **dict(none, xrcd=x, sq_depth=4, sq_shift=1, send_sge=1, sq_addr=mem.pa[9],
               sq_size=PAGE))
    cqp(s, 'XRC_TGT with an SRQ', INVAL, **dict(none, xrcd=x, srq=srq))
    tgt = cqp(s, 'XRC_TGT', OK, **dict(none, xrcd=x))
    ini = dict(qpt=QPT['XRC_INI'], rcq=0, rq_depth=0, rq_shift=0, recv_sge=0, rq_addr=0,
               rq_size=0, sq_addr=mem.pa[9])
    cqp(s, 'XRC_INI with a receive queue', INVAL, **dict(ini, rq_depth=4, rq_shift=1,
                                                         recv_sge=1, rq_addr=mem.pa[6],
                                                         rq_size=PAGE))
    cqp(s, 'XRC_INI with a receive CQ', INVAL, **dict(ini, rcq=s.cq))
    cqp(s, 'XRC_INI with an SRQ', INVAL, **dict(ini, srq=srq))
    cqp(s, 'XRC_INI naming a domain', INVAL, **dict(ini, xrcd=x))
    xi = cqp(s, 'XRC_INI', OK, **ini)
    q = s.expect('QUERY_QP of the XRC_TGT', OK, 'QUERY_QP',
                 s.req('query_qp_req', qp_handle=tgt or 0, attr_mask=1))
    s.check('a new XRC_TGT is in RESET', ABI.c('QPS_RESET'), q.get('attr', {}).get('qp_state'))
    s.expect('DESTROY_SRQ of an XRC SRQ', OK, 'DESTROY_SRQ', h(srq))
    s.expect('DESTROY_XRCD with an XRC_TGT', BUSY, 'DESTROY_XRCD', h(x))
    s.expect('DESTROY_QP XRC_INI', OK, 'DESTROY_QP', h(xi))
    s.expect('DESTROY_QP XRC_TGT', OK, 'DESTROY_QP', h(tgt))
    s.expect('DESTROY_XRCD', OK, 'DESTROY_XRCD', h(x))
    s.expect('DESTROY_XRCD again', NOENT, 'DESTROY_XRCD', h(x))
    s.expect('DESTROY_XRCD (the second)', OK, 'DESTROY_XRCD', h(x2))
    s.expect('DESTROY_CQ of the XRC SRQ', OK, 'DESTROY_CQ', h(cq))


# --- tag matching (VIRTIO_RDMA_F_TM_SRQ) ----------------------------------------------------
def check_tm(s):
    """A TM-SRQ's own fields (tag list, ops area, CQ) and the QPs it accepts."""
    print('--- TM-SRQ')
    lim, mem, srqt = s.lim, s.mem, ABI.group('SRQT_')
    if not lim['max_tm_tags']:
        print('skip: the device reports no tag matching')
        return
    cq = s.expect('CREATE_CQ for the TM-SRQ', OK, 'CREATE_CQ',
                  create_cq(mem.pa[10], PAGE, 16))['cq_handle']
    ring, ops = mem.pa[8], mem.pa[11]
    good = dict(srq_type=srqt['TM'], cq=cq, max_num_tags=16, ops_depth=4, ops_shift=1,
                ops_addr=ops, ops_size=PAGE)

    def tm(what, want, **kw):
        return s.expect(f'CREATE_SRQ TM {what}', want, 'CREATE_SRQ',
                        create_srq(s.pd, ring, **dict(good, **kw))).get('srq_handle')

    tm('unknown CQ', NOENT, cq=0xfffff0)
    tm('without a CQ', NOENT, cq=0)
    for n in (0, lim['max_tm_tags'] + 1):
        tm(f'max_num_tags {n}', INVAL, max_num_tags=n)
    for d in (0, 3, lim['max_tm_ops'] * 2):
        tm(f'ops_depth {d}', INVAL, ops_depth=d)
    tm('ops_shift 4', INVAL, ops_shift=4)
    # 16 ops of 512 bytes and the release words do not fit one page.
    tm('ops area too small', INVAL, ops_depth=16, ops_shift=3)
    tm(f'ops area not {CTL}-byte aligned', INVAL, ops_addr=ops + 8)
    tm('ops area unmapped', FAULT, ops_addr=UNMAPPED)
    tm('naming a domain', INVAL, xrcd=1)
    s.expect('CREATE_SRQ basic with a tag list', INVAL, 'CREATE_SRQ',
             create_srq(s.pd, ring, max_num_tags=16))
    s.expect('CREATE_SRQ basic with an ops area', INVAL, 'CREATE_SRQ',
             create_srq(s.pd, ring, ops_depth=4, ops_shift=1, ops_addr=ops, ops_size=PAGE))
    srq = tm('16 tags, 4 ops', OK)
    s.expect('DESTROY_CQ of a TM-SRQ', BUSY, 'DESTROY_CQ', h(cq))
    # The SQ of a QP on a TM-SRQ is the device's (rendezvous READs and FINs).
    nosq = dict(srq=srq, rq_depth=0, sq_depth=0, sq_shift=0, send_sge=0, sq_addr=0,
                sq_size=0)
    cqp(s, 'RC on a TM-SRQ with a send queue', INVAL, srq=srq, rq_depth=0,
        sq_addr=mem.pa[9])
    cqp(s, 'UC on a TM-SRQ', INVAL, **dict(nosq, qpt=QPT['UC']))
    cqp(s, 'UD on a TM-SRQ', INVAL, **dict(nosq, qpt=QPT['UD']))
    qp = cqp(s, 'RC on a TM-SRQ', OK, **nosq)
    s.expect('DESTROY_SRQ TM with a QP', BUSY, 'DESTROY_SRQ', h(srq))
    s.expect('DESTROY_QP on the TM-SRQ', OK, 'DESTROY_QP', h(qp))
    s.expect('DESTROY_SRQ TM', OK, 'DESTROY_SRQ', h(srq))
    s.expect('DESTROY_CQ of the TM-SRQ', OK, 'DESTROY_CQ', h(cq))


# --- tables full ------------------------------------------------------------------------------
def check_nospc(s):
    print('--- NOSPC')
    pds, max_pd = [], s.lim['max_pd']
    while len(pds) <= max_pd:
        status, resp = s.dev.cmd(CMD['CREATE_PD'], b'', resp_size('CREATE_PD'))
        if status != OK:
            s.c.rejected += 1
            break
        pds.append(ABI.s('create_pd_resp').unpack(resp)['pd_handle'])
    s.check(f'CREATE_PD once the table is full (after {len(pds)} more)', 'NOSPC', st(status))
    s.check('PDs in use never exceed max_pd', True, len(pds) < max_pd)
    for p in pds:
        status, _ = s.dev.cmd(CMD['DESTROY_PD'], h(p))
        if status != OK:
            s.check(f'DESTROY_PD {p}', 'OK', st(status))
            break
    print(f'destroyed {len(pds)} PDs')


# --- cleanup (before the pages are freed) ---------------------------------------------------
def check_cleanup(s):
    print('--- cleanup')
    s.expect('DESTROY_QP (no RQ)', OK, 'DESTROY_QP', h(s.norq))
    s.expect('DESTROY_CQ', OK, 'DESTROY_CQ', h(s.cq))
    s.expect('DESTROY_CQ of the overflowed CQ', OK, 'DESTROY_CQ', h(s.cq1))
    s.expect('DEREG_MR', OK, 'DEREG_MR', h(s.mr))
    s.expect(f'DEL_GID {s.gid_idx}', OK, 'DEL_GID', h(s.gid_idx))
    s.expect(f'DEL_GID {s.gid_idx} again', NOENT, 'DEL_GID', h(s.gid_idx))
    s.expect('DESTROY_PD', OK, 'DESTROY_PD', h(s.pd))
    s.check('every object this script created is destroyed', [], s.alive)


SECTIONS = (check_chain_shape, check_port_and_gids, check_pd, check_mr, check_mw_mkey, check_cq,
            check_create_qp, check_modify_qp, check_flush_on_err, check_cq_overflow,
            check_ud_qkey, check_cq_resize, check_srq, check_xrc, check_tm, check_nospc,
            check_cleanup)


def check_layouts():
    """The header's own statements about the layouts this script relies on."""
    if RING_CTL.size != CTL:
        raise AbiError(f'struct virtio_rdma_ring_ctl is {RING_CTL.size} bytes, '
                       f'VIRTIO_RDMA_RING_CTL_SIZE {CTL}')
    for name in RESP.values():
        ABI.s(name)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    check_layouts()
    try:
        s = Session(sys.argv[1])
    except OSError as e:
        print(f'cannot run: {e}')
        return 77
    try:
        errors0 = stats(s)
        limits(s)
        for section in SECTIONS:
            section(s)
        errors1 = stats(s)
        s.check('CMD_ERRORS grew by the number of rejected commands', s.c.rejected,
                errors1 - errors0)
    finally:
        s.destroy_leftovers()
    if s.c.failures:
        print(f'{len(s.c.failures)} check(s) failed: ' + '; '.join(s.c.failures))
        return 1
    print('all checks passed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
