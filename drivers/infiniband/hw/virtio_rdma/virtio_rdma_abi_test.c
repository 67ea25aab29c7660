// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * Pins the virtio-rdma device ABI: every struct size, field offset and
 * field size, and every constant whose value the specification fixes
 * (Documentation/virtio-rdma-spec.rst). A failure here means the header
 * and the spec disagree, which would break device/driver interoperation.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/stddef.h>
#include <linux/virtio_rdma.h>
#include <rdma/ib_verbs.h>
#include <rdma/virtio_rdma-abi.h>

#define VR_SIZE(t, type, size) \
	KUNIT_EXPECT_EQ(t, sizeof(struct type), (size_t)(size))
#define VR_OFF(t, type, field, off) \
	KUNIT_EXPECT_EQ(t, offsetof(struct type, field), (size_t)(off))
#define VR_FSZ(t, type, field, size) \
	KUNIT_EXPECT_EQ(t, sizeof_field(struct type, field), (size_t)(size))

static void vr_layout_config(struct kunit *test)
{
	VR_SIZE(test, virtio_rdma_config, 32);
	VR_OFF(test, virtio_rdma_config, mac, 0);
	VR_FSZ(test, virtio_rdma_config, mac, 6);
	VR_OFF(test, virtio_rdma_config, num_queue_pairs, 6);
	VR_FSZ(test, virtio_rdma_config, num_queue_pairs, 2);
	VR_OFF(test, virtio_rdma_config, reserved, 8);
	VR_FSZ(test, virtio_rdma_config, reserved, 24);
}

static void vr_layout_control_header(struct kunit *test)
{
	VR_SIZE(test, virtio_rdma_cmd_hdr, 8);
	VR_OFF(test, virtio_rdma_cmd_hdr, cmd, 0);
	VR_FSZ(test, virtio_rdma_cmd_hdr, cmd, 4);
	VR_OFF(test, virtio_rdma_cmd_hdr, reserved, 4);
	VR_FSZ(test, virtio_rdma_cmd_hdr, reserved, 4);

	VR_SIZE(test, virtio_rdma_cmd_resp_hdr, 8);
	VR_OFF(test, virtio_rdma_cmd_resp_hdr, status, 0);
	VR_FSZ(test, virtio_rdma_cmd_resp_hdr, status, 4);
	VR_OFF(test, virtio_rdma_cmd_resp_hdr, reserved, 4);
	VR_FSZ(test, virtio_rdma_cmd_resp_hdr, reserved, 4);
}

static void vr_layout_query(struct kunit *test)
{
	VR_SIZE(test, virtio_rdma_query_device_resp, 256);
	VR_OFF(test, virtio_rdma_query_device_resp, fw_ver, 0);
	VR_FSZ(test, virtio_rdma_query_device_resp, fw_ver, 8);
	VR_OFF(test, virtio_rdma_query_device_resp, sys_image_guid, 8);
	VR_FSZ(test, virtio_rdma_query_device_resp, sys_image_guid, 8);
	VR_OFF(test, virtio_rdma_query_device_resp, node_guid, 16);
	VR_FSZ(test, virtio_rdma_query_device_resp, node_guid, 8);
	VR_OFF(test, virtio_rdma_query_device_resp, max_mr_size, 24);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_mr_size, 8);
	VR_OFF(test, virtio_rdma_query_device_resp, page_size_cap, 32);
	VR_FSZ(test, virtio_rdma_query_device_resp, page_size_cap, 8);
	VR_OFF(test, virtio_rdma_query_device_resp, vendor_id, 40);
	VR_FSZ(test, virtio_rdma_query_device_resp, vendor_id, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, vendor_part_id, 44);
	VR_FSZ(test, virtio_rdma_query_device_resp, vendor_part_id, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, hw_ver, 48);
	VR_FSZ(test, virtio_rdma_query_device_resp, hw_ver, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_qp, 52);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_qp, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_qp_wr, 56);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_qp_wr, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_send_sge, 60);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_send_sge, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_recv_sge, 64);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_recv_sge, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_sge_rd, 68);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_sge_rd, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_cq, 72);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_cq, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_cqe, 76);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_cqe, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_mr, 80);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_mr, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_pd, 84);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_pd, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_qp_rd_atom, 88);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_qp_rd_atom, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_qp_init_rd_atom, 92);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_qp_init_rd_atom, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_ah, 96);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_ah, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_fast_reg_page_list_len, 100);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_fast_reg_page_list_len, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_inline_data, 104);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_inline_data, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_pkeys, 108);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_pkeys, 2);
	VR_OFF(test, virtio_rdma_query_device_resp, local_ca_ack_delay, 110);
	VR_FSZ(test, virtio_rdma_query_device_resp, local_ca_ack_delay, 1);
	VR_OFF(test, virtio_rdma_query_device_resp, atomic_cap, 111);
	VR_FSZ(test, virtio_rdma_query_device_resp, atomic_cap, 1);
	VR_OFF(test, virtio_rdma_query_device_resp, device_cap_flags, 112);
	VR_FSZ(test, virtio_rdma_query_device_resp, device_cap_flags, 8);
	VR_OFF(test, virtio_rdma_query_device_resp, max_msg_sz, 120);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_msg_sz, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_sq_wqe_shift, 124);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_sq_wqe_shift, 1);
	VR_OFF(test, virtio_rdma_query_device_resp, max_rq_wqe_shift, 125);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_rq_wqe_shift, 1);
	VR_OFF(test, virtio_rdma_query_device_resp, reserved1, 126);
	VR_FSZ(test, virtio_rdma_query_device_resp, reserved1, 2);
	VR_OFF(test, virtio_rdma_query_device_resp, max_srq, 128);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_srq, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_srq_wr, 132);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_srq_wr, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_srq_sge, 136);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_srq_sge, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_mw, 140);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_mw, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_mkey_entries, 144);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_mkey_entries, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_tm_tags, 148);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_tm_tags, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_tm_ops, 152);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_tm_ops, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_tm_sge, 156);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_tm_sge, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, max_rndv_hdr_size, 160);
	VR_FSZ(test, virtio_rdma_query_device_resp, max_rndv_hdr_size, 4);
	VR_OFF(test, virtio_rdma_query_device_resp, reserved, 164);
	VR_FSZ(test, virtio_rdma_query_device_resp, reserved, 92);

	VR_SIZE(test, virtio_rdma_query_port_req, 8);
	VR_OFF(test, virtio_rdma_query_port_req, port, 0);
	VR_FSZ(test, virtio_rdma_query_port_req, port, 4);
	VR_OFF(test, virtio_rdma_query_port_req, reserved, 4);
	VR_FSZ(test, virtio_rdma_query_port_req, reserved, 4);

	VR_SIZE(test, virtio_rdma_query_port_resp, 64);
	VR_OFF(test, virtio_rdma_query_port_resp, state, 0);
	VR_FSZ(test, virtio_rdma_query_port_resp, state, 1);
	VR_OFF(test, virtio_rdma_query_port_resp, max_mtu, 1);
	VR_FSZ(test, virtio_rdma_query_port_resp, max_mtu, 1);
	VR_OFF(test, virtio_rdma_query_port_resp, active_mtu, 2);
	VR_FSZ(test, virtio_rdma_query_port_resp, active_mtu, 1);
	VR_OFF(test, virtio_rdma_query_port_resp, phys_state, 3);
	VR_FSZ(test, virtio_rdma_query_port_resp, phys_state, 1);
	VR_OFF(test, virtio_rdma_query_port_resp, gid_tbl_len, 4);
	VR_FSZ(test, virtio_rdma_query_port_resp, gid_tbl_len, 4);
	VR_OFF(test, virtio_rdma_query_port_resp, port_cap_flags, 8);
	VR_FSZ(test, virtio_rdma_query_port_resp, port_cap_flags, 4);
	VR_OFF(test, virtio_rdma_query_port_resp, max_msg_sz, 12);
	VR_FSZ(test, virtio_rdma_query_port_resp, max_msg_sz, 4);
	VR_OFF(test, virtio_rdma_query_port_resp, active_speed, 16);
	VR_FSZ(test, virtio_rdma_query_port_resp, active_speed, 2);
	VR_OFF(test, virtio_rdma_query_port_resp, active_width, 18);
	VR_FSZ(test, virtio_rdma_query_port_resp, active_width, 1);
	VR_OFF(test, virtio_rdma_query_port_resp, reserved1, 19);
	VR_FSZ(test, virtio_rdma_query_port_resp, reserved1, 1);
	VR_OFF(test, virtio_rdma_query_port_resp, pkey_tbl_len, 20);
	VR_FSZ(test, virtio_rdma_query_port_resp, pkey_tbl_len, 2);
	VR_OFF(test, virtio_rdma_query_port_resp, reserved2, 22);
	VR_FSZ(test, virtio_rdma_query_port_resp, reserved2, 2);
	VR_OFF(test, virtio_rdma_query_port_resp, reserved, 24);
	VR_FSZ(test, virtio_rdma_query_port_resp, reserved, 40);
}

