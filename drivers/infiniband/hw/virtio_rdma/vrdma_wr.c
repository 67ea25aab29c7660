// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma work requests: kernel post_send and post_recv write WQEs into
 * the SQ/RQ rings, publish prod and ring a doorbell only when the device's
 * event index asks for one (spec: "Doorbells and notification suppression").
 */

#include <linux/log2.h>

#include "vrdma.h"

#define VRDMA_SEND_FLAGS						\
	(IB_SEND_FENCE | IB_SEND_SIGNALED | IB_SEND_SOLICITED | IB_SEND_INLINE)

static_assert(VIRTIO_RDMA_WQE_F_FENCE == IB_SEND_FENCE);
static_assert(VIRTIO_RDMA_WQE_F_SIGNALED == IB_SEND_SIGNALED);
static_assert(VIRTIO_RDMA_WQE_F_SOLICITED == IB_SEND_SOLICITED);
static_assert(VIRTIO_RDMA_WQE_F_INLINE == IB_SEND_INLINE);
static_assert(VIRTIO_RDMA_WR_RDMA_WRITE == IB_WR_RDMA_WRITE);
static_assert(VIRTIO_RDMA_WR_RDMA_WRITE_WITH_IMM == IB_WR_RDMA_WRITE_WITH_IMM);
static_assert(VIRTIO_RDMA_WR_SEND == IB_WR_SEND);
static_assert(VIRTIO_RDMA_WR_SEND_WITH_IMM == IB_WR_SEND_WITH_IMM);
static_assert(VIRTIO_RDMA_WR_RDMA_READ == IB_WR_RDMA_READ);
static_assert(VIRTIO_RDMA_WR_ATOMIC_CMP_AND_SWP == IB_WR_ATOMIC_CMP_AND_SWP);
static_assert(VIRTIO_RDMA_WR_ATOMIC_FETCH_AND_ADD == IB_WR_ATOMIC_FETCH_AND_ADD);
static_assert(VIRTIO_RDMA_WR_LOCAL_INV == IB_WR_LOCAL_INV);
static_assert(VIRTIO_RDMA_WR_SEND_WITH_INV == IB_WR_SEND_WITH_INV);
static_assert(VIRTIO_RDMA_WR_REG_MR == IB_WR_REG_MR);

/* Publish entries [old, head) and tell whether the device wants a doorbell. */
static bool vrdma_ring_publish(struct vrdma_ring *ring, u32 old)
{
	struct virtio_rdma_ring_ctl *ctl = vrdma_ring_ctl(ring);

	/* WQEs must be visible before the device can see the new prod. */
	virt_store_release(&ctl->prod, cpu_to_le32(ring->head));
	/* Dekker with the device's "store notify, barrier, reload prod". */
	virt_mb();
	return virtio_rdma_need_doorbell(le32_to_cpu(READ_ONCE(ctl->notify)),
					 ring->head, old);
}

bool vrdma_ring_full(struct vrdma_ring *ring)
{
	u32 cons;

	/* The device has finished with slots below cons (release on its side). */
	cons = le32_to_cpu(virt_load_acquire(&vrdma_ring_ctl(ring)->cons));

	/* An index out of range counts as full: never overwrite live WQEs. */
	return virtio_rdma_ring_full(ring->head, cons, ring->depth);
}

int vrdma_copy_sges(struct virtio_rdma_sge *dst, const struct ib_sge *src,
		    int num, u32 max)
{
	int i;

	if (num < 0 || num > max)
		return -EINVAL;
	for (i = 0; i < num; i++) {
		dst[i].addr = cpu_to_le64(src[i].addr);
		dst[i].length = cpu_to_le32(src[i].length);
		dst[i].lkey = cpu_to_le32(src[i].lkey);
	}
	return num;
}

/* Kernel inline data: SGE addresses are kernel virtual addresses. */
static int vrdma_copy_inline(void *dst, const struct ib_send_wr *wr, u32 max)
{
	u32 total = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		u32 len = wr->sg_list[i].length;

		if (len > max - total)
			return -EINVAL;
		memcpy(dst + total, (void *)(uintptr_t)wr->sg_list[i].addr, len);
		total += len;
	}
	return total;
}

/*
 * The opcode rules of the device ABI (QP type, the atomic feature, which
 * opcodes carry inline data).  IB_WR_* equals VIRTIO_RDMA_WR_* for every
 * opcode the ABI defines; the rest are unknown to the rules as well.
 */
