// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: RoCEv2 encapsulation: the UDP port 4791 sockets and IP/UDP
 * headers.
 *
 * Each network namespace that holds a bound netdev gets one IPv4 and one
 * IPv6 UDP socket on port 4791, shared by the devices of that namespace and
 * created when the first one attaches.  Received packets are matched to a
 * device by destination address (its GID table), preferring the device
 * bound to the ingress netdev, and queued to it; the device worker does the
 * rest in process context.  Sending builds the IP and UDP headers after a
 * route lookup in the netdev's namespace and hands the packet to the IP
 * layer, so two devices in one kernel can talk through the same path as two
 * machines (over lo, or a veth pair between namespaces).
 *
 * The same-host path: when the destination GID belongs to another
 * vdpa_rdma device of this kernel (two VMs on one host, or two devices of
 * one guest), and both devices have it switched on (module parameter and
 * sysfs attribute "same_host"), the packet skips routing, the IP layer, the
 * netdevs and the ICRC: its IP and UDP headers are built as on the wire and
 * it goes straight to the destination's QP queue.  Everything else (PSNs,
 * ACK/NAK, RNR, retransmission, counters) is the wire's transport, so the
 * semantics are the same; only loss, which a lossless path never has, and
 * netfilter, tc and packet capture on the netdevs are gone.  A port that is
 * down (netdev down or without carrier) sends and receives nothing on
 * either path.
 */
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_verbs.h>

#include "roce.h"
#include "roce_hdr.h"
#include "vdpa_rdma.h"
#include "vdr_xport.h"

/* Packets queued to a device and not yet processed; beyond, drop. */
#define VDR_RXQ_MAX		4096
#define VDR_DEF_HOP_LIMIT	64

struct vdr_net {
	struct socket *sk4;
	struct socket *sk6;
	unsigned int users;		/* attached devices */
	struct list_head devs;		/* struct vdr_xdev, RCU for RX */
};

static unsigned int vdr_net_id __read_mostly;
/* Serialises attach, detach and namespace exit. */
static DEFINE_MUTEX(vdr_net_mutex);
/* Every attached device, of every namespace: same-host destinations (RCU). */
static LIST_HEAD(vdr_local_devs);

static bool same_host = true;
module_param(same_host, bool, 0644);
MODULE_PARM_DESC(same_host,
		 "Whether new devices deliver to other vdpa_rdma devices of this kernel directly, without the network stack (default true; per device: sysfs same_host)");

static unsigned int same_host_seg = VDR_SEG_MAX_BYTES;
module_param(same_host_seg, uint, 0644);
MODULE_PARM_DESC(same_host_seg,
		 "Bytes of a message the same-host path sends as one packet, in whole path-MTU packets (default and most 32768; 0: one path MTU, as on the wire)");

static ssize_t same_host_show(struct device *d, struct device_attribute *attr,
			      char *buf)
{
	struct vdr_dev *dev = container_of(d, struct vdr_dev, vdpa.dev);

	return sysfs_emit(buf, "%d\n", READ_ONCE(dev->same_host));
}

static ssize_t same_host_store(struct device *d, struct device_attribute *attr,
			       const char *buf, size_t count)
{
	struct vdr_dev *dev = container_of(d, struct vdr_dev, vdpa.dev);
	bool on;
	int ret;

	ret = kstrtobool(buf, &on);
	if (ret)
		return ret;
	/* Packets already queued stay where they are; both paths are ordered. */
	WRITE_ONCE(dev->same_host, on);
	return count;
}
static DEVICE_ATTR_RW(same_host);

static struct attribute *vdr_net_attrs[] = {
	&dev_attr_same_host.attr,
	NULL,
};

static const struct attribute_group vdr_net_group = {
	.attrs = vdr_net_attrs,
};

/* The vDPA device's attributes (/sys/bus/vdpa/devices/NAME/). */
static const struct attribute_group *vdr_net_groups[] = {
	&vdr_net_group,
#if IS_ENABLED(CONFIG_VDPA_RDMA_FAULTS)
	&vdr_faults_group,
#endif
	NULL,
};

/* Called before the device is visible: its same-host switch starts here. */
void vdr_net_init_dev(struct vdr_dev *dev)
{
	dev->same_host = same_host;
	dev->vdpa.dev.groups = vdr_net_groups;
}

