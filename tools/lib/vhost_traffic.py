#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
"""RC traffic between two VMs whose vdpa_rdma devices are bound to vhost_vdpa.

    vhost_traffic.py /dev/vhost-vdpa-A IPV4_A /dev/vhost-vdpa-B IPV4_B

Each device is a VM driven by tools/lib/vhost_rdma.py (the vhost-vdpa
ioctls, IOTLB-mapped guest memory, the controlq); this module adds what a
VM's driver does for traffic: a DMA MR, CQ, SQ and RQ rings in the VM's
memory, WQEs written into them, the doorbellq, and CQEs polled from the CQ
rings.  Every address the device sees is an IOVA of the VM that owns it.
IPV4_X is the address of device X's netdev; the two netdevs reach each
other (two ends of a veth pair).

    a. each VM: ADD_GID, CREATE_PD, GET_DMA_MR, two CQs, an RC QP taken
       RESET->INIT->RTR->RTS towards the other VM's QP
    b. B SENDs a message of several packets into a receive A posted and
       RDMA WRITEs into A's memory; then RDMA READs A's memory; completions
       and bytes checked
    c. B streams SENDs and A's vhost fd is closed under it (a VM killed):
       B's WQEs must complete with errors in bounded time, B's device stays
       usable, A's device serves a reopen
    d. B destroys its objects; both fds closed

Layouts, constants and command helpers come from ctrl_invalid.py (and from
it virtio_rdma_abi.py, i.e. include/uapi/linux/virtio_rdma.h), the device
and its guest memory from vhost_rdma.py.

Exit status: 0 all checks passed, 1 a check failed, 2 bad usage.
"""
import sys
import threading
import time

from ctrl_invalid import (ABI, ACC, CQE, CTL, ERR, INIT, INIT_MASK, QPT, RQ_WQE, RTR,
                          RTR_MASK, RTS, RTS_MASK, SGE, SQ_WQE, Checks, Pages, av,
                          create_cq, create_qp, h, modify_qp, rq_stride, sq_stride)
from vhost_rdma import (PAGE, REGIONS, STOP, DeviceTimeout, VhostRdma, expect, gid4, stopped,
                        verdict)

DOORBELL = ABI.s('doorbell')
DB_SQ, DB_RQ = ABI.c('DOORBELL_SQ'), ABI.c('DOORBELL_RQ')
# VIRTIO_RDMA_DOORBELLQ(0): a function-like macro, which the ABI parser does not
# evaluate (vhost_rdma.start() spells the queue pairs out the same way).
DOORBELLQ = 2
WR = ABI.group('WR_')
WC = {v: k for k, v in ABI.group('WC_').items() if not k.startswith(('OP_', 'F_'))}
WC_OP = ABI.group('WC_OP_')
SUCCESS, FLUSH, RETRY_EXC = (ABI.c('WC_' + n) for n in ('SUCCESS', 'WR_FLUSH_ERR',
                                                       'RETRY_EXC_ERR'))
SIGNALED = ABI.c('WQE_F_SIGNALED')
RING_ERROR = ABI.c('RING_F_ERROR')
NOTIFY_OFF = ABI.c('NOTIFY_OFF')
QP_FATAL = ABI.c('EVENT_QP_FATAL')
MTU = ABI.c('MTU_1024')         # veth's 1500 bytes: the largest RoCE MTU that fits
MTU_BYTES = 1024
DMA_ACCESS = ACC['LOCAL_WRITE'] | ACC['REMOTE_WRITE'] | ACC['REMOTE_READ']
GID_INDEX = 0                   # a VM's GID table starts empty (vhost-driver's check g)

SHIFT = 1                       # SQ stride 128 (4 SGEs), RQ stride 32 (1 SGE)
DEPTH = 128                     # every ring: part c's stream and some room
POLL_S = 0.005                  # between looks at a CQ ring


def wc(status):
    return WC.get(status, str(status))


def wc_op(op):
    return next((k for k, v in WC_OP.items() if v == op), str(op))


# The store of a ring's prod and the load of its notify need a full barrier
# between them (spec "Memory ordering"): x86 may satisfy the load before the
# store leaves the store buffer.  Python has no fence; acquiring an
# uncontended lock is a locked read-modify-write (glibc's sem_trywait /
# pthread mutex: lock cmpxchg), which is one on x86.
_FENCE = threading.Lock()