static bool vrdma_wr_op_ok(struct vrdma_dev *dev, struct vrdma_qp *qp,
			   const struct ib_send_wr *wr)
{
	u8 type = vrdma_qp_type(qp->ibqp.qp_type);

	if (wr->opcode > U8_MAX || !virtio_rdma_wr_op_ok(type, wr->opcode))
		return false;
	if (virtio_rdma_wr_op_atomic(wr->opcode) && !dev->atomic)
		return false;
	return !(wr->send_flags & IB_SEND_INLINE) ||
	       virtio_rdma_wr_op_inline(wr->opcode);
}

static int vrdma_build_send(struct vrdma_dev *dev, struct vrdma_qp *qp,
			    const struct ib_send_wr *wr, void *slot)
{
	enum ib_qp_type type = qp->ibqp.qp_type;
	struct virtio_rdma_sq_wqe *wqe = slot;
	void *data = slot + sizeof(*wqe);
	int n;

	if (wr->send_flags & ~VRDMA_SEND_FLAGS)
		return -EINVAL;
	/* Reject here what the device would fail the QP for (spec). */
	if (!vrdma_wr_op_ok(dev, qp, wr))
		return -EINVAL;
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = vrdma_wrid_send(&qp->sq, wr->wr_id);
	wqe->opcode = wr->opcode;
	wqe->flags = wr->send_flags;

	switch (wr->opcode) {
	case IB_WR_SEND_WITH_IMM:
		wqe->ex.imm_data = wr->ex.imm_data;
		fallthrough;
	case IB_WR_SEND:
		if (virtio_rdma_qpt_is_ud(type)) {
			const struct ib_ud_wr *u = ud_wr(wr);

			if (!u->ah)
				return -EINVAL;
			wqe->wr.ud.av = to_vah(u->ah)->av;
			wqe->wr.ud.remote_qpn = cpu_to_le32(u->remote_qpn);
			wqe->wr.ud.remote_qkey = cpu_to_le32(u->remote_qkey);
		}
		break;
	case IB_WR_SEND_WITH_INV:
		wqe->ex.invalidate_rkey = cpu_to_le32(wr->ex.invalidate_rkey);
		break;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		wqe->ex.imm_data = wr->ex.imm_data;
		fallthrough;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_READ:
		wqe->wr.rdma.remote_addr = cpu_to_le64(rdma_wr(wr)->remote_addr);
		wqe->wr.rdma.rkey = cpu_to_le32(rdma_wr(wr)->rkey);
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.atomic.remote_addr =
			cpu_to_le64(atomic_wr(wr)->remote_addr);
		wqe->wr.atomic.compare_add =
			cpu_to_le64(atomic_wr(wr)->compare_add);
		wqe->wr.atomic.swap = cpu_to_le64(atomic_wr(wr)->swap);
		wqe->wr.atomic.rkey = cpu_to_le32(atomic_wr(wr)->rkey);
		break;
	case IB_WR_LOCAL_INV:
		wqe->ex.invalidate_rkey = cpu_to_le32(wr->ex.invalidate_rkey);
		break;
	case IB_WR_REG_MR: {
		const struct ib_reg_wr *r = reg_wr(wr);
		struct vrdma_mr *mr = to_vmr(r->mr);

		if (!mr->pl || !is_power_of_2(r->mr->page_size))
			return -EINVAL;
		wqe->wr.reg_mr.key = cpu_to_le32(r->key);
		wqe->wr.reg_mr.access_flags = cpu_to_le32(r->access);
		wqe->wr.reg_mr.iova = cpu_to_le64(r->mr->iova);
		wqe->wr.reg_mr.length = cpu_to_le64(r->mr->length);
		wqe->wr.reg_mr.page_shift = cpu_to_le32(ilog2(r->mr->page_size));
		wqe->wr.reg_mr.npages = cpu_to_le32(mr->npages);
		return 0;
	}
	default:
		return -EINVAL;
	}

	if (wr->send_flags & IB_SEND_INLINE) {
		n = vrdma_copy_inline(data, wr, qp->max_inline);
		if (n < 0)
			return n;
		wqe->length = cpu_to_le32(n);
		return 0;
	}
	n = vrdma_copy_sges(data, wr->sg_list, wr->num_sge, qp->max_send_sge);
	if (n < 0)
		return n;
	wqe->num_sge = n;
	return 0;
}

/*
 * In ERR the device only flushes WQEs, so any WR is accepted as it is: the
 * marker ib_drain_sq() posts is an RDMA WRITE even on UD QPs.
 */
