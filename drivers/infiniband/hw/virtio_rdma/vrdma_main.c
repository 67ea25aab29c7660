// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma guest driver: virtio driver registration, probe and remove.
 *
 * Lifetime: everything lives in struct vrdma_dev, which embeds the
 * ib_device.  The ib_device goes away either when the virtio device is
 * removed or, asynchronously, when the bound netdev unregisters; both end
 * in ib_core calling ->dealloc_driver, which resets the virtio device and
 * frees the driver state.  vdev->priv (under vrdma_devs_lock()) tells
 * remove whether that already happened.
 */

#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ring.h>

#include <rdma/virtio_rdma-abi.h>

#include "vrdma.h"
#include "vrdma_compat.h"

static const struct ib_device_ops vrdma_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_VIRTIO_RDMA,
	.uverbs_abi_ver = VIRTIO_RDMA_UVERBS_ABI_VERSION,

	.add_gid = vrdma_add_gid,
	.alloc_hw_port_stats = vrdma_alloc_hw_port_stats,
	.alloc_mr = vrdma_alloc_mr,
	.alloc_pd = vrdma_alloc_pd,
	.alloc_ucontext = vrdma_alloc_ucontext,
	.create_ah = vrdma_create_ah,
	.create_cq = vrdma_create_cq_op,	/* vrdma_compat.h */
	.create_qp = vrdma_create_qp,
	.dealloc_pd = vrdma_dealloc_pd,
	.dealloc_ucontext = vrdma_dealloc_ucontext,
	.del_gid = vrdma_del_gid,
	.dereg_mr = vrdma_dereg_mr,
	.destroy_ah = vrdma_destroy_ah,
	.destroy_cq = vrdma_destroy_cq,
	.destroy_qp = vrdma_destroy_qp,
	.disassociate_ucontext = vrdma_disassociate_ucontext,
	.get_dev_fw_str = vrdma_get_fw_str,
	.get_dma_mr = vrdma_get_dma_mr,
	.get_hw_stats = vrdma_get_hw_stats,
	.get_link_layer = vrdma_get_link_layer,
	.get_port_immutable = vrdma_get_port_immutable,
	.map_mr_sg = vrdma_map_mr_sg,
	.mmap = vrdma_mmap,
	.mmap_free = vrdma_mmap_free,
	.modify_qp = vrdma_modify_qp,
	.poll_cq = vrdma_poll_cq,
	.post_recv = vrdma_post_recv,
	.post_send = vrdma_post_send,
	.query_device = vrdma_query_device,
	.query_pkey = vrdma_query_pkey,
	.query_port = vrdma_query_port,
	.query_qp = vrdma_query_qp,
	.query_ucontext = vrdma_query_ucontext,
	.reg_user_mr = vrdma_reg_user_mr,
	.rereg_user_mr = vrdma_rereg_user_mr,
	.req_notify_cq = vrdma_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, vrdma_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, vrdma_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, vrdma_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, vrdma_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, vrdma_ucontext, ibuc),
};

static void vrdma_free_vq_names(struct vrdma_dev *dev, unsigned int nvqs)
{
	unsigned int i;

	if (!dev->vq_names)
		return;
	for (i = 0; i < nvqs; i++)
		kfree(dev->vq_names[i]);
	kfree(dev->vq_names);
	dev->vq_names = NULL;
}

