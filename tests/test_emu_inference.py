"""The inference kernels' gfx906 machine code on the emulator (rocflash.emu.driver_varlen) against fp64, per sequence.

Varlen forward and backward (uneven and empty sequences, seqlen_q != seqlen_k per sequence, causal, GQA), paged
K/V (shuffled block table, unused blocks and slots NaN, page sizes 16, 48 and 256) through the forward kernel and
the split-KV decode kernel, and split-KV decode with and without the combine kernel (seqlen_q 1 and 4, GQA 8:2,
dense and paged caches), LSE included; fp16, bf16, fp32; both load paths. The params struct is filled by the
compiled backend's own host code (rocflash.backends.compiled). Tolerance: FlashAttention's rule (tests/varlen_ref.py).
Functional semantics as the emulator reads the Vega ISA manual: no timing, not silicon.

Marked ``toolchain`` like tests/test_emu_kernels.py. Bounded cost: about 1.5 minutes on 2 cores (cold compile
cache included). The larger sweep: ``python perf/emu_sweep.py --kinds varlen,varlen_bwd,paged,splitkv``.
"""

from __future__ import annotations

import dataclasses

import pytest
import torch

from conftest import DTYPES, assert_close_to_reference, fwd_args
from test_emu_kernels import _toolchain  # noqa: F401  (autouse: skip / fail without hipcc and clang++)
from test_varlen import _pages
from varlen_ref import assert_sequence_grads_close, assert_sequences_close, cu, rand_packed, split_rows

pytestmark = pytest.mark.toolchain


def _seq_args(lens_q, lens_k, **kw):
    from rocflash.backends import SeqArgs

    return SeqArgs(cu(lens_q), cu(lens_k), None, max(lens_q), max(lens_k), **kw)


def test_emulated_varlen_forward_and_backward():
    """Uneven sequences, one without queries, one without keys, seqlen_q < and > seqlen_k (causal: fully masked
    rows), GQA 2:1: the forward, then the backward (preprocess over the flattened rows, dK/dV, dQ) from the
    emulated O and LSE."""
    from rocflash.emu.driver_varlen import run_backward_seq, run_forward_seq

    lens_q, lens_k = [5, 0, 17, 3, 12], [9, 4, 30, 0, 7]
    dtype = DTYPES["bf16"]
    q, k, v = rand_packed(lens_q, lens_k, 2, 1, 32, dtype, seed=21)
    dout = torch.randn(q.shape, generator=torch.Generator().manual_seed(22)).to(dtype)
    seq, args = _seq_args(lens_q, lens_k), fwd_args(32, causal=True)
    out, lse, info = run_forward_seq(q, k, v, args, seq)
    assert info["kernels"] == ["rocflash_fmha_fwd_gfx9_bf16_d32_b128x64_t256x16_p16_vec"], info["kernels"]
    kv = list(zip(split_rows(k, lens_k), split_rows(v, lens_k)))
    assert assert_sequences_close(out, lse, split_rows(q, lens_q), kv, args, "emulated varlen forward") == 3
    dq, dk, dv, binfo = run_backward_seq(q, k, v, out, lse, dout, args, seq)
    assert len(binfo["kernels"]) == 3
    assert_sequence_grads_close((dq, dk, dv), q, k, v, dout, lens_q, lens_k, args, "emulated varlen backward")


def test_emulated_varlen_forward_paged_narrow():
    """Paged K/V (page 16, shuffled, NaN in unused blocks and slots) through the forward kernel (too many rows for
    the split kernel), headdim 20: the narrow load path."""
    from rocflash.emu.driver_varlen import run_forward_seq

    lens_q, lens_k = [3, 20], [40, 17]
    q, k, v = rand_packed(lens_q, lens_k, 2, 2, 20, DTYPES["fp16"], seed=23)
    k_pages, v_pages, table = _pages(split_rows(k, lens_k), split_rows(v, lens_k), 16, seed=24)
    from rocflash.backends import SeqArgs

    seq = SeqArgs(cu(lens_q), None, torch.tensor(lens_k, dtype=torch.int32), max(lens_q), max(lens_k),
                  block_table=table)
    args = fwd_args(20, causal=True)
    out, lse, info = run_forward_seq(q, k_pages, v_pages, args, seq)
    assert info["kernels"][0].startswith("rocflash_fmha_fwd_gfx9_") and info["kernels"][0].endswith("_narrow")
    kv = list(zip(split_rows(k, lens_k), split_rows(v, lens_k)))
    assert assert_sequences_close(out, lse, split_rows(q, lens_q), kv, args, "emulated paged forward") == 2


