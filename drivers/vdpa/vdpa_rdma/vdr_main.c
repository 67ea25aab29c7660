// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: module, vDPA management device and vdpa_config_ops.
 *
 * "vdpa dev add mgmtdev vdpa_rdma name NAME mac MAC [max_vqp N]" creates a
 * virtio-rdma device (virtio device id 42) whose RoCEv2 port is the
 * Ethernet netdev with that MAC.
 */
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <uapi/linux/vdpa.h>
#include <uapi/linux/virtio_config.h>
#include <uapi/linux/virtio_ring.h>

#include "roce.h"
#include "vdpa_rdma.h"
#include "vdr_xport.h"

#define VDR_FEATURES	(BIT_ULL(VIRTIO_F_VERSION_1) | \
			 BIT_ULL(VIRTIO_F_ACCESS_PLATFORM) | \
			 BIT_ULL(VIRTIO_RING_F_EVENT_IDX) | \
			 BIT_ULL(VIRTIO_RDMA_F_SRQ) | \
			 BIT_ULL(VIRTIO_RDMA_F_TM_SRQ) | \
			 BIT_ULL(VIRTIO_RDMA_F_ATOMIC) | \
			 BIT_ULL(VIRTIO_RDMA_F_MW) | \
			 BIT_ULL(VIRTIO_RDMA_F_INDIRECT_MKEY) | \
			 BIT_ULL(VIRTIO_RDMA_F_RESIZE) | \
			 BIT_ULL(VIRTIO_RDMA_F_MR_REPLACE) | \
			 BIT_ULL(VIRTIO_RDMA_F_RING_PAGES) | \
			 BIT_ULL(VIRTIO_RDMA_F_XRC))

#define VDR_REQUIRED_FEATURES	(BIT_ULL(VIRTIO_F_VERSION_1) | \
				 BIT_ULL(VIRTIO_F_ACCESS_PLATFORM))

static int max_iotlb_entries = 2048;
module_param(max_iotlb_entries, int, 0444);
MODULE_PARM_DESC(max_iotlb_entries,
		 "Maximum number of iotlb entries per device (default 2048)");

static struct vdr_vq *vdr_vq(struct vdpa_device *vdpa, u16 idx)
{
	struct vdr_dev *dev = vdpa_to_vdr(vdpa);

	/* The vDPA core checks idx against nvqs; be safe anyway. */
	if (WARN_ON_ONCE(idx >= dev->nvqs))
		return &dev->vqs[0];
	return &dev->vqs[idx];
}

static int vdr_set_vq_address(struct vdpa_device *vdpa, u16 idx,
			      u64 desc_area, u64 driver_area, u64 device_area)
{
	struct vdr_vq *vq = vdr_vq(vdpa, idx);

	vq->desc_addr = desc_area;
	vq->driver_addr = driver_area;
	vq->device_addr = device_area;
	return 0;
}

static void vdr_set_vq_num(struct vdpa_device *vdpa, u16 idx, u32 num)
{
	vdr_vq(vdpa, idx)->num = num;
}

static u16 vdr_get_vq_size(struct vdpa_device *vdpa, u16 idx)
{
	struct vdr_dev *dev = vdpa_to_vdr(vdpa);

	if (dev->status & VIRTIO_CONFIG_S_DRIVER_OK)
		return vdr_vq(vdpa, idx)->num;
	return VDR_VQ_NUM_MAX;
}

/* Doorbellqs are the even vqs after the controlq (spec "Virtqueues"). */
static bool vdr_is_dbq(u16 idx)
{
	return idx && !(idx & 1);
}

static struct lock_class_key vdr_dbq_lock_key;

static void vdr_kick_vq(struct vdpa_device *vdpa, u16 idx)
{
	struct vdr_dev *dev = vdpa_to_vdr(vdpa);

	/* May be called in atomic context: vdr_db_kick() tells. */
	if (!READ_ONCE(vdr_vq(vdpa, idx)->ready))
		return;
	if (vdr_is_dbq(idx))
		vdr_db_kick(dev, idx);
	else
		vdr_ctrl_schedule(dev);
}

