// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma control queue.
 *
 * Commands are submitted from sleeping context only.  The verbs consumers
 * may call under a lock never need one: AHs are driver objects and
 * query_port answers from the probe-time QUERY_PORT plus the netdev.  Busy
 * polling instead would be wrong twice over: a kernel without preempt
 * count cannot tell a caller holding a spinlock, and a software device
 * (vdpa_rdma) may need the spinning CPU to run its worker.
 *
 * Several commands may be in flight; the device executes them one at a
 * time in order.  A command that the device never completes must not hang
 * the kernel: after cmd_timeout_ms the device is marked broken and every
 * later command fails with -EIO.  A timed-out command is abandoned: its
 * buffers stay with the device until it completes the command or is reset.
 */

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "vrdma.h"

static unsigned int cmd_timeout_ms = 20000;
module_param(cmd_timeout_ms, uint, 0644);
MODULE_PARM_DESC(cmd_timeout_ms,
		 "Control command timeout in ms; the device is marked broken after it");

struct vrdma_cmd {
	struct completion done;
	struct list_head node;		/* dev->orphans after a timeout */
	void *buf;			/* driver-readable part, then device-writable */
	u32 used;
	bool completed;			/* under ctrl_lock */
	bool abandoned;			/* on dev->orphans; freed when used */
};

static void vrdma_cmd_free(struct vrdma_cmd *cmd)
{
	kfree(cmd->buf);
	kfree(cmd);
}

/* Caller holds ctrl_lock. */
static void vrdma_ctrl_reap(struct vrdma_dev *dev)
{
	struct vrdma_cmd *cmd;
	unsigned int len;

	while ((cmd = virtqueue_get_buf(dev->ctrlq, &len))) {
		if (cmd->abandoned) {
			list_del(&cmd->node);
			vrdma_cmd_free(cmd);
			continue;
		}
		cmd->used = len;
		cmd->completed = true;
		complete(&cmd->done);
	}
}

void vrdma_ctrlq_done(struct virtqueue *vq)
{
	struct vrdma_dev *dev = vq->vdev->priv;
	unsigned long flags;

	if (!dev)
		return;
	spin_lock_irqsave(&dev->ctrl_lock, flags);
	vrdma_ctrl_reap(dev);
	spin_unlock_irqrestore(&dev->ctrl_lock, flags);
}

void vrdma_mark_broken(struct vrdma_dev *dev, const char *why)
{
	unsigned long flags;
	bool was;

	spin_lock_irqsave(&dev->ctrl_lock, flags);
	was = dev->broken;
	dev->broken = true;
	spin_unlock_irqrestore(&dev->ctrl_lock, flags);
	if (!was)
		dev_err(&dev->vdev->dev, "device marked broken: %s\n", why);
}

/*
 * A destroy must not fail for want of memory: ib_core does not let a
 * kernel object's destroy fail ("Destroy of kernel CQ shouldn't fail": it
 * leaks, with its CQs and PD, on device removal), and a process's objects
 * are destroyed at its exit under the same rule.  A destroy command's
 * buffers are a few dozen bytes: allocated without failing.
 */
#define VRDMA_CMD_NOFAIL_MAX	256

static gfp_t vrdma_cmd_gfp(u32 cmd, size_t len)
{
	if (len > VRDMA_CMD_NOFAIL_MAX)
		return GFP_KERNEL;
	switch (cmd) {
	case VIRTIO_RDMA_CMD_DESTROY_PD:
	case VIRTIO_RDMA_CMD_DESTROY_CQ:
	case VIRTIO_RDMA_CMD_DESTROY_QP:
	case VIRTIO_RDMA_CMD_DESTROY_SRQ:
	case VIRTIO_RDMA_CMD_DEREG_MR:
		return GFP_KERNEL | __GFP_NOFAIL;
	default:
		return GFP_KERNEL;
	}
}

/*
 * Submit one command chain: out_len driver-readable bytes (header included)
 * and in_len device-writable bytes.  On return *used is the length the
 * device reported; the device-writable bytes are copied to @in.  The
 * status is not interpreted here.
 */
