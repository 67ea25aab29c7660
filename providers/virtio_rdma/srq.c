// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma rdma-core provider: shared receive queues, basic, XRC and
 * tag matching (TM).
 *
 * The kernel allocates the SRQ's ring (the RQ's format) and maps it here at
 * create_srq; ibv_post_srq_recv writes WQEs into it and publishes prod,
 * without a system call.  The device reads the SRQ when a message arrives
 * and never flushes it, so it keeps the SRQ's notify at
 * VIRTIO_RDMA_NOTIFY_OFF: an SRQ post needs no doorbell (spec "Shared
 * receive queues").
 *
 * A TM-SRQ's ring takes the unexpected messages; its tag list changes
 * through the ops ring of its ops area, written by ibv_post_srq_ops like an
 * SQ, with the SQ's doorbell rule.  Its doorbell is an empty
 * ibv_post_srq_recv (spec "Tag matching").
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
_Static_assert(VIRTIO_RDMA_TM_OP_ADD == IBV_WR_TAG_ADD, "");
_Static_assert(VIRTIO_RDMA_TM_OP_DEL == IBV_WR_TAG_DEL, "");
_Static_assert(VIRTIO_RDMA_TM_OP_SYNC == IBV_WR_TAG_SYNC, "");
_Static_assert(VIRTIO_RDMA_TM_OP_F_SIGNALED == IBV_OPS_SIGNALED, "");
_Static_assert(VIRTIO_RDMA_TM_OP_F_SYNC == IBV_OPS_TM_SYNC, "");
_Static_assert(sizeof(struct virtio_rdma_tm_op) ==
	       1U << VIRTIO_RDMA_TM_OP_BASE_SHIFT, "");
_Static_assert(offsetof(struct vru_create_srq_resp, drv) == 16, "");
_Static_assert(offsetof(struct vru_create_xsrq_cmd, drv) == 56, "");

/*
 * A TM-SRQ's ops area: the ops ring, then max_num_tags release words.  The
 * stride must hold an op with every SGE the kernel says a tag may have.
 */
static int vru_srq_map_ops(struct ibv_context *context, struct vru_srq *srq,
			   const struct virtio_rdma_uverbs_create_srq_resp *r)
{
	uint32_t shift = VIRTIO_RDMA_TM_OP_BASE_SHIFT + r->ops_shift;
	uint64_t used;
	int err;

	if (r->ops_shift > 3 || !r->max_num_tags || !r->max_tm_sge ||
	    sizeof(struct virtio_rdma_tm_op) +
	    (uint64_t)r->max_tm_sge * sizeof(struct virtio_rdma_sge) >
	    1ULL << shift)
		return EPROTO;
	used = virtio_rdma_ring_bytes(r->ops_depth, shift);
	if (r->ops_size < used + (uint64_t)r->max_num_tags * sizeof(__le32))
		return EPROTO;
	srq->issued = calloc(r->max_num_tags, sizeof(*srq->issued));
	if (!srq->issued)
		return ENOMEM;
	err = vru_map_ring(context, &srq->ops, r->ops_mmap_key, r->ops_size,
			   r->ops_depth, shift);
	if (err) {
		free(srq->issued);
		srq->issued = NULL;
		return err;
	}
	srq->release = (__le32 *)((char *)srq->ops.buf + used);
	srq->max_num_tags = r->max_num_tags;
	srq->max_tm_sge = r->max_tm_sge;
	return 0;
}

static void vru_srq_unmap(struct vru_srq *srq)
{
	vru_unmap_ring(&srq->ring);
	vru_unmap_ring(&srq->ops);
	free(srq->issued);
}

/*
 * After the kernel created the SRQ, of any type: map its ring (and a
 * TM-SRQ's ops area).  On failure the caller destroys the SRQ.
 */
static int vru_srq_setup(struct ibv_context *context, struct vru_srq *srq,
			 const struct virtio_rdma_uverbs_create_srq_resp *r,
			 struct ibv_srq_attr *attr, bool tm)
{
	int err = 0;

	if (r->comp_mask != (tm ? VIRTIO_RDMA_UVERBS_SRQ_TM : 0))
		return EPROTO;
	err = vru_map_ring(context, &srq->ring, r->ring_mmap_key,
			   r->ring_size, r->depth,
			   virtio_rdma_rq_stride_log2(r->wqe_shift));
	if (err)
		return err;
	if (r->max_sge > virtio_rdma_rq_stride_sges(srq->ring.shift))
		err = EPROTO;
	else if (tm)
		err = vru_srq_map_ops(context, srq, r);
	if (err) {
		vru_unmap_ring(&srq->ring);
		return err;
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
	err = vru_srq_setup(pd->context, srq, &resp.drv, &attr->attr, false);
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

/* What ibv_create_srq_ex needs for an XRC or TM SRQ. */
static bool vru_srq_ex_attr_ok(const struct ibv_srq_init_attr_ex *attr)
{
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    !(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !attr->cq)
		return false;
	if (attr->srq_type == IBV_SRQT_XRC)
		return (attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) && attr->xrcd;
	/* The kernel checks the upper limits against the device's. */
	return (attr->comp_mask & IBV_SRQ_INIT_ATTR_TM) &&
	       attr->tm_cap.max_num_tags && attr->tm_cap.max_ops;
}

/*
 * An XRC SRQ names its XRC domain and the CQ its receives complete into,
 * whichever target QP takes them; a TM-SRQ names the CQ of its receives
 * and ops, and gets an ops area.  Either's ring is mapped and posted to as
 * a basic SRQ's (vru_post_srq_recv()).
 */
static struct ibv_srq *vru_create_srq_typed(struct ibv_context *context,
					    struct ibv_srq_init_attr_ex *attr)
{
	bool tm = attr->srq_type == IBV_SRQT_TM;
	struct vru_create_xsrq_cmd cmd = {};
	struct vru_create_srq_resp resp = {};
	struct vru_srq *srq;
	int err;

	if (!vru_srq_ex_attr_ok(attr)) {
		errno = EINVAL;
		return NULL;
	}
	if (tm) {
		cmd.drv.comp_mask = VIRTIO_RDMA_UVERBS_SRQ_TM;
		cmd.drv.max_ops = attr->tm_cap.max_ops;
	}
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	err = ibv_cmd_create_srq_ex(context, &srq->vsrq, attr, &cmd.ibv_cmd,
				    sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err)
		goto err_free;
	err = vru_srq_setup(context, srq, &resp.drv, &attr->attr, tm);
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
					  IBV_SRQ_INIT_ATTR_CQ |
					  IBV_SRQ_INIT_ATTR_TM)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE)
		type = attr->srq_type;
	if (type == IBV_SRQT_XRC || type == IBV_SRQT_TM)
		return vru_create_srq_typed(context, attr);
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
	vru_srq_unmap(srq);
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

/* ---------------------------------------------------- tag matching ops -- */

/*
 * A tag index this process may use for an ADD: the device has let go of
 * the last handle issued there (both are 0 before the first).  Searched
 * round-robin, so a freed index is not reused at once: a late DEL of its
 * old handle then meets a different one and fails cleanly.
 */
static int vru_tm_free_index(struct vru_srq *srq, uint32_t *index)
{
	uint32_t i, idx;

	for (i = 0; i < srq->max_num_tags; i++) {
		idx = (srq->next_tag + i) % srq->max_num_tags;
		if (ring_load_acquire(&srq->release[idx]) == srq->issued[idx]) {
			srq->next_tag = idx + 1;
			*index = idx;
			return 0;
		}
	}
	return ENOMEM;
}

/* index | gen << 16, gen 1..0xffff and new at each use of the index. */
static uint32_t vru_tm_next_handle(uint32_t last, uint32_t index)
{
	uint32_t gen = (last >> 16) + 1;

	if (gen > 0xffff)
		gen = 1;
	return index | gen << 16;
}

static int vru_tm_build_add(struct vru_srq *srq, struct ibv_ops_wr *op,
			    struct virtio_rdma_tm_op *wqe)
{
	uint32_t index;
	int err;

	if (op->tm.add.num_sge < 0 ||
	    (uint32_t)op->tm.add.num_sge > srq->max_tm_sge)
		return EINVAL;
	err = vru_tm_free_index(srq, &index);
	if (err)
		return err;
	vru_copy_sges(NULL, (struct virtio_rdma_sge *)(wqe + 1),
		      op->tm.add.sg_list, op->tm.add.num_sge, srq->max_tm_sge);
	srq->issued[index] = vru_tm_next_handle(srq->issued[index], index);
	op->tm.handle = srq->issued[index];
	wqe->handle = htole32(op->tm.handle);
	wqe->recv_wr_id = htole64(op->tm.add.recv_wr_id);
	wqe->tag = htole64(op->tm.add.tag);
	wqe->mask = htole64(op->tm.add.mask);
	wqe->num_sge = op->tm.add.num_sge;
	return 0;
}

/* Writes one op into the ring slot @wqe; nothing is taken on failure. */
static int vru_tm_build_op(struct vru_srq *srq, struct ibv_ops_wr *op,
			   struct virtio_rdma_tm_op *wqe)
{
	if (op->flags & ~(IBV_OPS_SIGNALED | IBV_OPS_TM_SYNC))
		return EINVAL;
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = htole64(op->wr_id);
	wqe->opcode = op->opcode;
	wqe->flags = op->flags;
	if (op->flags & IBV_OPS_TM_SYNC)
		wqe->unexpected_cnt = htole32(op->tm.unexpected_cnt);
	switch (op->opcode) {
	case IBV_WR_TAG_ADD:
		return vru_tm_build_add(srq, op, wqe);
	case IBV_WR_TAG_DEL:
		/* The device refuses a handle that is not posted (TM_ERR). */
		wqe->handle = htole32(op->tm.handle);
		return 0;
	case IBV_WR_TAG_SYNC:
		return 0;
	default:
		return EINVAL;
	}
}

int vru_post_srq_ops(struct ibv_srq *ibsrq, struct ibv_ops_wr *op,
		     struct ibv_ops_wr **bad_op)
{
	struct vru_srq *srq = to_vru_srq(ibsrq);
	struct vru_uring *r = &srq->ops;
	struct ibv_recv_wr *bad;
	bool doorbell = false;
	uint32_t old;
	int err = 0;

	if (!r->buf) {
		*bad_op = op;
		return EINVAL;
	}
	pthread_spin_lock(&srq->lock);
	old = r->head;
	for (; op; op = op->next) {
		if (vru_ring_full(r)) {
			err = ENOMEM;
			break;
		}
		err = vru_tm_build_op(srq, op, uring_entry(r, r->head));
		if (err)
			break;
		r->head++;
	}
	if (r->head != old)
		doorbell = vru_ring_publish(r, old);
	pthread_spin_unlock(&srq->lock);
	/* An empty post_srq_recv: the kernel passes it on as the doorbell. */
	if (doorbell)
		ibv_cmd_post_srq_recv(ibsrq, NULL, &bad);
	if (err)
		*bad_op = op;
	return err;
}
