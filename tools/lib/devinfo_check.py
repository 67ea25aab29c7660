#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
"""Compare what `ibv_devinfo -v` prints with what the device itself reports.

    devinfo_check.py IBDEV

The device's own numbers come from QUERY_DEVICE and QUERY_PORT sent through
the driver's raw_cmd debugfs file (drivers/infiniband/hw/virtio_rdma/
vrdma_debugfs.c), decoded with the layout of include/uapi/linux/virtio_rdma.h,
independently of the driver's cached copy and of libibverbs.  Every value
ibv_devinfo prints that stands for a device limit or port attribute must be
the device's, converted the way the spec says (enum ib_* values, GUID byte
order, the fw_ver triple).

Exit status: 0 everything matches, 1 a mismatch, 77 cannot run here.
"""
import os
import re
import struct
import subprocess
import sys

QUERY_DEVICE, QUERY_PORT = 1, 2

# struct virtio_rdma_query_device_resp, 256 bytes
DEVICE_FMT = '<Q8s8sQQ17IHBBQIBBH32I'
DEVICE_FIELDS = (
    'fw_ver sys_image_guid node_guid max_mr_size page_size_cap vendor_id '
    'vendor_part_id hw_ver max_qp max_qp_wr max_send_sge max_recv_sge '
    'max_sge_rd max_cq max_cqe max_mr max_pd max_qp_rd_atom '
    'max_qp_init_rd_atom max_ah max_fast_reg_page_list_len max_inline_data '
    'max_pkeys local_ca_ack_delay atomic_cap device_cap_flags max_msg_sz '
    'max_sq_wqe_shift max_rq_wqe_shift').split()
# struct virtio_rdma_query_port_resp, 64 bytes
PORT_FMT = '<BBBBIIIHBBHH10I'
PORT_FIELDS = ('state max_mtu active_mtu phys_state gid_tbl_len '
               'port_cap_flags max_msg_sz active_speed active_width').split()

# VIRTIO_RDMA_DEVICE_CAP_* -> IBV_DEVICE_*
DEV_CAPS = {0x1: 1 << 21, 0x2: 1 << 12, 0x4: 1 << 10, 0x8: 1 << 11,
            0x10: 1 << 7}
# VIRTIO_RDMA_PORT_CAP_* -> IBV_PORT_*
PORT_CAPS = {0x1: 1 << 16, 0x2: 1 << 26}

failures = []
checked = 0


def raw_cmd(path, cmd, body, resp_size):
    """One command through raw_cmd; returns the response body."""
    fd = os.open(path, os.O_RDWR)
    try:
        req = struct.pack('<II', cmd, 0) + body
        os.write(fd, struct.pack('<II', 8 + resp_size, 0) + req)
        data = b''
        while len(data) < 8 + resp_size:
            chunk = os.read(fd, 8 + resp_size - len(data))
            if not chunk:
                break
            data += chunk
    finally:
        os.close(fd)
    status = struct.unpack_from('<I', data)[0]
    if status != 0:
        raise RuntimeError(f'command {cmd}: status {status}')
    return data[8:]


def query_device(path):
    size = struct.calcsize(DEVICE_FMT)
    assert size == 256, size
    vals = struct.unpack(DEVICE_FMT, raw_cmd(path, QUERY_DEVICE, b'', size))
    return dict(zip(DEVICE_FIELDS, vals))


def query_port(path):
    size = struct.calcsize(PORT_FMT)
    assert size == 64, size
    vals = struct.unpack(PORT_FMT, raw_cmd(path, QUERY_PORT,
                                           struct.pack('<II', 1, 0), size))
    d = dict(zip(PORT_FIELDS, vals))
    d['pkey_tbl_len'] = vals[10]
    return d


def devinfo(ibdev):
    """ibv_devinfo -v as two dicts: device lines and port 1 lines."""
    out = subprocess.run(['ibv_devinfo', '-v', '-d', ibdev], check=True,
                         capture_output=True, text=True).stdout
    dev, port, cur = {}, {}, None
    cur = dev
    for line in out.splitlines():
        m = re.match(r'\s*port:\s*(\d+)', line)
        if m:
            cur = port if m.group(1) == '1' else {}
            continue
        m = re.match(r'\s*([A-Za-z_][A-Za-z0-9_ ]*?):\s*(.*\S)\s*$', line)
        if m and m.group(1) not in cur:
            cur[m.group(1)] = m.group(2)
    return dev, port, out


