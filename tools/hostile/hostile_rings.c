// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * hostile_rings: a user-space process that lies to a virtio_rdma device
 * through the rings the provider maps into it, and checks that the device
 * answers each lie with the completion status, QP state and async event
 * Documentation/virtio-rdma-spec.rst gives for it ("Ring validation", "Key
 * checks", "Completion queue lifecycle and overflow"), without touching
 * memory outside the process's own MRs.
 *
 *   hostile_rings DEV_A GID_INDEX_A DEV_B GID_INDEX_B
 *
 * DEV_A and DEV_B are two virtio_rdma devices that reach each other (their
 * GIDs at the given indexes).  A child process (the victim) registers an MR
 * with a known pattern on DEV_A; the hostile process uses its lkey and rkey
 * on its own QPs and checks at the end that the pattern is intact.  Each
 * case uses a fresh pair of connected RC QPs (QP "x" is the one that lies,
 * QP "y" its peer) and their own CQs.
 *
 * The rings are found through the provider's direct-verbs interface
 * (<infiniband/virtio_rdmadv.h>) and written as the device ABI
 * (<linux/virtio_rdma.h>) defines them; everything else is public verbs.
 *
 * Exit status: 0 every case behaved as expected, 1 otherwise.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <infiniband/virtio_rdmadv.h>
#include <linux/virtio_rdma.h>

#include "vt.h"
#include "vt_ring.h"

#define DEPTH		16	/* SQ and RQ WRs asked for */
#define CQ_DEPTH	128	/* room for a flush of both queues and more */
#define BUF_SIZE	(64 * 1024)
#define MR_OFF		(4096 + 100)	/* MR inside the buffer, not page aligned */
#define MR_LEN		(8 * 1024)
#define GUARD_BYTE	0xa5
#define MSG_LEN		64
#define WAIT_MS		5000	/* bounded time for every expected outcome */
#define QUIET_MS	500	/* how long "nothing happens" is watched */
#define BLACKHOLE_QPN	0xfedcba

struct dev {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	union ibv_gid gid;
	int gidx;
	uint8_t *buf;		/* BUF_SIZE; the MR covers [MR_OFF, +MR_LEN) */
	struct ibv_mr *mr;
};

struct side {
	struct dev *d;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

struct pair {
	struct side x;		/* the hostile one */
	struct side y;		/* its peer */
};

static struct dev devs[2];
static struct vt_victim victim;
static int failures;
static int cases;
static const char *cur_case = "";

static void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stdout, "FAIL: %s: ", cur_case);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
	failures++;
}

static void die(const char *what)
{
	fprintf(stdout, "FAIL: %s: %s: %s\n", cur_case, what, strerror(errno));
	exit(1);
}

/* -------------------------------------------------------------- setup -- */

static void dev_open(struct dev *d, struct ibv_device **list, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), d->name))
			d->ctx = ibv_open_device(list[i]);
	if (!d->ctx)
		die(d->name);
	if (ibv_query_gid(d->ctx, 1, d->gidx, &d->gid))
		die("ibv_query_gid");
	d->pd = ibv_alloc_pd(d->ctx);
	d->ch = ibv_create_comp_channel(d->ctx);
	d->buf = aligned_alloc(4096, BUF_SIZE);
	if (!d->pd || !d->ch || !d->buf)
		die("setup");
	memset(d->buf, GUARD_BYTE, BUF_SIZE);
	d->mr = ibv_reg_mr(d->pd, d->buf + MR_OFF, MR_LEN,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (!d->mr)
		die("ibv_reg_mr");
	if (fcntl(d->ctx->async_fd, F_SETFL,
		  fcntl(d->ctx->async_fd, F_GETFL) | O_NONBLOCK))
		die("fcntl async_fd");
	if (fcntl(d->ch->fd, F_SETFL, fcntl(d->ch->fd, F_GETFL) | O_NONBLOCK))
		die("fcntl comp channel");
}

static uint8_t *mr_buf(struct dev *d)
{
	return d->buf + MR_OFF;
}

/* Every byte outside the MR is a guard: the device may never write it. */
static void check_guards(struct dev *d)
{
	size_t i;

	for (i = 0; i < BUF_SIZE; i++) {
		if (i == MR_OFF)
			i += MR_LEN;
		if (i < BUF_SIZE && d->buf[i] != GUARD_BYTE) {
			fail("%s: byte %zd next to the MR was written (0x%02x)",
			     d->name, (ssize_t)i - MR_OFF, d->buf[i]);
			return;
		}
	}
}

static struct ibv_cq *cq_new(struct dev *d)
{
	struct ibv_cq *cq = ibv_create_cq(d->ctx, CQ_DEPTH, NULL, d->ch, 0);

	if (!cq)
		die("ibv_create_cq");
	return cq;
}

static struct ibv_qp *qp_new(struct dev *d, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = {
			.max_send_wr = DEPTH,
			.max_recv_wr = DEPTH,
			.max_send_sge = 2,
			.max_recv_sge = 2,
			.max_inline_data = 64,
		},
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp *qp = ibv_create_qp(d->pd, &a);

	if (!qp)
		die("ibv_create_qp");
	return qp;
}

static void qp_connect(struct side *s, struct dev *peer, uint32_t dqpn,
		       uint8_t timeout)
{
	struct vt_conn c = {
		.dgid = peer->gid,
		.sgid_index = s->d->gidx,
		.dqpn = dqpn,
		.psn = 0x1000,
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_REMOTE_ATOMIC,
		.timeout = timeout,
		.min_rnr_timer = 12,
	};

	vt_qp_connect(s->qp, &c);
}

static void pair_new(struct pair *p, int x_dev)
{
	struct dev *dx = &devs[x_dev], *dy = &devs[!x_dev];

	p->x.d = dx;
	p->y.d = dy;
	p->x.cq = cq_new(dx);
	p->y.cq = cq_new(dy);
	p->x.qp = qp_new(dx, p->x.cq);
	p->y.qp = qp_new(dy, p->y.cq);
	qp_connect(&p->x, dy, p->y.qp->qp_num, 14);
	qp_connect(&p->y, dx, p->x.qp->qp_num, 14);
}

