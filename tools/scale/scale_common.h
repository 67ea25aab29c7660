/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * What scale_verbs and lat_probe share beyond tools/lib/vt: a device with
 * its PD and GID, RC QPs brought to RTS towards a peer, posts, bounded
 * completion waits and a microsecond clock (the ping-pong's iterations
 * take less than a millisecond on the perf kernel).
 */
#ifndef SCALE_COMMON_H
#define SCALE_COMMON_H

#define _GNU_SOURCE
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

/* Every wait for a completion is bounded by this. */
#define WAIT_MS		10000

struct sdev {
	const char *name;
	int gidx;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	union ibv_gid gid;
};

static inline void __attribute__((noreturn))
die_wc(const char *what, const struct ibv_wc *wc)
{
	printf("FAIL: %s: completion %s (wr_id %llu, qp %u)\n", what,
	       ibv_wc_status_str(wc->status), (unsigned long long)wc->wr_id,
	       wc->qp_num);
	exit(1);
}

static inline uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static inline void sdev_open(struct sdev *d, const char *name, int gidx)
{
	d->name = name;
	d->gidx = gidx;
	d->ctx = vt_open_device(name);
	if (ibv_query_device(d->ctx, &d->attr))
		vt_die("ibv_query_device");
	if (ibv_query_gid(d->ctx, 1, gidx, &d->gid))
		vt_die("ibv_query_gid");
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd)
		vt_die("ibv_alloc_pd");
}

static inline void sdev_close(struct sdev *d)
{
	if (ibv_dealloc_pd(d->pd) || ibv_close_device(d->ctx))
		vt_die("closing a device");
}

static inline struct ibv_qp *rc_qp_new(struct sdev *d, struct ibv_cq *scq,
				       struct ibv_cq *rcq, uint32_t sq,
				       uint32_t rq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = scq,
		.recv_cq = rcq,
		.cap = {
			.max_send_wr = sq,
			.max_recv_wr = rq,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(d->pd, &a);
}

/*
 * RESET to RTS towards @dqpn at @peer's GID, every remote right granted.
 * @rnr_timer is the receiver's RNR NAK delay (IB encoding: 1 is 0.01 ms,
 * 31 is 491 ms); the sender retries RNR for ever.
 */
static inline void rc_connect(struct ibv_qp *qp, const struct sdev *self,
			      const union ibv_gid *peer, uint32_t dqpn,
			      uint8_t rnr_timer)
{
	struct vt_conn c = {
		.dgid = *peer,
		.sgid_index = self->gidx,
		.dqpn = dqpn,
		.psn = 0x100,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ,
		.min_rnr_timer = rnr_timer,
	};

	vt_qp_connect(qp, &c);
}

/* @x on @dx and @y on @dy connected to each other; @y's RNR delay as above. */
static inline void rc_pair(struct ibv_qp *x, const struct sdev *dx,
			   struct ibv_qp *y, const struct sdev *dy,
			   uint8_t y_rnr_timer)
{
	rc_connect(x, dx, &dy->gid, y->qp_num, 1);
	rc_connect(y, dy, &dx->gid, x->qp_num, y_rnr_timer);
}

static inline void post_recv(struct ibv_qp *qp, uint64_t id, void *addr,
			     uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	errno = ibv_post_recv(qp, &wr, &bad);
	if (errno)
		vt_die("ibv_post_recv");
}

/* A signaled SEND, or RDMA WRITE/READ when @rkey is non-zero. */
static inline void post_send(struct ibv_qp *qp, uint64_t id,
			     enum ibv_wr_opcode op, void *addr, uint32_t len,
			     uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	errno = ibv_post_send(qp, &wr, &bad);
	if (errno)
		vt_die("ibv_post_send");
}

/*
 * Up to @max completions of @cq into @wc within WAIT_MS; dies on none or
 * on a failed one.  Returns how many.
 */
static inline int poll_some(struct ibv_cq *cq, struct ibv_wc *wc, int max,
			    const char *what)
{
	uint64_t end = now_us() + WAIT_MS * 1000ULL;
	int n, i;

	do {
		n = ibv_poll_cq(cq, max, wc);
		if (n < 0)
			vt_die("ibv_poll_cq");
	} while (!n && now_us() < end);
	if (!n) {
		printf("FAIL: %s: no completion in %d ms\n", what, WAIT_MS);
		exit(1);
	}
	for (i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS)
			die_wc(what, &wc[i]);
	return n;
}

#endif /* SCALE_COMMON_H */
