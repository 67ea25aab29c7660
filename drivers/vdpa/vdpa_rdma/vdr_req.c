// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: the requester.
 *
 * Send WQEs are copied out of the SQ ring once, validated, and turned into
 * packets of at most one path MTU, each with the next PSN.  Local
 * operations (REG_MR, LOCAL_INV) run when they are fetched, which is SQ
 * order.  The completer (vdr_comp.c) retires WQEs in order and moves the send
 * cursor back here for retransmissions.
 */
#include <kunit/visibility.h>

#include "roce.h"
#include "roce_psn.h"
#include "roce_rel.h"
#include "vdpa_rdma.h"
#include "vdr_xport.h"

/* A long message asks for an ACK at least every this many packets. */
#define VDR_REQ_ACK_EVERY	32

#define VDR_SQ_WQE_HDR	sizeof(struct virtio_rdma_sq_wqe)
#define VDR_SGE_BYTES		sizeof(struct virtio_rdma_sge)

/* Packets of a @len byte message; never 0, even for len near 2^32. */
u32 vdr_req_npkts(u32 len, u32 mtu)
{
	return len ? len / mtu + !!(len % mtu) : 1;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_req_npkts);

/**
 * vdr_seg_len - bytes of a message's next packet
 * @left: bytes of the message from here on
 * @mtu: the path MTU
 * @room: packets the window allows from here on
 * @seg_max: bytes of a same-host segment at most (vdr_net_seg_max()), 0
 *	     on the wire
 *
 * One path MTU on the wire; a same-host segment of as many whole path-MTU
 * packets as the window and @seg_max allow (vdr_xport.h).
 */
u32 vdr_seg_len(u32 left, u32 mtu, s32 room, u32 seg_max)
{
	u32 pkts = 1;

	if (room > 1)
		pkts = min_t(u32, room, max_t(u32, seg_max / mtu, 1));
	return min_t(u64, left, (u64)mtu * pkts);
}
EXPORT_SYMBOL_IF_KUNIT(vdr_seg_len);

/* Opcode vs QP type (spec "Send queue WQE"), as the drivers check it. */
static bool vdr_req_op_ok(const struct vdr_qp *qp, u8 op)
{
	return virtio_rdma_wr_op_ok(qp->type, op);
}

static bool vdr_req_op_inline(u8 op)
{
	return virtio_rdma_wr_op_inline(op);
}

static void vdr_swqe_fail(struct vdr_dev *dev, struct vdr_swqe *w,
			  u8 status)
{
	w->state = VDR_SWQE_DONE;
	w->status = status;
	vdr_stat_inc(dev, VIRTIO_RDMA_STAT_BAD_WQE);
}

/* A WQE the driver could not have built: the QP becomes fatal (spec). */
static void vdr_swqe_malformed(struct vdr_dev *dev, struct vdr_swqe *w,
			       u8 status)
{
	vdr_swqe_fail(dev, w, status);
	w->malformed = true;
}

static u8 vdr_mem_status(int err)
{
	return err == -EOVERFLOW || err == -EMSGSIZE ?
		VIRTIO_RDMA_WC_LOC_LEN_ERR : VIRTIO_RDMA_WC_LOC_PROT_ERR;
}

/* Validate a copied WQE; local operations are executed here. */
static void vdr_req_check(struct vdr_dev *dev, struct vdr_qp *qp,
			  struct vdr_swqe *w)
{
	struct vdr_xqp *x = qp->xqp;
	u8 op = w->wqe.opcode;
	u64 total = 0;
	u32 access;
	int err;

	if (!vdr_req_op_ok(qp, op))
		return vdr_swqe_malformed(dev, w,
					  VIRTIO_RDMA_WC_LOC_QP_OP_ERR);

