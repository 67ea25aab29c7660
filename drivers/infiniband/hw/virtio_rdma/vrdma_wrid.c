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
 * A slot's shadow is rewritten when the slot is posted again, which a
 * consumer does only after it polled the slot's completion (or a later
 * one, for unsignaled sends): the ring holds at most depth WRs that were
 * posted and not polled, as verbs consumers count them.
 *
 * User QPs post their own WQEs: their wr_id is the process's business.
 */

#include <linux/mm.h>
#include <linux/overflow.h>

#include "vrdma.h"

/* The queue in the token's upper half; 0 is no queue at all. */
#define VRDMA_TOKEN_SQ	1
#define VRDMA_TOKEN_RQ	2	/* the QP's RQ, or its SRQ */

int vrdma_wrids_alloc(struct vrdma_ring *ring)
{
	ring->wrids = kvcalloc(ring->depth, sizeof(*ring->wrids), GFP_KERNEL);
	return ring->wrids ? 0 : -ENOMEM;
}

void vrdma_wrids_free(struct vrdma_ring *ring)
{
	kvfree(ring->wrids);
	ring->wrids = NULL;
}

static __le64 vrdma_wrid_put(struct vrdma_ring *ring, u32 queue, u64 wr_id,
			     u32 len)
{
	u32 slot = ring->head & (ring->depth - 1);

	ring->wrids[slot].wr_id = wr_id;
	ring->wrids[slot].len = len;
	return cpu_to_le64((u64)queue << 32 | slot);
}

/* The token of the send WQE about to be written at the SQ's head. */
__le64 vrdma_wrid_send(struct vrdma_ring *sq, u64 wr_id)
{
	return vrdma_wrid_put(sq, VRDMA_TOKEN_SQ, wr_id, 0);
}

/* The token of the receive WQE about to be written at the ring's head. */
__le64 vrdma_wrid_recv(struct vrdma_ring *rq, const struct ib_recv_wr *wr)
{
	u32 len = 0;
	int i;

	/* SGEs that add up past 4 GiB hold any message the device can send. */
	for (i = 0; i < wr->num_sge; i++)
		if (check_add_overflow(len, wr->sg_list[i].length, &len))
			len = U32_MAX;
	return vrdma_wrid_put(rq, VRDMA_TOKEN_RQ, wr->wr_id, len);
}

/*
 * What was posted in the slot a CQE of kernel QP @qp names, or NULL if its
 * token names none (the caller holds the CQ's lock, so @qp stays).
 */
const struct vrdma_wrid *vrdma_wrid_get(struct vrdma_qp *qp,
					const struct virtio_rdma_cqe *cqe)
{
	u64 token = le64_to_cpu(cqe->wr_id);
	u32 slot = lower_32_bits(token);
	struct vrdma_ring *ring;

	switch (upper_32_bits(token)) {
	case VRDMA_TOKEN_SQ:
		ring = &qp->sq;
		break;
	case VRDMA_TOKEN_RQ:
		ring = qp->ibqp.srq ? &to_vsrq(qp->ibqp.srq)->ring : &qp->rq;
		break;
	default:
		return NULL;
	}
	if (!ring->wrids || slot >= ring->depth)
		return NULL;
	return &ring->wrids[slot];
}