/*
 * db_work, a doorbell run in its notifier's context and a QP's work
 * delivering an event use their queues without dev->lock: keep them off
 * the queue (its lock; db_work may wait for it, so stop db_work first)
 * while a config op changes it under dev->lock.
 */
static void vdr_vq_quiesce(struct vdr_dev *dev, u16 idx)
{
	lockdep_assert_held(&dev->lock);
	if (vdr_is_dbq(idx))
		kthread_cancel_work_sync(&dev->db_work);
	mutex_lock(&dev->vqs[idx].lock);
}

static void vdr_vq_resume(struct vdr_dev *dev, u16 idx)
{
	mutex_unlock(&dev->vqs[idx].lock);
	if (vdr_is_dbq(idx) && dev->running)
		vdr_db_schedule(dev);
}

static void vdr_set_vq_cb(struct vdpa_device *vdpa, u16 idx,
			  struct vdpa_callback *cb)
{
	vdr_vq(vdpa, idx)->cb = *cb;
}

static void vdr_set_vq_ready(struct vdpa_device *vdpa, u16 idx, bool ready)
{
	struct vdr_dev *dev = vdpa_to_vdr(vdpa);
	struct vdr_vq *vq = vdr_vq(vdpa, idx);

	mutex_lock(&dev->lock);
	vdr_vq_quiesce(dev, idx);
	if (ready && !vq->ready && vdr_vq_ready(dev, vq))
		ready = false;
	WRITE_ONCE(vq->ready, ready);
	vdr_vq_resume(dev, idx);
	mutex_unlock(&dev->lock);
}

static bool vdr_get_vq_ready(struct vdpa_device *vdpa, u16 idx)
{
	return vdr_vq(vdpa, idx)->ready;
}

static int vdr_set_vq_state(struct vdpa_device *vdpa, u16 idx,
			    const struct vdpa_vq_state *state)
{
	struct vdr_dev *dev = vdpa_to_vdr(vdpa);
	struct vdr_vq *vq = vdr_vq(vdpa, idx);

	mutex_lock(&dev->lock);
	vdr_vq_quiesce(dev, idx);
	vq->vring.last_avail_idx = state->split.avail_index;
	vdr_vq_resume(dev, idx);
	mutex_unlock(&dev->lock);
	return 0;
}

static int vdr_get_vq_state(struct vdpa_device *vdpa, u16 idx,
			    struct vdpa_vq_state *state)
{
	state->split.avail_index = vdr_vq(vdpa, idx)->vring.last_avail_idx;
	return 0;
}

static u32 vdr_get_vq_align(struct vdpa_device *vdpa)
{
	return PAGE_SIZE;
}

/*
 * What FEATURES_OK needs: the required bits, and every feature's
 * dependencies (XRC SRQs and TM-SRQs are SRQs: VIRTIO_RDMA_F_XRC and
 * VIRTIO_RDMA_F_TM_SRQ need _SRQ).
 */
static bool vdr_features_ok(u64 features)
{
	u64 need_srq = BIT_ULL(VIRTIO_RDMA_F_XRC) | BIT_ULL(VIRTIO_RDMA_F_TM_SRQ);

	if ((features & VDR_REQUIRED_FEATURES) != VDR_REQUIRED_FEATURES)
		return false;
	return !(features & need_srq) ||
	       (features & BIT_ULL(VIRTIO_RDMA_F_SRQ));
}

static u64 vdr_get_device_features(struct vdpa_device *vdpa)
{
	return VDR_FEATURES;
}

static int vdr_set_driver_features(struct vdpa_device *vdpa, u64 features)
{
	struct vdr_dev *dev = vdpa_to_vdr(vdpa);

	/* The device reads every address through its IOTLB. */
	if ((features & VDR_REQUIRED_FEATURES) != VDR_REQUIRED_FEATURES)
		return -EINVAL;
	dev->features = features & VDR_FEATURES;
	return 0;
}

