"""Helpers of the varlen / KV-cache tests: packed random inputs and per-sequence checks against fp64."""

from __future__ import annotations

import itertools
from dataclasses import replace

import torch

from conftest import assert_close_to_reference, assert_grads_close


def cu(lens, device="cpu") -> torch.Tensor:
    """int32 cu_seqlens (batch + 1,) of ``lens``."""
    return torch.tensor([0, *itertools.accumulate(lens)], dtype=torch.int32, device=device)


def rand_packed(lens_q, lens_k, nheads, nheads_k, headdim, dtype, device="cpu", seed=0):
    """Fresh standard-normal packed q (total_q, nheads, headdim), k, v (total_k, nheads_k, headdim)."""
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(sum(lens_q), nheads, headdim, generator=g).to(device=device, dtype=dtype)
    k = torch.randn(sum(lens_k), nheads_k, headdim, generator=g).to(device=device, dtype=dtype)
    v = torch.randn(sum(lens_k), nheads_k, headdim, generator=g).to(device=device, dtype=dtype)
    return q, k, v


def split_rows(x, lens):
    """The per-sequence row slices of a packed tensor."""
    starts = [0, *itertools.accumulate(lens)]
    return [x[a:b] for a, b in zip(starts, starts[1:])]


def per_sequence_args(args, b):
    """The FwdArgs of sequence b: (batch, nheads) ALiBi slopes become that sequence's row."""
    if args.alibi_slopes is not None and args.alibi_slopes.dim() == 2:
        return replace(args, alibi_slopes=args.alibi_slopes[b])
    return args


def assert_sequences_close(out, lse, q_seqs, kv_seqs, args, what=""):
    """Per sequence: FlashAttention's rule on O and LSE against the fp64 dense attention of that sequence.
    out (total_q, nheads, headdim), lse (nheads, total_q) or None; q_seqs [(sq_b, h, d)], kv_seqs [(k_b, v_b)].
    A sequence without keys must give 0 and LSE -inf. Returns the number of sequences with work."""
    pos, checked = 0, 0
    for b, (qb, (kb, vb)) in enumerate(zip(q_seqs, kv_seqs)):
        rows = slice(pos, pos + qb.shape[0])
        pos += qb.shape[0]
        if qb.shape[0] == 0:
            continue
        if kb.shape[0] == 0:
            assert bool((out[rows] == 0).all()), f"{what} seq {b}: no keys but nonzero output"
            assert lse is None or bool(torch.isneginf(lse[:, rows]).all()), f"{what} seq {b}: no keys, LSE not -inf"
            continue
        assert_close_to_reference(out[rows][None], None if lse is None else lse[:, rows][None], qb[None], kb[None],
                                  vb[None], per_sequence_args(args, b), f"{what} seq {b}")
        checked += 1
    assert pos == out.shape[0]
    return checked


def assert_sequence_grads_close(grads, q, k, v, dout, lens_q, lens_k, args, what=""):
    """FlashAttention's backward rule per sequence (dq rows, dk/dv rows of its keys); keys of a sequence
    without query rows (or rows without keys) must get exactly zero gradients."""
    dq, dk, dv = grads
    for b, (rq, rk) in enumerate(zip(zip(split_rows(torch.arange(q.shape[0]), lens_q), split_rows(dq, lens_q)),
                                     zip(split_rows(torch.arange(k.shape[0]), lens_k), split_rows(dk, lens_k)))):
        iq, ik = rq[0], rk[0]
        if len(iq) == 0 or len(ik) == 0:
            assert bool((dq[iq] == 0).all() and (dk[ik] == 0).all() and (dv[ik] == 0).all()), f"{what} seq {b}"
            continue
        assert_grads_close((dq[iq][None], dk[ik][None], dv[ik][None]), q[iq][None], k[ik][None], v[ik][None],
                           dout[iq][None], per_sequence_args(args, b), f"{what} seq {b}")


# flash_attn_varlen_func's index rules for the check kernel (hip_src/fmha_varlen_check.h), shared by its GPU test
# (test_gpu_host_path.py) and its emulator test (test_emu_inference.py). A case: (cu_seqlens_q, cu_seqlens_k,
# total_q, total_k, max_seqlen_q, max_seqlen_k[, block_table, num_blocks, page_block_size]); total_k -1: cu_seqlens_k
# ends anywhere (paged). Paged cases: 3 sequences of 7, 4, 9 keys in pages of 16, 9 blocks; -1 / 8 in the table are
# unused pages (never read).
_CU_Q, _CU_K, _TABLE = [0, 3, 3, 8], [0, 7, 11, 20], [[4, 8], [0, -1], [2, 6]]


def _table_with(row, col, value):
    t = [list(r) for r in _TABLE]
    t[row][col] = value
    return t


CHECK_GOOD = [
    (_CU_Q, _CU_K, 8, 20, 5, 9),
    (_CU_Q, _CU_K, 8, 20, 2**31 - 1, 2**31 - 1),
    (_CU_Q, _CU_K, 8, -1, 5, 9, _TABLE, 9, 16),
    ([0, 1], [0, 32], 1, -1, 1, 64, [[0, 1]], 9, 16),  # 32 keys: exactly the table's 2 pages
]
CHECK_BAD = [
    ([0, 3, 3, 8], [0, 7, 5, 20], 8, 20, 5, 9),    # cu_seqlens_k decreasing
    ([0, 3, 2, 8], [0, 7, 11, 20], 8, 20, 6, 9),   # cu_seqlens_q decreasing
    (_CU_Q, _CU_K, 8, 20, 5, 8),                   # a sequence longer than max_seqlen_k
    (_CU_Q, _CU_K, 8, 20, 4, 9),                   # ... than max_seqlen_q
    ([1, 3, 3, 8], _CU_K, 8, 20, 5, 9),            # cu_seqlens_q not starting at 0
    (_CU_Q, [2, 7, 11, 20], 8, 20, 5, 9),          # cu_seqlens_k not starting at 0
    (_CU_Q, _CU_K, 9, 20, 5, 9),                   # not ending at total_q
    (_CU_Q, _CU_K, 8, 21, 5, 9),                   # not ending at total_k
    ([0, 5], [0, 2**31 - 1], 5, 2**31 - 1, 5, 2**31 - 2),  # one key more than max_seqlen_k near int32's end
    # a decrease whose 32-bit difference wraps to 3 (a valid-looking length): the kernel subtracts in 64 bits
    ([0, 1, 2], [0, 2**31 - 1, -2**31 + 2], 2, -2**31 + 2, 1, 2**31 - 1),
    (_CU_Q, _CU_K, 8, -1, 5, 9, _table_with(2, 0, 9), 9, 16),        # a used entry >= num_blocks
    (_CU_Q, _CU_K, 8, -1, 5, 9, _table_with(1, 0, -1), 9, 16),       # ... negative
    (_CU_Q, _CU_K, 8, -1, 5, 9, _table_with(0, 0, 1 << 30), 9, 16),  # ... far out
    ([0, 1], [0, 33], 1, -1, 1, 64, [[0, 1]], 9, 16),  # 33 keys need 3 pages, the table has 2
]

