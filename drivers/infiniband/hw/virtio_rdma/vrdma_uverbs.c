// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma user-space verbs: the udata ABI of
 * include/uapi/rdma/virtio_rdma-abi.h and the mapping of CQ, SQ and RQ rings
 * into the process that owns them.
 *
 * The kernel allocates every ring (vrdma_ring.c, as for kernel objects, but
 * charged to the task's memory cgroup) and hands it to an mmap entry, which
 * owns it from then on.  Nothing is freed before the object is destroyed
 * and the last mapping of the ring is gone: a contiguous ring is freed in
 * mmap_free, which its mappings hold off; each page of a page ring is
 * referenced by the mappings themselves.  User space writes WQEs and ring
 * indices; it never supplies a DMA address, and the device validates
 * everything it reads from a ring.
 */

#include <linux/mm.h>

#include <rdma/uverbs_ioctl.h>
#include <rdma/virtio_rdma-abi.h>

#include "vrdma.h"

struct vrdma_umap {
	struct rdma_user_mmap_entry rdma_entry;
	struct device *dma_dev;
	struct vrdma_ring ring;
	/* The device may still write the ring (destroy failed): never free. */
	bool leak;
};

static struct vrdma_umap *to_vumap(struct rdma_user_mmap_entry *e)
{
	return container_of(e, struct vrdma_umap, rdma_entry);
}

/*
 * Copies a request of @len bytes: shorter ones are zero-extended, longer
 * ones must be zero beyond what this driver knows.
 */
static int vrdma_udata_req(struct ib_udata *udata, void *req, size_t len)
{
	memset(req, 0, len);
	if (!udata->inlen)
		return 0;
	if (udata->inlen > len &&
	    !ib_is_udata_cleared(udata, len, udata->inlen - len))
		return -EINVAL;
	return ib_copy_from_udata(req, udata, min(len, udata->inlen));
}

/* Writes as much of the response as the caller has room for. */
static int vrdma_udata_resp(struct ib_udata *udata, void *resp,
			    size_t len)
{
	return ib_copy_to_udata(udata, resp, min(len, udata->outlen));
}

int vrdma_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata)
{
	struct vrdma_dev *dev = to_vdev(uctx->device);
	const struct vrdma_caps *c = &dev->caps;
	struct virtio_rdma_uverbs_alloc_ucontext_resp resp = {};
	struct virtio_rdma_uverbs_alloc_ucontext_req req;
	int err;

	err = vrdma_udata_req(udata, &req, sizeof(req));
	if (err)
		return err;
	if (req.comp_mask || req.reserved)
		return -EINVAL;

	resp.abi_version = VIRTIO_RDMA_UVERBS_ABI_VERSION;
	resp.max_qp_wr = c->max_qp_wr;
	resp.max_cqe = c->max_cqe;
	resp.max_send_sge = c->max_send_sge;
	resp.max_recv_sge = c->max_recv_sge;
	resp.max_inline_data = c->max_inline_data;
	resp.max_sq_wqe_shift = c->max_sq_wqe_shift;
	resp.max_rq_wqe_shift = c->max_rq_wqe_shift;
	resp.cqe_shift = VIRTIO_RDMA_CQE_SHIFT;
	resp.atomic = dev->atomic;
	resp.page_size = PAGE_SIZE;
	return vrdma_udata_resp(udata, &resp, sizeof(resp));
}

void vrdma_dealloc_ucontext(struct ib_ucontext *uctx)
{
}

/*
 * The device goes away (deleted, driver unloaded, netdev gone) while
 * processes still have it open.  Without this op ib_core would wait for
 * each of them to close it, and a process spinning on its CQ never does:
 * the removal would hang with it.  With it, ib_core tells each process
 * (IB_EVENT_DEVICE_FATAL, EIO from every later command), destroys its
 * objects through the ordinary destroy paths while the device still runs,
 * and zaps the rdma_user_mmap_io() mappings of contiguous rings.  Page
 * rings (vrdma_ring.c) are mapped with vm_insert_pages(), which ib_core
 * does not track: they stay mapped, each page held by its mapping, so the
 * process keeps memory that the device no longer touches until it unmaps
 * it.  Either way no ring is freed while a process can reach it, and
 * nothing is left for the driver to do here.
 */
