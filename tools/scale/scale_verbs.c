// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * scale_verbs: the device limits reached and used (scenario scale).
 *
 *   scale_verbs full DEV_A GIDX_A DEV_B GIDX_B
 *	On both devices: one-page MRs until the MR table is full and RC QPs
 *	until the QP table is full (each must stop with ENOSPC within a few
 *	entries of max_mr and max_qp: the kernel's own PDs and the GSI QP
 *	hold the rest).  QP i of A is connected to QP i of B and every pair
 *	carries a SEND each way; then pair 0 runs one RDMA operation per MR
 *	(WRITE from B's MR i into A's MR i for even i, READ of A's MR i into
 *	B's MR i for odd i), so that every MR of both tables is used once.
 *	All data is checked, everything destroyed, the time of each phase
 *	printed.
 *
 *   scale_verbs devs PREFIX
 *	Every device whose name starts with PREFIX: open, query, a PD, a CQ
 *	and an RC QP brought to INIT, all destroyed.  Prints the count.
 *
 * Exits 0 when everything worked, 1 otherwise (a line "FAIL: ..." says
 * what).
 */
#include "scale_common.h"

#include <sys/mman.h>

#define PAGE		4096
#define MSG		256	/* each pair's SEND */
#define QP_SQ		16	/* pair 0 keeps this many RDMA operations going */
#define CQ_DEPTH	2048	/* more than max_qp completions of one kind */
#define NWC		64

struct side {
	struct sdev d;
	struct side *peer;
	uint8_t *buf;		/* max_mr pages, page i registered as mr[i] */
	struct ibv_mr **mr;
	int nmr;
	struct ibv_qp **qp;
	int nqp;
	struct ibv_cq *scq, *rcq;
};

static struct side sa, sb;

static uint8_t pattern(int page, int off, char tag)
{
	return (uint8_t)(page * 13 + off * 7 + tag);
}

static void fill_page(uint8_t *p, int page, int len, char tag)
{
	int i;

	for (i = 0; i < len; i++)
		p[i] = pattern(page, i, tag);
}

static bool page_ok(const uint8_t *p, int page, int len, char tag)
{
	int i;

	for (i = 0; i < len; i++)
		if (p[i] != pattern(page, i, tag))
			return false;
	return true;
}

static double ms_since(uint64_t t0)
{
	return (now_us() - t0) / 1000.0;
}

/*
 * Fill the MR table of @s: one MR per page until creation fails.  It must
 * fail with ENOSPC, and no more than 16 entries short of max_mr (the DMA MRs
 * of the kernel's PDs).
 */
static void fill_mrs(struct side *s)
{
	int max = s->d.attr.max_mr;
	uint64_t t0 = now_us();
	int e = 0;

	s->buf = mmap(NULL, (size_t)max * PAGE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	s->mr = calloc(max, sizeof(*s->mr));
	if (s->buf == MAP_FAILED || !s->mr)
		vt_die("buffers");
	for (s->nmr = 0; s->nmr < max; s->nmr++) {
		s->mr[s->nmr] = ibv_reg_mr(s->d.pd, s->buf + (size_t)s->nmr * PAGE,
					   PAGE, IBV_ACCESS_LOCAL_WRITE |
					   IBV_ACCESS_REMOTE_WRITE |
					   IBV_ACCESS_REMOTE_READ);
		if (!s->mr[s->nmr]) {
			e = errno;
			break;
		}
	}
	printf("%s: %d MRs registered in %.0f ms (max_mr %d), the next: %s\n",
	       s->d.name, s->nmr, ms_since(t0), max,
	       e ? strerrorname_np(e) : "not tried");
	if (e != ENOSPC || s->nmr < max - 16) {
		printf("FAIL: %s: the MR table did not fill to max_mr with ENOSPC\n",
		       s->d.name);
		exit(1);
	}
}

/* The same for the QP table: the GSI QP holds one entry. */
static void fill_qps(struct side *s)
{
	int max = s->d.attr.max_qp;
	uint64_t t0 = now_us();
	int e = 0;

	s->scq = ibv_create_cq(s->d.ctx, CQ_DEPTH, NULL, NULL, 0);
	s->rcq = ibv_create_cq(s->d.ctx, CQ_DEPTH, NULL, NULL, 0);
	s->qp = calloc(max, sizeof(*s->qp));
	if (!s->scq || !s->rcq || !s->qp)
		vt_die("CQs");
	for (s->nqp = 0; s->nqp < max; s->nqp++) {
		s->qp[s->nqp] = rc_qp_new(&s->d, s->scq, s->rcq, QP_SQ, 1);
		if (!s->qp[s->nqp]) {
			e = errno;
			break;
		}
	}
	printf("%s: %d RC QPs created in %.0f ms (max_qp %d), the next: %s\n",
	       s->d.name, s->nqp, ms_since(t0), max,
	       e ? strerrorname_np(e) : "not tried");
	if (e != ENOSPC || s->nqp < max - 2) {
		printf("FAIL: %s: the QP table did not fill to max_qp with ENOSPC\n",
		       s->d.name);
		exit(1);
	}
}

/* Which of @s's QPs has number @qpn (they are few enough to search). */
static int qp_index(const struct side *s, uint32_t qpn)
{
	int i;

	for (i = 0; i < s->nqp; i++)
		if (s->qp[i]->qp_num == qpn)
			return i;
	return -1;
}

/*
 * Every pair: @from's QP i sends page i of its buffer to @to's QP i, which
 * receives it into page @rx_page + i.  Each arrival is checked against the
 * QP it names and the pattern of @tag.
 */
static void send_all(struct side *from, struct side *to, int rx_page,
		     char tag)
{
	struct ibv_wc wc[NWC];
	int i, j, n, got = 0, sent = 0, idx;
	uint8_t *p;
	bool *seen = calloc(to->nqp, sizeof(*seen));
	uint64_t t0 = now_us();

	if (!seen)
		vt_die("calloc");
	for (i = 0; i < to->nqp; i++)
		post_recv(to->qp[i], i, to->buf + (size_t)(rx_page + i) * PAGE,
			  PAGE, to->mr[rx_page + i]->lkey);
	for (i = 0; i < from->nqp; i++)
		post_send(from->qp[i], i, IBV_WR_SEND,
			  from->buf + (size_t)i * PAGE, MSG,
			  from->mr[i]->lkey, 0, 0);
	while (got < to->nqp) {
		n = poll_some(to->rcq, wc, NWC, "a pair's SEND (receiver)");
		for (j = 0; j < n; j++) {
			idx = qp_index(to, wc[j].qp_num);
			if (idx < 0 || seen[idx] || wc[j].wr_id != (uint64_t)idx ||
			    wc[j].byte_len != MSG) {
				printf("FAIL: %s: a receive on QP %u (wr_id %llu, %u bytes) that no pair sent\n",
				       to->d.name, wc[j].qp_num,
				       (unsigned long long)wc[j].wr_id,
				       wc[j].byte_len);
				exit(1);
			}
			seen[idx] = true;
			p = to->buf + (size_t)(rx_page + idx) * PAGE;
			if (!page_ok(p, idx, MSG, tag)) {
				printf("FAIL: %s: QP %d received wrong data\n",
				       to->d.name, idx);
				exit(1);
			}
			got++;
		}
	}
	while (sent < from->nqp)
		sent += poll_some(from->scq, wc, NWC, "a pair's SEND (sender)");
	printf("%d SENDs %s -> %s, each on its own QP pair, checked in %.0f ms\n",
	       got, from->d.name, to->d.name, ms_since(t0));
	free(seen);
}

/*
 * One RDMA operation per MR, on pair 0, QP_SQ at a time: B's MR i with A's
 * MR i, WRITE for even i, READ for odd i.
 */
static void rdma_all(void)
{
	struct ibv_qp *qp = sb.qp[0];
	struct ibv_wc wc[NWC];
	int i, done = 0, posted = 0, n = sa.nmr, bad = 0;
	uint64_t t0;

	for (i = 0; i < n; i++) {
		if (i % 2)
			fill_page(sa.buf + (size_t)i * PAGE, i, PAGE, 'R');
		else
			fill_page(sb.buf + (size_t)i * PAGE, i, PAGE, 'W');
	}
	t0 = now_us();
	while (done < n) {
		while (posted < n && posted - done < QP_SQ) {
			i = posted++;
			post_send(qp, i, i % 2 ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE,
				  sb.buf + (size_t)i * PAGE, PAGE, sb.mr[i]->lkey,
				  (uintptr_t)sa.buf + (size_t)i * PAGE,
				  sa.mr[i]->rkey);
		}
		done += poll_some(sb.scq, wc, NWC, "an RDMA operation of pair 0");
	}
	for (i = 0; i < n; i++) {
		if (i % 2)
			bad += !page_ok(sb.buf + (size_t)i * PAGE, i, PAGE, 'R');
		else
			bad += !page_ok(sa.buf + (size_t)i * PAGE, i, PAGE, 'W');
	}
	printf("%d RDMA WRITE/READ of 4 KiB, one per MR of each device, in %.0f ms; %d pages wrong\n",
	       n, ms_since(t0), bad);
	if (bad) {
		printf("FAIL: RDMA data\n");
		exit(1);
	}
}

/* QP i of @s to RTS towards QP i of its peer. */
static void connect_side(struct side *s)
{
	int i;

	for (i = 0; i < s->nqp; i++)
		rc_connect(s->qp[i], &s->d, &s->peer->d.gid,
			   s->peer->qp[i]->qp_num, 1);
}

static void side_free(struct side *s)
{
	uint64_t t0 = now_us();
	int i, bad = 0;

	for (i = 0; i < s->nqp; i++)
		bad += ibv_destroy_qp(s->qp[i]) != 0;
	if (ibv_destroy_cq(s->scq) || ibv_destroy_cq(s->rcq))
		bad++;
	printf("%s: %d QPs destroyed in %.0f ms\n", s->d.name, s->nqp,
	       ms_since(t0));
	t0 = now_us();
	for (i = 0; i < s->nmr; i++)
		bad += ibv_dereg_mr(s->mr[i]) != 0;
	printf("%s: %d MRs deregistered in %.0f ms\n", s->d.name, s->nmr,
	       ms_since(t0));
	if (bad) {
		printf("FAIL: %s: %d destroys failed\n", s->d.name, bad);
		exit(1);
	}
	sdev_close(&s->d);
	munmap(s->buf, (size_t)s->d.attr.max_mr * PAGE);
	free(s->mr);
	free(s->qp);
}

/* @fn on one device, then on the other. */
static void both(void (*fn)(struct side *s))
{
	fn(&sa);
	fn(&sb);
}

static int full_main(char **argv)
{
	uint64_t t0;
	int i;

	sdev_open(&sa.d, argv[0], atoi(argv[1]));
	sdev_open(&sb.d, argv[2], atoi(argv[3]));
	sa.peer = &sb;
	sb.peer = &sa;
	both(fill_mrs);
	both(fill_qps);
	if (sa.nqp != sb.nqp || sa.nmr != sb.nmr) {
		printf("FAIL: the devices' tables differ (%d/%d QPs, %d/%d MRs)\n",
		       sa.nqp, sb.nqp, sa.nmr, sb.nmr);
		return 1;
	}
	t0 = now_us();
	both(connect_side);
	printf("%d pairs connected (RESET to RTS) in %.0f ms\n", sa.nqp,
	       ms_since(t0));
	for (i = 0; i < sa.nqp; i++)
		fill_page(sa.buf + (size_t)i * PAGE, i, MSG, 'S');
	send_all(&sa, &sb, 0, 'S');
	/* B echoes what it received back, into pages above A's first ones. */
	send_all(&sb, &sa, sa.nqp, 'S');
	rdma_all();
	both(side_free);
	printf("scale_verbs full: passed\n");
	return 0;
}

static int devs_main(const char *prefix)
{
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_device **list;
	struct ibv_port_attr port;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct sdev d;
	int i, n, found = 0;
	uint64_t t0 = now_us();

	list = ibv_get_device_list(&n);
	if (!list)
		vt_die("ibv_get_device_list");
	for (i = 0; i < n; i++) {
		const char *name = ibv_get_device_name(list[i]);

		if (strncmp(name, prefix, strlen(prefix)))
			continue;
		sdev_open(&d, name, 0);
		if (ibv_query_port(d.ctx, 1, &port))
			vt_die("ibv_query_port");
		if (port.state != IBV_PORT_ACTIVE) {
			printf("FAIL: %s: port 1 is %s\n", name,
			       ibv_port_state_str(port.state));
			return 1;
		}
		cq = ibv_create_cq(d.ctx, 4, NULL, NULL, 0);
		if (!cq)
			vt_die("ibv_create_cq");
		qp = rc_qp_new(&d, cq, cq, 1, 1);
		if (!qp)
			vt_die("ibv_create_qp");
		errno = ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				      IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
		if (errno)
			vt_die("ibv_modify_qp INIT");
		if (ibv_destroy_qp(qp) || ibv_destroy_cq(cq))
			vt_die("destroy");
		sdev_close(&d);
		found++;
	}
	ibv_free_device_list(list);
	printf("devs: %d devices named %s* opened, each with a QP in INIT, in %.0f ms\n",
	       found, prefix, ms_since(t0));
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 6 && !strcmp(argv[1], "full"))
		return full_main(argv + 2);
	if (argc == 3 && !strcmp(argv[1], "devs"))
		return devs_main(argv[2]);
	fprintf(stderr, "usage: %s full DEV_A GIDX_A DEV_B GIDX_B\n"
		"       %s devs PREFIX\n", argv[0], argv[0]);
	return 2;
}
