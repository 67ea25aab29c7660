// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: per-QP transport state and the QP's work.
 *
 * A QP's requester, responder and completer run in its work item on its
 * engine (vdr_engine.c), under qp->lock (model in vdpa_rdma.h).
 * Everything that gives a QP something to do (a doorbell, a received
 * packet, an expired timer, a command) schedules that work; a run does at
 * most a budget of each kind of work and queues itself again when some is
 * left, so a QP with a long message or a deep queue takes turns with the
 * others.
 */
#include <linux/slab.h>

#include "roce.h"
#include "roce_psn.h"
#include "roce_rel.h"
#include "vdpa_rdma.h"
#include "vdr_xport.h"

/*
 * Work came for @x (a packet, an expiry, a doorbell): see that a run takes
 * it.  A run in progress holds the QP's lock and looks for this mark
 * before it lets the lock go (vdr_xqp_run_one()), and runs again instead
 * of a worker being woken.  That worker would preempt whatever
 * this CPU runs only to wait for the same lock: a ping-pong whose answer
 * arrives while the run that sent the question still holds the QP (taking
 * its ACK) did, once per message.  Caller holds x->rxq.lock and saw x
 * alive.
 */
static void vdr_xqp_wake(struct vdr_xqp *x)
{
	set_bit(VDR_XQP_EV_KICK, &x->events);
	/* Pairs with the barrier in vdr_xqp_run_one(): one of us sees the other. */
	smp_mb__after_atomic();
	if (!READ_ONCE(x->running))
		vdr_engine_queue(x->engine, &x->work);
}

/*
 * Schedule the QP's work, from any context.  x->dead is set under the same
 * lock (the rxq's, irq-safe like every sk_buff_head lock) by
 * vdr_xqp_kill(): once it is set, no one queues the work again, so
 * cancelling it is final.
 */
void vdr_xqp_schedule(struct vdr_xqp *x)
{
	unsigned long flags;

	spin_lock_irqsave(&x->rxq.lock, flags);
	if (!x->dead)
		vdr_xqp_wake(x);
	spin_unlock_irqrestore(&x->rxq.lock, flags);
}

static bool same_host_handoff = true;
module_param(same_host_handoff, bool, 0644);
MODULE_PARM_DESC(same_host_handoff,
		 "Whether a same-host receiver runs in its sender's work item when it is idle, instead of being woken on another (default true)");

static bool wire_handoff = true;
module_param(wire_handoff, bool, 0644);
MODULE_PARM_DESC(wire_handoff,
		 "Whether a receiver whose packet a virtual link delivers in its sender's softirq runs in the sender's work item, instead of being woken on another (default true)");

static bool wire_pingpong_inline = true;
module_param(wire_pingpong_inline, bool, 0644);
MODULE_PARM_DESC(wire_pingpong_inline,
		 "Whether a doorbell of a wire QP in a ping-pong (small messages, one at a time) runs the QP in the context that rang it (default true)");

/*
 * The wire handoff window of this CPU (vdr_xqp_wire_deliver()): open while
 * a QP's run lets the receive softirq deliver what it just sent; @x is the
 * first QP that softirq gave a packet to.
 */
struct vdr_wire_offer {
	bool open;
	struct vdr_xqp *x;
};

static DEFINE_PER_CPU(struct vdr_wire_offer, vdr_wire_offer);

/*
 * In the receive softirq, with interrupts off: note @x for the sender
 * whose window is open on this CPU.  Returns true when the sender will
 * run @x, and no one needs to wake it.
 */
static bool vdr_xqp_wire_note(struct vdr_xqp *x)
{
	struct vdr_wire_offer *o = this_cpu_ptr(&vdr_wire_offer);

	if (!in_serving_softirq() || !o->open)
		return false;
	if (!o->x)
		o->x = x;
	return o->x == x;
}

/*
 * Caller holds x->rxq.lock and saw x alive: vdr_xqp_kill() has not taken
 * the QP's lock yet, and would now wait for a sender that takes it here.
 */
