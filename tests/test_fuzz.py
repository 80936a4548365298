"""Property-based fuzzing (issue 8.10): random problems through sim and torch (CPU) and the compiled kernels
(marker gpu) against fp64, forward (out, LSE) and backward, with FlashAttention's tolerance rule.

What varies: batch 0-3, seqlen_q/seqlen_k 0-300, nheads_k 1-3 with GQA groups 1-3, headdim 1-256, dtype,
memory layout (contiguous, (b, h, s, d) storage transposed, storage offset with padded rows, a strided last
dimension), causal, sliding windows, softcap, ALiBi ((nheads,) or (batch, nheads)), softmax_scale (default or
+-[0.01, 2]; larger scales: see test_fused_dq_dk_at_scale_15_fp16 below and tests/test_softmax_scale.py). Small problems dominate (most draws stay under a few tiles); a work budget caps the seqlens of
the wide ones so that one example stays well under a second on the CPU.

Examples per run and seed (justification): the "ci" profile (CI=true, as .ci/run sets) runs 1000 examples in
all (FUZZ_SIM_EXAMPLES + FUZZ_TORCH_EXAMPLES), no example database (a clean clone has none to replay, and a
stored database would make the run depend on the machine), and a seed derived from the UTC date: a given day's
CI run is reproducible (re-running the same commit gives the same examples), while successive days explore
new examples. ROCFLASH_FUZZ_SEED=<int> fixes it; a failure prints the seed, the falsifying example and a
@reproduce_failure blob. Every failure found is kept below as an explicit @example.
Other runs ("dev", the default) use 100 examples per test and a random seed; ROCFLASH_FUZZ_EXAMPLES overrides.
"""

from __future__ import annotations

import datetime
import os
import dataclasses
from dataclasses import dataclass

import pytest
import torch
from hypothesis import HealthCheck, Phase, example, given, note, seed, settings
from hypothesis import strategies as st

import rocflash
from conftest import assert_close_to_reference, assert_grads_close, gpu_platform
from rocflash.backends import FwdArgs

