// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma rdma-core provider: registration, device matching and the
 * control verbs.  Control goes through uverbs; CQ and QP rings are mapped
 * from the kernel with the keys of include/uapi/rdma/virtio_rdma-abi.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "virtio_rdmadv.h"
#include "vru.h"

struct vru_get_context_cmd {
	struct ibv_get_context ibv_cmd;
	struct virtio_rdma_uverbs_alloc_ucontext_req drv;
};

struct vru_get_context_resp {
	struct ib_uverbs_get_context_resp ibv_resp;
	struct virtio_rdma_uverbs_alloc_ucontext_resp drv;
};

struct vru_create_cq_cmd {
	struct ibv_create_cq ibv_cmd;
	struct virtio_rdma_uverbs_create_cq_req drv;
};

struct vru_create_cq_resp {
	struct ib_uverbs_create_cq_resp ibv_resp;
	struct virtio_rdma_uverbs_create_cq_resp drv;
};

struct vru_create_cq_ex_cmd {
	struct ibv_create_cq_ex ibv_cmd;
	struct virtio_rdma_uverbs_create_cq_req drv;
};

struct vru_create_cq_ex_resp {
	struct ib_uverbs_ex_create_cq_resp ibv_resp;
	struct virtio_rdma_uverbs_create_cq_resp drv;
};

struct vru_resize_cq_cmd {
	struct ibv_resize_cq ibv_cmd;
	struct virtio_rdma_uverbs_resize_cq_req drv;
};

struct vru_resize_cq_resp {
	struct ib_uverbs_resize_cq_resp ibv_resp;
	struct virtio_rdma_uverbs_resize_cq_resp drv;
};

struct vru_create_qp_ex_cmd {
	struct ibv_create_qp_ex ibv_cmd;
	struct virtio_rdma_uverbs_create_qp_req drv;
};

struct vru_create_qp_ex_resp {
	struct ib_uverbs_ex_create_qp_resp ibv_resp;
	struct virtio_rdma_uverbs_create_qp_resp drv;
};

_Static_assert(offsetof(struct vru_context, vctx) == 0, "");
_Static_assert(offsetof(struct vru_get_context_cmd, drv) == 16, "");
_Static_assert(offsetof(struct vru_get_context_resp, drv) == 8, "");
_Static_assert(offsetof(struct vru_create_cq_cmd, drv) == 40, "");
_Static_assert(offsetof(struct vru_create_cq_resp, drv) == 8, "");
_Static_assert(offsetof(struct vru_create_cq_ex_cmd, drv) == 56, "");
_Static_assert(offsetof(struct vru_create_cq_ex_resp, drv) == 16, "");
_Static_assert(offsetof(struct vru_resize_cq_cmd, drv) == 24, "");
_Static_assert(offsetof(struct vru_resize_cq_resp, drv) == 8, "");
_Static_assert(offsetof(struct vru_create_qp_ex_cmd, drv) == 88, "");
_Static_assert(offsetof(struct vru_create_qp_ex_resp, drv) == 40, "");

static int vru_query_device_ex(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int err;

	err = ibv_cmd_query_device_any(context, input, attr, attr_size, &resp,
				       &resp_size);
	if (err)
		return err;
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw >> 32),
		 (unsigned int)(fw >> 16) & 0xffff, (unsigned int)fw & 0xffff);
	return 0;
}

static int vru_query_port(struct ibv_context *context, uint8_t port,
			  struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(context, port, attr, &cmd, sizeof(cmd));
}

static struct ibv_pd *vru_alloc_pd(struct ibv_context *context)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd;
	struct vru_pd *pd;
	int err;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	err = ibv_cmd_alloc_pd(context, &pd->ibpd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (err) {
		free(pd);
		errno = err;
		return NULL;
	}
	return &pd->ibpd;
}

/*
 * The provider allocates no queue memory of its own (the kernel maps every
 * ring), so a parent domain's allocators, and the pd_context rdma-core
 * passes to them, have nothing to serve: it is its protection domain.
 * Thread domains are not supported.
 */
static struct ibv_pd *
vru_alloc_parent_domain(struct ibv_context *context,
			struct ibv_parent_domain_init_attr *attr)
{
	struct vru_pd *pd, *prot;

