// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * virtio-rdma control queue.
 *
 * Commands are submitted from sleeping context (most verbs) and from atomic
 * context (verbs that consumers may call under a lock).  Several commands
 * may be in flight; the device executes them one at a time in order.  A
 * command that the device never completes must not hang the kernel: after
 * cmd_timeout_ms the device is marked broken and every later command fails
 * with -EIO.  A timed-out command is abandoned: its buffers stay with the
 * device until it completes the command or is reset.
 *
 * A caller in atomic context busy-polls for at most 5 s and then gives up
 * without declaring the device broken: a software device (vdpa_rdma) may
 * need the very CPU that spins to run its worker.  An object such a command
 * created on the device is then leaked there until reset.
 */

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "virtio_rdma.h"

static unsigned int cmd_timeout_ms = 20000;
module_param(cmd_timeout_ms, uint, 0644);
MODULE_PARM_DESC(cmd_timeout_ms,
		 "Control command timeout in ms; the device is marked broken after it");

/* Busy-polling longer than this in atomic context would trip the lockup detectors. */
#define VRDMA_ATOMIC_TIMEOUT_MS		5000

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

static bool vrdma_can_sleep(void)
{
	/* Without CONFIG_PREEMPT_COUNT this is always false: poll, safely. */
	return preemptible();
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
	bool sleep = vrdma_can_sleep();
	gfp_t gfp = sleep ? GFP_KERNEL : GFP_ATOMIC;
	struct scatterlist out_sg, in_sg, *sgs[2];
	unsigned int nout = 0, nin = 0;
	unsigned long flags, tmo_ms;
	struct vrdma_cmd *cmd;
	size_t in_off;
	ktime_t deadline;
	int err;

	if (!out_len && !in_len)
		return -EINVAL;

	cmd = kzalloc(sizeof(*cmd), gfp);
	if (!cmd)
		return -ENOMEM;
	init_completion(&cmd->done);
	INIT_LIST_HEAD(&cmd->node);

	/* Keep the device-writable part off the cache lines the CPU writes. */
	in_off = ALIGN(out_len, dma_get_cache_alignment());
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

	tmo_ms = sleep ? cmd_timeout_ms :
			 min_t(unsigned long, cmd_timeout_ms,
			       VRDMA_ATOMIC_TIMEOUT_MS);
	deadline = ktime_add_ms(ktime_get(), tmo_ms);

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
		if (sleep)
			usleep_range(20, 100);
		else
			cpu_relax();
	}
	if (err) {
		vrdma_cmd_free(cmd);
		return err;
	}

	if (sleep) {
		wait_for_completion_timeout(&cmd->done,
					    msecs_to_jiffies(tmo_ms));
	} else {
		while (!READ_ONCE(cmd->completed) &&
		       ktime_before(ktime_get(), deadline)) {
			cpu_relax();
			spin_lock_irqsave(&dev->ctrl_lock, flags);
			vrdma_ctrl_reap(dev);
			spin_unlock_irqrestore(&dev->ctrl_lock, flags);
		}
	}

	spin_lock_irqsave(&dev->ctrl_lock, flags);
	if (!cmd->completed) {
		/* The device still owns the buffers: free them when it is done. */
		cmd->abandoned = true;
		list_add_tail(&cmd->node, &dev->orphans);
		spin_unlock_irqrestore(&dev->ctrl_lock, flags);
		if (sleep)
			vrdma_mark_broken(dev, "control command timed out");
		else
			dev_warn_ratelimited(&dev->vdev->dev,
					     "command timed out in atomic context\n");
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
	gfp_t gfp = vrdma_can_sleep() ? GFP_KERNEL : GFP_ATOMIC;
	void *out, *in;
	u32 used;
	int err;

	/* Requests and responses are small; one allocation holds both. */
	out = kzalloc(out_len + in_len, gfp);
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

struct vrdma_orphan_ring {
	struct list_head node;
	void *buf;
	dma_addr_t dma;
	size_t size;
};

/*
 * A ring the device may still access (its destroy command failed because
 * the device is broken) is freed only after the device has been reset.
 */
void vrdma_orphan_ring(struct vrdma_dev *dev, struct vrdma_ring *ring)
{
	struct vrdma_orphan_ring *o;
	unsigned long flags;

	if (!ring->buf)
		return;
	o = kzalloc(sizeof(*o), GFP_ATOMIC);
	if (!o) {
		/* Leaking is safer than letting the device write freed memory. */
		ring->buf = NULL;
		return;
	}
	o->buf = ring->buf;
	o->dma = ring->dma;
	o->size = ring->size;
	ring->buf = NULL;
	spin_lock_irqsave(&dev->ctrl_lock, flags);
	list_add_tail(&o->node, &dev->orphan_rings);
	spin_unlock_irqrestore(&dev->ctrl_lock, flags);
}

/* Called after the device has been reset: it no longer accesses these. */
void vrdma_ctrl_cleanup(struct vrdma_dev *dev)
{
	struct vrdma_orphan_ring *o, *otmp;
	struct vrdma_cmd *cmd, *ctmp;

	list_for_each_entry_safe(cmd, ctmp, &dev->orphans, node) {
		list_del(&cmd->node);
		vrdma_cmd_free(cmd);
	}
	list_for_each_entry_safe(o, otmp, &dev->orphan_rings, node) {
		list_del(&o->node);
		dma_free_coherent(dev->dma_dev, o->size, o->buf, o->dma);
		kfree(o);
	}
}
