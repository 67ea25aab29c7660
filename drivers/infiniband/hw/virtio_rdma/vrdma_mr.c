// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma memory regions: DMA MRs, user MRs (page list copied by the
 * device at CREATE_MR) and fast-registration MRs (page list owned by the
 * driver for the MR's life, made effective by a REG_MR work request).
 */

#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/iter.h>

#include "vrdma.h"

#define VRDMA_MR_ACCESS							\
	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |		\
	 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)

/* Entries in one 4 KiB page of an indirect page list */
#define VRDMA_PL_PER_PAGE	(SZ_4K / sizeof(__le64))

static_assert(VIRTIO_RDMA_ACCESS_REMOTE_ATOMIC == IB_ACCESS_REMOTE_ATOMIC);

static int vrdma_mr_access(struct vrdma_dev *dev, int access)
{
	int known = VRDMA_MR_ACCESS;

	if (dev->mw)
		known |= IB_ACCESS_MW_BIND;
	/* Optional flags may be ignored by definition; others may not. */
	access &= ~IB_ACCESS_OPTIONAL;
	if (access & ~IB_ACCESS_SUPPORTED)
		return -EINVAL;
	/* Valid verbs the device lacks (ODP, zero-based, ...). */
	if (access & ~known)
		return -EOPNOTSUPP;
	return access;
}

static struct ib_mr *vrdma_mr_done(struct vrdma_mr *mr,
				   const struct virtio_rdma_mr_resp *resp)
{
	mr->handle = le32_to_cpu(resp->mr_handle);
	mr->ibmr.lkey = le32_to_cpu(resp->lkey);
	mr->ibmr.rkey = le32_to_cpu(resp->rkey);
	return &mr->ibmr;
}

struct ib_mr *vrdma_get_dma_mr(struct ib_pd *pd, int access)
{
	struct vrdma_dev *dev = to_vdev(pd->device);
	struct virtio_rdma_get_dma_mr_req req = {};
	struct virtio_rdma_mr_resp resp;
	struct vrdma_mr *mr;
	int err;

	/* A DMA MR reaches all memory: never for user PDs (spec). */
	if (pd->uobject)
		return ERR_PTR(-EPERM);
	access = vrdma_mr_access(dev, access);
	if (access < 0)
		return ERR_PTR(access);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	req.pd_handle = cpu_to_le32(to_vpd(pd)->handle);
	req.access_flags = cpu_to_le32(access);
	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_GET_DMA_MR, &req, sizeof(req),
			&resp, sizeof(resp));
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	return vrdma_mr_done(mr, &resp);
}

/* A page list in 4 KiB chunks, DMA-mapped for the device to read. */
struct vrdma_pl {
	unsigned int nchunks;
	__le64 **chunk;
	dma_addr_t *chunk_dma;
	__le64 *top;		/* chunk addresses, when indirect */
	dma_addr_t top_dma;
};

static void vrdma_pl_free(struct vrdma_dev *dev, struct vrdma_pl *pl)
{
	unsigned int i;

	if (pl->top) {
		dma_unmap_single(dev->dma_dev, pl->top_dma,
				 pl->nchunks * sizeof(__le64), DMA_TO_DEVICE);
		kfree(pl->top);
	}
	for (i = 0; i < pl->nchunks && pl->chunk && pl->chunk[i]; i++) {
		if (pl->chunk_dma[i])
			dma_unmap_single(dev->dma_dev, pl->chunk_dma[i], SZ_4K,
					 DMA_TO_DEVICE);
		free_page((unsigned long)pl->chunk[i]);
	}
	kfree(pl->chunk);
	kfree(pl->chunk_dma);
}

static int vrdma_pl_build(struct vrdma_dev *dev, struct vrdma_pl *pl,
			  struct ib_umem *umem, unsigned long pgsz, u64 npages)
{
	struct ib_block_iter biter;
	dma_addr_t dma;
	unsigned int i;
	u64 n = 0;

	pl->nchunks = DIV_ROUND_UP_ULL(npages, VRDMA_PL_PER_PAGE);
	pl->chunk = kcalloc(pl->nchunks, sizeof(*pl->chunk), GFP_KERNEL);
	pl->chunk_dma = kcalloc(pl->nchunks, sizeof(*pl->chunk_dma),
				GFP_KERNEL);
	if (!pl->chunk || !pl->chunk_dma)
		return -ENOMEM;
	for (i = 0; i < pl->nchunks; i++) {
		pl->chunk[i] = (__le64 *)get_zeroed_page(GFP_KERNEL);
		if (!pl->chunk[i])
			return -ENOMEM;
	}
	rdma_umem_for_each_dma_block(umem, &biter, pgsz) {
		if (n >= npages)
			return -EINVAL;
		pl->chunk[n / VRDMA_PL_PER_PAGE][n % VRDMA_PL_PER_PAGE] =
			cpu_to_le64(rdma_block_iter_dma_address(&biter));
		n++;
	}
	if (n != npages)
		return -EINVAL;