static void vr_layout_pd_mr(struct kunit *test)
{
	VR_SIZE(test, virtio_rdma_create_pd_resp, 8);
	VR_OFF(test, virtio_rdma_create_pd_resp, pd_handle, 0);
	VR_FSZ(test, virtio_rdma_create_pd_resp, pd_handle, 4);
	VR_OFF(test, virtio_rdma_create_pd_resp, reserved, 4);
	VR_FSZ(test, virtio_rdma_create_pd_resp, reserved, 4);

	VR_SIZE(test, virtio_rdma_destroy_pd_req, 8);
	VR_OFF(test, virtio_rdma_destroy_pd_req, pd_handle, 0);
	VR_FSZ(test, virtio_rdma_destroy_pd_req, pd_handle, 4);
	VR_OFF(test, virtio_rdma_destroy_pd_req, reserved, 4);
	VR_FSZ(test, virtio_rdma_destroy_pd_req, reserved, 4);

	VR_SIZE(test, virtio_rdma_get_dma_mr_req, 8);
	VR_OFF(test, virtio_rdma_get_dma_mr_req, pd_handle, 0);
	VR_FSZ(test, virtio_rdma_get_dma_mr_req, pd_handle, 4);
	VR_OFF(test, virtio_rdma_get_dma_mr_req, access_flags, 4);
	VR_FSZ(test, virtio_rdma_get_dma_mr_req, access_flags, 4);

	VR_SIZE(test, virtio_rdma_mr_resp, 16);
	VR_OFF(test, virtio_rdma_mr_resp, mr_handle, 0);
	VR_FSZ(test, virtio_rdma_mr_resp, mr_handle, 4);
	VR_OFF(test, virtio_rdma_mr_resp, lkey, 4);
	VR_FSZ(test, virtio_rdma_mr_resp, lkey, 4);
	VR_OFF(test, virtio_rdma_mr_resp, rkey, 8);
	VR_FSZ(test, virtio_rdma_mr_resp, rkey, 4);
	VR_OFF(test, virtio_rdma_mr_resp, reserved, 12);
	VR_FSZ(test, virtio_rdma_mr_resp, reserved, 4);

	VR_SIZE(test, virtio_rdma_create_mr_req, 48);
	VR_OFF(test, virtio_rdma_create_mr_req, pd_handle, 0);
	VR_FSZ(test, virtio_rdma_create_mr_req, pd_handle, 4);
	VR_OFF(test, virtio_rdma_create_mr_req, access_flags, 4);
	VR_FSZ(test, virtio_rdma_create_mr_req, access_flags, 4);
	VR_OFF(test, virtio_rdma_create_mr_req, iova, 8);
	VR_FSZ(test, virtio_rdma_create_mr_req, iova, 8);
	VR_OFF(test, virtio_rdma_create_mr_req, length, 16);
	VR_FSZ(test, virtio_rdma_create_mr_req, length, 8);
	VR_OFF(test, virtio_rdma_create_mr_req, page_list_addr, 24);
	VR_FSZ(test, virtio_rdma_create_mr_req, page_list_addr, 8);
	VR_OFF(test, virtio_rdma_create_mr_req, npages, 32);
	VR_FSZ(test, virtio_rdma_create_mr_req, npages, 4);
	VR_OFF(test, virtio_rdma_create_mr_req, page_shift, 36);
	VR_FSZ(test, virtio_rdma_create_mr_req, page_shift, 4);
	VR_OFF(test, virtio_rdma_create_mr_req, flags, 40);
	VR_FSZ(test, virtio_rdma_create_mr_req, flags, 4);
	VR_OFF(test, virtio_rdma_create_mr_req, replace_handle, 44);
	VR_FSZ(test, virtio_rdma_create_mr_req, replace_handle, 4);

	VR_SIZE(test, virtio_rdma_alloc_mr_req, 16);
	VR_OFF(test, virtio_rdma_alloc_mr_req, pd_handle, 0);
	VR_FSZ(test, virtio_rdma_alloc_mr_req, pd_handle, 4);
	VR_OFF(test, virtio_rdma_alloc_mr_req, max_pages, 4);
	VR_FSZ(test, virtio_rdma_alloc_mr_req, max_pages, 4);
	VR_OFF(test, virtio_rdma_alloc_mr_req, page_list_addr, 8);
	VR_FSZ(test, virtio_rdma_alloc_mr_req, page_list_addr, 8);

	VR_SIZE(test, virtio_rdma_dereg_mr_req, 8);
	VR_OFF(test, virtio_rdma_dereg_mr_req, mr_handle, 0);
	VR_FSZ(test, virtio_rdma_dereg_mr_req, mr_handle, 4);
	VR_OFF(test, virtio_rdma_dereg_mr_req, reserved, 4);
	VR_FSZ(test, virtio_rdma_dereg_mr_req, reserved, 4);
}

static void vr_layout_cq(struct kunit *test)
{
	VR_SIZE(test, virtio_rdma_create_cq_req, 32);
	VR_OFF(test, virtio_rdma_create_cq_req, ring_addr, 0);
	VR_FSZ(test, virtio_rdma_create_cq_req, ring_addr, 8);
	VR_OFF(test, virtio_rdma_create_cq_req, ring_size, 8);
	VR_FSZ(test, virtio_rdma_create_cq_req, ring_size, 8);
	VR_OFF(test, virtio_rdma_create_cq_req, depth, 16);
	VR_FSZ(test, virtio_rdma_create_cq_req, depth, 4);
	VR_OFF(test, virtio_rdma_create_cq_req, eventq, 20);
	VR_FSZ(test, virtio_rdma_create_cq_req, eventq, 4);
	VR_OFF(test, virtio_rdma_create_cq_req, reserved, 24);
	VR_FSZ(test, virtio_rdma_create_cq_req, reserved, 8);

	VR_SIZE(test, virtio_rdma_create_cq_resp, 8);
	VR_OFF(test, virtio_rdma_create_cq_resp, cq_handle, 0);
	VR_FSZ(test, virtio_rdma_create_cq_resp, cq_handle, 4);
	VR_OFF(test, virtio_rdma_create_cq_resp, reserved, 4);
	VR_FSZ(test, virtio_rdma_create_cq_resp, reserved, 4);

	VR_SIZE(test, virtio_rdma_destroy_cq_req, 8);
	VR_OFF(test, virtio_rdma_destroy_cq_req, cq_handle, 0);
	VR_FSZ(test, virtio_rdma_destroy_cq_req, cq_handle, 4);
	VR_OFF(test, virtio_rdma_destroy_cq_req, reserved, 4);
	VR_FSZ(test, virtio_rdma_destroy_cq_req, reserved, 4);

	VR_SIZE(test, virtio_rdma_resize_cq_req, 32);
	VR_OFF(test, virtio_rdma_resize_cq_req, cq_handle, 0);
	VR_FSZ(test, virtio_rdma_resize_cq_req, cq_handle, 4);
	VR_OFF(test, virtio_rdma_resize_cq_req, depth, 4);
	VR_FSZ(test, virtio_rdma_resize_cq_req, depth, 4);
	VR_OFF(test, virtio_rdma_resize_cq_req, ring_addr, 8);
	VR_FSZ(test, virtio_rdma_resize_cq_req, ring_addr, 8);
	VR_OFF(test, virtio_rdma_resize_cq_req, ring_size, 16);
	VR_FSZ(test, virtio_rdma_resize_cq_req, ring_size, 8);
	VR_OFF(test, virtio_rdma_resize_cq_req, reserved, 24);
	VR_FSZ(test, virtio_rdma_resize_cq_req, reserved, 8);

	VR_SIZE(test, virtio_rdma_alloc_mw_req, 8);
	VR_OFF(test, virtio_rdma_alloc_mw_req, pd_handle, 0);
	VR_FSZ(test, virtio_rdma_alloc_mw_req, pd_handle, 4);
	VR_OFF(test, virtio_rdma_alloc_mw_req, type, 4);
	VR_FSZ(test, virtio_rdma_alloc_mw_req, type, 1);
	VR_OFF(test, virtio_rdma_alloc_mw_req, reserved, 5);
	VR_FSZ(test, virtio_rdma_alloc_mw_req, reserved, 3);
	VR_SIZE(test, virtio_rdma_alloc_mw_resp, 8);
	VR_OFF(test, virtio_rdma_alloc_mw_resp, mw_handle, 0);
	VR_FSZ(test, virtio_rdma_alloc_mw_resp, mw_handle, 4);
	VR_OFF(test, virtio_rdma_alloc_mw_resp, rkey, 4);
	VR_FSZ(test, virtio_rdma_alloc_mw_resp, rkey, 4);
	VR_SIZE(test, virtio_rdma_create_mkey_req, 8);
	VR_OFF(test, virtio_rdma_create_mkey_req, pd_handle, 0);
	VR_FSZ(test, virtio_rdma_create_mkey_req, pd_handle, 4);
	VR_OFF(test, virtio_rdma_create_mkey_req, max_entries, 4);
	VR_FSZ(test, virtio_rdma_create_mkey_req, max_entries, 4);
	VR_SIZE(test, virtio_rdma_dealloc_mw_req, 8);
	VR_OFF(test, virtio_rdma_dealloc_mw_req, mw_handle, 0);
	VR_FSZ(test, virtio_rdma_dealloc_mw_req, mw_handle, 4);
	VR_OFF(test, virtio_rdma_dealloc_mw_req, reserved, 4);
	VR_FSZ(test, virtio_rdma_dealloc_mw_req, reserved, 4);
}

