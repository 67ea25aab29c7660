/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma rdma-core provider: objects.  The data path works on the CQ,
 * SQ and RQ rings the kernel maps into the process (device ABI:
 * include/uapi/linux/virtio_rdma.h, Documentation/virtio-rdma-spec.rst).
 */
#ifndef VRU_PROVIDER_H
#define VRU_PROVIDER_H

#include <endian.h>
#include <pthread.h>
#include <stdatomic.h>

#include <ccan/container_of.h>
#include <infiniband/driver.h>
#include <linux/virtio_rdma.h>
#include <rdma/virtio_rdma-abi.h>

#include "virtio_rdmadv.h"

struct vru_device {
	struct verbs_device vdev;
};

struct vru_context {
	struct verbs_context vctx;
	struct virtio_rdma_uverbs_alloc_ucontext_resp caps;
};

/*
 * A protection domain, or a parent domain over one (protection != NULL).
 * A parent domain carries its protection domain's kernel handle, so every
 * command that takes a PD works on either.
 */
struct vru_pd {
	struct ibv_pd ibpd;
	struct vru_pd *protection;
	atomic_int refcount;		/* parent domains over this PD */
};

/* A ring mapped from the kernel: ring_ctl, then depth entries of 1 << shift. */
struct vru_uring {
	void *buf;
	size_t size;
	uint32_t depth;
	uint32_t shift;
	uint32_t head;		/* SQ/RQ: prod we own; CQ: cons we own */
};

struct vru_cq {
	struct verbs_cq vcq;
	pthread_spinlock_t lock;
	struct vru_uring ring;
	uint32_t arm_sn;
	/* ibv_cq_ex polling state */
	const struct virtio_rdma_cqe *cur;
	uint32_t start;
};

/*
 * A QP.  XRC_SEND has an SQ and no RQ; XRC_RECV (created, or opened with
 * ibv_open_qp) has no ring at all: sq.buf and rq.buf stay NULL.
 */
struct vru_qp {
	struct verbs_qp vqp;
	pthread_spinlock_t sq_lock;
	pthread_spinlock_t rq_lock;
	struct vru_uring sq;
	struct vru_uring rq;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline;
	/* ibv_wr_* state, between ibv_wr_start and ibv_wr_complete */
	uint32_t wr_old;
	int wr_err;
	struct virtio_rdma_sq_wqe *wr_cur;
	/* virtio_rdmadv_create_qp() with MKEY_CONFIGURE (mkey.c) */
	bool dv_mkey;
	struct virtio_rdmadv_qp_ex dv;
	/* The MKEY_CONFIGURE being built: setters owed, kinds given. */
	uint8_t mkey_owed;
	uint8_t mkey_given;
	uint16_t mkey_max;
};

/*
 * A shared receive queue (srq.c), basic, XRC or TM: the kernel maps its
 * ring as an RQ's.  A TM-SRQ also has an ops ring, followed in the same
 * mapping by the release words the device writes; @issued holds the last
 * handle this process gave each tag index (a free index is one whose
 * release word has caught up with it).
 */
struct vru_srq {
	struct verbs_srq vsrq;
	pthread_spinlock_t lock;	/* ring head; ops head and @issued */
	struct vru_uring ring;
	uint32_t max_sge;
	struct vru_uring ops;
	__le32 *release;
	uint32_t *issued;
	uint32_t max_num_tags;
	uint32_t max_tm_sge;
	uint32_t next_tag;		/* where the search for a free index starts */
};

struct vru_ah {
	struct ibv_ah ibah;
	struct virtio_rdma_av av;
};

static inline struct vru_context *to_vctx(struct ibv_context *c)
{
	return container_of(c, struct vru_context, vctx.context);
}

static inline struct vru_pd *to_vru_pd(struct ibv_pd *pd)
{
	return container_of(pd, struct vru_pd, ibpd);
}

static inline struct vru_cq *to_vru_cq(struct ibv_cq *cq)
{
	return container_of(cq, struct vru_cq, vcq.cq);
}

static inline struct vru_cq *cqex_to_vru_cq(struct ibv_cq_ex *cq)
{
	return container_of(cq, struct vru_cq, vcq.cq_ex);
}

