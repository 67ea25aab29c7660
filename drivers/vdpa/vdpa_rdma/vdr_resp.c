// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: the responder.
 *
 * Requests are taken in PSN order: a duplicate is answered again (ACK,
 * READ executed again, atomic result replayed), a gap gets one PSN
 * sequence error NAK.  SENDs land in receive WQEs, RDMA WRITE and READ and
 * atomics in MRs named by an rkey; every access goes through vdr_mem.c.
 * ACKs are coalesced: one per batch of packets the worker takes for a QP.
 *
 * An XRC_TGT QP is an RC responder without a PD or a receive queue of its
 * own: each request names an XRC SRQ of its domain (XRCETH), which gives
 * the receive WQE, the CQ it completes into and the PD keys are checked
 * against (spec "XRC").
 */
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>

#include "roce.h"
#include "roce_psn.h"
#include "roce_rel.h"
#include "vdpa_rdma.h"
#include "vdr_xport.h"

#define VDR_RQ_WQE_HDR	sizeof(struct virtio_rdma_rq_wqe)

/* An ACKNOWLEDGE (or NAK) for @psn. */
static void vdr_resp_send_ack(struct vdr_dev *dev, struct vdr_qp *qp,
			      u8 syndrome, u32 psn)
{
	struct roce_pkt pkt = { };
	struct sk_buff *skb;
	u8 *payload;

	pkt.opcode = vdr_qpt_opc(qp->type) | ROCE_OP_ACKNOWLEDGE;
	pkt.pkey = ROCE_DEFAULT_PKEY;
	pkt.dqpn = le32_to_cpu(qp->attr.dest_qp_num);
	pkt.psn = psn;
	pkt.aeth.syndrome = syndrome;
	pkt.aeth.msn = qp->xqp->msn;
	skb = vdr_xqp_pkt_alloc(dev, &pkt, &payload);
	if (skb)
		vdr_xqp_send(dev, qp, &qp->attr.av, &pkt, skb);
}

void vdr_resp_flush_ack(struct vdr_dev *dev, struct vdr_qp *qp)
{
	struct vdr_xqp *x = qp->xqp;

	if (!x->ack_pending || qp->state == VIRTIO_RDMA_QPS_ERR)
		return;
	x->ack_pending = false;
	vdr_resp_send_ack(dev, qp, ROCE_AETH_ACK_UNLIMITED, x->ack_psn);
}

/* NAK the request at @psn; errors other than RNR make the QP fatal. */
static void vdr_resp_nak_psn(struct vdr_dev *dev, struct vdr_qp *qp,
			     u8 syndrome, u32 psn, int ev)
{
	vdr_resp_flush_ack(dev, qp);
	vdr_resp_send_ack(dev, qp, syndrome, psn);
	if (ev >= 0 || (syndrome & ROCE_AETH_TYPE_MASK) == ROCE_AETH_NAK)
		vdr_xqp_fatal(dev, qp, ev);
}

/* NAK the request at epsn. */
static void vdr_resp_nak(struct vdr_dev *dev, struct vdr_qp *qp,
			 u8 syndrome, int ev)
{
	vdr_resp_nak_psn(dev, qp, syndrome, qp->xqp->epsn, ev);
}

/* The SRQ receives come from: the QP's, or an XRC_TGT's message's. */
static struct vdr_srq *vdr_resp_srq(struct vdr_qp *qp)
{
	if (qp->type == VIRTIO_RDMA_QPT_XRC_TGT)
		return qp->xqp->msg_srq;
	return qp->srq;
}

/* Receives complete into an XRC SRQ's CQ, whichever QP took them. */
static struct vdr_cq *vdr_resp_rcq(struct vdr_qp *qp)
{
	struct vdr_srq *srq = vdr_resp_srq(qp);

	return srq && srq->cq ? srq->cq : qp->rcq;
}

/*
 * The PD rkeys (and a SEND with invalidate's key) are checked against:
 * the QP's, or for XRC_TGT, which has none, the named SRQ's.
 */
static struct vdr_pd *vdr_resp_kpd(struct vdr_qp *qp)
{
	if (qp->type == VIRTIO_RDMA_QPT_XRC_TGT)
		return qp->xqp->pkt_srq->pd;
	return qp->pd;
}

/**
 * vdr_resp_srq_gone - an XRC_TGT QP forgets a destroyed XRC SRQ
 * @qp: the QP, under qp->lock
 * @srq: the SRQ, out of dev->srqs
 *
 * The WQE the QP took from it is dropped without a completion, the READ
 * answered with its PD stops, and the message in progress has no SRQ any
 * more: its later packets are invalid requests (spec "XRC").
 */
void vdr_resp_srq_gone(struct vdr_qp *qp, struct vdr_srq *srq)
{
	struct vdr_xqp *x = qp->xqp;

	if (!x)
		return;
	if (x->msg_srq == srq) {
		x->msg_srq = NULL;
		x->rwqe_valid = false;
	}
	if (x->rd_srq == srq) {
		x->rd_srq = NULL;
		x->rd_active = false;
	}
	if (x->pkt_srq == srq)
		x->pkt_srq = NULL;
}

/*
 * XRC_TGT: the SRQ a request's XRCETH names must pass the domain check
 * (vdr_srq_xrc_ok()); @dup for a duplicate, which belongs to no message
 * in progress.  Returns false, with an invalid request NAK'd at the
 * packet's PSN and the QP on its way to ERR, when it does not.
 */
