// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma rdma-core provider: the data path.  post_send/post_recv write
 * WQEs into the mapped SQ/RQ rings and publish prod; a system call (an empty
 * ibv_cmd_post_send/recv, which the kernel turns into a doorbell) happens
 * only when the device's event index asks for one.  poll_cq reads CQEs from
 * the mapped CQ ring and req_notify_cq arms it with a word in the ring.
 */
#include <errno.h>
#include <string.h>

#include "vru.h"

#define VRU_SQ_HDR	sizeof(struct virtio_rdma_sq_wqe)
#define VRU_RQ_HDR	sizeof(struct virtio_rdma_rq_wqe)

#define VRU_SEND_FLAGS						\
	(IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |	\
	 IBV_SEND_INLINE)

_Static_assert(VIRTIO_RDMA_WQE_F_FENCE == IBV_SEND_FENCE, "");
_Static_assert(VIRTIO_RDMA_WQE_F_SIGNALED == IBV_SEND_SIGNALED, "");
_Static_assert(VIRTIO_RDMA_WQE_F_SOLICITED == IBV_SEND_SOLICITED, "");
_Static_assert(VIRTIO_RDMA_WQE_F_INLINE == IBV_SEND_INLINE, "");
_Static_assert(VIRTIO_RDMA_WR_RDMA_WRITE == IBV_WR_RDMA_WRITE, "");
_Static_assert(VIRTIO_RDMA_WR_SEND_WITH_INV == IBV_WR_SEND_WITH_INV, "");
_Static_assert(VIRTIO_RDMA_WR_LOCAL_INV == IBV_WR_LOCAL_INV, "");
_Static_assert(VIRTIO_RDMA_WR_BIND_MW == IBV_WR_BIND_MW, "");
_Static_assert(VIRTIO_RDMA_ACCESS_ZERO_BASED == IBV_ACCESS_ZERO_BASED, "");
_Static_assert(VIRTIO_RDMA_WC_LOC_LEN_ERR == IBV_WC_LOC_LEN_ERR, "");
_Static_assert(VIRTIO_RDMA_WC_GENERAL_ERR == IBV_WC_GENERAL_ERR, "");
_Static_assert(VIRTIO_RDMA_WC_TM_ERR == IBV_WC_TM_ERR, "");
_Static_assert(VIRTIO_RDMA_WC_TM_RNDV_INCOMPLETE == IBV_WC_TM_RNDV_INCOMPLETE,
	       "");
_Static_assert(VIRTIO_RDMA_WR_RDMA_READ == IBV_WR_RDMA_READ, "");
_Static_assert(VIRTIO_RDMA_WR_ATOMIC_CMP_AND_SWP == IBV_WR_ATOMIC_CMP_AND_SWP, "");
_Static_assert(VIRTIO_RDMA_WR_ATOMIC_FETCH_AND_ADD ==
	       IBV_WR_ATOMIC_FETCH_AND_ADD, "");
_Static_assert(VIRTIO_RDMA_QPT_RC == IBV_QPT_RC, "");
_Static_assert(VIRTIO_RDMA_QPT_UC == IBV_QPT_UC, "");
_Static_assert(VIRTIO_RDMA_QPT_UD == IBV_QPT_UD, "");
_Static_assert(VIRTIO_RDMA_QPT_XRC_INI == IBV_QPT_XRC_SEND, "");
_Static_assert(VIRTIO_RDMA_QPT_XRC_TGT == IBV_QPT_XRC_RECV, "");

/* ---------------------------------------------------------------- CQ -- */

/* An opcode virtio_rdma_wc_op_valid() rejects maps to SEND (with an error). */
static enum ibv_wc_opcode vru_wc_opcode(uint8_t op)
{
	switch (op) {
	case VIRTIO_RDMA_WC_OP_RDMA_WRITE:
		return IBV_WC_RDMA_WRITE;
	case VIRTIO_RDMA_WC_OP_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case VIRTIO_RDMA_WC_OP_COMP_SWAP:
		return IBV_WC_COMP_SWAP;
	case VIRTIO_RDMA_WC_OP_FETCH_ADD:
		return IBV_WC_FETCH_ADD;
	case VIRTIO_RDMA_WC_OP_LOCAL_INV:
		return IBV_WC_LOCAL_INV;
	case VIRTIO_RDMA_WC_OP_BIND_MW:
		return IBV_WC_BIND_MW;
	case VIRTIO_RDMA_WC_OP_MKEY_CONFIGURE:
		return VIRTIO_RDMADV_WC_MKEY_CONFIGURE;
	case VIRTIO_RDMA_WC_OP_RECV:
		return IBV_WC_RECV;
	case VIRTIO_RDMA_WC_OP_RECV_RDMA_WITH_IMM:
		return IBV_WC_RECV_RDMA_WITH_IMM;
	case VIRTIO_RDMA_WC_OP_TM_ADD:
		return IBV_WC_TM_ADD;
	case VIRTIO_RDMA_WC_OP_TM_DEL:
		return IBV_WC_TM_DEL;
	case VIRTIO_RDMA_WC_OP_TM_SYNC:
		return IBV_WC_TM_SYNC;
	case VIRTIO_RDMA_WC_OP_TM_RECV:
		return IBV_WC_TM_RECV;
	case VIRTIO_RDMA_WC_OP_TM_NO_TAG:
		return IBV_WC_TM_NO_TAG;
	default:
		return IBV_WC_SEND;
	}
}