	switch (op) {
	case VIRTIO_RDMA_WR_REG_MR:
		if (vdr_mr_fast_reg(dev, qp->pd, &w->wqe.wr.reg_mr))
			return vdr_swqe_fail(dev, w,
					     VIRTIO_RDMA_WC_LOC_QP_OP_ERR);
		w->state = VDR_SWQE_DONE;
		return;
	case VIRTIO_RDMA_WR_LOCAL_INV:
		if (vdr_mr_invalidate(dev, qp->pd, NULL,
				      le32_to_cpu(w->wqe.ex.invalidate_rkey)))
			return vdr_swqe_fail(dev, w,
					     VIRTIO_RDMA_WC_LOC_QP_OP_ERR);
		w->state = VDR_SWQE_DONE;
		return;
	case VIRTIO_RDMA_WR_BIND_MW:
		if (!vdr_has_feature(dev, VIRTIO_RDMA_F_MW) ||
		    vdr_mw_bind(dev, qp, &w->wqe.wr.bind_mw))
			return vdr_swqe_fail(dev, w,
					     VIRTIO_RDMA_WC_MW_BIND_ERR);
		w->state = VDR_SWQE_DONE;
		return;
	case VIRTIO_RDMA_WR_MKEY_CONFIGURE:
		if (!vdr_has_feature(dev, VIRTIO_RDMA_F_INDIRECT_MKEY) ||
		    vdr_mkey_configure(dev, qp, &w->wqe.wr.mkey, w->sge,
				       w->wqe.num_sge))
			return vdr_swqe_fail(dev, w,
					     VIRTIO_RDMA_WC_LOC_QP_OP_ERR);
		w->state = VDR_SWQE_DONE;
		return;
	case VIRTIO_RDMA_WR_ATOMIC_CMP_AND_SWP:
	case VIRTIO_RDMA_WR_ATOMIC_FETCH_AND_ADD:
		if (!vdr_has_feature(dev, VIRTIO_RDMA_F_ATOMIC))
			return vdr_swqe_fail(dev, w,
					     VIRTIO_RDMA_WC_LOC_QP_OP_ERR);
		fallthrough;
	case VIRTIO_RDMA_WR_RDMA_READ:
		w->rd_atomic = true;
		break;
	}

	if (w->wqe.flags & VIRTIO_RDMA_WQE_F_INLINE) {
		w->len = le32_to_cpu(w->wqe.length);
	} else {
		/* READ and atomic results are written into the SGEs. */
		access = w->rd_atomic ? VIRTIO_RDMA_ACCESS_LOCAL_WRITE : 0;
		err = vdr_sgl_check(dev, qp->pd, w->sge, w->wqe.num_sge,
				    access, &total);
		if (err)
			return vdr_swqe_fail(dev, w, vdr_mem_status(err));
		w->len = total;
	}
	if ((op == VIRTIO_RDMA_WR_ATOMIC_CMP_AND_SWP ||
	     op == VIRTIO_RDMA_WR_ATOMIC_FETCH_AND_ADD) && w->len != 8)
		return vdr_swqe_fail(dev, w, VIRTIO_RDMA_WC_LOC_LEN_ERR);
	if (vdr_qp_is_ud(qp) && w->len > x->mtu)
		return vdr_swqe_fail(dev, w, VIRTIO_RDMA_WC_LOC_LEN_ERR);
	w->state = VDR_SWQE_SENDING;
}

/*
 * Whether an event is sure to run the requester again: the newest fetched
 * WQE of an RC QP is not finished yet.  Completion is in order, so it is
 * enough to look at that one.
 */
static bool vdr_req_will_return(struct vdr_qp *qp)
{
	struct vdr_xqp *x = qp->xqp;

	if (!vdr_qp_is_rc(qp) || qp->sq_cons == x->sq_fetched)
		return false;
	return x->swq[(x->sq_fetched - 1) & (qp->sq.depth - 1)].state !=
	       VDR_SWQE_DONE;
}

/*
 * Looks at a drained SQ, a timer apart, before asking for a doorbell, when
 * the application was streaming (vdr_req_fetch()).  Such an application
 * posts again as soon as it has polled the completions the device just
 * wrote, and would otherwise ring a doorbell - a system call for a user
 * QP - each time the device catches up with it.  Looking again at once
 * (runs queued behind the other QPs) did not help: the worker then runs on
 * the CPU of the application it waits for, which cannot post meanwhile.
 * A timer costs no CPU, and a stream's WQEs wait for it at most
 * VDR_SQ_LINGER_NS.  Bounded: at most this many looks per drain; none for
 * a ping-pong, which waits for each completion it asked for, and none
 * once the SQ stays idle.
 */
#define VDR_SQ_LINGER_LOOKS	4
#define VDR_SQ_LINGER_NS	(20 * NSEC_PER_USEC)

static bool vdr_req_linger(struct vdr_qp *qp)
{
	struct vdr_xqp *x = qp->xqp;

	if (!x->sq_streaming || x->sq_lingers >= VDR_SQ_LINGER_LOOKS)
		return false;
	x->sq_lingers++;
	hrtimer_start(&x->linger_timer, ns_to_ktime(VDR_SQ_LINGER_NS),
		      HRTIMER_MODE_REL_SOFT);
	return true;
}