def full_barrier():
    with _FENCE:
        pass


def need_doorbell(notify, new, old):
    """virtio_rdma_need_doorbell() of the header: NOTIFY in [OLD, NEW)."""
    return (new - notify - 1) & 0xffffffff < (new - old) & 0xffffffff


class GuestPages:
    """A VM's guest memory seen as ctrl_invalid's Pages sees its own: page
    numbers and offsets, so that Pages' ring accessors (entry, ctl, set_ctl,
    cqe) work on rings in a VM's memory unchanged."""

    entry, ctl, set_ctl, cqe = Pages.entry, Pages.ctl, Pages.set_ctl, Pages.cqe

    def __init__(self, mem):
        self.mem, self.m = mem, mem.m

    def put(self, page, off, data):
        self.mem.put(page * PAGE + off, data)

    def u32(self, page, off):
        return self.mem.u32(page * PAGE + off)

    def iova(self, page, off=0):
        return self.mem.iova(page * PAGE + off)


class Ring:
    """An SQ, RQ or CQ ring at guest page PAGE: ring_ctl, then DEPTH
    entries of STRIDE bytes.  The driver's own copy of the index it
    produces or consumes is kept here, never read back from the ring."""

    def __init__(self, pages, page, depth, stride):
        self.pages, self.page, self.depth, self.stride = pages, page, depth, stride
        self.size = CTL + depth * stride
        self.index = 0              # prod of an SQ/RQ, cons of a CQ
        pages.put(page, 0, bytes(self.size))    # ring_ctl MUST be zero at creation

    @property
    def iova(self):
        return self.pages.iova(self.page)

    def ctl(self, field):
        return self.pages.ctl(self.page, field)