static void vr_layout_qp(struct kunit *test)
{
	VR_SIZE(test, virtio_rdma_create_qp_req, 80);
	VR_OFF(test, virtio_rdma_create_qp_req, pd_handle, 0);
	VR_FSZ(test, virtio_rdma_create_qp_req, pd_handle, 4);
	VR_OFF(test, virtio_rdma_create_qp_req, qp_type, 4);
	VR_FSZ(test, virtio_rdma_create_qp_req, qp_type, 1);
	VR_OFF(test, virtio_rdma_create_qp_req, sq_sig_all, 5);
	VR_FSZ(test, virtio_rdma_create_qp_req, sq_sig_all, 1);
	VR_OFF(test, virtio_rdma_create_qp_req, sq_wqe_shift, 6);
	VR_FSZ(test, virtio_rdma_create_qp_req, sq_wqe_shift, 1);
	VR_OFF(test, virtio_rdma_create_qp_req, rq_wqe_shift, 7);
	VR_FSZ(test, virtio_rdma_create_qp_req, rq_wqe_shift, 1);
	VR_OFF(test, virtio_rdma_create_qp_req, send_cq, 8);
	VR_FSZ(test, virtio_rdma_create_qp_req, send_cq, 4);
	VR_OFF(test, virtio_rdma_create_qp_req, recv_cq, 12);
	VR_FSZ(test, virtio_rdma_create_qp_req, recv_cq, 4);
	VR_OFF(test, virtio_rdma_create_qp_req, sq_depth, 16);
	VR_FSZ(test, virtio_rdma_create_qp_req, sq_depth, 4);
	VR_OFF(test, virtio_rdma_create_qp_req, rq_depth, 20);
	VR_FSZ(test, virtio_rdma_create_qp_req, rq_depth, 4);
	VR_OFF(test, virtio_rdma_create_qp_req, max_send_sge, 24);
	VR_FSZ(test, virtio_rdma_create_qp_req, max_send_sge, 4);
	VR_OFF(test, virtio_rdma_create_qp_req, max_recv_sge, 28);
	VR_FSZ(test, virtio_rdma_create_qp_req, max_recv_sge, 4);
	VR_OFF(test, virtio_rdma_create_qp_req, max_inline_data, 32);
	VR_FSZ(test, virtio_rdma_create_qp_req, max_inline_data, 4);
	VR_OFF(test, virtio_rdma_create_qp_req, srq_handle, 36);
	VR_FSZ(test, virtio_rdma_create_qp_req, srq_handle, 4);
	VR_OFF(test, virtio_rdma_create_qp_req, sq_ring_addr, 40);
	VR_FSZ(test, virtio_rdma_create_qp_req, sq_ring_addr, 8);
	VR_OFF(test, virtio_rdma_create_qp_req, sq_ring_size, 48);
	VR_FSZ(test, virtio_rdma_create_qp_req, sq_ring_size, 8);
	VR_OFF(test, virtio_rdma_create_qp_req, rq_ring_addr, 56);
	VR_FSZ(test, virtio_rdma_create_qp_req, rq_ring_addr, 8);
	VR_OFF(test, virtio_rdma_create_qp_req, rq_ring_size, 64);
	VR_FSZ(test, virtio_rdma_create_qp_req, rq_ring_size, 8);
	VR_OFF(test, virtio_rdma_create_qp_req, xrcd_handle, 72);
	VR_FSZ(test, virtio_rdma_create_qp_req, xrcd_handle, 4);
	VR_OFF(test, virtio_rdma_create_qp_req, reserved, 76);
	VR_FSZ(test, virtio_rdma_create_qp_req, reserved, 4);

	VR_SIZE(test, virtio_rdma_create_srq_req, 80);
	VR_OFF(test, virtio_rdma_create_srq_req, pd_handle, 0);
	VR_OFF(test, virtio_rdma_create_srq_req, depth, 4);
	VR_OFF(test, virtio_rdma_create_srq_req, max_sge, 8);
	VR_OFF(test, virtio_rdma_create_srq_req, srq_limit, 12);
	VR_OFF(test, virtio_rdma_create_srq_req, wqe_shift, 16);
	VR_FSZ(test, virtio_rdma_create_srq_req, wqe_shift, 1);
	VR_OFF(test, virtio_rdma_create_srq_req, srq_type, 17);
	VR_FSZ(test, virtio_rdma_create_srq_req, srq_type, 1);
	VR_OFF(test, virtio_rdma_create_srq_req, reserved1, 18);
	VR_FSZ(test, virtio_rdma_create_srq_req, reserved1, 2);
	VR_OFF(test, virtio_rdma_create_srq_req, xrcd_handle, 20);
	VR_FSZ(test, virtio_rdma_create_srq_req, xrcd_handle, 4);
	VR_OFF(test, virtio_rdma_create_srq_req, ring_addr, 24);
	VR_FSZ(test, virtio_rdma_create_srq_req, ring_addr, 8);
	VR_OFF(test, virtio_rdma_create_srq_req, ring_size, 32);
	VR_FSZ(test, virtio_rdma_create_srq_req, ring_size, 8);
	VR_OFF(test, virtio_rdma_create_srq_req, cq_handle, 40);
	VR_FSZ(test, virtio_rdma_create_srq_req, cq_handle, 4);
	VR_OFF(test, virtio_rdma_create_srq_req, reserved2, 44);
	VR_FSZ(test, virtio_rdma_create_srq_req, reserved2, 4);
	VR_OFF(test, virtio_rdma_create_srq_req, max_num_tags, 48);
	VR_FSZ(test, virtio_rdma_create_srq_req, max_num_tags, 4);
	VR_OFF(test, virtio_rdma_create_srq_req, ops_depth, 52);
	VR_FSZ(test, virtio_rdma_create_srq_req, ops_depth, 4);
	VR_OFF(test, virtio_rdma_create_srq_req, ops_addr, 56);
	VR_FSZ(test, virtio_rdma_create_srq_req, ops_addr, 8);
	VR_OFF(test, virtio_rdma_create_srq_req, ops_size, 64);
	VR_FSZ(test, virtio_rdma_create_srq_req, ops_size, 8);
	VR_OFF(test, virtio_rdma_create_srq_req, ops_shift, 72);
	VR_FSZ(test, virtio_rdma_create_srq_req, ops_shift, 1);
	VR_OFF(test, virtio_rdma_create_srq_req, reserved3, 73);
	VR_FSZ(test, virtio_rdma_create_srq_req, reserved3, 7);
	VR_SIZE(test, virtio_rdma_create_srq_resp, 8);
	VR_OFF(test, virtio_rdma_create_srq_resp, srq_handle, 0);
	VR_SIZE(test, virtio_rdma_modify_srq_req, 16);
	VR_OFF(test, virtio_rdma_modify_srq_req, srq_handle, 0);
	VR_OFF(test, virtio_rdma_modify_srq_req, attr_mask, 4);
	VR_OFF(test, virtio_rdma_modify_srq_req, srq_limit, 8);
	VR_OFF(test, virtio_rdma_modify_srq_req, reserved, 12);
	VR_SIZE(test, virtio_rdma_query_srq_req, 8);
	VR_OFF(test, virtio_rdma_query_srq_req, srq_handle, 0);
	VR_SIZE(test, virtio_rdma_query_srq_resp, 16);
	VR_OFF(test, virtio_rdma_query_srq_resp, max_wr, 0);
	VR_OFF(test, virtio_rdma_query_srq_resp, max_sge, 4);
	VR_OFF(test, virtio_rdma_query_srq_resp, srq_limit, 8);
	VR_SIZE(test, virtio_rdma_destroy_srq_req, 8);
	VR_OFF(test, virtio_rdma_destroy_srq_req, srq_handle, 0);

	VR_SIZE(test, virtio_rdma_create_qp_resp, 8);
	VR_OFF(test, virtio_rdma_create_qp_resp, qp_handle, 0);
	VR_FSZ(test, virtio_rdma_create_qp_resp, qp_handle, 4);
	VR_OFF(test, virtio_rdma_create_qp_resp, reserved, 4);
	VR_FSZ(test, virtio_rdma_create_qp_resp, reserved, 4);

	VR_SIZE(test, virtio_rdma_av, 32);
	VR_OFF(test, virtio_rdma_av, dgid, 0);
	VR_FSZ(test, virtio_rdma_av, dgid, 16);
	VR_OFF(test, virtio_rdma_av, dmac, 16);
	VR_FSZ(test, virtio_rdma_av, dmac, 6);
	VR_OFF(test, virtio_rdma_av, sgid_index, 22);
	VR_FSZ(test, virtio_rdma_av, sgid_index, 1);
	VR_OFF(test, virtio_rdma_av, hop_limit, 23);
	VR_FSZ(test, virtio_rdma_av, hop_limit, 1);
	VR_OFF(test, virtio_rdma_av, traffic_class, 24);
	VR_FSZ(test, virtio_rdma_av, traffic_class, 1);
	VR_OFF(test, virtio_rdma_av, network_type, 25);
	VR_FSZ(test, virtio_rdma_av, network_type, 1);
	VR_OFF(test, virtio_rdma_av, reserved, 26);
	VR_FSZ(test, virtio_rdma_av, reserved, 2);
	VR_OFF(test, virtio_rdma_av, flow_label, 28);
	VR_FSZ(test, virtio_rdma_av, flow_label, 4);

	VR_SIZE(test, virtio_rdma_qp_attr, 96);
	VR_OFF(test, virtio_rdma_qp_attr, qp_state, 0);
	VR_FSZ(test, virtio_rdma_qp_attr, qp_state, 1);
	VR_OFF(test, virtio_rdma_qp_attr, cur_qp_state, 1);
	VR_FSZ(test, virtio_rdma_qp_attr, cur_qp_state, 1);
	VR_OFF(test, virtio_rdma_qp_attr, path_mtu, 2);
	VR_FSZ(test, virtio_rdma_qp_attr, path_mtu, 1);
	VR_OFF(test, virtio_rdma_qp_attr, en_sqd_async_notify, 3);
	VR_FSZ(test, virtio_rdma_qp_attr, en_sqd_async_notify, 1);
	VR_OFF(test, virtio_rdma_qp_attr, sq_draining, 4);
	VR_FSZ(test, virtio_rdma_qp_attr, sq_draining, 1);
	VR_OFF(test, virtio_rdma_qp_attr, timeout, 5);
	VR_FSZ(test, virtio_rdma_qp_attr, timeout, 1);
	VR_OFF(test, virtio_rdma_qp_attr, retry_cnt, 6);
	VR_FSZ(test, virtio_rdma_qp_attr, retry_cnt, 1);
	VR_OFF(test, virtio_rdma_qp_attr, rnr_retry, 7);
	VR_FSZ(test, virtio_rdma_qp_attr, rnr_retry, 1);
	VR_OFF(test, virtio_rdma_qp_attr, min_rnr_timer, 8);
	VR_FSZ(test, virtio_rdma_qp_attr, min_rnr_timer, 1);
	VR_OFF(test, virtio_rdma_qp_attr, max_rd_atomic, 9);
	VR_FSZ(test, virtio_rdma_qp_attr, max_rd_atomic, 1);
	VR_OFF(test, virtio_rdma_qp_attr, max_dest_rd_atomic, 10);
	VR_FSZ(test, virtio_rdma_qp_attr, max_dest_rd_atomic, 1);
	VR_OFF(test, virtio_rdma_qp_attr, port_num, 11);
	VR_FSZ(test, virtio_rdma_qp_attr, port_num, 1);
	VR_OFF(test, virtio_rdma_qp_attr, pkey_index, 12);
	VR_FSZ(test, virtio_rdma_qp_attr, pkey_index, 2);
	VR_OFF(test, virtio_rdma_qp_attr, reserved1, 14);
	VR_FSZ(test, virtio_rdma_qp_attr, reserved1, 2);
	VR_OFF(test, virtio_rdma_qp_attr, qkey, 16);
	VR_FSZ(test, virtio_rdma_qp_attr, qkey, 4);
	VR_OFF(test, virtio_rdma_qp_attr, rq_psn, 20);
	VR_FSZ(test, virtio_rdma_qp_attr, rq_psn, 4);
	VR_OFF(test, virtio_rdma_qp_attr, sq_psn, 24);
	VR_FSZ(test, virtio_rdma_qp_attr, sq_psn, 4);
	VR_OFF(test, virtio_rdma_qp_attr, dest_qp_num, 28);
	VR_FSZ(test, virtio_rdma_qp_attr, dest_qp_num, 4);
	VR_OFF(test, virtio_rdma_qp_attr, qp_access_flags, 32);
	VR_FSZ(test, virtio_rdma_qp_attr, qp_access_flags, 4);
	VR_OFF(test, virtio_rdma_qp_attr, reserved2, 36);
	VR_FSZ(test, virtio_rdma_qp_attr, reserved2, 4);
	VR_OFF(test, virtio_rdma_qp_attr, av, 40);
	VR_FSZ(test, virtio_rdma_qp_attr, av, 32);
	VR_OFF(test, virtio_rdma_qp_attr, reserved, 72);
	VR_FSZ(test, virtio_rdma_qp_attr, reserved, 24);

	VR_SIZE(test, virtio_rdma_modify_qp_req, 104);
	VR_OFF(test, virtio_rdma_modify_qp_req, qp_handle, 0);
	VR_FSZ(test, virtio_rdma_modify_qp_req, qp_handle, 4);
	VR_OFF(test, virtio_rdma_modify_qp_req, attr_mask, 4);
	VR_FSZ(test, virtio_rdma_modify_qp_req, attr_mask, 4);
	VR_OFF(test, virtio_rdma_modify_qp_req, attr, 8);
	VR_FSZ(test, virtio_rdma_modify_qp_req, attr, 96);

	VR_SIZE(test, virtio_rdma_query_qp_req, 8);
	VR_OFF(test, virtio_rdma_query_qp_req, qp_handle, 0);
	VR_FSZ(test, virtio_rdma_query_qp_req, qp_handle, 4);
	VR_OFF(test, virtio_rdma_query_qp_req, attr_mask, 4);
	VR_FSZ(test, virtio_rdma_query_qp_req, attr_mask, 4);

	VR_SIZE(test, virtio_rdma_query_qp_resp, 96);
	VR_OFF(test, virtio_rdma_query_qp_resp, attr, 0);
	VR_FSZ(test, virtio_rdma_query_qp_resp, attr, 96);

	VR_SIZE(test, virtio_rdma_destroy_qp_req, 8);
	VR_OFF(test, virtio_rdma_destroy_qp_req, qp_handle, 0);
	VR_FSZ(test, virtio_rdma_destroy_qp_req, qp_handle, 4);
	VR_OFF(test, virtio_rdma_destroy_qp_req, reserved, 4);
	VR_FSZ(test, virtio_rdma_destroy_qp_req, reserved, 4);
}

