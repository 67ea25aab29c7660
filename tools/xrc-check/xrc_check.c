// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * xrc_check DEV_A GID_INDEX_A DEV_B GID_INDEX_B
 *
 * XRC semantics between two devices, with plain verbs.  Device A is the
 * target: an XRC domain shared through a file, XRC SRQs in it with their
 * own CQ, one XRC_RECV (target) QP.  Device B is the initiator: one
 * XRC_SEND QP, which reaches every SRQ of A's domain through that one
 * target QP.  Checked: IBV_DEVICE_XRC; distinct SRQ numbers; SENDs steered
 * by SRQ number (data, wr_ids, qp_num of the target, the SRQ's CQ); a
 * multi-packet SEND; SEND with immediate; RDMA WRITE with immediate taking
 * a WQE; RDMA READ and fetch-and-add with the SRQ's PD; the SRQ named
 * chooses the PD for memory access (an MR of another PD is reachable
 * through an SRQ of that PD only: IBV_WC_REM_ACCESS_ERR otherwise); an SRQ
 * of another domain, an SRQ number that does not exist and a destroyed
 * SRQ are IBV_WC_REM_INV_REQ_ERR and take the target QP to ERR; an empty
 * SRQ is waited for (RNR) until a receive arrives; the SRQ limit event;
 * EBUSY for a domain with SRQs and a CQ of an XRC SRQ; no receive queue on
 * either QP type and no send queue on the target; ibv_open_qp of the
 * target from a second context through the same domain file.  Prints one
 * line per check and exits non-zero if any failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "vt.h"

#define SLOT		16384
#define NSLOT		32
#define WAIT_MS		5000
#define SRQ_WR		16
#define BIG		10000	/* ten packets at path MTU 1024 */

struct dev {
	struct vt_dev v;
	uint8_t *buf;
	struct ibv_mr *mr;
};

static struct dev da, db;
/*
 * A's second PD and an MR in it: slot 0 is written remotely, slots 1-3
 * take the receives of the second PD's SRQ (an SRQ's SGEs are checked
 * against its own PD).
 */
#define NSLOT2		4
static struct ibv_pd *pd2;
static struct ibv_mr *mr2;
static uint8_t *buf2;

static uint8_t pattern(unsigned int msg, unsigned int i)
{
	return (uint8_t)(msg * 37 + i * 11 + 5);
}

static void dev_slots(struct dev *d)
{
	d->buf = calloc(NSLOT, SLOT);
	if (!d->buf)
		vt_die("calloc");
	d->mr = ibv_reg_mr(d->v.pd, d->buf, NSLOT * SLOT,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (!d->mr)
		vt_die("ibv_reg_mr");
}

/* A domain of A's, shared through a file of its own (ibv_open_xrcd's way). */
static struct ibv_xrcd *xrcd_open(struct ibv_context *ctx, int fd)
{
	struct ibv_xrcd_init_attr a = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd,
		.oflags = O_CREAT,
	};
	struct ibv_xrcd *x = ibv_open_xrcd(ctx, &a);

	if (!x)
		vt_die("ibv_open_xrcd");
	return x;
}

static int tmp_file(void)
{
	char name[] = "/tmp/xrc_check.XXXXXX";
	int fd = mkstemp(name);

	if (fd < 0)
		vt_die("mkstemp");
	unlink(name);
	return fd;
}

static struct ibv_srq *xsrq_new(struct ibv_xrcd *x, struct ibv_pd *pd)
{
	struct ibv_srq_init_attr_ex a = {
		.attr = { .max_wr = SRQ_WR, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
		.pd = pd,
		.xrcd = x,
		.cq = da.v.cq,
	};
	struct ibv_srq *s = ibv_create_srq_ex(da.v.ctx, &a);

	if (!s)
		vt_die("ibv_create_srq_ex XRC");
	return s;
}

static uint32_t srq_num(struct ibv_srq *s)
{
	uint32_t n = 0;

	if (ibv_get_srq_num(s, &n))
		vt_die("ibv_get_srq_num");
	return n;
}

/* Receives in A's buffer (the first PD), wr_id = slot. */
static int srq_post(struct ibv_srq *srq, unsigned int first, unsigned int n)
{
	return vt_post_slots(NULL, srq, da.buf, da.mr, SLOT, first, n);
}

/* Receives in the second PD's buffer, wr_id = slot. */
static int srq_post2(struct ibv_srq *srq, unsigned int first, unsigned int n)
{
	return vt_post_slots(NULL, srq, buf2, mr2, SLOT, first, n);
}

/* The target and the initiator, connected to each other. */
struct pair {
	struct ibv_qp *tgt;	/* A, XRC_RECV */
	struct ibv_qp *ini;	/* B, XRC_SEND */
};

static struct ibv_qp *tgt_new(struct ibv_context *ctx, struct ibv_xrcd *x)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
		.xrcd = x,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(ctx, &a);

	if (!qp)
		vt_die("ibv_create_qp_ex XRC_RECV");
	return qp;
}

static struct ibv_qp *ini_new(void)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_XRC_SEND,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = db.v.pd,
		.send_cq = db.v.cq,
		.cap = { .max_send_wr = 32, .max_send_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp_ex(db.v.ctx, &a);

	if (!qp)
		vt_die("ibv_create_qp_ex XRC_SEND");
	return qp;
}

static void pair_new(struct pair *p, struct ibv_xrcd *x)
{
	struct vt_conn c = {
		.psn = 0xfffff0,	/* the PSNs cross the 24-bit wrap */
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_REMOTE_ATOMIC,
	};

	p->tgt = tgt_new(da.v.ctx, x);
	p->ini = ini_new();
	c.dgid = db.v.gid;
	c.sgid_index = da.v.gidx;
	c.dqpn = p->ini->qp_num;
	vt_qp_connect(p->tgt, &c);
	c.dgid = da.v.gid;
	c.sgid_index = db.v.gidx;
	c.dqpn = p->tgt->qp_num;
	vt_qp_connect(p->ini, &c);
}

static void pair_free(struct pair *p)
{
	if (ibv_destroy_qp(p->ini) || ibv_destroy_qp(p->tgt))
		vt_die("ibv_destroy_qp");
}

/* Posts one WR on the initiator for @srqn; @len bytes of B's slot @slot. */
static void post(struct pair *p, enum ibv_wr_opcode op, uint32_t srqn,
		 unsigned int slot, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge sge = {
		.addr = (uintptr_t)db.buf + (size_t)slot * SLOT,
		.length = len,
		.lkey = db.mr->lkey,
	};

	wr.wr_id = 1000 + slot;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.qp_type.xrc.remote_srqn = srqn;
	wr.imm_data = htobe32(0xc0ffee00 + slot);
	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 5;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	if (ibv_post_send(p->ini, &wr, &bad))
		vt_die("ibv_post_send");
}

/* Fills B's slot @slot with message @msg's bytes. */
static void fill(unsigned int slot, unsigned int msg, uint32_t len)
{
	uint8_t *q = db.buf + (size_t)slot * SLOT;
	uint32_t i;

	for (i = 0; i < len; i++)
		q[i] = pattern(msg, i);
}

static bool same(const uint8_t *q, unsigned int msg, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (q[i] != pattern(msg, i))
			return false;
	return true;
}

/* One completion of @d within WAIT_MS, or false. */
static bool poll_one(struct dev *d, struct ibv_wc *wc, int ms)
{
	uint64_t end = vt_now_ms() + ms;
	int r;

	do {
		r = ibv_poll_cq(d->v.cq, 1, wc);
		if (r < 0)
			return false;
		if (r == 1)
			return true;
	} while (vt_now_ms() < end);
	return false;
}

/* B's completion of its last WR: @want status. */
static void ini_done(enum ibv_wc_status want, const char *what)
{
	struct ibv_wc wc;
	bool got = poll_one(&db, &wc, WAIT_MS);

	vt_check(got && wc.status == want, "%s: initiator completes %s (%s)",
		 what, ibv_wc_status_str(want),
		 got ? ibv_wc_status_str(wc.status) : "nothing");
}

/* A's receive on the SRQ's CQ: slot @slot, of @len bytes, via @tgt. */
static void tgt_recv(struct ibv_qp *tgt, unsigned int slot, uint32_t len,
		     enum ibv_wc_opcode op, bool imm, const char *what)
{
	struct ibv_wc wc;
	bool got = poll_one(&da, &wc, WAIT_MS);

	if (got && (wc.status != IBV_WC_SUCCESS || wc.opcode != op ||
		    wc.wr_id != slot || wc.qp_num != tgt->qp_num ||
		    wc.byte_len != len ||
		    !!(wc.wc_flags & IBV_WC_WITH_IMM) != imm ||
		    (imm && be32toh(wc.imm_data) != 0xc0ffee00 + slot)))
		printf("  wc wr_id %llu status %s opcode %d qp %u (target %u) len %u flags 0x%x\n",
		       (unsigned long long)wc.wr_id,
		       ibv_wc_status_str(wc.status), wc.opcode, wc.qp_num,
		       tgt->qp_num, wc.byte_len, wc.wc_flags);
	vt_check(got && wc.status == IBV_WC_SUCCESS && wc.opcode == op &&
		 wc.wr_id == slot && wc.qp_num == tgt->qp_num &&
		 wc.byte_len == len && !!(wc.wc_flags & IBV_WC_WITH_IMM) == imm,
		 "%s: receive in slot %u on the SRQ's CQ, qp_num of the target",
		 what, slot);
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &init))
		return (enum ibv_qp_state)-1;
	return a.qp_state;
}

