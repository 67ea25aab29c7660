#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
"""MR pages and a device that stops answering (tools/scenarios/buggy-device).

  mr_pin_check.py IBDEV FAULTS_DIR

Registers MR A, makes the device execute commands late (FAULTS_DIR/
ctrl_delay_ms) so that registering MR B times out in the driver, then
deregisters A on the now broken device.  The device may still execute
CREATE_MR for B, and still has A: the pages of both must stay pinned
(the process's VmPin must not drop) until the device is reset.

Exit status: 0 as expected, 1 otherwise.
"""
import errno
import sys

from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
import pyverbs.enums as e

MIB = 1 << 20
LEN_A = 4 * MIB
LEN_B = 8 * MIB
ACCESS = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE


def vm_pin_kib():
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('VmPin:'):
                return int(line.split()[1])
    sys.exit('no VmPin in /proc/self/status')


def main():
    ibdev, faults = sys.argv[1:3]
    ctx = Context(name=ibdev)
    pd = PD(ctx)
    pin0 = vm_pin_kib()
    mr_a = MR(pd, LEN_A, ACCESS)
    print(f'MR A: {LEN_A >> 20} MiB, VmPin {pin0} -> {vm_pin_kib()} kB')
    with open(f'{faults}/ctrl_delay_ms', 'w') as f:
        f.write('3000\n')
    try:
        MR(pd, LEN_B, ACCESS)
        sys.exit('FAIL: MR B registered although the device answers late')
    except PyverbsRDMAError as err:
        if err.error_code != errno.ETIMEDOUT:
            sys.exit(f'FAIL: MR B: {err}, want ETIMEDOUT')
    pin_b = vm_pin_kib()
    print(f'MR B: timed out; VmPin {pin_b} kB')
    mr_a.close()
    pin_a = vm_pin_kib()
    print(f'MR A deregistered on the broken device; VmPin {pin_a} kB')
    rc = 0
    want = pin0 + (LEN_A + LEN_B) // 1024
    if pin_b < want:
        print(f'FAIL: the pages of MR B were unpinned ({pin_b} < {want} kB) '
              'while the device may still execute its CREATE_MR')
        rc = 1
    if pin_a < want:
        print(f'FAIL: the pages of MR A were unpinned ({pin_a} < {want} kB) '
              'while the broken device may still use the MR')
        rc = 1
    pd.close()
    ctx.close()
    if not rc:
        print('ok: both MRs\' pages stay pinned until the device is reset')
    return rc


if __name__ == '__main__':
    sys.exit(main())