static int vrdma_find_vqs(struct vrdma_dev *dev)
{
	unsigned int i, nvqs = 1 + 2 * dev->npairs;
	struct virtqueue_info *info;
	struct virtqueue **vqs;
	int err = -ENOMEM;

	dev->evqs = kcalloc(dev->npairs, sizeof(*dev->evqs), GFP_KERNEL);
	dev->dbqs = kcalloc(dev->npairs, sizeof(*dev->dbqs), GFP_KERNEL);
	dev->vq_names = kcalloc(nvqs, sizeof(*dev->vq_names), GFP_KERNEL);
	vqs = kcalloc(nvqs, sizeof(*vqs), GFP_KERNEL);
	info = kcalloc(nvqs, sizeof(*info), GFP_KERNEL);
	if (!dev->evqs || !dev->dbqs || !dev->vq_names || !vqs || !info)
		goto out;

	/* The virtqueues keep pointing at their names: dev owns them. */
	dev->vq_names[VIRTIO_RDMA_CTRLQ] = kstrdup("controlq", GFP_KERNEL);
	info[VIRTIO_RDMA_CTRLQ].callback = vrdma_ctrlq_done;
	for (i = 0; i < dev->npairs; i++) {
		dev->vq_names[VIRTIO_RDMA_EVENTQ(i)] =
			kasprintf(GFP_KERNEL, "eventq.%u", i);
		info[VIRTIO_RDMA_EVENTQ(i)].callback = vrdma_eventq_done;
		/* Off except while a doorbell is owed (vrdma_event.c). */
		dev->vq_names[VIRTIO_RDMA_DOORBELLQ(i)] =
			kasprintf(GFP_KERNEL, "doorbellq.%u", i);
		info[VIRTIO_RDMA_DOORBELLQ(i)].callback = vrdma_dbq_done;
	}
	for (i = 0; i < nvqs; i++) {
		if (!dev->vq_names[i])
			goto out;
		info[i].name = dev->vq_names[i];
	}

	err = virtio_find_vqs(dev->vdev, nvqs, vqs, info, NULL);
	if (err)
		goto out;

	dev->ctrlq = vqs[VIRTIO_RDMA_CTRLQ];
	for (i = 0; i < dev->npairs; i++) {
		dev->evqs[i].vq = vqs[VIRTIO_RDMA_EVENTQ(i)];
		spin_lock_init(&dev->evqs[i].lock);
		vrdma_dbq_setup(&dev->dbqs[i], vqs[VIRTIO_RDMA_DOORBELLQ(i)]);
	}
out:
	kfree(info);
	kfree(vqs);
	return err;
}

/* Undo everything probe set up on the virtio side; the ib_device stays. */
static void vrdma_teardown(struct vrdma_dev *dev)
{
	struct virtio_device *vdev = dev->vdev;

	vrdma_debugfs_remove(dev);
	if (dev->ctrlq) {
		/* After reset the device accesses no ring, list or buffer. */
		virtio_reset_device(vdev);
		vdev->config->del_vqs(vdev);
		dev->ctrlq = NULL;
	}
	vrdma_devs_lock();
	vdev->priv = NULL;
	vrdma_devs_unlock();

	if (dev->evqs)
		vrdma_eventqs_free(dev);
	if (dev->dbqs)
		vrdma_dbqs_free(dev);
	vrdma_ctrl_cleanup(dev);
	vrdma_free_vq_names(dev, 1 + 2 * dev->npairs);
	kfree(dev->evqs);
	kfree(dev->dbqs);
	vrdma_unbind_netdev(dev);
	if (dev->dev_dma_parms_lent && dev->dma_dev->dma_parms == &dev->dma_parms)
		dev->dma_dev->dma_parms = NULL;
	WARN_ON(!xa_empty(&dev->cqs) || !xa_empty(&dev->qps) ||
		!xa_empty(&dev->srqs));
	xa_destroy(&dev->cqs);
	xa_destroy(&dev->qps);
	xa_destroy(&dev->srqs);
}

static void vrdma_dealloc_driver(struct ib_device *ib)
{
	vrdma_teardown(to_vdev(ib));
}

static const struct ib_device_ops vrdma_dealloc_ops = {
	.dealloc_driver = vrdma_dealloc_driver,
};

static int vrdma_validate(struct virtio_device *vdev)
{
	if (!vdev->config->get) {
		dev_err(&vdev->dev, "device has no configuration space\n");
		return -EINVAL;
	}
	if (!virtio_has_feature(vdev, VIRTIO_F_VERSION_1)) {
		dev_err(&vdev->dev, "device is not a VIRTIO 1.0 device\n");
		return -ENODEV;
	}
	/* Rings stay contiguous where pages would need DMA syncs. */
	if (virtio_has_feature(vdev, VIRTIO_RDMA_F_RING_PAGES) &&
	    !vrdma_ring_pages_ok(vdev->dev.parent))
		__virtio_clear_bit(vdev, VIRTIO_RDMA_F_RING_PAGES);
	/* XRC and TM receives go through SRQs: neither without SRQs (spec). */
	if (!virtio_has_feature(vdev, VIRTIO_RDMA_F_SRQ)) {
		__virtio_clear_bit(vdev, VIRTIO_RDMA_F_XRC);
		__virtio_clear_bit(vdev, VIRTIO_RDMA_F_TM_SRQ);
	}
	return 0;
}

