#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
"""A minimal user-space virtio-rdma driver over vhost-vdpa, acting as a VM.

    vhost_rdma.py /dev/vhost-vdpa-N MAC IPV4
    vhost_rdma.py --hold /dev/vhost-vdpa-N READY

A VM reaches a vdpa_rdma device bound to vhost_vdpa through QEMU's generic
vhost-vdpa-device; QEMU 10 cannot present virtio device 42, so this module
does what QEMU and the guest driver would do together, from one process:
the vhost-vdpa ioctls (owner, backend features, features, status, config,
vrings, suspend/resume) and the IOTLB messages written to the fd that map
this process's memory (the "guest RAM", one anonymous mmap) at IOVAs of our
choice.  The virtqueues (split rings), command buffers and the CQ ring live
in that memory and every address given to the device is an IOVA, so the
device reaches all of it through its IOTLB, as it would a VM's.

    dev = VhostRdma('/dev/vhost-vdpa-0')  # open, SET_OWNER, backend features
    dev.start()                           # features, IOTLB, vrings, DRIVER_OK
    status, resp = dev.cmd('QUERY_DEVICE')
    dev.suspend(); dev.vring_base(0); dev.resume()
    dev.close()                           # the device resets

Run as a program it checks the device the way tools/scenarios/vhost-driver
describes (main() below): MAC is the netdev's, IPV4 its address.  With
--hold it is a VM that keeps the device busy: it starts it, creates a PD
and a CQ, creates the file READY and waits (at most 300 s) to be killed,
as QEMU is when its VM goes away abruptly.

Layouts and numbers come from their definitions, not from memory: the
vhost structs and ioctl numbers from include/uapi/linux/vhost.h and
vhost_types.h (each stated in a comment below), every virtio-rdma command
code, status and struct from include/uapi/linux/virtio_rdma.h through
virtio_rdma_abi.py.

Exit status of main(): 0 all checks passed, 1 a check failed, 2 bad usage.
"""
import ctypes
import fcntl
import mmap
import os
import select
import struct
import sys
import time

# The commands and layouts as the raw_cmd checks know them.
from ctrl_invalid import (ABI, CMD, CQE, CTL, HDR, OK, RESP, RESP_HDR, RING_CTL, Checks, h,
                          phys_addr, resp_size, st)

CONFIG = ABI.s('config')
EVENT = ABI.s('event')
VIRTIO_ID_RDMA = ABI.c('VIRTIO_ID_RDMA')


PAGE = 4096

# --- vhost ioctls (include/uapi/asm-generic/ioctl.h: dir:2 size:14 type:8 nr:8) ---
_IOC_NONE, _IOC_WRITE, _IOC_READ = 0, 1, 2
VHOST_VIRTIO = 0xAF


def _ioc(direction, nr, size):
    return (direction << 30) | (size << 16) | (VHOST_VIRTIO << 8) | nr


def _io(nr):
    return _ioc(_IOC_NONE, nr, 0)


def _ior(nr, size):
    return _ioc(_IOC_READ, nr, size)


def _iow(nr, size):
    return _ioc(_IOC_WRITE, nr, size)


def _iowr(nr, size):
    return _ioc(_IOC_READ | _IOC_WRITE, nr, size)


# struct vhost_vring_state { unsigned int index; unsigned int num; }      8 bytes
VRING_STATE = struct.Struct('<II')
# struct vhost_vring_file { unsigned int index; int fd; }                  8 bytes
VRING_FILE = struct.Struct('<Ii')
# struct vhost_vring_addr { unsigned int index, flags; __u64 desc_user_addr,
#   used_user_addr, avail_user_addr, log_guest_addr; }                    40 bytes
VRING_ADDR = struct.Struct('<IIQQQQ')
# struct vhost_vdpa_config { __u32 off; __u32 len; __u8 buf[]; }   8 bytes + buf
VDPA_CONFIG = struct.Struct('<II')
# struct vhost_msg_v2 { __u32 type; __u32 asid; union { struct vhost_iotlb_msg
#   { __u64 iova, size, uaddr; __u8 perm; __u8 type; } iotlb; __u8 padding[64]; }; }
#   72 bytes: the iotlb message (26 bytes) padded to the union's 64.
MSG_V2 = struct.Struct('<IIQQQBB38x')

IOCTLS = {
    'VHOST_GET_FEATURES': _ior(0x00, 8),              # 0x8008af00
    'VHOST_SET_FEATURES': _iow(0x00, 8),              # 0x4008af00
    'VHOST_SET_OWNER': _io(0x01),                     # 0x0000af01
    'VHOST_SET_VRING_NUM': _iow(0x10, VRING_STATE.size),   # 0x4008af10
    'VHOST_SET_VRING_ADDR': _iow(0x11, VRING_ADDR.size),   # 0x4028af11
    'VHOST_SET_VRING_BASE': _iow(0x12, VRING_STATE.size),  # 0x4008af12
    'VHOST_GET_VRING_BASE': _iowr(0x12, VRING_STATE.size),  # 0xc008af12
    'VHOST_SET_VRING_KICK': _iow(0x20, VRING_FILE.size),   # 0x4008af20
    'VHOST_SET_VRING_CALL': _iow(0x21, VRING_FILE.size),   # 0x4008af21
    'VHOST_SET_BACKEND_FEATURES': _iow(0x25, 8),      # 0x4008af25
    'VHOST_GET_BACKEND_FEATURES': _ior(0x26, 8),      # 0x8008af26
    'VHOST_VDPA_GET_DEVICE_ID': _ior(0x70, 4),        # 0x8004af70
    'VHOST_VDPA_GET_STATUS': _ior(0x71, 1),           # 0x8001af71
    'VHOST_VDPA_SET_STATUS': _iow(0x72, 1),           # 0x4001af72
    'VHOST_VDPA_GET_CONFIG': _ior(0x73, VDPA_CONFIG.size),  # 0x8008af73
    'VHOST_VDPA_SET_VRING_ENABLE': _iow(0x75, VRING_STATE.size),  # 0x4008af75
    'VHOST_VDPA_GET_VRING_NUM': _ior(0x76, 2),        # 0x8002af76
    'VHOST_VDPA_GET_CONFIG_SIZE': _ior(0x79, 4),      # 0x8004af79
    'VHOST_VDPA_SUSPEND': _io(0x7D),                  # 0x0000af7d
    'VHOST_VDPA_RESUME': _io(0x7E),                   # 0x0000af7e
    'VHOST_VDPA_GET_VQS_COUNT': _ior(0x80, 4),        # 0x8004af80
}

