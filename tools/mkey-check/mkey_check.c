// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * mkey_check DEV_M GID_INDEX_M DEV_P GID_INDEX_P
 *
 * Indirect memory keys: virtio_rdmadv_create_mkey() and the mkey configure
 * work request of <infiniband/virtio_rdmadv.h>, between two devices.
 * Device M, a virtio_rdma device, owns the MRs and the mkeys and configures
 * them on its QPs; device P (another virtio_rdma device, or rdma_rxe)
 * reaches M's memory through an mkey's rkey by RDMA WRITE, READ and
 * atomics, and sends to M and receives from it.  Checked, in order:
 *   (a) the API and its errors: create_mkey's (pd, create_flags,
 *       max_entries 0 and 9, the granted max_entries, lkey == rkey),
 *       virtio_rdmadv_create_qp's (no SEND_OPS_FLAGS, no PD, unknown
 *       direct-verbs bits), virtio_rdmadv_qp_ex_from_ibv_qp_ex() of a
 *       plain extended QP (NULL), and every misuse of the configure builder
 *       (conf_attr, setter counts, a setter twice, two layouts, a setter
 *       without a configure, bad access bits and entry counts): EINVAL
 *       from ibv_wr_complete(), nothing of the batch posted, and the send
 *       queue still works;
 *   (b) an mkey never configured: every local and remote use fails;
 *   (c) a list layout over three MRs: P's WRITE of the whole range lands
 *       chunk by chunk where the layout says and nowhere else, WRITEs
 *       across chunk ends, READ back, the edges [total - 1, 1] (works),
 *       [total, 1] and [total - 1, 2] (IBV_WC_REM_ACCESS_ERR), an atomic
 *       inside a chunk (works) and across two (fails); an 8-entry list;
 *   (d) interleaved layouts: the example of mlx5dv_wr_mkey_configure(3)
 *       byte for byte, and three entries repeated three times;
 *   (e) access rights: REMOTE_READ only refuses WRITE, REMOTE_WRITE only
 *       refuses READ, no REMOTE_ATOMIC refuses atomics, an MR without
 *       LOCAL_WRITE under the mkey refuses WRITE;
 *   (f) local use: a SEND gathered through the mkey (no LOCAL_WRITE
 *       needed), receives scattered through it (LOCAL_WRITE needed) on RC
 *       and UD, P's WRITE on a UC QP, and a QP of another PD can use the
 *       mkey neither locally nor remotely;
 *   (g) setters left out keep the access or the layout; a configuration
 *       is used by the next WR of the same batch and of the next post
 *       without waiting for its completion;
 *   (h) LOCAL_INV clears the layout and the access rights, and a new
 *       configuration revives the mkey;
 *   (i) P's SEND_WITH_INV naming the mkey fails and leaves it working;
 *   (j) configurations the device refuses at execution (another PD's MR,
 *       an unknown lkey, a range outside the MR, more than 2^40 bytes)
 *       complete with IBV_WC_LOC_QP_OP_ERR;
 *   (k) when P is not a virtio_rdma device: create_mkey on its PD is
 *       EOPNOTSUPP.
 * Every byte of M's buffers is compared, after every operation, with what
 * a placement map computed here from the layout says it must hold.  An
 * error completion moves an RC or UC QP to ERR: its pair then goes back
 * through RESET to RTS.  Prints one line per check ("note:" lines only
 * inform) and exits non-zero if any failed.
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <infiniband/virtio_rdmadv.h>

#include "vt.h"

#define BUF_LEN		(16 * 1024)	/* each of M's regions */
#define AUX_LEN		4096		/* M's plain buffer */
#define P_LEN		(64 * 1024)	/* P's buffer, in parts: */
#define P_SRC		0		/*   what P writes or sends */
#define P_DST		(16 * 1024)	/*   where P's READs land */
#define P_RCV		(32 * 1024)	/*   where P receives */
#define P_MIS		(48 * 1024)	/*   target of M's WRITEs */
#define P_ATOM		(56 * 1024)	/*   an atomic's original value */
#define MAXE		8		/* the most entries an mkey may have */
#define MAXSEG		64
#define STASH		128
#define WAIT_MS		5000
#define QUIET_MS	300
#define UD_QKEY		0x11111111
#define GRH_LEN		40
/* post and wait helpers: no completion within WAIT_MS; the post failed. */
#define NO_WC		(-1)
#define NO_POST		(-2)

#define LW		IBV_ACCESS_LOCAL_WRITE
#define RW		IBV_ACCESS_REMOTE_WRITE
#define RR		IBV_ACCESS_REMOTE_READ
#define RA		IBV_ACCESS_REMOTE_ATOMIC

struct dev {
	struct vt_dev v;
	/* Completions polled while waiting for another one. */
	struct ibv_wc stash[STASH];
	int nstash;
};

/* Memory of M under the mkeys, and what it must hold. */
struct region {
	const char *name;
	uint8_t *buf;
	struct ibv_mr *mr;
	uint8_t want[BUF_LEN];
};

/* Where the mkey's address space goes: seg[0] first, each one after the other. */
struct seg {
	struct region *r;
	size_t off;
	size_t len;
};

struct layout {
	int nseg;
	struct seg seg[MAXSEG];
	uint64_t total;
};

/* One configure WR: the access setter if @acc, the layout setter @kind. */
enum { LAY_NONE, LAY_LIST, LAY_IL };

struct conf {
	bool acc;
	uint32_t access;
	int kind;
	uint32_t repeat;
	uint16_t n;
	struct ibv_sge sge[MAXE + 1];
	struct virtio_rdmadv_mr_interleaved il[MAXE + 1];
};

/* A QP of M connected to one of P. */
struct pair {
	const char *name;
	struct ibv_qp *m, *p;
	struct ibv_qp_ex *mx;
	struct virtio_rdmadv_qp_ex *dv;	/* NULL: not made by create_qp */
};

static struct dev dm, dp;
static struct ibv_pd *pd2;		/* M's other PD */
static struct region r0 = { .name = "r0" };
static struct region r1 = { .name = "r1" };
static struct region r2 = { .name = "r2" };
static struct region rnw = { .name = "rnw (no LOCAL_WRITE)" };
static struct region rx = { .name = "rx (other PD)" };
static struct region *regions[] = { &r0, &r1, &r2, &rnw, &rx };
static uint8_t *aux, *pbuf;
static struct ibv_mr *aux_mr, *pmr;
static struct pair rc = { .name = "RC" }, rc2 = { .name = "RC, other PD" };
static struct pair uc = { .name = "UC" }, ud = { .name = "UD" };
static struct ibv_ah *p_ah;
static uint64_t next_id = 1;
static unsigned int seq;
static int post_err;
static bool atomics;
static unsigned int qp_access = LW | RW | RR;
static unsigned int all_rights = LW | RW | RR;

/* --------------------------------------------------------- setup -- */

static uint8_t *buf_new(size_t len)
{
	uint8_t *b = aligned_alloc(4096, len);

	if (!b)
		vt_die("aligned_alloc");
	memset(b, 0, len);
	return b;
}

/*
 * Region bytes are even and every byte P writes is odd: a byte written
 * where it should not be, or not written where it should, always shows.
 */
static void region_init(struct region *r, struct ibv_pd *pd,
			unsigned int access, unsigned int salt)
{
	size_t i;

	r->buf = buf_new(BUF_LEN);
	for (i = 0; i < BUF_LEN; i++)
		r->want[i] = r->buf[i] = (uint8_t)((i * 7 + salt) << 1);
	r->mr = ibv_reg_mr(pd, r->buf, BUF_LEN, access);
	if (!r->mr)
		vt_die("ibv_reg_mr");
}

static void fill(uint8_t *p, size_t n)
{
	size_t i;

	seq++;
	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(((seq * 37 + i * 13) << 1) | 1);
}

static struct ibv_qp *qp_plain(struct dev *d, struct ibv_pd *pd,
			       enum ibv_qp_type type)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = d->v.cq,
		.recv_cq = d->v.cq,
		.cap = {
			.max_send_wr = 16,
			.max_recv_wr = 8,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.qp_type = type,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(d->v.ctx, &a);

	if (!qp)
		vt_die("ibv_create_qp_ex");
	return qp;
}

/* Send operations M's extended QPs of @type ask for. */
static uint64_t m_ops(enum ibv_qp_type type)
{
	if (type == IBV_QPT_UD)
		return IBV_QP_EX_WITH_SEND;
	if (type == IBV_QPT_UC)
		return IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |
		       IBV_QP_EX_WITH_LOCAL_INV;
	return IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |
	       IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_LOCAL_INV;
}

/*
 * virtio_rdmadv_create_qp() with the attributes given (errno set on NULL):
 * @comp_mask for the verbs attributes, @dv_mask and @dv_ops for the
 * direct-verbs ones.  Room for an 8-entry layout: 16 send SGEs.
 */
static struct ibv_qp *qp_dv_try(struct ibv_pd *pd, enum ibv_qp_type type,
				uint32_t comp_mask, uint64_t dv_mask,
				uint64_t dv_ops)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = dm.v.cq,
		.recv_cq = dm.v.cq,
		.cap = {
			.max_send_wr = 32,
			.max_recv_wr = 8,
			.max_send_sge = 2 * MAXE,
			.max_recv_sge = 2,
		},
		.qp_type = type,
		.comp_mask = comp_mask,
		.pd = pd,
		.send_ops_flags = m_ops(type),
	};
	struct virtio_rdmadv_qp_init_attr dv = {
		.comp_mask = dv_mask,
		.send_ops_flags = dv_ops,
	};

	return virtio_rdmadv_create_qp(dm.v.ctx, &a, &dv);
}

/* How M's QP (@m) or P's QP of @pp connects to the other. */
static struct vt_conn pair_conn(const struct pair *pp, bool m)
{
	struct vt_conn c = {
		.dgid = m ? dp.v.gid : dm.v.gid,
		.sgid_index = m ? dm.v.gidx : dp.v.gidx,
		.dqpn = (m ? pp->p : pp->m)->qp_num,
		.psn = 0x100,
		.qkey = UD_QKEY,
		.access = pp->m->qp_type == IBV_QPT_UC ? LW | RW : qp_access,
	};

	return c;
}

static void pair_connect(struct pair *pp)
{
	struct vt_conn cm = pair_conn(pp, true), cp = pair_conn(pp, false);

	vt_qp_connect(pp->m, &cm);
	vt_qp_connect(pp->p, &cp);
}

/* ---------------------------------------------------- completions -- */

