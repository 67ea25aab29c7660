// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma device and port attributes, and the binding to the Ethernet
 * network device whose MAC the device reports.
 */

#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/rtnetlink.h>
#include <net/net_namespace.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_mad.h>

#include "vrdma.h"

/* Devices bound to a netdev; the netdev notifier walks it under RTNL. */
static LIST_HEAD(vrdma_devs);
static DEFINE_MUTEX(vrdma_devs_mutex);

/*
 * Tag matching limits.  A TM-SRQ needs at least one tag, one op and one
 * SGE, and its ops must fit the largest stride (64 << 3): a device that
 * says otherwise has no tag matching to give.
 */
static void vrdma_tm_caps(struct vrdma_dev *dev,
			  const struct virtio_rdma_query_device_resp *r)
{
	struct vrdma_caps *c = &dev->caps;

	c->max_tm_tags = min_t(u32, le32_to_cpu(r->max_tm_tags),
			       VIRTIO_RDMA_TM_HANDLE_INDEX_MASK + 1);
	c->max_tm_ops = rounddown_pow_of_two(le32_to_cpu(r->max_tm_ops) ?: 1);
	c->max_tm_sge = le32_to_cpu(r->max_tm_sge);
	c->max_rndv_hdr_size = le32_to_cpu(r->max_rndv_hdr_size);
	if (!c->max_tm_tags || !le32_to_cpu(r->max_tm_ops) || !c->max_tm_sge ||
	    sizeof(struct virtio_rdma_tm_op) +
	    c->max_tm_sge * sizeof(struct virtio_rdma_sge) >
	    (1U << (VIRTIO_RDMA_TM_OP_BASE_SHIFT + VRDMA_TM_MAX_OPS_SHIFT))) {
		c->max_tm_tags = 0;
		c->max_tm_ops = 0;
		c->max_tm_sge = 0;
		c->max_rndv_hdr_size = 0;
	}
}

int vrdma_query_device_caps(struct vrdma_dev *dev)
{
	struct virtio_rdma_query_device_resp *r;
	struct vrdma_caps *c = &dev->caps;
	int err;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_QUERY_DEVICE, NULL, 0, r,
			sizeof(*r));
	if (err)
		goto out;

	c->fw_ver = le64_to_cpu(r->fw_ver);
	memcpy(&c->sys_image_guid, r->sys_image_guid, sizeof(c->sys_image_guid));
	memcpy(&c->node_guid, r->node_guid, sizeof(c->node_guid));
	c->max_mr_size = le64_to_cpu(r->max_mr_size);
	c->page_size_cap = le64_to_cpu(r->page_size_cap);
	c->vendor_id = le32_to_cpu(r->vendor_id);
	c->vendor_part_id = le32_to_cpu(r->vendor_part_id);
	c->hw_ver = le32_to_cpu(r->hw_ver);
	c->max_qp = le32_to_cpu(r->max_qp);
	c->max_qp_wr = le32_to_cpu(r->max_qp_wr);
	c->max_send_sge = le32_to_cpu(r->max_send_sge);
	c->max_recv_sge = le32_to_cpu(r->max_recv_sge);
	c->max_sge_rd = le32_to_cpu(r->max_sge_rd);
	c->max_cq = le32_to_cpu(r->max_cq);
	c->max_cqe = le32_to_cpu(r->max_cqe);
	c->max_mr = le32_to_cpu(r->max_mr);
	c->max_pd = le32_to_cpu(r->max_pd);
	c->max_qp_rd_atom = le32_to_cpu(r->max_qp_rd_atom);
	c->max_qp_init_rd_atom = le32_to_cpu(r->max_qp_init_rd_atom);
	c->max_ah = le32_to_cpu(r->max_ah);
	c->max_fast_reg_page_list_len =
		le32_to_cpu(r->max_fast_reg_page_list_len);
	c->max_inline_data = le32_to_cpu(r->max_inline_data);
	c->max_pkeys = le16_to_cpu(r->max_pkeys);
	c->local_ca_ack_delay = r->local_ca_ack_delay;
	c->atomic_cap = r->atomic_cap;
	c->device_cap_flags = le64_to_cpu(r->device_cap_flags);
	c->max_msg_sz = le32_to_cpu(r->max_msg_sz);
	c->max_sq_wqe_shift = r->max_sq_wqe_shift;
	c->max_rq_wqe_shift = r->max_rq_wqe_shift;
	/* A device that offers SRQs without limits has none to give. */
	if (dev->srq) {
		c->max_srq = le32_to_cpu(r->max_srq);
		c->max_srq_wr = rounddown_pow_of_two(le32_to_cpu(r->max_srq_wr) ?: 1);
		c->max_srq_sge = le32_to_cpu(r->max_srq_sge);
		if (!c->max_srq || !c->max_srq_sge) {
			c->max_srq = 0;
			c->max_srq_wr = 0;
			c->max_srq_sge = 0;
		}
	}

	if (dev->mw)
		c->max_mw = le32_to_cpu(r->max_mw);
	if (dev->mkey)
		c->max_mkey_entries = le32_to_cpu(r->max_mkey_entries);
	if (dev->tm && c->max_srq)
		vrdma_tm_caps(dev, r);

	/* Ring geometry below relies on these; refuse a device that breaks them. */
	if (!c->max_qp_wr || !is_power_of_2(c->max_qp_wr) ||
	    !c->max_cqe || !is_power_of_2(c->max_cqe) ||
	    c->max_sq_wqe_shift > 8 || c->max_rq_wqe_shift > 8 ||
	    !(c->page_size_cap & SZ_4K)) {
		dev_err(&dev->vdev->dev, "device reports unusable limits\n");
		err = -EINVAL;
	}