/* The CQE opcodes only a TM-SRQ's CQ sees (VIRTIO_RDMA_F_TM_SRQ). */
static bool vru_wc_op_tm(uint8_t op)
{
	return (op >= VIRTIO_RDMA_WC_OP_TM_ADD &&
		op <= VIRTIO_RDMA_WC_OP_TM_SYNC) ||
	       op == VIRTIO_RDMA_WC_OP_TM_RECV ||
	       op == VIRTIO_RDMA_WC_OP_TM_NO_TAG;
}

/*
 * An unknown status or (successful) opcode is GENERAL_ERR, as in the
 * kernel; the TM statuses are known on TM CQEs only.
 */
static enum ibv_wc_status vru_wc_status(const struct virtio_rdma_cqe *cqe)
{
	if (vru_wc_op_tm(cqe->opcode)) {
		if (cqe->status == VIRTIO_RDMA_WC_SUCCESS ||
		    cqe->status == VIRTIO_RDMA_WC_TM_ERR ||
		    cqe->status == VIRTIO_RDMA_WC_TM_RNDV_INCOMPLETE)
			return cqe->status;
		return virtio_rdma_wc_status(cqe->status,
					     VIRTIO_RDMA_WC_OP_RECV);
	}
	return virtio_rdma_wc_status(cqe->status, cqe->opcode);
}

/*
 * The TM flags come with any status (SYNC_REQ on a refused ADD, MATCH on
 * an incomplete rendezvous); the others only with success.
 */
static unsigned int vru_wc_flags(const struct virtio_rdma_cqe *cqe)
{
	unsigned int f = 0;

	if (vru_wc_op_tm(cqe->opcode)) {
		if (cqe->tm_flags & VIRTIO_RDMA_TM_F_SYNC_REQ)
			f |= IBV_WC_TM_SYNC_REQ;
		if (cqe->tm_flags & VIRTIO_RDMA_TM_F_MATCH)
			f |= IBV_WC_TM_MATCH;
		if (cqe->tm_flags & VIRTIO_RDMA_TM_F_DATA_VALID)
			f |= IBV_WC_TM_DATA_VALID;
	}
	if (vru_wc_status(cqe) != IBV_WC_SUCCESS)
		return f;
	if (cqe->flags & VIRTIO_RDMA_WC_F_GRH)
		f |= IBV_WC_GRH;
	if (cqe->flags & VIRTIO_RDMA_WC_F_WITH_IMM)
		f |= IBV_WC_WITH_IMM;
	else if (cqe->flags & VIRTIO_RDMA_WC_F_WITH_INV)
		f |= IBV_WC_WITH_INV;
	return f;
}

/*
 * RoCE has no SL.  Like mlx5, report a UD receive's network header type in
 * it (2 IPv4, 1 IPv6): UCX before 1.19 finds the destination GID in the 40
 * bytes before the payload by it, and drops every datagram when it reads
 * the IPv6 offset for an IPv4 header.
 */
static uint8_t vru_wc_sl(const struct virtio_rdma_cqe *cqe)
{
	if (!(cqe->flags & VIRTIO_RDMA_WC_F_WITH_NETWORK_HDR_TYPE))
		return 0;
	switch (cqe->network_hdr_type) {
	case VIRTIO_RDMA_NETWORK_IPV4:
		return 2;
	case VIRTIO_RDMA_NETWORK_IPV6:
		return 1;
	default:
		return 0;
	}
}

static void vru_cqe_to_wc(const struct virtio_rdma_cqe *cqe,
			  struct ibv_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = le64toh(cqe->wr_id);
	wc->status = vru_wc_status(cqe);
	wc->opcode = vru_wc_opcode(cqe->opcode);
	wc->vendor_err = le32toh(cqe->vendor_err);
	wc->qp_num = le32toh(cqe->qp_handle);
	wc->wc_flags = vru_wc_flags(cqe);
	if (wc->status != IBV_WC_SUCCESS)
		return;
	wc->byte_len = le32toh(cqe->byte_len);
	wc->src_qp = le32toh(cqe->src_qp) & VIRTIO_RDMA_QPN_MASK;
	if (wc->wc_flags & IBV_WC_WITH_IMM)
		wc->imm_data = cqe->ex.imm_data;
	else if (wc->wc_flags & IBV_WC_WITH_INV)
		wc->invalidated_rkey = le32toh(cqe->ex.invalidated_rkey);
	wc->pkey_index = le16toh(cqe->pkey_index);
	wc->sl = vru_wc_sl(cqe);
}

/* The device's prod, or our own cons if it is out of range. */
static uint32_t vru_cq_prod(struct vru_cq *cq)
{
	uint32_t prod = ring_load_acquire(&uring_ctl(&cq->ring)->prod);

	if (!virtio_rdma_ring_valid(prod, cq->ring.head, cq->ring.depth))
		return cq->ring.head;
	return prod;
}