static bool vdr_dev_has_gid(struct vdr_dev *dev, const struct in6_addr *a)
{
	int i;

	/*
	 * Lockless in softirq: a racing ADD_GID or DEL_GID at worst
	 * misroutes or drops a packet, which RoCE tolerates.
	 */
	for (i = 0; i < VDR_GID_TBL_LEN; i++) {
		if (READ_ONCE(dev->gids[i].valid) &&
		    !memcmp(dev->gids[i].gid, a, sizeof(*a)))
			return true;
	}
	return false;
}

static struct vdr_xdev *vdr_net_find(struct vdr_net *vn,
				     struct sk_buff *skb)
{
	struct vdr_xdev *x, *found = NULL;
	struct in6_addr daddr;

	if (skb->protocol == htons(ETH_P_IP))
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr, &daddr);
	else
		daddr = ipv6_hdr(skb)->daddr;

	list_for_each_entry_rcu(x, &vn->devs, net_entry) {
		if (!vdr_dev_has_gid(x->dev, &daddr))
			continue;
		/* Locally routed packets arrive on lo: any owner will do. */
		found = x;
		if (rcu_access_pointer(x->dev->netdev) == skb->dev)
			break;
	}
	return found;
}

/*
 * A RoCE packet for @dev, data = UDP header: count it and queue it.
 * Returns what vdr_recv_queue() does.
 */
static int vdr_net_rx(struct vdr_dev *dev, struct sk_buff *skb,
		      struct vdr_xqp **handoff)
{
	/* A same-host segment counts as the packets it stands for. */
	atomic64_add(vdr_skb_npsn(skb),
		     &dev->stats[VIRTIO_RDMA_STAT_RX_PACKETS]);
	atomic64_add(skb->len - sizeof(struct udphdr),
		     &dev->stats[VIRTIO_RDMA_STAT_RX_BYTES]);
	return vdr_recv_queue(dev, skb, handoff);
}

/* UDP encap_rcv: softirq, under RCU. skb->data is the UDP header. */
static int vdr_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct vdr_net *vn = rcu_dereference_sk_user_data(sk);
	struct vdr_xdev *x;

	x = vn ? vdr_net_find(vn, skb) : NULL;
	if (!x) {
		kfree_skb(skb);
		return 0;
	}
	VDR_SKB_CB(skb)->same_host = false;
	VDR_SKB_CB(skb)->npsn = 1;
	vdr_net_rx(x->dev, skb, NULL);
	return 0;
}

static struct socket *vdr_udp_sock(struct net *net, struct vdr_net *vn,
				   bool ipv6)
{
	struct udp_tunnel_sock_cfg tnl = { };
	struct udp_port_cfg cfg = { };
	struct socket *sock;
	int ret;

	cfg.family = ipv6 ? AF_INET6 : AF_INET;
	cfg.ipv6_v6only = ipv6;
	cfg.local_udp_port = htons(ROCE_UDP_PORT);
	ret = udp_sock_create(net, &cfg, &sock);
	if (ret)
		return ERR_PTR(ret);

	tnl.sk_user_data = vn;
	tnl.encap_type = 1;
	tnl.encap_rcv = vdr_udp_encap_recv;
	setup_udp_tunnel_sock(net, sock, &tnl);
	return sock;
}

static void vdr_net_close(struct vdr_net *vn)
{
	if (vn->sk6)
		udp_tunnel_sock_release(vn->sk6);
	if (vn->sk4)
		udp_tunnel_sock_release(vn->sk4);
	vn->sk4 = NULL;
	vn->sk6 = NULL;
}

static int vdr_net_open(struct vdr_dev *dev, struct net *net,
			struct vdr_net *vn)
{
	struct socket *sock;

	sock = vdr_udp_sock(net, vn, false);
	if (IS_ERR(sock))
		goto err;
	vn->sk4 = sock;
	sock = vdr_udp_sock(net, vn, true);
	/* A namespace without IPv6 still carries RoCE over IPv4. */
	if (IS_ERR(sock) && PTR_ERR(sock) != -EAFNOSUPPORT)
		goto err;
	vn->sk6 = IS_ERR(sock) ? NULL : sock;
	return 0;

err:
	vdr_net_close(vn);
	if (PTR_ERR(sock) == -EADDRINUSE)
		pr_err("vdpa_rdma: %s: UDP port %u is already in use in network namespace %u (rdma_rxe binds it in the initial namespace): put the netdev in another namespace\n",
		       dev->name, ROCE_UDP_PORT, net->ns.inum);
	else
		pr_err("vdpa_rdma: %s: cannot open UDP port %u: %ld\n",
		       dev->name, ROCE_UDP_PORT, PTR_ERR(sock));
	return PTR_ERR(sock);
}