static void stash_poll(struct dev *d)
{
	int n;

	if (d->nstash == STASH) {
		/* Full: the oldest goes. */
		if (d->stash[0].status != IBV_WC_WR_FLUSH_ERR)
			printf("  (%s: stray completion wr_id %llu: %s)\n",
			       d->v.name, (unsigned long long)d->stash[0].wr_id,
			       ibv_wc_status_str(d->stash[0].status));
		memmove(d->stash, d->stash + 1,
			(STASH - 1) * sizeof(d->stash[0]));
		d->nstash--;
	}
	n = ibv_poll_cq(d->v.cq, STASH - d->nstash, d->stash + d->nstash);
	if (n > 0)
		d->nstash += n;
	else
		sched_yield();
}

/* The completion of WR @id on @d's CQ within @ms, in @wc. */
static bool wait_wc(struct dev *d, uint64_t id, struct ibv_wc *wc, int ms)
{
	uint64_t end = vt_now_ms() + ms;
	int i;

	for (;;) {
		for (i = 0; i < d->nstash; i++) {
			if (d->stash[i].wr_id != id)
				continue;
			*wc = d->stash[i];
			memmove(d->stash + i, d->stash + i + 1,
				(d->nstash - i - 1) * sizeof(d->stash[0]));
			d->nstash--;
			return true;
		}
		if (vt_now_ms() >= end)
			return false;
		stash_poll(d);
	}
}

/* Whether @d's CQ stays empty for @ms (nothing stashed either). */
static bool quiet(struct dev *d, int ms)
{
	uint64_t end = vt_now_ms() + ms;

	while (!d->nstash && vt_now_ms() < end)
		stash_poll(d);
	return !d->nstash;
}

/* Drops what @d's CQ holds: flushed WQEs of a QP that went to ERR. */
static void drain(struct dev *d)
{
	int i;

	stash_poll(d);
	while (d->nstash) {
		for (i = 0; i < d->nstash; i++)
			if (d->stash[i].status != IBV_WC_WR_FLUSH_ERR)
				printf("  (%s: stray completion wr_id %llu: %s)\n",
				       d->v.name,
				       (unsigned long long)d->stash[i].wr_id,
				       ibv_wc_status_str(d->stash[i].status));
		d->nstash = 0;
		stash_poll(d);
	}
}

/* One QP of @pp (M's if @m) through @to with its connection: 0 or errno. */
static int pair_step(const struct pair *pp, bool m, enum ibv_qp_state to)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	struct vt_conn c = pair_conn(pp, m);
	struct ibv_qp *qp = m ? pp->m : pp->p;

	if (to == IBV_QPS_RESET)
		return ibv_modify_qp(qp, &a, IBV_QP_STATE);
	return vt_qp_modify(qp, &c, to);
}

/*
 * After an error completion: both QPs of @pp through RESET to RTS.  rxe
 * moves a QP to ERR from its completer a little after it has delivered the
 * error completion, and a RESET that comes in between is undone (INIT is
 * then EINVAL): reset again until INIT holds, for at most a second.
 */
static void pair_reset(struct pair *pp)
{
	uint64_t end = vt_now_ms() + 1000;
	int err;

	for (;;) {
		drain(&dm);
		drain(&dp);
		err = pair_step(pp, true, IBV_QPS_RESET) ?:
		      pair_step(pp, true, IBV_QPS_INIT) ?:
		      pair_step(pp, false, IBV_QPS_RESET) ?:
		      pair_step(pp, false, IBV_QPS_INIT);
		if (!err || vt_now_ms() > end)
			break;
		vt_sleep_us(20000);
	}
	if (!err)
		err = pair_step(pp, true, IBV_QPS_RTR) ?:
		      pair_step(pp, false, IBV_QPS_RTR) ?:
		      pair_step(pp, true, IBV_QPS_RTS) ?:
		      pair_step(pp, false, IBV_QPS_RTS);
	if (err) {
		errno = err;
		vt_die("modify_qp RESET to RTS");
	}
}

static const char *st(int s)
{
	static char b[4][64];
	static int k;

	k = (k + 1) % 4;
	if (s == NO_WC)
		return "no completion";
	if (s == NO_POST) {
		snprintf(b[k], sizeof(b[k]), "post failed: %s",
			 vt_errname(post_err));
		return b[k];
	}
	return ibv_wc_status_str(s);
}

/* ---------------------------------------------------------- model -- */

static struct region *region_of(uint64_t addr, size_t *off)
{
	unsigned int i;

	for (i = 0; i < sizeof(regions) / sizeof(regions[0]); i++) {
		uintptr_t b = (uintptr_t)regions[i]->buf;

		if (addr >= b && addr < b + BUF_LEN) {
			*off = addr - b;
			return regions[i];
		}
	}
	printf("FAIL: internal: address %#llx is in no region\n",
	       (unsigned long long)addr);
	exit(1);
}

static void seg_add(struct layout *l, uint64_t addr, size_t len)
{
	struct seg *s = &l->seg[l->nseg++];

	if (l->nseg > MAXSEG) {
		printf("FAIL: internal: layout too long\n");
		exit(1);
	}
	s->r = region_of(addr, &s->off);
	s->len = len;
	l->total += len;
}

/*
 * The placement @c gives, as mlx5dv_wr_mkey_configure(3) defines it: a
 * list is its SGEs one after the other; an interleaved layout is, for each
 * repetition r, bytes_count bytes of each entry i at its addr +
 * r * (bytes_count + bytes_skip).
 */
static void layout_of(const struct conf *c, struct layout *l)
{
	unsigned int r, i;

	memset(l, 0, sizeof(*l));
	if (c->kind == LAY_LIST)
		for (i = 0; i < c->n; i++)
			seg_add(l, c->sge[i].addr, c->sge[i].length);
	if (c->kind == LAY_IL)
		for (r = 0; r < c->repeat; r++)
			for (i = 0; i < c->n; i++)
				seg_add(l, c->il[i].addr +
					(uint64_t)r * (c->il[i].bytes_count +
						       c->il[i].bytes_skip),
					c->il[i].bytes_count);
}

/* The byte of M's memory (its wanted copy) at @off of @l. */
static uint8_t *model_at(const struct layout *l, uint64_t off)
{
	int i;

	for (i = 0; i < l->nseg; i++) {
		if (off < l->seg[i].len)
			return &l->seg[i].r->want[l->seg[i].off + off];
		off -= l->seg[i].len;
	}
	printf("FAIL: internal: offset beyond the layout\n");
	exit(1);
}

static void model_write(const struct layout *l, uint64_t off,
			const uint8_t *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		*model_at(l, off + i) = src[i];
}

/* Bytes of @a and @b that differ; the first shown as "@what byte N". */
static size_t diff(const uint8_t *a, const uint8_t *b, size_t n,
		   const char *what)
{
	size_t i, bad = 0;

	for (i = 0; i < n; i++) {
		if (a[i] == b[i])
			continue;
		if (!bad)
			printf("  %s byte %zu is 0x%02x, not 0x%02x\n", what, i,
			       a[i], b[i]);
		bad++;
	}
	return bad;
}

static bool model_same(const struct layout *l, uint64_t off,
		       const uint8_t *p, size_t n, const char *what)
{
	size_t i, bad = 0;

	for (i = 0; i < n; i++) {
		if (p[i] == *model_at(l, off + i))
			continue;
		if (!bad)
			printf("  %s: byte %zu (mkey offset %llu) is 0x%02x, not 0x%02x\n",
			       what, i, (unsigned long long)(off + i), p[i],
			       *model_at(l, off + i));
		bad++;
	}
	return !bad;
}

/*
 * Whether all of M's regions hold what they must, byte for byte; a
 * difference is shown and taken as the new reference, so that one fault
 * fails one check.
 */
static bool intact(void)
{
	unsigned int i;
	bool ok = true;

	for (i = 0; i < sizeof(regions) / sizeof(regions[0]); i++) {
		struct region *r = regions[i];
		size_t bad = diff(r->buf, r->want, BUF_LEN, r->name);

		if (!bad)
			continue;
		printf("  %s: %zu bytes differ\n", r->name, bad);
		memcpy(r->want, r->buf, BUF_LEN);
		ok = false;
	}
	return ok;
}

/* --------------------------------------------------- configuration -- */

static void c_list(struct conf *c, struct region *r, size_t off, uint32_t len)
{
	struct ibv_sge *s = &c->sge[c->n++];

	c->kind = LAY_LIST;
	s->addr = (uintptr_t)r->buf + off;
	s->length = len;
	s->lkey = r->mr->lkey;
}

static void c_il(struct conf *c, struct region *r, size_t off, uint32_t count,
		 uint32_t skip)
{
	struct virtio_rdmadv_mr_interleaved *e = &c->il[c->n++];

	c->kind = LAY_IL;
	e->addr = (uintptr_t)r->buf + off;
	e->bytes_count = count;
	e->bytes_skip = skip;
	e->lkey = r->mr->lkey;
}

static void c_access(struct conf *c, uint32_t access)
{
	c->acc = true;
	c->access = access;
}

/* Adds @c's configure WR for @k to the batch open on @pp's M QP. */
static uint64_t m_add_conf(struct pair *pp, struct virtio_rdmadv_mkey *k,
			   const struct conf *c, bool signaled)
{
	struct virtio_rdmadv_mkey_conf_attr ca = {};
	uint64_t id = next_id++;

	pp->mx->wr_id = id;
	pp->mx->wr_flags = signaled ? IBV_SEND_SIGNALED : 0;
	virtio_rdmadv_wr_mkey_configure(pp->dv, k,
					c->acc + (c->kind != LAY_NONE), &ca);
	if (c->acc)
		virtio_rdmadv_wr_set_mkey_access_flags(pp->dv, c->access);
	if (c->kind == LAY_LIST)
		virtio_rdmadv_wr_set_mkey_layout_list(pp->dv, c->n, c->sge);
	if (c->kind == LAY_IL)
		virtio_rdmadv_wr_set_mkey_layout_interleaved(pp->dv, c->repeat,
							     c->n, c->il);
	return id;
}

/* Configures @k by @c on @pp's M QP, signaled: the status, @wc filled. */
static int m_conf(struct pair *pp, struct virtio_rdmadv_mkey *k,
		  const struct conf *c, struct ibv_wc *wc)
{
	uint64_t id;

	ibv_wr_start(pp->mx);
	id = m_add_conf(pp, k, c, true);
	post_err = ibv_wr_complete(pp->mx);
	if (post_err)
		return NO_POST;
	if (!wait_wc(&dm, id, wc, WAIT_MS))
		return NO_WC;
	return wc->status;
}

