// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: memory windows (VIRTIO_RDMA_F_MW).
 *
 * A window is an rkey for a range of a registered MR, with its own remote
 * rights, that a BIND_MW work request moves, narrows or revokes without
 * registering anything.  Windows sit in the MRs' key table as objects of
 * kind VDR_MW_TYPE1/2; vdr_mem.c resolves an access through one.  The
 * rules are the IB specification's (spec "Memory windows"):
 * - type 1 windows are bound and unbound (length 0) by BIND_MW and stay
 *   allocated; no invalidation reaches them;
 * - type 2 windows (type 2B) start free, are bound once until LOCAL_INV,
 *   an incoming SEND_WITH_INV or DEALLOC_MW frees them, and only the QP
 *   that bound one can access it;
 * - the MR must be of the QP's PD, carry MW_BIND, contain the range, and
 *   allow local writes for a window that grants remote writes or atomics.
 * A window names its MR by key, not by pointer; the MR's count of bound
 * windows keeps DEREG_MR and replacement off while there are any, so the
 * key resolves to the same object for as long as the window is bound.
 */
#include <kunit/visibility.h>
#include <linux/random.h>

#include "vdpa_rdma.h"
#include "vdr_xport.h"

/* Rights a window may grant; local write means nothing to a window. */
#define VDR_MW_ACCESS	(VIRTIO_RDMA_ACCESS_LOCAL_WRITE | \
			 VIRTIO_RDMA_ACCESS_REMOTE_WRITE | \
			 VIRTIO_RDMA_ACCESS_REMOTE_READ | \
			 VIRTIO_RDMA_ACCESS_REMOTE_ATOMIC | \
			 VIRTIO_RDMA_ACCESS_ZERO_BASED)

/*
 * Unbinds a bound window.  Caller holds rcu_read_lock() and w->lock.  The
 * MR cannot have gone: its count of windows kept DEREG_MR away.
 */
static void vdr_mw_unbind_locked(struct vdr_dev *dev, struct vdr_mr *w)
{
	struct vdr_mr *mr;

	mr = vdr_key_lookup(dev, w->mw_mr_key);
	if (!WARN_ON_ONCE(!mr))
		atomic_dec(&mr->nr_mw);
	w->valid = false;
	w->access = 0;
	w->iova = 0;
	w->length = 0;
}