out:
	kfree(r);
	return err;
}

static int vrdma_query_port_cmd(struct vrdma_dev *dev,
				struct virtio_rdma_query_port_resp *r)
{
	struct virtio_rdma_query_port_req req = {
		.port = cpu_to_le32(VRDMA_PORT),
	};

	return vrdma_cmd(dev, VIRTIO_RDMA_CMD_QUERY_PORT, &req, sizeof(req),
			 r, sizeof(*r));
}

int vrdma_query_port_caps(struct vrdma_dev *dev)
{
	struct virtio_rdma_query_port_resp *r = &dev->port;
	int err;

	err = vrdma_query_port_cmd(dev, r);
	if (err)
		return err;
	dev->gid_tbl_len = le32_to_cpu(r->gid_tbl_len);
	dev->max_mtu = r->max_mtu;
	if (!dev->gid_tbl_len || dev->max_mtu < IB_MTU_256 ||
	    dev->max_mtu > IB_MTU_4096 || le16_to_cpu(r->pkey_tbl_len) != 1) {
		dev_err(&dev->vdev->dev, "device reports unusable port\n");
		return -EINVAL;
	}
	return 0;
}

int vrdma_query_device(struct ib_device *ib, struct ib_device_attr *attr,
		       struct ib_udata *udata)
{
	struct vrdma_dev *dev = to_vdev(ib);
	const struct vrdma_caps *c = &dev->caps;

	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = c->fw_ver;
	attr->sys_image_guid = c->sys_image_guid;
	attr->max_mr_size = c->max_mr_size;
	attr->page_size_cap = c->page_size_cap;
	attr->vendor_id = c->vendor_id;
	attr->vendor_part_id = c->vendor_part_id;
	attr->hw_ver = c->hw_ver;
	attr->max_qp = c->max_qp;
	attr->max_qp_wr = c->max_qp_wr;
	attr->max_send_sge = c->max_send_sge;
	attr->max_recv_sge = c->max_recv_sge;
	attr->max_sge_rd = c->max_sge_rd;
	attr->max_cq = c->max_cq;
	attr->max_cqe = c->max_cqe;
	attr->max_mr = c->max_mr;
	attr->max_pd = c->max_pd;
	attr->max_qp_rd_atom = c->max_qp_rd_atom;
	attr->max_qp_init_rd_atom = c->max_qp_init_rd_atom;
	attr->max_res_rd_atom = c->max_qp_rd_atom * c->max_qp;
	attr->max_ah = c->max_ah;
	attr->max_fast_reg_page_list_len = c->max_fast_reg_page_list_len;
	attr->max_pkeys = c->max_pkeys;
	attr->max_srq = c->max_srq;
	attr->max_srq_wr = c->max_srq_wr;
	attr->max_srq_sge = c->max_srq_sge;
	attr->max_mw = c->max_mw;
	attr->local_ca_ack_delay = c->local_ca_ack_delay;

