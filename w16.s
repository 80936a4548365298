_ZN2rf22fmha_fwd_sbcast_kernelINS_7Tile_sbEEEvNS_13FmhaFwdParamsE: ; @_ZN2rf22fmha_fwd_sbcast_kernelINS_7Tile_sbEEEvNS_13FmhaFwdParamsE
; %bb.0:
	s_load_dwordx2 s[68:69], s[6:7], 0x98
	s_load_dwordx2 s[18:19], s[6:7], 0xa4
	s_mov_b64 s[98:99], s[2:3]
	s_mov_b64 s[96:97], s[0:1]
	s_add_u32 s96, s96, s9
	s_addc_u32 s97, s97, 0
	s_waitcnt lgkmcnt(0)
	s_add_i32 s0, s69, 0xff
	s_ashr_i32 s1, s0, 31
	s_lshr_b32 s1, s1, 24
	s_add_i32 s0, s0, s1
	s_ashr_i32 s70, s0, 8
	s_ashr_i32 s71, s70, 31
	s_mul_i32 s1, s18, s68
	s_mul_hi_i32 s0, s18, s68
	s_mul_i32 s2, s1, s71
	s_mul_hi_u32 s3, s1, s70
	s_mov_b32 s72, 0
	s_add_i32 s2, s3, s2
	s_mul_i32 s0, s0, s70
	s_mov_b32 s9, s72
	v_mov_b32_e32 v3, s8
	s_add_i32 s21, s2, s0
	s_mul_i32 s20, s1, s70
	v_mov_b32_e32 v4, s9
	v_cmp_le_i64_e32 vcc, s[20:21], v[3:4]
	s_cbranch_vccnz .LBB1_32
; %bb.1:
	s_load_dword s12, s[6:7], 0xb4
	s_load_dword s74, s[6:7], 0xa0
	s_load_dwordx8 s[24:31], s[6:7], 0x18
	s_load_dwordx2 s[34:35], s[6:7], 0x38
	s_load_dwordx2 s[0:1], s[6:7], 0x90
	s_ashr_i32 s23, s18, 31
	v_mov_b32_e32 v148, v0
	v_mov_b32_e32 v0, 0x3fb8aa3b
	s_waitcnt lgkmcnt(0)
	s_ashr_i32 s75, s74, 31
	v_writelane_b32 v1, s0, 0
	v_writelane_b32 v1, s1, 1
	s_load_dwordx2 s[2:3], s[6:7], 0x88
	s_load_dwordx2 s[0:1], s[6:7], 0x80
	s_add_u32 s10, s74, 15
	s_addc_u32 s11, s75, 0
	s_lshr_b32 s13, s11, 28
	s_add_u32 s10, s10, s13
	s_addc_u32 s11, s11, 0
	s_waitcnt lgkmcnt(0)
	v_writelane_b32 v1, s0, 2
	s_lshl_b64 s[10:11], s[10:11], 8
	v_writelane_b32 v1, s1, 3
	s_and_b32 s10, s10, 0xfffff000
	v_writelane_b32 v1, s10, 4
	s_load_dwordx2 s[36:37], s[6:7], 0x48
	s_load_dwordx2 s[0:1], s[6:7], 0x40
	v_writelane_b32 v1, s11, 5
	s_load_dwordx2 s[10:11], s[6:7], 0xd0
	v_mul_f32_e32 v245, s12, v0
	s_load_dwordx4 s[12:15], s[6:7], 0x118
	s_ashr_i32 s38, s19, 31
	s_add_i32 s39, s69, -1
	s_waitcnt lgkmcnt(0)
	s_lshl_b64 s[40:41], s[0:1], 1
	s_cmp_lt_i32 s10, 0
	v_writelane_b32 v1, s12, 6
	v_writelane_b32 v1, s13, 7
	v_writelane_b32 v1, s14, 8
	s_cselect_b64 s[42:43], -1, 0
	s_cmp_gt_i32 s10, -1
	v_writelane_b32 v1, s15, 9
	s_cselect_b64 s[0:1], -1, 0
	s_ashr_i32 s13, s69, 31
	s_add_u32 s14, s69, s10
	s_addc_u32 s15, s13, 0
	s_sub_u32 s44, s74, s14
	v_writelane_b32 v1, s14, 10
	s_subb_u32 s45, s75, s15
	s_cmp_lt_i32 s11, 0
	s_cselect_b64 s[46:47], -1, 0
	s_mov_b32 s10, s11
	s_sub_u32 s11, s74, s69
	v_writelane_b32 v1, s15, 11
	s_subb_u32 s14, s75, s13
	s_add_u32 s48, s11, s10
	s_addc_u32 s49, s14, 0
	s_add_u32 s50, s74, -1
	s_addc_u32 s51, s75, -1
	s_sub_u32 s10, s10, s69
	v_writelane_b32 v1, s10, 12
	s_subb_u32 s10, 0, s13
	v_writelane_b32 v1, s10, 13
	s_lshl_b64 s[2:3], s[2:3], 1
	v_writelane_b32 v1, s2, 14
	s_cmp_lg_u64 s[30:31], 0
	v_writelane_b32 v1, s3, 15
	s_cselect_b64 s[2:3], -1, 0
	v_writelane_b32 v1, s2, 16
	s_cmp_lg_u64 s[28:29], 0
	v_writelane_b32 v1, s3, 17
	s_cselect_b64 s[2:3], -1, 0
	v_writelane_b32 v1, s2, 18
	v_writelane_b32 v1, s3, 19
	s_load_dword s2, s[4:5], 0x4
	s_load_dword s3, s[4:5], 0xc
	s_load_dwordx2 s[52:53], s[6:7], 0x0
	s_nop 0
	s_load_dwordx4 s[4:7], s[6:7], 0x140
	s_mov_b32 s68, s18
	v_cvt_f32_u32_e32 v0, s70
	s_waitcnt lgkmcnt(0)
	s_and_b32 s22, s2, 0xffff
	s_mov_b32 s2, s19
	v_writelane_b32 v1, s4, 20
	v_writelane_b32 v1, s5, 21
	v_writelane_b32 v1, s6, 22
	v_writelane_b32 v1, s7, 23
	s_mov_b32 s18, s3
	v_writelane_b32 v1, s2, 24
	v_writelane_b32 v1, s3, 25
	v_writelane_b32 v1, s18, 26
	v_writelane_b32 v1, s19, 27
	v_writelane_b32 v1, s20, 28
	v_writelane_b32 v1, s21, 29
	v_writelane_b32 v1, s22, 30
	v_writelane_b32 v1, s23, 31
	v_writelane_b32 v1, s24, 32
	v_writelane_b32 v1, s25, 33
	v_writelane_b32 v1, s26, 34
	v_writelane_b32 v1, s27, 35
	v_writelane_b32 v1, s28, 36
	v_writelane_b32 v1, s29, 37
	v_writelane_b32 v1, s30, 38
	v_writelane_b32 v1, s31, 39
	v_writelane_b32 v1, s34, 40
	v_writelane_b32 v1, s35, 41
	v_writelane_b32 v1, s36, 42
	v_writelane_b32 v1, s37, 43
	v_writelane_b32 v1, s38, 44
	v_writelane_b32 v1, s39, 45
	v_writelane_b32 v1, s40, 46
	v_writelane_b32 v1, s41, 47
	v_writelane_b32 v1, s42, 48
	v_writelane_b32 v1, s43, 49
	v_writelane_b32 v1, s44, 50
	v_writelane_b32 v1, s45, 51
	v_writelane_b32 v1, s46, 52
	v_rcp_iflag_f32_e32 v0, v0
	v_writelane_b32 v1, s47, 53
	v_writelane_b32 v1, s48, 54
	v_writelane_b32 v1, s49, 55
	v_writelane_b32 v1, s50, 56
	v_mul_f32_e32 v0, 0x4f7ffffe, v0
	v_writelane_b32 v1, s51, 57
	v_cvt_u32_f32_e32 v151, v0
	v_writelane_b32 v1, s18, 58
	v_writelane_b32 v1, s22, 59
	v_writelane_b32 v1, s52, 60
	v_mov_b32_e32 v149, 0
	s_mov_b32 s79, 0xff800000
	v_bfrev_b32_e32 v152, -8
	s_movk_i32 s78, 0x100
	v_mov_b32_e32 v246, 0xff800000
	s_movk_i32 s33, 0x200
	s_brev_b32 s54, -2
	v_writelane_b32 v1, s53, 61
	s_mov_b32 s12, s69
	buffer_store_dword v148, off, s[96:99], 0 offset:756 ; 4-byte Folded Spill
	buffer_store_dword v245, off, s[96:99], 0 offset:712 ; 4-byte Folded Spill
	buffer_store_dword v151, off, s[96:99], 0 offset:760 ; 4-byte Folded Spill
	s_branch .LBB1_4
.LBB1_2:                                ;   in Loop: Header=BB1_4 Depth=1
	s_or_b64 exec, exec, s[4:5]
.LBB1_3:                                ;   in Loop: Header=BB1_4 Depth=1
	v_cvt_f32_u32_e32 v0, s22
	s_sub_i32 s2, 0, s22
	v_rcp_iflag_f32_e32 v0, v0
	v_mul_f32_e32 v0, 0x4f7ffffe, v0
	v_cvt_u32_f32_e32 v0, v0
	s_waitcnt vmcnt(15)
	v_mul_lo_u32 v3, s2, v0
	v_mul_hi_u32 v3, v0, v3
	v_add_u32_e32 v0, v0, v3
	v_mul_hi_u32 v0, s18, v0
	v_mul_lo_u32 v3, v0, s22
	v_add_u32_e32 v4, 1, v0
	v_sub_u32_e32 v3, s18, v3
	v_cmp_le_u32_e32 vcc, s22, v3
	v_cndmask_b32_e32 v0, v0, v4, vcc
	v_subrev_u32_e32 v4, s22, v3
	v_cndmask_b32_e32 v3, v3, v4, vcc
	v_readfirstlane_b32 s2, v0
	s_add_i32 s3, s2, 1
	v_readfirstlane_b32 s4, v3
	s_cmp_ge_u32 s4, s22
	s_cselect_b32 s4, s3, s2
	s_mul_i32 s2, s4, s22
	s_cmp_gt_u32 s18, s2
	s_cselect_b64 s[2:3], -1, 0
	s_cmp_lg_u64 s[2:3], 0
	s_addc_u32 s2, s4, 0
	s_add_u32 s8, s8, s2
	v_mov_b32_e32 v3, s20
	s_addc_u32 s9, s9, 0
	v_mov_b32_e32 v4, s21
	v_cmp_ge_i64_e32 vcc, s[8:9], v[3:4]
	s_cbranch_vccnz .LBB1_32
.LBB1_4:                                ; =>This Loop Header: Depth=1
                                        ;     Child Loop BB1_15 Depth 2
                                        ;       Child Loop BB1_20 Depth 3
	s_or_b64 s[2:3], s[8:9], s[70:71]
	s_mov_b32 s73, s3
	s_cmp_lg_u64 s[72:73], 0
	s_cbranch_scc0 .LBB1_24
; %bb.5:                                ;   in Loop: Header=BB1_4 Depth=1
	s_ashr_i32 s4, s71, 31
	s_add_u32 s2, s70, s4
	s_mov_b32 s5, s4
	s_addc_u32 s3, s71, s4
	s_xor_b64 s[6:7], s[2:3], s[4:5]
	v_cvt_f32_u32_e32 v0, s6
	v_cvt_f32_u32_e32 v3, s7
	s_sub_u32 s2, 0, s6
	s_subb_u32 s3, 0, s7
	v_mac_f32_e32 v0, 0x4f800000, v3
	v_rcp_f32_e32 v0, v0
	v_mul_f32_e32 v0, 0x5f7ffffc, v0
	v_mul_f32_e32 v3, 0x2f800000, v0
	v_trunc_f32_e32 v3, v3
	v_mac_f32_e32 v0, 0xcf800000, v3
	v_cvt_u32_f32_e32 v3, v3
	v_cvt_u32_f32_e32 v0, v0
	v_readfirstlane_b32 s10, v3
	v_readfirstlane_b32 s11, v0
	s_mul_i32 s12, s2, s10
	s_mul_hi_u32 s14, s2, s11
	s_mul_i32 s13, s3, s11
	s_add_i32 s12, s14, s12
	s_add_i32 s12, s12, s13
	s_mul_i32 s15, s2, s11
	s_mul_hi_u32 s13, s11, s12
	s_mul_i32 s14, s11, s12
	s_mul_hi_u32 s11, s11, s15
	s_add_u32 s11, s11, s14
	s_addc_u32 s13, 0, s13
	s_mul_hi_u32 s16, s10, s15
	s_mul_i32 s15, s10, s15
	s_add_u32 s11, s11, s15
	s_mul_hi_u32 s14, s10, s12
	s_addc_u32 s11, s13, s16
	s_addc_u32 s13, s14, 0
	s_mul_i32 s12, s10, s12
	s_add_u32 s11, s11, s12
	s_addc_u32 s12, 0, s13
	v_add_co_u32_e32 v0, vcc, s11, v0
	s_cmp_lg_u64 vcc, 0
	s_addc_u32 s10, s10, s12
	v_readfirstlane_b32 s12, v0
	s_mul_i32 s11, s2, s10
	s_mul_hi_u32 s13, s2, s12
	s_add_i32 s11, s13, s11
	s_mul_i32 s3, s3, s12
	s_add_i32 s11, s11, s3
	s_mul_i32 s2, s2, s12
	s_mul_hi_u32 s13, s10, s2
	s_mul_i32 s14, s10, s2
	s_mul_i32 s16, s12, s11
	s_mul_hi_u32 s2, s12, s2
	s_mul_hi_u32 s15, s12, s11
	s_add_u32 s2, s2, s16
	s_addc_u32 s12, 0, s15
	s_add_u32 s2, s2, s14
	s_mul_hi_u32 s3, s10, s11
	s_addc_u32 s2, s12, s13
	s_addc_u32 s3, s3, 0
	s_mul_i32 s11, s10, s11
	s_add_u32 s2, s2, s11
	s_addc_u32 s3, 0, s3
	v_add_co_u32_e32 v0, vcc, s2, v0
	s_cmp_lg_u64 vcc, 0
	s_addc_u32 s14, s10, s3
	s_ashr_i32 s10, s9, 31
	s_add_u32 s2, s8, s10
	s_mov_b32 s11, s10
	s_addc_u32 s3, s9, s10
	s_xor_b64 s[12:13], s[2:3], s[10:11]
	v_readfirstlane_b32 s15, v0
	s_mul_i32 s3, s12, s14
	s_mul_hi_u32 s16, s12, s15
	s_mul_hi_u32 s2, s12, s14
	s_add_u32 s3, s16, s3
	s_addc_u32 s2, 0, s2
	s_mul_hi_u32 s17, s13, s15
	s_mul_i32 s15, s13, s15
	s_add_u32 s3, s3, s15
	s_mul_hi_u32 s16, s13, s14
	s_addc_u32 s2, s2, s17
	s_addc_u32 s3, s16, 0
	s_mul_i32 s14, s13, s14
	s_add_u32 s14, s2, s14
	s_addc_u32 s15, 0, s3
	s_mul_i32 s2, s6, s15
	s_mul_hi_u32 s3, s6, s14
	s_add_i32 s2, s3, s2
	s_mul_i32 s3, s7, s14
	s_add_i32 s16, s2, s3
	s_mul_i32 s3, s6, s14
	v_mov_b32_e32 v0, s3
	s_sub_i32 s2, s13, s16
	v_sub_co_u32_e32 v0, vcc, s12, v0
	s_cmp_lg_u64 vcc, 0
	s_subb_u32 s12, s2, s7
	v_subrev_co_u32_e64 v3, s[2:3], s6, v0
	s_cmp_lg_u64 s[2:3], 0
	s_subb_u32 s12, s12, 0
	s_cmp_ge_u32 s12, s7
	s_cselect_b32 s17, -1, 0
	v_cmp_le_u32_e64 s[2:3], s6, v3
	s_cmp_eq_u32 s12, s7
	v_cndmask_b32_e64 v3, 0, -1, s[2:3]
	v_mov_b32_e32 v4, s17
	s_cselect_b64 s[2:3], -1, 0
	s_add_u32 s12, s14, 2
	v_cndmask_b32_e64 v3, v4, v3, s[2:3]
	s_addc_u32 s2, s15, 0
	s_add_u32 s17, s14, 1
	s_addc_u32 s3, s15, 0
	s_cmp_lg_u64 vcc, 0
	s_subb_u32 s13, s13, s16
	s_cmp_ge_u32 s13, s7
	v_mov_b32_e32 v4, s3
	v_mov_b32_e32 v5, s2
	v_cmp_ne_u32_e64 s[2:3], 0, v3
	s_cselect_b32 s16, -1, 0
	v_cmp_le_u32_e32 vcc, s6, v0
	s_cmp_eq_u32 s13, s7
	v_cndmask_b32_e64 v3, v4, v5, s[2:3]
	v_cndmask_b32_e64 v0, 0, -1, vcc
	v_mov_b32_e32 v4, s16
	s_cselect_b64 vcc, -1, 0
	v_cndmask_b32_e32 v0, v4, v0, vcc
	v_mov_b32_e32 v4, s15
	v_cmp_ne_u32_e32 vcc, 0, v0
	v_cndmask_b32_e32 v0, v4, v3, vcc
	v_mov_b32_e32 v3, s17
	v_mov_b32_e32 v4, s12
	v_cndmask_b32_e64 v3, v3, v4, s[2:3]
	v_mov_b32_e32 v4, s14
	v_cndmask_b32_e32 v3, v4, v3, vcc
	s_xor_b64 s[2:3], s[10:11], s[4:5]
	v_xor_b32_e32 v3, s2, v3
	v_xor_b32_e32 v0, s3, v0
	v_mov_b32_e32 v4, s3
	v_subrev_co_u32_e32 v3, vcc, s2, v3
	v_subb_co_u32_e32 v4, vcc, v0, v4, vcc
	s_cbranch_execnz .LBB1_7
.LBB1_6:                                ;   in Loop: Header=BB1_4 Depth=1
	s_sub_i32 s2, 0, s70
	v_mul_lo_u32 v0, s2, v151
	v_mul_hi_u32 v0, v151, v0
	v_add_u32_e32 v0, v151, v0
	v_mul_hi_u32 v0, s8, v0
	v_mul_lo_u32 v3, v0, s70
	v_add_u32_e32 v4, 1, v0
	v_sub_u32_e32 v3, s8, v3
	v_cmp_le_u32_e32 vcc, s70, v3
	v_cndmask_b32_e32 v0, v0, v4, vcc
	v_subrev_u32_e32 v4, s70, v3
	v_readfirstlane_b32 s2, v0
	v_cndmask_b32_e32 v0, v3, v4, vcc
	s_add_i32 s3, s2, 1
	v_readfirstlane_b32 s4, v0
	s_cmp_ge_u32 s4, s70
	s_cselect_b32 s2, s3, s2
	s_mov_b32 s3, s72
	v_mov_b32_e32 v4, s3
	v_mov_b32_e32 v3, s2
.LBB1_7:                                ;   in Loop: Header=BB1_4 Depth=1
	v_mul_lo_u32 v0, v3, s70
	v_readfirstlane_b32 s2, v148
	s_ashr_i32 s3, s2, 31
	s_lshr_b32 s3, s3, 26
	v_sub_u32_e32 v0, s8, v0
	v_not_b32_e32 v0, v0
	v_add_u32_e32 v5, s70, v0
	s_add_i32 s2, s2, s3
	v_lshlrev_b32_e32 v5, 8, v5
	s_andn2_b32 s2, s2, 63
	v_add_u32_e32 v71, s2, v5
	v_cmp_le_i32_e32 vcc, s69, v71
	v_mov_b32_e32 v0, v148
	;;#ASMSTART
	;;#ASMEND
	s_cbranch_vccnz .LBB1_3
; %bb.8:                                ;   in Loop: Header=BB1_4 Depth=1
	v_or_b32_e32 v150, s23, v4
	v_cmp_ne_u64_e32 vcc, 0, v[149:150]
	s_cbranch_vccz .LBB1_31
; %bb.9:                                ;   in Loop: Header=BB1_4 Depth=1
	s_ashr_i32 s4, s23, 31
	s_add_u32 s2, s68, s4
	s_mov_b32 s5, s4
	s_addc_u32 s3, s23, s4
	s_xor_b64 s[6:7], s[2:3], s[4:5]
	v_cvt_f32_u32_e32 v5, s6
	v_cvt_f32_u32_e32 v6, s7
	s_sub_u32 s2, 0, s6
	s_subb_u32 s3, 0, s7
	s_waitcnt vmcnt(13)
	v_mov_b32_e32 v12, s7
	v_mac_f32_e32 v5, 0x4f800000, v6
	v_rcp_f32_e32 v5, v5
	v_mul_f32_e32 v5, 0x5f7ffffc, v5
	v_mul_f32_e32 v6, 0x2f800000, v5
	v_trunc_f32_e32 v6, v6
	v_mac_f32_e32 v5, 0xcf800000, v6
	v_cvt_u32_f32_e32 v6, v6
	v_cvt_u32_f32_e32 v5, v5
	v_readfirstlane_b32 s5, v6
	v_readfirstlane_b32 s10, v5
	s_mul_i32 s11, s2, s5
	s_mul_hi_u32 s13, s2, s10
	s_mul_i32 s12, s3, s10
	s_add_i32 s11, s13, s11
	s_add_i32 s11, s11, s12
	s_mul_i32 s14, s2, s10
	s_mul_hi_u32 s12, s10, s11
	s_mul_i32 s13, s10, s11
	s_mul_hi_u32 s10, s10, s14
	s_add_u32 s10, s10, s13
	s_addc_u32 s12, 0, s12
	s_mul_hi_u32 s15, s5, s14
	s_mul_i32 s14, s5, s14
	s_add_u32 s10, s10, s14
	s_mul_hi_u32 s13, s5, s11
	s_addc_u32 s10, s12, s15
	s_addc_u32 s12, s13, 0
	s_mul_i32 s11, s5, s11
	s_add_u32 s10, s10, s11
	s_addc_u32 s11, 0, s12
	v_add_co_u32_e32 v5, vcc, s10, v5
	s_cmp_lg_u64 vcc, 0
	s_addc_u32 s5, s5, s11
	v_readfirstlane_b32 s11, v5
	s_mul_i32 s10, s2, s5
	s_mul_hi_u32 s12, s2, s11
	s_add_i32 s10, s12, s10
	s_mul_i32 s3, s3, s11
	s_add_i32 s10, s10, s3
	s_mul_i32 s2, s2, s11
	s_mul_hi_u32 s12, s5, s2
	s_mul_i32 s13, s5, s2
	s_mul_i32 s15, s11, s10
	s_mul_hi_u32 s2, s11, s2
	s_mul_hi_u32 s14, s11, s10
	s_add_u32 s2, s2, s15
	s_addc_u32 s11, 0, s14
	s_add_u32 s2, s2, s13
	s_mul_hi_u32 s3, s5, s10
	s_addc_u32 s2, s11, s12
	s_addc_u32 s3, s3, 0
	s_mul_i32 s10, s5, s10
	s_add_u32 s2, s2, s10
	s_addc_u32 s3, 0, s3
	v_add_co_u32_e32 v5, vcc, s2, v5
	v_ashrrev_i32_e32 v6, 31, v4
	s_cmp_lg_u64 vcc, 0
	v_add_co_u32_e32 v7, vcc, v3, v6
	s_addc_u32 s2, s5, s3
	v_xor_b32_e32 v7, v7, v6
	v_readfirstlane_b32 s3, v5
	v_mul_lo_u32 v8, v7, s2
	v_mul_hi_u32 v5, v7, s3
	v_mul_hi_u32 v9, v7, s2
	v_addc_co_u32_e32 v4, vcc, v4, v6, vcc
	v_xor_b32_e32 v4, v4, v6
	v_add_co_u32_e32 v5, vcc, v5, v8
	v_addc_co_u32_e32 v8, vcc, 0, v9, vcc
	v_mul_lo_u32 v9, v4, s3
	v_mul_hi_u32 v11, v4, s3
	v_mul_hi_u32 v10, v4, s2
	v_xor_b32_e32 v6, s4, v6
	v_add_co_u32_e32 v5, vcc, v5, v9
	v_addc_co_u32_e32 v5, vcc, v8, v11, vcc
	v_mul_lo_u32 v8, v4, s2
	v_addc_co_u32_e32 v9, vcc, 0, v10, vcc
	v_add_co_u32_e32 v5, vcc, v5, v8
	v_addc_co_u32_e32 v8, vcc, 0, v9, vcc
	v_mul_lo_u32 v9, s6, v8
	v_mul_hi_u32 v10, s6, v5
	v_mul_lo_u32 v11, s7, v5
	v_add_u32_e32 v9, v10, v9
	v_mul_lo_u32 v10, s6, v5
	v_add_u32_e32 v9, v9, v11
	v_sub_u32_e32 v11, v4, v9
	v_sub_co_u32_e32 v7, vcc, v7, v10
	v_subb_co_u32_e64 v10, s[2:3], v11, v12, vcc
	v_subrev_co_u32_e64 v11, s[2:3], s6, v7
	v_subbrev_co_u32_e64 v10, s[2:3], 0, v10, s[2:3]
	v_cmp_le_u32_e64 s[2:3], s7, v10
	v_cndmask_b32_e64 v12, 0, -1, s[2:3]
	v_cmp_le_u32_e64 s[2:3], s6, v11
	v_cndmask_b32_e64 v11, 0, -1, s[2:3]
	v_cmp_eq_u32_e64 s[2:3], s7, v10
	v_cndmask_b32_e64 v10, v12, v11, s[2:3]
	v_add_co_u32_e64 v11, s[2:3], 2, v5
	v_subb_co_u32_e32 v4, vcc, v4, v9, vcc
	v_addc_co_u32_e64 v12, s[2:3], 0, v8, s[2:3]
	v_cmp_le_u32_e32 vcc, s7, v4
	v_add_co_u32_e64 v13, s[2:3], 1, v5
	v_cndmask_b32_e64 v9, 0, -1, vcc
	v_cmp_le_u32_e32 vcc, s6, v7
	v_addc_co_u32_e64 v14, s[2:3], 0, v8, s[2:3]
	v_cndmask_b32_e64 v7, 0, -1, vcc
	v_cmp_eq_u32_e32 vcc, s7, v4
	v_cmp_ne_u32_e64 s[2:3], 0, v10
	v_cndmask_b32_e32 v4, v9, v7, vcc
	v_cmp_ne_u32_e32 vcc, 0, v4
	v_cndmask_b32_e64 v7, v13, v11, s[2:3]
	v_cndmask_b32_e64 v10, v14, v12, s[2:3]
	v_cndmask_b32_e32 v5, v5, v7, vcc
	v_cndmask_b32_e32 v4, v8, v10, vcc
	v_xor_b32_e32 v5, v5, v6
	v_xor_b32_e32 v4, v4, v6
	v_sub_co_u32_e32 v153, vcc, v5, v6
	v_subb_co_u32_e32 v4, vcc, v4, v6, vcc
	s_cbranch_execnz .LBB1_11
.LBB1_10:                               ;   in Loop: Header=BB1_4 Depth=1
	v_cvt_f32_u32_e32 v4, s68
	s_sub_i32 s2, 0, s68
	v_rcp_iflag_f32_e32 v4, v4
	v_mul_f32_e32 v4, 0x4f7ffffe, v4
	v_cvt_u32_f32_e32 v4, v4
	v_mul_lo_u32 v5, s2, v4
	v_mul_hi_u32 v5, v4, v5
	v_add_u32_e32 v4, v4, v5
	v_mul_hi_u32 v4, v3, v4
	v_mul_lo_u32 v5, v4, s68
	v_add_u32_e32 v6, 1, v4
	v_sub_u32_e32 v5, v3, v5
	v_cmp_le_u32_e32 vcc, s68, v5
	v_cndmask_b32_e32 v4, v4, v6, vcc
	v_subrev_u32_e32 v6, s68, v5
	v_readfirstlane_b32 s2, v4
	v_cndmask_b32_e32 v4, v5, v6, vcc
	s_add_i32 s3, s2, 1
	v_readfirstlane_b32 s4, v4
	s_cmp_ge_u32 s4, s68
	s_cselect_b32 s2, s3, s2
	s_mov_b32 s3, s72
	v_mov_b32_e32 v154, s3
	v_mov_b32_e32 v153, s2
.LBB1_11:                               ;   in Loop: Header=BB1_4 Depth=1
	v_mul_lo_u32 v4, v153, s68
	v_and_or_b32 v154, v0, 63, v71
	v_ashrrev_i32_e32 v150, 31, v153
	v_mul_lo_u32 v0, v153, s35
	v_mul_hi_u32 v5, v153, s34
	s_waitcnt vmcnt(14)
	v_mul_lo_u32 v7, v150, s34
	v_sub_co_u32_e32 v156, vcc, v3, v4
	v_add_u32_e32 v0, v5, v0
	v_ashrrev_i32_e32 v157, 31, v156
	v_mul_lo_u32 v3, v156, s37
	v_mul_hi_u32 v4, v156, s36
	v_mul_lo_u32 v6, v153, s34
	v_mul_lo_u32 v5, v157, s36
	v_add_u32_e32 v0, v0, v7
	v_mul_lo_u32 v7, v156, s36
	v_add_u32_e32 v3, v4, v3
	v_add_u32_e32 v4, v3, v5
	s_ashr_i32 s10, s68, 31
	v_add_co_u32_e32 v3, vcc, v7, v6
	v_addc_co_u32_e32 v4, vcc, v4, v0, vcc
	v_lshlrev_b64 v[3:4], 1, v[3:4]
	v_mov_b32_e32 v0, s53
	v_add_co_u32_e32 v3, vcc, s52, v3
	v_addc_co_u32_e32 v4, vcc, v0, v4, vcc
	v_min_i32_e32 v0, s39, v154
	v_ashrrev_i32_e32 v5, 31, v0
	v_mul_lo_u32 v5, s40, v5
	s_waitcnt vmcnt(0)
	v_mad_u64_u32 v[63:64], s[2:3], s40, v0, v[3:4]
	v_mul_lo_u32 v0, s41, v0
	s_add_i32 s2, s19, s38
	s_xor_b32 s2, s2, s38
	s_sub_i32 s3, 0, s2
	v_add3_u32 v64, v0, v64, v5
	global_load_dwordx4 v[3:6], v[63:64], off
	global_load_dwordx4 v[7:10], v[63:64], off offset:16
	global_load_dwordx4 v[11:14], v[63:64], off offset:32
	global_load_dwordx4 v[15:18], v[63:64], off offset:48
	global_load_dwordx4 v[19:22], v[63:64], off offset:64
	global_load_dwordx4 v[23:26], v[63:64], off offset:80
	global_load_dwordx4 v[27:30], v[63:64], off offset:96
	global_load_dwordx4 v[31:34], v[63:64], off offset:112
	global_load_dwordx4 v[35:38], v[63:64], off offset:128
	global_load_dwordx4 v[39:42], v[63:64], off offset:144
	global_load_dwordx4 v[43:46], v[63:64], off offset:160
	global_load_dwordx4 v[47:50], v[63:64], off offset:176
	global_load_dwordx4 v[51:54], v[63:64], off offset:192
	global_load_dwordx4 v[55:58], v[63:64], off offset:208
	global_load_dwordx4 v[59:62], v[63:64], off offset:224
	s_nop 0
	global_load_dwordx4 v[63:66], v[63:64], off offset:240
	v_cvt_f32_u32_e32 v0, s2
	v_ashrrev_i32_e32 v72, 31, v71
	v_mov_b32_e32 v69, s49
	s_mov_b32 s100, 0
	v_rcp_iflag_f32_e32 v0, v0
	s_mov_b32 s101, 0
	v_mul_f32_e32 v0, 0x4f7ffffe, v0
	v_cvt_u32_f32_e32 v0, v0
	v_mul_lo_u32 v67, s3, v0
	s_add_i32 s3, s68, s10
	s_xor_b32 s3, s3, s10
	v_mul_hi_u32 v67, v0, v67
	v_add_u32_e32 v0, v0, v67
	v_mul_hi_u32 v98, s3, v0
	v_add_u32_e32 v67, 64, v71
	v_mul_lo_u32 v0, v98, s2
	v_sub_u32_e32 v0, s3, v0
	v_subrev_u32_e32 v68, s2, v0
	v_cmp_le_u32_e64 s[6:7], s2, v0
	v_cndmask_b32_e64 v0, v0, v68, s[6:7]
	v_cmp_le_u32_e64 s[4:5], s2, v0
	v_min_i32_e32 v0, s69, v67
	v_mov_b32_e32 v68, s45
	v_add_co_u32_e32 v67, vcc, s44, v71
	v_addc_co_u32_e32 v68, vcc, v68, v72, vcc
	v_add_u32_e32 v73, -1, v0
	v_ashrrev_i32_e32 v74, 31, v73
	v_add_co_u32_e32 v70, vcc, s48, v73
	v_addc_co_u32_e32 v69, vcc, v69, v74, vcc
	v_cmp_lt_i64_e32 vcc, 0, v[67:68]
	v_cndmask_b32_e64 v77, v69, v152, s[46:47]
	v_cndmask_b32_e64 v76, v70, -1, s[46:47]
	v_cndmask_b32_e32 v67, 0, v67, vcc
	v_cndmask_b32_e32 v68, 0, v68, vcc
	v_cmp_gt_i64_e32 vcc, s[74:75], v[76:77]
	v_cndmask_b32_e64 v69, v67, 0, s[42:43]
	v_mov_b32_e32 v67, s51
	v_cndmask_b32_e64 v70, v68, 0, s[42:43]
	v_cndmask_b32_e32 v68, v67, v77, vcc
	v_mov_b32_e32 v67, s50
	v_cndmask_b32_e32 v67, v67, v76, vcc
	v_cmp_gt_i64_e32 vcc, v[69:70], v[67:68]
	v_cmp_le_i32_e64 s[2:3], v0, v71
	s_or_b64 s[2:3], s[2:3], vcc
	s_and_b64 vcc, exec, s[2:3]
	s_cbranch_vccnz .LBB1_13
; %bb.12:                               ;   in Loop: Header=BB1_4 Depth=1
	v_alignbit_b32 v0, v70, v69, 4
	v_readfirstlane_b32 s101, v0
	v_ashrrev_i32_e32 v0, 31, v68
	v_lshrrev_b32_e32 v0, 28, v0
	v_add_co_u32_e32 v0, vcc, v67, v0
	v_addc_co_u32_e32 v67, vcc, 0, v68, vcc
	v_alignbit_b32 v0, v67, v0, 4
	v_readfirstlane_b32 s2, v0
	s_add_i32 s100, s2, 1
