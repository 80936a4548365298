"""ALiBi's row anchor per sequence (issue 8, adv12): the kernels measure each row's ALiBi distance from its anchor
key and leave the row constant to the LSE (seqlayout.alibi_anchor / alibi_row_shift). Each sequence of a varlen
batch and each KV-cache entry has its own seqlen_q / seqlen_k, so each has its own anchors and constants. These
cases check out and the returned LSE against an fp64 reference written here, independent of the package's: far
rows on both sides (seqlen_q > seqlen_k and <), per-(batch, head) slopes, cache_batch_idx, split-KV (whose scores
keep the full distance: its LSE combine must agree with the anchored dense path). Mutation-checked: the sim's
row constant halved (sim._Problem.row_shift) fails the non-causal sim cases of the dense layouts; causal rows have
no constant (a visible row's diagonal lies on the keys), and the split-KV path does not use it."""
import pytest
import torch

import rocflash


def _ref(q, k, v, slopes, causal, scale):
    """q (sq, h, d), k / v (sk, hk, d), slopes (h,) -> out (sq, h, d), lse (h, sq); in q's dtype."""
    sq, h, _ = q.shape
    sk, hk, _ = k.shape
    k, v = (t.repeat_interleave(h // hk, 1) for t in (k, v))
    s = torch.einsum("qhd,khd->hqk", q, k) * scale
    i, j = torch.arange(sq).view(-1, 1), torch.arange(sk).view(1, -1)
    s = s - slopes.to(s.dtype).view(h, 1, 1) * (i + sk - sq - j).abs().to(s.dtype)
    if causal:
        s = s.masked_fill(j > i + sk - sq, float("-inf"))
    lse = torch.logsumexp(s, -1)
    p = torch.softmax(s, -1).nan_to_num(0.0)
    return torch.einsum("hqk,khd->qhd", p, v), lse


def _check(out, lse, q, k, v, slopes, causal, scale, where):
    o64, l64 = _ref(q.double(), k.double(), v.double(), slopes, causal, scale)
    olo, llo = _ref(q.float(), k.float(), v.float(), slopes, causal, scale)
    err, tol = (out.double() - o64).abs().max().item(), 2 * (olo.double() - o64).abs().max().item() + 1e-3
    assert err <= tol, f"{where}: out error {err:.3g} > {tol:.3g}"
    fin = torch.isfinite(l64)
    assert torch.equal(torch.isfinite(lse), fin), where
    if fin.any():
        err = (lse.double() - l64)[fin].abs().max().item()
        tol = 2 * (llo.double() - l64)[fin].abs().max().item() + 1e-3
        assert err <= tol, f"{where}: LSE error {err:.3g} > {tol:.3g}"


@pytest.mark.parametrize("backend", ["sim", "torch"])
@pytest.mark.parametrize("causal", [False, True])
def test_varlen_anchor_per_sequence(backend, causal):
    g = torch.Generator().manual_seed(3)
    lq, lk = [40, 3, 1, 25], [2, 30, 9, 25]  # far rows above and below the keys, one row, square
    h, hk, d = 4, 2, 32
    q = torch.randn(sum(lq), h, d, generator=g)
    k, v = (torch.randn(sum(lk), hk, d, generator=g) for _ in range(2))
    slopes = torch.rand(len(lq), h, generator=g) * 4
    slopes[1, 0], slopes[2, 1] = 0.0, -0.5
    cq = torch.tensor([0, *torch.tensor(lq).cumsum(0)], dtype=torch.int32)
    ck = torch.tensor([0, *torch.tensor(lk).cumsum(0)], dtype=torch.int32)
    out, lse, _ = rocflash.flash_attn_varlen_func(q, k, v, cq, ck, max(lq), max(lk), causal=causal,
                                                  alibi_slopes=slopes, return_attn_probs=True, backend=backend)
    for b in range(len(lq)):
        rows, keys = slice(cq[b], cq[b + 1]), slice(ck[b], ck[b + 1])
        _check(out[rows], lse[:, rows], q[rows], k[keys], v[keys], slopes[b], causal, d ** -0.5, f"sequence {b}")


@pytest.mark.parametrize("backend", ["sim", "torch"])
@pytest.mark.parametrize("num_splits", [1, 3])
@pytest.mark.parametrize("causal", [False, True])
def test_kvcache_anchor_per_cache_length(backend, num_splits, causal):
    g = torch.Generator().manual_seed(5)
    b, sq, h, hk, d, cap = 3, 6, 4, 1, 32, 64
    q = torch.randn(b, sq, h, d, generator=g)
    kc, vc = (torch.randn(4, cap, hk, d, generator=g) for _ in range(2))
    idx = torch.tensor([2, 0, 3], dtype=torch.int32)
    lens = torch.tensor([2, 50, 6], dtype=torch.int32)  # rows past the keys, far from the diagonal, square
    kc[idx[0], lens[0]:] = float("nan")  # slots past the cache length: never read
    slopes = torch.rand(b, h, generator=g) * 4
    out, lse = rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, cache_batch_idx=idx,
                                                alibi_slopes=slopes, causal=causal, num_splits=num_splits,
                                                return_softmax_lse=True, backend=backend)
    for i in range(b):
        c, n = idx[i].item(), lens[i].item()
        _check(out[i], lse[i], q[i], kc[c, :n], vc[c, :n], slopes[i], causal, d ** -0.5, f"batch {i}")
