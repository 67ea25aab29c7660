// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: the RoCEv2 invariant CRC (IBA Annex A17.3.3), computed exactly
 * as rdma_rxe computes it so that the two interoperate.
 *
 * The ICRC protects what no router may change.  The fields a router may
 * change (IPv4 TOS, TTL and header checksum; IPv6 traffic class, flow label
 * and hop limit; the UDP checksum; the BTH byte holding FECN, BECN and
 * resv6a) are replaced by ones, and 8 bytes of ones stand in for the
 * InfiniBand LRH that RoCEv2 does not have.  The CRC is CRC-32 (the
 * Ethernet polynomial, reflected, seed ~0), complemented, and sent least
 * significant byte first.
 */
#include <crypto/hash.h>
#include <kunit/visibility.h>
#include <linux/crc32.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/in6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/string.h>
#include <linux/udp.h>
#include <net/ip.h>

#include "roce.h"

/*
 * The CRC-32 of what follows the BTH, most of a packet's ICRC work.  Up to
 * Linux 6.13, crc32_le() is the generic table-driven code on every CPU,
 * and only the crypto API's "crc32" reaches the CPU's carry-less multiply
 * (crc32-pclmul on x86, several times faster on buffers of a path MTU);
 * rxe takes it for the same reason.  A shash descriptor of "crc32" holds
 * the running CRC as a u32, which is how it is seeded and read back here.
 * Without the algorithm (CONFIG_CRYPTO_CRC32 off), crc32_le().
 */
static struct crypto_shash *roce_crc32_tfm;

void vdr_roce_icrc_init(void)
{
	struct crypto_shash *tfm = crypto_alloc_shash("crc32", 0, 0);

	if (IS_ERR(tfm))
		return;
	if (crypto_shash_descsize(tfm) != sizeof(u32)) {
		crypto_free_shash(tfm);
		return;
	}
	roce_crc32_tfm = tfm;
}

void vdr_roce_icrc_exit(void)
{
	crypto_free_shash(roce_crc32_tfm);
	roce_crc32_tfm = NULL;
}

u32 roce_icrc_update(u32 crc, const void *p, size_t len)
{
	SHASH_DESC_ON_STACK(desc, roce_crc32_tfm);
	u32 *ctx = shash_desc_ctx(desc);

	if (!roce_crc32_tfm)
		return crc32_le(crc, p, len);
	desc->tfm = roce_crc32_tfm;
	*ctx = crc;
	/* "crc32" cannot fail: its update has no error path. */
	if (crypto_shash_update(desc, p, len))
		return crc32_le(crc, p, len);
	return *ctx;
}
EXPORT_SYMBOL_IF_KUNIT(roce_icrc_update);

static bool roce_ipv6_ext_hdr(u8 nexthdr)
{
	return nexthdr == IPPROTO_HOPOPTS || nexthdr == IPPROTO_ROUTING ||
	       nexthdr == IPPROTO_FRAGMENT || nexthdr == IPPROTO_DSTOPTS;
}

/**
 * vdr_roce_l3_parse() - find the RoCEv2 packet in an IP packet
 * @buf: the IP packet, from the IP header on
 * @len: bytes at @buf; more than the IP packet is fine (link-layer padding)
 * @ipver: 4 or 6, as the link layer said
 * @l3: where the UDP payload is
 *
 * The ICRC covers a fixed IP header (IBA A17.3.3, and rdma_rxe computes it
 * that way), so IPv4 options and IPv6 extension headers are not supported;
 * neither are fragments, whose ICRC cannot be checked before reassembly.
 * The UDP ports are reported, not checked.
 *
 * Return: 0; -EINVAL for an @ipver other than 4 or 6; -ENODATA if @len does
 * not hold the IP and UDP headers, a BTH and an ICRC; -EPROTO if the IP
 * version is not @ipver or the protocol is not UDP; -EOPNOTSUPP for IPv4
 * options, IPv6 extension headers and fragments; -EMSGSIZE if the IP and
 * UDP lengths disagree with each other or with @len.
 */
int vdr_roce_l3_parse(const void *buf, size_t len, int ipver,
		      struct roce_l3 *l3)
{
	size_t min = ROCE_BTH_BYTES + ROCE_ICRC_BYTES + sizeof(struct udphdr);
	const struct udphdr *udph;
	size_t ip_len, udp_len;

	memset(l3, 0, sizeof(*l3));
	if (ipver == 4) {
		const struct iphdr *iph = buf;

		if (len < sizeof(*iph) + min)
			return -ENODATA;
		if (iph->version != 4 || iph->protocol != IPPROTO_UDP)
			return -EPROTO;
		if (iph->ihl != sizeof(*iph) / 4 ||
		    (get_unaligned_be16(&iph->frag_off) & ~IP_DF))
			return -EOPNOTSUPP;
		ip_len = get_unaligned_be16(&iph->tot_len);
		l3->udp_off = sizeof(*iph);
	} else if (ipver == 6) {
		const struct ipv6hdr *ip6h = buf;

		if (len < sizeof(*ip6h) + min)
			return -ENODATA;
		if (ip6h->version != 6)
			return -EPROTO;
		if (ip6h->nexthdr != IPPROTO_UDP)
			return roce_ipv6_ext_hdr(ip6h->nexthdr) ?
			       -EOPNOTSUPP : -EPROTO;
		ip_len = sizeof(*ip6h) + get_unaligned_be16(&ip6h->payload_len);
		l3->udp_off = sizeof(*ip6h);
	} else {
		return -EINVAL;
	}

