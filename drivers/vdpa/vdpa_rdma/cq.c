// SPDX-License-Identifier: GPL-2.0
/*
 * vdpa_rdma: completion queues.
 *
 * vrdma_cq_post() is the only place that writes CQEs: flushes and the data
 * path both go through it, so the overflow rule and the arm handshake of
 * the spec ("Completion queue arming") live in one place.
 */
#include <linux/log2.h>
#include <linux/slab.h>

#include "vdpa_rdma.h"

#define VRDMA_CQ_HANDLE_MAX	((1U << 24) - 1)
#define VRDMA_CQE_SIZE		sizeof(struct virtio_rdma_cqe)

static int vrdma_errno_status(int err)
{
	switch (err) {
	case -EFAULT:
		return VIRTIO_RDMA_STATUS_FAULT;
	case -EINVAL:
		return VIRTIO_RDMA_STATUS_INVAL;
	default:
		return VIRTIO_RDMA_STATUS_NOMEM;
	}
}

int vrdma_cmd_create_cq(struct vrdma_dev *dev)
{
	const struct virtio_rdma_create_cq_req *req = &dev->req.create_cq;
	u64 ring_addr = le64_to_cpu(req->ring_addr);
	u64 ring_size = le64_to_cpu(req->ring_size);
	u32 depth = le32_to_cpu(req->depth);
	u32 eventq = le32_to_cpu(req->eventq);
	struct vrdma_cq *cq;
	u32 handle;
	int ret;

	if (!depth || depth > VRDMA_MAX_CQE || !is_power_of_2(depth))
		return VIRTIO_RDMA_STATUS_INVAL;
	if (ring_addr % VIRTIO_RDMA_RING_CTL_SIZE)
		return VIRTIO_RDMA_STATUS_INVAL;
	if (ring_size < VIRTIO_RDMA_RING_CTL_SIZE + (u64)depth * VRDMA_CQE_SIZE)
		return VIRTIO_RDMA_STATUS_INVAL;
	if (eventq >= dev->nqp)
		return VIRTIO_RDMA_STATUS_INVAL;
	if (dev->nr_cqs >= VRDMA_MAX_CQ)
		return VIRTIO_RDMA_STATUS_NOSPC;

	cq = kzalloc(sizeof(*cq), GFP_KERNEL);
	if (!cq)
		return VIRTIO_RDMA_STATUS_NOMEM;
	spin_lock_init(&cq->lock);
	ret = vrdma_ring_map(dev, &cq->ring, ring_addr, depth, VRDMA_CQE_SIZE);
	if (ret) {
		kfree(cq);
		return vrdma_errno_status(ret);
	}
	ret = xa_alloc_cyclic(&dev->cqs, &handle, cq,
			      XA_LIMIT(1, VRDMA_CQ_HANDLE_MAX), &dev->cq_next,
			      GFP_KERNEL);
	if (ret < 0) {
		vrdma_ring_unmap(&cq->ring);
		kfree(cq);
		return ret == -EBUSY ? VIRTIO_RDMA_STATUS_NOSPC :
				       VIRTIO_RDMA_STATUS_NOMEM;
	}
	cq->handle = handle;
	cq->eventq = eventq;
	vrdma_event_init(&cq->comp_ev, VIRTIO_RDMA_EVENT_COMP, handle, eventq);
	vrdma_event_init(&cq->err_ev, VIRTIO_RDMA_EVENT_CQ_ERR, handle, 0);
	dev->nr_cqs++;
	dev->resp.create_cq.cq_handle = cpu_to_le32(handle);
	return VIRTIO_RDMA_STATUS_OK;
}

static void vrdma_cq_free(struct vrdma_dev *dev, struct vrdma_cq *cq)
{
	vrdma_event_cancel(dev, &cq->comp_ev);
	vrdma_event_cancel(dev, &cq->err_ev);
	xa_erase(&dev->cqs, cq->handle);
	dev->nr_cqs--;
	vrdma_ring_unmap(&cq->ring);
	kfree_rcu(cq, rcu);
}

int vrdma_cmd_destroy_cq(struct vrdma_dev *dev)
{
	struct vrdma_cq *cq;

	cq = xa_load(&dev->cqs, le32_to_cpu(dev->req.destroy_cq.cq_handle));
	if (!cq)
		return VIRTIO_RDMA_STATUS_NOENT;
	if (cq->nr_qps)
		return VIRTIO_RDMA_STATUS_BUSY;
	vrdma_cq_free(dev, cq);
	return VIRTIO_RDMA_STATUS_OK;
}

void vrdma_cqs_destroy(struct vrdma_dev *dev)
{
	struct vrdma_cq *cq;
	unsigned long idx;

	xa_for_each(&dev->cqs, idx, cq)
		vrdma_cq_free(dev, cq);
	dev->cq_next = 0;
}

/* Raises COMP if the driver armed the CQ for this kind of completion. */
static void vrdma_cq_check_arm(struct vrdma_dev *dev, struct vrdma_cq *cq,
			       bool solicited, bool success)
{
	__le32 *notify = &cq->ring.ctl->notify;
	__le32 cur, old;
	u32 arm;

	cur = READ_ONCE(*notify);
	for (;;) {
		arm = le32_to_cpu(cur);
		if (!(arm & VIRTIO_RDMA_CQ_ARM_ARMED))
			return;
		if ((arm & VIRTIO_RDMA_CQ_ARM_SOLICITED) && !solicited &&
		    success)
			return;
		/* Never clear an arm word the driver rewrote meanwhile. */
		old = cmpxchg(notify, cur,
			      cpu_to_le32(arm & ~VIRTIO_RDMA_CQ_ARM_ARMED));
		if (old == cur)
			break;
		cur = old;
	}
	vrdma_event_raise(dev, &cq->comp_ev, arm & VIRTIO_RDMA_CQ_ARM_SN_MASK);
}

/**
 * vrdma_cq_post - write one CQE and run the arm handshake
 * @dev: the device
 * @cq: the CQ
 * @cqe: the completion, already in ABI (little-endian) form
 * @solicited: the completion is for a received solicited message
 *
 * Return: 0, or -ENOSPC when the CQ is (or just became) overflowed; the
 * caller then moves the QP to ERR.
 */
int vrdma_cq_post(struct vrdma_dev *dev, struct vrdma_cq *cq,
		  const struct virtio_rdma_cqe *cqe, bool solicited)
{
	struct virtio_rdma_ring_ctl *ctl = cq->ring.ctl;
	unsigned long flags;
	u32 cons, rflags;
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
		vrdma_event_raise(dev, &cq->err_ev, rflags);
		ret = -ENOSPC;
		goto out;
	}
	memcpy(vrdma_ring_entry(&cq->ring, cq->prod), cqe, sizeof(*cqe));
	cq->prod++;
	/* The CQE is complete before the driver can see the new prod. */
	smp_store_release(&ctl->prod, cpu_to_le32(cq->prod));
	/* Pairs with the driver's barrier between arming and reading prod. */
	smp_mb();
	vrdma_cq_check_arm(dev, cq, solicited,
			   cqe->status == VIRTIO_RDMA_WC_SUCCESS);
out:
	spin_unlock_irqrestore(&cq->lock, flags);
	return ret;
}
