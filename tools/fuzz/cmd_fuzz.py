#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
"""Send random control commands to a virtio-rdma device (scenario fuzz-commands).

    cmd_fuzz.py [--seed N] [--seconds S] [--count N] RAW_CMD [PROTECTED_GIDS]

RAW_CMD is the driver's /sys/kernel/debug/virtio_rdma/<ibdev>/raw_cmd;
PROTECTED_GIDS a comma-separated list of GID table indexes the driver uses
(left alone).  Commands are drawn from a random generator seeded with SEED:

  - chains of random shape: random command codes, request lengths that are not
    the command's, writable parts shorter than a status or a response;
  - each command with a random request built field by field: handles of live
    objects, of destroyed ones, and handles no object ever had; values at and
    beyond the device's limits; random attribute masks and QP attributes;
  - sequences: create/destroy/destroy, a QP walked through its states with
    random MODIFY_QPs on the way, objects destroyed while others use them.

The run ends after COUNT commands or SECONDS, whichever is first.  Then every
object the fuzzer created is destroyed, and the device must answer QUERY_DEVICE
as before and have counted every rejected command in CMD_ERRORS.  What must
hold throughout: every status is one the spec defines; a command on a handle
succeeds only if the handle names a live object of the fuzzer's (destroy,
modify, resize, query); a create never returns a handle that is alive.

Memory: every address in a request points into this process's locked pages
(ctrl_invalid.Pages, whose physical addresses bound to virtio_vdpa are the DMA
addresses) with a size that stays in the page, or far above any RAM
(ctrl_invalid.UNMAPPED).  Page lists hold only addresses of those pages, so
no registration covers memory the process does not own.  Objects the driver
made (those with handles below the first the fuzzer got, and the protected
GID indexes) are never named by a command that changes or uses them: raw_cmd
goes around the driver's bookkeeping.

The device ABI comes from virtio_rdma_abi.py and the ring/page mechanics,
request builders and the session (device, pages, limits) from
tools/lib/ctrl_invalid.py.

Exit status: 0 all held, 1 something did not, 77 cannot run here.
"""
import argparse
import collections
import os
import random
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import ctrl_invalid as ci  # noqa: E402  (after the path)

ABI, CMD, OK, PAGE, UNMAPPED = ci.ABI, ci.CMD, ci.OK, ci.PAGE, ci.UNMAPPED
MALFORMED = ABI.c('STATUS_MALFORMED')
A, QPT, QPS = ci.A, ci.QPT, ci.QPS
CTL = ci.CTL
NPAGES = 16
LIST_PAGE, INDIRECT_PAGE = 0, 1         # page lists; never rings
RING_PAGES = range(2, NPAGES)
MAX_LIVE = 24                           # per kind: keeps the tables from filling

# The order they are destroyed in: an XRC SRQ holds its domain and its CQ.
KINDS = ('qp', 'srq', 'xrcd', 'mw', 'mr', 'cq', 'pd', 'gid')
DESTROY_OF = {'pd': 'DESTROY_PD', 'mr': 'DEREG_MR', 'cq': 'DESTROY_CQ',
              'qp': 'DESTROY_QP', 'srq': 'DESTROY_SRQ', 'gid': 'DEL_GID',
              'mw': 'DEALLOC_MW', 'xrcd': 'DESTROY_XRCD'}
KIND_OF_DESTROY = {v: k for k, v in DESTROY_OF.items()}
# Indirect memory keys are MRs to the device (DEREG_MR destroys them).
CREATES = {'CREATE_PD': 'pd', 'GET_DMA_MR': 'mr', 'CREATE_MR': 'mr', 'ALLOC_MR': 'mr',
           'ALLOC_MW': 'mw', 'CREATE_MKEY': 'mr',
           'CREATE_CQ': 'cq', 'CREATE_QP': 'qp', 'CREATE_SRQ': 'srq', 'CREATE_XRCD': 'xrcd'}
# Commands whose first request word is a handle that must be live for OK.
HANDLE_CMDS = {'MODIFY_QP': 'qp', 'QUERY_QP': 'qp', 'RESIZE_CQ': 'cq', 'MODIFY_SRQ': 'srq',
               'QUERY_SRQ': 'srq', **KIND_OF_DESTROY}
