// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The virtio-rdma authors */
/* vdpa_rdma: the port's GID table. */
#include <linux/inetdevice.h>
#include <net/addrconf.h>

#include "vdpa_rdma.h"

/*
 * Whether @gid is an address of @ndev: an IPv4 address (IPv4-mapped GID) or
 * IPv6 address configured on it, tentative ones included (ib_core installs
 * an address as IPv6 adds it, before duplicate address detection ends), or
 * the link-local address formed from its MAC, which ib_core installs as
 * the port's default GID whether or not IPv6 configured it.  Under RCU.
 */
static bool vdr_gid_of_netdev(struct net_device *ndev, const u8 *gid)
{
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	struct in6_addr a;
	u8 dflt[16] = { 0xfe, 0x80 };

	memcpy(&a, gid, sizeof(a));
	if (ipv6_addr_v4mapped(&a)) {
		in_dev = __in_dev_get_rcu(ndev);
		if (!in_dev)
			return false;
		in_dev_for_each_ifa_rcu(ifa, in_dev)
			if (ifa->ifa_local == a.s6_addr32[3])
				return true;
		return false;
	}
	if (!addrconf_ifid_eui48(&dflt[8], ndev) && !memcmp(dflt, gid, 16))
		return true;
#if IS_ENABLED(CONFIG_IPV6)
	return ipv6_chk_addr_and_flags(dev_net(ndev), &a, ndev, false, 1, 0);
#else
	return false;
#endif
}

int vdr_cmd_add_gid(struct vdr_dev *dev)
{
	const struct virtio_rdma_add_gid_req *req = &dev->req.add_gid;
	u32 index = le32_to_cpu(req->index);
	u32 type = le32_to_cpu(req->gid_type);
	struct net_device *ndev;
	struct vdr_gid *gid;
	bool ours;

	if (index >= VDR_GID_TBL_LEN)
		return VIRTIO_RDMA_STATUS_INVAL;
	if (type == VIRTIO_RDMA_GID_TYPE_ROCE_V1)
		return VIRTIO_RDMA_STATUS_OPNOTSUPP;
	if (type != VIRTIO_RDMA_GID_TYPE_ROCE_V2)
		return VIRTIO_RDMA_STATUS_INVAL;

	/*
	 * A driver (a virtual machine's, through vhost-vdpa) can send from
	 * and receive for the addresses its host gave the netdev, no other.
	 */
	rcu_read_lock();
	ndev = rcu_dereference(dev->netdev);
	ours = ndev && vdr_gid_of_netdev(ndev, req->gid);
	rcu_read_unlock();
	if (!ours)
		return VIRTIO_RDMA_STATUS_PERM;

	gid = &dev->gids[index];
	spin_lock(&dev->gid_lock);
	memcpy(gid->gid, req->gid, sizeof(gid->gid));
	WRITE_ONCE(gid->valid, true);
	spin_unlock(&dev->gid_lock);
	return VIRTIO_RDMA_STATUS_OK;
}

int vdr_cmd_del_gid(struct vdr_dev *dev)
{
	u32 index = le32_to_cpu(dev->req.del_gid.index);

	if (index >= VDR_GID_TBL_LEN)
		return VIRTIO_RDMA_STATUS_INVAL;
	if (!dev->gids[index].valid)
		return VIRTIO_RDMA_STATUS_NOENT;
	spin_lock(&dev->gid_lock);
	memset(&dev->gids[index], 0, sizeof(dev->gids[index]));
	spin_unlock(&dev->gid_lock);
	return VIRTIO_RDMA_STATUS_OK;
}

void vdr_gids_clear(struct vdr_dev *dev)
{
	spin_lock(&dev->gid_lock);
	memset(dev->gids, 0, sizeof(dev->gids));
	spin_unlock(&dev->gid_lock);
}