	if (attr->comp_mask & ~(uint32_t)(IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
					  IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->td) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!attr->pd || attr->pd->context != context ||
	    to_vru_pd(attr->pd)->protection) {
		errno = EINVAL;
		return NULL;
	}
	prot = to_vru_pd(attr->pd);
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	pd->ibpd.context = context;
	pd->ibpd.handle = prot->ibpd.handle;
	pd->protection = prot;
	atomic_fetch_add(&prot->refcount, 1);
	return &pd->ibpd;
}

static int vru_dealloc_pd(struct ibv_pd *ibpd)
{
	struct vru_pd *pd = to_vru_pd(ibpd);
	int err;

	if (pd->protection) {
		atomic_fetch_sub(&pd->protection->refcount, 1);
		free(pd);
		return 0;
	}
	if (atomic_load(&pd->refcount))
		return EBUSY;
	err = ibv_cmd_dealloc_pd(ibpd);
	if (!err)
		free(pd);
	return err;
}

/*
 * A PD imported from another context sharing the command fd: the kernel
 * has no generic query for it, so a bad handle shows at first use.
 */
static struct ibv_pd *vru_import_pd(struct ibv_context *context,
				    uint32_t pd_handle)
{
	struct vru_pd *pd;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	pd->ibpd.context = context;
	pd->ibpd.handle = pd_handle;
	return &pd->ibpd;
}

static void vru_unimport_pd(struct ibv_pd *pd)
{
	free(to_vru_pd(pd));
}

static struct ibv_mr *vru_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	struct verbs_mr *vmr;
	int err;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	err = ibv_cmd_query_mr(pd, vmr, mr_handle);
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}
	return &vmr->ibv_mr;
}

static void vru_unimport_mr(struct ibv_mr *mr)
{
	free(container_of(mr, struct verbs_mr, ibv_mr));
}

static struct ibv_mr *vru_reg_mr(struct ibv_pd *pd, void *addr,
				 size_t length, uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int err;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	err = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}
	return &vmr->ibv_mr;
}

static int vru_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_rereg_mr cmd;
	int err;

	err = ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr,
			       access, pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (err)
		errno = err;
	return err;
}

static int vru_dereg_mr(struct verbs_mr *vmr)
{
	int err = ibv_cmd_dereg_mr(vmr);

	if (!err)
		free(vmr);
	return err;
}

int vru_map_ring(struct ibv_context *context, struct vru_uring *r,
		 uint64_t key, uint64_t size, uint32_t depth,
			uint32_t shift)
{
	if (!depth || (depth & (depth - 1)) ||
	    size < virtio_rdma_ring_bytes(depth, shift))
		return EPROTO;
	r->buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      context->cmd_fd, key);
	if (r->buf == MAP_FAILED) {
		r->buf = NULL;
		return errno;
	}
	r->size = size;
	r->depth = depth;
	r->shift = shift;
	r->head = 0;
	return 0;
}

void vru_unmap_ring(struct vru_uring *r)
{
	if (r->buf)
		munmap(r->buf, r->size);
	r->buf = NULL;
}

static int vru_cq_setup(struct ibv_context *context, struct vru_cq *cq,
			const struct virtio_rdma_uverbs_create_cq_resp *r)
{
	struct vru_context *ctx = to_vctx(context);

	if (r->comp_mask)
		return EPROTO;
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	return vru_map_ring(context, &cq->ring, r->ring_mmap_key,
			    r->ring_size, r->depth, ctx->caps.cqe_shift);
}

static struct ibv_cq *vru_create_cq(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector)
{
	struct vru_create_cq_cmd cmd = {};
	struct vru_create_cq_resp resp = {};
	struct vru_cq *cq;
	int err;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	err = ibv_cmd_create_cq(context, cqe, channel, comp_vector,
				&cq->vcq.cq, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (err)
		goto err_free;
	err = vru_cq_setup(context, cq, &resp.drv);
	if (err) {
		ibv_cmd_destroy_cq(&cq->vcq.cq);
		goto err_free;
	}
	return &cq->vcq.cq;

err_free:
	free(cq);
	errno = err;
	return NULL;
}

#define VRU_CQ_EX_WC_FLAGS						\
	(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |			\
	 IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP |		\
	 IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |			\
	 IBV_WC_EX_WITH_DLID_PATH_BITS | IBV_WC_EX_WITH_TM_INFO)

static struct ibv_cq_ex *vru_create_cq_ex(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *attr)
{
	struct vru_create_cq_ex_cmd cmd = {};
	struct vru_create_cq_ex_resp resp = {};
	struct vru_cq *cq;
	int err;

