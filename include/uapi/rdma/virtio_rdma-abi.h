/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma uverbs ABI: the driver-private udata exchanged between
 * virtio_rdma.ko and the rdma-core provider libvirtio_rdma-rdmav34.so.
 *
 * Every structure has a fixed size that is a multiple of 8, explicit
 * padding and a comp_mask.  The kernel rejects request comp_mask bits it does
 * not know and non-zero reserved fields with -EINVAL.  A shorter request is
 * zero-extended; a response is truncated to the provider's buffer.
 *
 * The rings themselves (ring_ctl, WQE and CQE formats) are the device ABI of
 * include/uapi/linux/virtio_rdma.h: the provider writes and reads the same
 * memory the device does.  User space never supplies a DMA address: the
 * kernel allocates every ring and the device checks every SGE against an MR.
 */
#ifndef VIRTIO_RDMA_ABI_USER_H
#define VIRTIO_RDMA_ABI_USER_H

#include <linux/types.h>
#include <rdma/ib_user_ioctl_cmds.h>

/*
 * The driver id of virtio_rdma (ib_device_ops.driver_id): libibverbs matches
 * the device to the provider by it, and every uverbs ioctl must name it.
 * Upstream, a driver claims its id by adding a value at the end of enum
 * rdma_driver_id in <rdma/ib_user_ioctl_verbs.h> in its submission.  Out of
 * tree that enum cannot grow, so the id is claimed the same way here: the
 * next value after the last one of Linux 6.12 (RDMA_DRIVER_MANA, 20), which
 * Debian 12's 6.1 (last RDMA_DRIVER_ERDMA, 19) does not use either.  Replace
 * it with the enum value when upstream assigns one: mainline kernels after
 * 6.12 have given 21 to RDMA_DRIVER_IONIC.
 */
#define RDMA_DRIVER_VIRTIO_RDMA			21

/* ib_device_ops.uverbs_abi_ver; the provider accepts exactly this one. */
#define VIRTIO_RDMA_UVERBS_ABI_VERSION		1

/* alloc_ucontext (ibv_get_context) */
struct virtio_rdma_uverbs_alloc_ucontext_req {
	__u32 comp_mask;		/* none defined: 0 */
	__u32 reserved;
};

struct virtio_rdma_uverbs_alloc_ucontext_resp {
	__u32 comp_mask;		/* none defined: 0 */
	__u32 abi_version;		/* VIRTIO_RDMA_UVERBS_ABI_VERSION */
	__u32 max_qp_wr;		/* largest SQ/RQ depth */
	__u32 max_cqe;			/* largest CQ depth */
	__u32 max_send_sge;
	__u32 max_recv_sge;
	__u32 max_inline_data;
	__u8 max_sq_wqe_shift;		/* SQ stride is 64 << shift */
	__u8 max_rq_wqe_shift;		/* RQ stride is 16 << shift */
	__u8 cqe_shift;			/* log2 of the CQE size (6) */
	__u8 atomic;			/* 8-byte atomics supported */
	__u32 page_size;		/* ring sizes are multiples of this */
	__u32 reserved[3];
};

/* create_cq (ibv_create_cq, ibv_create_cq_ex) */
struct virtio_rdma_uverbs_create_cq_req {
	__u32 comp_mask;		/* none defined: 0 */
	__u32 reserved;
};

struct virtio_rdma_uverbs_create_cq_resp {
	__u32 comp_mask;		/* none defined: 0 */
	__u32 cq_handle;
	__u32 depth;			/* power of two, CQEs in the ring */
	__u32 reserved;
	__aligned_u64 ring_mmap_key;	/* mmap() offset of the ring */
	__aligned_u64 ring_size;	/* bytes to map, page multiple */
};

/*
 * resize_cq (ibv_resize_cq).  The CQ moves to a new ring with the same
 * free-running indices; the provider maps it by the new key and unmaps the
 * old ring, which the kernel no longer offers for mapping.
 */
struct virtio_rdma_uverbs_resize_cq_req {
	__u32 comp_mask;		/* none defined: 0 */
	__u32 reserved;
};

struct virtio_rdma_uverbs_resize_cq_resp {
	__u32 comp_mask;		/* none defined: 0 */
	__u32 depth;			/* power of two, CQEs in the new ring */
	__aligned_u64 ring_mmap_key;	/* mmap() offset of the new ring */
	__aligned_u64 ring_size;	/* bytes to map, page multiple */
};

/*
 * create_qp (ibv_create_qp, ibv_create_qp_ex).  An XRC_SEND (XRC_INI) QP
 * has no receive queue (rq_depth 0, WQE_SHIFTS' rq_wqe_shift ignored).  An
 * XRC_RECV (XRC_TGT) QP has no driver data at all: ib_core creates it
 * without udata, as it is shared by the processes that open it, and it has
 * no rings; the core response's qpn is all there is.
 */
