// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * ring_fuzz: a process that rewrites its own mapped SQ, RQ and CQ rings
 * while a virtio_rdma device works on them (scenario fuzz-rings).
 *
 *   ring_fuzz [-s SEED] [-n ITERATIONS] [-t SECONDS] [-k KILL_MS]
 *             [-a NETNS_A] [-b NETNS_B] DEV_A GID_INDEX_A DEV_B GID_INDEX_B
 *
 * NETNS_A and NETNS_B name (ip netns) the namespaces of the devices'
 * netdevs, where the UD address handles are resolved.
 *
 * tools/hostile/hostile_rings.c writes one static lie at a time and checks
 * the device's exact answer.  This program instead lets two threads race
 * the device: the main thread posts legitimate and semi-legitimate WQEs
 * (one field mutated), rings doorbells, posts receives, arms and polls CQs;
 * a scribbler thread meanwhile writes random and boundary values into the
 * same rings (prod, cons, notify/arm and flags words, WQE slots: opcodes,
 * flags, num_sge, SGE addresses, lengths and keys, UD address vectors,
 * memory-window binds and indirect-key configurations aimed at the
 * process's own windows and mkey, CQEs) and rings doorbells of its own.  Exact outcomes are not predictable
 * then; what must hold is what the spec's "Ring validation" promises
 * whatever the rings say:
 *
 *  - the device writes no byte of this process outside its MRs and rings
 *    (every buffer's bytes around its MR are a guard pattern);
 *  - a victim process's MR on DEV_A keeps its pattern, although its lkey,
 *    rkey and address are among the values written into WQEs;
 *  - every QP, CQ and AH the fuzzer created can be destroyed, at any time,
 *    whatever state its rings are in; the process exits cleanly;
 *  - the kernel stays quiet (the scenario's harness fails on any splat).
 *
 * QPs come in pairs, "x" (whose rings are attacked) and its honest peer
 * "y" on the other device: three RC pairs (two with x on DEV_A, one with x
 * on DEV_B) and one UD pair.  A pair whose QP went to ERR, or that has
 * lived long enough, is destroyed and created again, so that destruction
 * with the device mid-work is exercised throughout the run; now and then
 * x's CQ is resized and x is moved to ERR or RESET with its rings in
 * whatever state the scribbler left them.
 *
 * The run ends after ITERATIONS main-loop steps or SECONDS, whichever comes
 * first (defaults 200000 and 40).  With -k the fuzzing runs in a child
 * process that is sent SIGKILL after KILL_MS ms: teardown by process exit,
 * with WQEs in flight and the rings in any state.  The seed, iteration and
 * mutation counts are printed; the thread interleaving is not reproducible,
 * the sequence of values each thread draws is.
 *
 * Exit status: 0 nothing above was violated, 1 something was, 2 usage or
 * setup.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/virtio_rdmadv.h>

#include "fuzz_common.h"
#include "vt.h"
#include "vt_ring.h"

#define NPAIRS		4
#define UD_PAIR		3	/* the others are RC */
#define X_ON_B_PAIR	2	/* x on DEV_B: its rkeys reach the victim's device */
#define DEPTH		16	/* SQ and RQ WRs asked for */
#define CQ_DEPTH	64	/* small enough to overflow now and then */
#define BUF_SIZE	(64 * 1024)
#define MR_OFF		(4096 + 100)	/* MR inside the buffer, not page aligned */
#define MR_LEN		(8 * 1024)
#define GUARD_BYTE	0xa5
#define MSG_MAX		64
#define GRH		40	/* in front of every UD receive */
#define QKEY		0x11111111
#define PAIR_LIFE	400	/* main-loop steps on a pair before it is renewed */
#define Y_RECV_TAG	(1ULL << 63)

struct dev {
	const char *name;
	int netns;		/* fd of the netdev's namespace, or -1 */
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	union ibv_gid gid;
	int gidx;
	uint8_t *buf;		/* BUF_SIZE; the MR covers [MR_OFF, +MR_LEN) */
	struct ibv_mr *mr;
	/* Keys fuzzed BIND_MW and MKEY_CONFIGURE WQEs aim at (may be NULL). */
	struct ibv_mw *mw[2];	/* types 1 and 2 */
	struct virtio_rdmadv_mkey *mkey;
};

struct side {
	struct dev *d;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_ah *ah;	/* UD: to the other side */
};

struct pair {
	bool live;		/* the scribbler may write its rings; under lock */
	enum ibv_qp_type type;
	struct side x, y;
	/* x's rings, as the provider mapped them */
	struct virtio_rdmadv_ring sq, rq, cq;
	uint32_t sq_prod, rq_prod;	/* where the main thread writes next */
	unsigned int y_recvs;		/* receives y has outstanding */
	unsigned int steps;		/* main-loop steps since created */
};

struct stats {
	unsigned long iterations, mutations, scribbler_doorbells;
	unsigned long posts, semi, provider_posts, doorbells, recv_posts;
	unsigned long y_sends, arms, comp_events, renewals;
	unsigned long resizes, resizes_refused, state_changes;
	unsigned long x_wc[32], y_wc[32];	/* by status; 31: unknown */
	unsigned long events[32];		/* by ibv_event_type */
	unsigned long post_errors;
};

static struct dev devs[2];
static struct vt_victim victim;
static struct pair pairs[NPAIRS];
static struct stats st;
static uint64_t seed = 1;
static int failures;

/* The scribbler takes it for a burst; the main thread to renew a pair. */
/* This thread's own network namespace, to come back to. */
static int self_netns = -1;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool stop;
static atomic_ulong scribbles;

/* A UD send WQE header built by the provider: its address vector. */
static struct virtio_rdma_sq_wqe ud_tmpl;
static bool have_ud_tmpl;

static void fail(const char *fmt, ...)
{
	va_list ap;

	fputs("FAIL: ", stdout);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
	failures++;
}

static void die(const char *what)
{
	printf("FAIL: %s: %s\n", what, strerror(errno));
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
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
			   IBV_ACCESS_MW_BIND);
	if (!d->mr)
		die("ibv_reg_mr");
	/*
	 * Windows and an indirect key over the MR: whatever the fuzzed binds
	 * and configurations do with them, nothing outside the MR may change
	 * (the guard bytes say).
	 */
	d->mw[0] = ibv_alloc_mw(d->pd, IBV_MW_TYPE_1);
	d->mw[1] = ibv_alloc_mw(d->pd, IBV_MW_TYPE_2);
	d->mkey = virtio_rdmadv_create_mkey(&(struct virtio_rdmadv_mkey_init_attr){
		.pd = d->pd, .max_entries = 8 });
	/* Events are drained as they come, never waited for. */
	if (fcntl(d->ctx->async_fd, F_SETFL,
		  fcntl(d->ctx->async_fd, F_GETFL) | O_NONBLOCK) ||
	    fcntl(d->ch->fd, F_SETFL, fcntl(d->ch->fd, F_GETFL) | O_NONBLOCK))
		die("fcntl O_NONBLOCK");
}

static uint64_t mr_addr(struct dev *d)
{
	return (uintptr_t)d->buf + MR_OFF;
}

/* Every byte outside the MR is a guard: the device may never write it. */
static void check_guards(struct dev *d, const char *when)
{
	size_t i;

	for (i = 0; i < BUF_SIZE; i++) {
		if (i == MR_OFF)
			i += MR_LEN;
		if (i < BUF_SIZE && d->buf[i] != GUARD_BYTE) {
			fail("%s: %s: byte %zd next to the MR was written (0x%02x)",
			     when, d->name, (ssize_t)i - MR_OFF, d->buf[i]);
			memset(d->buf + i, GUARD_BYTE, 1);	/* report once */
			return;
		}
	}
}

/*
 * RC: short timeouts and few retries, so that a QP whose peer stopped
 * answering (or whose receives are garbage) fails within milliseconds
 * instead of holding its pair for the rest of the run.
 */
static void rc_connect(struct side *s, struct side *peer)
{
	struct vt_conn c = {
		.dgid = peer->d->gid,
		.sgid_index = s->d->gidx,
		.dqpn = peer->qp->qp_num,
		.psn = 0x1000,
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_REMOTE_ATOMIC,
		.timeout = 8,		/* 4.096 us << 8: about 1 ms */
		.retry_cnt = 2,
		.rnr_retry = 2,
	};

	vt_qp_connect(s->qp, &c);
}

static void ud_connect(struct side *s, struct side *peer)
{
	struct vt_conn c = { .qkey = QKEY };
	struct ibv_ah_attr ah = {
		.is_global = 1,
		.grh = { .dgid = peer->d->gid, .sgid_index = s->d->gidx,
			 .hop_limit = 1 },
		.port_num = 1,
	};

	vt_qp_connect(s->qp, &c);
	/*
	 * The provider resolves the peer's MAC through the neighbour table
	 * of the calling thread's namespace: the one of this side's netdev.
	 */
	if (s->d->netns >= 0 && setns(s->d->netns, CLONE_NEWNET))
		die("setns");
	s->ah = ibv_create_ah(s->d->pd, &ah);
	if (!s->ah)
		die("ibv_create_ah");
	if (s->d->netns >= 0 && setns(self_netns, CLONE_NEWNET))
		die("setns back");
}

static void side_new(struct side *s, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr a = {
		.cap = {
			.max_send_wr = DEPTH,
			.max_recv_wr = DEPTH,
			.max_send_sge = 2,
			.max_recv_sge = 2,
			.max_inline_data = type == IBV_QPT_RC ? MSG_MAX : 0,
		},
		.qp_type = type,
	};

	s->cq = ibv_create_cq(s->d->ctx, CQ_DEPTH, NULL, s->d->ch, 0);
	if (!s->cq)
		die("ibv_create_cq");
	a.send_cq = a.recv_cq = s->cq;
	s->qp = ibv_create_qp(s->d->pd, &a);
	if (!s->qp)
		die("ibv_create_qp");
}

static void y_post_recv(struct pair *p)
{
	struct dev *d = p->y.d;
	struct ibv_sge sge = {
		.addr = mr_addr(d) + MR_LEN / 2,
		.length = MSG_MAX + GRH,
		.lkey = d->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = Y_RECV_TAG | p->y_recvs, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	if (ibv_post_recv(p->y.qp, &wr, &bad)) {
		st.post_errors++;
		return;
	}
	p->y_recvs++;
}

/* The header of a UD SEND the provider wrote: a valid address vector. */
static void capture_ud_template(struct pair *p)
{
	struct virtio_rdma_ring_ctl *ctl = p->sq.buf;
	struct ibv_sge sge = {
		.addr = mr_addr(p->x.d), .length = 8, .lkey = p->x.d->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 0x7e3, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = p->x.ah, .remote_qpn = p->y.qp->qp_num,
			   .remote_qkey = QKEY },
	}, *bad;
	uint32_t prod;

	if (ibv_post_send(p->x.qp, &wr, &bad))
		die("ibv_post_send (UD template)");
	prod = ring_load(&ctl->prod);
	memcpy(&ud_tmpl, (uint8_t *)p->sq.buf +
	       virtio_rdma_ring_entry_offset(prod - 1, p->sq.depth,
					     __builtin_ctz(p->sq.stride)),
	       sizeof(ud_tmpl));
	have_ud_tmpl = true;
	p->sq_prod = prod;
}

static void pair_new(struct pair *p, int i)
{
	struct virtio_rdmadv_qp q;
	struct virtio_rdmadv_cq c;
	struct virtio_rdmadv_obj obj = {
		.qp = { .out = &q }, .cq = { .out = &c },
	};
	int x_dev = i == X_ON_B_PAIR;
	int err;

	memset(p, 0, sizeof(*p));
	p->type = i == UD_PAIR ? IBV_QPT_UD : IBV_QPT_RC;
	p->x.d = &devs[x_dev];
	p->y.d = &devs[!x_dev];
	side_new(&p->x, p->type);
	side_new(&p->y, p->type);
	if (p->type == IBV_QPT_RC) {
		rc_connect(&p->x, &p->y);
		rc_connect(&p->y, &p->x);
	} else {
		ud_connect(&p->x, &p->y);
		ud_connect(&p->y, &p->x);
	}
	obj.qp.in = p->x.qp;
	obj.cq.in = p->x.cq;
	err = virtio_rdmadv_init_obj(&obj, VIRTIO_RDMADV_OBJ_QP |
				     VIRTIO_RDMADV_OBJ_CQ);
	if (err) {
		errno = err;
		die("virtio_rdmadv_init_obj");
	}
	p->sq = q.sq;
	p->rq = q.rq;
	p->cq = c.ring;
	while (p->y_recvs < DEPTH / 2)
		y_post_recv(p);
	if (p->type == IBV_QPT_UD && !have_ud_tmpl)
		capture_ud_template(p);
	/* The provider has published all it posted: follow its prods. */
	p->sq_prod = ring_load(&((struct virtio_rdma_ring_ctl *)p->sq.buf)->prod);
	p->rq_prod = ring_load(&((struct virtio_rdma_ring_ctl *)p->rq.buf)->prod);
}

static void side_free(struct side *s, const char *name)
{
	if (s->qp && ibv_destroy_qp(s->qp))
		fail("ibv_destroy_qp (%s): %s", name, strerror(errno));
	if (s->ah && ibv_destroy_ah(s->ah))
		fail("ibv_destroy_ah (%s): %s", name, strerror(errno));
	if (s->cq && ibv_destroy_cq(s->cq))
		fail("ibv_destroy_cq (%s): %s", name, strerror(errno));
	s->qp = NULL;
	s->ah = NULL;
	s->cq = NULL;
}

static void drain_events(struct dev *d);

static void pair_free(struct pair *p)
{
	/* Events must be acknowledged before their objects go away. */
	drain_events(p->x.d);
	drain_events(p->y.d);
	side_free(&p->x, "x");
	side_free(&p->y, "y");
}

/* Destroyed and created again, with the scribbler kept off it meanwhile. */
static void pair_renew(struct pair *p)
{
	int i = p - pairs;

	pthread_mutex_lock(&lock);
	p->live = false;
	pthread_mutex_unlock(&lock);
	pair_free(p);
	check_guards(&devs[0], "after a pair was destroyed");
	check_guards(&devs[1], "after a pair was destroyed");
	pair_new(p, i);
	st.renewals++;
	pthread_mutex_lock(&lock);
	p->live = true;
	pthread_mutex_unlock(&lock);
}

/* ------------------------------------------------------ fuzzed values -- */

static void *slot(const struct virtio_rdmadv_ring *r, uint32_t idx)
{
	return (uint8_t *)r->buf +
		virtio_rdma_ring_entry_offset(idx, r->depth,
					      __builtin_ctz(r->stride));
}

static struct virtio_rdma_ring_ctl *ctl_of(const struct virtio_rdmadv_ring *r)
{
	return r->buf;
}

/* Addresses: inside, at the edges of and outside MRs, and nonsense. */
static uint64_t pick_addr(struct pair *p, struct rng *r)
{
	switch (rng_below(r, 10)) {
	case 0:
		return mr_addr(p->x.d) + rng_below(r, MR_LEN);
	case 1:
		return mr_addr(p->x.d) + MR_LEN - rng_below(r, 64);
	case 2:
		return mr_addr(p->x.d) - 1 - rng_below(r, 64);
	case 3:
		return (uintptr_t)p->x.d->buf + rng_below(r, BUF_SIZE);
	case 4:
		return victim.addr + rng_below(r, VT_VICTIM_LEN);
	case 5:
		return mr_addr(p->y.d) + rng_below(r, MR_LEN + 64);
	case 6:
		return 0;
	case 7:
		return ~0ULL - rng_below(r, 4096);
	case 8:
		return (uintptr_t)p->sq.buf + rng_below(r, 4096);
	default:
		return rng_next(r);
	}
}

static uint32_t pick_len(struct rng *r)
{
	static const uint32_t lens[] = {
		0, 1, 7, 8, 9, MSG_MAX, MSG_MAX + 1, 4096, MR_LEN, MR_LEN + 1,
		0x7fffffff, 0x80000000, 0xffffffff,
	};

	if (rng_one_in(r, 4))
		return (uint32_t)rng_next(r);
	return lens[rng_below(r, sizeof(lens) / sizeof(lens[0]))];
}

/* Keys: own, the peer's, the victim's, near misses and nonsense. */
static uint32_t pick_key(struct pair *p, struct rng *r)
{
	uint32_t k;

	switch (rng_below(r, 13)) {
	case 10:
	case 11:
		if (p->x.d->mw[k = rng_below(r, 2)])
			return p->x.d->mw[k]->rkey;
		return 0;
	case 12:
		return p->x.d->mkey ? p->x.d->mkey->lkey : 0;
	case 0:
		return p->x.d->mr->lkey;
	case 1:
		return p->y.d->mr->rkey;
	case 2:
		return victim.lkey;
	case 3:
		return victim.rkey;
	case 4:		/* the right index, another key byte */
		k = rng_one_in(r, 2) ? p->x.d->mr->lkey : victim.rkey;
		return k ^ (1 + rng_below(r, 255));
	case 5:		/* the next index */
		return p->x.d->mr->lkey + 0x100;
	case 6:
		return 0;
	case 7:
		return 0xffffffff;
	default:
		return (uint32_t)rng_next(r);
	}
}

static uint8_t pick_opcode(struct rng *r)
{
	static const uint8_t ops[] = {
		VIRTIO_RDMA_WR_RDMA_WRITE, VIRTIO_RDMA_WR_RDMA_WRITE_WITH_IMM,
		VIRTIO_RDMA_WR_SEND, VIRTIO_RDMA_WR_SEND_WITH_IMM,
		VIRTIO_RDMA_WR_RDMA_READ, VIRTIO_RDMA_WR_ATOMIC_CMP_AND_SWP,
		VIRTIO_RDMA_WR_ATOMIC_FETCH_AND_ADD, VIRTIO_RDMA_WR_LOCAL_INV,
		VIRTIO_RDMA_WR_BIND_MW, VIRTIO_RDMA_WR_SEND_WITH_INV,
		VIRTIO_RDMA_WR_REG_MR, VIRTIO_RDMA_WR_MKEY_CONFIGURE, 0xff,
	};

	if (rng_one_in(r, 8))
		return (uint8_t)rng_next(r);
	return ops[rng_below(r, sizeof(ops))];
}

/* Ring indexes near the live ones, at the depth boundary, and nonsense. */
static uint32_t pick_index(const struct virtio_rdmadv_ring *ring,
			   struct rng *r)
{
	struct virtio_rdma_ring_ctl *ctl = ctl_of(ring);
	uint32_t prod = ring_load(&ctl->prod), cons = ring_load(&ctl->cons);

	switch (rng_below(r, 10)) {
	case 0:
		return prod + 1;
	case 1:
		return prod - 1;
	case 2:
		return cons + ring->depth;
	case 3:
		return cons + ring->depth + 1;
	case 4:
		return cons - 1;
	case 5:
		return prod + (uint32_t)rng_below(r, 4);
	case 6:
		return cons;
	case 7:
		return 0x80000000U + prod;
	case 8:
		return 0;
	default:
		return (uint32_t)rng_next(r);
	}
}

/* One field of a ring's control block. */
static void mutate_ctl(const struct virtio_rdmadv_ring *ring, struct rng *r)
{
	struct virtio_rdma_ring_ctl *ctl = ctl_of(ring);
	uint32_t v;

	switch (rng_below(r, 6)) {
	case 0:
		ring_store_release(&ctl->prod, pick_index(ring, r));
		break;
	case 1:
		ring_store_release(&ctl->cons, pick_index(ring, r));
		break;
	case 2:		/* SQ/RQ event index, CQ arm word */
		v = rng_one_in(r, 2) ? (uint32_t)rng_next(r) :
			VIRTIO_RDMA_CQ_ARM_ARMED | rng_below(r, 4);
		if (rng_one_in(r, 3))
			v = ring_load(&ctl->prod) + VIRTIO_RDMA_NOTIFY_OFF;
		ring_store(&ctl->notify, v);
		break;
	case 3:
		ring_store(&ctl->flags, (uint32_t)rng_next(r));
		break;
	case 4:
		ring_store(&ctl->reserved1[rng_below(r, 15)],
			   (uint32_t)rng_next(r));
		break;
	default:
		ring_store(&ctl->reserved2[rng_below(r, 13)],
			   (uint32_t)rng_next(r));
		break;
	}
}

static void mutate_bytes(uint8_t *b, uint32_t len, struct rng *r)
{
	uint32_t i, n = 1 + rng_below(r, 8);

	if (rng_one_in(r, 8)) {
		for (i = 0; i < len; i++)
			b[i] = rng_next(r);
		return;
	}
	for (i = 0; i < n; i++)
		b[rng_below(r, len)] = rng_next(r);
}

static void mutate_sge(struct pair *p, struct virtio_rdma_sge *sge,
		       struct rng *r)
{
	switch (rng_below(r, 4)) {
	case 0:
		sge->addr = htole64(pick_addr(p, r));
		break;
	case 1:
		sge->length = htole32(pick_len(r));
		break;
	case 2:
		sge->lkey = htole32(pick_key(p, r));
		break;
	default:
		sge->addr = htole64(pick_addr(p, r));
		sge->length = htole32(pick_len(r));
		sge->lkey = htole32(pick_key(p, r));
		break;
	}
}

/* One lie in a send WQE of @stride bytes. */
static void mutate_sq_wqe(struct pair *p, struct virtio_rdma_sq_wqe *w,
			  uint32_t stride, struct rng *r)
{
	struct virtio_rdma_sge *sges = (void *)(w + 1);
	uint32_t nsges = (stride - sizeof(*w)) / sizeof(*sges);
	struct virtio_rdma_av *av = &w->wr.ud.av;

	switch (rng_below(r, 18)) {
	case 0:
		w->opcode = pick_opcode(r);
		break;
	case 1:
		w->flags = rng_next(r);
		break;
	case 2:
		w->flags ^= VIRTIO_RDMA_WQE_F_INLINE;
		break;
	case 3:
		w->num_sge = rng_one_in(r, 2) ? rng_below(r, nsges + 3) :
			(uint8_t)rng_next(r);
		break;
	case 4:
		w->length = htole32(pick_len(r));
		break;
	case 5:
	case 6:
		if (nsges)
			mutate_sge(p, &sges[rng_below(r, nsges)], r);
		break;
	case 7:
		w->wr.rdma.remote_addr = htole64(pick_addr(p, r));
		break;
	case 8:
		w->wr.rdma.rkey = htole32(pick_key(p, r));
		break;
	case 9:		/* atomics: misaligned or foreign targets */
		w->wr.atomic.remote_addr = htole64(pick_addr(p, r));
		w->wr.atomic.rkey = htole32(pick_key(p, r));
		break;
	case 10:
		w->wr.ud.remote_qpn = htole32(rng_one_in(r, 2) ?
			(uint32_t)rng_next(r) : rng_below(r, 8));
		w->wr.ud.remote_qkey = htole32((uint32_t)rng_next(r));
		break;
	case 11:
		switch (rng_below(r, 5)) {
		case 0:
			av->sgid_index = rng_next(r);
			break;
		case 1:
			av->network_type = rng_next(r);
			break;
		case 2:
			av->dgid[rng_below(r, 16)] = rng_next(r);
			break;
		case 3:
			av->flow_label = htole32((uint32_t)rng_next(r));
			break;
		default:
			av->hop_limit = rng_next(r);
			break;
		}
		break;
	case 12:	/* fast registration with whatever is there */
		w->opcode = VIRTIO_RDMA_WR_REG_MR;
		w->wr.reg_mr.key = htole32(pick_key(p, r));
		w->wr.reg_mr.iova = htole64(pick_addr(p, r));
		w->wr.reg_mr.length = htole64(rng_next(r) >> rng_below(r, 64));
		w->wr.reg_mr.page_shift = htole32(rng_below(r, 70));
		w->wr.reg_mr.npages = htole32(pick_len(r));
		w->wr.reg_mr.access_flags = htole32((uint32_t)rng_next(r));
		break;
	case 13:
		w->ex.invalidate_rkey = htole32(pick_key(p, r));
		if (rng_one_in(r, 2))
			w->opcode = rng_one_in(r, 2) ?
				VIRTIO_RDMA_WR_LOCAL_INV :
				VIRTIO_RDMA_WR_SEND_WITH_INV;
		break;
	case 14:	/* a window bound to whatever is there */
		w->opcode = VIRTIO_RDMA_WR_BIND_MW;
		w->wr.bind_mw.rkey = htole32(pick_key(p, r));
		w->wr.bind_mw.mr_lkey = htole32(pick_key(p, r));
		w->wr.bind_mw.addr = htole64(pick_addr(p, r));
		w->wr.bind_mw.length = htole64(rng_next(r) >>
					       rng_below(r, 64));
		w->wr.bind_mw.access_flags = htole32(rng_one_in(r, 2) ?
			(uint32_t)rng_next(r) : rng_below(r, 64));
		break;
	case 15:	/* an indirect key laid over whatever is there */
		w->opcode = VIRTIO_RDMA_WR_MKEY_CONFIGURE;
		w->wr.mkey.key = htole32(pick_key(p, r));
		w->wr.mkey.flags = rng_one_in(r, 4) ? rng_next(r) :
			rng_below(r, 4);
		w->wr.mkey.access_flags = htole32(rng_below(r, 32));
		w->wr.mkey.repeat_count = htole32(rng_one_in(r, 2) ?
			(uint32_t)rng_next(r) : rng_below(r, 4));
		w->wr.mkey.num_entries = htole16(rng_below(r, 10));
		w->num_sge = rng_one_in(r, 4) ? rng_next(r) :
			2 * le16toh(w->wr.mkey.num_entries);
		if (nsges)
			mutate_sge(p, &sges[rng_below(r, nsges)], r);
		break;
	default:
		mutate_bytes((uint8_t *)w, stride, r);
		break;
	}
}

static void mutate_rq_wqe(struct pair *p, struct virtio_rdma_rq_wqe *w,
			  uint32_t stride, struct rng *r)
{
	struct virtio_rdma_sge *sges = (void *)(w + 1);
	uint32_t nsges = (stride - sizeof(*w)) / sizeof(*sges);

	switch (rng_below(r, 4)) {
	case 0:
		w->num_sge = rng_one_in(r, 2) ? rng_below(r, nsges + 3) :
			(uint8_t)rng_next(r);
		break;
	case 1:
	case 2:
		if (nsges)
			mutate_sge(p, &sges[rng_below(r, nsges)], r);
		break;
	default:
		mutate_bytes((uint8_t *)w, stride, r);
		break;
	}
}

/* ----------------------------------------------------------- scribbler -- */

static void doorbell(struct pair *p, enum virtio_rdmadv_queue q)
{
	/* Errors are possible (a QP in RESET or ERR); only the kernel's fate matters. */
	virtio_rdmadv_ring_doorbell(p->x.qp, q);
}

/*
 * One write somewhere in @p's rings.  Mostly WQE slots and CQEs; control
 * words more rarely, since a bad prod or cons ends the QP (or, for a CQ,
 * every QP on it) at once and the pair must be created again.
 */
static void scribble(struct pair *p, struct rng *r)
{
	uint32_t which = rng_below(r, 40);

	if (which < 4)
		mutate_ctl(&p->sq, r);
	else if (which < 6)
		mutate_ctl(&p->rq, r);
	else if (which < 7)
		mutate_ctl(&p->cq, r);
	else if (which < 25)
		mutate_sq_wqe(p, slot(&p->sq, pick_index(&p->sq, r)),
			      p->sq.stride, r);
	else if (which < 34)
		mutate_rq_wqe(p, slot(&p->rq, pick_index(&p->rq, r)),
			      p->rq.stride, r);
	else	/* the CQEs the provider is about to read */
		mutate_bytes(slot(&p->cq, pick_index(&p->cq, r)),
			     p->cq.stride, r);
}

static void *scribbler(void *arg)
{
	struct rng r = { seed ^ 0x5c41bb1e5c41bb1eULL };
	unsigned long n = 0;
	struct pair *p;
	int k;

	(void)arg;
	while (!atomic_load(&stop)) {
		pthread_mutex_lock(&lock);
		p = &pairs[rng_below(&r, NPAIRS)];
		if (p->live) {
			for (k = 1 + rng_below(&r, 4); k; k--) {
				scribble(p, &r);
				n++;
			}
			if (rng_one_in(&r, 16)) {
				doorbell(p, rng_one_in(&r, 2) ?
					 VIRTIO_RDMADV_SQ : VIRTIO_RDMADV_RQ);
				st.scribbler_doorbells++;
			}
		}
		pthread_mutex_unlock(&lock);
		atomic_store(&scribbles, n);
		/*
		 * Bursts back to back most of the time; pauses now and then
		 * so that some WQEs reach the device intact.
		 */
		if (!rng_one_in(&r, 4))
			vt_sleep_us(rng_below(&r, 2000));
	}
	return NULL;
}

/* ---------------------------------------------------------- main thread -- */

static uint64_t wr_seq;

/* A legitimate send WQE for @p's x QP in @w (its whole slot). */
static void build_send(struct pair *p, struct virtio_rdma_sq_wqe *w,
		       struct rng *r)
{
	static const uint8_t rc_ops[] = {
		VIRTIO_RDMA_WR_SEND, VIRTIO_RDMA_WR_SEND_WITH_IMM,
		VIRTIO_RDMA_WR_RDMA_WRITE, VIRTIO_RDMA_WR_RDMA_WRITE_WITH_IMM,
		VIRTIO_RDMA_WR_RDMA_READ, VIRTIO_RDMA_WR_ATOMIC_FETCH_AND_ADD,
		VIRTIO_RDMA_WR_ATOMIC_CMP_AND_SWP,
	};
	struct virtio_rdma_sge *sge = (void *)(w + 1);
	uint32_t room = p->sq.stride - sizeof(*w);
	uint32_t len = 1 + rng_below(r, MSG_MAX);
	uint32_t loff = rng_below(r, MR_LEN / 2 - MSG_MAX);
	uint32_t roff = rng_below(r, MR_LEN / 2 - MSG_MAX);
	uint8_t op;

	memset(w, 0, p->sq.stride);
	if (p->type == IBV_QPT_UD) {
		memcpy(w, &ud_tmpl, sizeof(*w));
		op = rng_one_in(r, 2) ? VIRTIO_RDMA_WR_SEND :
			VIRTIO_RDMA_WR_SEND_WITH_IMM;
		w->wr.ud.remote_qpn = htole32(p->y.qp->qp_num);
		w->wr.ud.remote_qkey = htole32(QKEY);
	} else {
		op = rc_ops[rng_below(r, sizeof(rc_ops))];
		w->wr.rdma.remote_addr = htole64(mr_addr(p->y.d) + roff);
		w->wr.rdma.rkey = htole32(p->y.d->mr->rkey);
	}
	w->wr_id = htole64(++wr_seq);
	w->opcode = op;
	w->flags = rng_one_in(r, 4) ? 0 : VIRTIO_RDMA_WQE_F_SIGNALED;
	w->ex.imm_data = htobe32(0x1234);
	if (op == VIRTIO_RDMA_WR_ATOMIC_FETCH_AND_ADD ||
	    op == VIRTIO_RDMA_WR_ATOMIC_CMP_AND_SWP) {
		len = 8;
		loff &= ~7U;
		w->wr.atomic.remote_addr = htole64(mr_addr(p->y.d) +
						   (roff & ~7U) + 8 - MR_OFF % 8);
		w->wr.atomic.compare_add = htole64(1);
		w->wr.atomic.swap = htole64(2);
		w->wr.atomic.rkey = htole32(p->y.d->mr->rkey);
	}
	if (virtio_rdma_wr_op_inline(op) && room && rng_one_in(r, 4)) {
		w->flags |= VIRTIO_RDMA_WQE_F_INLINE;
		len = len < room ? len : room;
		w->length = htole32(len);
		memset(w + 1, 0x3c, len);
		return;
	}
	w->num_sge = 1;
	sge->addr = htole64(mr_addr(p->x.d) + loff);
	sge->length = htole32(len);
	sge->lkey = htole32(p->x.d->mr->lkey);
}

/*
 * One to three send WQEs written straight into x's SQ, some with one lie,
 * published, and a doorbell when the device asks for one (and sometimes
 * when it does not).  Usually at the main thread's own prod; sometimes at
 * whatever prod the ring says now.
 */
static void post_sq_direct(struct pair *p, struct rng *r)
{
	struct virtio_rdma_ring_ctl *ctl = ctl_of(&p->sq);
	uint32_t prod = p->sq_prod, old, n = 1 + rng_below(r, 3);
	struct virtio_rdma_sq_wqe *w;

	if (rng_one_in(r, 8))
		prod = ring_load(&ctl->prod);
	/* Mostly respect a full ring: overwriting queued WQEs is rarer. */
	if (virtio_rdma_ring_full(prod, ring_load(&ctl->cons), p->sq.depth) &&
	    !rng_one_in(r, 8))
		return;
	old = prod;
	while (n--) {
		w = slot(&p->sq, prod++);
		build_send(p, w, r);
		if (rng_one_in(r, 3)) {
			mutate_sq_wqe(p, w, p->sq.stride, r);
			st.semi++;
		}
		st.posts++;
	}
	ring_store_release(&ctl->prod, prod);
	p->sq_prod = prod;
	atomic_thread_fence(memory_order_seq_cst);
	if (virtio_rdma_need_doorbell(ring_load(&ctl->notify), prod, old) ||
	    rng_one_in(r, 4)) {
		doorbell(p, VIRTIO_RDMADV_SQ);
		st.doorbells++;
	}
}

/* A legitimate send through the provider, behind whatever the ring holds. */
static void post_sq_provider(struct pair *p, struct rng *r)
{
	struct ibv_sge sge = {
		.addr = mr_addr(p->x.d) + rng_below(r, MR_LEN / 2),
		.length = 1 + rng_below(r, MSG_MAX),
		.lkey = p->x.d->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = ++wr_seq, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (p->type == IBV_QPT_UD) {
		wr.wr.ud.ah = p->x.ah;
		wr.wr.ud.remote_qpn = p->y.qp->qp_num;
		wr.wr.ud.remote_qkey = QKEY;
	} else if (rng_one_in(r, 2)) {
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = mr_addr(p->y.d) + rng_below(r, MR_LEN / 2);
		wr.wr.rdma.rkey = p->y.d->mr->rkey;
	}
	if (ibv_post_send(p->x.qp, &wr, &bad))
		st.post_errors++;
	else
		st.provider_posts++;
}

/* Receive WQEs in x's RQ, for y's SENDs; some with one lie. */
static void post_rq_direct(struct pair *p, struct rng *r)
{
	struct virtio_rdma_ring_ctl *ctl = ctl_of(&p->rq);
	struct virtio_rdma_rq_wqe *w;
	struct virtio_rdma_sge *sge;
	uint32_t n = 1 + rng_below(r, 3);

	if (rng_one_in(r, 8))
		p->rq_prod = ring_load(&ctl->prod);
	if (virtio_rdma_ring_full(p->rq_prod, ring_load(&ctl->cons),
				  p->rq.depth) && !rng_one_in(r, 8))
		return;
	while (n--) {
		w = slot(&p->rq, p->rq_prod++);
		memset(w, 0, p->rq.stride);
		sge = (void *)(w + 1);
		w->wr_id = htole64(++wr_seq);
		w->num_sge = 1;
		sge->addr = htole64(mr_addr(p->x.d) + MR_LEN / 2 +
				    rng_below(r, MR_LEN / 2 - MSG_MAX - GRH));
		sge->length = htole32(MSG_MAX + GRH);
		sge->lkey = htole32(p->x.d->mr->lkey);
		if (rng_one_in(r, 3)) {
			mutate_rq_wqe(p, w, p->rq.stride, r);
			st.semi++;
		}
		st.recv_posts++;
	}
	ring_store_release(&ctl->prod, p->rq_prod);
	if (rng_one_in(r, 8))
		doorbell(p, VIRTIO_RDMADV_RQ);
}

/* y, honest, sends to x: the device reads x's (attacked) RQ. */
static void y_send(struct pair *p, struct rng *r)
{
	struct ibv_sge sge = {
		.addr = mr_addr(p->y.d),
		.length = 1 + rng_below(r, MSG_MAX),
		.lkey = p->y.d->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = ++wr_seq, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (p->type == IBV_QPT_UD) {
		wr.wr.ud.ah = p->y.ah;
		wr.wr.ud.remote_qpn = p->x.qp->qp_num;
		wr.wr.ud.remote_qkey = QKEY;
	}
	if (ibv_post_send(p->y.qp, &wr, &bad))
		st.post_errors++;
	else
		st.y_sends++;
}

static unsigned int wc_slot(enum ibv_wc_status s)
{
	return (unsigned int)s < 31 ? (unsigned int)s : 31;
}

static void poll_pair(struct pair *p)
{
	struct ibv_wc wc[16];
	int i, n;

	/* The provider polls x's CQ: it must cope with what is in there. */
	n = ibv_poll_cq(p->x.cq, 16, wc);
	for (i = 0; i < n; i++)
		st.x_wc[wc_slot(wc[i].status)]++;
	n = ibv_poll_cq(p->y.cq, 16, wc);
	for (i = 0; i < n; i++) {
		st.y_wc[wc_slot(wc[i].status)]++;
		if ((wc[i].wr_id & Y_RECV_TAG) && p->y_recvs)
			p->y_recvs--;
	}
}

static void drain_events(struct dev *d)
{
	struct ibv_async_event ev;
	struct ibv_cq *cq;
	void *ctx;

	while (!ibv_get_async_event(d->ctx, &ev)) {
		st.events[(unsigned int)ev.event_type < 32 ? ev.event_type : 31]++;
		ibv_ack_async_event(&ev);
	}
	while (!ibv_get_cq_event(d->ch, &cq, &ctx)) {
		ibv_ack_cq_events(cq, 1);
		st.comp_events++;
	}
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &init))
		return IBV_QPS_UNKNOWN;
	return a.qp_state;
}

/*
 * ibv_resize_cq on x's CQ, whatever its ring says now (a cons the scribbler
 * moved must make the device refuse).  The provider maps a new ring and
 * unmaps the old one: the scribbler is kept off until the pair knows it.
 */
static void resize_x_cq(struct pair *p, struct rng *r)
{
	static const int sizes[] = { 1, 8, 16, 63, 64, 200, 1000 };
	struct virtio_rdmadv_cq c;
	struct virtio_rdmadv_obj obj = { .cq = { .in = p->x.cq, .out = &c } };
	int err;

	pthread_mutex_lock(&lock);
	if (ibv_resize_cq(p->x.cq, sizes[rng_below(r, 7)]))
		st.resizes_refused++;
	else
		st.resizes++;
	err = virtio_rdmadv_init_obj(&obj, VIRTIO_RDMADV_OBJ_CQ);
	if (err) {
		errno = err;
		die("virtio_rdmadv_init_obj CQ after a resize");
	}
	p->cq = c.ring;
	pthread_mutex_unlock(&lock);
}

/*
 * x to ERR (a flush of whatever its rings hold) or RESET (the rings start
 * over while the scribbler keeps writing); the pair lives a few more steps
 * that way, posts and doorbells included, before it is renewed.
 */
static void x_state(struct pair *p, struct rng *r)
{
	struct ibv_qp_attr a = {
		.qp_state = rng_one_in(r, 2) ? IBV_QPS_ERR : IBV_QPS_RESET,
	};

	if (!ibv_modify_qp(p->x.qp, &a, IBV_QP_STATE))
		st.state_changes++;
	if (p->steps < PAIR_LIFE - 8)
		p->steps = PAIR_LIFE - 8;
}

static void step(struct pair *p, struct rng *r)
{
	switch (rng_below(r, 16)) {
	case 0: case 1: case 2: case 3: case 4:
		post_sq_direct(p, r);
		break;
	case 5:
		post_sq_provider(p, r);
		break;
	case 6: case 7: case 8:
		post_rq_direct(p, r);
		break;
	case 9: case 10:
		y_send(p, r);
		break;
	case 11:
		if (rng_one_in(r, 2))
			ibv_req_notify_cq(p->x.cq, rng_one_in(r, 4));
		else	/* the arm word with any sequence number */
			ring_store(&ctl_of(&p->cq)->notify,
				   VIRTIO_RDMA_CQ_ARM_ARMED |
				   rng_below(r, VIRTIO_RDMA_CQ_ARM_SN_MASK));
		st.arms++;
		break;
	case 12:
		doorbell(p, rng_one_in(r, 2) ? VIRTIO_RDMADV_SQ :
			 VIRTIO_RDMADV_RQ);
		st.doorbells++;
		break;
	case 13:
		if (rng_one_in(r, 4))
			resize_x_cq(p, r);
		break;
	case 14:
		if (rng_one_in(r, 4))
			x_state(p, r);
		break;
	default:
		break;
	}
	/* In ERR too: those receives come back as flushes. */
	while (p->y_recvs < DEPTH / 2) {
		unsigned int before = p->y_recvs;

		y_post_recv(p);
		if (p->y_recvs == before)
			break;
	}
	poll_pair(p);
	drain_events(p->x.d);
	drain_events(p->y.d);
	/* A QP in ERR only flushes: give the pair a new life. */
	if (++p->steps >= PAIR_LIFE ||
	    (!(p->steps % 16) && (qp_state(p->x.qp) == IBV_QPS_ERR ||
				  qp_state(p->y.qp) == IBV_QPS_ERR)))
		pair_renew(p);
}

static void print_stats(void)
{
	static const char *const names[] = {
		"SUCCESS", "LOC_LEN_ERR", "LOC_QP_OP_ERR", "LOC_EEC_OP_ERR",
		"LOC_PROT_ERR", "WR_FLUSH_ERR", "MW_BIND_ERR", "BAD_RESP_ERR",
		"LOC_ACCESS_ERR", "REM_INV_REQ_ERR", "REM_ACCESS_ERR",
		"REM_OP_ERR", "RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR",
		"LOC_RDD_VIOL_ERR", "REM_INV_RD_REQ_ERR", "REM_ABORT_ERR",
		"INV_EECN_ERR", "INV_EEC_STATE_ERR", "FATAL_ERR",
		"RESP_TIMEOUT_ERR", "GENERAL_ERR",
	};
	int i;

	printf("main: %lu WQEs written (%lu with a lie), %lu through the provider, %lu receives, %lu doorbells, %lu y sends, %lu arms, %lu post errors\n",
	       st.posts, st.semi, st.provider_posts, st.recv_posts,
	       st.doorbells, st.y_sends, st.arms, st.post_errors);
	printf("scribbler: %lu mutations, %lu doorbells\n",
	       atomic_load(&scribbles), st.scribbler_doorbells);
	printf("pairs renewed: %lu; completion events: %lu; CQ resizes: %lu done, %lu refused; x moved to ERR or RESET: %lu\n",
	       st.renewals, st.comp_events, st.resizes, st.resizes_refused,
	       st.state_changes);
	printf("x completions:");
	for (i = 0; i < 32; i++)
		if (st.x_wc[i])
			printf(" %s %lu", i < 22 ? names[i] : "other", st.x_wc[i]);
	printf("\ny completions:");
	for (i = 0; i < 32; i++)
		if (st.y_wc[i])
			printf(" %s %lu", i < 22 ? names[i] : "other", st.y_wc[i]);
	printf("\nasync events:");
	for (i = 0; i < 32; i++)
		if (st.events[i])
			printf(" %s %lu", ibv_event_type_str(i), st.events[i]);
	printf("\n");
}

static int fuzz_main(unsigned long max_iters, unsigned int seconds)
{
	struct rng r = { seed };
	struct ibv_device **list;
	pthread_t thread;
	uint64_t end;
	int i, j, n;

	list = ibv_get_device_list(&n);
	if (!list)
		die("ibv_get_device_list");
	dev_open(&devs[0], list, n);
	dev_open(&devs[1], list, n);
	for (i = 0; i < NPAIRS; i++) {
		pair_new(&pairs[i], i);
		pairs[i].live = true;
	}
	printf("fuzzing: %d QP pairs (RC x on %s, RC x on %s, UD), seed %llu, up to %lu iterations or %u s\n",
	       NPAIRS, devs[0].name, devs[1].name, (unsigned long long)seed,
	       max_iters, seconds);
	if (pthread_create(&thread, NULL, scribbler, NULL))
		die("pthread_create");
	end = vt_now_ms() + seconds * 1000ULL;
	while (st.iterations < max_iters) {
		step(&pairs[rng_below(&r, NPAIRS)], &r);
		st.iterations++;
		if (!(st.iterations % 256) && vt_now_ms() >= end)
			break;
		if (!(st.iterations % 5000))
			printf("... %lu iterations, %lu mutations, %lu renewals\n",
			       st.iterations, atomic_load(&scribbles),
			       st.renewals);
	}
	atomic_store(&stop, true);
	pthread_join(thread, NULL);
	printf("ring_fuzz: seed %llu: %lu iterations, %lu mutations\n",
	       (unsigned long long)seed, st.iterations,
	       atomic_load(&scribbles));
	print_stats();

	/* Everything goes, whatever the rings say now. */
	for (i = 0; i < NPAIRS; i++)
		pair_free(&pairs[i]);
	for (i = 0; i < 2; i++) {
		check_guards(&devs[i], "at the end");
		/* Windows first: a bound one keeps the MR (EBUSY). */
		for (j = 0; j < 2; j++)
			if (devs[i].mw[j] && ibv_dealloc_mw(devs[i].mw[j]))
				fail("ibv_dealloc_mw: %s", strerror(errno));
		if (devs[i].mkey && virtio_rdmadv_destroy_mkey(devs[i].mkey))
			fail("virtio_rdmadv_destroy_mkey");
		if (ibv_dereg_mr(devs[i].mr))
			fail("ibv_dereg_mr: %s", strerror(errno));
		if (ibv_destroy_comp_channel(devs[i].ch))
			fail("ibv_destroy_comp_channel: %s", strerror(errno));
		if (ibv_dealloc_pd(devs[i].pd))
			fail("ibv_dealloc_pd: %s", strerror(errno));
		if (ibv_close_device(devs[i].ctx))
			fail("ibv_close_device: %s", strerror(errno));
		free(devs[i].buf);
	}
	ibv_free_device_list(list);
	if (!failures)
		printf("ok: every object destroyed, no guard byte written\n");
	return failures ? 1 : 0;
}

static int netns_open(struct dev *d, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	d->netns = open(path, O_RDONLY | O_CLOEXEC);
	if (self_netns < 0)
		self_netns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (d->netns < 0 || self_netns < 0) {
		perror(path);
		return -1;
	}
	return 0;
}

static int usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s [-s SEED] [-n ITERATIONS] [-t SECONDS] [-k KILL_MS] [-a NETNS_A] [-b NETNS_B] DEV_A GID_INDEX_A DEV_B GID_INDEX_B\n",
		argv0);
	return 2;
}