# vhost_types.h: message types, IOTLB message types and permissions.
VHOST_IOTLB_MSG_V2 = 0x2
VHOST_IOTLB_UPDATE = 2
VHOST_IOTLB_INVALIDATE = 3
VHOST_IOTLB_BATCH_BEGIN = 5
VHOST_IOTLB_BATCH_END = 6
VHOST_ACCESS_RW = 0x3
# Backend feature bit numbers (VHOST_BACKEND_F_*).
BACKEND_F = {'IOTLB_MSG_V2': 1, 'IOTLB_BATCH': 2, 'IOTLB_ASID': 3, 'SUSPEND': 4,
             'RESUME': 5, 'ENABLE_AFTER_DRIVER_OK': 6, 'DESC_ASID': 7,
             'IOTLB_PERSIST': 8}
# What this driver negotiates.  Not IOTLB_PERSIST: a VM's IOTLB must not
# outlive its reset.  Not IOTLB_ASID: one address space, and without it the
# kernel ignores the message's asid word.
BACKEND_WANT = ('IOTLB_MSG_V2', 'IOTLB_BATCH', 'SUSPEND', 'RESUME')

# virtio_config.h / virtio_ring.h
S_ACKNOWLEDGE, S_DRIVER, S_DRIVER_OK, S_FEATURES_OK = 1, 2, 4, 8
S_NEEDS_RESET, S_FAILED = 0x40, 0x80
F_VERSION_1, F_ACCESS_PLATFORM = 32, 33
VRING_DESC_F_NEXT, VRING_DESC_F_WRITE = 1, 2


class VhostError(Exception):
    """An ioctl or IOTLB write the kernel refused: names it and the errno."""

    def __init__(self, name, errno):
        super().__init__(f'{name}: {os.strerror(errno)} (errno {errno})')
        self.name, self.errno = name, errno


class DeviceTimeout(Exception):
    """The device did not mark a buffer used in time."""


# --- guest memory --------------------------------------------------------------------
# One anonymous mapping is the VM's RAM.  It is mapped into the IOTLB as
# separate regions, one IOTLB_UPDATE each, so that one region can be
# invalidated alone: vhost-vdpa drops whole entries that overlap an
# invalidated range.
IOVA_BASE = 0x40_0000_0000      # not the identity: the device must translate
MEM_PAGES = 512                 # 2 MiB
REGIONS = {                     # name: (first page, pages)
    'rings': (0, 16),           # the vrings, 4 pages each
    'bufs': (16, 48),           # command buffers (2 pages a slot), event buffers
    'cq': (64, 4),              # a CQ ring the VM unmaps
    'spare': (68, MEM_PAGES - 68),
}
CMD_SLOTS = 8                   # request page + response page each, from page 16
EVENT_PAGE = 40                 # event buffers, 16 bytes each
UNMAPPED_IOVA = IOVA_BASE + (1 << 30)   # in no IOTLB entry


class GuestMemory:
    """Locked, populated anonymous pages and their IOVAs."""

    def __init__(self, pages=MEM_PAGES):
        flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x8000   # MAP_POPULATE
        self.size = pages * PAGE
        self.m = mmap.mmap(-1, self.size, flags=flags)
        self.uaddr = ctypes.addressof(ctypes.c_char.from_buffer(self.m))

    @staticmethod
    def iova(off):
        return IOVA_BASE + off

    def release(self, off, n):
        """Give pages back to the kernel, as a VM's balloon does: only a
        reference someone else holds keeps them from being freed.  A fresh
        anonymous mapping over them (MAP_FIXED), not MADV_DONTNEED: the test
        kernel has no madvise (CONFIG_ADVISE_SYSCALLS=n).  They read as zeros
        afterwards."""
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                              ctypes.c_int, ctypes.c_long)
        flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x10     # MAP_FIXED
        addr = libc.mmap(self.uaddr + off, n, mmap.PROT_READ | mmap.PROT_WRITE, flags, -1, 0)
        if addr != self.uaddr + off:
            raise OSError(ctypes.get_errno(), f'mmap MAP_FIXED: {os.strerror(ctypes.get_errno())}')

    def zero(self, off, n):
        self.m[off:off + n] = bytes(n)

    def put(self, off, data):
        self.m[off:off + len(data)] = data

    def get(self, off, n):
        return bytes(self.m[off:off + n])

    def u16(self, off):
        return struct.unpack_from('<H', self.m, off)[0]

    def u32(self, off):
        return struct.unpack_from('<I', self.m, off)[0]