.LBB1_13:                               ;   in Loop: Header=BB1_4 Depth=1
	v_ashrrev_i32_e32 v155, 31, v154
	v_cmp_gt_i32_e64 s[12:13], s69, v154
	s_cmp_ge_i32 s101, s100
	v_mov_b32_e32 v147, 0
	v_mov_b32_e32 v209, 0
	v_mov_b32_e32 v210, 0
	v_mov_b32_e32 v211, 0
	v_mov_b32_e32 v203, 0
	v_mov_b32_e32 v84, 0
	v_mov_b32_e32 v82, 0
	v_mov_b32_e32 v91, 0
	v_mov_b32_e32 v79, 0
	v_mov_b32_e32 v175, 0
	v_mov_b32_e32 v78, 0
	v_mov_b32_e32 v182, 0
	v_mov_b32_e32 v87, 0
	v_mov_b32_e32 v83, 0
	v_mov_b32_e32 v183, 0
	v_mov_b32_e32 v92, 0
	v_mov_b32_e32 v93, 0
	v_mov_b32_e32 v88, 0
	v_mov_b32_e32 v67, 0
	v_mov_b32_e32 v96, 0
	v_mov_b32_e32 v68, 0
	v_mov_b32_e32 v100, 0
	v_mov_b32_e32 v97, 0
	v_mov_b32_e32 v102, 0
	v_mov_b32_e32 v101, 0
	v_mov_b32_e32 v81, 0
	v_mov_b32_e32 v208, 0
	v_mov_b32_e32 v206, 0
	v_mov_b32_e32 v207, 0
	v_mov_b32_e32 v204, 0
	v_mov_b32_e32 v205, 0
	v_mov_b32_e32 v199, 0
	v_mov_b32_e32 v200, 0
	v_mov_b32_e32 v184, 0
	v_mov_b32_e32 v185, 0
	v_mov_b32_e32 v178, 0
	v_mov_b32_e32 v179, 0
	v_mov_b32_e32 v90, 0
	v_mov_b32_e32 v95, 0
	v_mov_b32_e32 v134, 0
	v_mov_b32_e32 v168, 0
	v_mov_b32_e32 v107, 0
	v_mov_b32_e32 v104, 0
	v_mov_b32_e32 v105, 0
	v_mov_b32_e32 v70, 0
	v_mov_b32_e32 v103, 0
	v_mov_b32_e32 v77, 0
	v_mov_b32_e32 v80, 0
	v_mov_b32_e32 v75, 0
	v_mov_b32_e32 v106, 0
	v_mov_b32_e32 v108, 0
	v_mov_b32_e32 v109, 0
	v_mov_b32_e32 v69, 0
	v_mov_b32_e32 v111, 0
	v_mov_b32_e32 v112, 0
	v_mov_b32_e32 v116, 0
	v_mov_b32_e32 v113, 0
	v_mov_b32_e32 v110, 0
	v_mov_b32_e32 v117, 0
	v_mov_b32_e32 v119, 0
	v_mov_b32_e32 v163, 0
	v_mov_b32_e32 v164, 0
	v_mov_b32_e32 v165, 0
	v_mov_b32_e32 v166, 0
	v_mov_b32_e32 v118, 0
	v_mov_b32_e32 v121, 0
	v_mov_b32_e32 v76, 0
	v_mov_b32_e32 v89, 0
	v_mov_b32_e32 v177, 0
	v_mov_b32_e32 v94, 0
	v_mov_b32_e32 v174, 0
	v_mov_b32_e32 v85, 0
	v_mov_b32_e32 v186, 0
	v_mov_b32_e32 v173, 0
	v_mov_b32_e32 v167, 0
	v_mov_b32_e32 v170, 0
	v_mov_b32_e32 v172, 0
	v_mov_b32_e32 v86, 0
	v_mov_b32_e32 v181, 0
	v_mov_b32_e32 v188, 0
	v_mov_b32_e32 v99, 0
	v_mov_b32_e32 v197, 0
	v_mov_b32_e32 v201, 0
	v_mov_b32_e32 v202, 0
	v_mov_b32_e32 v136, 0
	v_mov_b32_e32 v131, 0
	v_mov_b32_e32 v141, 0
	v_mov_b32_e32 v120, 0
	v_mov_b32_e32 v143, 0
	v_mov_b32_e32 v189, 0
	v_mov_b32_e32 v191, 0
	v_mov_b32_e32 v192, 0
	v_mov_b32_e32 v193, 0
	v_mov_b32_e32 v194, 0
	v_mov_b32_e32 v195, 0
	v_mov_b32_e32 v196, 0
	v_mov_b32_e32 v198, 0
	v_mov_b32_e32 v253, 0
	v_mov_b32_e32 v242, 0
	v_mov_b32_e32 v243, 0
	v_mov_b32_e32 v176, 0
	v_mov_b32_e32 v180, 0
	v_mov_b32_e32 v244, 0
	v_mov_b32_e32 v187, 0
	v_mov_b32_e32 v190, 0
	v_mov_b32_e32 v114, 0
	v_mov_b32_e32 v115, 0
	v_mov_b32_e32 v144, 0
	v_mov_b32_e32 v145, 0
	v_mov_b32_e32 v132, 0
	v_mov_b32_e32 v133, 0
	v_mov_b32_e32 v135, 0
	v_mov_b32_e32 v171, 0
	v_mov_b32_e32 v122, 0
	v_mov_b32_e32 v123, 0
	v_mov_b32_e32 v124, 0
	v_mov_b32_e32 v125, 0
	v_mov_b32_e32 v126, 0
	v_mov_b32_e32 v127, 0
	v_mov_b32_e32 v128, 0
	v_mov_b32_e32 v129, 0
	v_mov_b32_e32 v140, 0
	v_mov_b32_e32 v130, 0
	v_mov_b32_e32 v137, 0
	v_mov_b32_e32 v142, 0
	v_mov_b32_e32 v160, 0
	v_mov_b32_e32 v161, 0
	v_mov_b32_e32 v162, 0
	v_mov_b32_e32 v146, 0
	v_mov_b32_e32 v158, 0xff800000
	s_cbranch_scc1 .LBB1_26
; %bb.14:                               ;   in Loop: Header=BB1_4 Depth=1
	v_add_u32_e32 v0, 1, v98
	v_cndmask_b32_e64 v0, v98, v0, s[6:7]
	v_add_u32_e32 v67, 1, v0
	s_xor_b32 s2, s10, s38
	v_cndmask_b32_e64 v0, v0, v67, s[4:5]
	v_xor_b32_e32 v0, s2, v0
	v_subrev_u32_e32 v0, s2, v0
	v_ashrrev_i32_e32 v76, 31, v0
	v_add_u32_e32 v0, v0, v76
	v_xor_b32_e32 v0, v0, v76
	v_cvt_f32_u32_e32 v67, v0
	v_mov_b32_e32 v68, v156
	buffer_store_dword v157, off, s[96:99], 0 offset:752 ; 4-byte Folded Spill
	buffer_store_dword v150, off, s[96:99], 0 offset:740 ; 4-byte Folded Spill
	buffer_store_dword v149, off, s[96:99], 0 offset:716 ; 4-byte Folded Spill
	s_waitcnt vmcnt(0)
	buffer_store_dword v150, off, s[96:99], 0 offset:720 ; 4-byte Folded Spill
	v_ashrrev_i32_e32 v77, 31, v156
	v_rcp_iflag_f32_e32 v67, v67
	v_readlane_b32 s6, v1, 10
	v_add_u32_e32 v75, v156, v77
	v_mov_b32_e32 v78, s75
	v_mul_f32_e32 v67, 0x4f7ffffe, v67
	v_cvt_u32_f32_e32 v69, v67
	v_sub_u32_e32 v67, 0, v0
	v_readlane_b32 s7, v1, 11
	v_xor_b32_e32 v80, v75, v77
	v_mul_lo_u32 v67, v67, v69
	buffer_store_dword v68, off, s[96:99], 0 offset:744 ; 4-byte Folded Spill
	s_waitcnt vmcnt(0)
	buffer_store_dword v69, off, s[96:99], 0 offset:748 ; 4-byte Folded Spill
	v_mov_b32_e32 v70, s7
	v_readlane_b32 s2, v1, 13
	v_mov_b32_e32 v75, s2
	v_readlane_b32 s2, v1, 12
	s_mov_b32 s55, s72
	v_writelane_b32 v2, s12, 0
	v_writelane_b32 v2, s13, 1
	v_mov_b32_e32 v146, 0
	v_mov_b32_e32 v158, 0xff800000
	v_mov_b32_e32 v99, 0
	v_mov_b32_e32 v239, 0
	v_mov_b32_e32 v97, 0
	v_mov_b32_e32 v96, 0
	v_mov_b32_e32 v94, 0
	v_mov_b32_e32 v235, 0
	v_mov_b32_e32 v140, 0
	v_mov_b32_e32 v87, 0
	v_mov_b32_e32 v81, 0
	v_mov_b32_e32 v85, 0
	v_mov_b32_e32 v92, 0
	v_mov_b32_e32 v135, 0
	v_mov_b32_e32 v223, 0
	v_mov_b32_e32 v83, 0
	v_mov_b32_e32 v145, 0
	v_mov_b32_e32 v144, 0
	v_mov_b32_e32 v90, 0
	v_mov_b32_e32 v218, 0
	v_mov_b32_e32 v217, 0
	v_mov_b32_e32 v91, 0
	v_mov_b32_e32 v215, 0
	v_mov_b32_e32 v82, 0
	v_mov_b32_e32 v212, 0
	v_mov_b32_e32 v211, 0
	v_mov_b32_e32 v210, 0
	v_mov_b32_e32 v209, 0
	v_mov_b32_e32 v208, 0
	v_mov_b32_e32 v207, 0
	v_mov_b32_e32 v206, 0
	v_mov_b32_e32 v205, 0
	v_mov_b32_e32 v204, 0
	v_mov_b32_e32 v203, 0
	v_mov_b32_e32 v202, 0
	v_mov_b32_e32 v143, 0
	v_mov_b32_e32 v95, 0
	v_mov_b32_e32 v141, 0
	v_mov_b32_e32 v134, 0
	v_mov_b32_e32 v136, 0
	v_mov_b32_e32 v198, 0
	v_mov_b32_e32 v197, 0
	v_mov_b32_e32 v196, 0
	v_mov_b32_e32 v86, 0
	v_mov_b32_e32 v192, 0
	v_mov_b32_e32 v194, 0
	v_mov_b32_e32 v190, 0
	v_mov_b32_e32 v189, 0
	v_mov_b32_e32 v188, 0
	v_mov_b32_e32 v187, 0
	v_mov_b32_e32 v186, 0
	v_mov_b32_e32 v195, 0
	v_mov_b32_e32 v191, 0
	v_mov_b32_e32 v193, 0
	v_mov_b32_e32 v180, 0
	v_mov_b32_e32 v132, 0
	v_mov_b32_e32 v177, 0
	v_mov_b32_e32 v181, 0
	v_mov_b32_e32 v176, 0
	v_mov_b32_e32 v174, 0
	v_mov_b32_e32 v173, 0
	v_mov_b32_e32 v172, 0
	v_mov_b32_e32 v171, 0
	v_mov_b32_e32 v170, 0
	v_mov_b32_e32 v169, 0
	v_mov_b32_e32 v168, 0
	v_mov_b32_e32 v167, 0
	v_mov_b32_e32 v166, 0
	v_mov_b32_e32 v142, 0
	v_mov_b32_e32 v164, 0
	v_mov_b32_e32 v165, 0
	v_mul_hi_u32 v79, v69, v67
	v_add_co_u32_e32 v67, vcc, s74, v154
	buffer_store_dword v154, off, s[96:99], 0 offset:732 ; 4-byte Folded Spill
	s_waitcnt vmcnt(0)
	buffer_store_dword v155, off, s[96:99], 0 offset:736 ; 4-byte Folded Spill
	v_add_u32_e32 v69, v69, v79
	v_mul_hi_u32 v79, v80, v69
	v_subrev_co_u32_e64 v69, s[4:5], s6, v67
	v_mov_b32_e32 v163, 0
	v_mov_b32_e32 v162, 0
	v_mov_b32_e32 v160, 0
	v_mov_b32_e32 v159, 0
	v_mov_b32_e32 v161, 0
	v_mov_b32_e32 v157, 0
	v_mov_b32_e32 v156, 0
	v_mov_b32_e32 v88, 0
	v_mov_b32_e32 v133, 0
	v_mov_b32_e32 v131, 0
	v_mov_b32_e32 v150, 0
	v_mov_b32_e32 v179, 0
	v_mov_b32_e32 v178, 0
	v_mov_b32_e32 v185, 0
	v_mov_b32_e32 v184, 0
	v_mov_b32_e32 v147, 0
	v_mov_b32_e32 v139, 0
	v_mov_b32_e32 v151, 0
	v_mov_b32_e32 v149, 0
	v_mov_b32_e32 v154, 0
	v_mov_b32_e32 v199, 0
	v_mov_b32_e32 v126, 0
	v_mov_b32_e32 v124, 0
	v_mov_b32_e32 v123, 0
	v_mov_b32_e32 v122, 0
	v_mov_b32_e32 v121, 0
	v_mov_b32_e32 v89, 0
	v_mov_b32_e32 v120, 0
	v_mov_b32_e32 v118, 0
	v_mov_b32_e32 v119, 0
	v_mov_b32_e32 v93, 0
	v_mov_b32_e32 v129, 0
	v_mov_b32_e32 v183, 0
	v_mov_b32_e32 v128, 0
	v_mov_b32_e32 v127, 0
	v_mov_b32_e32 v182, 0
	v_mov_b32_e32 v125, 0
	v_mov_b32_e32 v175, 0
	v_mov_b32_e32 v84, 0
	v_mov_b32_e32 v138, 0
	v_mov_b32_e32 v130, 0
	v_mov_b32_e32 v137, 0
	v_mov_b32_e32 v148, 0
	v_mov_b32_e32 v213, 0
	v_mov_b32_e32 v201, 0
	v_mov_b32_e32 v200, 0
	v_addc_co_u32_e32 v68, vcc, v155, v78, vcc
	v_subb_co_u32_e64 v70, s[4:5], v68, v70, s[4:5]
	v_cmp_ge_i64_e32 vcc, s[6:7], v[67:68]
	v_add_co_u32_e64 v67, s[4:5], s2, v67
	v_addc_co_u32_e64 v68, s[4:5], v75, v68, s[4:5]
	v_cndmask_b32_e64 v68, v68, v152, s[46:47]
	v_cndmask_b32_e64 v67, v67, -1, s[46:47]
	v_cmp_gt_i64_e64 s[4:5], s[50:51], v[67:68]
	v_mov_b32_e32 v75, s51
	v_cndmask_b32_e64 v68, v75, v68, s[4:5]
	v_mov_b32_e32 v75, s50
	v_cndmask_b32_e64 v67, v75, v67, s[4:5]
	v_cmp_gt_i64_e64 s[4:5], s[54:55], v[69:70]
	v_bfrev_b32_e32 v70, -2
	v_cndmask_b32_e64 v69, v70, v69, s[4:5]
	v_mul_lo_u32 v70, v79, v0
	s_mov_b32 s2, s54
	v_writelane_b32 v1, s2, 62
	v_writelane_b32 v1, s3, 63
	s_or_b64 s[2:3], s[42:43], vcc
	v_cndmask_b32_e64 v98, v69, 0, s[2:3]
	v_sub_u32_e32 v69, v80, v70
	v_cmp_lt_i64_e32 vcc, -1, v[67:68]
	v_xor_b32_e32 v68, v77, v76
	v_add_u32_e32 v70, 1, v79
	v_cmp_ge_u32_e64 s[4:5], v69, v0
	v_sub_u32_e32 v76, v69, v0
	v_cndmask_b32_e64 v70, v79, v70, s[4:5]
	v_cndmask_b32_e64 v69, v69, v76, s[4:5]
	v_add_u32_e32 v76, 1, v70
	v_cmp_ge_u32_e64 s[4:5], v69, v0
	v_cndmask_b32_e64 v0, v70, v76, s[4:5]
	v_mov_b32_e32 v70, v153
	buffer_store_dword v70, off, s[96:99], 0 offset:724 ; 4-byte Folded Spill
	s_waitcnt vmcnt(0)
	buffer_store_dword v71, off, s[96:99], 0 offset:728 ; 4-byte Folded Spill
	v_xor_b32_e32 v0, v0, v68
	v_readlane_b32 s2, v1, 24
	v_sub_u32_e32 v0, v0, v68
	v_mul_lo_u32 v68, v153, s2
	v_mul_hi_i32 v70, v153, s2
	v_readlane_b32 s3, v1, 25
	v_readlane_b32 s2, v1, 4
	v_ashrrev_i32_e32 v69, 31, v0
	v_add_co_u32_e64 v0, s[4:5], v68, v0
	v_readlane_b32 s3, v1, 5
	v_addc_co_u32_e64 v68, s[4:5], v70, v69, s[4:5]
	v_mul_lo_u32 v69, v0, s3
	v_mul_hi_u32 v70, v0, s2
	v_mul_lo_u32 v68, v68, s2
	v_mul_lo_u32 v0, v0, s2
	s_and_b64 vcc, s[12:13], vcc
	v_readlane_b32 s12, v1, 20
	v_cndmask_b32_e32 v247, -1, v67, vcc
	v_add_u32_e32 v67, v70, v69
	v_readlane_b32 s14, v1, 22
	v_readlane_b32 s15, v1, 23
	v_add_u32_e32 v67, v67, v68
	v_mov_b32_e32 v68, s15
	v_add_co_u32_e32 v69, vcc, s14, v0
	v_readlane_b32 s13, v1, 21
	v_addc_co_u32_e32 v68, vcc, v68, v67, vcc
	buffer_store_dword v68, off, s[96:99], 0 offset:416 ; 4-byte Folded Spill
	v_mov_b32_e32 v68, s13
	v_add_co_u32_e32 v0, vcc, s12, v0
	buffer_store_dword v0, off, s[96:99], 0 offset:420 ; 4-byte Folded Spill
	v_addc_co_u32_e32 v0, vcc, v68, v67, vcc
	buffer_store_dword v0, off, s[96:99], 0 offset:424 ; 4-byte Folded Spill
	v_add_co_u32_e32 v0, vcc, s74, v73
	v_addc_co_u32_e32 v67, vcc, v74, v78, vcc
	buffer_store_dword v69, off, s[96:99], 0 offset:412 ; 4-byte Folded Spill
	v_mov_b32_e32 v68, s7
	v_subrev_co_u32_e32 v69, vcc, s6, v0
	v_subb_co_u32_e32 v70, vcc, v67, v68, vcc
	v_mov_b32_e32 v0, s49
	s_lshl_b32 s2, s101, 4
	v_sub_u32_e32 v255, v247, v98
	v_mov_b32_e32 v78, 0
	v_mov_b32_e32 v75, 0
	v_mov_b32_e32 v80, 0
	v_mov_b32_e32 v79, 0
	buffer_store_dword v69, off, s[96:99], 0 offset:428 ; 4-byte Folded Spill
	s_waitcnt vmcnt(0)
	buffer_store_dword v70, off, s[96:99], 0 offset:432 ; 4-byte Folded Spill
	v_add_co_u32_e32 v67, vcc, s48, v71
	v_addc_co_u32_e32 v0, vcc, v0, v72, vcc
	v_cndmask_b32_e64 v68, v0, v152, s[46:47]
	v_cndmask_b32_e64 v67, v67, -1, s[46:47]
	buffer_store_dword v67, off, s[96:99], 0 offset:436 ; 4-byte Folded Spill
	s_waitcnt vmcnt(0)
	buffer_store_dword v68, off, s[96:99], 0 offset:440 ; 4-byte Folded Spill
	v_sub_u32_e32 v0, s2, v98
	buffer_store_dword v0, off, s[96:99], 0 offset:60 ; 4-byte Folded Spill
	v_mov_b32_e32 v68, 0
	v_mov_b32_e32 v67, 0
	v_mov_b32_e32 v77, 0
	v_mov_b32_e32 v76, 0
	v_mov_b32_e32 v70, 0
	v_mov_b32_e32 v155, 0
	v_mov_b32_e32 v152, 0
	v_mov_b32_e32 v153, 0
	v_mov_b32_e32 v0, 0
	buffer_store_dword v0, off, s[96:99], 0 offset:56 ; 4-byte Folded Spill
	buffer_store_dword v98, off, s[96:99], 0 offset:700 ; 4-byte Folded Spill
	buffer_store_dword v247, off, s[96:99], 0 offset:704 ; 4-byte Folded Spill
	buffer_store_dword v255, off, s[96:99], 0 offset:708 ; 4-byte Folded Spill