class Vm:
    """One VM: its device, its memory and the objects of one RC QP."""

    def __init__(self, name, path, ip, c):
        self.name, self.path, self.ip, self.c = name, path, ip, c
        self.dev = VhostRdma(path)
        self.pages = GuestPages(self.dev.mem)
        self.next_page = REGIONS['spare'][0]
        self.doorbells = 0          # doorbells rung
        self.db_records = self.alloc(PAGE)
        self.pd = self.mr = self.lkey = self.rkey = self.qpn = None
        self.scq = self.rcq = self.sq = self.rq = None
        self.scq_h = self.rcq_h = None

    @property
    def mac(self):
        return self.dev.config['mac']

    def alloc(self, nbytes):
        """NBYTES of guest memory, page-aligned (rings and buffers alike);
        returns the first page number."""
        first = self.next_page
        self.next_page += (nbytes + PAGE - 1) // PAGE
        if self.next_page > REGIONS['spare'][0] + REGIONS['spare'][1]:
            raise RuntimeError(f'VM {self.name}: guest memory exhausted')
        return first

    def buffer(self, nbytes, fill):
        """A data buffer filled with FILL; returns (page, iova)."""
        page = self.alloc(nbytes)
        self.pages.put(page, 0, fill * nbytes if len(fill) == 1 else fill)
        return page, self.pages.iova(page)

    def get(self, page, n, off=0):
        return self.dev.mem.get(page * PAGE + off, n)

    def expect(self, what, want, name, body=b''):
        return expect(self.c, self.dev, f'{self.name}: {what}', want, name, body)

    # -- a. bring-up --
    def setup(self):
        """Start the device, then GID, PD, DMA MR, the CQs and the QP."""
        self.dev.start()
        port = self.expect('QUERY_PORT', 'OK', 'QUERY_PORT', h(1))
        print(f'{self.name}: {self.path} started, port state {port.get("state")} '
              f'active_mtu {port.get("active_mtu")} mac {self.mac.hex(":")}')
        self.c.true(f'{self.name}: active_mtu allows MTU_1024',
                    port.get('active_mtu', 0) >= MTU, port.get('active_mtu'))
        self.expect(f'ADD_GID ::ffff:{self.ip} at {GID_INDEX} (RoCE v2)', 'OK', 'ADD_GID',
                    ABI.s('add_gid_req').pack(index=GID_INDEX,
                                              gid_type=ABI.c('GID_TYPE_ROCE_V2'),
                                              gid=gid4(self.ip)))
        self.pd = self.expect('CREATE_PD', 'OK', 'CREATE_PD').get('pd_handle')
        mr = self.expect('GET_DMA_MR LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ', 'OK', 'GET_DMA_MR',
                         ABI.s('get_dma_mr_req').pack(pd_handle=self.pd,
                                                      access_flags=DMA_ACCESS))
        self.mr, self.lkey, self.rkey = mr.get('mr_handle'), mr.get('lkey'), mr.get('rkey')
        self.scq_h, self.scq = self.create_cq('send CQ')
        self.rcq_h, self.rcq = self.create_cq('recv CQ')
        self.create_qp()
        print(f'{self.name}: PD {self.pd}, DMA MR {self.mr} lkey {self.lkey:#x} '
              f'rkey {self.rkey:#x}, CQs {self.scq_h}/{self.rcq_h}, QPN {self.qpn}')

    def create_cq(self, what):
        ring = Ring(self.pages, self.alloc(CTL + DEPTH * CQE.size), DEPTH, CQE.size)
        resp = self.expect(f'CREATE_CQ {what} depth {DEPTH} at IOVA {ring.iova:#x}', 'OK',
                           'CREATE_CQ', create_cq(ring.iova, ring.size, DEPTH))
        if 'cq_handle' not in resp:
            raise RuntimeError(f'{self.name}: no {what}')
        return resp['cq_handle'], ring

    def create_qp(self):
        ss, rs = sq_stride(SHIFT), rq_stride(SHIFT)
        self.sq = Ring(self.pages, self.alloc(CTL + DEPTH * ss), DEPTH, ss)
        self.rq = Ring(self.pages, self.alloc(CTL + DEPTH * rs), DEPTH, rs)
        resp = self.expect(
            f'CREATE_QP RC, SQ/RQ depth {DEPTH} at IOVAs {self.sq.iova:#x}/{self.rq.iova:#x}',
            'OK', 'CREATE_QP',
            create_qp(self.pd, QPT['RC'], self.scq_h, self.rcq_h, self.sq.iova, self.rq.iova,
                      sq_depth=DEPTH, rq_depth=DEPTH, sq_shift=SHIFT, rq_shift=SHIFT,
                      sq_size=self.sq.size, rq_size=self.rq.size))
        if 'qp_handle' not in resp:
            raise RuntimeError(f'{self.name}: no QP')
        self.qpn = resp['qp_handle']
        self.c.check(f'{self.name}: SQ notify after CREATE_QP (first post rings)', 0,
                     self.sq.ctl('notify'))
        self.c.check(f'{self.name}: RQ notify after CREATE_QP', NOTIFY_OFF,
                     self.rq.ctl('notify'))

    def connect(self, peer, sq_psn, rq_psn):
        """RESET->INIT->RTR->RTS towards PEER's QP: its QPN, its GID (the
        IPv4-mapped address of its netdev), its MAC as next hop (the driver
        resolves dmac; the device does no neighbour lookup)."""
        path = dict(av(GID_INDEX, dgid=gid4(peer.ip)), dmac=peer.mac)
        common = dict(path_mtu=MTU, rq_psn=rq_psn, sq_psn=sq_psn, dest_qpn=peer.qpn,
                      access=DMA_ACCESS, addr=path)
        for state, mask, name in ((INIT, INIT_MASK, 'RESET->INIT'), (RTR, RTR_MASK, 'INIT->RTR'),
                                  (RTS, RTS_MASK, 'RTR->RTS')):
            self.expect(f'MODIFY_QP {name}', 'OK', 'MODIFY_QP',
                        modify_qp(None, self.qpn, mask, state=state, **common))
        attr = self.query_qp()
        self.c.check(f'{self.name}: QUERY_QP (state, dest_qp_num, sq_psn, rq_psn, dgid)',
                     (RTS, peer.qpn, sq_psn, rq_psn, gid4(peer.ip).hex()),
                     (attr.get('qp_state'), attr.get('dest_qp_num'), attr.get('sq_psn'),
                      attr.get('rq_psn'), attr.get('av', {}).get('dgid', b'').hex()))

    def query_qp(self):
        resp = self.expect('QUERY_QP', 'OK', 'QUERY_QP',
                           ABI.s('query_qp_req').pack(qp_handle=self.qpn))
        return resp.get('attr', {})

    # -- work requests --
    def post_recv(self, wrs):
        """Receive WQEs (wr_id, iova, length), published and rung as the
        spec's notify rule says."""
        rq = self.rq
        old = rq.index
        for wr_id, addr, length in wrs:
            self.ring_space(rq, 'RQ')
            slot = rq.index % rq.depth
            self.pages.entry(rq.page, rq.stride, slot, RQ_WQE, wr_id=wr_id, num_sge=1)
            self.put_sge(rq, slot, RQ_WQE.size, addr, length)
            rq.index = (rq.index + 1) & 0xffffffff
        self.publish(rq, old, DB_RQ)

    def post_send(self, wrs):
        """Send WQEs, each a dict: wr_id, opcode (a WR_ name), addr, length,
        and for RDMA remote_addr, rkey.  All signalled."""
        sq = self.sq
        old = sq.index
        for wr in wrs:
            self.ring_space(sq, 'SQ')
            slot = sq.index % sq.depth
            fields = dict(wr_id=wr['wr_id'], opcode=WR[wr['opcode']], flags=SIGNALED,
                          num_sge=1)
            if 'rkey' in wr:
                fields['wr'] = {'rdma': {'remote_addr': wr['remote_addr'], 'rkey': wr['rkey']}}
            self.pages.entry(sq.page, sq.stride, slot, SQ_WQE, **fields)
            self.put_sge(sq, slot, SQ_WQE.size, wr['addr'], wr['length'])
            sq.index = (sq.index + 1) & 0xffffffff
        self.publish(sq, old, DB_SQ)

    def ring_space(self, ring, what):
        """The driver never has more than depth WQEs outstanding: cons is
        the device's, read with the load x86 orders after earlier loads."""
        if (ring.index - ring.ctl('cons')) & 0xffffffff >= ring.depth:
            raise RuntimeError(f'{self.name}: {what} full')

    def put_sge(self, ring, slot, hdr, addr, length):
        # The SGEs follow the WQE header (spec "Send queue WQE", "Receive queue WQE").
        self.pages.put(ring.page, CTL + slot * ring.stride + hdr,
                       SGE.pack(addr=addr, length=length, lkey=self.lkey))

    def publish(self, ring, old, db_type):
        """Store prod (after the WQEs: x86 keeps stores in order), full
        barrier, load notify, and ring if notify lies in [old, new)."""
        new = ring.index
        self.pages.set_ctl(ring.page, 'prod', new)
        full_barrier()
        if need_doorbell(ring.ctl('notify'), new, old):
            self.doorbell(db_type)

    def doorbell(self, db_type, timeout=10.0):
        """One doorbell record for our QP on doorbellq 0.  Buffers the
        device has used are reclaimed first; when all are in flight we wait
        (bounded) for one to come back, as the spec tells a driver to."""
        dev, q = self.dev, DOORBELLQ
        vq = dev.vqs[q]
        while vq.pop_used() is not None:
            pass
        if not vq.free and dev.wait_used(q, timeout) is None:
            raise DeviceTimeout(f'{self.name}: no doorbellq buffer came back in {timeout} s')
        off = (vq.avail_idx % vq.num) * DOORBELL.size   # one record per ring slot
        self.pages.put(self.db_records, off, DOORBELL.pack(type=db_type, handle=self.qpn))
        vq.post([(self.pages.iova(self.db_records, off), DOORBELL.size, False)])
        dev.notify(q)
        self.doorbells += 1

    def poll(self, cq, n, timeout, interval=POLL_S):
        """Up to N CQEs from ring CQ, waiting at most TIMEOUT seconds and
        looking every INTERVAL (0: spin); the consumed ones are given back
        (cons) at once."""
        out, deadline = [], time.monotonic() + timeout
        while len(out) < n:
            if cq.ctl('prod') == cq.index:
                if time.monotonic() > deadline:
                    break
                if interval:
                    time.sleep(interval)
                continue
            out.append(self.pages.cqe(cq.page, cq.index % cq.depth))
            cq.index = (cq.index + 1) & 0xffffffff
            self.pages.set_ctl(cq.page, 'cons', cq.index)
        return out

    def close(self):
        self.dev.close()