static bool vdr_resp_xrc_srq(struct vdr_dev *dev, struct vdr_qp *qp,
			     const struct roce_pkt *pkt, bool dup)
{
	bool cont = !dup && !(pkt->info->flags & ROCE_OPF_FIRST);
	struct vdr_xqp *x = qp->xqp;
	struct vdr_srq *srq;
	bool ok;

	if (qp->type != VIRTIO_RDMA_QPT_XRC_TGT)
		return true;
	/*
	 * An SRQ of another domain may be freed meanwhile (its DESTROY_SRQ
	 * does not take this QP's lock): RCU covers the check.  One of the
	 * QP's domain is not freed while this run holds the QP's lock:
	 * DESTROY_SRQ takes it before it frees (vdpa_rdma.h).
	 */
	rcu_read_lock();
	srq = xa_load(&dev->srqs, pkt->xrc_srqn);
	ok = vdr_srq_xrc_ok(srq, qp->xrcd, x->msg_srq, cont);
	rcu_read_unlock();
	if (!ok) {
		vdr_resp_nak_psn(dev, qp, ROCE_AETH_NAK_INVALID_REQ, pkt->psn,
				 VDR_QP_EV_REQ_ERR);
		return false;
	}
	x->pkt_srq = srq;
	if (!dup && (pkt->info->flags & ROCE_OPF_FIRST))
		x->msg_srq = srq;
	return true;
}

static void vdr_resp_recv_error(struct vdr_dev *dev, struct vdr_qp *qp,
				u8 status);

/*
 * The receive WQE of a QP with an SRQ is taken out of the SRQ when a
 * message starts (vdr_srq.c); from then on it is the QP's.
 */
static bool vdr_resp_srq_took(struct vdr_dev *dev, struct vdr_qp *qp,
			      struct vdr_srq *srq, int ret, bool limit_hit)
{
	struct vdr_xqp *x = qp->xqp;

	if (limit_hit)
		vdr_event_raise(dev, &srq->limit_ev, 0);
	switch (ret) {
	case 0:
		x->rwqe_valid = true;
		x->recv_off = 0;
		return true;
	case -EINVAL:
		/* Malformed (spec: Ring validation): it fails, then the QP. */
		vdr_stat_inc(dev, VIRTIO_RDMA_STAT_BAD_WQE);
		x->rwqe_valid = true;
		vdr_resp_recv_error(dev, qp, VIRTIO_RDMA_WC_LOC_QP_OP_ERR);
		vdr_xqp_fatal(dev, qp, VDR_QP_EV_FATAL);
		return false;
	case -EOVERFLOW:
		vdr_xqp_fatal(dev, qp, VDR_QP_EV_FATAL);
		return false;
	default:
		return false;
	}
}

static bool vdr_resp_get_srq_wqe(struct vdr_dev *dev, struct vdr_qp *qp,
				 struct vdr_srq *srq)
{
	struct vdr_xqp *x = qp->xqp;
	bool limit_hit;
	int ret;

	x->tm_kind = VDR_TM_MSG_RECV;
	ret = vdr_srq_take(srq, &x->rwqe, x->rsge, &limit_hit);
	return vdr_resp_srq_took(dev, qp, srq, ret, limit_hit);
}

/* Copy the next receive WQE; false if the RQ is empty or failed validation. */
static bool vdr_resp_get_rwqe(struct vdr_dev *dev, struct vdr_qp *qp)
{
	struct vdr_xqp *x = qp->xqp;
	struct vdr_srq *srq = vdr_resp_srq(qp);
	struct vdr_ring *ring = &qp->rq;
	const struct virtio_rdma_rq_wqe *src;
	u32 prod, n;

	if (x->rwqe_valid)
		return true;
	if (srq)
		return vdr_resp_get_srq_wqe(dev, qp, srq);
	if (!ring->depth)
		return false;
	/* Pairs with the driver's release of prod after writing the WQE. */
	prod = le32_to_cpu(smp_load_acquire(&ring->ctl->prod));
	if (prod == qp->rq_cons)
		return false;
	if (prod - qp->rq_cons > ring->depth) {
		vdr_xqp_fatal(dev, qp, VDR_QP_EV_FATAL);
		return false;
	}
	src = vdr_ring_entry(ring, qp->rq_cons);
	memcpy(&x->rwqe, src, sizeof(x->rwqe));
	n = x->rwqe.num_sge;
	if (n > qp->max_recv_sge ||
	    VDR_RQ_WQE_HDR + n * sizeof(x->rsge[0]) > ring->stride) {
		/* Malformed (spec: Ring validation): it fails, then the QP. */
		vdr_stat_inc(dev, VIRTIO_RDMA_STAT_BAD_WQE);
		vdr_resp_recv_error(dev, qp, VIRTIO_RDMA_WC_LOC_QP_OP_ERR);
		vdr_xqp_fatal(dev, qp, VDR_QP_EV_FATAL);
		return false;
	}
	memcpy(x->rsge, src + 1, n * sizeof(x->rsge[0]));
	x->rwqe_valid = true;
	x->recv_off = 0;
	return true;
}

/*
 * After the last CQE of a message on a TM-SRQ: a tagged buffer is let go
 * (its release word), and the next message is classified afresh.
 */
static void vdr_resp_tm_done(struct vdr_qp *qp)
{
	struct vdr_xqp *x = qp->xqp;

	if (x->tm_kind == VDR_TM_MSG_EAGER)
		vdr_tm_srq_release(qp->srq, x->tm_handle);
	x->tm_kind = VDR_TM_MSG_RECV;
}

/* Complete the current receive WQE. */
static void vdr_resp_complete(struct vdr_dev *dev, struct vdr_qp *qp,
			      struct virtio_rdma_cqe *cqe, bool solicited)
{
	struct vdr_xqp *x = qp->xqp;

	cqe->wr_id = x->rwqe.wr_id;
	cqe->qp_handle = cpu_to_le32(qp->qpn);
	x->rwqe_valid = false;
	/* An SRQ's cons moved when the QP took the WQE. */
	if (!vdr_resp_srq(qp)) {
		qp->rq_cons++;
		/* The WQE was copied out: the driver may reuse its slot. */
		smp_store_release(&qp->rq.ctl->cons, cpu_to_le32(qp->rq_cons));
	}
	if (vdr_cq_post(dev, vdr_resp_rcq(qp), cqe, solicited))
		vdr_xqp_fatal(dev, qp, VDR_QP_EV_FATAL);
	vdr_resp_tm_done(qp);
}

static void vdr_resp_recv_error(struct vdr_dev *dev, struct vdr_qp *qp,
				u8 status)
{
	struct virtio_rdma_cqe cqe = { };

	cqe.status = status;
	cqe.opcode = vdr_tm_msg_wc_opcode(qp->xqp->tm_kind);
	vdr_resp_complete(dev, qp, &cqe, false);
}

