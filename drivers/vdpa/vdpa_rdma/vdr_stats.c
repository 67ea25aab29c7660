// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The virtio-rdma authors */
/* vdpa_rdma: QUERY_STATS. */
#include "vdpa_rdma.h"

void vdr_cmd_query_stats(struct vdr_dev *dev)
{
	struct virtio_rdma_query_stats_resp *r = &dev->resp.query_stats;
	int i;

	BUILD_BUG_ON(VIRTIO_RDMA_NUM_STATS > VIRTIO_RDMA_MAX_STATS);

	r->num_counters = cpu_to_le32(VIRTIO_RDMA_NUM_STATS);
	for (i = 0; i < VIRTIO_RDMA_NUM_STATS; i++)
		r->counters[i] = cpu_to_le64(atomic64_read(&dev->stats[i]));
}
