// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: the worker's side of packet reception.
 *
 * encap_rcv (vdr_net.c) only queues packets to the device and wakes its
 * worker; here, in process context under dev->lock, each packet's ICRC is
 * checked, its headers are parsed and it is queued to the QP its BTH
 * names, which is then run by the worker (vdr_xqp.c).
 */
#include <linux/ip.h>

#include "roce.h"
#include "vdpa_rdma.h"
#include "vdr_xport.h"

#define VDR_QP_RXQ_MIN	2048U

#define VDR_RX_BUDGET		64

static bool vdr_rx_one(struct vdr_dev *dev, struct sk_buff *skb)
{
	int ipver = skb->protocol == htons(ETH_P_IP) ? 4 : 6;
	u8 *nh = skb_network_header(skb);
	struct roce_pkt pkt;
	struct vdr_qp *qp;

	if (vdr_roce_icrc_check(nh, skb_tail_pointer(skb) - nh, ipver)) {
		vdr_stat_inc(dev, VIRTIO_RDMA_STAT_ICRC_ERRORS);
		return false;
	}
	if (vdr_roce_parse(skb->data, skb->len, &pkt))
		goto drop;
	/* Trim link-layer padding: data is BTH .. ICRC from now on. */
	if (pskb_trim(skb, pkt.hdr_len + pkt.payload_len + pkt.pad +
		      ROCE_ICRC_BYTES))
		goto drop;
	qp = xa_load(&dev->qps, pkt.dqpn);
	if (!qp || !qp->xqp)
		goto drop;
	switch (qp->type) {
	case VIRTIO_RDMA_QPT_RC:
		if ((pkt.opcode & ROCE_OPC_TRANSPORT_MASK) != ROCE_OPC_RC)
			goto drop;
		break;
	case VIRTIO_RDMA_QPT_UC:
		if ((pkt.opcode & ROCE_OPC_TRANSPORT_MASK) != ROCE_OPC_UC)
			goto drop;
		break;
	default:
		if ((pkt.opcode & ROCE_OPC_TRANSPORT_MASK) != ROCE_OPC_UD)
			goto drop;
		break;
	}
	/* Packets are processed only from RTR on; before, they are lost. */
	if (qp->state < VIRTIO_RDMA_QPS_RTR ||
	    qp->state == VIRTIO_RDMA_QPS_ERR)
		goto drop;
	/*
	 * A READ answers with up to 2^31 bytes at once: room for a 1 MiB
	 * READ at the smallest MTU, or responses are lost to our own queue.
	 */
	if (skb_queue_len(&qp->xqp->rxq) >=
	    max(qp->rq.depth + qp->sq.depth + 64, VDR_QP_RXQ_MIN))
		goto drop;
	skb_queue_tail(&qp->xqp->rxq, skb);
	vdr_xqp_kick(dev, qp);
	return true;
drop:
	vdr_stat_inc(dev, VIRTIO_RDMA_STAT_RX_DROPPED);
	return false;
}

/* Returns true when the budget ran out with packets possibly left. */
bool vdr_rx_process(struct vdr_dev *dev)
{
	struct sk_buff *skb;
	bool more = false;
	int i;

	lockdep_assert_held(&dev->lock);

	if (!dev->xdev)
		return false;
	for (i = 0; i < VDR_RX_BUDGET; i++) {
		skb = vdr_net_rx_dequeue(dev);
		if (!skb)
			break;
		if (!vdr_rx_one(dev, skb))
			kfree_skb(skb);
	}
	if (i == VDR_RX_BUDGET)
		more = true;
	more |= vdr_xqp_run_pending(dev);
	return more;
}

/* Device reset: received packets of the old incarnation are dropped. */
void vdr_rx_purge(struct vdr_dev *dev)
{
	if (dev->xdev)
		skb_queue_purge(&dev->xdev->rxq);
}
