// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * users_verbs: what one user of a virtio_rdma device can do to another
 * user's objects and to the device's limits, with plain verbs (scenarios
 * users-unprivileged and users-exhaustion, which run it under different
 * uids with a normal RLIMIT_MEMLOCK).
 *
 *   users_verbs owner DEV_A GIDX_A DEV_B GIDX_B
 *	(its UD address handle goes from DEV_B to DEV_A: run it where DEV_B's
 *	netdev is, for the provider resolves the MAC in its own namespace)
 *	Registers an MR with a pattern and every access right on DEV_A and
 *	a UD QP with receives posted, prints "owner: lkey .. rkey .. addr ..
 *	len .. ud_qpn .." and waits for a line (or EOF) on stdin.  Then
 *	checks that nobody reached its objects (pattern intact, no UD
 *	receive) and that its own traffic works: RDMA READ and WRITE of its
 *	MR and UD sends with its qkey, from its own QPs on DEV_B.
 *
 *   users_verbs intruder DEV_A GIDX_A DEV_B GIDX_B LKEY RKEY ADDR UD_QPN
 *	The owner's keys, address and UD QPN, used from another process
 *	(another uid) on its own QPs: each attempt must fail the way
 *	Documentation/virtio-rdma-spec.rst ("Key checks") says.
 *
 *   users_verbs fill DEV KIND[,KIND...] [MAX [hold]]
 *	Creates objects of each KIND (qp, mr, cq, pd, bigqp: QPs of the
 *	largest size QUERY_DEVICE allows) until creation fails
 *	or MAX of them exist, prints "fill KIND: N created in T ms, stopped
 *	by ERRNO", with "hold" waits for EOF on stdin, then destroys all and
 *	prints the time.  A failure other than ENOMEM, ENOSPC, EINVAL or
 *	EAGAIN (EIO, say) is a failure of the run.
 *
 *   users_verbs limits DEV
 *	A CQ deeper than max_cqe, QPs above max_qp_wr and max_send_sge,
 *	and MRs above RLIMIT_MEMLOCK (for a process without CAP_IPC_LOCK)
 *	must fail with EINVAL or ENOMEM; the largest legal ones must work.
 *
 * Prints one line per check; exits 0 when all passed, 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "vt.h"

#define BUF_SIZE	(64 * 1024)
#define PAT_OFF		0		/* the owner's pattern: nobody writes it */
#define PAT_LEN		(16 * 1024)
#define SCRATCH_OFF	(16 * 1024)	/* the owner's own RDMA WRITE lands here */
#define SCRATCH_LEN	(4 * 1024)
#define RECV_OFF	(32 * 1024)	/* UD receive slots */
#define SLOT		1024
#define NRECV		16
#define MSG		64
#define NOWN_UD		4		/* the owner's own UD messages */
#define QKEY_A		0x11111111
#define QKEY_B		0x22222222
#define WAIT_MS		5000
#define QUIET_MS	1000
#define HOLD_MS		(600 * 1000)

struct dev {
	const char *name;
	int gidx;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	union ibv_gid gid;
	uint8_t *buf;
	struct ibv_mr *mr;
};

/* Two connected RC QPs, x on one device and y on the other, own CQs. */
struct pair {
	struct ibv_cq *cx, *cy;
	struct ibv_qp *x, *y;
};

static struct dev da, db;
static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 7 + 3);
}

static void dev_open(struct dev *d)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ;

	d->ctx = vt_open_device(d->name);
	if (ibv_query_device(d->ctx, &d->attr))
		vt_die("ibv_query_device");
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd)
		vt_die("ibv_alloc_pd");
	if (ibv_query_gid(d->ctx, 1, d->gidx, &d->gid))
		vt_die("ibv_query_gid");
	d->buf = aligned_alloc(4096, BUF_SIZE);
	if (!d->buf)
		vt_die("aligned_alloc");
	memset(d->buf, 0, BUF_SIZE);
	if (d->attr.atomic_cap != IBV_ATOMIC_NONE)
		access |= IBV_ACCESS_REMOTE_ATOMIC;
	d->mr = ibv_reg_mr(d->pd, d->buf, BUF_SIZE, access);
	if (!d->mr)
		vt_die("ibv_reg_mr");
}