/* The target moves to ERR after an invalid request; wait for it. */
static bool tgt_in_err(struct ibv_qp *tgt)
{
	uint64_t end = vt_now_ms() + WAIT_MS;

	while (vt_now_ms() < end) {
		if (qp_state(tgt) == IBV_QPS_ERR)
			return true;
		vt_sleep_us(10000);
	}
	return false;
}

/* A SEND for @srqn fails as an invalid request and kills the target. */
static void invalid_srq(struct ibv_xrcd *x, uint32_t srqn, const char *what)
{
	struct ibv_wc wc;
	struct pair p;

	pair_new(&p, x);
	fill(0, 90, 64);
	post(&p, IBV_WR_SEND, srqn, 0, 64, 0, 0);
	ini_done(IBV_WC_REM_INV_REQ_ERR, what);
	vt_check(tgt_in_err(p.tgt), "%s: the target QP is in ERR", what);
	vt_check(!poll_one(&da, &wc, 100), "%s: no receive completion", what);
	pair_free(&p);
}

static bool next_event(struct ibv_context *ctx, struct ibv_async_event *ev,
		       int ms)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };

	if (poll(&pfd, 1, ms) <= 0)
		return false;
	if (ibv_get_async_event(ctx, ev))
		return false;
	ibv_ack_async_event(ev);
	return true;
}