/**
 * vdr_net_attach - start receiving RoCEv2 for a device
 * @dev: the device, not yet registered
 * @ndev: its netdev; the device receives in the netdev's namespace
 *
 * Opens the namespace's sockets when it is the first device there.
 *
 * Return: 0, -EADDRINUSE when another user (rdma_rxe) owns port 4791 in
 * that namespace, or another error.
 */
int vdr_net_attach(struct vdr_dev *dev, struct net_device *ndev)
{
	struct net *net = dev_net(ndev);
	struct vdr_net *vn;
	struct vdr_xdev *x;
	int ret = 0;

	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!x)
		return -ENOMEM;
	x->dev = dev;
	INIT_LIST_HEAD(&x->net_entry);
	INIT_LIST_HEAD(&x->local_entry);

	mutex_lock(&vdr_net_mutex);
	vn = net_generic(net, vdr_net_id);
	if (!vn->users)
		ret = vdr_net_open(dev, net, vn);
	if (!ret) {
		vn->users++;
		x->net = net;
		list_add_tail_rcu(&x->net_entry, &vn->devs);
		list_add_tail_rcu(&x->local_entry, &vdr_local_devs);
		dev->xdev = x;
	}
	mutex_unlock(&vdr_net_mutex);
	if (ret)
		kfree(x);
	return ret;
}

/* Caller holds vdr_net_mutex. */
static void vdr_net_unlink(struct vdr_xdev *x)
{
	struct vdr_net *vn = net_generic(x->net, vdr_net_id);

	list_del_rcu(&x->net_entry);
	list_del_rcu(&x->local_entry);
	WRITE_ONCE(x->net, NULL);
	if (!--vn->users)
		vdr_net_close(vn);
}

/**
 * vdr_net_detach - stop receiving for a device
 * @dev: the device
 *
 * After it returns no packet reaches the device, from the wire or the
 * same-host path (packets already queued to
 * its QPs are dropped when the QPs go); the last device of a namespace
 * closes its sockets.  The transport state stays allocated until
 * vdr_net_free(): QP work may still look at it.
 */
void vdr_net_detach(struct vdr_dev *dev)
{
	struct vdr_xdev *x = dev->xdev;

	if (!x)
		return;
	mutex_lock(&vdr_net_mutex);
	if (x->net)
		vdr_net_unlink(x);
	mutex_unlock(&vdr_net_mutex);
	/* encap_rcv or a same-host sender may still hold x: wait for them. */
	synchronize_net();
}

/* Frees the transport state once no QP is left; after detach. */
void vdr_net_free(struct vdr_dev *dev)
{
	struct vdr_xdev *x = dev->xdev;

	if (!x)
		return;
	WARN_ON_ONCE(x->net);
	dev->xdev = NULL;
	kfree(x);
}

static __net_init int vdr_net_init(struct net *net)
{
	struct vdr_net *vn = net_generic(net, vdr_net_id);

	INIT_LIST_HEAD(&vn->devs);
	return 0;
}

/*
 * The namespace goes away: its netdevs are already unregistered (device
 * pernet exits run before subsystem ones), so its devices are dead; close
 * the sockets and forget the namespace.
 */
static __net_exit void vdr_net_exit(struct net *net)
{
	struct vdr_net *vn = net_generic(net, vdr_net_id);
	struct vdr_xdev *x, *tmp;

	mutex_lock(&vdr_net_mutex);
	list_for_each_entry_safe(x, tmp, &vn->devs, net_entry)
		vdr_net_unlink(x);
	mutex_unlock(&vdr_net_mutex);
	WARN_ON_ONCE(vn->sk4 || vn->sk6);
}

static struct pernet_operations vdr_net_ops = {
	.init = vdr_net_init,
	.exit = vdr_net_exit,
	.id = &vdr_net_id,
	.size = sizeof(struct vdr_net),
};

int vdr_net_register(void)
{
	return register_pernet_subsys(&vdr_net_ops);
}

void vdr_net_unregister(void)
{
	unregister_pernet_subsys(&vdr_net_ops);
}