# --- split virtqueues ------------------------------------------------------------------
class SplitRing:
    """A split virtqueue in guest memory: descriptor table, avail and used
    rings at page offsets DESC, AVAIL and USED, NUM entries."""

    def __init__(self, mem, index, num, desc, avail, used):
        self.mem, self.index, self.num = mem, index, num
        self.desc, self.avail, self.used = desc, avail, used
        for off, size in ((desc, 16 * num), (avail, 6 + 2 * num), (used, 6 + 8 * num)):
            mem.zero(off, size)
        self.free = list(range(num))
        self.chains = {}            # head -> descriptor ids
        self.avail_idx = 0
        self.last_used = 0

    def post(self, bufs, cookie=None):
        """Make one chain of (iova, len, device-writable) buffers available;
        returns its head; pop_used() gives COOKIE back with it.  x86 keeps
        stores in program order, so the entries are visible before the index
        that publishes them."""
        if len(bufs) > len(self.free):
            raise RuntimeError(f'vq {self.index}: no free descriptors')
        ids = [self.free.pop(0) for _ in bufs]
        for k, (addr, length, writable) in enumerate(bufs):
            flags = (VRING_DESC_F_WRITE if writable else 0) | \
                (VRING_DESC_F_NEXT if k + 1 < len(ids) else 0)
            nxt = ids[k + 1] if k + 1 < len(ids) else 0
            self.mem.put(self.desc + 16 * ids[k], struct.pack('<QIHH', addr, length, flags, nxt))
        self.chains[ids[0]] = (ids, cookie)
        self.mem.put(self.avail + 4 + 2 * (self.avail_idx % self.num),
                     struct.pack('<H', ids[0]))
        self.avail_idx = (self.avail_idx + 1) & 0xffff
        self.mem.put(self.avail + 2, struct.pack('<H', self.avail_idx))
        return ids[0]

    def used_idx(self):
        return self.mem.u16(self.used + 2)

    def pop_used(self):
        """The next used element (id, len, cookie), or None."""
        if self.used_idx() == self.last_used:
            return None
        elem = self.used + 4 + 8 * (self.last_used % self.num)
        head, length = struct.unpack_from('<II', self.mem.m, elem)
        self.last_used = (self.last_used + 1) & 0xffff
        ids, cookie = self.chains.pop(head, ([], None))
        self.free.extend(ids)
        return head, length, cookie


class Used:
    """A command chain the device marked used: its length and the bytes of
    the writable part."""

    def __init__(self, head, length, data):
        self.head, self.len, self.data = head, length, data

    @property
    def status(self):
        return RESP_HDR.unpack(self.data)['status'] if self.len >= RESP_HDR.size else None