/*
 * A QP with an SRQ leaves ERR or goes away holding the WQE it took for a
 * message that will not finish: the WQE is the QP's, so it completes with
 * WR_FLUSH_ERR like the WQEs of an RQ (IBA 10.3.1), the SRQ's others stay.
 * An XRC_TGT QP's completes into its SRQ's CQ.
 */
void vdr_resp_srq_flush(struct vdr_dev *dev, struct vdr_qp *qp)
{
	struct virtio_rdma_cqe cqe = { };
	struct vdr_xqp *x = qp->xqp;

	if (!x || !x->rwqe_valid || !vdr_resp_srq(qp))
		return;
	cqe.status = VIRTIO_RDMA_WC_WR_FLUSH_ERR;
	cqe.opcode = vdr_tm_msg_wc_opcode(x->tm_kind);
	cqe.wr_id = x->rwqe.wr_id;
	cqe.qp_handle = cpu_to_le32(qp->qpn);
	x->rwqe_valid = false;
	vdr_cq_post(dev, vdr_resp_rcq(qp), &cqe, false);
	vdr_resp_tm_done(qp);
}

/* Receive buffers are checked against the PD of the queue they came from. */
static struct vdr_pd *vdr_resp_rpd(struct vdr_qp *qp)
{
	struct vdr_srq *srq = vdr_resp_srq(qp);

	return srq ? srq->pd : qp->pd;
}

static u8 vdr_resp_mem_status(int err)
{
	return err == -EMSGSIZE ? VIRTIO_RDMA_WC_LOC_LEN_ERR :
				  VIRTIO_RDMA_WC_LOC_PROT_ERR;
}

/* UD and GSI: one packet, one receive, a 40-byte network header first. */
static void vdr_resp_ud(struct vdr_dev *dev, struct vdr_qp *qp,
			struct sk_buff *skb, struct roce_pkt *pkt)
{
	struct virtio_rdma_cqe cqe = { };
	struct vdr_xqp *x = qp->xqp;
	u8 grh[VIRTIO_RDMA_UD_GRH_SIZE] = { };
	u32 qkey = le32_to_cpu(qp->attr.qkey);
	bool v4 = skb->protocol == htons(ETH_P_IP);
	int err;

	if (qp->type == VIRTIO_RDMA_QPT_GSI)
		qkey = ROCE_GSI_QKEY;
	if (pkt->deth.qkey != qkey || !(pkt->info->flags & ROCE_OPF_SEND))
		return;
	if (!vdr_resp_get_rwqe(dev, qp))
		return;	/* UD drops what it cannot place */

	if (v4)
		memcpy(grh + 20, ip_hdr(skb), sizeof(struct iphdr));
	else
		memcpy(grh, ipv6_hdr(skb), sizeof(struct ipv6hdr));
	err = vdr_sgl_copy(dev, vdr_resp_rpd(qp), x->rsge, x->rwqe.num_sge,
			   VIRTIO_RDMA_ACCESS_LOCAL_WRITE, 0, grh,
			   sizeof(grh), VDR_TO_MEM);
	if (!err)
		err = vdr_sgl_copy(dev, vdr_resp_rpd(qp), x->rsge,
				   x->rwqe.num_sge,
				   VIRTIO_RDMA_ACCESS_LOCAL_WRITE,
				   sizeof(grh), (void *)pkt->payload,
				   pkt->payload_len, VDR_TO_MEM);
	if (err) {
		vdr_resp_recv_error(dev, qp, vdr_resp_mem_status(err));
		return;
	}
	cqe.status = VIRTIO_RDMA_WC_SUCCESS;
	cqe.opcode = VIRTIO_RDMA_WC_OP_RECV;
	cqe.byte_len = cpu_to_le32(pkt->payload_len + sizeof(grh));
	cqe.flags = VIRTIO_RDMA_WC_F_GRH | VIRTIO_RDMA_WC_F_WITH_SMAC |
		    VIRTIO_RDMA_WC_F_WITH_NETWORK_HDR_TYPE;
	if (pkt->info->flags & ROCE_OPF_IMM) {
		cqe.flags |= VIRTIO_RDMA_WC_F_WITH_IMM;
		cqe.ex.imm_data = pkt->imm;
	}
	cqe.network_hdr_type = v4 ? VIRTIO_RDMA_NETWORK_IPV4 :
				    VIRTIO_RDMA_NETWORK_IPV6;
	cqe.src_qp = cpu_to_le32(pkt->deth.sqpn);
	cqe.vlan_id = cpu_to_le16(VIRTIO_RDMA_VLAN_NONE);
	if (skb_mac_header_was_set(skb) &&
	    skb_network_header(skb) - skb_mac_header(skb) >= ETH_HLEN)
		memcpy(cqe.smac, eth_hdr(skb)->h_source, ETH_ALEN);
	vdr_resp_complete(dev, qp, &cqe, pkt->se);
}

/*
 * Remember a READ or atomic so that a duplicate can be answered.  The QP
 * keeps max_dest_rd_atomic of them (at least one, at most the slots): the
 * requester has no more outstanding, so older ones cannot come again.
 */
static struct vdr_rdatom *vdr_resp_rdatom_new(struct vdr_qp *qp)
{
	struct vdr_xqp *x = qp->xqp;
	unsigned int n = clamp_t(unsigned int, qp->attr.max_dest_rd_atomic, 1,
				 x->nr_rdatom);
	struct vdr_rdatom *r;

	if (x->rdatom_next >= n)
		x->rdatom_next = 0;
	r = &x->rdatom[x->rdatom_next];
	x->rdatom_next = (x->rdatom_next + 1) % n;
	memset(r, 0, sizeof(*r));
	return r;
}

static struct vdr_rdatom *vdr_resp_rdatom_find(struct vdr_xqp *x,
					       u32 psn)
{
	unsigned int i;

	for (i = 0; i < x->nr_rdatom; i++) {
		struct vdr_rdatom *r = &x->rdatom[i];

		if (r->valid && roce_psn_in_range(psn, r->psn,
						  roce_psn_sub(r->last_psn,
							       r->psn) + 1))
			return r;
	}
	return NULL;
}

