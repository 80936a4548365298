"""Training check: a small causal transformer LM trained with rocflash attention follows SDPA's loss curve.

Model: 2 layers, d_model 256, 4 heads of headdim 64, context 256, byte-level vocabulary; text: the Python
standard library's own sources (packaged with every Python), read in a fixed order. Every run starts from the
same seed (same initial weights, same batches); only the attention function differs:

    rocflash   rocflash.flash_attn_func(q, k, v, causal=True)   (the compiled kernels, forward and backward)
    sdpa       torch SDPA, is_causal=True (its default backend choice: flash on NVIDIA)
    sdpa_math  torch SDPA restricted to the math backend: exact attention with other rounding; its distance
               from ``sdpa`` is the run-to-run noise that rounding alone produces over a training run

PASS when rocflash's mean loss over the last 100 steps differs from sdpa's by at most
max(3 x the sdpa_math-vs-sdpa difference, 0.02) and no loss is NaN. Writes a CSV of the curves and a PNG.

    python3 perf/train_check.py --out perf/results            # on a GPU with the rocflash backend built
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import sys
import time
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F


def corpus(min_bytes: int) -> torch.Tensor:
    """Bytes of the standard library's .py files (sorted paths), at least min_bytes of them."""
    root = Path(os.__file__).parent
    chunks, total = [], 0
    for path in sorted(root.glob("[a-z]*/*.py")):
        data = path.read_bytes()
        chunks.append(data)
        total += len(data)
        if total >= min_bytes:
            break
    return torch.frombuffer(bytearray(b"".join(chunks)), dtype=torch.uint8).long()


def attention_fn(name: str):
    if name == "rocflash":
        import rocflash
        backend = "hip" if torch.version.hip else "cuda"
        return lambda q, k, v: rocflash.flash_attn_func(q, k, v, causal=True, backend=backend)
    from torch.nn.attention import SDPBackend, sdpa_kernel

    def sdpa(q, k, v):  # (batch, seq, heads, headdim) in and out, like flash_attn_func
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        if name == "sdpa_math":
            with sdpa_kernel(SDPBackend.MATH):
                return F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2)
        return F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2)
    return sdpa


class Block(nn.Module):
    def __init__(self, d: int, heads: int, attn):
        super().__init__()
        self.heads, self.attn = heads, attn
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, self.heads, d // self.heads).unbind(2)
        x = x + self.proj(self.attn(q, k, v).reshape(b, s, d))
        return x + self.mlp(self.ln2(x))


class TinyLM(nn.Module):
    def __init__(self, layers: int, d: int, heads: int, ctx: int, attn, vocab: int = 256):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList(Block(d, heads, attn) for _ in range(layers))
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))


def train(name: str, data: torch.Tensor, args) -> list[float]:
    device = torch.device("cuda")
    torch.manual_seed(args.seed)
    model = TinyLM(args.layers, args.dmodel, args.heads, args.ctx, attention_fn(name)).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 20))
    gen = torch.Generator().manual_seed(args.seed + 1)  # the same batches for every run
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]
    scaler = torch.amp.GradScaler(enabled=dtype == torch.float16)
    losses = []
    for _ in range(args.steps):
        starts = torch.randint(0, len(data) - args.ctx - 1, (args.batch,), generator=gen)
        batch = torch.stack([data[s:s + args.ctx + 1] for s in starts.tolist()]).to(device)
        with torch.autocast("cuda", dtype=dtype):
            logits = model(batch[:, :-1])
            loss = F.cross_entropy(logits.float().reshape(-1, 256), batch[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        sched.step()
        losses.append(loss.item())
    return losses


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--ctx", type=int, default=256, help="context length (seqlen_q = seqlen_k)")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--dmodel", type=int, default=256)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--dtype", choices=("bf16", "fp16"), default="bf16")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="perf/results", help="directory for train_check.csv and train_check.png")
    args = ap.parse_args(argv)
    if not torch.cuda.is_available():
        print("train_check: needs a GPU", file=sys.stderr)
        return 2
    data = corpus(4 << 20)
    runs = {}
    for name in ("rocflash", "sdpa", "sdpa_math"):
        t0 = time.time()
        runs[name] = train(name, data, args)
        print(f"{name:10s} first loss {runs[name][0]:.4f}  last loss {runs[name][-1]:.4f}  ({time.time() - t0:.1f} s)")

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "train_check.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["step", *runs])
        for step, row in enumerate(zip(*runs.values())):
            w.writerow([step, *(f"{x:.6f}" for x in row)])
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4))
        for name, losses in runs.items():
            ax.plot(losses, label=name, linewidth=1)
        ax.set_xlabel("step")
        ax.set_ylabel("training loss (nats/byte)")
        ax.set_title(f"{args.layers}-layer LM, d={args.dmodel}, {args.heads} heads, ctx {args.ctx}, {args.dtype}, "
                     f"{torch.cuda.get_device_name()}", fontsize=9)
        ax.legend()
        fig.tight_layout()
        fig.savefig(out / "train_check.png", dpi=120)
    except ImportError:
        print("train_check: matplotlib missing, no PNG", file=sys.stderr)

    tail = min(100, args.steps)
    mean = {n: sum(l[-tail:]) / tail for n, l in runs.items()}
    noise = abs(mean["sdpa_math"] - mean["sdpa"])
    diff = abs(mean["rocflash"] - mean["sdpa"])
    bound = max(3 * noise, 0.02)
    finite = all(math.isfinite(x) for l in runs.values() for x in l)
    ok = finite and diff <= bound
    print(f"mean loss over the last {tail} steps: " + ", ".join(f"{n} {m:.4f}" for n, m in mean.items()))
    print(f"train_check: {'PASS' if ok else 'FAIL'}: |rocflash - sdpa| = {diff:.4f}, noise |sdpa_math - sdpa| = "
          f"{noise:.4f}, bound {bound:.4f}; curves in {out / 'train_check.csv'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