int vru_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct vru_cq *cq = to_vru_cq(ibcq);
	struct vru_uring *r = &cq->ring;
	uint32_t prod, start;
	int n = 0;

	pthread_spin_lock(&cq->lock);
	start = r->head;
	prod = vru_cq_prod(cq);
	while (n < ne && r->head != prod) {
		vru_cqe_to_wc(uring_entry(r, r->head), &wc[n++]);
		r->head++;
	}
	/* The device reuses the slots only after we have read them. */
	if (r->head != start)
		ring_store_release(&uring_ctl(r)->cons, r->head);
	pthread_spin_unlock(&cq->lock);
	return n;
}

/*
 * Drops the CQEs of QP @qpn that the device has published and we have not
 * consumed: a QP reset or destroyed leaves none behind (as mlx5 and the IB
 * spec's Reset do).  The device writes no more of them once the command
 * returned, and it never writes below prod, so the survivors are moved up
 * over the dropped ones and cons advances past the freed slots.
 */
void vru_cq_clean(struct vru_cq *cq, uint32_t qpn)
{
	struct vru_uring *r = &cq->ring;
	const struct virtio_rdma_cqe *cqe;
	uint32_t prod, i, n = 0;

	pthread_spin_lock(&cq->lock);
	prod = vru_cq_prod(cq);
	for (i = prod; i != r->head;) {
		i--;
		cqe = uring_entry(r, i);
		if (le32toh(cqe->qp_handle) == qpn)
			n++;
		else if (n)
			memcpy(uring_entry(r, i + n), cqe, 1U << r->shift);
	}
	if (n) {
		r->head += n;
		ring_store_release(&uring_ctl(r)->cons, r->head);
	}
	pthread_spin_unlock(&cq->lock);
}

int vru_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct vru_cq *cq = to_vru_cq(ibcq);
	uint32_t arm;

	pthread_spin_lock(&cq->lock);
	/* A new sequence number keeps the device from clearing this arm. */
	cq->arm_sn = (cq->arm_sn + 1) & VIRTIO_RDMA_CQ_ARM_SN_MASK;
	arm = VIRTIO_RDMA_CQ_ARM_ARMED | cq->arm_sn;
	if (solicited_only)
		arm |= VIRTIO_RDMA_CQ_ARM_SOLICITED;
	ring_store(&uring_ctl(&cq->ring)->notify, arm);
	/* Dekker with the device: store arm, full barrier, (it loads prod). */
	atomic_thread_fence(memory_order_seq_cst);
	pthread_spin_unlock(&cq->lock);
	return 0;
}

/* ibv_cq_ex: the lock is held from a successful start_poll to end_poll. */
/* Make the CQE at head current for the ibv_cq_ex readers; ENOENT if none. */
static int vru_cq_load(struct vru_cq *cq, struct ibv_cq_ex *ibcq)
{
	const struct virtio_rdma_cqe *cqe;

	cq->cur = NULL;
	if (vru_cq_prod(cq) == cq->ring.head)
		return ENOENT;
	cqe = uring_entry(&cq->ring, cq->ring.head);
	cq->cur = cqe;
	ibcq->wr_id = le64toh(cqe->wr_id);
	ibcq->status = vru_wc_status(cqe);
	return 0;
}

static int vru_start_poll(struct ibv_cq_ex *ibcq,
			  struct ibv_poll_cq_attr *attr)
{
	struct vru_cq *cq = cqex_to_vru_cq(ibcq);

	if (attr->comp_mask)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	cq->start = cq->ring.head;
	if (vru_cq_load(cq, ibcq)) {
		pthread_spin_unlock(&cq->lock);
		return ENOENT;
	}
	return 0;
}

static int vru_next_poll(struct ibv_cq_ex *ibcq)
{
	struct vru_cq *cq = cqex_to_vru_cq(ibcq);

	/*
	 * Only a CQE handed out is consumed: after an ENOENT the caller may
	 * call again, and head must not pass the device's prod.
	 */
	if (cq->cur)
		cq->ring.head++;
	return vru_cq_load(cq, ibcq);
}

static void vru_end_poll(struct ibv_cq_ex *ibcq)
{
	struct vru_cq *cq = cqex_to_vru_cq(ibcq);

	if (cq->cur)
		cq->ring.head++;
	cq->cur = NULL;
	if (cq->ring.head != cq->start)
		ring_store_release(&uring_ctl(&cq->ring)->cons, cq->ring.head);
	pthread_spin_unlock(&cq->lock);
}

static enum ibv_wc_opcode vru_read_opcode(struct ibv_cq_ex *ibcq)
{
	return vru_wc_opcode(cqex_to_vru_cq(ibcq)->cur->opcode);
}

static uint32_t vru_read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return le32toh(cqex_to_vru_cq(ibcq)->cur->vendor_err);
}

static uint32_t vru_read_byte_len(struct ibv_cq_ex *ibcq)
{
	return le32toh(cqex_to_vru_cq(ibcq)->cur->byte_len);
}

static __be32 vru_read_imm_data(struct ibv_cq_ex *ibcq)
{
	const struct virtio_rdma_cqe *cqe = cqex_to_vru_cq(ibcq)->cur;

	if (cqe->flags & VIRTIO_RDMA_WC_F_WITH_INV)
		return htobe32(le32toh(cqe->ex.invalidated_rkey));
	return cqe->ex.imm_data;
}