/* m_conf() that must work, with its completion opcode: a check. */
static bool exp_conf(struct pair *pp, struct virtio_rdmadv_mkey *k,
		     const struct conf *c, const char *what)
{
	struct ibv_wc wc = {};
	int s = m_conf(pp, k, c, &wc);
	bool ok = s == IBV_WC_SUCCESS &&
		  wc.opcode == VIRTIO_RDMADV_WC_MKEY_CONFIGURE;

	vt_check(ok, "%s: configure on %s: %s, opcode %d (want %d)", what,
		 pp->name, st(s), s >= 0 ? (int)wc.opcode : -1,
		 VIRTIO_RDMADV_WC_MKEY_CONFIGURE);
	if (s != IBV_WC_SUCCESS && s != NO_POST)
		pair_reset(pp);
	return ok;
}

/* ----------------------------------------------------- M's work -- */

/* Adds a signaled WR to the batch open on @pp's M QP: its wr_id. */
static uint64_t m_add(struct pair *pp, enum ibv_wr_opcode op, uint32_t lkey,
		      uint64_t addr, uint32_t len, uint32_t rkey,
		      uint64_t raddr)
{
	struct ibv_qp_ex *x = pp->mx;
	uint64_t id = next_id++;

	x->wr_id = id;
	x->wr_flags = IBV_SEND_SIGNALED;
	switch (op) {
	case IBV_WR_RDMA_WRITE:
		ibv_wr_rdma_write(x, rkey, raddr);
		break;
	case IBV_WR_RDMA_READ:
		ibv_wr_rdma_read(x, rkey, raddr);
		break;
	case IBV_WR_LOCAL_INV:
		ibv_wr_local_inv(x, rkey);
		return id;
	default:
		ibv_wr_send(x);
		break;
	}
	ibv_wr_set_sge(x, lkey, addr, len);
	return id;
}

/* One signaled WR of M on @pp, waited for: its status. */
static int m_one(struct pair *pp, enum ibv_wr_opcode op, uint32_t lkey,
		 uint64_t addr, uint32_t len, uint32_t rkey, uint64_t raddr,
		 struct ibv_wc *wc)
{
	uint64_t id;

	ibv_wr_start(pp->mx);
	id = m_add(pp, op, lkey, addr, len, rkey, raddr);
	post_err = ibv_wr_complete(pp->mx);
	if (post_err)
		return NO_POST;
	if (!wait_wc(&dm, id, wc, WAIT_MS))
		return NO_WC;
	return wc->status;
}

/* Posts a receive of @n SGEs on @pp's M QP: its wr_id. */
static uint64_t m_recv(struct pair *pp, struct ibv_sge *sg, int n)
{
	struct ibv_recv_wr wr = { .wr_id = next_id++, .sg_list = sg,
				  .num_sge = n }, *bad;

	if (ibv_post_recv(pp->m, &wr, &bad))
		vt_die("ibv_post_recv (M)");
	return wr.wr_id;
}

/* ----------------------------------------------------- P's work -- */

static uint64_t p_recv(struct pair *pp, size_t n)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)pbuf + P_RCV,
		.length = n,
		.lkey = pmr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = next_id++, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	if (ibv_post_recv(pp->p, &wr, &bad))
		vt_die("ibv_post_recv (P)");
	return wr.wr_id;
}

/* Posts @wr, signaled, on @pp's P QP and waits: the status. */
static int p_post(struct pair *pp, struct ibv_send_wr *wr, struct ibv_wc *wc)
{
	struct ibv_send_wr *bad;

	wr->wr_id = next_id++;
	wr->send_flags |= IBV_SEND_SIGNALED;
	post_err = ibv_post_send(pp->p, wr, &bad);
	if (post_err)
		return NO_POST;
	if (!wait_wc(&dp, wr->wr_id, wc, WAIT_MS))
		return NO_WC;
	return wc->status;
}

/* P's @op of @n bytes at @loff of its buffer: the status. */
static int p_rdma(struct pair *pp, enum ibv_wr_opcode op, uint32_t rkey,
		  uint64_t raddr, size_t loff, size_t n)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)pbuf + loff,
		.length = n,
		.lkey = pmr->lkey,
	};
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = op };
	struct ibv_wc wc;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return p_post(pp, &wr, &wc);
}

/*
 * P WRITEs @n fresh bytes at offset @off through @rkey over @pp; on success
 * layout @l takes them.  A check: status @want and M's memory as it must be.
 */
static bool exp_write(struct pair *pp, uint32_t rkey, const struct layout *l,
		      uint64_t off, size_t n, int want, const char *what)
{
	bool mem;
	int s;

	fill(pbuf + P_SRC, n);
	s = p_rdma(pp, IBV_WR_RDMA_WRITE, rkey, off, P_SRC, n);
	if (s == IBV_WC_SUCCESS && l)
		model_write(l, off, pbuf + P_SRC, n);
	mem = intact();
	vt_check(mem && s == want,
		 "%s: P's WRITE [%llu, +%zu) over %s: %s (want %s), M's memory %s",
		 what, (unsigned long long)off, n, pp->name, st(s), st(want),
		 mem ? "as it must be" : "wrong");
	if (s != IBV_WC_SUCCESS)
		pair_reset(pp);
	return mem && s == want;
}

/* P READs [@off, +@n) through @rkey: status @want, data as @l says. */
static bool exp_read(struct pair *pp, uint32_t rkey, const struct layout *l,
		     uint64_t off, size_t n, int want, const char *what)
{
	bool ok = true;
	int s;

	memset(pbuf + P_DST, 0xee, n);
	s = p_rdma(pp, IBV_WR_RDMA_READ, rkey, off, P_DST, n);
	if (s == IBV_WC_SUCCESS && l)
		ok = model_same(l, off, pbuf + P_DST, n, "P's READ");
	ok = intact() && ok && s == want;
	vt_check(ok, "%s: P's READ [%llu, +%zu) over %s: %s (want %s)%s", what,
		 (unsigned long long)off, n, pp->name, st(s), st(want),
		 s == IBV_WC_SUCCESS ? ", data compared" : "");
	if (s != IBV_WC_SUCCESS)
		pair_reset(pp);
	return ok;
}

/*
 * P's 8-byte fetch-and-add at @off through @rkey: status @want; on success
 * the original value as @l says and the sum in its place.  @want < 0: any
 * error status.
 */
static bool exp_atomic(struct pair *pp, uint32_t rkey, const struct layout *l,
		       uint64_t off, int want, const char *what)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)pbuf + P_ATOM,
		.length = 8,
		.lkey = pmr->lkey,
	};
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD };
	uint64_t add = 0x0101010101010101ull, old = 0, got, sum;
	uint8_t b[8];
	struct ibv_wc wc;
	bool ok;
	int s, i;

	/* M's memory is little-endian x86 memory: the model's bytes too. */
	for (i = 0; i < 8 && l && off + 8 <= l->total; i++)
		old |= (uint64_t)*model_at(l, off + i) << (8 * i);
	memset(pbuf + P_ATOM, 0, 8);
	wr.wr.atomic.remote_addr = off;
	wr.wr.atomic.compare_add = add;
	wr.wr.atomic.rkey = rkey;
	s = p_post(pp, &wr, &wc);
	ok = true;
	if (s == IBV_WC_SUCCESS) {
		memcpy(&got, pbuf + P_ATOM, 8);
		sum = old + add;
		for (i = 0; i < 8; i++)
			b[i] = (uint8_t)(sum >> (8 * i));
		model_write(l, off, b, 8);
		if (got != old) {
			printf("  original value 0x%016llx, not 0x%016llx\n",
			       (unsigned long long)got,
			       (unsigned long long)old);
			ok = false;
		}
	}
	ok = intact() && ok && (want < 0 ? s > 0 : s == want);
	vt_check(ok, "%s: P's fetch-and-add at %llu over %s: %s (want %s)",
		 what, (unsigned long long)off, pp->name, st(s),
		 want < 0 ? "an error" : st(want));
	if (s != IBV_WC_SUCCESS)
		pair_reset(pp);
	return ok;
}

/*
 * M SENDs [@off, +@n) of @lkey (an mkey's: laid out by @l) to P: status
 * @want, and P receives what @l says.
 */
static bool exp_m_send(struct pair *pp, uint32_t lkey,
		       const struct layout *l, uint64_t off, uint32_t n,
		       int want, const char *what)
{
	uint64_t rid = p_recv(pp, n);
	struct ibv_wc wc, rwc;
	bool ok = true;
	int s;

	memset(pbuf + P_RCV, 0xee, n);
	s = m_one(pp, IBV_WR_SEND, lkey, off, n, 0, 0, &wc);
	if (s == IBV_WC_SUCCESS) {
		if (!wait_wc(&dp, rid, &rwc, WAIT_MS) ||
		    rwc.status != IBV_WC_SUCCESS || rwc.byte_len != n) {
			printf("  P's receive: %s\n",
			       ibv_wc_status_str(rwc.status));
			ok = false;
		} else if (l) {
			ok = model_same(l, off, pbuf + P_RCV, n,
					"P's receive");
		}
	}
	ok = intact() && ok && s == want;
	vt_check(ok, "%s: M's SEND from [%llu, +%u) of key %#x over %s: %s (want %s)%s",
		 what, (unsigned long long)off, n, lkey, pp->name, st(s),
		 st(want), s == IBV_WC_SUCCESS ? ", P got the bytes" : "");
	if (s != IBV_WC_SUCCESS)
		pair_reset(pp);
	return ok;
}

/*
 * P SENDs @n fresh bytes that M receives at [@off, +@n) of @lkey (layout
 * @l): M's receive completes with @want.
 */
static bool exp_m_recv(struct pair *pp, uint32_t lkey, const struct layout *l,
		       uint64_t off, uint32_t n, int want, const char *what)
{
	struct ibv_sge sge = { .addr = off, .length = n, .lkey = lkey };
	struct ibv_send_wr wr = { .num_sge = 1, .opcode = IBV_WR_SEND };
	struct ibv_sge psge = {
		.addr = (uintptr_t)pbuf + P_SRC,
		.length = n,
		.lkey = pmr->lkey,
	};
	uint64_t rid = m_recv(pp, &sge, 1);
	struct ibv_wc wc, rwc = {};
	int s, rs = NO_WC;
	bool ok;

	fill(pbuf + P_SRC, n);
	wr.sg_list = &psge;
	s = p_post(pp, &wr, &wc);
	if (wait_wc(&dm, rid, &rwc, WAIT_MS))
		rs = rwc.status;
	if (rs == IBV_WC_SUCCESS && l)
		model_write(l, off, pbuf + P_SRC, n);
	ok = intact() && rs == want &&
	     (want != IBV_WC_SUCCESS ||
	      (s == IBV_WC_SUCCESS && rwc.byte_len == n));
	vt_check(ok, "%s: M's receive at [%llu, +%u) of key %#x over %s: %s (want %s), P's SEND: %s",
		 what, (unsigned long long)off, n, lkey, pp->name, st(rs),
		 st(want), st(s));
	if (rs != IBV_WC_SUCCESS || s != IBV_WC_SUCCESS)
		pair_reset(pp);
	return ok;
}