# --- the device ----------------------------------------------------------------------
class VhostRdma:
    """One open /dev/vhost-vdpa-N: what QEMU does for a VM and what the VM's
    driver does, up to sending control commands."""

    CMD_TIMEOUT = 20.0      # a KASAN guest under TCG is slow; a command is not

    def __init__(self, path, mem=None):
        self.path = path
        self.mem = mem or GuestMemory()
        self.fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
        self.vqs, self.kick, self.call = {}, {}, {}
        self.events = []            # what drain_events() collected
        self.ioctl('VHOST_SET_OWNER')
        self.backend_offered = self.u64_get('VHOST_GET_BACKEND_FEATURES')
        self.backend = 0
        for name in BACKEND_WANT:
            if self.backend_offered & (1 << BACKEND_F[name]):
                self.backend |= 1 << BACKEND_F[name]
        self.ioctl('VHOST_SET_BACKEND_FEATURES', struct.pack('<Q', self.backend))
        self.batch = bool(self.backend & (1 << BACKEND_F['IOTLB_BATCH']))
        self.device_id = struct.unpack('<I', self.ioctl('VHOST_VDPA_GET_DEVICE_ID', bytes(4)))[0]
        self.features_offered = self.u64_get('VHOST_GET_FEATURES')
        self.nvqs = struct.unpack('<I', self.ioctl('VHOST_VDPA_GET_VQS_COUNT', bytes(4)))[0]
        self.vring_num_max = struct.unpack(
            '<H', self.ioctl('VHOST_VDPA_GET_VRING_NUM', bytes(2)))[0]
        self.config = self.read_config()

    # -- ioctls --
    def ioctl(self, name, arg=0):
        try:
            return fcntl.ioctl(self.fd, IOCTLS[name], arg)
        except OSError as e:
            raise VhostError(name, e.errno) from e

    def u64_get(self, name):
        return struct.unpack('<Q', self.ioctl(name, bytes(8)))[0]

    def backend_names(self, bits):
        return [n for n, b in BACKEND_F.items() if bits & (1 << b)]

    def read_config(self):
        size = struct.unpack('<I', self.ioctl('VHOST_VDPA_GET_CONFIG_SIZE', bytes(4)))[0]
        n = min(size, CONFIG.size)
        out = self.ioctl('VHOST_VDPA_GET_CONFIG', VDPA_CONFIG.pack(0, n) + bytes(n))
        return CONFIG.unpack(out[VDPA_CONFIG.size:].ljust(CONFIG.size, b'\0'))

    def status(self):
        return self.ioctl('VHOST_VDPA_GET_STATUS', bytes(1))[0]

    def set_status(self, status):
        self.ioctl('VHOST_VDPA_SET_STATUS', bytes([status]))

    def set_features(self, features):
        self.ioctl('VHOST_SET_FEATURES', struct.pack('<Q', features))

    def suspend(self):
        self.ioctl('VHOST_VDPA_SUSPEND')

    def resume(self):
        self.ioctl('VHOST_VDPA_RESUME')

    def vring_base(self, idx):
        """VHOST_GET_VRING_BASE: the device's next avail index of vq IDX."""
        return VRING_STATE.unpack(self.ioctl('VHOST_GET_VRING_BASE',
                                             VRING_STATE.pack(idx, 0)))[1]

    # -- IOTLB --
    def iotlb(self, name, kind, iova=0, size=0, uaddr=0):
        msg = MSG_V2.pack(VHOST_IOTLB_MSG_V2, 0, iova, size, uaddr, VHOST_ACCESS_RW, kind)
        try:
            n = os.write(self.fd, msg)
        except OSError as e:
            raise VhostError(name, e.errno) from e
        if n != len(msg):
            raise VhostError(name, 5)      # EIO: a short write is no answer

    def map(self, region):
        first, pages = REGIONS[region]
        off = first * PAGE
        self.iotlb('VHOST_IOTLB_UPDATE', VHOST_IOTLB_UPDATE, self.mem.iova(off),
                   pages * PAGE, self.mem.uaddr + off)

    def unmap(self, region):
        first, pages = REGIONS[region]
        self.iotlb('VHOST_IOTLB_INVALIDATE', VHOST_IOTLB_INVALIDATE,
                   self.mem.iova(first * PAGE), pages * PAGE)

    def map_all(self):
        """Every region, in one batch where the kernel takes batches (the
        device then rebuilds its IOTLB once)."""
        if self.batch:
            self.iotlb('VHOST_IOTLB_BATCH_BEGIN', VHOST_IOTLB_BATCH_BEGIN)
        for region in REGIONS:
            self.map(region)
        if self.batch:
            self.iotlb('VHOST_IOTLB_BATCH_END', VHOST_IOTLB_BATCH_END)

    # -- bring-up --
    def start(self, nqp_used=1, num=64):
        """Virtio initialisation as a VM's driver and QEMU do it: status,
        features, IOTLB, the controlq and NQP_USED eventq/doorbellq pairs,
        DRIVER_OK, eventq buffers."""
        self.negotiate()
        self.map_all()
        self.vqs = {}
        for q in [ABI.c('CTRLQ')] + [q for i in range(nqp_used) for q in (1 + 2 * i, 2 + 2 * i)]:
            self.setup_vq(q, num)
        self.set_status(S_ACKNOWLEDGE | S_DRIVER | S_FEATURES_OK | S_DRIVER_OK)
        if self.status() != S_ACKNOWLEDGE | S_DRIVER | S_FEATURES_OK | S_DRIVER_OK:
            raise RuntimeError(f'status after DRIVER_OK is {self.status():#x}')
        for i in range(1, 1 + 2 * nqp_used, 2):
            self.post_event_buffers(i)

    def negotiate(self):
        """Reset, ACKNOWLEDGE, DRIVER, the features, FEATURES_OK."""
        self.set_status(0)
        self.set_status(S_ACKNOWLEDGE)
        self.set_status(S_ACKNOWLEDGE | S_DRIVER)
        want = (1 << F_VERSION_1) | (1 << F_ACCESS_PLATFORM)
        self.set_features(self.features_offered & want)
        self.set_status(S_ACKNOWLEDGE | S_DRIVER | S_FEATURES_OK)
        if not self.status() & S_FEATURES_OK:
            raise RuntimeError(f'device refused FEATURES_OK (status {self.status():#x})')

    def setup_vq(self, idx, num):
        base = 4 * idx * PAGE       # desc, avail, used: a page each
        if base + 3 * PAGE > REGIONS['rings'][1] * PAGE:
            raise RuntimeError(f'no room for vq {idx}')
        vq = SplitRing(self.mem, idx, num, base, base + PAGE, base + 2 * PAGE)
        self.ioctl('VHOST_SET_VRING_NUM', VRING_STATE.pack(idx, num))
        self.ioctl('VHOST_SET_VRING_ADDR', VRING_ADDR.pack(
            idx, 0, self.mem.iova(vq.desc), self.mem.iova(vq.used), self.mem.iova(vq.avail), 0))
        self.ioctl('VHOST_SET_VRING_BASE', VRING_STATE.pack(idx, 0))
        for name, fds in (('VHOST_SET_VRING_KICK', self.kick), ('VHOST_SET_VRING_CALL', self.call)):
            if idx not in fds:
                fds[idx] = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
            self.ioctl(name, VRING_FILE.pack(idx, fds[idx]))
        self.ioctl('VHOST_VDPA_SET_VRING_ENABLE', VRING_STATE.pack(idx, 1))
        self.vqs[idx] = vq

    def notify(self, idx):
        os.eventfd_write(self.kick[idx], 1)

    def wait_used(self, idx, timeout):
        """The next used element of vq IDX, waiting on its call eventfd and
        looking at the used index (a missed interrupt does not hang us) for
        at most TIMEOUT seconds; None when nothing came."""
        vq = self.vqs[idx]
        deadline = time.monotonic() + timeout
        p = select.poll()
        p.register(self.call[idx], select.POLLIN)
        while True:
            used = vq.pop_used()
            if used:
                return used
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            if p.poll(int(min(left, 0.05) * 1000) + 1):
                try:
                    os.eventfd_read(self.call[idx])
                except BlockingIOError:
                    pass

    # -- eventqs --
    def post_event_buffers(self, idx, n=32):
        vq = self.vqs[idx]
        for i in range(n):
            off = EVENT_PAGE * PAGE + i * EVENT.size
            vq.post([(self.mem.iova(off), EVENT.size, True)], off)
        self.notify(idx)

    def drain_events(self, idx=1):
        """Events the device delivered on eventq IDX so far (reposting their
        buffers)."""
        vq, out = self.vqs[idx], []
        while (used := vq.pop_used()) is not None:
            _, length, off = used
            if length >= EVENT.size:
                out.append(EVENT.unpack(self.mem.get(off, EVENT.size)))
            vq.post([(self.mem.iova(off), EVENT.size, True)], off)
        if out:
            self.notify(idx)
        self.events.extend(out)
        return out

    # -- the controlq --
    def slot(self, head):
        """Offsets of the request and response pages of command slot HEAD."""
        base = (REGIONS['bufs'][0] + 2 * (head % CMD_SLOTS)) * PAGE
        return base, base + PAGE

    def post_chain(self, bufs, resp_off):
        """Post a raw controlq chain (iova, len, writable) whose response
        is read back from RESP_OFF, and kick."""
        head = self.vqs[0].post(bufs, resp_off)
        self.notify(0)
        return head

    def post_cmd(self, req, resp_len, req_iova=None, resp_iova=None):
        """A command chain: REQ readable (header + request) and RESP_LEN
        writable bytes, in the slot of the next avail index unless the IOVAs
        are given; the response page is poisoned (0xa5) so that what the
        device wrote shows.  Returns the chain's head."""
        req_off, resp_off = self.slot(self.vqs[0].avail_idx)
        self.mem.put(req_off, req)
        self.mem.put(resp_off, b'\xa5' * resp_len)
        return self.post_chain([
            (self.mem.iova(req_off) if req_iova is None else req_iova, len(req), False),
            (self.mem.iova(resp_off) if resp_iova is None else resp_iova, resp_len, True)],
            resp_off)

    def complete(self, head, resp_len, timeout=None):
        """Wait for the used element of chain HEAD: a Used, or None."""
        used = self.wait_used(0, self.CMD_TIMEOUT if timeout is None else timeout)
        if used is None:
            return None
        got, length, resp_off = used
        if got != head:
            raise RuntimeError(f'controlq: used id {got}, expected {head} (commands run in order)')
        return Used(got, length, self.mem.get(resp_off, resp_len))

    def cmd(self, name, body=b'', timeout=None):
        """Send command NAME with request BODY; returns (status, response
        dict, {} unless OK with a response)."""
        rsize = RESP_HDR.size + resp_size(name)
        head = self.post_cmd(HDR.pack(cmd=CMD[name]) + body, rsize)
        used = self.complete(head, rsize, timeout)
        if used is None:
            raise DeviceTimeout(f'{name}: no used entry within '
                                f'{self.CMD_TIMEOUT if timeout is None else timeout} s '
                                f'(device status {self.status():#x})')
        status = used.status
        resp = {}
        if status == OK and name in RESP:
            if used.len < rsize:
                raise RuntimeError(f'{name}: OK with used length {used.len}, want {rsize}')
            resp = ABI.s(RESP[name]).unpack(used.data, RESP_HDR.size)
        return status, resp

    def close(self):
        for fd in list(self.kick.values()) + list(self.call.values()):
            os.close(fd)
        self.kick, self.call = {}, {}
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