static uint32_t vru_read_qp_num(struct ibv_cq_ex *ibcq)
{
	return le32toh(cqex_to_vru_cq(ibcq)->cur->qp_handle);
}

static uint32_t vru_read_src_qp(struct ibv_cq_ex *ibcq)
{
	return le32toh(cqex_to_vru_cq(ibcq)->cur->src_qp) & VIRTIO_RDMA_QPN_MASK;
}

static unsigned int vru_read_wc_flags(struct ibv_cq_ex *ibcq)
{
	return vru_wc_flags(cqex_to_vru_cq(ibcq)->cur);
}

/*
 * The TMH's tag and app_ctx, which a TM_RECV carries with MATCH only (the
 * ABI's rule; rdma-core's tests expect 0 with DATA_VALID alone, as mlx5
 * gives it).
 */
static void vru_read_tm_info(struct ibv_cq_ex *ibcq,
			     struct ibv_wc_tm_info *info)
{
	const struct virtio_rdma_cqe *cqe = cqex_to_vru_cq(ibcq)->cur;
	bool match = vru_wc_op_tm(cqe->opcode) &&
		     (cqe->tm_flags & VIRTIO_RDMA_TM_F_MATCH);

	info->tag = match ? le64toh(cqe->tm_tag) : 0;
	info->priv = match ? le32toh(cqe->tm_app_ctx) : 0;
}

static uint32_t vru_read_slid(struct ibv_cq_ex *ibcq)
{
	(void)ibcq;
	return 0;
}

static uint8_t vru_read_sl(struct ibv_cq_ex *ibcq)
{
	return vru_wc_sl(cqex_to_vru_cq(ibcq)->cur);
}

static uint8_t vru_read_dlid_path_bits(struct ibv_cq_ex *ibcq)
{
	(void)ibcq;
	return 0;
}

