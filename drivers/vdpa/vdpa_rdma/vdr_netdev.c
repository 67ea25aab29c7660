// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: the bound Ethernet netdev: lookup by MAC, port attributes and
 * the notifier that follows its state.
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/nsproxy.h>
#include <linux/rtnetlink.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>

#include "vdpa_rdma.h"

/*
 * Worst-case RoCEv2 headers the MTU has to leave room for; the value
 * rdma_rxe uses, so that both ends of a link pick the same path MTU.
 */
#define VDR_ROCE_HDR_MAX	80

static LIST_HEAD(vdr_devs);
/* Protects vdr_devs; nests inside RTNL. */
static DEFINE_MUTEX(vdr_devs_lock);

static struct net_device *vdr_find_in(struct net *net, const u8 *mac)
{
	static const unsigned short types[] = { ARPHRD_ETHER, ARPHRD_LOOPBACK };
	struct net_device *ndev;
	int i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		ndev = dev_getbyhwaddr_rcu(net, types[i], mac);
		if (ndev && ndev->reg_state == NETREG_REGISTERED)
			return ndev;
	}
	return NULL;
}

/*
 * Finds the netdev with @mac, preferring the caller's network namespace,
 * then any other.  Caller holds RTNL, which keeps the result registered.
 */
struct net_device *vdr_netdev_find(const u8 *mac)
{
	struct net *cur = current->nsproxy ? current->nsproxy->net_ns :
					     &init_net;
	struct net_device *ndev;
	struct net *net;

	ASSERT_RTNL();
	rcu_read_lock();
	ndev = vdr_find_in(cur, mac);
	if (!ndev) {
		for_each_net_rcu(net) {
			if (net == cur)
				continue;
			ndev = vdr_find_in(net, mac);
			if (ndev)
				break;
		}
	}
	rcu_read_unlock();
	return ndev;
}

bool vdr_netdev_port_active(struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev);
}

u8 vdr_mtu_to_ib(unsigned int mtu)
{
	int room = (int)mtu - VDR_ROCE_HDR_MAX;

	if (room >= 4096)
		return VIRTIO_RDMA_MTU_4096;
	if (room >= 2048)
		return VIRTIO_RDMA_MTU_2048;
	if (room >= 1024)
		return VIRTIO_RDMA_MTU_1024;
	if (room >= 512)
		return VIRTIO_RDMA_MTU_512;
	return VIRTIO_RDMA_MTU_256;
}

u8 vdr_active_mtu(struct vdr_dev *dev)
{
	struct net_device *ndev;
	u8 mtu = VIRTIO_RDMA_MTU_256;

	rcu_read_lock();
	ndev = rcu_dereference(dev->netdev);
	if (ndev)
		mtu = vdr_mtu_to_ib(READ_ONCE(ndev->mtu));
	rcu_read_unlock();
	return mtu;
}

void vdr_netdev_port_attr(struct vdr_dev *dev,
			  struct virtio_rdma_query_port_resp *r)
{
	struct net_device *ndev;
	bool active = false;

	rcu_read_lock();
	ndev = rcu_dereference(dev->netdev);
	if (ndev)
		active = vdr_netdev_port_active(ndev);
	rcu_read_unlock();

	r->state = active ? VIRTIO_RDMA_PORT_ACTIVE : VIRTIO_RDMA_PORT_DOWN;
	r->phys_state = active ? VIRTIO_RDMA_PORT_PHYS_LINK_UP :
				 VIRTIO_RDMA_PORT_PHYS_DISABLED;
	r->max_mtu = VIRTIO_RDMA_MTU_4096;
	r->active_mtu = vdr_active_mtu(dev);
	r->gid_tbl_len = cpu_to_le32(VDR_GID_TBL_LEN);
	r->port_cap_flags = cpu_to_le32(VIRTIO_RDMA_PORT_CAP_CM_SUP |
					VIRTIO_RDMA_PORT_CAP_IP_BASED_GIDS);
	r->max_msg_sz = cpu_to_le32(VDR_MAX_MSG_SZ);
	/* A software device has no lanes: report a plausible 100 Gb/s. */
	r->active_speed = cpu_to_le16(IB_SPEED_EDR);
	r->active_width = IB_WIDTH_4X;
	r->pkey_tbl_len = cpu_to_le16(1);
}

void vdr_dev_list_add(struct vdr_dev *dev)
{
	mutex_lock(&vdr_devs_lock);
	list_add_tail(&dev->list, &vdr_devs);
	mutex_unlock(&vdr_devs_lock);
}

void vdr_dev_list_del(struct vdr_dev *dev)
{
	mutex_lock(&vdr_devs_lock);
	list_del_init(&dev->list);
	mutex_unlock(&vdr_devs_lock);
}

static void vdr_port_update(struct vdr_dev *dev, struct net_device *ndev)
{
	bool active = vdr_netdev_port_active(ndev);

	if (active == dev->port_active)
		return;
	dev->port_active = active;
	vdr_event_raise(dev, active ? &dev->port_active_ev :
					&dev->port_err_ev, 0);
}

/*
 * The netdev is going away: drop it, tell the driver the port is down and
 * the device dead.  The vDPA device itself stays until "vdpa dev del".
 */
static void vdr_port_gone(struct vdr_dev *dev, struct net_device *ndev)
{
	RCU_INIT_POINTER(dev->netdev, NULL);
	netdev_put(ndev, &dev->netdev_tracker);
	dev_warn(&dev->vdpa.dev, "network device %s unregistered; device is dead\n",
		 netdev_name(ndev));
	if (dev->port_active) {
		dev->port_active = false;
		vdr_event_raise(dev, &dev->port_err_ev, 0);
	}
	vdr_event_raise(dev, &dev->fatal_ev, 0);
}

static int vdr_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct vdr_dev *dev;

	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_UNREGISTER:
		break;
	default:
		return NOTIFY_DONE;
	}

	mutex_lock(&vdr_devs_lock);
	list_for_each_entry(dev, &vdr_devs, list) {
		if (rcu_access_pointer(dev->netdev) != ndev)
			continue;
		if (event == NETDEV_UNREGISTER)
			vdr_port_gone(dev, ndev);
		else
			vdr_port_update(dev, ndev);
	}
	mutex_unlock(&vdr_devs_lock);
	return NOTIFY_DONE;
}

static struct notifier_block vdr_netdev_nb = {
	.notifier_call = vdr_netdev_event,
};

int vdr_netdev_register_notifier(void)
{
	return register_netdevice_notifier(&vdr_netdev_nb);
}

void vdr_netdev_unregister_notifier(void)
{
	unregister_netdevice_notifier(&vdr_netdev_nb);
}
