// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma completion queues and the ring memory shared by SQ, RQ and
 * CQ (spec: "Rings").  The device produces CQEs into the ring and publishes
 * prod; the driver consumes them and publishes cons.  CQ arming is a word in
 * the ring (spec: "Completion queue arming"), so poll and arm never need a
 * control command.  Resizing (VIRTIO_RDMA_F_RESIZE) moves the CQ to a new
 * ring with the same free-running indices, see vrdma_resize_cq().  The
 * ring memory itself is vrdma_ring.c's.
 */

#include <linux/dma-mapping.h>
#include <linux/log2.h>

#include "vrdma.h"

void vrdma_ring_free(struct vrdma_dev *dev, struct vrdma_ring *ring)
{
	vrdma_wrids_free(ring);
	vrdma_ring_release(dev->dma_dev, ring);
}

static int vrdma_do_create_cq(struct ib_cq *ibcq,
			      const struct ib_cq_init_attr *attr,
			      struct ib_udata *udata)
{
	struct vrdma_dev *dev = to_vdev(ibcq->device);
	struct vrdma_cq *cq = to_vcq(ibcq);
	struct virtio_rdma_create_cq_resp resp;
	struct virtio_rdma_create_cq_req req = {};
	u32 depth;
	int err;

	if (udata) {
		err = vrdma_ucq_check(udata);
		if (err)
			return err;
	}
	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > dev->caps.max_cqe)
		return -EINVAL;

	/* The ring holds exactly depth CQEs: no slot is sacrificed. */
	depth = roundup_pow_of_two(attr->cqe);
	cq->eventq = attr->comp_vector % dev->npairs;
	spin_lock_init(&cq->lock);
	mutex_init(&cq->resize_lock);
	xa_init(&cq->qps);
	err = vrdma_ring_alloc(dev, &cq->ring, depth, VIRTIO_RDMA_CQE_SHIFT, !!udata);
	if (err)
		return err;

	req.ring_addr = cpu_to_le64(cq->ring.dma);
	req.ring_size = cpu_to_le64(cq->ring.size);
	req.depth = cpu_to_le32(depth);
	req.eventq = cpu_to_le32(cq->eventq);
	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_CREATE_CQ, &req, sizeof(req),
			&resp, sizeof(resp));
	if (err)
		goto err_ring;
	cq->handle = le32_to_cpu(resp.cq_handle);

	err = vrdma_check_handle(dev, "CQ", cq->handle, 1, U32_MAX);
	if (!err)
		err = xa_insert(&dev->cqs, cq->handle, cq, GFP_KERNEL);
	if (err) {
		struct virtio_rdma_destroy_cq_req dreq = {
			.cq_handle = resp.cq_handle,
		};

		if (vrdma_create_undo(dev, "CQ", cq->handle, err,
				      VIRTIO_RDMA_CMD_DESTROY_CQ, &dreq,
				      sizeof(dreq))) {
			vrdma_orphan_ring(dev, &cq->ring);
			return -EIO;
		}
		err = -EIO;
		goto err_ring;
	}
	ibcq->cqe = depth;
	if (udata) {
		err = vrdma_ucq_respond(dev, cq, udata);
		if (err) {
			vrdma_destroy_cq(ibcq, udata);
			return err;
		}
	}
	return 0;

err_ring:
	vrdma_ring_free(dev, &cq->ring);
	return err;
}

/* Kernel CQs come without a bundle (ib_alloc_cq). */
int vrdma_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct uverbs_attr_bundle *attrs)
{
	return vrdma_do_create_cq(ibcq, attr, attrs ? &attrs->driver_udata : NULL);
}