static int vrdma_probe(struct virtio_device *vdev)
{
	struct vrdma_dev *dev;
	u16 npairs;
	int err;

	dev = ib_alloc_device(vrdma_dev, ib);
	if (!dev)
		return -ENOMEM;
	dev->vdev = vdev;
	dev->dma_dev = vdev->dev.parent;
	INIT_LIST_HEAD(&dev->list);
	spin_lock_init(&dev->netdev_lock);
	spin_lock_init(&dev->ctrl_lock);
	INIT_LIST_HEAD(&dev->orphans);
	INIT_LIST_HEAD(&dev->orphan_rings);
	INIT_LIST_HEAD(&dev->orphan_umems);
	xa_init(&dev->cqs);
	xa_init(&dev->qps);
	xa_init(&dev->srqs);

	/* Rings and page lists are DMA-mapped for the device's DMA device. */
	if (!dev->dma_dev) {
		dev_err(&vdev->dev, "transport gives the device no DMA device\n");
		err = -ENODEV;
		goto err_free;
	}
	dev_dbg(&vdev->dev, "DMA device %s\n", dev_name(dev->dma_dev));

	virtio_cread_bytes(vdev, offsetof(struct virtio_rdma_config, mac),
			   dev->mac, ETH_ALEN);
	virtio_cread_le(vdev, struct virtio_rdma_config, num_queue_pairs,
			&npairs);
	if (!npairs) {
		dev_err(&vdev->dev, "device has no event/doorbell queues\n");
		err = -EINVAL;
		goto err_free;
	}
	/* More pairs than CPUs buy nothing: doorbells pick the CPU's queue. */
	dev->npairs = min_t(unsigned int, npairs, num_online_cpus());
	dev->atomic = virtio_has_feature(vdev, VIRTIO_RDMA_F_ATOMIC);
	dev->mr_replace = virtio_has_feature(vdev, VIRTIO_RDMA_F_MR_REPLACE);
	dev->srq = virtio_has_feature(vdev, VIRTIO_RDMA_F_SRQ);
	dev->resize = virtio_has_feature(vdev, VIRTIO_RDMA_F_RESIZE);
	dev->mw = virtio_has_feature(vdev, VIRTIO_RDMA_F_MW);
	dev->mkey = virtio_has_feature(vdev, VIRTIO_RDMA_F_INDIRECT_MKEY);
	dev->ring_pages = virtio_has_feature(vdev, VIRTIO_RDMA_F_RING_PAGES);
	dev->xrc = dev->srq && virtio_has_feature(vdev, VIRTIO_RDMA_F_XRC);
	dev->tm = dev->srq && virtio_has_feature(vdev, VIRTIO_RDMA_F_TM_SRQ);

	err = vrdma_find_vqs(dev);
	if (err)
		goto err_teardown;
	vdev->priv = dev;
	virtio_device_ready(vdev);

	err = vrdma_eventqs_init(dev);
	if (err)
		goto err_teardown;
	err = vrdma_dbqs_init(dev);
	if (err)
		goto err_teardown;
	err = vrdma_query_device_caps(dev);
	if (err)
		goto err_teardown;
	err = vrdma_query_port_caps(dev);
	if (err)
		goto err_teardown;
	err = vrdma_bind_netdev(dev);
	if (err)
		goto err_teardown;

	dev->ib.node_type = RDMA_NODE_IB_CA;
	dev->ib.phys_port_cnt = 1;
	dev->ib.num_comp_vectors = dev->npairs;
	dev->ib.node_guid = dev->caps.node_guid;
	dev->ib.dev.parent = &vdev->dev;
	strscpy(dev->ib.node_desc, "virtio_rdma", sizeof(dev->ib.node_desc));
	ib_set_device_ops(&dev->ib, &vrdma_dev_ops);
	if (dev->srq)
		ib_set_device_ops(&dev->ib, &vrdma_srq_ops);
	if (dev->resize)
		ib_set_device_ops(&dev->ib, &vrdma_resize_ops);
	if (dev->mw)
		ib_set_device_ops(&dev->ib, &vrdma_mw_ops);
	/* Without alloc_xrcd uverbs answers every XRC command EOPNOTSUPP. */
	if (dev->xrc)
		ib_set_device_ops(&dev->ib, &vrdma_xrcd_ops);
	dev->ib.driver_def = vrdma_uapi_defs;
	/* Empty posts are how user space rings a doorbell (vrdma_uverbs.c). */
	dev->ib.uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				   BIT_ULL(IB_USER_VERBS_CMD_POST_RECV);
	/* A TM-SRQ's ops doorbell is an empty post_srq_recv (vrdma_srq.c). */
	if (dev->tm)
		dev->ib.uverbs_cmd_mask |=
			BIT_ULL(IB_USER_VERBS_CMD_POST_SRQ_RECV);

	/*
	 * ib_core sizes DMA segments from the DMA device's parameters and
	 * insists on them.  Software vDPA parents (vdpa_sim, vdpa_rdma) have
	 * none: lend ours for as long as we are bound.
	 */
	if (!dev->dma_dev->dma_parms) {
		dev->dev_dma_parms_lent = true;
		dev->dma_dev->dma_parms = &dev->dma_parms;
		dma_set_max_seg_size(dev->dma_dev, UINT_MAX);
	}

	/* GIDs follow the netdev's addresses through ib_core's RoCE GID code. */
	err = ib_device_set_netdev(&dev->ib, dev->netdev, VRDMA_PORT);
	if (err)
		goto err_teardown;

	err = ib_register_device(&dev->ib, "virtio_rdma%d", dev->dma_dev);
	if (err) {
		dev_err(&vdev->dev, "ib_register_device failed: %d\n", err);
		goto err_teardown;
	}
	/* Only a registered device may be freed by ib_core on its own. */
	ib_set_device_ops(&dev->ib, &vrdma_dealloc_ops);
	vrdma_debugfs_add(dev);
	vrdma_registered(dev);
	return 0;

err_teardown:
	vrdma_teardown(dev);
err_free:
	ib_dealloc_device(&dev->ib);
	return err;
}