.LBB1_15:                               ;   Parent Loop BB1_4 Depth=1
                                        ; =>  This Loop Header: Depth=2
                                        ;       Child Loop BB1_20 Depth 3
	buffer_load_dword v71, off, s[96:99], 0 offset:428 ; 4-byte Folded Reload
	s_nop 0
	buffer_load_dword v72, off, s[96:99], 0 offset:432 ; 4-byte Folded Reload
	s_lshl_b32 s2, s101, 4
	s_ashr_i32 s3, s2, 31
	s_or_b32 s76, s2, 15
	s_mov_b32 s77, s3
	s_lshl_b64 s[10:11], s[2:3], 8
	v_mov_b32_e32 v69, s11
	s_waitcnt vmcnt(62)
	v_mov_b32_e32 v100, v158
	v_max_f32_e32 v117, v100, v100
	s_waitcnt vmcnt(0)
	v_cmp_lt_i64_e32 vcc, s[2:3], v[71:72]
	buffer_load_dword v71, off, s[96:99], 0 offset:436 ; 4-byte Folded Reload
	s_nop 0
	buffer_load_dword v72, off, s[96:99], 0 offset:440 ; 4-byte Folded Reload
	s_and_b64 s[6:7], s[0:1], vcc
	buffer_load_dword v0, off, s[96:99], 0 offset:420 ; 4-byte Folded Reload
	s_waitcnt vmcnt(1)
	v_cmp_gt_i64_e32 vcc, s[76:77], v[71:72]
	s_waitcnt vmcnt(0)
	v_add_co_u32_e64 v71, s[4:5], s10, v0
	buffer_load_dword v0, off, s[96:99], 0 offset:424 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_addc_co_u32_e64 v72, s[4:5], v0, v69, s[4:5]
	;;#ASMSTART
	s_load_dwordx16 s[80:95], v[71:72], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], v[71:72], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], v[71:72], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], v[71:72], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	v_dot2_f32_f16 v69, v3, s80, 0
	v_dot2_f32_f16 v69, v4, s81, v69
	v_dot2_f32_f16 v69, v5, s82, v69
	v_dot2_f32_f16 v69, v6, s83, v69
	v_dot2_f32_f16 v69, v7, s84, v69
	v_dot2_f32_f16 v69, v8, s85, v69
	v_dot2_f32_f16 v69, v9, s86, v69
	v_dot2_f32_f16 v69, v10, s87, v69
	v_dot2_f32_f16 v69, v11, s88, v69
	v_dot2_f32_f16 v69, v12, s89, v69
	v_dot2_f32_f16 v69, v13, s90, v69
	v_dot2_f32_f16 v69, v14, s91, v69
	v_dot2_f32_f16 v69, v15, s92, v69
	v_dot2_f32_f16 v69, v16, s93, v69
	v_dot2_f32_f16 v69, v17, s94, v69
	v_dot2_f32_f16 v69, v18, s95, v69
	v_dot2_f32_f16 v69, v19, s52, v69
	v_dot2_f32_f16 v69, v20, s53, v69
	v_dot2_f32_f16 v69, v21, s54, v69
	v_dot2_f32_f16 v69, v22, s55, v69
	v_dot2_f32_f16 v69, v23, s56, v69
	v_dot2_f32_f16 v69, v24, s57, v69
	v_dot2_f32_f16 v69, v25, s58, v69
	v_dot2_f32_f16 v69, v26, s59, v69
	v_dot2_f32_f16 v69, v27, s60, v69
	v_dot2_f32_f16 v69, v28, s61, v69
	v_dot2_f32_f16 v69, v29, s62, v69
	v_dot2_f32_f16 v69, v30, s63, v69
	v_dot2_f32_f16 v69, v31, s64, v69
	v_dot2_f32_f16 v69, v32, s65, v69
	v_dot2_f32_f16 v69, v33, s66, v69
	v_dot2_f32_f16 v69, v34, s67, v69
	v_dot2_f32_f16 v69, v35, s36, v69
	v_dot2_f32_f16 v69, v36, s37, v69
	v_dot2_f32_f16 v69, v37, s38, v69
	v_dot2_f32_f16 v69, v38, s39, v69
	v_dot2_f32_f16 v69, v39, s40, v69
	v_dot2_f32_f16 v69, v40, s41, v69
	v_dot2_f32_f16 v69, v41, s42, v69
	v_dot2_f32_f16 v69, v42, s43, v69
	v_dot2_f32_f16 v69, v43, s44, v69
	v_dot2_f32_f16 v69, v44, s45, v69
	v_dot2_f32_f16 v69, v45, s46, v69
	v_dot2_f32_f16 v69, v46, s47, v69
	v_dot2_f32_f16 v69, v47, s48, v69
	v_dot2_f32_f16 v69, v48, s49, v69
	v_dot2_f32_f16 v69, v49, s50, v69
	v_dot2_f32_f16 v69, v50, s51, v69
	v_dot2_f32_f16 v69, v51, s12, v69
	v_dot2_f32_f16 v69, v52, s13, v69
	v_dot2_f32_f16 v69, v53, s14, v69
	v_dot2_f32_f16 v69, v54, s15, v69
	v_dot2_f32_f16 v69, v55, s16, v69
	v_dot2_f32_f16 v69, v56, s17, v69
	v_dot2_f32_f16 v69, v57, s18, v69
	v_dot2_f32_f16 v69, v58, s19, v69
	v_dot2_f32_f16 v69, v59, s20, v69
	v_dot2_f32_f16 v69, v60, s21, v69
	v_dot2_f32_f16 v69, v61, s22, v69
	v_dot2_f32_f16 v69, v62, s23, v69
	v_add_co_u32_e64 v73, s[4:5], s78, v71
	v_dot2_f32_f16 v69, v63, s24, v69
	v_addc_co_u32_e64 v74, s[4:5], 0, v72, s[4:5]
	v_dot2_f32_f16 v69, v64, s25, v69
	v_readfirstlane_b32 s4, v73
	v_dot2_f32_f16 v69, v65, s26, v69
	s_ashr_i32 s5, s4, 31
	v_readfirstlane_b32 s73, v74
	v_dot2_f32_f16 v69, v66, s27, v69
	s_or_b64 s[4:5], s[72:73], s[4:5]
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[4:5], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[4:5], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[4:5], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[4:5], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	v_dot2_f32_f16 v73, v3, s80, 0
	v_dot2_f32_f16 v73, v4, s81, v73
	v_dot2_f32_f16 v73, v5, s82, v73
	v_dot2_f32_f16 v73, v6, s83, v73
	v_dot2_f32_f16 v73, v7, s84, v73
	v_dot2_f32_f16 v73, v8, s85, v73
	v_dot2_f32_f16 v73, v9, s86, v73
	v_dot2_f32_f16 v73, v10, s87, v73
	v_dot2_f32_f16 v73, v11, s88, v73
	v_dot2_f32_f16 v73, v12, s89, v73
	v_dot2_f32_f16 v73, v13, s90, v73
	v_dot2_f32_f16 v73, v14, s91, v73
	v_dot2_f32_f16 v73, v15, s92, v73
	v_dot2_f32_f16 v73, v16, s93, v73
	v_dot2_f32_f16 v73, v17, s94, v73
	v_dot2_f32_f16 v73, v18, s95, v73
	v_dot2_f32_f16 v73, v19, s52, v73
	v_dot2_f32_f16 v73, v20, s53, v73
	v_dot2_f32_f16 v73, v21, s54, v73
	v_dot2_f32_f16 v73, v22, s55, v73
	v_dot2_f32_f16 v73, v23, s56, v73
	v_dot2_f32_f16 v73, v24, s57, v73
	v_dot2_f32_f16 v73, v25, s58, v73
	v_dot2_f32_f16 v73, v26, s59, v73
	v_dot2_f32_f16 v73, v27, s60, v73
	v_dot2_f32_f16 v73, v28, s61, v73
	v_dot2_f32_f16 v73, v29, s62, v73
	v_dot2_f32_f16 v73, v30, s63, v73
	v_dot2_f32_f16 v73, v31, s64, v73
	v_dot2_f32_f16 v73, v32, s65, v73
	v_dot2_f32_f16 v73, v33, s66, v73
	v_dot2_f32_f16 v73, v34, s67, v73
	v_dot2_f32_f16 v73, v35, s36, v73
	v_dot2_f32_f16 v73, v36, s37, v73
	v_dot2_f32_f16 v73, v37, s38, v73
	v_dot2_f32_f16 v73, v38, s39, v73
	v_dot2_f32_f16 v73, v39, s40, v73
	v_dot2_f32_f16 v73, v40, s41, v73
	v_dot2_f32_f16 v73, v41, s42, v73
	v_dot2_f32_f16 v73, v42, s43, v73
	v_dot2_f32_f16 v73, v43, s44, v73
	v_dot2_f32_f16 v73, v44, s45, v73
	v_dot2_f32_f16 v73, v45, s46, v73
	v_dot2_f32_f16 v73, v46, s47, v73
	v_dot2_f32_f16 v73, v47, s48, v73
	v_dot2_f32_f16 v73, v48, s49, v73
	v_dot2_f32_f16 v73, v49, s50, v73
	v_dot2_f32_f16 v73, v50, s51, v73
	v_dot2_f32_f16 v73, v51, s12, v73
	v_dot2_f32_f16 v73, v52, s13, v73
	v_dot2_f32_f16 v73, v53, s14, v73
	v_dot2_f32_f16 v73, v54, s15, v73
	v_dot2_f32_f16 v73, v55, s16, v73
	v_dot2_f32_f16 v73, v56, s17, v73
	v_dot2_f32_f16 v73, v57, s18, v73
	v_dot2_f32_f16 v73, v58, s19, v73
	v_dot2_f32_f16 v73, v59, s20, v73
	v_dot2_f32_f16 v73, v60, s21, v73
	v_dot2_f32_f16 v73, v61, s22, v73
	v_dot2_f32_f16 v73, v62, s23, v73
	v_dot2_f32_f16 v73, v63, s24, v73
	v_dot2_f32_f16 v73, v64, s25, v73
	s_add_u32 s4, s4, 0x100
	v_dot2_f32_f16 v73, v65, s26, v73
	s_addc_u32 s73, s5, 0
	s_ashr_i32 s5, s4, 31
	v_dot2_f32_f16 v101, v66, s27, v73
	s_or_b64 s[4:5], s[72:73], s[4:5]
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[4:5], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[4:5], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[4:5], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[4:5], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	v_dot2_f32_f16 v73, v3, s80, 0
	v_dot2_f32_f16 v73, v4, s81, v73
	v_dot2_f32_f16 v73, v5, s82, v73
	v_dot2_f32_f16 v73, v6, s83, v73
	v_dot2_f32_f16 v73, v7, s84, v73
	v_dot2_f32_f16 v73, v8, s85, v73
	v_dot2_f32_f16 v73, v9, s86, v73
	v_dot2_f32_f16 v73, v10, s87, v73
	v_dot2_f32_f16 v73, v11, s88, v73
	v_dot2_f32_f16 v73, v12, s89, v73
	v_dot2_f32_f16 v73, v13, s90, v73
	v_dot2_f32_f16 v73, v14, s91, v73
	v_dot2_f32_f16 v73, v15, s92, v73
	v_dot2_f32_f16 v73, v16, s93, v73
	v_dot2_f32_f16 v73, v17, s94, v73
	v_dot2_f32_f16 v73, v18, s95, v73
	v_dot2_f32_f16 v73, v19, s52, v73
	v_dot2_f32_f16 v73, v20, s53, v73
	v_dot2_f32_f16 v73, v21, s54, v73
	v_dot2_f32_f16 v73, v22, s55, v73
	v_dot2_f32_f16 v73, v23, s56, v73
	v_dot2_f32_f16 v73, v24, s57, v73
	v_dot2_f32_f16 v73, v25, s58, v73
	v_dot2_f32_f16 v73, v26, s59, v73
	v_dot2_f32_f16 v73, v27, s60, v73
	v_dot2_f32_f16 v73, v28, s61, v73
	v_dot2_f32_f16 v73, v29, s62, v73
	v_dot2_f32_f16 v73, v30, s63, v73
	v_dot2_f32_f16 v73, v31, s64, v73
	v_dot2_f32_f16 v73, v32, s65, v73
	v_dot2_f32_f16 v73, v33, s66, v73
	v_dot2_f32_f16 v73, v34, s67, v73
	v_dot2_f32_f16 v73, v35, s36, v73
	v_dot2_f32_f16 v73, v36, s37, v73
	v_dot2_f32_f16 v73, v37, s38, v73
	v_dot2_f32_f16 v73, v38, s39, v73
	v_dot2_f32_f16 v73, v39, s40, v73
	v_dot2_f32_f16 v73, v40, s41, v73
	v_dot2_f32_f16 v73, v41, s42, v73
	v_dot2_f32_f16 v73, v42, s43, v73
	v_dot2_f32_f16 v73, v43, s44, v73
	v_dot2_f32_f16 v73, v44, s45, v73
	v_dot2_f32_f16 v73, v45, s46, v73
	v_dot2_f32_f16 v73, v46, s47, v73
	v_dot2_f32_f16 v73, v47, s48, v73
	v_dot2_f32_f16 v73, v48, s49, v73
	v_dot2_f32_f16 v73, v49, s50, v73
	v_dot2_f32_f16 v73, v50, s51, v73
	v_dot2_f32_f16 v73, v51, s12, v73
	v_dot2_f32_f16 v73, v52, s13, v73
	v_dot2_f32_f16 v73, v53, s14, v73
	v_dot2_f32_f16 v73, v54, s15, v73
	v_dot2_f32_f16 v73, v55, s16, v73
	v_dot2_f32_f16 v73, v56, s17, v73
	v_dot2_f32_f16 v73, v57, s18, v73
	v_dot2_f32_f16 v73, v58, s19, v73
	v_dot2_f32_f16 v73, v59, s20, v73
	v_dot2_f32_f16 v73, v60, s21, v73
	v_dot2_f32_f16 v73, v61, s22, v73
	v_dot2_f32_f16 v73, v62, s23, v73
	v_dot2_f32_f16 v73, v63, s24, v73
	v_dot2_f32_f16 v73, v64, s25, v73
	s_add_u32 s4, s4, 0x100
	v_dot2_f32_f16 v73, v65, s26, v73
	s_addc_u32 s73, s5, 0
	s_ashr_i32 s5, s4, 31
	v_dot2_f32_f16 v102, v66, s27, v73
	s_or_b64 s[4:5], s[72:73], s[4:5]
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[4:5], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[4:5], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[4:5], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[4:5], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	v_dot2_f32_f16 v73, v3, s80, 0
	v_dot2_f32_f16 v73, v4, s81, v73
	v_dot2_f32_f16 v73, v5, s82, v73
	v_dot2_f32_f16 v73, v6, s83, v73
	v_dot2_f32_f16 v73, v7, s84, v73
	v_dot2_f32_f16 v73, v8, s85, v73
	v_dot2_f32_f16 v73, v9, s86, v73
	v_dot2_f32_f16 v73, v10, s87, v73
	v_dot2_f32_f16 v73, v11, s88, v73
	v_dot2_f32_f16 v73, v12, s89, v73
	v_dot2_f32_f16 v73, v13, s90, v73
	v_dot2_f32_f16 v73, v14, s91, v73
	v_dot2_f32_f16 v73, v15, s92, v73
	v_dot2_f32_f16 v73, v16, s93, v73
	v_dot2_f32_f16 v73, v17, s94, v73
	v_dot2_f32_f16 v73, v18, s95, v73
	v_dot2_f32_f16 v73, v19, s52, v73
	v_dot2_f32_f16 v73, v20, s53, v73
	v_dot2_f32_f16 v73, v21, s54, v73
	v_dot2_f32_f16 v73, v22, s55, v73
	v_dot2_f32_f16 v73, v23, s56, v73
	v_dot2_f32_f16 v73, v24, s57, v73
	v_dot2_f32_f16 v73, v25, s58, v73
	v_dot2_f32_f16 v73, v26, s59, v73
	v_dot2_f32_f16 v73, v27, s60, v73
	v_dot2_f32_f16 v73, v28, s61, v73
	v_dot2_f32_f16 v73, v29, s62, v73
	v_dot2_f32_f16 v73, v30, s63, v73
	v_dot2_f32_f16 v73, v31, s64, v73
	v_dot2_f32_f16 v73, v32, s65, v73
	v_dot2_f32_f16 v73, v33, s66, v73
	v_dot2_f32_f16 v73, v34, s67, v73
	v_dot2_f32_f16 v73, v35, s36, v73
	v_dot2_f32_f16 v73, v36, s37, v73
	v_dot2_f32_f16 v73, v37, s38, v73
	v_dot2_f32_f16 v73, v38, s39, v73
	v_dot2_f32_f16 v73, v39, s40, v73
	v_dot2_f32_f16 v73, v40, s41, v73
	v_dot2_f32_f16 v73, v41, s42, v73
	v_dot2_f32_f16 v73, v42, s43, v73
	v_dot2_f32_f16 v73, v43, s44, v73
	v_dot2_f32_f16 v73, v44, s45, v73
	v_dot2_f32_f16 v73, v45, s46, v73
	v_dot2_f32_f16 v73, v46, s47, v73
	v_dot2_f32_f16 v73, v47, s48, v73
	v_dot2_f32_f16 v73, v48, s49, v73
	v_dot2_f32_f16 v73, v49, s50, v73
	v_dot2_f32_f16 v73, v50, s51, v73
	v_dot2_f32_f16 v73, v51, s12, v73
	v_dot2_f32_f16 v73, v52, s13, v73
	v_dot2_f32_f16 v73, v53, s14, v73
	v_dot2_f32_f16 v73, v54, s15, v73
	v_dot2_f32_f16 v73, v55, s16, v73
	v_dot2_f32_f16 v73, v56, s17, v73
	v_dot2_f32_f16 v73, v57, s18, v73
	v_dot2_f32_f16 v73, v58, s19, v73
	v_dot2_f32_f16 v73, v59, s20, v73
	v_dot2_f32_f16 v73, v60, s21, v73
	v_dot2_f32_f16 v73, v61, s22, v73
	v_dot2_f32_f16 v73, v62, s23, v73
	v_dot2_f32_f16 v73, v63, s24, v73
	v_dot2_f32_f16 v73, v64, s25, v73
	s_add_u32 s4, s4, 0x100
	v_dot2_f32_f16 v73, v65, s26, v73
	s_addc_u32 s73, s5, 0
	s_ashr_i32 s5, s4, 31
	v_dot2_f32_f16 v103, v66, s27, v73
	s_or_b64 s[4:5], s[72:73], s[4:5]
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[4:5], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[4:5], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[4:5], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[4:5], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	v_dot2_f32_f16 v73, v3, s80, 0
	v_dot2_f32_f16 v73, v4, s81, v73
	v_dot2_f32_f16 v73, v5, s82, v73
	v_dot2_f32_f16 v73, v6, s83, v73
	v_dot2_f32_f16 v73, v7, s84, v73
	v_dot2_f32_f16 v73, v8, s85, v73
	v_dot2_f32_f16 v73, v9, s86, v73
	v_dot2_f32_f16 v73, v10, s87, v73
	v_dot2_f32_f16 v73, v11, s88, v73
	v_dot2_f32_f16 v73, v12, s89, v73
	v_dot2_f32_f16 v73, v13, s90, v73
	v_dot2_f32_f16 v73, v14, s91, v73
	v_dot2_f32_f16 v73, v15, s92, v73
	v_dot2_f32_f16 v73, v16, s93, v73
	v_dot2_f32_f16 v73, v17, s94, v73
	v_dot2_f32_f16 v73, v18, s95, v73
	v_dot2_f32_f16 v73, v19, s52, v73
	v_dot2_f32_f16 v73, v20, s53, v73
	v_dot2_f32_f16 v73, v21, s54, v73
	v_dot2_f32_f16 v73, v22, s55, v73
	v_dot2_f32_f16 v73, v23, s56, v73
	v_dot2_f32_f16 v73, v24, s57, v73
	v_dot2_f32_f16 v73, v25, s58, v73
	v_dot2_f32_f16 v73, v26, s59, v73
	v_dot2_f32_f16 v73, v27, s60, v73
	v_dot2_f32_f16 v73, v28, s61, v73
	v_dot2_f32_f16 v73, v29, s62, v73
	v_dot2_f32_f16 v73, v30, s63, v73
	v_dot2_f32_f16 v73, v31, s64, v73
	v_dot2_f32_f16 v73, v32, s65, v73
	v_dot2_f32_f16 v73, v33, s66, v73
	v_dot2_f32_f16 v73, v34, s67, v73
	v_dot2_f32_f16 v73, v35, s36, v73
	v_dot2_f32_f16 v73, v36, s37, v73
	v_dot2_f32_f16 v73, v37, s38, v73
	v_dot2_f32_f16 v73, v38, s39, v73
	v_dot2_f32_f16 v73, v39, s40, v73
	v_dot2_f32_f16 v73, v40, s41, v73
	v_dot2_f32_f16 v73, v41, s42, v73
	v_dot2_f32_f16 v73, v42, s43, v73
	v_dot2_f32_f16 v73, v43, s44, v73
	v_dot2_f32_f16 v73, v44, s45, v73
	v_dot2_f32_f16 v73, v45, s46, v73
	v_dot2_f32_f16 v73, v46, s47, v73
	v_dot2_f32_f16 v73, v47, s48, v73
	v_dot2_f32_f16 v73, v48, s49, v73
	v_dot2_f32_f16 v73, v49, s50, v73
	v_dot2_f32_f16 v73, v50, s51, v73
	v_dot2_f32_f16 v73, v51, s12, v73
	v_dot2_f32_f16 v73, v52, s13, v73
	v_dot2_f32_f16 v73, v53, s14, v73
	v_dot2_f32_f16 v73, v54, s15, v73
	v_dot2_f32_f16 v73, v55, s16, v73
	v_dot2_f32_f16 v73, v56, s17, v73
	v_dot2_f32_f16 v73, v57, s18, v73
	v_dot2_f32_f16 v73, v58, s19, v73
	v_dot2_f32_f16 v73, v59, s20, v73
	v_dot2_f32_f16 v73, v60, s21, v73
	v_dot2_f32_f16 v73, v61, s22, v73
	v_dot2_f32_f16 v73, v62, s23, v73
	v_dot2_f32_f16 v73, v63, s24, v73
	v_dot2_f32_f16 v73, v64, s25, v73
	s_add_u32 s4, s4, 0x100
	v_dot2_f32_f16 v73, v65, s26, v73
	s_addc_u32 s73, s5, 0
	s_ashr_i32 s5, s4, 31
	v_dot2_f32_f16 v104, v66, s27, v73
	s_or_b64 s[4:5], s[72:73], s[4:5]
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[4:5], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[4:5], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[4:5], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[4:5], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	v_dot2_f32_f16 v73, v3, s80, 0
	v_dot2_f32_f16 v73, v4, s81, v73
	v_dot2_f32_f16 v73, v5, s82, v73
	v_dot2_f32_f16 v73, v6, s83, v73
	v_dot2_f32_f16 v73, v7, s84, v73
	v_dot2_f32_f16 v73, v8, s85, v73
	v_dot2_f32_f16 v73, v9, s86, v73
	v_dot2_f32_f16 v73, v10, s87, v73
	v_dot2_f32_f16 v73, v11, s88, v73
	v_dot2_f32_f16 v73, v12, s89, v73
	v_dot2_f32_f16 v73, v13, s90, v73
	v_dot2_f32_f16 v73, v14, s91, v73
	v_dot2_f32_f16 v73, v15, s92, v73
	v_dot2_f32_f16 v73, v16, s93, v73
	v_dot2_f32_f16 v73, v17, s94, v73
	v_dot2_f32_f16 v73, v18, s95, v73
	v_dot2_f32_f16 v73, v19, s52, v73
	v_dot2_f32_f16 v73, v20, s53, v73
	v_dot2_f32_f16 v73, v21, s54, v73
	v_dot2_f32_f16 v73, v22, s55, v73
	v_dot2_f32_f16 v73, v23, s56, v73
	v_dot2_f32_f16 v73, v24, s57, v73
	v_dot2_f32_f16 v73, v25, s58, v73
	v_dot2_f32_f16 v73, v26, s59, v73
	v_dot2_f32_f16 v73, v27, s60, v73
	v_dot2_f32_f16 v73, v28, s61, v73
	v_dot2_f32_f16 v73, v29, s62, v73
	v_dot2_f32_f16 v73, v30, s63, v73
	v_dot2_f32_f16 v73, v31, s64, v73
	v_dot2_f32_f16 v73, v32, s65, v73
	v_dot2_f32_f16 v73, v33, s66, v73
	v_dot2_f32_f16 v73, v34, s67, v73
	v_dot2_f32_f16 v73, v35, s36, v73
	v_dot2_f32_f16 v73, v36, s37, v73
	v_dot2_f32_f16 v73, v37, s38, v73
	v_dot2_f32_f16 v73, v38, s39, v73
	v_dot2_f32_f16 v73, v39, s40, v73
	v_dot2_f32_f16 v73, v40, s41, v73
	v_dot2_f32_f16 v73, v41, s42, v73
	v_dot2_f32_f16 v73, v42, s43, v73
	v_dot2_f32_f16 v73, v43, s44, v73
	v_dot2_f32_f16 v73, v44, s45, v73
	v_dot2_f32_f16 v73, v45, s46, v73
	v_dot2_f32_f16 v73, v46, s47, v73
	v_dot2_f32_f16 v73, v47, s48, v73
	v_dot2_f32_f16 v73, v48, s49, v73
	v_dot2_f32_f16 v73, v49, s50, v73
	v_dot2_f32_f16 v73, v50, s51, v73
	v_dot2_f32_f16 v73, v51, s12, v73
	v_dot2_f32_f16 v73, v52, s13, v73
	v_dot2_f32_f16 v73, v53, s14, v73
	v_dot2_f32_f16 v73, v54, s15, v73
	v_dot2_f32_f16 v73, v55, s16, v73
	v_dot2_f32_f16 v73, v56, s17, v73
	v_dot2_f32_f16 v73, v57, s18, v73
	v_dot2_f32_f16 v73, v58, s19, v73
	v_dot2_f32_f16 v73, v59, s20, v73
	v_dot2_f32_f16 v73, v60, s21, v73
	v_dot2_f32_f16 v73, v61, s22, v73
	v_dot2_f32_f16 v73, v62, s23, v73
	v_dot2_f32_f16 v73, v63, s24, v73
	v_dot2_f32_f16 v73, v64, s25, v73
	s_add_u32 s4, s4, 0x100
	v_dot2_f32_f16 v73, v65, s26, v73
	s_addc_u32 s73, s5, 0
	s_ashr_i32 s5, s4, 31
	v_dot2_f32_f16 v105, v66, s27, v73
	s_or_b64 s[4:5], s[72:73], s[4:5]
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[4:5], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[4:5], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[4:5], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[4:5], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	v_dot2_f32_f16 v73, v3, s80, 0
	v_dot2_f32_f16 v73, v4, s81, v73
	v_dot2_f32_f16 v73, v5, s82, v73
	v_dot2_f32_f16 v73, v6, s83, v73
	v_dot2_f32_f16 v73, v7, s84, v73
	v_dot2_f32_f16 v73, v8, s85, v73
	v_dot2_f32_f16 v73, v9, s86, v73
	v_dot2_f32_f16 v73, v10, s87, v73
	v_dot2_f32_f16 v73, v11, s88, v73
	v_dot2_f32_f16 v73, v12, s89, v73
	v_dot2_f32_f16 v73, v13, s90, v73
	v_dot2_f32_f16 v73, v14, s91, v73
	v_dot2_f32_f16 v73, v15, s92, v73
	v_dot2_f32_f16 v73, v16, s93, v73
	v_dot2_f32_f16 v73, v17, s94, v73
	v_dot2_f32_f16 v73, v18, s95, v73
	v_dot2_f32_f16 v73, v19, s52, v73
	v_dot2_f32_f16 v73, v20, s53, v73
	v_dot2_f32_f16 v73, v21, s54, v73
	v_dot2_f32_f16 v73, v22, s55, v73
	v_dot2_f32_f16 v73, v23, s56, v73
	v_dot2_f32_f16 v73, v24, s57, v73
	v_dot2_f32_f16 v73, v25, s58, v73
	v_dot2_f32_f16 v73, v26, s59, v73
	v_dot2_f32_f16 v73, v27, s60, v73
	v_dot2_f32_f16 v73, v28, s61, v73
	v_dot2_f32_f16 v73, v29, s62, v73
	v_dot2_f32_f16 v73, v30, s63, v73
	v_dot2_f32_f16 v73, v31, s64, v73
	v_dot2_f32_f16 v73, v32, s65, v73
	v_dot2_f32_f16 v73, v33, s66, v73
	v_dot2_f32_f16 v73, v34, s67, v73
	v_dot2_f32_f16 v73, v35, s36, v73
	v_dot2_f32_f16 v73, v36, s37, v73
	v_dot2_f32_f16 v73, v37, s38, v73
	v_dot2_f32_f16 v73, v38, s39, v73
	v_dot2_f32_f16 v73, v39, s40, v73
	v_dot2_f32_f16 v73, v40, s41, v73
	v_dot2_f32_f16 v73, v41, s42, v73
	v_dot2_f32_f16 v73, v42, s43, v73
	v_dot2_f32_f16 v73, v43, s44, v73
	v_dot2_f32_f16 v73, v44, s45, v73
	v_dot2_f32_f16 v73, v45, s46, v73
	v_dot2_f32_f16 v73, v46, s47, v73
	v_dot2_f32_f16 v73, v47, s48, v73
	v_dot2_f32_f16 v73, v48, s49, v73
	v_dot2_f32_f16 v73, v49, s50, v73
	v_dot2_f32_f16 v73, v50, s51, v73
	v_dot2_f32_f16 v73, v51, s12, v73
	v_dot2_f32_f16 v73, v52, s13, v73
	v_dot2_f32_f16 v73, v53, s14, v73
	v_dot2_f32_f16 v73, v54, s15, v73
	v_dot2_f32_f16 v73, v55, s16, v73
	v_dot2_f32_f16 v73, v56, s17, v73
	v_dot2_f32_f16 v73, v57, s18, v73
	v_dot2_f32_f16 v73, v58, s19, v73
	v_dot2_f32_f16 v73, v59, s20, v73
	v_dot2_f32_f16 v73, v60, s21, v73
	v_dot2_f32_f16 v73, v61, s22, v73
	v_dot2_f32_f16 v73, v62, s23, v73
	v_dot2_f32_f16 v73, v63, s24, v73
	v_dot2_f32_f16 v73, v64, s25, v73
	s_add_u32 s4, s4, 0x100
	v_dot2_f32_f16 v73, v65, s26, v73
	s_addc_u32 s73, s5, 0
	s_ashr_i32 s5, s4, 31
	v_dot2_f32_f16 v106, v66, s27, v73
	s_or_b64 s[4:5], s[72:73], s[4:5]
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[4:5], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[4:5], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[4:5], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[4:5], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	v_dot2_f32_f16 v73, v3, s80, 0
	v_dot2_f32_f16 v73, v4, s81, v73
	v_dot2_f32_f16 v73, v5, s82, v73
	v_dot2_f32_f16 v73, v6, s83, v73
	v_dot2_f32_f16 v73, v7, s84, v73
	v_dot2_f32_f16 v73, v8, s85, v73
	v_dot2_f32_f16 v73, v9, s86, v73
	v_dot2_f32_f16 v73, v10, s87, v73
	v_dot2_f32_f16 v73, v11, s88, v73
	v_dot2_f32_f16 v73, v12, s89, v73
	v_dot2_f32_f16 v73, v13, s90, v73
	v_dot2_f32_f16 v73, v14, s91, v73
	v_dot2_f32_f16 v73, v15, s92, v73
	v_dot2_f32_f16 v73, v16, s93, v73
	v_dot2_f32_f16 v73, v17, s94, v73
	v_dot2_f32_f16 v73, v18, s95, v73
	v_dot2_f32_f16 v73, v19, s52, v73
	v_dot2_f32_f16 v73, v20, s53, v73
	v_dot2_f32_f16 v73, v21, s54, v73
	v_dot2_f32_f16 v73, v22, s55, v73
	v_dot2_f32_f16 v73, v23, s56, v73
	v_dot2_f32_f16 v73, v24, s57, v73
	v_dot2_f32_f16 v73, v25, s58, v73
	v_dot2_f32_f16 v73, v26, s59, v73
	v_dot2_f32_f16 v73, v27, s60, v73
	v_dot2_f32_f16 v73, v28, s61, v73
	v_dot2_f32_f16 v73, v29, s62, v73
	v_dot2_f32_f16 v73, v30, s63, v73
	v_dot2_f32_f16 v73, v31, s64, v73
	v_dot2_f32_f16 v73, v32, s65, v73
	v_dot2_f32_f16 v73, v33, s66, v73
	v_dot2_f32_f16 v73, v34, s67, v73
	v_dot2_f32_f16 v73, v35, s36, v73
	v_dot2_f32_f16 v73, v36, s37, v73
	v_dot2_f32_f16 v73, v37, s38, v73
	v_dot2_f32_f16 v73, v38, s39, v73
	v_dot2_f32_f16 v73, v39, s40, v73
	v_dot2_f32_f16 v73, v40, s41, v73
	v_dot2_f32_f16 v73, v41, s42, v73
	v_dot2_f32_f16 v73, v42, s43, v73
	v_dot2_f32_f16 v73, v43, s44, v73
	v_dot2_f32_f16 v73, v44, s45, v73
	v_dot2_f32_f16 v73, v45, s46, v73
	v_dot2_f32_f16 v73, v46, s47, v73
	v_dot2_f32_f16 v73, v47, s48, v73
	v_dot2_f32_f16 v73, v48, s49, v73
	v_dot2_f32_f16 v73, v49, s50, v73
	v_dot2_f32_f16 v73, v50, s51, v73
	v_dot2_f32_f16 v73, v51, s12, v73
	v_dot2_f32_f16 v73, v52, s13, v73
	v_dot2_f32_f16 v73, v53, s14, v73
	v_dot2_f32_f16 v73, v54, s15, v73
	v_dot2_f32_f16 v73, v55, s16, v73
	v_dot2_f32_f16 v73, v56, s17, v73
	v_dot2_f32_f16 v73, v57, s18, v73
	v_dot2_f32_f16 v73, v58, s19, v73
	v_dot2_f32_f16 v73, v59, s20, v73
	v_dot2_f32_f16 v73, v60, s21, v73
	v_dot2_f32_f16 v73, v61, s22, v73
	v_dot2_f32_f16 v73, v62, s23, v73
	v_dot2_f32_f16 v73, v63, s24, v73
	v_dot2_f32_f16 v73, v64, s25, v73
	s_add_u32 s4, s4, 0x100
	v_dot2_f32_f16 v73, v65, s26, v73
	s_addc_u32 s73, s5, 0
	s_ashr_i32 s5, s4, 31
	v_dot2_f32_f16 v107, v66, s27, v73
	s_or_b64 s[4:5], s[72:73], s[4:5]
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[4:5], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[4:5], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[4:5], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[4:5], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	v_dot2_f32_f16 v73, v3, s80, 0
	v_dot2_f32_f16 v73, v4, s81, v73
	v_dot2_f32_f16 v73, v5, s82, v73
	v_dot2_f32_f16 v73, v6, s83, v73
	v_dot2_f32_f16 v73, v7, s84, v73
	v_dot2_f32_f16 v73, v8, s85, v73
	v_dot2_f32_f16 v73, v9, s86, v73
	v_dot2_f32_f16 v73, v10, s87, v73
	v_dot2_f32_f16 v73, v11, s88, v73
	v_dot2_f32_f16 v73, v12, s89, v73
	v_dot2_f32_f16 v73, v13, s90, v73
	v_dot2_f32_f16 v73, v14, s91, v73
	v_dot2_f32_f16 v73, v15, s92, v73
	v_dot2_f32_f16 v73, v16, s93, v73
	v_dot2_f32_f16 v73, v17, s94, v73
	v_dot2_f32_f16 v73, v18, s95, v73
	v_dot2_f32_f16 v73, v19, s52, v73
	v_dot2_f32_f16 v73, v20, s53, v73
	v_dot2_f32_f16 v73, v21, s54, v73
	v_dot2_f32_f16 v73, v22, s55, v73
	v_dot2_f32_f16 v73, v23, s56, v73
	v_dot2_f32_f16 v73, v24, s57, v73
	v_dot2_f32_f16 v73, v25, s58, v73
	v_dot2_f32_f16 v73, v26, s59, v73
	v_dot2_f32_f16 v73, v27, s60, v73
	v_dot2_f32_f16 v73, v28, s61, v73
	v_dot2_f32_f16 v73, v29, s62, v73
	v_dot2_f32_f16 v73, v30, s63, v73
	v_dot2_f32_f16 v73, v31, s64, v73
	v_dot2_f32_f16 v73, v32, s65, v73
	v_dot2_f32_f16 v73, v33, s66, v73
	v_dot2_f32_f16 v73, v34, s67, v73
	v_dot2_f32_f16 v73, v35, s36, v73
	v_dot2_f32_f16 v73, v36, s37, v73
	v_dot2_f32_f16 v73, v37, s38, v73
	v_dot2_f32_f16 v73, v38, s39, v73
	v_dot2_f32_f16 v73, v39, s40, v73
	v_dot2_f32_f16 v73, v40, s41, v73
	v_dot2_f32_f16 v73, v41, s42, v73
	v_dot2_f32_f16 v73, v42, s43, v73
	v_dot2_f32_f16 v73, v43, s44, v73
	v_dot2_f32_f16 v73, v44, s45, v73
	v_dot2_f32_f16 v73, v45, s46, v73
	v_dot2_f32_f16 v73, v46, s47, v73
	v_dot2_f32_f16 v73, v47, s48, v73
	v_dot2_f32_f16 v73, v48, s49, v73
	v_dot2_f32_f16 v73, v49, s50, v73
	v_dot2_f32_f16 v73, v50, s51, v73
	v_dot2_f32_f16 v73, v51, s12, v73
	v_dot2_f32_f16 v73, v52, s13, v73
	v_dot2_f32_f16 v73, v53, s14, v73
	v_dot2_f32_f16 v73, v54, s15, v73
	v_dot2_f32_f16 v73, v55, s16, v73
	v_dot2_f32_f16 v73, v56, s17, v73
	v_dot2_f32_f16 v73, v57, s18, v73
	v_dot2_f32_f16 v73, v58, s19, v73
	v_dot2_f32_f16 v73, v59, s20, v73
	v_dot2_f32_f16 v73, v60, s21, v73
	v_dot2_f32_f16 v73, v61, s22, v73
	v_dot2_f32_f16 v73, v62, s23, v73
	v_dot2_f32_f16 v73, v63, s24, v73
	v_dot2_f32_f16 v73, v64, s25, v73
	s_add_u32 s4, s4, 0x100
	v_dot2_f32_f16 v73, v65, s26, v73
	s_addc_u32 s73, s5, 0
	s_ashr_i32 s5, s4, 31
	v_dot2_f32_f16 v108, v66, s27, v73
	s_or_b64 s[4:5], s[72:73], s[4:5]
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[4:5], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[4:5], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[4:5], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[4:5], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	v_dot2_f32_f16 v73, v3, s80, 0
	v_dot2_f32_f16 v73, v4, s81, v73
	v_dot2_f32_f16 v73, v5, s82, v73
	v_dot2_f32_f16 v73, v6, s83, v73
	v_dot2_f32_f16 v73, v7, s84, v73
	v_dot2_f32_f16 v73, v8, s85, v73
	v_dot2_f32_f16 v73, v9, s86, v73
	v_dot2_f32_f16 v73, v10, s87, v73
	v_dot2_f32_f16 v73, v11, s88, v73
	v_dot2_f32_f16 v73, v12, s89, v73
	v_dot2_f32_f16 v73, v13, s90, v73
	v_dot2_f32_f16 v73, v14, s91, v73
	v_dot2_f32_f16 v73, v15, s92, v73
	v_dot2_f32_f16 v73, v16, s93, v73
	v_dot2_f32_f16 v73, v17, s94, v73
	v_dot2_f32_f16 v73, v18, s95, v73
	v_dot2_f32_f16 v73, v19, s52, v73
	v_dot2_f32_f16 v73, v20, s53, v73
	v_dot2_f32_f16 v73, v21, s54, v73
	v_dot2_f32_f16 v73, v22, s55, v73
	v_dot2_f32_f16 v73, v23, s56, v73
	v_dot2_f32_f16 v73, v24, s57, v73
	v_dot2_f32_f16 v73, v25, s58, v73
	v_dot2_f32_f16 v73, v26, s59, v73
	v_dot2_f32_f16 v73, v27, s60, v73
	v_dot2_f32_f16 v73, v28, s61, v73
	v_dot2_f32_f16 v73, v29, s62, v73
	v_dot2_f32_f16 v73, v30, s63, v73
	v_dot2_f32_f16 v73, v31, s64, v73
	v_dot2_f32_f16 v73, v32, s65, v73
	v_dot2_f32_f16 v73, v33, s66, v73
	v_dot2_f32_f16 v73, v34, s67, v73
	v_dot2_f32_f16 v73, v35, s36, v73
	v_dot2_f32_f16 v73, v36, s37, v73
	v_dot2_f32_f16 v73, v37, s38, v73
	v_dot2_f32_f16 v73, v38, s39, v73
	v_dot2_f32_f16 v73, v39, s40, v73
	v_dot2_f32_f16 v73, v40, s41, v73
	v_dot2_f32_f16 v73, v41, s42, v73
	v_dot2_f32_f16 v73, v42, s43, v73
	v_dot2_f32_f16 v73, v43, s44, v73
	v_dot2_f32_f16 v73, v44, s45, v73
	v_dot2_f32_f16 v73, v45, s46, v73
	v_dot2_f32_f16 v73, v46, s47, v73
	v_dot2_f32_f16 v73, v47, s48, v73
	v_dot2_f32_f16 v73, v48, s49, v73
	v_dot2_f32_f16 v73, v49, s50, v73
	v_dot2_f32_f16 v73, v50, s51, v73
	v_dot2_f32_f16 v73, v51, s12, v73
	v_dot2_f32_f16 v73, v52, s13, v73
	v_dot2_f32_f16 v73, v53, s14, v73
	v_dot2_f32_f16 v73, v54, s15, v73
	v_dot2_f32_f16 v73, v55, s16, v73
	v_dot2_f32_f16 v73, v56, s17, v73
	v_dot2_f32_f16 v73, v57, s18, v73
	v_dot2_f32_f16 v73, v58, s19, v73
	v_dot2_f32_f16 v73, v59, s20, v73
	v_dot2_f32_f16 v73, v60, s21, v73
	v_dot2_f32_f16 v73, v61, s22, v73
	v_dot2_f32_f16 v73, v62, s23, v73
	v_dot2_f32_f16 v73, v63, s24, v73
	v_dot2_f32_f16 v73, v64, s25, v73
	s_add_u32 s4, s4, 0x100
	v_dot2_f32_f16 v73, v65, s26, v73
	s_addc_u32 s73, s5, 0
	s_ashr_i32 s5, s4, 31
	v_dot2_f32_f16 v109, v66, s27, v73
	s_or_b64 s[4:5], s[72:73], s[4:5]
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[4:5], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[4:5], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[4:5], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[4:5], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	v_dot2_f32_f16 v73, v3, s80, 0
	v_dot2_f32_f16 v73, v4, s81, v73
	v_dot2_f32_f16 v73, v5, s82, v73
	v_dot2_f32_f16 v73, v6, s83, v73
	v_dot2_f32_f16 v73, v7, s84, v73
	v_dot2_f32_f16 v73, v8, s85, v73
	v_dot2_f32_f16 v73, v9, s86, v73
	v_dot2_f32_f16 v73, v10, s87, v73
	v_dot2_f32_f16 v73, v11, s88, v73
	v_dot2_f32_f16 v73, v12, s89, v73
	v_dot2_f32_f16 v73, v13, s90, v73
	v_dot2_f32_f16 v73, v14, s91, v73
	v_dot2_f32_f16 v73, v15, s92, v73
	v_dot2_f32_f16 v73, v16, s93, v73
	v_dot2_f32_f16 v73, v17, s94, v73
	v_dot2_f32_f16 v73, v18, s95, v73
	v_dot2_f32_f16 v73, v19, s52, v73
	v_dot2_f32_f16 v73, v20, s53, v73
	v_dot2_f32_f16 v73, v21, s54, v73
	v_dot2_f32_f16 v73, v22, s55, v73
	v_dot2_f32_f16 v73, v23, s56, v73
	v_dot2_f32_f16 v73, v24, s57, v73
	v_dot2_f32_f16 v73, v25, s58, v73
	v_dot2_f32_f16 v73, v26, s59, v73
	v_dot2_f32_f16 v73, v27, s60, v73
	v_dot2_f32_f16 v73, v28, s61, v73
	v_dot2_f32_f16 v73, v29, s62, v73
	v_dot2_f32_f16 v73, v30, s63, v73
	v_dot2_f32_f16 v73, v31, s64, v73
	v_dot2_f32_f16 v73, v32, s65, v73
	v_dot2_f32_f16 v73, v33, s66, v73
	v_dot2_f32_f16 v73, v34, s67, v73
	v_dot2_f32_f16 v73, v35, s36, v73
	v_dot2_f32_f16 v73, v36, s37, v73
	v_dot2_f32_f16 v73, v37, s38, v73
	v_dot2_f32_f16 v73, v38, s39, v73
	v_dot2_f32_f16 v73, v39, s40, v73
	v_dot2_f32_f16 v73, v40, s41, v73
	v_dot2_f32_f16 v73, v41, s42, v73
	v_dot2_f32_f16 v73, v42, s43, v73
	v_dot2_f32_f16 v73, v43, s44, v73
	v_dot2_f32_f16 v73, v44, s45, v73
	v_dot2_f32_f16 v73, v45, s46, v73
	v_dot2_f32_f16 v73, v46, s47, v73
	v_dot2_f32_f16 v73, v47, s48, v73
	v_dot2_f32_f16 v73, v48, s49, v73
	v_dot2_f32_f16 v73, v49, s50, v73
	v_dot2_f32_f16 v73, v50, s51, v73
	v_dot2_f32_f16 v73, v51, s12, v73
	v_dot2_f32_f16 v73, v52, s13, v73
	v_dot2_f32_f16 v73, v53, s14, v73
	v_dot2_f32_f16 v73, v54, s15, v73
	v_dot2_f32_f16 v73, v55, s16, v73
	v_dot2_f32_f16 v73, v56, s17, v73
	v_dot2_f32_f16 v73, v57, s18, v73
	v_dot2_f32_f16 v73, v58, s19, v73
	v_dot2_f32_f16 v73, v59, s20, v73
	v_dot2_f32_f16 v73, v60, s21, v73
	v_dot2_f32_f16 v73, v61, s22, v73
	v_dot2_f32_f16 v73, v62, s23, v73
	v_dot2_f32_f16 v73, v63, s24, v73
	v_dot2_f32_f16 v73, v64, s25, v73
	s_add_u32 s4, s4, 0x100
	v_dot2_f32_f16 v73, v65, s26, v73
	s_addc_u32 s73, s5, 0
	s_ashr_i32 s5, s4, 31
	v_dot2_f32_f16 v110, v66, s27, v73
	s_or_b64 s[4:5], s[72:73], s[4:5]
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[4:5], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[4:5], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[4:5], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[4:5], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	v_dot2_f32_f16 v73, v3, s80, 0
	v_dot2_f32_f16 v73, v4, s81, v73
	v_dot2_f32_f16 v73, v5, s82, v73
	v_dot2_f32_f16 v73, v6, s83, v73
	v_dot2_f32_f16 v73, v7, s84, v73
	v_dot2_f32_f16 v73, v8, s85, v73
	v_dot2_f32_f16 v73, v9, s86, v73
	v_dot2_f32_f16 v73, v10, s87, v73
	v_dot2_f32_f16 v73, v11, s88, v73
	v_dot2_f32_f16 v73, v12, s89, v73
	v_dot2_f32_f16 v73, v13, s90, v73
	v_dot2_f32_f16 v73, v14, s91, v73
	v_dot2_f32_f16 v73, v15, s92, v73
	v_dot2_f32_f16 v73, v16, s93, v73
	v_dot2_f32_f16 v73, v17, s94, v73
	v_dot2_f32_f16 v73, v18, s95, v73
	v_dot2_f32_f16 v73, v19, s52, v73
	v_dot2_f32_f16 v73, v20, s53, v73
	v_dot2_f32_f16 v73, v21, s54, v73
	v_dot2_f32_f16 v73, v22, s55, v73
	v_dot2_f32_f16 v73, v23, s56, v73
	v_dot2_f32_f16 v73, v24, s57, v73
	v_dot2_f32_f16 v73, v25, s58, v73
	v_dot2_f32_f16 v73, v26, s59, v73
	v_dot2_f32_f16 v73, v27, s60, v73
	v_dot2_f32_f16 v73, v28, s61, v73
	v_dot2_f32_f16 v73, v29, s62, v73
	v_dot2_f32_f16 v73, v30, s63, v73
	v_dot2_f32_f16 v73, v31, s64, v73
	v_dot2_f32_f16 v73, v32, s65, v73
	v_dot2_f32_f16 v73, v33, s66, v73
	v_dot2_f32_f16 v73, v34, s67, v73
	v_dot2_f32_f16 v73, v35, s36, v73
	v_dot2_f32_f16 v73, v36, s37, v73
	v_dot2_f32_f16 v73, v37, s38, v73
	v_dot2_f32_f16 v73, v38, s39, v73
	v_dot2_f32_f16 v73, v39, s40, v73
	v_dot2_f32_f16 v73, v40, s41, v73
	v_dot2_f32_f16 v73, v41, s42, v73
	v_dot2_f32_f16 v73, v42, s43, v73
	v_dot2_f32_f16 v73, v43, s44, v73
	v_dot2_f32_f16 v73, v44, s45, v73
	v_dot2_f32_f16 v73, v45, s46, v73
	v_dot2_f32_f16 v73, v46, s47, v73
	v_dot2_f32_f16 v73, v47, s48, v73
	v_dot2_f32_f16 v73, v48, s49, v73
	v_dot2_f32_f16 v73, v49, s50, v73
	v_dot2_f32_f16 v73, v50, s51, v73
	v_dot2_f32_f16 v73, v51, s12, v73
	v_dot2_f32_f16 v73, v52, s13, v73
	v_dot2_f32_f16 v73, v53, s14, v73
	v_dot2_f32_f16 v73, v54, s15, v73
	v_dot2_f32_f16 v73, v55, s16, v73
	v_dot2_f32_f16 v73, v56, s17, v73
	v_dot2_f32_f16 v73, v57, s18, v73
	v_dot2_f32_f16 v73, v58, s19, v73
	v_dot2_f32_f16 v73, v59, s20, v73
	v_dot2_f32_f16 v73, v60, s21, v73
	v_dot2_f32_f16 v73, v61, s22, v73
	v_dot2_f32_f16 v73, v62, s23, v73
	v_dot2_f32_f16 v73, v63, s24, v73
	v_dot2_f32_f16 v73, v64, s25, v73
	s_add_u32 s4, s4, 0x100
	v_dot2_f32_f16 v73, v65, s26, v73
	s_addc_u32 s73, s5, 0
	s_ashr_i32 s5, s4, 31
	v_dot2_f32_f16 v111, v66, s27, v73
	s_or_b64 s[4:5], s[72:73], s[4:5]
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[4:5], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[4:5], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[4:5], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[4:5], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	v_dot2_f32_f16 v73, v3, s80, 0
	v_dot2_f32_f16 v73, v4, s81, v73
	v_dot2_f32_f16 v73, v5, s82, v73
	v_dot2_f32_f16 v73, v6, s83, v73
	v_dot2_f32_f16 v73, v7, s84, v73
	v_dot2_f32_f16 v73, v8, s85, v73
	v_dot2_f32_f16 v73, v9, s86, v73
	v_dot2_f32_f16 v73, v10, s87, v73
	v_dot2_f32_f16 v73, v11, s88, v73
	v_dot2_f32_f16 v73, v12, s89, v73
	v_dot2_f32_f16 v73, v13, s90, v73
	v_dot2_f32_f16 v73, v14, s91, v73
	v_dot2_f32_f16 v73, v15, s92, v73
	v_dot2_f32_f16 v73, v16, s93, v73
	v_dot2_f32_f16 v73, v17, s94, v73
	v_dot2_f32_f16 v73, v18, s95, v73
	v_dot2_f32_f16 v73, v19, s52, v73
	v_dot2_f32_f16 v73, v20, s53, v73
	v_dot2_f32_f16 v73, v21, s54, v73
	v_dot2_f32_f16 v73, v22, s55, v73
	v_dot2_f32_f16 v73, v23, s56, v73
	v_dot2_f32_f16 v73, v24, s57, v73
	v_dot2_f32_f16 v73, v25, s58, v73
	v_dot2_f32_f16 v73, v26, s59, v73
	v_dot2_f32_f16 v73, v27, s60, v73
	v_dot2_f32_f16 v73, v28, s61, v73
	v_dot2_f32_f16 v73, v29, s62, v73
	v_dot2_f32_f16 v73, v30, s63, v73
	v_dot2_f32_f16 v73, v31, s64, v73
	v_dot2_f32_f16 v73, v32, s65, v73
	v_dot2_f32_f16 v73, v33, s66, v73
	v_dot2_f32_f16 v73, v34, s67, v73
	v_dot2_f32_f16 v73, v35, s36, v73
	v_dot2_f32_f16 v73, v36, s37, v73
	v_dot2_f32_f16 v73, v37, s38, v73
	v_dot2_f32_f16 v73, v38, s39, v73
	v_dot2_f32_f16 v73, v39, s40, v73
	v_dot2_f32_f16 v73, v40, s41, v73
	v_dot2_f32_f16 v73, v41, s42, v73
	v_dot2_f32_f16 v73, v42, s43, v73
	v_dot2_f32_f16 v73, v43, s44, v73
	v_dot2_f32_f16 v73, v44, s45, v73
	v_dot2_f32_f16 v73, v45, s46, v73
	v_dot2_f32_f16 v73, v46, s47, v73
	v_dot2_f32_f16 v73, v47, s48, v73
	v_dot2_f32_f16 v73, v48, s49, v73
	v_dot2_f32_f16 v73, v49, s50, v73
	v_dot2_f32_f16 v73, v50, s51, v73
	v_dot2_f32_f16 v73, v51, s12, v73
	v_dot2_f32_f16 v73, v52, s13, v73
	v_dot2_f32_f16 v73, v53, s14, v73
	v_dot2_f32_f16 v73, v54, s15, v73
	v_dot2_f32_f16 v73, v55, s16, v73
	v_dot2_f32_f16 v73, v56, s17, v73
	v_dot2_f32_f16 v73, v57, s18, v73
	v_dot2_f32_f16 v73, v58, s19, v73
	v_dot2_f32_f16 v73, v59, s20, v73
	v_dot2_f32_f16 v73, v60, s21, v73
	v_dot2_f32_f16 v73, v61, s22, v73
	v_dot2_f32_f16 v73, v62, s23, v73
	v_dot2_f32_f16 v73, v63, s24, v73
	v_dot2_f32_f16 v73, v64, s25, v73
	s_add_u32 s4, s4, 0x100
	v_dot2_f32_f16 v73, v65, s26, v73
	s_addc_u32 s73, s5, 0
	s_ashr_i32 s5, s4, 31
	v_dot2_f32_f16 v112, v66, s27, v73
	s_or_b64 s[4:5], s[72:73], s[4:5]
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[4:5], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[4:5], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[4:5], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[4:5], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	v_dot2_f32_f16 v73, v3, s80, 0
	v_dot2_f32_f16 v73, v4, s81, v73
	v_dot2_f32_f16 v73, v5, s82, v73
	v_dot2_f32_f16 v73, v6, s83, v73
	v_dot2_f32_f16 v73, v7, s84, v73
	v_dot2_f32_f16 v73, v8, s85, v73
	v_dot2_f32_f16 v73, v9, s86, v73
	v_dot2_f32_f16 v73, v10, s87, v73
	v_dot2_f32_f16 v73, v11, s88, v73
	v_dot2_f32_f16 v73, v12, s89, v73
	v_dot2_f32_f16 v73, v13, s90, v73
	v_dot2_f32_f16 v73, v14, s91, v73
	v_dot2_f32_f16 v73, v15, s92, v73
	v_dot2_f32_f16 v73, v16, s93, v73
	v_dot2_f32_f16 v73, v17, s94, v73
	v_dot2_f32_f16 v73, v18, s95, v73
	v_dot2_f32_f16 v73, v19, s52, v73
	v_dot2_f32_f16 v73, v20, s53, v73
	v_dot2_f32_f16 v73, v21, s54, v73
	v_dot2_f32_f16 v73, v22, s55, v73
	v_dot2_f32_f16 v73, v23, s56, v73
	v_dot2_f32_f16 v73, v24, s57, v73
	v_dot2_f32_f16 v73, v25, s58, v73
	v_dot2_f32_f16 v73, v26, s59, v73
	v_dot2_f32_f16 v73, v27, s60, v73
	v_dot2_f32_f16 v73, v28, s61, v73
	v_dot2_f32_f16 v73, v29, s62, v73
	v_dot2_f32_f16 v73, v30, s63, v73
	v_dot2_f32_f16 v73, v31, s64, v73
	v_dot2_f32_f16 v73, v32, s65, v73
	v_dot2_f32_f16 v73, v33, s66, v73
	v_dot2_f32_f16 v73, v34, s67, v73
	v_dot2_f32_f16 v73, v35, s36, v73
	v_dot2_f32_f16 v73, v36, s37, v73
	v_dot2_f32_f16 v73, v37, s38, v73
	v_dot2_f32_f16 v73, v38, s39, v73
	v_dot2_f32_f16 v73, v39, s40, v73
	v_dot2_f32_f16 v73, v40, s41, v73
	v_dot2_f32_f16 v73, v41, s42, v73
	v_dot2_f32_f16 v73, v42, s43, v73
	v_dot2_f32_f16 v73, v43, s44, v73
	v_dot2_f32_f16 v73, v44, s45, v73
	v_dot2_f32_f16 v73, v45, s46, v73
	v_dot2_f32_f16 v73, v46, s47, v73
	v_dot2_f32_f16 v73, v47, s48, v73
	v_dot2_f32_f16 v73, v48, s49, v73
	v_dot2_f32_f16 v73, v49, s50, v73
	v_dot2_f32_f16 v73, v50, s51, v73
	v_dot2_f32_f16 v73, v51, s12, v73
	v_dot2_f32_f16 v73, v52, s13, v73
	v_dot2_f32_f16 v73, v53, s14, v73
	v_dot2_f32_f16 v73, v54, s15, v73
	v_dot2_f32_f16 v73, v55, s16, v73
	v_dot2_f32_f16 v73, v56, s17, v73
	v_dot2_f32_f16 v73, v57, s18, v73
	v_dot2_f32_f16 v73, v58, s19, v73
	v_dot2_f32_f16 v73, v59, s20, v73
	v_dot2_f32_f16 v73, v60, s21, v73
	v_dot2_f32_f16 v73, v61, s22, v73
	v_dot2_f32_f16 v73, v62, s23, v73
	v_dot2_f32_f16 v73, v63, s24, v73
	v_dot2_f32_f16 v73, v64, s25, v73
	s_add_u32 s4, s4, 0x100
	v_dot2_f32_f16 v73, v65, s26, v73
	s_addc_u32 s73, s5, 0
	s_ashr_i32 s5, s4, 31
	v_dot2_f32_f16 v113, v66, s27, v73
	s_or_b64 s[4:5], s[72:73], s[4:5]
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[4:5], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[4:5], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[4:5], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[4:5], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	v_dot2_f32_f16 v73, v3, s80, 0
	v_dot2_f32_f16 v73, v4, s81, v73
	v_dot2_f32_f16 v73, v5, s82, v73
	v_dot2_f32_f16 v73, v6, s83, v73
	v_dot2_f32_f16 v73, v7, s84, v73
	v_dot2_f32_f16 v73, v8, s85, v73
	v_dot2_f32_f16 v73, v9, s86, v73
	v_dot2_f32_f16 v73, v10, s87, v73
	v_dot2_f32_f16 v73, v11, s88, v73
	v_dot2_f32_f16 v73, v12, s89, v73
	v_dot2_f32_f16 v73, v13, s90, v73
	v_dot2_f32_f16 v73, v14, s91, v73
	v_dot2_f32_f16 v73, v15, s92, v73
	v_dot2_f32_f16 v73, v16, s93, v73
	v_dot2_f32_f16 v73, v17, s94, v73
	v_dot2_f32_f16 v73, v18, s95, v73
	v_dot2_f32_f16 v73, v19, s52, v73
	v_dot2_f32_f16 v73, v20, s53, v73
	v_dot2_f32_f16 v73, v21, s54, v73
	v_dot2_f32_f16 v73, v22, s55, v73
	v_dot2_f32_f16 v73, v23, s56, v73
	v_dot2_f32_f16 v73, v24, s57, v73
	v_dot2_f32_f16 v73, v25, s58, v73
	v_dot2_f32_f16 v73, v26, s59, v73
	v_dot2_f32_f16 v73, v27, s60, v73
	v_dot2_f32_f16 v73, v28, s61, v73
	v_dot2_f32_f16 v73, v29, s62, v73
	v_dot2_f32_f16 v73, v30, s63, v73
	v_dot2_f32_f16 v73, v31, s64, v73
	v_dot2_f32_f16 v73, v32, s65, v73
	v_dot2_f32_f16 v73, v33, s66, v73
	v_dot2_f32_f16 v73, v34, s67, v73
	v_dot2_f32_f16 v73, v35, s36, v73
	v_dot2_f32_f16 v73, v36, s37, v73
	v_dot2_f32_f16 v73, v37, s38, v73
	v_dot2_f32_f16 v73, v38, s39, v73
	v_dot2_f32_f16 v73, v39, s40, v73
	v_dot2_f32_f16 v73, v40, s41, v73
	v_dot2_f32_f16 v73, v41, s42, v73
	v_dot2_f32_f16 v73, v42, s43, v73
	v_dot2_f32_f16 v73, v43, s44, v73
	v_dot2_f32_f16 v73, v44, s45, v73
	v_dot2_f32_f16 v73, v45, s46, v73
	v_dot2_f32_f16 v73, v46, s47, v73
	v_dot2_f32_f16 v73, v47, s48, v73
	v_dot2_f32_f16 v73, v48, s49, v73
	v_dot2_f32_f16 v73, v49, s50, v73
	v_dot2_f32_f16 v73, v50, s51, v73
	v_dot2_f32_f16 v73, v51, s12, v73
	v_dot2_f32_f16 v73, v52, s13, v73
	v_dot2_f32_f16 v73, v53, s14, v73
	v_dot2_f32_f16 v73, v54, s15, v73
	v_dot2_f32_f16 v73, v55, s16, v73
	v_dot2_f32_f16 v73, v56, s17, v73
	v_dot2_f32_f16 v73, v57, s18, v73
	v_dot2_f32_f16 v73, v58, s19, v73
	v_dot2_f32_f16 v73, v59, s20, v73
	v_dot2_f32_f16 v73, v60, s21, v73
	v_dot2_f32_f16 v73, v61, s22, v73
	v_dot2_f32_f16 v73, v62, s23, v73
	v_dot2_f32_f16 v73, v63, s24, v73
	v_dot2_f32_f16 v73, v64, s25, v73
	s_add_u32 s4, s4, 0x100
	v_dot2_f32_f16 v73, v65, s26, v73
	s_addc_u32 s73, s5, 0
	s_ashr_i32 s5, s4, 31
	v_dot2_f32_f16 v114, v66, s27, v73
	s_or_b64 s[4:5], s[72:73], s[4:5]
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[4:5], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[4:5], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[4:5], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[4:5], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	v_dot2_f32_f16 v73, v3, s80, 0
	v_dot2_f32_f16 v73, v4, s81, v73
	v_dot2_f32_f16 v73, v5, s82, v73
	v_dot2_f32_f16 v73, v6, s83, v73
	v_dot2_f32_f16 v73, v7, s84, v73
	v_dot2_f32_f16 v73, v8, s85, v73
	v_dot2_f32_f16 v73, v9, s86, v73
	v_dot2_f32_f16 v73, v10, s87, v73
	v_dot2_f32_f16 v73, v11, s88, v73
	buffer_load_dword v0, off, s[96:99], 0 offset:412 ; 4-byte Folded Reload
	v_dot2_f32_f16 v73, v12, s89, v73
	v_dot2_f32_f16 v73, v13, s90, v73
	v_dot2_f32_f16 v73, v14, s91, v73
	v_dot2_f32_f16 v73, v15, s92, v73
	v_dot2_f32_f16 v73, v16, s93, v73
	v_dot2_f32_f16 v73, v17, s94, v73
	v_dot2_f32_f16 v73, v18, s95, v73
	v_dot2_f32_f16 v73, v19, s52, v73
	v_dot2_f32_f16 v73, v20, s53, v73
	v_dot2_f32_f16 v73, v21, s54, v73
	v_dot2_f32_f16 v73, v22, s55, v73
	v_dot2_f32_f16 v73, v23, s56, v73
	v_dot2_f32_f16 v73, v24, s57, v73
	v_dot2_f32_f16 v73, v25, s58, v73
	v_dot2_f32_f16 v73, v26, s59, v73
	v_dot2_f32_f16 v73, v27, s60, v73
	v_dot2_f32_f16 v73, v28, s61, v73
	v_dot2_f32_f16 v73, v29, s62, v73
	v_dot2_f32_f16 v73, v30, s63, v73
	v_dot2_f32_f16 v73, v31, s64, v73
	v_dot2_f32_f16 v73, v32, s65, v73
	v_dot2_f32_f16 v73, v33, s66, v73
	v_dot2_f32_f16 v73, v34, s67, v73
	v_dot2_f32_f16 v73, v35, s36, v73
	v_dot2_f32_f16 v73, v36, s37, v73
	v_dot2_f32_f16 v73, v37, s38, v73
	v_dot2_f32_f16 v73, v38, s39, v73
	v_dot2_f32_f16 v73, v39, s40, v73
	v_dot2_f32_f16 v73, v40, s41, v73
	v_dot2_f32_f16 v73, v41, s42, v73
	v_dot2_f32_f16 v73, v42, s43, v73
	v_dot2_f32_f16 v73, v43, s44, v73
	v_dot2_f32_f16 v73, v44, s45, v73
	v_dot2_f32_f16 v73, v45, s46, v73
	v_dot2_f32_f16 v73, v46, s47, v73
	v_dot2_f32_f16 v73, v47, s48, v73
	v_dot2_f32_f16 v73, v48, s49, v73
	v_dot2_f32_f16 v73, v49, s50, v73
	v_dot2_f32_f16 v73, v50, s51, v73
	v_dot2_f32_f16 v73, v51, s12, v73
	v_dot2_f32_f16 v73, v52, s13, v73
	v_dot2_f32_f16 v73, v53, s14, v73
	v_dot2_f32_f16 v73, v54, s15, v73
	v_dot2_f32_f16 v73, v55, s16, v73
	v_dot2_f32_f16 v73, v56, s17, v73
	v_dot2_f32_f16 v73, v57, s18, v73
	v_dot2_f32_f16 v73, v58, s19, v73
	v_dot2_f32_f16 v73, v59, s20, v73
	v_dot2_f32_f16 v73, v60, s21, v73
	v_dot2_f32_f16 v73, v61, s22, v73
	v_dot2_f32_f16 v73, v62, s23, v73
	v_dot2_f32_f16 v73, v63, s24, v73
	v_dot2_f32_f16 v73, v64, s25, v73
	v_dot2_f32_f16 v73, v65, s26, v73
	v_dot2_f32_f16 v115, v66, s27, v73
	v_mov_b32_e32 v73, s74
	v_mov_b32_e32 v74, s75
	v_cmp_ge_i64_e64 s[4:5], s[76:77], v[73:74]
	s_or_b32 s3, s2, 1
	s_or_b64 s[4:5], s[4:5], s[6:7]
	s_or_b64 s[40:41], s[4:5], vcc
	v_cmp_lt_i32_e32 vcc, s2, v98
	v_cmp_gt_i32_e64 s[4:5], s2, v247
	s_or_b64 s[4:5], vcc, s[4:5]
	v_cmp_lt_i32_e32 vcc, s3, v98
	v_cmp_gt_i32_e64 s[6:7], s3, v247
	s_or_b32 s3, s2, 2
	s_or_b64 s[6:7], vcc, s[6:7]
	v_cmp_lt_i32_e32 vcc, s3, v98
	v_cmp_gt_i32_e64 s[10:11], s3, v247
	s_or_b32 s3, s2, 3
	s_or_b64 s[10:11], vcc, s[10:11]
	v_cmp_lt_i32_e32 vcc, s3, v98
	v_cmp_gt_i32_e64 s[12:13], s3, v247
	s_or_b32 s3, s2, 4
	s_or_b64 s[12:13], vcc, s[12:13]
	v_cmp_lt_i32_e32 vcc, s3, v98
	v_cmp_gt_i32_e64 s[14:15], s3, v247
	s_or_b32 s3, s2, 5
	s_or_b64 s[14:15], vcc, s[14:15]
	v_cmp_lt_i32_e32 vcc, s3, v98
	v_cmp_gt_i32_e64 s[16:17], s3, v247
	s_or_b32 s3, s2, 6
	s_or_b64 s[16:17], vcc, s[16:17]
	v_cmp_lt_i32_e32 vcc, s3, v98
	v_cmp_gt_i32_e64 s[18:19], s3, v247
	s_or_b32 s3, s2, 7
	s_or_b64 s[18:19], vcc, s[18:19]
	v_cmp_lt_i32_e32 vcc, s3, v98
	v_cmp_gt_i32_e64 s[20:21], s3, v247
	s_or_b32 s3, s2, 8
	s_or_b64 s[20:21], vcc, s[20:21]
	v_cmp_lt_i32_e32 vcc, s3, v98
	v_cmp_gt_i32_e64 s[22:23], s3, v247
	s_or_b32 s3, s2, 9
	s_or_b64 s[22:23], vcc, s[22:23]
	v_cmp_lt_i32_e32 vcc, s3, v98
	v_cmp_gt_i32_e64 s[24:25], s3, v247
	s_or_b32 s3, s2, 10
	s_or_b64 s[24:25], vcc, s[24:25]
	v_cmp_lt_i32_e32 vcc, s3, v98
	v_cmp_gt_i32_e64 s[26:27], s3, v247
	s_or_b32 s3, s2, 11
	s_or_b64 s[26:27], vcc, s[26:27]
	v_cmp_lt_i32_e32 vcc, s3, v98
	v_cmp_gt_i32_e64 s[28:29], s3, v247
	s_or_b32 s3, s2, 12
	s_or_b64 s[28:29], vcc, s[28:29]
	v_cmp_lt_i32_e32 vcc, s3, v98
	v_cmp_gt_i32_e64 s[30:31], s3, v247
	s_or_b32 s3, s2, 13
	s_or_b64 s[30:31], vcc, s[30:31]
	v_cmp_lt_i32_e32 vcc, s3, v98
	v_cmp_gt_i32_e64 s[34:35], s3, v247
	s_or_b32 s2, s2, 14
	s_or_b64 s[34:35], vcc, s[34:35]
	v_cmp_lt_i32_e32 vcc, s2, v98
	v_cmp_gt_i32_e64 s[36:37], s2, v247
	s_or_b64 s[2:3], vcc, s[36:37]
	v_cmp_lt_i32_e32 vcc, s76, v98
	v_cmp_gt_i32_e64 s[38:39], s76, v247
	s_and_b64 s[36:37], s[40:41], s[2:3]
	s_or_b64 s[2:3], vcc, s[38:39]
	s_and_b64 s[38:39], s[40:41], s[2:3]
	s_lshl_b32 s2, s101, 3
	s_ashr_i32 s3, s2, 31
	s_lshl_b64 s[2:3], s[2:3], 9
	s_waitcnt vmcnt(0)
	v_add_co_u32_e32 v73, vcc, s2, v0
	buffer_load_dword v0, off, s[96:99], 0 offset:416 ; 4-byte Folded Reload
	v_mov_b32_e32 v74, s3
	v_cndmask_b32_e64 v116, 0, 1, s[40:41]
	s_and_b64 s[4:5], s[40:41], s[4:5]
	s_and_b64 s[6:7], s[40:41], s[6:7]
	s_and_b64 s[10:11], s[40:41], s[10:11]
	s_and_b64 s[12:13], s[40:41], s[12:13]
	v_cndmask_b32_e64 v101, v101, v246, s[6:7]
	s_and_b64 s[14:15], s[40:41], s[14:15]
	s_and_b64 s[16:17], s[40:41], s[16:17]
	v_cndmask_b32_e64 v102, v102, v246, s[10:11]
	v_cndmask_b32_e64 v103, v103, v246, s[12:13]
	s_and_b64 s[18:19], s[40:41], s[18:19]
	s_and_b64 s[20:21], s[40:41], s[20:21]
	v_cndmask_b32_e64 v104, v104, v246, s[14:15]
	v_cndmask_b32_e64 v105, v105, v246, s[16:17]
	s_and_b64 s[22:23], s[40:41], s[22:23]
	s_and_b64 s[24:25], s[40:41], s[24:25]
	v_cndmask_b32_e64 v106, v106, v246, s[18:19]
	v_cndmask_b32_e64 v107, v107, v246, s[20:21]
	s_and_b64 s[26:27], s[40:41], s[26:27]
	s_and_b64 s[28:29], s[40:41], s[28:29]
	v_cndmask_b32_e64 v108, v108, v246, s[22:23]
	v_cndmask_b32_e64 v109, v109, v246, s[24:25]
	s_and_b64 s[30:31], s[40:41], s[30:31]
	s_and_b64 s[34:35], s[40:41], s[34:35]
	v_cndmask_b32_e64 v110, v110, v246, s[26:27]
	v_cndmask_b32_e64 v111, v111, v246, s[28:29]
	v_cndmask_b32_e64 v112, v112, v246, s[30:31]
	v_cndmask_b32_e64 v113, v113, v246, s[34:35]
	v_cndmask_b32_e64 v114, v114, v246, s[36:37]
	v_cndmask_b32_e64 v115, v115, v246, s[38:39]
	s_waitcnt vmcnt(0)
	v_addc_co_u32_e32 v74, vcc, v0, v74, vcc
	v_cmp_ne_u32_e32 vcc, 1, v116
	v_cndmask_b32_e64 v116, v69, v246, s[4:5]
	v_max3_f32 v69, v116, s79, v101
	v_max3_f32 v69, v69, v102, v103
	v_max3_f32 v69, v69, v104, v105
	v_max3_f32 v69, v69, v106, v107
	v_max3_f32 v69, v69, v108, v109
	v_max3_f32 v69, v69, v110, v111
	v_max3_f32 v69, v69, v112, v113
	v_max3_f32 v69, v69, v114, v115
	v_mul_f32_e32 v69, v245, v69
	v_max_f32_e32 v117, v117, v69
	v_mov_b32_e32 v69, v117
	buffer_store_dword v69, off, s[96:99], 0 offset:48 ; 4-byte Folded Spill
	s_waitcnt vmcnt(0)
	buffer_store_dword v70, off, s[96:99], 0 offset:52 ; 4-byte Folded Spill
	v_cmp_neq_f32_e64 s[4:5], s79, v117
	v_cndmask_b32_e64 v242, 0, v117, s[4:5]
	v_fma_f32 v101, v101, v245, -v242
	v_exp_f32_e32 v69, v101
	v_fma_f32 v101, v102, v245, -v242
	v_exp_f32_e32 v249, v101
	v_fma_f32 v101, v103, v245, -v242
	v_exp_f32_e32 v250, v101
	v_fma_f32 v101, v104, v245, -v242
	v_exp_f32_e32 v251, v101
	v_fma_f32 v101, v105, v245, -v242
	v_exp_f32_e32 v0, v101
	v_fma_f32 v101, v106, v245, -v242
	v_exp_f32_e32 v252, v101
	v_fma_f32 v101, v107, v245, -v242
	buffer_store_dword v0, off, s[96:99], 0 offset:4 ; 4-byte Folded Spill
	v_exp_f32_e32 v0, v101
	v_fma_f32 v101, v108, v245, -v242
	v_exp_f32_e32 v101, v101
	v_sub_f32_e32 v100, v100, v242
	v_fma_f32 v116, v116, v245, -v242
	v_exp_f32_e32 v254, v100
	buffer_store_dword v101, off, s[96:99], 0 offset:12 ; 4-byte Folded Spill
	v_fma_f32 v101, v109, v245, -v242
	v_exp_f32_e32 v101, v101
	v_exp_f32_e32 v248, v116
	v_mul_f32_e32 v105, v200, v254
	v_mul_f32_e32 v104, v201, v254
	buffer_store_dword v101, off, s[96:99], 0 offset:16 ; 4-byte Folded Spill
	v_fma_f32 v101, v110, v245, -v242
	v_exp_f32_e32 v101, v101
	v_mul_f32_e32 v103, v213, v254
	v_mul_f32_e32 v102, v148, v254
	v_mul_f32_e32 v106, v130, v254
	buffer_store_dword v101, off, s[96:99], 0 offset:20 ; 4-byte Folded Spill
	v_fma_f32 v101, v111, v245, -v242
	v_exp_f32_e32 v101, v101
	v_mul_f32_e32 v107, v138, v254
	v_mul_f32_e32 v108, v84, v254
	v_mul_f32_e32 v109, v175, v254
	buffer_store_dword v101, off, s[96:99], 0 offset:24 ; 4-byte Folded Spill
	v_fma_f32 v101, v112, v245, -v242
	v_exp_f32_e32 v253, v101
	v_fma_f32 v101, v113, v245, -v242
	v_exp_f32_e32 v101, v101
	v_mul_f32_e32 v110, v125, v254
	v_mul_f32_e32 v111, v182, v254
	v_mul_f32_e32 v112, v127, v254
	buffer_store_dword v101, off, s[96:99], 0 offset:32 ; 4-byte Folded Spill
	v_fma_f32 v101, v114, v245, -v242
	v_exp_f32_e32 v244, v101
	v_fma_f32 v101, v115, v245, -v242
	v_exp_f32_e32 v243, v101
	v_mul_f32_e32 v101, v137, v254
	v_mul_f32_e32 v113, v128, v254
	v_mul_f32_e32 v114, v183, v254
	v_mul_f32_e32 v115, v129, v254
	v_mul_f32_e32 v116, v93, v254
	v_mul_f32_e32 v117, v119, v254
	v_mul_f32_e32 v118, v118, v254
	v_mul_f32_e32 v119, v120, v254
	v_mul_f32_e32 v120, v89, v254
	v_mul_f32_e32 v121, v121, v254
	v_mul_f32_e32 v122, v122, v254
	v_mul_f32_e32 v123, v123, v254
	v_mul_f32_e32 v124, v124, v254
	v_mul_f32_e32 v125, v126, v254
	v_mul_f32_e32 v126, v199, v254
	v_mul_f32_e32 v127, v153, v254
	v_mul_f32_e32 v128, v154, v254
	v_mul_f32_e32 v129, v149, v254
	v_mul_f32_e32 v130, v151, v254
	v_mul_f32_e32 v137, v139, v254
	v_mul_f32_e32 v138, v147, v254
	v_mul_f32_e32 v139, v184, v254
	v_mul_f32_e32 v147, v185, v254
	v_mul_f32_e32 v148, v178, v254
	v_mul_f32_e32 v149, v179, v254
	v_mul_f32_e32 v150, v150, v254
	v_mul_f32_e32 v151, v131, v254
	v_mul_f32_e32 v152, v152, v254
	v_mul_f32_e32 v153, v133, v254
	v_mul_f32_e32 v154, v88, v254
	v_mul_f32_e32 v155, v155, v254
	v_mul_f32_e32 v156, v156, v254
	v_mul_f32_e32 v157, v157, v254
	v_mul_f32_e32 v158, v161, v254
	v_mul_f32_e32 v159, v159, v254
	v_mul_f32_e32 v160, v160, v254
	v_mul_f32_e32 v161, v162, v254
	v_mul_f32_e32 v162, v163, v254
	v_mul_f32_e32 v163, v165, v254
	v_mul_f32_e32 v164, v164, v254
	v_mul_f32_e32 v165, v142, v254
	v_mul_f32_e32 v166, v166, v254
	v_mul_f32_e32 v167, v167, v254
	v_mul_f32_e32 v168, v168, v254
	v_mul_f32_e32 v169, v169, v254
	v_mul_f32_e32 v170, v170, v254
	v_mul_f32_e32 v171, v171, v254
	v_mul_f32_e32 v172, v172, v254
	v_mul_f32_e32 v173, v173, v254
	v_mul_f32_e32 v174, v174, v254
	v_mul_f32_e32 v175, v176, v254
	v_mul_f32_e32 v176, v181, v254
	v_mul_f32_e32 v177, v177, v254
	v_mul_f32_e32 v178, v132, v254
	v_mul_f32_e32 v179, v70, v254
	v_mul_f32_e32 v180, v180, v254
	v_mul_f32_e32 v181, v76, v254
	v_mul_f32_e32 v182, v77, v254
	v_mul_f32_e32 v183, v193, v254
	v_mul_f32_e32 v184, v191, v254
	v_mul_f32_e32 v185, v195, v254
	v_mul_f32_e32 v186, v186, v254
	v_mul_f32_e32 v187, v187, v254
	v_mul_f32_e32 v188, v188, v254
	v_mul_f32_e32 v189, v189, v254
	v_mul_f32_e32 v190, v190, v254
	v_mul_f32_e32 v191, v194, v254
	v_mul_f32_e32 v192, v192, v254
	v_mul_f32_e32 v193, v86, v254
	v_mul_f32_e32 v194, v196, v254
	v_mul_f32_e32 v195, v197, v254
	v_mul_f32_e32 v196, v198, v254
	v_mul_f32_e32 v197, v136, v254
	v_mul_f32_e32 v198, v134, v254
	v_mul_f32_e32 v199, v141, v254
	v_mul_f32_e32 v200, v95, v254
	v_mul_f32_e32 v201, v143, v254
	v_mul_f32_e32 v202, v202, v254
	v_mul_f32_e32 v203, v203, v254
	v_mul_f32_e32 v204, v204, v254
	v_mul_f32_e32 v205, v205, v254
	v_mul_f32_e32 v206, v206, v254
	v_mul_f32_e32 v207, v207, v254
	v_mul_f32_e32 v208, v208, v254
	v_mul_f32_e32 v209, v209, v254
	v_mul_f32_e32 v210, v210, v254
	v_mul_f32_e32 v211, v211, v254
	v_mul_f32_e32 v212, v212, v254
	v_mul_f32_e32 v213, v79, v254
	v_mul_f32_e32 v214, v82, v254
	v_mul_f32_e32 v215, v215, v254
	v_mul_f32_e32 v216, v91, v254
	v_mul_f32_e32 v217, v217, v254
	v_mul_f32_e32 v218, v218, v254
	v_mul_f32_e32 v219, v90, v254
	v_mul_f32_e32 v220, v144, v254
	v_mul_f32_e32 v221, v145, v254
	v_mul_f32_e32 v222, v83, v254
	v_mul_f32_e32 v223, v223, v254
	v_mul_f32_e32 v224, v135, v254
	v_mul_f32_e32 v225, v92, v254
	v_mul_f32_e32 v226, v85, v254
	v_mul_f32_e32 v227, v67, v254
	v_mul_f32_e32 v228, v68, v254
	v_mul_f32_e32 v229, v81, v254
	v_mul_f32_e32 v230, v80, v254
	v_mul_f32_e32 v231, v87, v254
	v_mul_f32_e32 v232, v75, v254
	v_mul_f32_e32 v233, v78, v254
	v_mul_f32_e32 v234, v140, v254
	v_mul_f32_e32 v235, v235, v254
	v_mul_f32_e32 v236, v94, v254
	v_mul_f32_e32 v237, v96, v254
	v_mul_f32_e32 v238, v97, v254
	v_mul_f32_e32 v239, v239, v254
	v_mul_f32_e32 v241, v99, v254
	v_mul_f32_e32 v240, v146, v254
	s_and_b64 vcc, exec, vcc
	buffer_store_dword v252, off, s[96:99], 0 offset:44 ; 4-byte Folded Spill
	buffer_store_dword v0, off, s[96:99], 0 offset:8 ; 4-byte Folded Spill
	buffer_store_dword v253, off, s[96:99], 0 offset:28 ; 4-byte Folded Spill
	buffer_store_dword v244, off, s[96:99], 0 offset:36 ; 4-byte Folded Spill
	buffer_store_dword v243, off, s[96:99], 0 offset:40 ; 4-byte Folded Spill
	buffer_store_dword v242, off, s[96:99], 0 offset:400 ; 4-byte Folded Spill
	s_cbranch_vccz .LBB1_17