/**
 * vdr_net_alloc_skb - a packet buffer for @len bytes of RoCE packet
 * @dev: the device
 * @len: BTH through ICRC
 *
 * Return: an skb with headroom for the link, IP and UDP headers, or NULL.
 */
struct sk_buff *vdr_net_alloc_skb(struct vdr_dev *dev, unsigned int len)
{
	struct sk_buff *skb;

	skb = alloc_skb(VDR_NET_HEADROOM + len, GFP_KERNEL);
	if (skb)
		skb_reserve(skb, VDR_NET_HEADROOM);
	return skb;
}

/**
 * vdr_net_av_valid - whether @av can be sent from the GID @sgid
 * @av: an address vector from the driver (a QP's path, or a UD WQE that a
 *	user process wrote into its own SQ ring)
 * @sgid: the source GID @av's sgid_index names
 *
 * The one check of what the IP headers take from an address vector: the
 * network type, the source and destination GIDs all IPv4-mapped or all
 * IPv6, and a flow label that fits its 20 bits (wider, it would spill into
 * the IPv6 version and traffic class).
 */
bool vdr_net_av_valid(const struct virtio_rdma_av *av, const u8 *sgid)
{
	bool v4 = ipv6_addr_v4mapped((const struct in6_addr *)sgid);

	if (av->network_type != (v4 ? VIRTIO_RDMA_NETWORK_IPV4 :
				     VIRTIO_RDMA_NETWORK_IPV6))
		return false;
	if (ipv6_addr_v4mapped((const struct in6_addr *)av->dgid) != v4)
		return false;
	return le32_to_cpu(av->flow_label) < BIT(20);
}

/* UDP source port: from the flow label, else from the QPNs, as rxe. */
u16 vdr_net_sport(const struct virtio_rdma_av *av, u32 lqpn, u32 rqpn)
{
	return rdma_get_udp_sport(le32_to_cpu(av->flow_label), lqpn, rqpn);
}

static void vdr_push_udp(struct sk_buff *skb, u16 sport)
{
	struct udphdr *uh;

	__skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh = udp_hdr(skb);
	uh->source = htons(sport);
	uh->dest = htons(ROCE_UDP_PORT);
	uh->len = htons(skb->len);
	/* RoCEv2 (and rxe) send no UDP checksum: the ICRC covers the data. */
	uh->check = 0;
}

/* IPv4 header in front of the UDP header; the checksum is left to the caller. */
static void vdr_push_ip4(struct sk_buff *skb, const struct virtio_rdma_av *av,
			 const u8 *sgid)
{
	struct iphdr *iph;

	skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	iph->version = IPVERSION;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = av->traffic_class;
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->hop_limit ?: VDR_DEF_HOP_LIMIT;
	iph->protocol = IPPROTO_UDP;
	memcpy(&iph->saddr, sgid + 12, 4);
	memcpy(&iph->daddr, av->dgid + 12, 4);
	iph->id = 0;
	iph->check = 0;
	skb->protocol = htons(ETH_P_IP);
}

static int vdr_prepare4(struct net *net, struct net_device *ndev,
			const struct virtio_rdma_av *av, const u8 *sgid,
			struct sk_buff *skb, int segs)
{
	struct flowi4 fl4 = { };
	struct rtable *rt;

	fl4.flowi4_oif = ndev->ifindex;
	fl4.flowi4_proto = IPPROTO_UDP;
	memcpy(&fl4.saddr, sgid + 12, 4);
	memcpy(&fl4.daddr, av->dgid + 12, 4);
	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt))
		return -EHOSTUNREACH;

	skb_dst_set(skb, &rt->dst);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	vdr_push_ip4(skb, av, sgid);
	/*
	 * The checksum is set by ip_local_out().  A batch's head takes IDs
	 * for the packets that may follow it (vdr_wire_append()).
	 */
	__ip_select_ident(net, ip_hdr(skb), segs);
	return 0;
}

static void vdr_push_ip6(struct sk_buff *skb, const struct virtio_rdma_av *av,
			 const u8 *sgid)
{
	struct ipv6hdr *ip6h;

	__skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, av->traffic_class, htonl(le32_to_cpu(av->flow_label)));
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = av->hop_limit ?: VDR_DEF_HOP_LIMIT;
	memcpy(&ip6h->saddr, sgid, sizeof(ip6h->saddr));
	memcpy(&ip6h->daddr, av->dgid, sizeof(ip6h->daddr));
	skb->protocol = htons(ETH_P_IPV6);
}