def cqe_key(cqe, byte_len=True):
    """What a check compares of a CQE.  byte_len only where the spec defines
    it (receives, RDMA READ), not for SEND and WRITE completions."""
    key = (cqe['wr_id'], wc(cqe['status']), wc_op(cqe['opcode']))
    return key + (cqe['byte_len'],) if byte_len else key


def first_diff(want, got):
    """Where GOT first differs from WANT, for the report."""
    if len(want) != len(got):
        return f'length {len(got)}, want {len(want)}'
    i = next((i for i in range(len(want)) if want[i] != got[i]), None)
    return 'identical' if i is None else f'byte {i}: {got[i]:#04x}, want {want[i]:#04x}'


def pattern(n, seed):
    """N bytes that differ from any shifted copy of themselves (a misplaced
    or partial copy shows)."""
    return bytes((i * 7 + (i >> 8) * 13 + seed) & 0xff for i in range(n))


# --- b. SEND, WRITE, READ ------------------------------------------------------------
SEND_LEN = 5 * MTU_BYTES - 120      # five packets, the last one short
WRITE_LEN = 3 * MTU_BYTES + 77
READ_LEN = 6 * MTU_BYTES + 5
GUARD = 64                          # bytes around each target that must not change
TIMEOUT_S = 30.0                    # a few messages, even under TCG with KASAN