/*
 * Copy the WQE at sq_fetched.  Returns false when there is none; a ring
 * whose prod is impossible makes the QP fatal.
 */
static bool vdr_req_fetch(struct vdr_dev *dev, struct vdr_qp *qp)
{
	struct vdr_xqp *x = qp->xqp;
	struct vdr_ring *ring = &qp->sq;
	const struct virtio_rdma_sq_wqe *src;
	struct vdr_swqe *w;
	u32 prod, n;

	/* Pairs with the driver's release of prod after writing the WQE. */
	prod = le32_to_cpu(smp_load_acquire(&ring->ctl->prod));
	if (prod == x->sq_fetched) {
		/*
		 * An RC WQE still waiting for its ACK brings the requester
		 * back (ACK, NAK or timeout) and it looks at prod then: a
		 * streaming application needs no doorbells meanwhile.
		 */
		if (vdr_req_will_return(qp) || vdr_req_linger(qp)) {
			WRITE_ONCE(ring->ctl->notify,
				   cpu_to_le32(prod + VIRTIO_RDMA_NOTIFY_OFF));
			return false;
		}
		/* Ask for a doorbell, then look once more (spec). */
		WRITE_ONCE(ring->ctl->notify, cpu_to_le32(prod));
		/* Order the notify store before re-reading prod (spec). */
		smp_mb();
		/*
		 * Taken as it is: a prod that moved meanwhile is used below
		 * or by the doorbell it implies, never re-read in a loop that
		 * a process rewriting prod could keep going.
		 */
		prod = le32_to_cpu(smp_load_acquire(&ring->ctl->prod));
		if (prod == x->sq_fetched)
			return false;
	}
	/* Impossible: more than depth ahead, or behind a WQE already taken. */
	if (prod - qp->sq_cons > ring->depth ||
	    x->sq_fetched - qp->sq_cons > prod - qp->sq_cons) {
		vdr_stat_inc(dev, VIRTIO_RDMA_STAT_BAD_WQE);
		vdr_xqp_fatal(dev, qp, VDR_QP_EV_FATAL);
		return false;
	}

	src = vdr_ring_entry(ring, x->sq_fetched);
	w = &x->swq[x->sq_fetched & (ring->depth - 1)];
	memset(w, 0, sizeof(*w));
	memcpy(&w->wqe, src, sizeof(w->wqe));
	/*
	 * Streaming: posted while an earlier WQE was unfinished, or after one
	 * the application will never see complete.  A device that keeps up
	 * finishes every WQE before the next is posted, and only the second
	 * rule then tells a stream from a ping-pong, which waits for each
	 * completion it asked for.
	 */
	/* Read without the lock by a doorbell (vdr_xqp_pingpong()). */
	WRITE_ONCE(x->sq_behind, x->sq_fetched != qp->sq_cons);
	x->sq_streaming = x->sq_behind || x->sq_unsignaled;
	x->sq_unsignaled = !qp->sq_sig_all &&
			   !(w->wqe.flags & VIRTIO_RDMA_WQE_F_SIGNALED);
	x->sq_lingers = 0;
	x->sq_fetched++;

	if (w->wqe.flags & VIRTIO_RDMA_WQE_F_INLINE) {
		n = le32_to_cpu(w->wqe.length);
		if (w->wqe.num_sge || !vdr_req_op_inline(w->wqe.opcode) ||
		    n > qp->max_inline_data ||
		    VDR_SQ_WQE_HDR + n > ring->stride) {
			vdr_swqe_malformed(dev, w, VIRTIO_RDMA_WC_LOC_LEN_ERR);
			return true;
		}
		memcpy(w->inl, src + 1, n);
	} else {
		n = w->wqe.num_sge;
		if (n > qp->max_send_sge ||
		    VDR_SQ_WQE_HDR + n * VDR_SGE_BYTES > ring->stride) {
			vdr_swqe_malformed(dev, w,
					   VIRTIO_RDMA_WC_LOC_QP_OP_ERR);
			return true;
		}
		memcpy(w->sge, src + 1, n * VDR_SGE_BYTES);
	}
	vdr_req_check(dev, qp, w);
	WRITE_ONCE(x->sq_small, w->len <= x->mtu);
	/* Read without the lock by a sender (vdr_xqp_wire_stream()). */
	WRITE_ONCE(x->sq_big, w->len > x->mtu);
	return true;
}

