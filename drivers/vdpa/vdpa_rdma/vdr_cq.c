// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: completion queues.
 *
 * vdr_cq_post() is the only place that writes CQEs: flushes and the data
 * path both go through it, so the overflow rule and the arm handshake of
 * the spec ("Completion queue arming") live in one place.  RESIZE_CQ
 * switches rings under the same lock, so a CQE goes either to the old ring
 * before the switch or to the new one after it.
 */
#include <linux/log2.h>
#include <linux/slab.h>

#include "vdpa_rdma.h"
#include "vdr_xport.h"

#define VDR_CQE_SIZE		sizeof(struct virtio_rdma_cqe)

/* The ring geometry rules CREATE_CQ and RESIZE_CQ share. */
static bool vdr_cq_ring_ok(u64 ring_addr, u64 ring_size, u32 depth)
{
	if (!depth || depth > VDR_MAX_CQE || !is_power_of_2(depth))
		return false;
	if (ring_addr % VIRTIO_RDMA_RING_CTL_SIZE)
		return false;
	return ring_size >= VIRTIO_RDMA_RING_CTL_SIZE + (u64)depth * VDR_CQE_SIZE;
}

int vdr_cmd_create_cq(struct vdr_dev *dev)
{
	const struct virtio_rdma_create_cq_req *req = &dev->req.create_cq;
	u64 ring_addr = le64_to_cpu(req->ring_addr);
	u64 ring_size = le64_to_cpu(req->ring_size);
	u32 depth = le32_to_cpu(req->depth);
	u32 eventq = le32_to_cpu(req->eventq);
	struct vdr_memcg m;
	struct vdr_cq *cq;
	u32 handle;
	int ret;

	if (!vdr_cq_ring_ok(ring_addr, ring_size, depth))
		return VIRTIO_RDMA_STATUS_INVAL;
	if (eventq >= dev->nqp)
		return VIRTIO_RDMA_STATUS_INVAL;
	if (dev->nr_cqs >= VDR_MAX_CQ)
		return VIRTIO_RDMA_STATUS_NOSPC;

	vdr_memcg_enter(dev, &m, ring_addr);
	cq = kzalloc(sizeof(*cq), VDR_GFP_OBJ);
	vdr_memcg_leave(&m);
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
	/* XRC SRQs complete into their CQ too (spec "XRC"). */
	if (cq->nr_qps || cq->nr_srqs)
		return VIRTIO_RDMA_STATUS_BUSY;
	vdr_cq_free(dev, cq);
	return VIRTIO_RDMA_STATUS_OK;
}

/*
 * Moves the CQ to the ring the driver gave (spec "RESIZE_CQ").  Mapping the
 * new ring may sleep, so it happens before cq->lock is taken; under the
 * lock the data path cannot post, which makes copying the unconsumed CQEs
 * and switching rings one step for every producer.  Indices are free-
 * running and not renumbered: each CQE lands at its own index in the new
 * ring, and the driver's cons stays valid.
 */