static int vdr_prepare6(struct net *net, struct socket *sk6,
			struct net_device *ndev,
			const struct virtio_rdma_av *av, const u8 *sgid,
			struct sk_buff *skb)
{
	u32 flow_label = le32_to_cpu(av->flow_label);
	struct flowi6 fl6 = { };
	struct dst_entry *dst;

	if (!IS_ENABLED(CONFIG_IPV6) || !ipv6_stub)
		return -EAFNOSUPPORT;
	fl6.flowi6_oif = ndev->ifindex;
	fl6.flowi6_proto = IPPROTO_UDP;
	memcpy(&fl6.saddr, sgid, sizeof(fl6.saddr));
	memcpy(&fl6.daddr, av->dgid, sizeof(fl6.daddr));
	fl6.flowlabel = htonl(flow_label);
	dst = ipv6_stub->ipv6_dst_lookup_flow(net, sk6 ? sk6->sk : NULL, &fl6,
					      NULL);
	if (IS_ERR(dst))
		return -EHOSTUNREACH;
	if (dst->error) {
		dst_release(dst);
		return -EHOSTUNREACH;
	}

	skb_dst_set(skb, dst);
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	vdr_push_ip6(skb, av, sgid);
	return 0;
}

/* Whether @dev's port can carry packets: its netdev is up with carrier. */
static bool vdr_net_port_up(struct vdr_dev *dev)
{
	struct net_device *ndev = rcu_dereference(dev->netdev);

	return ndev && vdr_netdev_port_active(ndev);
}

/*
 * The device of this kernel that owns @dgid when both it and @dev take the
 * same-host path and both ports are up; NULL otherwise (then the wire).
 * Devices in different namespaces may own the same address: then only
 * routing knows which one the packet is for, and the wire decides.  Under
 * RCU, which keeps the result until rcu_read_unlock().
 */
static struct vdr_dev *vdr_net_local_peer(struct vdr_dev *dev,
					  const u8 *dgid)
{
	const struct in6_addr *a = (const struct in6_addr *)dgid;
	struct vdr_dev *peer = NULL;
	struct vdr_xdev *x;

	if (!READ_ONCE(dev->same_host))
		return NULL;
	list_for_each_entry_rcu(x, &vdr_local_devs, local_entry) {
		if (!vdr_dev_has_gid(x->dev, a))
			continue;
		if (peer)
			return NULL;
		peer = x->dev;
	}
	if (!peer || !READ_ONCE(peer->same_host) || !vdr_net_port_up(peer))
		return NULL;
	return peer;
}

/**
 * vdr_net_seg_max - the largest same-host segment to @av now
 * @dev: the sending device
 * @av: the destination
 *
 * For the sender's cutting of a message (vdr_xport.h): 0 when a packet to
 * @av takes the wire.  The peer may go away before the packet is sent:
 * vdr_net_xmit() then drops the segment, a loss that retransmission
 * recovers with path-MTU packets.
 */
u32 vdr_net_seg_max(struct vdr_dev *dev, const struct virtio_rdma_av *av)
{
	u32 seg = min_t(u32, READ_ONCE(same_host_seg), VDR_SEG_MAX_BYTES);
	bool local;

	if (!seg)
		return 0;
	rcu_read_lock();
	local = vdr_net_port_up(dev) && vdr_net_local_peer(dev, av->dgid);
	rcu_read_unlock();
	return local ? seg : 0;
}

/* Counted like RX: the UDP payload, BTH through ICRC. */
static void vdr_net_tx_count(struct vdr_dev *dev, u32 npkts,
			     unsigned int len)
{
	atomic64_add(npkts, &dev->stats[VIRTIO_RDMA_STAT_TX_PACKETS]);
	atomic64_add(len, &dev->stats[VIRTIO_RDMA_STAT_TX_BYTES]);
}

/*
 * Same-host: headers as on the wire, no ICRC, straight to @peer's QP.
 * Consumes @skb; -ENOBUFS when @peer's queues were full and dropped it.
 */
static int vdr_net_local_send(struct vdr_dev *dev, struct vdr_dev *peer,
			      const struct virtio_rdma_av *av, const u8 *sgid,
			      struct sk_buff *skb, struct vdr_xqp **handoff)
{
	unsigned int len = skb->len - sizeof(struct udphdr);

