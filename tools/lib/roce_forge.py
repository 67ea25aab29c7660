#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
"""RoCEv2 packets built by hand and sent from a raw IPv4 socket, with any
source address: what an attacker on the network can send to a device.

  roce_forge.py SRC DST DQPN PSN COUNT   send COUNT RC SEND_ONLY packets
  roce_forge.py --self-test FILE         check the ICRC against rxe's vectors
"""
import re
import socket
import struct
import sys
import zlib

ROCE_PORT = 4791
RC_SEND_ONLY = 0x04


def icrc(ip, udp, bth_on):
    """RoCEv2 ICRC: CRC-32 of a masked LRH (8 bytes of 1s), the IP and UDP
    headers with their variant fields (TOS, TTL, IP and UDP checksums) and
    the BTH's reserved byte set to 1s, then the rest of the packet."""
    ipm = bytearray(ip)
    ipm[1] = ipm[8] = 0xff
    ipm[10:12] = b'\xff\xff'
    udpm = bytearray(udp)
    udpm[6:8] = b'\xff\xff'
    rest = bytearray(bth_on)
    rest[4] = 0xff
    return struct.pack('<I', zlib.crc32(b'\xff' * 8 + ipm + udpm + rest))


def packet(src, dst, dqpn, psn, ident=0x1234):
    # BTH: opcode, flags (no SE/M/pad, TVer 0), P_Key, reserved, DestQP,
    # A bit clear, PSN; no payload.
    bth = struct.pack('>BBHI I', RC_SEND_ONLY, 0, 0xffff, dqpn & 0xffffff,
                      psn & 0xffffff)
    udp_len = 8 + len(bth) + 4
    udp = struct.pack('>HHHH', 49152, ROCE_PORT, udp_len, 0)
    # The ID is non-zero so that the kernel keeps it (the ICRC covers it).
    ip = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + udp_len, ident, 0x4000,
                     64, socket.IPPROTO_UDP, 0, socket.inet_aton(src),
                     socket.inet_aton(dst))
    return ip + udp + bth + icrc(ip, udp, bth)


def self_test(path):
    """Recompute the ICRC of every IPv4 vector rxe sent (generated header)."""
    text = open(path).read()
    n = 0
    for name, body in re.findall(r'static const u8 (v4_\w+)\[\] = \{([^}]*)\}', text):
        data = bytes(int(x, 16) for x in re.findall(r'0x([0-9a-f]{2})', body))
        got = icrc(data[:20], data[20:28], data[28:-4])
        if got != data[-4:]:
            sys.exit(f'{name}: ICRC {got.hex()} != {data[-4:].hex()}')
        n += 1
    if not n:
        sys.exit('no IPv4 vector found')
    print(f'ok: ICRC of {n} rxe vectors')


def main():
    if sys.argv[1] == '--self-test':
        self_test(sys.argv[2])
        return
    src, dst, dqpn, psn, count = sys.argv[1:6]
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    pkt = packet(src, dst, int(dqpn, 0), int(psn, 0))
    for _ in range(int(count)):
        s.sendto(pkt, (dst, 0))


if __name__ == '__main__':
    main()