static inline struct vru_qp *to_vru_qp(struct ibv_qp *qp)
{
	return container_of(qp, struct vru_qp, vqp.qp);
}

static inline struct vru_qp *qpex_to_vru_qp(struct ibv_qp_ex *qp)
{
	return container_of(qp, struct vru_qp, vqp.qp_ex);
}

static inline struct vru_srq *to_vru_srq(struct ibv_srq *srq)
{
	return container_of(srq, struct vru_srq, vsrq.srq);
}

static inline struct vru_ah *to_vru_ah(struct ibv_ah *ah)
{
	return container_of(ah, struct vru_ah, ibah);
}

static inline struct virtio_rdma_ring_ctl *uring_ctl(struct vru_uring *r)
{
	return r->buf;
}

static inline void *uring_entry(struct vru_uring *r, uint32_t idx)
{
	return (char *)r->buf +
	       virtio_rdma_ring_entry_offset(idx, r->depth, r->shift);
}

/*
 * ring_ctl words: aligned 32-bit, little-endian, single-copy atomic, shared
 * with the device; C11 atomics give the orders the spec asks for, as
 * rxe_queue.h does for rxe's rings.
 */
static inline _Atomic(uint32_t) *ring_word(__le32 *p)
{
	return (_Atomic(uint32_t) *)p;
}

static inline uint32_t ring_load_acquire(__le32 *p)
{
	return le32toh(atomic_load_explicit(ring_word(p), memory_order_acquire));
}

static inline uint32_t ring_load(__le32 *p)
{
	return le32toh(atomic_load_explicit(ring_word(p), memory_order_relaxed));
}

static inline void ring_store_release(__le32 *p, uint32_t v)
{
	atomic_store_explicit(ring_word(p), htole32(v), memory_order_release);
}

static inline void ring_store(__le32 *p, uint32_t v)
{
	atomic_store_explicit(ring_word(p), htole32(v), memory_order_relaxed);
}

/* verbs.c */
bool vru_is_ours(struct ibv_context *context);
struct ibv_qp *vru_create_qp_ex(struct ibv_context *context,
				struct ibv_qp_init_attr_ex *attr);
int vru_map_ring(struct ibv_context *context, struct vru_uring *r,
		 uint64_t key, uint64_t size, uint32_t depth, uint32_t shift);
void vru_unmap_ring(struct vru_uring *r);

/* srq.c */
struct ibv_srq *vru_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *attr);
int vru_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		   int attr_mask);
int vru_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr);
int vru_destroy_srq(struct ibv_srq *srq);
struct ibv_srq *vru_create_srq_ex(struct ibv_context *context,
				  struct ibv_srq_init_attr_ex *attr);
int vru_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num);
int vru_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);
int vru_post_srq_ops(struct ibv_srq *srq, struct ibv_ops_wr *op,
		     struct ibv_ops_wr **bad_op);

/* mkey.c */
void vru_qp_dv_init(struct vru_qp *qp);

/* mw.c */
struct ibv_mw *vru_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int vru_dealloc_mw(struct ibv_mw *mw);
int vru_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		struct ibv_mw_bind *mw_bind);

/* datapath.c */
bool vru_ring_full(struct vru_uring *r);
bool vru_ring_publish(struct vru_uring *r, uint32_t old);
int vru_copy_sges(struct vru_qp *qp, struct virtio_rdma_sge *dst,
		  const struct ibv_sge *src, int num, uint32_t max);
int vru_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc);
int vru_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
void vru_cq_clean(struct vru_cq *cq, uint32_t qpn);
int vru_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr);
int vru_post_sends(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr, bool type1_bind);
int vru_ring_put_recvs(struct vru_uring *r, struct ibv_recv_wr **wr,
		       uint32_t max_sge);
int vru_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr);
int vru_sq_doorbell(struct vru_qp *qp);
int vru_rq_doorbell(struct vru_qp *qp);
void vru_cq_ex_init(struct vru_cq *cq, uint64_t wc_flags);
void vru_qp_ex_init(struct vru_qp *qp, uint64_t send_ops_flags);
struct virtio_rdma_sq_wqe *vru_wr_next(struct ibv_qp_ex *ibqp,
				       uint8_t opcode);

#endif /* VRU_PROVIDER_H */