# --- the checks of tools/scenarios/vhost-driver ----------------------------------------
def gid4(ip):
    """The IPv4-mapped GID ::ffff:a.b.c.d."""
    return bytes(10) + b'\xff\xff' + bytes(int(x) for x in ip.split('.'))


def eui64(mac):
    b = bytes(int(x, 16) for x in mac.split(':'))
    return bytes([b[0] ^ 2, b[1], b[2], 0xff, 0xfe, b[3], b[4], b[5]])


def expect(c, dev, what, want, name, body=b''):
    """Send NAME; check its status is WANT (a name); returns the response."""
    status, resp = dev.cmd(name, body)
    c.check(what, want, st(status))
    return resp


def check_identity(c, dev, mac):
    """a. What a VMM reads before it starts the device."""
    print('--- a. device identity, features, config, backend features')
    c.check('device id', VIRTIO_ID_RDMA, dev.device_id)
    f = dev.features_offered
    c.true('features offered include VERSION_1 and ACCESS_PLATFORM',
           f & (1 << F_VERSION_1) and f & (1 << F_ACCESS_PLATFORM), f'{f:#x}')
    c.check('config mac', mac.lower(), ':'.join(f'{b:02x}' for b in dev.config['mac']))
    nqp = dev.config['num_queue_pairs']
    c.check(f'VHOST_VDPA_GET_VQS_COUNT (1 + 2 * {nqp} queue pairs)', 1 + 2 * nqp, dev.nvqs)
    print(f'vring num max {dev.vring_num_max}')
    offered = dev.backend_names(dev.backend_offered)
    for name in ('IOTLB_MSG_V2', 'SUSPEND', 'RESUME'):
        c.true(f'backend feature {name} offered', name in offered, ' '.join(offered))
    print(f'backend features negotiated: {" ".join(dev.backend_names(dev.backend))}')
    # The device MUST fail FEATURES_OK without ACCESS_PLATFORM (spec "Feature bits").
    dev.set_status(S_ACKNOWLEDGE | S_DRIVER)
    try:
        dev.set_features(1 << F_VERSION_1)
        refused = 'accepted'
    except VhostError as e:
        refused = f'refused ({os.strerror(e.errno)})'
    dev.set_status(S_ACKNOWLEDGE | S_DRIVER | S_FEATURES_OK)
    s = dev.status()
    c.true('features without ACCESS_PLATFORM: FEATURES_OK does not stick',
           not s & S_FEATURES_OK, f'VHOST_SET_FEATURES {refused}, status {s:#x}')
    dev.set_status(0)
    c.check('status after reset', 0, dev.status())