/* The bind rules for the MR; caller holds both locks. */
static bool vdr_mw_mr_ok(const struct vdr_mr *mr, const struct vdr_qp *qp,
			 u32 lkey, u32 access, u64 addr, u64 length)
{
	if (mr->dead || mr->key != lkey ||
	    !mr->valid || mr->pd != qp->pd)
		return false;
	if (!(mr->access & VIRTIO_RDMA_ACCESS_MW_BIND))
		return false;
	if ((access & (VIRTIO_RDMA_ACCESS_REMOTE_WRITE |
		       VIRTIO_RDMA_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & VIRTIO_RDMA_ACCESS_LOCAL_WRITE))
		return false;
	return addr >= mr->iova && addr - mr->iova <= mr->length &&
	       length <= mr->length - (addr - mr->iova);
}

/* The bind rules for the window and the QP; caller holds w->lock. */
static bool vdr_mw_bind_ok(const struct vdr_mr *w, const struct vdr_qp *qp,
			   u32 access, u64 length)
{
	if (!vdr_key_is_mw(w->kind) || w->dead || w->pd != qp->pd)
		return false;
	if (w->kind == VDR_MW_TYPE1)
		return !(access & VIRTIO_RDMA_ACCESS_ZERO_BASED);
	/* Type 2: free, and a bind never frees it (length 0). */
	return !w->valid && length;
}

/**
 * vdr_mw_bind - execute a BIND_MW work request
 * @dev: the device
 * @qp: the QP it was posted on
 * @wr: the bind_mw part of the WQE (private copy)
 *
 * Return: 0, or -EINVAL when a rule forbids the bind (the WQE completes
 * with MW_BIND_ERR and the window is as it was).
 */
int vdr_mw_bind(struct vdr_dev *dev, const struct vdr_qp *qp,
		const struct virtio_rdma_wqe_bind_mw *wr)
{
	u32 rkey = le32_to_cpu(wr->rkey);
	u32 lkey = le32_to_cpu(wr->mr_lkey);
	u32 access = le32_to_cpu(wr->access_flags);
	u64 addr = le64_to_cpu(wr->addr);
	u64 length = le64_to_cpu(wr->length);
	struct vdr_mr *w, *mr = NULL;
	int ret = -EINVAL;

	if (access & ~VDR_MW_ACCESS)
		return -EINVAL;
	if ((access & VIRTIO_RDMA_ACCESS_REMOTE_ATOMIC) &&
	    !vdr_has_feature(dev, VIRTIO_RDMA_F_ATOMIC))
		return -EINVAL;
	if (length && addr + length - 1 < addr)
		return -EINVAL;

	rcu_read_lock();
	w = vdr_key_lookup(dev, rkey);
	if (!w)
		goto out;
	write_lock(&w->lock);
	if (!vdr_mw_bind_ok(w, qp, access, length))
		goto unlock_w;
	if (length) {
		mr = vdr_key_lookup(dev, lkey);
		/* The kind never changes: checked before taking a second lock. */
		if (!mr || vdr_key_is_mw(mr->kind) || mr->kind == VDR_MKEY)
			goto unlock_w;
		/*
		 * Windows before MRs, as for accesses (vdr_mem.c).  Shared:
		 * DEREG_MR and replacement read the count exclusive.
		 */
		read_lock(&mr->lock);
		if (!vdr_mw_mr_ok(mr, qp, lkey, access, addr, length)) {
			read_unlock(&mr->lock);
			goto unlock_w;
		}
		/* Under the MR's lock: DEREG_MR sees it (vdr_mr.c). */
		atomic_inc(&mr->nr_mw);
		read_unlock(&mr->lock);
	}
	if (w->valid)
		vdr_mw_unbind_locked(dev, w);
	w->key = rkey;
	if (length) {
		w->valid = true;
		w->access = access & ~VIRTIO_RDMA_ACCESS_ZERO_BASED;
		w->iova = access & VIRTIO_RDMA_ACCESS_ZERO_BASED ? 0 : addr;
		w->length = length;
		w->mw_mr_key = lkey;
		w->mw_mr_addr = addr;
		w->mw_qp_serial = qp->serial;
	}
	ret = 0;
unlock_w:
	write_unlock(&w->lock);
out:
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_mw_bind);

/**
 * vdr_mw_invalidate_locked - LOCAL_INV or SEND_WITH_INV naming a window
 * @dev: the device
 * @w: the window, locked, under rcu_read_lock()
 * @pd: the QP's PD
 * @rqp: for SEND_WITH_INV the QP it arrived on, else NULL
 * @key: the key to invalidate (untrusted)
 *
 * Only a bound type 2 window is invalidated, and from the remote side only
 * through the QP that may access it.
 *
 * Return: 0 or -EINVAL.
 */
int vdr_mw_invalidate_locked(struct vdr_dev *dev, struct vdr_mr *w,
			     struct vdr_pd *pd, const struct vdr_qp *rqp,
			     u32 key)
{
	if (w->dead || w->kind != VDR_MW_TYPE2 || w->key != key ||
	    w->pd != pd || !w->valid)
		return -EINVAL;
	if (rqp && rqp->serial != w->mw_qp_serial)
		return -EINVAL;
	vdr_mw_unbind_locked(dev, w);
	return 0;
}

int vdr_cmd_alloc_mw(struct vdr_dev *dev)
{
	const struct virtio_rdma_alloc_mw_req *req = &dev->req.alloc_mw;
	struct virtio_rdma_alloc_mw_resp *r = &dev->resp.alloc_mw;
	enum vdr_mr_kind kind;
	struct vdr_mr *w;
	int status;

	if (!vdr_has_feature(dev, VIRTIO_RDMA_F_MW))
		return VIRTIO_RDMA_STATUS_OPNOTSUPP;
	if (req->type == VIRTIO_RDMA_MW_TYPE_1)
		kind = VDR_MW_TYPE1;
	else if (req->type == VIRTIO_RDMA_MW_TYPE_2)
		kind = VDR_MW_TYPE2;
	else
		return VIRTIO_RDMA_STATUS_INVAL;
	if (memchr_inv(req->reserved, 0, sizeof(req->reserved)))
		return VIRTIO_RDMA_STATUS_INVAL;
	w = vdr_key_alloc(dev, le32_to_cpu(req->pd_handle), kind, &status);
	if (!w)
		return status;
	vdr_key_publish(dev, w, get_random_u8());
	r->mw_handle = cpu_to_le32(w->index);
	r->rkey = cpu_to_le32(w->key);
	return VIRTIO_RDMA_STATUS_OK;
}

/* A bound window is unbound first: its MR may then be deregistered. */
int vdr_cmd_dealloc_mw(struct vdr_dev *dev)
{
	u32 index = le32_to_cpu(dev->req.dealloc_mw.mw_handle);
	struct vdr_mr *w;

	if (!vdr_has_feature(dev, VIRTIO_RDMA_F_MW))
		return VIRTIO_RDMA_STATUS_OPNOTSUPP;
	w = xa_load(&dev->mrs, index);
	if (!w || !vdr_key_is_mw(w->kind))
		return VIRTIO_RDMA_STATUS_NOENT;
	vdr_key_unpublish(dev, w);
	rcu_read_lock();
	write_lock(&w->lock);
	if (w->valid)
		vdr_mw_unbind_locked(dev, w);
	vdr_key_kill_locked(w);
	rcu_read_unlock();
	return VIRTIO_RDMA_STATUS_OK;
}