/* Start answering the READ @r (or its part from @psn on) from @psn. */
static void vdr_resp_read_start(struct vdr_qp *qp,
				const struct vdr_rdatom *r, u32 psn)
{
	struct vdr_xqp *x = qp->xqp;

	x->rd_cur = *r;
	x->rd_off = 0;
	x->rd_psn = psn;
	x->rd_active = true;
	x->rd_seg_max = vdr_net_seg_max(x->dev, &qp->attr.av);
	/* XRC_TGT: the responses read through the named SRQ's PD. */
	x->rd_srq = x->pkt_srq;
}

/* Build and send the next response packet of the READ being answered. */
static bool vdr_resp_read_packet(struct vdr_dev *dev, struct vdr_qp *qp,
				 u32 *budget)
{
	struct vdr_xqp *x = qp->xqp;
	struct vdr_rdatom *r = &x->rd_cur;
	bool first = x->rd_off == 0, last;
	struct vdr_pd *pd = x->rd_srq ? x->rd_srq->pd : qp->pd;
	struct roce_pkt pkt = { };
	struct sk_buff *skb;
	u32 n, npsn, off = x->rd_off;
	u8 *payload;

	/* No window for READ responses: the budget paces them. */
	n = vdr_seg_len(r->len - off, x->mtu, S32_MAX, x->rd_seg_max);
	last = off + n == r->len;
	if (first && last)
		pkt.opcode = ROCE_OP_RDMA_READ_RESPONSE_ONLY;
	else if (first)
		pkt.opcode = ROCE_OP_RDMA_READ_RESPONSE_FIRST;
	else if (last)
		pkt.opcode = ROCE_OP_RDMA_READ_RESPONSE_LAST;
	else
		pkt.opcode = ROCE_OP_RDMA_READ_RESPONSE_MIDDLE;
	pkt.opcode |= vdr_qpt_opc(qp->type);
	pkt.pkey = ROCE_DEFAULT_PKEY;
	pkt.dqpn = le32_to_cpu(qp->attr.dest_qp_num);
	pkt.psn = x->rd_psn;
	pkt.aeth.syndrome = ROCE_AETH_ACK_UNLIMITED;
	pkt.aeth.msn = x->msn;
	pkt.payload_len = n;
	skb = vdr_xqp_pkt_alloc(dev, &pkt, &payload);
	if (!skb && n > x->mtu) {
		/* No room for a segment: path-MTU packets from now on. */
		x->rd_seg_max = 0;
		return true;
	}
	if (!skb)
		return false;
	if (n && vdr_mr_rw(dev, pd, qp, r->rkey,
			   VIRTIO_RDMA_ACCESS_REMOTE_READ, r->va + off,
			   payload, n, VDR_FROM_MEM)) {
		kfree_skb(skb);
		return false;
	}
	npsn = vdr_req_npkts(n, x->mtu);
	VDR_SKB_CB(skb)->npsn = npsn;
	vdr_xqp_send(dev, qp, &qp->attr.av, &pkt, skb);
	x->rd_off += n;
	x->rd_psn = roce_psn_add(x->rd_psn, npsn);
	*budget -= min_t(u32, *budget, npsn);
	return !last;
}

/**
 * vdr_resp_read_continue - send a budget of the READ response in progress
 * @dev: the device
 * @qp: the responder QP (its work, under qp->lock)
 * @budget: path-MTU packets this run may still send; what was sent is
 *	    taken from it
 *
 * A READ of up to 2 GiB is answered a budget at a time, so that one QP's
 * large READ delays the others by one budget at most.  A packet that
 * cannot be built or whose MR went away ends the response: the requester
 * asks again for what it lacks.
 *
 * Return: true when the QP has more to do (responses, or requests that
 * waited for this READ).
 */
bool vdr_resp_read_continue(struct vdr_dev *dev, struct vdr_qp *qp,
			    u32 *budget)
{
	struct vdr_xqp *x = qp->xqp;

	if (!x->rd_active)
		return false;
	/* The budget is in path-MTU packets: a segment uses several. */
	while (*budget) {
		if (!vdr_resp_read_packet(dev, qp, budget)) {
			x->rd_active = false;
			return !skb_queue_empty_lockless(&x->rxq);
		}
	}
	return true;
}

static void vdr_resp_atomic_send(struct vdr_dev *dev, struct vdr_qp *qp,
				 struct vdr_rdatom *r)
{
	struct roce_pkt pkt = { };
	struct sk_buff *skb;
	u8 *payload;

	pkt.opcode = vdr_qpt_opc(qp->type) | ROCE_OP_ATOMIC_ACKNOWLEDGE;
	pkt.pkey = ROCE_DEFAULT_PKEY;
	pkt.dqpn = le32_to_cpu(qp->attr.dest_qp_num);
	pkt.psn = r->psn;
	pkt.aeth.syndrome = ROCE_AETH_ACK_UNLIMITED;
	pkt.aeth.msn = qp->xqp->msn;
	pkt.atomic_orig = r->orig;
	skb = vdr_xqp_pkt_alloc(dev, &pkt, &payload);
	if (skb)
		vdr_xqp_send(dev, qp, &qp->attr.av, &pkt, skb);
}

static void vdr_resp_duplicate(struct vdr_dev *dev, struct vdr_qp *qp,
			       struct roce_pkt *pkt)
{
	struct vdr_xqp *x = qp->xqp;
	u16 f = pkt->info->flags;
	struct vdr_rdatom *r, part;
	u32 off;

