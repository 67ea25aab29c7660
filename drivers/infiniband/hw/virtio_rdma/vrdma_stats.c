// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Copyright (c) 2026 The virtio-rdma authors */
/*
 * virtio-rdma hardware counters ("rdma statistic show link DEV/1"): the
 * device's (QUERY_STATS), then the driver's own.
 */

#include "vrdma.h"

/* What the driver rejected from the device (vrdma_dev_err()). */
#define VRDMA_STAT_DEV_ERRORS	VIRTIO_RDMA_NUM_STATS

/*
 * Indexed by VIRTIO_RDMA_STAT_* and VRDMA_STAT_*; names follow rxe/mlx5
 * where one exists.
 */
static const struct rdma_stat_desc vrdma_stat_descs[] = {
	[VIRTIO_RDMA_STAT_TX_PACKETS] = { .name = "sent_pkts" },
	[VIRTIO_RDMA_STAT_TX_BYTES] = { .name = "sent_bytes" },
	[VIRTIO_RDMA_STAT_RX_PACKETS] = { .name = "rcvd_pkts" },
	[VIRTIO_RDMA_STAT_RX_BYTES] = { .name = "rcvd_bytes" },
	[VIRTIO_RDMA_STAT_RX_DROPPED] = { .name = "rcvd_dropped" },
	[VIRTIO_RDMA_STAT_ICRC_ERRORS] = { .name = "rcvd_icrc_errors" },
	[VIRTIO_RDMA_STAT_RETRANSMITS] = { .name = "retransmits" },
	[VIRTIO_RDMA_STAT_RETRY_EXCEEDED] = { .name = "retry_exceeded_err" },
	[VIRTIO_RDMA_STAT_RNR_NAK_RCVD] = { .name = "rcvd_rnr_err" },
	[VIRTIO_RDMA_STAT_RNR_NAK_SENT] = { .name = "send_rnr_err" },
	[VIRTIO_RDMA_STAT_SEQ_NAK_RCVD] = { .name = "rcvd_seq_err" },
	[VIRTIO_RDMA_STAT_SEQ_NAK_SENT] = { .name = "send_seq_err" },
	[VIRTIO_RDMA_STAT_DUPLICATE_REQ] = { .name = "duplicate_request" },
	[VIRTIO_RDMA_STAT_ACK_TIMEOUTS] = { .name = "ack_timeouts" },
	[VIRTIO_RDMA_STAT_CMD_ERRORS] = { .name = "cmd_errors" },
	[VIRTIO_RDMA_STAT_BAD_WQE] = { .name = "bad_wqes" },
	[VIRTIO_RDMA_STAT_DOORBELLS] = { .name = "doorbells" },
	[VIRTIO_RDMA_STAT_EVENTS] = { .name = "events" },
	[VRDMA_STAT_DEV_ERRORS] = { .name = "device_errors" },
};

static_assert(ARRAY_SIZE(vrdma_stat_descs) == VIRTIO_RDMA_NUM_STATS + 1);

struct rdma_hw_stats *vrdma_alloc_hw_port_stats(struct ib_device *ib, u32 port)
{
	return rdma_alloc_hw_stats_struct(vrdma_stat_descs,
					  ARRAY_SIZE(vrdma_stat_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int vrdma_get_hw_stats(struct ib_device *ib, struct rdma_hw_stats *stats,
		       u32 port, int index)
{
	struct virtio_rdma_query_stats_resp *r;
	unsigned int i, n;
	int err;

	if (!port)
		return -EINVAL;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	err = vrdma_cmd(to_vdev(ib), VIRTIO_RDMA_CMD_QUERY_STATS, NULL, 0, r,
			sizeof(*r));
	/*
	 * A broken device answers no command; what the driver rejected from
	 * it is then the one count that matters, with the device's at 0.
	 */
	if (err == -EIO && READ_ONCE(to_vdev(ib)->broken)) {
		memset(r, 0, sizeof(*r));
		err = 0;
	}
	if (err)
		goto out;
	/* Counters this driver does not know are ignored, as the spec asks. */
	n = min_t(u32, le32_to_cpu(r->num_counters), VIRTIO_RDMA_NUM_STATS);
	n = min_t(u32, n, VIRTIO_RDMA_MAX_STATS);
	for (i = 0; i < n; i++)
		stats->value[i] = le64_to_cpu(r->counters[i]);
	for (; i < VIRTIO_RDMA_NUM_STATS; i++)
		stats->value[i] = 0;
	stats->value[VRDMA_STAT_DEV_ERRORS] =
		atomic_read(&to_vdev(ib)->dev_errors);
	err = stats->num_counters;
out:
	kfree(r);
	return err;
}