static void vrdma_remove(struct virtio_device *vdev)
{
	struct vrdma_dev *dev;

	vrdma_devs_lock();
	dev = vdev->priv;
	if (dev)
		get_device(&dev->ib.dev);
	vrdma_devs_unlock();
	/* NULL: the netdev went away earlier and the device is already reset. */
	if (!dev)
		return;
	ib_unregister_device(&dev->ib);
	put_device(&dev->ib.dev);
}

static const struct virtio_device_id vrdma_id_table[] = {
	{ VIRTIO_ID_RDMA, VIRTIO_DEV_ANY_ID },
	{ 0 },
};
MODULE_DEVICE_TABLE(virtio, vrdma_id_table);

static unsigned int vrdma_features[] = {
	VIRTIO_RDMA_F_SRQ,
	VIRTIO_RDMA_F_ATOMIC,
	VIRTIO_RDMA_F_MW,
	VIRTIO_RDMA_F_RESIZE,
	VIRTIO_RDMA_F_INDIRECT_MKEY,
	VIRTIO_RDMA_F_MR_REPLACE,
	VIRTIO_RDMA_F_RING_PAGES,
	VIRTIO_RDMA_F_XRC,
	VIRTIO_RDMA_F_TM_SRQ,
	VIRTIO_RING_F_EVENT_IDX,
	VIRTIO_F_VERSION_1,
};

static struct virtio_driver vrdma_driver = {
	.driver.name = KBUILD_MODNAME,
	.id_table = vrdma_id_table,
	.feature_table = vrdma_features,
	.feature_table_size = ARRAY_SIZE(vrdma_features),
	.validate = vrdma_validate,
	.probe = vrdma_probe,
	.remove = vrdma_remove,
};

static int __init vrdma_init(void)
{
	int err;

	vrdma_debugfs_init();
	err = vrdma_netdev_init();
	if (err)
		goto err_debugfs;
	err = register_virtio_driver(&vrdma_driver);
	if (err)
		goto err_netdev;
	return 0;

err_netdev:
	vrdma_netdev_exit();
err_debugfs:
	vrdma_debugfs_exit();
	return err;
}

static void __exit vrdma_exit(void)
{
	unregister_virtio_driver(&vrdma_driver);
	/*
	 * Waits for unregistrations queued by the netdev notifier.  Only our
	 * own id: RDMA_DRIVER_UNKNOWN would take every device without one.
	 */
	ib_unregister_driver(RDMA_DRIVER_VIRTIO_RDMA);
	vrdma_netdev_exit();
	vrdma_debugfs_exit();
}

module_init(vrdma_init);
module_exit(vrdma_exit);

MODULE_DESCRIPTION("virtio-rdma guest driver");
MODULE_LICENSE("Dual BSD/GPL");