int vrdma_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct vrdma_dev *dev = to_vdev(ibcq->device);
	struct vrdma_cq *cq = to_vcq(ibcq);
	struct virtio_rdma_destroy_cq_req req = {
		.cq_handle = cpu_to_le32(cq->handle),
	};
	int err;

	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_DESTROY_CQ, &req, sizeof(req),
			NULL, 0);
	if (err && !READ_ONCE(dev->broken))
		return err;

	xa_erase(&dev->cqs, cq->handle);
	vrdma_eventqs_fence(dev);
	/* ib_core destroys a CQ only when no QP uses it. */
	WARN_ON(!xa_empty(&cq->qps));
	xa_destroy(&cq->qps);
	if (cq->ring_umap)
		vrdma_user_ring_release(&cq->ring, &cq->ring_umap, err);
	else if (err)
		vrdma_orphan_ring(dev, &cq->ring);	/* may still be written */
	else
		vrdma_ring_free(dev, &cq->ring);
	return 0;
}

/* An opcode virtio_rdma_wc_op_valid() rejects maps to SEND (with an error). */
static enum ib_wc_opcode vrdma_wc_opcode(u8 op)
{
	switch (op) {
	case VIRTIO_RDMA_WC_OP_RDMA_WRITE:
		return IB_WC_RDMA_WRITE;
	case VIRTIO_RDMA_WC_OP_RDMA_READ:
		return IB_WC_RDMA_READ;
	case VIRTIO_RDMA_WC_OP_COMP_SWAP:
		return IB_WC_COMP_SWAP;
	case VIRTIO_RDMA_WC_OP_FETCH_ADD:
		return IB_WC_FETCH_ADD;
	case VIRTIO_RDMA_WC_OP_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case VIRTIO_RDMA_WC_OP_BIND_MW:
		return IB_WC_BIND_MW;
	case VIRTIO_RDMA_WC_OP_REG_MR:
		/* Numbered differently before Linux 6.2: map, don't copy. */
		return IB_WC_REG_MR;
	case VIRTIO_RDMA_WC_OP_RECV:
		return IB_WC_RECV;
	case VIRTIO_RDMA_WC_OP_RECV_RDMA_WITH_IMM:
		return IB_WC_RECV_RDMA_WITH_IMM;
	default:
		return IB_WC_SEND;
	}
}

/* @w: what the consumer posted in the slot the CQE names (vrdma_wrid.c) */
static void vrdma_cqe_to_wc(struct vrdma_dev *dev, struct vrdma_cq *cq,
			    const struct virtio_rdma_cqe *cqe,
			    struct vrdma_qp *qp, const struct vrdma_wrid *w,
			    struct ib_wc *wc)
{
	u8 flags = cqe->flags;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = w->wr_id;
	wc->qp = &qp->ibqp;
	/* An unknown status or (successful) opcode is GENERAL_ERR. */
	wc->status = virtio_rdma_wc_status(cqe->status, cqe->opcode);
	if (wc->status != cqe->status)
		vrdma_dev_err(dev, "CQ %u: CQE of QP %u with status %u, opcode %u\n",
			      cq->handle, qp->handle, cqe->status,
			      cqe->opcode);
	wc->vendor_err = le32_to_cpu(cqe->vendor_err);
	wc->opcode = vrdma_wc_opcode(cqe->opcode);
	wc->port_num = VRDMA_PORT;
	/* Only wr_id, status, qp and vendor_err are valid on errors. */
	if (wc->status != IB_WC_SUCCESS)
		return;

