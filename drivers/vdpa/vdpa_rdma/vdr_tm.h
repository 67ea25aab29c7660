/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: tag matching (VIRTIO_RDMA_F_TM_SRQ), vdr_tm.c.
 *
 * The tag list of a TM-SRQ (struct vdr_tm) is plain data changed by pure
 * functions, so that KUnit checks the rules without a device; the SRQ's
 * lock (srq->lock) covers it.  The rest of vdr_tm.c maps the ops area,
 * runs the ops and writes their CQEs and release words.
 */
#ifndef _VDR_TM_H
#define _VDR_TM_H

#include <linux/list.h>
#include <linux/types.h>
#include <linux/virtio_rdma.h>

/* Device limits; QUERY_DEVICE reports them with VIRTIO_RDMA_F_TM_SRQ. */
#define VDR_TM_MAX_TAGS		256
#define VDR_TM_MAX_OPS		256
#define VDR_TM_MAX_SGE		4
#define VDR_TM_MAX_RNDV_HDR	64
#define VDR_TM_MAX_OPS_SHIFT	3

#define VDR_TM_OP_HDR		sizeof(struct virtio_rdma_tm_op)
#define VDR_TMH_SIZE		sizeof(struct virtio_rdma_tmh)
/* A rendezvous request: TMH, then RVH; its FIN echoes both. */
#define VDR_TM_RNDV_MIN		(VDR_TMH_SIZE + sizeof(struct virtio_rdma_rvh))

/*
 * The internal send queue of a QP on a TM-SRQ (kernel memory, the SQ's
 * layout) for the rendezvous READs and FINs: a READ's local SGEs are a
 * tagged buffer's, a FIN is inline.
 */
#define VDR_TM_SQ_DEPTH		32
#define VDR_TM_SQ_SHIFT		1	/* stride 128: 4 SGEs */
#define VDR_TM_SQ_SGE		VDR_TM_MAX_SGE
#define VDR_TM_SQ_INLINE	VDR_TM_RNDV_MIN

struct vdr_tm_entry {
	struct list_head node;	/* in vdr_tm.list while posted */
	u32 handle;		/* 0: the index is free */
	bool posted;		/* in the list, neither consumed nor deleted */
	bool active;		/* may match (sw_cnt == hw_cnt once) */
	u8 num_sge;
	u64 recv_wr_id;
	u64 tag;
	u64 mask;
	struct virtio_rdma_sge sge[VDR_TM_MAX_SGE];
};

struct vdr_tm {
	struct list_head list;	/* posted entries, in ADD order */
	struct vdr_tm_entry *e;	/* max_tags, by handle index */
	u32 max_tags;
	u32 max_sge;		/* of an ADD: the device's and the stride's */
	u32 sw_cnt;		/* unexpected messages software has seen */
	u32 hw_cnt;		/* unexpected messages delivered */
};

/* What an op did: the CQE to write and the release word, if any. */
struct vdr_tm_op_res {
	bool cqe;
	u8 status;		/* VIRTIO_RDMA_WC_* */
	u8 wc_opcode;		/* VIRTIO_RDMA_WC_OP_TM_* */
	u8 tm_flags;		/* VIRTIO_RDMA_TM_F_SYNC_REQ or 0 */
	bool release;
	u32 rel_index;
	u32 rel_handle;
};

/* How the message in progress of a QP on a TM-SRQ is received. */
enum {
	VDR_TM_MSG_RECV,	/* an ordinary receive (no or a FIN TMH) */
	VDR_TM_MSG_NO_TAG,	/* into the SRQ's ring, TM_NO_TAG */
	VDR_TM_MSG_UNEXP,	/* into the SRQ's ring, TM_RECV, counted */
	VDR_TM_MSG_EAGER,	/* into a tagged buffer */
	VDR_TM_MSG_RNDV,	/* a rendezvous request: READ, then FIN */
};

/* A rendezvous READ on a QP's internal send queue, by its slot. */
struct vdr_tm_rndv {
	u64 recv_wr_id;
	u32 handle;
	u32 len;
	u8 fin[VDR_TM_RNDV_MIN];	/* the FIN's payload: TMH and RVH */
};

/* A QP on a TM-SRQ: its internal send queue (qp->sq), under qp->lock. */
struct vdr_tm_qp {
	void *ring_mem;
	u32 fin_reserved;	/* READs posted whose FIN is still to come */
	struct vdr_tm_rndv rndv[VDR_TM_SQ_DEPTH];
};

static inline u32 vdr_tm_index(u32 handle)
{
	return handle & VIRTIO_RDMA_TM_HANDLE_INDEX_MASK;
}

int vdr_tm_init(struct vdr_tm *tm, u32 max_tags, u32 max_sge, gfp_t gfp);
void vdr_tm_fini(struct vdr_tm *tm);
int vdr_tm_op(struct vdr_tm *tm, const struct virtio_rdma_tm_op *op,
	      const struct virtio_rdma_sge *sge, struct vdr_tm_op_res *res);
struct vdr_tm_entry *vdr_tm_match(struct vdr_tm *tm, u64 tag);
void vdr_tm_consume(struct vdr_tm *tm, struct vdr_tm_entry *e);
bool vdr_tm_release(struct vdr_tm *tm, u32 handle);
u32 vdr_tm_sge_trim(struct virtio_rdma_sge *sge, u32 num, u64 len);
u32 vdr_tm_ops_max_sge(u8 ops_shift);
u8 vdr_tm_msg_kind(const void *payload, u32 len, bool only);
u8 vdr_tm_msg_wc_opcode(u8 kind);

#endif /* _VDR_TM_H */
