// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: the completer.
 *
 * Responses (ACK, NAK, READ responses, atomic ACKs) finish send WQEs;
 * finished WQEs are retired strictly in SQ order, with a CQE when they are
 * signalled or failed.  A failure other than a UD address error makes the
 * QP fatal after its CQE, and the move to ERR flushes the rest.
 */
#include "roce.h"
#include "roce_psn.h"
#include "roce_rel.h"
#include "vdpa_rdma.h"
#include "vdr_xport.h"

/* RNR NAK timer codes in microseconds (IBA table 45); 0 is 655.36 ms. */
static const u32 vdr_rnr_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

static struct vdr_swqe *vdr_comp_wqe(struct vdr_qp *qp, u32 idx)
{
	return &qp->xqp->swq[idx & (qp->sq.depth - 1)];
}

/*
 * Whether a started WQE is unfinished.  A go-back-N may have moved sq_next
 * back over WQEs that are still unacknowledged, so look up to sq_fetched.
 */
static bool vdr_comp_outstanding(struct vdr_qp *qp)
{
	struct vdr_xqp *x = qp->xqp;
	struct vdr_swqe *w;
	u32 i;

	if (x->req_off)
		return true;
	for (i = qp->sq_cons; i != x->sq_fetched; i++) {
		w = vdr_comp_wqe(qp, i);
		if (w->started && w->state != VDR_SWQE_DONE)
			return true;
	}
	return false;
}

/* Retire finished WQEs in order. */
void vdr_comp_run(struct vdr_dev *dev, struct vdr_qp *qp)
{
	struct vdr_xqp *x = qp->xqp;
	struct virtio_rdma_cqe cqe;
	struct vdr_swqe *w;
	bool fail;

	while (qp->sq_cons != x->sq_fetched &&
	       qp->state != VIRTIO_RDMA_QPS_ERR &&
	       qp->state != VIRTIO_RDMA_QPS_RESET) {
		w = vdr_comp_wqe(qp, qp->sq_cons);
		if (w->state != VDR_SWQE_DONE)
			break;
		fail = w->status != VIRTIO_RDMA_WC_SUCCESS;
		qp->sq_cons++;
		/*
		 * A completion hands the slot back (the CQE is built from our
		 * own copy of the WQE): an application that posts again as
		 * soon as it polls the CQE must find the slot free.
		 */
		smp_store_release(&qp->sq.ctl->cons, cpu_to_le32(qp->sq_cons));
		/* A TM-SRQ's READs and FINs: no CQE on the send CQ. */
		if (qp->tm) {
			if (vdr_tm_sq_done(dev, qp, w)) {
				vdr_xqp_fatal(dev, qp, VDR_QP_EV_FATAL);
				return;
			}
		} else if (fail || qp->sq_sig_all ||
			   (w->wqe.flags & VIRTIO_RDMA_WQE_F_SIGNALED)) {
			memset(&cqe, 0, sizeof(cqe));
			cqe.wr_id = w->wqe.wr_id;
			cqe.status = w->status;
			cqe.opcode = vdr_wc_opcode(w->wqe.opcode);
			cqe.qp_handle = cpu_to_le32(qp->qpn);
			if (w->wqe.opcode == VIRTIO_RDMA_WR_RDMA_READ ||
			    w->rd_atomic)
				cqe.byte_len = cpu_to_le32(w->len);
			if (vdr_cq_post(dev, qp->scq, &cqe, false)) {
				vdr_xqp_fatal(dev, qp, VDR_QP_EV_FATAL);
				return;
			}
		}
		if (fail && !w->soft_err) {
			vdr_xqp_fatal(dev, qp, w->malformed ?
				      VDR_QP_EV_FATAL : -1);
			return;
		}
	}
	/*
	 * Only RTS and SQD keep sq_cons <= sq_next <= sq_fetched: the flush
	 * in ERR moves sq_cons past WQEs never fetched (up to a ring's worth
	 * of garbage for an impossible prod), and walking from there to
	 * sq_fetched would take 2^32 steps.  The timers stop with ERR anyway.
	 */
	if (!vdr_qp_is_rc(qp) || !x ||
	    (qp->state != VIRTIO_RDMA_QPS_RTS &&
	     qp->state != VIRTIO_RDMA_QPS_SQD))
		return;
	if (!vdr_comp_outstanding(qp))
		hrtimer_try_to_cancel(&x->retrans_timer);
}