static void vr_layout_stats(struct kunit *test)
{
	VR_SIZE(test, virtio_rdma_query_stats_resp, 264);
	VR_OFF(test, virtio_rdma_query_stats_resp, num_counters, 0);
	VR_FSZ(test, virtio_rdma_query_stats_resp, num_counters, 4);
	VR_OFF(test, virtio_rdma_query_stats_resp, reserved, 4);
	VR_FSZ(test, virtio_rdma_query_stats_resp, reserved, 4);
	VR_OFF(test, virtio_rdma_query_stats_resp, counters, 8);
	VR_FSZ(test, virtio_rdma_query_stats_resp, counters, 256);
}

static void vr_layout_gid(struct kunit *test)
{
	VR_SIZE(test, virtio_rdma_add_gid_req, 24);
	VR_OFF(test, virtio_rdma_add_gid_req, index, 0);
	VR_FSZ(test, virtio_rdma_add_gid_req, index, 4);
	VR_OFF(test, virtio_rdma_add_gid_req, gid_type, 4);
	VR_FSZ(test, virtio_rdma_add_gid_req, gid_type, 4);
	VR_OFF(test, virtio_rdma_add_gid_req, gid, 8);
	VR_FSZ(test, virtio_rdma_add_gid_req, gid, 16);

	VR_SIZE(test, virtio_rdma_del_gid_req, 8);
	VR_OFF(test, virtio_rdma_del_gid_req, index, 0);
	VR_FSZ(test, virtio_rdma_del_gid_req, index, 4);
	VR_OFF(test, virtio_rdma_del_gid_req, reserved, 4);
	VR_FSZ(test, virtio_rdma_del_gid_req, reserved, 4);
}

static void vr_layout_event_doorbell(struct kunit *test)
{
	VR_SIZE(test, virtio_rdma_event, 16);
	VR_OFF(test, virtio_rdma_event, type, 0);
	VR_FSZ(test, virtio_rdma_event, type, 4);
	VR_OFF(test, virtio_rdma_event, handle, 4);
	VR_FSZ(test, virtio_rdma_event, handle, 4);
	VR_OFF(test, virtio_rdma_event, data, 8);
	VR_FSZ(test, virtio_rdma_event, data, 4);
	VR_OFF(test, virtio_rdma_event, reserved, 12);
	VR_FSZ(test, virtio_rdma_event, reserved, 4);

	VR_SIZE(test, virtio_rdma_doorbell, 8);
	VR_OFF(test, virtio_rdma_doorbell, type, 0);
	VR_FSZ(test, virtio_rdma_doorbell, type, 4);
	VR_OFF(test, virtio_rdma_doorbell, handle, 4);
	VR_FSZ(test, virtio_rdma_doorbell, handle, 4);
}

static void vr_layout_ring_ctl(struct kunit *test)
{
	VR_SIZE(test, virtio_rdma_ring_ctl, 128);
	VR_OFF(test, virtio_rdma_ring_ctl, prod, 0);
	VR_FSZ(test, virtio_rdma_ring_ctl, prod, 4);
	VR_OFF(test, virtio_rdma_ring_ctl, reserved1, 4);
	VR_FSZ(test, virtio_rdma_ring_ctl, reserved1, 60);
	VR_OFF(test, virtio_rdma_ring_ctl, cons, 64);
	VR_FSZ(test, virtio_rdma_ring_ctl, cons, 4);
	VR_OFF(test, virtio_rdma_ring_ctl, notify, 68);
	VR_FSZ(test, virtio_rdma_ring_ctl, notify, 4);
	VR_OFF(test, virtio_rdma_ring_ctl, flags, 72);
	VR_FSZ(test, virtio_rdma_ring_ctl, flags, 4);
	VR_OFF(test, virtio_rdma_ring_ctl, reserved2, 76);
	VR_FSZ(test, virtio_rdma_ring_ctl, reserved2, 52);
}

static void vr_layout_sq_wqe(struct kunit *test)
{
	VR_SIZE(test, virtio_rdma_sge, 16);
	VR_OFF(test, virtio_rdma_sge, addr, 0);
	VR_FSZ(test, virtio_rdma_sge, addr, 8);
	VR_OFF(test, virtio_rdma_sge, length, 8);
	VR_FSZ(test, virtio_rdma_sge, length, 4);
	VR_OFF(test, virtio_rdma_sge, lkey, 12);
	VR_FSZ(test, virtio_rdma_sge, lkey, 4);

	VR_SIZE(test, virtio_rdma_wqe_rdma, 40);
	VR_OFF(test, virtio_rdma_wqe_rdma, remote_addr, 0);
	VR_FSZ(test, virtio_rdma_wqe_rdma, remote_addr, 8);
	VR_OFF(test, virtio_rdma_wqe_rdma, rkey, 8);
	VR_FSZ(test, virtio_rdma_wqe_rdma, rkey, 4);
	VR_OFF(test, virtio_rdma_wqe_rdma, reserved, 12);
	VR_FSZ(test, virtio_rdma_wqe_rdma, reserved, 28);

	VR_SIZE(test, virtio_rdma_wqe_atomic, 40);
	VR_OFF(test, virtio_rdma_wqe_atomic, remote_addr, 0);
	VR_FSZ(test, virtio_rdma_wqe_atomic, remote_addr, 8);
	VR_OFF(test, virtio_rdma_wqe_atomic, compare_add, 8);
	VR_FSZ(test, virtio_rdma_wqe_atomic, compare_add, 8);
	VR_OFF(test, virtio_rdma_wqe_atomic, swap, 16);
	VR_FSZ(test, virtio_rdma_wqe_atomic, swap, 8);
	VR_OFF(test, virtio_rdma_wqe_atomic, rkey, 24);
	VR_FSZ(test, virtio_rdma_wqe_atomic, rkey, 4);
	VR_OFF(test, virtio_rdma_wqe_atomic, reserved, 28);
	VR_FSZ(test, virtio_rdma_wqe_atomic, reserved, 12);

	VR_SIZE(test, virtio_rdma_wqe_ud, 40);
	VR_OFF(test, virtio_rdma_wqe_ud, av, 0);
	VR_FSZ(test, virtio_rdma_wqe_ud, av, 32);
	VR_OFF(test, virtio_rdma_wqe_ud, remote_qpn, 32);
	VR_FSZ(test, virtio_rdma_wqe_ud, remote_qpn, 4);
	VR_OFF(test, virtio_rdma_wqe_ud, remote_qkey, 36);
	VR_FSZ(test, virtio_rdma_wqe_ud, remote_qkey, 4);

	VR_SIZE(test, virtio_rdma_wqe_reg_mr, 40);
	VR_OFF(test, virtio_rdma_wqe_reg_mr, key, 0);
	VR_FSZ(test, virtio_rdma_wqe_reg_mr, key, 4);
	VR_OFF(test, virtio_rdma_wqe_reg_mr, access_flags, 4);
	VR_FSZ(test, virtio_rdma_wqe_reg_mr, access_flags, 4);
	VR_OFF(test, virtio_rdma_wqe_reg_mr, iova, 8);
	VR_FSZ(test, virtio_rdma_wqe_reg_mr, iova, 8);
	VR_OFF(test, virtio_rdma_wqe_reg_mr, length, 16);
	VR_FSZ(test, virtio_rdma_wqe_reg_mr, length, 8);
	VR_OFF(test, virtio_rdma_wqe_reg_mr, page_shift, 24);
	VR_FSZ(test, virtio_rdma_wqe_reg_mr, page_shift, 4);
	VR_OFF(test, virtio_rdma_wqe_reg_mr, npages, 28);
	VR_FSZ(test, virtio_rdma_wqe_reg_mr, npages, 4);
	VR_OFF(test, virtio_rdma_wqe_reg_mr, reserved, 32);
	VR_FSZ(test, virtio_rdma_wqe_reg_mr, reserved, 8);

	VR_SIZE(test, virtio_rdma_wqe_bind_mw, 40);
	VR_OFF(test, virtio_rdma_wqe_bind_mw, rkey, 0);
	VR_FSZ(test, virtio_rdma_wqe_bind_mw, rkey, 4);
	VR_OFF(test, virtio_rdma_wqe_bind_mw, mr_lkey, 4);
	VR_FSZ(test, virtio_rdma_wqe_bind_mw, mr_lkey, 4);
	VR_OFF(test, virtio_rdma_wqe_bind_mw, addr, 8);
	VR_FSZ(test, virtio_rdma_wqe_bind_mw, addr, 8);
	VR_OFF(test, virtio_rdma_wqe_bind_mw, length, 16);
	VR_FSZ(test, virtio_rdma_wqe_bind_mw, length, 8);
	VR_OFF(test, virtio_rdma_wqe_bind_mw, access_flags, 24);
	VR_FSZ(test, virtio_rdma_wqe_bind_mw, access_flags, 4);
	VR_OFF(test, virtio_rdma_wqe_bind_mw, reserved, 28);
	VR_FSZ(test, virtio_rdma_wqe_bind_mw, reserved, 12);

	VR_SIZE(test, virtio_rdma_wqe_mkey, 40);
	VR_OFF(test, virtio_rdma_wqe_mkey, key, 0);
	VR_FSZ(test, virtio_rdma_wqe_mkey, key, 4);
	VR_OFF(test, virtio_rdma_wqe_mkey, access_flags, 4);
	VR_FSZ(test, virtio_rdma_wqe_mkey, access_flags, 4);
	VR_OFF(test, virtio_rdma_wqe_mkey, repeat_count, 8);
	VR_FSZ(test, virtio_rdma_wqe_mkey, repeat_count, 4);
	VR_OFF(test, virtio_rdma_wqe_mkey, num_entries, 12);
	VR_FSZ(test, virtio_rdma_wqe_mkey, num_entries, 2);
	VR_OFF(test, virtio_rdma_wqe_mkey, flags, 14);
	VR_FSZ(test, virtio_rdma_wqe_mkey, flags, 1);
	VR_OFF(test, virtio_rdma_wqe_mkey, reserved1, 15);
	VR_FSZ(test, virtio_rdma_wqe_mkey, reserved1, 1);
	VR_OFF(test, virtio_rdma_wqe_mkey, reserved, 16);
	VR_FSZ(test, virtio_rdma_wqe_mkey, reserved, 24);

	/* Two SGE slots each (spec "Indirect memory keys"). */
	VR_SIZE(test, virtio_rdma_mkey_entry, 32);
	VR_OFF(test, virtio_rdma_mkey_entry, addr, 0);
	VR_FSZ(test, virtio_rdma_mkey_entry, addr, 8);
	VR_OFF(test, virtio_rdma_mkey_entry, bytes_count, 8);
	VR_FSZ(test, virtio_rdma_mkey_entry, bytes_count, 4);
	VR_OFF(test, virtio_rdma_mkey_entry, bytes_skip, 12);
	VR_FSZ(test, virtio_rdma_mkey_entry, bytes_skip, 4);
	VR_OFF(test, virtio_rdma_mkey_entry, lkey, 16);
	VR_FSZ(test, virtio_rdma_mkey_entry, lkey, 4);
	VR_OFF(test, virtio_rdma_mkey_entry, reserved, 20);
	VR_FSZ(test, virtio_rdma_mkey_entry, reserved, 12);

	VR_SIZE(test, virtio_rdma_sq_wqe, 64);
	VR_OFF(test, virtio_rdma_sq_wqe, wr_id, 0);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr_id, 8);
	VR_OFF(test, virtio_rdma_sq_wqe, opcode, 8);
	VR_FSZ(test, virtio_rdma_sq_wqe, opcode, 1);
	VR_OFF(test, virtio_rdma_sq_wqe, flags, 9);
	VR_FSZ(test, virtio_rdma_sq_wqe, flags, 1);
	VR_OFF(test, virtio_rdma_sq_wqe, num_sge, 10);
	VR_FSZ(test, virtio_rdma_sq_wqe, num_sge, 1);
	VR_OFF(test, virtio_rdma_sq_wqe, reserved1, 11);
	VR_FSZ(test, virtio_rdma_sq_wqe, reserved1, 1);
	VR_OFF(test, virtio_rdma_sq_wqe, ex, 12);
	VR_FSZ(test, virtio_rdma_sq_wqe, ex, 4);
	VR_OFF(test, virtio_rdma_sq_wqe, ex.imm_data, 12);
	VR_FSZ(test, virtio_rdma_sq_wqe, ex.imm_data, 4);
	VR_OFF(test, virtio_rdma_sq_wqe, ex.invalidate_rkey, 12);
	VR_FSZ(test, virtio_rdma_sq_wqe, ex.invalidate_rkey, 4);
	VR_OFF(test, virtio_rdma_sq_wqe, length, 16);
	VR_FSZ(test, virtio_rdma_sq_wqe, length, 4);
	VR_OFF(test, virtio_rdma_sq_wqe, xrc_srqn, 20);
	VR_FSZ(test, virtio_rdma_sq_wqe, xrc_srqn, 4);
	VR_OFF(test, virtio_rdma_sq_wqe, wr, 24);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr, 40);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.rdma, 24);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.rdma, 40);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.atomic, 24);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.atomic, 40);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.ud, 24);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.ud, 40);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.reg_mr, 24);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.reg_mr, 40);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.bind_mw, 24);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.bind_mw, 40);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.mkey, 24);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.mkey, 40);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.rdma.remote_addr, 24);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.rdma.remote_addr, 8);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.rdma.rkey, 32);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.rdma.rkey, 4);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.atomic.remote_addr, 24);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.atomic.remote_addr, 8);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.atomic.compare_add, 32);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.atomic.compare_add, 8);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.atomic.swap, 40);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.atomic.swap, 8);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.atomic.rkey, 48);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.atomic.rkey, 4);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.ud.av, 24);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.ud.av, 32);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.ud.av.dgid, 24);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.ud.av.dgid, 16);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.ud.av.dmac, 40);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.ud.av.dmac, 6);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.ud.av.flow_label, 52);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.ud.av.flow_label, 4);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.ud.remote_qpn, 56);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.ud.remote_qpn, 4);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.ud.remote_qkey, 60);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.ud.remote_qkey, 4);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.reg_mr.key, 24);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.reg_mr.key, 4);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.reg_mr.access_flags, 28);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.reg_mr.access_flags, 4);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.reg_mr.iova, 32);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.reg_mr.iova, 8);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.reg_mr.length, 40);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.reg_mr.length, 8);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.reg_mr.page_shift, 48);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.reg_mr.page_shift, 4);
	VR_OFF(test, virtio_rdma_sq_wqe, wr.reg_mr.npages, 52);
	VR_FSZ(test, virtio_rdma_sq_wqe, wr.reg_mr.npages, 4);
}

