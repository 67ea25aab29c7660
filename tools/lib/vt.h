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

/* The device called @name, opened; exits if there is none. */
struct ibv_context *vt_open_device(const char *name);

/*
 * Where a QP connects to and how: what RESET -> INIT -> RTR -> RTS needs.
 * RC and UC take the address vector, path MTU 1024 and @psn both ways; RC
 * also one outstanding read/atomic each way, retry_cnt and rnr_retry 7 and
 * the ACK @timeout (14, ~67 ms, unless set: a lost packet then costs a
 * fraction of a second, not minutes); UD takes @qkey only.
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
};

/* Brings @qp from RESET to RTS; exits on a failed transition. */
void vt_qp_connect(struct ibv_qp *qp, const struct vt_conn *c);

#endif /* VT_H */