	wc->byte_len = le32_to_cpu(cqe->byte_len);
	/*
	 * The device wrote more than the buffers hold, or says it did: the
	 * consumer must not read past them.  (RECV_RDMA_WITH_IMM counts the
	 * bytes the WRITE placed in the MR, not in the receive buffers.)
	 */
	if (wc->opcode == IB_WC_RECV && wc->byte_len > w->len) {
		vrdma_dev_err(dev, "CQ %u: QP %u received %u bytes into %u\n",
			      cq->handle, qp->handle, wc->byte_len, w->len);
		wc->status = IB_WC_LOC_LEN_ERR;
		wc->byte_len = 0;
		return;
	}
	wc->src_qp = le32_to_cpu(cqe->src_qp) & VIRTIO_RDMA_QPN_MASK;
	wc->pkey_index = le16_to_cpu(cqe->pkey_index);
	if (flags & VIRTIO_RDMA_WC_F_GRH)
		wc->wc_flags |= IB_WC_GRH;
	if (flags & VIRTIO_RDMA_WC_F_WITH_IMM) {
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = cqe->ex.imm_data;
	} else if (flags & VIRTIO_RDMA_WC_F_WITH_INV) {
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = le32_to_cpu(cqe->ex.invalidated_rkey);
	}
	if (flags & VIRTIO_RDMA_WC_F_WITH_SMAC) {
		wc->wc_flags |= IB_WC_WITH_SMAC;
		memcpy(wc->smac, cqe->smac, ETH_ALEN);
	}
	if ((flags & VIRTIO_RDMA_WC_F_WITH_VLAN) &&
	    le16_to_cpu(cqe->vlan_id) != VIRTIO_RDMA_VLAN_NONE) {
		wc->wc_flags |= IB_WC_WITH_VLAN;
		wc->vlan_id = le16_to_cpu(cqe->vlan_id);
	}
	if (flags & VIRTIO_RDMA_WC_F_WITH_NETWORK_HDR_TYPE) {
		if (cqe->network_hdr_type == VIRTIO_RDMA_NETWORK_IPV4) {
			wc->wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
			wc->network_hdr_type = RDMA_NETWORK_IPV4;
		} else if (cqe->network_hdr_type == VIRTIO_RDMA_NETWORK_IPV6) {
			wc->wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
			wc->network_hdr_type = RDMA_NETWORK_IPV6;
		}
	}
}

/*
 * Kernel QP @qp of an SRQ is being destroyed, and the device has written
 * its last CQEs: the receives it had taken from the SRQ (completed, or
 * flushed with it) wait unpolled in @cq's ring, where the poll now skips
 * them, @qp being no longer @cq's.  Their SRQ entries are given back here,
 * or the SRQ would lose one for each QP destroyed in the middle of a
 * message.  Under cq->lock; at most one ring's worth of CQEs.
 */
void vrdma_cq_srq_forget(struct vrdma_cq *cq, struct vrdma_qp *qp)
{
	struct vrdma_ring *ring = &cq->ring;
	const struct virtio_rdma_cqe *cqe;
	struct vrdma_wrid w;
	u32 prod, i;

	lockdep_assert_held(&cq->lock);
	/* Pairs with the device's release of prod, as in vrdma_poll_cq(). */
	prod = le32_to_cpu(virt_load_acquire(&vrdma_ring_ctl(ring)->prod));
	if (!virtio_rdma_ring_valid(prod, ring->head, ring->depth))
		return;	/* poll_cq says so; a ring of garbage gives nothing back */
	for (i = ring->head; i != prod; i++) {
		cqe = vrdma_ring_entry(ring, i);
		if (le32_to_cpu(cqe->qp_handle) == qp->handle)
			vrdma_wrid_take(qp, cqe, &w);
	}
}