static u8 vdr_req_opcode(const struct vdr_qp *qp,
			 const struct vdr_swqe *w, bool first, bool last)
{
	u8 t = vdr_qpt_opc(qp->type);
	u8 op;

	switch (w->wqe.opcode) {
	case VIRTIO_RDMA_WR_RDMA_WRITE:
	case VIRTIO_RDMA_WR_RDMA_WRITE_WITH_IMM:
		if (first && last)
			op = ROCE_OP_RDMA_WRITE_ONLY;
		else if (first)
			op = ROCE_OP_RDMA_WRITE_FIRST;
		else if (!last)
			op = ROCE_OP_RDMA_WRITE_MIDDLE;
		else
			op = ROCE_OP_RDMA_WRITE_LAST;
		if (last && w->wqe.opcode == VIRTIO_RDMA_WR_RDMA_WRITE_WITH_IMM)
			op++;	/* the _WITH_IMMEDIATE variant */
		break;
	case VIRTIO_RDMA_WR_RDMA_READ:
		op = ROCE_OP_RDMA_READ_REQUEST;
		break;
	case VIRTIO_RDMA_WR_ATOMIC_CMP_AND_SWP:
		op = ROCE_OP_COMPARE_SWAP;
		break;
	case VIRTIO_RDMA_WR_ATOMIC_FETCH_AND_ADD:
		op = ROCE_OP_FETCH_ADD;
		break;
	default:
		if (first && last)
			op = ROCE_OP_SEND_ONLY;
		else if (first)
			op = ROCE_OP_SEND_FIRST;
		else if (!last)
			op = ROCE_OP_SEND_MIDDLE;
		else
			op = ROCE_OP_SEND_LAST;
		if (!last)
			break;
		if (w->wqe.opcode == VIRTIO_RDMA_WR_SEND_WITH_IMM)
			op++;
		else if (w->wqe.opcode == VIRTIO_RDMA_WR_SEND_WITH_INV)
			op = first ? ROCE_OP_SEND_ONLY_WITH_INVALIDATE :
				     ROCE_OP_SEND_LAST_WITH_INVALIDATE;
		break;
	}
	return t | op;
}

/*
 * Whether a packet asks for an ACK: the last of a message; one in every
 * VDR_REQ_ACK_EVERY PSNs (a segment that holds such a PSN); every one once
 * half the window is unacknowledged, or the requester would wait for an
 * ACK that nothing asked for; the newest packet sent again; and the loss
 * probe (vdr_req_probe()).
 */
static bool vdr_req_ack_req(const struct vdr_xqp *x, u32 npsn, bool last)
{
	u32 end = roce_psn_add(x->req_psn, npsn);
	u32 pos = x->req_psn % VDR_REQ_ACK_EVERY;

	return last || !pos || pos + npsn > VDR_REQ_ACK_EVERY ||
	       roce_psn_diff(end, x->acked_psn) > (s32)x->cwnd / 2 ||
	       end == x->sent_psn || x->probing;
}

/*
 * Send the next packet of @w.  Returns the path-MTU packets it stands for
 * (the budget it used): 1, or more for a same-host segment.
 */
static u32 vdr_req_packet(struct vdr_dev *dev, struct vdr_qp *qp,
			  struct vdr_swqe *w)
{
	struct vdr_xqp *x = qp->xqp;
	const struct virtio_rdma_av *av = &qp->attr.av;
	bool first = !x->req_off;
	struct roce_pkt pkt;
	u32 qkey, n, npsn;
	struct sk_buff *skb;
	u32 seg_max = 0;
	bool last;
	u8 *payload;
	int err;

