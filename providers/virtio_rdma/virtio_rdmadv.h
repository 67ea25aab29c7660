/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * virtio_rdma direct verbs: where the provider keeps a QP's and a CQ's
 * rings, for programs that read or write them themselves (as mlx5dv_init_obj
 * does for mlx5).  The ring formats are the device ABI of
 * <linux/virtio_rdma.h>: a struct virtio_rdma_ring_ctl at buf, then depth
 * entries of stride bytes.  Installed as <infiniband/virtio_rdmadv.h>.
 *
 * Writing a ring behind the provider's back leaves the provider's own
 * indices stale: a QP or CQ driven this way should not also be used through
 * ibv_post_send/ibv_post_recv/ibv_poll_cq.  ibv_resize_cq moves a CQ to a
 * new ring and unmaps the old one: call virtio_rdmadv_init_obj again after
 * it.
 */
#ifndef __VIRTIO_RDMADV_H__
#define __VIRTIO_RDMADV_H__

#include <stdint.h>
#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

struct virtio_rdmadv_ring {
	void *buf;		/* struct virtio_rdma_ring_ctl, then entries */
	uint32_t depth;		/* entries, a power of two; 0: no ring */
	uint32_t stride;	/* bytes per entry */
};

struct virtio_rdmadv_qp {
	uint64_t comp_mask;	/* out: none defined, 0 */
	struct virtio_rdmadv_ring sq;
	struct virtio_rdmadv_ring rq;
};

struct virtio_rdmadv_cq {
	uint64_t comp_mask;	/* out: none defined, 0 */
	struct virtio_rdmadv_ring ring;
};

struct virtio_rdmadv_obj {
	struct {
		struct ibv_qp *in;
		struct virtio_rdmadv_qp *out;
	} qp;
	struct {
		struct ibv_cq *in;
		struct virtio_rdmadv_cq *out;
	} cq;
};

enum virtio_rdmadv_obj_type {
	VIRTIO_RDMADV_OBJ_QP = 1 << 0,
	VIRTIO_RDMADV_OBJ_CQ = 1 << 1,
};

/*
 * Fills the out structures of the objects @obj_type names.  Returns 0, or
 * EINVAL for an unknown type bit and EOPNOTSUPP for an object that is not
 * a virtio_rdma one.
 */
int virtio_rdmadv_init_obj(struct virtio_rdmadv_obj *obj, uint64_t obj_type);

enum virtio_rdmadv_queue {
	VIRTIO_RDMADV_SQ = 1,
	VIRTIO_RDMADV_RQ = 2,
};

/*
 * Rings the doorbell of a QP's SQ or RQ: the device looks at the ring's
 * prod again.  A program that publishes WQEs itself calls it when
 * virtio_rdma_need_doorbell() says so.  Returns 0 or an errno value.
 */
int virtio_rdmadv_ring_doorbell(struct ibv_qp *qp, enum virtio_rdmadv_queue q);

#ifdef __cplusplus
}
#endif

#endif /* __VIRTIO_RDMADV_H__ */
