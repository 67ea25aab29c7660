// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * provider_unit: the provider's data path (providers/virtio_rdma/datapath.c)
 * run against rings in plain memory, without a device.  It pins the rules
 * the kernel driver and the provider share through the uapi helpers of
 * include/uapi/linux/virtio_rdma.h: opcode validity per QP type and the
 * atomic feature, inline eligibility, the doorbell test with the device's
 * suppression offset, ring geometry, the status of a CQE whose opcode is
 * unknown, and the XRC SRQ number of XRC_SEND WQEs.  The kernel side of the same rules is pinned by KUnit
 * (virtio_rdma_abi).
 *
 * Output is one "ok"/"not ok" line per case; the exit status is 1 if any
 * case failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vru.h"

#define SQ_DEPTH	8
#define SQ_WQE_SHIFT	2	/* 256-byte SQ WQEs */
#define RQ_DEPTH	8
#define RQ_WQE_SHIFT	2	/* 64-byte RQ WQEs */
#define CQ_DEPTH	4

static int sq_doorbells, rq_doorbells;
static int failed;

/* The provider's doorbells: system calls in libibverbs, counted here. */
int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr)
{
	(void)ibqp;
	(void)wr;
	(void)bad_wr;
	sq_doorbells++;
	return 0;
}

int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr)
{
	(void)ibqp;
	(void)wr;
	(void)bad_wr;
	rq_doorbells++;
	return 0;
}

struct fixture {
	struct vru_context ctx;
	struct vru_qp qp;
	struct vru_cq cq;
	uint8_t data[64];
};

static void ring_init(struct vru_uring *r, uint32_t depth, uint32_t log2)
{
	r->size = virtio_rdma_ring_bytes(depth, log2);
	r->buf = aligned_alloc(4096, (r->size + 4095) & ~(size_t)4095);
	if (!r->buf) {
		perror("aligned_alloc");
		exit(2);
	}
	memset(r->buf, 0, r->size);
	r->depth = depth;
	r->shift = log2;
	r->head = 0;
}

/*
 * An RTS QP of @type on a context with or without atomics; the device is
 * busy with the SQ and RQ (notify far ahead): posts ring no doorbell.
 */
static struct fixture *fixture_new(enum ibv_qp_type type, bool atomic)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		exit(2);
	f->ctx.caps.atomic = atomic;
	f->qp.vqp.qp.context = &f->ctx.vctx.context;
	f->qp.vqp.qp.qp_type = type;
	f->qp.vqp.qp.state = IBV_QPS_RTS;
	f->qp.max_send_sge = 4;
	f->qp.max_recv_sge = 3;
	f->qp.max_inline = 192;
	pthread_spin_init(&f->qp.sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&f->qp.rq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&f->cq.lock, PTHREAD_PROCESS_PRIVATE);
	ring_init(&f->qp.sq, SQ_DEPTH, virtio_rdma_sq_stride_log2(SQ_WQE_SHIFT));
	ring_init(&f->qp.rq, RQ_DEPTH, virtio_rdma_rq_stride_log2(RQ_WQE_SHIFT));
	ring_init(&f->cq.ring, CQ_DEPTH, VIRTIO_RDMA_CQE_SHIFT);
	uring_ctl(&f->qp.sq)->notify = htole32(VIRTIO_RDMA_NOTIFY_OFF);
	uring_ctl(&f->qp.rq)->notify = htole32(VIRTIO_RDMA_NOTIFY_OFF);
	sq_doorbells = 0;
	rq_doorbells = 0;
	return f;
}

static void fixture_free(struct fixture *f)
{
	free(f->qp.sq.buf);
	free(f->qp.rq.buf);
	free(f->cq.ring.buf);
	free(f);
}

static void check(bool ok, const char *name)
{
	printf("%s %s\n", ok ? "ok" : "not ok", name);
	if (!ok)
		failed = 1;
}

static int post(struct fixture *f, enum ibv_wr_opcode op, unsigned int flags)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)f->data, .length = 8, .lkey = 0x100,
	};
	struct ibv_send_wr wr = {
		.wr_id = 0x77, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = flags,
	}, *bad = NULL;
	int err;

	wr.wr.atomic.remote_addr = 0x1000;
	wr.wr.atomic.rkey = 0x200;
	err = vru_post_send(&f->qp.vqp.qp, &wr, &bad);
	if (err && bad != &wr)
		err = -1;	/* a failed post must name the failed WR */
	return err;
}