/* ---------------------------------------------------------- mkeys -- */

static struct virtio_rdmadv_mkey *mkey_new(struct ibv_pd *pd, uint16_t max)
{
	struct virtio_rdmadv_mkey_init_attr a = { .pd = pd,
						   .max_entries = max };
	struct virtio_rdmadv_mkey *k = virtio_rdmadv_create_mkey(&a);

	if (!k)
		vt_die("virtio_rdmadv_create_mkey");
	return k;
}

static void mkey_free(struct virtio_rdmadv_mkey *k, const char *what)
{
	int err = virtio_rdmadv_destroy_mkey(k);

	vt_check(!err, "destroy_mkey (%s): %d", what, err);
}

/* The list layout of (c): 100, 4096 and 1000 bytes in three buffers. */
static void conf_list3(struct conf *c)
{
	memset(c, 0, sizeof(*c));
	c_list(c, &r0, 200, 100);
	c_list(c, &r1, 1004, 4096);
	c_list(c, &r2, 3000, 1000);
}

/* ---------------------------------------------------------- (a) -- */

static void check_create_mkey(void)
{
	struct virtio_rdmadv_mkey_init_attr a;
	struct virtio_rdmadv_mkey *k;
	static const uint16_t ok_sizes[] = { 1, 2, MAXE };
	unsigned int i;

	memset(&a, 0, sizeof(a));
	a.max_entries = 2;
	errno = 0;
	k = virtio_rdmadv_create_mkey(&a);
	vt_check(!k, "create_mkey without a PD: refused (%s)",
		 k ? "created" : vt_errname(errno));
	a.pd = dm.v.pd;
	a.create_flags = 1;
	errno = 0;
	k = virtio_rdmadv_create_mkey(&a);
	vt_check(!k && errno == EINVAL, "create_mkey create_flags 1: EINVAL (%s)",
		 k ? "created" : vt_errname(errno));
	a.create_flags = 0;
	a.max_entries = 0;
	errno = 0;
	k = virtio_rdmadv_create_mkey(&a);
	vt_check(!k && errno == EINVAL, "create_mkey max_entries 0: EINVAL (%s)",
		 k ? "created" : vt_errname(errno));
	a.max_entries = MAXE + 1;
	errno = 0;
	k = virtio_rdmadv_create_mkey(&a);
	vt_check(!k && errno == EINVAL, "create_mkey max_entries %d: EINVAL (%s)",
		 MAXE + 1, k ? "created" : vt_errname(errno));
	for (i = 0; i < sizeof(ok_sizes) / sizeof(ok_sizes[0]); i++) {
		a.max_entries = ok_sizes[i];
		k = virtio_rdmadv_create_mkey(&a);
		vt_check(k && a.max_entries == ok_sizes[i] &&
			 k->lkey == k->rkey,
			 "create_mkey max_entries %u: %s, granted %u, lkey %#x rkey %#x",
			 ok_sizes[i], k ? "created" : vt_errname(errno),
			 a.max_entries, k ? k->lkey : 0, k ? k->rkey : 0);
		if (k)
			mkey_free(k, "new");
	}
}

static void check_create_qp(void)
{
	static const struct {
		const char *what;
		uint32_t comp_mask;
		uint64_t dv_mask, dv_ops;
		int err;	/* 0: any */
	} bad[] = {
		{ "without IBV_QP_INIT_ATTR_SEND_OPS_FLAGS", IBV_QP_INIT_ATTR_PD,
		  VIRTIO_RDMADV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS,
		  VIRTIO_RDMADV_QP_EX_WITH_MKEY_CONFIGURE, 0 },
		{ "without IBV_QP_INIT_ATTR_PD", IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		  VIRTIO_RDMADV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS,
		  VIRTIO_RDMADV_QP_EX_WITH_MKEY_CONFIGURE, 0 },
		{ "unknown dv comp_mask bit",
		  IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		  VIRTIO_RDMADV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS | 1 << 1,
		  VIRTIO_RDMADV_QP_EX_WITH_MKEY_CONFIGURE, EINVAL },
		{ "unknown dv send_ops_flags bit",
		  IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		  VIRTIO_RDMADV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS,
		  VIRTIO_RDMADV_QP_EX_WITH_MKEY_CONFIGURE | 1 << 1, EOPNOTSUPP },
	};
	struct ibv_qp *qp;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		qp = qp_dv_try(dm.v.pd, IBV_QPT_RC, bad[i].comp_mask,
			       bad[i].dv_mask, bad[i].dv_ops);
		vt_check(!qp && (!bad[i].err || errno == bad[i].err),
			 "create_qp %s: refused%s%s (%s)", bad[i].what,
			 bad[i].err ? " with " : "",
			 bad[i].err ? vt_errname(bad[i].err) : "",
			 qp ? "created" : vt_errname(errno));
		if (qp)
			ibv_destroy_qp(qp);
	}
	vt_check(!virtio_rdmadv_qp_ex_from_ibv_qp_ex(ibv_qp_to_qp_ex(rc2.m)),
		 "qp_ex_from_ibv_qp_ex of a QP from ibv_create_qp_ex: NULL");
}

/*
 * Each misuse of the builder, after a valid signaled WRITE of M to P in
 * the same batch: ibv_wr_complete() is EINVAL and nothing is posted.
 */
enum {
	MIS_CONF_FLAGS, MIS_COMP_MASK, MIS_TOO_FEW, MIS_FEW_THEN_WR,
	MIS_TOO_MANY, MIS_ZERO_THEN_SETTER, MIS_ACCESS_TWICE, MIS_LIST_TWICE,
	MIS_TWO_LAYOUTS, MIS_NO_CONFIGURE, MIS_SETTER_FIRST, MIS_BAD_ACCESS,
	MIS_LIST_0, MIS_LIST_OVER_MAX, MIS_LIST_9, MIS_LIST_LEN_0,
	MIS_IL_REPEAT_0, MIS_IL_0, MIS_IL_OVER_MAX, MIS_IL_COUNT_0, MIS_N
};

static const char *const mis_name[MIS_N] = {
	[MIS_CONF_FLAGS] = "conf_attr.conf_flags 1",
	[MIS_COMP_MASK] = "conf_attr.comp_mask 1",
	[MIS_TOO_FEW] = "num_setters 2, one setter",
	[MIS_FEW_THEN_WR] = "num_setters 1, no setter, then a WRITE",
	[MIS_TOO_MANY] = "num_setters 1, two setters",
	[MIS_ZERO_THEN_SETTER] = "num_setters 0, then a setter",
	[MIS_ACCESS_TWICE] = "the access setter twice",
	[MIS_LIST_TWICE] = "the list setter twice",
	[MIS_TWO_LAYOUTS] = "a list and an interleaved layout",
	[MIS_NO_CONFIGURE] = "a setter after a WRITE, no configure",
	[MIS_SETTER_FIRST] = "a setter first in the batch",
	[MIS_BAD_ACCESS] = "access IBV_ACCESS_MW_BIND",
	[MIS_LIST_0] = "a list of 0 SGEs",
	[MIS_LIST_OVER_MAX] = "a list of 3 SGEs, max_entries 2",
	[MIS_LIST_9] = "a list of 9 SGEs, max_entries 8",
	[MIS_LIST_LEN_0] = "a list SGE of length 0",
	[MIS_IL_REPEAT_0] = "interleaved, repeat_count 0",
	[MIS_IL_0] = "interleaved, 0 entries",
	[MIS_IL_OVER_MAX] = "interleaved, 3 entries, max_entries 2",
	[MIS_IL_COUNT_0] = "interleaved, bytes_count 0",
};

static void misuse_one(int m, struct virtio_rdmadv_mkey *k8,
		       struct virtio_rdmadv_mkey *k2)
{
	struct virtio_rdmadv_mkey_conf_attr ca = {};
	struct virtio_rdmadv_qp_ex *dv = rc.dv;
	struct ibv_qp_ex *x = rc.mx;
	struct virtio_rdmadv_mr_interleaved il[MAXE + 1];
	struct ibv_sge sge[MAXE + 1];
	unsigned int i;
	int err;