; %bb.16:                               ;   in Loop: Header=BB1_15 Depth=2
	buffer_store_dword v248, off, s[96:99], 0 offset:404 ; 4-byte Folded Spill
	buffer_load_dword v0, off, s[96:99], 0 offset:404 ; 4-byte Folded Reload
	v_cvt_f16_f32_e32 v67, v69
	;;#ASMSTART
	s_load_dwordx16 s[80:95], v[73:74], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], v[73:74], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], v[73:74], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], v[73:74], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	s_waitcnt vmcnt(0)
	v_cvt_f16_f32_e32 v0, v0
	v_pack_b32_f16 v0, v0, v67
	v_dot2_f32_f16 v67, v0, s45, v155
	buffer_store_dword v67, off, s[96:99], 0 offset:132 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s46, v156
	buffer_store_dword v67, off, s[96:99], 0 offset:140 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s47, v157
	buffer_store_dword v67, off, s[96:99], 0 offset:148 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s48, v158
	buffer_store_dword v67, off, s[96:99], 0 offset:152 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s49, v159
	buffer_store_dword v67, off, s[96:99], 0 offset:160 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s50, v160
	buffer_store_dword v67, off, s[96:99], 0 offset:168 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s51, v161
	buffer_store_dword v67, off, s[96:99], 0 offset:176 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s12, v162
	buffer_store_dword v67, off, s[96:99], 0 offset:184 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s13, v163
	buffer_store_dword v67, off, s[96:99], 0 offset:188 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s14, v164
	buffer_store_dword v67, off, s[96:99], 0 offset:196 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s15, v165
	buffer_store_dword v67, off, s[96:99], 0 offset:204 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s16, v166
	buffer_store_dword v67, off, s[96:99], 0 offset:212 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s17, v167
	buffer_store_dword v67, off, s[96:99], 0 offset:220 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s18, v168
	buffer_store_dword v67, off, s[96:99], 0 offset:224 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s19, v169
	buffer_store_dword v67, off, s[96:99], 0 offset:376 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s20, v170
	buffer_store_dword v67, off, s[96:99], 0 offset:380 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s21, v171
	buffer_store_dword v67, off, s[96:99], 0 offset:384 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s22, v172
	buffer_store_dword v67, off, s[96:99], 0 offset:388 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s23, v173
	buffer_store_dword v67, off, s[96:99], 0 offset:392 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s24, v174
	buffer_store_dword v67, off, s[96:99], 0 offset:396 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s25, v175
	buffer_store_dword v67, off, s[96:99], 0 offset:456 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s26, v176
	buffer_store_dword v67, off, s[96:99], 0 offset:460 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s27, v177
	buffer_store_dword v67, off, s[96:99], 0 offset:464 ; 4-byte Folded Spill
	v_add_co_u32_e32 v67, vcc, s78, v73
	v_dot2_f32_f16 v70, v0, s80, v105
	v_dot2_f32_f16 v75, v0, s81, v104
	v_dot2_f32_f16 v76, v0, s82, v103
	v_dot2_f32_f16 v77, v0, s83, v102
	v_dot2_f32_f16 v78, v0, s84, v101
	v_dot2_f32_f16 v79, v0, s85, v106
	v_dot2_f32_f16 v80, v0, s86, v107
	v_dot2_f32_f16 v81, v0, s87, v108
	v_dot2_f32_f16 v82, v0, s88, v109
	v_dot2_f32_f16 v83, v0, s89, v110
	v_dot2_f32_f16 v84, v0, s90, v111
	v_dot2_f32_f16 v85, v0, s91, v112
	v_dot2_f32_f16 v86, v0, s92, v113
	v_dot2_f32_f16 v87, v0, s93, v114
	v_dot2_f32_f16 v88, v0, s94, v115
	v_dot2_f32_f16 v89, v0, s95, v116
	v_dot2_f32_f16 v90, v0, s52, v117
	v_dot2_f32_f16 v91, v0, s53, v118
	v_dot2_f32_f16 v92, v0, s54, v119
	v_dot2_f32_f16 v93, v0, s55, v120
	v_dot2_f32_f16 v94, v0, s56, v121
	v_dot2_f32_f16 v95, v0, s57, v122
	v_dot2_f32_f16 v96, v0, s58, v123
	v_dot2_f32_f16 v97, v0, s59, v124
	v_dot2_f32_f16 v99, v0, s60, v125
	v_dot2_f32_f16 v131, v0, s61, v126
	v_dot2_f32_f16 v132, v0, s62, v127
	v_dot2_f32_f16 v133, v0, s63, v128
	v_dot2_f32_f16 v134, v0, s64, v129
	v_dot2_f32_f16 v135, v0, s65, v130
	v_dot2_f32_f16 v136, v0, s66, v137
	v_dot2_f32_f16 v140, v0, s67, v138
	v_dot2_f32_f16 v141, v0, s36, v139
	v_dot2_f32_f16 v142, v0, s37, v147
	v_dot2_f32_f16 v143, v0, s38, v148
	v_dot2_f32_f16 v144, v0, s39, v149
	v_dot2_f32_f16 v145, v0, s40, v150
	v_dot2_f32_f16 v146, v0, s41, v151
	v_dot2_f32_f16 v242, v0, s42, v152
	v_dot2_f32_f16 v246, v0, s43, v153
	v_dot2_f32_f16 v248, v0, s44, v154
	v_addc_co_u32_e32 v68, vcc, 0, v74, vcc
	;;#ASMSTART
	s_load_dwordx16 s[80:95], v[67:68], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], v[67:68], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], v[67:68], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], v[67:68], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	v_dot2_f32_f16 v67, v0, s80, v178
	buffer_store_dword v67, off, s[96:99], 0 offset:228 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s81, v179
	buffer_store_dword v67, off, s[96:99], 0 offset:232 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s82, v180
	buffer_store_dword v67, off, s[96:99], 0 offset:236 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s83, v181
	buffer_store_dword v67, off, s[96:99], 0 offset:240 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s84, v182
	buffer_store_dword v67, off, s[96:99], 0 offset:244 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s85, v183
	buffer_store_dword v67, off, s[96:99], 0 offset:248 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s86, v184
	buffer_store_dword v67, off, s[96:99], 0 offset:252 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s87, v185
	buffer_store_dword v67, off, s[96:99], 0 offset:256 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s88, v186
	buffer_store_dword v67, off, s[96:99], 0 offset:260 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s89, v187
	buffer_store_dword v67, off, s[96:99], 0 offset:264 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s90, v188
	buffer_store_dword v67, off, s[96:99], 0 offset:268 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s91, v189
	buffer_store_dword v67, off, s[96:99], 0 offset:272 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s92, v190
	buffer_store_dword v67, off, s[96:99], 0 offset:276 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s93, v191
	buffer_store_dword v67, off, s[96:99], 0 offset:280 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s94, v192
	buffer_store_dword v67, off, s[96:99], 0 offset:284 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s95, v193
	buffer_store_dword v67, off, s[96:99], 0 offset:288 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s52, v194
	buffer_store_dword v67, off, s[96:99], 0 offset:292 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s53, v195
	buffer_store_dword v67, off, s[96:99], 0 offset:296 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s54, v196
	buffer_store_dword v67, off, s[96:99], 0 offset:300 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s55, v197
	buffer_store_dword v67, off, s[96:99], 0 offset:304 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s56, v198
	buffer_store_dword v67, off, s[96:99], 0 offset:308 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s57, v199
	buffer_store_dword v67, off, s[96:99], 0 offset:312 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s58, v200
	buffer_store_dword v67, off, s[96:99], 0 offset:316 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s59, v201
	buffer_store_dword v67, off, s[96:99], 0 offset:320 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s60, v202
	buffer_store_dword v67, off, s[96:99], 0 offset:324 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s61, v203
	buffer_store_dword v67, off, s[96:99], 0 offset:328 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s62, v204
	buffer_store_dword v67, off, s[96:99], 0 offset:332 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s63, v205
	buffer_store_dword v67, off, s[96:99], 0 offset:336 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s64, v206
	buffer_store_dword v67, off, s[96:99], 0 offset:340 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s65, v207
	buffer_store_dword v67, off, s[96:99], 0 offset:344 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s66, v208
	buffer_store_dword v67, off, s[96:99], 0 offset:348 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s67, v209
	buffer_store_dword v67, off, s[96:99], 0 offset:352 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s36, v210
	buffer_store_dword v67, off, s[96:99], 0 offset:356 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s37, v211
	buffer_store_dword v67, off, s[96:99], 0 offset:360 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s38, v212
	buffer_store_dword v67, off, s[96:99], 0 offset:364 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s39, v213
	buffer_store_dword v67, off, s[96:99], 0 offset:368 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s40, v214
	buffer_store_dword v67, off, s[96:99], 0 offset:372 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s41, v215
	buffer_store_dword v67, off, s[96:99], 0 offset:216 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s42, v216
	buffer_store_dword v67, off, s[96:99], 0 offset:208 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s43, v217
	buffer_store_dword v67, off, s[96:99], 0 offset:200 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s44, v218
	buffer_store_dword v67, off, s[96:99], 0 offset:192 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s45, v219
	buffer_store_dword v67, off, s[96:99], 0 offset:180 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s46, v220
	buffer_store_dword v67, off, s[96:99], 0 offset:172 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s47, v221
	buffer_store_dword v67, off, s[96:99], 0 offset:164 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s48, v222
	buffer_store_dword v67, off, s[96:99], 0 offset:156 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s49, v223
	buffer_store_dword v67, off, s[96:99], 0 offset:144 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s50, v224
	buffer_store_dword v67, off, s[96:99], 0 offset:136 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s51, v225
	buffer_store_dword v67, off, s[96:99], 0 offset:128 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s12, v226
	buffer_store_dword v67, off, s[96:99], 0 offset:124 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s13, v227
	buffer_store_dword v67, off, s[96:99], 0 offset:120 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s14, v228
	buffer_store_dword v67, off, s[96:99], 0 offset:116 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s15, v229
	buffer_store_dword v67, off, s[96:99], 0 offset:112 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s16, v230
	buffer_store_dword v67, off, s[96:99], 0 offset:108 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s17, v231
	buffer_store_dword v67, off, s[96:99], 0 offset:104 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s18, v232
	buffer_store_dword v67, off, s[96:99], 0 offset:100 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s19, v233
	buffer_store_dword v67, off, s[96:99], 0 offset:96 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s20, v234
	buffer_store_dword v67, off, s[96:99], 0 offset:92 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s21, v235
	buffer_store_dword v67, off, s[96:99], 0 offset:88 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s22, v236
	buffer_store_dword v67, off, s[96:99], 0 offset:84 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s23, v237
	buffer_store_dword v67, off, s[96:99], 0 offset:80 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s24, v238
	buffer_store_dword v67, off, s[96:99], 0 offset:76 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s25, v239
	buffer_store_dword v67, off, s[96:99], 0 offset:72 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s26, v241
	v_dot2_f32_f16 v0, v0, s27, v240
	buffer_store_dword v0, off, s[96:99], 0 offset:64 ; 4-byte Folded Spill
	v_add_co_u32_e32 v0, vcc, s33, v73
	v_addc_co_u32_e32 v100, vcc, 0, v74, vcc
	v_readfirstlane_b32 s2, v0
	buffer_store_dword v67, off, s[96:99], 0 offset:68 ; 4-byte Folded Spill
	s_ashr_i32 s3, s2, 31
	v_readfirstlane_b32 s73, v100
	s_or_b64 s[2:3], s[72:73], s[2:3]
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[2:3], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[2:3], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[2:3], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[2:3], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	buffer_load_dword v243, off, s[96:99], 0 offset:152 ; 4-byte Folded Reload
	buffer_load_dword v244, off, s[96:99], 0 offset:160 ; 4-byte Folded Reload
	buffer_load_dword v245, off, s[96:99], 0 offset:168 ; 4-byte Folded Reload
	buffer_load_dword v247, off, s[96:99], 0 offset:184 ; 4-byte Folded Reload
	buffer_load_dword v252, off, s[96:99], 0 offset:220 ; 4-byte Folded Reload
	buffer_load_dword v253, off, s[96:99], 0 offset:224 ; 4-byte Folded Reload
	v_cvt_f16_f32_e32 v0, v249
	v_cvt_f16_f32_e32 v100, v250
	buffer_store_dword v69, off, s[96:99], 0 offset:444 ; 4-byte Folded Spill
	buffer_store_dword v249, off, s[96:99], 0 offset:448 ; 4-byte Folded Spill
	buffer_load_dword v249, off, s[96:99], 0 offset:196 ; 4-byte Folded Reload
	v_pack_b32_f16 v0, v0, v100
	v_dot2_f32_f16 v68, v0, s38, v76
	v_dot2_f32_f16 v76, v0, s42, v80
	v_dot2_f32_f16 v80, v0, s46, v84
	v_dot2_f32_f16 v84, v0, s50, v88
	v_dot2_f32_f16 v88, v0, s54, v92
	v_dot2_f32_f16 v92, v0, s58, v96
	v_dot2_f32_f16 v96, v0, s62, v132
	v_dot2_f32_f16 v132, v0, s67, v140
	v_dot2_f32_f16 v140, v0, s84, v145
	buffer_load_dword v145, off, s[96:99], 0 offset:132 ; 4-byte Folded Reload
	v_dot2_f32_f16 v69, v0, s39, v77
	v_dot2_f32_f16 v77, v0, s43, v81
	v_dot2_f32_f16 v81, v0, s47, v85
	v_dot2_f32_f16 v85, v0, s51, v89
	v_dot2_f32_f16 v89, v0, s55, v93
	v_dot2_f32_f16 v93, v0, s59, v97
	v_dot2_f32_f16 v97, v0, s63, v133
	v_dot2_f32_f16 v133, v0, s80, v141
	v_dot2_f32_f16 v141, v0, s85, v146
	buffer_load_dword v146, off, s[96:99], 0 offset:140 ; 4-byte Folded Reload
	v_dot2_f32_f16 v98, v0, s64, v134
	v_dot2_f32_f16 v134, v0, s81, v142
	v_dot2_f32_f16 v142, v0, s86, v242
	buffer_load_dword v242, off, s[96:99], 0 offset:148 ; 4-byte Folded Reload
	v_dot2_f32_f16 v100, v0, s36, v70
	v_dot2_f32_f16 v70, v0, s40, v78
	v_dot2_f32_f16 v78, v0, s44, v82
	v_dot2_f32_f16 v82, v0, s48, v86
	v_dot2_f32_f16 v86, v0, s52, v90
	v_dot2_f32_f16 v90, v0, s56, v94
	v_dot2_f32_f16 v94, v0, s60, v99
	v_dot2_f32_f16 v99, v0, s65, v135
	v_dot2_f32_f16 v135, v0, s82, v143
	v_dot2_f32_f16 v143, v0, s87, v246
	buffer_load_dword v246, off, s[96:99], 0 offset:176 ; 4-byte Folded Reload
	v_dot2_f32_f16 v67, v0, s37, v75
	v_dot2_f32_f16 v75, v0, s41, v79
	v_dot2_f32_f16 v79, v0, s45, v83
	v_dot2_f32_f16 v83, v0, s49, v87
	v_dot2_f32_f16 v87, v0, s53, v91
	v_dot2_f32_f16 v91, v0, s57, v95
	v_dot2_f32_f16 v95, v0, s61, v131
	v_dot2_f32_f16 v131, v0, s66, v136
	v_dot2_f32_f16 v136, v0, s83, v144
	v_dot2_f32_f16 v144, v0, s88, v248
	buffer_load_dword v248, off, s[96:99], 0 offset:188 ; 4-byte Folded Reload
	s_add_u32 s4, s2, 0x100
	buffer_store_dword v250, off, s[96:99], 0 offset:452 ; 4-byte Folded Spill
	buffer_load_dword v250, off, s[96:99], 0 offset:204 ; 4-byte Folded Reload
	s_addc_u32 s5, s3, 0
	buffer_store_dword v251, off, s[96:99], 0 offset:408 ; 4-byte Folded Spill
	buffer_load_dword v251, off, s[96:99], 0 offset:212 ; 4-byte Folded Reload
	s_add_u32 s2, s2, 0x200
	s_addc_u32 s73, s3, 0
	s_ashr_i32 s3, s2, 31
	s_or_b64 s[2:3], s[72:73], s[2:3]
	s_waitcnt vmcnt(17)
	v_dot2_f32_f16 v243, v0, s92, v243
	s_waitcnt vmcnt(16)
	v_dot2_f32_f16 v244, v0, s93, v244
	s_waitcnt vmcnt(15)
	v_dot2_f32_f16 v245, v0, s94, v245
	s_waitcnt vmcnt(14)
	v_dot2_f32_f16 v247, v0, s12, v247
	s_waitcnt vmcnt(13)
	v_dot2_f32_f16 v252, v0, s17, v252
	s_waitcnt vmcnt(12)
	v_dot2_f32_f16 v253, v0, s18, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:468 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:376 ; 4-byte Folded Reload
	s_waitcnt vmcnt(11)
	v_dot2_f32_f16 v249, v0, s14, v249
	s_waitcnt vmcnt(10)
	v_dot2_f32_f16 v145, v0, s89, v145
	s_waitcnt vmcnt(9)
	v_dot2_f32_f16 v146, v0, s90, v146
	s_waitcnt vmcnt(8)
	v_dot2_f32_f16 v242, v0, s91, v242
	s_waitcnt vmcnt(7)
	v_dot2_f32_f16 v246, v0, s95, v246
	s_waitcnt vmcnt(6)
	v_dot2_f32_f16 v248, v0, s13, v248
	s_waitcnt vmcnt(4)
	v_dot2_f32_f16 v250, v0, s15, v250
	s_waitcnt vmcnt(2)
	v_dot2_f32_f16 v251, v0, s16, v251
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s19, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:376 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:380 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s20, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:132 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:384 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s21, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:140 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:388 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s22, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:148 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:392 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s23, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:152 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:396 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s24, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:160 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:456 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s25, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:168 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:460 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s26, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:176 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:464 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s27, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:184 ; 4-byte Folded Spill
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[4:5], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[4:5], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[4:5], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[4:5], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	buffer_load_dword v253, off, s[96:99], 0 offset:228 ; 4-byte Folded Reload
	buffer_load_dword v255, off, s[96:99], 0 offset:4 ; 4-byte Folded Reload
	s_add_u32 s4, s2, 0x100
	s_addc_u32 s5, s3, 0
	s_waitcnt vmcnt(1)
	v_dot2_f32_f16 v253, v0, s80, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:188 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:232 ; 4-byte Folded Reload
	s_waitcnt vmcnt(2)
	v_cvt_f16_f32_e32 v255, v255
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s81, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:196 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:236 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s82, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:204 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:240 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s83, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:212 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:244 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s84, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:220 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:248 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s85, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:224 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:252 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s86, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:228 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:256 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s87, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:232 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:260 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s88, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:236 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:264 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s89, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:240 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:268 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s90, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:244 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:272 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s91, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:248 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:276 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s92, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:252 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:280 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s93, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:256 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:284 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s94, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:260 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:288 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s95, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:264 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:292 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s52, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:268 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:296 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s53, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:272 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:300 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s54, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:276 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:304 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s55, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:280 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:308 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s56, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:284 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:312 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s57, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:288 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:316 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s58, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:292 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:320 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s59, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:296 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:324 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s60, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:300 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:328 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s61, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:304 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:332 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s62, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:308 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:336 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s63, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:312 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:340 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s64, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:316 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:344 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s65, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:320 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:348 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s66, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:324 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:352 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s67, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:328 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:356 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s36, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:332 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:360 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s37, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:336 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:364 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s38, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:340 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:368 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s39, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:344 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:372 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s40, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:348 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:216 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s41, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:216 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:208 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s42, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:208 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:200 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s43, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:200 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:192 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s44, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:192 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:180 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s45, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:180 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:172 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s46, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:172 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:164 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s47, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:164 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:156 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s48, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:156 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:144 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s49, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:144 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:136 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s50, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:136 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:128 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s51, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:128 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:124 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s12, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:124 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:120 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s13, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:120 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:116 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s14, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:116 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:112 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s15, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:112 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:108 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s16, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:108 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:104 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s17, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:104 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:100 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s18, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:100 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:96 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s19, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:96 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:92 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s20, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:92 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:88 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s21, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:88 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:84 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s22, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:84 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:80 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s23, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:80 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:76 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s24, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:76 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:72 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s25, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:72 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:68 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s26, v253
	buffer_store_dword v253, off, s[96:99], 0 offset:68 ; 4-byte Folded Spill
	buffer_load_dword v253, off, s[96:99], 0 offset:64 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v0, v0, s27, v253
	buffer_store_dword v0, off, s[96:99], 0 offset:64 ; 4-byte Folded Spill
	buffer_load_dword v0, off, s[96:99], 0 offset:408 ; 4-byte Folded Reload
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[2:3], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[2:3], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[2:3], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[2:3], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	s_add_u32 s2, s2, 0x200
	s_addc_u32 s73, s3, 0
	s_ashr_i32 s3, s2, 31
	s_or_b64 s[2:3], s[72:73], s[2:3]
	s_waitcnt vmcnt(0)
	v_cvt_f16_f32_e32 v0, v0
	v_pack_b32_f16 v0, v0, v255
	v_dot2_f32_f16 v67, v0, s81, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:352 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:468 ; 4-byte Folded Reload
	v_dot2_f32_f16 v100, v0, s80, v100
	v_dot2_f32_f16 v68, v0, s82, v68
	v_dot2_f32_f16 v69, v0, s83, v69
	v_dot2_f32_f16 v70, v0, s84, v70
	v_dot2_f32_f16 v75, v0, s85, v75
	v_dot2_f32_f16 v76, v0, s86, v76
	v_dot2_f32_f16 v77, v0, s87, v77
	v_dot2_f32_f16 v78, v0, s88, v78
	v_dot2_f32_f16 v79, v0, s89, v79
	v_dot2_f32_f16 v80, v0, s90, v80
	v_dot2_f32_f16 v81, v0, s91, v81
	v_dot2_f32_f16 v82, v0, s92, v82
	v_dot2_f32_f16 v83, v0, s93, v83
	v_dot2_f32_f16 v84, v0, s94, v84
	v_dot2_f32_f16 v85, v0, s95, v85
	v_dot2_f32_f16 v86, v0, s52, v86
	v_dot2_f32_f16 v87, v0, s53, v87
	v_dot2_f32_f16 v88, v0, s54, v88
	v_dot2_f32_f16 v89, v0, s55, v89
	v_dot2_f32_f16 v90, v0, s56, v90
	v_dot2_f32_f16 v91, v0, s57, v91
	v_dot2_f32_f16 v92, v0, s58, v92
	v_dot2_f32_f16 v93, v0, s59, v93
	v_dot2_f32_f16 v94, v0, s60, v94
	v_dot2_f32_f16 v95, v0, s61, v95
	v_dot2_f32_f16 v96, v0, s62, v96
	v_dot2_f32_f16 v97, v0, s63, v97
	v_dot2_f32_f16 v98, v0, s64, v98
	v_dot2_f32_f16 v99, v0, s65, v99
	v_dot2_f32_f16 v131, v0, s66, v131
	v_dot2_f32_f16 v132, v0, s67, v132
	v_dot2_f32_f16 v133, v0, s36, v133
	v_dot2_f32_f16 v134, v0, s37, v134
	v_dot2_f32_f16 v135, v0, s38, v135
	v_dot2_f32_f16 v136, v0, s39, v136
	v_dot2_f32_f16 v140, v0, s40, v140
	v_dot2_f32_f16 v141, v0, s41, v141
	v_dot2_f32_f16 v142, v0, s42, v142
	v_dot2_f32_f16 v143, v0, s43, v143
	v_dot2_f32_f16 v144, v0, s44, v144
	v_dot2_f32_f16 v145, v0, s45, v145
	v_dot2_f32_f16 v146, v0, s46, v146
	v_dot2_f32_f16 v242, v0, s47, v242
	v_dot2_f32_f16 v243, v0, s48, v243
	v_dot2_f32_f16 v244, v0, s49, v244
	v_dot2_f32_f16 v245, v0, s50, v245
	v_dot2_f32_f16 v246, v0, s51, v246
	v_dot2_f32_f16 v247, v0, s12, v247
	v_dot2_f32_f16 v248, v0, s13, v248
	v_dot2_f32_f16 v249, v0, s14, v249
	v_dot2_f32_f16 v250, v0, s15, v250
	v_dot2_f32_f16 v251, v0, s16, v251
	v_dot2_f32_f16 v252, v0, s17, v252
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s18, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:376 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v255, v0, s19, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:132 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s20, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:132 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:140 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s21, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:140 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:148 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s22, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:148 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:152 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s23, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:152 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:160 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s24, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:160 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:168 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s25, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:168 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:176 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s26, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:176 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:184 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s27, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:184 ; 4-byte Folded Spill
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[4:5], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[4:5], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[4:5], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[4:5], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	buffer_load_dword v67, off, s[96:99], 0 offset:188 ; 4-byte Folded Reload
	s_add_u32 s4, s2, 0x100
	s_addc_u32 s5, s3, 0
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s80, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:188 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:196 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s81, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:196 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:204 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s82, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:204 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:212 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s83, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:212 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:220 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s84, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:220 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:224 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s85, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:224 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:228 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s86, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:228 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:232 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s87, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:232 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:236 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s88, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:236 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:240 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s89, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:240 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:244 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s90, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:244 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:248 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s91, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:248 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:252 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s92, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:252 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:256 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s93, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:256 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:260 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s94, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:260 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:264 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s95, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:264 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:268 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s52, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:268 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:272 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s53, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:272 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:276 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s54, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:276 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:280 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s55, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:280 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:284 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s56, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:284 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:288 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s57, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:288 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:292 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s58, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:292 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:296 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s59, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:296 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:300 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s60, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:300 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:304 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s61, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:304 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:308 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s62, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:308 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:312 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s63, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:312 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:316 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s64, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:316 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:320 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s65, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:320 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:324 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s66, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:324 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:328 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s67, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:328 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:332 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s36, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:332 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:336 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s37, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:336 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:340 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s38, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:340 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:344 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s39, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:344 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:348 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s40, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:348 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:216 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s41, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:216 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:208 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s42, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:208 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:200 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s43, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:200 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:192 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s44, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:192 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:180 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s45, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:180 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:172 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s46, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:172 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:164 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s47, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:164 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:156 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s48, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:156 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:144 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s49, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:144 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:136 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s50, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:136 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:128 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s51, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:128 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:124 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s12, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:124 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:120 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s13, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:120 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:116 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s14, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:116 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:112 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s15, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:112 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:108 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s16, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:108 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:104 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s17, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:104 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:100 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s18, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:100 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:96 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s19, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:96 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:92 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s20, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:92 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:88 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s21, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:88 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:84 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s22, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:84 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:80 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s23, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:80 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:76 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s24, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:76 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:72 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s25, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:72 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:68 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s26, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:68 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:64 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v0, v0, s27, v67
	buffer_store_dword v0, off, s[96:99], 0 offset:64 ; 4-byte Folded Spill
	buffer_load_dword v0, off, s[96:99], 0 offset:44 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_cvt_f16_f32_e32 v0, v0
	buffer_load_dword v67, off, s[96:99], 0 offset:8 ; 4-byte Folded Reload
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[2:3], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[2:3], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[2:3], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[2:3], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	s_add_u32 s2, s2, 0x200
	s_addc_u32 s73, s3, 0
	s_ashr_i32 s3, s2, 31
	s_or_b64 s[2:3], s[72:73], s[2:3]
	s_waitcnt vmcnt(0)
	v_cvt_f16_f32_e32 v67, v67
	v_pack_b32_f16 v0, v0, v67
	v_dot2_f32_f16 v67, v0, s80, v100
	buffer_store_dword v67, off, s[96:99], 0 offset:356 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:352 ; 4-byte Folded Reload
	v_dot2_f32_f16 v68, v0, s82, v68
	v_dot2_f32_f16 v69, v0, s83, v69
	v_dot2_f32_f16 v70, v0, s84, v70
	v_dot2_f32_f16 v75, v0, s85, v75
	v_dot2_f32_f16 v76, v0, s86, v76
	v_dot2_f32_f16 v77, v0, s87, v77
	v_dot2_f32_f16 v78, v0, s88, v78
	v_dot2_f32_f16 v79, v0, s89, v79
	v_dot2_f32_f16 v80, v0, s90, v80
	v_dot2_f32_f16 v81, v0, s91, v81
	v_dot2_f32_f16 v82, v0, s92, v82
	v_dot2_f32_f16 v83, v0, s93, v83
	v_dot2_f32_f16 v84, v0, s94, v84
	v_dot2_f32_f16 v85, v0, s95, v85
	v_dot2_f32_f16 v86, v0, s52, v86
	v_dot2_f32_f16 v87, v0, s53, v87
	v_dot2_f32_f16 v88, v0, s54, v88
	v_dot2_f32_f16 v89, v0, s55, v89
	v_dot2_f32_f16 v90, v0, s56, v90
	v_dot2_f32_f16 v91, v0, s57, v91
	v_dot2_f32_f16 v92, v0, s58, v92
	v_dot2_f32_f16 v93, v0, s59, v93
	v_dot2_f32_f16 v94, v0, s60, v94
	v_dot2_f32_f16 v95, v0, s61, v95
	v_dot2_f32_f16 v96, v0, s62, v96
	v_dot2_f32_f16 v97, v0, s63, v97
	v_dot2_f32_f16 v98, v0, s64, v98
	v_dot2_f32_f16 v99, v0, s65, v99
	v_dot2_f32_f16 v131, v0, s66, v131
	v_dot2_f32_f16 v132, v0, s67, v132
	v_dot2_f32_f16 v133, v0, s36, v133
	v_dot2_f32_f16 v134, v0, s37, v134
	v_dot2_f32_f16 v135, v0, s38, v135
	v_dot2_f32_f16 v136, v0, s39, v136
	v_dot2_f32_f16 v140, v0, s40, v140
	v_dot2_f32_f16 v141, v0, s41, v141
	v_dot2_f32_f16 v142, v0, s42, v142
	v_dot2_f32_f16 v143, v0, s43, v143
	v_dot2_f32_f16 v144, v0, s44, v144
	v_dot2_f32_f16 v145, v0, s45, v145
	v_dot2_f32_f16 v146, v0, s46, v146
	v_dot2_f32_f16 v242, v0, s47, v242
	v_dot2_f32_f16 v243, v0, s48, v243
	v_dot2_f32_f16 v244, v0, s49, v244
	v_dot2_f32_f16 v245, v0, s50, v245
	v_dot2_f32_f16 v246, v0, s51, v246
	v_dot2_f32_f16 v247, v0, s12, v247
	v_dot2_f32_f16 v248, v0, s13, v248
	v_dot2_f32_f16 v249, v0, s14, v249
	v_dot2_f32_f16 v250, v0, s15, v250
	v_dot2_f32_f16 v251, v0, s16, v251
	v_dot2_f32_f16 v252, v0, s17, v252
	v_dot2_f32_f16 v253, v0, s18, v253
	v_dot2_f32_f16 v255, v0, s19, v255
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v100, v0, s81, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:132 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s20, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:132 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:140 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s21, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:140 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:148 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s22, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:148 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:152 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s23, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:152 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:160 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s24, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:160 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:168 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s25, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:168 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:176 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s26, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:176 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:184 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s27, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:184 ; 4-byte Folded Spill
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[4:5], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[4:5], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[4:5], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[4:5], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	buffer_load_dword v67, off, s[96:99], 0 offset:188 ; 4-byte Folded Reload
	s_add_u32 s4, s2, 0x100
	s_addc_u32 s5, s3, 0
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s80, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:188 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:196 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s81, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:196 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:204 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s82, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:204 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:212 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s83, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:212 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:220 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s84, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:220 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:224 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s85, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:224 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:228 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s86, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:228 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:232 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s87, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:232 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:236 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s88, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:236 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:240 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s89, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:240 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:244 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s90, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:244 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:248 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s91, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:248 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:252 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s92, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:252 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:256 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s93, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:256 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:260 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s94, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:260 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:264 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s95, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:264 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:268 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s52, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:268 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:272 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s53, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:272 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:276 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s54, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:276 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:280 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s55, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:280 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:284 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s56, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:284 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:288 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s57, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:288 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:292 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s58, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:292 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:296 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s59, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:296 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:300 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s60, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:300 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:304 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s61, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:304 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:308 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s62, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:308 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:312 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s63, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:312 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:316 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s64, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:316 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:320 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s65, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:320 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:324 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s66, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:324 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:328 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s67, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:328 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:332 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s36, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:332 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:336 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s37, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:336 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:340 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s38, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:340 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:344 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s39, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:344 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:348 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s40, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:348 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:216 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s41, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:216 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:208 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s42, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:208 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:200 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s43, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:200 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:192 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s44, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:192 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:180 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s45, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:180 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:172 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s46, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:172 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:164 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s47, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:164 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:156 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s48, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:156 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:144 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s49, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:144 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:136 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s50, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:136 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:128 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s51, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:128 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:124 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s12, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:124 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:120 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s13, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:120 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:116 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s14, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:116 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:112 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s15, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:112 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:108 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s16, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:108 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:104 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s17, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:104 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:100 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s18, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:100 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:96 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s19, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:96 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:92 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s20, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:92 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:88 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s21, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:88 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:84 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s22, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:84 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:80 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s23, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:80 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:76 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s24, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:76 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:72 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s25, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:72 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:68 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s26, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:68 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:64 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v0, v0, s27, v67
	buffer_store_dword v0, off, s[96:99], 0 offset:64 ; 4-byte Folded Spill
	buffer_load_dword v0, off, s[96:99], 0 offset:12 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_cvt_f16_f32_e32 v0, v0
	buffer_load_dword v67, off, s[96:99], 0 offset:16 ; 4-byte Folded Reload
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[2:3], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[2:3], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[2:3], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[2:3], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	s_add_u32 s2, s2, 0x200
	s_addc_u32 s73, s3, 0
	s_ashr_i32 s3, s2, 31
	s_or_b64 s[2:3], s[72:73], s[2:3]
	s_waitcnt vmcnt(0)
	v_cvt_f16_f32_e32 v67, v67
	v_pack_b32_f16 v0, v0, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:356 ; 4-byte Folded Reload
	v_dot2_f32_f16 v100, v0, s81, v100
	v_dot2_f32_f16 v68, v0, s82, v68
	v_dot2_f32_f16 v69, v0, s83, v69
	v_dot2_f32_f16 v70, v0, s84, v70
	v_dot2_f32_f16 v75, v0, s85, v75
	v_dot2_f32_f16 v76, v0, s86, v76
	v_dot2_f32_f16 v77, v0, s87, v77
	v_dot2_f32_f16 v78, v0, s88, v78
	v_dot2_f32_f16 v79, v0, s89, v79
	v_dot2_f32_f16 v80, v0, s90, v80
	v_dot2_f32_f16 v81, v0, s91, v81
	v_dot2_f32_f16 v82, v0, s92, v82
	v_dot2_f32_f16 v83, v0, s93, v83
	v_dot2_f32_f16 v84, v0, s94, v84
	v_dot2_f32_f16 v85, v0, s95, v85
	v_dot2_f32_f16 v86, v0, s52, v86
	v_dot2_f32_f16 v87, v0, s53, v87
	v_dot2_f32_f16 v88, v0, s54, v88
	v_dot2_f32_f16 v89, v0, s55, v89
	v_dot2_f32_f16 v90, v0, s56, v90
	v_dot2_f32_f16 v91, v0, s57, v91
	v_dot2_f32_f16 v92, v0, s58, v92
	v_dot2_f32_f16 v93, v0, s59, v93
	v_dot2_f32_f16 v94, v0, s60, v94
	v_dot2_f32_f16 v95, v0, s61, v95
	v_dot2_f32_f16 v96, v0, s62, v96
	v_dot2_f32_f16 v97, v0, s63, v97
	v_dot2_f32_f16 v98, v0, s64, v98
	v_dot2_f32_f16 v99, v0, s65, v99
	v_dot2_f32_f16 v131, v0, s66, v131
	v_dot2_f32_f16 v132, v0, s67, v132
	v_dot2_f32_f16 v133, v0, s36, v133
	v_dot2_f32_f16 v134, v0, s37, v134
	v_dot2_f32_f16 v135, v0, s38, v135
	v_dot2_f32_f16 v136, v0, s39, v136
	v_dot2_f32_f16 v140, v0, s40, v140
	v_dot2_f32_f16 v141, v0, s41, v141
	v_dot2_f32_f16 v142, v0, s42, v142
	v_dot2_f32_f16 v143, v0, s43, v143
	v_dot2_f32_f16 v144, v0, s44, v144
	v_dot2_f32_f16 v145, v0, s45, v145
	v_dot2_f32_f16 v146, v0, s46, v146
	v_dot2_f32_f16 v242, v0, s47, v242
	v_dot2_f32_f16 v243, v0, s48, v243
	v_dot2_f32_f16 v244, v0, s49, v244
	v_dot2_f32_f16 v245, v0, s50, v245
	v_dot2_f32_f16 v246, v0, s51, v246
	v_dot2_f32_f16 v247, v0, s12, v247
	v_dot2_f32_f16 v248, v0, s13, v248
	v_dot2_f32_f16 v249, v0, s14, v249
	v_dot2_f32_f16 v250, v0, s15, v250
	v_dot2_f32_f16 v251, v0, s16, v251
	v_dot2_f32_f16 v252, v0, s17, v252
	v_dot2_f32_f16 v253, v0, s18, v253
	v_dot2_f32_f16 v255, v0, s19, v255
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s80, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:352 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:132 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s20, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:132 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:140 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s21, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:140 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:148 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s22, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:148 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:152 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s23, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:152 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:160 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s24, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:160 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:168 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s25, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:168 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:176 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s26, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:176 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:184 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s27, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:184 ; 4-byte Folded Spill
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[4:5], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[4:5], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[4:5], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[4:5], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	buffer_load_dword v67, off, s[96:99], 0 offset:188 ; 4-byte Folded Reload
	s_add_u32 s4, s2, 0x100
	s_addc_u32 s5, s3, 0
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s80, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:188 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:196 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s81, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:196 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:204 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s82, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:204 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:212 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s83, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:212 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:220 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s84, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:220 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:224 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s85, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:224 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:228 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s86, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:228 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:232 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s87, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:232 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:236 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s88, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:236 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:240 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s89, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:240 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:244 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s90, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:244 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:248 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s91, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:248 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:252 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s92, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:252 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:256 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s93, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:256 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:260 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s94, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:260 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:264 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s95, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:264 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:268 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s52, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:268 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:272 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s53, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:272 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:276 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s54, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:276 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:280 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s55, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:280 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:284 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s56, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:284 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:288 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s57, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:288 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:292 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s58, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:292 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:296 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s59, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:296 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:300 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s60, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:300 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:304 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s61, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:304 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:308 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s62, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:308 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:312 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s63, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:312 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:316 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s64, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:316 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:320 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s65, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:320 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:324 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s66, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:324 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:328 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s67, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:328 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:332 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s36, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:332 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:336 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s37, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:336 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:340 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s38, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:340 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:344 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s39, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:344 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:348 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s40, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:348 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:216 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s41, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:216 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:208 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s42, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:208 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:200 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s43, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:200 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:192 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s44, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:192 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:180 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s45, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:180 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:172 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s46, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:172 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:164 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s47, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:164 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:156 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s48, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:156 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:144 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s49, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:144 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:136 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s50, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:136 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:128 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s51, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:128 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:124 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s12, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:124 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:120 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s13, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:120 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:116 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s14, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:116 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:112 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s15, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:112 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:108 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s16, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:108 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:104 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s17, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:104 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:100 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s18, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:100 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:96 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s19, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:96 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:92 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s20, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:92 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:88 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s21, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:88 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:84 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s22, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:84 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:80 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s23, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:80 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:76 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s24, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:76 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:72 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s25, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:72 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:68 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s26, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:68 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:64 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v0, v0, s27, v67
	buffer_store_dword v0, off, s[96:99], 0 offset:64 ; 4-byte Folded Spill
	buffer_load_dword v0, off, s[96:99], 0 offset:20 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_cvt_f16_f32_e32 v0, v0
	buffer_load_dword v67, off, s[96:99], 0 offset:24 ; 4-byte Folded Reload
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[2:3], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[2:3], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[2:3], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[2:3], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	s_add_u32 s2, s2, 0x200
	s_addc_u32 s73, s3, 0
	s_ashr_i32 s3, s2, 31
	s_or_b64 s[2:3], s[72:73], s[2:3]
	s_waitcnt vmcnt(0)
	v_cvt_f16_f32_e32 v67, v67
	v_pack_b32_f16 v0, v0, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:352 ; 4-byte Folded Reload
	v_dot2_f32_f16 v100, v0, s81, v100
	v_dot2_f32_f16 v68, v0, s82, v68
	v_dot2_f32_f16 v69, v0, s83, v69
	v_dot2_f32_f16 v70, v0, s84, v70
	v_dot2_f32_f16 v75, v0, s85, v75
	v_dot2_f32_f16 v76, v0, s86, v76
	v_dot2_f32_f16 v77, v0, s87, v77
	v_dot2_f32_f16 v78, v0, s88, v78
	v_dot2_f32_f16 v79, v0, s89, v79
	v_dot2_f32_f16 v80, v0, s90, v80
	v_dot2_f32_f16 v81, v0, s91, v81
	v_dot2_f32_f16 v82, v0, s92, v82
	v_dot2_f32_f16 v83, v0, s93, v83
	v_dot2_f32_f16 v84, v0, s94, v84
	v_dot2_f32_f16 v85, v0, s95, v85
	v_dot2_f32_f16 v86, v0, s52, v86
	v_dot2_f32_f16 v87, v0, s53, v87
	v_dot2_f32_f16 v88, v0, s54, v88
	v_dot2_f32_f16 v89, v0, s55, v89
	v_dot2_f32_f16 v90, v0, s56, v90
	v_dot2_f32_f16 v91, v0, s57, v91
	v_dot2_f32_f16 v92, v0, s58, v92
	v_dot2_f32_f16 v93, v0, s59, v93
	v_dot2_f32_f16 v94, v0, s60, v94
	v_dot2_f32_f16 v95, v0, s61, v95
	v_dot2_f32_f16 v96, v0, s62, v96
	v_dot2_f32_f16 v97, v0, s63, v97
	v_dot2_f32_f16 v98, v0, s64, v98
	v_dot2_f32_f16 v99, v0, s65, v99
	v_dot2_f32_f16 v131, v0, s66, v131
	v_dot2_f32_f16 v132, v0, s67, v132
	v_dot2_f32_f16 v133, v0, s36, v133
	v_dot2_f32_f16 v134, v0, s37, v134
	v_dot2_f32_f16 v135, v0, s38, v135
	v_dot2_f32_f16 v136, v0, s39, v136
	v_dot2_f32_f16 v140, v0, s40, v140
	v_dot2_f32_f16 v141, v0, s41, v141
	v_dot2_f32_f16 v142, v0, s42, v142
	v_dot2_f32_f16 v143, v0, s43, v143
	v_dot2_f32_f16 v144, v0, s44, v144
	v_dot2_f32_f16 v145, v0, s45, v145
	v_dot2_f32_f16 v146, v0, s46, v146
	v_dot2_f32_f16 v242, v0, s47, v242
	v_dot2_f32_f16 v243, v0, s48, v243
	v_dot2_f32_f16 v244, v0, s49, v244
	v_dot2_f32_f16 v245, v0, s50, v245
	v_dot2_f32_f16 v246, v0, s51, v246
	v_dot2_f32_f16 v247, v0, s12, v247
	v_dot2_f32_f16 v248, v0, s13, v248
	v_dot2_f32_f16 v249, v0, s14, v249
	v_dot2_f32_f16 v250, v0, s15, v250
	v_dot2_f32_f16 v251, v0, s16, v251
	v_dot2_f32_f16 v252, v0, s17, v252
	v_dot2_f32_f16 v253, v0, s18, v253
	v_dot2_f32_f16 v255, v0, s19, v255
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s80, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:352 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:132 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s20, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:132 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:140 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s21, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:140 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:148 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s22, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:148 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:152 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s23, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:152 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:160 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s24, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:160 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:168 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s25, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:168 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:176 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s26, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:176 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:184 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s27, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:184 ; 4-byte Folded Spill
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[4:5], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[4:5], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[4:5], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[4:5], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	buffer_load_dword v67, off, s[96:99], 0 offset:188 ; 4-byte Folded Reload
	s_add_u32 s4, s2, 0x100
	s_addc_u32 s5, s3, 0
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s80, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:188 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:196 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s81, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:196 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:204 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s82, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:204 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:212 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s83, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:212 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:220 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s84, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:220 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:224 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s85, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:224 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:228 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s86, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:228 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:232 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s87, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:232 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:236 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s88, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:236 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:240 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s89, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:240 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:244 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s90, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:244 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:248 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s91, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:248 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:252 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s92, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:252 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:256 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s93, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:256 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:260 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s94, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:260 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:264 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s95, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:264 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:268 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s52, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:268 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:272 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s53, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:272 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:276 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s54, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:276 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:280 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s55, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:280 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:284 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s56, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:284 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:288 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s57, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:288 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:292 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s58, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:292 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:296 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s59, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:296 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:300 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s60, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:300 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:304 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s61, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:304 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:308 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s62, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:308 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:312 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s63, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:312 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:316 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s64, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:316 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:320 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s65, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:320 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:324 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s66, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:324 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:328 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s67, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:328 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:332 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s36, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:332 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:336 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s37, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:336 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:340 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s38, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:340 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:344 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s39, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:344 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:348 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s40, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:348 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:216 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s41, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:216 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:208 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s42, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:208 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:200 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s43, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:200 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:192 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s44, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:192 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:180 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s45, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:180 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:172 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s46, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:172 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:164 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s47, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:164 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:156 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s48, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:156 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:144 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s49, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:144 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:136 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s50, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:136 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:128 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s51, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:128 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:124 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s12, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:124 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:120 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s13, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:120 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:116 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s14, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:116 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:112 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s15, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:112 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:108 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s16, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:108 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:104 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s17, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:104 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:100 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s18, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:100 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:96 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s19, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:96 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:92 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s20, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:92 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:88 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s21, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:88 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:84 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s22, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:84 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:80 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s23, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:80 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:76 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s24, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:76 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:72 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s25, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:72 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:68 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s26, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:68 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:64 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v0, v0, s27, v67
	buffer_store_dword v0, off, s[96:99], 0 offset:64 ; 4-byte Folded Spill
	buffer_load_dword v0, off, s[96:99], 0 offset:28 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_cvt_f16_f32_e32 v0, v0
	buffer_load_dword v67, off, s[96:99], 0 offset:32 ; 4-byte Folded Reload
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[2:3], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[2:3], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[2:3], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[2:3], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	s_add_u32 s2, s2, 0x200
	s_addc_u32 s73, s3, 0
	s_ashr_i32 s3, s2, 31
	s_or_b64 s[2:3], s[72:73], s[2:3]
	s_waitcnt vmcnt(0)
	v_cvt_f16_f32_e32 v67, v67
	v_pack_b32_f16 v0, v0, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:352 ; 4-byte Folded Reload
	v_dot2_f32_f16 v100, v0, s81, v100
	v_dot2_f32_f16 v68, v0, s82, v68
	v_dot2_f32_f16 v69, v0, s83, v69
	v_dot2_f32_f16 v70, v0, s84, v70
	v_dot2_f32_f16 v75, v0, s85, v75
	v_dot2_f32_f16 v76, v0, s86, v76
	v_dot2_f32_f16 v77, v0, s87, v77
	v_dot2_f32_f16 v78, v0, s88, v78
	v_dot2_f32_f16 v79, v0, s89, v79
	v_dot2_f32_f16 v80, v0, s90, v80
	v_dot2_f32_f16 v81, v0, s91, v81
	v_dot2_f32_f16 v82, v0, s92, v82
	v_dot2_f32_f16 v83, v0, s93, v83
	v_dot2_f32_f16 v84, v0, s94, v84
	v_dot2_f32_f16 v85, v0, s95, v85
	v_dot2_f32_f16 v86, v0, s52, v86
	v_dot2_f32_f16 v87, v0, s53, v87
	v_dot2_f32_f16 v88, v0, s54, v88
	v_dot2_f32_f16 v89, v0, s55, v89
	v_dot2_f32_f16 v90, v0, s56, v90
	v_dot2_f32_f16 v91, v0, s57, v91
	v_dot2_f32_f16 v92, v0, s58, v92
	v_dot2_f32_f16 v93, v0, s59, v93
	v_dot2_f32_f16 v94, v0, s60, v94
	v_dot2_f32_f16 v95, v0, s61, v95
	v_dot2_f32_f16 v96, v0, s62, v96
	v_dot2_f32_f16 v97, v0, s63, v97
	v_dot2_f32_f16 v98, v0, s64, v98
	v_dot2_f32_f16 v99, v0, s65, v99
	v_dot2_f32_f16 v131, v0, s66, v131
	v_dot2_f32_f16 v132, v0, s67, v132
	v_dot2_f32_f16 v133, v0, s36, v133
	v_dot2_f32_f16 v134, v0, s37, v134
	v_dot2_f32_f16 v135, v0, s38, v135
	v_dot2_f32_f16 v136, v0, s39, v136
	v_dot2_f32_f16 v140, v0, s40, v140
	v_dot2_f32_f16 v141, v0, s41, v141
	v_dot2_f32_f16 v142, v0, s42, v142
	v_dot2_f32_f16 v143, v0, s43, v143
	v_dot2_f32_f16 v144, v0, s44, v144
	v_dot2_f32_f16 v145, v0, s45, v145
	v_dot2_f32_f16 v146, v0, s46, v146
	v_dot2_f32_f16 v242, v0, s47, v242
	v_dot2_f32_f16 v243, v0, s48, v243
	v_dot2_f32_f16 v244, v0, s49, v244
	v_dot2_f32_f16 v245, v0, s50, v245
	v_dot2_f32_f16 v246, v0, s51, v246
	v_dot2_f32_f16 v247, v0, s12, v247
	v_dot2_f32_f16 v248, v0, s13, v248
	v_dot2_f32_f16 v249, v0, s14, v249
	v_dot2_f32_f16 v250, v0, s15, v250
	v_dot2_f32_f16 v251, v0, s16, v251
	v_dot2_f32_f16 v252, v0, s17, v252
	v_dot2_f32_f16 v253, v0, s18, v253
	v_dot2_f32_f16 v255, v0, s19, v255
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s80, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:352 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:132 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s20, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:356 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:140 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s21, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:360 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:148 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s22, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:456 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:152 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s23, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:460 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:160 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s24, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:464 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:168 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s25, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:468 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:176 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s26, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:472 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:184 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s27, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:184 ; 4-byte Folded Spill
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[4:5], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[4:5], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[4:5], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[4:5], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	buffer_load_dword v67, off, s[96:99], 0 offset:188 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s80, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:476 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:196 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s81, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:480 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:204 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s82, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:484 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:212 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s83, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:488 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:220 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s84, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:492 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:224 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s85, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:496 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:228 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s86, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:500 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:232 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s87, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:232 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:236 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s88, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:504 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:240 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s89, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:240 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:244 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s90, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:508 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:248 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s91, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:512 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:252 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s92, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:516 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:256 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s93, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:520 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:260 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s94, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:524 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:264 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s95, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:528 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:268 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s52, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:532 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:272 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s53, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:536 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:276 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s54, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:540 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:280 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s55, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:280 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:284 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s56, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:544 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:288 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s57, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:548 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:292 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s58, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:292 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:296 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s59, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:552 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:300 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s60, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:556 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:304 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s61, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:304 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:308 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s62, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:308 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:312 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s63, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:312 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:316 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s64, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:316 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:320 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s65, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:560 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:324 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s66, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:564 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:328 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s67, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:568 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:332 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s36, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:572 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:336 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s37, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:576 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:340 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s38, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:580 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:344 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s39, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:584 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:348 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s40, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:588 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:216 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s41, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:592 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:208 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s42, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:596 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:200 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s43, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:600 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:192 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s44, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:604 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:180 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s45, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:608 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:172 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s46, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:612 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:164 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s47, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:616 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:156 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s48, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:620 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:144 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s49, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:624 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:136 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s50, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:628 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:128 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s51, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:632 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:124 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s12, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:636 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:120 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s13, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:640 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:116 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s14, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:644 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:112 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s15, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:648 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:108 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s16, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:652 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:104 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s17, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:656 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:100 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s18, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:660 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:96 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s19, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:664 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:92 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s20, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:668 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:88 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s21, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:672 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:84 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s22, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:676 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:80 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s23, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:680 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:76 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s24, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:684 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:72 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s25, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:688 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:68 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s26, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:692 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:64 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v0, v0, s27, v67
	buffer_store_dword v0, off, s[96:99], 0 offset:696 ; 4-byte Folded Spill
	buffer_load_dword v0, off, s[96:99], 0 offset:36 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_cvt_f16_f32_e32 v0, v0
	buffer_load_dword v67, off, s[96:99], 0 offset:40 ; 4-byte Folded Reload
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[2:3], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[2:3], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[2:3], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[2:3], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	s_add_u32 s2, s2, 0x100
	s_addc_u32 s3, s3, 0
	s_waitcnt vmcnt(0)
	v_cvt_f16_f32_e32 v67, v67
	v_pack_b32_f16 v0, v0, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:352 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s80, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:388 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s81, v100
	buffer_store_dword v67, off, s[96:99], 0 offset:392 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s82, v68
	buffer_store_dword v67, off, s[96:99], 0 offset:396 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s83, v69
	buffer_store_dword v67, off, s[96:99], 0 offset:364 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s84, v70
	buffer_store_dword v67, off, s[96:99], 0 offset:332 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s85, v75
	buffer_store_dword v67, off, s[96:99], 0 offset:320 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s86, v76
	buffer_store_dword v67, off, s[96:99], 0 offset:336 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s87, v77
	buffer_store_dword v67, off, s[96:99], 0 offset:300 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s89, v79
	buffer_store_dword v67, off, s[96:99], 0 offset:168 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s91, v81
	buffer_store_dword v67, off, s[96:99], 0 offset:176 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s92, v82
	buffer_store_dword v67, off, s[96:99], 0 offset:196 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s94, v84
	buffer_store_dword v67, off, s[96:99], 0 offset:264 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s95, v85
	buffer_store_dword v67, off, s[96:99], 0 offset:208 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s52, v86
	buffer_store_dword v67, off, s[96:99], 0 offset:64 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s53, v87
	buffer_store_dword v67, off, s[96:99], 0 offset:68 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s54, v88
	buffer_store_dword v67, off, s[96:99], 0 offset:76 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s55, v89
	buffer_store_dword v67, off, s[96:99], 0 offset:72 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s56, v90
	buffer_store_dword v67, off, s[96:99], 0 offset:80 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s57, v91
	buffer_store_dword v67, off, s[96:99], 0 offset:88 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s58, v92
	buffer_store_dword v67, off, s[96:99], 0 offset:92 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s59, v93
	buffer_store_dword v67, off, s[96:99], 0 offset:84 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s60, v94
	buffer_store_dword v67, off, s[96:99], 0 offset:172 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s61, v95
	buffer_store_dword v67, off, s[96:99], 0 offset:384 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s62, v96
	buffer_store_dword v67, off, s[96:99], 0 offset:376 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s63, v97
	buffer_store_dword v67, off, s[96:99], 0 offset:380 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s64, v98
	buffer_store_dword v67, off, s[96:99], 0 offset:368 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s65, v99
	buffer_store_dword v67, off, s[96:99], 0 offset:372 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s66, v131
	buffer_store_dword v67, off, s[96:99], 0 offset:348 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s67, v132
	buffer_store_dword v67, off, s[96:99], 0 offset:352 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s40, v140
	buffer_store_dword v67, off, s[96:99], 0 offset:180 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s41, v141
	buffer_store_dword v67, off, s[96:99], 0 offset:220 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s42, v142
	buffer_store_dword v67, off, s[96:99], 0 offset:224 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s43, v143
	buffer_store_dword v67, off, s[96:99], 0 offset:252 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s44, v144
	buffer_store_dword v67, off, s[96:99], 0 offset:120 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s45, v145
	buffer_store_dword v67, off, s[96:99], 0 offset:112 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s46, v146
	buffer_store_dword v67, off, s[96:99], 0 offset:116 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s47, v242
	buffer_store_dword v67, off, s[96:99], 0 offset:96 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s48, v243
	buffer_store_dword v67, off, s[96:99], 0 offset:108 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s49, v244
	buffer_store_dword v67, off, s[96:99], 0 offset:100 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s50, v245
	buffer_store_dword v67, off, s[96:99], 0 offset:104 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s51, v246
	buffer_store_dword v67, off, s[96:99], 0 offset:132 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s12, v247
	buffer_store_dword v67, off, s[96:99], 0 offset:124 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s13, v248
	buffer_store_dword v67, off, s[96:99], 0 offset:128 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s14, v249
	buffer_store_dword v67, off, s[96:99], 0 offset:136 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s15, v250
	buffer_store_dword v67, off, s[96:99], 0 offset:140 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s16, v251
	buffer_store_dword v67, off, s[96:99], 0 offset:144 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s17, v252
	buffer_store_dword v67, off, s[96:99], 0 offset:148 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s18, v253
	buffer_store_dword v67, off, s[96:99], 0 offset:156 ; 4-byte Folded Spill
	v_dot2_f32_f16 v67, v0, s19, v255
	buffer_store_dword v67, off, s[96:99], 0 offset:152 ; 4-byte Folded Spill
	buffer_load_dword v69, off, s[96:99], 0 offset:444 ; 4-byte Folded Reload
	buffer_load_dword v98, off, s[96:99], 0 offset:700 ; 4-byte Folded Reload
	buffer_load_dword v245, off, s[96:99], 0 offset:712 ; 4-byte Folded Reload
	buffer_load_dword v247, off, s[96:99], 0 offset:704 ; 4-byte Folded Reload
	buffer_load_dword v249, off, s[96:99], 0 offset:448 ; 4-byte Folded Reload
	buffer_load_dword v250, off, s[96:99], 0 offset:452 ; 4-byte Folded Reload
	buffer_load_dword v251, off, s[96:99], 0 offset:408 ; 4-byte Folded Reload
	buffer_load_dword v252, off, s[96:99], 0 offset:44 ; 4-byte Folded Reload
	buffer_load_dword v255, off, s[96:99], 0 offset:708 ; 4-byte Folded Reload
	buffer_load_dword v67, off, s[96:99], 0 offset:356 ; 4-byte Folded Reload
	v_dot2_f32_f16 v77, v0, s88, v78
	v_dot2_f32_f16 v70, v0, s90, v80
	v_dot2_f32_f16 v76, v0, s93, v83
	v_dot2_f32_f16 v89, v0, s36, v133
	v_dot2_f32_f16 v131, v0, s37, v134
	v_dot2_f32_f16 v93, v0, s38, v135
	v_dot2_f32_f16 v132, v0, s39, v136
	v_mov_b32_e32 v246, 0xff800000
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s20, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:160 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:360 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s21, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:164 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:456 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s22, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:188 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:460 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s23, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:192 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:464 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s24, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:200 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:468 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s25, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:204 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:472 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s26, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:216 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:184 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s27, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:228 ; 4-byte Folded Spill
	;;#ASMSTART
	s_load_dwordx16 s[80:95], s[2:3], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], s[2:3], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], s[2:3], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], s[2:3], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	buffer_load_dword v67, off, s[96:99], 0 offset:476 ; 4-byte Folded Reload
	buffer_load_dword v68, off, s[96:99], 0 offset:644 ; 4-byte Folded Reload
	buffer_load_dword v75, off, s[96:99], 0 offset:648 ; 4-byte Folded Reload
	buffer_load_dword v78, off, s[96:99], 0 offset:664 ; 4-byte Folded Reload
	buffer_load_dword v88, off, s[96:99], 0 offset:668 ; 4-byte Folded Reload
	buffer_load_dword v99, off, s[96:99], 0 offset:692 ; 4-byte Folded Reload
	buffer_load_dword v100, off, s[96:99], 0 offset:696 ; 4-byte Folded Reload
	buffer_load_dword v248, off, s[96:99], 0 offset:404 ; 4-byte Folded Reload
	s_mov_b64 s[2:3], 0
	s_waitcnt vmcnt(7)
	v_dot2_f32_f16 v67, v0, s80, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:184 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:480 ; 4-byte Folded Reload
	s_waitcnt vmcnt(7)
	v_dot2_f32_f16 v81, v0, s15, v75
	s_waitcnt vmcnt(5)
	v_dot2_f32_f16 v140, v0, s20, v88
	buffer_load_dword v88, off, s[96:99], 0 offset:672 ; 4-byte Folded Reload
	buffer_load_dword v75, off, s[96:99], 0 offset:652 ; 4-byte Folded Reload
	v_dot2_f32_f16 v68, v0, s14, v68
	v_dot2_f32_f16 v78, v0, s19, v78
	s_waitcnt vmcnt(6)
	v_dot2_f32_f16 v99, v0, s26, v99
	s_waitcnt vmcnt(5)
	v_dot2_f32_f16 v146, v0, s27, v100
	s_waitcnt vmcnt(2)
	v_dot2_f32_f16 v67, v0, s81, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:212 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:484 ; 4-byte Folded Reload
	s_waitcnt vmcnt(3)
	v_dot2_f32_f16 v142, v0, s21, v88
	buffer_load_dword v88, off, s[96:99], 0 offset:676 ; 4-byte Folded Reload
	s_waitcnt vmcnt(3)
	v_dot2_f32_f16 v80, v0, s16, v75
	buffer_load_dword v75, off, s[96:99], 0 offset:656 ; 4-byte Folded Reload
	s_waitcnt vmcnt(2)
	v_dot2_f32_f16 v67, v0, s82, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:236 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:488 ; 4-byte Folded Reload
	s_waitcnt vmcnt(3)
	v_dot2_f32_f16 v94, v0, s22, v88
	buffer_load_dword v88, off, s[96:99], 0 offset:680 ; 4-byte Folded Reload
	s_waitcnt vmcnt(3)
	v_dot2_f32_f16 v87, v0, s17, v75
	buffer_load_dword v75, off, s[96:99], 0 offset:660 ; 4-byte Folded Reload
	s_waitcnt vmcnt(2)
	v_dot2_f32_f16 v67, v0, s83, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:244 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:492 ; 4-byte Folded Reload
	s_waitcnt vmcnt(3)
	v_dot2_f32_f16 v96, v0, s23, v88
	buffer_load_dword v88, off, s[96:99], 0 offset:684 ; 4-byte Folded Reload
	s_waitcnt vmcnt(3)
	v_dot2_f32_f16 v75, v0, s18, v75
	s_waitcnt vmcnt(1)
	v_dot2_f32_f16 v67, v0, s84, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:256 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:496 ; 4-byte Folded Reload
	s_waitcnt vmcnt(2)
	v_dot2_f32_f16 v97, v0, s24, v88
	buffer_load_dword v88, off, s[96:99], 0 offset:688 ; 4-byte Folded Reload
	s_waitcnt vmcnt(1)
	v_dot2_f32_f16 v67, v0, s85, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:272 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:500 ; 4-byte Folded Reload
	s_waitcnt vmcnt(2)
	v_dot2_f32_f16 v88, v0, s25, v88
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s86, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:276 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:232 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s87, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:288 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:504 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s88, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:232 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:240 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s89, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:240 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:508 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s90, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:248 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:512 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s91, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:260 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:516 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s92, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:268 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:520 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s93, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:284 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:524 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s94, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:296 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:528 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v86, v0, s95, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:532 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s52, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:340 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:536 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s53, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:356 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:540 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s54, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:360 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:280 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v136, v0, s55, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:544 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s56, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:280 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:548 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v141, v0, s57, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:292 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v134, v0, s58, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:552 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v143, v0, s59, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:556 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s60, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:292 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:304 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s61, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:304 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:308 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s62, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:308 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:312 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s63, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:312 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:316 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s64, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:316 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:560 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s65, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:324 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:564 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s66, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:328 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:568 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s67, v67
	buffer_store_dword v67, off, s[96:99], 0 offset:344 ; 4-byte Folded Spill
	buffer_load_dword v67, off, s[96:99], 0 offset:572 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v253, v0, s36, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:576 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v242, v0, s37, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:580 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v243, v0, s38, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:584 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v79, v0, s39, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:588 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v82, v0, s40, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:592 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v244, v0, s41, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:596 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v91, v0, s42, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:600 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v84, v0, s43, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:604 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v95, v0, s44, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:608 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v90, v0, s45, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:612 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v144, v0, s46, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:616 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v145, v0, s47, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:620 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v83, v0, s48, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:624 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v133, v0, s49, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:628 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v135, v0, s50, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:632 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v92, v0, s51, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:636 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v85, v0, s12, v67
	buffer_load_dword v67, off, s[96:99], 0 offset:640 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_dot2_f32_f16 v67, v0, s13, v67
	s_branch .LBB1_18
