// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: indirect memory keys (VIRTIO_RDMA_F_INDIRECT_MKEY).
 *
 * An indirect memory key is an lkey and rkey for a zero-based, virtually
 * contiguous address space made of chunks of registered MRs of its PD: a
 * list of chunks, or an interleaved layout (entries of bytes_count bytes
 * followed by bytes_skip bytes not used, the whole repeated repeat_count
 * times).  CREATE_MKEY makes one without a layout; an MKEY_CONFIGURE work
 * request sets its rights and its layout in SQ order, so that later work
 * requests on that SQ use it at once; LOCAL_INV clears both.  The key
 * names its MRs by key: vdr_mem.c looks each one up and checks it at every
 * access, so a deregistered or invalidated MR is simply out of reach.
 */
#include <kunit/visibility.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "vdpa_rdma.h"
#include "vdr_xport.h"

#define VDR_MKEY_ACCESS	(VIRTIO_RDMA_ACCESS_LOCAL_WRITE | \
			 VIRTIO_RDMA_ACCESS_REMOTE_WRITE | \
			 VIRTIO_RDMA_ACCESS_REMOTE_READ | \
			 VIRTIO_RDMA_ACCESS_REMOTE_ATOMIC)

int vdr_cmd_create_mkey(struct vdr_dev *dev)
{
	const struct virtio_rdma_create_mkey_req *req = &dev->req.create_mkey;
	struct virtio_rdma_mr_resp *r = &dev->resp.mr;
	u32 max = le32_to_cpu(req->max_entries);
	struct vdr_mkey_entry *entries;
	struct vdr_mr *mk;
	int status;

	if (!vdr_has_feature(dev, VIRTIO_RDMA_F_INDIRECT_MKEY))
		return VIRTIO_RDMA_STATUS_OPNOTSUPP;
	if (!max || max > VDR_MAX_MKEY_ENTRIES)
		return VIRTIO_RDMA_STATUS_INVAL;
	/* CONFIGURE fills them in place, under the key's lock. */
	entries = kcalloc(max, sizeof(*entries), GFP_KERNEL_ACCOUNT);
	if (!entries)
		return VIRTIO_RDMA_STATUS_NOMEM;
	mk = vdr_key_alloc(dev, le32_to_cpu(req->pd_handle), VDR_MKEY,
			   &status);
	if (!mk) {
		kfree(entries);
		return status;
	}
	mk->entries = entries;
	mk->max_entries = max;
	vdr_key_publish(dev, mk, get_random_u8());
	r->mr_handle = cpu_to_le32(mk->index);
	r->lkey = cpu_to_le32(mk->key);
	r->rkey = cpu_to_le32(mk->key);
	return VIRTIO_RDMA_STATUS_OK;
}

/* LOCAL_INV: no rights, no layout. Caller holds mk->lock. */
void vdr_mkey_clear_locked(struct vdr_mr *mk)
{
	mk->valid = false;
	mk->access = 0;
	mk->nr_entries = 0;
	mk->repeat = 0;
	mk->unit = 0;
	mk->length = 0;
}

/*
 * Reads and checks a layout from the WQE into @out, with its unit (bytes
 * per repetition).  Every entry must name a valid MR (not a window nor an
 * indirect key) of @pd that holds all its repetitions; the whole layout
 * may not exceed the largest MR.
 */
static int vdr_mkey_layout(struct vdr_dev *dev, struct vdr_pd *pd,
			   const struct virtio_rdma_mkey_entry *in, u32 n,
			   u32 repeat, struct vdr_mkey_entry *out, u64 *unit)
{
	struct vdr_mr *mr;
	u64 span, total = 0;
	bool is_mr;
	u32 i;

	if (!n || !repeat)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		out[i].addr = le64_to_cpu(in[i].addr);
		out[i].count = le32_to_cpu(in[i].bytes_count);
		out[i].skip = le32_to_cpu(in[i].bytes_skip);
		out[i].lkey = le32_to_cpu(in[i].lkey);
		if (!out[i].count ||
		    memchr_inv(in[i].reserved, 0, sizeof(in[i].reserved)))
			return -EINVAL;
		total += out[i].count;
		/* The last repetition's chunk ends (repeat - 1) strides on. */
		if (check_mul_overflow((u64)repeat - 1,
				       (u64)out[i].count + out[i].skip,
				       &span) ||
		    check_add_overflow(span, (u64)out[i].count, &span))
			return -EINVAL;
		rcu_read_lock();
		mr = vdr_key_lookup(dev, out[i].lkey);
		is_mr = mr && mr->kind != VDR_MKEY && !vdr_key_is_mw(mr->kind);
		rcu_read_unlock();
		if (!is_mr || vdr_mr_check(dev, pd, NULL, out[i].lkey, 0,
					   out[i].addr, span))
			return -EINVAL;
	}
	if (check_mul_overflow(total, (u64)repeat, &span) ||
	    span > VDR_MAX_MR_SIZE)
		return -EINVAL;
	*unit = total;
	return 0;
}