static bool wait_srq_limit(struct ibv_srq *srq)
{
	uint64_t end = vt_now_ms() + WAIT_MS;
	struct ibv_async_event ev;

	while (vt_now_ms() < end) {
		if (!next_event(da.v.ctx, &ev, 50))
			continue;
		if (ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED &&
		    ev.element.srq == srq)
			return true;
		printf("  (event %s)\n", ibv_event_type_str(ev.event_type));
	}
	return false;
}

/* Neither XRC QP type has a receive queue; the target has no send queue. */
static void no_queues(struct pair *p)
{
	struct ibv_recv_wr rwr = {}, *rbad;
	struct ibv_send_wr swr = {}, *sbad;
	int err;

	err = ibv_post_recv(p->ini, &rwr, &rbad);
	vt_check(err != 0, "post_recv on XRC_SEND: refused (%d)", err);
	err = ibv_post_recv(p->tgt, &rwr, &rbad);
	vt_check(err != 0, "post_recv on XRC_RECV: refused (%d)", err);
	swr.opcode = IBV_WR_SEND;
	err = ibv_post_send(p->tgt, &swr, &sbad);
	vt_check(err != 0, "post_send on XRC_RECV: refused (%d)", err);
}

/* A second context of A opens the target QP through the domain's file. */
static void open_qp_elsewhere(struct pair *p, int fd, uint32_t srqn,
			      unsigned int slot)
{
	struct ibv_context *ctx2 = vt_open_device(da.v.name);
	struct ibv_xrcd *x2 = xrcd_open(ctx2, fd);
	struct ibv_qp_open_attr oa = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_num = p->tgt->qp_num,
		.xrcd = x2,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_qp *q = ibv_open_qp(ctx2, &oa);

	vt_check(q && q->qp_num == p->tgt->qp_num,
		 "ibv_open_qp of the target from another context (%s)",
		 q ? "opened" : strerror(errno));
	if (q) {
		vt_check(qp_state(q) == IBV_QPS_RTS,
			 "the opened QP queries as RTS");
		vt_check(!ibv_destroy_qp(q), "close the opened QP");
	}
	oa.qp_num = 0xfffff0;	/* no QP of this domain */
	q = ibv_open_qp(ctx2, &oa);
	vt_check(!q, "ibv_open_qp of a QP number no target has: refused (%s)",
		 q ? "opened" : strerror(errno));
	if (q)
		ibv_destroy_qp(q);
	vt_check(!ibv_close_xrcd(x2), "close the second context's domain");
	ibv_close_device(ctx2);

	/* The original target still serves. */
	fill(5, 50, 300);
	post(p, IBV_WR_SEND, srqn, 5, 300, 0, 0);
	ini_done(IBV_WC_SUCCESS, "after the other context closed");
	tgt_recv(p->tgt, slot, 300, IBV_WC_RECV, false,
		 "after the other context closed");
	vt_check(same(da.buf + (size_t)slot * SLOT, 50, 300),
		 "after close: data");
}