	vdr_stat_inc(dev, VIRTIO_RDMA_STAT_DUPLICATE_REQ);
	if (f & (ROCE_OPF_READ | ROCE_OPF_ATOMIC)) {
		r = vdr_resp_rdatom_find(x, pkt->psn);
		if (!r || r->opcode != pkt->opcode)
			return;
		if (f & ROCE_OPF_ATOMIC) {
			if (r->psn != pkt->psn)
				return;
			vdr_resp_flush_ack(dev, qp);
			vdr_resp_atomic_send(dev, qp, r);	/* replayed */
			return;
		}
		/*
		 * A READ again, possibly for the part from a lost response
		 * on: answer it as a READ of that part.
		 */
		off = roce_psn_sub(pkt->psn, r->psn) * x->mtu;
		if (off >= r->len && r->len)
			return;
		part = *r;
		part.va += off;
		part.len -= off;
		vdr_resp_flush_ack(dev, qp);
		vdr_resp_read_start(qp, &part, pkt->psn);
		return;
	}
	/* SEND or WRITE already executed: acknowledge what we have. */
	if (pkt->ack_req) {
		x->ack_pending = true;
		x->ack_psn = roce_psn_sub(x->epsn, 1);
	}
}

/*
 * No receive WQE for a SEND or WRITE_WITH_IMM on RC: RNR NAK, or, when the
 * RQ just failed validation and took the QP to ERR, a remote operational
 * error so that the requester fails now instead of retrying into silence.
 */
static void vdr_resp_no_rwqe(struct vdr_dev *dev, struct vdr_qp *qp)
{
	if (!vdr_qp_is_rc(qp))
		return;
	if (qp->state == VIRTIO_RDMA_QPS_ERR) {
		vdr_resp_nak(dev, qp, ROCE_AETH_NAK_REM_OP_ERR, -1);
		return;
	}
	vdr_stat_inc(dev, VIRTIO_RDMA_STAT_RNR_NAK_SENT);
	vdr_resp_nak(dev, qp, ROCE_AETH_RNR_NAK | qp->attr.min_rnr_timer, -1);
}

static bool vdr_resp_qp_allows(struct vdr_qp *qp, u32 access)
{
	return le32_to_cpu(qp->attr.qp_access_flags) & access;
}

/* What vdr_resp_tm_first() did with a SEND's first packet. */
enum {
	VDR_TM_FIRST_PLACE,	/* place it as a receive of x->rwqe */
	VDR_TM_FIRST_DONE,	/* executed (a rendezvous request) */
	VDR_TM_FIRST_FAIL,	/* not taken: NAK'd, or the QP failed */
};

/*
 * A message of one packet on the wire; a same-host segment (vdr_xport.h)
 * of several stands for as many packets, and is received as those.
 */
static bool vdr_resp_one_packet(const struct vdr_qp *qp,
				const struct roce_pkt *pkt)
{
	u16 f = pkt->info->flags;

	return (f & ROCE_OPF_FIRST) && (f & ROCE_OPF_LAST) &&
	       pkt->payload_len <= qp->xqp->mtu;
}

/*
 * A TM_RECV CQE of the tagged buffer x->tm_handle.  The match reports the
 * TMH; a later DATA_VALID alone does not repeat it (rdma-core's
 * test_tag_matching expects tag 0 there, as mlx5 reports).
 */
static void vdr_resp_tm_cqe(const struct vdr_qp *qp,
			    struct virtio_rdma_cqe *cqe, u8 tm_flags)
{
	const struct vdr_xqp *x = qp->xqp;

	cqe->opcode = VIRTIO_RDMA_WC_OP_TM_RECV;
	cqe->qp_handle = cpu_to_le32(qp->qpn);
	cqe->tm_flags = tm_flags;
	if (!(tm_flags & VIRTIO_RDMA_TM_F_MATCH))
		return;
	cqe->tm_tag = cpu_to_le64(x->tm_tag);
	cqe->tm_app_ctx = cpu_to_le32(x->tm_app_ctx);
}

/*
 * A rendezvous request matched the consumed entry @e: MATCH now, the data
 * by an RDMA READ of the QP's internal SQ (vdr_tm.c), which finishes the
 * buffer.  A buffer too small for the data gets the request itself.
 */
static int vdr_resp_tm_rndv(struct vdr_dev *dev, struct vdr_qp *qp,
			    struct roce_pkt *pkt, const struct vdr_tm_entry *e)
{
	const struct virtio_rdma_rvh *rvh =
		(const void *)(pkt->payload + VDR_TMH_SIZE);
	struct virtio_rdma_cqe cqe = { };
	u64 total = 0;
	int err, i;

	for (i = 0; i < e->num_sge; i++)
		total += le32_to_cpu(e->sge[i].length);
	cqe.wr_id = cpu_to_le64(e->recv_wr_id);
	vdr_resp_tm_cqe(qp, &cqe, VIRTIO_RDMA_TM_F_MATCH);
	if (be32_to_cpu(rvh->len) <= total) {
		if (vdr_cq_post(dev, vdr_resp_rcq(qp), &cqe, false)) {
			vdr_tm_srq_release(qp->srq, e->handle);
			vdr_xqp_fatal(dev, qp, VDR_QP_EV_FATAL);
			return VDR_TM_FIRST_FAIL;
		}
		vdr_tm_rndv_start(qp, e, pkt->payload);
		return VDR_TM_FIRST_DONE;
	}
	err = vdr_sgl_copy(dev, vdr_resp_rpd(qp), e->sge, e->num_sge,
			   VIRTIO_RDMA_ACCESS_LOCAL_WRITE, 0, (void *)pkt->payload,
			   pkt->payload_len, VDR_TO_MEM);
	cqe.status = err ? vdr_resp_mem_status(err) :
			   VIRTIO_RDMA_WC_TM_RNDV_INCOMPLETE;
	cqe.byte_len = cpu_to_le32(pkt->payload_len);
	if (vdr_cq_post(dev, vdr_resp_rcq(qp), &cqe, false))
		vdr_xqp_fatal(dev, qp, VDR_QP_EV_FATAL);
	vdr_tm_srq_release(qp->srq, e->handle);
	if (!err)
		return VDR_TM_FIRST_DONE;
	vdr_resp_nak(dev, qp, err == -EMSGSIZE ? ROCE_AETH_NAK_INVALID_REQ :
		     ROCE_AETH_NAK_REM_OP_ERR, -1);
	return VDR_TM_FIRST_FAIL;
}

/* An EAGER message matched the consumed entry @e: its buffer receives. */
static int vdr_resp_tm_eager(struct vdr_dev *dev, struct vdr_qp *qp,
			     struct roce_pkt *pkt, const struct vdr_tm_entry *e)
{
	struct virtio_rdma_cqe cqe = { };
	struct vdr_xqp *x = qp->xqp;

