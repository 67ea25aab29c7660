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

/*
 * Indirect memory keys (VIRTIO_RDMA_F_INDIRECT_MKEY), with the semantics of
 * mlx5dv's mkey configure API: an mkey is a zero-based, virtually
 * contiguous address space made of chunks of registered MRs of its PD,
 * laid out as a list or interleaved, configured by a work request on a
 * QP's send queue.  See Documentation/virtio_rdmadv_mkey.3.md.
 */
struct virtio_rdmadv_mkey_init_attr {
	struct ibv_pd *pd;
	uint32_t create_flags;		/* none defined: 0 */
	uint16_t max_entries;		/* in: wanted; out: granted */
};

struct virtio_rdmadv_mkey {
	uint32_t lkey;
	uint32_t rkey;
};

/* Returns the mkey (unconfigured), or NULL with errno set. */
struct virtio_rdmadv_mkey *
virtio_rdmadv_create_mkey(struct virtio_rdmadv_mkey_init_attr *attr);
/* Returns 0 or an errno value. */
int virtio_rdmadv_destroy_mkey(struct virtio_rdmadv_mkey *mkey);

enum virtio_rdmadv_qp_init_attr_mask {
	VIRTIO_RDMADV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS = 1 << 0,
};

enum virtio_rdmadv_qp_send_ops {
	VIRTIO_RDMADV_QP_EX_WITH_MKEY_CONFIGURE = 1 << 0,
};

struct virtio_rdmadv_qp_init_attr {
	uint64_t comp_mask;		/* virtio_rdmadv_qp_init_attr_mask */
	uint64_t send_ops_flags;	/* virtio_rdmadv_qp_send_ops */
};

/*
 * As ibv_create_qp_ex(), plus the direct-verbs work requests of
 * @dv_attr->send_ops_flags; @attr must ask for an extended QP
 * (IBV_QP_INIT_ATTR_SEND_OPS_FLAGS).  NULL with errno set on failure.
 */
struct ibv_qp *virtio_rdmadv_create_qp(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *attr,
				       struct virtio_rdmadv_qp_init_attr *dv_attr);

struct virtio_rdmadv_mr_interleaved {
	uint64_t addr;
	uint32_t bytes_count;
	uint32_t bytes_skip;
	uint32_t lkey;
};

struct virtio_rdmadv_mkey_conf_attr {
	uint32_t conf_flags;		/* none defined: 0 */
	uint64_t comp_mask;		/* none defined: 0 */
};

/* The completion opcode of a signaled mkey configuration. */
#define VIRTIO_RDMADV_WC_MKEY_CONFIGURE	IBV_WC_DRIVER1

struct virtio_rdmadv_qp_ex {
	uint64_t comp_mask;		/* none defined: 0 */
	void (*wr_mkey_configure)(struct virtio_rdmadv_qp_ex *dv_qp,
				  struct virtio_rdmadv_mkey *mkey,
				  uint8_t num_setters,
				  struct virtio_rdmadv_mkey_conf_attr *attr);
	void (*wr_set_mkey_access_flags)(struct virtio_rdmadv_qp_ex *dv_qp,
					 uint32_t access_flags);
	void (*wr_set_mkey_layout_list)(struct virtio_rdmadv_qp_ex *dv_qp,
					uint16_t num_sges,
					const struct ibv_sge *sge);
	void (*wr_set_mkey_layout_interleaved)(
		struct virtio_rdmadv_qp_ex *dv_qp, uint32_t repeat_count,
		uint16_t num_interleaved,
		const struct virtio_rdmadv_mr_interleaved *data);
};

/* NULL unless @qp was created by virtio_rdmadv_create_qp(). */
struct virtio_rdmadv_qp_ex *
virtio_rdmadv_qp_ex_from_ibv_qp_ex(struct ibv_qp_ex *qp);

static inline void
virtio_rdmadv_wr_mkey_configure(struct virtio_rdmadv_qp_ex *dv_qp,
				struct virtio_rdmadv_mkey *mkey,
				uint8_t num_setters,
				struct virtio_rdmadv_mkey_conf_attr *attr)
{
	dv_qp->wr_mkey_configure(dv_qp, mkey, num_setters, attr);
}

static inline void
virtio_rdmadv_wr_set_mkey_access_flags(struct virtio_rdmadv_qp_ex *dv_qp,
				       uint32_t access_flags)
{
	dv_qp->wr_set_mkey_access_flags(dv_qp, access_flags);
}

static inline void
virtio_rdmadv_wr_set_mkey_layout_list(struct virtio_rdmadv_qp_ex *dv_qp,
				      uint16_t num_sges,
				      const struct ibv_sge *sge)
{
	dv_qp->wr_set_mkey_layout_list(dv_qp, num_sges, sge);
}

static inline void virtio_rdmadv_wr_set_mkey_layout_interleaved(
	struct virtio_rdmadv_qp_ex *dv_qp, uint32_t repeat_count,
	uint16_t num_interleaved,
	const struct virtio_rdmadv_mr_interleaved *data)
{
	dv_qp->wr_set_mkey_layout_interleaved(dv_qp, repeat_count,
					      num_interleaved, data);
}

#ifdef __cplusplus
}
#endif

#endif /* __VIRTIO_RDMADV_H__ */