void vru_cq_ex_init(struct vru_cq *cq, uint64_t wc_flags)
{
	struct ibv_cq_ex *c = &cq->vcq.cq_ex;

	c->start_poll = vru_start_poll;
	c->next_poll = vru_next_poll;
	c->end_poll = vru_end_poll;
	c->read_opcode = vru_read_opcode;
	c->read_vendor_err = vru_read_vendor_err;
	c->read_wc_flags = vru_read_wc_flags;
	if (wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		c->read_byte_len = vru_read_byte_len;
	if (wc_flags & IBV_WC_EX_WITH_IMM)
		c->read_imm_data = vru_read_imm_data;
	if (wc_flags & IBV_WC_EX_WITH_QP_NUM)
		c->read_qp_num = vru_read_qp_num;
	if (wc_flags & IBV_WC_EX_WITH_SRC_QP)
		c->read_src_qp = vru_read_src_qp;
	if (wc_flags & IBV_WC_EX_WITH_SLID)
		c->read_slid = vru_read_slid;
	if (wc_flags & IBV_WC_EX_WITH_SL)
		c->read_sl = vru_read_sl;
	if (wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		c->read_dlid_path_bits = vru_read_dlid_path_bits;
	if (wc_flags & IBV_WC_EX_WITH_TM_INFO)
		c->read_tm_info = vru_read_tm_info;
}

/* ------------------------------------------------------------ SQ / RQ -- */

bool vru_ring_full(struct vru_uring *r)
{
	/* Slots below cons are the device's no longer (release on its side). */
	uint32_t cons = ring_load_acquire(&uring_ctl(r)->cons);

	/* An index out of range counts as full: never overwrite live WQEs. */
	return virtio_rdma_ring_full(r->head, cons, r->depth);
}

/* Publishes [old, head); true if the device asked for a doorbell. */
bool vru_ring_publish(struct vru_uring *r, uint32_t old)
{
	struct virtio_rdma_ring_ctl *ctl = uring_ctl(r);
	uint32_t notify;

	ring_store_release(&ctl->prod, r->head);
	/* Dekker with the device's "store notify, barrier, reload prod". */
	atomic_thread_fence(memory_order_seq_cst);
	notify = ring_load(&ctl->notify);
	return virtio_rdma_need_doorbell(notify, r->head, old);
}

/* An empty post is the doorbell: the kernel passes it on to the device. */
int vru_sq_doorbell(struct vru_qp *qp)
{
	struct ibv_send_wr *bad;

	return ibv_cmd_post_send(&qp->vqp.qp, NULL, &bad);
}

int vru_rq_doorbell(struct vru_qp *qp)
{
	struct ibv_recv_wr *bad;

	return ibv_cmd_post_recv(&qp->vqp.qp, NULL, &bad);
}

/*
 * libibverbs keeps ibv_qp.state from ibv_modify_qp/ibv_query_qp.  Sends
 * need RTS or later (in ERR the device flushes them), receives need at least
 * INIT, as for the kernel's post verbs.
 */
static bool vru_can_send(struct vru_qp *qp)
{
	enum ibv_qp_state s = __atomic_load_n(&qp->vqp.qp.state,
					      __ATOMIC_RELAXED);

	/* XRC_RECV and QPs on a TM-SRQ have no send queue. */
	if (!qp->sq.buf)
		return false;
	return s != IBV_QPS_RESET && s != IBV_QPS_INIT && s != IBV_QPS_RTR;
}

static bool vru_can_recv(struct vru_qp *qp)
{
	return __atomic_load_n(&qp->vqp.qp.state, __ATOMIC_RELAXED) !=
	       IBV_QPS_RESET;
}

static bool vru_is_ud(struct vru_qp *qp)
{
	return virtio_rdma_qpt_is_ud(qp->vqp.qp.qp_type);
}

static bool vru_is_xrc_send(struct vru_qp *qp)
{
	return qp->vqp.qp.qp_type == IBV_QPT_XRC_SEND;
}

/* The target's XRC SRQ, which the device sends in the XRCETH: 24 bits. */
static int vru_set_xrc_srqn(struct virtio_rdma_sq_wqe *wqe, uint32_t srqn)
{
	if (srqn & ~VIRTIO_RDMA_QPN_MASK)
		return EINVAL;
	wqe->xrc_srqn = htole32(srqn);
	return 0;
}

/*
 * The device ABI's opcode rules (QP type, the atomic feature), checked here
 * as the kernel driver checks them: the device would fail the QP instead.
 */
static bool vru_wr_op_ok(struct vru_qp *qp, unsigned int op)
{
	if (op > UINT8_MAX || !virtio_rdma_wr_op_ok(qp->vqp.qp.qp_type, op))
		return false;
	return !virtio_rdma_wr_op_atomic(op) ||
	       to_vctx(qp->vqp.qp.context)->caps.atomic;
}

static int vru_copy_inline(struct vru_qp *qp,
			   struct virtio_rdma_sq_wqe *wqe,
			   const struct ibv_sge *sg, int num)
{
	uint8_t *dst = (uint8_t *)(wqe + 1);
	uint32_t total = 0;
	int i;

	for (i = 0; i < num; i++) {
		if (sg[i].length > qp->max_inline - total)
			return EINVAL;
		memcpy(dst + total, (void *)(uintptr_t)sg[i].addr,
		       sg[i].length);
		total += sg[i].length;
	}
	wqe->length = htole32(total);
	return 0;
}

int vru_copy_sges(struct vru_qp *qp, struct virtio_rdma_sge *dst,
		  const struct ibv_sge *src, int num, uint32_t max)
{
	int i;

	(void)qp;
	if (num < 0 || (uint32_t)num > max)
		return EINVAL;
	for (i = 0; i < num; i++) {
		dst[i].addr = htole64(src[i].addr);
		dst[i].length = htole32(src[i].length);
		dst[i].lkey = htole32(src[i].lkey);
	}
	return 0;
}

/*
 * A BIND_MW WQE: the new rkey must keep the window's index (only the key
 * byte is the consumer's), and a window of length 0 (a type 1 unbind)
 * needs no MR.  Type 1 windows are bound by ibv_bind_mw only (@type1),
 * type 2 windows by the work request.
 */
static int vru_fill_bind(struct virtio_rdma_sq_wqe *wqe,
			 const struct ibv_mw *mw, uint32_t rkey,
			 const struct ibv_mw_bind_info *info, bool type1)
{
	if (!mw || (mw->type == IBV_MW_TYPE_1) != type1 ||
	    (rkey ^ mw->rkey) >> VIRTIO_RDMA_KEY_INDEX_SHIFT)
		return EINVAL;
	if (info->length && !info->mr)
		return EINVAL;
	wqe->wr.bind_mw.rkey = htole32(rkey);
	wqe->wr.bind_mw.mr_lkey = htole32(info->length ? info->mr->lkey : 0);
	wqe->wr.bind_mw.addr = htole64(info->addr);
	wqe->wr.bind_mw.length = htole64(info->length);
	wqe->wr.bind_mw.access_flags = htole32(info->mw_access_flags);
	return 0;
}

static int vru_build_send(struct vru_qp *qp, struct ibv_send_wr *wr,
			  struct virtio_rdma_sq_wqe *wqe, bool type1_bind)
{
	int err;

	if (wr->send_flags & ~VRU_SEND_FLAGS || !vru_wr_op_ok(qp, wr->opcode))
		return EINVAL;
	if ((wr->send_flags & IBV_SEND_INLINE) &&
	    !virtio_rdma_wr_op_inline(wr->opcode))
		return EINVAL;
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = htole64(wr->wr_id);
	wqe->opcode = wr->opcode;
	wqe->flags = wr->send_flags;
	/* Every other QP type leaves it 0 (spec "Send queue WQE"). */
	if (vru_is_xrc_send(qp) &&
	    vru_set_xrc_srqn(wqe, wr->qp_type.xrc.remote_srqn))
		return EINVAL;

	switch (wr->opcode) {
	case IBV_WR_SEND_WITH_IMM:
		wqe->ex.imm_data = wr->imm_data;
		/* fallthrough */
	case IBV_WR_SEND:
		if (vru_is_ud(qp)) {
			if (!wr->wr.ud.ah)
				return EINVAL;
			wqe->wr.ud.av = to_vru_ah(wr->wr.ud.ah)->av;
			wqe->wr.ud.remote_qpn = htole32(wr->wr.ud.remote_qpn);
			wqe->wr.ud.remote_qkey =
				htole32(wr->wr.ud.remote_qkey);
		}
		break;
	case IBV_WR_SEND_WITH_INV:
		wqe->ex.invalidate_rkey = htole32(wr->invalidate_rkey);
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		wqe->ex.imm_data = wr->imm_data;
		/* fallthrough */
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_READ:
		wqe->wr.rdma.remote_addr = htole64(wr->wr.rdma.remote_addr);
		wqe->wr.rdma.rkey = htole32(wr->wr.rdma.rkey);
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.atomic.remote_addr =
			htole64(wr->wr.atomic.remote_addr);
		wqe->wr.atomic.compare_add =
			htole64(wr->wr.atomic.compare_add);
		wqe->wr.atomic.swap = htole64(wr->wr.atomic.swap);
		wqe->wr.atomic.rkey = htole32(wr->wr.atomic.rkey);
		break;
	case IBV_WR_LOCAL_INV:
		wqe->ex.invalidate_rkey = htole32(wr->invalidate_rkey);
		break;
	case IBV_WR_BIND_MW:
		/* No SGEs: the MR is in the bind information. */
		return vru_fill_bind(wqe, wr->bind_mw.mw, wr->bind_mw.rkey,
				     &wr->bind_mw.bind_info, type1_bind);
	default:
		return EINVAL;
	}

	if (wr->send_flags & IBV_SEND_INLINE)
		return vru_copy_inline(qp, wqe, wr->sg_list, wr->num_sge);
	err = vru_copy_sges(qp, (struct virtio_rdma_sge *)(wqe + 1),
			    wr->sg_list, wr->num_sge, qp->max_send_sge);
	if (err)
		return err;
	wqe->num_sge = wr->num_sge;
	return 0;
}

int vru_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr)
{
	return vru_post_sends(ibqp, wr, bad_wr, false);
}

/* ibv_post_send, and for ibv_bind_mw (mw.c) the bind of a type 1 window. */
int vru_post_sends(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr, bool type1_bind)
{
	struct vru_qp *qp = to_vru_qp(ibqp);
	struct vru_uring *r = &qp->sq;
	bool doorbell = false;
	int err = 0;
	uint32_t old;

	/* An XRC_RECV QP has no send queue. */
	if (!r->buf || !vru_can_send(qp)) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&qp->sq_lock);
	old = r->head;
	for (; wr; wr = wr->next) {
		if (vru_ring_full(r)) {
			err = ENOMEM;
			break;
		}
		err = vru_build_send(qp, wr, uring_entry(r, r->head),
				     type1_bind);
		if (err)
			break;
		r->head++;
	}
	if (r->head != old)
		doorbell = vru_ring_publish(r, old);
	pthread_spin_unlock(&qp->sq_lock);
	if (doorbell)
		vru_sq_doorbell(qp);
	if (err)
		*bad_wr = wr;
	return err;
}