static struct ibv_qp *qp_new(struct dev *d, struct ibv_cq *cq,
			     enum ibv_qp_type type)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = {
			.max_send_wr = 16,
			.max_recv_wr = NRECV,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.qp_type = type,
	};
	struct ibv_qp *qp = ibv_create_qp(d->pd, &a);

	if (!qp)
		vt_die("ibv_create_qp");
	return qp;
}

/*
 * Every remote right on the RC QPs: what refuses another user's rkey must
 * be the key and PD check, not the QP's access flags.
 */
static void qp_rts(struct ibv_qp *qp, struct dev *self, struct dev *peer,
		   uint32_t dqpn, uint32_t qkey)
{
	struct vt_conn c = {
		.dgid = peer->gid,
		.sgid_index = self->gidx,
		.dqpn = dqpn,
		.psn = 0x100,
		.qkey = qkey,
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_REMOTE_ATOMIC,
	};

	vt_qp_connect(qp, &c);
}

static void pair_new(struct pair *p, struct dev *dx, struct dev *dy)
{
	p->cx = ibv_create_cq(dx->ctx, 64, NULL, NULL, 0);
	p->cy = ibv_create_cq(dy->ctx, 64, NULL, NULL, 0);
	if (!p->cx || !p->cy)
		vt_die("ibv_create_cq");
	p->x = qp_new(dx, p->cx, IBV_QPT_RC);
	p->y = qp_new(dy, p->cy, IBV_QPT_RC);
	qp_rts(p->x, dx, dy, p->y->qp_num, 0);
	qp_rts(p->y, dy, dx, p->x->qp_num, 0);
}

static void pair_free(struct pair *p)
{
	if (ibv_destroy_qp(p->x) || ibv_destroy_qp(p->y) ||
	    ibv_destroy_cq(p->cx) || ibv_destroy_cq(p->cy))
		vt_die("destroying a pair");
}

/* The next completion on @cq within @ms. */
static bool wait_wc(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	uint64_t end = vt_now_ms() + ms;
	int r;

	do {
		r = ibv_poll_cq(cq, 1, wc);
		if (r < 0)
			return false;
		if (r)
			return true;
	} while (vt_now_ms() < end);
	return false;
}

/* How many completions come on @cq within @ms (drained). */
static int count_wc(struct ibv_cq *cq, int ms, uint32_t src_qp, int *foreign)
{
	uint64_t end = vt_now_ms() + ms;
	struct ibv_wc wc;
	int n = 0;

	while (vt_now_ms() < end) {
		if (ibv_poll_cq(cq, 1, &wc) != 1)
			continue;
		n++;
		if (wc.status != IBV_WC_SUCCESS || wc.src_qp != src_qp)
			(*foreign)++;
	}
	return n;
}

static void post_send(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t addr,
		      uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = {}, *bad;

	wr.wr_id = op;
	wr.sg_list = &sge;
	wr.num_sge = len ? 1 : 0;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_READ:
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
		break;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 1;
		break;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
		wr.invalidate_rkey = rkey;
		break;
	default:
		break;
	}
	if (ibv_post_send(qp, &wr, &bad))
		vt_die("ibv_post_send");
}

static void post_recv(struct ibv_qp *qp, uint64_t id, uint64_t addr,
		      uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(qp, &wr, &bad))
		vt_die("ibv_post_recv");
}

/* One completion on @cq with status @want; @what names the case. */
static void expect_wc(struct ibv_cq *cq, enum ibv_wc_status want,
		      const char *what)
{
	struct ibv_wc wc;

	if (!wait_wc(cq, &wc, WAIT_MS)) {
		vt_check(false, "%s: no completion in %d ms", what, WAIT_MS);
		return;
	}
	vt_check(wc.status == want, "%s: %s (want %s)", what,
	      ibv_wc_status_str(wc.status), ibv_wc_status_str(want));
}

static struct ibv_ah *ah_to(struct dev *self, struct dev *peer)
{
	struct ibv_ah_attr a = {
		.is_global = 1,
		.port_num = 1,
		.grh = {
			.dgid = peer->gid,
			.sgid_index = self->gidx,
			.hop_limit = 1,
		},
	};
	struct ibv_ah *ah = ibv_create_ah(self->pd, &a);

