// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: packet reception.
 *
 * encap_rcv (vdr_net.c) hands each packet to vdr_recv_queue(), in softirq,
 * which reads only the destination QP number from the BTH and queues the
 * packet to that QP.  The QP's work (vdr_xqp.c) then checks the ICRC and
 * parses the headers once, in process context, on whichever CPU runs it:
 * packets of different QPs are checked and executed in parallel.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/ipv6.h>

#include "roce.h"
#include "vdpa_rdma.h"
#include "vdr_xport.h"

#define VDR_QP_RXQ_MIN	2048U

/* Offset of the destination QP number in the UDP payload (BTH byte 5). */
#define VDR_BTH_DQPN_OFF	(sizeof(struct udphdr) + 4)

/*
 * A READ answers with up to 2^31 bytes at once: room for a 1 MiB READ at
 * the smallest MTU, or responses are lost to our own queue.
 */
static u32 vdr_recv_limit(const struct vdr_qp *qp)
{
	return max(qp->rq.depth + qp->sq.depth + 64, VDR_QP_RXQ_MIN);
}

/**
 * vdr_recv_queue - queue a received packet to its QP
 * @dev: the device the packet is addressed to
 * @skb: data is the UDP header; consumed
 * @handoff: NULL, or where a same-host sender takes the QP to run
 *	     (vdr_xqp_rx_enqueue())
 *
 * Softirq, or a same-host sender's QP work; under RCU, which keeps the QP
 * and its transport state.
 *
 * Return: 0 when queued; -ENOBUFS when dropped because the QP's or the
 * device's queue is full (congestion, which a same-host sender learns at
 * once: vdr_net_xmit()); -ENOENT when dropped for having no QP to go to.
 */
int vdr_recv_queue(struct vdr_dev *dev, struct sk_buff *skb,
		   struct vdr_xqp **handoff)
{
	int ret = -ENOENT;
	struct vdr_xqp *x;
	struct vdr_qp *qp;
	__be32 raw, *p;

	p = skb_header_pointer(skb, VDR_BTH_DQPN_OFF, sizeof(raw), &raw);
	if (!p)
		goto drop;
	qp = xa_load(&dev->qps, be32_to_cpu(*p) & ROCE_QPN_MASK);
	/* Pairs with the release in vdr_xqp_create(). */
	x = qp ? smp_load_acquire(&qp->xqp) : NULL;
	if (!x)
		goto drop;
	if (vdr_xqp_rx_enqueue(x, skb, vdr_recv_limit(qp), handoff))
		return 0;
	ret = -ENOBUFS;
drop:
	vdr_stat_inc(dev, VIRTIO_RDMA_STAT_RX_DROPPED);
	kfree_skb(skb);
	return ret;
}

static bool vdr_recv_type_ok(const struct vdr_qp *qp,
			     const struct roce_pkt *pkt)
{
	u8 t = pkt->opcode & ROCE_OPC_TRANSPORT_MASK;
	u16 f = pkt->info->flags;

	switch (qp->type) {
	case VIRTIO_RDMA_QPT_RC:
		return t == ROCE_OPC_RC;
	case VIRTIO_RDMA_QPT_UC:
		return t == ROCE_OPC_UC;
	/* An XRC QP is one side: the requester's or the responder's. */
	case VIRTIO_RDMA_QPT_XRC_INI:
		return t == ROCE_OPC_XRC && (f & ROCE_OPF_RESP);
	case VIRTIO_RDMA_QPT_XRC_TGT:
		return t == ROCE_OPC_XRC && (f & ROCE_OPF_REQ);
	default:
		return t == ROCE_OPC_UD;
	}
}

/*
 * RC, UC and XRC packets come from the QP's peer only: their source address is
 * the path's destination GID, as rxe checks.  Anyone who reaches the port
 * can send RoCEv2 packets from a UDP socket, and without this check a
 * guessed QPN and PSN would be enough to inject into a connection.
 */
static bool vdr_recv_from_peer(const struct vdr_qp *qp, struct sk_buff *skb)
{
	const struct in6_addr *dgid = (const void *)qp->attr.av.dgid;

	if (skb->protocol == htons(ETH_P_IP))
		return ipv6_addr_v4mapped(dgid) &&
		       ip_hdr(skb)->saddr == dgid->s6_addr32[3];
	return ipv6_addr_equal(&ipv6_hdr(skb)->saddr, dgid);
}

/*
 * A same-host segment (vdr_xport.h) stands for @npsn packets of one
 * message at this QP's path MTU: every one full but a message's last, and
 * only of the opcodes with a payload that the requester or a READ's
 * responder cuts.  -EINVAL for anything else.
 */
