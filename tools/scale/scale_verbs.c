// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * scale_verbs: the device limits reached and used (scenario scale).
 *
 *   scale_verbs full DEV_A GIDX_A DEV_B GIDX_B
 *	On both devices RC QPs until the QP table is full, on A also one-page
 *	MRs until the MR table is full (each must stop with ENOSPC within a
 *	few entries of max_qp and max_mr: the GSI QP and the kernel's own PDs
 *	hold the rest); B registers its whole buffer as one MR.  QP i of A is
 *	connected to QP i of B and every pair carries a SEND each way; then
 *	pair 0 runs one RDMA operation per MR of A, each MR in one of four
 *	roles: the target of B's WRITE or the source of B's READ (by its
 *	rkey), the source of A's WRITE or the target of A's READ (by its
 *	lkey).  Filling, connecting and destroying run in several threads
 *	at once (run_jobs).  All data is checked, everything destroyed, the
 *	time of each phase printed.
 *
 *   scale_verbs devs DEV...
 *	Every DEV, two threads at once: open, query, a PD, a CQ and an RC QP
 *	brought to INIT, all destroyed.  Prints the count.
 *
 * Exits 0 when everything worked, 1 otherwise (a line "FAIL: ..." says
 * what).
 */
#include "scale_common.h"

#include <pthread.h>
#include <sys/mman.h>

#define PAGE		4096
#define MSG		256	/* each pair's SEND */
/*
 * Pair 0 keeps this many RDMA operations going on each side, posted
 * RDMA_BATCH to a call (one doorbell): the other QPs carry one SEND.
 */
#define RDMA_SQ		1024
#define RDMA_BATCH	256
#define CQ_DEPTH	2048	/* more than max_qp completions of one kind */
#define NWC		64