	if (!ah)
		vt_die("ibv_create_ah");
	return ah;
}

static void ud_send(struct ibv_qp *qp, struct dev *d, struct ibv_ah *ah,
		    uint32_t qpn, uint32_t qkey, uint8_t fill)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)d->buf + SCRATCH_OFF,
		.length = MSG,
		.lkey = d->mr->lkey,
	};
	struct ibv_send_wr wr = {}, *bad;

	memset(d->buf + SCRATCH_OFF, fill, MSG);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = qkey;
	if (ibv_post_send(qp, &wr, &bad))
		vt_die("ibv_post_send UD");
}

static void dev_args(char **argv)
{
	da.name = argv[0];
	da.gidx = atoi(argv[1]);
	db.name = argv[2];
	db.gidx = atoi(argv[3]);
	dev_open(&da);
	dev_open(&db);
}

/* Blocks until a line or EOF on stdin (bounded). */
static void wait_stdin(void)
{
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	char c;

	if (poll(&pfd, 1, HOLD_MS) <= 0)
		printf("note: nobody said go within %d s\n", HOLD_MS / 1000);
	else if (read(0, &c, 1) < 0)
		vt_die("read stdin");
}

/* ------------------------------------------------------------- owner -- */

static size_t pattern_damage(const uint8_t *p)
{
	size_t i, bad = 0;

	for (i = 0; i < PAT_LEN; i++)
		bad += p[i] != pattern(i);
	return bad;
}

static int owner_main(char **argv)
{
	struct ibv_cq *ucq_a, *ucq_b;
	struct ibv_qp *ua, *ub;
	struct ibv_ah *ah;
	struct pair p;
	int i, n, foreign = 0;
	size_t bad;

	dev_args(argv);
	for (i = 0; i < PAT_LEN; i++)
		da.buf[PAT_OFF + i] = pattern(i);
	ucq_a = ibv_create_cq(da.ctx, 64, NULL, NULL, 0);
	if (!ucq_a)
		vt_die("ibv_create_cq");
	ua = qp_new(&da, ucq_a, IBV_QPT_UD);
	qp_rts(ua, &da, &db, 0, QKEY_A);
	for (i = 0; i < NRECV; i++)
		post_recv(ua, i, (uintptr_t)da.buf + RECV_OFF + i * SLOT, SLOT,
			  da.mr->lkey);
	printf("owner: lkey 0x%x rkey 0x%x addr 0x%llx len %u ud_qpn %u\n",
	       da.mr->lkey, da.mr->rkey, (unsigned long long)(uintptr_t)da.buf,
	       BUF_SIZE, ua->qp_num);
	wait_stdin();

	/* What others left: nothing may have changed or arrived. */
	bad = pattern_damage(da.buf + PAT_OFF);
	vt_check(!bad, "owner: %d-byte pattern intact (%zu bytes changed)",
	      PAT_LEN, bad);
	n = count_wc(ucq_a, QUIET_MS, 0, &foreign);
	vt_check(n == 0, "owner: nothing reached its UD QP %u (%d receives)",
	      ua->qp_num, n);

	/* Its own traffic still works: READ and WRITE from its QP on B. */
	pair_new(&p, &da, &db);
	memset(db.buf, 0, PAT_LEN);
	post_send(p.y, IBV_WR_RDMA_READ, (uintptr_t)db.buf, PAT_LEN,
		  db.mr->lkey, (uintptr_t)da.buf + PAT_OFF, da.mr->rkey);
	expect_wc(p.cy, IBV_WC_SUCCESS, "owner: RDMA READ of its own MR");
	vt_check(!pattern_damage(db.buf), "owner: READ returned its pattern");
	memset(db.buf, 0x5a, SCRATCH_LEN);
	post_send(p.y, IBV_WR_RDMA_WRITE, (uintptr_t)db.buf, SCRATCH_LEN,
		  db.mr->lkey, (uintptr_t)da.buf + SCRATCH_OFF, da.mr->rkey);
	expect_wc(p.cy, IBV_WC_SUCCESS, "owner: RDMA WRITE to its own MR");
	vt_check(!memcmp(da.buf + SCRATCH_OFF, db.buf, SCRATCH_LEN),
	      "owner: WRITE landed");
	pair_free(&p);

	/* UD with its own qkey, from its own QP on B: exactly these arrive. */
	foreign = 0;
	ucq_b = ibv_create_cq(db.ctx, 64, NULL, NULL, 0);
	if (!ucq_b)
		vt_die("ibv_create_cq");
	ub = qp_new(&db, ucq_b, IBV_QPT_UD);
	qp_rts(ub, &db, &da, 0, QKEY_A);
	ah = ah_to(&db, &da);
	for (i = 0; i < NOWN_UD; i++) {
		ud_send(ub, &db, ah, ua->qp_num, QKEY_A, 0x60 + i);
		expect_wc(ucq_b, IBV_WC_SUCCESS, "owner: UD send");
	}
	n = count_wc(ucq_a, QUIET_MS, ub->qp_num, &foreign);
	vt_check(n == NOWN_UD && !foreign,
	      "owner: its UD QP got its own %d messages (%d, %d foreign or failed)",
	      NOWN_UD, n, foreign);
	bad = pattern_damage(da.buf + PAT_OFF);
	vt_check(!bad, "owner: pattern intact at the end (%zu bytes changed)", bad);
	if (ibv_destroy_ah(ah) || ibv_destroy_qp(ub) || ibv_destroy_qp(ua) ||
	    ibv_destroy_cq(ucq_b) || ibv_destroy_cq(ucq_a))
		vt_die("owner teardown");
	printf("owner: %d checks, %d failed\n", vt_checks, vt_failures);
	return vt_failures ? 1 : 0;
}