def check_queries(c, dev, mac):
    """b. QUERY_DEVICE and QUERY_PORT through the IOTLB-mapped controlq."""
    print('--- b. QUERY_DEVICE, QUERY_PORT through the IOTLB')
    d = expect(c, dev, 'QUERY_DEVICE', 'OK', 'QUERY_DEVICE')
    if d:
        print(f'limits: max_qp {d["max_qp"]} max_qp_wr {d["max_qp_wr"]} max_cq {d["max_cq"]} '
              f'max_cqe {d["max_cqe"]} max_mr {d["max_mr"]} max_pd {d["max_pd"]} '
              f'vendor {d["vendor_id"]:#x}/{d["vendor_part_id"]:#x}')
        sane = (d['max_qp'] >= 2 and d['max_cq'] >= 1 and d['max_pd'] >= 1 and
                d['max_mr'] >= 1 and d['max_qp_wr'] >= 1 and
                d['max_cqe'] >= 16 and not d['max_cqe'] & (d['max_cqe'] - 1))
        c.true('QUERY_DEVICE limits are sane (non-zero, max_cqe a power of two >= 16)',
               sane, f'max_qp {d["max_qp"]} max_cqe {d["max_cqe"]}')
        c.check('QUERY_DEVICE node_guid is the EUI-64 of the MAC', eui64(mac).hex(),
                d['node_guid'].hex())
        c.check('QUERY_DEVICE vendor_part_id', 0x1040 + VIRTIO_ID_RDMA, d['vendor_part_id'])
    p = expect(c, dev, 'QUERY_PORT 1', 'OK', 'QUERY_PORT', h(1))
    if p:
        c.check('QUERY_PORT state (the netdev is up with carrier)',
                ABI.c('PORT_ACTIVE'), p['state'])
        c.true('QUERY_PORT gid_tbl_len', p['gid_tbl_len'] >= 2, p['gid_tbl_len'])
    return d


def check_gids(c, dev, ip):
    """c. ADD_GID takes the netdev's address only."""
    print('--- c. ADD_GID: the netdev\'s address, not another')
    v2 = ABI.c('GID_TYPE_ROCE_V2')
    add = ABI.s('add_gid_req')
    expect(c, dev, f'ADD_GID ::ffff:{ip} (the netdev\'s) at 0', 'OK', 'ADD_GID',
           add.pack(index=0, gid_type=v2, gid=gid4(ip)))
    expect(c, dev, 'ADD_GID ::ffff:10.0.0.1 (not the netdev\'s) at 1', 'PERM', 'ADD_GID',
           add.pack(index=1, gid_type=v2, gid=gid4('10.0.0.1')))
    expect(c, dev, 'DEL_GID 1 after the refusal (still empty)', 'NOENT', 'DEL_GID', h(1))


def create_cq(dev, region, depth=16):
    off = REGIONS[region][0] * PAGE
    dev.mem.zero(off, CTL)          # the driver MUST zero ring_ctl first
    req = ABI.s('create_cq_req').pack(ring_addr=dev.mem.iova(off),
                                      ring_size=CTL + depth * CQE.size, depth=depth, eventq=0)
    status, resp = dev.cmd('CREATE_CQ', req)
    return status, resp.get('cq_handle')


def check_cq_unmap(c, dev):
    """d. A CQ whose ring the VM unmaps is destroyed cleanly."""
    print('--- d. CREATE_CQ in mapped memory, the VM unmaps its ring, DESTROY_CQ')
    pd = expect(c, dev, 'CREATE_PD', 'OK', 'CREATE_PD').get('pd_handle')
    c.true('PD handle is not 0', pd, pd)
    status, cq = create_cq(dev, 'cq')
    c.check('CREATE_CQ depth 16, ring at IOVA '
            f'{dev.mem.iova(REGIONS["cq"][0] * PAGE):#x}', 'OK', st(status))
    if status != OK:
        return pd
    off = REGIONS['cq'][0] * PAGE
    c.check('CQ ring prod after CREATE_CQ', 0, dev.mem.u32(off + RING_CTL.offset('prod')))
    dev.unmap('cq')
    dev.mem.release(off, REGIONS['cq'][1] * PAGE)
    print(f'ok: IOTLB invalidated the CQ ring\'s {REGIONS["cq"][1]} pages and the VM released '
          f'them (mapped anew) with CQ {cq} alive')
    expect(c, dev, 'DESTROY_CQ of the CQ whose ring is unmapped', 'OK', 'DESTROY_CQ', h(cq))
    expect(c, dev, 'QUERY_DEVICE after it', 'OK', 'QUERY_DEVICE')
    status, cq2 = create_cq(dev, 'cq')
    c.check('CREATE_CQ with its ring at the unmapped IOVA', 'FAULT', st(status))
    if status == OK:
        dev.cmd('DESTROY_CQ', h(cq2))
    dev.map('cq')
    status, cq2 = create_cq(dev, 'cq')
    c.check('CREATE_CQ after remapping the ring', 'OK', st(status))
    if status == OK:
        expect(c, dev, 'DESTROY_CQ', 'OK', 'DESTROY_CQ', h(cq2))
    return pd


