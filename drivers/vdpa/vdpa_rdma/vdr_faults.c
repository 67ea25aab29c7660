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
 *   destroy_qp_delay_ms
 *                   DESTROY_QP runs the QP's work once more after the
 *                   flush, as a packet, an ACK or a timer of a live peer
 *                   would, and waits this many ms before it stops the
 *                   QP for good, as a slow host would (not seen by the
 *                   driver: it tests the device's own teardown)
 *   cqe_qp_handle   the next CQE the device writes names this QP handle,
 *   cqe_wr_id       carries this wr_id,
 *   cqe_byte_len    this byte_len,
 *   cqe_opcode      this opcode,
 *   cqe_status      or this status (each one shot: armed by a write, off
 *                   once a CQE carried it; reading gives the last value)
 *   resp_handle     the next successful CREATE_PD/CQ/QP/SRQ returns this
 *                   handle instead of the object's (one shot)
 *   event           writing "TYPE HANDLE" raises an event of any type
 *                   naming any handle on eventq 0, at once
 *
 * All are read without the locks of the paths they perturb: a fault that
 * lands one command or one CQE later is just as good a fault.
 */
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/mutex.h>
#include <linux/sysfs.h>

#include "vdpa_rdma.h"

static struct vdr_dev *vdr_fault_dev(struct device *d)
{
	return container_of(d, struct vdr_dev, vdpa.dev);
}

/* The delays, in ms: read without a lock where they apply. */
static ssize_t vdr_ms_show(char *buf, const u32 *ms)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(*ms));
}

static ssize_t vdr_ms_store(const char *buf, size_t count, u32 *ms)
{
	u32 val;
	int ret;

	ret = kstrtou32(buf, 0, &val);
	if (ret)
		return ret;
	WRITE_ONCE(*ms, val);
	return count;
}

static ssize_t ctrl_delay_ms_show(struct device *d,
				  struct device_attribute *attr, char *buf)
{
	return vdr_ms_show(buf, &vdr_fault_dev(d)->fault_ctrl_delay_ms);
}

static ssize_t ctrl_delay_ms_store(struct device *d,
				   struct device_attribute *attr,
				   const char *buf, size_t count)
{
	return vdr_ms_store(buf, count, &vdr_fault_dev(d)->fault_ctrl_delay_ms);
}
static DEVICE_ATTR_RW(ctrl_delay_ms);

static ssize_t destroy_qp_delay_ms_show(struct device *d,
					struct device_attribute *attr,
					char *buf)
{
	return vdr_ms_show(buf, &vdr_fault_dev(d)->fault_destroy_qp_delay_ms);
}

static ssize_t destroy_qp_delay_ms_store(struct device *d,
					 struct device_attribute *attr,
					 const char *buf, size_t count)
{
	return vdr_ms_store(buf, count,
			    &vdr_fault_dev(d)->fault_destroy_qp_delay_ms);
}
static DEVICE_ATTR_RW(destroy_qp_delay_ms);

/* The one-shot knobs: a value, and a bit in fault_armed while it waits. */
struct vdr_fault_knob {
	struct device_attribute attr;
	unsigned int bit;
};

static struct vdr_fault_knob *to_knob(struct device_attribute *attr)
{
	return container_of(attr, struct vdr_fault_knob, attr);
}

static ssize_t vdr_knob_show(struct device *d, struct device_attribute *attr,
			     char *buf)
{
	struct vdr_dev *dev = vdr_fault_dev(d);

	return sysfs_emit(buf, "%llu\n",
			  READ_ONCE(dev->fault_val[to_knob(attr)->bit]));
}

static ssize_t vdr_knob_store(struct device *d, struct device_attribute *attr,
			      const char *buf, size_t count)
{
	struct vdr_dev *dev = vdr_fault_dev(d);
	unsigned int bit = to_knob(attr)->bit;
	u64 val;
	int ret;

	ret = kstrtou64(buf, 0, &val);
	if (ret)
		return ret;
	WRITE_ONCE(dev->fault_val[bit], val);
	/* The value before the bit: whoever sees the bit sees the value. */
	smp_mb__before_atomic();
	set_bit(bit, &dev->fault_armed);
	return count;
}

#define VDR_KNOB(_name, _bit)						\
	static struct vdr_fault_knob vdr_knob_##_name = {		\
		.attr = __ATTR(_name, 0600, vdr_knob_show,		\
			       vdr_knob_store),				\
		.bit = (_bit),						\
	}

VDR_KNOB(cqe_qp_handle, VDR_FAULT_CQE_QP);
VDR_KNOB(cqe_wr_id, VDR_FAULT_CQE_WR_ID);
VDR_KNOB(cqe_byte_len, VDR_FAULT_CQE_BYTE_LEN);
VDR_KNOB(cqe_opcode, VDR_FAULT_CQE_OPCODE);
VDR_KNOB(cqe_status, VDR_FAULT_CQE_STATUS);
VDR_KNOB(resp_handle, VDR_FAULT_RESP_HANDLE);

