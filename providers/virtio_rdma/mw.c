// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * Memory windows: allocation through the kernel, binding through the SQ.
 * ibv_bind_mw (type 1) posts the same BIND_MW work request that
 * IBV_WR_BIND_MW and ibv_wr_bind_mw post for type 2 windows; the device
 * keeps every window's state and applies the binding rules.
 */
#include <errno.h>
#include <stdlib.h>

#include "vru.h"

struct ibv_mw *vru_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int err;

	if (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2) {
		errno = EINVAL;
		return NULL;
	}
	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;
	err = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (err) {
		free(mw);
		errno = err;
		return NULL;
	}
	return mw;
}

int vru_dealloc_mw(struct ibv_mw *mw)
{
	int err;

	err = ibv_cmd_dealloc_mw(mw);
	if (err)
		return err;
	free(mw);
	return 0;
}

/*
 * The new rkey keeps the window's index and takes the next key byte; as
 * with rxe, mw->rkey changes when the bind is posted, and a bind that then
 * completes in error leaves the window under its old key.
 */
int vru_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {}, *bad_wr;
	int err;

	if (mw->type != IBV_MW_TYPE_1 ||
	    (mw_bind->bind_info.mw_access_flags & IBV_ACCESS_ZERO_BASED))
		return EINVAL;
	wr.wr_id = mw_bind->wr_id;
	wr.send_flags = mw_bind->send_flags;
	wr.opcode = IBV_WR_BIND_MW;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	err = vru_post_sends(qp, &wr, &bad_wr, true);
	if (!err)
		mw->rkey = wr.bind_mw.rkey;
	return err;
}
