#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
"""A RoCEv2 packet fuzzer: rxe's captured packets (the seeds), mutated in
every header field and length, aimed at live QPs and sent to a device.

  roce_fuzz.py --vectors FILE --mode udp|raw --src A --dst B
               [--src6 A6 --dst6 B6] [--ifname IF --dst-mac MAC]
               [--victim QPN:RQ_PSN:SQ_PSN:SPAN]... [--target FILE]
               [--mr RKEY:VA:LEN]... --seed S --count N [--seconds T]
               [--rate PPS] [--dump FILE]
  roce_fuzz.py --replay FILE --mode ... (the same addresses)

--mode udp sends from a plain UDP socket (no privilege needed: the kernel
writes the IP and UDP headers, so only the RoCE part is under our control,
and the source is the socket's own address); --mode raw writes whole
Ethernet frames on an AF_PACKET socket (CAP_NET_RAW): any source address,
IP and UDP length, fragments, IP options.

Victims (--victim) are QPs of other users' connections that must survive:
a packet for one carries a PSN outside the window their traffic uses
([PSN, PSN+SPAN] from both starting PSNs), so it can only be a duplicate,
a stale or ghost response, or a request ahead of sequence, all of which a
correct RC transport survives.  Targets (--target, written by
roce_target.py) are the fuzzer's own QPs: packets hit their live window,
expected PSN included, with their MR's rkey and address, and may break
them.  Prints how many packets each mutation class sent.
"""
import json
import os
import random
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'lib'))
import roce_forge  # noqa: E402  (the one ICRC and framing implementation)

# Extension headers: name -> (length, fields as (name, struct code)).
HDRS = {
    'DETH': (8, (('qkey', 'I'), ('sqpn', 'I'))),
    'RETH': (16, (('va', 'Q'), ('rkey', 'I'), ('len', 'I'))),
    'ATOMICETH': (28, (('va', 'Q'), ('rkey', 'I'), ('swap', 'Q'),
                       ('compare', 'Q'))),
    'AETH': (4, (('aeth', 'I'),)),
    'ATOMICACKETH': (8, (('orig', 'Q'),)),
    'IMMDT': (4, (('imm', 'I'),)),
    'IETH': (4, (('ieth_rkey', 'I'),)),
}
# IBA table 38, the opcodes rxe sends (roce_opcode.c has the same list).
_RC = {0x00: (), 0x01: (), 0x02: (), 0x03: ('IMMDT',), 0x04: (),
       0x05: ('IMMDT',), 0x06: ('RETH',), 0x07: (), 0x08: (),
       0x09: ('IMMDT',), 0x0a: ('RETH',), 0x0b: ('RETH', 'IMMDT'),
       0x0c: ('RETH',), 0x0d: ('AETH',), 0x0e: (), 0x0f: ('AETH',),
       0x10: ('AETH',), 0x11: ('AETH',), 0x12: ('AETH', 'ATOMICACKETH'),
       0x13: ('ATOMICETH',), 0x14: ('ATOMICETH',), 0x16: ('IETH',),
       0x17: ('IETH',)}
OPCODES = dict(_RC)
OPCODES.update({0x20 | op: h for op, h in _RC.items() if op <= 0x0b})
OPCODES.update({0x64: ('DETH',), 0x65: ('DETH', 'IMMDT')})
REQUESTS = [op for op in OPCODES if op & 0x1f not in range(0x0d, 0x13)]
RESPONSES = list(range(0x0d, 0x13))
READ_REQ, ACK, ATOMIC_ACK = 0x0c, 0x11, 0x12
GSI_QKEY = 0x80010000
PSN_MASK = 0xffffff
MTU = 1024

INTERESTING32 = [0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0x3ff, 0x400, 0x401,
                 0xfff, 0x1000, 0x7fff, 0x8000, 0xffff, 0x10000, 0xffffff,
                 0x1000000, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe,
                 0xffffffff]
INTERESTING64 = INTERESTING32 + [1 << 32, (1 << 63) - 1, 1 << 63,
                                 (1 << 64) - 2, (1 << 64) - 1,
                                 0xffff800000000000, 0x00007ffffffff000]


