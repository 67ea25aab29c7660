// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma as a buggy device, for testing drivers (CONFIG_VDPA_RDMA_FAULTS):
 * what a driver must survive from hardware or a device emulator that is
 * slow or wrong, on demand, in /sys/bus/vdpa/devices/<dev>/faults/ (sysfs,
 * not debugfs, so that a KUnit suite can write them with kernel_write()):
 *
 *   ctrl_delay_ms   every control command is executed only after this
 *                   many ms (0: at once), so that the driver's command
 *                   timeout expires first and the device executes the
 *                   command afterwards, as a stalled device would
 *   cqe_qp_handle   the next CQE the device writes names this QP handle
 *                   (0: off; one shot), such as a QP of another CQ
 *
 * Both are read without the locks of the paths they perturb: a fault
 * that lands one command or one CQE later is just as good a fault.
 */
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/sysfs.h>

#include "vdpa_rdma.h"

static u32 *vdr_fault_knob(struct device *d, struct device_attribute *attr)
{
	struct vdr_dev *dev = container_of(d, struct vdr_dev, vdpa.dev);

	if (!strcmp(attr->attr.name, "ctrl_delay_ms"))
		return &dev->fault_ctrl_delay_ms;
	return &dev->fault_cqe_qp;
}

static ssize_t vdr_fault_show(struct device *d, struct device_attribute *attr,
			      char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(*vdr_fault_knob(d, attr)));
}

static ssize_t vdr_fault_store(struct device *d, struct device_attribute *attr,
			       const char *buf, size_t count)
{
	u32 val;
	int ret;

	ret = kstrtou32(buf, 0, &val);
	if (ret)
		return ret;
	WRITE_ONCE(*vdr_fault_knob(d, attr), val);
	return count;
}

static struct device_attribute vdr_fault_attrs[] = {
	__ATTR(ctrl_delay_ms, 0600, vdr_fault_show, vdr_fault_store),
	__ATTR(cqe_qp_handle, 0600, vdr_fault_show, vdr_fault_store),
};

static struct attribute *vdr_faults_attrs[] = {
	&vdr_fault_attrs[0].attr,
	&vdr_fault_attrs[1].attr,
	NULL,
};

const struct attribute_group vdr_faults_group = {
	.name = "faults",
	.attrs = vdr_faults_attrs,
};

/* In ctrl_work, before a command is executed. */
void vdr_fault_ctrl_delay(struct vdr_dev *dev)
{
	u32 ms = READ_ONCE(dev->fault_ctrl_delay_ms);

	if (ms)
		msleep(ms);
}

/* Under the CQ's lock, on the CQE just written to the ring. */
void vdr_fault_cqe(struct vdr_dev *dev, struct virtio_rdma_cqe *cqe)
{
	u32 handle;

	/* A plain load first: no atomic per CQE while the fault is off. */
	if (likely(!READ_ONCE(dev->fault_cqe_qp)))
		return;
	handle = xchg(&dev->fault_cqe_qp, 0);
	if (handle)
		cqe->qp_handle = cpu_to_le32(handle);
}