static u64 vdr_get_driver_features(struct vdpa_device *vdpa)
{
	return vdpa_to_vdr(vdpa)->features;
}

static void vdr_set_config_cb(struct vdpa_device *vdpa,
			      struct vdpa_callback *cb)
{
	/* The configuration space never changes while the device is live. */
}

static u16 vdr_get_vq_num_max(struct vdpa_device *vdpa)
{
	return VDR_VQ_NUM_MAX;
}

static u32 vdr_get_device_id(struct vdpa_device *vdpa)
{
	return VIRTIO_ID_RDMA;
}

static u32 vdr_get_vendor_id(struct vdpa_device *vdpa)
{
	return VDR_VENDOR_ID;
}

static u8 vdr_get_status(struct vdpa_device *vdpa)
{
	struct vdr_dev *dev = vdpa_to_vdr(vdpa);
	u8 status;

	mutex_lock(&dev->lock);
	status = dev->status;
	mutex_unlock(&dev->lock);
	return status;
}

static void vdr_set_status(struct vdpa_device *vdpa, u8 status)
{
	struct vdr_dev *dev = vdpa_to_vdr(vdpa);
	bool running;

	mutex_lock(&dev->lock);
	if ((status & VIRTIO_CONFIG_S_FEATURES_OK) &&
	    !vdr_features_ok(dev->features))
		status &= ~VIRTIO_CONFIG_S_FEATURES_OK;
	dev->status = status | (dev->status & VIRTIO_CONFIG_S_NEEDS_RESET);
	running = (status & VIRTIO_CONFIG_S_DRIVER_OK) && !dev->suspended;
	WRITE_ONCE(dev->running, running);
	mutex_unlock(&dev->lock);

	if (running) {
		/* A driver bound after the netdev vanished learns it too. */
		if (!rcu_access_pointer(dev->netdev))
			vdr_event_raise(dev, &dev->fatal_ev, 0);
		/* Events (port state) may have become pending before. */
		vdr_ctrl_schedule(dev);
		vdr_db_schedule(dev);
	}
}

/* Bound to virtio_vdpa, or to no driver yet: the driver is this kernel. */
static bool vdr_driver_is_kernel(struct vdr_dev *dev)
{
	struct device_driver *drv = READ_ONCE(dev->vdpa.dev.driver);

	return !drv || !strcmp(drv->name, "virtio_vdpa");
}

/*
 * The IOTLB of a device whose driver's mappings were dropped.  For this
 * kernel, whose DMA addresses are physical, every address maps to itself.
 * For any other driver (vhost_vdpa: a VM, or a process) nothing is mapped
 * until its own mappings arrive; with identity there, a ring enabled
 * before them would reach all of the host's memory.
 */
static void vdr_iotlb_default(struct vdr_dev *dev)
{
	bool pt = vdr_driver_is_kernel(dev);

	lockdep_assert_held_write(&dev->iotlb_rw);
	vhost_iotlb_reset(&dev->iotlb);
	if (pt)
		vhost_iotlb_add_range(&dev->iotlb, 0, ULONG_MAX, 0,
				      VHOST_MAP_RW);
	dev->iotlb_pt = pt;
}

/* A change of the IOTLB excludes vringh and the control path, then copies. */
static void vdr_iotlb_change(struct vdr_dev *dev)
	__acquires(&dev->iotlb_lock) __acquires(&dev->iotlb_rw)
{
	spin_lock(&dev->iotlb_lock);
	write_lock(&dev->iotlb_rw);
}

static void vdr_iotlb_changed(struct vdr_dev *dev)
	__releases(&dev->iotlb_rw) __releases(&dev->iotlb_lock)
{
	write_unlock(&dev->iotlb_rw);
	spin_unlock(&dev->iotlb_lock);
}

/*
 * Reset destroys every object without writing completions and forgets
 * pending events; afterwards the device touches no guest memory.
 */