static struct virtio_rdma_sq_wqe *sq_wqe(struct fixture *f, uint32_t idx)
{
	return uring_entry(&f->qp.sq, idx);
}

/* Atomics need VIRTIO_RDMA_F_ATOMIC, as the kernel driver requires. */
static void test_atomic_feature(void)
{
	struct fixture *f = fixture_new(IBV_QPT_RC, false);

	check(post(f, IBV_WR_ATOMIC_CMP_AND_SWP, 0) == EINVAL &&
	      post(f, IBV_WR_ATOMIC_FETCH_AND_ADD, 0) == EINVAL &&
	      f->qp.sq.head == 0 && !uring_ctl(&f->qp.sq)->prod,
	      "atomics rejected without VIRTIO_RDMA_F_ATOMIC");
	fixture_free(f);

	f = fixture_new(IBV_QPT_RC, true);
	check(post(f, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_SEND_SIGNALED) == 0 &&
	      f->qp.sq.head == 1 &&
	      sq_wqe(f, 0)->opcode == VIRTIO_RDMA_WR_ATOMIC_FETCH_AND_ADD &&
	      le32toh(sq_wqe(f, 0)->wr.atomic.rkey) == 0x200,
	      "atomics posted with VIRTIO_RDMA_F_ATOMIC");
	fixture_free(f);

	f = fixture_new(IBV_QPT_UC, true);
	check(post(f, IBV_WR_ATOMIC_CMP_AND_SWP, 0) == EINVAL,
	      "atomics rejected on UC");
	fixture_free(f);
}

/* The same rule through the ibv_wr_* interface. */
static void test_atomic_feature_wr_api(void)
{
	struct fixture *f = fixture_new(IBV_QPT_RC, false);
	struct ibv_qp_ex *q = &f->qp.vqp.qp_ex;
	uint32_t head;
	int err;

	vru_qp_ex_init(&f->qp, IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
				IBV_QP_EX_WITH_RDMA_READ |
				IBV_QP_EX_WITH_SEND);
	ibv_wr_start(q);
	q->wr_id = 1;
	ibv_wr_atomic_fetch_add(q, 0x200, 0x1000, 1);
	ibv_wr_set_sge(q, 0x100, (uintptr_t)f->data, 8);
	err = ibv_wr_complete(q);
	check(err == EINVAL && f->qp.sq.head == 0 &&
	      !uring_ctl(&f->qp.sq)->prod,
	      "ibv_wr_atomic_fetch_add rejected without VIRTIO_RDMA_F_ATOMIC");

	head = f->qp.sq.head;
	ibv_wr_start(q);
	ibv_wr_rdma_read(q, 0x200, 0x1000);
	ibv_wr_set_inline_data(q, f->data, 8);
	err = ibv_wr_complete(q);
	check(err == EINVAL && f->qp.sq.head == head,
	      "ibv_wr_set_inline_data rejected on RDMA READ");

	head = f->qp.sq.head;
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_inline_data(q, f->data, 8);
	err = ibv_wr_complete(q);
	check(err == 0 && f->qp.sq.head == head + 1 &&
	      (sq_wqe(f, head)->flags & VIRTIO_RDMA_WQE_F_INLINE) &&
	      le32toh(sq_wqe(f, head)->length) == 8,
	      "ibv_wr_send with inline data");
	fixture_free(f);
}

/* The spec's opcode table, per QP type. */
static void test_opcode_qp_type(void)
{
	struct fixture *f;

	f = fixture_new(IBV_QPT_UC, true);
	check(post(f, IBV_WR_RDMA_READ, 0) == EINVAL,
	      "RDMA READ rejected on UC");
	check(post(f, IBV_WR_SEND_WITH_INV, 0) == EINVAL,
	      "SEND_WITH_INV rejected on UC");
	check(post(f, IBV_WR_RDMA_WRITE, 0) == 0 && f->qp.sq.head == 1,
	      "RDMA WRITE posted on UC");
	fixture_free(f);

	f = fixture_new(IBV_QPT_UD, true);
	check(post(f, IBV_WR_RDMA_WRITE, 0) == EINVAL,
	      "RDMA WRITE rejected on UD");
	check(post(f, IBV_WR_LOCAL_INV, 0) == 0 &&
	      sq_wqe(f, 0)->opcode == VIRTIO_RDMA_WR_LOCAL_INV,
	      "LOCAL_INV posted on UD");
	fixture_free(f);

	f = fixture_new(IBV_QPT_RC, true);
	/* REG_MR is a kernel work request: libibverbs has no such opcode. */
	check(post(f, (enum ibv_wr_opcode)VIRTIO_RDMA_WR_REG_MR, 0) == EINVAL &&
	      post(f, (enum ibv_wr_opcode)0x1ff, 0) == EINVAL &&
	      f->qp.sq.head == 0,
	      "REG_MR and unknown opcodes rejected");
	fixture_free(f);
}