	for (i = 0; i <= MAXE; i++) {
		sge[i].addr = (uintptr_t)r0.buf + 64 * i;
		sge[i].length = 64;
		sge[i].lkey = r0.mr->lkey;
		il[i].addr = (uintptr_t)r1.buf + 64 * i;
		il[i].bytes_count = 16;
		il[i].bytes_skip = 0;
		il[i].lkey = r1.mr->lkey;
	}
	ibv_wr_start(x);
	if (m == MIS_SETTER_FIRST)
		virtio_rdmadv_wr_set_mkey_access_flags(dv, RW);
	m_add(&rc, IBV_WR_RDMA_WRITE, aux_mr->lkey, (uintptr_t)aux, 64,
	      pmr->rkey, (uintptr_t)pbuf + P_MIS);
	x->wr_id = next_id++;
	x->wr_flags = IBV_SEND_SIGNALED;
	switch (m) {
	case MIS_CONF_FLAGS:
		ca.conf_flags = 1;
		virtio_rdmadv_wr_mkey_configure(dv, k8, 1, &ca);
		virtio_rdmadv_wr_set_mkey_access_flags(dv, RW);
		break;
	case MIS_COMP_MASK:
		ca.comp_mask = 1;
		virtio_rdmadv_wr_mkey_configure(dv, k8, 1, &ca);
		virtio_rdmadv_wr_set_mkey_access_flags(dv, RW);
		break;
	case MIS_TOO_FEW:
		virtio_rdmadv_wr_mkey_configure(dv, k8, 2, &ca);
		virtio_rdmadv_wr_set_mkey_access_flags(dv, RW);
		break;
	case MIS_FEW_THEN_WR:
		virtio_rdmadv_wr_mkey_configure(dv, k8, 1, &ca);
		m_add(&rc, IBV_WR_RDMA_WRITE, aux_mr->lkey, (uintptr_t)aux, 64,
		      pmr->rkey, (uintptr_t)pbuf + P_MIS);
		break;
	case MIS_TOO_MANY:
		virtio_rdmadv_wr_mkey_configure(dv, k8, 1, &ca);
		virtio_rdmadv_wr_set_mkey_access_flags(dv, RW);
		virtio_rdmadv_wr_set_mkey_layout_list(dv, 1, sge);
		break;
	case MIS_ZERO_THEN_SETTER:
		virtio_rdmadv_wr_mkey_configure(dv, k8, 0, &ca);
		virtio_rdmadv_wr_set_mkey_access_flags(dv, RW);
		break;
	case MIS_ACCESS_TWICE:
		virtio_rdmadv_wr_mkey_configure(dv, k8, 2, &ca);
		virtio_rdmadv_wr_set_mkey_access_flags(dv, RW);
		virtio_rdmadv_wr_set_mkey_access_flags(dv, RR);
		break;
	case MIS_LIST_TWICE:
		virtio_rdmadv_wr_mkey_configure(dv, k8, 2, &ca);
		virtio_rdmadv_wr_set_mkey_layout_list(dv, 1, sge);
		virtio_rdmadv_wr_set_mkey_layout_list(dv, 2, sge);
		break;
	case MIS_TWO_LAYOUTS:
		virtio_rdmadv_wr_mkey_configure(dv, k8, 2, &ca);
		virtio_rdmadv_wr_set_mkey_layout_list(dv, 1, sge);
		virtio_rdmadv_wr_set_mkey_layout_interleaved(dv, 1, 1, il);
		break;
	case MIS_NO_CONFIGURE:
		virtio_rdmadv_wr_set_mkey_access_flags(dv, RW);
		break;
	case MIS_SETTER_FIRST:
		break;
	case MIS_BAD_ACCESS:
		virtio_rdmadv_wr_mkey_configure(dv, k8, 1, &ca);
		virtio_rdmadv_wr_set_mkey_access_flags(dv, IBV_ACCESS_MW_BIND);
		break;
	case MIS_LIST_0:
		virtio_rdmadv_wr_mkey_configure(dv, k8, 1, &ca);
		virtio_rdmadv_wr_set_mkey_layout_list(dv, 0, sge);
		break;
	case MIS_LIST_OVER_MAX:
		virtio_rdmadv_wr_mkey_configure(dv, k2, 1, &ca);
		virtio_rdmadv_wr_set_mkey_layout_list(dv, 3, sge);
		break;
	case MIS_LIST_9:
		virtio_rdmadv_wr_mkey_configure(dv, k8, 1, &ca);
		virtio_rdmadv_wr_set_mkey_layout_list(dv, MAXE + 1, sge);
		break;
	case MIS_LIST_LEN_0:
		sge[1].length = 0;
		virtio_rdmadv_wr_mkey_configure(dv, k8, 1, &ca);
		virtio_rdmadv_wr_set_mkey_layout_list(dv, 2, sge);
		break;
	case MIS_IL_REPEAT_0:
		virtio_rdmadv_wr_mkey_configure(dv, k8, 1, &ca);
		virtio_rdmadv_wr_set_mkey_layout_interleaved(dv, 0, 2, il);
		break;
	case MIS_IL_0:
		virtio_rdmadv_wr_mkey_configure(dv, k8, 1, &ca);
		virtio_rdmadv_wr_set_mkey_layout_interleaved(dv, 2, 0, il);
		break;
	case MIS_IL_OVER_MAX:
		virtio_rdmadv_wr_mkey_configure(dv, k2, 1, &ca);
		virtio_rdmadv_wr_set_mkey_layout_interleaved(dv, 2, 3, il);
		break;
	case MIS_IL_COUNT_0:
		il[1].bytes_count = 0;
		virtio_rdmadv_wr_mkey_configure(dv, k8, 1, &ca);
		virtio_rdmadv_wr_set_mkey_layout_interleaved(dv, 2, 2, il);
		break;
	}
	err = ibv_wr_complete(x);
	vt_check(err == EINVAL, "misuse: %s: ibv_wr_complete %s (want EINVAL)",
		 mis_name[m], err ? vt_errname(err) : "0");
}

static void check_misuse(struct virtio_rdmadv_mkey *k8)
{
	struct virtio_rdmadv_mkey *k2 = mkey_new(dm.v.pd, 2);
	struct ibv_wc wc = {};
	uint64_t wid, cid;
	uint8_t was[64];
	struct conf c;
	bool ok, same;
	int m, s;

	memset(pbuf + P_MIS, 0x5a, 64);
	memset(was, 0x5a, 64);
	fill(aux, 64);
	for (m = 0; m < MIS_N; m++)
		misuse_one(m, k8, k2);
	ok = quiet(&dm, QUIET_MS);
	same = !memcmp(pbuf + P_MIS, was, 64);
	vt_check(ok && same,
		 "misuse: nothing was posted (%s on M's CQ, P's memory %s)",
		 ok ? "no completion" : "completions",
		 same ? "unchanged" : "written");
	drain(&dm);

	/* The send queue still works: a WRITE and a configure in one batch. */
	memset(&c, 0, sizeof(c));
	c_list(&c, &r0, 200, 100);
	c_list(&c, &r1, 1004, 4096);
	c_access(&c, all_rights);
	ibv_wr_start(rc.mx);
	wid = m_add(&rc, IBV_WR_RDMA_WRITE, aux_mr->lkey, (uintptr_t)aux, 64,
		    pmr->rkey, (uintptr_t)pbuf + P_MIS);
	cid = m_add_conf(&rc, k2, &c, true);
	s = ibv_wr_complete(rc.mx);
	ok = !s && wait_wc(&dm, wid, &wc, WAIT_MS) &&
	     wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RDMA_WRITE &&
	     !memcmp(pbuf + P_MIS, aux, 64);
	vt_check(ok, "after the misuses: M's WRITE to P works (%s)",
		 s ? vt_errname(s) : "posted");
	ok = !s && wait_wc(&dm, cid, &wc, WAIT_MS) &&
	     wc.status == IBV_WC_SUCCESS &&
	     wc.opcode == VIRTIO_RDMADV_WC_MKEY_CONFIGURE;
	vt_check(ok, "after the misuses: a configure completes with VIRTIO_RDMADV_WC_MKEY_CONFIGURE (%s, opcode %d)",
		 s ? vt_errname(s) : ibv_wc_status_str(wc.status), wc.opcode);
	mkey_free(k2, "max_entries 2, configured");
}

/* ---------------------------------------------------------- (b) -- */

static void check_unconfigured(struct virtio_rdmadv_mkey *k)
{
	struct ibv_wc wc;
	int s;

	exp_m_send(&rc, k->lkey, NULL, 0, 16, IBV_WC_LOC_PROT_ERR,
		   "unconfigured");
	s = m_one(&rc, IBV_WR_RDMA_READ, k->lkey, 0, 16, pmr->rkey,
		  (uintptr_t)pbuf + P_SRC, &wc);
	vt_check(s == IBV_WC_LOC_PROT_ERR && intact(),
		 "unconfigured: M's READ into the mkey: %s (want %s)", st(s),
		 st(IBV_WC_LOC_PROT_ERR));
	if (s != IBV_WC_SUCCESS)
		pair_reset(&rc);
	exp_m_recv(&rc, k->lkey, NULL, 0, 16, IBV_WC_LOC_PROT_ERR,
		   "unconfigured");
	exp_write(&rc, k->rkey, NULL, 0, 16, IBV_WC_REM_ACCESS_ERR,
		  "unconfigured");
	exp_read(&rc, k->rkey, NULL, 0, 16, IBV_WC_REM_ACCESS_ERR,
		 "unconfigured");
}

/* ---------------------------------------------------------- (c) -- */

static void check_list(struct virtio_rdmadv_mkey *k)
{
	struct layout l;
	struct conf c;
	uint64_t t;

	conf_list3(&c);
	c_access(&c, all_rights);
	layout_of(&c, &l);
	t = l.total;
	if (!exp_conf(&rc, k, &c, "list of 100, 4096, 1000 bytes"))
		return;
	exp_write(&rc, k->rkey, &l, 0, t, IBV_WC_SUCCESS, "list, whole");
	exp_write(&rc, k->rkey, &l, 90, 30, IBV_WC_SUCCESS,
		  "list, across chunks 0 and 1");
	exp_write(&rc, k->rkey, &l, 4190, 20, IBV_WC_SUCCESS,
		  "list, across chunks 1 and 2");
	exp_write(&rc, k->rkey, &l, 50, 4200, IBV_WC_SUCCESS,
		  "list, across all three");
	exp_read(&rc, k->rkey, &l, 0, t, IBV_WC_SUCCESS, "list, whole");
	exp_read(&rc, k->rkey, &l, 95, 4105, IBV_WC_SUCCESS,
		 "list, across all three");
	exp_write(&rc, k->rkey, &l, t - 1, 1, IBV_WC_SUCCESS, "list, last byte");
	exp_read(&rc, k->rkey, &l, t - 1, 1, IBV_WC_SUCCESS, "list, last byte");
	exp_write(&rc, k->rkey, &l, t, 1, IBV_WC_REM_ACCESS_ERR,
		  "list, at the end");
	exp_write(&rc, k->rkey, &l, t - 1, 2, IBV_WC_REM_ACCESS_ERR,
		  "list, over the end");
	exp_read(&rc, k->rkey, &l, t, 1, IBV_WC_REM_ACCESS_ERR,
		 "list, at the end");
	exp_read(&rc, k->rkey, &l, t - 1, 2, IBV_WC_REM_ACCESS_ERR,
		 "list, over the end");
	if (atomics) {
		/* 104: r1 + 1008, aligned; 96: 4 bytes in r0, 4 in r1. */
		exp_atomic(&rc, k->rkey, &l, 104, IBV_WC_SUCCESS,
			   "list, atomic inside a chunk");
		exp_atomic(&rc, k->rkey, &l, 96, -1,
			   "list, atomic across two chunks");
		exp_read(&rc, k->rkey, &l, 0, t, IBV_WC_SUCCESS,
			 "list, after the atomics");
	} else {
		printf("note: no atomics on both devices: atomic checks skipped\n");
	}

	/* Eight entries, the most: the QP has 16 send SGEs for them. */
	memset(&c, 0, sizeof(c));
	c_list(&c, &r0, 1000, 1);
	c_list(&c, &r1, 6000, 7);
	c_list(&c, &r2, 5000, 64);
	c_list(&c, &r0, 1100, 333);
	c_list(&c, &r1, 8000, 1024);
	c_list(&c, &r2, 6000, 5);
	c_list(&c, &r0, 2000, 2048);
	c_list(&c, &r1, 12000, 17);
	layout_of(&c, &l);
	if (!exp_conf(&rc, k, &c, "list of 8 entries, no access setter"))
		return;
	exp_write(&rc, k->rkey, &l, 0, l.total, IBV_WC_SUCCESS,
		  "8-entry list, whole");
	exp_read(&rc, k->rkey, &l, 0, l.total, IBV_WC_SUCCESS,
		 "8-entry list, whole");
	exp_write(&rc, k->rkey, &l, 3, 1500, IBV_WC_SUCCESS,
		  "8-entry list, across six entries");
	exp_write(&rc, k->rkey, &l, l.total, 1, IBV_WC_REM_ACCESS_ERR,
		  "8-entry list, at the end");
}