int vrdma_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct vrdma_dev *dev = to_vdev(ibcq->device);
	struct vrdma_cq *cq = to_vcq(ibcq);
	struct vrdma_ring *ring = &cq->ring;
	struct virtio_rdma_ring_ctl *ctl;
	const struct virtio_rdma_cqe *cqe;
	struct vrdma_wrid w;
	struct vrdma_qp *qp;
	unsigned long flags;
	u32 prod, start;
	int n = 0;

	/* The process that owns a user CQ polls its ring itself. */
	if (cq->ring_umap)
		return -EINVAL;
	spin_lock_irqsave(&cq->lock, flags);
	/* Under the lock: a resize replaces the ring's memory. */
	ctl = vrdma_ring_ctl(ring);
	start = ring->head;
	/* Pairs with the device's release of prod after writing CQEs. */
	prod = le32_to_cpu(virt_load_acquire(&ctl->prod));
	if (unlikely(!virtio_rdma_ring_valid(prod, ring->head, ring->depth))) {
		ibdev_warn_ratelimited(&dev->ib,
				       "CQ %u: device index %u out of range\n",
				       cq->handle, prod);
		prod = ring->head;
	}
	while (n < num_entries && ring->head != prod) {
		cqe = vrdma_ring_entry(ring, ring->head);
		ring->head++;
		/*
		 * Flush CQEs of a QP destroyed meanwhile have no consumer left;
		 * destroy_qp leaves the table under this lock, see vrdma_qp.c.
		 * A QP of another CQ is the device's error: that QP's destroy
		 * would not wait for this poll.
		 */
		qp = xa_load(&cq->qps, le32_to_cpu(cqe->qp_handle));
		if (!qp) {
			if (xa_load(&dev->qps, le32_to_cpu(cqe->qp_handle)))
				vrdma_dev_err(dev, "CQ %u: CQE names QP %u of another CQ\n",
					      cq->handle,
					      le32_to_cpu(cqe->qp_handle));
			continue;
		}
		/* No slot of the QP's: no consumer's wr_id to give. */
		if (!vrdma_wrid_take(qp, cqe, &w)) {
			vrdma_dev_err(dev, "CQ %u: CQE of QP %u names no work request (%#llx)\n",
				      cq->handle, qp->handle,
				      le64_to_cpu(cqe->wr_id));
			continue;
		}
		vrdma_cqe_to_wc(dev, cq, cqe, qp, &w, &wc[n++]);
	}
	if (ring->head != start) {
		/*
		 * During a resize, the new ring's cons first: the device reads
		 * the old one's and must never find the new one behind it.
		 */
		if (cq->resizing) {
			/* Release: the slots below it are read, as below. */
			virt_store_release(&vrdma_ring_ctl(&cq->next)->cons,
					   cpu_to_le32(ring->head));
		}
		/* The device may reuse the slots only after we have read them. */
		virt_store_release(&ctl->cons, cpu_to_le32(ring->head));
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int vrdma_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct vrdma_cq *cq = to_vcq(ibcq);
	struct vrdma_ring *ring = &cq->ring;
	struct virtio_rdma_ring_ctl *ctl;
	unsigned long irqflags;
	u32 arm;
	int ret = 0;

	if (cq->ring_umap)
		return -EINVAL;
	spin_lock_irqsave(&cq->lock, irqflags);
	/* Under the lock: a resize replaces the ring's memory. */
	ctl = vrdma_ring_ctl(ring);
	/* A new sequence number keeps the device from clearing this arm. */
	cq->arm_sn = (cq->arm_sn + 1) & VIRTIO_RDMA_CQ_ARM_SN_MASK;
	arm = VIRTIO_RDMA_CQ_ARM_ARMED | cq->arm_sn;
	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED)
		arm |= VIRTIO_RDMA_CQ_ARM_SOLICITED;
	/* During a resize the CQE that answers may go to either ring. */
	if (cq->resizing)
		WRITE_ONCE(vrdma_ring_ctl(&cq->next)->notify, cpu_to_le32(arm));
	WRITE_ONCE(ctl->notify, cpu_to_le32(arm));
	/* Dekker: store arm, full barrier, load prod; the device mirrors it. */
	virt_mb();
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    le32_to_cpu(READ_ONCE(ctl->prod)) != ring->head)
		ret = 1;
	/*
	 * The new ring's prod is 0 until the device switches, so only a
	 * prod ahead of our head means CQEs there.
	 */
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && cq->resizing &&
	    (s32)(le32_to_cpu(READ_ONCE(vrdma_ring_ctl(&cq->next)->prod)) -
		  ring->head) > 0)
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

const struct ib_device_ops vrdma_resize_ops = {
	.resize_cq = vrdma_resize_cq,
};

/* Gives up a new ring the device may still use (RESIZE_CQ timed out). */
static void vrdma_resize_abandon(struct vrdma_dev *dev, struct vrdma_ring *ring,
				 struct rdma_user_mmap_entry **umap, bool busy)
{
	if (*umap)
		vrdma_user_ring_release(ring, umap, busy);
	else if (busy)
		vrdma_orphan_ring(dev, ring);
	else
		vrdma_ring_free(dev, ring);
}