class Pkt:
    """A RoCE packet from the BTH on, field by field."""

    def __init__(self, opcode, hdrs, payload, bth=None):
        self.opcode = opcode
        # se, mig, pad, tver, pkey, resv8, dqpn, ackreq, resv7, psn
        self.bth = dict(se=0, mig=0, pad=0, tver=0, pkey=0xffff, resv8=0,
                        dqpn=0, ackreq=0, resv7=0, psn=0)
        if bth:
            self.bth.update(bth)
        self.hdrs = [(n, dict(v)) for n, v in hdrs]
        self.payload = bytes(payload)
        self.pad_fix = True     # pad count = what the payload needs

    def copy(self):
        p = Pkt(self.opcode, self.hdrs, self.payload, self.bth)
        p.pad_fix = self.pad_fix
        return p

    def hdr(self, name):
        for n, v in self.hdrs:
            if n == name:
                return v
        return None

    def encode(self):
        b = self.bth
        pad = (-len(self.payload)) % 4 if self.pad_fix else b['pad']
        out = struct.pack('>BBHBBHBBH', self.opcode,
                          (b['se'] << 7) | (b['mig'] << 6) |
                          ((pad & 3) << 4) | (b['tver'] & 0xf),
                          b['pkey'] & 0xffff, b['resv8'] & 0xff,
                          (b['dqpn'] >> 16) & 0xff, b['dqpn'] & 0xffff,
                          (b['ackreq'] << 7) | (b['resv7'] & 0x7f),
                          (b['psn'] >> 16) & 0xff, b['psn'] & 0xffff)
        for name, v in self.hdrs:
            if name == 'DETH':
                out += struct.pack('>II', v['qkey'] & 0xffffffff,
                                   v['sqpn'] & 0xffffff)
            elif name == 'AETH':
                out += struct.pack('>I', v['aeth'] & 0xffffffff)
            else:
                for f, code in HDRS[name][1]:
                    mask = (1 << (64 if code == 'Q' else 32)) - 1
                    out += struct.pack('>' + code, v[f] & mask)
        # Pad bytes are zero on the wire, counted by the BTH alone.
        return out + self.payload + b'\0' * ((-len(self.payload)) % 4
                                             if self.pad_fix else 0)


def parse(data):
    """A Pkt from BTH .. ICRC of a captured packet."""
    op, flags, pkey, resv8, d1, d2, a, p1, p2 = struct.unpack(
        '>BBHBBHBBH', data[:12])
    bth = dict(se=flags >> 7, mig=(flags >> 6) & 1, pad=(flags >> 4) & 3,
               tver=flags & 0xf, pkey=pkey, resv8=resv8,
               dqpn=(d1 << 16) | d2, ackreq=a >> 7, resv7=a & 0x7f,
               psn=(p1 << 16) | p2)
    off, hdrs = 12, []
    for name in OPCODES[op]:
        length, fields = HDRS[name]
        h, o = {}, off
        if name == 'DETH':
            h['qkey'], sq = struct.unpack('>II', data[o:o + 8])
            h['sqpn'] = sq & 0xffffff
        else:
            for f, code in fields:
                n = 8 if code == 'Q' else 4
                h[f] = struct.unpack('>' + code, data[o:o + n])[0]
                o += n
        hdrs.append((name, h))
        off += length
    body = data[off:-4]
    payload = body[:len(body) - bth['pad']]
    return Pkt(op, hdrs, payload, bth)


def self_test(path):
    """Every rxe vector, parsed field by field and built again, must come
    out byte for byte, ICRC included: the builder writes what rxe does."""
    n = 0
    for name, data in roce_forge.vectors(path):
        iplen = 40 if data[0] >> 4 == 6 else 20
        body = parse(data[iplen + 8:]).encode()
        crc = roce_forge.icrc(data[:iplen], data[iplen:iplen + 8], body)
        if body + crc != data[iplen + 8:]:
            sys.exit(f'{name}: rebuilt {(body + crc).hex()} != {data[iplen + 8:].hex()}')
        n += 1
    print(f'ok: {n} rxe vectors rebuilt byte for byte')


def seeds(path):
    """rxe's packets as (ipver, name, Pkt), by the shared header parser."""
    out = []
    for name, data in roce_forge.vectors(path):
        iplen = 40 if data[0] >> 4 == 6 else 20
        out.append((data[0] >> 4, name, parse(data[iplen + 8:])))
    return out