	if (av->network_type == VIRTIO_RDMA_NETWORK_IPV4)
		vdr_push_ip4(skb, av, sgid);
	else
		vdr_push_ip6(skb, av, sgid);
	__skb_pull(skb, skb_transport_offset(skb));
	VDR_SKB_CB(skb)->same_host = true;
	if (vdr_skb_npsn(skb) > 1)
		atomic_inc(&dev->same_host_segs);
	vdr_net_tx_count(dev, vdr_skb_npsn(skb), len);
	return vdr_net_rx(peer, skb, handoff) == -ENOBUFS ? -ENOBUFS : 0;
}

/* The ICRC of a packet whose data is its IP header. */
static int vdr_net_icrc(struct sk_buff *skb)
{
	return vdr_roce_icrc_generate(skb->data, skb->len,
				      skb->protocol == htons(ETH_P_IP) ? 4 : 6);
}

/*
 * The UDP payload, BTH through ICRC, of a packet or of a batch whose data
 * is the head's IP header (the packets in its frag_list add their UDP
 * payloads only): what the counters count.
 */
static unsigned int vdr_net_udp_payload(const struct sk_buff *skb)
{
	return skb->len - skb_transport_offset(skb) - sizeof(struct udphdr);
}

/*
 * Wire: to the IP layer, @npkts RoCE packets of @len bytes in @skb.
 * Consumes @skb.  With @handoff, the receive softirq that a virtual link
 * runs for the packet may give the sender its receiving QP to run
 * (vdr_xqp_wire_deliver()).
 */
static int vdr_net_wire_send(struct vdr_dev *dev, struct sk_buff *skb,
			     u32 npkts, unsigned int len,
			     struct vdr_xqp **handoff)
{
	struct net *net = dev_net(skb_dst(skb)->dev);
	int ret;

	if (handoff && !vdr_xqp_wire_begin())
		handoff = NULL;
	if (skb->protocol == htons(ETH_P_IP))
		ret = ip_local_out(net, NULL, skb);
	else
		ret = ip6_local_out(net, NULL, skb);
	if (handoff)
		vdr_xqp_wire_deliver(handoff, npkts);
	ret = net_xmit_eval(ret);
	if (ret)
		return ret < 0 ? ret : -ENOBUFS;
	vdr_net_tx_count(dev, npkts, len);
	return 0;
}

/*
 * Wire batches.  Every packet that goes to the IP layer pays a route
 * lookup, the output path and netfilter, the link, and at a receiver of
 * this kernel (a veth) the receive softirq, the input route and the socket
 * lookup: on the wire these cost more than the transport itself.  So the
 * wire packets of one QP's run to one destination leave together when the
 * run ends (vdr_xqp_run_one()), as one UDP GSO packet of the fraglist kind:
 * the first packet is routed and the others, each complete with its IP and
 * UDP headers and its ICRC, hang in its frag_list.  A virtual link carries
 * it whole, and the receiving UDP socket (an encapsulation socket, ours or
 * rxe's, always) takes it apart into the packets as built, in order;
 * a link that cannot carry it has the stack take it apart before the link
 * (software GSO).  What a receiver sees is therefore the packets one by
 * one, as without batching: only the costs of the way are paid once.
 * A run's packets leave at its end rather than one by one, a delay of at
 * most one run's budget; the transport's timers start when the packets
 * are built, which is earlier by as much and harmless.
 */
static bool wire_batch = true;
module_param(wire_batch, bool, 0644);
MODULE_PARM_DESC(wire_batch,
		 "Whether the wire packets of a QP's run leave as one UDP GSO packet, which crosses the IP layer and a virtual link once (default true)");

/*
 * Most packets and bytes (IP header to the last ICRC) of a batch: an IP
 * packet's 64 KiB, with room for the link header that GSO counts too.  A
 * head takes as many IPv4 IDs as a batch may have packets (vdr_prepare4());
 * with DF set an ID only needs to differ among a flow's recent packets.
 */
#define VDR_WIRE_BATCH_PKTS	64
#define VDR_WIRE_BATCH_BYTES	(60 * 1024)