static void drain_async(struct dev *d);

static void side_free(struct side *s)
{
	if (s->qp && ibv_destroy_qp(s->qp))
		fail("ibv_destroy_qp: %s", strerror(errno));
	if (s->cq && ibv_destroy_cq(s->cq))
		fail("ibv_destroy_cq: %s", strerror(errno));
	s->qp = NULL;
	s->cq = NULL;
}

static void pair_free(struct pair *p)
{
	side_free(&p->x);
	side_free(&p->y);
	/* Events of destroyed objects must not be matched by a later case. */
	drain_async(&devs[0]);
	drain_async(&devs[1]);
}

/* ---------------------------------------------------- rings, doorbells -- */

static struct virtio_rdmadv_qp qp_rings(struct side *s)
{
	struct virtio_rdmadv_qp q;
	struct virtio_rdmadv_obj obj = { .qp = { .in = s->qp, .out = &q } };
	int err = virtio_rdmadv_init_obj(&obj, VIRTIO_RDMADV_OBJ_QP);

	if (err) {
		errno = err;
		die("virtio_rdmadv_init_obj QP");
	}
	return q;
}

static struct virtio_rdma_ring_ctl *sq_ctl(struct side *s)
{
	return qp_rings(s).sq.buf;
}

static struct virtio_rdma_ring_ctl *rq_ctl(struct side *s)
{
	return qp_rings(s).rq.buf;
}

static struct virtio_rdma_ring_ctl *cq_ctl(struct side *s)
{
	struct virtio_rdmadv_cq c;
	struct virtio_rdmadv_obj obj = { .cq = { .in = s->cq, .out = &c } };
	int err = virtio_rdmadv_init_obj(&obj, VIRTIO_RDMADV_OBJ_CQ);

	if (err) {
		errno = err;
		die("virtio_rdmadv_init_obj CQ");
	}
	return c.ring.buf;
}

static uint32_t sq_stride(struct side *s)
{
	return qp_rings(s).sq.stride;
}

static uint32_t qp_max_send_sge(struct side *s)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(s->qp, &a, IBV_QP_CAP, &init))
		die("ibv_query_qp");
	return a.cap.max_send_sge;
}

/*
 * The slot at the ring's prod, zeroed: the next one to publish.  The
 * provider has published everything it posted, so prod is where it would
 * write next too.
 */
static void *ring_next(const struct virtio_rdmadv_ring *r)
{
	struct virtio_rdma_ring_ctl *ctl = r->buf;
	uint8_t *slot = (uint8_t *)r->buf +
		virtio_rdma_ring_entry_offset(ring_load(&ctl->prod), r->depth,
					      __builtin_ctz(r->stride));

	memset(slot, 0, r->stride);
	return slot;
}

/* Publish the slot ring_next() returned. */
static void ring_publish(const struct virtio_rdmadv_ring *r)
{
	struct virtio_rdma_ring_ctl *ctl = r->buf;

	ring_store_release(&ctl->prod, ring_load(&ctl->prod) + 1);
}

static struct virtio_rdma_sq_wqe *sq_next(struct side *s)
{
	struct virtio_rdmadv_qp q = qp_rings(s);

	return ring_next(&q.sq);
}

static void sq_doorbell(struct side *s)
{
	int err;

	/* What the provider does when the device asks for a doorbell. */
	err = virtio_rdmadv_ring_doorbell(s->qp, VIRTIO_RDMADV_SQ);
	if (err)
		fail("doorbell: %s", strerror(err));
}

/* Publish the slot sq_next() returned and ring the doorbell. */
static void sq_publish(struct side *s)
{
	struct virtio_rdmadv_qp q = qp_rings(s);

	ring_publish(&q.sq);
	sq_doorbell(s);
}

static struct virtio_rdma_rq_wqe *rq_next(struct side *s)
{
	struct virtio_rdmadv_qp q = qp_rings(s);

	return ring_next(&q.rq);
}

/* RQ posts need no doorbell: the device reads the RQ when a SEND arrives. */
static void rq_publish(struct side *s)
{
	struct virtio_rdmadv_qp q = qp_rings(s);

	ring_publish(&q.rq);
}

static void sge_set(struct virtio_rdma_sge *sge, uint64_t addr, uint32_t len,
		    uint32_t lkey)
{
	sge->addr = htole64(addr);
	sge->length = htole32(len);
	sge->lkey = htole32(lkey);
}

/* ------------------------------------------------------- verbs helpers -- */

