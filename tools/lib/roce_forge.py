#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
"""RoCEv2 packets built by hand and sent from a raw IPv4 socket, with any
source address: what an attacker on the network can send to a device.

  roce_forge.py SRC DST DQPN PSN COUNT   send COUNT RC SEND_ONLY packets
  roce_forge.py --self-test FILE         check the ICRC against rxe's vectors

The packet builders (ip4, ip6, udp, icrc, vectors) are the one place for
RoCEv2 framing and ICRC logic; tools/fuzz/roce_fuzz.py imports them.
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
    headers with their variant fields (IPv4: TOS, TTL, checksum; IPv6:
    traffic class, flow label, hop limit; the UDP checksum) and the BTH's
    reserved byte set to 1s, then the rest of the packet."""
    ipm = bytearray(ip)
    if ipm[0] >> 4 == 6:
        ipm[0] |= 0x0f
        ipm[1:4] = b'\xff\xff\xff'
        ipm[7] = 0xff
    else:
        ipm[1] = ipm[8] = 0xff
        ipm[10:12] = b'\xff\xff'
    udpm = bytearray(udp)
    udpm[6:8] = b'\xff\xff'
    rest = bytearray(bth_on)
    if len(rest) > 4:       # a fuzzer's truncated packet may lack it
        rest[4] = 0xff
    return struct.pack('<I', zlib.crc32(b'\xff' * 8 + ipm + udpm + rest))


def checksum(data):
    """The Internet checksum (RFC 1071)."""
    if len(data) % 2:
        data += b'\0'
    s = sum(struct.unpack(f'>{len(data) // 2}H', data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ip4(src, dst, payload_len, ident=0, frag=0x4000, ttl=64, tot_len=None,
        csum=True):
    """An IPv4 header (no options) for a UDP payload_len bytes long; its
    checksum computed unless csum is False (a raw IP socket fills it in)."""
    if tot_len is None:
        tot_len = 20 + payload_len
    h = struct.pack('>BBHHHBBH4s4s', 0x45, 0, tot_len & 0xffff, ident, frag,
                    ttl, socket.IPPROTO_UDP, 0, socket.inet_aton(src),
                    socket.inet_aton(dst))
    if csum:
        h = h[:10] + struct.pack('>H', checksum(h)) + h[12:]
    return h


def ip6(src, dst, payload_len, hop=64, plen=None):
    """An IPv6 header, next header UDP."""
    if plen is None:
        plen = payload_len
    return struct.pack('>IHBB16s16s', 6 << 28, plen & 0xffff,
                       socket.IPPROTO_UDP, hop,
                       socket.inet_pton(socket.AF_INET6, src),
                       socket.inet_pton(socket.AF_INET6, dst))


def udp(ip, sport, payload, ulen=None):
    """The UDP header for payload (BTH .. ICRC) after IP header ip, with its
    checksum (IPv6 needs one; IPv4 gets one too, the receiver checks it)."""
    if ulen is None:
        ulen = 8 + len(payload)
    h = struct.pack('>HHHH', sport, ROCE_PORT, ulen & 0xffff, 0)
    if ip[0] >> 4 == 6:
        pseudo = ip[8:40] + struct.pack('>IxxxB', 8 + len(payload),
                                        socket.IPPROTO_UDP)
    else:
        pseudo = ip[12:20] + struct.pack('>xBH', socket.IPPROTO_UDP,
                                         8 + len(payload))
    c = checksum(pseudo + h + payload) or 0xffff
    return h[:6] + struct.pack('>H', c)


def packet(src, dst, dqpn, psn, ident=0x1234):
    # BTH: opcode, flags (no SE/M/pad, TVer 0), P_Key, reserved, DestQP,
    # A bit clear, PSN; no payload.
    bth = struct.pack('>BBHI I', RC_SEND_ONLY, 0, 0xffff, dqpn & 0xffffff,
                      psn & 0xffffff)
    udp_len = 8 + len(bth) + 4
    udp_h = struct.pack('>HHHH', 49152, ROCE_PORT, udp_len, 0)
    # The ID is non-zero so that the kernel keeps it (the ICRC covers it).
    ip = ip4(src, dst, udp_len, ident=ident, csum=False)
    return ip + udp_h + bth + icrc(ip, udp_h, bth)


def vectors(path):
    """rxe's packets from the generated header: (name, whole IP packet)."""
    text = open(path).read()
    for name, body in re.findall(r'static const u8 (v[46]_\w+)\[\] = \{([^}]*)\}', text):
        yield name, bytes(int(x, 16) for x in re.findall(r'0x([0-9a-f]{2})', body))


def self_test(path):
    """Recompute the ICRC of every vector rxe sent (generated header)."""
    n = {4: 0, 6: 0}
    for name, data in vectors(path):
        iplen = 40 if data[0] >> 4 == 6 else 20
        got = icrc(data[:iplen], data[iplen:iplen + 8], data[iplen + 8:-4])
        if got != data[-4:]:
            sys.exit(f'{name}: ICRC {got.hex()} != {data[-4:].hex()}')
        n[data[0] >> 4] += 1
    if not n[4] or not n[6]:
        sys.exit('no IPv4 or no IPv6 vector found')
    print(f'ok: ICRC of {n[4]} IPv4 and {n[6]} IPv6 rxe vectors')


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