	/* Never for the loss probe, which is one packet (vdr_req_probe()). */
	if (!vdr_qp_is_ud(qp) && !x->probing)
		seg_max = vdr_net_seg_max(dev, av);
again:
	memset(&pkt, 0, sizeof(pkt));
	n = 0;
	npsn = 1;
	last = true;
	switch (w->wqe.opcode) {
	case VIRTIO_RDMA_WR_RDMA_READ:
		/* Again after a loss: only what has not arrived. */
		pkt.reth.va = le64_to_cpu(w->wqe.wr.rdma.remote_addr) +
			      w->read_off;
		pkt.reth.rkey = le32_to_cpu(w->wqe.wr.rdma.rkey);
		pkt.reth.len = w->len - w->read_off;
		npsn = vdr_req_npkts(pkt.reth.len, x->mtu);
		break;
	case VIRTIO_RDMA_WR_ATOMIC_CMP_AND_SWP:
	case VIRTIO_RDMA_WR_ATOMIC_FETCH_AND_ADD:
		pkt.atomiceth.va = le64_to_cpu(w->wqe.wr.atomic.remote_addr);
		pkt.atomiceth.rkey = le32_to_cpu(w->wqe.wr.atomic.rkey);
		pkt.atomiceth.swap_add =
			le64_to_cpu(w->wqe.wr.atomic.compare_add);
		if (w->wqe.opcode == VIRTIO_RDMA_WR_ATOMIC_CMP_AND_SWP) {
			pkt.atomiceth.compare = pkt.atomiceth.swap_add;
			pkt.atomiceth.swap_add =
				le64_to_cpu(w->wqe.wr.atomic.swap);
		}
		break;
	default:
		n = vdr_seg_len(w->len - x->req_off, x->mtu,
				vdr_qp_is_rc(qp) ?
				(s32)x->cwnd + 1 -
				roce_psn_diff(x->req_psn, x->acked_psn) :
				S32_MAX, seg_max);
		npsn = vdr_req_npkts(n, x->mtu);
		last = x->req_off + n == w->len;
		pkt.reth.va = le64_to_cpu(w->wqe.wr.rdma.remote_addr);
		pkt.reth.rkey = le32_to_cpu(w->wqe.wr.rdma.rkey);
		pkt.reth.len = w->len;
		break;
	}

	pkt.opcode = vdr_req_opcode(qp, w, first, last);
	pkt.se = last && (w->wqe.flags & VIRTIO_RDMA_WQE_F_SOLICITED);
	pkt.pkey = ROCE_DEFAULT_PKEY;
	pkt.psn = x->req_psn;
	pkt.imm = w->wqe.ex.imm_data;
	pkt.ieth_rkey = le32_to_cpu(w->wqe.ex.invalidate_rkey);
	/* XRC: every packet, sent again or not, names the target SRQ. */
	pkt.xrc_srqn = le32_to_cpu(w->wqe.xrc_srqn) & ROCE_XRCSRQ_MASK;
	pkt.payload_len = n;
	if (vdr_qp_is_ud(qp)) {
		av = &w->wqe.wr.ud.av;
		pkt.dqpn = le32_to_cpu(w->wqe.wr.ud.remote_qpn) & ROCE_QPN_MASK;
		qkey = le32_to_cpu(w->wqe.wr.ud.remote_qkey);
		if (qkey & BIT(31))
			qkey = le32_to_cpu(qp->attr.qkey);
		pkt.deth.qkey = qkey;
		pkt.deth.sqpn = qp->qpn;
	} else {
		pkt.dqpn = le32_to_cpu(qp->attr.dest_qp_num);
		pkt.ack_req = vdr_qp_is_rc(qp) &&
			vdr_req_ack_req(x, npsn, last);
	}