static void vr_layout_rq_wqe(struct kunit *test)
{
	VR_SIZE(test, virtio_rdma_rq_wqe, 16);
	VR_OFF(test, virtio_rdma_rq_wqe, wr_id, 0);
	VR_FSZ(test, virtio_rdma_rq_wqe, wr_id, 8);
	VR_OFF(test, virtio_rdma_rq_wqe, num_sge, 8);
	VR_FSZ(test, virtio_rdma_rq_wqe, num_sge, 1);
	VR_OFF(test, virtio_rdma_rq_wqe, reserved, 9);
	VR_FSZ(test, virtio_rdma_rq_wqe, reserved, 7);
}

static void vr_layout_cqe(struct kunit *test)
{
	VR_SIZE(test, virtio_rdma_cqe, 64);
	VR_OFF(test, virtio_rdma_cqe, wr_id, 0);
	VR_FSZ(test, virtio_rdma_cqe, wr_id, 8);
	VR_OFF(test, virtio_rdma_cqe, status, 8);
	VR_FSZ(test, virtio_rdma_cqe, status, 1);
	VR_OFF(test, virtio_rdma_cqe, opcode, 9);
	VR_FSZ(test, virtio_rdma_cqe, opcode, 1);
	VR_OFF(test, virtio_rdma_cqe, flags, 10);
	VR_FSZ(test, virtio_rdma_cqe, flags, 1);
	VR_OFF(test, virtio_rdma_cqe, network_hdr_type, 11);
	VR_FSZ(test, virtio_rdma_cqe, network_hdr_type, 1);
	VR_OFF(test, virtio_rdma_cqe, byte_len, 12);
	VR_FSZ(test, virtio_rdma_cqe, byte_len, 4);
	VR_OFF(test, virtio_rdma_cqe, qp_handle, 16);
	VR_FSZ(test, virtio_rdma_cqe, qp_handle, 4);
	VR_OFF(test, virtio_rdma_cqe, ex, 20);
	VR_FSZ(test, virtio_rdma_cqe, ex, 4);
	VR_OFF(test, virtio_rdma_cqe, ex.imm_data, 20);
	VR_FSZ(test, virtio_rdma_cqe, ex.imm_data, 4);
	VR_OFF(test, virtio_rdma_cqe, ex.invalidated_rkey, 20);
	VR_FSZ(test, virtio_rdma_cqe, ex.invalidated_rkey, 4);
	VR_OFF(test, virtio_rdma_cqe, src_qp, 24);
	VR_FSZ(test, virtio_rdma_cqe, src_qp, 4);
	VR_OFF(test, virtio_rdma_cqe, pkey_index, 28);
	VR_FSZ(test, virtio_rdma_cqe, pkey_index, 2);
	VR_OFF(test, virtio_rdma_cqe, vlan_id, 30);
	VR_FSZ(test, virtio_rdma_cqe, vlan_id, 2);
	VR_OFF(test, virtio_rdma_cqe, smac, 32);
	VR_FSZ(test, virtio_rdma_cqe, smac, 6);
	VR_OFF(test, virtio_rdma_cqe, tm_flags, 38);
	VR_FSZ(test, virtio_rdma_cqe, tm_flags, 1);
	VR_OFF(test, virtio_rdma_cqe, reserved1, 39);
	VR_FSZ(test, virtio_rdma_cqe, reserved1, 1);
	VR_OFF(test, virtio_rdma_cqe, vendor_err, 40);
	VR_FSZ(test, virtio_rdma_cqe, vendor_err, 4);
	VR_OFF(test, virtio_rdma_cqe, tm_app_ctx, 44);
	VR_FSZ(test, virtio_rdma_cqe, tm_app_ctx, 4);
	VR_OFF(test, virtio_rdma_cqe, tm_tag, 48);
	VR_FSZ(test, virtio_rdma_cqe, tm_tag, 8);
	VR_OFF(test, virtio_rdma_cqe, reserved, 56);
	VR_FSZ(test, virtio_rdma_cqe, reserved, 8);
}

static void vr_layout_tm(struct kunit *test)
{
	VR_SIZE(test, virtio_rdma_tm_op, 64);
	VR_OFF(test, virtio_rdma_tm_op, wr_id, 0);
	VR_FSZ(test, virtio_rdma_tm_op, wr_id, 8);
	VR_OFF(test, virtio_rdma_tm_op, recv_wr_id, 8);
	VR_FSZ(test, virtio_rdma_tm_op, recv_wr_id, 8);
	VR_OFF(test, virtio_rdma_tm_op, tag, 16);
	VR_FSZ(test, virtio_rdma_tm_op, tag, 8);
	VR_OFF(test, virtio_rdma_tm_op, mask, 24);
	VR_FSZ(test, virtio_rdma_tm_op, mask, 8);
	VR_OFF(test, virtio_rdma_tm_op, handle, 32);
	VR_FSZ(test, virtio_rdma_tm_op, handle, 4);
	VR_OFF(test, virtio_rdma_tm_op, unexpected_cnt, 36);
	VR_FSZ(test, virtio_rdma_tm_op, unexpected_cnt, 4);
	VR_OFF(test, virtio_rdma_tm_op, opcode, 40);
	VR_FSZ(test, virtio_rdma_tm_op, opcode, 1);
	VR_OFF(test, virtio_rdma_tm_op, flags, 41);
	VR_FSZ(test, virtio_rdma_tm_op, flags, 1);
	VR_OFF(test, virtio_rdma_tm_op, num_sge, 42);
	VR_FSZ(test, virtio_rdma_tm_op, num_sge, 1);
	VR_OFF(test, virtio_rdma_tm_op, reserved, 43);
	VR_FSZ(test, virtio_rdma_tm_op, reserved, 21);

	VR_SIZE(test, virtio_rdma_tmh, 16);
	VR_OFF(test, virtio_rdma_tmh, opcode, 0);
	VR_FSZ(test, virtio_rdma_tmh, opcode, 1);
	VR_OFF(test, virtio_rdma_tmh, app_ctx, 4);
	VR_FSZ(test, virtio_rdma_tmh, app_ctx, 4);
	VR_OFF(test, virtio_rdma_tmh, tag, 8);
	VR_FSZ(test, virtio_rdma_tmh, tag, 8);

	VR_SIZE(test, virtio_rdma_rvh, 16);
	VR_OFF(test, virtio_rdma_rvh, va, 0);
	VR_FSZ(test, virtio_rdma_rvh, va, 8);
	VR_OFF(test, virtio_rdma_rvh, rkey, 8);
	VR_FSZ(test, virtio_rdma_rvh, rkey, 4);
	VR_OFF(test, virtio_rdma_rvh, len, 12);
	VR_FSZ(test, virtio_rdma_rvh, len, 4);

	VR_SIZE(test, virtio_rdma_uverbs_create_srq_req, 8);
	VR_OFF(test, virtio_rdma_uverbs_create_srq_req, max_ops, 4);
	VR_SIZE(test, virtio_rdma_uverbs_create_srq_resp, 72);
	VR_OFF(test, virtio_rdma_uverbs_create_srq_resp, ring_size, 32);
	VR_OFF(test, virtio_rdma_uverbs_create_srq_resp, ops_depth, 40);
	VR_OFF(test, virtio_rdma_uverbs_create_srq_resp, ops_shift, 44);
	VR_OFF(test, virtio_rdma_uverbs_create_srq_resp, max_num_tags, 48);
	VR_OFF(test, virtio_rdma_uverbs_create_srq_resp, max_tm_sge, 52);
	VR_OFF(test, virtio_rdma_uverbs_create_srq_resp, ops_mmap_key, 56);
	VR_OFF(test, virtio_rdma_uverbs_create_srq_resp, ops_size, 64);

	/* The values the verbs enums and the TMH wire format fix. */
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_SRQT_TM, IB_SRQT_TM);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_TM_OP_BASE_SHIFT, 6);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_TM_OP_ADD, 0);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_TM_OP_DEL, 1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_TM_OP_SYNC, 2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_TM_OP_F_SIGNALED, 1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_TM_OP_F_SYNC, 2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_TMH_NO_TAG, 0);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_TMH_RNDV, 1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_TMH_FIN, 2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_TMH_EAGER, 3);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_DOORBELL_SRQ_OPS, 4);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_TM_ERR, 22);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_TM_RNDV_INCOMPLETE, 23);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_TM_ADD, 0x31);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_TM_DEL, 0x32);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_TM_SYNC, 0x33);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_TM_RECV, 0x82);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_TM_NO_TAG, 0x83);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_TM_F_SYNC_REQ, 1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_TM_F_MATCH, 2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_TM_F_DATA_VALID, 4);
}