static int vdr_recv_seg_check(struct vdr_qp *qp, const struct roce_pkt *pkt,
			      u32 npsn)
{
	u16 f = pkt->info->flags;
	u32 mtu = qp->xqp->mtu;

	/*
	 * Connected QPs only.  An XRC request segment has one XRCETH, as
	 * each of the packets it stands for would have had.
	 */
	if (vdr_qp_is_ud(qp))
		return -EINVAL;
	if (!(f & (ROCE_OPF_SEND | ROCE_OPF_WRITE | ROCE_OPF_READ_RESP)))
		return -EINVAL;
	if (vdr_req_npkts(pkt->payload_len, mtu) != npsn ||
	    (!(f & ROCE_OPF_LAST) && pkt->payload_len % mtu))
		return -EINVAL;
	return 0;
}

/*
 * Checks and parses @skb (data = UDP header).  Returns 0, -EBADMSG for a
 * bad ICRC (counted apart) or -EINVAL for any other reason to drop it.
 */
static int vdr_recv_parse(struct vdr_dev *dev, struct vdr_qp *qp,
			  struct sk_buff *skb, struct roce_pkt *pkt)
{
	int ipver = skb->protocol == htons(ETH_P_IP) ? 4 : 6;
	u8 *nh;

	if (skb_linearize(skb) || !pskb_may_pull(skb, sizeof(struct udphdr)))
		return -EINVAL;
	__skb_pull(skb, sizeof(struct udphdr));
	nh = skb_network_header(skb);
	if (!VDR_SKB_CB(skb)->same_host &&
	    vdr_roce_icrc_check(nh, skb_tail_pointer(skb) - nh, ipver)) {
		vdr_stat_inc(dev, VIRTIO_RDMA_STAT_ICRC_ERRORS);
		return -EBADMSG;
	}
	if (vdr_roce_parse(skb->data, skb->len, pkt))
		return -EINVAL;
	/* Trim link-layer padding: data is BTH .. ICRC from now on. */
	if (pskb_trim(skb, pkt->hdr_len + pkt->payload_len + pkt->pad +
		      ROCE_ICRC_BYTES))
		return -EINVAL;
	if (pkt->dqpn != qp->qpn || !vdr_recv_type_ok(qp, pkt))
		return -EINVAL;
	/* Packets are processed only from RTR on; before, they are lost. */
	if (qp->state < VIRTIO_RDMA_QPS_RTR ||
	    qp->state == VIRTIO_RDMA_QPS_ERR)
		return -EINVAL;
	if (!vdr_qp_is_ud(qp) && !vdr_recv_from_peer(qp, skb))
		return -EINVAL;
	/* From RTR on, the path MTU is known. */
	if (VDR_SKB_CB(skb)->same_host && vdr_skb_npsn(skb) > 1 &&
	    vdr_recv_seg_check(qp, pkt, vdr_skb_npsn(skb)))
		return -EINVAL;
	return 0;
}

/*
 * Whether the packet at the head of the queue must wait: while a READ is
 * being answered, the responder takes no new request (PSN order), but
 * responses for the requester go on.
 */
bool vdr_recv_must_wait(struct vdr_xqp *x, struct sk_buff *skb)
{
	const struct roce_opcode_info *info;
	u8 raw, *op;

	if (!x->rd_active)
		return false;
	op = skb_header_pointer(skb, sizeof(struct udphdr), 1, &raw);
	info = op ? vdr_roce_opcode(*op) : NULL;
	return info && !(info->flags & ROCE_OPF_RESP);
}

/**
 * vdr_recv_process - execute a budget of the QP's received packets
 * @dev: the device
 * @qp: the QP; its work runs, under qp->lock
 * @budget: packets this run may still take; one per packet taken
 *
 * Return: true when packets are left that can be processed now.
 */
bool vdr_recv_process(struct vdr_dev *dev, struct vdr_qp *qp, u32 *budget)
{
	struct vdr_xqp *x = qp->xqp;
	struct roce_pkt pkt;
	struct sk_buff *skb;
	int err;

	for (; *budget; (*budget)--) {
		skb = vdr_xqp_rx_dequeue(x);
		if (!skb)
			return false;
		err = vdr_recv_parse(dev, qp, skb, &pkt);
		if (!err && (pkt.info->flags & ROCE_OPF_RESP))
			vdr_comp_packet(dev, qp, &pkt, vdr_skb_npsn(skb));
		else if (!err)
			vdr_resp_packet(dev, qp, skb, &pkt);
		else if (err == -EINVAL)
			vdr_stat_inc(dev, VIRTIO_RDMA_STAT_RX_DROPPED);
		kfree_skb(skb);
	}
	return !skb_queue_empty_lockless(&x->rxq);
}