struct side {
	struct sdev d;
	struct side *peer;
	uint8_t *buf;		/* max_mr pages, page i registered as mr[i] */
	struct ibv_mr **mr;	/* or, with one_mr, mr[0] for all of buf */
	int nmr;
	bool one_mr;
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

static uint8_t *page_of(const struct side *s, int page)
{
	return s->buf + (size_t)page * PAGE;
}

static struct ibv_mr *mr_of(const struct side *s, int page)
{
	return s->mr[s->one_mr ? 0 : page];
}

static void buf_alloc(struct side *s)
{
	int max = s->d.attr.max_mr;

	s->buf = mmap(NULL, (size_t)max * PAGE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	s->mr = calloc(max, sizeof(*s->mr));
	if (s->buf == MAP_FAILED || !s->mr)
		vt_die("buffers");
}

/* B's side: the MR table of one device filled shows the limit. */
static void one_mr(struct side *s)
{
	buf_alloc(s);
	s->one_mr = true;
	s->mr[0] = ibv_reg_mr(s->d.pd, s->buf, (size_t)s->d.attr.max_mr * PAGE,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			      IBV_ACCESS_REMOTE_READ);
	if (!s->mr[0])
		vt_die("ibv_reg_mr of the whole buffer");
	s->nmr = 1;
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

	buf_alloc(s);
	for (s->nmr = 0; s->nmr < max; s->nmr++) {
		s->mr[s->nmr] = ibv_reg_mr(s->d.pd, page_of(s, s->nmr), PAGE,
					   IBV_ACCESS_LOCAL_WRITE |
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

/*
 * The same for the QP table: the GSI QP holds one entry.  QP 0 has room for
 * the RDMA operations.
 */
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
		s->qp[s->nqp] = rc_qp_new(&s->d, s->scq, s->rcq,
					  s->nqp ? 1 : RDMA_SQ, 1);
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
		post_recv(to->qp[i], i, page_of(to, rx_page + i), PAGE,
			  mr_of(to, rx_page + i)->lkey);
	for (i = 0; i < from->nqp; i++)
		post_send(from->qp[i], i, IBV_WR_SEND, page_of(from, i), MSG,
			  mr_of(from, i)->lkey, 0, 0);
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
			p = page_of(to, rx_page + idx);
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
 * Operation i uses page i of both sides and A's MR i in role i % 4: 0 and 1
 * are B's (a WRITE into it, a READ of it, by its rkey), 2 and 3 A's (a WRITE
 * from it, a READ into it, by its lkey).  Even i WRITE, odd i READ.
 */
static bool posts_op(const struct side *s, int i)
{
	return (i % 4 < 2) == (s == &sb);
}

/* The side whose page i an operation reads. */
static struct side *src_of(int i)
{
	return i % 4 == 1 || i % 4 == 2 ? &sa : &sb;
}

/* Up to @room of @s's operations from *@next on, linked in one post. */
static int post_rdma(struct side *s, int *next, int room)
{
	struct ibv_send_wr wr[RDMA_BATCH], *bad;
	struct ibv_sge sge[RDMA_BATCH];
	struct side *p = s->peer;
	int i, k = 0;

	if (room > RDMA_BATCH)
		room = RDMA_BATCH;
	for (i = *next; i < sa.nmr && k < room; i++) {
		if (!posts_op(s, i))
			continue;
		sge[k] = (struct ibv_sge){
			.addr = (uintptr_t)page_of(s, i),
			.length = PAGE,
			.lkey = mr_of(s, i)->lkey,
		};
		wr[k] = (struct ibv_send_wr){
			.wr_id = i,
			.sg_list = &sge[k],
			.num_sge = 1,
			.opcode = i % 2 ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
		};
		wr[k].wr.rdma.remote_addr = (uintptr_t)page_of(p, i);
		wr[k].wr.rdma.rkey = mr_of(p, i)->rkey;
		if (k)
			wr[k - 1].next = &wr[k];
		k++;
	}
	*next = i;
	if (k) {
		errno = ibv_post_send(s->qp[0], wr, &bad);
		if (errno)
			vt_die("ibv_post_send (RDMA)");
	}
	return k;
}

/* One RDMA operation per MR of A on pair 0, from both ends at once. */
static void rdma_all(void)
{
	struct side *s[2] = { &sa, &sb };
	int next[2] = { 0, 0 }, out[2] = { 0, 0 };
	struct ibv_wc wc[NWC];
	int i, k, n = sa.nmr, done = 0, bad = 0;
	uint64_t t0;

	for (i = 0; i < n; i++) {
		fill_page(page_of(src_of(i), i), i, PAGE, 'D');
		memset(page_of(src_of(i)->peer, i), 0, PAGE);
	}
	t0 = now_us();
	while (done < n) {
		for (k = 0; k < 2; k++) {
			if (RDMA_SQ - out[k] >= RDMA_BATCH)
				out[k] += post_rdma(s[k], &next[k],
						    RDMA_SQ - out[k]);
			if (out[k]) {
				i = poll_some(s[k]->scq, wc, NWC,
					      "an RDMA operation of pair 0");
				out[k] -= i;
				done += i;
			}
		}
	}
	for (i = 0; i < n; i++)
		bad += !page_ok(page_of(src_of(i)->peer, i), i, PAGE, 'D');
	printf("%d RDMA WRITE/READ of 4 KiB, one per MR of %s (rkey or lkey), in %.0f ms; %d pages wrong\n",
	       n, sa.d.name, ms_since(t0), bad);
	if (bad) {
		printf("FAIL: RDMA data\n");
		exit(1);
	}
}

/* QP i of @s to RTS towards QP i of its peer, for i in [@lo, @hi). */
static void connect_range(struct side *s, int lo, int hi)
{
	int i;

	for (i = lo; i < hi; i++)
		rc_connect(s->qp[i], &s->d, &s->peer->d.gid,
			   s->peer->qp[i]->qp_num, 1);
}

/* Each half of a side's QPs a job: more commands in flight at once. */
static void connect_lo(struct side *s)
{
	connect_range(s, 0, s->nqp / 2);
}

static void connect_hi(struct side *s)
{
	connect_range(s, s->nqp / 2, s->nqp);
}

static void qps_free_range(struct side *s, int lo, int hi)
{
	uint64_t t0 = now_us();
	int i, bad = 0;

	for (i = lo; i < hi; i++)
		bad += ibv_destroy_qp(s->qp[i]) != 0;
	printf("%s: QPs %d to %d destroyed in %.0f ms\n", s->d.name, lo,
	       hi - 1, ms_since(t0));
	if (bad) {
		printf("FAIL: %s: %d QP destroys failed\n", s->d.name, bad);
		exit(1);
	}
}

static void qps_free_lo(struct side *s)
{
	qps_free_range(s, 0, s->nqp / 2);
}

static void qps_free_hi(struct side *s)
{
	qps_free_range(s, s->nqp / 2, s->nqp);
}

/* After its QPs. */
static void cqs_free(struct side *s)
{
	if (ibv_destroy_cq(s->scq) || ibv_destroy_cq(s->rcq)) {
		printf("FAIL: %s: a CQ destroy failed\n", s->d.name);
		exit(1);
	}
	free(s->qp);
}

static void mrs_free(struct side *s)
{
	uint64_t t0 = now_us();
	int i, bad = 0;

	for (i = 0; i < s->nmr; i++)
		bad += ibv_dereg_mr(s->mr[i]) != 0;
	printf("%s: %d MRs deregistered in %.0f ms\n", s->d.name, s->nmr,
	       ms_since(t0));
	if (bad) {
		printf("FAIL: %s: %d MR deregistrations failed\n", s->d.name, bad);
		exit(1);
	}
	munmap(s->buf, (size_t)s->d.attr.max_mr * PAGE);
	free(s->mr);
}

/* B's one MR, then its QP table (A's MR table is the same code and size). */
static void fill_b(struct side *s)
{
	one_mr(s);
	fill_qps(s);
}

struct job {
	void (*fn)(struct side *s);
	struct side *s;
};

static void *job_run(void *arg)
{
	struct job *j = arg;

	j->fn(j->s);
	return NULL;
}

/*
 * @n jobs at once, a thread each: each device has its own control queue and
 * worker, and a command's caller and the worker running it overlap other
 * commands' (the objects of one job are not another's).
 */
static void run_jobs(struct job *j, int n)
{
	pthread_t t[8];
	int i;

	for (i = 1; i < n; i++) {
		errno = pthread_create(&t[i], NULL, job_run, &j[i]);
		if (errno)
			vt_die("pthread_create");
	}
	j[0].fn(j[0].s);
	for (i = 1; i < n; i++) {
		errno = pthread_join(t[i], NULL);
		if (errno)
			vt_die("pthread_join");
	}
}

static int full_main(char **argv)
{
	uint64_t t0;
	int i;

	sdev_open(&sa.d, argv[0], atoi(argv[1]));
	sdev_open(&sb.d, argv[2], atoi(argv[3]));
	sa.peer = &sb;
	sb.peer = &sa;
	t0 = now_us();
	run_jobs((struct job[]){ { fill_mrs, &sa }, { fill_qps, &sa },
				 { fill_b, &sb } }, 3);
	printf("tables filled in %.0f ms\n", ms_since(t0));
	if (sa.nqp != sb.nqp) {
		printf("FAIL: the devices' QP tables differ (%d/%d QPs)\n",
		       sa.nqp, sb.nqp);
		return 1;
	}
	t0 = now_us();
	run_jobs((struct job[]){ { connect_lo, &sa }, { connect_hi, &sa },
				 { connect_lo, &sb }, { connect_hi, &sb } }, 4);
	printf("%d pairs connected (RESET to RTS) in %.0f ms\n", sa.nqp,
	       ms_since(t0));
	for (i = 0; i < sa.nqp; i++)
		fill_page(page_of(&sa, i), i, MSG, 'S');
	send_all(&sa, &sb, 0, 'S');
	/* B echoes what it received back, into pages above A's first ones. */
	send_all(&sb, &sa, sa.nqp, 'S');
	rdma_all();
	t0 = now_us();
	run_jobs((struct job[]){ { mrs_free, &sa }, { qps_free_lo, &sa },
				 { qps_free_hi, &sa }, { qps_free_lo, &sb },
				 { qps_free_hi, &sb } }, 5);
	cqs_free(&sa);
	cqs_free(&sb);
	mrs_free(&sb);
	sdev_close(&sa.d);
	sdev_close(&sb.d);
	printf("both sides freed in %.0f ms\n", ms_since(t0));
	printf("scale_verbs full: passed\n");
	return 0;
}

/*
 * Device @dev: open, port ACTIVE, a PD, a CQ and a QP in INIT, all destroyed.
 * Opened from the one device list: a list per device would read sysfs for
 * every device again each time.
 */
static void dev_check(struct ibv_device *dev)
{
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_port_attr port;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct sdev d = { .name = ibv_get_device_name(dev) };

	d.ctx = ibv_open_device(dev);
	if (!d.ctx)
		vt_die("ibv_open_device");
	if (ibv_query_device(d.ctx, &d.attr) || ibv_query_port(d.ctx, 1, &port))
		vt_die("ibv_query_device/port");
	if (port.state != IBV_PORT_ACTIVE) {
		printf("FAIL: %s: port 1 is %s\n", d.name,
		       ibv_port_state_str(port.state));
		exit(1);
	}
	d.pd = ibv_alloc_pd(d.ctx);
	cq = ibv_create_cq(d.ctx, 4, NULL, NULL, 0);
	if (!d.pd || !cq)
		vt_die("ibv_alloc_pd/ibv_create_cq");
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
}

struct devs {
	struct ibv_device **dev;
	int n, first;
};

/* Every other device of @arg's, from its first. */
static void *devs_run(void *arg)
{
	struct devs *ds = arg;
	int i;

	for (i = ds->first; i < ds->n; i += 2)
		dev_check(ds->dev[i]);
	return NULL;
}

/* Two threads: the devices are independent and the guest has two CPUs. */
static int devs_main(int n, char **names)
{
	struct ibv_device **list, **dev;
	struct devs ds[2];
	int i, j, nl;
	uint64_t t0 = now_us();
	pthread_t t;

	list = ibv_get_device_list(&nl);
	dev = calloc(n, sizeof(*dev));
	if (!list || !dev)
		vt_die("ibv_get_device_list");
	for (i = 0; i < n; i++) {
		for (j = 0; j < nl; j++)
			if (!strcmp(ibv_get_device_name(list[j]), names[i]))
				dev[i] = list[j];
		if (!dev[i]) {
			printf("FAIL: libibverbs does not list %s\n", names[i]);
			return 1;
		}
	}
	for (i = 0; i < 2; i++)
		ds[i] = (struct devs){ .dev = dev, .n = n, .first = i };
	errno = pthread_create(&t, NULL, devs_run, &ds[0]);
	if (errno)
		vt_die("pthread_create");
	devs_run(&ds[1]);
	errno = pthread_join(t, NULL);
	if (errno)
		vt_die("pthread_join");
	ibv_free_device_list(list);
	free(dev);
	printf("devs: %d devices opened, each with a QP in INIT, in %.0f ms\n",
	       n, ms_since(t0));
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 6 && !strcmp(argv[1], "full"))
		return full_main(argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "devs"))
		return devs_main(argc - 2, argv + 2);
	fprintf(stderr, "usage: %s full DEV_A GIDX_A DEV_B GIDX_B\n"
		"       %s devs DEV...\n", argv[0], argv[0]);
	return 2;
}