static void vr_const_device(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, VIRTIO_ID_RDMA, 42);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_F_SRQ, 0);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_F_TM_SRQ, 1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_F_MW, 2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_F_ATOMIC, 3);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_F_RESIZE, 4);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_F_INDIRECT_MKEY, 5);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CTRLQ, 0);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_EVENTQ(0), 1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_DOORBELLQ(0), 2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_EVENTQ(3), 7);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_DOORBELLQ(3), 8);
}

static void vr_const_control(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_QUERY_DEVICE, 1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_QUERY_PORT, 2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_CREATE_PD, 3);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_DESTROY_PD, 4);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_GET_DMA_MR, 5);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_CREATE_MR, 6);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_ALLOC_MR, 7);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_DEREG_MR, 8);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_CREATE_CQ, 9);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_DESTROY_CQ, 10);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_CREATE_QP, 11);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_MODIFY_QP, 12);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_QUERY_QP, 13);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_DESTROY_QP, 14);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_ADD_GID, 15);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_DEL_GID, 16);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_QUERY_STATS, 17);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_CREATE_SRQ, 18);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_MODIFY_SRQ, 19);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_QUERY_SRQ, 20);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_DESTROY_SRQ, 21);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_RESIZE_CQ, 22);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_ALLOC_MW, 23);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_DEALLOC_MW, 24);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_CREATE_MKEY, 25);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_CREATE_XRCD, 26);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CMD_DESTROY_XRCD, 27);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_F_XRC, 8);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_SRQT_BASIC, 0);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_SRQT_XRC, 1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPT_XRC_INI, 9);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPT_XRC_TGT, 10);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WR_MKEY_CONFIGURE, 0x30);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_MKEY_CONFIGURE, 0x30);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_MKEY_F_ACCESS, 0x1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_MKEY_F_LAYOUT, 0x2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_OBJECT_MKEY, 0x1000);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_METHOD_MKEY_CREATE, 0x1000);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_METHOD_MKEY_DESTROY, 0x1001);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_ATTR_MKEY_CREATE_HANDLE, 0x1000);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_ATTR_MKEY_CREATE_RKEY, 0x1004);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_ATTR_MKEY_DESTROY_HANDLE, 0x1000);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_MW_TYPE_1, IB_MW_TYPE_1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_MW_TYPE_2, IB_MW_TYPE_2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_SRQ_MAX_WR, IB_SRQ_MAX_WR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_SRQ_LIMIT, IB_SRQ_LIMIT);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STATUS_OK, 0);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STATUS_INVAL, 1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STATUS_NOENT, 2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STATUS_NOMEM, 3);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STATUS_NOSPC, 4);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STATUS_BUSY, 5);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STATUS_PERM, 6);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STATUS_ACCES, 7);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STATUS_OPNOTSUPP, 8);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STATUS_FAULT, 9);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STATUS_MALFORMED, 10);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_ACCESS_LOCAL_WRITE, 0x1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_ACCESS_REMOTE_WRITE, 0x2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_ACCESS_REMOTE_READ, 0x4);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_ACCESS_REMOTE_ATOMIC, 0x8);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_ACCESS_MW_BIND, IB_ACCESS_MW_BIND);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_ACCESS_ZERO_BASED, IB_ZERO_BASED);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_DEVICE_CAP_MEM_MGT_EXTENSIONS, 0x1ULL);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_DEVICE_CAP_RC_RNR_NAK_GEN, 0x2ULL);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_DEVICE_CAP_PORT_ACTIVE_EVENT, 0x4ULL);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_DEVICE_CAP_SYS_IMAGE_GUID, 0x8ULL);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_DEVICE_CAP_CURR_QP_STATE_MOD, 0x10ULL);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_ATOMIC_NONE, 0);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_ATOMIC_HCA, 1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_ATOMIC_GLOB, 2);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_PORT_DOWN, 1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_PORT_INIT, 2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_PORT_ARMED, 3);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_PORT_ACTIVE, 4);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_PORT_PHYS_DISABLED, 3);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_PORT_PHYS_LINK_UP, 5);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_PORT_CAP_CM_SUP, 0x1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_PORT_CAP_IP_BASED_GIDS, 0x2);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_MTU_256, 1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_MTU_512, 2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_MTU_1024, 3);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_MTU_2048, 4);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_MTU_4096, 5);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_KEY_INDEX_SHIFT, 8);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_KEY_BYTE_MASK, 0xffU);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_MR_F_PL_INDIRECT, 0x1);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPT_GSI, 1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPT_RC, 2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPT_UC, 3);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPT_UD, 4);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_GSI_QPN, 1);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPS_RESET, 0);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPS_INIT, 1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPS_RTR, 2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPS_RTS, 3);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPS_SQD, 4);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPS_SQE, 5);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPS_ERR, 6);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_STATE, 0x1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_CUR_STATE, 0x2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_EN_SQD_ASYNC_NOTIFY, 0x4);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_ACCESS_FLAGS, 0x8);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_PKEY_INDEX, 0x10);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_PORT, 0x20);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_QKEY, 0x40);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_AV, 0x80);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_PATH_MTU, 0x100);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_TIMEOUT, 0x200);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_RETRY_CNT, 0x400);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_RNR_RETRY, 0x800);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_RQ_PSN, 0x1000);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_MAX_QP_RD_ATOMIC, 0x2000);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_MIN_RNR_TIMER, 0x8000);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_SQ_PSN, 0x10000);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_MAX_DEST_RD_ATOMIC, 0x20000);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_DEST_QPN, 0x100000);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_NETWORK_IPV4, 2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_NETWORK_IPV6, 3);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_GID_TYPE_ROCE_V1, 1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_GID_TYPE_ROCE_V2, 2);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STAT_TX_PACKETS, 0);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STAT_TX_BYTES, 1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STAT_RX_PACKETS, 2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STAT_RX_BYTES, 3);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STAT_RX_DROPPED, 4);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STAT_ICRC_ERRORS, 5);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STAT_RETRANSMITS, 6);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STAT_RETRY_EXCEEDED, 7);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STAT_RNR_NAK_RCVD, 8);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STAT_RNR_NAK_SENT, 9);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STAT_SEQ_NAK_RCVD, 10);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STAT_SEQ_NAK_SENT, 11);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STAT_DUPLICATE_REQ, 12);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STAT_ACK_TIMEOUTS, 13);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STAT_CMD_ERRORS, 14);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STAT_BAD_WQE, 15);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STAT_DOORBELLS, 16);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_STAT_EVENTS, 17);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_NUM_STATS, 18);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_MAX_STATS, 32);
	KUNIT_EXPECT_LE(test, VIRTIO_RDMA_NUM_STATS, VIRTIO_RDMA_MAX_STATS);
}

static void vr_const_queues(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_EVENT_COMP, 1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_EVENT_CQ_ERR, 2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_EVENT_QP_FATAL, 3);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_EVENT_QP_REQ_ERR, 4);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_EVENT_QP_ACCESS_ERR, 5);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_EVENT_QP_LAST_WQE_REACHED, 6);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_EVENT_SQ_DRAINED, 7);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_EVENT_COMM_EST, 8);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_EVENT_PORT_ACTIVE, 9);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_EVENT_PORT_ERR, 10);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_EVENT_DEVICE_FATAL, 11);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_EVENT_SRQ_LIMIT_REACHED, 12);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_DOORBELL_SQ, 1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_DOORBELL_RQ, 2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_DOORBELL_CQ, 3);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_RING_CTL_SIZE, 128);
	KUNIT_EXPECT_EQ(test, sizeof(struct virtio_rdma_ring_ctl),
			(size_t)VIRTIO_RDMA_RING_CTL_SIZE);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_RING_F_ERROR, 0x1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_RING_F_OVERFLOW, 0x2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CQ_ARM_SN_MASK, 0x3fffffffU);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CQ_ARM_SOLICITED, 0x40000000U);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_CQ_ARM_ARMED, 0x80000000U);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_SQ_WQE_BASE_SHIFT, 6);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_RQ_WQE_BASE_SHIFT, 4);
	KUNIT_EXPECT_EQ(test, sizeof(struct virtio_rdma_sq_wqe),
			(size_t)1 << VIRTIO_RDMA_SQ_WQE_BASE_SHIFT);
	KUNIT_EXPECT_EQ(test, sizeof(struct virtio_rdma_rq_wqe),
			(size_t)1 << VIRTIO_RDMA_RQ_WQE_BASE_SHIFT);
}