static void post_send(struct side *s, enum ibv_wr_opcode op, uint64_t wr_id,
		      uint64_t laddr, uint32_t len, uint32_t lkey,
		      uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { .addr = laddr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 1;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	if (ibv_post_send(s->qp, &wr, &bad))
		fail("ibv_post_send: %s", strerror(errno));
}

static void post_recv(struct side *s, uint64_t wr_id, uint64_t addr,
		      uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ibv_recv_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	if (ibv_post_recv(s->qp, &wr, &bad))
		fail("ibv_post_recv: %s", strerror(errno));
}

/* The next completion of @s's CQ within WAIT_MS; false if none came. */
static bool poll_one(struct side *s, struct ibv_wc *wc, unsigned int ms)
{
	uint64_t end = vt_now_ms() + ms;
	int n;

	do {
		n = ibv_poll_cq(s->cq, 1, wc);
		if (n < 0) {
			fail("ibv_poll_cq: %d", n);
			return false;
		}
		if (n)
			return true;
		vt_sleep_us(1000);
	} while (vt_now_ms() < end);
	return false;
}

/* A completion for @wr_id with @status must come, and nothing before it. */
static void expect_wc(struct side *s, uint64_t wr_id, enum ibv_wc_status st)
{
	struct ibv_wc wc;

	if (!poll_one(s, &wc, WAIT_MS)) {
		fail("%s: no completion for wr_id 0x%llx within %d ms (want %s)",
		     s->d->name, (unsigned long long)wr_id, WAIT_MS,
		     ibv_wc_status_str(st));
		return;
	}
	if (wc.wr_id != wr_id || wc.status != st)
		fail("%s: completion wr_id 0x%llx %s, want wr_id 0x%llx %s",
		     s->d->name, (unsigned long long)wc.wr_id,
		     ibv_wc_status_str(wc.status), (unsigned long long)wr_id,
		     ibv_wc_status_str(st));
}

/* Whatever is in the CQ now must be flush errors; returns how many. */
static int expect_only_flushes(struct side *s)
{
	struct ibv_wc wc;
	int n = 0;

	/* A flush is written with the move to ERR: give it a moment. */
	while (poll_one(s, &wc, QUIET_MS)) {
		if (wc.status != IBV_WC_WR_FLUSH_ERR)
			fail("%s: completion wr_id 0x%llx %s, want only %s",
			     s->d->name, (unsigned long long)wc.wr_id,
			     ibv_wc_status_str(wc.status),
			     ibv_wc_status_str(IBV_WC_WR_FLUSH_ERR));
		n++;
	}
	return n;
}

static void expect_no_wc(struct side *s)
{
	struct ibv_wc wc;

	if (poll_one(s, &wc, QUIET_MS))
		fail("%s: unexpected completion wr_id 0x%llx %s", s->d->name,
		     (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
}

static enum ibv_qp_state qp_state(struct side *s)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(s->qp, &a, IBV_QP_STATE, &init)) {
		fail("ibv_query_qp: %s", strerror(errno));
		return IBV_QPS_UNKNOWN;
	}
	return a.qp_state;
}

static void expect_state(struct side *s, enum ibv_qp_state want,
			 unsigned int ms)
{
	uint64_t end = vt_now_ms() + ms;
	enum ibv_qp_state st;

	for (;;) {
		st = qp_state(s);
		if (st == want || vt_now_ms() >= end)
			break;
		vt_sleep_us(5000);
	}
	if (st != want)
		fail("%s: QP 0x%x is in state %d after %u ms, want %d",
		     s->d->name, s->qp->qp_num, st, ms, want);
}

/* Async events kept until a case looks for them. */
#define MAX_EVENTS 64
static struct {
	struct dev *d;
	enum ibv_event_type type;
	void *obj;
} events[MAX_EVENTS];
static int nevents;

static void read_async(struct dev *d)
{
	struct ibv_async_event ev;

	while (!ibv_get_async_event(d->ctx, &ev)) {
		if (nevents < MAX_EVENTS) {
			events[nevents].d = d;
			events[nevents].type = ev.event_type;
			events[nevents].obj = ev.element.qp;
			nevents++;
		}
		ibv_ack_async_event(&ev);
	}
}

static void drain_async(struct dev *d)
{
	read_async(d);
	nevents = 0;
}

static bool take_event(struct dev *d, enum ibv_event_type type, void *obj)
{
	int i;

	for (i = 0; i < nevents; i++) {
		if (events[i].d == d && events[i].type == type &&
		    events[i].obj == obj) {
			events[i] = events[--nevents];
			return true;
		}
	}
	return false;
}

/* The async event @type for @obj must arrive within WAIT_MS. */
static void expect_event(struct dev *d, enum ibv_event_type type, void *obj)
{
	uint64_t end = vt_now_ms() + WAIT_MS;
	struct pollfd pfd = { .fd = d->ctx->async_fd, .events = POLLIN };

	for (;;) {
		read_async(d);
		if (take_event(d, type, obj))
			return;
		if (vt_now_ms() >= end)
			break;
		poll(&pfd, 1, 10);
	}
	fail("%s: no %s event within %d ms", d->name, ibv_event_type_str(type),
	     WAIT_MS);
}

static void expect_no_event(struct dev *d, void *obj)
{
	int i;

	vt_sleep_us(50000);
	read_async(d);
	for (i = 0; i < nevents; i++)
		if (events[i].d == d && events[i].obj == obj)
			fail("%s: unexpected %s event", d->name,
			     ibv_event_type_str(events[i].type));
}

static void case_begin(const char *name)
{
	cur_case = name;
	cases++;
	printf("case %s\n", name);
	fflush(stdout);
}

static void case_end(struct pair *p, int before)
{
	check_guards(p->x.d);
	check_guards(p->y.d);
	pair_free(p);
	if (failures == before)
		printf("ok: %s\n", cur_case);
	fflush(stdout);
}

/* The QP went to ERR with QP_FATAL, and only flushes followed. */
static void expect_fatal(struct side *s)
{
	expect_event(s->d, IBV_EVENT_QP_FATAL, s->qp);
	expect_state(s, IBV_QPS_ERR, WAIT_MS);
	expect_only_flushes(s);
}

/* ------------------------------------------------------------- cases -- */

/* Control: the same pair carries a SEND and a WRITE intact. */
static void case_control(void)
{
	int before = failures;
	struct pair p;
	struct ibv_wc wc;

	case_begin("control-send-write");
	pair_new(&p, 0);
	memset(mr_buf(p.x.d), 0x11, MSG_LEN);
	memset(mr_buf(p.y.d), 0, 2 * MSG_LEN);
	post_recv(&p.y, 1, (uintptr_t)mr_buf(p.y.d), MSG_LEN, p.y.d->mr->lkey);
	post_send(&p.x, IBV_WR_SEND, 2, (uintptr_t)mr_buf(p.x.d), MSG_LEN,
		  p.x.d->mr->lkey, 0, 0);
	post_send(&p.x, IBV_WR_RDMA_WRITE, 3, (uintptr_t)mr_buf(p.x.d),
		  MSG_LEN, p.x.d->mr->lkey, (uintptr_t)mr_buf(p.y.d) + MSG_LEN,
		  p.y.d->mr->rkey);
	expect_wc(&p.y, 1, IBV_WC_SUCCESS);
	expect_wc(&p.x, 2, IBV_WC_SUCCESS);
	expect_wc(&p.x, 3, IBV_WC_SUCCESS);
	if (memcmp(mr_buf(p.x.d), mr_buf(p.y.d), MSG_LEN) ||
	    memcmp(mr_buf(p.x.d), mr_buf(p.y.d) + MSG_LEN, MSG_LEN))
		fail("data did not arrive intact");
	if (poll_one(&p.x, &wc, 0) || poll_one(&p.y, &wc, 0))
		fail("extra completion");
	case_end(&p, before);
}

/* SQ prod far beyond cons, or behind it: impossible, the QP is fatal. */
static void case_sq_prod(const char *name, int32_t delta)
{
	int before = failures;
	struct pair p;
	uint32_t cons;

	case_begin(name);
	pair_new(&p, 0);
	cons = ring_load(&sq_ctl(&p.x)->cons);
	ring_store_release(&sq_ctl(&p.x)->prod, cons + delta);
	sq_doorbell(&p.x);
	expect_fatal(&p.x);
	expect_no_wc(&p.y);
	case_end(&p, before);
}

/*
 * prod moved back below a WQE the device has already taken (sent, not yet
 * acknowledged: the peer is a black hole).  The device must not take the
 * slots past prod as WQEs: that prod is impossible too.
 */
static void case_sq_prod_behind_fetched(void)
{
	int before = failures;
	struct pair p;
	struct ibv_wc wc;
	uint64_t end;

	case_begin("sq-prod-behind-fetched");
	p.x.d = &devs[0];
	p.y.d = NULL;
	p.y.qp = NULL;
	p.y.cq = NULL;
	p.x.cq = cq_new(p.x.d);
	p.x.qp = qp_new(p.x.d, p.x.cq);
	/* 4.096 us * 2^20: no retransmission within this case. */
	qp_connect(&p.x, &devs[1], BLACKHOLE_QPN, 20);
	post_send(&p.x, IBV_WR_SEND, 0x51, (uintptr_t)mr_buf(p.x.d), MSG_LEN,
		  p.x.d->mr->lkey, 0, 0);
	/*
	 * Once the device has taken the WQE it rewrites notify (it waits for
	 * the ACK, not for a doorbell); the peer never answers.
	 */
	end = vt_now_ms() + WAIT_MS;
	while (!ring_load(&sq_ctl(&p.x)->notify) && vt_now_ms() < end)
		vt_sleep_us(5000);
	if (!ring_load(&sq_ctl(&p.x)->notify))
		fail("the device did not take the WQE within %d ms", WAIT_MS);
	if (ring_load(&sq_ctl(&p.x)->cons) != 0 || poll_one(&p.x, &wc, 0))
		fail("the SEND to a black hole completed");
	/* Retract the published WQE. */
	ring_store_release(&sq_ctl(&p.x)->prod, 0);
	sq_doorbell(&p.x);
	expect_event(p.x.d, IBV_EVENT_QP_FATAL, p.x.qp);
	expect_state(&p.x, IBV_QPS_ERR, WAIT_MS);
	expect_only_flushes(&p.x);
	check_guards(p.x.d);
	side_free(&p.x);
	drain_async(&devs[0]);
	if (failures == before)
		printf("ok: %s\n", cur_case);
}

/* Random bytes with an opcode no WQE has. */
static void case_sq_garbage(void)
{
	int before = failures;
	struct virtio_rdma_sq_wqe *w;
	struct pair p;
	unsigned int i;
	uint8_t *b;

	case_begin("sq-garbage-wqe");
	pair_new(&p, 0);
	srandom(42);
	w = sq_next(&p.x);
	b = (uint8_t *)w;
	for (i = 0; i < sq_stride(&p.x); i++)
		b[i] = random();
	w->wr_id = htole64(0x6a7ba9e);
	w->opcode = 0xee;
	w->flags &= ~VIRTIO_RDMA_WQE_F_INLINE;
	w->num_sge = 1;
	sq_publish(&p.x);
	expect_wc(&p.x, 0x6a7ba9e, IBV_WC_LOC_QP_OP_ERR);
	expect_fatal(&p.x);
	expect_no_wc(&p.y);
	case_end(&p, before);
}

/* One malformed or invalid WQE: its status, then ERR. */
struct bad_wqe {
	const char *name;
	uint8_t opcode;
	uint8_t flags;
	uint8_t num_sge;	/* NSGE_QP_MAX, NSGE_SLOT or a number */
	uint32_t length;	/* inline length */
	int sge;		/* which SGE to put in */
	enum ibv_wc_status status;
	bool fatal_event;
};

/* One SGE more than the QP's limit, or than the slot holds. */
#define NSGE_QP_MAX	0xfe
#define NSGE_SLOT	0xff

enum {
	SGE_NONE,
	SGE_GOOD,
	SGE_HUGE,
	SGE_BELOW_MR,
	SGE_PAST_MR,
	SGE_UNREGISTERED,
	SGE_FOREIGN,
	SGE_FOREIGN_READ_DST,
};

static void fill_sge(struct side *s, struct virtio_rdma_sge *sge, int kind)
{
	uint64_t mr = (uintptr_t)mr_buf(s->d);
	uint32_t lkey = s->d->mr->lkey;
	static uint8_t unregistered[256];

	switch (kind) {
	case SGE_GOOD:
		sge_set(sge, mr, MSG_LEN, lkey);
		break;
	case SGE_HUGE:
		sge_set(sge, mr, 0xffffffff, lkey);
		break;
	case SGE_BELOW_MR:
		sge_set(sge, mr - 32, MSG_LEN, lkey);
		break;
	case SGE_PAST_MR:
		sge_set(sge, mr + MR_LEN - 32, MSG_LEN, lkey);
		break;
	case SGE_UNREGISTERED:
		sge_set(sge, (uintptr_t)unregistered, sizeof(unregistered),
			lkey);
		break;
	case SGE_FOREIGN:
	case SGE_FOREIGN_READ_DST:
		sge_set(sge, victim.addr, MSG_LEN, victim.lkey);
		break;
	}
}

static void case_sq_bad(const struct bad_wqe *c)
{
	int before = failures;
	struct virtio_rdma_sq_wqe *w;
	struct pair p;
	uint32_t slot_sges;

	case_begin(c->name);
	pair_new(&p, 0);
	slot_sges = (sq_stride(&p.x) - sizeof(*w)) /
		    sizeof(struct virtio_rdma_sge);
	w = sq_next(&p.x);
	w->wr_id = htole64(0xbad0000 + cases);
	w->opcode = c->opcode;
	w->flags = c->flags | VIRTIO_RDMA_WQE_F_SIGNALED;
	w->length = htole32(c->length);
	if (c->num_sge == NSGE_SLOT)
		w->num_sge = slot_sges + 1;
	else if (c->num_sge == NSGE_QP_MAX)
		w->num_sge = qp_max_send_sge(&p.x) + 1;
	else
		w->num_sge = c->num_sge;
	if (c->sge != SGE_NONE)
		fill_sge(&p.x, (struct virtio_rdma_sge *)(w + 1), c->sge);
	/* READ and atomic targets: the peer's MR, legitimately. */
	w->wr.rdma.remote_addr = htole64((uintptr_t)mr_buf(p.y.d));
	w->wr.rdma.rkey = htole32(p.y.d->mr->rkey);
	if (c->opcode == VIRTIO_RDMA_WR_REG_MR) {
		memset(&w->wr.reg_mr, 0xff, sizeof(w->wr.reg_mr));
		w->wr.reg_mr.key = htole32(p.x.d->mr->lkey);
	}
	if (c->opcode == VIRTIO_RDMA_WR_LOCAL_INV)
		w->ex.invalidate_rkey = htole32(p.x.d->mr->lkey);
	sq_publish(&p.x);
	expect_wc(&p.x, 0xbad0000 + cases, c->status);
	if (c->fatal_event)
		expect_event(p.x.d, IBV_EVENT_QP_FATAL, p.x.qp);
	else
		expect_no_event(p.x.d, p.x.qp);
	expect_state(&p.x, IBV_QPS_ERR, WAIT_MS);
	expect_only_flushes(&p.x);
	expect_no_wc(&p.y);
	case_end(&p, before);
}

/*
 * The peer's keys are used against the victim's MR on the victim's device:
 * the responder NAKs with a remote access error and goes to ERR.
 */
static void case_foreign_rkey(const char *name, enum ibv_wr_opcode op)
{
	int before = failures;
	struct pair p;
	uint8_t *l;
	int i;

	case_begin(name);
	pair_new(&p, 1);	/* x on B, its peer y on the victim's device */
	l = mr_buf(p.x.d);
	memset(l, 0, MSG_LEN);
	post_send(&p.x, op, 0xf0, (uintptr_t)l,
		  op == IBV_WR_ATOMIC_FETCH_AND_ADD ? 8 : MSG_LEN,
		  p.x.d->mr->lkey, victim.addr, victim.rkey);
	expect_wc(&p.x, 0xf0, IBV_WC_REM_ACCESS_ERR);
	expect_event(p.y.d, IBV_EVENT_QP_ACCESS_ERR, p.y.qp);
	expect_state(&p.y, IBV_QPS_ERR, WAIT_MS);
	expect_state(&p.x, IBV_QPS_ERR, WAIT_MS);
	for (i = 0; i < MSG_LEN; i++)
		if (l[i]) {
			fail("the victim's data reached the requester");
			break;
		}
	case_end(&p, before);
}

/* The peer's own rkey, but a range that runs past its MR. */
static void case_rkey_past_mr(void)
{
	int before = failures;
	struct pair p;

	case_begin("rdma-write-past-remote-mr");
	pair_new(&p, 0);
	memset(mr_buf(p.x.d), 0x77, MSG_LEN);
	post_send(&p.x, IBV_WR_RDMA_WRITE, 0xf1, (uintptr_t)mr_buf(p.x.d),
		  MSG_LEN,
		  p.x.d->mr->lkey,
		  (uintptr_t)mr_buf(p.y.d) + MR_LEN - MSG_LEN / 2,
		  p.y.d->mr->rkey);
	expect_wc(&p.x, 0xf1, IBV_WC_REM_ACCESS_ERR);
	expect_event(p.y.d, IBV_EVENT_QP_ACCESS_ERR, p.y.qp);
	expect_state(&p.y, IBV_QPS_ERR, WAIT_MS);
	case_end(&p, before);
}

/*
 * Receive WQEs that lie: the peer's SEND finds them.  x receives (on the
 * victim's device), y sends.
 */
enum rq_lie {
	RQ_PROD_BEYOND,
	RQ_NUM_SGE,
	RQ_BELOW_MR,
	RQ_FOREIGN,
};

static void case_rq(const char *name, enum rq_lie lie)
{
	int before = failures;
	struct virtio_rdma_rq_wqe *w;
	struct pair p;
	uint32_t cons;

	case_begin(name);
	pair_new(&p, 0);
	switch (lie) {
	case RQ_PROD_BEYOND:
		cons = ring_load(&rq_ctl(&p.x)->cons);
		ring_store_release(&rq_ctl(&p.x)->prod, cons + 1000);
		break;
	case RQ_NUM_SGE:
		w = rq_next(&p.x);
		w->wr_id = htole64(0x7e0);
		w->num_sge = 200;
		fill_sge(&p.x, (struct virtio_rdma_sge *)(w + 1), SGE_GOOD);
		rq_publish(&p.x);
		break;
	case RQ_BELOW_MR:
		post_recv(&p.x, 0x7e0, (uintptr_t)mr_buf(p.x.d) - 32, MSG_LEN,
			  p.x.d->mr->lkey);
		break;
	case RQ_FOREIGN:
		post_recv(&p.x, 0x7e0, victim.addr, MSG_LEN, victim.lkey);
		break;
	}
	memset(mr_buf(p.y.d), 0xee, MSG_LEN);
	post_send(&p.y, IBV_WR_SEND, 0x5e0, (uintptr_t)mr_buf(p.y.d), MSG_LEN,
		  p.y.d->mr->lkey, 0, 0);
	switch (lie) {
	case RQ_PROD_BEYOND:
		/* The responder's error reaches the sender as a NAK. */
		expect_fatal(&p.x);
		expect_wc(&p.y, 0x5e0, IBV_WC_REM_OP_ERR);
		break;
	case RQ_NUM_SGE:
		/* Malformed: its own status, QP_FATAL, and a NAK. */
		expect_wc(&p.x, 0x7e0, IBV_WC_LOC_QP_OP_ERR);
		expect_fatal(&p.x);
		expect_wc(&p.y, 0x5e0, IBV_WC_REM_OP_ERR);
		break;
	case RQ_BELOW_MR:
	case RQ_FOREIGN:
		expect_wc(&p.x, 0x7e0, IBV_WC_LOC_PROT_ERR);
		expect_wc(&p.y, 0x5e0, IBV_WC_REM_OP_ERR);
		expect_state(&p.x, IBV_QPS_ERR, WAIT_MS);
		break;
	}
	case_end(&p, before);
}

/*
 * CQ cons moved so that prod - cons exceeds the depth: the CQ is
 * overflowed, the QP that needed it is fatal.
 */
static void case_cq_cons(const char *name, int32_t delta)
{
	int before = failures;
	struct pair p;
	uint32_t prod;

	case_begin(name);
	pair_new(&p, 0);
	prod = ring_load(&cq_ctl(&p.x)->prod);
	ring_store_release(&cq_ctl(&p.x)->cons, prod + delta);
	post_send(&p.x, IBV_WR_RDMA_WRITE, 0xc0, (uintptr_t)mr_buf(p.x.d),
		  MSG_LEN, p.x.d->mr->lkey, (uintptr_t)mr_buf(p.y.d),
		  p.y.d->mr->rkey);
	expect_event(p.x.d, IBV_EVENT_CQ_ERR, p.x.cq);
	expect_event(p.x.d, IBV_EVENT_QP_FATAL, p.x.qp);
	expect_state(&p.x, IBV_QPS_ERR, WAIT_MS);
	if (!(ring_load(&cq_ctl(&p.x)->flags) & VIRTIO_RDMA_RING_F_OVERFLOW))
		fail("CQ ring flags 0x%x lack OVERFLOW",
		     ring_load(&cq_ctl(&p.x)->flags));
	if (ring_load(&cq_ctl(&p.x)->prod) != prod)
		fail("the device wrote into an overflowed CQ");
	case_end(&p, before);
}

static bool comp_event(struct dev *d, struct ibv_cq *cq, unsigned int ms)
{
	struct pollfd pfd = { .fd = d->ch->fd, .events = POLLIN };
	struct ibv_cq *ev_cq;
	void *ev_ctx;

	if (poll(&pfd, 1, ms) <= 0)
		return false;
	if (ibv_get_cq_event(d->ch, &ev_cq, &ev_ctx))
		return false;
	ibv_ack_cq_events(ev_cq, 1);
	if (ev_cq != cq)
		fail("completion event for another CQ");
	return true;
}

/*
 * The arm word is the driver's to write: garbage in it may cost an event
 * or give a spurious one, nothing else.  ARMED set means armed.
 */
static void case_cq_arm(void)
{
	int before = failures;
	struct pair p;

	case_begin("cq-arm-garbage");
	pair_new(&p, 0);
	ring_store(&cq_ctl(&p.x)->notify, 0x80000000U | 0x2345678);
	post_send(&p.x, IBV_WR_RDMA_WRITE, 0xa1, (uintptr_t)mr_buf(p.x.d),
		  MSG_LEN, p.x.d->mr->lkey, (uintptr_t)mr_buf(p.y.d),
		  p.y.d->mr->rkey);
	expect_wc(&p.x, 0xa1, IBV_WC_SUCCESS);
	if (!comp_event(p.x.d, p.x.cq, WAIT_MS))
		fail("no completion event for a CQ armed with garbage");
	if (ring_load(&cq_ctl(&p.x)->notify) & VIRTIO_RDMA_CQ_ARM_ARMED)
		fail("the device left the arm word armed after the event");
	/* Every bit but ARMED: not armed. */
	ring_store(&cq_ctl(&p.x)->notify, 0x7fffffffU);
	post_send(&p.x, IBV_WR_RDMA_WRITE, 0xa2, (uintptr_t)mr_buf(p.x.d),
		  MSG_LEN, p.x.d->mr->lkey, (uintptr_t)mr_buf(p.y.d),
		  p.y.d->mr->rkey);
	expect_wc(&p.x, 0xa2, IBV_WC_SUCCESS);
	if (comp_event(p.x.d, p.x.cq, QUIET_MS))
		fail("completion event for a CQ that was not armed");
	/* Armed for solicited only: a WRITE completion is not one. */
	ring_store(&cq_ctl(&p.x)->notify, 0xffffffffU);
	post_send(&p.x, IBV_WR_RDMA_WRITE, 0xa3, (uintptr_t)mr_buf(p.x.d),
		  MSG_LEN, p.x.d->mr->lkey, (uintptr_t)mr_buf(p.y.d),
		  p.y.d->mr->rkey);
	expect_wc(&p.x, 0xa3, IBV_WC_SUCCESS);
	if (comp_event(p.x.d, p.x.cq, QUIET_MS))
		fail("completion event for a solicited-only arm");
	expect_state(&p.x, IBV_QPS_RTS, 0);
	case_end(&p, before);
}

/* ----------------------------------------------------------- UD cases -- */

#define UD_QKEY		0x11111111
#define UD_GRH		40	/* a UD receive buffer starts with the GRH */

static struct ibv_qp *ud_qp_new(struct dev *d, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = {
			.max_send_wr = DEPTH,
			.max_recv_wr = DEPTH,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.qp_type = IBV_QPT_UD,
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qkey = UD_QKEY,
	};
	struct ibv_qp *qp = ibv_create_qp(d->pd, &ia);

	if (!qp)
		die("ibv_create_qp UD");
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		die("modify_qp UD INIT");
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		die("modify_qp UD RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x1000;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("modify_qp UD RTS");
	return qp;
}

enum av_lie {
	AV_GOOD,		/* the widest valid flow label */
	AV_FLOW_LABEL_WIDE,	/* bit 20 set: not a 20-bit flow label */
	AV_DGID_FAMILY,		/* IPv6 dgid with an IPv4 source and type */
	AV_NETWORK_TYPE,	/* IPv6 type with an IPv4 source GID */
	AV_SGID_EMPTY,		/* an index past the GID table */
};

/* A signaled UD SEND from x to y with the AV the provider would build. */
static struct virtio_rdma_sq_wqe *ud_wqe(struct pair *p, uint64_t wr_id)
{
	struct virtio_rdma_sq_wqe *w = sq_next(&p->x);
	struct virtio_rdma_av *av = &w->wr.ud.av;

	w->wr_id = htole64(wr_id);
	w->opcode = VIRTIO_RDMA_WR_SEND;
	w->flags = VIRTIO_RDMA_WQE_F_SIGNALED;
	w->num_sge = 1;
	fill_sge(&p->x, (struct virtio_rdma_sge *)(w + 1), SGE_GOOD);
	w->wr.ud.remote_qpn = htole32(p->y.qp->qp_num);
	w->wr.ud.remote_qkey = htole32(UD_QKEY);
	memcpy(av->dgid, p->y.d->gid.raw, sizeof(av->dgid));
	av->sgid_index = p->x.d->gidx;
	av->hop_limit = 1;
	av->network_type = VIRTIO_RDMA_NETWORK_IPV4;
	return w;
}

/*
 * A UD SEND whose address vector, written into the SQ ring by hand, is
 * not one the provider would build: the device must check it as it checks
 * a QP's path and fail that WQE alone with LOC_QP_OP_ERR; the QP stays in
 * RTS and the next good WQE is delivered.
 */
static void case_ud_av(const char *name, enum av_lie lie)
{
	static const uint8_t v6_ll[16] = { 0xfe, 0x80, [15] = 1 };
	uint64_t wr_id = 0xad0000 + cases;
	int before = failures;
	struct virtio_rdma_av *av;
	struct ibv_wc wc;
	struct pair p;
	uint8_t *rbuf;

	case_begin(name);
	p.x.d = &devs[0];
	p.y.d = &devs[1];
	p.x.cq = cq_new(p.x.d);
	p.y.cq = cq_new(p.y.d);
	p.x.qp = ud_qp_new(p.x.d, p.x.cq);
	p.y.qp = ud_qp_new(p.y.d, p.y.cq);
	rbuf = mr_buf(p.y.d);
	memset(rbuf, 0, UD_GRH + MSG_LEN);
	memset(mr_buf(p.x.d), 0x5a, MSG_LEN);
	post_recv(&p.y, 1, (uintptr_t)rbuf, UD_GRH + MSG_LEN,
		  p.y.d->mr->lkey);

	av = &ud_wqe(&p, wr_id)->wr.ud.av;
	av->flow_label = htole32(0xfffff);
	switch (lie) {
	case AV_GOOD:
		break;
	case AV_FLOW_LABEL_WIDE:
		av->flow_label = htole32(0xfffff | 1u << 20);
		break;
	case AV_DGID_FAMILY:
		memcpy(av->dgid, v6_ll, sizeof(av->dgid));
		break;
	case AV_NETWORK_TYPE:
		av->network_type = VIRTIO_RDMA_NETWORK_IPV6;
		break;
	case AV_SGID_EMPTY:
		av->sgid_index = 255;
		break;
	}
	sq_publish(&p.x);
	if (lie == AV_GOOD) {
		expect_wc(&p.x, wr_id, IBV_WC_SUCCESS);
		expect_wc(&p.y, 1, IBV_WC_SUCCESS);
		if (memcmp(rbuf + UD_GRH, mr_buf(p.x.d), MSG_LEN))
			fail("UD payload did not arrive intact");
	} else {
		expect_wc(&p.x, wr_id, IBV_WC_LOC_QP_OP_ERR);
		expect_no_wc(&p.y);
		/* The QP still works: the same SEND with the provider's AV. */
		ud_wqe(&p, wr_id + 1);
		sq_publish(&p.x);
		expect_wc(&p.x, wr_id + 1, IBV_WC_SUCCESS);
		expect_wc(&p.y, 1, IBV_WC_SUCCESS);
	}
	expect_state(&p.x, IBV_QPS_RTS, 0);
	expect_no_event(p.x.d, p.x.qp);
	if (poll_one(&p.x, &wc, 0) || poll_one(&p.y, &wc, 0))
		fail("extra completion");
	case_end(&p, before);
}

static const struct bad_wqe bad_wqes[] = {
	/* 10 (IB_WR_LSO) is no opcode of the device. */
	{ "sq-unknown-opcode", 10, 0, 1, 0, SGE_GOOD,
	  IBV_WC_LOC_QP_OP_ERR, true },
	{ "sq-reg-mr-garbage", VIRTIO_RDMA_WR_REG_MR, 0, 0, 0, SGE_NONE,
	  IBV_WC_LOC_QP_OP_ERR, false },
	{ "sq-bind-mw-garbage", VIRTIO_RDMA_WR_BIND_MW, 0, 0, 0, SGE_NONE,
	  IBV_WC_MW_BIND_ERR, false },
	{ "sq-mkey-configure-garbage", VIRTIO_RDMA_WR_MKEY_CONFIGURE, 0, 1, 0,
	  SGE_GOOD, IBV_WC_LOC_QP_OP_ERR, false },
	{ "sq-local-inv-not-fastreg", VIRTIO_RDMA_WR_LOCAL_INV, 0, 0, 0,
	  SGE_NONE, IBV_WC_LOC_QP_OP_ERR, false },
	{ "sq-num-sge-over-qp-max", VIRTIO_RDMA_WR_SEND, 0, NSGE_QP_MAX, 0,
	  SGE_GOOD,
	  IBV_WC_LOC_QP_OP_ERR, true },
	{ "sq-num-sge-over-slot", VIRTIO_RDMA_WR_SEND, 0, NSGE_SLOT, 0,
	  SGE_GOOD,
	  IBV_WC_LOC_QP_OP_ERR, true },
	{ "sq-inline-too-long", VIRTIO_RDMA_WR_SEND, VIRTIO_RDMA_WQE_F_INLINE,
	  0, 0xffff, SGE_NONE, IBV_WC_LOC_LEN_ERR, true },
	{ "sq-inline-with-sges", VIRTIO_RDMA_WR_SEND, VIRTIO_RDMA_WQE_F_INLINE,
	  1, 16, SGE_GOOD, IBV_WC_LOC_LEN_ERR, true },
	{ "sq-inline-on-read", VIRTIO_RDMA_WR_RDMA_READ,
	  VIRTIO_RDMA_WQE_F_INLINE, 0, 16, SGE_NONE, IBV_WC_LOC_LEN_ERR, true },
	{ "sq-sge-huge-length", VIRTIO_RDMA_WR_SEND, 0, 1, 0, SGE_HUGE,
	  IBV_WC_LOC_PROT_ERR, false },
	{ "sq-sge-below-mr", VIRTIO_RDMA_WR_SEND, 0, 1, 0, SGE_BELOW_MR,
	  IBV_WC_LOC_PROT_ERR, false },
	{ "sq-sge-past-mr", VIRTIO_RDMA_WR_RDMA_WRITE, 0, 1, 0, SGE_PAST_MR,
	  IBV_WC_LOC_PROT_ERR, false },
	{ "sq-sge-unregistered", VIRTIO_RDMA_WR_SEND, 0, 1, 0, SGE_UNREGISTERED,
	  IBV_WC_LOC_PROT_ERR, false },
	{ "sq-foreign-lkey-send", VIRTIO_RDMA_WR_SEND, 0, 1, 0, SGE_FOREIGN,
	  IBV_WC_LOC_PROT_ERR, false },
	{ "sq-foreign-lkey-read-dst", VIRTIO_RDMA_WR_RDMA_READ, 0, 1, 0,
	  SGE_FOREIGN_READ_DST, IBV_WC_LOC_PROT_ERR, false },
};

int main(int argc, char **argv)
{
	int to_child[2], from_child[2], status, n;
	struct ibv_device **list;
	pid_t pid;
	size_t i;

	if (argc != 5) {
		fprintf(stderr,
			"usage: %s DEV_A GID_INDEX_A DEV_B GID_INDEX_B\n",
			argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pipe(to_child) || pipe(from_child))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(to_child[1]);
		close(from_child[0]);
		_exit(vt_victim_main(argv[1], from_child[1], to_child[0]));
	}
	close(to_child[0]);
	close(from_child[1]);
	if (read(from_child[0], &victim, sizeof(victim)) != sizeof(victim)) {
		printf("FAIL: the victim did not register its MR\n");
		return 1;
	}
	printf("victim: pid %d, MR lkey 0x%x rkey 0x%x at 0x%llx\n", pid,
	       victim.lkey, victim.rkey, (unsigned long long)victim.addr);

	devs[0].name = argv[1];
	devs[0].gidx = atoi(argv[2]);
	devs[1].name = argv[3];
	devs[1].gidx = atoi(argv[4]);
	list = ibv_get_device_list(&n);
	if (!list)
		die("ibv_get_device_list");
	dev_open(&devs[0], list, n);
	dev_open(&devs[1], list, n);

	case_control();
	case_sq_prod("sq-prod-beyond-cons", DEPTH * 64 + 7);
	case_sq_prod("sq-prod-backwards", -1);
	case_sq_prod_behind_fetched();
	case_sq_garbage();
	for (i = 0; i < sizeof(bad_wqes) / sizeof(bad_wqes[0]); i++)
		case_sq_bad(&bad_wqes[i]);
	case_foreign_rkey("rdma-write-foreign-rkey", IBV_WR_RDMA_WRITE);
	case_foreign_rkey("rdma-read-foreign-rkey", IBV_WR_RDMA_READ);
	case_foreign_rkey("atomic-foreign-rkey", IBV_WR_ATOMIC_FETCH_AND_ADD);
	case_rkey_past_mr();
	case_rq("rq-prod-beyond-cons", RQ_PROD_BEYOND);
	case_rq("rq-num-sge-over-max", RQ_NUM_SGE);
	case_rq("rq-sge-below-mr", RQ_BELOW_MR);
	case_rq("rq-foreign-lkey", RQ_FOREIGN);
	case_cq_cons("cq-cons-beyond-prod", 1000);
	case_cq_cons("cq-cons-behind-depth", -(CQ_DEPTH * 4 + 1));
	case_cq_arm();
	case_ud_av("ud-av-good", AV_GOOD);
	case_ud_av("ud-av-flow-label-21-bits", AV_FLOW_LABEL_WIDE);
	case_ud_av("ud-av-dgid-other-family", AV_DGID_FAMILY);
	case_ud_av("ud-av-network-type", AV_NETWORK_TYPE);
	case_ud_av("ud-av-sgid-index", AV_SGID_EMPTY);
	case_control();

	cur_case = "victim";
	if (write(to_child[1], "c", 1) != 1)
		die("write");
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		fail("the victim reports its MR changed or died (status 0x%x)",
		     status);

	for (i = 0; i < 2; i++) {
		ibv_dereg_mr(devs[i].mr);
		ibv_destroy_comp_channel(devs[i].ch);
		ibv_dealloc_pd(devs[i].pd);
		ibv_close_device(devs[i].ctx);
		free(devs[i].buf);
	}
	ibv_free_device_list(list);
	printf("hostile_rings: %d cases, %d failures\n", cases, failures);
	return failures ? 1 : 0;
}