void vrdma_disassociate_ucontext(struct ib_ucontext *uctx)
{
}

/*
 * ibv_import_device on a shared command fd: nothing driver-specific to
 * report, the rings of each object come with its own creation.
 */
int vrdma_query_ucontext(struct ib_ucontext *uctx,
			 struct uverbs_attr_bundle *attrs)
{
	return 0;
}

/* Gives @ring's memory to a new mmap entry of @uctx. */
static int vrdma_ring_to_user(struct vrdma_dev *dev, struct ib_ucontext *uctx,
			      struct vrdma_ring *ring,
			      struct rdma_user_mmap_entry **out, u64 *key)
{
	struct vrdma_umap *m;
	int err;

	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m)
		return -ENOMEM;
	m->dma_dev = dev->dma_dev;
	m->ring = *ring;
	err = rdma_user_mmap_entry_insert(uctx, &m->rdma_entry, ring->size);
	if (err) {
		kfree(m);
		return err;
	}
	*out = &m->rdma_entry;
	*key = rdma_user_mmap_get_offset(&m->rdma_entry);
	return 0;
}

/*
 * Drops the object's hold on a user ring.  The memory goes when the last
 * mapping does; with @busy (the device could not be told to stop) never.
 */
void vrdma_user_ring_release(struct vrdma_ring *ring,
			     struct rdma_user_mmap_entry **entry, bool busy)
{
	if (!*entry)
		return;
	to_vumap(*entry)->leak = busy;
	rdma_user_mmap_entry_remove(*entry);
	*entry = NULL;
	ring->buf = NULL;
	ring->pages = NULL;
}

int vrdma_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *e;
	struct vrdma_umap *m;
	int err;

	/* Checks the offset and that the length is the entry's. */
	e = rdma_user_mmap_entry_get(uctx, vma);
	if (!e)
		return -EINVAL;
	m = to_vumap(e);
	/*
	 * Page rings: each mapped page holds a reference of its own, the
	 * entry may go first (vrdma_ring.c).
	 */
	if (m->ring.pages) {
		err = vrdma_ring_mmap(&m->ring, vma);
		goto out;
	}
	/* Coherent memory of a direct-mapped device: plain RAM, cacheable. */
	if (!virt_addr_valid(m->ring.buf)) {
		err = -EOPNOTSUPP;
		goto out;
	}
	/* The vma holds a reference on the entry until it is unmapped. */
	err = rdma_user_mmap_io(uctx, vma,
				page_to_pfn(virt_to_page(m->ring.buf)),
				m->ring.size, vma->vm_page_prot, e);
out:
	rdma_user_mmap_entry_put(e);
	return err;
}

void vrdma_mmap_free(struct rdma_user_mmap_entry *e)
{
	struct vrdma_umap *m = to_vumap(e);

	if (!m->leak)
		vrdma_ring_release(m->dma_dev, &m->ring);
	kfree(m);
}

int vrdma_ucq_check(struct ib_udata *udata)
{
	struct virtio_rdma_uverbs_create_cq_req req;
	int err;

	err = vrdma_udata_req(udata, &req, sizeof(req));
	if (err)
		return err;
	if (req.comp_mask || req.reserved)
		return -EINVAL;
	if (udata->outlen < sizeof(struct virtio_rdma_uverbs_create_cq_resp))
		return -EINVAL;
	return 0;
}

int vrdma_ucq_respond(struct vrdma_dev *dev, struct vrdma_cq *cq,
		      struct ib_udata *udata)
{
	struct vrdma_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct vrdma_ucontext, ibuc);
	struct virtio_rdma_uverbs_create_cq_resp resp = {};
	u64 key;
	int err;

	err = vrdma_ring_to_user(dev, &uctx->ibuc, &cq->ring, &cq->ring_umap, &key);
	if (err)
		return err;
	resp.cq_handle = cq->handle;
	resp.depth = cq->ring.depth;
	resp.ring_mmap_key = key;
	resp.ring_size = cq->ring.size;
	return vrdma_udata_resp(udata, &resp, sizeof(resp));
}