def check_traffic(c, a, b):
    print(f'--- b. SEND of {SEND_LEN} bytes and RDMA WRITE of {WRITE_LEN} bytes B->A, '
          f'RDMA READ of {READ_LEN} bytes by B from A')
    send_data, write_data, read_data = (pattern(SEND_LEN, 1), pattern(WRITE_LEN, 2),
                                        pattern(READ_LEN, 3))
    rbuf, rbuf_iova = a.buffer(2 * PAGE, b'\xa5')
    _, spare_iova = a.buffer(PAGE, b'\xa5')
    a.post_recv([(0xa00, rbuf_iova, 2 * PAGE), (0xa01, spare_iova, PAGE)])
    wpage, wbase = a.buffer(WRITE_LEN + 2 * GUARD, b'\x5a')
    _, sbuf_iova = b.buffer(SEND_LEN, send_data)
    _, wsrc_iova = b.buffer(WRITE_LEN, write_data)
    t0 = time.monotonic()
    db0 = b.doorbells
    b.post_send([dict(wr_id=0xb00, opcode='SEND', addr=sbuf_iova, length=SEND_LEN),
                 dict(wr_id=0xb01, opcode='RDMA_WRITE', addr=wsrc_iova, length=WRITE_LEN,
                      remote_addr=wbase + GUARD, rkey=a.rkey)])
    c.check('B: posting to an idle SQ (notify 0) rang one doorbell', 1, b.doorbells - db0)
    c.check('B: send CQEs (wr_id, status, opcode)',
            [(0xb00, 'SUCCESS', 'SEND'), (0xb01, 'SUCCESS', 'RDMA_WRITE')],
            [cqe_key(x, False) for x in b.poll(b.scq, 2, TIMEOUT_S)])
    recv = a.poll(a.rcq, 1, TIMEOUT_S)
    c.check('A: receive CQE (wr_id, status, opcode, byte_len)',
            [(0xa00, 'SUCCESS', 'RECV', SEND_LEN)], [cqe_key(x) for x in recv])
    if recv:
        c.check('A: receive CQE qp_handle', a.qpn, recv[0]['qp_handle'])
    print(f'SEND and WRITE completed in {time.monotonic() - t0:.2f} s')
    got = a.get(rbuf, SEND_LEN)
    c.true('A: the received bytes are the sent ones', got == send_data,
           first_diff(send_data, got))
    tail = a.get(rbuf, 2 * PAGE - SEND_LEN, SEND_LEN)
    c.true('A: the receive buffer past byte_len is untouched',
           tail == b'\xa5' * len(tail), first_diff(b'\xa5' * len(tail), tail))
    got = a.get(wpage, WRITE_LEN, GUARD)
    c.true('A: the RDMA WRITE target holds the written bytes', got == write_data,
           first_diff(write_data, got))
    guards = a.get(wpage, GUARD) + a.get(wpage, GUARD, GUARD + WRITE_LEN)
    c.true(f'A: the {GUARD} bytes either side of the WRITE target are untouched',
           guards == b'\x5a' * len(guards), first_diff(b'\x5a' * len(guards), guards))

    _, src_iova = a.buffer(READ_LEN, read_data)
    dst, dst_iova = b.buffer(READ_LEN + GUARD, b'\xa5')
    t0 = time.monotonic()
    b.post_send([dict(wr_id=0xb02, opcode='RDMA_READ', addr=dst_iova, length=READ_LEN,
                      remote_addr=src_iova, rkey=a.rkey)])
    c.check('B: READ CQE (wr_id, status, opcode, byte_len)',
            [(0xb02, 'SUCCESS', 'RDMA_READ', READ_LEN)],
            [cqe_key(x) for x in b.poll(b.scq, 1, TIMEOUT_S)])
    print(f'READ completed in {time.monotonic() - t0:.2f} s')
    got = b.get(dst, READ_LEN)
    c.true('B: the bytes read are A\'s', got == read_data, first_diff(read_data, got))
    tail = b.get(dst, GUARD, READ_LEN)
    c.true('B: the READ wrote nothing past its length', tail == b'\xa5' * GUARD,
           first_diff(b'\xa5' * GUARD, tail))
    c.check('A: no further receive CQE (WRITE and READ consume no receive)', [],
            [cqe_key(x) for x in a.poll(a.rcq, 1, 0.5)])
    c.check('A: send CQ empty (A posted no sends)', 0, a.scq.ctl('prod'))
    print(f'doorbells rung: A {a.doorbells}, B {b.doorbells}')