# (dtype, headdim, seqlen_q, page size (0: dense cache), num_splits, aligned)
DECODE_CASES = [
    pytest.param("fp16", 64, 1, 16, 3, True, id="fp16-d64-sq1-page16-3splits-combine"),
    pytest.param("bf16", 40, 4, 48, 1, False, id="bf16-d40-sq4-speculative-page48-1split-narrow"),
    pytest.param("fp32", 64, 1, 256, 2, True, id="fp32-d64-sq1-page256-2splits-combine"),
    pytest.param("fp16", 64, 4, 0, 2, False, id="fp16-d64-sq4-dense-cache-2splits-narrow"),
]


@pytest.mark.parametrize("dtype,d,sq,page,num_splits,aligned", DECODE_CASES)
def test_emulated_splitkv_decode(dtype, d, sq, page, num_splits, aligned):
    """Decode against a KV cache, GQA 8:2, a sequence with no keys: the split-KV kernel (and with more than one
    split the combine kernel, whose LSE is the one returned), per sequence against fp64."""
    from rocflash.backends import SeqArgs
    from rocflash.emu.driver_varlen import run_forward_seq

    lens_k, lens_q = [37, 0, 150], [sq] * 3
    q, k, v = rand_packed(lens_q, lens_k, 8, 2, d, DTYPES[dtype], seed=d + sq + page)
    k_seqs, v_seqs = split_rows(k, lens_k), split_rows(v, lens_k)
    used = torch.tensor(lens_k, dtype=torch.int32)
    if page:
        k_cache, v_cache, table = _pages(k_seqs, v_seqs, page, seed=page)
    else:  # dense cache rows in reverse order (cache_batch_idx), stale slots NaN
        k_cache = torch.full((3, 160, 2, d), float("nan"), dtype=q.dtype)
        v_cache = k_cache.clone()
        for b, n in enumerate(lens_k):
            k_cache[2 - b, :n], v_cache[2 - b, :n] = k_seqs[b], v_seqs[b]
        table = None
    seq = SeqArgs(torch.arange(0, 4 * sq, sq, dtype=torch.int32), None, used, sq, max(lens_k), block_table=table,
                  cache_batch_idx=None if page else torch.tensor([2, 1, 0], dtype=torch.int32), num_splits=num_splits)
    args = fwd_args(d, causal=True)
    out, lse, info = run_forward_seq(q, k_cache, v_cache, args, seq, aligned=aligned)
    assert info["num_splits"] == num_splits and info["kernels"][0].startswith("rocflash_fmha_fwd_splitkv_gfx9_")
    assert info["kernels"][0].endswith("_vec" if aligned else "_narrow")
    assert len(info["kernels"]) == (2 if num_splits > 1 else 1)
    assert assert_sequences_close(out, lse, split_rows(q, lens_q), list(zip(k_seqs, v_seqs)), args,
                                  f"emulated split-KV {info['kernels']}") == 2


def test_emulated_dense_decode_through_combine():
    """The dense layout (batch, 1, nheads, headdim) through the split kernel and the combine (which addresses
    O and LSE by batch and row there), GQA 8:2, more splits than some sequences have keys for."""
    from rocflash.emu.driver_varlen import run_forward_seq

    g = torch.Generator().manual_seed(25)
    q, k, v = (torch.randn(*s, generator=g).half() for s in ((2, 1, 8, 64), (2, 70, 2, 64), (2, 70, 2, 64)))
    args = fwd_args(64)
    out, lse, info = run_forward_seq(q, k, v, args, num_splits=4)
    assert info["num_splits"] == 4 and len(info["kernels"]) == 2
    assert_close_to_reference(out, lse, q, k, v, args, "emulated dense split-KV decode")


def test_decode_model_trace_streams_the_split_keys():
    """The decode cycle MODEL's trace of split-KV workgroup 0 (rocflash.emu.cycles_decode) moves exactly the bytes
    the kernel addresses: its split's K and V rows plus the pipeline's one prefetch past the end (key k_end - 1
    re-read), Q once per key group, and the fp32 partial O rows and statistics (m_s, l_s, ALiBi shift: 3 floats
    since eco14, was one LSE) of its block_m rows."""
    from rocflash.configs import select_config
    from rocflash.emu.cycles import group_cost
    from rocflash.emu.cycles_decode import _trace

    cfg = select_config("fwd_splitkv", "gfx9", "fp16", 64)
    d, keys = 64, 4 * cfg.block_n  # keys per split (2 splits)
    (prog, waves), (cprog, cwaves) = _trace("fp16", 4, 1, 2 * keys, d, 2, [0])
    key_groups = cfg.threads // cfg.threads_n
    expect = (keys + cfg.block_n) * d * 2 * 2 + key_groups * cfg.block_m * d * 2 + cfg.block_m * (d * 4 + 3 * 4)
    cost = group_cost(prog, waves)
    assert cost.mem_bytes == expect and cost.simd > 0 and group_cost(cprog, cwaves).mem_bytes > 0