	for (i = 0; i < pl->nchunks; i++) {
		dma = dma_map_single(dev->dma_dev, pl->chunk[i], SZ_4K,
				     DMA_TO_DEVICE);
		if (dma_mapping_error(dev->dma_dev, dma))
			return -ENOMEM;
		pl->chunk_dma[i] = dma;
	}
	if (pl->nchunks == 1)
		return 0;

	/* Large registrations: a list of chunk addresses (PL_INDIRECT). */
	pl->top = kcalloc(pl->nchunks, sizeof(*pl->top), GFP_KERNEL);
	if (!pl->top)
		return -ENOMEM;
	for (i = 0; i < pl->nchunks; i++)
		pl->top[i] = cpu_to_le64(pl->chunk_dma[i]);
	dma = dma_map_single(dev->dma_dev, pl->top,
			     pl->nchunks * sizeof(__le64), DMA_TO_DEVICE);
	if (dma_mapping_error(dev->dma_dev, dma)) {
		kfree(pl->top);
		pl->top = NULL;
		return -ENOMEM;
	}
	pl->top_dma = dma;
	return 0;
}

/*
 * Pins and registers [start, start + length) as a user MR; with @replace,
 * as the new registration of the device MR @replace_handle (its keys stay).
 */
static int vrdma_user_mr_cmd(struct ib_pd *pd, u64 start, u64 length,
			     u64 virt_addr, int access, bool replace,
			     u32 replace_handle,
			     struct virtio_rdma_mr_resp *resp,
			     struct ib_umem **out)
{
	struct vrdma_dev *dev = to_vdev(pd->device);
	struct virtio_rdma_create_mr_req req = {};
	struct vrdma_pl pl = {};
	struct ib_umem *umem;
	unsigned long pgsz;
	u32 flags = 0;
	u64 npages;
	int err;

	if (!length || length > dev->caps.max_mr_size)
		return -EINVAL;
	umem = ib_umem_get(pd->device, start, length, access);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	/* The largest page size the device supports that maps this range. */
	pgsz = ib_umem_find_best_pgsz(umem, dev->caps.page_size_cap, virt_addr);
	if (!pgsz) {
		err = -EINVAL;
		goto err_umem;
	}
	npages = ib_umem_num_dma_blocks(umem, pgsz);
	if (!npages || npages > U32_MAX) {
		err = -EINVAL;
		goto err_umem;
	}
	err = vrdma_pl_build(dev, &pl, umem, pgsz, npages);
	if (err)
		goto err_pl;

	req.pd_handle = cpu_to_le32(to_vpd(pd)->handle);
	req.access_flags = cpu_to_le32(access);
	req.iova = cpu_to_le64(virt_addr);
	req.length = cpu_to_le64(length);
	req.npages = cpu_to_le32(npages);
	req.page_shift = cpu_to_le32(ilog2(pgsz));
	if (pl.top) {
		req.page_list_addr = cpu_to_le64(pl.top_dma);
		flags |= VIRTIO_RDMA_MR_F_PL_INDIRECT;
	} else {
		req.page_list_addr = cpu_to_le64(pl.chunk_dma[0]);
	}
	if (replace) {
		flags |= VIRTIO_RDMA_MR_F_REPLACE;
		req.replace_handle = cpu_to_le32(replace_handle);
	}
	req.flags = cpu_to_le32(flags);
	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_CREATE_MR, &req, sizeof(req),
			resp, sizeof(*resp));
	/* The device copied the list while executing the command. */
	if (err && READ_ONCE(dev->broken)) {
		/*
		 * It may still execute the command: leak the list, and keep
		 * the pages pinned until reset (vrdma_orphan_umem()).
		 */
		vrdma_orphan_umem(dev, umem);
		return err;
	}
	vrdma_pl_free(dev, &pl);
	if (err)
		goto err_umem;
	*out = umem;
	return 0;

err_pl:
	vrdma_pl_free(dev, &pl);
err_umem:
	ib_umem_release(umem);
	return err;
}

struct ib_mr *vrdma_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				u64 virt_addr, int access,
				struct ib_udata *udata)
{
	struct virtio_rdma_mr_resp resp;
	struct vrdma_mr *mr;
	int err;

	access = vrdma_mr_access(to_vdev(pd->device), access);
	if (access < 0)
		return ERR_PTR(access);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = vrdma_user_mr_cmd(pd, start, length, virt_addr, access, false, 0,
				&resp, &mr->umem);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	mr->access = access;
	return vrdma_mr_done(mr, &resp);
}

/*
 * Re-registration in place with the keys kept, as users of rereg expect,
 * through the device's MR_REPLACE.  Returning NULL tells ib_core the MR
 * object stays; it then records the new PD, iova and length itself.
 */
struct ib_mr *vrdma_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 virt_addr, int access,
				  struct ib_pd *pd, struct ib_udata *udata)
{
	struct vrdma_dev *dev = to_vdev(ibmr->device);
	struct vrdma_mr *mr = to_vmr(ibmr);
	struct virtio_rdma_mr_resp resp;
	struct ib_umem *umem;
	int err;

