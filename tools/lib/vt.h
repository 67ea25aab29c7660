/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * What the project's libibverbs test programs (tools/users, tools/srq-check,
 * tools/cq-resize, tools/hostile, tools/fuzz, ...) share: checks that count
 * and print "ok:" or "FAIL:" lines for the scenarios, time, a device by
 * name, and bringing a QP from RESET to RTS.  Built into each program
 * (tools/lib/vt.mk); plain verbs only.
 */
#ifndef VT_H
#define VT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/* Checks made and failed by vt_check(), for the program's summary. */
extern int vt_checks;
extern int vt_failures;

/* Prints "ok: ..." or "FAIL: ..." and counts it. */
void vt_check(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "FAIL: @what: strerror(errno)", then exit(1): setup that must work. */
void vt_die(const char *what) __attribute__((noreturn));
/* errno's symbolic name ("ENOMEM"), for messages that a scenario matches. */
const char *vt_errname(int e);

uint64_t vt_now_ms(void);
void vt_sleep_us(unsigned int us);

/*
 * The device called @name; exits if there is none.  Its device list is
 * kept for good: it owns the device.
 */
struct ibv_device *vt_find_device(const char *name);
/*
 * Receives for slots [first, first + n) of @buf, each @slot bytes of
 * @mr, to @srq, or to @qp's receive queue when @srq is NULL, each with its
 * slot number as wr_id: 0 or the errno of ibv_post_srq_recv() or
 * ibv_post_recv().
 */
int vt_post_slots(struct ibv_qp *qp, struct ibv_srq *srq, uint8_t *buf,
		  struct ibv_mr *mr, size_t slot, unsigned int first,
		  unsigned int n);

/* The device called @name, opened; exits if there is none. */
struct ibv_context *vt_open_device(const char *name);

/* A device as the two-device checks use it: a PD, one CQ, the GID at gidx. */
struct vt_dev {
	const char *name;
	int gidx;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	union ibv_gid gid;
};

/*
 * From the command line PROG DEV_X GIDX_X DEV_Y GIDX_Y: @x and @y opened
 * with CQs of @cqe entries; exits with status 2 and @usage (its %s is the
 * program's name) on another number of arguments.
 */
void vt_dev_args(int argc, char **argv, const char *usage, int cqe,
		 struct vt_dev *x, struct vt_dev *y);

/*
 * Where a QP connects to and how: what RESET -> INIT -> RTR -> RTS needs.
 * RC and UC take the address vector, path MTU 1024 and @psn both ways; RC
 * also one outstanding read/atomic each way and the fields below, whose 0
 * stands for a default (XRC_SEND those of a requester, XRC_RECV those of a
 * responder, as ibv_modify_qp wants them): an ACK @timeout of 14 (~67 ms: a lost packet costs
 * a fraction of a second, not minutes), 7 retries of each kind.  UD takes
 * @qkey and @psn only.
 */
struct vt_conn {
	union ibv_gid dgid;
	uint8_t sgid_index;
	uint32_t dqpn;
	uint32_t psn;
	uint32_t qkey;
	unsigned int access;	/* RC/UC qp_access_flags */
	uint8_t timeout;	/* RC; 0: 14 */
	uint8_t min_rnr_timer;	/* RC; 0: 1 (0.01 ms) */
	uint8_t retry_cnt;	/* RC; 0: 7 */
	uint8_t rnr_retry;	/* RC; 0: 7 (for ever) */
};

/*
 * One transition of @qp to @to (INIT, RTR, RTS with what @c gives; any
 * other state with the state alone): 0 or the errno of ibv_modify_qp().
 */
int vt_qp_modify(struct ibv_qp *qp, const struct vt_conn *c,
		 enum ibv_qp_state to);
/* Brings @qp from RESET to RTS; exits on a failed transition. */
void vt_qp_connect(struct ibv_qp *qp, const struct vt_conn *c);

/*
 * The victim: a process of its own, with an MR that grants every access
 * right in its own PD, that programs attacking a device check against
 * (tools/hostile, tools/fuzz).  vt_victim_main() opens @devname before the
 * attacker opens any device (no verbs state is shared across the fork),
 * fills its MR with vt_victim_pattern(), writes a struct vt_victim to
 * @out_fd, waits for a byte or EOF on @in_fd (the attacker may have been
 * killed), then checks the pattern.  Returns the exit status: 0 intact,
 * 1 changed, 2 could not set up.
 */
#define VT_VICTIM_LEN	(64 * 1024)

struct vt_victim {
	uint32_t lkey;
	uint32_t rkey;
	uint64_t addr;
	uint64_t len;
};

uint8_t vt_victim_pattern(size_t i);
int vt_victim_main(const char *devname, int out_fd, int in_fd);

#endif /* VT_H */
