"""eco17: the sim split-KV path's speed, fp32 decode, with the kernel's lane-tree score (lanes) against eco14's one fp64 sum
(fp64sum, the same call with lane_tree_fp32 replaced), one CPU thread, each twice (the first includes warm-up).
Run: cd tests && PYTHONPATH=.. python3 ../perf/eco17_sim_speed.py"""
import time, torch, rocflash
import rocflash.backends.sim_splitkv as S
torch.set_num_threads(1)
new = S.lane_tree_fp32
old = lambda qf, kt, tn, mult: (qf.double() @ kt.double().transpose(-1, -2) * mult).float()
for d, sk, hq, hk, sq in ((128, 4096, 32, 8, 1), (64, 2048, 8, 8, 4), (256, 1024, 8, 2, 1)):
    g = torch.Generator().manual_seed(0)
    q = torch.randn(2, sq, hq, d, generator=g); k, v = (torch.randn(2, sk, hk, d, generator=g) for _ in range(2))
    res = {}
    for name, fn in (("fp64sum", old), ("lanes", new), ("fp64sum2", old), ("lanes2", new)):
        S.lane_tree_fp32 = fn
        t = time.perf_counter()
        with torch.no_grad():
            rocflash.flash_attn_with_kvcache(q, k, v, cache_seqlens=sk, num_splits=4, backend="sim")
        res[name] = round(time.perf_counter() - t, 3)
    print(f"fp32 d{d} batch 2 sq {sq} heads {hq}/{hk} seqlen_k {sk} num_splits 4:", res, flush=True)