	if (attr->wc_flags & ~(uint64_t)VRU_CQ_EX_WC_FLAGS ||
	    attr->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) && attr->flags)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	err = ibv_cmd_create_cq_ex(context, attr, &cq->vcq, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp),
				   0);
	if (err)
		goto err_free;
	err = vru_cq_setup(context, cq, &resp.drv);
	if (err) {
		ibv_cmd_destroy_cq(&cq->vcq.cq);
		goto err_free;
	}
	vru_cq_ex_init(cq, attr->wc_flags);
	return &cq->vcq.cq_ex;

err_free:
	free(cq);
	errno = err;
	return NULL;
}

/*
 * The kernel moves the CQ to a new ring and the device carries the CQEs we
 * have not polled over to their indices there, so our head stays valid.
 * The lock is held across the system call: no poll or arm may touch the
 * old ring once the kernel has read our cons and arm word from it.  After
 * it, polling goes on without system calls on the new mapping.
 */
static int vru_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct vru_context *ctx = to_vctx(ibcq->context);
	struct vru_cq *cq = to_vru_cq(ibcq);
	struct vru_resize_cq_cmd cmd = {};
	struct vru_resize_cq_resp resp = {};
	struct vru_uring ring = {};
	int err;

	pthread_spin_lock(&cq->lock);
	err = ibv_cmd_resize_cq(ibcq, cqe, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (err)
		goto out;
	/*
	 * The device writes only the new ring now: if it cannot be mapped
	 * the CQ is lost to this process, and all it can do is destroy it.
	 */
	err = resp.drv.comp_mask ? EPROTO :
	      vru_map_ring(ibcq->context, &ring, resp.drv.ring_mmap_key,
			   resp.drv.ring_size, resp.drv.depth,
			   ctx->caps.cqe_shift);
	if (err)
		goto out;
	ring.head = cq->ring.head;
	vru_unmap_ring(&cq->ring);
	cq->ring = ring;
out:
	pthread_spin_unlock(&cq->lock);
	return err;
}

static int vru_destroy_cq(struct ibv_cq *ibcq)
{
	struct vru_cq *cq = to_vru_cq(ibcq);
	int err;

	err = ibv_cmd_destroy_cq(ibcq);
	if (err)
		return err;
	vru_unmap_ring(&cq->ring);
	pthread_spin_destroy(&cq->lock);
	free(cq);
	return 0;
}

#define VRU_SEND_OPS							\
	(IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
	 IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |		\
	 IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |	\
	 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_LOCAL_INV | \
	 IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_BIND_MW)

/*
 * An XRC_RECV QP: a number in an XRC domain, nothing to map.  The kernel
 * creates it without driver data (ib_core shares it between the processes
 * that open it), so none is sent.
 */