class Live:
    """What the fuzzer knows of the live QPs and MRs."""

    def __init__(self, args):
        self.victims = []       # (qpn, rq_psn, sq_psn, span)
        for v in args.victim:
            q, r, s, n = (int(x, 0) for x in v.split(':'))
            self.victims.append((q, r, s, n))
        self.mrs = []           # (rkey, va, len)
        for m in args.mr:
            self.mrs.append(tuple(int(x, 0) for x in m.split(':')))
        self.target = None
        if args.target:
            with open(args.target) as f:
                self.target = json.load(f)
            t = self.target
            self.mrs.append((t['rkey'], t['va'], t['len']))
        self.vqpns = {v[0]: v for v in self.victims}

    def unsafe(self, qpn, psn):
        """Whether psn may land inside a victim's live window."""
        v = self.vqpns.get(qpn)
        if not v:
            return False
        _, r, s, n = v
        return any(((psn - base) & PSN_MASK) <= n + 2 for base in (r, s))

    def safe_psn(self, rng, qpn):
        """A PSN behind both of a victim's windows: a duplicate request or
        a stale response, never one its traffic is waiting for."""
        _, r, s, n = self.vqpns[qpn]
        for _ in range(16):
            base = rng.choice((r, s))
            psn = (base - 1 - rng.choice((0, 1, 2, rng.randrange(1 << 20)))) & PSN_MASK
            if not self.unsafe(qpn, psn):
                return psn
        return (r + n + (1 << 22)) & PSN_MASK


def rnd32(rng, near=()):
    c = rng.randrange(4)
    if c == 0:
        return rng.choice(INTERESTING32)
    if c == 1 and near:
        return (rng.choice(near) + rng.randrange(-4, 5)) & 0xffffffff
    if c == 2:
        return 1 << rng.randrange(32)
    return rng.getrandbits(32)


def rnd64(rng, near=()):
    c = rng.randrange(4)
    if c == 0:
        return rng.choice(INTERESTING64)
    if c == 1 and near:
        return (rng.choice(near) + rng.choice((0, 1, -1, 4096, -4096, 1 << 16,
                                               1 << 32, -(1 << 32)))) & ((1 << 64) - 1)
    if c == 2:
        return 1 << rng.randrange(64)
    return rng.getrandbits(64)