static void vdr_xqp_rx_wake(struct vdr_xqp *x, struct vdr_xqp **handoff)
{
	if (handoff && *handoff == x)
		return;		/* the sender runs it after itself already */
	if (!handoff && vdr_xqp_wire_note(x))
		return;
	if (handoff && !*handoff && READ_ONCE(same_host_handoff) &&
	    mutex_trylock(&x->qp->lock)) {
		*handoff = x;
		atomic_inc(&x->dev->same_host_handoffs);
		return;
	}
	vdr_xqp_wake(x);
}

/**
 * vdr_xqp_rx_enqueue - queue a received packet and schedule the QP
 * @x: the QP's transport state
 * @skb: the packet
 * @limit: most packets the QP may have queued
 * @handoff: NULL, or a same-host sender's offer to run the QP itself
 *
 * When @handoff is given and the QP's lock is free, the lock is taken and
 * the QP goes to *@handoff instead of to its engine: the sender's work
 * runs it right after the sender (vdr_xqp_send()).  Holding the lock
 * keeps the QP alive meanwhile, as for a doorbell (vdr_xqp_doorbell()).
 * Later packets of the same run find it there and wake no one.
 *
 * Return: false when the packet was not queued (the caller drops it).
 */
bool vdr_xqp_rx_enqueue(struct vdr_xqp *x, struct sk_buff *skb, u32 limit,
			struct vdr_xqp **handoff)
{
	unsigned long flags;
	bool queued = false;

	/* Racy by a few packets across QPs, which a buffer bound allows. */
	if (atomic_read(&x->dev->rx_backlog) >= VDR_RX_BACKLOG_MAX)
		return false;
	spin_lock_irqsave(&x->rxq.lock, flags);
	if (!x->dead && skb_queue_len(&x->rxq) < limit) {
		__skb_queue_tail(&x->rxq, skb);
		atomic_inc(&x->dev->rx_backlog);
		vdr_xqp_rx_wake(x, handoff);
		queued = true;
	}
	spin_unlock_irqrestore(&x->rxq.lock, flags);
	return queued;
}

/*
 * The next received packet, unless the responder must finish a READ
 * response before it takes another request (vdr_recv_must_wait()).
 */
struct sk_buff *vdr_xqp_rx_dequeue(struct vdr_xqp *x)
{
	struct sk_buff *skb;

	spin_lock_irq(&x->rxq.lock);
	skb = skb_peek(&x->rxq);
	if (skb && vdr_recv_must_wait(x, skb))
		skb = NULL;
	if (skb) {
		__skb_unlink(skb, &x->rxq);
		atomic_dec(&x->dev->rx_backlog);
	}
	spin_unlock_irq(&x->rxq.lock);
	return skb;
}

/**
 * vdr_xqp_wire_begin - before a run's packet goes to the IP layer
 *
 * Disables preemption and bottom halves, so that the receive softirq for
 * the packet waits for vdr_xqp_wire_deliver(), on this CPU.
 *
 * Return: false, with nothing disabled, when wire_handoff is off.
 */
bool vdr_xqp_wire_begin(void)
{
	if (!READ_ONCE(wire_handoff))
		return false;
	preempt_disable();
	local_bh_disable();
	return true;
}

/*
 * Whether @y, given @npkts packets by @x's run, runs on its own engine
 * instead of in @x's work (vdr_xqp_overlap()).  Sender and receiver of a
 * stream then run on two CPUs at once, where a handoff makes them take
 * turns on one (wire, one QP: ib_write_bw 64 KiB 164 against 102 MB/s,
 * ib_read_bw 4 KiB 126 against 90, 64 B sends 290 against 188 K/s); a
 * ping-pong woken so took twice as long.
 */