.LBB1_17:                               ;   in Loop: Header=BB1_15 Depth=2
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
	s_mov_b64 s[2:3], -1
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr77
                                        ; implicit-def: $vgpr70
                                        ; implicit-def: $vgpr76
                                        ; implicit-def: $vgpr89
                                        ; implicit-def: $vgpr131
                                        ; implicit-def: $vgpr93
                                        ; implicit-def: $vgpr132
                                        ; implicit-def: $vgpr86
                                        ; implicit-def: $vgpr136
                                        ; implicit-def: $vgpr141
                                        ; implicit-def: $vgpr134
                                        ; implicit-def: $vgpr143
                                        ; implicit-def: $vgpr253
                                        ; implicit-def: $vgpr242
                                        ; implicit-def: $vgpr243
                                        ; implicit-def: $vgpr79
                                        ; implicit-def: $vgpr82
                                        ; implicit-def: $vgpr244
                                        ; implicit-def: $vgpr91
                                        ; implicit-def: $vgpr84
                                        ; implicit-def: $vgpr95
                                        ; implicit-def: $vgpr90
                                        ; implicit-def: $vgpr144
                                        ; implicit-def: $vgpr145
                                        ; implicit-def: $vgpr83
                                        ; implicit-def: $vgpr133
                                        ; implicit-def: $vgpr135
                                        ; implicit-def: $vgpr92
                                        ; implicit-def: $vgpr85
                                        ; implicit-def: $vgpr67
                                        ; implicit-def: $vgpr68
                                        ; implicit-def: $vgpr81
                                        ; implicit-def: $vgpr80
                                        ; implicit-def: $vgpr87
                                        ; implicit-def: $vgpr75
                                        ; implicit-def: $vgpr78
                                        ; implicit-def: $vgpr140
                                        ; implicit-def: $vgpr142
                                        ; implicit-def: $vgpr94
                                        ; implicit-def: $vgpr96
                                        ; implicit-def: $vgpr97
                                        ; implicit-def: $vgpr88
                                        ; implicit-def: $vgpr99
                                        ; implicit-def: $vgpr146
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
                                        ; implicit-def: $vgpr0
                                        ; kill: killed $vgpr0