	x->tm_kind = VDR_TM_MSG_EAGER;
	x->rwqe.wr_id = cpu_to_le64(e->recv_wr_id);
	x->rwqe.num_sge = e->num_sge;
	memcpy(x->rsge, e->sge, e->num_sge * sizeof(x->rsge[0]));
	x->rwqe_valid = true;
	x->recv_off = 0;
	if (vdr_resp_one_packet(qp, pkt))
		return VDR_TM_FIRST_PLACE;
	/* More packets to come: MATCH now, DATA_VALID with the last. */
	cqe.wr_id = x->rwqe.wr_id;
	vdr_resp_tm_cqe(qp, &cqe, VIRTIO_RDMA_TM_F_MATCH);
	if (vdr_cq_post(dev, vdr_resp_rcq(qp), &cqe, false)) {
		vdr_xqp_fatal(dev, qp, VDR_QP_EV_FATAL);
		return VDR_TM_FIRST_FAIL;
	}
	return VDR_TM_FIRST_PLACE;
}

/*
 * The first packet of a SEND to a QP on a TM-SRQ: the message is
 * classified by its TMH (spec "Tag matching", "Receive side"), once, and
 * its later packets follow (x->tm_kind).  Matching and consuming a tagged
 * buffer, or taking a WQE of the SRQ's ring and counting an unexpected
 * message, are one step under the SRQ's lock, which serialises all the
 * QPs of the SRQ.  No WQE in the ring: RNR NAK, nothing counted, and the
 * retry is classified afresh.
 */
static int vdr_resp_tm_first(struct vdr_dev *dev, struct vdr_qp *qp,
			     struct roce_pkt *pkt)
{
	const struct virtio_rdma_tmh *tmh = (const void *)pkt->payload;
	struct vdr_srq *srq = qp->srq;
	struct vdr_xqp *x = qp->xqp;
	struct vdr_tm_entry *e = NULL;
	bool limit_hit = false;
	unsigned long flags;
	int ret = 0;
	u8 kind;

	kind = vdr_tm_msg_kind(pkt->payload, pkt->payload_len,
			       vdr_resp_one_packet(qp, pkt));
	spin_lock_irqsave(&srq->lock, flags);
	if (kind == VDR_TM_MSG_EAGER || kind == VDR_TM_MSG_RNDV) {
		e = vdr_tm_match(&srq->tm.tm, be64_to_cpu(tmh->tag));
		/* No room for the READ and its FIN: as if nothing matched. */
		if (e && kind == VDR_TM_MSG_RNDV && !vdr_tm_sq_room(qp))
			e = NULL;
		if (e)
			vdr_tm_consume(&srq->tm.tm, e);
		else
			kind = VDR_TM_MSG_UNEXP;
	}
	if (!e) {
		ret = vdr_srq_take_locked(srq, &x->rwqe, x->rsge, &limit_hit);
		if (!ret && kind == VDR_TM_MSG_UNEXP)
			srq->tm.tm.hw_cnt++;
	}
	spin_unlock_irqrestore(&srq->lock, flags);

	if (!e) {
		x->tm_kind = ret ? VDR_TM_MSG_RECV : kind;
		if (vdr_resp_srq_took(dev, qp, srq, ret, limit_hit))
			return VDR_TM_FIRST_PLACE;
		vdr_resp_no_rwqe(dev, qp);
		return VDR_TM_FIRST_FAIL;
	}
	/* A consumed entry does not change until this QP releases it. */
	x->tm_handle = e->handle;
	x->tm_tag = be64_to_cpu(tmh->tag);
	x->tm_app_ctx = be32_to_cpu(tmh->app_ctx);
	if (kind == VDR_TM_MSG_RNDV)
		return vdr_resp_tm_rndv(dev, qp, pkt, e);
	return vdr_resp_tm_eager(dev, qp, pkt, e);
}

/* SEND packets of RC and UC. Returns false when the packet was not taken. */
static bool vdr_resp_send(struct vdr_dev *dev, struct vdr_qp *qp,
			  struct roce_pkt *pkt)
{
	struct virtio_rdma_cqe cqe = { };
	struct vdr_xqp *x = qp->xqp;
	u16 f = pkt->info->flags;
	u32 skip = 0;
	int err;

	if (!x->rwqe_valid && vdr_srq_is_tm(qp->srq) && (f & ROCE_OPF_FIRST)) {
		switch (vdr_resp_tm_first(dev, qp, pkt)) {
		case VDR_TM_FIRST_DONE:
			return true;
		case VDR_TM_FIRST_FAIL:
			return false;
		}
	} else if (!vdr_resp_get_rwqe(dev, qp)) {
		vdr_resp_no_rwqe(dev, qp);
		return false;
	}
	/* A tagged buffer gets the payload after the TMH. */
	if (x->tm_kind == VDR_TM_MSG_EAGER && (f & ROCE_OPF_FIRST))
		skip = VDR_TMH_SIZE;
	err = vdr_sgl_copy(dev, vdr_resp_rpd(qp), x->rsge, x->rwqe.num_sge,
			   VIRTIO_RDMA_ACCESS_LOCAL_WRITE, x->recv_off,
			   (void *)pkt->payload + skip, pkt->payload_len - skip,
			   VDR_TO_MEM);
	if (err) {
		vdr_resp_recv_error(dev, qp, vdr_resp_mem_status(err));
		if (vdr_qp_is_rc(qp))
			vdr_resp_nak(dev, qp, err == -EMSGSIZE ?
				     ROCE_AETH_NAK_INVALID_REQ :
				     ROCE_AETH_NAK_REM_OP_ERR, -1);
		else
			vdr_xqp_fatal(dev, qp, -1);
		return false;
	}
	x->recv_off += pkt->payload_len - skip;
	if (!(f & ROCE_OPF_LAST))
		return true;

