// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * srq_check DEV_A GID_INDEX_A DEV_B GID_INDEX_B
 *
 * Shared receive queue semantics between two devices, with plain verbs:
 * the limits in ibv_query_device, the errors for bad sizes and limits, RC
 * and UD QPs of device A receiving from one SRQ (data, wr_ids, qp_num),
 * the one-shot SRQ limit event armed by ibv_modify_srq, EBUSY for an SRQ
 * with QPs, IBV_EVENT_QP_LAST_WQE_REACHED when a QP of the SRQ goes to
 * ERR while the SRQ keeps its WQEs (no flush), and destroying an SRQ that
 * still holds WQEs.  Device B only sends.  Prints one line per check and
 * exits non-zero if any failed.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "vt.h"

#define NQP		2
#define SRQ_WR		16
#define MSG		256
#define SLOT		(MSG + 64)	/* room for a UD receive's 40-byte GRH */
#define NSLOT		64
#define WAIT_MS		5000
#define UD_QKEY		0x11111111

struct dev {
	struct vt_dev v;
	uint8_t *buf;
	struct ibv_mr *mr;
};

static struct dev da, db;

/* Receive and send slots of an opened device. */
static void dev_slots(struct dev *d)
{
	d->buf = calloc(NSLOT, SLOT);
	if (!d->buf)
		vt_die("calloc");
	d->mr = ibv_reg_mr(d->v.pd, d->buf, NSLOT * SLOT,
			   IBV_ACCESS_LOCAL_WRITE);
	if (!d->mr)
		vt_die("ibv_reg_mr");
}

static struct ibv_qp *qp_new(struct dev *d, enum ibv_qp_type type,
			     struct ibv_srq *srq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = d->v.cq,
		.recv_cq = d->v.cq,
		.srq = srq,
		.cap = {
			.max_send_wr = 32,
			.max_recv_wr = srq ? 0 : 32,
			.max_send_sge = 1,
			.max_recv_sge = srq ? 0 : 1,
		},
		.qp_type = type,
	};
	struct ibv_qp *qp = ibv_create_qp(d->v.pd, &a);

	if (!qp)
		vt_die("ibv_create_qp");
	return qp;
}

static void qp_rts(struct ibv_qp *qp, struct dev *self, struct dev *peer,
		   uint32_t dqpn)
{
	struct vt_conn c = {
		.dgid = peer->v.gid,
		.sgid_index = self->v.gidx,
		.dqpn = dqpn,
		.psn = 0x100,
		.qkey = UD_QKEY,
	};

	vt_qp_connect(qp, &c);
}

static uint8_t pattern(unsigned int msg, unsigned int i)
{
	return (uint8_t)(msg * 37 + i * 11 + 5);
}

/* Posts receives for slots [first, first + n) of A's buffer. */
static int srq_post(struct ibv_srq *srq, unsigned int first, unsigned int n)
{
	return vt_post_slots(NULL, srq, da.buf, da.mr, SLOT, first, n);
}

/* B sends message @msg on @qp (for UD, to @ah / @rqpn). */
static void send_msg(struct ibv_qp *qp, unsigned int msg, struct ibv_ah *ah,
		     uint32_t rqpn)
{
	uint8_t *p = db.buf + (size_t)(msg % NSLOT) * SLOT;
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge sge;
	unsigned int i;

	for (i = 0; i < MSG; i++)
		p[i] = pattern(msg, i);
	sge.addr = (uintptr_t)p;
	sge.length = MSG;
	sge.lkey = db.mr->lkey;
	wr.wr_id = msg;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (ah) {
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = rqpn;
		wr.wr.ud.remote_qkey = UD_QKEY;
	}
	if (ibv_post_send(qp, &wr, &bad))
		vt_die("ibv_post_send");
}

/* Waits for @n completions on @d's CQ; returns how many came. */
static int poll_n(struct dev *d, struct ibv_wc *wc, int n, int ms)
{
	uint64_t end = vt_now_ms() + ms;
	int got = 0, r;

	while (got < n && vt_now_ms() < end) {
		r = ibv_poll_cq(d->v.cq, n - got, wc + got);
		if (r < 0)
			return got;
		got += r;
	}
	return got;
}