static bool vdr_xqp_wire_stream(const struct vdr_xqp *x,
				const struct vdr_xqp *y, u32 npkts)
{
	return vdr_xqp_overlap(npkts,
			       READ_ONCE(x->sq_behind) || READ_ONCE(x->sq_big),
			       READ_ONCE(y->sq_behind),
			       vdr_engine_idle(y->engine));
}

/**
 * vdr_xqp_wire_deliver - run the receive softirq for a packet just sent
 * @handoff: the sending QP's x->handoff, its run's handoff slot
 * @npkts: RoCE packets sent
 *
 * Called after vdr_xqp_wire_begin() once the packet went to the IP layer,
 * and enables what it disabled.  A virtual link (veth) queued the packet
 * to this CPU's backlog: the softirq run by local_bh_enable() delivers it,
 * and vdr_xqp_rx_wake() notes its receiving QP here instead of waking a
 * worker for it.  The sender then runs that QP right after
 * itself, as on the same-host path: a worker's wakeup saved per exchange,
 * where rxe would answer in that softirq.  On a real link the softirq has
 * nothing of ours to deliver; a packet that arrived meanwhile from
 * elsewhere may be noted, and its QP then runs here instead of in a
 * worker of its own, which is as correct.
 *
 * A stream's QPs run on their own engines instead when these are idle
 * (vdr_xqp_wire_stream()).
 */
void vdr_xqp_wire_deliver(struct vdr_xqp **handoff, u32 npkts)
{
	struct vdr_wire_offer *o = this_cpu_ptr(&vdr_wire_offer);
	struct vdr_xqp *x = container_of(handoff, struct vdr_xqp, handoff);
	struct vdr_xqp *y;

	o->open = true;
	local_bh_enable();
	local_bh_disable();
	y = o->x;
	o->x = NULL;
	o->open = false;
	local_bh_enable();
	/*
	 * Preemption stays disabled: an RCU read-side section since the
	 * softirq found @y, so @y and its QP are not freed yet.  Its lock,
	 * taken before @y was seen alive, keeps them (vdr_xqp_kill()).
	 */
	if (y && y != *handoff) {
		if (!*handoff &&
		    !vdr_xqp_wire_stream(x, y, npkts) &&
		    mutex_trylock(&y->qp->lock)) {
			if (!y->dead) {
				*handoff = y;
				atomic_inc(&y->dev->wire_handoffs);
			} else {
				mutex_unlock(&y->qp->lock);
			}
		} else {
			vdr_xqp_schedule(y);
		}
	}
	preempt_enable();
}

/* Drop every queued packet. */
static void vdr_xqp_rx_purge(struct vdr_xqp *x)
{
	struct sk_buff *skb;

	while ((skb = skb_dequeue(&x->rxq))) {
		atomic_dec(&x->dev->rx_backlog);
		kfree_skb(skb);
	}
}

void vdr_xqp_kick(struct vdr_dev *dev, struct vdr_qp *qp)
{
	if (qp->xqp)
		vdr_xqp_schedule(qp->xqp);
}

static enum hrtimer_restart vdr_retrans_fn(struct hrtimer *t)
{
	struct vdr_xqp *x = container_of(t, struct vdr_xqp, retrans_timer);