def unmapped_case(c, dev, what, req, resp_len, req_iova=None, resp_iova=None, split=None):
    """Post one chain with a part at an IOVA no IOTLB entry covers and record
    what the device does.  The spec allows: an answer MALFORMED (the
    readable part could not be read as the size it has) or FAULT (memory a
    command points to unreadable), used length 0 (no room for a status: the
    driver treats it as MALFORMED), or DEVICE_NEEDS_RESET.  It does not allow a
    hang with the device still claiming to be fine, or a crash."""
    vq = dev.vqs[0]
    req_off, resp_off = dev.slot(vq.avail_idx)
    dev.mem.put(req_off, req)
    dev.mem.put(resp_off, b'\xa5' * resp_len)
    rd = dev.mem.iova(req_off) if req_iova is None else req_iova
    wr = dev.mem.iova(resp_off) if resp_iova is None else resp_iova
    if split is None:
        bufs = [(rd, len(req), False)]
    else:   # header in mapped memory, the request at REQ_IOVA
        bufs = [(dev.mem.iova(req_off), split, False), (rd, len(req) - split, False)]
    head = dev.post_chain(bufs + [(wr, resp_len, True)], resp_off)
    used = dev.complete(head, resp_len, timeout=10)
    s = dev.status()
    if used is None:
        ok = bool(s & S_NEEDS_RESET)
        c.true(what, ok, f'no used entry in 10 s, device status {s:#x}'
               + (' (NEEDS_RESET)' if ok else ' without NEEDS_RESET'))
        return ok
    written = used.data[:RESP_HDR.size]
    if used.len == 0:
        detail = f'used length 0, response bytes {written.hex()}'
        ok = True
    else:
        detail = f'used length {used.len}, status {st(used.status)}'
        ok = used.len == RESP_HDR.size and st(used.status) in ('MALFORMED', 'FAULT')
    c.true(what, ok, detail + f', device status {s:#x}')
    return not s & S_NEEDS_RESET


def check_unmapped_chains(c, dev):
    """e. Command chains with buffers at an unmapped IOVA."""
    print(f'--- e. chains with a buffer at unmapped IOVA {UNMAPPED_IOVA:#x}')
    port = HDR.pack(cmd=CMD['QUERY_PORT']) + h(1)
    resp_len = RESP_HDR.size + resp_size('QUERY_PORT')
    cases = (
        ('QUERY_PORT, header and request unmapped', dict(req_iova=UNMAPPED_IOVA)),
        ('QUERY_PORT, header mapped, request unmapped',
         dict(req_iova=UNMAPPED_IOVA, split=HDR.size)),
        ('QUERY_PORT, response buffer unmapped', dict(resp_iova=UNMAPPED_IOVA)),
    )
    for what, kw in cases:
        if not unmapped_case(c, dev, what, port, resp_len, **kw):
            print('the device needs a reset: the remaining cases are moot')
            return False
        expect(c, dev, 'QUERY_DEVICE afterwards (the device is still usable)',
               'OK', 'QUERY_DEVICE')
    # A command whose answer cannot be written has no effect (spec "Controlq"):
    # a CREATE_PD there would make a PD whose handle the driver never learns.
    # PD handles are allocated in turn, so the next one tells.
    first = expect(c, dev, 'CREATE_PD', 'OK', 'CREATE_PD').get('pd_handle')
    if not unmapped_case(c, dev, 'CREATE_PD, response buffer unmapped',
                         HDR.pack(cmd=CMD['CREATE_PD']),
                         RESP_HDR.size + resp_size('CREATE_PD'), resp_iova=UNMAPPED_IOVA):
        return False
    nxt = expect(c, dev, 'CREATE_PD', 'OK', 'CREATE_PD').get('pd_handle')
    c.check('the CREATE_PD whose answer could not be written made no PD (next handle)',
            first + 1, nxt)
    for pd in (first, nxt):
        expect(c, dev, f'DESTROY_PD {pd}', 'OK', 'DESTROY_PD', h(pd))
    return True


def check_suspend(c, dev):
    """f. Suspend holds a command back; resume completes it."""
    print('--- f. VHOST_VDPA_SUSPEND / RESUME')
    vq = dev.vqs[0]
    dev.suspend()
    s = dev.status()
    c.check('status while suspended (DRIVER_OK kept)', S_ACKNOWLEDGE | S_DRIVER |
            S_FEATURES_OK | S_DRIVER_OK, s)
    before = vq.avail_idx
    base0 = dev.vring_base(0)
    c.check('controlq vring base when suspended = the avail index so far', before, base0)
    rsize = RESP_HDR.size + resp_size('QUERY_DEVICE')
    head = dev.post_cmd(HDR.pack(cmd=CMD['QUERY_DEVICE']), rsize)
    t0 = time.monotonic()
    used = dev.complete(head, rsize, timeout=0.5)
    c.true('QUERY_DEVICE posted and kicked while suspended: no used entry',
           used is None, 'none in 0.5 s' if used is None else
           f'used after {time.monotonic() - t0:.2f} s, status {st(used.status)}')
    base1 = dev.vring_base(0)
    c.check('controlq vring base stable while suspended', base0, base1)
    dev.resume()
    if used is None:
        used = dev.complete(head, rsize)
        c.check('after VHOST_VDPA_RESUME the held QUERY_DEVICE completes',
                'OK', st(used.status) if used else 'no used entry')
    c.check('controlq vring base after resume', (before + 1) & 0xffff, dev.vring_base(0))
    expect(c, dev, 'QUERY_DEVICE after resume', 'OK', 'QUERY_DEVICE')