int vdr_cmd_resize_cq(struct vdr_dev *dev)
{
	const struct virtio_rdma_resize_cq_req *req = &dev->req.resize_cq;
	u64 ring_addr = le64_to_cpu(req->ring_addr);
	u64 ring_size = le64_to_cpu(req->ring_size);
	u32 depth = le32_to_cpu(req->depth);
	struct vdr_ring ring = {}, old;
	unsigned long flags, idx;
	struct vdr_qp *qp;
	struct vdr_cq *cq;
	u32 cons, count, i;
	int status, ret;

	if (!vdr_has_feature(dev, VIRTIO_RDMA_F_RESIZE))
		return VIRTIO_RDMA_STATUS_OPNOTSUPP;
	cq = xa_load(&dev->cqs, le32_to_cpu(req->cq_handle));
	if (!cq)
		return VIRTIO_RDMA_STATUS_NOENT;
	if (!vdr_cq_ring_ok(ring_addr, ring_size, depth))
		return VIRTIO_RDMA_STATUS_INVAL;
	/*
	 * The count that decides a shrink includes what the driver posted
	 * before this command and needs no network to complete: an
	 * application that posted sends and resizes expects their
	 * completions counted, not still waiting for a worker.
	 */
	if (cq->nr_qps)
		xa_for_each(&dev->qps, idx, qp)
			if (qp->scq == cq || qp->rcq == cq)
				vdr_xqp_run_now(qp);
	ret = vdr_ring_map(dev, &ring, ring_addr, depth, VDR_CQE_SIZE);
	if (ret)
		return vdr_errno_status(ret);

	status = VIRTIO_RDMA_STATUS_INVAL;
	spin_lock_irqsave(&cq->lock, flags);
	/* An overflowed CQ has lost a CQE already: it can only be destroyed. */
	if (cq->overflow)
		goto unlock;
	/*
	 * The driver stores cons to the new ring before the old one, so the
	 * old ring's is never ahead.  Untrusted: an impossible value fails
	 * the command rather than copying a ring's worth of garbage.
	 */
	cons = le32_to_cpu(smp_load_acquire(&cq->ring.ctl->cons));
	count = cq->prod - cons;
	if (count > cq->ring.depth || count > depth)
		goto unlock;
	for (i = cons; i != cq->prod; i++)
		memcpy(vdr_ring_entry(&ring, i), vdr_ring_entry(&cq->ring, i),
		       VDR_CQE_SIZE);
	WRITE_ONCE(ring.ctl->flags, 0);
	/* The copied CQEs are complete before the new prod is visible. */
	smp_store_release(&ring.ctl->prod, cpu_to_le32(cq->prod));
	old = cq->ring;
	cq->ring = ring;
	ring = old;
	/*
	 * An arm the driver copied into the new ring after we had answered
	 * it in the old one must not raise a second event; cmpxchg, as in
	 * vdr_cq_check_arm(), so that a newer arm is never cleared.
	 */
	if (cq->fired_arm)
		cmpxchg(&cq->ring.ctl->notify, cpu_to_le32(cq->fired_arm),
			cpu_to_le32(cq->fired_arm & ~VIRTIO_RDMA_CQ_ARM_ARMED));
	status = VIRTIO_RDMA_STATUS_OK;
unlock:
	spin_unlock_irqrestore(&cq->lock, flags);
	/* The old ring after a switch, else the new one, never touched. */
	vdr_ring_unmap(&ring);
	return status;
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
 * Disarm attempts per CQE.  A driver rewrites its arm word once per
 * req_notify, so one retry covers a race with it; the word lives in user
 * memory for a user CQ, though, and a process rewriting it in a loop must
 * not keep the device spinning here with interrupts off.
 */
#define VDR_CQ_ARM_TRIES	4

/*
 * Disarms the CQ if the driver armed it for this kind of completion and
 * returns true, with the arm word in @arm: then a COMP event is due.  An
 * arm word that keeps changing counts as armed: an event too many wakes a
 * consumer that finds its CQ as it left it, one too few would hang it.
 */
static bool vdr_cq_check_arm(struct vdr_cq *cq, bool solicited, bool success,
			     u32 *arm)
{
	__le32 *notify = &cq->ring.ctl->notify;
	__le32 cur, old;
	int i;

	cur = READ_ONCE(*notify);
	for (i = 0; i < VDR_CQ_ARM_TRIES; i++) {
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
	return true;
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
	struct virtio_rdma_ring_ctl *ctl;
	bool event = false;
	unsigned long flags;
	u32 cons, rflags, arm;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, flags);
	/* Under the lock: RESIZE_CQ switches rings (and unmaps the old one). */
	ctl = cq->ring.ctl;
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
	vdr_fault_cqe(dev, vdr_ring_entry(&cq->ring, cq->prod));
	cq->prod++;
	/* The CQE is complete before the driver can see the new prod. */
	smp_store_release(&ctl->prod, cpu_to_le32(cq->prod));
	/* Pairs with the driver's barrier between arming and reading prod. */
	smp_mb();
	event = vdr_cq_check_arm(cq, solicited,
				 cqe->status == VIRTIO_RDMA_WC_SUCCESS, &arm);
	if (event)
		cq->fired_arm = arm;
out:
	spin_unlock_irqrestore(&cq->lock, flags);
	/* Outside cq->lock: the event may be written to the eventq here. */
	if (event)
		vdr_event_raise_now(dev, &cq->comp_ev,
				    arm & VIRTIO_RDMA_CQ_ARM_SN_MASK);
	return ret;
}