int main(int argc, char **argv)
{
	int to_child[2], from_child[2], status, opt, rc = 0;
	unsigned long max_iters = 200000, kill_ms = 0;
	unsigned int seconds = 40;
	pid_t victim_pid, worker;
	uint64_t t0;

	devs[0].netns = devs[1].netns = -1;
	while ((opt = getopt(argc, argv, "s:n:t:k:a:b:")) != -1) {
		switch (opt) {
		case 'a':
		case 'b':
			if (netns_open(&devs[opt == 'b'], optarg))
				return 2;
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			max_iters = strtoul(optarg, NULL, 0);
			break;
		case 't':
			seconds = strtoul(optarg, NULL, 0);
			break;
		case 'k':
			kill_ms = strtoul(optarg, NULL, 0);
			break;
		default:
			return usage(argv[0]);
		}
	}
	if (argc - optind != 4)
		return usage(argv[0]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	devs[0].name = argv[optind];
	devs[0].gidx = atoi(argv[optind + 1]);
	devs[1].name = argv[optind + 2];
	devs[1].gidx = atoi(argv[optind + 3]);

	if (pipe(to_child) || pipe(from_child))
		die("pipe");
	victim_pid = fork();
	if (victim_pid < 0)
		die("fork");
	if (!victim_pid) {
		close(to_child[1]);
		close(from_child[0]);
		_exit(vt_victim_main(devs[0].name, from_child[1], to_child[0]));
	}
	close(to_child[0]);
	close(from_child[1]);
	if (read(from_child[0], &victim, sizeof(victim)) != sizeof(victim)) {
		printf("FAIL: the victim did not register its MR\n");
		return 2;
	}
	printf("victim: pid %d, MR lkey 0x%x rkey 0x%x at 0x%llx\n",
	       victim_pid, victim.lkey, victim.rkey,
	       (unsigned long long)victim.addr);

	if (!kill_ms) {
		rc = fuzz_main(max_iters, seconds);
	} else {
		/*
		 * The fuzzing in a child that dies by SIGKILL mid-work: the
		 * kernel tears its QPs, CQs and MRs down at exit.
		 */
		worker = fork();
		if (worker < 0)
			die("fork");
		if (!worker) {
			close(to_child[1]);
			_exit(fuzz_main(~0UL, 3600));
		}
		t0 = vt_now_ms();
		while (vt_now_ms() < t0 + kill_ms &&
		       waitpid(worker, &status, WNOHANG) == 0)
			vt_sleep_us(10000);
		if (waitpid(worker, &status, WNOHANG) != 0) {
			fail("the worker ended before it was killed (status 0x%x)",
			     status);
		} else {
			kill(worker, SIGKILL);
			if (waitpid(worker, &status, 0) != worker ||
			    !WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
				fail("the worker did not die by SIGKILL (status 0x%x)",
				     status);
			else
				printf("killed the fuzzing process %d with SIGKILL after %lu ms\n",
				       worker, kill_ms);
		}
	}

	if (write(to_child[1], "c", 1) != 1)
		die("write");
	if (waitpid(victim_pid, &status, 0) != victim_pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status)) {
		fail("the victim reports its MR changed or died (status 0x%x)",
		     status);
		rc = 1;
	}
	if (failures)
		rc = 1;
	printf("ring_fuzz: %s\n", rc ? "FAILED" : "passed");
	return rc;
}