.LBB1_18:                               ;   in Loop: Header=BB1_15 Depth=2
	buffer_load_dword v100, off, s[96:99], 0 offset:60 ; 4-byte Folded Reload
	v_readlane_b32 s24, v1, 32
	v_readlane_b32 s25, v1, 33
	v_readlane_b32 s26, v1, 34
	v_readlane_b32 s27, v1, 35
	v_readlane_b32 s28, v1, 36
	v_readlane_b32 s29, v1, 37
	v_readlane_b32 s30, v1, 38
	v_readlane_b32 s31, v1, 39
	s_andn2_b64 vcc, exec, s[2:3]
	s_cbranch_vccnz .LBB1_22
; %bb.19:                               ;   in Loop: Header=BB1_15 Depth=2
	buffer_load_dword v0, off, s[96:99], 0 offset:400 ; 4-byte Folded Reload
	v_mov_b32_e32 v252, v251
	v_mov_b32_e32 v251, v250
	v_mov_b32_e32 v250, v249
	v_mov_b32_e32 v249, v69
	s_mov_b32 s2, -2
	s_waitcnt vmcnt(0)
	v_xor_b32_e32 v0, 0x80000000, v0
.LBB1_20:                               ;   Parent Loop BB1_4 Depth=1
                                        ;     Parent Loop BB1_15 Depth=2
                                        ; =>    This Inner Loop Header: Depth=3
	v_add_u32_e32 v67, s2, v100
	v_add_u32_e32 v68, 2, v67
	v_add_u32_e32 v67, 3, v67
	;;#ASMSTART
	s_load_dwordx16 s[12:27], v[71:72], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], v[71:72], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], v[71:72], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[80:95], v[71:72], 0xc0
	;;#ASMEND
	v_cmp_gt_u32_e64 s[4:5], v67, v255
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	v_dot2_f32_f16 v67, v3, s12, 0
	v_dot2_f32_f16 v67, v4, s13, v67
	v_dot2_f32_f16 v67, v5, s14, v67
	v_dot2_f32_f16 v67, v6, s15, v67
	v_dot2_f32_f16 v67, v7, s16, v67
	v_dot2_f32_f16 v67, v8, s17, v67
	v_dot2_f32_f16 v67, v9, s18, v67
	v_dot2_f32_f16 v67, v10, s19, v67
	v_dot2_f32_f16 v67, v11, s20, v67
	v_dot2_f32_f16 v67, v12, s21, v67
	v_dot2_f32_f16 v67, v13, s22, v67
	v_dot2_f32_f16 v67, v14, s23, v67
	v_dot2_f32_f16 v67, v15, s24, v67
	v_dot2_f32_f16 v67, v16, s25, v67
	v_dot2_f32_f16 v67, v17, s26, v67
	v_dot2_f32_f16 v67, v18, s27, v67
	v_dot2_f32_f16 v67, v19, s36, v67
	v_dot2_f32_f16 v67, v20, s37, v67
	v_dot2_f32_f16 v67, v21, s38, v67
	v_dot2_f32_f16 v67, v22, s39, v67
	v_dot2_f32_f16 v67, v23, s40, v67
	v_dot2_f32_f16 v67, v24, s41, v67
	v_dot2_f32_f16 v67, v25, s42, v67
	v_dot2_f32_f16 v67, v26, s43, v67
	v_dot2_f32_f16 v67, v27, s44, v67
	v_dot2_f32_f16 v67, v28, s45, v67
	v_dot2_f32_f16 v67, v29, s46, v67
	v_dot2_f32_f16 v67, v30, s47, v67
	v_dot2_f32_f16 v67, v31, s48, v67
	v_dot2_f32_f16 v67, v32, s49, v67
	v_dot2_f32_f16 v67, v33, s50, v67
	v_dot2_f32_f16 v67, v34, s51, v67
	v_dot2_f32_f16 v67, v35, s52, v67
	v_dot2_f32_f16 v67, v36, s53, v67
	v_dot2_f32_f16 v67, v37, s54, v67
	v_dot2_f32_f16 v67, v38, s55, v67
	v_dot2_f32_f16 v67, v39, s56, v67
	v_dot2_f32_f16 v67, v40, s57, v67
	v_dot2_f32_f16 v67, v41, s58, v67
	v_dot2_f32_f16 v67, v42, s59, v67
	v_dot2_f32_f16 v67, v43, s60, v67
	v_dot2_f32_f16 v67, v44, s61, v67
	v_dot2_f32_f16 v67, v45, s62, v67
	v_dot2_f32_f16 v67, v46, s63, v67
	v_dot2_f32_f16 v67, v47, s64, v67
	v_dot2_f32_f16 v67, v48, s65, v67
	v_dot2_f32_f16 v67, v49, s66, v67
	v_dot2_f32_f16 v67, v50, s67, v67
	v_dot2_f32_f16 v67, v51, s80, v67
	v_dot2_f32_f16 v67, v52, s81, v67
	v_dot2_f32_f16 v67, v53, s82, v67
	v_dot2_f32_f16 v67, v54, s83, v67
	v_dot2_f32_f16 v67, v55, s84, v67
	v_dot2_f32_f16 v67, v56, s85, v67
	v_dot2_f32_f16 v67, v57, s86, v67
	v_dot2_f32_f16 v67, v58, s87, v67
	v_dot2_f32_f16 v67, v59, s88, v67
	v_dot2_f32_f16 v67, v60, s89, v67
	v_dot2_f32_f16 v67, v61, s90, v67
	v_dot2_f32_f16 v67, v62, s91, v67
	v_dot2_f32_f16 v67, v63, s92, v67
	v_dot2_f32_f16 v67, v64, s93, v67
	v_dot2_f32_f16 v67, v65, s94, v67
	v_dot2_f32_f16 v69, v66, s95, v67
	v_add_co_u32_e64 v67, s[6:7], s78, v71
	v_cmp_gt_u32_e32 vcc, v68, v255
	v_addc_co_u32_e64 v68, s[6:7], 0, v72, s[6:7]
	;;#ASMSTART
	s_load_dwordx16 s[12:27], v[67:68], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], v[67:68], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], v[67:68], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[80:95], v[67:68], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	v_dot2_f32_f16 v67, v3, s12, 0
	v_dot2_f32_f16 v67, v4, s13, v67
	v_dot2_f32_f16 v67, v5, s14, v67
	v_dot2_f32_f16 v67, v6, s15, v67
	v_dot2_f32_f16 v67, v7, s16, v67
	v_dot2_f32_f16 v67, v8, s17, v67
	v_dot2_f32_f16 v67, v9, s18, v67
	v_dot2_f32_f16 v67, v10, s19, v67
	v_dot2_f32_f16 v67, v11, s20, v67
	v_dot2_f32_f16 v67, v12, s21, v67
	v_dot2_f32_f16 v67, v13, s22, v67
	v_dot2_f32_f16 v67, v14, s23, v67
	v_dot2_f32_f16 v67, v15, s24, v67
	v_dot2_f32_f16 v67, v16, s25, v67
	v_dot2_f32_f16 v67, v17, s26, v67
	v_dot2_f32_f16 v67, v18, s27, v67
	v_dot2_f32_f16 v67, v19, s36, v67
	v_dot2_f32_f16 v67, v20, s37, v67
	v_dot2_f32_f16 v67, v21, s38, v67
	v_dot2_f32_f16 v67, v22, s39, v67
	v_dot2_f32_f16 v67, v23, s40, v67
	v_dot2_f32_f16 v67, v24, s41, v67
	v_dot2_f32_f16 v67, v25, s42, v67
	v_dot2_f32_f16 v67, v26, s43, v67
	v_dot2_f32_f16 v67, v27, s44, v67
	v_dot2_f32_f16 v67, v28, s45, v67
	v_dot2_f32_f16 v67, v29, s46, v67
	v_dot2_f32_f16 v67, v30, s47, v67
	v_dot2_f32_f16 v67, v31, s48, v67
	v_dot2_f32_f16 v67, v32, s49, v67
	v_dot2_f32_f16 v67, v33, s50, v67
	v_dot2_f32_f16 v67, v34, s51, v67
	v_dot2_f32_f16 v67, v35, s52, v67
	v_dot2_f32_f16 v67, v36, s53, v67
	v_dot2_f32_f16 v67, v37, s54, v67
	v_dot2_f32_f16 v67, v38, s55, v67
	v_dot2_f32_f16 v67, v39, s56, v67
	v_dot2_f32_f16 v67, v40, s57, v67
	v_dot2_f32_f16 v67, v41, s58, v67
	v_dot2_f32_f16 v67, v42, s59, v67
	v_dot2_f32_f16 v67, v43, s60, v67
	v_dot2_f32_f16 v67, v44, s61, v67
	v_dot2_f32_f16 v67, v45, s62, v67
	v_dot2_f32_f16 v67, v46, s63, v67
	v_dot2_f32_f16 v67, v47, s64, v67
	v_dot2_f32_f16 v67, v48, s65, v67
	v_dot2_f32_f16 v67, v49, s66, v67
	v_dot2_f32_f16 v67, v50, s67, v67
	v_dot2_f32_f16 v67, v51, s80, v67
	v_dot2_f32_f16 v67, v52, s81, v67
	v_dot2_f32_f16 v67, v53, s82, v67
	v_dot2_f32_f16 v67, v54, s83, v67
	v_dot2_f32_f16 v67, v55, s84, v67
	v_dot2_f32_f16 v67, v56, s85, v67
	v_dot2_f32_f16 v67, v57, s86, v67
	v_dot2_f32_f16 v67, v58, s87, v67
	v_dot2_f32_f16 v67, v59, s88, v67
	v_dot2_f32_f16 v67, v60, s89, v67
	v_dot2_f32_f16 v67, v61, s90, v67
	v_dot2_f32_f16 v67, v62, s91, v67
	v_dot2_f32_f16 v67, v63, s92, v67
	v_dot2_f32_f16 v67, v64, s93, v67
	v_dot2_f32_f16 v67, v65, s94, v67
	v_fma_f32 v68, v69, v245, v0
	v_dot2_f32_f16 v67, v66, s95, v67
	v_exp_f32_e32 v68, v68
	v_fma_f32 v67, v67, v245, v0
	v_exp_f32_e32 v67, v67
	;;#ASMSTART
	s_load_dwordx16 s[80:95], v[73:74], 0
	;;#ASMEND
	v_cvt_f16_f32_e32 v68, v68
	;;#ASMSTART
	s_load_dwordx16 s[52:67], v[73:74], 64
	;;#ASMEND
	v_cvt_f16_f32_e32 v69, v67
	;;#ASMSTART
	s_load_dwordx16 s[36:51], v[73:74], 0x80
	;;#ASMEND
	v_cvt_f32_f16_e32 v67, v68
	;;#ASMSTART
	s_load_dwordx16 s[12:27], v[73:74], 0xc0
	;;#ASMEND
	v_cvt_f32_f16_e32 v68, v69
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	v_cndmask_b32_e64 v67, v67, 0, vcc
	v_fma_mix_f32 v69, v67, s80, v105 op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v68, v68, 0, s[4:5]
	v_cndmask_b32_e32 v69, v69, v105, vcc
	v_fma_mix_f32 v70, v68, s80, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v105, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s81, v104 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v104, vcc
	v_fma_mix_f32 v70, v68, s81, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v104, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s82, v103 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v103, vcc
	v_fma_mix_f32 v70, v68, s82, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v103, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s83, v102 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v102, vcc
	v_fma_mix_f32 v70, v68, s83, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v102, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s84, v101 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v101, vcc
	v_fma_mix_f32 v70, v68, s84, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v101, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s85, v106 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v106, vcc
	v_fma_mix_f32 v70, v68, s85, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v106, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s86, v107 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v107, vcc
	v_fma_mix_f32 v70, v68, s86, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v107, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s87, v108 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v108, vcc
	v_fma_mix_f32 v70, v68, s87, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v108, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s88, v109 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v109, vcc
	v_fma_mix_f32 v70, v68, s88, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v109, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s89, v110 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v110, vcc
	v_fma_mix_f32 v70, v68, s89, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v110, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s90, v111 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v111, vcc
	v_fma_mix_f32 v70, v68, s90, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v111, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s91, v112 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v112, vcc
	v_fma_mix_f32 v70, v68, s91, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v112, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s92, v113 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v113, vcc
	v_fma_mix_f32 v70, v68, s92, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v113, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s93, v114 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v114, vcc
	v_fma_mix_f32 v70, v68, s93, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v114, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s94, v115 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v115, vcc
	v_fma_mix_f32 v70, v68, s94, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v115, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s95, v116 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v116, vcc
	v_fma_mix_f32 v70, v68, s95, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v116, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s52, v117 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v117, vcc
	v_fma_mix_f32 v70, v68, s52, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v117, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s53, v118 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v118, vcc
	v_fma_mix_f32 v70, v68, s53, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v118, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s54, v119 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v119, vcc
	v_fma_mix_f32 v70, v68, s54, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v119, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s55, v120 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v120, vcc
	v_fma_mix_f32 v70, v68, s55, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v120, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s56, v121 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v121, vcc
	v_fma_mix_f32 v70, v68, s56, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v121, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s57, v122 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v122, vcc
	v_fma_mix_f32 v70, v68, s57, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v122, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s58, v123 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v123, vcc
	v_fma_mix_f32 v70, v68, s58, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v123, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s59, v124 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v124, vcc
	v_fma_mix_f32 v70, v68, s59, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v124, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s60, v125 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v125, vcc
	v_fma_mix_f32 v70, v68, s60, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v125, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s61, v126 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v126, vcc
	v_fma_mix_f32 v70, v68, s61, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v126, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s62, v127 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v127, vcc
	v_fma_mix_f32 v70, v68, s62, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v127, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s63, v128 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v128, vcc
	v_fma_mix_f32 v70, v68, s63, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v128, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s64, v129 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v129, vcc
	v_fma_mix_f32 v70, v68, s64, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v129, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s65, v130 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v130, vcc
	v_fma_mix_f32 v70, v68, s65, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v130, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s66, v137 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v137, vcc
	v_fma_mix_f32 v70, v68, s66, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v137, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s67, v138 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v138, vcc
	v_fma_mix_f32 v70, v68, s67, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v138, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s36, v139 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v139, vcc
	v_fma_mix_f32 v70, v68, s36, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v139, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s37, v147 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v147, vcc
	v_fma_mix_f32 v70, v68, s37, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v147, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s38, v148 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v148, vcc
	v_fma_mix_f32 v70, v68, s38, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v148, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s39, v149 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v149, vcc
	v_fma_mix_f32 v70, v68, s39, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v149, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s40, v150 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v150, vcc
	v_fma_mix_f32 v70, v68, s40, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v150, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s41, v151 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v151, vcc
	v_fma_mix_f32 v70, v68, s41, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v151, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s42, v152 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v152, vcc
	v_fma_mix_f32 v70, v68, s42, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v152, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s43, v153 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v153, vcc
	v_fma_mix_f32 v70, v68, s43, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v153, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s44, v154 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v154, vcc
	v_fma_mix_f32 v70, v68, s44, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v154, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s45, v155 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v155, vcc
	v_fma_mix_f32 v70, v68, s45, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v155, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s46, v156 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v156, vcc
	v_fma_mix_f32 v70, v68, s46, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v156, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s47, v157 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v157, vcc
	v_fma_mix_f32 v70, v68, s47, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v157, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s48, v158 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v158, vcc
	v_fma_mix_f32 v70, v68, s48, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v158, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s49, v159 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v159, vcc
	v_fma_mix_f32 v70, v68, s49, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v159, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s50, v160 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v160, vcc
	v_fma_mix_f32 v70, v68, s50, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v160, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s51, v161 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v161, vcc
	v_fma_mix_f32 v70, v68, s51, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v161, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s12, v162 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v162, vcc
	v_fma_mix_f32 v70, v68, s12, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v162, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s13, v163 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v163, vcc
	v_fma_mix_f32 v70, v68, s13, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v163, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s14, v164 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v164, vcc
	v_fma_mix_f32 v70, v68, s14, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v164, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s15, v165 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v165, vcc
	v_fma_mix_f32 v70, v68, s15, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v165, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s16, v166 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v166, vcc
	v_fma_mix_f32 v70, v68, s16, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v166, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s17, v167 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v167, vcc
	v_fma_mix_f32 v70, v68, s17, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v167, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s18, v168 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v168, vcc
	v_fma_mix_f32 v70, v68, s18, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v168, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s19, v169 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v169, vcc
	v_fma_mix_f32 v70, v68, s19, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v169, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s20, v170 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v170, vcc
	v_fma_mix_f32 v70, v68, s20, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v170, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s21, v171 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v171, vcc
	v_fma_mix_f32 v70, v68, s21, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v171, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s22, v172 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v172, vcc
	v_fma_mix_f32 v70, v68, s22, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v172, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s23, v173 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v173, vcc
	v_fma_mix_f32 v70, v68, s23, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v173, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s24, v174 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v174, vcc
	v_fma_mix_f32 v70, v68, s24, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v174, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s25, v175 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v175, vcc
	v_fma_mix_f32 v70, v68, s25, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v175, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s26, v176 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v176, vcc
	v_fma_mix_f32 v70, v68, s26, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v176, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s27, v177 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v177, vcc
	v_fma_mix_f32 v70, v68, s27, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v177, v70, v69, s[4:5]
	v_add_co_u32_e64 v69, s[6:7], s78, v73
	v_addc_co_u32_e64 v70, s[6:7], 0, v74, s[6:7]
	;;#ASMSTART
	s_load_dwordx16 s[80:95], v[69:70], 0
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[52:67], v[69:70], 64
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[36:51], v[69:70], 0x80
	;;#ASMEND
	;;#ASMSTART
	s_load_dwordx16 s[12:27], v[69:70], 0xc0
	;;#ASMEND
	;;#ASMSTART
	s_waitcnt lgkmcnt(0)
	;;#ASMEND
	v_fma_mix_f32 v69, v67, s80, v178 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v178, vcc
	v_fma_mix_f32 v70, v68, s80, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v178, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s81, v179 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v179, vcc
	v_fma_mix_f32 v70, v68, s81, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v179, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s82, v180 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v180, vcc
	v_fma_mix_f32 v70, v68, s82, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v180, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s83, v181 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v181, vcc
	v_fma_mix_f32 v70, v68, s83, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v181, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s84, v182 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v182, vcc
	v_fma_mix_f32 v70, v68, s84, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v182, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s85, v183 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v183, vcc
	v_fma_mix_f32 v70, v68, s85, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v183, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s86, v184 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v184, vcc
	v_fma_mix_f32 v70, v68, s86, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v184, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s87, v185 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v185, vcc
	v_fma_mix_f32 v70, v68, s87, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v185, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s88, v186 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v186, vcc
	v_fma_mix_f32 v70, v68, s88, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v186, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s89, v187 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v187, vcc
	v_fma_mix_f32 v70, v68, s89, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v187, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s90, v188 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v188, vcc
	v_fma_mix_f32 v70, v68, s90, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v188, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s91, v189 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v189, vcc
	v_fma_mix_f32 v70, v68, s91, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v189, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s92, v190 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v190, vcc
	v_fma_mix_f32 v70, v68, s92, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v190, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s93, v191 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v191, vcc
	v_fma_mix_f32 v70, v68, s93, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v191, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s94, v192 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v192, vcc
	v_fma_mix_f32 v70, v68, s94, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v192, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s95, v193 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v193, vcc
	v_fma_mix_f32 v70, v68, s95, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v193, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s52, v194 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v194, vcc
	v_fma_mix_f32 v70, v68, s52, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v194, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s53, v195 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v195, vcc
	v_fma_mix_f32 v70, v68, s53, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v195, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s54, v196 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v196, vcc
	v_fma_mix_f32 v70, v68, s54, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v196, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s55, v197 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v197, vcc
	v_fma_mix_f32 v70, v68, s55, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v197, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s56, v198 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v198, vcc
	v_fma_mix_f32 v70, v68, s56, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v198, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s57, v199 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v199, vcc
	v_fma_mix_f32 v70, v68, s57, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v199, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s58, v200 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v200, vcc
	v_fma_mix_f32 v70, v68, s58, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v200, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s59, v201 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v201, vcc
	v_fma_mix_f32 v70, v68, s59, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v201, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s60, v202 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v202, vcc
	v_fma_mix_f32 v70, v68, s60, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v202, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s61, v203 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v203, vcc
	v_fma_mix_f32 v70, v68, s61, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v203, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s62, v204 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v204, vcc
	v_fma_mix_f32 v70, v68, s62, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v204, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s63, v205 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v205, vcc
	v_fma_mix_f32 v70, v68, s63, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v205, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s64, v206 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v206, vcc
	v_fma_mix_f32 v70, v68, s64, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v206, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s65, v207 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v207, vcc
	v_fma_mix_f32 v70, v68, s65, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v207, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s66, v208 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v208, vcc
	v_fma_mix_f32 v70, v68, s66, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v208, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s67, v209 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v209, vcc
	v_fma_mix_f32 v70, v68, s67, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v209, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s36, v210 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v210, vcc
	v_fma_mix_f32 v70, v68, s36, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v210, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s37, v211 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v211, vcc
	v_fma_mix_f32 v70, v68, s37, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v211, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s38, v212 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v212, vcc
	v_fma_mix_f32 v70, v68, s38, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v212, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s39, v213 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v213, vcc
	v_fma_mix_f32 v70, v68, s39, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v213, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s40, v214 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v214, vcc
	v_fma_mix_f32 v70, v68, s40, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v214, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s41, v215 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v215, vcc
	v_fma_mix_f32 v70, v68, s41, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v215, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s42, v216 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v216, vcc
	v_fma_mix_f32 v70, v68, s42, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v216, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s43, v217 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v217, vcc
	v_fma_mix_f32 v70, v68, s43, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v217, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s44, v218 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v218, vcc
	v_fma_mix_f32 v70, v68, s44, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v218, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s45, v219 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v219, vcc
	v_fma_mix_f32 v70, v68, s45, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v219, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s46, v220 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v220, vcc
	v_fma_mix_f32 v70, v68, s46, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v220, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s47, v221 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v221, vcc
	v_fma_mix_f32 v70, v68, s47, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v221, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s48, v222 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v222, vcc
	v_fma_mix_f32 v70, v68, s48, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v222, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s49, v223 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v223, vcc
	v_fma_mix_f32 v70, v68, s49, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v223, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s50, v224 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v224, vcc
	v_fma_mix_f32 v70, v68, s50, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v224, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s51, v225 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v225, vcc
	v_fma_mix_f32 v70, v68, s51, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v225, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s12, v226 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v226, vcc
	v_fma_mix_f32 v70, v68, s12, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v226, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s13, v227 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v227, vcc
	v_fma_mix_f32 v70, v68, s13, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v227, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s14, v228 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v228, vcc
	v_fma_mix_f32 v70, v68, s14, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v228, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s15, v229 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v229, vcc
	v_fma_mix_f32 v70, v68, s15, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v229, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s16, v230 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v230, vcc
	v_fma_mix_f32 v70, v68, s16, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v230, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s17, v231 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v231, vcc
	v_fma_mix_f32 v70, v68, s17, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v231, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s18, v232 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v232, vcc
	v_fma_mix_f32 v70, v68, s18, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v232, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s19, v233 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v233, vcc
	v_fma_mix_f32 v70, v68, s19, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v233, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s20, v234 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v234, vcc
	v_fma_mix_f32 v70, v68, s20, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v234, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s21, v235 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v235, vcc
	v_fma_mix_f32 v70, v68, s21, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v235, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s22, v236 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v236, vcc
	v_fma_mix_f32 v70, v68, s22, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v236, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s23, v237 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v237, vcc
	v_fma_mix_f32 v70, v68, s23, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v237, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s24, v238 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v238, vcc
	v_fma_mix_f32 v70, v68, s24, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v238, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s25, v239 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v239, vcc
	v_fma_mix_f32 v70, v68, s25, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v239, v70, v69, s[4:5]
	v_fma_mix_f32 v69, v67, s26, v241 op_sel_hi:[0,1,0]
	v_fma_mix_f32 v67, v67, s27, v240 op_sel_hi:[0,1,0]
	v_cndmask_b32_e32 v69, v69, v241, vcc
	v_cndmask_b32_e32 v67, v67, v240, vcc
	v_fma_mix_f32 v70, v68, s26, v69 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_fma_mix_f32 v68, v68, s27, v67 op_sel:[0,1,0] op_sel_hi:[0,1,0]
	v_cndmask_b32_e64 v240, v68, v67, s[4:5]
	v_add_co_u32_e32 v67, vcc, s33, v71
	v_addc_co_u32_e32 v68, vcc, 0, v72, vcc
	v_cndmask_b32_e64 v241, v70, v69, s[4:5]
	v_readfirstlane_b32 s4, v67
	v_add_co_u32_e32 v67, vcc, s33, v73
	s_ashr_i32 s5, s4, 31
	v_readfirstlane_b32 s73, v68
	v_addc_co_u32_e32 v68, vcc, 0, v74, vcc
	v_readfirstlane_b32 s6, v67
	s_or_b64 s[4:5], s[72:73], s[4:5]
	s_ashr_i32 s7, s6, 31
	v_readfirstlane_b32 s73, v68
	s_or_b64 s[6:7], s[72:73], s[6:7]
	s_add_i32 s2, s2, 2
	v_mov_b32_e32 v72, s5
	v_mov_b32_e32 v74, s7
	s_cmp_lt_u32 s2, 14
	v_mov_b32_e32 v71, s4
	v_mov_b32_e32 v73, s6
	s_cbranch_scc1 .LBB1_20