@pytest.mark.parametrize("num_splits", [1, 3], ids=["1split", "3splits-combine"])
def test_emulated_splitkv_bad_sequence_gives_nan(num_splits):
    """A sequence the KV-cache step kernel marked bad (seqused_k = -1: an index out of range, hip_src/fmha_kvstep.h)
    through the gfx906 split-KV kernel (and the combine): none of its keys or pages is read (its block table row is
    out of range), its O and LSE are NaN; the other sequences match fp64."""
    from rocflash.backends import SeqArgs
    from rocflash.emu.driver_varlen import run_forward_seq

    lens_k, lens_q = [37, 20, 150], [1, 1, 1]
    q, k, v = rand_packed(lens_q, lens_k, 8, 2, 64, torch.float16, seed=41)
    k_seqs, v_seqs = split_rows(k, lens_k), split_rows(v, lens_k)
    k_cache, v_cache, table = _pages(k_seqs, v_seqs, 16, seed=41)
    table[1] = k_cache.shape[0] + 7  # the reason it is bad: every entry outside the cache
    seq = SeqArgs(torch.arange(4, dtype=torch.int32), None, torch.tensor([37, -1, 150], dtype=torch.int32), 1, 160,
                  block_table=table, num_splits=num_splits)
    args = fwd_args(64, causal=True)
    out, lse, info = run_forward_seq(q, k_cache, v_cache, args, seq)
    assert info["num_splits"] == num_splits and len(info["kernels"]) == (2 if num_splits > 1 else 1)
    assert out[1].isnan().all() and lse[:, 1].isnan().all()
    good = [0, 2]
    assert assert_sequences_close(out[good], lse[:, good], [q[b:b + 1] for b in good],
                                  [(k_seqs[b], v_seqs[b]) for b in good], args, "emulated bad-index split-KV") == 2


def _bits(t):
    return t.view(torch.int16) if t.element_size() == 2 else t.view(torch.int32)


def test_emulated_splitkv_folded_step_appends_like_the_step_kernel():
    """The KV-cache step folded into the gfx906 split-KV kernel (hip_src/fmha_kvstep.h folded_kv_step; the fast
    path's with rocflash.kvcache_fast.FOLD_STEP): two new keys per sequence appended by the blocks of the split
    that holds them (sequence 0's straddle the split boundary at 64; 8 query rows per kv-head = two row chunks
    writing the same rows), then attended to, causal speculative rows: output, LSE and caches bitwise those of the
    same kernel after a host append with seqused_k (the step kernel's contract), slots past each sequence NaN."""
    from rocflash.backends import SeqArgs
    from rocflash.emu.driver_varlen import run_forward_seq

    lens, new, cap, d = [63, 30, 0], 2, 192, 64
    q, k_new, v_new = rand_packed([new] * 3, [new] * 3, 8, 2, d, torch.float16, seed=61)
    k_new, v_new = k_new.view(3, new, 2, d), v_new.view(3, new, 2, d)
    g = torch.Generator().manual_seed(62)
    k_cache = torch.full((3, cap, 2, d), float("nan"), dtype=torch.float16)
    v_cache = k_cache.clone()
    for b, n in enumerate(lens):
        k_cache[b, :n] = torch.randn(n, 2, d, generator=g).half()
        v_cache[b, :n] = torch.randn(n, 2, d, generator=g).half()
    appended_k, appended_v = k_cache.clone(), v_cache.clone()
    for b, n in enumerate(lens):
        appended_k[b, n:n + new], appended_v[b, n:n + new] = k_new[b], v_new[b]
    args = fwd_args(d, causal=True)
    cu_q = torch.arange(0, 4 * new, new, dtype=torch.int32)
    used = torch.tensor([n + new for n in lens], dtype=torch.int32)
    ref_out, ref_lse, ref_info = run_forward_seq(q, appended_k, appended_v, args,
                                                 SeqArgs(cu_q, None, used, new, cap, num_splits=3))
    flag = torch.zeros(1, dtype=torch.int32)
    step = dict(cache_seqlens=torch.tensor(lens, dtype=torch.int32), seqlen_new=new, capacity=cap, num_rows=3,
                k_new=k_new, v_new=v_new, error_flag=flag,
                kn_batch_stride=k_new.stride(0), kn_row_stride=k_new.stride(1), kn_head_stride=k_new.stride(2),
                vn_batch_stride=v_new.stride(0), vn_row_stride=v_new.stride(1), vn_head_stride=v_new.stride(2))
    out, lse, info = run_forward_seq(q, k_cache, v_cache, args, SeqArgs(cu_q, None, None, new, cap, num_splits=3),
                                     step=step)
    assert info["num_splits"] == 3 and info["kernels"] == ref_info["kernels"]
    assert info["kernels"][0].startswith("rocflash_fmha_fwd_splitkv_gfx9_")
    assert torch.equal(_bits(out), _bits(ref_out)) and torch.equal(_bits(lse), _bits(ref_lse))
    assert torch.equal(_bits(info["k"]), _bits(appended_k)) and torch.equal(_bits(info["v"]), _bits(appended_v))
    assert info["error_flag"].item() == 0 and not out.isnan().any()