	cqe.status = VIRTIO_RDMA_WC_SUCCESS;
	cqe.opcode = vdr_tm_msg_wc_opcode(x->tm_kind);
	if (x->tm_kind == VDR_TM_MSG_EAGER)
		vdr_resp_tm_cqe(qp, &cqe, VIRTIO_RDMA_TM_F_DATA_VALID |
				(vdr_resp_one_packet(qp, pkt) ?
				 VIRTIO_RDMA_TM_F_MATCH : 0));
	cqe.byte_len = cpu_to_le32(x->recv_off);
	if (f & ROCE_OPF_IMM) {
		cqe.flags |= VIRTIO_RDMA_WC_F_WITH_IMM;
		cqe.ex.imm_data = pkt->imm;
	}
	if (f & ROCE_OPF_INV) {
		if (vdr_mr_invalidate(dev, vdr_resp_kpd(qp), qp,
				      pkt->ieth_rkey)) {
			vdr_resp_recv_error(dev, qp,
					    VIRTIO_RDMA_WC_LOC_PROT_ERR);
			vdr_resp_nak(dev, qp, ROCE_AETH_NAK_REM_OP_ERR, -1);
			return false;
		}
		cqe.flags |= VIRTIO_RDMA_WC_F_WITH_INV;
		cqe.ex.invalidated_rkey = cpu_to_le32(pkt->ieth_rkey);
	}
	vdr_resp_complete(dev, qp, &cqe, pkt->se);
	return true;
}

static bool vdr_resp_write(struct vdr_dev *dev, struct vdr_qp *qp,
			   struct roce_pkt *pkt)
{
	struct virtio_rdma_cqe cqe = { };
	struct vdr_xqp *x = qp->xqp;
	u16 f = pkt->info->flags;

	if (f & ROCE_OPF_FIRST) {
		if (!vdr_resp_qp_allows(qp, VIRTIO_RDMA_ACCESS_REMOTE_WRITE))
			goto access_err;
		if (pkt->reth.len > VDR_MAX_MSG_SZ)
			goto len_err;
		x->write_va = pkt->reth.va;
		x->write_rkey = pkt->reth.rkey;
		x->write_left = pkt->reth.len;
		x->write_len = pkt->reth.len;
		if (x->write_left &&
		    vdr_mr_check(dev, vdr_resp_kpd(qp), qp, x->write_rkey,
				 VIRTIO_RDMA_ACCESS_REMOTE_WRITE,
				 x->write_va, x->write_left))
			goto access_err;
	}
	if (pkt->payload_len > x->write_left ||
	    ((f & ROCE_OPF_LAST) && pkt->payload_len != x->write_left))
		goto len_err;
	/* WRITE_WITH_IMM needs its receive WQE before any side effect. */
	if ((f & ROCE_OPF_IMM) && !vdr_resp_get_rwqe(dev, qp)) {
		vdr_resp_no_rwqe(dev, qp);
		return false;
	}
	if (pkt->payload_len &&
	    vdr_mr_rw(dev, vdr_resp_kpd(qp), qp, x->write_rkey,
		      VIRTIO_RDMA_ACCESS_REMOTE_WRITE, x->write_va,
		      (void *)pkt->payload, pkt->payload_len, VDR_TO_MEM))
		goto access_err;
	x->write_va += pkt->payload_len;
	x->write_left -= pkt->payload_len;
	if ((f & ROCE_OPF_LAST) && (f & ROCE_OPF_IMM)) {
		cqe.status = VIRTIO_RDMA_WC_SUCCESS;
		cqe.opcode = VIRTIO_RDMA_WC_OP_RECV_RDMA_WITH_IMM;
		/* The bytes received (spec "CQE"), as rdma_rxe reports. */
		cqe.byte_len = cpu_to_le32(x->write_len);
		cqe.flags = VIRTIO_RDMA_WC_F_WITH_IMM;
		cqe.ex.imm_data = pkt->imm;
		vdr_resp_complete(dev, qp, &cqe, pkt->se);
	}
	return true;

len_err:
	if (vdr_qp_is_rc(qp))
		vdr_resp_nak(dev, qp, ROCE_AETH_NAK_INVALID_REQ,
			     VDR_QP_EV_REQ_ERR);
	return false;
access_err:
	if (vdr_qp_is_rc(qp))
		vdr_resp_nak(dev, qp, ROCE_AETH_NAK_REM_ACCESS_ERR,
			     VDR_QP_EV_ACCESS_ERR);
	return false;
}

static bool vdr_resp_read(struct vdr_dev *dev, struct vdr_qp *qp,
			  struct roce_pkt *pkt)
{
	struct vdr_xqp *x = qp->xqp;
	struct vdr_rdatom *r;
	u32 npkts;

	/* Longer than any message, whatever the MR: as rxe, a bad request. */
	if (pkt->reth.len > VDR_MAX_MSG_SZ) {
		vdr_resp_nak(dev, qp, ROCE_AETH_NAK_INVALID_REQ,
			     VDR_QP_EV_REQ_ERR);
		return false;
	}
	if (!vdr_resp_qp_allows(qp, VIRTIO_RDMA_ACCESS_REMOTE_READ) ||
	    (pkt->reth.len &&
	     vdr_mr_check(dev, vdr_resp_kpd(qp), qp, pkt->reth.rkey,
			  VIRTIO_RDMA_ACCESS_REMOTE_READ, pkt->reth.va,
			  pkt->reth.len))) {
		vdr_resp_nak(dev, qp, ROCE_AETH_NAK_REM_ACCESS_ERR,
			     VDR_QP_EV_ACCESS_ERR);
		return false;
	}
	npkts = vdr_req_npkts(pkt->reth.len, x->mtu);
	r = vdr_resp_rdatom_new(qp);
	r->valid = true;
	r->opcode = pkt->opcode;
	r->psn = pkt->psn;
	r->last_psn = roce_psn_add(pkt->psn, npkts - 1);
	r->va = pkt->reth.va;
	r->rkey = pkt->reth.rkey;
	r->len = pkt->reth.len;
	x->msn++;
	vdr_resp_flush_ack(dev, qp);
	vdr_resp_read_start(qp, r, r->psn);
	/* The READ consumed one PSN per response packet. */
	x->epsn = roce_psn_add(x->epsn, npkts - 1);
	return true;
}

