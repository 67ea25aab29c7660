// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: per-QP transport state.
 *
 * Everything here runs in the device worker under dev->lock, except the
 * timer callbacks, which only mark the QP and wake the worker.  A QP with
 * work (a doorbell, received packets, an expired timer) sits on the
 * device's pending list until the worker has run its requester, responder
 * and completer.
 */
#include <linux/slab.h>

#include "roce.h"
#include "roce_psn.h"
#include "roce_rel.h"
#include "vdpa_rdma.h"
#include "vdr_xport.h"

#define VDR_PEND_BUDGET	64

static void vdr_xqp_mark(struct vdr_xqp *x)
{
	struct vdr_xdev *xd = x->dev->xdev;
	unsigned long flags;

	spin_lock_irqsave(&xd->pend_lock, flags);
	if (list_empty(&x->pend_entry))
		list_add_tail(&x->pend_entry, &xd->pend);
	spin_unlock_irqrestore(&xd->pend_lock, flags);
}

/* Queue the QP for the worker; the caller runs under dev->lock. */
void vdr_xqp_kick(struct vdr_dev *dev, struct vdr_qp *qp)
{
	if (!qp->xqp || !dev->xdev)
		return;
	vdr_xqp_mark(qp->xqp);
	vdr_schedule(dev);
}

static enum hrtimer_restart vdr_retrans_fn(struct hrtimer *t)
{
	struct vdr_xqp *x = container_of(t, struct vdr_xqp, retrans_timer);