static void vdr_do_reset(struct vdr_dev *dev, u32 flags)
{
	lockdep_assert_held(&dev->lock);

	/* ctrl_work runs under dev->lock and sees this; db_work stops. */
	WRITE_ONCE(dev->running, false);
	kthread_cancel_work_sync(&dev->db_work);
	vdr_events_discard(dev);
	vdr_qps_destroy(dev);
	vdr_srqs_destroy(dev);
	vdr_xrcds_destroy(dev);
	vdr_cqs_destroy(dev);
	vdr_mrs_destroy(dev);
	vdr_pds_destroy(dev);
	vdr_gids_clear(dev);
	vdr_vqs_reset(dev);

	/*
	 * Also when virtio_vdpa, which never maps, finds the mappings of a
	 * vhost-vdpa user that had the device before.
	 */
	vdr_iotlb_change(dev);
	if ((flags & VDPA_RESET_F_CLEAN_MAP) ||
	    (!dev->iotlb_pt && vdr_driver_is_kernel(dev)))
		vdr_iotlb_default(dev);
	vdr_iotlb_changed(dev);

	dev->features = 0;
	dev->status = 0;
	dev->suspended = false;
	dev->generation++;
}

/**
 * vdr_suspend - stop the device with its state kept (vhost-vdpa's suspend)
 * @vdpa: the device
 *
 * When this returns, the device processes no virtqueue, runs no QP, so
 * writes no guest memory and sends no packet, and its state (spec "Live
 * migration state") stays as it is until resume or reset.  Packets that
 * arrive meanwhile wait in their QPs' receive queues, within the device's
 * bound, beyond which they are dropped as on a busy device and their
 * senders retransmit; events wait in the pending lists.
 *
 * Return: 0.
 */
int vdr_suspend(struct vdpa_device *vdpa)
{
	struct vdr_dev *dev = vdpa_to_vdr(vdpa);
	u16 i;

	mutex_lock(&dev->lock);
	/* ctrl_work, which holds dev->lock, now sees this too. */
	dev->suspended = true;
	WRITE_ONCE(dev->running, false);
	kthread_cancel_work_sync(&dev->db_work);
	/*
	 * A doorbell processed in its notifier's context, and an event
	 * delivered from a QP's work, check running under the queue's lock:
	 * wait for one in progress.
	 */
	for (i = 0; i < dev->nvqs; i++) {
		mutex_lock(&dev->vqs[i].lock);
		mutex_unlock(&dev->vqs[i].lock);
	}
	vdr_xqps_stop(dev);
	vdr_tm_srqs_stop(dev);
	mutex_unlock(&dev->lock);
	return 0;
}

/**
 * vdr_resume - go on after vdr_suspend()
 * @vdpa: the device
 *
 * Every virtqueue is looked at again and every QP runs as if both of its
 * doorbells had rung.  Nothing to do when the device is not suspended.
 *
 * Return: 0.
 */
int vdr_resume(struct vdpa_device *vdpa)
{
	struct vdr_dev *dev = vdpa_to_vdr(vdpa);

	mutex_lock(&dev->lock);
	if (dev->suspended) {
		dev->suspended = false;
		WRITE_ONCE(dev->running,
			   (dev->status & VIRTIO_CONFIG_S_DRIVER_OK) != 0);
	}
	if (dev->running) {
		vdr_ctrl_schedule(dev);
		vdr_db_schedule(dev);
		vdr_xqps_resume(dev);
		vdr_tm_srqs_resume(dev);
	}
	mutex_unlock(&dev->lock);
	return 0;
}

static int vdr_compat_reset(struct vdpa_device *vdpa, u32 flags)
{
	struct vdr_dev *dev = vdpa_to_vdr(vdpa);

	mutex_lock(&dev->lock);
	vdr_do_reset(dev, flags);
	mutex_unlock(&dev->lock);
	return 0;
}

static int vdr_reset(struct vdpa_device *vdpa)
{
	return vdr_compat_reset(vdpa, 0);
}

static size_t vdr_get_config_size(struct vdpa_device *vdpa)
{
	return sizeof(struct virtio_rdma_config);
}