	/* The device reports HCA only with the feature; do not trust it alone. */
	if (dev->atomic && c->atomic_cap == VIRTIO_RDMA_ATOMIC_HCA)
		attr->atomic_cap = IB_ATOMIC_HCA;
	else if (dev->atomic && c->atomic_cap == VIRTIO_RDMA_ATOMIC_GLOB)
		attr->atomic_cap = IB_ATOMIC_GLOB;
	else
		attr->atomic_cap = IB_ATOMIC_NONE;

	if (c->device_cap_flags & VIRTIO_RDMA_DEVICE_CAP_MEM_MGT_EXTENSIONS)
		attr->device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
	if (c->max_mw)
		attr->device_cap_flags |= IB_DEVICE_MEM_WINDOW |
					  IB_DEVICE_MEM_WINDOW_TYPE_2B;
	/* XRC receives need XRC SRQs: a device without SRQs to give has none. */
	if (dev->xrc && c->max_srq)
		attr->device_cap_flags |= IB_DEVICE_XRC;
	if (c->device_cap_flags & VIRTIO_RDMA_DEVICE_CAP_RC_RNR_NAK_GEN)
		attr->device_cap_flags |= IB_DEVICE_RC_RNR_NAK_GEN;
	if (c->device_cap_flags & VIRTIO_RDMA_DEVICE_CAP_PORT_ACTIVE_EVENT)
		attr->device_cap_flags |= IB_DEVICE_PORT_ACTIVE_EVENT;
	if (c->device_cap_flags & VIRTIO_RDMA_DEVICE_CAP_SYS_IMAGE_GUID)
		attr->device_cap_flags |= IB_DEVICE_SYS_IMAGE_GUID;
	if (c->device_cap_flags & VIRTIO_RDMA_DEVICE_CAP_CURR_QP_STATE_MOD)
		attr->device_cap_flags |= IB_DEVICE_CURR_QP_STATE_MOD;
	if (c->max_tm_tags) {
		attr->tm_caps.max_rndv_hdr_size = c->max_rndv_hdr_size;
		attr->tm_caps.max_num_tags = c->max_tm_tags;
		attr->tm_caps.flags = IB_TM_CAP_RNDV_RC;
		attr->tm_caps.max_ops = c->max_tm_ops;
		attr->tm_caps.max_sge = c->max_tm_sge;
	}
	return 0;
}

/* Port state follows the bound netdev, as for any RoCE device. */
enum ib_port_state vrdma_netdev_port_state(struct vrdma_dev *dev)
{
	enum ib_port_state state = IB_PORT_DOWN;
	unsigned long flags;

	spin_lock_irqsave(&dev->netdev_lock, flags);
	if (dev->netdev && netif_running(dev->netdev) &&
	    netif_carrier_ok(dev->netdev))
		state = IB_PORT_ACTIVE;
	spin_unlock_irqrestore(&dev->netdev_lock, flags);
	return state;
}

/*
 * The device's active_mtu rule (spec, QUERY_PORT): the largest IB MTU that
 * fits the netdev's MTU after 80 bytes of RoCEv2 headers, as rdma_rxe
 * counts them.  iboe_get_mtu() allows 96 and would report one MTU less
 * than the device for netdev MTUs just above an IB MTU plus 80.
 */
#define VRDMA_ROCE_HDR_MAX	80

static enum ib_mtu vrdma_mtu_from_netdev(int mtu)
{
	enum ib_mtu m;

	for (m = IB_MTU_4096; m > IB_MTU_256; m--)
		if (mtu - VRDMA_ROCE_HDR_MAX >= ib_mtu_enum_to_int(m))
			return m;
	return IB_MTU_256;
}

static int vrdma_netdev_mtu(struct vrdma_dev *dev)
{
	unsigned long flags;
	int mtu = 0;

	spin_lock_irqsave(&dev->netdev_lock, flags);
	if (dev->netdev)
		mtu = READ_ONCE(dev->netdev->mtu);
	spin_unlock_irqrestore(&dev->netdev_lock, flags);
	return mtu;
}