static void vrdma_build_flush(struct vrdma_qp *qp, const struct ib_send_wr *wr,
			      void *slot)
{
	struct virtio_rdma_sq_wqe *wqe = slot;

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = vrdma_wrid_send(&qp->sq, wr->wr_id);
	wqe->opcode = VIRTIO_RDMA_WR_SEND;
	wqe->flags = VIRTIO_RDMA_WQE_F_SIGNALED;
}

int vrdma_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct vrdma_dev *dev = to_vdev(ibqp->device);
	struct vrdma_qp *qp = to_vqp(ibqp);
	struct vrdma_ring *ring = &qp->sq;
	enum ib_qp_state state;
	bool doorbell = false;
	unsigned long flags;
	int err = 0;
	u32 old;

	/* XRC_TGT: no send queue, no doorbell. */
	if (!ring->depth) {
		*bad_wr = wr;
		return -EINVAL;
	}
	/* User QPs post in their ring; an empty post is the doorbell. */
	if (qp->user) {
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		return vrdma_ring_doorbell(qp, VIRTIO_RDMA_DOORBELL_SQ);
	}
	spin_lock_irqsave(&qp->sq_lock, flags);
	state = READ_ONCE(qp->state);
	/* Sends need RTS; in ERR they are accepted and flushed by the device. */
	if (state == IB_QPS_RESET || state == IB_QPS_INIT ||
	    state == IB_QPS_RTR) {
		err = -EINVAL;
		goto out;
	}
	old = ring->head;
	for (; wr; wr = wr->next) {
		if (vrdma_ring_full(ring)) {
			err = -ENOMEM;
			break;
		}
		if (state == IB_QPS_ERR)
			vrdma_build_flush(qp, wr,
					  vrdma_ring_entry(ring, ring->head));
		else
			err = vrdma_build_send(dev, qp, wr,
					       vrdma_ring_entry(ring, ring->head));
		if (err)
			break;
		ring->head++;
	}
	if (ring->head != old)
		doorbell = vrdma_ring_publish(ring, old);
out:
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	/*
	 * Sent or owed; an error means a broken virtqueue, and the WRs are in
	 * the ring all the same: they stay posted.
	 */
	if (doorbell)
		vrdma_ring_doorbell(qp, VIRTIO_RDMA_DOORBELL_SQ);
	if (err)
		*bad_wr = wr;
	return err;
}

/**
 * vrdma_ring_put_recvs - write receive WQEs into an RQ or SRQ ring
 * @ring: the ring (RQs and SRQs share the WQE format); its lock is held
 * @wr: the first WR; on return, the first one not written (NULL: all)
 * @max_sge: SGEs a WQE may have
 *
 * Moves ring->head past what it wrote; the caller publishes prod.
 *
 * Return: 0, -ENOMEM when the ring is full (or, for an SRQ, when as many
 * receives as it holds are posted and not polled), or vrdma_copy_sges()'
 * error.
 */
int vrdma_ring_put_recvs(struct vrdma_ring *ring,
			 const struct ib_recv_wr **wr, u32 max_sge)
{
	struct virtio_rdma_rq_wqe *wqe;
	int n, err;

	for (; *wr; *wr = (*wr)->next) {
		if (vrdma_ring_full(ring))
			return -ENOMEM;
		wqe = vrdma_ring_entry(ring, ring->head);
		memset(wqe, 0, sizeof(*wqe));
		n = vrdma_copy_sges((void *)(wqe + 1), (*wr)->sg_list,
				    (*wr)->num_sge, max_sge);
		if (n < 0)
			return n;
		err = vrdma_wrid_recv(ring, *wr, &wqe->wr_id);
		if (err)
			return err;
		wqe->num_sge = n;
		ring->head++;
	}
	return 0;
}

int vrdma_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct vrdma_qp *qp = to_vqp(ibqp);
	struct vrdma_ring *ring = &qp->rq;
	bool doorbell = false;
	unsigned long flags;
	int err = 0;
	u32 old;

	if (qp->user) {
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		return qp->rq.depth ?
		       vrdma_ring_doorbell(qp, VIRTIO_RDMA_DOORBELL_RQ) : -EINVAL;
	}
	spin_lock_irqsave(&qp->rq_lock, flags);
	if (!ring->buf || READ_ONCE(qp->state) == IB_QPS_RESET) {
		err = -EINVAL;
		goto out;
	}
	old = ring->head;
	err = vrdma_ring_put_recvs(ring, &wr, qp->max_recv_sge);
	if (ring->head != old)
		doorbell = vrdma_ring_publish(ring, old);
out:
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	if (doorbell)
		vrdma_ring_doorbell(qp, VIRTIO_RDMA_DOORBELL_RQ);
	if (err)
		*bad_wr = wr;
	return err;
}