/**
 * vdr_mkey_configure - execute an MKEY_CONFIGURE work request
 * @dev: the device
 * @qp: the QP it was posted on
 * @wr: the mkey part of the WQE (private copy)
 * @sge: the WQE's SGE area (private copy)
 * @num_sge: SGE slots in it
 *
 * The rights and the layout change together, under the key's lock: an
 * access sees the configuration before or after, never a mix.
 *
 * Return: 0, or -EINVAL (the WQE completes with LOC_QP_OP_ERR and the key
 * is as it was).
 */
int vdr_mkey_configure(struct vdr_dev *dev, const struct vdr_qp *qp,
		       const struct virtio_rdma_wqe_mkey *wr,
		       const struct virtio_rdma_sge *sge, u32 num_sge)
{
	struct vdr_mkey_entry layout[VDR_MAX_MKEY_ENTRIES];
	u32 access = le32_to_cpu(wr->access_flags);
	u32 repeat = le32_to_cpu(wr->repeat_count);
	u32 n = le16_to_cpu(wr->num_entries);
	u32 key = le32_to_cpu(wr->key);
	struct vdr_mr *mk;
	u64 unit = 0;
	int ret;

	static_assert(sizeof(struct virtio_rdma_mkey_entry) ==
		      2 * sizeof(struct virtio_rdma_sge));
	if (wr->flags & ~(VIRTIO_RDMA_MKEY_F_ACCESS |
			  VIRTIO_RDMA_MKEY_F_LAYOUT))
		return -EINVAL;
	if (access & ~VDR_MKEY_ACCESS)
		return -EINVAL;
	if (access && !(wr->flags & VIRTIO_RDMA_MKEY_F_ACCESS))
		return -EINVAL;
	if ((access & VIRTIO_RDMA_ACCESS_REMOTE_ATOMIC) &&
	    !vdr_has_feature(dev, VIRTIO_RDMA_F_ATOMIC))
		return -EINVAL;
	if (!(wr->flags & VIRTIO_RDMA_MKEY_F_LAYOUT)) {
		if (n || repeat || num_sge)
			return -EINVAL;
	} else {
		if (n > VDR_MAX_MKEY_ENTRIES || num_sge != 2 * n)
			return -EINVAL;
		ret = vdr_mkey_layout(dev, qp->pd,
				      (const struct virtio_rdma_mkey_entry *)sge,
				      n, repeat, layout, &unit);
		if (ret)
			return ret;
	}

	ret = -EINVAL;
	rcu_read_lock();
	mk = vdr_key_lookup(dev, key);
	if (!mk)
		goto out;
	write_lock(&mk->lock);
	if (mk->kind != VDR_MKEY || mk->dead || mk->key != key ||
	    mk->pd != qp->pd || n > mk->max_entries)
		goto unlock;
	if (wr->flags & VIRTIO_RDMA_MKEY_F_ACCESS)
		mk->access = access;
	if (wr->flags & VIRTIO_RDMA_MKEY_F_LAYOUT) {
		memcpy(mk->entries, layout, n * sizeof(*layout));
		mk->nr_entries = n;
		mk->repeat = repeat;
		mk->unit = unit;
		mk->iova = 0;
		mk->length = unit * repeat;
		mk->valid = true;
	}
	ret = 0;
unlock:
	write_unlock(&mk->lock);
out:
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_mkey_configure);