int vrdma_query_port(struct ib_device *ib, u32 port, struct ib_port_attr *attr)
{
	struct vrdma_dev *dev = to_vdev(ib);
	/*
	 * Everything but state and MTU is fixed for the device's life, and
	 * those follow the netdev, so the probe-time QUERY_PORT answer serves:
	 * ib_query_port() callers may hold locks, and commands sleep.
	 */
	const struct virtio_rdma_query_port_resp *r = &dev->port;
	enum ib_mtu mtu;
	u32 flags;

	if (port != VRDMA_PORT)
		return -EINVAL;

	attr->state = vrdma_netdev_port_state(dev);
	attr->phys_state = attr->state == IB_PORT_ACTIVE ?
			   IB_PORT_PHYS_STATE_LINK_UP :
			   IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = clamp_t(u8, r->max_mtu, IB_MTU_256, IB_MTU_4096);
	/* The device's MTU may lag the netdev's; never report more than fits. */
	mtu = vrdma_mtu_from_netdev(vrdma_netdev_mtu(dev));
	attr->active_mtu = min_t(u8, mtu, attr->max_mtu);
	attr->gid_tbl_len = le32_to_cpu(r->gid_tbl_len);
	attr->pkey_tbl_len = le16_to_cpu(r->pkey_tbl_len);
	attr->max_msg_sz = le32_to_cpu(r->max_msg_sz);
	attr->active_speed = le16_to_cpu(r->active_speed);
	attr->active_width = r->active_width;
	flags = le32_to_cpu(r->port_cap_flags);
	if (flags & VIRTIO_RDMA_PORT_CAP_CM_SUP)
		attr->port_cap_flags |= IB_PORT_CM_SUP;
	if (flags & VIRTIO_RDMA_PORT_CAP_IP_BASED_GIDS) {
		attr->port_cap_flags |= IB_UVERBS_PCF_IP_BASED_GIDS;
		attr->ip_gids = true;
	}
	return 0;
}

int vrdma_query_pkey(struct ib_device *ib, u32 port, u16 index, u16 *pkey)
{
	if (port != VRDMA_PORT || index)
		return -EINVAL;
	*pkey = VRDMA_PKEY_DEFAULT;
	return 0;
}

/*
 * RoCEv2 only: the device rejects RoCE v1 GIDs (OPNOTSUPP), so the core must
 * not create them.  RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP has no v1 bit.
 */
int vrdma_get_port_immutable(struct ib_device *ib, u32 port,
			     struct ib_port_immutable *immutable)
{
	struct vrdma_dev *dev = to_vdev(ib);