int main(int argc, char **argv)
{
	struct ibv_srq *s1, *s2, *s_pd2, *s_other;
	struct ibv_xrcd *x1, *x2;
	struct ibv_device_attr_ex attr;
	struct ibv_srq_attr sattr = {};
	uint32_t n1, n2, n_pd2, n_other, n_gone;
	uint64_t *word;
	struct pair p;
	int fd1, fd2, err;

	vt_dev_args(argc, argv, "usage: %s DEV_A GIDX_A DEV_B GIDX_B\n", 256,
		    &da.v, &db.v);
	dev_slots(&da);
	dev_slots(&db);
	pd2 = ibv_alloc_pd(da.v.ctx);
	buf2 = calloc(NSLOT2, SLOT);
	if (!pd2 || !buf2)
		vt_die("second PD");
	mr2 = ibv_reg_mr(pd2, buf2, NSLOT2 * SLOT, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!mr2)
		vt_die("ibv_reg_mr in the second PD");

	if (ibv_query_device_ex(da.v.ctx, NULL, &attr))
		vt_die("ibv_query_device_ex");
	vt_check(attr.orig_attr.device_cap_flags & IBV_DEVICE_XRC,
		 "IBV_DEVICE_XRC is set");

	fd1 = tmp_file();
	fd2 = tmp_file();
	x1 = xrcd_open(da.v.ctx, fd1);
	x2 = xrcd_open(da.v.ctx, fd2);
	s1 = xsrq_new(x1, da.v.pd);
	s2 = xsrq_new(x1, da.v.pd);
	s_pd2 = xsrq_new(x1, pd2);
	s_other = xsrq_new(x2, da.v.pd);
	n1 = srq_num(s1);
	n2 = srq_num(s2);
	n_pd2 = srq_num(s_pd2);
	n_other = srq_num(s_other);
	vt_check(n1 && n2 && n_pd2 && n_other && n1 != n2 && n1 != n_pd2 &&
		 n2 != n_pd2 && n_other != n1 && n_other != n2,
		 "SRQ numbers %u %u %u %u: distinct", n1, n2, n_pd2, n_other);
	/* The second PD's SRQ stays empty until the RNR check. */
	vt_check(!srq_post(s1, 0, 8) && !srq_post(s2, 8, 4),
		 "post receives to two XRC SRQs");

	pair_new(&p, x1);
	no_queues(&p);

	/* One initiator QP reaches both SRQs through one target QP. */
	fill(0, 1, 256);
	post(&p, IBV_WR_SEND, n1, 0, 256, 0, 0);
	ini_done(IBV_WC_SUCCESS, "SEND to SRQ 1");
	tgt_recv(p.tgt, 0, 256, IBV_WC_RECV, false, "SEND to SRQ 1");
	vt_check(same(da.buf, 1, 256), "SEND to SRQ 1: data");
	fill(1, 2, 512);
	post(&p, IBV_WR_SEND, n2, 1, 512, 0, 0);
	ini_done(IBV_WC_SUCCESS, "SEND to SRQ 2");
	tgt_recv(p.tgt, 8, 512, IBV_WC_RECV, false, "SEND to SRQ 2");
	vt_check(same(da.buf + 8 * SLOT, 2, 512), "SEND to SRQ 2: data");
	fill(2, 3, BIG);
	post(&p, IBV_WR_SEND, n1, 2, BIG, 0, 0);
	ini_done(IBV_WC_SUCCESS, "multi-packet SEND");
	tgt_recv(p.tgt, 1, BIG, IBV_WC_RECV, false, "multi-packet SEND");
	vt_check(same(da.buf + 1 * SLOT, 3, BIG), "multi-packet SEND: data");
	fill(3, 4, 100);
	post(&p, IBV_WR_SEND_WITH_IMM, n2, 3, 100, 0, 0);
	ini_done(IBV_WC_SUCCESS, "SEND with immediate");
	tgt_recv(p.tgt, 9, 100, IBV_WC_RECV, true, "SEND with immediate");

	/* RDMA through the target: the named SRQ's PD decides. */
	fill(4, 5, 3000);
	post(&p, IBV_WR_RDMA_WRITE_WITH_IMM, n1, 4, 3000,
	     (uintptr_t)da.buf + 20 * SLOT, da.mr->rkey);
	ini_done(IBV_WC_SUCCESS, "RDMA WRITE with immediate");
	tgt_recv(p.tgt, 2, 3000, IBV_WC_RECV_RDMA_WITH_IMM, true,
		 "RDMA WRITE with immediate");
	vt_check(same(da.buf + 20 * SLOT, 5, 3000), "RDMA WRITE: data");
	memset(db.buf + 6 * SLOT, 0, SLOT);
	post(&p, IBV_WR_RDMA_READ, n1, 6, 3000, (uintptr_t)da.buf + 20 * SLOT,
	     da.mr->rkey);
	ini_done(IBV_WC_SUCCESS, "RDMA READ");
	vt_check(same(db.buf + 6 * SLOT, 5, 3000), "RDMA READ: data");
	word = (uint64_t *)(da.buf + 21 * SLOT);
	*word = 40;
	post(&p, IBV_WR_ATOMIC_FETCH_AND_ADD, n2, 7, 8, (uintptr_t)word,
	     da.mr->rkey);
	ini_done(IBV_WC_SUCCESS, "fetch-and-add");
	vt_check(*(uint64_t *)(db.buf + 7 * SLOT) == 40 && *word == 45,
		 "fetch-and-add: returned %llu, now %llu",
		 (unsigned long long)*(uint64_t *)(db.buf + 7 * SLOT),
		 (unsigned long long)*word);
	fill(8, 6, 200);
	post(&p, IBV_WR_RDMA_WRITE, n_pd2, 8, 200, (uintptr_t)buf2, mr2->rkey);
	ini_done(IBV_WC_SUCCESS, "RDMA WRITE to the second PD's MR via its SRQ");
	vt_check(same(buf2, 6, 200), "second PD's MR: data");

	/* The SRQ limit event, through a target QP's takes. */
	sattr.srq_limit = 4;
	vt_check(!ibv_modify_srq(s1, &sattr, IBV_SRQ_LIMIT),
		 "arm SRQ 1's limit at 4 (5 WQEs left)");
	fill(9, 7, 64);
	post(&p, IBV_WR_SEND, n1, 9, 64, 0, 0);
	ini_done(IBV_WC_SUCCESS, "SEND leaving 4 WQEs");
	tgt_recv(p.tgt, 3, 64, IBV_WC_RECV, false, "SEND leaving 4 WQEs");
	fill(9, 8, 64);
	post(&p, IBV_WR_SEND, n1, 9, 64, 0, 0);
	ini_done(IBV_WC_SUCCESS, "SEND leaving 3 WQEs");
	tgt_recv(p.tgt, 4, 64, IBV_WC_RECV, false, "SEND leaving 3 WQEs");
	vt_check(wait_srq_limit(s1), "SRQ_LIMIT_REACHED for SRQ 1");

	/* An empty SRQ: RNR NAKs until a receive is posted. */
	fill(10, 9, 700);
	post(&p, IBV_WR_SEND, n_pd2, 10, 700, 0, 0);
	post(&p, IBV_WR_SEND, n_pd2, 10, 700, 0, 0);
	post(&p, IBV_WR_SEND, n_pd2, 10, 700, 0, 0);
	vt_sleep_us(200000);
	vt_check(!srq_post2(s_pd2, 1, 1), "post one receive after 200 ms");
	tgt_recv(p.tgt, 1, 700, IBV_WC_RECV, false, "SEND into an empty SRQ");
	vt_check(same(buf2 + SLOT, 9, 700), "empty SRQ, then: data");
	ini_done(IBV_WC_SUCCESS, "first SEND into an empty SRQ");
	{
		struct ibv_wc wc;

		vt_check(!poll_one(&db, &wc, 300),
			 "the next SEND waits for a receive (RNR)");
	}
	vt_check(!srq_post2(s_pd2, 2, 2), "post two more receives");
	tgt_recv(p.tgt, 2, 700, IBV_WC_RECV, false, "second SEND");
	tgt_recv(p.tgt, 3, 700, IBV_WC_RECV, false, "third SEND");
	vt_check(same(buf2 + 3 * SLOT, 9, 700), "third SEND: data");
	ini_done(IBV_WC_SUCCESS, "second SEND");
	ini_done(IBV_WC_SUCCESS, "third SEND");

	/* Objects that are in use stay. */
	err = ibv_close_xrcd(x1);
	vt_check(err == EBUSY, "close a domain with SRQs and a target: EBUSY (%d)",
		 err);
	err = ibv_destroy_cq(da.v.cq);
	vt_check(err == EBUSY, "destroy the CQ of XRC SRQs: EBUSY (%d)", err);

	open_qp_elsewhere(&p, fd1, n2, 10);

	/* The named SRQ's PD, not any other, is the one checked. */
	fill(11, 10, 64);
	post(&p, IBV_WR_RDMA_WRITE, n1, 11, 64, (uintptr_t)buf2, mr2->rkey);
	ini_done(IBV_WC_REM_ACCESS_ERR,
		 "RDMA WRITE to the second PD's MR via an SRQ of the first");
	vt_check(same(buf2, 6, 200), "the second PD's MR is unchanged");
	pair_free(&p);

	invalid_srq(x1, n_other, "SEND to an SRQ of another domain");
	n_gone = n2;
	vt_check(!ibv_destroy_srq(s2), "destroy SRQ 2 (no QP waits for it)");
	invalid_srq(x1, n_gone, "SEND to a destroyed SRQ");
	invalid_srq(x1, 0xfffff0, "SEND to an SRQ number that does not exist");

	/* And a healthy pair after all that. */
	pair_new(&p, x1);
	fill(12, 11, 1500);
	post(&p, IBV_WR_SEND, n1, 12, 1500, 0, 0);
	ini_done(IBV_WC_SUCCESS, "a new pair");
	tgt_recv(p.tgt, 5, 1500, IBV_WC_RECV, false, "a new pair");
	vt_check(same(da.buf + 5 * SLOT, 11, 1500), "a new pair: data");
	pair_free(&p);

	if (ibv_destroy_srq(s1) || ibv_destroy_srq(s_pd2) ||
	    ibv_destroy_srq(s_other))
		vt_die("ibv_destroy_srq");
	vt_check(!ibv_close_xrcd(x1) && !ibv_close_xrcd(x2),
		 "close both domains once empty");
	close(fd1);
	close(fd2);
	ibv_dereg_mr(mr2);
	ibv_dealloc_pd(pd2);
	ibv_dereg_mr(da.mr);
	ibv_dereg_mr(db.mr);
	ibv_destroy_cq(da.v.cq);
	ibv_destroy_cq(db.v.cq);
	ibv_dealloc_pd(da.v.pd);
	ibv_dealloc_pd(db.v.pd);
	ibv_close_device(da.v.ctx);
	ibv_close_device(db.v.ctx);
	free(buf2);
	printf("xrc_check: %d checks, %d failures\n", vt_checks, vt_failures);
	return vt_failures ? 1 : 0;
}
