// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: completion queues.
 *
 * vdr_cq_post() is the only place that writes CQEs: flushes and the data
 * path both go through it, so the overflow rule and the arm handshake of
 * the spec ("Completion queue arming") live in one place.
 */
#include <linux/log2.h>
#include <linux/slab.h>

#include "vdpa_rdma.h"

#define VDR_CQE_SIZE		sizeof(struct virtio_rdma_cqe)

int vdr_cmd_create_cq(struct vdr_dev *dev)
{
	const struct virtio_rdma_create_cq_req *req = &dev->req.create_cq;
	u64 ring_addr = le64_to_cpu(req->ring_addr);
	u64 ring_size = le64_to_cpu(req->ring_size);
	u32 depth = le32_to_cpu(req->depth);
	u32 eventq = le32_to_cpu(req->eventq);
	struct vdr_cq *cq;
	u32 handle;
	int ret;

	if (!depth || depth > VDR_MAX_CQE || !is_power_of_2(depth))
		return VIRTIO_RDMA_STATUS_INVAL;
	if (ring_addr % VIRTIO_RDMA_RING_CTL_SIZE)
		return VIRTIO_RDMA_STATUS_INVAL;
	if (ring_size < VIRTIO_RDMA_RING_CTL_SIZE + (u64)depth * VDR_CQE_SIZE)
		return VIRTIO_RDMA_STATUS_INVAL;
	if (eventq >= dev->nqp)
		return VIRTIO_RDMA_STATUS_INVAL;
	if (dev->nr_cqs >= VDR_MAX_CQ)
		return VIRTIO_RDMA_STATUS_NOSPC;

	cq = kzalloc(sizeof(*cq), GFP_KERNEL);
	if (!cq)
		return VIRTIO_RDMA_STATUS_NOMEM;
	spin_lock_init(&cq->lock);
	ret = vdr_ring_map(dev, &cq->ring, ring_addr, depth, VDR_CQE_SIZE);
	if (ret) {
		kfree(cq);
		return vdr_errno_status(ret);
	}
	ret = xa_alloc_cyclic(&dev->cqs, &handle, cq,
			      XA_LIMIT(1, VDR_HANDLE_MAX), &dev->cq_next,
			      GFP_KERNEL);
	if (ret < 0) {
		vdr_ring_unmap(&cq->ring);
		kfree(cq);
		return ret == -EBUSY ? VIRTIO_RDMA_STATUS_NOSPC :
				       VIRTIO_RDMA_STATUS_NOMEM;
	}
	cq->handle = handle;
	cq->eventq = eventq;
	vdr_event_init(&cq->comp_ev, VIRTIO_RDMA_EVENT_COMP, handle, eventq);
	vdr_event_init(&cq->err_ev, VIRTIO_RDMA_EVENT_CQ_ERR, handle, 0);
	dev->nr_cqs++;
	dev->resp.create_cq.cq_handle = cpu_to_le32(handle);
	return VIRTIO_RDMA_STATUS_OK;
}

static void vdr_cq_free(struct vdr_dev *dev, struct vdr_cq *cq)
{
	vdr_event_cancel(dev, &cq->comp_ev);
	vdr_event_cancel(dev, &cq->err_ev);
	xa_erase(&dev->cqs, cq->handle);
	dev->nr_cqs--;
	vdr_ring_unmap(&cq->ring);
	kfree_rcu(cq, rcu);
}

int vdr_cmd_destroy_cq(struct vdr_dev *dev)
{
	struct vdr_cq *cq;

	cq = xa_load(&dev->cqs, le32_to_cpu(dev->req.destroy_cq.cq_handle));
	if (!cq)
		return VIRTIO_RDMA_STATUS_NOENT;
	if (cq->nr_qps)
		return VIRTIO_RDMA_STATUS_BUSY;
	vdr_cq_free(dev, cq);
	return VIRTIO_RDMA_STATUS_OK;
}

void vdr_cqs_destroy(struct vdr_dev *dev)
{
	struct vdr_cq *cq;
	unsigned long idx;

	xa_for_each(&dev->cqs, idx, cq)
		vdr_cq_free(dev, cq);
	dev->cq_next = 0;
}

/*
 * Disarms the CQ if the driver armed it for this kind of completion and
 * returns true, with the arm word in @arm: then a COMP event is due.
 */
static bool vdr_cq_check_arm(struct vdr_cq *cq, bool solicited, bool success,
			     u32 *arm)
{
	__le32 *notify = &cq->ring.ctl->notify;
	__le32 cur, old;

	cur = READ_ONCE(*notify);
	for (;;) {
		*arm = le32_to_cpu(cur);
		if (!(*arm & VIRTIO_RDMA_CQ_ARM_ARMED))
			return false;
		if ((*arm & VIRTIO_RDMA_CQ_ARM_SOLICITED) && !solicited &&
		    success)
			return false;
		/* Never clear an arm word the driver rewrote meanwhile. */
		old = cmpxchg(notify, cur,
			      cpu_to_le32(*arm & ~VIRTIO_RDMA_CQ_ARM_ARMED));
		if (old == cur)
			return true;
		cur = old;
	}
}

/**
 * vdr_cq_post - write one CQE and run the arm handshake
 * @dev: the device
 * @cq: the CQ
 * @cqe: the completion, already in ABI (little-endian) form
 * @solicited: the completion is for a received solicited message
 *
 * Process context without spinlocks: the COMP event it raises may be
 * written to the eventq on the spot (vdr_event_raise_now()).
 *
 * Return: 0, or -ENOSPC when the CQ is (or just became) overflowed; the
 * caller then moves the QP to ERR.
 */
int vdr_cq_post(struct vdr_dev *dev, struct vdr_cq *cq,
		const struct virtio_rdma_cqe *cqe, bool solicited)
{
	struct virtio_rdma_ring_ctl *ctl = cq->ring.ctl;
	bool event = false;
	unsigned long flags;
	u32 cons, rflags, arm;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->overflow) {
		ret = -ENOSPC;
		goto out;
	}
	/*
	 * Acquire: the driver is done reading the slots below cons.  cons is
	 * untrusted: anything beyond depth counts as full.
	 */
	cons = le32_to_cpu(smp_load_acquire(&ctl->cons));
	if (cq->prod - cons >= cq->ring.depth) {
		cq->overflow = true;
		rflags = VIRTIO_RDMA_RING_F_OVERFLOW | VIRTIO_RDMA_RING_F_ERROR;
		WRITE_ONCE(ctl->flags, cpu_to_le32(rflags));
		vdr_event_raise(dev, &cq->err_ev, rflags);
		ret = -ENOSPC;
		goto out;
	}
	memcpy(vdr_ring_entry(&cq->ring, cq->prod), cqe, sizeof(*cqe));
	cq->prod++;
	/* The CQE is complete before the driver can see the new prod. */
	smp_store_release(&ctl->prod, cpu_to_le32(cq->prod));
	/* Pairs with the driver's barrier between arming and reading prod. */
	smp_mb();
	event = vdr_cq_check_arm(cq, solicited,
				 cqe->status == VIRTIO_RDMA_WC_SUCCESS, &arm);
out:
	spin_unlock_irqrestore(&cq->lock, flags);
	/* Outside cq->lock: the event may be written to the eventq here. */
	if (event)
		vdr_event_raise_now(dev, &cq->comp_ev,
				    arm & VIRTIO_RDMA_CQ_ARM_SN_MASK);
	return ret;
}