/* ---------------------------------------------------------- intruder -- */

static int intruder_main(char **argv)
{
	uint32_t lkey = strtoul(argv[4], NULL, 0);
	uint32_t rkey = strtoul(argv[5], NULL, 0);
	uint64_t addr = strtoull(argv[6], NULL, 0);
	uint32_t qpn = strtoul(argv[7], NULL, 0);
	struct ibv_qp_attr qa = {};
	struct ibv_context *fresh;
	struct ibv_cq *cu, *cv;
	struct ibv_qp *u, *v, *w;
	struct ibv_ah *ah;
	struct pair p;
	int i, n, foreign = 0, mapped = 0, first_err = 0, err;
	uint64_t dbg;
	void *m;

	dev_args(argv);
	printf("intruder: the owner's lkey 0x%x rkey 0x%x addr 0x%llx UD QPN %u;"
	       " its own PD's MR lkey 0x%x\n", lkey, rkey,
	       (unsigned long long)addr, qpn, da.mr->lkey);
	dbg = (uintptr_t)db.buf;

	/* Local SGEs with the owner's lkey, on a QP of the owner's device. */
	pair_new(&p, &da, &db);
	post_send(p.x, IBV_WR_SEND, addr, MSG, lkey, 0, 0);
	expect_wc(p.cx, IBV_WC_LOC_PROT_ERR, "SEND gathering from the owner's lkey");
	pair_free(&p);

	pair_new(&p, &da, &db);
	post_recv(p.x, 1, addr, MSG, lkey);
	post_send(p.y, IBV_WR_SEND, dbg, MSG, db.mr->lkey, 0, 0);
	expect_wc(p.cx, IBV_WC_LOC_PROT_ERR, "RECV scattering to the owner's lkey");
	{
		struct ibv_wc wc;

		if (wait_wc(p.cy, &wc, WAIT_MS))
			printf("  (its sender: %s)\n", ibv_wc_status_str(wc.status));
	}
	pair_free(&p);

	pair_new(&p, &da, &db);
	post_send(p.x, IBV_WR_LOCAL_INV, 0, 0, 0, 0, lkey);
	expect_wc(p.cx, IBV_WC_LOC_QP_OP_ERR, "LOCAL_INV of the owner's lkey");
	pair_free(&p);

	/* Remote: from its QP on B to its QP on A, with the owner's rkey. */
	pair_new(&p, &da, &db);
	memset(db.buf, 0x77, MSG);
	post_send(p.y, IBV_WR_RDMA_WRITE, dbg, MSG, db.mr->lkey, addr, rkey);
	expect_wc(p.cy, IBV_WC_REM_ACCESS_ERR, "RDMA WRITE with the owner's rkey");
	pair_free(&p);

	pair_new(&p, &da, &db);
	memset(db.buf, 0, PAT_LEN);
	post_send(p.y, IBV_WR_RDMA_READ, dbg, PAT_LEN, db.mr->lkey, addr, rkey);
	expect_wc(p.cy, IBV_WC_REM_ACCESS_ERR, "RDMA READ with the owner's rkey");
	for (i = 0, n = 0; i < PAT_LEN; i++)
		n += db.buf[i] != 0;
	vt_check(n == 0, "nothing of the owner's MR came back (%d bytes)", n);
	pair_free(&p);

	if (da.attr.atomic_cap != IBV_ATOMIC_NONE) {
		pair_new(&p, &da, &db);
		post_send(p.y, IBV_WR_ATOMIC_FETCH_AND_ADD, dbg, 8, db.mr->lkey,
			  addr, rkey);
		expect_wc(p.cy, IBV_WC_REM_ACCESS_ERR,
			  "ATOMIC FETCH_ADD with the owner's rkey");
		pair_free(&p);
	}

	pair_new(&p, &da, &db);
	post_recv(p.x, 2, (uintptr_t)da.buf, MSG, da.mr->lkey);
	post_send(p.y, IBV_WR_SEND_WITH_INV, dbg, MSG, db.mr->lkey, 0, rkey);
	expect_wc(p.cy, IBV_WC_REM_OP_ERR, "SEND_WITH_INV of the owner's rkey");
	pair_free(&p);

	/*
	 * UD: its own QP u on B sends to the owner's UD QP with a qkey that
	 * is not the owner's; the owner checks that nothing arrived.  Its
	 * own QP v on A, with that qkey, shows the same path delivers, and
	 * drops what carries the owner's qkey instead.
	 */
	cu = ibv_create_cq(db.ctx, 64, NULL, NULL, 0);
	cv = ibv_create_cq(da.ctx, 64, NULL, NULL, 0);
	if (!cu || !cv)
		vt_die("ibv_create_cq");
	u = qp_new(&db, cu, IBV_QPT_UD);
	v = qp_new(&da, cv, IBV_QPT_UD);
	qp_rts(u, &db, &da, 0, QKEY_B);
	qp_rts(v, &da, &db, 0, QKEY_B);
	for (i = 0; i < 4; i++)
		post_recv(v, i, (uintptr_t)da.buf + RECV_OFF + i * SLOT, SLOT,
			  da.mr->lkey);
	ah = ah_to(&db, &da);
	for (i = 0; i < 4; i++) {
		ud_send(u, &db, ah, qpn, QKEY_B, 0xb0 + i);
		expect_wc(cu, IBV_WC_SUCCESS,
			  "UD send to the owner's QPN with the wrong qkey (sender side)");
	}
	ud_send(u, &db, ah, v->qp_num, QKEY_A, 0xc0);
	expect_wc(cu, IBV_WC_SUCCESS, "UD send to its own QP with a wrong qkey");
	ud_send(u, &db, ah, v->qp_num, QKEY_B, 0xc1);
	expect_wc(cu, IBV_WC_SUCCESS, "UD send to its own QP with its qkey");
	n = count_wc(cv, QUIET_MS, u->qp_num, &foreign);
	vt_check(n == 1 && !foreign && da.buf[RECV_OFF + 40] == 0xc1,
	      "its own UD QP got exactly the message with its qkey (%d, %d bad)",
	      n, foreign);

	/* A controlled qkey (high bit) needs CAP_NET_RAW. */
	w = qp_new(&db, cu, IBV_QPT_UD);
	qa.qp_state = IBV_QPS_INIT;
	qa.port_num = 1;
	qa.qkey = 0x80010000;
	err = ibv_modify_qp(w, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_QKEY);
	vt_check(err == EPERM, "a privileged qkey 0x80010000: %s (want EPERM)",
	      err ? vt_errname(err) : "accepted");
	if (ibv_destroy_qp(w) || ibv_destroy_ah(ah) || ibv_destroy_qp(u) ||
	    ibv_destroy_qp(v) || ibv_destroy_cq(cu) || ibv_destroy_cq(cv))
		vt_die("UD teardown");

	/*
	 * Mapping offsets: the owner's rings are entries of the owner's
	 * context.  A fresh context of this process has none, so no offset
	 * (the owner's are small page numbers) may map anything.
	 */
	fresh = vt_open_device(da.name);
	for (i = 0; i < 64; i++) {
		m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fresh->cmd_fd, (off_t)i * 4096);
		if (m != MAP_FAILED) {
			mapped++;
			munmap(m, 4096);
		} else if (!first_err) {
			first_err = errno;
		}
	}
	vt_check(!mapped, "mmap of 64 ring offsets on a context with no objects: "
	      "%d mapped (%s)", mapped, first_err ? vt_errname(first_err) : "-");
	ibv_close_device(fresh);

	printf("intruder: %d checks, %d failed\n", vt_checks, vt_failures);
	return vt_failures ? 1 : 0;
}