static void vr_const_work_requests(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WR_RDMA_WRITE, 0);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WR_RDMA_WRITE_WITH_IMM, 1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WR_SEND, 2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WR_SEND_WITH_IMM, 3);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WR_RDMA_READ, 4);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WR_ATOMIC_CMP_AND_SWP, 5);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WR_ATOMIC_FETCH_AND_ADD, 6);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WR_LOCAL_INV, 7);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WR_SEND_WITH_INV, 9);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WR_REG_MR, 0x20);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WQE_F_FENCE, 0x1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WQE_F_SIGNALED, 0x2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WQE_F_SOLICITED, 0x4);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WQE_F_INLINE, 0x8);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_SUCCESS, 0);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_LOC_LEN_ERR, 1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_LOC_QP_OP_ERR, 2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_LOC_EEC_OP_ERR, 3);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_LOC_PROT_ERR, 4);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_WR_FLUSH_ERR, 5);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_MW_BIND_ERR, 6);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_BAD_RESP_ERR, 7);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_LOC_ACCESS_ERR, 8);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_REM_INV_REQ_ERR, 9);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_REM_ACCESS_ERR, 10);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_REM_OP_ERR, 11);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_RETRY_EXC_ERR, 12);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_RNR_RETRY_EXC_ERR, 13);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_LOC_RDD_VIOL_ERR, 14);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_REM_INV_RD_REQ_ERR, 15);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_REM_ABORT_ERR, 16);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_INV_EECN_ERR, 17);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_INV_EEC_STATE_ERR, 18);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_FATAL_ERR, 19);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_RESP_TIMEOUT_ERR, 20);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_GENERAL_ERR, 21);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_SEND, 0);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_RDMA_WRITE, 1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_RDMA_READ, 2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_COMP_SWAP, 3);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_FETCH_ADD, 4);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_LOCAL_INV, 6);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_REG_MR, 10);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_RECV, 0x80);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_RECV_RDMA_WITH_IMM, 0x81);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_F_GRH, 0x1);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_F_WITH_IMM, 0x2);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_F_WITH_INV, 0x4);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_F_WITH_SMAC, 0x10);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_F_WITH_VLAN, 0x20);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_F_WITH_NETWORK_HDR_TYPE, 0x40);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_VLAN_NONE, 0xffff);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_UD_GRH_SIZE, 40);
}

/* The spec promises these equal the kernel's verbs values. */
static void vr_ib_compat(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_ACCESS_LOCAL_WRITE, IB_ACCESS_LOCAL_WRITE);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_ACCESS_REMOTE_WRITE, IB_ACCESS_REMOTE_WRITE);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_ACCESS_REMOTE_READ, IB_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_ACCESS_REMOTE_ATOMIC, IB_ACCESS_REMOTE_ATOMIC);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_ATOMIC_NONE, IB_ATOMIC_NONE);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_ATOMIC_HCA, IB_ATOMIC_HCA);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_ATOMIC_GLOB, IB_ATOMIC_GLOB);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_PORT_DOWN, IB_PORT_DOWN);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_PORT_INIT, IB_PORT_INIT);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_PORT_ARMED, IB_PORT_ARMED);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_PORT_ACTIVE, IB_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_PORT_PHYS_DISABLED,
			IB_PORT_PHYS_STATE_DISABLED);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_PORT_PHYS_LINK_UP,
			IB_PORT_PHYS_STATE_LINK_UP);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_MTU_256, IB_MTU_256);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_MTU_512, IB_MTU_512);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_MTU_1024, IB_MTU_1024);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_MTU_2048, IB_MTU_2048);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_MTU_4096, IB_MTU_4096);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPT_GSI, IB_QPT_GSI);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPT_XRC_INI, IB_QPT_XRC_INI);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPT_XRC_TGT, IB_QPT_XRC_TGT);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_SRQT_BASIC, IB_SRQT_BASIC);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_SRQT_XRC, IB_SRQT_XRC);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPT_RC, IB_QPT_RC);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPT_UC, IB_QPT_UC);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPT_UD, IB_QPT_UD);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPS_RESET, IB_QPS_RESET);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPS_INIT, IB_QPS_INIT);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPS_RTR, IB_QPS_RTR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPS_RTS, IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPS_SQD, IB_QPS_SQD);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPS_SQE, IB_QPS_SQE);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPS_ERR, IB_QPS_ERR);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_STATE, IB_QP_STATE);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_CUR_STATE, IB_QP_CUR_STATE);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_EN_SQD_ASYNC_NOTIFY,
			IB_QP_EN_SQD_ASYNC_NOTIFY);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_ACCESS_FLAGS, IB_QP_ACCESS_FLAGS);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_PKEY_INDEX, IB_QP_PKEY_INDEX);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_PORT, IB_QP_PORT);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_QKEY, IB_QP_QKEY);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_AV, IB_QP_AV);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_PATH_MTU, IB_QP_PATH_MTU);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_TIMEOUT, IB_QP_TIMEOUT);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_RETRY_CNT, IB_QP_RETRY_CNT);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_RNR_RETRY, IB_QP_RNR_RETRY);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_RQ_PSN, IB_QP_RQ_PSN);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_MAX_QP_RD_ATOMIC,
			IB_QP_MAX_QP_RD_ATOMIC);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_MIN_RNR_TIMER, IB_QP_MIN_RNR_TIMER);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_SQ_PSN, IB_QP_SQ_PSN);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_MAX_DEST_RD_ATOMIC,
			IB_QP_MAX_DEST_RD_ATOMIC);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QP_DEST_QPN, IB_QP_DEST_QPN);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_NETWORK_IPV4, RDMA_NETWORK_IPV4);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_NETWORK_IPV6, RDMA_NETWORK_IPV6);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_GID_TYPE_ROCE_V1, IB_GID_TYPE_ROCE);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_GID_TYPE_ROCE_V2,
			IB_GID_TYPE_ROCE_UDP_ENCAP);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WR_RDMA_WRITE, IB_WR_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WR_RDMA_WRITE_WITH_IMM,
			IB_WR_RDMA_WRITE_WITH_IMM);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WR_SEND, IB_WR_SEND);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WR_SEND_WITH_IMM, IB_WR_SEND_WITH_IMM);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WR_RDMA_READ, IB_WR_RDMA_READ);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WR_ATOMIC_CMP_AND_SWP,
			IB_WR_ATOMIC_CMP_AND_SWP);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WR_ATOMIC_FETCH_AND_ADD,
			IB_WR_ATOMIC_FETCH_AND_ADD);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WR_LOCAL_INV, IB_WR_LOCAL_INV);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WR_SEND_WITH_INV, IB_WR_SEND_WITH_INV);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WR_REG_MR, IB_WR_REG_MR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WR_BIND_MW, IB_WR_BIND_MW);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WQE_F_FENCE, IB_SEND_FENCE);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WQE_F_SIGNALED, IB_SEND_SIGNALED);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WQE_F_SOLICITED, IB_SEND_SOLICITED);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WQE_F_INLINE, IB_SEND_INLINE);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_SUCCESS, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_LOC_LEN_ERR, IB_WC_LOC_LEN_ERR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_LOC_QP_OP_ERR, IB_WC_LOC_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_LOC_EEC_OP_ERR,
			IB_WC_LOC_EEC_OP_ERR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_LOC_PROT_ERR, IB_WC_LOC_PROT_ERR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_WR_FLUSH_ERR, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_MW_BIND_ERR, IB_WC_MW_BIND_ERR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_BAD_RESP_ERR, IB_WC_BAD_RESP_ERR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_LOC_ACCESS_ERR,
			IB_WC_LOC_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_REM_INV_REQ_ERR,
			IB_WC_REM_INV_REQ_ERR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_REM_ACCESS_ERR,
			IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_REM_OP_ERR, IB_WC_REM_OP_ERR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_RETRY_EXC_ERR, IB_WC_RETRY_EXC_ERR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_RNR_RETRY_EXC_ERR,
			IB_WC_RNR_RETRY_EXC_ERR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_LOC_RDD_VIOL_ERR,
			IB_WC_LOC_RDD_VIOL_ERR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_REM_INV_RD_REQ_ERR,
			IB_WC_REM_INV_RD_REQ_ERR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_REM_ABORT_ERR, IB_WC_REM_ABORT_ERR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_INV_EECN_ERR, IB_WC_INV_EECN_ERR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_INV_EEC_STATE_ERR,
			IB_WC_INV_EEC_STATE_ERR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_FATAL_ERR, IB_WC_FATAL_ERR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_RESP_TIMEOUT_ERR,
			IB_WC_RESP_TIMEOUT_ERR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_GENERAL_ERR, IB_WC_GENERAL_ERR);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_SEND, IB_WC_SEND);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_RDMA_WRITE, IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_RDMA_READ, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_COMP_SWAP, IB_WC_COMP_SWAP);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_FETCH_ADD, IB_WC_FETCH_ADD);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_LOCAL_INV, IB_WC_LOCAL_INV);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_BIND_MW, IB_WC_BIND_MW);
	/* Holds from 6.2 on; 6.1 numbers IB_WC_REG_MR 8 (see the spec). */
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_REG_MR, IB_WC_REG_MR);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_RECV, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_OP_RECV_RDMA_WITH_IMM,
			IB_WC_RECV_RDMA_WITH_IMM);

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_F_GRH, IB_WC_GRH);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_F_WITH_IMM, IB_WC_WITH_IMM);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_F_WITH_INV, IB_WC_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_F_WITH_SMAC, IB_WC_WITH_SMAC);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_F_WITH_VLAN, IB_WC_WITH_VLAN);
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_WC_F_WITH_NETWORK_HDR_TYPE,
			IB_WC_WITH_NETWORK_HDR_TYPE);
}

/*
 * The ring helpers of the uapi header, which the driver, the provider and
 * the device all use: the event-index rule of the spec's "Doorbells and
 * notification suppression", including the suppression offset.
 */
static void vr_ring_doorbell(struct kunit *test)
{
	static const u32 prods[] = { 0, 1, 0x7fffffff, 0x80000000, 0xfffffff0 };
	u32 p, k, off;
	int i;

	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_NOTIFY_OFF, 0x80000000U);
	/* notify in [old, new) rings, at new or before old does not */
	KUNIT_EXPECT_TRUE(test, virtio_rdma_need_doorbell(0, 1, 0));
	KUNIT_EXPECT_FALSE(test, virtio_rdma_need_doorbell(1, 1, 0));
	KUNIT_EXPECT_TRUE(test, virtio_rdma_need_doorbell(5, 8, 4));
	KUNIT_EXPECT_FALSE(test, virtio_rdma_need_doorbell(3, 8, 4));
	KUNIT_EXPECT_FALSE(test, virtio_rdma_need_doorbell(8, 8, 4));
	/* across the wrap of the free-running indices */
	KUNIT_EXPECT_TRUE(test, virtio_rdma_need_doorbell(0xffffffff, 2,
							  0xfffffffe));
	KUNIT_EXPECT_TRUE(test, virtio_rdma_need_doorbell(1, 2, 0xfffffffe));
	KUNIT_EXPECT_FALSE(test, virtio_rdma_need_doorbell(2, 2, 0xfffffffe));
	for (i = 0; i < ARRAY_SIZE(prods); i++) {
		p = prods[i];
		/* The device stopped at prod p: the next post rings. */
		KUNIT_EXPECT_TRUE(test, virtio_rdma_need_doorbell(p, p + 1, p));
		/* p + NOTIFY_OFF: no batch of up to 2^31 entries rings. */
		off = p + VIRTIO_RDMA_NOTIFY_OFF;
		for (k = 1; k; k <<= 1)
			KUNIT_EXPECT_FALSE_MSG(test,
					       virtio_rdma_need_doorbell(off, p + k, p),
					       "prod %u, %u posted", p, k);
		KUNIT_EXPECT_TRUE(test,
				  virtio_rdma_need_doorbell(off, p + 0x80000001U, p));
	}
}

