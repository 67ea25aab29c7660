// SPDX-License-Identifier: GPL-2.0
/*
 * vdpa_rdma: the worker's side of packet reception.
 *
 * encap_rcv (net.c) only queues packets to the device and wakes its
 * worker; here, in process context under dev->lock, each packet is checked
 * and handed to the QP its BTH names.  The transport engine (requester,
 * responder, completer) is not in place yet: until it is, packets are
 * counted as dropped, so nothing accumulates in the queue.
 */
#include "vdpa_rdma.h"
#include "xport.h"

#define VRDMA_RX_BUDGET		64

/* Returns true when the budget ran out with packets possibly left. */
bool vrdma_rx_process(struct vrdma_dev *dev)
{
	struct sk_buff *skb;
	int i;

	lockdep_assert_held(&dev->lock);

	if (!dev->xdev)
		return false;
	for (i = 0; i < VRDMA_RX_BUDGET; i++) {
		skb = vrdma_net_rx_dequeue(dev);
		if (!skb)
			return false;
		vrdma_stat_inc(dev, VIRTIO_RDMA_STAT_RX_DROPPED);
		kfree_skb(skb);
	}
	return true;
}