_CI = os.environ.get("CI") == "true"
_SEED = int(os.environ.get("ROCFLASH_FUZZ_SEED", datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d")))
_EXAMPLES = {"sim": 600, "torch": 400, "gpu": 600} if _CI else {"sim": 100, "torch": 100, "gpu": 300}
if os.environ.get("ROCFLASH_FUZZ_EXAMPLES"):
    _EXAMPLES = dict.fromkeys(_EXAMPLES, int(os.environ["ROCFLASH_FUZZ_EXAMPLES"]))
_SETTINGS = dict(deadline=None, database=None, print_blob=True,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
if _CI:  # bounded time: no shrinking in CI (it spent 5 minutes on one failure); the unshrunk example is printed
    _SETTINGS["phases"] = [Phase.explicit, Phase.reuse, Phase.generate]
_DTYPES = [torch.float16, torch.bfloat16, torch.float32]
_LAYOUTS = ["contiguous", "bhsd", "offset", "strided_last"]
_WORK = {"cpu": 4e4, "cuda": 4e7}  # cap on batch * nheads * seqlen_q * seqlen_k * headdim per example


@dataclass
class Problem:
    batch: int
    seqlen_q: int
    seqlen_k: int
    nheads: int
    nheads_k: int
    headdim: int
    dtype: torch.dtype
    layout: str
    causal: bool
    window: tuple[int, int]
    softcap: float
    alibi: str  # "none" | "heads" | "batch_heads"
    softmax_scale: float | None
    data_seed: int


@st.composite
def problems(draw, device="cpu"):
    small = st.integers(0, 17)
    batch = draw(st.integers(0, 3))
    nheads_k = draw(st.integers(1, 3))
    nheads = nheads_k * draw(st.integers(1, 3))
    headdim = draw(st.one_of(st.integers(1, 40), st.sampled_from([64, 80, 96, 128, 160, 192, 256]), st.integers(1, 256)))
    cap = int(_WORK[device] / max(1, batch * nheads * headdim))  # bound on seqlen_q * seqlen_k
    seqlen_q = draw(st.one_of(small, st.integers(0, max(0, min(300, cap)))))
    seqlen_k = draw(st.one_of(small, st.integers(0, max(0, min(300, cap // max(1, seqlen_q))))))
    causal = draw(st.booleans())
    left = draw(st.one_of(st.just(-1), st.integers(0, seqlen_k + 2)))
    right = draw(st.sampled_from([-1, 0])) if causal else draw(st.one_of(st.just(-1), st.integers(0, seqlen_q + 2)))
    # softmax_scale: mostly ordinary; float32 also up to the fused backward's range end (ops.max_backward_scale).
    # 16-bit inputs stay <= 2 (one-key rows at large scales: tests/test_one_key_rows.py, test_fp16_one_hot_rows_at_scale_50)
    dtype = draw(st.sampled_from(_DTYPES))
    sign = draw(st.sampled_from([1, -1]))
    top = 100.0 if dtype == torch.float32 else 2.0
    scale = draw(st.one_of(st.none(), st.floats(0.01, 2.0).map(lambda x: x * sign),
                           st.floats(min(2.0, top), top).map(lambda x: x * sign)))
    return Problem(batch, seqlen_q, seqlen_k, nheads, nheads_k, headdim, dtype,
                   draw(st.sampled_from(_LAYOUTS)), causal, (left, right),
                   draw(st.one_of(st.just(0.0), st.floats(0.5, 50.0))),
                   draw(st.sampled_from(["none", "heads", "batch_heads"])), scale, draw(st.integers(0, 2 ** 31 - 1)))


def _tensor(shape, dtype, layout, device, g):
    """A standard-normal tensor of logical shape (b, s, h, d) in the given memory layout."""
    b, s, h, d = shape
    if layout == "bhsd":  # (b, h, s, d) storage: seqlen and head strides swapped
        base = torch.randn(b, h, s, d, generator=g).transpose(1, 2)
    elif layout == "offset":  # storage offset, padded rows and headdim (misaligned rows)
        base = torch.randn(b, s + 3, h, d + 5, generator=g)[:, 2:2 + s, :, 1:1 + d]
    elif layout == "strided_last":  # a last dimension of stride 2 (copied by the API)
        base = torch.randn(b, s, h, 2 * d, generator=g)[..., ::2]
    else:
        base = torch.randn(b, s, h, d, generator=g)
    if device == "cpu" or layout == "contiguous":
        return base.to(device=device, dtype=dtype)
    # keep the layout on the GPU: copy into a same-strided device tensor
    out = torch.empty_strided(base.shape, base.stride(), dtype=dtype, device=device)
    return out.copy_(base)


def _inputs(p: Problem, device):
    g = torch.Generator().manual_seed(p.data_seed)
    q = _tensor((p.batch, p.seqlen_q, p.nheads, p.headdim), p.dtype, p.layout, device, g)
    k = _tensor((p.batch, p.seqlen_k, p.nheads_k, p.headdim), p.dtype, p.layout, device, g)
    v = _tensor((p.batch, p.seqlen_k, p.nheads_k, p.headdim), p.dtype, p.layout, device, g)
    slopes = None
    if p.alibi != "none":
        shape = (p.nheads,) if p.alibi == "heads" else (p.batch, p.nheads)
        slopes = torch.rand(shape, generator=g).to(device)
    dout = torch.randn(p.batch, p.seqlen_q, p.nheads, p.headdim, generator=g).to(device=device, dtype=p.dtype)
    return q, k, v, slopes, dout


def _check(p: Problem, backend: str, device: str = "cpu"):
    note(f"seed {_SEED}: {p}")
    q, k, v, slopes, dout = _inputs(p, device)
    kw = dict(causal=p.causal, window_size=p.window, softcap=p.softcap, alibi_slopes=slopes,
              softmax_scale=p.softmax_scale)
    q, k, v = (t.requires_grad_() for t in (q, k, v))
    out, lse, _ = rocflash.flash_attn_func(q, k, v, return_attn_probs=True, backend=backend, **kw)
    dq, dk, dv = torch.autograd.grad(out, (q, k, v), dout)
    # the reference runs on the CPU; the args as the API resolves them (causal: right = 0; windows past the end)
    right = 0 if p.causal else p.window[1]
    left = -1 if p.window[0] >= p.seqlen_k else p.window[0]
    right = -1 if right >= p.seqlen_q else right
    args = FwdArgs(p.softmax_scale if p.softmax_scale is not None else p.headdim ** -0.5, left, right, p.softcap,
                   None if slopes is None else slopes.cpu())
    q, k, v, dout = (t.detach().cpu() for t in (q, k, v, dout))
    assert_close_to_reference(out.detach().cpu(), lse.cpu(), q, k, v, args, what=f"{backend} forward")
    assert_grads_close((dq.cpu(), dk.cpu(), dv.cpu()), q, k, v, dout, args, what=f"{backend} backward")


@seed(_SEED)
@settings(max_examples=_EXAMPLES["sim"], **_SETTINGS)
@given(problems())
def test_fuzz_sim(p):
    _check(p, "sim")


_D_FROM_FP16_O = Problem(batch=1, seqlen_q=17, seqlen_k=5, nheads=3, nheads_k=3, headdim=35, dtype=torch.float16,
                         layout="offset", causal=True, window=(-1, -1), softcap=0.0, alibi="heads", softmax_scale=15.0,
                         data_seed=28111)


@settings(max_examples=1, **_SETTINGS)
@given(st.just(_D_FROM_FP16_O))
def test_fused_dq_dk_at_scale_15_fp16(p):
    """Found by test_fuzz_sim (seed 20261130, scale range then +-30): kept as the regression test of the class.
    D = rowsum(dout * out) from the fp16-rounded out put dq/dk |softmax_scale| * 2^-11 * |dout| |v| |k| off
    (0.0247 against the rule's 0.0185 here); the forward now keeps O in float32 for D (9e-5)."""
    _check(p, "sim")


@pytest.mark.gpu
@settings(max_examples=1, **_SETTINGS)
@given(st.just(_D_FROM_FP16_O))
def test_fused_dq_dk_at_scale_15_fp16_gpu(p):
    """The same problem through the compiled kernels (the forward's store stage writes the fp32 O, the backward's
    preprocess reads it)."""
    _check(p, gpu_platform(), device="cuda")


_FP16_ONE_HOT = Problem(batch=2, seqlen_q=10, seqlen_k=1, nheads=6, nheads_k=2, headdim=192, dtype=torch.float16,
                        layout="contiguous", causal=False, window=(-1, 11), softcap=47.566513060036534, alibi="heads",
                        softmax_scale=100.0, data_seed=727984)


@settings(max_examples=1, **_SETTINGS)
@given(st.just(_FP16_ONE_HOT))
def test_fp16_one_hot_rows_at_scale_50(p):
    """Found by test_fuzz_sim with softmax_scale drawn up to 100 for every dtype (seed 20261130), at 100; the 16-bit
    backward range now ends at 50 (ops.max_backward_scale), where the same rows left the rule (dk 0.00115 > 1e-3):
    one key, so eager fp16's dS is exactly 0, and D = rowsum(dout * O) differed from dP by its summation order.
    Now D's dO . O part is summed as dP is (sim.preprocess_delta; the class: tests/test_one_key_rows.py)."""
    _check(dataclasses.replace(p, softmax_scale=50.0), "sim")


@seed(_SEED + 1)
@settings(max_examples=_EXAMPLES["torch"], **_SETTINGS)
@given(problems())
def test_fuzz_torch(p):
    _check(p, "torch")


@pytest.mark.gpu
@seed(_SEED + 2)
@settings(max_examples=_EXAMPLES["gpu"], **_SETTINGS)
@given(problems(device="cuda"))
def test_fuzz_gpu(p):
    _check(p, gpu_platform(), device="cuda")