static void vdr_get_config(struct vdpa_device *vdpa, unsigned int offset,
			   void *buf, unsigned int len)
{
	struct vdr_dev *dev = vdpa_to_vdr(vdpa);

	if (offset > sizeof(dev->config) || len > sizeof(dev->config) - offset)
		return;
	memcpy(buf, (u8 *)&dev->config + offset, len);
}

static void vdr_set_config(struct vdpa_device *vdpa, unsigned int offset,
			   const void *buf, unsigned int len)
{
	/* Read-only configuration space. */
}

static u32 vdr_get_generation(struct vdpa_device *vdpa)
{
	return vdpa_to_vdr(vdpa)->generation;
}

static struct vdpa_iova_range vdr_get_iova_range(struct vdpa_device *vdpa)
{
	struct vdpa_iova_range range = {
		.first = 0,
		.last = ULLONG_MAX,
	};

	return range;
}

static int vdr_set_map(struct vdpa_device *vdpa, unsigned int asid,
		       struct vhost_iotlb *iotlb)
{
	struct vdr_dev *dev = vdpa_to_vdr(vdpa);
	struct vhost_iotlb_map *map;
	int ret = 0;

	if (asid)
		return -EINVAL;

	vdr_iotlb_change(dev);
	vhost_iotlb_reset(&dev->iotlb);
	dev->iotlb_pt = false;
	for (map = vhost_iotlb_itree_first(iotlb, 0, ULLONG_MAX); map;
	     map = vhost_iotlb_itree_next(map, 0, ULLONG_MAX)) {
		ret = vhost_iotlb_add_range(&dev->iotlb, map->start, map->last,
					    map->addr, map->perm);
		if (ret) {
			vhost_iotlb_reset(&dev->iotlb);
			break;
		}
	}
	vdr_iotlb_changed(dev);
	return ret;
}

static int vdr_reset_map(struct vdpa_device *vdpa, unsigned int asid)
{
	struct vdr_dev *dev = vdpa_to_vdr(vdpa);

	if (asid)
		return -EINVAL;

	vdr_iotlb_change(dev);
	vdr_iotlb_default(dev);
	vdr_iotlb_changed(dev);
	return 0;
}

static void vdr_free(struct vdpa_device *vdpa)
{
	struct vdr_dev *dev = vdpa_to_vdr(vdpa);
	struct net_device *ndev;
	int i;

	vdr_debugfs_del(dev);
	/* No notifier may look at the device from here on. */
	vdr_dev_list_del(dev);
	/* Nor a received packet. */
	vdr_net_detach(dev);

	if (dev->vqs) {
		mutex_lock(&dev->lock);
		vdr_do_reset(dev, 0);
		mutex_unlock(&dev->lock);
		/* After reset, which stopped every QP that could queue it. */
		cancel_work_sync(&dev->ctrl_work);
		for (i = 0; i < dev->nvqs; i++) {
			vringh_kiov_cleanup(&dev->vqs[i].riov);
			vringh_kiov_cleanup(&dev->vqs[i].wiov);
		}
	}

	ndev = rcu_dereference_protected(dev->netdev, true);
	if (ndev)
		netdev_put(ndev, &dev->netdev_tracker);

	vhost_iotlb_reset(&dev->iotlb);
	xa_destroy(&dev->pds);
	xa_destroy(&dev->mrs);
	xa_destroy(&dev->cqs);
	xa_destroy(&dev->qps);
	xa_destroy(&dev->srqs);
	xa_destroy(&dev->xrcds);
	kfree(dev->ev_pending);
	kfree(dev->vqs);
	vdr_net_free(dev);
	/* Stopped by the reset above; never queued without doorbellqs. */
	kthread_cancel_work_sync(&dev->db_work);
	vdr_engine_put(dev->db_engine, 1);
	mutex_destroy(&dev->lock);
}