/* Writers of the event knobs of every device, one at a time. */
static DEFINE_MUTEX(vdr_fault_event_lock);

/* "TYPE HANDLE": whatever a device could put in an event record. */
static ssize_t event_store(struct device *d, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	struct vdr_dev *dev = vdr_fault_dev(d);
	u32 type, handle;
	ssize_t ret = count;

	if (sscanf(buf, "%u %u", &type, &handle) != 2)
		return -EINVAL;
	mutex_lock(&vdr_fault_event_lock);
	/*
	 * Still pending: it is on a list, which a new init would corrupt.
	 * Only delivery clears pending, and it never sets it again.
	 */
	if (READ_ONCE(dev->fault_event.pending)) {
		ret = -EBUSY;
	} else {
		vdr_event_init(&dev->fault_event, type, handle, 0);
		vdr_event_raise(dev, &dev->fault_event, 0);
	}
	mutex_unlock(&vdr_fault_event_lock);
	return ret;
}
static DEVICE_ATTR_WO(event);

static struct attribute *vdr_faults_attrs[] = {
	&dev_attr_ctrl_delay_ms.attr,
	&dev_attr_destroy_qp_delay_ms.attr,
	&vdr_knob_cqe_qp_handle.attr.attr,
	&vdr_knob_cqe_wr_id.attr.attr,
	&vdr_knob_cqe_byte_len.attr.attr,
	&vdr_knob_cqe_opcode.attr.attr,
	&vdr_knob_cqe_status.attr.attr,
	&vdr_knob_resp_handle.attr.attr,
	&dev_attr_event.attr,
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

/* In DESTROY_QP, after the flush, holding no lock; @qp is still alive. */
void vdr_fault_destroy_qp_delay(struct vdr_dev *dev, struct vdr_qp *qp)
{
	u32 ms = READ_ONCE(dev->fault_destroy_qp_delay_ms);

	if (!ms)
		return;
	vdr_qp_doorbell(dev, qp, VIRTIO_RDMA_DOORBELL_SQ);
	msleep(ms);
}

/* Takes the value of knob @bit if it is armed. */
static bool vdr_fault_take(struct vdr_dev *dev, unsigned int bit, u64 *val)
{
	if (!test_and_clear_bit(bit, &dev->fault_armed))
		return false;
	/* Pairs with the barrier in vdr_knob_store(). */
	smp_mb__after_atomic();
	*val = READ_ONCE(dev->fault_val[bit]);
	return true;
}

/* Under the CQ's lock, on the CQE just written to the ring. */
void vdr_fault_cqe(struct vdr_dev *dev, struct virtio_rdma_cqe *cqe)
{
	u64 v;

	/* A plain load first: no atomic per CQE while every fault is off. */
	if (likely(!(READ_ONCE(dev->fault_armed) & VDR_FAULT_CQE_MASK)))
		return;
	if (vdr_fault_take(dev, VDR_FAULT_CQE_QP, &v))
		cqe->qp_handle = cpu_to_le32(v);
	if (vdr_fault_take(dev, VDR_FAULT_CQE_WR_ID, &v))
		cqe->wr_id = cpu_to_le64(v);
	if (vdr_fault_take(dev, VDR_FAULT_CQE_BYTE_LEN, &v))
		cqe->byte_len = cpu_to_le32(v);
	if (vdr_fault_take(dev, VDR_FAULT_CQE_OPCODE, &v))
		cqe->opcode = v;
	if (vdr_fault_take(dev, VDR_FAULT_CQE_STATUS, &v))
		cqe->status = v;
}

/*
 * In ctrl_work, after command @cmd succeeded: the handle a create command
 * returns is the first word of each of their responses.
 */
void vdr_fault_resp(struct vdr_dev *dev, u32 cmd)
{
	u64 v;

	if (likely(!(READ_ONCE(dev->fault_armed) &
		     BIT(VDR_FAULT_RESP_HANDLE))))
		return;
	switch (cmd) {
	case VIRTIO_RDMA_CMD_CREATE_PD:
	case VIRTIO_RDMA_CMD_CREATE_CQ:
	case VIRTIO_RDMA_CMD_CREATE_QP:
	case VIRTIO_RDMA_CMD_CREATE_SRQ:
	case VIRTIO_RDMA_CMD_CREATE_XRCD:
		break;
	default:
		return;
	}
	BUILD_BUG_ON(offsetof(struct virtio_rdma_create_pd_resp, pd_handle) ||
		     offsetof(struct virtio_rdma_create_cq_resp, cq_handle) ||
		     offsetof(struct virtio_rdma_create_qp_resp, qp_handle) ||
		     offsetof(struct virtio_rdma_create_srq_resp, srq_handle) ||
		     offsetof(struct virtio_rdma_create_xrcd_resp, xrcd_handle));
	if (vdr_fault_take(dev, VDR_FAULT_RESP_HANDLE, &v))
		*(__le32 *)&dev->resp = cpu_to_le32(v);
}