HANDLE_CMDS.pop('DEL_GID')
# The request struct of each command that has one.
REQ = {'QUERY_PORT': 'query_port_req', 'DESTROY_PD': 'destroy_pd_req',
       'GET_DMA_MR': 'get_dma_mr_req', 'CREATE_MR': 'create_mr_req',
       'ALLOC_MR': 'alloc_mr_req', 'DEREG_MR': 'dereg_mr_req', 'CREATE_CQ': 'create_cq_req',
       'DESTROY_CQ': 'destroy_cq_req', 'CREATE_QP': 'create_qp_req',
       'MODIFY_QP': 'modify_qp_req', 'QUERY_QP': 'query_qp_req',
       'DESTROY_QP': 'destroy_qp_req', 'ADD_GID': 'add_gid_req', 'DEL_GID': 'del_gid_req',
       'CREATE_SRQ': 'create_srq_req', 'MODIFY_SRQ': 'modify_srq_req',
       'QUERY_SRQ': 'query_srq_req', 'DESTROY_SRQ': 'destroy_srq_req',
       'RESIZE_CQ': 'resize_cq_req', 'ALLOC_MW': 'alloc_mw_req',
       'DEALLOC_MW': 'dealloc_mw_req', 'CREATE_MKEY': 'create_mkey_req',
       'DESTROY_XRCD': 'destroy_xrcd_req'}


def req_size(name):
    return ABI.s(REQ[name]).size if name in REQ else 0