	set_bit(VDR_XQP_EV_RETRANS, &x->events);
	vdr_xqp_mark(x);
	vdr_schedule(x->dev);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart vdr_rnr_fn(struct hrtimer *t)
{
	struct vdr_xqp *x = container_of(t, struct vdr_xqp, rnr_timer);

	set_bit(VDR_XQP_EV_RNR, &x->events);
	vdr_xqp_mark(x);
	vdr_schedule(x->dev);
	return HRTIMER_NORESTART;
}

/*
 * (Re)start the retransmission timer: 4.096 us * 2^timeout, 0 = none,
 * stretched up to 4x by the measured RTT (roce_rel_rto_ns()) and
 * doubled for each timeout since the last progress.  A responder slower
 * than the timeout (a software device on a busy CPU) otherwise gets the
 * whole window again on every expiry, queued ahead of the new requests it
 * has yet to acknowledge: each timeout then causes the next, until the
 * retries run out.  The spec's timeout is a minimum; waiting longer is
 * allowed.  Once per progress the timer first fires early, as the
 * tail-loss probe (roce_rel_probe_ns()).
 */
void vdr_xqp_timer_arm(struct vdr_xqp *x)
{
	u64 ns = roce_rel_timeout_ns(x->qp->attr.timeout), probe;

	if (!ns)
		return;
	ns = roce_rel_rto_ns(&x->rtt, ns);
	ns <<= min_t(u8, x->tmo_backoff, VDR_TMO_BACKOFF_MAX);
	probe = x->probed ? 0 : roce_rel_probe_ns(&x->rtt, ns);
	x->probe_armed = probe != 0;
	hrtimer_start(&x->retrans_timer, ns_to_ktime(probe ?: ns),
		      HRTIMER_MODE_REL_SOFT);
}

int vdr_xqp_create(struct vdr_dev *dev, struct vdr_qp *qp)
{
	struct vdr_xqp *x;

	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!x)
		return -ENOMEM;
	x->swq = kvcalloc(qp->sq.depth, sizeof(*x->swq), GFP_KERNEL);
	if (!x->swq) {
		kfree(x);
		return -ENOMEM;
	}
	x->qp = qp;
	x->dev = dev;
	INIT_LIST_HEAD(&x->pend_entry);
	skb_queue_head_init(&x->rxq);
	hrtimer_init(&x->retrans_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	x->retrans_timer.function = vdr_retrans_fn;
	hrtimer_init(&x->rnr_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	x->rnr_timer.function = vdr_rnr_fn;
	x->prev_opcode = ROCE_OPCODE_NONE;
	qp->xqp = x;
	return 0;
}

/* Stop timers and drop queued packets; the QP stays known to the worker. */
static void vdr_xqp_quiesce(struct vdr_dev *dev, struct vdr_xqp *x)
{
	unsigned long flags;

	hrtimer_cancel(&x->retrans_timer);
	hrtimer_cancel(&x->rnr_timer);
	skb_queue_purge(&x->rxq);
	if (dev->xdev) {
		spin_lock_irqsave(&dev->xdev->pend_lock, flags);
		list_del_init(&x->pend_entry);
		spin_unlock_irqrestore(&dev->xdev->pend_lock, flags);
	}
	x->events = 0;
}

void vdr_xqp_destroy(struct vdr_dev *dev, struct vdr_qp *qp)
{
	struct vdr_xqp *x = qp->xqp;

	if (!x)
		return;
	vdr_xqp_quiesce(dev, x);
	kvfree(x->swq);
	kfree(x);
	qp->xqp = NULL;
}

static void vdr_xqp_req_init(struct vdr_qp *qp, struct vdr_xqp *x)
{
	x->sq_fetched = qp->sq_cons;
	x->sq_next = qp->sq_cons;
	x->req_off = 0;
	x->req_psn = roce_psn_mask(le32_to_cpu(qp->attr.sq_psn));
	x->sent_psn = x->req_psn;
	x->acked_psn = roce_psn_sub(x->req_psn, 1);
	x->gap_valid = false;
	x->retry_left = qp->attr.retry_cnt;
	x->rnr_left = qp->attr.rnr_retry;
	x->tmo_backoff = 0;
	x->cwnd = ROCE_REL_CWND_MAX;
	x->rtt_valid = false;
	x->rtt = (struct roce_rel_rtt){};
	x->probe_armed = false;
	x->probed = false;
	x->rnr_wait = false;
}

static void vdr_xqp_resp_init(struct vdr_qp *qp, struct vdr_xqp *x)
{
	x->epsn = roce_psn_mask(le32_to_cpu(qp->attr.rq_psn));
	x->msn = 0;
	x->prev_opcode = ROCE_OPCODE_NONE;
	x->nak_sent = false;
	x->comm_est = false;
	x->ack_pending = false;
	x->rwqe_valid = false;
	x->recv_off = 0;
	x->write_left = 0;
	memset(x->rdatom, 0, sizeof(x->rdatom));
}

/* Called by vdr_qp.c before it applies the side effects of a new state. */
void vdr_xqp_state(struct vdr_dev *dev, struct vdr_qp *qp, u8 next)
{
	struct vdr_xqp *x = qp->xqp;
	u8 cur = qp->state;

	if (!x)
		return;
	/* UD and GSI QPs have no path: their messages fit the port's MTU. */
	if (qp->type == VIRTIO_RDMA_QPT_UD || qp->type == VIRTIO_RDMA_QPT_GSI)
		x->mtu = 128U << vdr_active_mtu(dev);
	else
		x->mtu = 128U << clamp_t(u8, qp->attr.path_mtu, 1, 5);
	switch (next) {
	case VIRTIO_RDMA_QPS_RESET:
	case VIRTIO_RDMA_QPS_ERR:
		vdr_xqp_quiesce(dev, x);
		x->rwqe_valid = false;
		break;
	case VIRTIO_RDMA_QPS_INIT:
		vdr_xqp_req_init(qp, x);
		vdr_xqp_resp_init(qp, x);
		break;
	case VIRTIO_RDMA_QPS_RTR:
		if (cur != VIRTIO_RDMA_QPS_RTR)
			vdr_xqp_resp_init(qp, x);
		break;
	case VIRTIO_RDMA_QPS_RTS:
		if (cur != VIRTIO_RDMA_QPS_RTS && cur != VIRTIO_RDMA_QPS_SQD) {
			vdr_xqp_req_init(qp, x);
			/* WQEs posted before RTS wait for it. */
			vdr_xqp_kick(dev, qp);
		}
		break;
	}
}

/* A fatal transport error: event, then ERR (which flushes). */
void vdr_xqp_fatal(struct vdr_dev *dev, struct vdr_qp *qp, int ev)
{
	if (qp->state == VIRTIO_RDMA_QPS_ERR)
		return;
	if (ev >= 0)
		vdr_event_raise(dev, &qp->ev[ev], 0);
	vdr_qp_set_err(dev, qp);
}

/**
 * vdr_xqp_pkt_alloc - a packet buffer with @pkt's headers built
 * @dev: the device
 * @pkt: headers; pad is set here from payload_len
 * @payload: set to where payload_len bytes of payload go
 *
 * Return: the skb (data = BTH .. ICRC, pad zeroed), or NULL.
 */
struct sk_buff *vdr_xqp_pkt_alloc(struct vdr_dev *dev,
				  struct roce_pkt *pkt, u8 **payload)
{
	const struct roce_opcode_info *info = vdr_roce_opcode(pkt->opcode);
	struct sk_buff *skb;
	u32 total;
	int hlen;
	u8 *buf;

	if (!info)
		return NULL;
	pkt->pad = roce_pad_len(pkt->payload_len);
	total = info->hdr_len + pkt->payload_len + pkt->pad + ROCE_ICRC_BYTES;
	skb = vdr_net_alloc_skb(dev, total);
	if (!skb)
		return NULL;
	buf = skb_put(skb, total);
	hlen = vdr_roce_build(pkt, buf, total);
	if (WARN_ON_ONCE(hlen < 0)) {
		kfree_skb(skb);
		return NULL;
	}
	memset(buf + hlen + pkt->payload_len, 0,
	       pkt->pad + ROCE_ICRC_BYTES);
	*payload = buf + hlen;
	return skb;
}

/**
 * vdr_xqp_send - route, checksum and send a packet
 * @dev: the device
 * @qp: the sending QP
 * @av: destination
 * @pkt: its headers (for the UDP source port)
 * @skb: from vdr_xqp_pkt_alloc(), consumed
 *
 * Return: 0, -EINVAL for a bad address vector, or another negative errno
 * when the packet was dropped (loss, which retransmission recovers).
 */
int vdr_xqp_send(struct vdr_dev *dev, struct vdr_qp *qp,
		 const struct virtio_rdma_av *av, struct roce_pkt *pkt,
		 struct sk_buff *skb)
{
	int ret, ipver;

	ret = vdr_net_prepare(dev, av, skb,
			      vdr_net_sport(av, qp->qpn, pkt->dqpn));
	if (ret) {
		kfree_skb(skb);
		return ret;
	}
	ipver = skb->protocol == htons(ETH_P_IP) ? 4 : 6;
	ret = vdr_roce_icrc_generate(skb->data, skb->len, ipver);
	if (ret) {
		kfree_skb(skb);
		return ret;
	}
	return vdr_net_send(dev, skb);
}

static void vdr_xqp_run(struct vdr_dev *dev, struct vdr_qp *qp)
{
	struct vdr_xqp *x = qp->xqp;
	struct roce_pkt pkt;
	struct sk_buff *skb;

	while ((skb = skb_dequeue(&x->rxq))) {
		if (vdr_roce_parse(skb->data, skb->len, &pkt)) {
			kfree_skb(skb);
			continue;
		}
		if (pkt.info->flags & ROCE_OPF_RESP)
			vdr_comp_packet(dev, qp, &pkt);
		else
			vdr_resp_packet(dev, qp, skb, &pkt);
		kfree_skb(skb);
		if (!qp->xqp)
			return;
	}
	vdr_resp_flush_ack(dev, qp);

	if (test_and_clear_bit(VDR_XQP_EV_RNR, &x->events))
		x->rnr_wait = false;
	/*
	 * An ACK taken above may have restarted the timer after it fired:
	 * that expiry is stale, and acting on it would send the window
	 * again for nothing.
	 */
	if (test_and_clear_bit(VDR_XQP_EV_RETRANS, &x->events) &&
	    !hrtimer_is_queued(&x->retrans_timer))
		vdr_comp_timeout(dev, qp);
	vdr_comp_run(dev, qp);
	vdr_req_process(dev, qp);
	/* Local operations and unreliable sends finish in the requester. */
	vdr_comp_run(dev, qp);
}

/* Returns true when QPs may still have work. */
bool vdr_xqp_run_pending(struct vdr_dev *dev)
{
	struct vdr_xdev *xd = dev->xdev;
	struct vdr_xqp *x;
	int i;

	lockdep_assert_held(&dev->lock);

	for (i = 0; i < VDR_PEND_BUDGET; i++) {
		spin_lock_irq(&xd->pend_lock);
		x = list_first_entry_or_null(&xd->pend, struct vdr_xqp,
					     pend_entry);
		if (x)
			list_del_init(&x->pend_entry);
		spin_unlock_irq(&xd->pend_lock);
		if (!x)
			return false;
		vdr_xqp_run(dev, x->qp);
	}
	return true;
}