def test_emulated_splitkv_folded_step_bad_page_of_one_split():
    """The folded step under ROCFLASH_INDEX_CHECKS=off on a paged cache: a used block-table entry out of range that
    only the last split's blocks see makes the whole sequence NaN (that split's NaN LSE through the combine) and
    sets the flag; entries past each sequence's pages (out of range too, as vLLM may pad) are ignored; the other
    sequences are bitwise those of the good call."""
    from rocflash.backends import SeqArgs
    from rocflash.emu.driver_varlen import run_forward_seq

    lens_k, d = [100, 150, 20], 64
    q, k, v = rand_packed([1] * 3, lens_k, 8, 2, d, torch.float16, seed=63)
    k_pages, v_pages, table = _pages(split_rows(k, lens_k), split_rows(v, lens_k), 16, seed=63)
    cap = table.shape[1] * 16  # 160: splits of 64 keys (3)
    args = fwd_args(d)
    seq = SeqArgs(torch.arange(4, dtype=torch.int32), None, None, 1, cap, block_table=table, num_splits=3)

    def call(tbl):
        flag = torch.zeros(1, dtype=torch.int32)
        step = dict(cache_seqlens=torch.tensor(lens_k, dtype=torch.int32), capacity=cap, num_rows=k_pages.shape[0],
                    error_flag=flag)
        return run_forward_seq(q, k_pages, v_pages, args, dataclasses.replace(seq, block_table=tbl), step=step)

    good_out, good_lse, good_info = call(table)
    assert good_info["error_flag"].item() == 0 and not good_out.isnan().any()
    kv = list(zip(split_rows(k, lens_k), split_rows(v, lens_k)))
    assert assert_sequences_close(good_out, good_lse, split_rows(q, [1] * 3), kv, args, "emulated folded paged") == 3
    bad = table.clone()
    bad[1, 9] = k_pages.shape[0] + 5  # keys 144..149 of 150: only the split of keys 128..191
    out, lse, info = call(bad)
    assert info["error_flag"].item() == 1
    assert out[1].isnan().all() and lse[:, 1].isnan().all()
    for b in (0, 2):
        assert torch.equal(_bits(out[b]), _bits(good_out[b])) and torch.equal(_bits(lse[:, b]), _bits(good_lse[:, b]))


def test_emulated_varlen_check_kernel_flags_each_rule():
    """flash_attn_varlen_func's index-check kernel (hip_src/fmha_varlen_check.h) as gfx906 machine code: every
    value rule one violation at a time sets the error flag (the assert is off: the trap is not emulated), good
    index values and out-of-range entries of unused pages leave it 0 (varlen_ref.CHECK_GOOD / CHECK_BAD, the cases of
    test_gpu_host_path.py::test_gpu_varlen_check_kernel_flags_each_rule)."""
    from rocflash.emu.driver_check import run_varlen_check
    from varlen_ref import CHECK_BAD, CHECK_GOOD

    def check(cu_q, cu_k, total_q, total_k, max_q, max_k, table=None, num_blocks=0, page=0):
        t = lambda x: torch.tensor(x, dtype=torch.int32)  # noqa: E731
        return run_varlen_check(t(cu_q), t(cu_k), total_q, total_k, max_q, max_k,
                                None if table is None else t(table), num_blocks, page)

    for case in CHECK_GOOD:
        assert check(*case) == 0, case
    for case in CHECK_BAD:
        assert check(*case) == 1, case


def test_emulated_varlen_check_kernel_traps_on_a_bad_value():
    """With assert_on_error (the `device` policy) the check kernel's device-side assert is s_trap on gfx906
    (hip_src/rf_vendor.h rf_assert_fail: no scratch, no call); good values run through."""
    from rocflash.emu.driver_check import run_varlen_check
    from rocflash.emu.state import Trap

    t = lambda x: torch.tensor(x, dtype=torch.int32)  # noqa: E731
    assert run_varlen_check(t([0, 3, 3, 8]), t([0, 7, 11, 20]), 8, 20, 5, 9, assert_on_error=True) == 0
    with pytest.raises(Trap, match="s_trap"):
        run_varlen_check(t([0, 3, 3, 8]), t([0, 7, 5, 20]), 8, 20, 5, 9, assert_on_error=True)