def wait_event(vm, etype, handle, timeout):
    """The events of VM's eventq 0 until (ETYPE, HANDLE) is among them or
    TIMEOUT seconds passed: the device writes an asynchronous event when it
    gets to it, not necessarily before the CQEs are visible."""
    deadline = time.monotonic() + timeout
    while True:
        vm.dev.drain_events()
        events = [(e['type'], e['handle']) for e in vm.dev.events]
        if (etype, handle) in events or time.monotonic() > deadline:
            return events
        time.sleep(0.05)


# --- c. a VM dies under traffic ---------------------------------------------------------
STREAM = 96                         # the wire path had 32 of 64 done at the first CQE
STREAM_LEN = 4096                   # four packets each
ERROR_S = 90.0                      # retry_cnt 7 timeouts, the timer at most 1 s each


def check_peer_dies(c, a, b):
    print(f'--- c. B streams {STREAM} SENDs of {STREAM_LEN} bytes; A\'s fd is closed under it')
    rbufs = a.alloc(STREAM * STREAM_LEN)
    a.post_recv([(0xa100 + i, a.pages.iova(rbufs, i * STREAM_LEN), STREAM_LEN)
                 for i in range(STREAM)])
    _, sbuf_iova = b.buffer(STREAM_LEN, pattern(STREAM_LEN, 4))
    b.post_send([dict(wr_id=0xb100 + i, opcode='SEND', addr=sbuf_iova, length=STREAM_LEN)
                 for i in range(STREAM)])
    # The first message delivered shows the stream flowing; A dies right then
    # (spinning: the whole stream takes milliseconds on the same-host path).
    # A's receive left over from part b takes the first message.
    first = a.poll(a.rcq, 1, TIMEOUT_S, interval=0)
    c.check('A: the stream reaches A (first receive CQE)',
            [(0xa01, 'SUCCESS', 'RECV', STREAM_LEN)], [cqe_key(x) for x in first])
    cons_at_close = b.sq.ctl('cons')
    t0 = time.monotonic()
    a.close()
    print(f'A\'s vhost fd closed in {time.monotonic() - t0:.2f} s with B\'s SQ at '
          f'cons {cons_at_close} of {b.sq.index}')
    c.true('B: SENDs still outstanding when A went away', cons_at_close < b.sq.index,
           f'{b.sq.index - cons_at_close} outstanding')
    snapshot = a.dev.mem.get(0, a.dev.mem.size)

    t0 = time.monotonic()
    cqes = b.poll(b.scq, STREAM, ERROR_S)
    took = time.monotonic() - t0
    statuses = [x['status'] for x in cqes]
    ok_n = next((i for i, s in enumerate(statuses) if s != SUCCESS), len(statuses))
    print(f'B: {len(cqes)} CQEs in {took:.1f} s: {ok_n} SUCCESS, then '
          + (', '.join(f'{wc(s)} x{statuses.count(s)}'
                       for s in dict.fromkeys(statuses[ok_n:])) or 'nothing'))
    ids = [x['wr_id'] for x in cqes]
    c.true(f'B: every one of the {STREAM} SENDs completed, in order, within {ERROR_S:.0f} s',
           ids == [0xb100 + i for i in range(STREAM)],
           f'{len(ids)} CQEs, wr_ids ' + (f'{ids[0]:#x}..{ids[-1]:#x}' if ids else '-'))
    bad = statuses[ok_n:]
    c.true('B: the SENDs after the last one A acknowledged end in error (retry exceeded '
           'or flush), none succeeds after an error',
           bad and all(s in (RETRY_EXC, FLUSH) for s in bad), f'{len(bad)} error CQEs: '
           + ', '.join(sorted({wc(s) for s in bad})))
    c.true('B: the first error is RETRY_EXC_ERR (the one WQE the retries used up), '
           'the rest WR_FLUSH_ERR', bad[:1] == [RETRY_EXC] and
           all(s == FLUSH for s in bad[1:]), ', '.join(wc(s) for s in bad[:3]) + ' ...')
    c.check('B: SQ cons = prod after the errors', b.sq.index, b.sq.ctl('cons'))
    c.true('B: SQ flags have ERROR', b.sq.ctl('flags') & RING_ERROR, b.sq.ctl('flags'))
    c.check('B: QUERY_QP state', ERR, b.query_qp().get('qp_state'))
    # Retry exhaustion is reported by the completion only, as on IB devices
    # and rdma_rxe (spec "Queue pair lifecycle"): no QP_FATAL.
    events = wait_event(b, QP_FATAL, b.qpn, 1.0)
    c.true(f'B: no QP_FATAL for QPN {b.qpn} (the completion reports retry exhaustion)',
           (QP_FATAL, b.qpn) not in events, f'events (type, handle): {events}')
    b.expect('QUERY_DEVICE after the peer died', 'OK', 'QUERY_DEVICE')
    c.true('A: nothing wrote A\'s memory after its fd was closed',
           a.dev.mem.get(0, a.dev.mem.size) == snapshot, 'compared all of it')

    dev = VhostRdma(a.path, a.dev.mem)
    a.dev = dev
    dev.start()
    print('ok: A reopened: its IOVAs map again (the old IOTLB is gone)')
    a.expect('QUERY_DEVICE from scratch', 'OK', 'QUERY_DEVICE')
    a.expect(f'DESTROY_QP {a.qpn} of the dead VM (reset destroyed it)', 'NOENT',
             'DESTROY_QP', h(a.qpn))
    a.expect(f'DEL_GID {GID_INDEX} of the dead VM (reset cleared it)', 'NOENT', 'DEL_GID',
             h(GID_INDEX))