static void test_inline(void)
{
	struct fixture *f = fixture_new(IBV_QPT_RC, true);

	check(post(f, IBV_WR_RDMA_READ, IBV_SEND_INLINE) == EINVAL &&
	      post(f, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_SEND_INLINE) == EINVAL &&
	      post(f, IBV_WR_LOCAL_INV, IBV_SEND_INLINE) == EINVAL &&
	      f->qp.sq.head == 0,
	      "inline data rejected on READ, atomics, LOCAL_INV");
	memset(f->data, 0x5a, 8);
	check(post(f, IBV_WR_SEND, IBV_SEND_INLINE) == 0 &&
	      sq_wqe(f, 0)->num_sge == 0 &&
	      le32toh(sq_wqe(f, 0)->length) == 8 &&
	      !memcmp(sq_wqe(f, 0) + 1, f->data, 8),
	      "inline SEND copies its data after the header");
	fixture_free(f);
}

/* WQE i is at 128 + (i % depth) * stride, stride 64 << sq_wqe_shift. */
static void test_geometry(void)
{
	struct fixture *f = fixture_new(IBV_QPT_RC, true);
	uint8_t *base = f->qp.sq.buf;
	uint32_t i;
	bool ok = true;

	for (i = 0; i < SQ_DEPTH + 2; i++) {
		f->qp.sq.head = i;
		uring_ctl(&f->qp.sq)->cons = htole32(i);
		ok &= post(f, IBV_WR_SEND, 0) == 0;
		ok &= (uint8_t *)sq_wqe(f, i) ==
		      base + 128 + (i % SQ_DEPTH) * (64U << SQ_WQE_SHIFT);
		ok &= le64toh(sq_wqe(f, i)->wr_id) == 0x77;
	}
	check(ok, "SQ WQEs at 128 + slot * (64 << sq_wqe_shift)");
	fixture_free(f);
}

/* A full ring, or a cons that makes it look overfull, takes no WQE. */
static void test_ring_full(void)
{
	struct fixture *f = fixture_new(IBV_QPT_RC, true);
	int i, err = 0;

	for (i = 0; i < SQ_DEPTH && !err; i++)
		err = post(f, IBV_WR_SEND, 0);
	check(!err && post(f, IBV_WR_SEND, 0) == ENOMEM &&
	      f->qp.sq.head == SQ_DEPTH, "a full SQ takes no more WQEs");
	uring_ctl(&f->qp.sq)->cons = htole32(SQ_DEPTH + 1);
	check(post(f, IBV_WR_SEND, 0) == ENOMEM,
	      "a cons beyond prod counts as full");
	fixture_free(f);
}

/* The event-index rule, with the device's suppression offset. */
static void test_doorbell(void)
{
	struct fixture *f = fixture_new(IBV_QPT_RC, true);
	struct ibv_recv_wr rwr = { .wr_id = 1 }, *rbad;

	uring_ctl(&f->qp.sq)->notify = htole32(0);
	check(post(f, IBV_WR_SEND, 0) == 0 && sq_doorbells == 1,
	      "a device waiting at prod 0 gets a doorbell for WQE 0");
	check(post(f, IBV_WR_SEND, 0) == 0 && sq_doorbells == 1,
	      "no second doorbell for the same wait");
	uring_ctl(&f->qp.sq)->notify = htole32(2 + VIRTIO_RDMA_NOTIFY_OFF);
	check(post(f, IBV_WR_SEND, 0) == 0 && sq_doorbells == 1,
	      "notify VIRTIO_RDMA_NOTIFY_OFF ahead asks for no doorbell");
	uring_ctl(&f->qp.rq)->notify = htole32(0);
	check(!vru_post_recv(&f->qp.vqp.qp, &rwr, &rbad) && rq_doorbells == 1,
	      "an RQ the device waits on gets a doorbell");
	fixture_free(f);
}