/**
 * vrdma_resize_cq - move a CQ to a ring of another depth
 * @ibcq: the CQ
 * @cqe: the number of CQEs it must hold; rounded up to a power of two
 * @udata: the provider's request and response, NULL for a kernel CQ
 *
 * The device copies the CQEs not yet consumed to their indices in the new
 * ring and refuses (-EINVAL) a depth below their number (spec
 * "RESIZE_CQ").  A kernel CQ stays usable meanwhile: poll_cq consumes from
 * the old ring, whose prod stops at the switch, and stores cons and arm
 * words to both rings.  The provider holds its CQ lock across the system
 * call instead, so for a user CQ the old ring's words are final here.
 *
 * Return: 0 with @ibcq->cqe the new depth, or a negative errno with the CQ
 * unchanged.
 */
int vrdma_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct vrdma_dev *dev = to_vdev(ibcq->device);
	struct vrdma_cq *cq = to_vcq(ibcq);
	struct virtio_rdma_resize_cq_req req = {};
	struct rdma_user_mmap_entry *umap = NULL;
	struct virtio_rdma_ring_ctl *nctl, *octl;
	struct vrdma_ring ring = {}, old;
	unsigned long flags;
	u32 depth;
	int err;

	/* A user CQ's ring is the provider's to poll, a kernel CQ's ours. */
	if (!udata != !cq->ring_umap)
		return -EINVAL;
	if (udata) {
		err = vrdma_ucq_resize_check(udata);
		if (err)
			return err;
	}
	if (cqe < 1 || cqe > dev->caps.max_cqe)
		return -EINVAL;
	depth = roundup_pow_of_two(cqe);

	mutex_lock(&cq->resize_lock);
	err = vrdma_ring_alloc(dev, &ring, depth, VIRTIO_RDMA_CQE_SHIFT, !!udata);
	if (err)
		goto unlock;
	/*
	 * A user CQ's mmap entry exists before the device switches: once it
	 * has, nothing may fail that would leave the provider without the
	 * new ring's key.
	 */
	if (udata) {
		err = vrdma_ucq_resize_ring(dev, udata, &ring, &umap);
		if (err) {
			vrdma_ring_free(dev, &ring);
			goto unlock;
		}
	}

	/* The driver's words go into the new ring before the device reads it. */
	nctl = vrdma_ring_ctl(&ring);
	spin_lock_irqsave(&cq->lock, flags);
	octl = vrdma_ring_ctl(&cq->ring);
	WRITE_ONCE(nctl->cons, udata ? READ_ONCE(octl->cons) :
				       cpu_to_le32(cq->ring.head));
	WRITE_ONCE(nctl->notify, READ_ONCE(octl->notify));
	if (!udata) {
		cq->next = ring;
		cq->resizing = true;
	}
	spin_unlock_irqrestore(&cq->lock, flags);

	req.cq_handle = cpu_to_le32(cq->handle);
	req.depth = cpu_to_le32(depth);
	req.ring_addr = cpu_to_le64(ring.dma);
	req.ring_size = cpu_to_le64(ring.size);
	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_RESIZE_CQ, &req, sizeof(req),
			NULL, 0);

	spin_lock_irqsave(&cq->lock, flags);
	cq->resizing = false;
	memset(&cq->next, 0, sizeof(cq->next));
	old = cq->ring;
	if (!err) {
		/* Free-running indices: our head is valid in the new ring. */
		ring.head = old.head;
		cq->ring = ring;
	}
	spin_unlock_irqrestore(&cq->lock, flags);

	if (err) {
		/* Without an answer the device may have switched, or not yet. */
		vrdma_resize_abandon(dev, &ring, &umap, READ_ONCE(dev->broken));
		goto unlock;
	}
	/* The command completed: the device no longer accesses the old ring. */
	if (cq->ring_umap) {
		vrdma_user_ring_release(&old, &cq->ring_umap, false);
		cq->ring_umap = umap;
	} else {
		vrdma_ring_free(dev, &old);
	}
	ibcq->cqe = depth;
	if (udata)
		err = vrdma_ucq_resize_respond(cq, udata);
unlock:
	mutex_unlock(&cq->resize_lock);
	return err;
}
