// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma rdma-core provider: shared receive queues.
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

_Static_assert(offsetof(struct vru_create_srq_cmd, drv) == 40, "");
_Static_assert(offsetof(struct vru_create_srq_resp, drv) == 16, "");

struct ibv_srq *vru_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *attr)
{
	struct vru_create_srq_cmd cmd = {};
	struct vru_create_srq_resp resp = {};
	struct virtio_rdma_uverbs_create_srq_resp *r = &resp.drv;
	struct vru_srq *srq;
	int err;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	err = ibv_cmd_create_srq(pd, &srq->vsrq.srq, attr, &cmd.ibv_cmd,
				 sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err)
		goto err_free;
	if (r->comp_mask) {
		err = EPROTO;
		goto err_destroy;
	}
	err = vru_map_ring(pd->context, &srq->ring, r->ring_mmap_key,
			   r->ring_size, r->depth,
			   virtio_rdma_rq_stride_log2(r->wqe_shift));
	if (err)
		goto err_destroy;
	if (r->max_sge > virtio_rdma_rq_stride_sges(srq->ring.shift)) {
		err = EPROTO;
		goto err_unmap;
	}
	srq->max_sge = r->max_sge;
	pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	srq->vsrq.srq_type = IBV_SRQT_BASIC;
	attr->attr.max_wr = r->depth;
	attr->attr.max_sge = r->max_sge;
	return &srq->vsrq.srq;

err_unmap:
	vru_unmap_ring(&srq->ring);
err_destroy:
	ibv_cmd_destroy_srq(&srq->vsrq.srq);
err_free:
	free(srq);
	errno = err;
	return NULL;
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