	skb = vdr_xqp_pkt_alloc(dev, &pkt, &payload);
	if (!skb && n > x->mtu) {
		/* No memory for a segment: one path-MTU packet instead. */
		seg_max = 0;
		goto again;
	}
	if (!skb)
		return 1;	/* like a loss: the timer sends it again */
	VDR_SKB_CB(skb)->npsn = n ? npsn : 1;
	if (n && (w->wqe.flags & VIRTIO_RDMA_WQE_F_INLINE)) {
		memcpy(payload, w->inl + x->req_off, n);
	} else if (n) {
		err = vdr_sgl_copy(dev, qp->pd, w->sge, w->wqe.num_sge, 0,
				   x->req_off, payload, n, VDR_FROM_MEM);
		if (err) {
			kfree_skb(skb);
			vdr_swqe_fail(dev, w, vdr_mem_status(err));
			return 1;
		}
	}
	err = vdr_xqp_send(dev, qp, av, &pkt, skb);
	if (err == -EINVAL && vdr_qp_is_ud(qp)) {
		/* Bad address vector: a per-WQE error on UD. */
		vdr_swqe_fail(dev, w, VIRTIO_RDMA_WC_LOC_QP_OP_ERR);
		w->soft_err = true;
		return 1;
	}
	if (vdr_qp_is_rc(qp) && !x->rtt_valid &&
	    x->req_psn == x->sent_psn && (pkt.ack_req || w->rd_atomic)) {
		/* Time a first transmission only (Karn). */
		x->rtt_valid = true;
		x->rtt_psn = roce_psn_add(x->req_psn, npsn - 1);
		x->rtt_t0 = ktime_get_ns();
	}
	x->req_psn = roce_psn_add(x->req_psn, npsn);
	if (roce_psn_after(x->req_psn, x->sent_psn))
		x->sent_psn = x->req_psn;
	/*
	 * A queue on the way was full: the packet is lost, which the
	 * responder's NAK or the timer will show, and the window halves now,
	 * as for that NAK, so that QPs sharing a receiver's queue settle on
	 * windows that together fit in it.
	 */
	if (err == -ENOBUFS && vdr_qp_is_rc(qp))
		x->cwnd = roce_rel_cwnd_loss(x->cwnd);
	x->req_off += n;
	/*
	 * Every packet, not just a message's last: a long message stopped
	 * by the window has packets outstanding too, and if the ACK that
	 * would open the window is lost only the timer sends them again.
	 */
	if (vdr_qp_is_rc(qp) && !hrtimer_active(&x->retrans_timer))
		vdr_xqp_timer_arm(x);
	if (!last)
		return npsn;
	if (vdr_qp_is_rc(qp)) {
		w->state = VDR_SWQE_SENT;
	} else {
		/* Unreliable: complete once sent. */
		w->state = VDR_SWQE_DONE;
	}
	x->req_off = 0;
	x->sq_next++;
	return npsn;
}

/* Whether an earlier READ or atomic is still outstanding, and how many. */
static u32 vdr_req_rd_atomic_pending(struct vdr_qp *qp)
{
	struct vdr_xqp *x = qp->xqp;
	struct vdr_swqe *w;
	u32 i, n = 0;

	for (i = qp->sq_cons; i != x->sq_next; i++) {
		w = &x->swq[i & (qp->sq.depth - 1)];
		if (w->rd_atomic && w->state != VDR_SWQE_DONE)
			n++;
	}
	return n;
}

/**
 * vdr_req_process - send a budget of packets of the QP's send queue
 * @dev: the device
 * @qp: the QP (its work, under qp->lock)
 *
 * Return: true when the budget ran out with packets left to send.
 */
bool vdr_req_process(struct vdr_dev *dev, struct vdr_qp *qp)
{
	struct vdr_xqp *x = qp->xqp;
	struct vdr_swqe *w;
	u32 pending, i, used;

	/* An XRC_TGT QP has no SQ: its doorbells do nothing. */
	if (!qp->sq.depth)
		return false;
	/* The budget is in path-MTU packets: a segment uses several. */
	for (i = 0; i < VDR_XQP_BUDGET; i += used) {
		used = 1;
		if (qp->state != VIRTIO_RDMA_QPS_RTS &&
		    !(qp->state == VIRTIO_RDMA_QPS_SQD && x->req_off))
			return false;
		if (x->rnr_wait)
			return false;
		if (x->sq_next == x->sq_fetched && !vdr_req_fetch(dev, qp))
			return false;
		if (qp->state != VIRTIO_RDMA_QPS_RTS)
			return false;
		w = &x->swq[x->sq_next & (qp->sq.depth - 1)];
		if (w->state == VDR_SWQE_DONE) {
			/* A failed WQE stops the SQ; ERR follows. */
			if (w->status != VIRTIO_RDMA_WC_SUCCESS && !w->soft_err)
				break;
			x->sq_next++;
			continue;
		}
		if (!w->started) {
			pending = vdr_req_rd_atomic_pending(qp);
			if ((w->wqe.flags & VIRTIO_RDMA_WQE_F_FENCE) && pending)
				break;
			if (w->rd_atomic &&
			    pending >= max_t(u32, qp->attr.max_rd_atomic, 1))
				break;
			w->first_psn = x->req_psn;
			w->last_psn = roce_psn_add(x->req_psn,
						   vdr_req_npkts(w->len,
								 x->mtu) - 1);
			w->read_off = 0;
			w->started = true;
		} else if (!x->req_off &&
			   w->wqe.opcode == VIRTIO_RDMA_WR_RDMA_READ) {
			x->req_psn = roce_psn_add(w->first_psn,
						  w->read_off / x->mtu);
		}
		if (vdr_qp_is_rc(qp) &&
		    (roce_psn_diff(x->req_psn, x->acked_psn) > (s32)x->cwnd ||
		     (x->probing && x->req_psn != x->probe_psn)))
			break;
		used = vdr_req_packet(dev, qp, w);
	}
	/* Budget used up: the QP's next run sends the rest. */
	return i >= VDR_XQP_BUDGET;
}