	if (port != VRDMA_PORT)
		return -EINVAL;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->pkey_tbl_len = 1;
	immutable->gid_tbl_len = dev->gid_tbl_len;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

enum rdma_link_layer vrdma_get_link_layer(struct ib_device *ib, u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

void vrdma_get_fw_str(struct ib_device *ib, char *str)
{
	u64 v = to_vdev(ib)->caps.fw_ver;

	snprintf(str, IB_FW_VERSION_NAME_MAX, "%u.%u.%u",
		 (u32)(v >> 32), (u32)(v >> 16) & 0xffff, (u32)v & 0xffff);
}

void vrdma_port_event(struct vrdma_dev *dev, enum ib_port_state state)
{
	struct ib_event ev = {};
	unsigned long flags;
	bool changed;

	spin_lock_irqsave(&dev->netdev_lock, flags);
	changed = dev->port_state != state;
	dev->port_state = state;
	spin_unlock_irqrestore(&dev->netdev_lock, flags);
	if (!changed || !READ_ONCE(dev->registered))
		return;

	ev.device = &dev->ib;
	ev.element.port_num = VRDMA_PORT;
	ev.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
					     IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
}

/* Caller holds RTNL, so whatever is found stays registered until we hold it. */
static struct net_device *vrdma_find_netdev(const u8 *mac)
{
	struct net_device *ndev = NULL;
	struct net *net;

	rcu_read_lock();
	for_each_net_rcu(net) {
		ndev = dev_getbyhwaddr_rcu(net, ARPHRD_ETHER, mac);
		/* The loopback device serves single-host setups, as with rxe. */
		if (!ndev)
			ndev = dev_getbyhwaddr_rcu(net, ARPHRD_LOOPBACK, mac);
		if (ndev)
			break;
	}
	rcu_read_unlock();
	return ndev;
}

int vrdma_bind_netdev(struct vrdma_dev *dev)
{
	struct net_device *ndev;

	rtnl_lock();
	ndev = vrdma_find_netdev(dev->mac);
	if (!ndev) {
		rtnl_unlock();
		dev_err(&dev->vdev->dev,
			"no Ethernet device with MAC %pM in any network namespace\n",
			dev->mac);
		return -ENODEV;
	}
	netdev_hold(ndev, &dev->netdev_tracker, GFP_KERNEL);
	spin_lock_irq(&dev->netdev_lock);
	dev->netdev = ndev;
	spin_unlock_irq(&dev->netdev_lock);
	dev->port_state = vrdma_netdev_port_state(dev);

	mutex_lock(&vrdma_devs_mutex);
	list_add_tail(&dev->list, &vrdma_devs);
	mutex_unlock(&vrdma_devs_mutex);
	rtnl_unlock();

	dev_info(&dev->vdev->dev, "bound to %s (%pM)\n", netdev_name(ndev),
		 dev->mac);
	return 0;
}

/* Caller holds vrdma_devs_mutex. */
static void vrdma_drop_netdev(struct vrdma_dev *dev)
{
	struct net_device *ndev;

	spin_lock_irq(&dev->netdev_lock);
	ndev = dev->netdev;
	dev->netdev = NULL;
	spin_unlock_irq(&dev->netdev_lock);
	if (ndev)
		netdev_put(ndev, &dev->netdev_tracker);
}

void vrdma_unbind_netdev(struct vrdma_dev *dev)
{
	mutex_lock(&vrdma_devs_mutex);
	if (!list_empty(&dev->list))
		list_del_init(&dev->list);
	vrdma_drop_netdev(dev);
	mutex_unlock(&vrdma_devs_mutex);
}

/* After ib_register_device(): from now on the notifier may unregister. */
void vrdma_registered(struct vrdma_dev *dev)
{
	bool lost;

	mutex_lock(&vrdma_devs_mutex);
	WRITE_ONCE(dev->registered, true);
	lost = dev->netdev_lost;
	mutex_unlock(&vrdma_devs_mutex);
	if (lost)
		ib_unregister_device_queued(&dev->ib);
}

static int vrdma_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct vrdma_dev *dev;

	mutex_lock(&vrdma_devs_mutex);
	list_for_each_entry(dev, &vrdma_devs, list) {
		if (dev->netdev != ndev)
			continue;
		switch (event) {
		case NETDEV_UNREGISTER:
			/*
			 * Also sent when the netdev moves to another namespace:
			 * like rxe, the RDMA device goes away with it.  Drop our
			 * references now so unregister_netdevice() need not wait
			 * for the asynchronous unregistration.
			 */
			dev_info(&dev->vdev->dev, "%s unregistered\n",
				 netdev_name(ndev));
			vrdma_drop_netdev(dev);
			if (dev->registered) {
				ib_device_set_netdev(&dev->ib, NULL, VRDMA_PORT);
				ib_unregister_device_queued(&dev->ib);
			} else {
				dev->netdev_lost = true;
			}
			break;
		case NETDEV_UP:
		case NETDEV_DOWN:
		case NETDEV_CHANGE:
			vrdma_port_event(dev, vrdma_netdev_port_state(dev));
			break;
		default:
			break;
		}
	}
	mutex_unlock(&vrdma_devs_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block vrdma_netdev_nb = {
	.notifier_call = vrdma_netdev_event,
};

int vrdma_netdev_init(void)
{
	return register_netdevice_notifier(&vrdma_netdev_nb);
}

void vrdma_netdev_exit(void)
{
	unregister_netdevice_notifier(&vrdma_netdev_nb);
}

/* Also serialises vdev->priv against the asynchronous dealloc_driver path. */
void vrdma_devs_lock(void)
{
	mutex_lock(&vrdma_devs_mutex);
}

void vrdma_devs_unlock(void)
{
	mutex_unlock(&vrdma_devs_mutex);
}