def check_reopen(c, dev, pd):
    """g. Closing the fd resets the device and forgets its IOTLB."""
    print('--- g. close the fd, reopen: the device works for the next VM')
    path, mem = dev.path, dev.mem
    dev.close()
    dev = VhostRdma(path, mem)
    c.check('status after reopening', 0, dev.status())
    # vhost-vdpa refuses to map an IOVA twice (EEXIST): that it maps the
    # same IOVAs again shows the old IOTLB is gone.
    dev.start()
    print('ok: the same IOVAs map again after reopening (the old IOTLB is gone)')
    expect(c, dev, 'QUERY_DEVICE from scratch', 'OK', 'QUERY_DEVICE')
    expect(c, dev, 'QUERY_PORT from scratch', 'OK', 'QUERY_PORT', h(1))
    expect(c, dev, f'DESTROY_PD {pd} of the previous VM (reset destroyed it)',
           'NOENT', 'DESTROY_PD', h(pd))
    expect(c, dev, 'DEL_GID 0 of the previous VM (reset cleared the table)',
           'NOENT', 'DEL_GID', h(0))
    return dev


def check_no_identity(c, path):
    """h. Before its first IOTLB update a VM reaches no memory at all.  The
    device maps every address to itself for virtio_vdpa, whose driver is the
    host kernel; for a VM that would be all of the host's memory.  A
    controlq whose rings and command sit at the host-physical addresses of
    this process's pages, with nothing mapped, must get no answer."""
    print('--- h. nothing mapped yet: host-physical addresses reach nothing')
    dev = VhostRdma(path)
    try:
        dev.negotiate()
        mem, num = dev.mem, 64
        vq = SplitRing(mem, 0, num, 0, PAGE, 2 * PAGE)
        req_off, resp_off = 16 * PAGE, 17 * PAGE
        req = HDR.pack(cmd=CMD['QUERY_DEVICE'])
        resp_len = RESP_HDR.size + resp_size('QUERY_DEVICE')
        mem.put(req_off, req)
        mem.put(resp_off, b'\xa5' * resp_len)

        def pa(off):
            return phys_addr(mem.uaddr + off)

        vq.post([(pa(req_off), len(req), False), (pa(resp_off), resp_len, True)])
        dev.ioctl('VHOST_SET_VRING_NUM', VRING_STATE.pack(0, num))
        dev.ioctl('VHOST_SET_VRING_ADDR', VRING_ADDR.pack(
            0, 0, pa(vq.desc), pa(vq.used), pa(vq.avail), 0))
        dev.ioctl('VHOST_SET_VRING_BASE', VRING_STATE.pack(0, 0))
        dev.kick[0] = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        dev.ioctl('VHOST_SET_VRING_KICK', VRING_FILE.pack(0, dev.kick[0]))
        dev.ioctl('VHOST_VDPA_SET_VRING_ENABLE', VRING_STATE.pack(0, 1))
        dev.set_status(S_ACKNOWLEDGE | S_DRIVER | S_FEATURES_OK | S_DRIVER_OK)
        dev.notify(0)
        time.sleep(1.0)
        c.check('QUERY_DEVICE with rings and buffers at host-physical addresses, '
                'nothing mapped: used entries after 1 s', 0, vq.used_idx())
        c.check('its response buffer untouched', (b'\xa5' * 8).hex(), mem.get(resp_off, 8).hex())
    finally:
        dev.close()


def hold(path, ready):
    """--hold: a VM with objects on the device, until it is killed."""
    dev = VhostRdma(path)
    dev.start()
    status, pd = dev.cmd('CREATE_PD')
    if status != OK:
        raise RuntimeError(f'CREATE_PD: {st(status)}')
    status, cq = create_cq(dev, 'cq')
    if status != OK:
        raise RuntimeError(f'CREATE_CQ: {st(status)}')
    print(f'holding {path}: PD {pd["pd_handle"]}, CQ {cq}', flush=True)
    with open(ready, 'w'):
        pass
    time.sleep(300)
    return 0


# What stops a series of checks at the first broken step: what follows
# would only repeat it.
STOP = (VhostError, DeviceTimeout, RuntimeError, OSError)


def stopped(c, e):
    c.true('the checks ran to the end', False, f'{type(e).__name__}: {e}')


def verdict(c, t0):
    """Print the outcome of checks C that began at T0; the exit status."""
    print(f'checks took {time.monotonic() - t0:.1f} s')
    if c.failures:
        print(f'{len(c.failures)} check(s) failed: ' + '; '.join(c.failures))
        return 1
    print('all checks passed')
    return 0


def main(argv):
    if len(argv) == 4 and argv[1] == '--hold':
        return hold(argv[2], argv[3])
    if len(argv) != 4:
        print(__doc__)
        return 2
    path, mac, ip = argv[1:]
    c = Checks()
    t0 = time.monotonic()
    try:
        dev = VhostRdma(path)
    except (OSError, VhostError) as e:
        print(f'FAIL: opening {path}: {e}')
        return 1
    try:
        check_identity(c, dev, mac)
        dev.start()
        print(f'ok: started: IOTLB maps {MEM_PAGES} pages at IOVA {IOVA_BASE:#x} '
              f'(uaddr {dev.mem.uaddr:#x}), vqs {sorted(dev.vqs)} enabled, DRIVER_OK')
        check_queries(c, dev, mac)
        check_gids(c, dev, ip)
        pd = check_cq_unmap(c, dev)
        if check_unmapped_chains(c, dev):
            check_suspend(c, dev)
        else:
            c.true('suspend/resume checks', False, 'not run: the device needs a reset')
        dev.drain_events()
        print('events on eventq 0: ' + (', '.join(f'type {e["type"]} handle {e["handle"]}'
                                                for e in dev.events) or 'none'))
        dev = check_reopen(c, dev, pd)
        dev.close()     # closing twice is harmless (finally)
        check_no_identity(c, path)
    except STOP as e:
        stopped(c, e)
    finally:
        dev.close()
    return verdict(c, t0)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