static struct ibv_qp *vru_create_xrc_recv(struct ibv_context *context,
					  struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_create_qp_ex cmd = {};
	struct ib_uverbs_ex_create_qp_resp resp = {};
	struct vru_qp *qp;
	int err;

	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !attr->xrcd ||
	    (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) {
		errno = (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) ?
			EOPNOTSUPP : EINVAL;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	err = ibv_cmd_create_qp_ex2(context, &qp->vqp, attr, &cmd, sizeof(cmd),
				    &resp, sizeof(resp));
	if (err) {
		free(qp);
		errno = err;
		return NULL;
	}
	/* Whatever else the attributes held, the QP has none of it. */
	qp->vqp.qp.pd = NULL;
	qp->vqp.qp.send_cq = NULL;
	qp->vqp.qp.recv_cq = NULL;
	qp->vqp.qp.srq = NULL;
	pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	memset(&attr->cap, 0, sizeof(attr->cap));
	return &qp->vqp.qp;
}

struct ibv_qp *vru_create_qp_ex(struct ibv_context *context,
				struct ibv_qp_init_attr_ex *attr)
{
	struct vru_create_qp_ex_cmd cmd = {};
	struct vru_create_qp_ex_resp resp = {};
	struct virtio_rdma_uverbs_create_qp_resp *r = &resp.drv;
	bool xrc_send = attr->qp_type == IBV_QPT_XRC_SEND;
	struct vru_qp *qp;
	int err;

	/* No creation flag is supported, but an empty set is no request. */
	if ((attr->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD |
					   IBV_QP_INIT_ATTR_XRCD |
					   IBV_QP_INIT_ATTR_CREATE_FLAGS |
					   IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	     attr->create_flags) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	     (attr->send_ops_flags & ~(uint64_t)VRU_SEND_OPS)) ||
	    /* A type 2 window is bound to one QP, not to an XRC target. */
	    (xrc_send && (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	     (attr->send_ops_flags & IBV_QP_EX_WITH_BIND_MW))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->qp_type == IBV_QPT_XRC_RECV)
		return vru_create_xrc_recv(context, attr);
	/* An initiator has no receive side (the kernel's ioctl agrees). */
	if (xrc_send && attr->srq) {
		errno = EINVAL;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	err = ibv_cmd_create_qp_ex2(context, &qp->vqp, attr, &cmd.ibv_cmd,
				    sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err)
		goto err_free;
	/* XRC_SEND: libibverbs kept the receive CQ out of the command. */
	if (xrc_send)
		qp->vqp.qp.recv_cq = NULL;
	if (r->comp_mask || (xrc_send && r->rq_depth)) {
		err = EPROTO;
		goto err_destroy;
	}
	pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	/* A QP on a TM-SRQ has no SQ: the TM-SRQ owns its sends. */
	if (r->sq_depth) {
		err = vru_map_ring(context, &qp->sq, r->sq_mmap_key,
				   r->sq_ring_size, r->sq_depth,
				   virtio_rdma_sq_stride_log2(r->sq_wqe_shift));
		if (err)
			goto err_destroy;
	} else if (!attr->srq ||
		   to_vru_srq(attr->srq)->vsrq.srq_type != IBV_SRQT_TM) {
		err = EPROTO;
		goto err_destroy;
	}
	if (r->rq_depth) {
		err = vru_map_ring(context, &qp->rq, r->rq_mmap_key,
				   r->rq_ring_size, r->rq_depth,
				   virtio_rdma_rq_stride_log2(r->rq_wqe_shift));
		if (err)
			goto err_unmap;
	}
	qp->max_send_sge = r->max_send_sge;
	qp->max_recv_sge = r->max_recv_sge;
	qp->max_inline = r->max_inline_data;
	attr->cap.max_send_wr = r->sq_depth;
	attr->cap.max_recv_wr = r->rq_depth;
	attr->cap.max_send_sge = r->max_send_sge;
	attr->cap.max_recv_sge = r->max_recv_sge;
	attr->cap.max_inline_data = r->max_inline_data;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		vru_qp_ex_init(qp, attr->send_ops_flags);
	return &qp->vqp.qp;

err_unmap:
	vru_unmap_ring(&qp->sq);
err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_free:
	free(qp);
	errno = err;
	return NULL;
}

/*
 * Another process's XRC_RECV QP, through the XRC domain both opened: the
 * same kernel QP, nothing to map.  ibv_destroy_qp closes it.
 */
static struct ibv_qp *vru_open_qp(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr)
{
	struct ib_uverbs_create_qp_resp resp;
	struct ibv_open_qp cmd;
	struct vru_qp *qp;
	int err;

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	err = ibv_cmd_open_qp(context, &qp->vqp, sizeof(qp->vqp), attr, &cmd,
			      sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(qp);
		errno = err;
		return NULL;
	}
	pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	return &qp->vqp.qp;
}

static struct ibv_qp *vru_create_qp(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct ibv_qp *qp;

	qp = vru_create_qp_ex(pd->context, &ex);
	if (qp)
		attr->cap = ex.cap;
	return qp;
}

/*
 * XRC_SEND has no receive CQ; XRC_RECV has no CQ: its receives complete
 * into its SRQs' CQs, which other processes may own and poll, so they stay.
 */
static void vru_qp_clean_cqs(struct ibv_qp *qp)
{
	if (qp->send_cq)
		vru_cq_clean(to_vru_cq(qp->send_cq), qp->qp_num);
	if (qp->recv_cq && qp->recv_cq != qp->send_cq)
		vru_cq_clean(to_vru_cq(qp->recv_cq), qp->qp_num);
}

static int vru_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int mask)
{
	struct ibv_modify_qp cmd = {};
	int err;

	err = ibv_cmd_modify_qp(qp, attr, mask, &cmd, sizeof(cmd));
	if (!err && (mask & IBV_QP_STATE) && attr->qp_state == IBV_QPS_RESET)
		vru_qp_clean_cqs(qp);
	return err;
}

static int vru_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int mask, struct ibv_qp_init_attr *init)
{
	struct ibv_query_qp cmd;

	return ibv_cmd_query_qp(qp, attr, mask, init, &cmd, sizeof(cmd));
}