static void vdr_comp_progress(struct vdr_qp *qp, u32 psn)
{
	struct vdr_xqp *x = qp->xqp;

	if (roce_psn_after(psn, x->acked_psn))
		x->acked_psn = psn;
	if (x->gap_valid && roce_psn_after_eq(x->acked_psn, x->gap_psn))
		x->gap_valid = false;
	x->retry_left = qp->attr.retry_cnt;
	x->rnr_left = qp->attr.rnr_retry;
	x->cwnd = roce_rel_cwnd_ack(x->cwnd);
	/*
	 * The timer stays backed off until an ACK for a packet sent once
	 * (Karn): an ACK for one sent again may answer either copy and says
	 * nothing of the RTT, and a responder late enough for one timeout,
	 * with a queue that the retransmission only lengthened, is likely
	 * late again: resetting the backoff on any ACK would arm the short
	 * timer at once, before the responder has caught up.
	 */
	if (x->rtt_valid && roce_psn_after_eq(psn, x->rtt_psn)) {
		roce_rel_rtt_sample(&x->rtt, ktime_get_ns() - x->rtt_t0);
		x->rtt_valid = false;
		x->tmo_backoff = 0;
	}
	x->probed = false;
	x->probing = false;
	vdr_req_acked(qp);
	vdr_xqp_timer_arm(x);
}

/*
 * Everything up to @psn is acknowledged.  A READ or atomic passed over by
 * the acknowledgment lost its response: send it again.  Returns false
 * when it did that.
 */
static bool vdr_comp_ack_upto(struct vdr_dev *dev, struct vdr_qp *qp,
			      u32 psn)
{
	struct vdr_xqp *x = qp->xqp;
	struct vdr_swqe *w;
	u32 i;

	/* Up to sq_fetched: a go-back-N may have moved sq_next back. */
	for (i = qp->sq_cons; i != x->sq_fetched; i++) {
		w = vdr_comp_wqe(qp, i);
		/* Local WQEs are DONE without being started. */
		if (w->state == VDR_SWQE_DONE)
			continue;
		if (!w->started)
			break;
		if (roce_psn_before(psn, w->last_psn))
			break;
		if (w->rd_atomic) {
			vdr_req_retransmit(dev, qp, w->first_psn);
			return false;
		}
		w->state = VDR_SWQE_DONE;
		w->status = VIRTIO_RDMA_WC_SUCCESS;
	}
	return true;
}

static void vdr_comp_fail_at(struct vdr_dev *dev, struct vdr_qp *qp,
			     u32 psn, u8 status)
{
	struct vdr_xqp *x = qp->xqp;
	struct vdr_swqe *w;
	u32 i;

	for (i = qp->sq_cons; i != x->sq_next + (x->req_off ? 1 : 0); i++) {
		w = vdr_comp_wqe(qp, i);
		if (w->state == VDR_SWQE_DONE)
			continue;
		w->state = VDR_SWQE_DONE;
		w->status = status;
		if (x->req_off && i == x->sq_next) {
			x->req_off = 0;
			x->sq_next++;
		}
		return;
	}
}

static void vdr_comp_rel(const struct vdr_qp *qp,
			 struct roce_rel_req *r)
{
	const struct vdr_xqp *x = qp->xqp;

	r->acked_psn = x->acked_psn;
	r->next_psn = x->sent_psn;
	r->retry_left = x->retry_left;
	r->rnr_left = x->rnr_left;
	r->rnr_retry = qp->attr.rnr_retry;
	r->gap_valid = x->gap_valid;
	r->gap_psn = x->gap_psn;
}

/* Go back N to @psn, remembering it so that its duplicates are ignored. */
static void vdr_comp_go_back(struct vdr_dev *dev, struct vdr_qp *qp,
			     u32 psn)
{
	struct vdr_xqp *x = qp->xqp;

	x->gap_valid = true;
	x->gap_psn = psn;
	x->cwnd = roce_rel_cwnd_loss(x->cwnd);
	vdr_req_retransmit(dev, qp, psn);
}

static void vdr_comp_aeth(struct vdr_dev *dev, struct vdr_qp *qp,
			  struct roce_pkt *pkt)
{
	struct vdr_xqp *x = qp->xqp;
	u8 syn = pkt->aeth.syndrome;
	struct roce_rel_decision d;
	struct roce_rel_req r;
	u32 before;

	vdr_comp_rel(qp, &r);
	roce_rel_aeth(&r, syn, pkt->psn, &d);
	if ((syn & ROCE_AETH_TYPE_MASK) == ROCE_AETH_RNR_NAK)
		vdr_stat_inc(dev, VIRTIO_RDMA_STAT_RNR_NAK_RCVD);
	else if (syn == ROCE_AETH_NAK_PSN_SEQ_ERR)
		vdr_stat_inc(dev, VIRTIO_RDMA_STAT_SEQ_NAK_RCVD);
	if (d.use_retry)
		x->retry_left--;
	if (d.use_rnr)
		x->rnr_left--;