static void cqe_put(struct fixture *f, uint8_t status, uint8_t opcode)
{
	struct vru_uring *r = &f->cq.ring;
	uint32_t prod = le32toh(uring_ctl(r)->prod);
	struct virtio_rdma_cqe *cqe = uring_entry(r, prod);

	memset(cqe, 0, sizeof(*cqe));
	cqe->wr_id = htole64(0xc0 + prod);
	cqe->status = status;
	cqe->opcode = opcode;
	cqe->byte_len = htole32(8);
	cqe->src_qp = htole32(0xff123456);
	uring_ctl(r)->prod = htole32(prod + 1);
}

/* A CQE the provider cannot interpret is an error, as in the kernel. */
static void test_cqe_status(void)
{
	struct fixture *f = fixture_new(IBV_QPT_RC, true);
	struct ibv_poll_cq_attr attr = {};
	struct ibv_cq_ex *cqx = &f->cq.vcq.cq_ex;
	struct ibv_wc wc[4];
	int n;

	cqe_put(f, VIRTIO_RDMA_WC_SUCCESS, 0x7f);
	cqe_put(f, 99, VIRTIO_RDMA_WC_OP_SEND);
	cqe_put(f, VIRTIO_RDMA_WC_WR_FLUSH_ERR, 0xee);
	cqe_put(f, VIRTIO_RDMA_WC_SUCCESS, VIRTIO_RDMA_WC_OP_RECV);
	n = vru_poll_cq(&f->cq.vcq.cq, 4, wc);
	check(n == 4 && wc[0].status == IBV_WC_GENERAL_ERR,
	      "successful CQE with an unknown opcode polls as GENERAL_ERR");
	check(n == 4 && wc[1].status == IBV_WC_GENERAL_ERR,
	      "CQE with an unknown status polls as GENERAL_ERR");
	check(n == 4 && wc[2].status == IBV_WC_WR_FLUSH_ERR,
	      "error CQE keeps its status whatever its opcode");
	check(n == 4 && wc[3].status == IBV_WC_SUCCESS &&
	      wc[3].opcode == IBV_WC_RECV && wc[3].byte_len == 8 &&
	      wc[3].src_qp == 0x123456,
	      "successful receive CQE");

	vru_cq_ex_init(&f->cq, IBV_WC_EX_WITH_BYTE_LEN);
	cqe_put(f, VIRTIO_RDMA_WC_SUCCESS, 0x7f);
	check(ibv_start_poll(cqx, &attr) == 0 &&
	      cqx->status == IBV_WC_GENERAL_ERR && ibv_wc_read_wc_flags(cqx) == 0,
	      "ibv_start_poll: unknown opcode is GENERAL_ERR");
	ibv_end_poll(cqx);
	fixture_free(f);
}

/* A prod more than depth ahead of cons is ignored, never read past. */
static void test_cq_prod_invalid(void)
{
	struct fixture *f = fixture_new(IBV_QPT_RC, true);
	struct ibv_wc wc;

	uring_ctl(&f->cq.ring)->prod = htole32(CQ_DEPTH + 1);
	check(vru_poll_cq(&f->cq.vcq.cq, 1, &wc) == 0 && f->cq.ring.head == 0,
	      "CQ prod beyond depth polls nothing");
	fixture_free(f);
}

static int post_srqn(struct fixture *f, enum ibv_wr_opcode op, uint32_t srqn)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)f->data, .length = 8, .lkey = 0x100,
	};
	struct ibv_send_wr wr = {
		.wr_id = 0x78, .sg_list = &sge, .num_sge = 1, .opcode = op,
	}, *bad = NULL;
	int err;

	wr.qp_type.xrc.remote_srqn = srqn;
	err = vru_post_send(&f->qp.vqp.qp, &wr, &bad);
	if (err && bad != &wr)
		err = -1;
	return err;
}