static void vr_ring_geometry(struct kunit *test)
{
	static const u32 sq_sges[] = { 0, 4, 12, 28 };
	static const u32 sq_inline[] = { 0, 64, 192, 448 };
	static const u32 rq_sges[] = { 0, 1, 3, 7, 15, 31 };
	int i;

	KUNIT_EXPECT_EQ(test, 1UL << VIRTIO_RDMA_CQE_SHIFT,
			sizeof(struct virtio_rdma_cqe));
	KUNIT_EXPECT_EQ(test, 1UL << VIRTIO_RDMA_SQ_WQE_BASE_SHIFT,
			sizeof(struct virtio_rdma_sq_wqe));
	KUNIT_EXPECT_EQ(test, 1UL << VIRTIO_RDMA_RQ_WQE_BASE_SHIFT,
			sizeof(struct virtio_rdma_rq_wqe));
	KUNIT_EXPECT_EQ(test, VIRTIO_RDMA_QPN_MASK, (1U << 24) - 1);

	/* Strides from the CREATE_QP shifts: 64 << s and 16 << s */
	KUNIT_EXPECT_EQ(test, virtio_rdma_sq_stride_log2(0), 6U);
	KUNIT_EXPECT_EQ(test, virtio_rdma_sq_stride_log2(3), 9U);
	KUNIT_EXPECT_EQ(test, virtio_rdma_rq_stride_log2(0), 4U);
	KUNIT_EXPECT_EQ(test, virtio_rdma_rq_stride_log2(5), 9U);
	/* The spec's tables of what a stride holds */
	for (i = 0; i < ARRAY_SIZE(sq_sges); i++) {
		u32 l2 = virtio_rdma_sq_stride_log2(i);

		KUNIT_EXPECT_EQ(test, virtio_rdma_sq_stride_sges(l2), sq_sges[i]);
		KUNIT_EXPECT_EQ(test, virtio_rdma_sq_stride_inline(l2),
				sq_inline[i]);
	}
	for (i = 0; i < ARRAY_SIZE(rq_sges); i++)
		KUNIT_EXPECT_EQ(test,
				virtio_rdma_rq_stride_sges(virtio_rdma_rq_stride_log2(i)),
				rq_sges[i]);

	/* ring_ctl, then depth entries; free-running indices wrap */
	KUNIT_EXPECT_EQ(test, virtio_rdma_ring_bytes(16, 6), 128ULL + 1024);
	KUNIT_EXPECT_EQ(test, virtio_rdma_ring_bytes(4096, 9),
			128ULL + 4096 * 512);
	KUNIT_EXPECT_EQ(test, virtio_rdma_ring_entry_offset(0, 16, 6), 128ULL);
	KUNIT_EXPECT_EQ(test, virtio_rdma_ring_entry_offset(17, 16, 6),
			128ULL + 64);
	KUNIT_EXPECT_EQ(test, virtio_rdma_ring_entry_offset(0xffffffff, 4096, 9),
			128ULL + 4095 * 512);

	/* prod - cons between 0 and depth; full at depth or beyond */
	KUNIT_EXPECT_TRUE(test, virtio_rdma_ring_valid(16, 0, 16));
	KUNIT_EXPECT_FALSE(test, virtio_rdma_ring_valid(17, 0, 16));
	KUNIT_EXPECT_FALSE(test, virtio_rdma_ring_valid(0xffffffff, 0, 16));
	KUNIT_EXPECT_TRUE(test, virtio_rdma_ring_valid(3, 0xfffffff8, 16));
	KUNIT_EXPECT_FALSE(test, virtio_rdma_ring_full(15, 0, 16));
	KUNIT_EXPECT_TRUE(test, virtio_rdma_ring_full(16, 0, 16));
	KUNIT_EXPECT_TRUE(test, virtio_rdma_ring_full(0, 1, 16));
	KUNIT_EXPECT_TRUE(test, virtio_rdma_ring_full(8, 0xfffffff8, 16));
}

/* The spec's table of send opcodes: which QP types may post each. */
static bool vr_spec_op_ok(u8 type, u8 op)
{
	bool rc = type == VIRTIO_RDMA_QPT_RC, uc = type == VIRTIO_RDMA_QPT_UC;
	bool ud = type == VIRTIO_RDMA_QPT_UD;
	bool xi = type == VIRTIO_RDMA_QPT_XRC_INI;

	switch (op) {
	case 0: case 1:			/* RDMA_WRITE[_WITH_IMM] */
		return rc || uc || xi;
	case 2: case 3:			/* SEND[_WITH_IMM] */
		return type != VIRTIO_RDMA_QPT_XRC_TGT;
	case 4: case 5: case 6: case 9:	/* READ, atomics, SEND_WITH_INV */
		return rc || xi;
	case 7: case 32:		/* LOCAL_INV, REG_MR */
		return rc || uc || ud || xi;
	case 8:				/* BIND_MW */
		return rc || uc;
	case 0x30:			/* MKEY_CONFIGURE */
		return rc || uc || ud || xi;
	default:
		return false;
	}
}

static void vr_wr_rules(struct kunit *test)
{
	static const u8 types[] = { VIRTIO_RDMA_QPT_GSI, VIRTIO_RDMA_QPT_RC,
				    VIRTIO_RDMA_QPT_UC, VIRTIO_RDMA_QPT_UD,
				    VIRTIO_RDMA_QPT_XRC_INI,
				    VIRTIO_RDMA_QPT_XRC_TGT };
	unsigned int op;
	int i;

	for (op = 0; op < 256; op++) {
		for (i = 0; i < ARRAY_SIZE(types); i++)
			KUNIT_EXPECT_EQ_MSG(test,
					    !!virtio_rdma_wr_op_ok(types[i], op),
					    vr_spec_op_ok(types[i], op),
					    "opcode %u on QP type %u", op, types[i]);
		/* Only SEND and RDMA WRITE variants carry inline data. */
		KUNIT_EXPECT_EQ_MSG(test, !!virtio_rdma_wr_op_inline(op),
				    op <= 3 || op == 9, "inline opcode %u", op);
		KUNIT_EXPECT_EQ_MSG(test, !!virtio_rdma_wr_op_atomic(op),
				    op == 5 || op == 6, "atomic opcode %u", op);
	}
	KUNIT_EXPECT_TRUE(test, virtio_rdma_qpt_is_ud(VIRTIO_RDMA_QPT_UD));
	KUNIT_EXPECT_TRUE(test, virtio_rdma_qpt_is_ud(VIRTIO_RDMA_QPT_GSI));
	KUNIT_EXPECT_FALSE(test, virtio_rdma_qpt_is_ud(VIRTIO_RDMA_QPT_RC));
	KUNIT_EXPECT_FALSE(test, virtio_rdma_qpt_is_ud(VIRTIO_RDMA_QPT_UC));
}

/*
 * CQE opcodes: exactly the eleven the spec lists are valid, and a successful
 * CQE with any other one is an error completion, in the driver and in the
 * provider alike (they once disagreed: the provider made it a SEND).
 */
static void vr_wc_rules(struct kunit *test)
{
	static const u8 known[] = { 0, 1, 2, 3, 4, 5, 6, 10, 0x30, 0x80,
				    0x81 };
	unsigned int op, st;
	bool valid;
	int i;

	for (op = 0; op < 256; op++) {
		valid = false;
		for (i = 0; i < ARRAY_SIZE(known); i++)
			valid |= op == known[i];
		KUNIT_EXPECT_EQ_MSG(test, !!virtio_rdma_wc_op_valid(op), valid,
				    "CQE opcode %u", op);
		KUNIT_EXPECT_EQ_MSG(test,
				    virtio_rdma_wc_status(VIRTIO_RDMA_WC_SUCCESS, op),
				    valid ? VIRTIO_RDMA_WC_SUCCESS :
					    VIRTIO_RDMA_WC_GENERAL_ERR,
				    "successful CQE with opcode %u", op);
	}
	/* Error statuses pass through whatever the opcode says. */
	for (st = 1; st <= VIRTIO_RDMA_WC_GENERAL_ERR; st++) {
		KUNIT_EXPECT_EQ(test, virtio_rdma_wc_status(st, 0xee), st);
		KUNIT_EXPECT_EQ(test,
				virtio_rdma_wc_status(st, VIRTIO_RDMA_WC_OP_RECV),
				st);
	}
	for (st = VIRTIO_RDMA_WC_GENERAL_ERR + 1; st < 256; st++)
		KUNIT_EXPECT_EQ(test,
				virtio_rdma_wc_status(st, VIRTIO_RDMA_WC_OP_SEND),
				VIRTIO_RDMA_WC_GENERAL_ERR);
}

static struct kunit_case virtio_rdma_abi_cases[] = {
	KUNIT_CASE(vr_layout_config),
	KUNIT_CASE(vr_layout_control_header),
	KUNIT_CASE(vr_layout_query),
	KUNIT_CASE(vr_layout_pd_mr),
	KUNIT_CASE(vr_layout_cq),
	KUNIT_CASE(vr_layout_qp),
	KUNIT_CASE(vr_layout_stats),
	KUNIT_CASE(vr_layout_gid),
	KUNIT_CASE(vr_layout_event_doorbell),
	KUNIT_CASE(vr_layout_ring_ctl),
	KUNIT_CASE(vr_layout_sq_wqe),
	KUNIT_CASE(vr_layout_rq_wqe),
	KUNIT_CASE(vr_layout_cqe),
	KUNIT_CASE(vr_layout_tm),
	KUNIT_CASE(vr_const_device),
	KUNIT_CASE(vr_const_control),
	KUNIT_CASE(vr_const_queues),
	KUNIT_CASE(vr_const_work_requests),
	KUNIT_CASE(vr_ib_compat),
	KUNIT_CASE(vr_ring_doorbell),
	KUNIT_CASE(vr_ring_geometry),
	KUNIT_CASE(vr_wr_rules),
	KUNIT_CASE(vr_wc_rules),
	{}
};

static struct kunit_suite virtio_rdma_abi_suite = {
	.name = "virtio_rdma_abi",
	.test_cases = virtio_rdma_abi_cases,
};

kunit_test_suite(virtio_rdma_abi_suite);

MODULE_DESCRIPTION("KUnit tests pinning the virtio-rdma device ABI layout and constants");
MODULE_LICENSE("GPL");