/*
 * Write receive WQEs into an RQ or SRQ ring (they share the WQE format),
 * from *wr on, as many as fit; the caller holds the ring's lock and
 * publishes prod.  Returns 0 or an errno, with *wr at the first WR not
 * written.
 */
int vru_ring_put_recvs(struct vru_uring *r, struct ibv_recv_wr **wr,
		       uint32_t max_sge)
{
	struct virtio_rdma_rq_wqe *wqe;
	int err;

	for (; *wr; *wr = (*wr)->next) {
		if (vru_ring_full(r))
			return ENOMEM;
		wqe = uring_entry(r, r->head);
		memset(wqe, 0, sizeof(*wqe));
		err = vru_copy_sges(NULL, (struct virtio_rdma_sge *)(wqe + 1),
				    (*wr)->sg_list, (*wr)->num_sge, max_sge);
		if (err)
			return err;
		wqe->wr_id = htole64((*wr)->wr_id);
		wqe->num_sge = (*wr)->num_sge;
		r->head++;
	}
	return 0;
}

int vru_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr)
{
	struct vru_qp *qp = to_vru_qp(ibqp);
	struct vru_uring *r = &qp->rq;
	bool doorbell = false;
	uint32_t old;
	int err;

	if (!r->buf || !vru_can_recv(qp)) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&qp->rq_lock);
	old = r->head;
	err = vru_ring_put_recvs(r, &wr, qp->max_recv_sge);
	if (r->head != old)
		doorbell = vru_ring_publish(r, old);
	pthread_spin_unlock(&qp->rq_lock);
	if (doorbell)
		vru_rq_doorbell(qp);
	if (err)
		*bad_wr = wr;
	return err;
}

/* ------------------------------------------------ ibv_qp_ex (ibv_wr_*) -- */

struct virtio_rdma_sq_wqe *vru_wr_next(struct ibv_qp_ex *ibqp, uint8_t opcode)
{
	struct vru_qp *qp = qpex_to_vru_qp(ibqp);
	struct virtio_rdma_sq_wqe *wqe;

	qp->wr_cur = NULL;
	/* An mkey configuration still owed setters (mkey.c). */
	if (qp->mkey_owed)
		qp->wr_err = EINVAL;
	if (qp->wr_err)
		return NULL;
	if (vru_ring_full(&qp->sq)) {
		qp->wr_err = ENOMEM;
		return NULL;
	}
	if ((ibqp->wr_flags & ~(unsigned int)VRU_SEND_FLAGS) ||
	    !vru_wr_op_ok(qp, opcode)) {
		qp->wr_err = EINVAL;
		return NULL;
	}
	wqe = uring_entry(&qp->sq, qp->sq.head);
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = htole64(ibqp->wr_id);
	wqe->opcode = opcode;
	wqe->flags = ibqp->wr_flags & ~IBV_SEND_INLINE;
	qp->sq.head++;
	qp->wr_cur = wqe;
	return wqe;
}

