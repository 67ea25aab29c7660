#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
"""Compare what `ibv_devinfo -v` prints with what the device itself reports.

    devinfo_check.py IBDEV
    devinfo_check.py IBDEV --port [NETNS:NETDEV SETTING...]

With --port only the port is compared, after each SETTING of the netdev (an MTU,
or 'down', which leaves it up again afterwards): one Python start for all of
them, each of which costs seconds in a debug-kernel guest.

The device's own numbers come from QUERY_DEVICE and QUERY_PORT sent through
the driver's raw_cmd debugfs file (drivers/infiniband/hw/virtio_rdma/
vrdma_debugfs.c), decoded with the layouts of include/uapi/linux/virtio_rdma.h
as virtio_rdma_abi.py reads them at run time, independently of the driver's
cached copy and of libibverbs.  Every value ibv_devinfo prints that stands for a device limit or port attribute must be
the device's, converted the way the spec says (enum ib_* values, GUID byte
order, the fw_ver triple).

Exit status: 0 everything matches, 1 a mismatch, 77 cannot run here.
"""
import contextlib
import io
import os
import re
import subprocess
import sys
import time

from virtio_rdma_abi import Abi, AbiError, RawCmd

ABI = Abi.load()

# VIRTIO_RDMA_DEVICE_CAP_* -> IBV_DEVICE_* (libibverbs' enum ibv_device_cap_flags)
IBV_DEVICE_CAP = {'MEM_MGT_EXTENSIONS': 1 << 21, 'RC_RNR_NAK_GEN': 1 << 12,
                  'PORT_ACTIVE_EVENT': 1 << 10, 'SYS_IMAGE_GUID': 1 << 11,
                  'CURR_QP_STATE_MOD': 1 << 7}
# Not device caps but a feature: with VIRTIO_RDMA_F_MW (max_mw > 0) the driver
# reports memory windows of types 1 and 2B.
IBV_DEVICE_MEM_WINDOW = 1 << 17 | 1 << 24
# Nor is XRC: the driver reports it when VIRTIO_RDMA_F_XRC was negotiated, which
# QUERY_DEVICE does not say; the virtio device's sysfs features do.
IBV_DEVICE_XRC = 1 << 20
# VIRTIO_RDMA_PORT_CAP_* -> IBV_PORT_* (enum ibv_port_cap_flags)
IBV_PORT_CAP = {'CM_SUP': 1 << 16, 'IP_BASED_GIDS': 1 << 26}


def cap_map(stem, ibv):
    """{device bit: libibverbs bit} for every capability the header defines;
    one this script does not know how libibverbs shows is an error."""
    caps = ABI.group(stem)
    unknown = sorted(set(caps) - set(ibv))
    if unknown:
        raise AbiError(f'no libibverbs flag known for VIRTIO_RDMA_{stem}'
                       f'{", ".join(unknown)}')
    return {caps[name]: ibv[name] for name in caps}


DEV_CAPS = cap_map('DEVICE_CAP_', IBV_DEVICE_CAP)
PORT_CAPS = cap_map('PORT_CAP_', IBV_PORT_CAP)

failures = []
checked = 0


def query(path, name, req, resp):
    """One command through raw_cmd; returns the decoded response."""
    dev = RawCmd(ABI, path)
    try:
        layout = ABI.s(resp)
        status, data = dev.cmd(ABI.c('CMD_' + name), req, layout.size)
    finally:
        dev.close()
    if status != ABI.c('STATUS_OK'):
        raise RuntimeError(f'{name}: status {status}')
    return layout.unpack(data)


def query_device(path):
    return query(path, 'QUERY_DEVICE', b'', 'query_device_resp')


def query_port(path):
    return query(path, 'QUERY_PORT', ABI.s('query_port_req').pack(port=1),
                 'query_port_resp')


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


def negotiated(ibdev, bit):
    """Whether the virtio device under IBDEV negotiated feature BIT."""
    with open(f'/sys/class/infiniband/{ibdev}/device/features') as f:
        bits = f.read().strip()
    return len(bits) > bit and bits[bit] == '1'


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
                    'max_pkeys', 'local_ca_ack_delay', 'atomic_cap',
                    'max_srq', 'max_srq_wr', 'max_srq_sge', 'max_mw'):
            check_num(dev, key, key, d[key])
        # libibverbs' max_sge is the smaller of the send and receive limits.
        check_num(dev, 'max_sge', 'max_sge',
                  min(d['max_send_sge'], d['max_recv_sge']))
        # One responder resource per QP and READ/atomic slot.
        check_num(dev, 'max_res_rd_atom', 'max_res_rd_atom',
                  d['max_qp_rd_atom'] * d['max_qp'])
        check_num(dev, 'device_cap_flags', 'device_cap_flags',
                  map_bits(d['device_cap_flags'], DEV_CAPS) |
                  (IBV_DEVICE_MEM_WINDOW if d['max_mw'] else 0) |
                  (IBV_DEVICE_XRC if negotiated(ibdev, ABI.c('F_XRC')) else 0))

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
    settings = sys.argv[4:] if port_only and len(sys.argv) > 3 else []
    if not settings:
        compare(ibdev, raw, port_only)
    else:
        netns, netdev = sys.argv[3].split(':')
        ip = ['ip', '-n', netns, 'link', 'set', netdev]
    for setting in settings:
        subprocess.run(ip + (['down'] if setting == 'down' else ['mtu', setting]),
                       check=True)
        print(f'{netdev} {"down" if setting == "down" else "mtu " + setting}')
        # The port follows its netdev through a notifier and a port event: give it
        # a few seconds before a difference counts.
        for attempt in range(30):
            before = len(failures)
            text = io.StringIO()
            with contextlib.redirect_stdout(text):
                compare(ibdev, raw, True)
            if len(failures) == before or attempt == 29:
                print(text.getvalue(), end='')
                break
            del failures[before:]
            time.sleep(0.2)
        if setting == 'down':
            subprocess.run(ip + ['up'], check=True)
    print(f'{ibdev}: {checked} values compared, {len(failures)} differ')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