/* -------------------------------------------------------------- fill -- */

/*
 * bigqp: QPs of max_qp_wr WRs and max_sge SGEs each way, whose rings are
 * kernel memory that no limit of the user is charged for.
 */
enum kind { K_QP, K_MR, K_CQ, K_PD, K_BIGQP, K_NR };
static const char *const kind_name[K_NR] = { "qp", "mr", "cq", "pd", "bigqp" };

struct pile {
	void **obj;
	int n, cap;
};

/* The errnos a creation may fail with when a limit is reached. */
static bool clean_errno(int e)
{
	return e == ENOMEM || e == ENOSPC || e == EINVAL || e == EAGAIN;
}

static void *create_one(enum kind k, struct ibv_context *ctx,
			struct ibv_pd *pd, struct ibv_cq *cq, void *page,
			const struct ibv_device_attr *attr)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	switch (k) {
	case K_BIGQP:
		qa.cap.max_send_wr = attr->max_qp_wr;
		qa.cap.max_recv_wr = attr->max_qp_wr;
		qa.cap.max_send_sge = attr->max_sge;
		qa.cap.max_recv_sge = attr->max_sge;
		/* fall through */
	case K_QP:
		return ibv_create_qp(pd, &qa);
	case K_MR:
		/* One page each: every MR pins (and is charged) one page. */
		return ibv_reg_mr(pd, page, 4096, IBV_ACCESS_LOCAL_WRITE);
	case K_CQ:
		return ibv_create_cq(ctx, 1, NULL, NULL, 0);
	default:
		return ibv_alloc_pd(ctx);
	}
}