def teardown(c, b):
    print('--- d. B destroys its objects; both fds closed')
    b.expect('DESTROY_QP (in ERR)', 'OK', 'DESTROY_QP', h(b.qpn))
    for handle, what in ((b.scq_h, 'send CQ'), (b.rcq_h, 'recv CQ')):
        b.expect(f'DESTROY_CQ {what}', 'OK', 'DESTROY_CQ', h(handle))
    b.expect('DEREG_MR', 'OK', 'DEREG_MR', h(b.mr))
    b.expect('DESTROY_PD', 'OK', 'DESTROY_PD', h(b.pd))
    b.expect(f'DEL_GID {GID_INDEX}', 'OK', 'DEL_GID', h(GID_INDEX))


def main(argv):
    if len(argv) != 5:
        print(__doc__)
        return 2
    c = Checks()
    t0 = time.monotonic()
    vms = []
    try:
        a = Vm('A', argv[1], argv[2], c)
        vms.append(a)
        b = Vm('B', argv[3], argv[4], c)
        vms.append(b)
        print('--- a. both VMs: GID, PD, DMA MR, CQs, RC QP, RESET->INIT->RTR->RTS')
        a.setup()
        b.setup()
        # PSNs near the 24-bit wrap on B, so that B's multi-packet messages cross it.
        a_psn, b_psn = 0x123456, 0xfffffd
        a.connect(b, sq_psn=a_psn, rq_psn=b_psn)
        b.connect(a, sq_psn=b_psn, rq_psn=a_psn)
        check_traffic(c, a, b)
        check_peer_dies(c, a, b)
        teardown(c, b)
    except STOP as e:
        stopped(c, e)
    finally:
        for vm in vms:
            vm.close()
    return verdict(c, t0)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
