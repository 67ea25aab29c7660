// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma rdma-core provider: shared receive queues, basic and XRC.
 *
 * The kernel allocates the SRQ's ring (the RQ's format) and maps it here at
 * create_srq; ibv_post_srq_recv writes WQEs into it and publishes prod,
 * without a system call.  The device reads the SRQ when a message arrives
 * and never flushes it, so it keeps the SRQ's notify at
 * VIRTIO_RDMA_NOTIFY_OFF: an SRQ post needs no doorbell (spec "Shared
 * receive queues").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vru.h"

struct vru_create_srq_cmd {
	struct ibv_create_srq ibv_cmd;
	struct virtio_rdma_uverbs_create_srq_req drv;
};

struct vru_create_srq_resp {
	struct ib_uverbs_create_srq_resp ibv_resp;
	struct virtio_rdma_uverbs_create_srq_resp drv;
};

/* ibv_create_srq_ex of an XRC SRQ: the same driver data. */
struct vru_create_xsrq_cmd {
	struct ibv_create_xsrq ibv_cmd;
	struct virtio_rdma_uverbs_create_srq_req drv;
};

_Static_assert(offsetof(struct vru_create_srq_cmd, drv) == 40, "");
_Static_assert(offsetof(struct vru_create_srq_resp, drv) == 16, "");
_Static_assert(offsetof(struct vru_create_xsrq_cmd, drv) == 56, "");

/*
 * After the kernel created the SRQ, of either type: map its ring.  On
 * failure the caller destroys the SRQ.
 */
static int vru_srq_setup(struct ibv_context *context, struct vru_srq *srq,
			 const struct virtio_rdma_uverbs_create_srq_resp *r,
			 struct ibv_srq_attr *attr)
{
	int err;

	if (r->comp_mask)
		return EPROTO;
	err = vru_map_ring(context, &srq->ring, r->ring_mmap_key,
			   r->ring_size, r->depth,
			   virtio_rdma_rq_stride_log2(r->wqe_shift));
	if (err)
		return err;
	if (r->max_sge > virtio_rdma_rq_stride_sges(srq->ring.shift)) {
		vru_unmap_ring(&srq->ring);
		return EPROTO;
	}
	srq->max_sge = r->max_sge;
	pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	attr->max_wr = r->depth;
	attr->max_sge = r->max_sge;
	return 0;
}

struct ibv_srq *vru_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *attr)
{
	struct vru_create_srq_cmd cmd = {};
	struct vru_create_srq_resp resp = {};
	struct vru_srq *srq;
	int err;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	err = ibv_cmd_create_srq(pd, &srq->vsrq.srq, attr, &cmd.ibv_cmd,
				 sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err)
		goto err_free;
	err = vru_srq_setup(pd->context, srq, &resp.drv, &attr->attr);
	if (err) {
		ibv_cmd_destroy_srq(&srq->vsrq.srq);
		goto err_free;
	}
	srq->vsrq.srq_type = IBV_SRQT_BASIC;
	return &srq->vsrq.srq;

err_free:
	free(srq);
	errno = err;
	return NULL;
}

/*
 * An XRC SRQ: a basic SRQ that also names its XRC domain and the CQ its
 * receives complete into, whichever target QP takes them.  Its ring is
 * mapped and posted to as a basic SRQ's (vru_post_srq_recv()).
 */
static struct ibv_srq *vru_create_xsrq(struct ibv_context *context,
				       struct ibv_srq_init_attr_ex *attr)
{
	struct vru_create_xsrq_cmd cmd = {};
	struct vru_create_srq_resp resp = {};
	struct vru_srq *srq;
	int err;

	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    !(attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) || !attr->xrcd ||
	    !(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !attr->cq) {
		errno = EINVAL;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	err = ibv_cmd_create_srq_ex(context, &srq->vsrq, attr, &cmd.ibv_cmd,
				    sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err)
		goto err_free;
	err = vru_srq_setup(context, srq, &resp.drv, &attr->attr);
	if (err) {
		ibv_cmd_destroy_srq(&srq->vsrq.srq);
		goto err_free;
	}
	/*
	 * libibverbs set srq_type, xrcd, cq and srq_num (the kernel's); what
	 * ibv_create_srq sets around the provider, ibv_create_srq_ex leaves
	 * to it.
	 */
	srq->vsrq.srq.pd = attr->pd;
	srq->vsrq.srq.srq_context = attr->srq_context;
	return &srq->vsrq.srq;

err_free:
	free(srq);
	errno = err;
	return NULL;
}

struct ibv_srq *vru_create_srq_ex(struct ibv_context *context,
				  struct ibv_srq_init_attr_ex *attr)
{
	enum ibv_srq_type type = IBV_SRQT_BASIC;
	struct ibv_srq_init_attr basic;
	struct ibv_srq *srq;

	if (attr->comp_mask & ~(uint32_t)(IBV_SRQ_INIT_ATTR_TYPE |
					  IBV_SRQ_INIT_ATTR_PD |
					  IBV_SRQ_INIT_ATTR_XRCD |
					  IBV_SRQ_INIT_ATTR_CQ)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE)
		type = attr->srq_type;
	if (type == IBV_SRQT_XRC)
		return vru_create_xsrq(context, attr);
	/* Tag matching: not in the device ABI. */
	if (type != IBV_SRQT_BASIC) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != context) {
		errno = EINVAL;
		return NULL;
	}
	basic.srq_context = attr->srq_context;
	basic.attr = attr->attr;
	srq = vru_create_srq(attr->pd, &basic);
	if (!srq)
		return NULL;
	attr->attr = basic.attr;
	srq->pd = attr->pd;
	srq->srq_context = attr->srq_context;
	return srq;
}

int vru_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
	struct vru_srq *srq = to_vru_srq(ibsrq);

	/* Only an XRC SRQ is named by a number (its handle in the device). */
	if (srq->vsrq.srq_type != IBV_SRQT_XRC)
		return EOPNOTSUPP;
	*srq_num = srq->vsrq.srq_num;
	return 0;
}

int vru_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		   int attr_mask)
{
	struct ibv_modify_srq cmd = {};

	return ibv_cmd_modify_srq(srq, attr, attr_mask, &cmd, sizeof(cmd));
}

int vru_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd = {};

	return ibv_cmd_query_srq(srq, attr, &cmd, sizeof(cmd));
}

int vru_destroy_srq(struct ibv_srq *ibsrq)
{
	struct vru_srq *srq = to_vru_srq(ibsrq);
	int err;

	err = ibv_cmd_destroy_srq(ibsrq);
	if (err)
		return err;
	vru_unmap_ring(&srq->ring);
	pthread_spin_destroy(&srq->lock);
	free(srq);
	return 0;
}

int vru_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr)
{
	struct vru_srq *srq = to_vru_srq(ibsrq);
	struct vru_uring *r = &srq->ring;
	uint32_t old;
	int err;

	pthread_spin_lock(&srq->lock);
	old = r->head;
	err = vru_ring_put_recvs(r, &wr, srq->max_sge);
	/* The WQEs before prod; no doorbell (see the top of this file). */
	if (r->head != old)
		ring_store_release(&uring_ctl(r)->prod, r->head);
	pthread_spin_unlock(&srq->lock);
	if (err)
		*bad_wr = wr;
	return err;
}