/*
 * Point the requester at @psn, the first PSN the responder lacks.  A SEND
 * or WRITE resumes at the packet that holds @psn; a READ is requested again
 * for the part whose responses have not arrived; an atomic is sent again
 * whole.  Later WQEs follow with their own PSNs.  Returns false when no
 * unfinished WQE that was sent holds @psn.
 */
static bool vdr_req_seek(struct vdr_qp *qp, u32 psn)
{
	struct vdr_xqp *x = qp->xqp;
	struct vdr_swqe *w;
	u32 i;

	for (i = qp->sq_cons; i != x->sq_fetched; i++) {
		w = &x->swq[i & (qp->sq.depth - 1)];
		/* Local WQEs are DONE without being started. */
		if (w->state == VDR_SWQE_DONE)
			continue;
		if (!w->started)
			break;
		if (roce_psn_after(psn, w->last_psn))
			continue;
		if (roce_psn_before(psn, w->first_psn))
			psn = w->first_psn;
		x->sq_next = i;
		x->req_off = 0;
		if (w->wqe.opcode == VIRTIO_RDMA_WR_RDMA_READ)
			psn = roce_psn_add(w->first_psn, w->read_off / x->mtu);
		else if (w->rd_atomic)
			psn = w->first_psn;
		else
			x->req_off = roce_psn_sub(psn, w->first_psn) * x->mtu;
		x->req_psn = psn;
		for (; i != x->sq_fetched; i++) {
			w = &x->swq[i & (qp->sq.depth - 1)];
			if (w->state == VDR_SWQE_SENT)
				w->state = VDR_SWQE_SENDING;
		}
		return true;
	}
	return false;
}

/* Go back N: send again from @psn. */
void vdr_req_retransmit(struct vdr_dev *dev, struct vdr_qp *qp,
			u32 psn)
{
	qp->xqp->probing = false;
	if (!vdr_req_seek(qp, psn))
		return;
	qp->xqp->rtt_valid = false;
	vdr_stat_inc(dev, VIRTIO_RDMA_STAT_RETRANSMITS);
	vdr_xqp_kick(dev, qp);
}

/**
 * vdr_req_probe - send the first unacknowledged packet again, alone
 * @dev: the device
 * @qp: the QP, with packets outstanding and no ACK for a while
 *
 * The probe asks for an ACK, and the answer says which case this is.  If
 * the responder has everything (only the ACK is late or lost), it answers
 * the duplicate with an ACK of all it has, and the requester goes on with
 * new packets.  If the first unacknowledged packet was lost, or a NAK for
 * it was, the responder drops every other packet: it takes the probe and
 * acknowledges it alone, and the requester, still positioned right after
 * the probe, sends the rest again.  Either way one packet was sent again,
 * where going back N would resend the whole window: when many QPs share a
 * busy CPU their ACKs are late rather than lost, and windows sent again
 * only lengthen the queue that made them late.
 */
void vdr_req_probe(struct vdr_dev *dev, struct vdr_qp *qp)
{
	struct vdr_xqp *x = qp->xqp;

	vdr_req_retransmit(dev, qp, roce_psn_add(x->acked_psn, 1));
	x->probing = true;
	x->probe_psn = x->req_psn;
}

/*
 * An acknowledgment reached past the PSN the requester was about to send
 * again after a go-back-N: what it covers need not go again.
 */
void vdr_req_acked(struct vdr_qp *qp)
{
	struct vdr_xqp *x = qp->xqp;
	struct vdr_swqe *w;

	if (roce_psn_before(x->acked_psn, x->req_psn) ||
	    vdr_req_seek(qp, roce_psn_add(x->acked_psn, 1)))
		return;
	/* Every WQE sent is finished: go on with new ones. */
	for (; x->sq_next != x->sq_fetched; x->sq_next++) {
		w = &x->swq[x->sq_next & (qp->sq.depth - 1)];
		if (!w->started && w->state != VDR_SWQE_DONE)
			break;
	}
	x->req_off = 0;
	x->req_psn = x->sent_psn;
}