int vrdma_cmd_raw(struct vrdma_dev *dev, const void *out, size_t out_len,
		  void *in, size_t in_len, u32 *used)
{
	struct scatterlist out_sg, in_sg, *sgs[2];
	unsigned int nout = 0, nin = 0;
	const struct virtio_rdma_cmd_hdr *hdr = out;
	unsigned long flags;
	struct vrdma_cmd *cmd;
	size_t in_off;
	ktime_t deadline;
	gfp_t gfp;
	int err;

	might_sleep();
	if (!out_len && !in_len)
		return -EINVAL;
	/* Keep the device-writable part off the cache lines the CPU writes. */
	in_off = ALIGN(out_len, dma_get_cache_alignment());
	gfp = vrdma_cmd_gfp(out_len >= sizeof(*hdr) ? le32_to_cpu(hdr->cmd) : 0,
			    in_off + in_len);

	cmd = kzalloc(sizeof(*cmd), gfp);
	if (!cmd)
		return -ENOMEM;
	init_completion(&cmd->done);
	INIT_LIST_HEAD(&cmd->node);

	cmd->buf = kzalloc(in_off + in_len, gfp);
	if (!cmd->buf) {
		kfree(cmd);
		return -ENOMEM;
	}
	memcpy(cmd->buf, out, out_len);
	if (out_len) {
		sg_init_one(&out_sg, cmd->buf, out_len);
		sgs[nout++] = &out_sg;
	}
	if (in_len) {
		sg_init_one(&in_sg, cmd->buf + in_off, in_len);
		sgs[nout + nin++] = &in_sg;
	}

	deadline = ktime_add_ms(ktime_get(), cmd_timeout_ms);

	for (;;) {
		spin_lock_irqsave(&dev->ctrl_lock, flags);
		if (dev->broken) {
			err = -EIO;
		} else {
			err = virtqueue_add_sgs(dev->ctrlq, sgs, nout, nin, cmd,
						GFP_ATOMIC);
			if (!err)
				virtqueue_kick(dev->ctrlq);
			else
				vrdma_ctrl_reap(dev);
		}
		spin_unlock_irqrestore(&dev->ctrl_lock, flags);
		if (err != -ENOSPC)
			break;
		/* The queue is full of other commands: wait for room. */
		if (ktime_after(ktime_get(), deadline)) {
			vrdma_mark_broken(dev, "control queue stays full");
			err = -ETIMEDOUT;
			break;
		}
		usleep_range(20, 100);
	}
	if (err) {
		vrdma_cmd_free(cmd);
		return err;
	}

	wait_for_completion_timeout(&cmd->done, msecs_to_jiffies(cmd_timeout_ms));

	spin_lock_irqsave(&dev->ctrl_lock, flags);
	if (!cmd->completed) {
		/* The device still owns the buffers: free them when it is done. */
		cmd->abandoned = true;
		list_add_tail(&cmd->node, &dev->orphans);
		spin_unlock_irqrestore(&dev->ctrl_lock, flags);
		vrdma_mark_broken(dev, "control command timed out");
		return -ETIMEDOUT;
	}
	spin_unlock_irqrestore(&dev->ctrl_lock, flags);

	*used = min_t(u32, cmd->used, in_len);
	memcpy(in, cmd->buf + in_off, in_len);
	vrdma_cmd_free(cmd);
	return 0;
}

/* The spec fixes the errno of each status; anything else is -EIO. */
static int vrdma_status_errno(u32 status)
{
	static const int map[] = {
		[VIRTIO_RDMA_STATUS_OK] = 0,
		[VIRTIO_RDMA_STATUS_INVAL] = -EINVAL,
		[VIRTIO_RDMA_STATUS_NOENT] = -ENOENT,
		[VIRTIO_RDMA_STATUS_NOMEM] = -ENOMEM,
		[VIRTIO_RDMA_STATUS_NOSPC] = -ENOSPC,
		[VIRTIO_RDMA_STATUS_BUSY] = -EBUSY,
		[VIRTIO_RDMA_STATUS_PERM] = -EPERM,
		[VIRTIO_RDMA_STATUS_ACCES] = -EACCES,
		[VIRTIO_RDMA_STATUS_OPNOTSUPP] = -EOPNOTSUPP,
		[VIRTIO_RDMA_STATUS_FAULT] = -EFAULT,
		[VIRTIO_RDMA_STATUS_MALFORMED] = -EIO,
	};

	if (status >= ARRAY_SIZE(map))
		return -EIO;
	return map[status];
}

/*
 * Execute command @cmd_code with request @req and, on success, copy the
 * response body into @resp.  Returns 0 or a negative errno.
 */
int vrdma_cmd(struct vrdma_dev *dev, u32 cmd_code, const void *req,
	      size_t req_len, void *resp, size_t resp_len)
{
	struct virtio_rdma_cmd_resp_hdr *rhdr;
	struct virtio_rdma_cmd_hdr *hdr;
	size_t out_len = sizeof(*hdr) + req_len;
	size_t in_len = sizeof(*rhdr) + resp_len;
	void *out, *in;
	u32 used;
	int err;

	/* Requests and responses are small; one allocation holds both. */
	out = kzalloc(out_len + in_len, vrdma_cmd_gfp(cmd_code, out_len + in_len));
	if (!out)
		return -ENOMEM;
	in = out + out_len;
	hdr = out;
	hdr->cmd = cpu_to_le32(cmd_code);
	if (req_len)
		memcpy(hdr + 1, req, req_len);

	err = vrdma_cmd_raw(dev, out, out_len, in, in_len, &used);
	if (err)
		goto out;

	rhdr = in;
	if (used < sizeof(*rhdr)) {
		err = -EIO;	/* no status written: MALFORMED */
		goto out;
	}
	err = vrdma_status_errno(le32_to_cpu(rhdr->status));
	if (err)
		goto out;
	if (used < in_len) {
		dev_warn_ratelimited(&dev->vdev->dev,
				     "command %u: short response (%u of %zu bytes)\n",
				     cmd_code, used, in_len);
		err = -EIO;
		goto out;
	}
	if (resp_len)
		memcpy(resp, rhdr + 1, resp_len);
out:
	kfree(out);
	return err;
}