; %bb.21:                               ;   in Loop: Header=BB1_15 Depth=2
	buffer_store_dword v105, off, s[96:99], 0 offset:388 ; 4-byte Folded Spill
	buffer_store_dword v104, off, s[96:99], 0 offset:392 ; 4-byte Folded Spill
	buffer_store_dword v103, off, s[96:99], 0 offset:396 ; 4-byte Folded Spill
	buffer_store_dword v102, off, s[96:99], 0 offset:364 ; 4-byte Folded Spill
	buffer_store_dword v101, off, s[96:99], 0 offset:332 ; 4-byte Folded Spill
	buffer_store_dword v106, off, s[96:99], 0 offset:320 ; 4-byte Folded Spill
	buffer_store_dword v107, off, s[96:99], 0 offset:336 ; 4-byte Folded Spill
	buffer_store_dword v108, off, s[96:99], 0 offset:300 ; 4-byte Folded Spill
	buffer_store_dword v110, off, s[96:99], 0 offset:168 ; 4-byte Folded Spill
	buffer_store_dword v112, off, s[96:99], 0 offset:176 ; 4-byte Folded Spill
	buffer_store_dword v113, off, s[96:99], 0 offset:196 ; 4-byte Folded Spill
	buffer_store_dword v115, off, s[96:99], 0 offset:264 ; 4-byte Folded Spill
	buffer_store_dword v116, off, s[96:99], 0 offset:208 ; 4-byte Folded Spill
	buffer_store_dword v117, off, s[96:99], 0 offset:64 ; 4-byte Folded Spill
	buffer_store_dword v118, off, s[96:99], 0 offset:68 ; 4-byte Folded Spill
	buffer_store_dword v119, off, s[96:99], 0 offset:76 ; 4-byte Folded Spill
	buffer_store_dword v120, off, s[96:99], 0 offset:72 ; 4-byte Folded Spill
	buffer_store_dword v121, off, s[96:99], 0 offset:80 ; 4-byte Folded Spill
	buffer_store_dword v122, off, s[96:99], 0 offset:88 ; 4-byte Folded Spill
	buffer_store_dword v123, off, s[96:99], 0 offset:92 ; 4-byte Folded Spill
	buffer_store_dword v124, off, s[96:99], 0 offset:84 ; 4-byte Folded Spill
	buffer_store_dword v125, off, s[96:99], 0 offset:172 ; 4-byte Folded Spill
	buffer_store_dword v126, off, s[96:99], 0 offset:384 ; 4-byte Folded Spill
	buffer_store_dword v127, off, s[96:99], 0 offset:376 ; 4-byte Folded Spill
	buffer_store_dword v128, off, s[96:99], 0 offset:380 ; 4-byte Folded Spill
	buffer_store_dword v129, off, s[96:99], 0 offset:368 ; 4-byte Folded Spill
	buffer_store_dword v130, off, s[96:99], 0 offset:372 ; 4-byte Folded Spill
	buffer_store_dword v137, off, s[96:99], 0 offset:348 ; 4-byte Folded Spill
	buffer_store_dword v138, off, s[96:99], 0 offset:352 ; 4-byte Folded Spill
	buffer_store_dword v150, off, s[96:99], 0 offset:180 ; 4-byte Folded Spill
	buffer_store_dword v151, off, s[96:99], 0 offset:220 ; 4-byte Folded Spill
	buffer_store_dword v152, off, s[96:99], 0 offset:224 ; 4-byte Folded Spill
	buffer_store_dword v153, off, s[96:99], 0 offset:252 ; 4-byte Folded Spill
	buffer_store_dword v154, off, s[96:99], 0 offset:120 ; 4-byte Folded Spill
	buffer_store_dword v155, off, s[96:99], 0 offset:112 ; 4-byte Folded Spill
	buffer_store_dword v156, off, s[96:99], 0 offset:116 ; 4-byte Folded Spill
	buffer_store_dword v157, off, s[96:99], 0 offset:96 ; 4-byte Folded Spill
	buffer_store_dword v158, off, s[96:99], 0 offset:108 ; 4-byte Folded Spill
	buffer_store_dword v159, off, s[96:99], 0 offset:100 ; 4-byte Folded Spill
	buffer_store_dword v160, off, s[96:99], 0 offset:104 ; 4-byte Folded Spill
	buffer_store_dword v161, off, s[96:99], 0 offset:132 ; 4-byte Folded Spill
	buffer_store_dword v162, off, s[96:99], 0 offset:124 ; 4-byte Folded Spill
	buffer_store_dword v163, off, s[96:99], 0 offset:128 ; 4-byte Folded Spill
	buffer_store_dword v164, off, s[96:99], 0 offset:136 ; 4-byte Folded Spill
	buffer_store_dword v165, off, s[96:99], 0 offset:140 ; 4-byte Folded Spill
	buffer_store_dword v166, off, s[96:99], 0 offset:144 ; 4-byte Folded Spill
	buffer_store_dword v167, off, s[96:99], 0 offset:148 ; 4-byte Folded Spill
	buffer_store_dword v168, off, s[96:99], 0 offset:156 ; 4-byte Folded Spill
	buffer_store_dword v169, off, s[96:99], 0 offset:152 ; 4-byte Folded Spill
	buffer_store_dword v170, off, s[96:99], 0 offset:160 ; 4-byte Folded Spill
	buffer_store_dword v171, off, s[96:99], 0 offset:164 ; 4-byte Folded Spill
	buffer_store_dword v172, off, s[96:99], 0 offset:188 ; 4-byte Folded Spill
	buffer_store_dword v173, off, s[96:99], 0 offset:192 ; 4-byte Folded Spill
	buffer_store_dword v174, off, s[96:99], 0 offset:200 ; 4-byte Folded Spill
	buffer_store_dword v175, off, s[96:99], 0 offset:204 ; 4-byte Folded Spill
	buffer_store_dword v176, off, s[96:99], 0 offset:216 ; 4-byte Folded Spill
	buffer_store_dword v177, off, s[96:99], 0 offset:228 ; 4-byte Folded Spill
	buffer_store_dword v178, off, s[96:99], 0 offset:184 ; 4-byte Folded Spill
	buffer_store_dword v179, off, s[96:99], 0 offset:212 ; 4-byte Folded Spill
	buffer_store_dword v180, off, s[96:99], 0 offset:236 ; 4-byte Folded Spill
	buffer_store_dword v181, off, s[96:99], 0 offset:244 ; 4-byte Folded Spill
	buffer_store_dword v182, off, s[96:99], 0 offset:256 ; 4-byte Folded Spill
	buffer_store_dword v183, off, s[96:99], 0 offset:272 ; 4-byte Folded Spill
	buffer_store_dword v184, off, s[96:99], 0 offset:276 ; 4-byte Folded Spill
	buffer_store_dword v185, off, s[96:99], 0 offset:288 ; 4-byte Folded Spill
	buffer_store_dword v186, off, s[96:99], 0 offset:232 ; 4-byte Folded Spill
	buffer_store_dword v187, off, s[96:99], 0 offset:240 ; 4-byte Folded Spill
	buffer_store_dword v188, off, s[96:99], 0 offset:248 ; 4-byte Folded Spill
	buffer_store_dword v189, off, s[96:99], 0 offset:260 ; 4-byte Folded Spill
	buffer_store_dword v190, off, s[96:99], 0 offset:268 ; 4-byte Folded Spill
	buffer_store_dword v191, off, s[96:99], 0 offset:284 ; 4-byte Folded Spill
	buffer_store_dword v192, off, s[96:99], 0 offset:296 ; 4-byte Folded Spill
	buffer_store_dword v194, off, s[96:99], 0 offset:340 ; 4-byte Folded Spill
	buffer_store_dword v195, off, s[96:99], 0 offset:356 ; 4-byte Folded Spill
	buffer_store_dword v196, off, s[96:99], 0 offset:360 ; 4-byte Folded Spill
	buffer_store_dword v198, off, s[96:99], 0 offset:280 ; 4-byte Folded Spill
	buffer_store_dword v202, off, s[96:99], 0 offset:292 ; 4-byte Folded Spill
	buffer_store_dword v203, off, s[96:99], 0 offset:304 ; 4-byte Folded Spill
	buffer_store_dword v204, off, s[96:99], 0 offset:308 ; 4-byte Folded Spill
	buffer_store_dword v205, off, s[96:99], 0 offset:312 ; 4-byte Folded Spill
	buffer_store_dword v206, off, s[96:99], 0 offset:316 ; 4-byte Folded Spill
	buffer_store_dword v207, off, s[96:99], 0 offset:324 ; 4-byte Folded Spill
	buffer_store_dword v208, off, s[96:99], 0 offset:328 ; 4-byte Folded Spill
	buffer_store_dword v209, off, s[96:99], 0 offset:344 ; 4-byte Folded Spill
	v_mov_b32_e32 v69, v249
	v_mov_b32_e32 v249, v250
	v_mov_b32_e32 v250, v251
	v_mov_b32_e32 v251, v252
	buffer_load_dword v252, off, s[96:99], 0 offset:44 ; 4-byte Folded Reload
	v_readlane_b32 s24, v1, 32
	v_mov_b32_e32 v77, v109
	v_mov_b32_e32 v70, v111
	v_mov_b32_e32 v76, v114
	v_mov_b32_e32 v89, v139
	v_mov_b32_e32 v131, v147
	v_mov_b32_e32 v93, v148
	v_mov_b32_e32 v132, v149
	v_mov_b32_e32 v86, v193
	v_mov_b32_e32 v136, v197
	v_mov_b32_e32 v141, v199
	v_mov_b32_e32 v134, v200
	v_mov_b32_e32 v143, v201
	v_mov_b32_e32 v253, v210
	v_mov_b32_e32 v242, v211
	v_mov_b32_e32 v243, v212
	v_mov_b32_e32 v79, v213
	v_mov_b32_e32 v82, v214
	v_mov_b32_e32 v244, v215
	v_mov_b32_e32 v91, v216
	v_mov_b32_e32 v84, v217
	v_mov_b32_e32 v95, v218
	v_mov_b32_e32 v90, v219
	v_mov_b32_e32 v144, v220
	v_mov_b32_e32 v145, v221
	v_mov_b32_e32 v83, v222
	v_mov_b32_e32 v133, v223
	v_mov_b32_e32 v135, v224
	v_mov_b32_e32 v92, v225
	v_mov_b32_e32 v85, v226
	v_mov_b32_e32 v67, v227
	v_mov_b32_e32 v68, v228
	v_mov_b32_e32 v81, v229
	v_mov_b32_e32 v80, v230
	v_mov_b32_e32 v87, v231
	v_mov_b32_e32 v75, v232
	v_mov_b32_e32 v78, v233
	v_mov_b32_e32 v140, v234
	v_mov_b32_e32 v142, v235
	v_mov_b32_e32 v94, v236
	v_mov_b32_e32 v96, v237
	v_mov_b32_e32 v97, v238
	v_mov_b32_e32 v88, v239
	v_mov_b32_e32 v99, v241
	v_mov_b32_e32 v146, v240
	v_readlane_b32 s25, v1, 33
	v_readlane_b32 s26, v1, 34
	v_readlane_b32 s27, v1, 35
	v_readlane_b32 s28, v1, 36
	v_readlane_b32 s29, v1, 37
	v_readlane_b32 s30, v1, 38
	v_readlane_b32 s31, v1, 39
.LBB1_22:                               ;   in Loop: Header=BB1_15 Depth=2
	v_add_f32_e32 v0, 0, v248
	v_add_f32_e32 v0, v69, v0
	buffer_load_dword v69, off, s[96:99], 0 offset:4 ; 4-byte Folded Reload
	v_add_f32_e32 v0, v249, v0
	v_add_f32_e32 v0, v250, v0
	v_add_f32_e32 v0, v251, v0
	s_add_i32 s101, s101, 1
	s_cmp_ge_i32 s101, s100
	s_waitcnt vmcnt(1)
	v_add_u32_e32 v100, 16, v100
	v_mov_b32_e32 v175, v77
	v_mov_b32_e32 v178, v93
	v_mov_b32_e32 v179, v132
	v_mov_b32_e32 v182, v70
	v_mov_b32_e32 v183, v76
	v_mov_b32_e32 v184, v89
	v_mov_b32_e32 v185, v131
	s_waitcnt vmcnt(0)
	v_add_f32_e32 v0, v69, v0
	buffer_load_dword v69, off, s[96:99], 0 offset:8 ; 4-byte Folded Reload
	v_add_f32_e32 v0, v252, v0
	s_waitcnt vmcnt(0)
	v_add_f32_e32 v0, v69, v0
	buffer_load_dword v69, off, s[96:99], 0 offset:12 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_add_f32_e32 v0, v69, v0
	buffer_load_dword v69, off, s[96:99], 0 offset:16 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_add_f32_e32 v0, v69, v0
	buffer_load_dword v69, off, s[96:99], 0 offset:20 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_add_f32_e32 v0, v69, v0
	buffer_load_dword v69, off, s[96:99], 0 offset:24 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_add_f32_e32 v0, v69, v0
	buffer_load_dword v69, off, s[96:99], 0 offset:28 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_add_f32_e32 v0, v69, v0
	buffer_load_dword v69, off, s[96:99], 0 offset:32 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_add_f32_e32 v0, v69, v0
	buffer_load_dword v69, off, s[96:99], 0 offset:36 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_add_f32_e32 v0, v69, v0
	buffer_load_dword v69, off, s[96:99], 0 offset:40 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	v_add_f32_e32 v147, v69, v0
	buffer_load_dword v0, off, s[96:99], 0 offset:56 ; 4-byte Folded Reload
	s_nop 0
	buffer_load_dword v158, off, s[96:99], 0 offset:48 ; 4-byte Folded Reload
	s_nop 0
	buffer_load_dword v159, off, s[96:99], 0 offset:52 ; 4-byte Folded Reload
	s_waitcnt vmcnt(2)
	v_fmac_f32_e32 v147, v0, v254
	s_cbranch_scc1 .LBB1_25
; %bb.23:                               ;   in Loop: Header=BB1_15 Depth=2
	buffer_store_dword v100, off, s[96:99], 0 offset:60 ; 4-byte Folded Spill
	buffer_store_dword v147, off, s[96:99], 0 offset:56 ; 4-byte Folded Spill
	buffer_load_dword v170, off, s[96:99], 0 offset:160 ; 4-byte Folded Reload
	buffer_load_dword v171, off, s[96:99], 0 offset:164 ; 4-byte Folded Reload
	buffer_load_dword v172, off, s[96:99], 0 offset:188 ; 4-byte Folded Reload
	buffer_load_dword v173, off, s[96:99], 0 offset:192 ; 4-byte Folded Reload
	buffer_load_dword v174, off, s[96:99], 0 offset:200 ; 4-byte Folded Reload
	buffer_load_dword v176, off, s[96:99], 0 offset:204 ; 4-byte Folded Reload
	buffer_load_dword v181, off, s[96:99], 0 offset:216 ; 4-byte Folded Reload
	buffer_load_dword v163, off, s[96:99], 0 offset:124 ; 4-byte Folded Reload
	buffer_load_dword v177, off, s[96:99], 0 offset:228 ; 4-byte Folded Reload
	buffer_load_dword v165, off, s[96:99], 0 offset:128 ; 4-byte Folded Reload
	buffer_load_dword v164, off, s[96:99], 0 offset:136 ; 4-byte Folded Reload
	v_mov_b32_e32 v235, v142
	buffer_load_dword v142, off, s[96:99], 0 offset:140 ; 4-byte Folded Reload
	buffer_load_dword v166, off, s[96:99], 0 offset:144 ; 4-byte Folded Reload
	buffer_load_dword v167, off, s[96:99], 0 offset:148 ; 4-byte Folded Reload
	buffer_load_dword v168, off, s[96:99], 0 offset:156 ; 4-byte Folded Reload
	v_mov_b32_e32 v239, v88
	buffer_load_dword v88, off, s[96:99], 0 offset:120 ; 4-byte Folded Reload
	buffer_load_dword v123, off, s[96:99], 0 offset:92 ; 4-byte Folded Reload
	buffer_load_dword v169, off, s[96:99], 0 offset:152 ; 4-byte Folded Reload
	buffer_load_dword v122, off, s[96:99], 0 offset:88 ; 4-byte Folded Reload
	buffer_load_dword v120, off, s[96:99], 0 offset:76 ; 4-byte Folded Reload
	buffer_load_dword v119, off, s[96:99], 0 offset:64 ; 4-byte Folded Reload
	buffer_load_dword v195, off, s[96:99], 0 offset:288 ; 4-byte Folded Reload
	buffer_load_dword v121, off, s[96:99], 0 offset:80 ; 4-byte Folded Reload
	buffer_load_dword v193, off, s[96:99], 0 offset:272 ; 4-byte Folded Reload
	buffer_load_dword v191, off, s[96:99], 0 offset:276 ; 4-byte Folded Reload
	buffer_load_dword v124, off, s[96:99], 0 offset:84 ; 4-byte Folded Reload
	buffer_load_dword v155, off, s[96:99], 0 offset:112 ; 4-byte Folded Reload
	buffer_load_dword v156, off, s[96:99], 0 offset:116 ; 4-byte Folded Reload
	buffer_load_dword v76, off, s[96:99], 0 offset:244 ; 4-byte Folded Reload
	buffer_load_dword v77, off, s[96:99], 0 offset:256 ; 4-byte Folded Reload
	buffer_load_dword v70, off, s[96:99], 0 offset:212 ; 4-byte Folded Reload
	buffer_load_dword v180, off, s[96:99], 0 offset:236 ; 4-byte Folded Reload
	buffer_load_dword v89, off, s[96:99], 0 offset:72 ; 4-byte Folded Reload
	buffer_load_dword v118, off, s[96:99], 0 offset:68 ; 4-byte Folded Reload
	buffer_load_dword v157, off, s[96:99], 0 offset:96 ; 4-byte Folded Reload
	buffer_load_dword v161, off, s[96:99], 0 offset:108 ; 4-byte Folded Reload
	buffer_load_dword v132, off, s[96:99], 0 offset:184 ; 4-byte Folded Reload
	buffer_load_dword v194, off, s[96:99], 0 offset:284 ; 4-byte Folded Reload
	buffer_load_dword v192, off, s[96:99], 0 offset:296 ; 4-byte Folded Reload
	buffer_load_dword v159, off, s[96:99], 0 offset:100 ; 4-byte Folded Reload
	buffer_load_dword v160, off, s[96:99], 0 offset:104 ; 4-byte Folded Reload
	buffer_load_dword v189, off, s[96:99], 0 offset:260 ; 4-byte Folded Reload
	buffer_load_dword v190, off, s[96:99], 0 offset:268 ; 4-byte Folded Reload
	buffer_load_dword v187, off, s[96:99], 0 offset:240 ; 4-byte Folded Reload
	buffer_load_dword v188, off, s[96:99], 0 offset:248 ; 4-byte Folded Reload
	buffer_load_dword v162, off, s[96:99], 0 offset:132 ; 4-byte Folded Reload
	buffer_load_dword v186, off, s[96:99], 0 offset:232 ; 4-byte Folded Reload
	v_mov_b32_e32 v218, v95
	v_mov_b32_e32 v95, v134
	buffer_load_dword v125, off, s[96:99], 0 offset:168 ; 4-byte Folded Reload
	buffer_load_dword v126, off, s[96:99], 0 offset:172 ; 4-byte Folded Reload
	buffer_load_dword v127, off, s[96:99], 0 offset:176 ; 4-byte Folded Reload
	buffer_load_dword v150, off, s[96:99], 0 offset:180 ; 4-byte Folded Reload
	buffer_load_dword v128, off, s[96:99], 0 offset:196 ; 4-byte Folded Reload
	buffer_load_dword v134, off, s[96:99], 0 offset:280 ; 4-byte Folded Reload
	buffer_load_dword v93, off, s[96:99], 0 offset:208 ; 4-byte Folded Reload
	buffer_load_dword v131, off, s[96:99], 0 offset:220 ; 4-byte Folded Reload
	buffer_load_dword v152, off, s[96:99], 0 offset:224 ; 4-byte Folded Reload
	v_mov_b32_e32 v223, v133
	buffer_load_dword v133, off, s[96:99], 0 offset:252 ; 4-byte Folded Reload
	buffer_load_dword v129, off, s[96:99], 0 offset:264 ; 4-byte Folded Reload
	buffer_load_dword v202, off, s[96:99], 0 offset:292 ; 4-byte Folded Reload
	v_mov_b32_e32 v217, v84
	buffer_load_dword v84, off, s[96:99], 0 offset:300 ; 4-byte Folded Reload
	buffer_load_dword v203, off, s[96:99], 0 offset:304 ; 4-byte Folded Reload
	buffer_load_dword v204, off, s[96:99], 0 offset:308 ; 4-byte Folded Reload
	buffer_load_dword v205, off, s[96:99], 0 offset:312 ; 4-byte Folded Reload
	buffer_load_dword v206, off, s[96:99], 0 offset:316 ; 4-byte Folded Reload
	buffer_load_dword v130, off, s[96:99], 0 offset:320 ; 4-byte Folded Reload
	buffer_load_dword v207, off, s[96:99], 0 offset:324 ; 4-byte Folded Reload
	buffer_load_dword v208, off, s[96:99], 0 offset:328 ; 4-byte Folded Reload
	buffer_load_dword v137, off, s[96:99], 0 offset:332 ; 4-byte Folded Reload
	buffer_load_dword v138, off, s[96:99], 0 offset:336 ; 4-byte Folded Reload
	buffer_load_dword v196, off, s[96:99], 0 offset:340 ; 4-byte Folded Reload
	buffer_load_dword v209, off, s[96:99], 0 offset:344 ; 4-byte Folded Reload
	buffer_load_dword v139, off, s[96:99], 0 offset:348 ; 4-byte Folded Reload
	buffer_load_dword v147, off, s[96:99], 0 offset:352 ; 4-byte Folded Reload
	buffer_load_dword v197, off, s[96:99], 0 offset:356 ; 4-byte Folded Reload
	buffer_load_dword v198, off, s[96:99], 0 offset:360 ; 4-byte Folded Reload
	buffer_load_dword v148, off, s[96:99], 0 offset:364 ; 4-byte Folded Reload
	buffer_load_dword v149, off, s[96:99], 0 offset:368 ; 4-byte Folded Reload
	buffer_load_dword v151, off, s[96:99], 0 offset:372 ; 4-byte Folded Reload
	buffer_load_dword v153, off, s[96:99], 0 offset:376 ; 4-byte Folded Reload
	buffer_load_dword v154, off, s[96:99], 0 offset:380 ; 4-byte Folded Reload
	buffer_load_dword v199, off, s[96:99], 0 offset:384 ; 4-byte Folded Reload
	buffer_load_dword v200, off, s[96:99], 0 offset:388 ; 4-byte Folded Reload
	buffer_load_dword v201, off, s[96:99], 0 offset:392 ; 4-byte Folded Reload
	buffer_load_dword v213, off, s[96:99], 0 offset:396 ; 4-byte Folded Reload
	v_mov_b32_e32 v210, v253
	v_mov_b32_e32 v211, v242
	v_mov_b32_e32 v212, v243
	v_mov_b32_e32 v215, v244
	s_branch .LBB1_15