	if (d.action == ROCE_REL_IGNORE)
		return;
	if (d.action == ROCE_REL_PROGRESS) {
		if (vdr_comp_ack_upto(dev, qp, d.psn))
			vdr_comp_progress(qp, d.psn);
		return;
	}
	/* A NAK acknowledges every PSN before the one it names. */
	before = roce_psn_sub(d.psn, 1);
	if (!vdr_comp_ack_upto(dev, qp, before))
		return;	/* went back to a READ or atomic before it */
	if (roce_psn_after(before, x->acked_psn))
		x->acked_psn = before;

	switch (d.action) {
	case ROCE_REL_RNR_WAIT:
		hrtimer_try_to_cancel(&x->retrans_timer);
		vdr_req_retransmit(dev, qp, d.psn);
		x->rnr_wait = true;
		hrtimer_start(&x->rnr_timer,
			      ns_to_ktime((u64)vdr_rnr_us[syn & 0x1f] *
					  NSEC_PER_USEC),
			      HRTIMER_MODE_REL_SOFT);
		break;
	case ROCE_REL_GO_BACK:
		vdr_comp_go_back(dev, qp, d.psn);
		vdr_xqp_timer_arm(x);
		break;
	default:
		if (d.status == VIRTIO_RDMA_WC_RETRY_EXC_ERR)
			vdr_stat_inc(dev, VIRTIO_RDMA_STAT_RETRY_EXCEEDED);
		vdr_comp_fail_at(dev, qp, d.psn, d.status);
		break;
	}
}

/* The first unfinished WQE, if it is the READ/atomic @psn answers. */
static struct vdr_swqe *vdr_comp_rd_wqe(struct vdr_dev *dev,
					struct vdr_qp *qp, u32 psn)
{
	struct vdr_xqp *x = qp->xqp;
	struct vdr_swqe *w;
	u32 i;

	for (i = qp->sq_cons; i != x->sq_next; i++) {
		w = vdr_comp_wqe(qp, i);
		if (w->state == VDR_SWQE_DONE)
			continue;
		if (roce_psn_before(psn, w->first_psn))
			return NULL;	/* duplicate */
		if (!w->rd_atomic) {
			/* A response implicitly acknowledges what precedes. */
			if (roce_psn_after(psn, w->last_psn)) {
				w->state = VDR_SWQE_DONE;
				w->status = VIRTIO_RDMA_WC_SUCCESS;
				continue;
			}
			return NULL;
		}
		if (roce_psn_after(psn, w->last_psn))
			return NULL;
		return w;
	}
	return NULL;
}

static void vdr_comp_read_resp(struct vdr_dev *dev, struct vdr_qp *qp,
			       struct roce_pkt *pkt, u32 npsn)
{
	struct vdr_xqp *x = qp->xqp;
	bool last = pkt->info->flags & ROCE_OPF_LAST;
	struct roce_rel_req r;
	struct vdr_swqe *w;
	u32 expect;
	int err;

	w = vdr_comp_rd_wqe(dev, qp, pkt->psn);
	if (!w || w->wqe.opcode != VIRTIO_RDMA_WR_RDMA_READ)
		return;
	expect = roce_psn_add(w->first_psn, w->read_off / x->mtu);
	vdr_comp_rel(qp, &r);
	switch (roce_rel_read_resp(&r, expect, pkt->psn)) {
	case ROCE_RRESP_ACCEPT:
		break;
	case ROCE_RRESP_GAP:
		/* Ask for the rest now rather than after a timeout. */
		vdr_comp_go_back(dev, qp, expect);
		return;
	default:
		return;
	}
	/* A same-host segment is npsn full packets (vdr_xport.h). */
	if (pkt->payload_len > w->len - w->read_off ||
	    (!last && pkt->payload_len != npsn * x->mtu) ||
	    (last && w->read_off + pkt->payload_len != w->len)) {
		w->state = VDR_SWQE_DONE;
		w->status = VIRTIO_RDMA_WC_BAD_RESP_ERR;
		return;
	}
	err = vdr_sgl_copy(dev, qp->pd, w->sge, w->wqe.num_sge,
			   VIRTIO_RDMA_ACCESS_LOCAL_WRITE, w->read_off,
			   (void *)pkt->payload, pkt->payload_len,
			   VDR_TO_MEM);
	if (err) {
		w->state = VDR_SWQE_DONE;
		w->status = VIRTIO_RDMA_WC_LOC_PROT_ERR;
		return;
	}
	w->read_off += pkt->payload_len;
	vdr_comp_progress(qp, roce_psn_add(pkt->psn, npsn - 1));
	if (last) {
		w->state = VDR_SWQE_DONE;
		w->status = VIRTIO_RDMA_WC_SUCCESS;
	}
}