	if (ip_len > len || ip_len < l3->udp_off + min)
		return -EMSGSIZE;
	udph = buf + l3->udp_off;
	udp_len = get_unaligned_be16(&udph->len);
	if (udp_len != ip_len - l3->udp_off)
		return -EMSGSIZE;

	l3->ipver = ipver;
	l3->sport = get_unaligned_be16(&udph->source);
	l3->dport = get_unaligned_be16(&udph->dest);
	l3->bth_off = l3->udp_off + sizeof(*udph);
	l3->bth_len = udp_len - sizeof(*udph);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_roce_l3_parse);

/**
 * vdr_roce_icrc_hdr() - start the ICRC over the IP, UDP and BTH headers
 * @iph: IP header (IPv4 without options), followed by the UDP header and
 *	the BTH
 * @ipver: 4 or 6
 *
 * Return: the running CRC, to be continued with roce_icrc_update() over
 * everything after the BTH up to the ICRC.
 */
u32 vdr_roce_icrc_hdr(const void *iph, int ipver)
{
	u8 hdr[sizeof(struct ipv6hdr) + sizeof(struct udphdr) + ROCE_BTH_BYTES];
	size_t ip_len = ipver == 6 ? sizeof(struct ipv6hdr) :
				     sizeof(struct iphdr);
	size_t len = ip_len + sizeof(struct udphdr) + ROCE_BTH_BYTES;
	struct roce_bth *bth;
	struct udphdr *udph;

	memcpy(hdr, iph, len);
	if (ipver == 6) {
		struct ipv6hdr *ip6h = (struct ipv6hdr *)hdr;

		ip6h->priority = 0xf;
		memset(ip6h->flow_lbl, 0xff, sizeof(ip6h->flow_lbl));
		ip6h->hop_limit = 0xff;
	} else {
		struct iphdr *ip4h = (struct iphdr *)hdr;

		ip4h->tos = 0xff;
		ip4h->ttl = 0xff;
		ip4h->check = (__force __sum16)0xffff;
	}
	udph = (struct udphdr *)(hdr + ip_len);
	udph->check = (__force __sum16)0xffff;
	bth = (struct roce_bth *)(udph + 1);
	/* The first byte of the QPN word is FECN, BECN and resv6a. */
	*(u8 *)&bth->qpn = 0xff;

	return crc32_le(ROCE_ICRC_SEED, hdr, len);
}
EXPORT_SYMBOL_IF_KUNIT(vdr_roce_icrc_hdr);

static int roce_icrc_compute(const void *buf, size_t len, int ipver,
			     u32 *icrc, __le32 **field)
{
	struct roce_l3 l3;
	size_t rest;
	u32 crc;
	int err;

	err = vdr_roce_l3_parse(buf, len, ipver, &l3);
	if (err)
		return err;

	crc = vdr_roce_icrc_hdr(buf, ipver);
	rest = l3.bth_len - ROCE_BTH_BYTES - ROCE_ICRC_BYTES;
	crc = roce_icrc_update(crc, buf + l3.bth_off + ROCE_BTH_BYTES, rest);
	*icrc = roce_icrc_final(crc);
	*field = (__le32 *)(buf + l3.bth_off + l3.bth_len - ROCE_ICRC_BYTES);
	return 0;
}

/**
 * vdr_roce_icrc() - compute the ICRC of a RoCEv2 IP packet
 * @buf: the IP packet, from the IP header to the ICRC
 * @len: bytes at @buf (link-layer padding after the packet is fine)
 * @ipver: 4 or 6
 * @icrc: the ICRC the packet should carry, as a number
 *
 * The ICRC field itself is not read.
 *
 * Return: 0, or an error of vdr_roce_l3_parse().
 */
int vdr_roce_icrc(const void *buf, size_t len, int ipver, u32 *icrc)
{
	__le32 *field;

	return roce_icrc_compute(buf, len, ipver, icrc, &field);
}
EXPORT_SYMBOL_IF_KUNIT(vdr_roce_icrc);

/**
 * vdr_roce_icrc_check() - check the ICRC of a received RoCEv2 IP packet
 * @buf: the IP packet, from the IP header to the ICRC
 * @len: bytes at @buf
 * @ipver: 4 or 6
 *
 * Return: 0 if the ICRC is right, -EILSEQ if not, or an error of
 * vdr_roce_l3_parse().
 */
int vdr_roce_icrc_check(const void *buf, size_t len, int ipver)
{
	__le32 *field;
	u32 icrc;
	int err;

	err = roce_icrc_compute(buf, len, ipver, &icrc, &field);
	if (err)
		return err;
	return get_unaligned_le32(field) == icrc ? 0 : -EILSEQ;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_roce_icrc_check);

/**
 * vdr_roce_icrc_generate() - write the ICRC of a RoCEv2 IP packet
 * @buf: the IP packet, complete but for the ICRC
 * @len: bytes at @buf
 * @ipver: 4 or 6
 *
 * Return: 0, or an error of vdr_roce_l3_parse().
 */
int vdr_roce_icrc_generate(void *buf, size_t len, int ipver)
{
	__le32 *field;
	u32 icrc;
	int err;

	err = roce_icrc_compute(buf, len, ipver, &icrc, &field);
	if (err)
		return err;
	put_unaligned_le32(icrc, field);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_roce_icrc_generate);