def num(s):
    """A number as ibv_devinfo prints it: decimal, 0x hex or 'NAME (n)'."""
    m = re.search(r'\((\d+)\)\s*$', s)
    if m:
        return int(m.group(1))
    return int(s.split()[0], 0)


def map_bits(value, table):
    """The libibverbs flags for the device's bits, as table maps them."""
    out = 0
    for bit, ibv in table.items():
        if value & bit:
            out |= ibv
    return out


def guid(raw):
    h = raw.hex()
    return ':'.join(h[i:i + 4] for i in range(0, 16, 4))


def check(ibdev, what, printed, want):
    global checked
    checked += 1
    if printed == want:
        print(f'ok: {ibdev} {what}: {printed}')
    else:
        print(f'FAIL: {ibdev} {what}: ibv_devinfo says {printed}, '
              f'the device says {want}')
        failures.append(f'{ibdev} {what}')


def compare(ibdev, raw, port_only=False):
    d = query_device(raw)
    p = query_port(raw)
    dev, port, out = devinfo(ibdev)

    def field(table, key):
        if key not in table:
            print(f'FAIL: {ibdev}: ibv_devinfo prints no {key}')
            failures.append(f'{ibdev} {key} missing')
            return None
        return table[key]

    def check_num(table, key, what, want):
        v = field(table, key)
        check(ibdev, what, None if v is None else num(v), want)

    if not port_only:
        fw = d['fw_ver']
        check(ibdev, 'fw_ver', field(dev, 'fw_ver'),
              f'{fw >> 32}.{(fw >> 16) & 0xffff}.{fw & 0xffff}')
        check(ibdev, 'node_guid', field(dev, 'node_guid'),
              guid(d['node_guid']))
        check(ibdev, 'sys_image_guid', field(dev, 'sys_image_guid'),
              guid(d['sys_image_guid']))
        for key in ('vendor_id', 'vendor_part_id', 'hw_ver', 'max_mr_size',
                    'page_size_cap', 'max_qp', 'max_qp_wr', 'max_sge_rd',
                    'max_cq', 'max_cqe', 'max_mr', 'max_pd',
                    'max_qp_rd_atom', 'max_qp_init_rd_atom', 'max_ah',
                    'max_pkeys', 'local_ca_ack_delay', 'atomic_cap'):
            check_num(dev, key, key, d[key])
        # libibverbs' max_sge is the smaller of the send and receive limits.
        check_num(dev, 'max_sge', 'max_sge',
                  min(d['max_send_sge'], d['max_recv_sge']))
        # One responder resource per QP and READ/atomic slot.
        check_num(dev, 'max_res_rd_atom', 'max_res_rd_atom',
                  d['max_qp_rd_atom'] * d['max_qp'])
        check_num(dev, 'device_cap_flags', 'device_cap_flags',
                  map_bits(d['device_cap_flags'], DEV_CAPS))

    for key in ('state', 'max_mtu', 'active_mtu', 'max_msg_sz',
                'gid_tbl_len', 'pkey_tbl_len', 'active_width',
                'active_speed', 'phys_state'):
        check_num(port, key, f'port 1 {key}', p[key])
    check_num(port, 'port_cap_flags', 'port 1 port_cap_flags',
              map_bits(p['port_cap_flags'], PORT_CAPS))
    gids = [line for line in out.splitlines() if 'GID[' in line]
    if len(gids) > p['gid_tbl_len']:
        print(f'FAIL: {ibdev}: {len(gids)} GIDs listed, table holds '
              f'{p["gid_tbl_len"]}')
        failures.append(f'{ibdev} GIDs')


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    ibdev = sys.argv[1]
    port_only = len(sys.argv) > 2 and sys.argv[2] == '--port'
    raw = f'/sys/kernel/debug/virtio_rdma/{ibdev}/raw_cmd'
    if not os.path.exists(raw):
        print(f'skip: no {raw}')
        return 77
    compare(ibdev, raw, port_only)
    print(f'{ibdev}: {checked} values compared, {len(failures)} differ')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