/*
 * A handle a create command returned: handles are never 0, QP handles are
 * QPNs (spec "Objects, handles and keys").  -ERANGE is the device's error.
 */
int vrdma_check_handle(struct vrdma_dev *dev, const char *kind, u32 handle,
		       u32 min, u32 max)
{
	if (handle >= min && handle <= max)
		return 0;
	vrdma_dev_err(dev, "device returned %s handle %u, outside [%u, %u]\n",
		      kind, handle, min, max);
	return -ERANGE;
}

/**
 * vrdma_create_undo - give up an object the device created
 * @dev: the device
 * @kind: "CQ", "QP", ... for the log
 * @handle: the handle the device returned
 * @err: why: -ERANGE (vrdma_check_handle()), -EBUSY (the handle is a live
 *	object's), or an error of the driver's own
 * @cmd: the destroy command
 * @dreq: its request, naming @handle
 * @dlen: the request's size
 *
 * A handle that a live object has is not destroyed: that would destroy the
 * live object in the device.  A bad handle leaves an object in the device
 * that the driver cannot name, and that holds its PD and CQs: their
 * destroy commands would fail for good.  So the device is marked broken,
 * as after a timeout: later commands fail, every destroy succeeds for the
 * driver, and what the device may still reach is kept until its reset.
 *
 * Return: true if the device may still use the object's rings, which the
 * caller must then orphan (vrdma_orphan_ring()).
 */
bool vrdma_create_undo(struct vrdma_dev *dev, const char *kind, u32 handle,
		       int err, u32 cmd, const void *dreq, size_t dlen)
{
	bool busy = true;

	if (err == -EBUSY)
		vrdma_dev_err(dev, "device returned %s handle %u twice\n",
			      kind, handle);
	else
		busy = vrdma_cmd(dev, cmd, dreq, dlen, NULL, 0) != 0;
	if (err == -EBUSY || err == -ERANGE)
		vrdma_mark_broken(dev, "a create command returned a bad handle");
	return busy;
}

struct vrdma_orphan_ring {
	struct list_head node;
	struct vrdma_ring ring;
};

/*
 * A ring the device may still access (its destroy command failed because
 * the device is broken) is freed only after the device has been reset.
 */
void vrdma_orphan_ring(struct vrdma_dev *dev, struct vrdma_ring *ring)
{
	struct vrdma_orphan_ring *o;
	unsigned long flags;

	/* Driver-only memory: the device cannot reach it. */
	vrdma_wrids_free(ring);
	if (!ring->buf)
		return;
	o = kzalloc(sizeof(*o), GFP_ATOMIC);
	if (!o) {
		/* Leaking is safer than letting the device write freed memory. */
		ring->buf = NULL;
		ring->pages = NULL;
		return;
	}
	o->ring = *ring;
	ring->buf = NULL;
	ring->pages = NULL;
	spin_lock_irqsave(&dev->ctrl_lock, flags);
	list_add_tail(&o->node, &dev->orphan_rings);
	spin_unlock_irqrestore(&dev->ctrl_lock, flags);
}

struct vrdma_orphan_umem {
	struct list_head node;
	struct ib_umem *umem;
};

/*
 * User pages of an MR that a broken device may still reach: a command that
 * timed out (CREATE_MR, DEREG_MR) may be executed later, and the device
 * then writes to the pages the MR maps.  They stay pinned until the device
 * has been reset, so that they cannot be freed and reused meanwhile.
 * Process context.
 */
void vrdma_orphan_umem(struct vrdma_dev *dev, struct ib_umem *umem)
{
	struct vrdma_orphan_umem *o;
	unsigned long flags;

	o = kzalloc(sizeof(*o), GFP_KERNEL);
	if (!o)
		return;	/* pinned for good: safer than reused under the device */
	o->umem = umem;
	spin_lock_irqsave(&dev->ctrl_lock, flags);
	list_add_tail(&o->node, &dev->orphan_umems);
	spin_unlock_irqrestore(&dev->ctrl_lock, flags);
}

/* Called after the device has been reset: it no longer accesses these. */
void vrdma_ctrl_cleanup(struct vrdma_dev *dev)
{
	struct vrdma_orphan_umem *u, *utmp;
	struct vrdma_orphan_ring *o, *otmp;
	struct vrdma_cmd *cmd, *ctmp;

	list_for_each_entry_safe(cmd, ctmp, &dev->orphans, node) {
		list_del(&cmd->node);
		vrdma_cmd_free(cmd);
	}
	list_for_each_entry_safe(o, otmp, &dev->orphan_rings, node) {
		list_del(&o->node);
		vrdma_ring_release(dev->dma_dev, &o->ring);
		kfree(o);
	}
	list_for_each_entry_safe(u, utmp, &dev->orphan_umems, node) {
		list_del(&u->node);
		ib_umem_release(u->umem);
		kfree(u);
	}
}