static void vru_wr_rdma(struct ibv_qp_ex *ibqp, uint8_t op, uint32_t rkey,
			uint64_t addr, __be32 imm)
{
	struct virtio_rdma_sq_wqe *wqe = vru_wr_next(ibqp, op);

	if (!wqe)
		return;
	wqe->wr.rdma.remote_addr = htole64(addr);
	wqe->wr.rdma.rkey = htole32(rkey);
	wqe->ex.imm_data = imm;
}

static void vru_wr_rdma_write(struct ibv_qp_ex *ibqp, uint32_t rkey,
			      uint64_t addr)
{
	vru_wr_rdma(ibqp, IBV_WR_RDMA_WRITE, rkey, addr, 0);
}

static void vru_wr_rdma_write_imm(struct ibv_qp_ex *ibqp, uint32_t rkey,
				  uint64_t addr, __be32 imm)
{
	vru_wr_rdma(ibqp, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, addr, imm);
}

static void vru_wr_rdma_read(struct ibv_qp_ex *ibqp, uint32_t rkey,
			     uint64_t addr)
{
	vru_wr_rdma(ibqp, IBV_WR_RDMA_READ, rkey, addr, 0);
}

static void vru_wr_atomic(struct ibv_qp_ex *ibqp, uint8_t op,
			  uint32_t rkey, uint64_t addr, uint64_t cmp_add,
			  uint64_t swap)
{
	struct virtio_rdma_sq_wqe *wqe = vru_wr_next(ibqp, op);

	if (!wqe)
		return;
	wqe->wr.atomic.remote_addr = htole64(addr);
	wqe->wr.atomic.compare_add = htole64(cmp_add);
	wqe->wr.atomic.swap = htole64(swap);
	wqe->wr.atomic.rkey = htole32(rkey);
}

static void vru_wr_atomic_cmp_swp(struct ibv_qp_ex *ibqp, uint32_t rkey,
				  uint64_t addr, uint64_t compare,
				  uint64_t swap)
{
	vru_wr_atomic(ibqp, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, addr, compare,
		      swap);
}

static void vru_wr_atomic_fetch_add(struct ibv_qp_ex *ibqp, uint32_t rkey,
				    uint64_t addr, uint64_t add)
{
	vru_wr_atomic(ibqp, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, addr, add, 0);
}

static void vru_wr_send(struct ibv_qp_ex *ibqp)
{
	vru_wr_next(ibqp, IBV_WR_SEND);
}

static void vru_wr_send_imm(struct ibv_qp_ex *ibqp, __be32 imm)
{
	struct virtio_rdma_sq_wqe *wqe;

	wqe = vru_wr_next(ibqp, IBV_WR_SEND_WITH_IMM);
	if (wqe)
		wqe->ex.imm_data = imm;
}

static void vru_wr_send_inv(struct ibv_qp_ex *ibqp, uint32_t rkey)
{
	struct virtio_rdma_sq_wqe *wqe;

	wqe = vru_wr_next(ibqp, IBV_WR_SEND_WITH_INV);
	if (wqe)
		wqe->ex.invalidate_rkey = htole32(rkey);
}

static void vru_wr_local_inv(struct ibv_qp_ex *ibqp, uint32_t rkey)
{
	struct virtio_rdma_sq_wqe *wqe;

	wqe = vru_wr_next(ibqp, IBV_WR_LOCAL_INV);
	if (wqe)
		wqe->ex.invalidate_rkey = htole32(rkey);
}

static void vru_wr_bind_mw(struct ibv_qp_ex *ibqp, struct ibv_mw *mw,
			   uint32_t rkey, const struct ibv_mw_bind_info *info)
{
	struct virtio_rdma_sq_wqe *wqe = vru_wr_next(ibqp, IBV_WR_BIND_MW);

	if (wqe && vru_fill_bind(wqe, mw, rkey, info, false))
		qpex_to_vru_qp(ibqp)->wr_err = EINVAL;
}

static void vru_wr_set_ud_addr(struct ibv_qp_ex *ibqp, struct ibv_ah *ah,
			       uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct virtio_rdma_sq_wqe *wqe = qpex_to_vru_qp(ibqp)->wr_cur;

	if (!wqe)
		return;
	wqe->wr.ud.av = to_vru_ah(ah)->av;
	wqe->wr.ud.remote_qpn = htole32(remote_qpn);
	wqe->wr.ud.remote_qkey = htole32(remote_qkey);
}

static void vru_wr_set_xrc_srqn(struct ibv_qp_ex *ibqp, uint32_t remote_srqn)
{
	struct vru_qp *qp = qpex_to_vru_qp(ibqp);

	if (qp->wr_cur && vru_set_xrc_srqn(qp->wr_cur, remote_srqn))
		qp->wr_err = EINVAL;
}