static const struct vdpa_config_ops vdr_config_ops = {
	.set_vq_address		= vdr_set_vq_address,
	.set_vq_num		= vdr_set_vq_num,
	.kick_vq		= vdr_kick_vq,
	.set_vq_cb		= vdr_set_vq_cb,
	.set_vq_ready		= vdr_set_vq_ready,
	.get_vq_ready		= vdr_get_vq_ready,
	.set_vq_state		= vdr_set_vq_state,
	.get_vq_state		= vdr_get_vq_state,
	.get_vq_align		= vdr_get_vq_align,
	.get_device_features	= vdr_get_device_features,
	.set_driver_features	= vdr_set_driver_features,
	.get_driver_features	= vdr_get_driver_features,
	.set_config_cb		= vdr_set_config_cb,
	.get_vq_num_max		= vdr_get_vq_num_max,
	.get_vq_size		= vdr_get_vq_size,
	.get_device_id		= vdr_get_device_id,
	.get_vendor_id		= vdr_get_vendor_id,
	.get_status		= vdr_get_status,
	.set_status		= vdr_set_status,
	.reset			= vdr_reset,
	.compat_reset		= vdr_compat_reset,
	.get_config_size	= vdr_get_config_size,
	.get_config		= vdr_get_config,
	.set_config		= vdr_set_config,
	.get_generation		= vdr_get_generation,
	.get_iova_range		= vdr_get_iova_range,
	.set_map		= vdr_set_map,
	.reset_map		= vdr_reset_map,
	.suspend		= vdr_suspend,
	.resume			= vdr_resume,
	.free			= vdr_free,
};