/*
 * Whether @skb (UDP header pushed) may follow @b's head: same IP version,
 * addresses and UDP ports (one flow: a GSO packet has one set of headers
 * until it is taken apart), and room left.  Then its IP header is built
 * without a route of its own, with the ID the head reserved for it, its
 * ICRC computed over the headers it will have once taken apart (the
 * ICRC covers the IPv4 ID and both length fields), and it joins the
 * head's frag_list, its data at its UDP payload, as skb_segment_list()
 * expects of the packets of a fraglist GSO packet.
 */
static bool vdr_wire_append(struct vdr_wire_batch *b,
			    const struct virtio_rdma_av *av, const u8 *sgid,
			    struct sk_buff *skb)
{
	bool v4 = av->network_type == VIRTIO_RDMA_NETWORK_IPV4;
	struct sk_buff *head = b->head;

	if (!head || b->n >= VDR_WIRE_BATCH_PKTS ||
	    head->len + skb->len > VDR_WIRE_BATCH_BYTES ||
	    head->protocol != htons(v4 ? ETH_P_IP : ETH_P_IPV6) ||
	    udp_hdr(head)->source != udp_hdr(skb)->source)
		return false;
	if (v4 && (memcmp(&ip_hdr(head)->saddr, sgid + 12, 4) ||
		   memcmp(&ip_hdr(head)->daddr, av->dgid + 12, 4)))
		return false;
	if (!v4 && (memcmp(&ipv6_hdr(head)->saddr, sgid, 16) ||
		    memcmp(&ipv6_hdr(head)->daddr, av->dgid, 16)))
		return false;

	if (v4) {
		vdr_push_ip4(skb, av, sgid);
		ip_hdr(skb)->id = htons(ntohs(ip_hdr(head)->id) + b->n);
	} else {
		vdr_push_ip6(skb, av, sgid);
	}
	if (vdr_net_icrc(skb)) {
		/* Cannot happen for headers built here; keep the order. */
		__skb_pull(skb, skb_transport_offset(skb));
		return false;
	}
	__skb_pull(skb, skb_transport_offset(skb) + sizeof(struct udphdr));
	if (b->last)
		b->last->next = skb;
	else
		skb_shinfo(head)->frag_list = skb;
	b->last = skb;
	head->len += skb->len;
	head->data_len += skb->len;
	head->truesize += skb->truesize;
	b->n++;
	return true;
}

/**
 * vdr_net_wire_flush - send a QP's batch of wire packets
 * @dev: the sending device
 * @b: the batch; empty afterwards
 * @handoff: as for vdr_net_xmit()
 *
 * Return: 0, or a negative errno when the batch was dropped on its way:
 * -ENOBUFS when a queue was full (vdr_net_xmit()).
 */
int vdr_net_wire_flush(struct vdr_dev *dev, struct vdr_wire_batch *b,
		       struct vdr_xqp **handoff)
{
	struct sk_buff *head = b->head;
	struct skb_shared_info *si;
	unsigned int uoff;

	if (!head)
		return 0;
	b->head = NULL;
	b->last = NULL;
	if (b->n > 1) {
		/*
		 * The head's UDP length covers the whole batch, as its IP
		 * length will (ip_local_out()); taking it apart gives each
		 * packet its own again.  gso_size is the head's own UDP
		 * payload: the shape __udp_gso_segment() checks before it
		 * takes a fraglist packet apart as it was built.
		 */
		uoff = skb_transport_offset(head);
		udp_hdr(head)->len = htons(head->len - uoff);
		si = skb_shinfo(head);
		si->gso_type = SKB_GSO_UDP_L4 | SKB_GSO_FRAGLIST;
		si->gso_size = skb_headlen(head) - uoff - sizeof(struct udphdr);
		si->gso_segs = b->n;
		/*
		 * RoCE sends no UDP checksum, and a GSO packet must say that
		 * nothing is left to compute, or the link takes it apart
		 * first.  Receiving it, the UDP layer spends one level on
		 * that zero checksum (udp4_csum_init()); the one above keeps
		 * the packet "unnecessary" for the segmentation that follows,
		 * which otherwise warns of a bad offload.  A fraglist GRO
		 * packet is marked so too (udp4_gro_complete()).
		 */
		head->ip_summed = CHECKSUM_UNNECESSARY;
		head->csum_level = 1;
		atomic_inc(&dev->wire_batches);
		atomic_add(b->n, &dev->wire_batched);
	}
	return vdr_net_wire_send(dev, head, b->n, vdr_net_udp_payload(head),
				 handoff);
}