/* The next async event of @d within @ms, or false. */
static bool next_event(struct dev *d, struct ibv_async_event *ev, int ms)
{
	struct pollfd pfd = { .fd = d->v.ctx->async_fd, .events = POLLIN };

	if (poll(&pfd, 1, ms) <= 0)
		return false;
	if (ibv_get_async_event(d->v.ctx, ev))
		return false;
	ibv_ack_async_event(ev);
	return true;
}

/* Waits for event @type on @obj (QP or SRQ), skipping others. */
static bool wait_event(enum ibv_event_type type, void *obj, int ms)
{
	uint64_t end = vt_now_ms() + ms;
	struct ibv_async_event ev;

	while (vt_now_ms() < end) {
		if (!next_event(&da, &ev, 50))
			continue;
		if (ev.event_type == type && ev.element.qp == obj)
			return true;
		printf("  (event %s)\n", ibv_event_type_str(ev.event_type));
	}
	return false;
}

/* Receives on A: @n successful ones, each with its message's data. */
static void expect_recvs(int n, uint32_t qpn, size_t off, const char *what)
{
	struct ibv_wc wc[64];
	int got, i, bad = 0;
	unsigned int j;

	got = poll_n(&da, wc, n, WAIT_MS);
	for (i = 0; i < got; i++) {
		const uint8_t *p = da.buf + wc[i].wr_id * SLOT + off;

		if (wc[i].status != IBV_WC_SUCCESS ||
		    wc[i].opcode != IBV_WC_RECV || wc[i].qp_num != qpn ||
		    wc[i].byte_len != MSG + off || wc[i].wr_id >= NSLOT) {
			printf("  wc wr_id %llu status %s opcode %d qp %u len %u\n",
			       (unsigned long long)wc[i].wr_id,
			       ibv_wc_status_str(wc[i].status), wc[i].opcode,
			       wc[i].qp_num, wc[i].byte_len);
			bad++;
			continue;
		}
		/* Which message landed here: find it by its first byte. */
		for (j = 0; j < 4096 && p[0] != pattern(j, 0); j++)
			;
		if (j == 4096 || p[MSG - 1] != pattern(j, MSG - 1))
			bad++;
	}
	vt_check(got == n && !bad, "%s: %d of %d receives, %d bad", what, got, n,
	      bad);
}

static void drain_sends(int n)
{
	struct ibv_wc wc[64];
	int got = poll_n(&db, wc, n, WAIT_MS), i, bad = 0;

	for (i = 0; i < got; i++)
		bad += wc[i].status != IBV_WC_SUCCESS;
	vt_check(got == n && !bad, "B: %d of %d sends completed, %d failed", got,
	      n, bad);
}