static int destroy_one(enum kind k, void *o)
{
	switch (k) {
	case K_QP:
	case K_BIGQP:
		return ibv_destroy_qp(o);
	case K_MR:
		return ibv_dereg_mr(o);
	case K_CQ:
		return ibv_destroy_cq(o);
	default:
		return ibv_dealloc_pd(o);
	}
}

static int fill_main(int argc, char **argv)
{
	struct pile pile[K_NR] = {};
	struct ibv_device_attr attr;
	struct ibv_context *ctx;
	struct ibv_cq *cq = NULL;
	struct ibv_pd *pd;
	char *kinds = strdup(argv[1]), *tok, *save;
	long max = argc > 2 ? atol(argv[2]) : 1L << 30;
	bool hold = argc > 3 && !strcmp(argv[3], "hold");
	int order[K_NR], norder = 0, i, k, e, bad;
	uint64_t t0;
	void *page, *o;

	page = aligned_alloc(4096, 4096);
	if (!page)
		vt_die("aligned_alloc");
	memset(page, 0, 4096);
	ctx = vt_open_device(argv[0]);
	if (ibv_query_device(ctx, &attr))
		vt_die("ibv_query_device");
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		vt_die("ibv_alloc_pd");
	for (tok = strtok_r(kinds, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < K_NR && strcmp(tok, kind_name[k]); k++)
			;
		if (k == K_NR) {
			fprintf(stderr, "unknown kind %s\n", tok);
			return 2;
		}
		order[norder++] = k;
	}
	for (i = 0; i < norder; i++) {
		struct pile *p = &pile[order[i]];

		k = order[i];
		t0 = vt_now_ms();
		e = 0;
		/*
		 * The QPs' CQ, made when needed: with the CQ table full (by
		 * this process or another) the QPs fail with the CQ's errno.
		 */
		if ((k == K_QP || k == K_BIGQP) && !cq) {
			cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
			if (!cq) {
				e = errno;
				printf("fill qp: the QPs' CQ: %s\n", vt_errname(e));
			}
		}
		while (!e && p->n < max) {
			errno = 0;
			o = create_one(k, ctx, pd, cq, page, &attr);
			if (!o) {
				e = errno;
				break;
			}
			if (p->n == p->cap) {
				p->cap = p->cap ? 2 * p->cap : 1024;
				p->obj = realloc(p->obj, p->cap * sizeof(*p->obj));
				if (!p->obj)
					vt_die("realloc");
			}
			p->obj[p->n++] = o;
		}
		if (!e)
			printf("fill %s: %d created in %llu ms, stopped at the maximum asked\n",
			       kind_name[k], p->n,
			       (unsigned long long)(vt_now_ms() - t0));
		else
			printf("fill %s: %d created in %llu ms, stopped by %s (%s)\n",
			       kind_name[k], p->n,
			       (unsigned long long)(vt_now_ms() - t0), vt_errname(e),
			       strerror(e));
		if (e)
			vt_check(clean_errno(e), "fill %s: the failure is a clean errno (%s)",
			      kind_name[k], vt_errname(e));
	}
	if (hold) {
		printf("holding\n");
		wait_stdin();
	}
	for (i = norder - 1; i >= 0; i--) {
		struct pile *p = &pile[order[i]];

		k = order[i];
		t0 = vt_now_ms();
		for (bad = 0; p->n > 0; p->n--)
			bad += destroy_one(k, p->obj[p->n - 1]) != 0;
		printf("freed %s in %llu ms\n", kind_name[k],
		       (unsigned long long)(vt_now_ms() - t0));
		vt_check(!bad, "fill %s: every one destroyed (%d failed)",
		      kind_name[k], bad);
		free(p->obj);
	}
	if ((cq && ibv_destroy_cq(cq)) || ibv_dealloc_pd(pd) ||
	    ibv_close_device(ctx))
		vt_die("fill teardown");
	free(kinds);
	free(page);
	return vt_failures ? 1 : 0;
}