/* ---------------------------------------------------------- (d) -- */

static void check_interleaved(struct virtio_rdmadv_mkey *k)
{
	const uint8_t *d = pbuf + P_SRC;
	struct layout l;
	struct conf c;
	bool ok;

	/* mlx5dv_wr_mkey_configure(3)'s example, placement spelt out. */
	memset(&c, 0, sizeof(c));
	c.repeat = 2;
	c_il(&c, &r0, 8192, 512, 4);
	c_il(&c, &r1, 8192, 8, 0);
	c_access(&c, all_rights);
	layout_of(&c, &l);
	if (!exp_conf(&rc, k, &c, "interleaved, repeat 2, {512, skip 4}, {8, skip 0}"))
		return;
	exp_write(&rc, k->rkey, &l, 0, 1040, IBV_WC_SUCCESS,
		  "interleaved example, whole");
	ok = !memcmp(r0.buf + 8192, d, 512) && !memcmp(r1.buf + 8192, d + 512, 8) &&
	     !memcmp(r0.buf + 8192 + 516, d + 520, 512) &&
	     !memcmp(r1.buf + 8192 + 8, d + 1032, 8) &&
	     r0.buf[8192 + 512] != d[512] && r1.buf[8192 + 16] != d[1039];
	vt_check(ok, "interleaved example: 512 bytes at mr1+0, 8 at mr2+0, 512 at mr1+516, 8 at mr2+8");
	exp_read(&rc, k->rkey, &l, 0, 1040, IBV_WC_SUCCESS,
		 "interleaved example, whole");
	exp_write(&rc, k->rkey, &l, 1040, 1, IBV_WC_REM_ACCESS_ERR,
		  "interleaved example, at the end");

	/* Three entries, one with a skip, three times. */
	memset(&c, 0, sizeof(c));
	c.repeat = 3;
	c_il(&c, &r0, 10000, 512, 4);
	c_il(&c, &r1, 10000, 8, 0);
	c_il(&c, &r2, 10000, 100, 28);
	layout_of(&c, &l);
	if (!exp_conf(&rc, k, &c, "interleaved, repeat 3, 3 entries"))
		return;
	exp_write(&rc, k->rkey, &l, 0, l.total, IBV_WC_SUCCESS,
		  "interleaved, whole");
	exp_read(&rc, k->rkey, &l, 0, l.total, IBV_WC_SUCCESS,
		 "interleaved, whole");
	/* Repetition 2 starts at 1240: entry 0 to 1752, entry 1 to 1760. */
	exp_write(&rc, k->rkey, &l, 1750, 12, IBV_WC_SUCCESS,
		  "interleaved, across three entries of repetition 2");
	exp_write(&rc, k->rkey, &l, 600, 700, IBV_WC_SUCCESS,
		  "interleaved, across repetitions 0 to 2");
	exp_read(&rc, k->rkey, &l, 515, 730, IBV_WC_SUCCESS,
		 "interleaved, across repetitions");
	exp_write(&rc, k->rkey, &l, l.total - 1, 1, IBV_WC_SUCCESS,
		  "interleaved, last byte");
	exp_write(&rc, k->rkey, &l, l.total, 1, IBV_WC_REM_ACCESS_ERR,
		  "interleaved, at the end");
	exp_read(&rc, k->rkey, &l, l.total - 1, 2, IBV_WC_REM_ACCESS_ERR,
		 "interleaved, over the end");
}

/* ---------------------------------------------------------- (e) -- */

static void check_rights(struct virtio_rdmadv_mkey *k)
{
	struct layout l;
	struct conf c;

	conf_list3(&c);
	c_access(&c, RR);
	layout_of(&c, &l);
	if (exp_conf(&rc, k, &c, "REMOTE_READ only")) {
		exp_write(&rc, k->rkey, &l, 0, 64, IBV_WC_REM_ACCESS_ERR,
			  "REMOTE_READ only");
		exp_read(&rc, k->rkey, &l, 0, 200, IBV_WC_SUCCESS,
			 "REMOTE_READ only");
	}
	conf_list3(&c);
	c_access(&c, RW);
	if (exp_conf(&rc, k, &c, "REMOTE_WRITE only")) {
		exp_read(&rc, k->rkey, &l, 0, 64, IBV_WC_REM_ACCESS_ERR,
			 "REMOTE_WRITE only");
		exp_write(&rc, k->rkey, &l, 0, 200, IBV_WC_SUCCESS,
			  "REMOTE_WRITE only");
		if (atomics)
			exp_atomic(&rc, k->rkey, &l, 104, IBV_WC_REM_ACCESS_ERR,
				   "no REMOTE_ATOMIC");
	}
	/* The only MR under the mkey has no LOCAL_WRITE. */
	memset(&c, 0, sizeof(c));
	c_list(&c, &rnw, 512, 1024);
	c_access(&c, RW | RR);
	layout_of(&c, &l);
	if (exp_conf(&rc, k, &c, "over an MR without LOCAL_WRITE")) {
		exp_write(&rc, k->rkey, &l, 0, 64, IBV_WC_REM_ACCESS_ERR,
			  "over an MR without LOCAL_WRITE");
		exp_read(&rc, k->rkey, &l, 0, 1024, IBV_WC_SUCCESS,
			 "over an MR without LOCAL_WRITE");
	}
}

/* ---------------------------------------------------------- (f) -- */

static void check_local(struct virtio_rdmadv_mkey *k)
{
	struct ibv_sge sg[2];
	struct ibv_send_wr wr = { .num_sge = 1, .opcode = IBV_WR_SEND };
	struct ibv_sge psge;
	struct ibv_wc wc, rwc;
	struct layout l;
	struct conf c;
	uint64_t rid, end;
	bool ok;
	int s;

	/* Gathering needs no right at all. */
	conf_list3(&c);
	c_access(&c, RW | RR);
	layout_of(&c, &l);
	if (!exp_conf(&rc, k, &c, "REMOTE_WRITE | REMOTE_READ, no LOCAL_WRITE"))
		return;
	exp_write(&rc, k->rkey, &l, 0, l.total, IBV_WC_SUCCESS,
		  "local, fresh data");
	exp_m_send(&rc, k->lkey, &l, 90, 40, IBV_WC_SUCCESS,
		   "no LOCAL_WRITE, across chunks 0 and 1");
	exp_m_send(&rc, k->lkey, &l, 50, 4200, IBV_WC_SUCCESS,
		   "no LOCAL_WRITE, across all three chunks");
	exp_m_send(&rc, k->lkey, &l, l.total - 10, 11, IBV_WC_LOC_PROT_ERR,
		   "over the end");
	exp_m_recv(&rc, k->lkey, &l, 95, 20, IBV_WC_LOC_PROT_ERR,
		   "no LOCAL_WRITE");

	/* Access only: the layout stays. */
	memset(&c, 0, sizeof(c));
	c_access(&c, all_rights);
	if (!exp_conf(&rc, k, &c, "LOCAL_WRITE added, no layout setter"))
		return;
	exp_m_recv(&rc, k->lkey, &l, 4190, 300, IBV_WC_SUCCESS,
		   "LOCAL_WRITE, across chunks 1 and 2");
	exp_m_recv(&rc, k->lkey, &l, 0, l.total, IBV_WC_SUCCESS,
		   "LOCAL_WRITE, whole");
	exp_read(&rc, k->rkey, &l, 0, l.total, IBV_WC_SUCCESS,
		 "after the receives");

	/* UD: the GRH into a plain MR, the message through the mkey. */
	conf_list3(&c);
	c_access(&c, all_rights);
	if (exp_conf(&ud, k, &c, "list")) {
		sg[0].addr = (uintptr_t)aux;
		sg[0].length = GRH_LEN;
		sg[0].lkey = aux_mr->lkey;
		sg[1].addr = 90;
		sg[1].length = 200;
		sg[1].lkey = k->lkey;
		rid = m_recv(&ud, sg, 2);
		fill(pbuf + P_SRC, 200);
		psge.addr = (uintptr_t)pbuf + P_SRC;
		psge.length = 200;
		psge.lkey = pmr->lkey;
		wr.sg_list = &psge;
		wr.wr.ud.ah = p_ah;
		wr.wr.ud.remote_qpn = ud.m->qp_num;
		wr.wr.ud.remote_qkey = UD_QKEY;
		s = p_post(&ud, &wr, &wc);
		ok = s == IBV_WC_SUCCESS && wait_wc(&dm, rid, &rwc, WAIT_MS) &&
		     rwc.status == IBV_WC_SUCCESS &&
		     rwc.byte_len == GRH_LEN + 200;
		if (ok)
			model_write(&l, 90, pbuf + P_SRC, 200);
		ok = intact() && ok;
		vt_check(ok, "UD: M's receive at [90, +200) of the mkey after a 40-byte GRH: P's SEND %s, data %s",
			 st(s), ok ? "placed" : "wrong or missing");
	}

	/* UC: configured on M's UC QP, written by P's UC QP. */
	if (exp_conf(&uc, k, &c, "list")) {
		fill(pbuf + P_SRC, 300);
		s = p_rdma(&uc, IBV_WR_RDMA_WRITE, k->rkey, 50, P_SRC, 300);
		model_write(&l, 50, pbuf + P_SRC, 300);
		/* No completion on M for a WRITE: watch its memory. */
		end = vt_now_ms() + WAIT_MS;
		while (vt_now_ms() < end &&
		       (memcmp(r0.buf, r0.want, BUF_LEN) ||
			memcmp(r1.buf, r1.want, BUF_LEN)))
			sched_yield();
		ok = intact() && s == IBV_WC_SUCCESS;
		vt_check(ok, "UC: P's WRITE [50, +300) through the mkey: %s, M's memory %s",
			 st(s), ok ? "as it must be" : "wrong");
	}

	/* A QP of another PD can use the mkey neither way. */
	exp_m_send(&rc2, k->lkey, NULL, 0, 16, IBV_WC_LOC_PROT_ERR,
		   "QP of another PD");
	exp_write(&rc2, k->rkey, NULL, 0, 16, IBV_WC_REM_ACCESS_ERR,
		  "QP of another PD");
	exp_read(&rc2, k->rkey, NULL, 0, 16, IBV_WC_REM_ACCESS_ERR,
		 "QP of another PD");
	exp_write(&rc, k->rkey, &l, 0, 16, IBV_WC_SUCCESS,
		  "QP of the mkey's PD, after that");
}