static bool vdr_resp_atomic(struct vdr_dev *dev, struct vdr_qp *qp,
			    struct roce_pkt *pkt)
{
	struct vdr_xqp *x = qp->xqp;
	bool cas = (pkt->opcode & ~ROCE_OPC_TRANSPORT_MASK) ==
		   ROCE_OP_COMPARE_SWAP;
	struct vdr_rdatom *r;
	u64 va = pkt->atomiceth.va;
	u64 orig;

	if (va & 7) {
		vdr_resp_nak(dev, qp, ROCE_AETH_NAK_INVALID_REQ,
			     VDR_QP_EV_REQ_ERR);
		return false;
	}
	if (!vdr_resp_qp_allows(qp, VIRTIO_RDMA_ACCESS_REMOTE_ATOMIC) ||
	    vdr_mr_remote_atomic(dev, vdr_resp_kpd(qp), qp,
				 pkt->atomiceth.rkey, va,
				 cas ? VDR_ATOMIC_CMP_SWP : VDR_ATOMIC_FETCH_ADD,
				 cas ? pkt->atomiceth.compare :
				       pkt->atomiceth.swap_add,
				 pkt->atomiceth.swap_add, &orig)) {
		vdr_resp_nak(dev, qp, ROCE_AETH_NAK_REM_ACCESS_ERR,
			     VDR_QP_EV_ACCESS_ERR);
		return false;
	}
	r = vdr_resp_rdatom_new(qp);
	r->valid = true;
	r->opcode = pkt->opcode;
	r->psn = pkt->psn;
	r->last_psn = pkt->psn;
	r->orig = orig;
	x->msn++;
	vdr_resp_flush_ack(dev, qp);
	vdr_resp_atomic_send(dev, qp, r);
	return true;
}

void vdr_resp_packet(struct vdr_dev *dev, struct vdr_qp *qp,
		     struct sk_buff *skb, struct roce_pkt *pkt)
{
	struct vdr_xqp *x = qp->xqp;
	u16 f = pkt->info->flags;
	bool rc = vdr_qp_is_rc(qp);
	/* A same-host segment stands for npsn packets (vdr_xport.h). */
	u32 npsn = vdr_skb_npsn(skb);
	bool ok;

	if (qp->state != VIRTIO_RDMA_QPS_RTR &&
	    qp->state != VIRTIO_RDMA_QPS_RTS &&
	    qp->state != VIRTIO_RDMA_QPS_SQD)
		return;
	if (vdr_qp_is_ud(qp)) {
		vdr_resp_ud(dev, qp, skb, pkt);
		return;
	}
	/*
	 * The peer is in RTS: the connection is up even if its last CM
	 * message (RTU) was lost, which ib_cm learns from this event.
	 */
	if (qp->state == VIRTIO_RDMA_QPS_RTR && !x->comm_est) {
		x->comm_est = true;
		vdr_event_raise(dev, &qp->ev[VDR_QP_EV_COMM_EST], 0);
	}

	if (rc) {
		switch (roce_rel_resp_psn(x->epsn, pkt->psn, x->nak_sent)) {
		case ROCE_RPSN_OK:
			break;
		case ROCE_RPSN_DUP:
			if (vdr_resp_xrc_srq(dev, qp, pkt, true))
				vdr_resp_duplicate(dev, qp, pkt);
			return;
		case ROCE_RPSN_NAK:
			x->nak_sent = true;
			vdr_stat_inc(dev, VIRTIO_RDMA_STAT_SEQ_NAK_SENT);
			vdr_resp_flush_ack(dev, qp);
			vdr_resp_send_ack(dev, qp, ROCE_AETH_NAK_PSN_SEQ_ERR,
					  x->epsn);
			return;
		case ROCE_RPSN_DROP:
			return;
		}
	} else if (roce_rel_uc_psn(x->epsn, pkt->psn, f & ROCE_OPF_FIRST) !=
		   ROCE_UPSN_OK) {
		/*
		 * UC: the partial message is lost; a packet that does not
		 * start a new one goes too (the opcode check below).
		 */
		x->prev_opcode = ROCE_OPCODE_NONE;
		x->recv_off = 0;
		x->write_left = 0;
		x->epsn = pkt->psn;
	}
	if (!vdr_roce_opcode_seq_ok(x->prev_opcode, pkt->opcode)) {
		if (rc) {
			vdr_resp_nak(dev, qp, ROCE_AETH_NAK_INVALID_REQ,
				     VDR_QP_EV_REQ_ERR);
			return;
		}
		if (!(f & ROCE_OPF_FIRST))
			return;
		x->recv_off = 0;
	}
	/* In sequence: a FIRST packet starts a message (vdr_resp_srq()). */
	if (!vdr_resp_xrc_srq(dev, qp, pkt, false))
		return;
	x->nak_sent = false;

	if (f & ROCE_OPF_SEND)
		ok = vdr_resp_send(dev, qp, pkt);
	else if (f & ROCE_OPF_WRITE)
		ok = vdr_resp_write(dev, qp, pkt);
	else if (rc && (f & ROCE_OPF_READ))
		ok = vdr_resp_read(dev, qp, pkt);
	else if (rc && (f & ROCE_OPF_ATOMIC))
		ok = vdr_resp_atomic(dev, qp, pkt);
	else
		ok = false;
	if (!ok) {
		if (!rc) {
			x->prev_opcode = ROCE_OPCODE_NONE;
			x->recv_off = 0;
			x->epsn = roce_psn_add(pkt->psn, npsn);
		}
		return;
	}

	x->prev_opcode = (f & ROCE_OPF_LAST) ? ROCE_OPCODE_NONE : pkt->opcode;
	if ((f & ROCE_OPF_LAST) && !(f & (ROCE_OPF_READ | ROCE_OPF_ATOMIC)))
		x->msn++;
	if (rc && pkt->ack_req && !(f & (ROCE_OPF_READ | ROCE_OPF_ATOMIC))) {
		x->ack_pending = true;
		x->ack_psn = roce_psn_add(pkt->psn, npsn - 1);
	}
	x->epsn = roce_psn_add(x->epsn, npsn);
}