class Fuzz:
    def __init__(self, s, rng, protected_gids):
        self.s, self.r = s, rng
        self.live = {k: set() for k in KINDS}
        self.dead = {k: [] for k in KINDS}
        self.floor = {k: 0 for k in KINDS}     # handles below: the driver's
        self.protected_gids = set(protected_gids)
        self.rejected = 0
        self.failures = []
        self.sent = collections.Counter()
        self.statuses = collections.Counter()

    def fail(self, what):
        print(f'FAIL: {what}')
        self.failures.append(what)

    # --- sending, and what must hold for every answer ---------------------
    def raw(self, req, resp_len):
        """REQ with RESP_LEN writable bytes: (status or None, the writable part)."""
        data = self.s.dev.raw(req, resp_len)
        if resp_len < ci.RESP_HDR.size:
            self.rejected += 1      # no room for a status: the device refuses it
            self.statuses['(no status)'] += 1
            return None, data
        status = ci.RESP_HDR.unpack(data)['status']
        if status not in ci.STATUS:
            self.fail(f'status {status} is not one the spec defines (request {req.hex()})')
        if status != OK:
            self.rejected += 1
        self.statuses[ci.st(status)] += 1
        return status, data

    def cmd(self, name, body=b'', short=False):
        """NAME with BODY; SHORT: a writable part too small for the response.
        Returns (status, response dict or {})."""
        size = ci.resp_size(name)
        resp_len = ci.RESP_HDR.size + size
        if short and size:
            resp_len = ci.RESP_HDR.size + self.r.randrange(size)
        self.sent[name] += 1
        req = ci.HDR.pack(cmd=CMD[name], reserved=self.r.choice((0, 0, 0, 0xffffffff))) + body
        status, data = self.raw(req, resp_len)
        if short and size:
            if status != MALFORMED:
                self.fail(f'{name} with a {resp_len}-byte writable part: {ci.st(status)}, '
                          'want MALFORMED')
            return status, {}
        resp = ABI.s(ci.RESP[name]).unpack(data, ci.RESP_HDR.size) if size and status == OK \
            else {}
        self.account(name, body, status, resp)
        return status, resp

    def account(self, name, body, status, resp):
        handle = struct.unpack_from('<I', body)[0] if len(body) >= 4 else None
        if name in HANDLE_CMDS and status == OK:
            kind = HANDLE_CMDS[name]
            if handle not in self.live[kind] and not (name.startswith('QUERY') and
                                                      handle < self.floor[kind]):
                self.fail(f'{name} of {kind} handle {handle:#x} that is not alive: OK')
        if status != OK:
            return
        if name in CREATES:
            kind = CREATES[name]
            new = resp[next(iter(resp))]      # the first response field is the handle
            replace = name == 'CREATE_MR' and \
                ABI.s('create_mr_req').unpack(body)['flags'] & ABI.c('MR_F_REPLACE')
            if replace:
                if new != ABI.s('create_mr_req').unpack(body)['replace_handle']:
                    self.fail(f'CREATE_MR REPLACE answered handle {new:#x}, not the one replaced')
            elif new in self.live[kind]:
                self.fail(f'{name} returned handle {new:#x} of a live {kind}')
            self.live[kind].add(new)
        elif name in KIND_OF_DESTROY:
            kind = KIND_OF_DESTROY[name]
            self.live[kind].discard(handle)
            self.dead[kind].append(handle)
        elif name == 'ADD_GID':
            self.live['gid'].add(handle)

    # --- values ------------------------------------------------------------
    def pick(self, *choices):
        return self.r.choice(choices)

    def u32(self):
        return self.r.getrandbits(32)

    def handle(self, kind, may_be_drivers=False):
        """A handle for a command on KIND: live, dead, never used, nonsense;
        one of the driver's (below the floor) only if MAY_BE_DRIVERS."""
        r = self.r
        live, dead = sorted(self.live[kind]), self.dead[kind]
        x = r.randrange(10)
        if x < 5 and live:
            return r.choice(live)
        if x < 7 and dead:
            return r.choice(dead)
        if x == 7 and may_be_drivers and self.floor[kind]:
            return r.randrange(self.floor[kind])
        if kind == 'gid':
            return self.gid_index()
        return self.pick(0, 0xffffffff, 0xffffff, 1 << 24, self.floor[kind] + 4096 +
                         r.randrange(1 << 16), self.u32() | 0x80000000)

    def gid_index(self):
        n = self.s.lim['gid_tbl_len']
        free = [i for i in range(n) if i not in self.protected_gids]
        if self.r.randrange(4) == 0 or not free:
            return self.pick(n, n + 1, 0xffff, 0xffffffff)
        return self.r.choice(free)

    def ring(self, need):
        """(address, size) of a ring NEED bytes long in one of our pages, or
        not quite: misaligned, too small, unmapped.  Never past the page."""
        r = self.r
        page = r.choice(RING_PAGES)
        x = r.randrange(8)
        if x == 0:
            return UNMAPPED + r.randrange(1 << 20) * PAGE, self.pick(need, 1 << 40, self.u32())
        off = 0 if x < 4 else self.pick(CTL, 64, 8, 1, r.randrange(PAGE))
        room = PAGE - off
        size = need if need <= room and x != 3 else r.randrange(room + 1)
        return self.s.mem.pa[page] + off, min(size, room)

    def depth(self, limit):
        return self.pick(1, 2, 4, 8, 16, 0, 3, limit, limit * 2, 1 << 31, self.u32())

    # --- one random request per command ------------------------------------
    def gen_query_port(self):
        return ABI.s('query_port_req').pack(port=self.pick(1, 1, 0, 2, self.u32()),
                                            reserved=self.pick(0, self.u32()))

    def gen_destroy(self, kind):
        return struct.pack('<II', self.handle(kind), self.pick(0, 0, self.u32()))

    def access(self):
        acc = ci.ACC
        return self.pick(acc['LOCAL_WRITE'], acc['LOCAL_WRITE'] | acc['REMOTE_READ'],
                         acc['LOCAL_WRITE'] | acc['REMOTE_WRITE'] | acc['REMOTE_READ'],
                         acc['LOCAL_WRITE'] | acc['REMOTE_ATOMIC'], 0, acc['REMOTE_WRITE'],
                         self.r.randrange(32), self.u32())

    def gen_get_dma_mr(self):
        return ABI.s('get_dma_mr_req').pack(pd_handle=self.handle('pd'),
                                            access_flags=self.access())

    def gen_create_mr(self):
        r, mem = self.r, self.s.mem
        lim = self.s.lim
        indirect = r.randrange(4) == 0
        off = self.pick(0, 0, 8, 64, 4, r.randrange(PAGE // 8) * 8)
        room = (PAGE - off) // 8                      # entries the page list can hold
        npages_max = room * 512 if indirect else room
        valid = r.randrange(2) == 0
        page_shift = 12 if valid else self.pick(12, 0, 11, 13, 21, 31, 63, 64, 255, self.u32())
        want = r.randrange(1, 9)
        iova = self.pick(0, 0x10000, r.randrange(PAGE), self.u32() << 12, (1 << 64) - PAGE)
        length = want * PAGE - (iova & (PAGE - 1)) if valid else \
            self.pick(0, 1, PAGE, want * PAGE, lim['max_mr_size'], lim['max_mr_size'] + 1,
                      (1 << 64) - 1, r.getrandbits(64))
        npages = want if valid else self.pick(want, want + 1, 0, npages_max, r.randrange(npages_max + 1))
        npages = min(npages, npages_max)              # the device never reads past page 0
        # Entries: our pages (aligned or not), or unmapped; never anyone else's.
        def data_page():
            pa = r.choice([mem.pa[p] for p in RING_PAGES])
            if page_shift >= 64 or page_shift > 12 and pa % (1 << page_shift) == 0:
                return UNMAPPED
            return self.pick(pa, pa, pa, pa + 8, UNMAPPED)
        def list_page():
            return self.pick(mem.pa[INDIRECT_PAGE], mem.pa[INDIRECT_PAGE], mem.pa[INDIRECT_PAGE] + 8,
                             UNMAPPED)
        entries = [list_page() if indirect else data_page()
                   for _ in range(min(room, -(-npages // 512) if indirect else npages))]
        mem.put(LIST_PAGE, 0, struct.pack('<Q', mem.pa[INDIRECT_PAGE]) * (PAGE // 8))
        mem.put(LIST_PAGE, off, struct.pack(f'<{len(entries)}Q', *entries))
        pla = mem.pa[LIST_PAGE] + off
        if not valid and r.randrange(4) == 0:
            pla = self.pick(pla + 4, UNMAPPED)
        flags = (ABI.c('MR_F_PL_INDIRECT') if indirect else 0)
        replace = 0
        if r.randrange(6) == 0:
            flags |= ABI.c('MR_F_REPLACE')
            replace = self.handle('mr')
        elif not valid and r.randrange(8) == 0:
            flags |= self.u32()
            replace = self.pick(0, self.handle('mr'))
        return ABI.s('create_mr_req').pack(
            pd_handle=self.handle('pd'), access_flags=self.access(), iova=iova % (1 << 64),
            length=length % (1 << 64), page_list_addr=pla, npages=npages,
            page_shift=page_shift % (1 << 32), flags=flags % (1 << 32), replace_handle=replace)

    def gen_alloc_mr(self):
        mem = self.s.mem
        frpl = self.s.lim['max_fast_reg_page_list_len']
        pla = self.pick(mem.pa[LIST_PAGE], mem.pa[LIST_PAGE] + 1, UNMAPPED)
        return ABI.s('alloc_mr_req').pack(pd_handle=self.handle('pd'),
                                          max_pages=self.pick(1, 16, frpl, 0, frpl + 1, self.u32()),
                                          page_list_addr=pla)

    def gen_alloc_mw(self):
        return ABI.s('alloc_mw_req').pack(pd_handle=self.handle('pd'),
                                          type=self.pick(1, 2, 0, 3, self.r.randrange(256)),
                                          reserved=self.pick(b'\0\0\0', b'\0\1\0'))

    def gen_create_mkey(self):
        return ABI.s('create_mkey_req').pack(pd_handle=self.handle('pd'),
                                             max_entries=self.pick(1, 8, 0, 9, self.u32()))

    def gen_create_cq(self):
        depth = self.depth(self.s.lim['max_cqe'])
        addr, size = self.ring(ci.CTL + (depth % (1 << 12)) * ci.CQE.size)
        return ci.create_cq(addr, size, depth % (1 << 32),
                            self.pick(0, 0, 1, 3, 4, 0xffffffff))

    def gen_resize_cq(self):
        depth = self.depth(self.s.lim['max_cqe'])
        addr, size = self.ring(ci.CTL + (depth % (1 << 12)) * ci.CQE.size)
        return ci.resize_cq(self.handle('cq'), addr, depth % (1 << 32), size)

    def gen_create_qp(self):
        r, lim = self.r, self.s.lim
        sq_depth, rq_depth = self.depth(lim['max_qp_wr']), self.pick(4, 0, self.depth(lim['max_qp_wr']))
        sq_shift = self.pick(1, 0, 2, lim['max_sq_wqe_shift'], lim['max_sq_wqe_shift'] + 1, 255)
        rq_shift = self.pick(1, 0, 2, lim['max_rq_wqe_shift'], lim['max_rq_wqe_shift'] + 1, 255)
        sq = self.ring(ci.CTL + (sq_depth % (1 << 12) << (6 + min(sq_shift, 8))))
        rq = self.ring(ci.CTL + (rq_depth % (1 << 12) << (4 + min(rq_shift, 8))))
        srq = 0 if r.randrange(3) else self.handle('srq')
        xrcd = 0 if r.randrange(3) else self.handle('xrcd')
        return ci.create_qp(
            self.handle('pd'), self.pick(QPT['RC'], QPT['RC'], QPT['UC'], QPT['UD'], QPT['GSI'],
                                         QPT['XRC_INI'], QPT['XRC_TGT'], 0, 5, 255),
            self.handle('cq'), self.handle('cq'), sq[0], rq[0],
            sq_depth=sq_depth % (1 << 32), rq_depth=rq_depth % (1 << 32),
            sq_shift=sq_shift, rq_shift=rq_shift,
            send_sge=self.pick(1, 2, 0, lim['max_send_sge'], lim['max_send_sge'] + 1, self.u32()),
            recv_sge=self.pick(1, 2, 0, lim['max_recv_sge'], lim['max_recv_sge'] + 1, self.u32()),
            inline=self.pick(0, 0, 64, lim['max_inline_data'], lim['max_inline_data'] + 1,
                             self.u32()),
            sq_size=sq[1], rq_size=rq[1], srq=srq, xrcd=xrcd)

    def gen_modify_qp(self, qp=None, state=None):
        r, s = self.r, self.s
        masks = (ci.INIT_MASK, ci.RTR_MASK, ci.RTS_MASK, A['STATE'],
                 A['STATE'] | A['PKEY_INDEX'] | A['PORT'] | A['QKEY'])
        x = r.randrange(4)
        if x == 0:
            mask = self.u32()
        elif x == 1:
            mask = 0
            for bit in A.values():
                if r.randrange(3) == 0:
                    mask |= bit
        else:
            mask = r.choice(masks)
            if x == 3:
                mask ^= r.choice(list(A.values()) + [1 << r.randrange(32)])
        gid_n = s.lim['gid_tbl_len']
        dgid = self.pick(bytes(10) + b'\xff\xff' + bytes([10, 0, 0, r.randrange(256)]),
                         bytes(r.getrandbits(8) for _ in range(16)),
                         b'\xfe\x80' + bytes(14), bytes(16))
        addr = dict(dgid=dgid, dmac=bytes(r.getrandbits(8) for _ in range(6)),
                    sgid_index=self.pick(s.gid_idx, 0, r.randrange(gid_n + 2), 255),
                    hop_limit=r.randrange(256),
                    network_type=self.pick(2, 2, 3, 0, 1, r.randrange(256)),
                    flow_label=self.pick(0, r.randrange(1 << 20), self.u32()))
        qpns = sorted(self.live['qp']) or [3]
        return ci.modify_qp(
            s, self.handle('qp') if qp is None else qp, mask,
            state=r.randrange(8) if state is None else state, cur_state=r.randrange(8),
            path_mtu=r.randrange(8), timeout=self.pick(14, r.randrange(40)),
            retry_cnt=r.randrange(10), rnr_retry=r.randrange(10),
            min_rnr_timer=r.randrange(40), max_rd_atomic=r.randrange(20),
            max_dest_rd_atomic=r.randrange(20), port=self.pick(1, 1, 0, 2),
            pkey_index=self.pick(0, 0, 1, 0xffff), qkey=self.pick(0x1234, self.u32()),
            rq_psn=self.pick(0, r.randrange(1 << 25)), sq_psn=self.pick(0, r.randrange(1 << 25)),
            dest_qpn=self.pick(r.choice(qpns), 1, r.randrange(1 << 25)),
            access=self.access(), addr=addr)

    def gen_query_qp(self):
        return ABI.s('query_qp_req').pack(qp_handle=self.handle('qp', True),
                                          attr_mask=self.pick(0, self.u32()))

    def gen_add_gid(self):
        r = self.r
        # The netdev's own address (accepted) or others (PERM).
        gid = self.pick(ci.GID4,
                        bytes(10) + b'\xff\xff' + bytes([10, 9, r.randrange(256), r.randrange(256)]),
                        bytes(r.getrandbits(8) for _ in range(16)))
        return ci.add_gid(self.handle('gid'), self.pick(2, 2, 1, 0, 3, self.u32()), gid)

    def gen_create_srq(self):
        lim = self.s.lim
        depth = self.depth(max(lim['max_srq_wr'], 4))
        shift = self.pick(1, 0, 2, lim['max_rq_wqe_shift'], lim['max_rq_wqe_shift'] + 1, 255)
        addr, size = self.ring(ci.CTL + (depth % (1 << 12) << (4 + min(shift, 8))))
        xrc = self.r.randrange(3) == 0
        return ci.create_srq(self.handle('pd'), addr, depth=depth % (1 << 32), shift=shift,
                             sge=self.pick(1, 2, 0, lim['max_srq_sge'] + 1, self.u32()),
                             limit=self.pick(0, 1, 4, 5, self.u32()), size=size,
                             srq_type=self.pick(1, 1, 1, 0, 2, 255) if xrc else 0,
                             xrcd=self.handle('xrcd') if xrc or not self.r.randrange(8) else 0,
                             cq=self.handle('cq') if xrc or not self.r.randrange(8) else 0)

    def gen_modify_srq(self):
        return ABI.s('modify_srq_req').pack(srq_handle=self.handle('srq'),
                                            attr_mask=self.pick(2, 1, 3, 0, self.u32()),
                                            srq_limit=self.pick(0, 1, 2, 4, 5, self.u32()))

    def gen_query_srq(self):
        return struct.pack('<II', self.handle('srq', True), 0)

    # --- the random command -----------------------------------------------
    def body(self, name):
        gen = {'QUERY_DEVICE': lambda: b'', 'QUERY_STATS': lambda: b'',
               'CREATE_PD': lambda: b'', 'QUERY_PORT': self.gen_query_port,
               'GET_DMA_MR': self.gen_get_dma_mr, 'CREATE_MR': self.gen_create_mr,
               'ALLOC_MR': self.gen_alloc_mr, 'CREATE_CQ': self.gen_create_cq,
               'RESIZE_CQ': self.gen_resize_cq, 'CREATE_QP': self.gen_create_qp,
               'MODIFY_QP': self.gen_modify_qp, 'QUERY_QP': self.gen_query_qp,
               'ADD_GID': self.gen_add_gid, 'CREATE_SRQ': self.gen_create_srq,
               'MODIFY_SRQ': self.gen_modify_srq, 'QUERY_SRQ': self.gen_query_srq,
               'ALLOC_MW': self.gen_alloc_mw, 'CREATE_MKEY': self.gen_create_mkey,
               'CREATE_XRCD': lambda: b''}
        if name in KIND_OF_DESTROY:
            return self.gen_destroy(KIND_OF_DESTROY[name])
        return gen[name]()

    def one(self):
        r = self.r
        x = r.randrange(20)
        if x == 0:
            return self.shape()
        if x == 1:
            return self.sequence()
        if x == 2:
            return self.walk_qp()
        name = r.choice(sorted(CMD))
        if name in CREATES and len(self.live[CREATES[name]]) >= MAX_LIVE:
            name = DESTROY_OF[CREATES[name]]
        if name == 'ADD_GID' and len(self.live['gid']) >= 4:
            name = 'DEL_GID'
        self.cmd(name, self.body(name), short=r.randrange(25) == 0)

    def shape(self):
        """A chain the device must refuse for its shape (or its code): never a
        known command with its own request length and a writable part that
        fits a status."""
        r = self.r
        codes = sorted(CMD.values())
        code = self.pick(r.choice(codes), r.choice(codes), 0, max(codes) + 1,
                         r.randrange(64), self.u32())
        known = {CMD[n]: n for n in CMD}
        size = req_size(known[code]) if code in known else None
        n = r.choice((0, 1, 4, 8, 16, 48, 80, 104, 200, size or 0))
        while size is not None and n == size:
            n = r.randrange(300)
        body = bytes(r.getrandbits(8) for _ in range(n))
        resp_len = self.pick(0, 4, 7, 8, 16, 64, 300, r.randrange(600))
        if r.randrange(8) == 0:       # readable part shorter than a header
            req = bytes(r.getrandbits(8) for _ in range(r.randrange(ci.HDR.size)))
        else:
            req = ci.HDR.pack(cmd=code, reserved=self.pick(0, self.u32())) + body
        if not req and not resp_len:
            resp_len = ci.RESP_HDR.size     # an empty chain is raw_cmd's EINVAL, not a command
        self.sent['(shape)'] += 1
        status, _ = self.raw(req, resp_len)
        if status == OK and (code not in known or len(req) != ci.HDR.size + (size or 0)):
            self.fail(f'a {len(req)}-byte request for code {code:#x} was served')

    def sequence(self):
        """Create, destroy, destroy again, then name the dead object."""
        r = self.r
        kind = r.choice(('pd', 'cq', 'mr', 'srq'))
        name = {'pd': 'CREATE_PD', 'cq': 'CREATE_CQ', 'mr': 'GET_DMA_MR',
                'srq': 'CREATE_SRQ'}[kind]
        if kind == 'pd' or not self.live['pd']:
            body = b''
            name, kind = 'CREATE_PD', 'pd'
        elif kind == 'cq':
            page = r.choice(RING_PAGES)
            body = ci.create_cq(self.s.mem.pa[page], PAGE, 16)
        elif kind == 'mr':
            body = ABI.s('get_dma_mr_req').pack(pd_handle=r.choice(sorted(self.live['pd'])),
                                                access_flags=ci.LOCAL_WRITE)
        else:
            if not self.s.lim['max_srq']:
                return
            page = r.choice(RING_PAGES)
            body = ci.create_srq(r.choice(sorted(self.live['pd'])), self.s.mem.pa[page])
        status, resp = self.cmd(name, body)
        if status != OK:
            return
        handle = resp[next(iter(resp))]
        dname = DESTROY_OF[kind]
        for _ in range(r.randrange(1, 4)):
            self.cmd(dname, struct.pack('<II', handle, 0))
        if kind == 'pd':
            self.cmd('CREATE_CQ', self.gen_create_cq())
            self.cmd('GET_DMA_MR', ABI.s('get_dma_mr_req').pack(pd_handle=handle,
                                                                access_flags=ci.LOCAL_WRITE))
        elif kind == 'cq' and self.live['pd']:
            self.cmd('CREATE_QP', self.gen_create_qp())

    def walk_qp(self):
        """A valid QP taken RESET->INIT->RTR->RTS, a random MODIFY_QP between
        the steps, then destroyed or left for later commands."""
        r, s, mem = self.r, self.s, self.s.mem
        if not self.live['pd'] or not self.live['cq']:
            self.cmd('CREATE_PD')
            self.cmd('CREATE_CQ', ci.create_cq(mem.pa[r.choice(RING_PAGES)], PAGE, 16))
            return
        if len(self.live['qp']) >= MAX_LIVE:
            return
        self.source_gid()
        pages = r.sample(list(RING_PAGES), 2)
        cq = r.choice(sorted(self.live['cq']))
        status, resp = self.cmd('CREATE_QP', ci.create_qp(
            r.choice(sorted(self.live['pd'])), self.pick(QPT['RC'], QPT['UC'], QPT['UD']), cq, cq,
            mem.pa[pages[0]], mem.pa[pages[1]]))
        if status != OK:
            return
        qp = resp['qp_handle']
        for st, mask in ((QPS['INIT'], ci.INIT_MASK), (QPS['RTR'], ci.RTR_MASK),
                         (QPS['RTS'], ci.RTS_MASK)):
            self.cmd('MODIFY_QP', ci.modify_qp(s, qp, mask, state=st))
            if r.randrange(2):
                self.cmd('MODIFY_QP', self.gen_modify_qp(qp=qp))
        self.cmd('QUERY_QP', ABI.s('query_qp_req').pack(qp_handle=qp))
        if r.randrange(2):
            self.cmd('DESTROY_CQ', struct.pack('<II', cq, 0))     # BUSY: the QP holds it
            self.cmd('DESTROY_QP', struct.pack('<II', qp, 0))

    # --- setup and cleanup -------------------------------------------------
    def learn_floors(self):
        """One object of each kind, valid: handles below theirs are the driver's."""
        mem = self.s.mem
        _, r = self.cmd('CREATE_PD')
        pd = r.get('pd_handle')
        _, r = self.cmd('CREATE_CQ', ci.create_cq(mem.pa[2], PAGE, 16))
        cq = r.get('cq_handle')
        _, r = self.cmd('GET_DMA_MR', ABI.s('get_dma_mr_req').pack(pd_handle=pd or 0,
                                                                  access_flags=ci.LOCAL_WRITE))
        mr = r.get('mr_handle')
        _, r = self.cmd('CREATE_QP', ci.create_qp(pd or 0, QPT['RC'], cq or 0, cq or 0,
                                                  mem.pa[3], mem.pa[4]))
        qp = r.get('qp_handle')
        if None in (pd, cq, mr, qp):
            raise RuntimeError('the valid setup commands failed')
        self.floor.update(pd=pd, cq=cq, mr=mr, qp=qp)
        if self.s.lim['max_srq']:
            _, r = self.cmd('CREATE_SRQ', ci.create_srq(pd, mem.pa[5]))
            self.floor['srq'] = r.get('srq_handle', 0)
        # OPNOTSUPP without VIRTIO_RDMA_F_XRC: then there is no floor.
        _, r = self.cmd('CREATE_XRCD')
        self.floor['xrcd'] = r.get('xrcd_handle', 0)
        print(f'first handles (the driver\'s are below): {self.floor}')
        self.source_gid()

    def source_gid(self):
        """The GID MODIFY_QP's address vectors name (ctrl_invalid's slot),
        unless the driver uses that slot."""
        idx = self.s.gid_idx
        if idx not in self.protected_gids and idx not in self.live['gid']:
            self.cmd('ADD_GID', ci.add_gid(idx, ABI.c('GID_TYPE_ROCE_V2')))

    def cleanup(self):
        """Destroy every live object, dependents first; a few passes for BUSY."""
        for _ in range(4):
            for kind in KINDS:
                for handle in sorted(self.live[kind]):
                    self.cmd(DESTROY_OF[kind], struct.pack('<II', handle, 0))
            if not any(self.live.values()):
                return
        self.fail(f'objects that could not be destroyed: {self.live}')


def query_device(s):
    status, resp = s.dev.cmd(CMD['QUERY_DEVICE'], b'', ci.resp_size('QUERY_DEVICE'))
    return status, ABI.s('query_device_resp').unpack(resp) if status == OK else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--seconds', type=float, default=40)
    ap.add_argument('--count', type=int, default=1000000)
    ap.add_argument('raw_cmd')
    ap.add_argument('protected_gids', nargs='?', default='')
    args = ap.parse_args()
    try:
        s = ci.Session(args.raw_cmd)
        s.mem = ci.Pages(NPAGES)
    except OSError as e:
        print(f'cannot run: {e}')
        return 77
    mem = s.mem
    # The indirect list page lists only our own pages.
    mem.put(INDIRECT_PAGE, 0, struct.pack(f'<{PAGE // 8}Q',
                                          *(mem.pa[RING_PAGES[i % len(RING_PAGES)]]
                                            for i in range(PAGE // 8))))
    errors0 = ci.stats(s)
    ci.limits(s)
    status, dev0 = query_device(s)
    protected = [int(x) for x in args.protected_gids.split(',') if x]
    print(f'cmd_fuzz: seed {args.seed}, up to {args.count} commands or {args.seconds} s; '
          f'GID indexes left alone: {protected}')
    f = Fuzz(s, random.Random(args.seed), protected)
    t0 = time.monotonic()
    n = 0
    try:
        f.learn_floors()
        while n < args.count and time.monotonic() - t0 < args.seconds:
            f.one()
            n += 1
            if n % 2000 == 0:
                print(f'... {n} inputs, {sum(f.sent.values())} commands, '
                      f'{sum(len(v) for v in f.live.values())} objects alive')
    finally:
        f.cleanup()
    took = time.monotonic() - t0
    print(f'cmd_fuzz: seed {args.seed}: {n} inputs, {sum(f.sent.values())} commands in '
          f'{took:.0f} s')
    print('commands: ' + ', '.join(f'{k} {v}' for k, v in sorted(f.sent.items())))
    print('statuses: ' + ', '.join(f'{k} {v}' for k, v in sorted(f.statuses.items())))

    # The device still answers, with the same limits, and counted every refusal.
    status, dev1 = query_device(s)
    if status != OK or dev1 != dev0:
        f.fail(f'QUERY_DEVICE after the fuzzing: {ci.st(status)}, '
               f'{"same answer" if dev1 == dev0 else "a different answer"}')
    else:
        print('ok: QUERY_DEVICE answers as before')
    errors1 = ci.stats(s)
    if errors1 - errors0 != f.rejected:
        f.fail(f'CMD_ERRORS grew by {errors1 - errors0}, the device refused {f.rejected}')
    else:
        print(f'ok: CMD_ERRORS grew by {f.rejected}, every refused command')
    if f.failures:
        print(f'{len(f.failures)} failure(s)')
        return 1
    print('cmd_fuzz: passed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