/* ---------------------------------------------------------- (g) -- */

static void check_immediate(struct virtio_rdmadv_mkey *k)
{
	struct layout l, l2;
	struct ibv_wc wc, rwc;
	uint64_t id = 0, rid;
	struct conf c;
	bool ok;
	int err;

	/* Setters left out keep what they would set. */
	conf_list3(&c);
	c_access(&c, all_rights);
	layout_of(&c, &l);
	if (!exp_conf(&rc, k, &c, "list, all rights"))
		return;
	memset(&c, 0, sizeof(c));
	c_il(&c, &r2, 7000, 64, 64);
	c.repeat = 4;
	layout_of(&c, &l2);
	if (exp_conf(&rc, k, &c, "layout only")) {
		exp_write(&rc, k->rkey, &l2, 0, 256, IBV_WC_SUCCESS,
			  "layout only: the rights stay");
		exp_read(&rc, k->rkey, &l2, 0, 256, IBV_WC_SUCCESS,
			 "layout only: the rights stay");
		exp_write(&rc, k->rkey, &l2, 256, 1, IBV_WC_REM_ACCESS_ERR,
			  "layout only: the new end");
	}
	memset(&c, 0, sizeof(c));
	c_access(&c, RR);
	if (exp_conf(&rc, k, &c, "access only")) {
		exp_read(&rc, k->rkey, &l2, 0, 256, IBV_WC_SUCCESS,
			 "access only: the layout stays");
		exp_write(&rc, k->rkey, &l2, 0, 8, IBV_WC_REM_ACCESS_ERR,
			  "access only: REMOTE_READ now");
	}
	memset(&c, 0, sizeof(c));
	if (exp_conf(&rc, k, &c, "no setter"))
		exp_read(&rc, k->rkey, &l2, 0, 256, IBV_WC_SUCCESS,
			 "no setter: layout and rights stay");

	/* Configure, then M's READ into the mkey in the same batch. */
	memset(&c, 0, sizeof(c));
	c_list(&c, &r2, 100, 50);
	c_list(&c, &r0, 5000, 300);
	c_list(&c, &r1, 300, 70);
	c_access(&c, all_rights);
	layout_of(&c, &l);
	fill(pbuf + P_SRC, 380);
	ibv_wr_start(rc.mx);
	m_add_conf(&rc, k, &c, false);
	id = m_add(&rc, IBV_WR_RDMA_READ, k->lkey, 20, 380, pmr->rkey,
		   (uintptr_t)pbuf + P_SRC);
	err = ibv_wr_complete(rc.mx);
	ok = !err && wait_wc(&dm, id, &wc, WAIT_MS) &&
	     wc.status == IBV_WC_SUCCESS;
	if (ok)
		model_write(&l, 20, pbuf + P_SRC, 380);
	ok = intact() && ok;
	vt_check(ok, "configure and M's READ into the mkey in one batch: %s, data %s",
		 err ? vt_errname(err) :
		 ibv_wc_status_str(ok ? IBV_WC_SUCCESS : wc.status),
		 ok ? "placed by the new layout" : "wrong");
	if (!ok)
		pair_reset(&rc);

	/* Configure, then a SEND from the mkey in the next post, no wait. */
	memset(&c, 0, sizeof(c));
	c.repeat = 2;
	c_il(&c, &r1, 14000, 30, 2);
	c_il(&c, &r2, 14000, 40, 10);
	layout_of(&c, &l);
	rid = p_recv(&rc, 120);
	ibv_wr_start(rc.mx);
	m_add_conf(&rc, k, &c, false);
	err = ibv_wr_complete(rc.mx);
	if (!err) {
		ibv_wr_start(rc.mx);
		id = m_add(&rc, IBV_WR_SEND, k->lkey, 5, 120, 0, 0);
		err = ibv_wr_complete(rc.mx);
	}
	ok = !err && wait_wc(&dm, id, &wc, WAIT_MS) &&
	     wc.status == IBV_WC_SUCCESS &&
	     wait_wc(&dp, rid, &rwc, WAIT_MS) &&
	     rwc.status == IBV_WC_SUCCESS && rwc.byte_len == 120 &&
	     model_same(&l, 5, pbuf + P_RCV, 120, "P's receive");
	vt_check(ok, "configure, then a SEND from the mkey in the next post: %s",
		 err ? vt_errname(err) :
		 ok ? "P got the bytes of the new layout" : "failed");
	if (!ok)
		pair_reset(&rc);
}

/* ---------------------------------------------------------- (h) -- */

static bool m_local_inv(struct virtio_rdmadv_mkey *k, const char *what)
{
	struct ibv_wc wc = {};
	int s = m_one(&rc, IBV_WR_LOCAL_INV, 0, 0, 0, k->rkey, 0, &wc);
	bool ok = s == IBV_WC_SUCCESS && wc.opcode == IBV_WC_LOCAL_INV;

	vt_check(ok, "%s: LOCAL_INV of the mkey: %s, opcode %d", what, st(s),
		 s >= 0 ? (int)wc.opcode : -1);
	if (s != IBV_WC_SUCCESS && s != NO_POST)
		pair_reset(&rc);
	return ok;
}

static void check_local_inv(struct virtio_rdmadv_mkey *k)
{
	struct ibv_wc wc;
	struct layout l;
	struct conf c;
	int s;

	conf_list3(&c);
	c_access(&c, all_rights);
	layout_of(&c, &l);
	if (!exp_conf(&rc, k, &c, "list, all rights"))
		return;
	exp_write(&rc, k->rkey, &l, 0, 64, IBV_WC_SUCCESS, "before LOCAL_INV");
	if (!m_local_inv(k, "invalidated"))
		return;
	exp_write(&rc, k->rkey, NULL, 0, 64, IBV_WC_REM_ACCESS_ERR,
		  "invalidated");
	exp_read(&rc, k->rkey, NULL, 0, 64, IBV_WC_REM_ACCESS_ERR,
		 "invalidated");
	exp_m_send(&rc, k->lkey, NULL, 0, 64, IBV_WC_LOC_PROT_ERR,
		   "invalidated");
	s = m_one(&rc, IBV_WR_RDMA_READ, k->lkey, 0, 16, pmr->rkey,
		  (uintptr_t)pbuf + P_SRC, &wc);
	vt_check(s == IBV_WC_LOC_PROT_ERR && intact(),
		 "invalidated: M's READ into the mkey: %s (want %s)", st(s),
		 st(IBV_WC_LOC_PROT_ERR));
	if (s != IBV_WC_SUCCESS)
		pair_reset(&rc);

	/* A layout alone: no rights came back (sending needs none). */
	conf_list3(&c);
	if (exp_conf(&rc, k, &c, "after LOCAL_INV, layout only")) {
		exp_write(&rc, k->rkey, NULL, 0, 64, IBV_WC_REM_ACCESS_ERR,
			  "after LOCAL_INV, layout only");
		exp_m_send(&rc, k->lkey, &l, 90, 40, IBV_WC_SUCCESS,
			   "after LOCAL_INV, layout only");
	}
	/* Rights alone: no layout came back. */
	if (m_local_inv(k, "again")) {
		memset(&c, 0, sizeof(c));
		c_access(&c, all_rights);
		if (exp_conf(&rc, k, &c, "after LOCAL_INV, access only")) {
			exp_write(&rc, k->rkey, NULL, 0, 64,
				  IBV_WC_REM_ACCESS_ERR,
				  "after LOCAL_INV, access only");
			exp_m_send(&rc, k->lkey, NULL, 0, 16,
				   IBV_WC_LOC_PROT_ERR,
				   "after LOCAL_INV, access only");
		}
	}
	/* Both: it works again. */
	conf_list3(&c);
	c_access(&c, all_rights);
	if (exp_conf(&rc, k, &c, "after LOCAL_INV, layout and access")) {
		exp_write(&rc, k->rkey, &l, 0, l.total, IBV_WC_SUCCESS,
			  "reconfigured");
		exp_read(&rc, k->rkey, &l, 0, l.total, IBV_WC_SUCCESS,
			 "reconfigured");
	}
}

/* ---------------------------------------------------------- (i) -- */

static void check_send_inv(struct virtio_rdmadv_mkey *k)
{
	struct ibv_sge sge = { .addr = (uintptr_t)aux + 2048, .length = 256,
			       .lkey = aux_mr->lkey };
	struct ibv_sge psge = { .addr = (uintptr_t)pbuf + P_SRC, .length = 16,
				.lkey = pmr->lkey };
	struct ibv_send_wr wr = { .sg_list = &psge, .num_sge = 1,
				  .opcode = IBV_WR_SEND_WITH_INV };
	struct ibv_wc wc, rwc = {};
	struct layout l;
	struct conf c;
	uint64_t rid;
	int s, rs = NO_WC;

	conf_list3(&c);
	c_access(&c, all_rights);
	layout_of(&c, &l);
	if (!exp_conf(&rc, k, &c, "list, all rights"))
		return;
	rid = m_recv(&rc, &sge, 1);
	fill(pbuf + P_SRC, 16);
	wr.invalidate_rkey = k->rkey;
	s = p_post(&rc, &wr, &wc);
	if (wait_wc(&dm, rid, &rwc, 1000))
		rs = rwc.status;
	vt_check(s > 0 && intact(),
		 "SEND_WITH_INV of the mkey from P: P's completion %s (an error wanted), M's receive: %s",
		 st(s), st(rs));
	if (s != IBV_WC_REM_OP_ERR)
		printf("note: P's SEND_WITH_INV of an mkey completed with %s, not IBV_WC_REM_OP_ERR\n",
		       st(s));
	pair_reset(&rc);
	exp_write(&rc, k->rkey, &l, 0, 64, IBV_WC_SUCCESS,
		  "after the refused remote invalidation");
}

/* ---------------------------------------------------------- (j) -- */