	set_bit(VDR_XQP_EV_RETRANS, &x->events);
	vdr_xqp_schedule(x);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart vdr_rnr_fn(struct hrtimer *t)
{
	struct vdr_xqp *x = container_of(t, struct vdr_xqp, rnr_timer);

	set_bit(VDR_XQP_EV_RNR, &x->events);
	vdr_xqp_schedule(x);
	return HRTIMER_NORESTART;
}

/* The requester looks at its drained SQ again (vdr_req_linger()). */
static enum hrtimer_restart vdr_linger_fn(struct hrtimer *t)
{
	vdr_xqp_schedule(container_of(t, struct vdr_xqp, linger_timer));
	return HRTIMER_NORESTART;
}

/* No timer of @x runs or will queue its work after this. */
static void vdr_xqp_timers_cancel(struct vdr_xqp *x)
{
	hrtimer_cancel(&x->retrans_timer);
	hrtimer_cancel(&x->rnr_timer);
	hrtimer_cancel(&x->linger_timer);
}

/*
 * (Re)start the retransmission timer: 4.096 us * 2^timeout, 0 = none,
 * stretched by the measured RTT (roce_rel_rto_ns()) and doubled for each
 * timeout since the last progress (roce_rel_backoff_ns()), both up to 4x
 * the timeout or 1 s, whichever is longer.  A responder slower than the
 * timeout (a software device on a busy CPU) otherwise gets the whole
 * window again on every expiry, queued ahead of the new requests it has
 * yet to acknowledge: each timeout then causes the next, until the
 * retries run out.  The spec's timeout is a minimum; waiting longer is
 * allowed.  Once per progress the timer first fires early, as the
 * tail-loss probe (roce_rel_probe_ns()).
 */
void vdr_xqp_timer_arm(struct vdr_xqp *x)
{
	u64 tmo = roce_rel_timeout_ns(x->qp->attr.timeout), ns, probe;

	if (!tmo)
		return;
	ns = roce_rel_backoff_ns(roce_rel_rto_ns(&x->rtt, tmo), tmo,
				 x->tmo_backoff);
	probe = x->probed ? 0 : roce_rel_probe_ns(&x->rtt, ns);
	x->probe_armed = probe != 0;
	hrtimer_start(&x->retrans_timer, ns_to_ktime(probe ?: ns),
		      HRTIMER_MODE_REL_SOFT);
}

static void vdr_xqp_work(struct kthread_work *work);

/* A QP's weight on its engine: the GSI QP carries MADs only (vdr_engine.c). */
static unsigned int vdr_xqp_weight(const struct vdr_qp *qp)
{
	return qp->type != VIRTIO_RDMA_QPT_GSI;
}

int vdr_xqp_create(struct vdr_dev *dev, struct vdr_qp *qp)
{
	struct vdr_xqp *x;

	x = kzalloc(sizeof(*x), VDR_GFP_OBJ);
	if (!x)
		return -ENOMEM;
	x->swq = kvcalloc(qp->sq.depth, sizeof(*x->swq), VDR_GFP_OBJ);
	if (!x->swq) {
		kfree(x);
		return -ENOMEM;
	}
	x->qp = qp;
	x->dev = dev;
	kthread_init_work(&x->work, vdr_xqp_work);
	x->engine = vdr_engine_get(vdr_xqp_weight(qp));
	skb_queue_head_init(&x->rxq);
	hrtimer_init(&x->retrans_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	x->retrans_timer.function = vdr_retrans_fn;
	hrtimer_init(&x->rnr_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	x->rnr_timer.function = vdr_rnr_fn;
	hrtimer_init(&x->linger_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	x->linger_timer.function = vdr_linger_fn;
	x->prev_opcode = ROCE_OPCODE_NONE;
	/* encap_rcv and db_work find the QP first: publish x complete. */
	smp_store_release(&qp->xqp, x);
	return 0;
}

/* Stop timers and drop queued packets and work (to RESET or ERR). */
static void vdr_xqp_quiesce(struct vdr_xqp *x)
{
	vdr_xqp_timers_cancel(x);
	vdr_xqp_rx_purge(x);
	x->events = 0;
	x->rd_active = false;
}

/**
 * vdr_xqp_kill - make a QP's work stop for good
 * @qp: the QP, already removed from dev->qps
 *
 * Whoever found the QP before it left the table (encap_rcv, db_work, a
 * timer) may still try to schedule it; after this, none will.  Takes
 * qp->lock: a run in progress finishes first.
 */
void vdr_xqp_kill(struct vdr_qp *qp)
{
	struct vdr_xqp *x = qp->xqp;

	if (!x)
		return;
	mutex_lock(&qp->lock);
	spin_lock_irq(&x->rxq.lock);
	x->dead = true;
	spin_unlock_irq(&x->rxq.lock);
	mutex_unlock(&qp->lock);
}

/* After vdr_xqp_kill(): wait for the work and timers, free the state. */
void vdr_xqp_destroy(struct vdr_dev *dev, struct vdr_qp *qp)
{
	struct vdr_xqp *x = qp->xqp;

	if (!x)
		return;
	/* A timer may queue the work until it is cancelled: work last. */
	vdr_xqp_timers_cancel(x);
	kthread_cancel_work_sync(&x->work);
	vdr_engine_put(x->engine, vdr_xqp_weight(qp));
	vdr_xqp_rx_purge(x);
	kvfree(x->swq);
	kvfree(x->rdatom);
	qp->xqp = NULL;
	/* encap_rcv and db_work may still look at x under RCU. */
	kfree_rcu(x, rcu);
}

static void vdr_xqp_req_init(struct vdr_qp *qp, struct vdr_xqp *x)
{
	x->sq_fetched = qp->sq_cons;
	x->sq_next = qp->sq_cons;
	x->sq_behind = false;
	x->sq_streaming = false;
	x->sq_small = false;
	x->sq_big = false;
	x->sq_unsignaled = false;
	x->sq_lingers = 0;
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
	x->probing = false;
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
	if (x->rdatom)
		memset(x->rdatom, 0, x->nr_rdatom * sizeof(*x->rdatom));
	x->rdatom_next = 0;
}

/**
 * vdr_xqp_prepare - allocate what a state transition needs
 * @qp: the QP, under qp->lock, before MODIFY_QP changes anything
 * @next: the new state
 * @max_dest_rd_atomic: the responder resources the QP will have
 *
 * The responder remembers as many READs and atomics as it lets the peer
 * have outstanding, to answer their duplicates; sized when the QP enters
 * RTR, so an idle QP costs nothing and a QP that offers rxe's 128 costs
 * 5 KiB.
 *
 * Return: 0 or -ENOMEM.
 */
int vdr_xqp_prepare(struct vdr_qp *qp, u8 next, u32 max_dest_rd_atomic)
{
	struct vdr_xqp *x = qp->xqp;
	unsigned int n = clamp_t(u32, max_dest_rd_atomic, 1, VDR_MAX_RD_ATOM);
	struct vdr_rdatom *r;

	if (!x || next != VIRTIO_RDMA_QPS_RTR || qp->state == next ||
	    !vdr_qp_is_rc(qp) || n == x->nr_rdatom)
		return 0;
	r = kvcalloc(n, sizeof(*r), VDR_GFP_OBJ);
	if (!r)
		return -ENOMEM;
	kvfree(x->rdatom);
	x->rdatom = r;
	x->nr_rdatom = n;
	return 0;
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
		vdr_xqp_quiesce(x);
		x->rwqe_valid = false;
		x->msg_srq = NULL;
		x->rd_srq = NULL;
		x->pkt_srq = NULL;
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
 * vdr_xqp_send - send a packet of @qp
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
	struct vdr_xqp *x = qp->xqp;
	bool handoff = x->running && x->may_hand;
	bool wire = false;
	int ret;

	/*
	 * The receiving QP runs in this QP's work item, right after this
	 * run, when nothing else runs it: on the same host
	 * (vdr_xqp_rx_enqueue()), and on a virtual link that delivers the
	 * packet in this CPU's softirq (vdr_xqp_wire_deliver()).  That saves
	 * a worker's wakeup per exchange, the largest cost of a small
	 * message under a hypervisor.  Outside a run (a command) there is no
	 * after, and no handoff (vdr_xqp_run_unlock()).  In a run, wire
	 * packets leave together at its end (vdr_xqp_run_one()).
	 */
	ret = vdr_net_xmit(dev, av, skb, vdr_net_sport(av, qp->qpn, pkt->dqpn),
			   handoff ? &x->handoff : NULL,
			   x->running ? &x->txb : NULL, &wire);
	WRITE_ONCE(x->wire, wire);
	return ret;
}

/*
 * The received packets of a run, and the READ responses they start: a
 * budget of packets taken and one of response packets sent.  A READ
 * request holds the requests behind it until its response is out
 * (vdr_recv_must_wait()); once it is, they go on in the same run while
 * both budgets last, instead of one READ per run (a run, and a requeue of
 * the work, for each of 128 single-packet READs in flight).  Returns true
 * when work is left for another run.
 */
static bool vdr_xqp_run_recv(struct vdr_dev *dev, struct vdr_qp *qp)
{
	u32 rx_budget = VDR_XQP_BUDGET, rd_budget = VDR_XQP_BUDGET;
	bool more;

	more = vdr_recv_process(dev, qp, &rx_budget);
	while (qp->state != VIRTIO_RDMA_QPS_ERR &&
	       vdr_resp_read_continue(dev, qp, &rd_budget)) {
		/* A response left unfinished, or requests no budget takes. */
		if (!rd_budget || !rx_budget)
			return true;
		more = vdr_recv_process(dev, qp, &rx_budget);
	}
	return more;
}

/* Returns true when the QP has work left for another run. */
static bool vdr_xqp_run(struct vdr_dev *dev, struct vdr_qp *qp)
{
	struct vdr_xqp *x = qp->xqp;
	bool more, db;

	db = test_and_clear_bit(VDR_XQP_EV_SQ_DB, &x->events);
	db |= test_and_clear_bit(VDR_XQP_EV_RQ_DB, &x->events);
	more = vdr_xqp_run_recv(dev, qp);
	/* In ERR every post is flushed, which ib_drain_qp() waits for. */
	if (qp->state == VIRTIO_RDMA_QPS_ERR)
		return (db && vdr_qp_flush(dev, qp)) || more;

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
	more |= vdr_req_process(dev, qp);
	/* Local operations and unreliable sends finish in the requester. */
	vdr_comp_run(dev, qp);
	return more;
}

/*
 * The wire packets of the run that ends (vdr_net.c), with the run's
 * handoff; a full queue on their way is congestion, as for a packet sent
 * alone (vdr_req_packet()).
 */
static void vdr_xqp_flush_wire(struct vdr_xqp *x)
{
	int err = vdr_net_wire_flush(x->dev, &x->txb,
				     x->may_hand ? &x->handoff : NULL);

	if (err == -ENOBUFS && vdr_qp_is_rc(x->qp))
		x->cwnd = roce_rel_cwnd_loss(x->cwnd);
}

/*
 * One run of a QP whose lock the caller took, and again while work came
 * during it (vdr_xqp_wake(), vdr_xqp_rerun()).  The lock is released.
 * Returns the QP this run handed off to, locked (vdr_xqp_send()).
 */
static struct vdr_xqp *vdr_xqp_run_one(struct vdr_xqp *x, bool may_hand)
{
	unsigned int runs = 0;
	struct vdr_xqp *peer;
	bool more = false;

	/*
	 * Not while the device is suspended or reset: then what is left
	 * (events, received packets) waits for vdr_xqps_resume().
	 */
	while (!x->dead && READ_ONCE(x->dev->running)) {
		/* What came before this run, this run takes. */
		clear_bit(VDR_XQP_EV_KICK, &x->events);
		WRITE_ONCE(x->running, true);
		x->may_hand = may_hand;
		more = vdr_xqp_run(x->dev, x->qp);
		vdr_xqp_flush_wire(x);
		WRITE_ONCE(x->running, false);
		/* Pairs with the barrier in vdr_xqp_wake(). */
		smp_mb();
		if (!vdr_xqp_rerun(test_bit(VDR_XQP_EV_KICK, &x->events),
				   &more, &runs))
			break;
	}
	peer = x->handoff;
	x->handoff = NULL;
	mutex_unlock(&x->qp->lock);
	/* Behind the QPs that queued meanwhile: one budget per turn. */
	if (more)
		vdr_xqp_schedule(x);
	return peer;
}

/* Runs in a chain of handoffs, per work item or doorbell (below). */
#define VDR_XQP_CHAIN	4

/*
 * A run of @x, whose lock the caller took, then of the QP it handed to,
 * then of the one that handed to, and so on: at most VDR_XQP_CHAIN runs
 * (each with its reruns, vdr_xqp_run_one()), and the last hands off to no
 * one.  The third is typically @x again, taking the ACK of what it sent
 * (or a READ's response) in the same pass, so that a small RC message
 * completes on both sides without waking a worker.  The fourth takes
 * what the third's packets bring at once: in a ping-pong, the third run
 * often also takes the peer's answer, whose ACK then goes back to a peer
 * QP that is idle again, and without a fourth run a worker was woken for
 * every such ACK, preempting the application on this CPU (8 B
 * ib_send_lat and ib_write_lat on the wire: 26-28 us typical instead of
 * 32-35; more runs gave nothing more).  A streaming sender finds its SQ
 * drained after each pass, and keeps it polled by a timer rather than by
 * doorbells (vdr_req_linger()).
 */
static void vdr_xqp_run_unlock(struct vdr_xqp *x)
{
	unsigned int i;

	for (i = 1; x && i <= VDR_XQP_CHAIN; i++)
		x = vdr_xqp_run_one(x, i < VDR_XQP_CHAIN);
}

static void vdr_xqp_work(struct kthread_work *work)
{
	struct vdr_xqp *x = container_of(work, struct vdr_xqp, work);

	mutex_lock(&x->qp->lock);
	vdr_xqp_run_unlock(x);
}

/*
 * A QP whose newest WQE fits one packet and was not posted behind others:
 * a request/response exchange (vdr_req_fetch()), although the ACK of its
 * last request may still be on its way when the answer that makes the
 * application post again has arrived.  Read without the QP's lock too, as
 * a hint.
 */
static bool vdr_xqp_pingpong(const struct vdr_xqp *x)
{
	return !READ_ONCE(x->sq_behind) && READ_ONCE(x->sq_small);
}

/* Longest wait of a doorbell for its QP's lock (vdr_xqp_doorbell_lock()). */
#define VDR_DB_LOCK_SPIN_NS	(20 * NSEC_PER_USEC)

/*
 * The QP's lock for a doorbell, under RCU.  A ping-pong's doorbell often
 * comes while its QP still runs in the peer's work item, the handoff that
 * delivered the message the application now answers (vdr_xqp_send()):
 * in the caller's context, waiting a few microseconds for that run to end
 * costs less than waking a worker, which would wait for it too (one in
 * two ib_write_lat iterations on the wire did).  Bounded, and a sleep is
 * not allowed here: on timeout or when a reschedule is due, the caller
 * schedules the work instead.
 */
static bool vdr_xqp_doorbell_lock(struct vdr_xqp *x, bool in_caller)
{
	u64 end;

	if (mutex_trylock(&x->qp->lock))
		return true;
	if (!in_caller || !vdr_xqp_pingpong(x))
		return false;
	end = ktime_get_ns() + VDR_DB_LOCK_SPIN_NS;
	do {
		cpu_relax();
		if (mutex_trylock(&x->qp->lock))
			return true;
	} while (!need_resched() && ktime_get_ns() < end);
	return false;
}

/**
 * vdr_xqp_doorbell - a doorbell for a QP found under RCU
 * @qp: the QP; the caller holds rcu_read_lock(), which this releases
 * @type: VIRTIO_RDMA_DOORBELL_SQ or _RQ
 * @in_caller: in the notifier's context (vdr_db_kick()), not in db_work
 *
 * A doorbell comes when the QP went idle and asked for one: run the QP
 * right here when nothing else runs it, which saves a scheduling hop on
 * the latency path; otherwise schedule its work.  The QP's lock, taken
 * before RCU is released, keeps it alive (vdr_xqp_kill() takes it too).
 *
 * Not in the notifier's context when the QP's last packet took the wire
 * and the QP streams (its newest WQE was posted behind others, or does not
 * fit one packet): its exchange goes on in the peer's softirq and worker
 * anyway, and running it in the application's system call only kept the
 * application from posting to its other QPs meanwhile (ib_write_bw with 4
 * QPs of 64 KiB on the wire: 26-36 MB/s instead of 47-81).  A ping-pong
 * waits for this doorbell and nothing else: it runs here (ib_read_lat 8 B
 * on the wire: 30 us typical instead of 46).
 */
void vdr_xqp_doorbell(struct vdr_qp *qp, u32 type, bool in_caller)
	__releases(RCU)
{
	/* Pairs with the release in vdr_xqp_create(). */
	struct vdr_xqp *x = smp_load_acquire(&qp->xqp);

	if (!x) {
		rcu_read_unlock();
		return;
	}
	vdr_xqp_note_doorbell(x, type);
	if (!vdr_xqp_doorbell_lock(x, in_caller))
		goto schedule;
	/* Killed before we got the lock: it may be freed once RCU is left. */
	if (x->dead) {
		mutex_unlock(&qp->lock);
		rcu_read_unlock();
		return;
	}
	if (in_caller && x->wire &&
	    (!vdr_xqp_pingpong(x) || !READ_ONCE(wire_pingpong_inline))) {
		mutex_unlock(&qp->lock);
		goto schedule;
	}
	rcu_read_unlock();
	vdr_xqp_run_unlock(x);
	return;

schedule:
	vdr_xqp_schedule(x);
	rcu_read_unlock();
}

/**
 * vdr_xqp_run_now - one run of a QP's work in the caller's context
 * @qp: the QP, kept alive by the caller (a command, under dev->lock)
 *
 * As if the SQ's doorbell had rung: what the driver posted before the
 * caller's command and completes without the network (unreliable sends,
 * local operations, flushes in ERR) has its CQEs written when this
 * returns, up to one run's budget.
 */
void vdr_xqp_run_now(struct vdr_qp *qp)
{
	/* Pairs with the release in vdr_xqp_create(). */
	struct vdr_xqp *x = smp_load_acquire(&qp->xqp);

	if (!x)
		return;
	vdr_xqp_note_doorbell(x, VIRTIO_RDMA_DOORBELL_SQ);
	mutex_lock(&qp->lock);
	vdr_xqp_run_unlock(x);
}

/**
 * vdr_xqps_stop - wait until no QP of @dev runs
 * @dev: the device, whose dev->running its caller cleared
 *
 * A run checks dev->running under the QP's lock: one that began before
 * has ended once that lock was taken here, and none begins after.
 * Caller holds dev->lock, which keeps the QP table as it is.
 */
void vdr_xqps_stop(struct vdr_dev *dev)
{
	struct vdr_qp *qp;
	unsigned long idx;

	lockdep_assert_held(&dev->lock);
	xa_for_each(&dev->qps, idx, qp) {
		mutex_lock(&qp->lock);
		mutex_unlock(&qp->lock);
	}
}

/**
 * vdr_xqps_resume - give every QP of @dev a run
 * @dev: the device, running again
 *
 * As if both doorbells of every QP had rung: what the driver posted,
 * the packets that arrived and the timers that expired meanwhile are
 * taken up.  Caller holds dev->lock.
 */
void vdr_xqps_resume(struct vdr_dev *dev)
{
	struct vdr_xqp *x;
	struct vdr_qp *qp;
	unsigned long idx;

	lockdep_assert_held(&dev->lock);
	xa_for_each(&dev->qps, idx, qp) {
		x = qp->xqp;
		if (!x)
			continue;
		vdr_xqp_note_doorbell(x, VIRTIO_RDMA_DOORBELL_SQ);
		vdr_xqp_note_doorbell(x, VIRTIO_RDMA_DOORBELL_RQ);
		vdr_xqp_schedule(x);
	}
}
