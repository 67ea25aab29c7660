/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (c) 2026 The virtio-rdma authors */
/* vdpa_rdma: the QP state machine, a pure function KUnit checks. */
#ifndef _VDPA_RDMA_QP_STATE_H
#define _VDPA_RDMA_QP_STATE_H

#include <linux/types.h>

bool vdr_qp_transition_masks(u8 cur, u8 next, u8 type, u32 *req, u32 *opt);
bool vdr_qp_transition_ok(u8 cur, u8 next, u8 type, u32 mask);

#endif /* _VDPA_RDMA_QP_STATE_H */