static void exp_conf_err(struct virtio_rdmadv_mkey *k, const struct conf *c,
			 const char *what)
{
	struct ibv_wc wc;
	int s = m_conf(&rc, k, c, &wc);

	vt_check(s == IBV_WC_LOC_QP_OP_ERR,
		 "configure error, %s: %s (want %s)", what, st(s),
		 st(IBV_WC_LOC_QP_OP_ERR));
	if (s != IBV_WC_SUCCESS && s != NO_POST)
		pair_reset(&rc);
}

static void check_conf_errors(struct virtio_rdmadv_mkey *k)
{
	struct virtio_rdmadv_mkey *other = mkey_new(dm.v.pd, 2);
	struct ibv_wc wc;
	struct layout l;
	struct conf c;
	int s;

	conf_list3(&c);
	c_list(&c, &rx, 0, 64);
	c_access(&c, all_rights);
	exp_conf_err(k, &c, "an MR of another PD");
	conf_list3(&c);
	c.sge[1].lkey = 0xfffffe00;
	c_access(&c, all_rights);
	exp_conf_err(k, &c, "an unknown lkey");
	memset(&c, 0, sizeof(c));
	c_list(&c, &r0, BUF_LEN - 10, 20);
	exp_conf_err(k, &c, "a list SGE past the MR's end");
	memset(&c, 0, sizeof(c));
	c_list(&c, &r0, 0, 64);
	c.sge[0].addr = (uintptr_t)r0.buf - 8;
	exp_conf_err(k, &c, "a list SGE before the MR's start");
	memset(&c, 0, sizeof(c));
	c.repeat = 40;
	c_il(&c, &r0, 0, 512, 0);
	exp_conf_err(k, &c, "interleaved past the MR's end (40 x 512)");
	memset(&c, 0, sizeof(c));
	c.repeat = 0xffffffff;
	c_il(&c, &r0, 0, 1 << 16, 0);
	exp_conf_err(k, &c, "interleaved of 2^48 bytes (more than 2^40)");

	/* An mkey's lkey is not an MR's: say what happens. */
	memset(&c, 0, sizeof(c));
	c_list(&c, &r0, 0, 64);
	c.sge[0].addr = 0;
	c.sge[0].lkey = other->lkey;
	s = m_conf(&rc, k, &c, &wc);
	printf("note: a list entry naming another mkey's lkey: %s\n", st(s));
	if (s != IBV_WC_SUCCESS && s != NO_POST)
		pair_reset(&rc);
	mkey_free(other, "unconfigured");

	/* The mkey is still usable. */
	conf_list3(&c);
	c_access(&c, all_rights);
	layout_of(&c, &l);
	if (exp_conf(&rc, k, &c, "after the refused configurations"))
		exp_write(&rc, k->rkey, &l, 0, l.total, IBV_WC_SUCCESS,
			  "after the refused configurations");
}

/* ----------------------------------------------------------- main -- */

static void setup_pairs(void)
{
	struct ibv_ah_attr aha = {};

	rc.m = qp_dv_try(dm.v.pd, IBV_QPT_RC,
			 IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			 VIRTIO_RDMADV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS,
			 VIRTIO_RDMADV_QP_EX_WITH_MKEY_CONFIGURE);
	uc.m = qp_dv_try(dm.v.pd, IBV_QPT_UC,
			 IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			 VIRTIO_RDMADV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS,
			 VIRTIO_RDMADV_QP_EX_WITH_MKEY_CONFIGURE);
	ud.m = qp_dv_try(dm.v.pd, IBV_QPT_UD,
			 IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			 VIRTIO_RDMADV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS,
			 VIRTIO_RDMADV_QP_EX_WITH_MKEY_CONFIGURE);
	vt_check(rc.m && uc.m && ud.m,
		 "create_qp with MKEY_CONFIGURE: RC %s, UC %s, UD %s",
		 rc.m ? "made" : "refused", uc.m ? "made" : "refused",
		 ud.m ? "made" : "refused");
	if (!rc.m || !uc.m || !ud.m)
		vt_die("virtio_rdmadv_create_qp");
	/* Plain extended QP of the other PD: its ops, but no mkey ones. */
	{
		struct ibv_qp_init_attr_ex a = {
			.send_cq = dm.v.cq,
			.recv_cq = dm.v.cq,
			.cap = { .max_send_wr = 16, .max_recv_wr = 8,
				 .max_send_sge = 1, .max_recv_sge = 1 },
			.qp_type = IBV_QPT_RC,
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.pd = pd2,
			.send_ops_flags = m_ops(IBV_QPT_RC),
		};

		rc2.m = ibv_create_qp_ex(dm.v.ctx, &a);
		if (!rc2.m)
			vt_die("ibv_create_qp_ex (other PD)");
	}
	rc.mx = ibv_qp_to_qp_ex(rc.m);
	uc.mx = ibv_qp_to_qp_ex(uc.m);
	ud.mx = ibv_qp_to_qp_ex(ud.m);
	rc2.mx = ibv_qp_to_qp_ex(rc2.m);
	rc.dv = virtio_rdmadv_qp_ex_from_ibv_qp_ex(rc.mx);
	uc.dv = virtio_rdmadv_qp_ex_from_ibv_qp_ex(uc.mx);
	ud.dv = virtio_rdmadv_qp_ex_from_ibv_qp_ex(ud.mx);
	vt_check(rc.dv && uc.dv && ud.dv,
		 "qp_ex_from_ibv_qp_ex of the RC, UC and UD QPs: not NULL");
	if (!rc.dv || !uc.dv || !ud.dv)
		exit(1);

	rc.p = qp_plain(&dp, dp.v.pd, IBV_QPT_RC);
	rc2.p = qp_plain(&dp, dp.v.pd, IBV_QPT_RC);
	uc.p = qp_plain(&dp, dp.v.pd, IBV_QPT_UC);
	ud.p = qp_plain(&dp, dp.v.pd, IBV_QPT_UD);
	pair_connect(&rc);
	pair_connect(&rc2);
	pair_connect(&uc);
	pair_connect(&ud);

	aha.is_global = 1;
	aha.grh.dgid = dm.v.gid;
	aha.grh.sgid_index = dp.v.gidx;
	aha.grh.hop_limit = 1;
	aha.port_num = 1;
	p_ah = ibv_create_ah(dp.v.pd, &aha);
	if (!p_ah)
		vt_die("ibv_create_ah (P)");
}

static void check_foreign(void)
{
	struct virtio_rdmadv_mkey_init_attr a = { .pd = dp.v.pd,
						  .max_entries = 2 };
	struct virtio_rdmadv_mkey *k;

	errno = 0;
	k = virtio_rdmadv_create_mkey(&a);
	vt_check(!k && errno == EOPNOTSUPP,
		 "create_mkey on %s (no mkeys): EOPNOTSUPP (%s)", dp.v.name,
		 k ? "created" : vt_errname(errno));
}

int main(int argc, char **argv)
{
	struct virtio_rdmadv_mkey *k, *ku;
	struct ibv_device_attr am, ap;
	uint64_t t0 = vt_now_ms();
	unsigned int i;

	vt_dev_args(argc, argv, "usage: %s DEV_M GIDX_M DEV_P GIDX_P\n", 256,
		    &dm.v, &dp.v);
	if (ibv_query_device(dm.v.ctx, &am) || ibv_query_device(dp.v.ctx, &ap))
		vt_die("ibv_query_device");
	atomics = am.atomic_cap != IBV_ATOMIC_NONE &&
		  ap.atomic_cap != IBV_ATOMIC_NONE;
	if (atomics) {
		qp_access |= RA;
		all_rights |= RA;
	}
	printf("M %s: max_sge %d, atomics %d; P %s: atomics %d\n", dm.v.name,
	       am.max_sge, am.atomic_cap, dp.v.name, ap.atomic_cap);
	pd2 = ibv_alloc_pd(dm.v.ctx);
	if (!pd2)
		vt_die("ibv_alloc_pd");
	region_init(&r0, dm.v.pd, LW, 1);
	region_init(&r1, dm.v.pd, LW, 2);
	region_init(&r2, dm.v.pd, LW, 3);
	region_init(&rnw, dm.v.pd, 0, 4);
	region_init(&rx, pd2, LW, 5);
	aux = buf_new(AUX_LEN);
	aux_mr = ibv_reg_mr(dm.v.pd, aux, AUX_LEN, LW);
	pbuf = buf_new(P_LEN);
	pmr = ibv_reg_mr(dp.v.pd, pbuf, P_LEN, LW | RW | RR);
	if (!aux_mr || !pmr)
		vt_die("ibv_reg_mr");
	setup_pairs();

	check_create_mkey();				/* (a) */
	check_create_qp();
	ku = mkey_new(dm.v.pd, MAXE);
	k = mkey_new(dm.v.pd, MAXE);
	check_misuse(ku);
	check_unconfigured(ku);				/* (b) */
	mkey_free(ku, "never configured");
	check_list(k);					/* (c) */
	check_interleaved(k);				/* (d) */
	check_rights(k);				/* (e) */
	check_local(k);					/* (f) */
	check_immediate(k);				/* (g) */
	check_local_inv(k);				/* (h) */
	check_send_inv(k);				/* (i) */
	check_conf_errors(k);				/* (j) */
	mkey_free(k, "configured");
	if (strncmp(dp.v.name, "virtio_rdma", 11))	/* (k) */
		check_foreign();

	ibv_destroy_ah(p_ah);
	ibv_destroy_qp(rc.m);
	ibv_destroy_qp(rc2.m);
	ibv_destroy_qp(uc.m);
	ibv_destroy_qp(ud.m);
	ibv_destroy_qp(rc.p);
	ibv_destroy_qp(rc2.p);
	ibv_destroy_qp(uc.p);
	ibv_destroy_qp(ud.p);
	for (i = 0; i < sizeof(regions) / sizeof(regions[0]); i++)
		ibv_dereg_mr(regions[i]->mr);
	ibv_dereg_mr(aux_mr);
	ibv_dereg_mr(pmr);
	ibv_destroy_cq(dm.v.cq);
	ibv_destroy_cq(dp.v.cq);
	ibv_dealloc_pd(pd2);
	ibv_dealloc_pd(dm.v.pd);
	ibv_dealloc_pd(dp.v.pd);
	ibv_close_device(dm.v.ctx);
	ibv_close_device(dp.v.ctx);
	printf("mkey_check: %d checks, %d failures, %llu ms\n", vt_checks,
	       vt_failures, (unsigned long long)(vt_now_ms() - t0));
	return vt_failures ? 1 : 0;
}