.LBB1_24:                               ;   in Loop: Header=BB1_4 Depth=1
                                        ; implicit-def: $vgpr3_vgpr4
	s_branch .LBB1_6
.LBB1_25:                               ;   in Loop: Header=BB1_4 Depth=1
	buffer_load_dword v148, off, s[96:99], 0 offset:756 ; 4-byte Folded Reload
	s_nop 0
	buffer_load_dword v149, off, s[96:99], 0 offset:716 ; 4-byte Folded Reload
	s_nop 0
	buffer_load_dword v150, off, s[96:99], 0 offset:720 ; 4-byte Folded Reload
	s_nop 0
	buffer_load_dword v151, off, s[96:99], 0 offset:760 ; 4-byte Folded Reload
	s_nop 0
	buffer_load_dword v153, off, s[96:99], 0 offset:724 ; 4-byte Folded Reload
	s_nop 0
	buffer_load_dword v154, off, s[96:99], 0 offset:728 ; 4-byte Folded Reload
	s_nop 0
	buffer_load_dword v154, off, s[96:99], 0 offset:732 ; 4-byte Folded Reload
	s_nop 0
	buffer_load_dword v155, off, s[96:99], 0 offset:736 ; 4-byte Folded Reload
	s_nop 0
	buffer_load_dword v150, off, s[96:99], 0 offset:740 ; 4-byte Folded Reload
	s_nop 0
	buffer_load_dword v156, off, s[96:99], 0 offset:744 ; 4-byte Folded Reload
	s_nop 0
	buffer_load_dword v157, off, s[96:99], 0 offset:748 ; 4-byte Folded Reload
	s_nop 0
	buffer_load_dword v157, off, s[96:99], 0 offset:752 ; 4-byte Folded Reload
	buffer_load_dword v110, off, s[96:99], 0 offset:160 ; 4-byte Folded Reload
	buffer_load_dword v117, off, s[96:99], 0 offset:164 ; 4-byte Folded Reload
	buffer_load_dword v119, off, s[96:99], 0 offset:188 ; 4-byte Folded Reload
	buffer_load_dword v163, off, s[96:99], 0 offset:192 ; 4-byte Folded Reload
	buffer_load_dword v164, off, s[96:99], 0 offset:200 ; 4-byte Folded Reload
	buffer_load_dword v165, off, s[96:99], 0 offset:204 ; 4-byte Folded Reload
	buffer_load_dword v166, off, s[96:99], 0 offset:216 ; 4-byte Folded Reload
	buffer_load_dword v106, off, s[96:99], 0 offset:124 ; 4-byte Folded Reload
	buffer_load_dword v118, off, s[96:99], 0 offset:228 ; 4-byte Folded Reload
	buffer_load_dword v108, off, s[96:99], 0 offset:128 ; 4-byte Folded Reload
	buffer_load_dword v109, off, s[96:99], 0 offset:136 ; 4-byte Folded Reload
	v_mov_b32_e32 v130, v142
	v_mov_b32_e32 v137, v94
	buffer_load_dword v69, off, s[96:99], 0 offset:140 ; 4-byte Folded Reload
	buffer_load_dword v111, off, s[96:99], 0 offset:144 ; 4-byte Folded Reload
	v_mov_b32_e32 v142, v96
	v_mov_b32_e32 v160, v97
	buffer_load_dword v112, off, s[96:99], 0 offset:148 ; 4-byte Folded Reload
	buffer_load_dword v116, off, s[96:99], 0 offset:156 ; 4-byte Folded Reload
	v_mov_b32_e32 v161, v88
	v_mov_b32_e32 v162, v99
	buffer_load_dword v107, off, s[96:99], 0 offset:120 ; 4-byte Folded Reload
	buffer_load_dword v102, off, s[96:99], 0 offset:92 ; 4-byte Folded Reload
	buffer_load_dword v113, off, s[96:99], 0 offset:152 ; 4-byte Folded Reload
	buffer_load_dword v97, off, s[96:99], 0 offset:88 ; 4-byte Folded Reload
	buffer_load_dword v96, off, s[96:99], 0 offset:76 ; 4-byte Folded Reload
	buffer_load_dword v88, off, s[96:99], 0 offset:64 ; 4-byte Folded Reload
	buffer_load_dword v186, off, s[96:99], 0 offset:288 ; 4-byte Folded Reload
	v_mov_b32_e32 v122, v85
	buffer_load_dword v100, off, s[96:99], 0 offset:80 ; 4-byte Folded Reload
	buffer_load_dword v174, off, s[96:99], 0 offset:272 ; 4-byte Folded Reload
	buffer_load_dword v85, off, s[96:99], 0 offset:276 ; 4-byte Folded Reload
	buffer_load_dword v101, off, s[96:99], 0 offset:84 ; 4-byte Folded Reload
	buffer_load_dword v104, off, s[96:99], 0 offset:112 ; 4-byte Folded Reload
	buffer_load_dword v105, off, s[96:99], 0 offset:116 ; 4-byte Folded Reload
	buffer_load_dword v177, off, s[96:99], 0 offset:244 ; 4-byte Folded Reload
	buffer_load_dword v94, off, s[96:99], 0 offset:256 ; 4-byte Folded Reload
	v_mov_b32_e32 v123, v67
	v_mov_b32_e32 v124, v68
	buffer_load_dword v76, off, s[96:99], 0 offset:212 ; 4-byte Folded Reload
	buffer_load_dword v89, off, s[96:99], 0 offset:236 ; 4-byte Folded Reload
	buffer_load_dword v68, off, s[96:99], 0 offset:72 ; 4-byte Folded Reload
	buffer_load_dword v67, off, s[96:99], 0 offset:68 ; 4-byte Folded Reload
	buffer_load_dword v70, off, s[96:99], 0 offset:96 ; 4-byte Folded Reload
	buffer_load_dword v103, off, s[96:99], 0 offset:108 ; 4-byte Folded Reload
	buffer_load_dword v121, off, s[96:99], 0 offset:184 ; 4-byte Folded Reload
	v_mov_b32_e32 v99, v86
	v_mov_b32_e32 v125, v81
	v_mov_b32_e32 v126, v80
	buffer_load_dword v181, off, s[96:99], 0 offset:284 ; 4-byte Folded Reload
	buffer_load_dword v188, off, s[96:99], 0 offset:296 ; 4-byte Folded Reload
	buffer_load_dword v77, off, s[96:99], 0 offset:100 ; 4-byte Folded Reload
	buffer_load_dword v80, off, s[96:99], 0 offset:104 ; 4-byte Folded Reload
	buffer_load_dword v172, off, s[96:99], 0 offset:260 ; 4-byte Folded Reload
	buffer_load_dword v86, off, s[96:99], 0 offset:268 ; 4-byte Folded Reload
	v_mov_b32_e32 v127, v87
	v_mov_b32_e32 v128, v75
	buffer_load_dword v167, off, s[96:99], 0 offset:240 ; 4-byte Folded Reload
	buffer_load_dword v170, off, s[96:99], 0 offset:248 ; 4-byte Folded Reload
	buffer_load_dword v75, off, s[96:99], 0 offset:132 ; 4-byte Folded Reload
	buffer_load_dword v173, off, s[96:99], 0 offset:232 ; 4-byte Folded Reload
	v_mov_b32_e32 v114, v95
	v_mov_b32_e32 v129, v78
	v_mov_b32_e32 v120, v134
	v_mov_b32_e32 v115, v90
	buffer_load_dword v78, off, s[96:99], 0 offset:168 ; 4-byte Folded Reload
	buffer_load_dword v81, off, s[96:99], 0 offset:172 ; 4-byte Folded Reload
	buffer_load_dword v87, off, s[96:99], 0 offset:176 ; 4-byte Folded Reload
	buffer_load_dword v90, off, s[96:99], 0 offset:180 ; 4-byte Folded Reload
	v_mov_b32_e32 v132, v83
	buffer_load_dword v83, off, s[96:99], 0 offset:196 ; 4-byte Folded Reload
	buffer_load_dword v131, off, s[96:99], 0 offset:280 ; 4-byte Folded Reload
	buffer_load_dword v93, off, s[96:99], 0 offset:208 ; 4-byte Folded Reload
	buffer_load_dword v95, off, s[96:99], 0 offset:220 ; 4-byte Folded Reload
	buffer_load_dword v134, off, s[96:99], 0 offset:224 ; 4-byte Folded Reload
	buffer_load_dword v168, off, s[96:99], 0 offset:252 ; 4-byte Folded Reload
	v_mov_b32_e32 v171, v92
	buffer_load_dword v92, off, s[96:99], 0 offset:264 ; 4-byte Folded Reload
	buffer_load_dword v189, off, s[96:99], 0 offset:292 ; 4-byte Folded Reload
	v_mov_b32_e32 v176, v79
	v_mov_b32_e32 v180, v82
	v_mov_b32_e32 v187, v91
	v_mov_b32_e32 v190, v84
	buffer_load_dword v79, off, s[96:99], 0 offset:300 ; 4-byte Folded Reload
	buffer_load_dword v191, off, s[96:99], 0 offset:304 ; 4-byte Folded Reload
	buffer_load_dword v192, off, s[96:99], 0 offset:308 ; 4-byte Folded Reload
	buffer_load_dword v193, off, s[96:99], 0 offset:312 ; 4-byte Folded Reload
	buffer_load_dword v194, off, s[96:99], 0 offset:316 ; 4-byte Folded Reload
	buffer_load_dword v82, off, s[96:99], 0 offset:320 ; 4-byte Folded Reload
	buffer_load_dword v195, off, s[96:99], 0 offset:324 ; 4-byte Folded Reload
	buffer_load_dword v196, off, s[96:99], 0 offset:328 ; 4-byte Folded Reload
	buffer_load_dword v84, off, s[96:99], 0 offset:332 ; 4-byte Folded Reload
	buffer_load_dword v91, off, s[96:99], 0 offset:336 ; 4-byte Folded Reload
	buffer_load_dword v197, off, s[96:99], 0 offset:340 ; 4-byte Folded Reload
	buffer_load_dword v198, off, s[96:99], 0 offset:344 ; 4-byte Folded Reload
	buffer_load_dword v199, off, s[96:99], 0 offset:348 ; 4-byte Folded Reload
	buffer_load_dword v200, off, s[96:99], 0 offset:352 ; 4-byte Folded Reload
	buffer_load_dword v201, off, s[96:99], 0 offset:356 ; 4-byte Folded Reload
	buffer_load_dword v202, off, s[96:99], 0 offset:360 ; 4-byte Folded Reload
	buffer_load_dword v203, off, s[96:99], 0 offset:364 ; 4-byte Folded Reload
	buffer_load_dword v204, off, s[96:99], 0 offset:368 ; 4-byte Folded Reload
	buffer_load_dword v205, off, s[96:99], 0 offset:372 ; 4-byte Folded Reload
	buffer_load_dword v206, off, s[96:99], 0 offset:376 ; 4-byte Folded Reload
	buffer_load_dword v207, off, s[96:99], 0 offset:380 ; 4-byte Folded Reload
	buffer_load_dword v208, off, s[96:99], 0 offset:384 ; 4-byte Folded Reload
	buffer_load_dword v209, off, s[96:99], 0 offset:388 ; 4-byte Folded Reload
	buffer_load_dword v210, off, s[96:99], 0 offset:392 ; 4-byte Folded Reload
	buffer_load_dword v211, off, s[96:99], 0 offset:396 ; 4-byte Folded Reload
	v_readlane_b32 s18, v1, 26
	v_readlane_b32 s34, v1, 40
	v_readlane_b32 s36, v1, 42
	v_readlane_b32 s40, v1, 46
	v_readlane_b32 s42, v1, 48
	v_readlane_b32 s46, v1, 52
	v_readlane_b32 s50, v1, 56
	v_readlane_b32 s52, v1, 60
	v_readlane_b32 s54, v1, 62
	v_readlane_b32 s12, v2, 0
	v_readlane_b32 s19, v1, 27
	v_readlane_b32 s35, v1, 41
	v_readlane_b32 s37, v1, 43
	v_readlane_b32 s38, v1, 44
	v_readlane_b32 s39, v1, 45
	v_readlane_b32 s41, v1, 47
	v_readlane_b32 s43, v1, 49
	v_readlane_b32 s44, v1, 50
	v_readlane_b32 s45, v1, 51
	v_readlane_b32 s47, v1, 53
	v_readlane_b32 s48, v1, 54
	v_readlane_b32 s49, v1, 55
	v_readlane_b32 s51, v1, 57
	v_readlane_b32 s18, v1, 58
	v_readlane_b32 s53, v1, 61
	v_readlane_b32 s55, v1, 63
	v_readlane_b32 s13, v2, 1
	v_bfrev_b32_e32 v152, -8
.LBB1_26:                               ;   in Loop: Header=BB1_4 Depth=1
	s_and_saveexec_b64 s[4:5], s[12:13]
	v_readlane_b32 s20, v1, 28
	v_readlane_b32 s22, v1, 30
	v_readlane_b32 s21, v1, 29
	v_readlane_b32 s23, v1, 31
	v_readlane_b32 s22, v1, 59
	s_cbranch_execz .LBB1_2
; %bb.27:                               ;   in Loop: Header=BB1_4 Depth=1
	v_readlane_b32 s6, v1, 2
	v_readlane_b32 s7, v1, 3
	s_waitcnt vmcnt(62)
	v_mul_lo_u32 v0, v153, s7
	s_waitcnt vmcnt(15)
	v_mul_hi_u32 v3, v153, s6
	v_mul_lo_u32 v4, v150, s6
	v_readlane_b32 s2, v1, 0
	v_readlane_b32 s3, v1, 1
	v_add_u32_e32 v0, v3, v0
	v_add_u32_e32 v0, v0, v4
	v_mul_lo_u32 v3, v156, s3
	v_mul_hi_u32 v4, v156, s2
	v_mul_lo_u32 v6, v157, s2
	s_waitcnt vmcnt(14)
	v_mul_lo_u32 v7, v153, s6
	v_mul_lo_u32 v8, v156, s2
	v_add_u32_e32 v3, v4, v3
	v_add_u32_e32 v4, v3, v6
	v_readlane_b32 s6, v1, 14
	v_add_co_u32_e32 v3, vcc, v8, v7
	v_addc_co_u32_e32 v4, vcc, v4, v0, vcc
	v_lshlrev_b64 v[3:4], 1, v[3:4]
	v_mov_b32_e32 v0, s25
	v_add_co_u32_e32 v3, vcc, s24, v3
	v_rcp_f32_e32 v5, v147
	v_addc_co_u32_e32 v4, vcc, v0, v4, vcc
	v_readlane_b32 s7, v1, 15
	v_mad_u64_u32 v[138:139], s[2:3], s6, v154, v[3:4]
	v_mul_lo_u32 v0, s6, v155
	v_mul_lo_u32 v3, s7, v154
	v_cmp_eq_f32_e64 s[2:3], 0, v147
	v_cndmask_b32_e64 v159, v5, 0, s[2:3]
	s_waitcnt vmcnt(1)
	v_mul_f32_e32 v4, v210, v159
	v_add3_u32 v139, v3, v139, v0
	v_mul_f32_e32 v3, v209, v159
	s_waitcnt vmcnt(0)
	v_mul_f32_e32 v5, v211, v159
	v_mul_f32_e32 v6, v203, v159
	v_mul_f32_e32 v7, v84, v159
	v_mul_f32_e32 v8, v82, v159
	v_mul_f32_e32 v9, v91, v159
	v_mul_f32_e32 v10, v79, v159
	v_cvt_f16_f32_e32 v0, v3
	v_cvt_f16_f32_sdwa v11, v4 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v12, v5
	v_cvt_f16_f32_sdwa v13, v6 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v14, v7
	v_cvt_f16_f32_sdwa v15, v8 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v16, v9
	v_cvt_f16_f32_sdwa v17, v10 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_or_b32_e32 v11, v11, v0
	v_or_b32_e32 v12, v13, v12
	v_or_b32_e32 v13, v15, v14
	v_or_b32_e32 v14, v17, v16
	global_store_dwordx4 v[138:139], v[11:14], off
	v_mul_f32_e32 v15, v83, v159
	v_mul_f32_e32 v11, v175, v159
	v_mul_f32_e32 v12, v78, v159
	v_mul_f32_e32 v13, v182, v159
	v_mul_f32_e32 v14, v87, v159
	v_mul_f32_e32 v16, v183, v159
	v_mul_f32_e32 v17, v92, v159
	v_mul_f32_e32 v18, v93, v159
	v_cvt_f16_f32_e32 v0, v11
	v_cvt_f16_f32_sdwa v19, v12 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v20, v13
	v_cvt_f16_f32_sdwa v21, v14 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v22, v15
	v_cvt_f16_f32_sdwa v23, v16 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v24, v17
	v_cvt_f16_f32_sdwa v25, v18 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_or_b32_e32 v19, v19, v0
	v_or_b32_e32 v20, v21, v20
	v_or_b32_e32 v21, v23, v22
	v_or_b32_e32 v22, v25, v24
	global_store_dwordx4 v[138:139], v[19:22], off offset:16
	v_mul_f32_e32 v23, v100, v159
	v_mul_f32_e32 v19, v88, v159
	v_mul_f32_e32 v20, v67, v159
	v_mul_f32_e32 v21, v96, v159
	v_mul_f32_e32 v22, v68, v159
	v_mul_f32_e32 v24, v97, v159
	v_mul_f32_e32 v25, v102, v159
	v_mul_f32_e32 v26, v101, v159
	v_cvt_f16_f32_e32 v0, v19
	v_cvt_f16_f32_sdwa v27, v20 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v28, v21
	v_cvt_f16_f32_sdwa v29, v22 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v30, v23
	v_cvt_f16_f32_sdwa v31, v24 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v32, v25
	v_cvt_f16_f32_sdwa v33, v26 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_or_b32_e32 v27, v27, v0
	v_or_b32_e32 v28, v29, v28
	v_or_b32_e32 v29, v31, v30
	v_or_b32_e32 v30, v33, v32
	global_store_dwordx4 v[138:139], v[27:30], off offset:32
	v_mul_f32_e32 v31, v204, v159
	v_mul_f32_e32 v27, v81, v159
	v_mul_f32_e32 v28, v208, v159
	v_mul_f32_e32 v29, v206, v159
	v_mul_f32_e32 v30, v207, v159
	v_mul_f32_e32 v32, v205, v159
	v_mul_f32_e32 v33, v199, v159
	v_mul_f32_e32 v34, v200, v159
	v_cvt_f16_f32_e32 v0, v27
	v_cvt_f16_f32_sdwa v35, v28 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v36, v29
	v_cvt_f16_f32_sdwa v37, v30 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v38, v31
	v_cvt_f16_f32_sdwa v39, v32 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v40, v33
	v_cvt_f16_f32_sdwa v41, v34 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_or_b32_e32 v35, v35, v0
	v_or_b32_e32 v36, v37, v36
	v_or_b32_e32 v37, v39, v38
	v_or_b32_e32 v38, v41, v40
	global_store_dwordx4 v[138:139], v[35:38], off offset:48
	v_mul_f32_e32 v39, v90, v159
	v_mul_f32_e32 v35, v184, v159
	v_mul_f32_e32 v36, v185, v159
	v_mul_f32_e32 v37, v178, v159
	v_mul_f32_e32 v38, v179, v159
	v_mul_f32_e32 v40, v95, v159
	v_mul_f32_e32 v41, v134, v159
	v_mul_f32_e32 v42, v168, v159
	v_cvt_f16_f32_e32 v0, v35
	v_cvt_f16_f32_sdwa v43, v36 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v44, v37
	v_cvt_f16_f32_sdwa v45, v38 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v46, v39
	v_cvt_f16_f32_sdwa v47, v40 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v48, v41
	v_cvt_f16_f32_sdwa v49, v42 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_or_b32_e32 v43, v43, v0
	v_or_b32_e32 v44, v45, v44
	v_or_b32_e32 v45, v47, v46
	v_or_b32_e32 v46, v49, v48
	global_store_dwordx4 v[138:139], v[43:46], off offset:64
	v_mul_f32_e32 v47, v103, v159
	v_mul_f32_e32 v43, v107, v159
	v_mul_f32_e32 v44, v104, v159
	v_mul_f32_e32 v45, v105, v159
	v_mul_f32_e32 v46, v70, v159
	v_mul_f32_e32 v48, v77, v159
	v_mul_f32_e32 v49, v80, v159
	v_mul_f32_e32 v50, v75, v159
	v_cvt_f16_f32_e32 v0, v43
	v_cvt_f16_f32_sdwa v51, v44 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v52, v45
	v_cvt_f16_f32_sdwa v53, v46 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v54, v47
	v_cvt_f16_f32_sdwa v55, v48 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v56, v49
	v_cvt_f16_f32_sdwa v57, v50 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_or_b32_e32 v51, v51, v0
	v_or_b32_e32 v52, v53, v52
	v_or_b32_e32 v53, v55, v54
	v_or_b32_e32 v54, v57, v56
	global_store_dwordx4 v[138:139], v[51:54], off offset:80
	v_mul_f32_e32 v55, v111, v159
	v_mul_f32_e32 v51, v106, v159
	v_mul_f32_e32 v52, v108, v159
	v_mul_f32_e32 v53, v109, v159
	v_mul_f32_e32 v54, v69, v159
	v_mul_f32_e32 v56, v112, v159
	v_mul_f32_e32 v57, v116, v159
	v_mul_f32_e32 v58, v113, v159
	v_cvt_f16_f32_e32 v0, v51
	v_cvt_f16_f32_sdwa v59, v52 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v60, v53
	v_cvt_f16_f32_sdwa v61, v54 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v62, v55
	v_cvt_f16_f32_sdwa v63, v56 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v64, v57
	v_cvt_f16_f32_sdwa v65, v58 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_or_b32_e32 v59, v59, v0
	v_or_b32_e32 v60, v61, v60
	v_or_b32_e32 v61, v63, v62
	v_or_b32_e32 v62, v65, v64
	global_store_dwordx4 v[138:139], v[59:62], off offset:96
	v_mul_f32_e32 v63, v164, v159
	v_mul_f32_e32 v59, v110, v159
	v_mul_f32_e32 v60, v117, v159
	v_mul_f32_e32 v61, v119, v159
	v_mul_f32_e32 v62, v163, v159
	v_mul_f32_e32 v64, v165, v159
	v_mul_f32_e32 v65, v166, v159
	v_mul_f32_e32 v66, v118, v159
	v_cvt_f16_f32_e32 v0, v59
	v_cvt_f16_f32_sdwa v67, v60 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v68, v61
	v_cvt_f16_f32_sdwa v69, v62 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v70, v63
	v_cvt_f16_f32_sdwa v71, v64 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v72, v65
	v_cvt_f16_f32_sdwa v73, v66 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_or_b32_e32 v67, v67, v0
	v_or_b32_e32 v68, v69, v68
	v_or_b32_e32 v69, v71, v70
	v_or_b32_e32 v70, v73, v72
	global_store_dwordx4 v[138:139], v[67:70], off offset:112
	v_mul_f32_e32 v71, v94, v159
	v_mul_f32_e32 v67, v121, v159
	v_mul_f32_e32 v68, v76, v159
	v_mul_f32_e32 v69, v89, v159
	v_mul_f32_e32 v70, v177, v159
	v_mul_f32_e32 v72, v174, v159
	v_mul_f32_e32 v73, v85, v159
	v_mul_f32_e32 v74, v186, v159
	v_cvt_f16_f32_e32 v0, v67
	v_cvt_f16_f32_sdwa v75, v68 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v76, v69
	v_cvt_f16_f32_sdwa v77, v70 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v78, v71
	v_cvt_f16_f32_sdwa v79, v72 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v80, v73
	v_cvt_f16_f32_sdwa v81, v74 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_or_b32_e32 v75, v75, v0
	v_or_b32_e32 v76, v77, v76
	v_or_b32_e32 v77, v79, v78
	v_or_b32_e32 v78, v81, v80
	global_store_dwordx4 v[138:139], v[75:78], off offset:128
	v_mul_f32_e32 v79, v86, v159
	v_mul_f32_e32 v75, v173, v159
	v_mul_f32_e32 v76, v167, v159
	v_mul_f32_e32 v77, v170, v159
	v_mul_f32_e32 v78, v172, v159
	v_mul_f32_e32 v80, v181, v159
	v_mul_f32_e32 v81, v188, v159
	v_mul_f32_e32 v82, v99, v159
	v_cvt_f16_f32_e32 v0, v75
	v_cvt_f16_f32_sdwa v83, v76 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v84, v77
	v_cvt_f16_f32_sdwa v85, v78 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v86, v79
	v_cvt_f16_f32_sdwa v87, v80 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v88, v81
	v_cvt_f16_f32_sdwa v89, v82 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_or_b32_e32 v83, v83, v0
	v_or_b32_e32 v84, v85, v84
	v_or_b32_e32 v85, v87, v86
	v_or_b32_e32 v86, v89, v88
	global_store_dwordx4 v[138:139], v[83:86], off offset:144
	v_mul_f32_e32 v87, v131, v159
	v_mul_f32_e32 v83, v197, v159
	v_mul_f32_e32 v84, v201, v159
	v_mul_f32_e32 v85, v202, v159
	v_mul_f32_e32 v86, v136, v159
	v_mul_f32_e32 v88, v141, v159
	v_mul_f32_e32 v89, v120, v159
	v_mul_f32_e32 v90, v143, v159
	v_cvt_f16_f32_e32 v0, v83
	v_cvt_f16_f32_sdwa v91, v84 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v92, v85
	v_cvt_f16_f32_sdwa v93, v86 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v94, v87
	v_cvt_f16_f32_sdwa v95, v88 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v96, v89
	v_cvt_f16_f32_sdwa v97, v90 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_or_b32_e32 v91, v91, v0
	v_or_b32_e32 v92, v93, v92
	v_or_b32_e32 v93, v95, v94
	v_or_b32_e32 v94, v97, v96
	global_store_dwordx4 v[138:139], v[91:94], off offset:160
	v_mul_f32_e32 v95, v194, v159
	v_mul_f32_e32 v91, v189, v159
	v_mul_f32_e32 v92, v191, v159
	v_mul_f32_e32 v93, v192, v159
	v_mul_f32_e32 v94, v193, v159
	v_mul_f32_e32 v96, v195, v159
	v_mul_f32_e32 v97, v196, v159
	v_mul_f32_e32 v98, v198, v159
	v_cvt_f16_f32_e32 v0, v91
	v_cvt_f16_f32_sdwa v99, v92 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v100, v93
	v_cvt_f16_f32_sdwa v101, v94 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v102, v95
	v_cvt_f16_f32_sdwa v103, v96 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v104, v97
	v_cvt_f16_f32_sdwa v105, v98 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_or_b32_e32 v99, v99, v0
	v_or_b32_e32 v100, v101, v100
	v_or_b32_e32 v101, v103, v102
	v_or_b32_e32 v102, v105, v104
	global_store_dwordx4 v[138:139], v[99:102], off offset:176
	v_mul_f32_e32 v103, v180, v159
	v_mul_f32_e32 v99, v253, v159
	v_mul_f32_e32 v100, v242, v159
	v_mul_f32_e32 v101, v243, v159
	v_mul_f32_e32 v102, v176, v159
	v_mul_f32_e32 v104, v244, v159
	v_mul_f32_e32 v105, v187, v159
	v_mul_f32_e32 v106, v190, v159
	v_cvt_f16_f32_e32 v0, v99
	v_cvt_f16_f32_sdwa v107, v100 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v108, v101
	v_cvt_f16_f32_sdwa v109, v102 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v110, v103
	v_cvt_f16_f32_sdwa v111, v104 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v112, v105
	v_cvt_f16_f32_sdwa v113, v106 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_or_b32_e32 v107, v107, v0
	v_or_b32_e32 v108, v109, v108
	v_or_b32_e32 v109, v111, v110
	v_or_b32_e32 v110, v113, v112
	global_store_dwordx4 v[138:139], v[107:110], off offset:192
	v_mul_f32_e32 v111, v132, v159
	v_mul_f32_e32 v107, v114, v159
	v_mul_f32_e32 v108, v115, v159
	v_mul_f32_e32 v109, v144, v159
	v_mul_f32_e32 v110, v145, v159
	v_mul_f32_e32 v112, v133, v159
	v_mul_f32_e32 v113, v135, v159
	v_mul_f32_e32 v114, v171, v159
	v_cvt_f16_f32_e32 v0, v107
	v_cvt_f16_f32_sdwa v115, v108 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v116, v109
	v_cvt_f16_f32_sdwa v117, v110 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v118, v111
	v_cvt_f16_f32_sdwa v119, v112 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v120, v113
	v_cvt_f16_f32_sdwa v121, v114 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_or_b32_e32 v115, v115, v0
	v_or_b32_e32 v116, v117, v116
	v_or_b32_e32 v117, v119, v118
	v_or_b32_e32 v118, v121, v120
	global_store_dwordx4 v[138:139], v[115:118], off offset:208
	v_mul_f32_e32 v119, v126, v159
	v_mul_f32_e32 v115, v122, v159
	v_mul_f32_e32 v116, v123, v159
	v_mul_f32_e32 v117, v124, v159
	v_mul_f32_e32 v118, v125, v159
	v_mul_f32_e32 v120, v127, v159
	v_mul_f32_e32 v121, v128, v159
	v_mul_f32_e32 v122, v129, v159
	v_cvt_f16_f32_e32 v0, v115
	v_cvt_f16_f32_sdwa v123, v116 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v124, v117
	v_cvt_f16_f32_sdwa v125, v118 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v126, v119
	v_cvt_f16_f32_sdwa v127, v120 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v128, v121
	v_cvt_f16_f32_sdwa v129, v122 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_or_b32_e32 v123, v123, v0
	v_or_b32_e32 v124, v125, v124
	v_or_b32_e32 v125, v127, v126
	v_or_b32_e32 v126, v129, v128
	global_store_dwordx4 v[138:139], v[123:126], off offset:224
	v_mul_f32_e32 v127, v160, v159
	v_mul_f32_e32 v123, v140, v159
	v_mul_f32_e32 v124, v130, v159
	v_mul_f32_e32 v125, v137, v159
	v_mul_f32_e32 v126, v142, v159
	v_mul_f32_e32 v128, v161, v159
	v_mul_f32_e32 v129, v162, v159
	v_mul_f32_e32 v130, v146, v159
	v_cvt_f16_f32_e32 v0, v123
	v_cvt_f16_f32_sdwa v131, v124 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v132, v125
	v_cvt_f16_f32_sdwa v133, v126 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v134, v127
	v_cvt_f16_f32_sdwa v135, v128 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_cvt_f16_f32_e32 v136, v129
	v_cvt_f16_f32_sdwa v137, v130 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD
	v_readlane_b32 s6, v1, 16
	v_readlane_b32 s7, v1, 17
	v_or_b32_e32 v131, v131, v0
	v_or_b32_e32 v132, v133, v132
	v_or_b32_e32 v133, v135, v134
	v_or_b32_e32 v134, v137, v136
	s_andn2_b64 vcc, exec, s[6:7]
	global_store_dwordx4 v[138:139], v[131:134], off offset:240
	s_cbranch_vccnz .LBB1_29
; %bb.28:                               ;   in Loop: Header=BB1_4 Depth=1
	v_mov_b32_e32 v0, s25
	v_subrev_co_u32_e32 v131, vcc, s24, v138
	v_subb_co_u32_e32 v132, vcc, v139, v0, vcc
	v_lshlrev_b64 v[131:132], 1, v[131:132]
	v_mov_b32_e32 v0, s31
	v_add_co_u32_e32 v131, vcc, s30, v131
	v_addc_co_u32_e32 v132, vcc, v0, v132, vcc
	global_store_dwordx4 v[131:132], v[3:6], off
	global_store_dwordx4 v[131:132], v[7:10], off offset:16
	global_store_dwordx4 v[131:132], v[11:14], off offset:32
	global_store_dwordx4 v[131:132], v[15:18], off offset:48
	global_store_dwordx4 v[131:132], v[19:22], off offset:64
	global_store_dwordx4 v[131:132], v[23:26], off offset:80
	global_store_dwordx4 v[131:132], v[27:30], off offset:96
	global_store_dwordx4 v[131:132], v[31:34], off offset:112
	global_store_dwordx4 v[131:132], v[35:38], off offset:128
	global_store_dwordx4 v[131:132], v[39:42], off offset:144
	global_store_dwordx4 v[131:132], v[43:46], off offset:160
	global_store_dwordx4 v[131:132], v[47:50], off offset:176
	global_store_dwordx4 v[131:132], v[51:54], off offset:192
	global_store_dwordx4 v[131:132], v[55:58], off offset:208
	global_store_dwordx4 v[131:132], v[59:62], off offset:224
	global_store_dwordx4 v[131:132], v[63:66], off offset:240
	global_store_dwordx4 v[131:132], v[67:70], off offset:256
	global_store_dwordx4 v[131:132], v[71:74], off offset:272
	global_store_dwordx4 v[131:132], v[75:78], off offset:288
	global_store_dwordx4 v[131:132], v[79:82], off offset:304
	global_store_dwordx4 v[131:132], v[83:86], off offset:320
	global_store_dwordx4 v[131:132], v[87:90], off offset:336
	global_store_dwordx4 v[131:132], v[91:94], off offset:352
	global_store_dwordx4 v[131:132], v[95:98], off offset:368
	global_store_dwordx4 v[131:132], v[99:102], off offset:384
	global_store_dwordx4 v[131:132], v[103:106], off offset:400
	global_store_dwordx4 v[131:132], v[107:110], off offset:416
	global_store_dwordx4 v[131:132], v[111:114], off offset:432
	global_store_dwordx4 v[131:132], v[115:118], off offset:448
	global_store_dwordx4 v[131:132], v[119:122], off offset:464
	global_store_dwordx4 v[131:132], v[123:126], off offset:480
	global_store_dwordx4 v[131:132], v[127:130], off offset:496
.LBB1_29:                               ;   in Loop: Header=BB1_4 Depth=1
	v_readlane_b32 s12, v1, 6
	v_readlane_b32 s13, v1, 7
	v_mad_u64_u32 v[3:4], s[6:7], v153, s12, v[154:155]
	v_mul_lo_u32 v0, v150, s12
	v_mul_lo_u32 v5, v153, s13
	v_readlane_b32 s14, v1, 8
	v_readlane_b32 s15, v1, 9
	v_add_u32_e32 v0, v0, v4
	v_add_u32_e32 v4, v5, v0
	v_mad_u64_u32 v[3:4], s[6:7], v156, s14, v[3:4]
	v_mul_lo_u32 v0, v157, s14
	v_mul_lo_u32 v5, v156, s15
	v_log_f32_e32 v6, v147
	v_mov_b32_e32 v7, s27
	v_add_u32_e32 v0, v0, v4
	v_add_u32_e32 v4, v5, v0
	v_add_f32_e32 v0, v158, v6
	v_lshlrev_b64 v[5:6], 2, v[3:4]
	v_mul_f32_e32 v0, 0x3f317218, v0
	v_cndmask_b32_e64 v0, v0, v246, s[2:3]
	v_add_co_u32_e32 v5, vcc, s26, v5
	v_readlane_b32 s2, v1, 18
	v_addc_co_u32_e32 v6, vcc, v7, v6, vcc
	v_readlane_b32 s3, v1, 19
	s_andn2_b64 vcc, exec, s[2:3]
	global_store_dword v[5:6], v0, off
	s_cbranch_vccnz .LBB1_2
; %bb.30:                               ;   in Loop: Header=BB1_4 Depth=1
	v_lshlrev_b64 v[3:4], 3, v[3:4]
	v_mov_b32_e32 v0, s29
	v_add_co_u32_e32 v3, vcc, s28, v3
	v_addc_co_u32_e32 v4, vcc, v0, v4, vcc
	global_store_dwordx2 v[3:4], v[158:159], off
	s_branch .LBB1_2
.LBB1_31:                               ;   in Loop: Header=BB1_4 Depth=1
                                        ; implicit-def: $vgpr153_vgpr154
	s_branch .LBB1_10
.LBB1_32:
	s_endpgm