/**
 * vdr_net_xmit - send a RoCE packet
 * @dev: the device
 * @av: the destination; already validated against the GID table
 * @skb: from vdr_net_alloc_skb(), data = BTH .. ICRC (ICRC bytes zero);
 *	 consumed
 * @sport: UDP source port (vdr_net_sport())
 * @handoff: NULL, or the sending QP's x->handoff, where the receiving QP
 *	     is returned, locked, for the caller to run after this returns
 *	     (vdr_xqp_send()): on the same host, or when a virtual link
 *	     delivered the packet here
 * @batch: NULL, or the sending QP's batch of wire packets, which this
 *	   packet joins (vdr_wire_append()) or starts, sending the batch
 *	   before it; vdr_net_wire_flush() sends the last one
 * @wire: set when the packet was routed, not given to a same-host peer
 *
 * Pushes the UDP and IP headers, then takes the same-host path (see the top
 * of this file) or routes the packet, computes its ICRC and hands it to the
 * IP layer, now or with its batch.
 *
 * Return: 0; -ENODEV (no netdev), -EINVAL (bad address vector) or
 * -EHOSTUNREACH, or a negative errno when the packet, or the batch sent
 * before it, was dropped on its way (the transport's retransmission
 * recovers, as from any loss): -ENOBUFS when a queue was full, which the
 * requester takes as a sign of congestion.
 */
int vdr_net_xmit(struct vdr_dev *dev, const struct virtio_rdma_av *av,
		 struct sk_buff *skb, u16 sport, struct vdr_xqp **handoff,
		 struct vdr_wire_batch *batch, bool *wire)
{
	struct net_device *ndev;
	struct vdr_dev *peer;
	struct vdr_gid sgid;
	struct socket *sk6;
	struct net *net;
	bool v4;
	int ret;

	if (av->sgid_index >= VDR_GID_TBL_LEN)
		goto einval;
	/* A private copy: ADD_GID and DEL_GID may run meanwhile. */
	spin_lock(&dev->gid_lock);
	sgid = dev->gids[av->sgid_index];
	spin_unlock(&dev->gid_lock);
	if (!sgid.valid || !vdr_net_av_valid(av, sgid.gid))
		goto einval;
	v4 = av->network_type == VIRTIO_RDMA_NETWORK_IPV4;

	rcu_read_lock();
	ndev = rcu_dereference(dev->netdev);
	if (!ndev || !dev->xdev || !READ_ONCE(dev->xdev->net)) {
		ret = -ENODEV;
		goto err_unlock;
	}
	vdr_push_udp(skb, sport);
	peer = vdr_net_port_up(dev) ? vdr_net_local_peer(dev, av->dgid) : NULL;
	if (peer) {
		ret = vdr_net_local_send(dev, peer, av, sgid.gid, skb,
					 handoff);
		rcu_read_unlock();
		return ret;
	}
	/* A same-host segment whose peer went away: lost (vdr_xport.h). */
	if (vdr_skb_npsn(skb) > 1) {
		ret = -EMSGSIZE;
		goto err_unlock;
	}
	*wire = true;
	if (!READ_ONCE(wire_batch))
		batch = NULL;
	if (batch && vdr_wire_append(batch, av, sgid.gid, skb)) {
		rcu_read_unlock();
		return 0;
	}
	net = dev_net(ndev);
	if (v4) {
		ret = vdr_prepare4(net, ndev, av, sgid.gid, skb,
				   batch ? VDR_WIRE_BATCH_PKTS : 1);
	} else {
		sk6 = ((struct vdr_net *)net_generic(net, vdr_net_id))->sk6;
		ret = vdr_prepare6(net, sk6, ndev, av, sgid.gid, skb);
	}
	rcu_read_unlock();
	if (ret)
		goto err;
	ret = vdr_net_icrc(skb);
	if (ret)
		goto err;
	skb->ip_summed = CHECKSUM_NONE;
	if (!batch)
		return vdr_net_wire_send(dev, skb, 1, vdr_net_udp_payload(skb),
					 handoff);
	/* This packet starts the next batch, after the one it could not join. */
	ret = vdr_net_wire_flush(dev, batch, handoff);
	batch->head = skb;
	batch->n = 1;
	return ret;

einval:
	ret = -EINVAL;
	goto err;
err_unlock:
	rcu_read_unlock();
err:
	kfree_skb(skb);
	return ret;
}