static int vru_destroy_qp(struct ibv_qp *ibqp)
{
	struct vru_qp *qp = to_vru_qp(ibqp);
	int err;

	err = ibv_cmd_destroy_qp(ibqp);
	if (err)
		return err;
	vru_qp_clean_cqs(ibqp);
	vru_unmap_ring(&qp->sq);
	vru_unmap_ring(&qp->rq);
	pthread_spin_destroy(&qp->sq_lock);
	pthread_spin_destroy(&qp->rq_lock);
	free(qp);
	return 0;
}

/*
 * An XRC domain.  Processes that open it by the same file share it; the
 * kernel keeps one device domain for them (vrdma_xrcd.c).
 */
static struct ibv_xrcd *vru_open_xrcd(struct ibv_context *context,
				      struct ibv_xrcd_init_attr *attr)
{
	struct ib_uverbs_open_xrcd_resp resp;
	struct ibv_open_xrcd cmd;
	struct verbs_xrcd *xrcd;
	int err;

	xrcd = calloc(1, sizeof(*xrcd));
	if (!xrcd)
		return NULL;
	err = ibv_cmd_open_xrcd(context, xrcd, sizeof(*xrcd), attr, &cmd,
				sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(xrcd);
		errno = err;
		return NULL;
	}
	return &xrcd->xrcd;
}

static int vru_close_xrcd(struct ibv_xrcd *ibxrcd)
{
	struct verbs_xrcd *xrcd = container_of(ibxrcd, struct verbs_xrcd, xrcd);
	int err;

	err = ibv_cmd_close_xrcd(xrcd);
	if (err)
		return err;
	free(xrcd);
	return 0;
}

static bool gid_is_v4mapped(const union ibv_gid *g)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(g->raw, prefix, sizeof(prefix));
}

/*
 * The device keeps no AH objects: a UD WQE carries the whole address
 * vector, so an AH is resolved here once and lives in user memory only.
 */
static struct ibv_ah *vru_create_ah(struct ibv_pd *pd,
				    struct ibv_ah_attr *attr)
{
	struct ibv_context *context = pd->context;
	enum ibv_gid_type_sysfs type;
	union ibv_gid sgid;
	struct vru_ah *ah;
	uint16_t vid;
	bool v4;