#define VIRTIO_RDMA_CREATE_QP_REQ_WQE_SHIFTS	(1U << 0)

struct virtio_rdma_uverbs_create_qp_req {
	__u32 comp_mask;		/* VIRTIO_RDMA_CREATE_QP_REQ_* */
	/* With WQE_SHIFTS: the strides to use, else the kernel chooses. */
	__u8 sq_wqe_shift;
	__u8 rq_wqe_shift;
	__u8 reserved[2];
};

struct virtio_rdma_uverbs_create_qp_resp {
	__u32 comp_mask;		/* none defined: 0 */
	__u32 qpn;
	__u32 sq_depth;			/* power of two */
	__u32 rq_depth;			/* 0: no receive queue */
	__u8 sq_wqe_shift;		/* SQ stride is 64 << sq_wqe_shift */
	__u8 rq_wqe_shift;		/* RQ stride is 16 << rq_wqe_shift */
	__u8 reserved1[2];
	__u32 max_send_sge;
	__u32 max_recv_sge;
	__u32 max_inline_data;
	__aligned_u64 sq_mmap_key;
	__aligned_u64 sq_ring_size;
	__aligned_u64 rq_mmap_key;	/* valid if rq_depth != 0 */
	__aligned_u64 rq_ring_size;
};

/*
 * create_srq (ibv_create_srq, ibv_create_srq_ex with IBV_SRQT_BASIC,
 * IBV_SRQT_XRC or IBV_SRQT_TM).  An XRC or TM SRQ's ring is mapped and
 * posted to as a basic one's; an XRC SRQ's srq_handle is its SRQ number,
 * also in the core response.  A TM-SRQ also has an ops area (struct
 * virtio_rdma_tm_op ring, then the release words), mapped at
 * ops_mmap_key; an empty ibv_post_srq_recv() is its doorbell.
 */
/* create_srq_req.comp_mask */
#define VIRTIO_RDMA_UVERBS_SRQ_TM		0x1	/* max_ops is set */

struct virtio_rdma_uverbs_create_srq_req {
	__u32 comp_mask;
	__u32 max_ops;			/* TM: ops ring depth wanted */
};

struct virtio_rdma_uverbs_create_srq_resp {
	__u32 comp_mask;		/* VIRTIO_RDMA_UVERBS_SRQ_TM for TM */
	__u32 srq_handle;
	__u32 depth;			/* power of two, WQEs in the ring */
	__u8 wqe_shift;			/* stride is 16 << wqe_shift */
	__u8 reserved1[3];
	__u32 max_sge;
	__u32 reserved;
	__aligned_u64 ring_mmap_key;	/* mmap() offset of the ring */
	__aligned_u64 ring_size;	/* bytes to map, page multiple */
	/* TM only, else 0 */
	__u32 ops_depth;		/* power of two */
	__u8 ops_shift;			/* stride is 64 << ops_shift */
	__u8 reserved2[3];
	__u32 max_num_tags;		/* release words after the ops */
	__u32 max_tm_sge;
	__aligned_u64 ops_mmap_key;
	__aligned_u64 ops_size;		/* bytes to map, page multiple */
};

/*
 * Indirect memory keys (VIRTIO_RDMA_F_INDIRECT_MKEY): a driver-specific
 * uverbs object, created and destroyed through the ioctl interface
 * (RDMA_VERBS_IOCTL, object and method ids in the driver name space).
 */
enum virtio_rdma_uverbs_objects {
	VIRTIO_RDMA_OBJECT_MKEY = (1U << UVERBS_ID_NS_SHIFT),
};

enum virtio_rdma_mkey_methods {
	VIRTIO_RDMA_METHOD_MKEY_CREATE = (1U << UVERBS_ID_NS_SHIFT),
	VIRTIO_RDMA_METHOD_MKEY_DESTROY,
};

enum virtio_rdma_mkey_create_attrs {
	VIRTIO_RDMA_ATTR_MKEY_CREATE_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
	VIRTIO_RDMA_ATTR_MKEY_CREATE_PD_HANDLE,		/* a PD (read) */
	VIRTIO_RDMA_ATTR_MKEY_CREATE_MAX_ENTRIES,	/* in: __u32 */
	VIRTIO_RDMA_ATTR_MKEY_CREATE_LKEY,		/* out: __u32 */
	VIRTIO_RDMA_ATTR_MKEY_CREATE_RKEY,		/* out: __u32 */
};

enum virtio_rdma_mkey_destroy_attrs {
	VIRTIO_RDMA_ATTR_MKEY_DESTROY_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
};

#endif /* VIRTIO_RDMA_ABI_USER_H */