static void vdr_comp_atomic_ack(struct vdr_dev *dev, struct vdr_qp *qp,
				struct roce_pkt *pkt)
{
	struct vdr_swqe *w;
	u64 orig;

	w = vdr_comp_rd_wqe(dev, qp, pkt->psn);
	if (!w || w->wqe.opcode == VIRTIO_RDMA_WR_RDMA_READ)
		return;
	orig = pkt->atomic_orig;
	w->state = VDR_SWQE_DONE;
	w->status = VIRTIO_RDMA_WC_SUCCESS;
	if (vdr_sgl_copy(dev, qp->pd, w->sge, w->wqe.num_sge,
			 VIRTIO_RDMA_ACCESS_LOCAL_WRITE, 0, &orig,
			 sizeof(orig), VDR_TO_MEM))
		w->status = VIRTIO_RDMA_WC_LOC_PROT_ERR;
	vdr_comp_progress(qp, pkt->psn);
}

/*
 * @npsn: the packets @pkt stands for: 1, more for a same-host segment
 * (vdr_xport.h)
 */
void vdr_comp_packet(struct vdr_dev *dev, struct vdr_qp *qp,
		     struct roce_pkt *pkt, u32 npsn)
{
	u16 f = pkt->info->flags;

	if (!vdr_qp_is_rc(qp) ||
	    (qp->state != VIRTIO_RDMA_QPS_RTS &&
	     qp->state != VIRTIO_RDMA_QPS_SQD))
		return;
	if (f & ROCE_OPF_READ_RESP) {
		/* A READ response with an AETH may also NAK. */
		if ((f & ROCE_OPF_LAST || f & ROCE_OPF_FIRST) &&
		    (pkt->aeth.syndrome & ROCE_AETH_TYPE_MASK) != ROCE_AETH_ACK)
			vdr_comp_aeth(dev, qp, pkt);
		else
			vdr_comp_read_resp(dev, qp, pkt, npsn);
	} else if (f & ROCE_OPF_ATOMIC_ACK) {
		vdr_comp_atomic_ack(dev, qp, pkt);
	} else if (f & ROCE_OPF_ACK) {
		vdr_comp_aeth(dev, qp, pkt);
	}
}

/*
 * The retransmission timer expired: send the first unacknowledged packet
 * again, alone, as the loss probe does (vdr_req_probe()), and the rest once
 * its ACK says what the responder lacks.  After this long without an ACK,
 * one round trip more costs little, and the likeliest cause is not that a
 * whole window was lost: on a busy CPU the window's ACKs are late, or a
 * full queue dropped its tail, and going back N would send the window
 * again to a responder that has most of it.
 */
void vdr_comp_timeout(struct vdr_dev *dev, struct vdr_qp *qp)
{
	struct vdr_xqp *x = qp->xqp;
	struct roce_rel_req r;

	if (!vdr_qp_is_rc(qp) ||
	    (qp->state != VIRTIO_RDMA_QPS_RTS &&
	     qp->state != VIRTIO_RDMA_QPS_SQD))
		return;
	if (x->probe_armed) {
		x->probe_armed = false;
		if (!vdr_comp_outstanding(qp) || x->rnr_wait)
			return;
		x->probed = true;
		vdr_req_probe(dev, qp);
		vdr_xqp_timer_arm(x);
		return;
	}
	vdr_comp_rel(qp, &r);
	switch (roce_rel_timeout(&r, vdr_comp_outstanding(qp), x->rnr_wait)) {
	case ROCE_TMO_NONE:
		return;
	case ROCE_TMO_FAIL:
		vdr_stat_inc(dev, VIRTIO_RDMA_STAT_ACK_TIMEOUTS);
		vdr_stat_inc(dev, VIRTIO_RDMA_STAT_RETRY_EXCEEDED);
		vdr_comp_fail_at(dev, qp, 0, VIRTIO_RDMA_WC_RETRY_EXC_ERR);
		return;
	case ROCE_TMO_RETRY:
		break;
	}
	vdr_stat_inc(dev, VIRTIO_RDMA_STAT_ACK_TIMEOUTS);
	x->retry_left--;
	if (x->tmo_backoff < VDR_TMO_BACKOFF_MAX)
		x->tmo_backoff++;
	x->cwnd = roce_rel_cwnd_loss(x->cwnd);
	x->gap_valid = false;
	/* Until progress, the next expiry is the backed-off timeout. */
	x->probed = true;
	vdr_req_probe(dev, qp);
	vdr_xqp_timer_arm(x);
}
