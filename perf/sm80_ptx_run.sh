#!/usr/bin/env bash
# One device call: the sm_80 code path executed on the H200 through the driver's PTX JIT (no A100 here).
#   cd <tree> && OUT=$OUT [DEADLINE_S=420] bash perf/sm80_ptx_run.sh        -> $OUT/summary.txt, $OUT/sm80.txt
# A TORCH_CUDA_ARCH_LIST=8.0+PTX build holds an sm_80 cubin, which an sm_90 GPU cannot load, and compute_80 PTX,
# which the driver JIT-compiles for it (selector.running_code): the kernels then run with __CUDA_ARCH__ = 800, i.e.
# the code an A100 runs (tc80's compact deterministic dK/dV tile and its sm_80 tid re-read, the two-atomic dQ adds of
# atomic_add2, no griddepcontrol: PDL stays off, splitkv_env._sm90). NOT an A100: another SM, its timing and
# shared-memory size (the deterministic launcher asks the padded tile's bytes on compute capability 9).
# Steps: a copy of the tree with the headdim-128 fp16/bf16 CUDA tables only (perf/subset_configs.py: build time);
# the build; `rocflash info`; one warm-up process that JIT-compiles the kernels the tests use; then
# test_gpu_backward.py's headdim 96/128 cases (both dQ modes: the lean atomic-dQ kernels and the deterministic
# dK/dV + dQ kernels), its GQA and bitwise-determinism cases, and test_gpu_splitkv_dec8.py (decode, d128).
set -uo pipefail
. "$(dirname "$0")/gpu_lib.sh"  # OUT, REPO, T0, log
DEADLINE_S=${DEADLINE_S:-420}
left() { echo $(( DEADLINE_S - ($(date +%s) - T0) )); }
gpu_info
W=/tmp/sm80_tree
TORCH_CUDA_ARCH_LIST="8.0+PTX" BUILD_TIMEOUT=${BUILD_TIMEOUT:-200} gpu_subset_build "$W" "$REPO" 128 fp16,bf16 "$OUT/summary.txt" || exit 1
export CUDA_CACHE_MAXSIZE=4294967296 CUDA_CACHE_PATH=/tmp/nv_cache
F="$OUT/sm80.txt"
log "warm-up (JIT of the compute_80 PTX), limit $(( $(left) / 3 )) s"
(cd /tmp && timeout "$(( $(left) / 3 ))" python3 - >> "$F" 2>&1 <<'EOF'
import time, torch, rocflash
from rocflash import selector
from rocflash.backends import splitkv_env
dev = torch.device("cuda")
print("running code:", selector.running_code("cuda", "sm_%d%d" % torch.cuda.get_device_capability(), selector.compiled_archs("cuda")),
      "| PDL:", splitkv_env.splitkv_pdl(dev))
for dt in (torch.float16, torch.bfloat16):
    for det in (False, True):
        t = time.time()
        q, k, v = (torch.randn(2, 257, 4, 128, device=dev, dtype=dt, requires_grad=True) for _ in range(3))
        rocflash.flash_attn_func(q, k, v, causal=True, deterministic=det, backend="cuda").sum().backward()
        torch.cuda.synchronize()
        print(f"{dt} deterministic={det}: fwd+bwd first call {time.time() - t:.1f} s")
    kc = torch.randn(2, 4096, 8, 128, device=dev, dtype=dt)
    out = rocflash.flash_attn_with_kvcache(torch.randn(2, 1, 32, 128, device=dev, dtype=dt), kc, kc.clone(),
                                           cache_seqlens=3000, backend="cuda")
    torch.cuda.synchronize()
    print(f"{dt} decode first call done, finite: {bool(out.isfinite().all())}")
EOF
) ; log "warm-up exit $?"; tail -8 "$F" | tee -a "$OUT/summary.txt"
t=$(( $(left) - 10 ))
log "tests (limit $t s)"
(cd "$W/tests" && timeout "$t" python3 -m pytest -q -m gpu -p no:cacheprovider -n 8 test_gpu_backward.py \
  -k "(test_headdims and (128 or 96) and not fp32) or test_gqa or test_deterministic_bitwise or (test_lean_switch and 128) or test_dq_mode_selected_and_close" \
  test_gpu_splitkv_dec8.py >> "$F" 2>&1); rc=$?
log "tests exit $rc"; grep -E "passed|failed|error" "$F" | tail -3 | tee -a "$OUT/summary.txt"
grep -E "^FAILED|^ERROR" "$F" | head -20 | tee -a "$OUT/summary.txt"