static int vdr_dev_init(struct vdr_dev *dev, const char *name, u16 nqp)
{
	struct device *d = &dev->vdpa.dev;
	struct vdr_vq *vqs;
	int i, ret;

	mutex_init(&dev->lock);
	INIT_WORK(&dev->ctrl_work, vdr_ctrl_work_fn);
	kthread_init_work(&dev->db_work, vdr_db_work_fn);
	dev->db_engine = vdr_engine_get(1);
	spin_lock_init(&dev->gid_lock);
	spin_lock_init(&dev->iotlb_lock);
	rwlock_init(&dev->iotlb_rw);
	spin_lock_init(&dev->ev_lock);
	INIT_LIST_HEAD(&dev->list);
	xa_init_flags(&dev->pds, XA_FLAGS_ALLOC);
	xa_init_flags(&dev->mrs, XA_FLAGS_ALLOC);
	xa_init_flags(&dev->cqs, XA_FLAGS_ALLOC);
	xa_init_flags(&dev->qps, XA_FLAGS_ALLOC);
	xa_init_flags(&dev->srqs, XA_FLAGS_ALLOC);
	xa_init_flags(&dev->xrcds, XA_FLAGS_ALLOC);
	for (i = 0; i < VIRTIO_RDMA_NUM_STATS; i++)
		atomic64_set(&dev->stats[i], 0);
	atomic_set(&dev->rx_backlog, 0);
	strscpy(dev->name, name, sizeof(dev->name));
	vhost_iotlb_init(&dev->iotlb, max_iotlb_entries, 0);
	dev->nqp = nqp;
	dev->nvqs = 1 + 2 * nqp;
	vdr_net_init_dev(dev);

	vdr_event_init(&dev->port_active_ev, VIRTIO_RDMA_EVENT_PORT_ACTIVE,
		       1, 0);
	vdr_event_init(&dev->port_err_ev, VIRTIO_RDMA_EVENT_PORT_ERR, 1, 0);
	vdr_event_init(&dev->fatal_ev, VIRTIO_RDMA_EVENT_DEVICE_FATAL, 0, 0);

	/* virtio_vdpa's DMA API then hands out physical addresses. */
	d->dma_mask = &d->coherent_dma_mask;
	ret = dma_set_mask_and_coherent(d, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	dev->vdpa.dma_dev = d;

	vqs = kcalloc(dev->nvqs, sizeof(*vqs), GFP_KERNEL);
	dev->ev_pending = kcalloc(nqp, sizeof(*dev->ev_pending), GFP_KERNEL);
	if (!vqs || !dev->ev_pending) {
		ret = -ENOMEM;
		goto err_vqs;
	}
	for (i = 0; i < nqp; i++)
		INIT_LIST_HEAD(&dev->ev_pending[i]);

	ret = vhost_iotlb_add_range(&dev->iotlb, 0, ULONG_MAX, 0, VHOST_MAP_RW);
	if (ret)
		goto err_vqs;
	dev->iotlb_pt = true;
	for (i = 0; i < dev->nvqs; i++) {
		mutex_init(&vqs[i].lock);
		/* Taken before a QP's lock, where eventq locks come after. */
		if (vdr_is_dbq(i))
			lockdep_set_class(&vqs[i].lock, &vdr_dbq_lock_key);
		vringh_set_iotlb(&vqs[i].vring, &dev->iotlb, &dev->iotlb_lock);
		vringh_kiov_init(&vqs[i].riov, vqs[i].rkvec, VDR_VQ_KVECS);
		vringh_kiov_init(&vqs[i].wiov, vqs[i].wkvec, VDR_VQ_KVECS);
	}
	/* Only initialised vqs: vdr_free() resets those it finds. */
	dev->vqs = vqs;
	vdr_vqs_reset(dev);
	return 0;

err_vqs:
	kfree(vqs);
	return ret;
}

static int vdr_dev_add(struct vdpa_mgmt_dev *mdev, const char *name,
		       const struct vdpa_dev_set_config *config)
{
	struct net_device *ndev;
	struct vdr_dev *dev;
	u16 nqp = VDR_DEF_QUEUE_PAIRS;
	int ret;

	/* dev_add has no extack: explain failures in the kernel log. */
	if (!(config->mask & BIT_ULL(VDPA_ATTR_DEV_NET_CFG_MACADDR))) {
		pr_err("vdpa_rdma: %s: 'mac' is required: the MAC of the netdev to bind\n",
		       name);
		return -EINVAL;
	}
	if (config->mask & BIT_ULL(VDPA_ATTR_DEV_NET_CFG_MAX_VQP)) {
		if (config->net.max_vq_pairs > VDR_MAX_QUEUE_PAIRS) {
			pr_err("vdpa_rdma: %s: max_vqp %u above %u\n", name,
			       config->net.max_vq_pairs, VDR_MAX_QUEUE_PAIRS);
			return -EINVAL;
		}
		nqp = config->net.max_vq_pairs;
	}
	if (config->mask & BIT_ULL(VDPA_ATTR_DEV_FEATURES) &&
	    config->device_features != VDR_FEATURES) {
		pr_err("vdpa_rdma: %s: device features cannot be changed\n",
		       name);
		return -EOPNOTSUPP;
	}

	dev = vdpa_alloc_device(struct vdr_dev, vdpa, NULL, &vdr_config_ops,
				1, 1, name, false);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	dev->vdpa.mdev = mdev;

	ret = vdr_dev_init(dev, name, nqp);
	if (ret)
		goto err_put;

	ether_addr_copy(dev->mac, config->net.mac);
	ether_addr_copy(dev->config.mac, config->net.mac);
	dev->config.num_queue_pairs = cpu_to_le16(nqp);

	/*
	 * Under RTNL the netdev cannot go away between the lookup and the
	 * moment the notifier can see this device.
	 */
	rtnl_lock();
	ndev = vdr_netdev_find(dev->mac);
	if (!ndev) {
		rtnl_unlock();
		pr_err("vdpa_rdma: %s: no network device has MAC %pM\n",
		       name, dev->mac);
		ret = -ENODEV;
		goto err_put;
	}
	netdev_hold(ndev, &dev->netdev_tracker, GFP_KERNEL);
	rcu_assign_pointer(dev->netdev, ndev);
	dev->port_active = vdr_netdev_port_active(ndev);
	vdr_dev_list_add(dev);
	ret = vdr_net_attach(dev, ndev);
	rtnl_unlock();
	if (ret)
		goto err_put;

	ret = _vdpa_register_device(&dev->vdpa, dev->nvqs);
	if (ret)
		goto err_put;
	vdr_debugfs_add(dev);
	dev_info(&dev->vdpa.dev, "virtio-rdma device on %s, %u queue pairs\n",
		 netdev_name(ndev), nqp);
	return 0;

err_put:
	/* ->free (vdr_free) undoes whatever vdr_dev_init did. */
	put_device(&dev->vdpa.dev);
	return ret;
}

static void vdr_dev_del(struct vdpa_mgmt_dev *mdev, struct vdpa_device *vdpa)
{
	/* Unbinds the virtio driver (which resets the device), then frees. */
	_vdpa_unregister_device(vdpa);
}

static const struct vdpa_mgmtdev_ops vdr_mgmtdev_ops = {
	.dev_add = vdr_dev_add,
	.dev_del = vdr_dev_del,
};

/*
 * The vDPA core accepts the 'mac' and 'max_vqp' attributes only from a
 * management device that lists the net class, so the table names it; this
 * management device only ever creates virtio-rdma devices.
 */
static struct virtio_device_id vdr_id_table[] = {
	{ VIRTIO_ID_RDMA, VIRTIO_DEV_ANY_ID },
	{ VIRTIO_ID_NET, VIRTIO_DEV_ANY_ID },
	{ 0 },
};

static void vdr_mgmtdev_release(struct device *dev)
{
}

static struct device vdr_mgmtdev_device = {
	.init_name = "vdpa_rdma",
	.release = vdr_mgmtdev_release,
};

static struct vdpa_mgmt_dev vdr_mgmt_dev = {
	.device = &vdr_mgmtdev_device,
	.id_table = vdr_id_table,
	.ops = &vdr_mgmtdev_ops,
	.config_attr_mask = BIT_ULL(VDPA_ATTR_DEV_NET_CFG_MACADDR) |
			    BIT_ULL(VDPA_ATTR_DEV_NET_CFG_MAX_VQP) |
			    BIT_ULL(VDPA_ATTR_DEV_FEATURES),
	.max_supported_vqs = 1 + 2 * VDR_MAX_QUEUE_PAIRS,
	.supported_features = VDR_FEATURES,
};

struct workqueue_struct *vdr_wq;

static int __init vdr_init(void)
{
	int ret;

	/*
	 * Commands and tag-matching ops; the data path runs on the engines
	 * (vdr_engine.c).  Reclaim: NVMe over RDMA may write back through
	 * this device.
	 */
	vdr_wq = alloc_workqueue("vdpa_rdma", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!vdr_wq)
		return -ENOMEM;
	ret = vdr_engines_start();
	if (ret) {
		destroy_workqueue(vdr_wq);
		return ret;
	}
	vdr_roce_icrc_init();
	vdr_debugfs_init();
	ret = device_register(&vdr_mgmtdev_device);
	if (ret) {
		put_device(&vdr_mgmtdev_device);
		vdr_debugfs_exit();
		vdr_roce_icrc_exit();
		vdr_engines_stop();
		destroy_workqueue(vdr_wq);
		return ret;
	}
	ret = vdr_net_register();
	if (ret)
		goto err_dev;
	ret = vdr_netdev_register_notifier();
	if (ret)
		goto err_net;
	ret = vdpa_mgmtdev_register(&vdr_mgmt_dev);
	if (ret)
		goto err_notifier;
	return 0;

err_notifier:
	vdr_netdev_unregister_notifier();
err_net:
	vdr_net_unregister();
err_dev:
	device_unregister(&vdr_mgmtdev_device);
	vdr_debugfs_exit();
	vdr_roce_icrc_exit();
	vdr_engines_stop();
	destroy_workqueue(vdr_wq);
	return ret;
}

static void __exit vdr_exit(void)
{
	vdpa_mgmtdev_unregister(&vdr_mgmt_dev);
	vdr_netdev_unregister_notifier();
	vdr_net_unregister();
	device_unregister(&vdr_mgmtdev_device);
	vdr_debugfs_exit();
	vdr_roce_icrc_exit();
	vdr_engines_stop();
	destroy_workqueue(vdr_wq);
}

module_init(vdr_init);
module_exit(vdr_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Emulated virtio-rdma device (vDPA parent)");