int vrdma_ucq_resize_check(struct ib_udata *udata)
{
	struct virtio_rdma_uverbs_resize_cq_req req;
	int err;

	err = vrdma_udata_req(udata, &req, sizeof(req));
	if (err)
		return err;
	if (req.comp_mask || req.reserved)
		return -EINVAL;
	/* Without the new ring's key the provider could not follow the CQ. */
	if (udata->outlen < sizeof(struct virtio_rdma_uverbs_resize_cq_resp))
		return -EINVAL;
	return 0;
}

/* The new ring of a resize, in an mmap entry of the CQ's context. */
int vrdma_ucq_resize_ring(struct vrdma_dev *dev, struct ib_udata *udata,
			  struct vrdma_ring *ring,
			  struct rdma_user_mmap_entry **entry)
{
	struct vrdma_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct vrdma_ucontext, ibuc);
	u64 key;

	return vrdma_ring_to_user(dev, &uctx->ibuc, ring, entry, &key);
}

int vrdma_ucq_resize_respond(struct vrdma_cq *cq, struct ib_udata *udata)
{
	struct virtio_rdma_uverbs_resize_cq_resp resp = {};

	resp.depth = cq->ring.depth;
	resp.ring_mmap_key = rdma_user_mmap_get_offset(cq->ring_umap);
	resp.ring_size = cq->ring.size;
	return vrdma_udata_resp(udata, &resp, sizeof(resp));
}

/*
 * A TM-SRQ's request names the depth of its ops ring (1..max_tm_ops); any
 * other SRQ's has none.  The response must hold the fields of its type.
 */
int vrdma_usrq_check(struct vrdma_dev *dev, struct ib_udata *udata, bool tm,
		     u32 *max_ops)
{
	struct virtio_rdma_uverbs_create_srq_req req;
	size_t need = tm ? sizeof(struct virtio_rdma_uverbs_create_srq_resp) :
		      offsetofend(struct virtio_rdma_uverbs_create_srq_resp,
				  ring_size);
	int err;

	err = vrdma_udata_req(udata, &req, sizeof(req));
	if (err)
		return err;
	if (req.comp_mask != (tm ? VIRTIO_RDMA_UVERBS_SRQ_TM : 0))
		return -EINVAL;
	if (tm ? !req.max_ops || req.max_ops > dev->caps.max_tm_ops :
		 req.max_ops)
		return -EINVAL;
	if (udata->outlen < need)
		return -EINVAL;
	*max_ops = req.max_ops;
	return 0;
}

/* The TM part of a create_srq response: the ops area and its limits. */
static int vrdma_usrq_respond_tm(struct vrdma_dev *dev,
				 struct ib_ucontext *uctx, struct vrdma_srq *srq,
				 struct virtio_rdma_uverbs_create_srq_resp *resp)
{
	u64 key;
	int err;

	err = vrdma_ring_to_user(dev, uctx, &srq->ops, &srq->ops_umap, &key);
	if (err)
		return err;
	resp->comp_mask = VIRTIO_RDMA_UVERBS_SRQ_TM;
	resp->ops_depth = srq->ops.depth;
	resp->ops_shift = srq->ops.shift - VIRTIO_RDMA_TM_OP_BASE_SHIFT;
	resp->max_num_tags = srq->max_num_tags;
	resp->max_tm_sge = dev->caps.max_tm_sge;
	resp->ops_mmap_key = key;
	resp->ops_size = srq->ops.size;
	return 0;
}