	if (!dev->mr_replace)
		return ERR_PTR(-EOPNOTSUPP);
	if (!mr->umem)
		return ERR_PTR(-EINVAL);
	if (!(flags & IB_MR_REREG_TRANS)) {
		start = mr->umem->address;
		length = ibmr->length;
		virt_addr = ibmr->iova;
	}
	if (flags & IB_MR_REREG_ACCESS) {
		access = vrdma_mr_access(dev, access);
		if (access < 0)
			return ERR_PTR(access);
	} else {
		access = mr->access;
	}
	err = vrdma_user_mr_cmd(pd, start, length, virt_addr, access, true,
				mr->handle, &resp, &umem);
	if (err)
		return ERR_PTR(err);
	if (le32_to_cpu(resp.lkey) != ibmr->lkey ||
	    le32_to_cpu(resp.rkey) != ibmr->rkey)
		ibdev_warn_ratelimited(&dev->ib,
				       "MR %u: device changed its keys on replace\n",
				       mr->handle);
	ib_umem_release(mr->umem);
	mr->umem = umem;
	mr->access = access;
	return NULL;
}

struct ib_mr *vrdma_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			     u32 max_num_sg)
{
	struct vrdma_dev *dev = to_vdev(pd->device);
	struct virtio_rdma_alloc_mr_req req = {};
	struct virtio_rdma_mr_resp resp;
	struct vrdma_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > dev->caps.max_fast_reg_page_list_len)
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->pl_max = max_num_sg;
	mr->pl = kcalloc(max_num_sg, sizeof(*mr->pl), GFP_KERNEL);
	if (!mr->pl) {
		err = -ENOMEM;
		goto err_mr;
	}
	mr->pl_dma = dma_map_single(dev->dma_dev, mr->pl,
				    max_num_sg * sizeof(*mr->pl),
				    DMA_TO_DEVICE);
	if (dma_mapping_error(dev->dma_dev, mr->pl_dma)) {
		err = -ENOMEM;
		goto err_pl;
	}

	req.pd_handle = cpu_to_le32(to_vpd(pd)->handle);
	req.max_pages = cpu_to_le32(max_num_sg);
	req.page_list_addr = cpu_to_le64(mr->pl_dma);
	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_ALLOC_MR, &req, sizeof(req),
			&resp, sizeof(resp));
	if (err) {
		if (READ_ONCE(dev->broken))
			return ERR_PTR(err);	/* list may be in use: leak */
		goto err_map;
	}
	return vrdma_mr_done(mr, &resp);

err_map:
	dma_unmap_single(dev->dma_dev, mr->pl_dma,
			 max_num_sg * sizeof(*mr->pl), DMA_TO_DEVICE);
err_pl:
	kfree(mr->pl);
err_mr:
	kfree(mr);
	return ERR_PTR(err);
}

static int vrdma_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct vrdma_mr *mr = to_vmr(ibmr);

	if (mr->npages >= mr->pl_max)
		return -ENOMEM;
	mr->pl[mr->npages++] = cpu_to_le64(addr);
	return 0;
}

int vrdma_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	struct vrdma_dev *dev = to_vdev(ibmr->device);
	struct vrdma_mr *mr = to_vmr(ibmr);
	size_t len = mr->pl_max * sizeof(*mr->pl);
	int n;

	if (!mr->pl || !(dev->caps.page_size_cap & ibmr->page_size))
		return -EINVAL;
	mr->npages = 0;
	dma_sync_single_for_cpu(dev->dma_dev, mr->pl_dma, len, DMA_TO_DEVICE);
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, vrdma_set_page);
	/* The device reads the list when it executes the REG_MR WQE. */
	dma_sync_single_for_device(dev->dma_dev, mr->pl_dma, len,
				   DMA_TO_DEVICE);
	return n;
}

int vrdma_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct vrdma_dev *dev = to_vdev(ibmr->device);
	struct vrdma_mr *mr = to_vmr(ibmr);
	struct virtio_rdma_dereg_mr_req req = {
		.mr_handle = cpu_to_le32(mr->handle),
	};
	int err;

	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_DEREG_MR, &req, sizeof(req),
			NULL, 0);
	if (err && !READ_ONCE(dev->broken))
		return err;
	/*
	 * A broken device may still use the MR until reset: leak its page
	 * list and keep its pages pinned (vrdma_orphan_umem()).
	 */
	if (mr->pl && !err) {
		dma_unmap_single(dev->dma_dev, mr->pl_dma,
				 mr->pl_max * sizeof(*mr->pl), DMA_TO_DEVICE);
		kfree(mr->pl);
	}
	if (err && mr->umem)
		vrdma_orphan_umem(dev, mr->umem);
	else
		ib_umem_release(mr->umem);
	kfree(mr);
	return 0;
}