	if (!attr->is_global || attr->port_num != 1) {
		errno = EINVAL;
		return NULL;
	}
	if (ibv_query_gid(context, 1, attr->grh.sgid_index, &sgid) ||
	    ibv_query_gid_type(context, 1, attr->grh.sgid_index, &type)) {
		errno = EINVAL;
		return NULL;
	}
	if (type != IBV_GID_TYPE_SYSFS_ROCE_V2) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	v4 = gid_is_v4mapped(&sgid);
	if (gid_is_v4mapped(&attr->grh.dgid) != v4) {
		errno = EINVAL;
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	if (ibv_resolve_eth_l2_from_gid(context, attr, ah->av.dmac, &vid)) {
		free(ah);
		errno = EHOSTUNREACH;
		return NULL;
	}
	memcpy(ah->av.dgid, attr->grh.dgid.raw, sizeof(ah->av.dgid));
	ah->av.sgid_index = attr->grh.sgid_index;
	ah->av.hop_limit = attr->grh.hop_limit;
	ah->av.traffic_class = attr->grh.traffic_class;
	ah->av.network_type = v4 ? VIRTIO_RDMA_NETWORK_IPV4 :
				   VIRTIO_RDMA_NETWORK_IPV6;
	ah->av.flow_label = htole32(attr->grh.flow_label & 0xfffff);
	return &ah->ibah;
}

static int vru_destroy_ah(struct ibv_ah *ah)
{
	free(to_vru_ah(ah));
	return 0;
}

static void vru_free_context(struct ibv_context *ibctx)
{
	struct vru_context *ctx = to_vctx(ibctx);

	verbs_uninit_context(&ctx->vctx);
	free(ctx);
}

static const struct verbs_context_ops vru_ctx_ops = {
	.alloc_mw = vru_alloc_mw,
	.alloc_parent_domain = vru_alloc_parent_domain,
	.alloc_pd = vru_alloc_pd,
	.attach_mcast = ibv_cmd_attach_mcast,
	.bind_mw = vru_bind_mw,
	.close_xrcd = vru_close_xrcd,
	.create_ah = vru_create_ah,
	.create_cq = vru_create_cq,
	.create_cq_ex = vru_create_cq_ex,
	.create_qp = vru_create_qp,
	.create_qp_ex = vru_create_qp_ex,
	.create_srq = vru_create_srq,
	.create_srq_ex = vru_create_srq_ex,
	.dealloc_mw = vru_dealloc_mw,
	.dealloc_pd = vru_dealloc_pd,
	.dereg_mr = vru_dereg_mr,
	.destroy_ah = vru_destroy_ah,
	.destroy_cq = vru_destroy_cq,
	.destroy_qp = vru_destroy_qp,
	.destroy_srq = vru_destroy_srq,
	.detach_mcast = ibv_cmd_detach_mcast,
	.free_context = vru_free_context,
	.get_srq_num = vru_get_srq_num,
	.import_mr = vru_import_mr,
	.import_pd = vru_import_pd,
	.modify_qp = vru_modify_qp,
	.modify_srq = vru_modify_srq,
	.open_qp = vru_open_qp,
	.open_xrcd = vru_open_xrcd,
	.poll_cq = vru_poll_cq,
	.post_recv = vru_post_recv,
	.post_srq_recv = vru_post_srq_recv,
	.post_send = vru_post_send,
	.post_srq_ops = vru_post_srq_ops,
	.query_device_ex = vru_query_device_ex,
	.query_port = vru_query_port,
	.query_qp = vru_query_qp,
	.query_srq = vru_query_srq,
	.reg_mr = vru_reg_mr,
	.rereg_mr = vru_rereg_mr,
	.req_notify_cq = vru_req_notify_cq,
	.resize_cq = vru_resize_cq,
	.unimport_mr = vru_unimport_mr,
	.unimport_pd = vru_unimport_pd,
};

static struct verbs_context *vru_alloc_context(struct ibv_device *ibdev,
					       int cmd_fd,
					       void *private_data)
{
	struct vru_get_context_cmd cmd = {};
	struct vru_get_context_resp resp = {};
	struct vru_context *ctx;

	(void)private_data;
	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, vctx,
					   RDMA_DRIVER_VIRTIO_RDMA);
	if (!ctx)
		return NULL;
	if (ibv_cmd_get_context(&ctx->vctx, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp)))
		goto err;
	if (resp.drv.abi_version != VIRTIO_RDMA_UVERBS_ABI_VERSION ||
	    resp.drv.cqe_shift != VIRTIO_RDMA_CQE_SHIFT) {
		errno = EPROTO;
		goto err;
	}
	ctx->caps = resp.drv;
	verbs_set_ops(&ctx->vctx, &vru_ctx_ops);
	return &ctx->vctx;

err:
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
	return NULL;
}

/*
 * A context over a command fd another context opened (ibv_import_device):
 * the kernel already holds its ucontext, so only the generic queries are
 * sent.  Of the alloc_ucontext answer the provider depends on cqe_shift,
 * which the ABI version fixes, and on atomic, which the device's atomic_cap
 * gives; the per-queue geometry comes with each create_cq/create_qp answer.
 */
