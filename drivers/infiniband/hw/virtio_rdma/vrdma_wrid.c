// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * Work request ids of kernel QPs and SRQs.  A kernel consumer's wr_id is
 * often a pointer (ib_cqe): handed back from a CQE unchecked, a device
 * that wrote a wrong one would make the consumer call through garbage.  So
 * the device never sees it.  A WQE carries a token instead, the queue and
 * the ring slot it was written to; the consumer's wr_id, and for a receive
 * the length it posted, wait in a shadow array beside the ring, which the
 * device cannot reach.  A CQE is then checked against what was posted: a
 * token that names no slot is the device's error and is dropped, and a
 * receive longer than its buffers completes with IB_WC_LOC_LEN_ERR.
 *
 * An SQ's or RQ's shadow is the ring slot's, rewritten when the slot is
 * posted again, which a consumer does only after it polled the slot's
 * completion (or a later one, for unsignaled sends): their WRs complete in
 * order, and the ring holds at most depth WRs that were posted and not
 * polled, as verbs consumers count them.  An SRQ's receives complete in
 * any order (each QP takes one when a message starts, and one QP's message
 * can take long while others come and go), so a slot of its ring may be
 * posted again while the receive first written there is still a QP's: its
 * shadow entries are taken from a free stack when posted and given back
 * when polled, and the token names the entry, not the slot.
 *
 * User QPs post their own WQEs: their wr_id is the process's business.
 */

#include <kunit/visibility.h>
#include <linux/mm.h>
#include <linux/overflow.h>

#include "vrdma.h"

/* The queue in the token's upper half; 0 is no queue at all. */
#define VRDMA_TOKEN_SQ	1
#define VRDMA_TOKEN_RQ	2	/* the QP's RQ, or its SRQ */

/* @any_order: an SRQ's, whose shadow entries come from a free stack */
int vrdma_wrids_alloc(struct vrdma_ring *ring, bool any_order)
{
	u32 i;

	ring->wrids = kvcalloc(ring->depth, sizeof(*ring->wrids), GFP_KERNEL);
	if (!ring->wrids)
		return -ENOMEM;
	if (!any_order)
		return 0;
	ring->wrid_free = kvcalloc(ring->depth, sizeof(*ring->wrid_free),
				   GFP_KERNEL);
	if (!ring->wrid_free) {
		vrdma_wrids_free(ring);
		return -ENOMEM;
	}
	for (i = 0; i < ring->depth; i++)
		ring->wrid_free[i] = ring->depth - 1 - i;
	ring->wrid_nfree = ring->depth;
	spin_lock_init(&ring->wrid_lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vrdma_wrids_alloc);

void vrdma_wrids_free(struct vrdma_ring *ring)
{
	kvfree(ring->wrids);
	kvfree(ring->wrid_free);
	ring->wrids = NULL;
	ring->wrid_free = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(vrdma_wrids_free);

static __le64 vrdma_wrid_put(struct vrdma_ring *ring, u32 slot, u32 queue,
			     u64 wr_id, u32 len)
{
	struct vrdma_wrid *w = &ring->wrids[slot];

	w->wr_id = wr_id;
	w->len = len;
	w->posted = true;
	return cpu_to_le64((u64)queue << 32 | slot);
}

/* The token of the send WQE about to be written at the SQ's head. */
__le64 vrdma_wrid_send(struct vrdma_ring *sq, u64 wr_id)
{
	return vrdma_wrid_put(sq, sq->head & (sq->depth - 1), VRDMA_TOKEN_SQ,
			      wr_id, 0);
}

/*
 * The token of the receive WQE about to be written at the ring's head, in
 * @token; -ENOMEM when all of an SRQ's entries are posted and not polled.
 */
int vrdma_wrid_recv(struct vrdma_ring *rq, const struct ib_recv_wr *wr,
		    __le64 *token)
{
	u32 slot = rq->head & (rq->depth - 1);
	unsigned long flags;
	u32 len = 0;
	int i;

	if (rq->wrid_free) {
		spin_lock_irqsave(&rq->wrid_lock, flags);
		if (!rq->wrid_nfree) {
			spin_unlock_irqrestore(&rq->wrid_lock, flags);
			return -ENOMEM;
		}
		slot = rq->wrid_free[--rq->wrid_nfree];
		spin_unlock_irqrestore(&rq->wrid_lock, flags);
	}

	/* SGEs that add up past 4 GiB hold any message the device can send. */
	for (i = 0; i < wr->num_sge; i++)
		if (check_add_overflow(len, wr->sg_list[i].length, &len))
			len = U32_MAX;
	*token = vrdma_wrid_put(rq, slot, VRDMA_TOKEN_RQ, wr->wr_id, len);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vrdma_wrid_recv);

/*
 * What was posted in the slot a CQE of kernel QP @qp names, copied to @w;
 * false if its token names none, or an SRQ entry that is not posted (the
 * device completed it twice).  An SRQ's entry is free again on return.
 * The caller holds the CQ's lock, so @qp stays.
 */
bool vrdma_wrid_take(struct vrdma_qp *qp, const struct virtio_rdma_cqe *cqe,
		     struct vrdma_wrid *w)
{
	u64 token = le64_to_cpu(cqe->wr_id);
	u32 slot = lower_32_bits(token);
	struct vrdma_ring *ring;
	unsigned long flags;
	bool posted;

	switch (upper_32_bits(token)) {
	case VRDMA_TOKEN_SQ:
		ring = &qp->sq;
		break;
	case VRDMA_TOKEN_RQ:
		ring = qp->ibqp.srq ? &to_vsrq(qp->ibqp.srq)->ring : &qp->rq;
		break;
	default:
		return false;
	}
	if (!ring->wrids || slot >= ring->depth)
		return false;
	if (!ring->wrid_free) {
		*w = ring->wrids[slot];
		return w->posted;
	}
	spin_lock_irqsave(&ring->wrid_lock, flags);
	*w = ring->wrids[slot];
	posted = w->posted;
	if (posted) {
		ring->wrids[slot].posted = false;
		ring->wrid_free[ring->wrid_nfree++] = slot;
	}
	spin_unlock_irqrestore(&ring->wrid_lock, flags);
	return posted;
}
EXPORT_SYMBOL_IF_KUNIT(vrdma_wrid_take);