int main(int argc, char **argv)
{
	struct ibv_srq_init_attr sa = {};
	struct ibv_qp *qa[NQP], *qb[NQP], *ua, *ub;
	struct ibv_device_attr attr;
	struct ibv_async_event ev;
	struct ibv_srq_attr q = {};
	struct ibv_ah_attr aha = {};
	struct ibv_srq *srq, *bad;
	struct ibv_ah *ah;
	struct ibv_wc wc[8];
	unsigned int msg = 0;
	int i, err;

	vt_dev_args(argc, argv, "usage: %s DEV_A GIDX_A DEV_B GIDX_B\n", 256,
		    &da.v, &db.v);
	dev_slots(&da);
	dev_slots(&db);

	/* Limits */
	if (ibv_query_device(da.v.ctx, &attr))
		vt_die("ibv_query_device");
	vt_check(attr.max_srq > 0 && attr.max_srq_wr >= SRQ_WR &&
	      attr.max_srq_sge >= 1, "limits: max_srq %d max_srq_wr %d max_srq_sge %d",
	      attr.max_srq, attr.max_srq_wr, attr.max_srq_sge);

	/* Bad sizes and limits */
	sa.attr.max_wr = attr.max_srq_wr + 1;
	sa.attr.max_sge = 1;
	bad = ibv_create_srq(da.v.pd, &sa);
	vt_check(!bad && errno == EINVAL, "max_wr above max_srq_wr: EINVAL (%s)",
	      bad ? "created" : strerror(errno));
	sa.attr.max_wr = SRQ_WR;
	sa.attr.max_sge = attr.max_srq_sge + 1;
	bad = ibv_create_srq(da.v.pd, &sa);
	vt_check(!bad && errno == EINVAL, "max_sge above max_srq_sge: EINVAL (%s)",
	      bad ? "created" : strerror(errno));
	sa.attr.max_sge = 1;
	sa.attr.srq_limit = SRQ_WR + 1;
	bad = ibv_create_srq(da.v.pd, &sa);
	vt_check(!bad && errno == EINVAL, "srq_limit above max_wr: EINVAL (%s)",
	      bad ? "created" : strerror(errno));

	sa.attr.srq_limit = 0;
	srq = ibv_create_srq(da.v.pd, &sa);
	if (!srq)
		vt_die("ibv_create_srq");
	vt_check(sa.attr.max_wr >= SRQ_WR && sa.attr.max_sge >= 1,
	      "create: max_wr %u max_sge %u", sa.attr.max_wr, sa.attr.max_sge);
	q.srq_limit = sa.attr.max_wr + 1;
	err = ibv_modify_srq(srq, &q, IBV_SRQ_LIMIT);
	vt_check(err == EINVAL, "modify srq_limit above max_wr: EINVAL (%d)", err);
	q.max_wr = 2 * sa.attr.max_wr;
	err = ibv_modify_srq(srq, &q, IBV_SRQ_MAX_WR);
	vt_check(err != 0, "modify max_wr (no resize offered): refused (%d)", err);

	/* Two RC QPs of A on the SRQ, each connected to a plain QP of B. */
	for (i = 0; i < NQP; i++) {
		qa[i] = qp_new(&da, IBV_QPT_RC, srq);
		qb[i] = qp_new(&db, IBV_QPT_RC, NULL);
	}
	for (i = 0; i < NQP; i++) {
		qp_rts(qa[i], &da, &db, qb[i]->qp_num);
		qp_rts(qb[i], &db, &da, qa[i]->qp_num);
	}
	{
		struct ibv_recv_wr rwr = {}, *rbad;

		err = ibv_post_recv(qa[0], &rwr, &rbad);
		vt_check(err != 0, "post_recv on a QP with an SRQ: refused (%d)",
		      err);
	}

	/* 10 WQEs, limit 8: the third take leaves 7 and fires, once. */
	vt_check(!srq_post(srq, 0, 10), "post 10 receives to the SRQ");
	q.srq_limit = 8;
	vt_check(!ibv_modify_srq(srq, &q, IBV_SRQ_LIMIT), "arm srq_limit 8");
	memset(&q, 0, sizeof(q));
	err = ibv_query_srq(srq, &q);
	vt_check(!err && q.srq_limit == 8 && q.max_wr == sa.attr.max_wr,
	      "query: limit %u max_wr %u", q.srq_limit, q.max_wr);
	send_msg(qb[0], msg++, NULL, 0);
	expect_recvs(1, qa[0]->qp_num, 0, "RC qp 0, 1 message");
	send_msg(qb[1], msg++, NULL, 0);
	expect_recvs(1, qa[1]->qp_num, 0, "RC qp 1, 1 message");
	vt_check(!next_event(&da, &ev, 300), "no limit event with 8 WQEs left");
	send_msg(qb[0], msg++, NULL, 0);
	expect_recvs(1, qa[0]->qp_num, 0, "RC qp 0, 1 message");
	vt_check(wait_event(IBV_EVENT_SRQ_LIMIT_REACHED, srq, WAIT_MS),
	      "SRQ_LIMIT_REACHED with 7 WQEs left");
	memset(&q, 0, sizeof(q));
	err = ibv_query_srq(srq, &q);
	vt_check(!err && q.srq_limit == 0,
	      "query after the event: limit %u (disarmed)", q.srq_limit);
	send_msg(qb[1], msg++, NULL, 0);
	send_msg(qb[1], msg++, NULL, 0);
	expect_recvs(2, qa[1]->qp_num, 0, "RC qp 1, 2 messages");
	vt_check(!next_event(&da, &ev, 300), "one-shot: no second limit event");
	drain_sends(5);

	/* 5 left: both QPs use the SRQ; it cannot go. */
	errno = 0;
	err = ibv_destroy_srq(srq);
	vt_check(err == EBUSY, "destroy an SRQ with QPs: EBUSY (%d)", err);

	/* QP 0 to ERR: LAST_WQE_REACHED, and the SRQ keeps its 5 WQEs. */
	{
		struct ibv_qp_attr e = { .qp_state = IBV_QPS_ERR };

		vt_check(!ibv_modify_qp(qa[0], &e, IBV_QP_STATE), "qp 0 to ERR");
	}
	vt_check(wait_event(IBV_EVENT_QP_LAST_WQE_REACHED, qa[0], WAIT_MS),
	      "QP_LAST_WQE_REACHED for qp 0");
	vt_check(poll_n(&da, wc, 1, 300) == 0, "no completion for the SRQ's WQEs");
	/* Re-armed at 3: 5 -> 2 after three takes. */
	q.srq_limit = 3;
	vt_check(!ibv_modify_srq(srq, &q, IBV_SRQ_LIMIT), "re-arm srq_limit 3");
	for (i = 0; i < 5; i++)
		send_msg(qb[1], msg++, NULL, 0);
	expect_recvs(5, qa[1]->qp_num, 0, "RC qp 1 after qp 0's ERR, 5 messages");
	drain_sends(5);
	vt_check(wait_event(IBV_EVENT_SRQ_LIMIT_REACHED, srq, WAIT_MS),
	      "re-armed SRQ_LIMIT_REACHED");

	/* UD: one QP of A on the SRQ, a 40-byte GRH before the data. */
	vt_check(!srq_post(srq, 10, 4), "post 4 more receives");
	ua = qp_new(&da, IBV_QPT_UD, srq);
	ub = qp_new(&db, IBV_QPT_UD, NULL);
	qp_rts(ua, &da, &db, 0);
	qp_rts(ub, &db, &da, 0);
	aha.is_global = 1;
	aha.grh.dgid = da.v.gid;
	aha.grh.sgid_index = db.v.gidx;
	aha.grh.hop_limit = 1;
	aha.port_num = 1;
	ah = ibv_create_ah(db.v.pd, &aha);
	if (!ah)
		vt_die("ibv_create_ah");
	for (i = 0; i < 3; i++)
		send_msg(ub, msg++, ah, ua->qp_num);
	expect_recvs(3, ua->qp_num, 40, "UD on the SRQ, 3 messages");
	drain_sends(3);

	/* Teardown: the SRQ goes with one WQE still in it. */
	ibv_destroy_ah(ah);
	ibv_destroy_qp(ua);
	ibv_destroy_qp(ub);
	for (i = 0; i < NQP; i++) {
		ibv_destroy_qp(qa[i]);
		ibv_destroy_qp(qb[i]);
	}
	err = ibv_destroy_srq(srq);
	vt_check(!err, "destroy the SRQ with a WQE in it (%d)", err);

	ibv_dereg_mr(da.mr);
	ibv_dereg_mr(db.mr);
	ibv_destroy_cq(da.v.cq);
	ibv_destroy_cq(db.v.cq);
	ibv_dealloc_pd(da.v.pd);
	ibv_dealloc_pd(db.v.pd);
	ibv_close_device(da.v.ctx);
	ibv_close_device(db.v.ctx);
	printf("srq_check: %d checks, %d failures\n", vt_checks, vt_failures);
	return vt_failures ? 1 : 0;
}
