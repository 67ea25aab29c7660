#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
"""Create and delete many vdpa_rdma devices from one process (scenario scale).

    vdpa_nl.py add NAME=MAC...    vdpa dev add mgmtdev vdpa_rdma name NAME mac MAC
    vdpa_nl.py del NAME...        vdpa dev del NAME

The same vdpa generic-netlink requests as iproute2's vdpa tool, one process for
all of them: in a debug-kernel guest under TCG every exec costs most of a second,
and 64 devices would spend a minute in execs alone.  Each request waits for the
kernel's answer; the first error stops the run (exit 1, with the errno).
Run it in the initial network namespace: the vdpa family lives only there.
"""
import errno
import os
import socket
import struct
import sys

NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLM_F_REQUEST = 1
NLM_F_ACK = 4
NLMSG_ERROR = 2
# include/uapi/linux/vdpa.h
VDPA_CMD_DEV_NEW = 3
VDPA_CMD_DEV_DEL = 4
VDPA_ATTR_MGMTDEV_DEV_NAME = 2
VDPA_ATTR_DEV_NAME = 4
VDPA_ATTR_DEV_NET_CFG_MACADDR = 10


def attr(kind, data):
    hdr = struct.pack("=HH", 4 + len(data), kind)
    return hdr + data + b"\0" * (-len(data) % 4)


def attr_str(kind, s):
    return attr(kind, s.encode() + b"\0")


class Genl:
    def __init__(self):
        self.sk = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
        self.sk.bind((0, 0))
        self.seq = 0

    def request(self, family, cmd, attrs):
        """Send one request and return (errno, payload of the answer)."""
        self.seq += 1
        body = struct.pack("=BBH", cmd, 1, 0) + b"".join(attrs)
        hdr = struct.pack("=IHHII", 16 + len(body), family,
                          NLM_F_REQUEST | NLM_F_ACK, self.seq, 0)
        self.sk.send(hdr + body)
        payload = b""
        while True:
            data = self.sk.recv(65536)
            off = 0
            while off + 16 <= len(data):
                length, kind, _, seq, _ = struct.unpack_from("=IHHII", data, off)
                msg = data[off + 16:off + length]
                off += (length + 3) & ~3
                if seq != self.seq:
                    continue
                if kind == NLMSG_ERROR:
                    return -struct.unpack_from("=i", msg)[0], payload
                payload = msg

    def family(self, name):
        err, msg = self.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                                [attr_str(CTRL_ATTR_FAMILY_NAME, name)])
        if err:
            raise OSError(err, f"generic netlink family {name}")
        off = 4  # past the genl header
        while off + 4 <= len(msg):
            length, kind = struct.unpack_from("=HH", msg, off)
            if kind == CTRL_ATTR_FAMILY_ID:
                return struct.unpack_from("=H", msg, off + 4)[0]
            off += (length + 3) & ~3
        raise OSError(errno.ENOENT, f"generic netlink family {name}")


def main(argv):
    if len(argv) < 3 or argv[1] not in ("add", "del"):
        print(__doc__, file=sys.stderr)
        return 2
    nl = Genl()
    fam = nl.family("vdpa")
    for arg in argv[2:]:
        if argv[1] == "add":
            name, _, mac = arg.partition("=")
            attrs = [attr_str(VDPA_ATTR_MGMTDEV_DEV_NAME, "vdpa_rdma"),
                     attr_str(VDPA_ATTR_DEV_NAME, name),
                     attr(VDPA_ATTR_DEV_NET_CFG_MACADDR, bytes.fromhex(mac.replace(":", "")))]
            cmd = VDPA_CMD_DEV_NEW
        else:
            name = arg
            attrs = [attr_str(VDPA_ATTR_DEV_NAME, name)]
            cmd = VDPA_CMD_DEV_DEL
        err, _ = nl.request(fam, cmd, attrs)
        if err:
            print(f"vdpa_nl: {argv[1]} {arg}: {os.strerror(err)}", file=sys.stderr)
            return 1
    print(f"vdpa_nl: {argv[1]}: {len(argv) - 2} devices")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