/* ------------------------------------------------------------ limits -- */

static void expect_fail(void *o, int want, const char *what)
{
	int e = errno;

	vt_check(!o && e == want, "%s: %s (want %s)", what,
	      o ? "created" : vt_errname(e), vt_errname(want));
}

static int limits_main(char **argv)
{
	struct ibv_qp_init_attr qa = {};
	struct ibv_device_attr attr;
	struct ibv_context *ctx;
	struct ibv_mr *mr, *mr2;
	struct rlimit rl;
	struct ibv_pd *pd;
	struct ibv_cq *cq, *ok;
	struct ibv_qp *qp;
	size_t lim;
	uint8_t *big;

	ctx = vt_open_device(argv[0]);
	if (ibv_query_device(ctx, &attr))
		vt_die("ibv_query_device");
	printf("limits: max_qp %d max_qp_wr %d max_send_sge %d max_cq %d "
	       "max_cqe %d max_mr %d max_pd %d max_mr_size 0x%llx\n",
	       attr.max_qp, attr.max_qp_wr, attr.max_sge, attr.max_cq,
	       attr.max_cqe, attr.max_mr, attr.max_pd,
	       (unsigned long long)attr.max_mr_size);
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		vt_die("ibv_alloc_pd");

	errno = 0;
	cq = ibv_create_cq(ctx, attr.max_cqe + 1, NULL, NULL, 0);
	expect_fail(cq, EINVAL, "a CQ of max_cqe + 1 entries");
	ok = ibv_create_cq(ctx, attr.max_cqe, NULL, NULL, 0);
	vt_check(ok && ok->cqe >= attr.max_cqe - 1, "a CQ of max_cqe (%d) entries: %s, cqe %d",
	      attr.max_cqe, ok ? "created" : vt_errname(errno), ok ? ok->cqe : 0);
	if (!ok)
		vt_die("ibv_create_cq");
	qa.send_cq = ok;
	qa.recv_cq = ok;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = attr.max_qp_wr + 1;
	qa.cap.max_recv_wr = 1;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	errno = 0;
	qp = ibv_create_qp(pd, &qa);
	expect_fail(qp, EINVAL, "a QP of max_qp_wr + 1 send WRs");
	qa.cap.max_send_wr = 1;
	qa.cap.max_send_sge = attr.max_sge + 1;
	errno = 0;
	qp = ibv_create_qp(pd, &qa);
	expect_fail(qp, EINVAL, "a QP of max_send_sge + 1 SGEs");
	if (ibv_destroy_cq(ok))
		vt_die("ibv_destroy_cq");

	/*
	 * RLIMIT_MEMLOCK: what ib_umem_get charges to the process's pinned
	 * memory.  The big buffer is never touched: the charge comes before
	 * any page is pinned.
	 */
	if (getrlimit(RLIMIT_MEMLOCK, &rl))
		vt_die("getrlimit");
	if (rl.rlim_cur == RLIM_INFINITY || !geteuid()) {
		printf("note: RLIMIT_MEMLOCK not enforced here (root or unlimited)\n");
		goto out;
	}
	lim = rl.rlim_cur;
	printf("RLIMIT_MEMLOCK %zu KiB\n", lim >> 10);
	big = mmap(NULL, 2 * lim, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (big == MAP_FAILED)
		vt_die("mmap");
	errno = 0;
	mr = ibv_reg_mr(pd, big, 2 * lim, IBV_ACCESS_LOCAL_WRITE);
	expect_fail(mr, ENOMEM, "an MR of twice RLIMIT_MEMLOCK");
	mr = ibv_reg_mr(pd, big, lim / 2, IBV_ACCESS_LOCAL_WRITE);
	vt_check(mr, "an MR of half RLIMIT_MEMLOCK: %s", mr ? "registered" : vt_errname(errno));
	errno = 0;
	mr2 = ibv_reg_mr(pd, big + lim / 2, lim / 2 + 4096, IBV_ACCESS_LOCAL_WRITE);
	expect_fail(mr2, ENOMEM, "another MR that takes the total above the limit");
	if (mr && ibv_dereg_mr(mr))
		vt_die("ibv_dereg_mr");
	/* What dereg gave back is available again: the charge is undone. */
	mr = ibv_reg_mr(pd, big + lim / 2, lim / 2 + 4096, IBV_ACCESS_LOCAL_WRITE);
	vt_check(mr, "the same MR after the first was deregistered: %s",
	      mr ? "registered" : vt_errname(errno));
	if (mr && ibv_dereg_mr(mr))
		vt_die("ibv_dereg_mr");
	munmap(big, 2 * lim);
out:
	if (ibv_dealloc_pd(pd) || ibv_close_device(ctx))
		vt_die("limits teardown");
	printf("limits: %d checks, %d failed\n", vt_checks, vt_failures);
	return vt_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 6 && !strcmp(argv[1], "owner"))
		return owner_main(argv + 2);
	if (argc == 10 && !strcmp(argv[1], "intruder"))
		return intruder_main(argv + 2);
	if (argc >= 4 && argc <= 6 && !strcmp(argv[1], "fill"))
		return fill_main(argc - 2, argv + 2);
	if (argc == 3 && !strcmp(argv[1], "limits"))
		return limits_main(argv + 2);
	fprintf(stderr,
		"usage: %s owner DEV_A GIDX_A DEV_B GIDX_B\n"
		"       %s intruder DEV_A GIDX_A DEV_B GIDX_B LKEY RKEY ADDR UD_QPN\n"
		"       %s fill DEV KIND[,KIND...] [MAX [hold]]   (KIND: qp mr cq pd bigqp)\n"
		"       %s limits DEV\n", argv[0], argv[0], argv[0], argv[0]);
	return 2;
}