int vrdma_usrq_respond(struct vrdma_dev *dev, struct vrdma_srq *srq,
		       struct ib_udata *udata)
{
	struct vrdma_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct vrdma_ucontext, ibuc);
	struct virtio_rdma_uverbs_create_srq_resp resp = {};
	u64 key;
	int err;

	err = vrdma_ring_to_user(dev, &uctx->ibuc, &srq->ring, &srq->ring_umap,
				 &key);
	if (err)
		return err;
	if (srq->ibsrq.srq_type == IB_SRQT_TM) {
		err = vrdma_usrq_respond_tm(dev, &uctx->ibuc, srq, &resp);
		if (err)
			return err;
	}
	resp.srq_handle = srq->handle;
	resp.depth = srq->ring.depth;
	resp.wqe_shift = srq->ring.shift - VIRTIO_RDMA_RQ_WQE_BASE_SHIFT;
	resp.max_sge = srq->max_sge;
	resp.ring_mmap_key = key;
	resp.ring_size = srq->ring.size;
	return vrdma_udata_resp(udata, &resp, sizeof(resp));
}

/*
 * Validates a create_qp request; with WQE_SHIFTS it overrides the strides
 * the kernel chose (@sq_shift, @rq_shift, the smallest that fit the caps)
 * with larger ones, up to the device's limits.
 */
int vrdma_uqp_check(struct vrdma_dev *dev, struct ib_udata *udata,
		    int *sq_shift, int *rq_shift)
{
	struct virtio_rdma_uverbs_create_qp_req req;
	int err;

	err = vrdma_udata_req(udata, &req, sizeof(req));
	if (err)
		return err;
	if ((req.comp_mask & ~VIRTIO_RDMA_CREATE_QP_REQ_WQE_SHIFTS) ||
	    req.reserved[0] || req.reserved[1])
		return -EINVAL;
	if (udata->outlen < sizeof(struct virtio_rdma_uverbs_create_qp_resp))
		return -EINVAL;
	if (!(req.comp_mask & VIRTIO_RDMA_CREATE_QP_REQ_WQE_SHIFTS))
		return 0;
	if (req.sq_wqe_shift < *sq_shift ||
	    req.sq_wqe_shift > dev->caps.max_sq_wqe_shift ||
	    req.rq_wqe_shift < *rq_shift ||
	    req.rq_wqe_shift > dev->caps.max_rq_wqe_shift)
		return -EINVAL;
	*sq_shift = req.sq_wqe_shift;
	*rq_shift = req.rq_wqe_shift;
	return 0;
}

int vrdma_uqp_respond(struct vrdma_dev *dev, struct vrdma_qp *qp,
		      struct ib_udata *udata)
{
	struct vrdma_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct vrdma_ucontext, ibuc);
	struct virtio_rdma_uverbs_create_qp_resp resp = {};
	u64 key;
	int err;

	/* A QP on a TM-SRQ has no SQ: the TM-SRQ owns its sends. */
	if (qp->sq.buf) {
		err = vrdma_ring_to_user(dev, &uctx->ibuc, &qp->sq, &qp->sq_umap,
					 &key);
		if (err)
			return err;
		resp.sq_mmap_key = key;
		resp.sq_ring_size = qp->sq.size;
	}
	if (qp->rq.buf) {
		err = vrdma_ring_to_user(dev, &uctx->ibuc, &qp->rq, &qp->rq_umap,
					 &key);
		if (err)
			return err;
		resp.rq_mmap_key = key;
		resp.rq_ring_size = qp->rq.size;
		resp.rq_depth = qp->rq.depth;
		resp.rq_wqe_shift = qp->rq.shift - VIRTIO_RDMA_RQ_WQE_BASE_SHIFT;
	}
	resp.qpn = qp->handle;
	resp.sq_depth = qp->sq.buf ? qp->sq.depth : 0;
	resp.sq_wqe_shift = qp->sq.shift - VIRTIO_RDMA_SQ_WQE_BASE_SHIFT;
	resp.max_send_sge = qp->max_send_sge;
	resp.max_recv_sge = qp->max_recv_sge;
	resp.max_inline_data = qp->max_inline;
	return vrdma_udata_resp(udata, &resp, sizeof(resp));
}
