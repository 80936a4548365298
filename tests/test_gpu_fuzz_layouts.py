"""Property-based fuzzing of the varlen, paged and KV-cache layouts through the compiled kernels (issue 8 item 10):
the strategies of tests/test_fuzz_varlen.py (flash_attn_varlen_func forward and backward, and its paged forward
equal to the packed one bit for bit) and tests/test_fuzz_kvcache.py (flash_attn_with_kvcache: append, dense and
paged caches, split-KV), with longer sequences than on the CPU, against fp64 with FlashAttention's rule.
Marker gpu; run it once per tile math (ROCFLASH_KERNEL=auto and =vector, as perf/final_run.sh does). Examples
per test: ROCFLASH_FUZZ_EXAMPLES (default 30; with 12, the 24 GPU tests of run E8 took 7-9 s per tile math in
all, perf/RESULTS.md); seeds fixed (a failure prints the example, to be kept below as an @example)."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, seed, settings

from conftest import gpu_platform
import test_fuzz_kvcache as kvfuzz
import test_fuzz_varlen as varfuzz

pytestmark = pytest.mark.gpu
_SETTINGS = dict(varfuzz._SETTINGS, max_examples=int(os.environ.get("ROCFLASH_FUZZ_EXAMPLES", 30)))


@seed(varfuzz._SEED + 2)
@settings(**_SETTINGS)
@given(varfuzz.varlen_problems(device="cuda"))
def test_fuzz_varlen_gpu(p):
    varfuzz._check(p, gpu_platform(), device="cuda")


@seed(kvfuzz._SEED + 1)
@settings(**_SETTINGS)
@given(kvfuzz.kvcache_problems(device="cuda"))
def test_fuzz_kvcache_gpu(p):
    kvfuzz.check_kvcache(p, gpu_platform(), device="cuda")