static void vru_wr_set_sge_list(struct ibv_qp_ex *ibqp, size_t num,
				const struct ibv_sge *sg)
{
	struct vru_qp *qp = qpex_to_vru_qp(ibqp);
	struct virtio_rdma_sq_wqe *wqe = qp->wr_cur;

	if (!wqe)
		return;
	if (num > qp->max_send_sge) {
		qp->wr_err = EINVAL;
		return;
	}
	vru_copy_sges(qp, (struct virtio_rdma_sge *)(wqe + 1), sg, num, num);
	wqe->num_sge = num;
}

static void vru_wr_set_sge(struct ibv_qp_ex *ibqp, uint32_t lkey,
			   uint64_t addr, uint32_t length)
{
	struct ibv_sge sg = { .addr = addr, .length = length, .lkey = lkey };

	vru_wr_set_sge_list(ibqp, 1, &sg);
}

static void vru_wr_set_inline_data_list(struct ibv_qp_ex *ibqp, size_t num,
					const struct ibv_data_buf *buf)
{
	struct vru_qp *qp = qpex_to_vru_qp(ibqp);
	struct virtio_rdma_sq_wqe *wqe = qp->wr_cur;
	uint8_t *dst;
	size_t total = 0, i;

	if (!wqe)
		return;
	if (!virtio_rdma_wr_op_inline(wqe->opcode)) {
		qp->wr_err = EINVAL;
		return;
	}
	dst = (uint8_t *)(wqe + 1);
	for (i = 0; i < num; i++) {
		if (buf[i].length > qp->max_inline - total) {
			qp->wr_err = EINVAL;
			return;
		}
		memcpy(dst + total, buf[i].addr, buf[i].length);
		total += buf[i].length;
	}
	wqe->flags |= VIRTIO_RDMA_WQE_F_INLINE;
	wqe->length = htole32(total);
}

static void vru_wr_set_inline_data(struct ibv_qp_ex *ibqp, void *addr,
				   size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	vru_wr_set_inline_data_list(ibqp, 1, &buf);
}

static void vru_wr_start(struct ibv_qp_ex *ibqp)
{
	struct vru_qp *qp = qpex_to_vru_qp(ibqp);

	pthread_spin_lock(&qp->sq_lock);
	qp->wr_old = qp->sq.head;
	qp->wr_err = vru_can_send(qp) ? 0 : EINVAL;
	qp->wr_cur = NULL;
	qp->mkey_owed = 0;
}

static int vru_wr_complete(struct ibv_qp_ex *ibqp)
{
	struct vru_qp *qp = qpex_to_vru_qp(ibqp);
	bool doorbell = false;
	int err = qp->mkey_owed ? EINVAL : qp->wr_err;

	qp->mkey_owed = 0;
	if (err)
		qp->sq.head = qp->wr_old;
	else if (qp->sq.head != qp->wr_old)
		doorbell = vru_ring_publish(&qp->sq, qp->wr_old);
	qp->wr_cur = NULL;
	pthread_spin_unlock(&qp->sq_lock);
	if (doorbell)
		vru_sq_doorbell(qp);
	return err;
}

static void vru_wr_abort(struct ibv_qp_ex *ibqp)
{
	struct vru_qp *qp = qpex_to_vru_qp(ibqp);

	qp->sq.head = qp->wr_old;
	qp->mkey_owed = 0;
	qp->wr_cur = NULL;
	pthread_spin_unlock(&qp->sq_lock);
}

void vru_qp_ex_init(struct vru_qp *qp, uint64_t ops)
{
	struct ibv_qp_ex *q = &qp->vqp.qp_ex;

	qp->vqp.comp_mask |= VERBS_QP_EX;
	q->wr_start = vru_wr_start;
	q->wr_complete = vru_wr_complete;
	q->wr_abort = vru_wr_abort;
	q->wr_set_sge = vru_wr_set_sge;
	q->wr_set_sge_list = vru_wr_set_sge_list;
	q->wr_set_inline_data = vru_wr_set_inline_data;
	q->wr_set_inline_data_list = vru_wr_set_inline_data_list;
	if (vru_is_ud(qp))
		q->wr_set_ud_addr = vru_wr_set_ud_addr;
	if (vru_is_xrc_send(qp))
		q->wr_set_xrc_srqn = vru_wr_set_xrc_srqn;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE)
		q->wr_rdma_write = vru_wr_rdma_write;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		q->wr_rdma_write_imm = vru_wr_rdma_write_imm;
	if (ops & IBV_QP_EX_WITH_RDMA_READ)
		q->wr_rdma_read = vru_wr_rdma_read;
	if (ops & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		q->wr_atomic_cmp_swp = vru_wr_atomic_cmp_swp;
	if (ops & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		q->wr_atomic_fetch_add = vru_wr_atomic_fetch_add;
	if (ops & IBV_QP_EX_WITH_SEND)
		q->wr_send = vru_wr_send;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_IMM)
		q->wr_send_imm = vru_wr_send_imm;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_INV)
		q->wr_send_inv = vru_wr_send_inv;
	if (ops & IBV_QP_EX_WITH_LOCAL_INV)
		q->wr_local_inv = vru_wr_local_inv;
	if (ops & IBV_QP_EX_WITH_BIND_MW)
		q->wr_bind_mw = vru_wr_bind_mw;
}
