// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma debugfs: /sys/kernel/debug/virtio_rdma/<ibdev>/raw_cmd lets
 * tests send arbitrary (including invalid) control commands.  Built only
 * with CONFIG_INFINIBAND_VIRTIO_RDMA_RAW_CMD (default n; the project's
 * out-of-tree test build sets it).
 *
 * Contract (tests depend on it):
 *  - write(2) one buffer: struct { __le32 resp_len; __le32 reserved; }
 *    followed by the request bytes (command header and body, 0..4096 bytes,
 *    sent unchanged).  resp_len (0..4096) is the size of the device-writable
 *    part, which may be smaller than a response header.  The write returns
 *    the byte count once the device has completed the command, or -EINVAL
 *    (bad framing), -EIO (device broken), -ETIMEDOUT, -ENOMEM.
 *  - read(2) then returns exactly resp_len bytes: the first "used" bytes as
 *    written by the device (used = the length the device reported in the
 *    used ring), the rest zero.  A MALFORMED answer with a short writable part
 *    therefore reads back as zeros.  Reads continue from the previous read's
 *    end; EOF after resp_len bytes.  A read before any write returns EOF.
 *  - One command at a time per open file (a mutex serialises them); each
 *    write replaces the previous response.
 * Commands go around the driver's bookkeeping: destroying an object the
 * driver owns this way breaks it.  Root only.
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "vrdma.h"

#define VRDMA_RAW_MAX	4096

struct vrdma_raw_hdr {
	__le32 resp_len;
	__le32 reserved;
};

struct vrdma_raw_file {
	struct vrdma_dev *dev;
	struct mutex lock;	/* one command at a time; resp, resp_len, pos */
	void *resp;
	size_t resp_len;
	loff_t pos;
};

static struct dentry *vrdma_debugfs_root;

static int vrdma_raw_open(struct inode *inode, struct file *file)
{
	struct vrdma_raw_file *rf;

	rf = kzalloc(sizeof(*rf), GFP_KERNEL);
	if (!rf)
		return -ENOMEM;
	rf->dev = inode->i_private;
	mutex_init(&rf->lock);
	file->private_data = rf;
	return nonseekable_open(inode, file);
}

static int vrdma_raw_release(struct inode *inode, struct file *file)
{
	struct vrdma_raw_file *rf = file->private_data;

	mutex_destroy(&rf->lock);
	kfree(rf->resp);
	kfree(rf);
	return 0;
}

static ssize_t vrdma_raw_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct vrdma_raw_file *rf = file->private_data;
	struct vrdma_raw_hdr hdr;
	size_t req_len, resp_len;
	void *req, *resp;
	u32 used = 0;
	int err;

	if (count < sizeof(hdr) || count > sizeof(hdr) + VRDMA_RAW_MAX)
		return -EINVAL;
	if (copy_from_user(&hdr, ubuf, sizeof(hdr)))
		return -EFAULT;
	resp_len = le32_to_cpu(hdr.resp_len);
	req_len = count - sizeof(hdr);
	if (resp_len > VRDMA_RAW_MAX || hdr.reserved || (!req_len && !resp_len))
		return -EINVAL;

	req = memdup_user(ubuf + sizeof(hdr), req_len);
	if (IS_ERR(req))
		return PTR_ERR(req);
	resp = kzalloc(resp_len ? resp_len : 1, GFP_KERNEL);
	if (!resp) {
		kfree(req);
		return -ENOMEM;
	}

	mutex_lock(&rf->lock);
	err = vrdma_cmd_raw(rf->dev, req, req_len, resp, resp_len, &used);
	if (!err) {
		/* Zero what the device did not report as written. */
		memset(resp + used, 0, resp_len - used);
		kfree(rf->resp);
		rf->resp = resp;
		rf->resp_len = resp_len;
		rf->pos = 0;
		resp = NULL;
	}
	mutex_unlock(&rf->lock);
	kfree(resp);
	kfree(req);
	return err ? err : count;
}

static ssize_t vrdma_raw_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct vrdma_raw_file *rf = file->private_data;
	ssize_t ret = 0;

	mutex_lock(&rf->lock);
	if (rf->resp)
		ret = simple_read_from_buffer(ubuf, count, &rf->pos,
					      rf->resp, rf->resp_len);
	mutex_unlock(&rf->lock);
	return ret;
}

static const struct file_operations vrdma_raw_fops = {
	.owner = THIS_MODULE,
	.open = vrdma_raw_open,
	.release = vrdma_raw_release,
	.read = vrdma_raw_read,
	.write = vrdma_raw_write,
};

void vrdma_debugfs_add(struct vrdma_dev *dev)
{
	if (IS_ERR_OR_NULL(vrdma_debugfs_root))
		return;
	dev->debugfs = debugfs_create_dir(dev_name(&dev->ib.dev),
					  vrdma_debugfs_root);
	debugfs_create_file("raw_cmd", 0600, dev->debugfs, dev,
			    &vrdma_raw_fops);
}

void vrdma_debugfs_remove(struct vrdma_dev *dev)
{
	debugfs_remove_recursive(dev->debugfs);
	dev->debugfs = NULL;
}

void vrdma_debugfs_init(void)
{
	vrdma_debugfs_root = debugfs_create_dir("virtio_rdma", NULL);
}

void vrdma_debugfs_exit(void)
{
	debugfs_remove_recursive(vrdma_debugfs_root);
}