class Fuzzer:
    # Mutation classes and their weights; raw-only ones are skipped in udp
    # mode.
    CLASSES = [('field', 6), ('length', 3), ('truncate', 2), ('overlong', 2),
               ('opseq', 3), ('acknak', 4), ('bigread', 3), ('dupread', 2),
               ('icrc', 1), ('gsi', 2), ('havoc', 3), ('spoof', 2),
               ('iplen', 2), ('frag', 1)]
    RAW_ONLY = {'spoof', 'iplen', 'frag'}
    # Of the packets of the other classes, this share gets a wrong ICRC.
    BAD_ICRC = 0.08

    def __init__(self, args, live, seedlist):
        self.args = args
        self.live = live
        self.rng = random.Random(args.seed)
        self.seeds = [s for s in seedlist]
        self.classes = [(c, w) for c, w in self.CLASSES
                        if args.mode != 'udp' or c not in self.RAW_ONLY]
        self.sent = {c: 0 for c, _ in self.classes}
        self.errors = 0
        self.bad_icrc = 0
        self.v6 = 0

    # --- choosing a QP and a PSN ---------------------------------------------
    def aim(self, p, want_resp=None):
        """Point p at a live QP: a victim with a safe PSN, or a target with
        a PSN in its window (requests to its responder, responses to its
        requester)."""
        rng, t = self.rng, self.live.target
        resp = (p.opcode & 0x1f) in range(0x0d, 0x13) and p.opcode < 0x20
        if want_resp is not None:
            resp = want_resp
        if t and self.cur_v6 and 'resp6_qpn' in t and rng.random() < 0.6:
            # The only QP whose path is IPv6: requests and ghost responses.
            p.bth['dqpn'] = t['resp6_qpn']
            p.bth['psn'] = (t['resp6_psn'] + rng.randrange(-8, 48)) & PSN_MASK
        elif t and rng.random() < 0.6:
            if resp:
                p.bth['dqpn'] = t['req_qpn']
                p.bth['psn'] = (t['req_psn'] + rng.randrange(-4, t['req_span'] + 4)) & PSN_MASK
            else:
                p.bth['dqpn'] = t['resp_qpn']
                p.bth['psn'] = (t['resp_psn'] + rng.randrange(-8, 48)) & PSN_MASK
        elif self.live.victims:
            q = rng.choice(self.live.victims)[0]
            p.bth['dqpn'] = q
            p.bth['psn'] = self.live.safe_psn(rng, q)
        else:
            p.bth['dqpn'] = rng.getrandbits(24)
            p.bth['psn'] = rng.getrandbits(24)
        self.aim_mr(p)

    def aim_mr(self, p):
        rng = self.rng
        if not self.live.mrs:
            return
        rkey, va, length = rng.choice(self.live.mrs)
        for name in ('RETH', 'ATOMICETH'):
            h = p.hdr(name)
            if h is None:
                continue
            h['rkey'] = rkey
            h['va'] = va + rng.choice((0, 8, length - 64, length // 2))
            if name == 'RETH':
                h['len'] = min(h['len'], 256) if h['len'] else rng.choice((0, 64))
        ieth = p.hdr('IETH')
        if ieth is not None:
            ieth['ieth_rkey'] = rkey if rng.random() < 0.5 else rkey ^ 1

    def near(self):
        t = self.live.target
        out = [m[0] for m in self.live.mrs] + [m[1] for m in self.live.mrs]
        out += [v[0] for v in self.live.victims]
        if t:
            out += [t['resp_qpn'], t['req_qpn'], t['resp_psn'], t['req_psn']]
        return out

    def seed(self, v6=False, ops=None):
        pool = [s for s in self.seeds if (s[0] == 6) == v6 and
                (ops is None or s[2].opcode in ops)]
        if not pool:
            pool = [s for s in self.seeds if ops is None or s[2].opcode in ops]
        return self.rng.choice(pool)[2].copy()

    # --- mutation classes --------------------------------------------------------
    def m_field(self, p):
        """One to three header fields set to interesting or random values."""
        rng, near = self.rng, self.near()
        self.aim(p)
        for _ in range(rng.randrange(1, 4)):
            choices = ['opcode', 'se', 'mig', 'pad', 'tver', 'pkey', 'dqpn',
                       'psn', 'ackreq', 'resv']
            for name, h in p.hdrs:
                choices += [(name, f) for f in h]
            c = rng.choice(choices)
            if c == 'opcode':
                p.opcode = rng.choice(list(OPCODES) + [rng.randrange(256)])
            elif c in ('se', 'mig', 'ackreq'):
                p.bth[c] ^= 1
            elif c == 'pad':
                p.pad_fix = False
                p.bth['pad'] = rng.randrange(4)
            elif c == 'tver':
                p.bth['tver'] = rng.randrange(1, 16)
            elif c == 'pkey':
                p.bth['pkey'] = rng.choice((0, 0x7fff, 0x8000, 0xfffe,
                                            rng.getrandbits(16)))
            elif c == 'dqpn':
                p.bth['dqpn'] = rng.choice((0, 1, 2, PSN_MASK, rnd32(rng, near) & PSN_MASK))
            elif c == 'psn':
                p.bth['psn'] = (p.bth['psn'] + rng.choice(
                    (1, -1, 1 << 22, 1 << 23, -(1 << 23), rng.getrandbits(24)))) & PSN_MASK
            elif c == 'resv':
                p.bth['resv8'] = rng.getrandbits(8)
                p.bth['resv7'] = rng.getrandbits(7)
            else:
                name, f = c
                h = p.hdr(name)
                if f in ('va', 'swap', 'compare', 'orig'):
                    h[f] = rnd64(rng, near)
                elif f == 'aeth':
                    h[f] = (rng.getrandbits(8) << 24) | rnd32(rng, near) & PSN_MASK
                else:
                    h[f] = rnd32(rng, near)

    def m_length(self, p):
        """Payload length against the headers: empty, off by one around the
        MTU, beyond it, and a pad count that does not match."""
        rng = self.rng
        self.aim(p)
        n = rng.choice((0, 1, 3, 4, MTU - 1, MTU, MTU + 1, MTU + 4,
                        1400, rng.randrange(1400)))
        p.payload = bytes(rng.getrandbits(8) for _ in range(n))
        if rng.random() < 0.5:
            p.pad_fix = False
            p.bth['pad'] = rng.randrange(4)
        reth = p.hdr('RETH')
        if reth is not None and rng.random() < 0.5:
            reth['len'] = (n + rng.choice((-1, 1, 4, MTU, -n))) & 0xffffffff

    def m_opseq(self, p):
        """Opcodes out of sequence: a MIDDLE or LAST with no FIRST, a FIRST
        after a FIRST, UC and UD opcodes to an RC QP."""
        rng = self.rng
        ops = [0x01, 0x02, 0x03, 0x07, 0x08, 0x09, 0x0e, 0x0f, 0x21, 0x22,
               0x27, 0x28, 0x64, 0x00, 0x06]
        p2 = self.seed(ops=[rng.choice(ops)])
        self.aim(p2, want_resp=p2.opcode in (0x0e, 0x0f))
        return p2

    def m_acknak(self, p):
        """ACKs, NAKs (every syndrome, reserved ones too), atomic ACKs and
        READ responses naming PSNs in and around a requester's window."""
        rng, t = self.rng, self.live.target
        op = rng.choice((ACK, ACK, ATOMIC_ACK, 0x0d, 0x0e, 0x0f, 0x10))
        p2 = self.seed(ops=[op])
        self.aim(p2, want_resp=True)
        syn = rng.choice((0x00, 0x1f, 0x20, 0x21, 0x3f, 0x40, 0x5f, 0x60,
                          0x61, 0x62, 0x63, 0x64, 0x65, 0x7f, 0x80, 0xff,
                          rng.getrandbits(8)))
        aeth = p2.hdr('AETH')
        if aeth is not None:
            msn = rng.choice((0, 1, 2, PSN_MASK, rng.getrandbits(24)))
            aeth['aeth'] = (syn << 24) | msn
        if t and p2.bth['dqpn'] == t['req_qpn'] and rng.random() < 0.5:
            # Exactly the PSN of an outstanding WR, or its last.
            p2.bth['psn'] = (t['req_psn'] + rng.randrange(t['req_span'])) & PSN_MASK
        return p2

    def m_bigread(self, p):
        """READ requests of up to 2^32-1 bytes at a live MR."""
        rng = self.rng
        p2 = self.seed(ops=[READ_REQ])
        self.aim(p2, want_resp=False)
        reth = p2.hdr('RETH')
        mrs = self.live.mrs or [(rng.getrandbits(32), rng.getrandbits(64), 4096)]
        rkey, va, length = rng.choice(mrs)
        reth['rkey'] = rkey if rng.random() < 0.9 else rnd32(rng, [rkey])
        reth['va'] = rng.choice((va, va + length - 1, va + length, va - 1,
                                 rnd64(rng, [va])))
        reth['len'] = rng.choice((0xffffffff, 0x80000000, 0x7fffffff,
                                  0x80000001, 1 << 24, length, length + 1,
                                  MTU * 4096, rnd32(rng, [length])))
        return p2

    def m_dupread(self, p):
        """A READ, then the same READ again with a PSN behind (a duplicate the
        responder must answer from its record) and changed lengths."""
        rng, t = self.rng, self.live.target
        p2 = self.seed(ops=[READ_REQ])
        self.aim(p2, want_resp=False)
        reth = p2.hdr('RETH')
        reth['len'] = rng.choice((8, 64, MTU, MTU + 1, 4 * MTU))
        first = p2.copy()
        p2.bth['psn'] = (p2.bth['psn'] - rng.choice((0, 1, 2, 8))) & PSN_MASK
        if rng.random() < 0.5:
            reth['len'] = rng.choice((0, 1, 0xffffffff, reth['len'] * 2))
        if rng.random() < 0.3:
            reth['va'] += rng.choice((1, 8, -8))
        if t is None or first.bth['dqpn'] not in (t['resp_qpn'], t.get('resp6_qpn')) or \
                self.live.unsafe(p2.bth['dqpn'], p2.bth['psn']):
            p2.bth['psn'] = first.bth['psn']
        return [first, p2]

    def m_gsi(self, p):
        """UD SENDs to QP1 (the GSI, every device has it) with a MAD-like
        payload, the GSI's Q_Key or another."""
        rng = self.rng
        p2 = self.seed(ops=[0x64, 0x65])
        p2.bth['dqpn'] = 1
        p2.bth['psn'] = rng.getrandbits(24)
        deth = p2.hdr('DETH')
        deth['qkey'] = GSI_QKEY if rng.random() < 0.7 else rnd32(rng)
        deth['sqpn'] = rng.choice((1, 0, rng.getrandbits(24)))
        # base version 1, class (SA, PM, CM, ...), class version, method.
        mad = bytearray(rng.getrandbits(8) for _ in range(256))
        mad[0] = rng.choice((1, 1, 2, rng.getrandbits(8)))
        mad[1] = rng.choice((0x03, 0x04, 0x07, 0x10, 0x81, rng.getrandbits(8)))
        mad[2] = rng.choice((1, 2, 3))
        mad[3] = rng.choice((0x01, 0x02, 0x03, 0x81, rng.getrandbits(8)))
        n = rng.choice((256, 256, 255, 0, 24, 257, rng.randrange(512)))
        p2.payload = bytes(mad[:n]) + bytes(max(0, n - 256))
        return p2

    def m_icrc(self, p):
        """A sound packet with a wrong ICRC: the check must drop it."""
        self.aim(p)
        p.icrc = 'bad'

    def m_havoc(self, p):
        """Random bytes of the encoded packet flipped, set, inserted or cut
        (the victims' PSNs still kept out of their windows)."""
        rng = self.rng
        self.aim(p)
        b = bytearray(p.encode())
        for _ in range(rng.randrange(1, 8)):
            c = rng.randrange(4) if len(b) else 2
            i = rng.randrange(len(b) + 1)
            if c == 0 and i < len(b):
                b[i] ^= 1 << rng.randrange(8)
            elif c == 1 and i < len(b):
                b[i] = rng.choice((0, 0xff, 0x7f, 0x80, rng.getrandbits(8)))
            elif c != 3:
                b[i:i] = bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 16)))
            elif len(b) > 13:
                del b[i:i + rng.randrange(1, 16)]
        return bytes(b)

    # --- framing ------------------------------------------------------------------
    def build(self, cls):
        """A packet (bytes from the BTH on, or a Pkt) and framing options."""
        rng = self.rng
        v6 = self.args.dst6 is not None and rng.random() < 0.2
        self.cur_v6 = v6
        p = self.seed(v6=v6)
        p.icrc = None
        fr = dict(v6=v6, icrc='ok', spoof=None, iplen=None, ulen=None,
                  frag=False, opts=False, cut=None, extra=b'')
        if cls in ('field', 'length', 'icrc'):
            getattr(self, 'm_' + cls)(p)
            out = p
            if getattr(p, 'icrc', None) == 'bad':
                fr['icrc'] = 'bad'
        elif cls in ('opseq', 'acknak', 'bigread', 'dupread', 'gsi', 'havoc'):
            out = getattr(self, 'm_' + cls)(p)
        elif cls == 'truncate':
            self.aim(p)
            out = p
            fr['cut'] = rng.randrange(0, len(p.encode()) + 4)
        elif cls == 'overlong':
            self.aim(p)
            out = p
            fr['extra'] = bytes(rng.getrandbits(8) for _ in range(
                rng.choice((1, 3, 4, 64, rng.randrange(1200)))))
        elif cls == 'spoof':
            self.aim(p)
            out = p
            if v6:
                fr['spoof'] = rng.choice(('fe80::1', 'fe80::dead:beef',
                                          self.args.dst6, '::1'))
            else:
                fr['spoof'] = rng.choice((
                    '192.0.2.77', '192.0.2.1', '192.0.2.3', '198.51.100.1',
                    '198.51.100.2', '0.0.0.0', '127.0.0.1', '192.0.2.255'))
        elif cls == 'iplen':
            self.aim(p)
            out = p
            n = len(p.encode()) + 4
            c = rng.randrange(3)
            if c == 0:
                fr['iplen'] = rng.choice((0, 20, 27, 28, 28 + 12, 20 + 8 + n - 1,
                                          20 + 8 + n + 1, 0xffff)) - (20 if v6 else 0)
            elif c == 1:
                fr['ulen'] = rng.choice((0, 7, 8, 9, 8 + 12, 8 + n - 1, 8 + n + 1,
                                         8 + n - 4, 0xffff))
            elif not v6:
                fr['opts'] = True
        elif cls == 'frag':
            # Fragments are IPv4 only here.
            fr['v6'] = self.cur_v6 = False
            self.aim(p)
            p.payload = bytes(rng.getrandbits(8) for _ in range(rng.choice((64, 900, 1000))))
            out = p
            fr['frag'] = True
        if cls not in ('icrc',) and rng.random() < self.BAD_ICRC:
            fr['icrc'] = 'bad'
        return out, fr

    def unsafe_bytes(self, b):
        return len(b) >= 12 and self.live.unsafe(int.from_bytes(b[5:8], 'big'),
                                                 int.from_bytes(b[9:12], 'big'))

    def keep_safe(self, body):
        """Whatever a mutation did, a victim's live window is not hit."""
        if len(body) < 12:
            return body
        dqpn = int.from_bytes(body[5:8], 'big')
        psn = int.from_bytes(body[9:12], 'big')
        if self.live.unsafe(dqpn, psn):
            psn = self.live.safe_psn(self.rng, dqpn)
            body = body[:9] + psn.to_bytes(3, 'big') + body[12:]
        return body

    def frame(self, out, fr):
        """(what to send, ipver): the RoCE part in udp mode, a whole Ethernet
        frame (or several, for fragments) in raw mode.  The ICRC is computed
        over the IP and UDP headers as the receiver will see them (the
        kernel's, in udp mode: IP ID 0 with DF), unless the packet is meant
        to carry a wrong one."""
        a, rng = self.args, self.rng
        body = out.encode() if isinstance(out, Pkt) else out
        body = self.keep_safe(body) + fr['extra']
        if fr['cut'] is not None:
            body = body[:fr['cut']]
        v6 = fr['v6']
        src = fr['spoof'] or (a.src6 if v6 else a.src)
        dst = a.dst6 if v6 else a.dst
        dlen = 8 + len(body) + 4        # the UDP datagram
        ident = 0 if a.mode == 'udp' else rng.randrange(1, 0xffff)
        if v6:
            ip = roce_forge.ip6(src, dst, dlen, plen=fr['iplen'])
        elif fr['frag']:
            # Reassembled, the header has frag_off 0 and the full length.
            ip = roce_forge.ip4(src, dst, dlen, ident=ident, frag=0)
        else:
            ip = roce_forge.ip4(src, dst, dlen, ident=ident, tot_len=fr['iplen'])
        ulen = dlen if fr['ulen'] is None else fr['ulen']
        crc = roce_forge.icrc(ip, struct.pack('>HHHH', self.sport,
                                              roce_forge.ROCE_PORT, ulen, 0), body)
        if fr['icrc'] == 'bad':
            crc = self.spoil(crc)
        # Cut inside the BTH, the ICRC's bytes stand where the QPN and PSN
        # were: if they name a victim's window, the ICRC is made wrong
        # (a packet that short would fail parsing anyway).
        for _ in range(8):
            if len(body) >= 12 or not self.unsafe_bytes(body + crc):
                break
            crc = self.spoil(crc)
        else:
            # The body's own bytes name the victim: another QPN then.
            body = body[:5] + b'\xff\xff\xff'[:max(0, len(body) - 5)] + body[8:]
        roce = body + crc
        if a.mode == 'udp':
            return [roce], v6
        u = roce_forge.udp(ip, self.sport, roce, ulen=fr['ulen'])
        if v6:
            return [self.eth(0x86dd, ip + u + roce)], v6
        if fr['frag']:
            dgram = u + roce
            cut = max(8, (rng.randrange(8, min(len(dgram), 600)) // 8) * 8)
            parts = [(0, dgram[:cut], 0x2000), (cut // 8, dgram[cut:], 0)]
            if rng.random() < 0.3:
                parts.reverse()
            return [self.eth(0x0800, roce_forge.ip4(src, dst, len(d), ident=ident,
                                                    frag=mf | off) + d)
                    for off, d, mf in parts], v6
        if fr['opts']:
            # IHL 6: one word of options (NOPs, then end of list).
            ip = bytearray(ip[:20] + b'\x01\x01\x01\x00')
            ip[0] = 0x46
            ip[2:4] = struct.pack('>H', 24 + dlen)
            ip[10:12] = b'\0\0'
            ip[10:12] = struct.pack('>H', roce_forge.checksum(bytes(ip)))
            ip = bytes(ip)
        return [self.eth(0x0800, ip + u + roce)], v6

    def spoil(self, crc):
        self.bad_icrc += 1
        return bytes(c ^ m for c, m in zip(crc, self.rng.randrange(1, 1 << 32).to_bytes(4, 'big')))

    def eth(self, etype, payload):
        return self.dst_mac + self.src_mac + struct.pack('>H', etype) + payload


def open_sockets(args, fz):
    if args.mode == 'null':
        fz.sport = 49152
        fz.dst_mac = fz.src_mac = bytes(6)
        return lambda frames, v6: None
    if args.mode == 'udp':
        s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        # DF and no fragmentation: then the kernel sends IP ID 0, which the
        # ICRC covers (ip_select_ident for an unconnected DF socket).
        s4.setsockopt(socket.IPPROTO_IP, 10, 2)    # IP_MTU_DISCOVER, _DO
        s4.bind((args.src, 0))
        fz.sport = s4.getsockname()[1]
        s6 = None
        if args.dst6:
            s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
            s6.setsockopt(socket.IPPROTO_IPV6, 23, 2)  # IPV6_MTU_DISCOVER
            scope = socket.if_nametoindex(args.ifname) if args.ifname else 0
            # The same port as IPv4: the ICRC is computed with one port.
            s6.bind((args.src6, fz.sport, 0, scope))
        dst6 = (args.dst6, 4791, 0, socket.if_nametoindex(args.ifname)) \
            if args.dst6 and args.ifname else None

        def send(frames, v6):
            for f in frames:
                if v6:
                    s6.sendto(f, dst6)
                else:
                    s4.sendto(f, (args.dst, 4791))
        return send
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((args.ifname, 0))
    fz.sport = 49152 + fz.rng.randrange(1000)
    fz.dst_mac = bytes.fromhex(args.dst_mac.replace(':', ''))
    with open(f'/sys/class/net/{args.ifname}/address') as f:
        fz.src_mac = bytes.fromhex(f.read().strip().replace(':', ''))

    def send(frames, v6):
        for f in frames:
            s.send(f)
    return send


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument('--vectors', required=True)
    ap.add_argument('--mode', choices=('udp', 'raw', 'null'), default='null',
                    help='null: build the packets, send nothing')
    ap.add_argument('--src', default='192.0.2.2')
    ap.add_argument('--dst', default='192.0.2.1')
    ap.add_argument('--self-test', action='store_true')
    ap.add_argument('--src6')
    ap.add_argument('--dst6')
    ap.add_argument('--ifname')
    ap.add_argument('--dst-mac')
    ap.add_argument('--victim', action='append', default=[])
    ap.add_argument('--mr', action='append', default=[])
    ap.add_argument('--target')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--count', type=int, default=1000)
    ap.add_argument('--seconds', type=float, default=60)
    ap.add_argument('--rate', type=float, default=0, help='packets/s cap')
    ap.add_argument('--classes', help='only these mutation classes (a,b,...)')
    ap.add_argument('--dump', help='write every packet sent, hex, to this file')
    ap.add_argument('--replay', help='send the frames of a --dump file again')
    args = ap.parse_args()
    if args.self_test:
        self_test(args.vectors)
        return

    live = Live(args)
    fz = Fuzzer(args, live, seeds(args.vectors))
    send = open_sockets(args, fz)
    if args.replay:
        n = 0
        for line in open(args.replay):
            cls, ver, *frames = line.split()
            send([bytes.fromhex(f) for f in frames], ver == '6')
            n += 1
        print(f'fuzz: replayed {n} packets from {args.replay}')
        return
    if args.classes:
        keep = args.classes.split(',')
        fz.classes = [(c, w) for c, w in fz.classes if c in keep]
        fz.sent = {c: 0 for c, _ in fz.classes}
    names = [c for c, _ in fz.classes]
    weights = [w for _, w in fz.classes]
    dump = open(args.dump, 'w') if args.dump else None
    start = time.monotonic()
    n = 0
    cut = ''
    while n < args.count:
        if time.monotonic() - start > args.seconds:
            cut = f' (stopped at the {args.seconds:.0f} s limit)'
            break
        cls = fz.rng.choices(names, weights)[0]
        out, fr = fz.build(cls)
        for o in (out if isinstance(out, list) else [out]):
            frames, v6 = fz.frame(o, fr)
            try:
                send(frames, v6)
            except OSError:
                # e.g. EMSGSIZE for an over-long datagram with DF, EINVAL
                # for a spoofed source: counted, not fatal.
                fz.errors += 1
            if dump:
                dump.write(f'{cls} {6 if v6 else 4} ' +
                           ' '.join(f.hex() for f in frames) + '\n')
            fz.sent[cls] += 1
            fz.v6 += v6
            n += 1
        if args.rate:
            ahead = n / args.rate - (time.monotonic() - start)
            if ahead > 0:
                time.sleep(ahead)
    dt = time.monotonic() - start
    per = ' '.join(f'{c}={k}' for c, k in fz.sent.items())
    print(f'fuzz: mode {args.mode} seed {args.seed}: {n} packets in {dt:.1f} s{cut} '
          f'({fz.v6} IPv6, {fz.bad_icrc} with a wrong ICRC, {fz.errors} refused by '
          f'the local stack): {per}')


if __name__ == '__main__':
    main()