static struct verbs_context *vru_import_context(struct ibv_device *ibdev,
						int cmd_fd)
{
	struct ibv_device_attr_ex attr = {};
	struct vru_context *ctx;
	int err;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, vctx,
					   RDMA_DRIVER_VIRTIO_RDMA);
	if (!ctx)
		return NULL;
	err = ibv_cmd_query_context(&ctx->vctx.context, NULL);
	if (!err)
		err = vru_query_device_ex(&ctx->vctx.context, NULL, &attr,
					  sizeof(attr));
	if (err) {
		verbs_uninit_context(&ctx->vctx);
		free(ctx);
		errno = err;
		return NULL;
	}
	ctx->caps.abi_version = VIRTIO_RDMA_UVERBS_ABI_VERSION;
	ctx->caps.cqe_shift = VIRTIO_RDMA_CQE_SHIFT;
	ctx->caps.atomic = attr.orig_attr.atomic_cap != IBV_ATOMIC_NONE;
	verbs_set_ops(&ctx->vctx, &vru_ctx_ops);
	return &ctx->vctx;
}

static struct verbs_device *vru_alloc_device(struct verbs_sysfs_dev *sdev)
{
	struct vru_device *dev;

	(void)sdev;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	return &dev->vdev;
}

static void vru_uninit_device(struct verbs_device *vdev)
{
	free(container_of(vdev, struct vru_device, vdev));
}

static const struct verbs_match_ent vru_match_table[] = {
	/*
	 * Our own driver id: libibverbs puts it in every ioctl and the
	 * kernel checks it; sysfs enumeration has none, hence the name.
	 */
	VERBS_DRIVER_ID(RDMA_DRIVER_VIRTIO_RDMA),
	VERBS_NAME_MATCH("virtio_rdma", NULL),
	{}
};

static const struct verbs_device_ops vru_dev_ops = {
	.name = "virtio_rdma",
	.match_min_abi_version = VIRTIO_RDMA_UVERBS_ABI_VERSION,
	.match_max_abi_version = VIRTIO_RDMA_UVERBS_ABI_VERSION,
	.match_table = vru_match_table,
	.alloc_context = vru_alloc_context,
	.import_context = vru_import_context,
	.alloc_device = vru_alloc_device,
	.uninit_device = vru_uninit_device,
};

bool vru_is_ours(struct ibv_context *context)
{
	return verbs_get_device(context->device)->ops == &vru_dev_ops;
}

static void vru_dv_ring(struct virtio_rdmadv_ring *out,
			const struct vru_uring *r)
{
	out->buf = r->buf;
	out->depth = r->buf ? r->depth : 0;
	out->stride = r->buf ? 1U << r->shift : 0;
}

int virtio_rdmadv_init_obj(struct virtio_rdmadv_obj *obj, uint64_t obj_type)
{
	if (obj_type & ~(uint64_t)(VIRTIO_RDMADV_OBJ_QP | VIRTIO_RDMADV_OBJ_CQ))
		return EINVAL;
	if (((obj_type & VIRTIO_RDMADV_OBJ_QP) &&
	     !vru_is_ours(obj->qp.in->context)) ||
	    ((obj_type & VIRTIO_RDMADV_OBJ_CQ) &&
	     !vru_is_ours(obj->cq.in->context)))
		return EOPNOTSUPP;
	if (obj_type & VIRTIO_RDMADV_OBJ_QP) {
		struct vru_qp *qp = to_vru_qp(obj->qp.in);

		obj->qp.out->comp_mask = 0;
		vru_dv_ring(&obj->qp.out->sq, &qp->sq);
		vru_dv_ring(&obj->qp.out->rq, &qp->rq);
	}
	if (obj_type & VIRTIO_RDMADV_OBJ_CQ) {
		obj->cq.out->comp_mask = 0;
		vru_dv_ring(&obj->cq.out->ring, &to_vru_cq(obj->cq.in)->ring);
	}
	return 0;
}

int virtio_rdmadv_ring_doorbell(struct ibv_qp *ibqp, enum virtio_rdmadv_queue q)
{
	struct vru_qp *qp = to_vru_qp(ibqp);

	if (!vru_is_ours(ibqp->context))
		return EOPNOTSUPP;
	if (q == VIRTIO_RDMADV_SQ && qp->sq.buf)
		return vru_sq_doorbell(qp);
	if (q == VIRTIO_RDMADV_RQ && qp->rq.buf)
		return vru_rq_doorbell(qp);
	return EINVAL;
}

PROVIDER_DRIVER(virtio_rdma, vru_dev_ops);