/* Takes a fixture's ring away, as an XRC QP type has none. */
static void ring_drop(struct vru_uring *r)
{
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

/*
 * XRC: an XRC_SEND QP names the target's SRQ in every send WQE (24 bits),
 * every other type leaves the field 0; neither XRC type has an RQ, and an
 * XRC_RECV QP has no SQ either.
 */
static void test_xrc(void)
{
	struct ibv_recv_wr rwr = { .wr_id = 1 }, *rbad;
	struct fixture *f = fixture_new(IBV_QPT_XRC_SEND, true);
	struct ibv_qp_ex *q = &f->qp.vqp.qp_ex;
	uint32_t head;
	int err;

	ring_drop(&f->qp.rq);
	check(post_srqn(f, IBV_WR_SEND, 0x123456) == 0 &&
	      le32toh(sq_wqe(f, 0)->xrc_srqn) == 0x123456 &&
	      sq_wqe(f, 0)->opcode == VIRTIO_RDMA_WR_SEND,
	      "XRC_SEND: remote_srqn in the WQE's xrc_srqn");
	check(post_srqn(f, IBV_WR_RDMA_WRITE, 7) == 0 &&
	      le32toh(sq_wqe(f, 1)->xrc_srqn) == 7 &&
	      post_srqn(f, IBV_WR_ATOMIC_FETCH_AND_ADD, 8) == 0 &&
	      le32toh(sq_wqe(f, 2)->xrc_srqn) == 8,
	      "XRC_SEND: RDMA WRITE and atomics name the SRQ too");
	check(post_srqn(f, IBV_WR_SEND, 0x1000000) == EINVAL &&
	      f->qp.sq.head == 3,
	      "XRC_SEND: an SRQ number beyond 24 bits is rejected");
	check(post_srqn(f, IBV_WR_BIND_MW, 1) == EINVAL && f->qp.sq.head == 3,
	      "XRC_SEND: BIND_MW rejected");
	check(vru_post_recv(&f->qp.vqp.qp, &rwr, &rbad) == EINVAL &&
	      rbad == &rwr && !rq_doorbells,
	      "XRC_SEND: post_recv rejected (no RQ)");

	vru_qp_ex_init(&f->qp, IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE);
	head = f->qp.sq.head;
	ibv_wr_start(q);
	q->wr_id = 2;
	ibv_wr_send(q);
	ibv_wr_set_xrc_srqn(q, 0xabcdef);
	ibv_wr_set_sge(q, 0x100, (uintptr_t)f->data, 8);
	ibv_wr_rdma_write(q, 0x200, 0x1000);
	ibv_wr_set_xrc_srqn(q, 0x42);
	ibv_wr_set_sge(q, 0x100, (uintptr_t)f->data, 8);
	err = ibv_wr_complete(q);
	check(err == 0 && f->qp.sq.head == head + 2 &&
	      le32toh(sq_wqe(f, head)->xrc_srqn) == 0xabcdef &&
	      le32toh(sq_wqe(f, head + 1)->xrc_srqn) == 0x42,
	      "XRC_SEND: ibv_wr_set_xrc_srqn sets each WQE's xrc_srqn");
	head = f->qp.sq.head;
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_xrc_srqn(q, 0x1000000);
	err = ibv_wr_complete(q);
	check(err == EINVAL && f->qp.sq.head == head,
	      "XRC_SEND: ibv_wr_set_xrc_srqn beyond 24 bits fails the batch");
	fixture_free(f);

	f = fixture_new(IBV_QPT_RC, true);
	check(post_srqn(f, IBV_WR_SEND, 0x1234) == 0 &&
	      sq_wqe(f, 0)->xrc_srqn == 0,
	      "RC: xrc_srqn stays 0 whatever remote_srqn holds");
	vru_qp_ex_init(&f->qp, IBV_QP_EX_WITH_SEND);
	check(!f->qp.vqp.qp_ex.wr_set_xrc_srqn,
	      "RC: no ibv_wr_set_xrc_srqn");
	fixture_free(f);

	f = fixture_new(IBV_QPT_XRC_RECV, true);
	ring_drop(&f->qp.sq);
	ring_drop(&f->qp.rq);
	check(post_srqn(f, IBV_WR_SEND, 1) == EINVAL && !sq_doorbells,
	      "XRC_RECV: post_send rejected (no SQ)");
	check(vru_post_recv(&f->qp.vqp.qp, &rwr, &rbad) == EINVAL &&
	      !rq_doorbells, "XRC_RECV: post_recv rejected (no RQ)");
	fixture_free(f);
}

int main(void)
{
	test_atomic_feature();
	test_atomic_feature_wr_api();
	test_opcode_qp_type();
	test_inline();
	test_geometry();
	test_ring_full();
	test_doorbell();
	test_cqe_status();
	test_cq_prod_invalid();
	test_xrc();
	return failed;
}
