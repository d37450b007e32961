"""MindSpore's fused attention functions for large models, which MindSpore 2.10 implements on Ascend only:
``flash_attention_score`` (and the ``FlashAttentionScore`` primitive's four outputs), ``prompt_flash_attention``
and ``incre_flash_attention``, computed here on the CPU from their documented definition
``softmax(mask(scale * q @ k^T + pse)) @ v`` by composing registered primitives (BatchMatMul, Softmax, Select,
...), so that they trace in GRAPH_MODE and differentiate.

Conventions kept from MindSpore: the layouts ``BSH``, ``SBH``, ``BSND``, ``BNSD`` and ``TND`` (variable-length
batches given by cumulative ``actual_seq_qlen``/``actual_seq_kvlen``); ``attn_mask`` True/1 means *masked out*;
grouped-query attention (key/value with N2 heads, N1 a multiple of N2; query head h reads key/value head
h // (N1 / N2)); ``pre_tokens``/``next_tokens`` bands and sparse modes 0-5 (the 2048x2048 compressed masks of
modes 2-4 are accepted and not needed: the causal or band mask is built from the shapes). The scores are computed
in float32 and the result cast back to the query's dtype (float16, bfloat16 or float32: float32 is accepted here
as an extension, Ascend's kernels take only the half types). Masked scores are set to float32's lowest value, not
-inf, so that a fully masked row gives the mean of the values instead of NaN. Dropout (``keep_prob`` < 1,
``drop_mask``) and the quantisation inputs are refused with an error rather than silently ignored.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from .array import broadcast_to, cat, expand_dims, matmul, reshape, transpose, zeros_like
from .math import amax, cast, logical_or
from .math import sum as reduce_sum
from .math_misc import select
from .nn import softmax
from .tensor_math import narrow

__all__ = ["flash_attention_score", "prompt_flash_attention", "incre_flash_attention"]

INT_MAX = 2147483647
_LOWEST = float(np.finfo(np.float32).min)
_LAYOUTS = ("BSH", "SBH", "BSND", "BNSD", "TND")


def float_qkv(name: str, query: Any, key: Any, value: Any) -> tuple[Tensor, Tensor, Tensor]:
    q, k, v = as_tensor(query), as_tensor(key), as_tensor(value)
    if q.dtype.name not in ("float16", "bfloat16", "float32"):
        raise TypeError(f"{name}: query must be float16, bfloat16 or float32, got {q.dtype.name}")
    if k.dtype != q.dtype or v.dtype != q.dtype:
        raise TypeError(f"{name}: query, key and value must share one dtype, got {q.dtype.name}, {k.dtype.name} "
                        f"and {v.dtype.name}")
    if tuple(k.shape) != tuple(v.shape):
        raise ValueError(f"{name}: key and value must have one shape, got {tuple(k.shape)} and {tuple(v.shape)}")
    return q, k, v


def as_int(name: str, what: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{name}: {what} must be an int, got {type(v).__name__}")
    return int(v)


def int_list(name: str, what: str, v: Any) -> list[int] | None:
    """A per-batch length list (a list, tuple or constant Tensor of ints) as Python ints."""
    if v is None:
        return None
    arr = np.asarray(v.asnumpy() if isinstance(v, Tensor) else v)
    if arr.ndim != 1 or not (arr.size == 0 or np.issubdtype(arr.dtype, np.integer)):
        raise TypeError(f"{name}: {what} must be a 1-D list, tuple or Tensor of ints, got {v!r}")
    return [int(x) for x in arr]


def to_bnsd(name: str, x: Tensor, layout: str, heads: int | None) -> Tensor:
    """``x`` in ``layout`` as (B, N, S, D); ``heads`` splits the hidden axis of BSH/SBH (None: D is known)."""
    want = {"BSH": 3, "SBH": 3, "BSND": 4, "BNSD": 4}[layout]
    if x.ndim != want:
        raise ValueError(f"{name}: input_layout {layout!r} needs {want}-D query/key/value, got shape {tuple(x.shape)}")
    if layout in ("BSH", "SBH"):
        if x.shape[-1] % heads:
            raise ValueError(f"{name}: hidden size {x.shape[-1]} of shape {tuple(x.shape)} does not split into "
                             f"{heads} heads")
        x = reshape(x, (*x.shape[:2], heads, x.shape[-1] // heads))
        return transpose(x, (0, 2, 1, 3) if layout == "BSH" else (1, 2, 0, 3))
    return transpose(x, (0, 2, 1, 3)) if layout == "BSND" else x


def from_bnsd(x: Tensor, layout: str) -> Tensor:
    b, n, s, d = x.shape
    if layout == "BSH":
        return reshape(transpose(x, (0, 2, 1, 3)), (b, s, n * d))
    if layout == "SBH":
        return reshape(transpose(x, (2, 0, 1, 3)), (s, b, n * d))
    return transpose(x, (0, 2, 1, 3)) if layout == "BSND" else x


def band_mask(s1: int, s2: int, pre_tokens: int, next_tokens: int, right_down: bool) -> np.ndarray:
    """(s1, s2) bool, True where key j lies outside the band ``-pre_tokens <= j - i - shift <= next_tokens``
    around query i; ``shift`` is 0 with the band anchored at the top left, s2 - s1 at the bottom right."""
    shift = s2 - s1 if right_down else 0
    d = np.arange(s2)[None, :] - np.arange(s1)[:, None] - shift
    return (d > next_tokens) | (d < -pre_tokens)


def sparse_mask(name: str, mode: int, s1: int, s2: int, pre_tokens: int, next_tokens: int,
                user_mask: bool) -> np.ndarray | None:
    """The static mask of ``sparse_mode`` (None: none); 0 and 1 rely on the user's mask, 0 narrowed by the band."""
    if mode == 0:
        both_max = pre_tokens >= INT_MAX and next_tokens >= INT_MAX
        return None if not user_mask or both_max else band_mask(s1, s2, pre_tokens, next_tokens, False)
    if mode == 1:
        if not user_mask:
            raise ValueError(f"{name}: sparse_mode 1 (allMask) needs attn_mask")
        return None
    if mode in (2, 3):
        return band_mask(s1, s2, INT_MAX, 0, mode == 3)
    if mode == 4:
        if pre_tokens < 0 or next_tokens < 0:
            raise ValueError(f"{name}: sparse_mode 4 (band) needs pre_tokens and next_tokens >= 0, got "
                             f"{pre_tokens} and {next_tokens}")
        return band_mask(s1, s2, pre_tokens, next_tokens, True)
    raise ValueError(f"{name}: sparse_mode must be 0 (default), 1 (allMask), 2 (leftUpCausal), 3 (rightDownCausal), "
                     f"4 (band) or 5 (prefix), got {mode}; modes 6-8 are not implemented by MindSpore either")


def bool_mask(name: str, mask: Any) -> Tensor:
    m = as_tensor(mask)
    if m.dtype.name not in ("bool", "uint8", "int8"):
        raise TypeError(f"{name}: attn_mask must be bool, uint8 or int8 (1/True masks a score out), got "
                        f"{m.dtype.name}")
    return m if m.dtype.name == "bool" else cast(m, "bool")


def combine(user: Tensor | None, static: np.ndarray | None) -> Tensor | None:
    if static is None:
        return user
    st = Tensor(np.ascontiguousarray(static))
    return st if user is None else logical_or(user, st)


def attend(q: Tensor, k: Tensor, v: Tensor, scale: float, mask: Tensor | None, pse: Tensor | None,
           stats: bool) -> tuple[Tensor, Tensor | None, Tensor | None]:
    """Attention of (B, N1, S1, D) queries over (B, N2, S2, D) keys/values in float32; ``mask`` broadcasts to
    (B, N1, S1, S2), True masked out. Returns the output in q's dtype and, with ``stats``, the rows' maxima and
    sums of exp(score - max) as (B, N1, S1, 1) float32."""
    b, n1, s1, d = q.shape
    n2, s2 = k.shape[1], k.shape[2]
    if n2 != n1:  # grouped-query attention: key/value head h serves query heads h*G .. h*G + G - 1
        g = n1 // n2
        k = reshape(broadcast_to(expand_dims(k, 2), (b, n2, g, s2, d)), (b, n1, s2, d))
        v = reshape(broadcast_to(expand_dims(v, 2), (b, n2, g, s2, d)), (b, n1, s2, d))
    q32, k32, v32 = (cast(t, "float32") for t in (q, k, v))
    scores = apply("Mul", {}, [matmul(q32, transpose(k32, (0, 1, 3, 2))), Tensor(np.float32(scale))])
    if pse is not None:
        scores = apply("Add", {}, [scores, cast(pse, "float32")])
    if mask is not None:
        full = broadcast_to(mask, tuple(scores.shape))
        scores = select(full, Tensor(np.full((), _LOWEST, np.float32)) + zeros_like(scores), scores)
    out = cast(matmul(softmax(scores, -1), v32), q.dtype)
    if not stats:
        return out, None, None
    mx = amax(scores, -1, True)
    total = reduce_sum(apply("Exp", {}, [apply("Sub", {}, [scores, mx])]), -1, True)
    return out, mx, total


def check_heads(name: str, q: Tensor, k: Tensor) -> None:
    n1, n2 = q.shape[1], k.shape[1]
    if n2 == 0 or n1 % n2:
        raise ValueError(f"{name}: query's {n1} heads must be a multiple of key/value's {n2} heads")
    if q.shape[-1] != k.shape[-1] or q.shape[0] != k.shape[0]:
        raise ValueError(f"{name}: query (B={q.shape[0]}, D={q.shape[-1]}) and key/value (B={k.shape[0]}, "
                         f"D={k.shape[-1]}) must share the batch and head size")


def no_dropout(name: str, keep_prob: float, drop_mask: Any, padding_mask: Any) -> None:
    if not isinstance(keep_prob, (int, float)) or isinstance(keep_prob, bool) or not 0 < keep_prob <= 1:
        raise ValueError(f"{name}: keep_prob must be a float in (0, 1], got {keep_prob!r}")
    if keep_prob != 1.0 or drop_mask is not None:
        raise NotImplementedError(f"{name}: dropout (keep_prob={keep_prob}, drop_mask) is not implemented on the "
                                  "CPU; pass keep_prob=1.0 and apply dropout outside the attention")
    if padding_mask is not None:
        raise ValueError(f"{name}: padding_mask is reserved by MindSpore (not implemented); pass None")


def _prefix_mask(name: str, prefix: Any, b: int, s1: int, s2: int) -> np.ndarray:
    """sparse_mode 5: right-down causal, plus the first prefix[i] keys of batch i visible to every query."""
    n = int_list(name, "prefix", prefix)
    if n is None or len(n) != b:
        raise ValueError(f"{name}: sparse_mode 5 needs prefix, one int per batch ({b}), got {prefix!r}")
    causal = band_mask(s1, s2, INT_MAX, 0, True)
    cols = np.arange(s2)[None, None, :] < np.asarray(n)[:, None, None]
    return (causal[None] & ~cols)[:, None]


def _fa_dense(name: str, q: Tensor, k: Tensor, v: Tensor, head_num: int, pse: Any, mask: Tensor | None,
              prefix: Any, scale: float, pre: int, nxt: int, layout: str, mode: int, stats: bool) -> tuple:
    qb = to_bnsd(name, q, layout, head_num)
    d = qb.shape[-1]
    kb = to_bnsd(name, k, layout, None if layout not in ("BSH", "SBH") else max(k.shape[-1] // d, 1))
    vb = to_bnsd(name, v, layout, None if layout not in ("BSH", "SBH") else max(v.shape[-1] // d, 1))
    if qb.shape[1] != head_num:
        raise ValueError(f"{name}: head_num {head_num} does not match query's {qb.shape[1]} heads "
                         f"(shape {tuple(q.shape)}, layout {layout})")
    check_heads(name, qb, kb)
    b, s1, s2 = qb.shape[0], qb.shape[2], kb.shape[2]
    static = _prefix_mask(name, prefix, b, s1, s2) if mode == 5 else \
        sparse_mask(name, mode, s1, s2, pre, nxt, mask is not None)
    user = mask if mode in (0, 1, 5) else None
    if user is not None and user.ndim not in (2, 4):
        raise ValueError(f"{name}: attn_mask must be (S1, S2), (B, 1, S1, S2) or (B, N1, S1, S2), got "
                         f"{tuple(user.shape)}")
    out, mx, total = attend(qb, kb, vb, scale, combine(user, static), None if pse is None else as_tensor(pse),
                            stats)
    return from_bnsd(out, layout), mx, total


def _fa_tnd(name: str, q: Tensor, k: Tensor, v: Tensor, head_num: int, pse: Any, mask: Tensor | None,
            qlen: Any, kvlen: Any, scale: float, pre: int, nxt: int, mode: int, stats: bool) -> tuple:
    """Variable-length batches packed along T: each batch attends within its own segment."""
    cq, ck = int_list(name, "actual_seq_qlen", qlen), int_list(name, "actual_seq_kvlen", kvlen)
    if cq is None or ck is None or len(cq) != len(ck):
        raise ValueError(f"{name}: input_layout 'TND' needs actual_seq_qlen and actual_seq_kvlen of one length")
    if q.ndim != 3 or k.ndim != 3 or q.shape[1] != head_num:
        raise ValueError(f"{name}: 'TND' needs (T1, head_num={head_num}, D) query and (T2, N2, D) key/value, got "
                         f"{tuple(q.shape)} and {tuple(k.shape)}")
    if cq[-1:] != [q.shape[0]] or ck[-1:] != [k.shape[0]] or np.any(np.diff([0, *cq]) < 0) \
            or np.any(np.diff([0, *ck]) < 0):
        raise ValueError(f"{name}: actual_seq_qlen/actual_seq_kvlen must be non-decreasing cumulative lengths ending "
                         f"at T1={q.shape[0]} and T2={k.shape[0]}, got {cq} and {ck}")
    if pse is not None or (mask is not None and mode in (0, 1)):
        raise NotImplementedError(f"{name}: 'TND' supports the causal sparse modes 2/3 (or no mask) and no "
                                  "real_shift here")
    outs, mxs, sums = [], [], []
    for qa, qe, ka, ke in zip([0, *cq[:-1]], cq, [0, *ck[:-1]], ck):
        seg = [expand_dims(transpose(narrow(t, 0, a, e - a), (1, 0, 2)), 0)
               for t, a, e in ((q, qa, qe), (k, ka, ke), (v, ka, ke))]
        check_heads(name, seg[0], seg[1])
        static = sparse_mask(name, mode, qe - qa, ke - ka, pre, nxt, False)
        o, mx, total = attend(*seg, scale, combine(None, static), None, stats)
        outs.append(transpose(reshape(o, o.shape[1:]), (1, 0, 2)))
        if stats:
            mxs.append(transpose(reshape(mx, mx.shape[1:]), (1, 0, 2)))
            sums.append(transpose(reshape(total, total.shape[1:]), (1, 0, 2)))
    return cat(outs, 0), (cat(mxs, 0) if stats else None), (cat(sums, 0) if stats else None)


def flash_attention_outputs(query: Any, key: Any, value: Any, head_num: int, real_shift: Any = None,
                            drop_mask: Any = None, padding_mask: Any = None, attn_mask: Any = None,
                            prefix: Any = None, actual_seq_qlen: Any = None, actual_seq_kvlen: Any = None,
                            keep_prob: float = 1.0, scale_value: float = 1.0, pre_tokens: int = INT_MAX,
                            next_tokens: int = INT_MAX, input_layout: str = "BSH", sparse_mode: int = 0,
                            stats: bool = True, name: str = "FlashAttentionScore") -> tuple:
    """The ``FlashAttentionScore`` primitive's outputs ``(softmax_max, softmax_sum, softmax_out,
    attention_out)``: the rows' score maxima and exp sums repeated over a last axis of 8 (float32, (B, N1, S1, 8);
    (T1, N1, 8) for TND), an unused 0-D ``softmax_out`` and the attention (query's shape and dtype)."""
    q, k, v = float_qkv(name, query, key, value)
    head_num = as_int(name, "head_num", head_num)
    if head_num <= 0:
        raise ValueError(f"{name}: head_num must be > 0, got {head_num}")
    no_dropout(name, keep_prob, drop_mask, padding_mask)
    pre, nxt, mode = (as_int(name, w, x) for w, x in (("pre_tokens", pre_tokens), ("next_tokens", next_tokens),
                                                     ("sparse_mode", sparse_mode)))
    if pre < 0 and nxt < 0:
        raise ValueError(f"{name}: pre_tokens and next_tokens cannot both be negative (the band would be empty)")
    if not isinstance(input_layout, str) or input_layout not in _LAYOUTS:
        raise ValueError(f"{name}: input_layout must be one of {_LAYOUTS}, got {input_layout!r}")
    if real_shift is not None and as_tensor(real_shift).dtype != q.dtype:
        raise TypeError(f"{name}: real_shift must have query's dtype {q.dtype.name}")
    mask = None if attn_mask is None else bool_mask(name, attn_mask)
    if input_layout == "TND":
        out, mx, total = _fa_tnd(name, q, k, v, head_num, real_shift, mask, actual_seq_qlen, actual_seq_kvlen,
                                 float(scale_value), pre, nxt, mode, stats)
    else:
        if actual_seq_qlen is not None or actual_seq_kvlen is not None:
            raise ValueError(f"{name}: actual_seq_qlen/actual_seq_kvlen are for input_layout 'TND' only")
        out, mx, total = _fa_dense(name, q, k, v, head_num, real_shift, mask, prefix, float(scale_value), pre, nxt,
                                   input_layout, mode, stats)
    if not stats:
        return None, None, None, out
    rep = (*mx.shape[:-1], 8)
    return broadcast_to(mx, rep), broadcast_to(total, rep), Tensor(np.zeros((), q.dtype.np_dtype)), out


def flash_attention_score(query: Any, key: Any, value: Any, head_num: int, real_shift: Any = None,
                          drop_mask: Any = None, padding_mask: Any = None, attn_mask: Any = None, prefix: Any = None,
                          actual_seq_qlen: Any = None, actual_seq_kvlen: Any = None, keep_prob: float = 1.0,
                          scalar_value: float = 1.0, pre_tokens: int = INT_MAX, next_tokens: int = INT_MAX,
                          inner_precise: int = 0, input_layout: str = "BSH", sparse_mode: int = 0) -> Tensor:
    """``ops.flash_attention_score(query, key, value, head_num, ...)``: ``softmax(mask(scalar_value * q @ k^T +
    real_shift)) @ v`` in ``input_layout`` (BSH, SBH, BSND, BNSD or TND); ``attn_mask`` True masks a score out;
    key/value may have fewer heads (GQA). Returns the attention output, query's shape and dtype
    (``inner_precise`` is reserved by MindSpore and ignored)."""
    return flash_attention_outputs(query, key, value, head_num, real_shift, drop_mask, padding_mask, attn_mask,
                                   prefix, actual_seq_qlen, actual_seq_kvlen, keep_prob, scalar_value, pre_tokens,
                                   next_tokens, input_layout, sparse_mode, stats=False,
                                   name="flash_attention_score")[3]


_QUANT = ("deq_scale1", "quant_scale1", "deq_scale2", "quant_scale2", "quant_offset2")


def refuse(name: str, **given: Any) -> None:
    used = [k for k, v in given.items() if v is not None]
    if used:
        raise NotImplementedError(f"{name}: {', '.join(used)} (quantisation / paged attention) not implemented on "
                                  "the CPU; pass None")


def kv_heads(name: str, num_heads: int, num_key_value_heads: int, k: Tensor, layout: str, d: int) -> int:
    nkv = as_int(name, "num_key_value_heads", num_key_value_heads)
    if nkv < 0 or (nkv and num_heads % nkv):
        raise ValueError(f"{name}: num_key_value_heads must be 0 or a factor of num_heads={num_heads}, got {nkv}")
    nkv = nkv or num_heads
    have = k.shape[-1] // d if layout == "BSH" else k.shape[1 if layout == "BNSD" else 2]
    if have != nkv:
        raise ValueError(f"{name}: key/value have {have} heads but num_key_value_heads says {nkv}")
    return nkv


def length_mask(name: str, what: str, lens: Any, b: int, s: int) -> np.ndarray | None:
    """(B, 1, 1, s) True past each batch's actual length (None: no lengths given)."""
    n = int_list(name, what, lens)
    if n is None:
        return None
    if len(n) not in (1, b) or min(n) < 0 or max(n) > s:
        raise ValueError(f"{name}: {what} must give one length in [0, {s}] per batch ({b}), got {n}")
    return (np.arange(s)[None, :] >= np.asarray(n)[:, None]).reshape(len(n), 1, 1, s)


def prefill(name: str, q: Tensor, k: Tensor, v: Tensor, attn_mask: Any, q_lens: Any, kv_lens: Any, pse: Any,
            heads: int, num_key_value_heads: int, scale: float, pre: int, nxt: int, layout: str, mode: int,
            stats: bool) -> tuple[Tensor, Tensor | None, Tensor | None]:
    """Prompt attention of the 3-D/4-D ``layout`` (BSH, BSND, BNSD) inputs in BNSD: the output (rows past
    ``q_lens`` set to 0), and with ``stats`` the rows' score maxima and exp sums."""
    heads = as_int(name, "num_heads", heads)
    if heads <= 0:
        raise ValueError(f"{name}: num_heads must be > 0, got {heads}")
    qb = to_bnsd(name, q, layout, heads)
    nkv = kv_heads(name, heads, num_key_value_heads, k, layout, qb.shape[-1])
    kb, vb = (to_bnsd(name, t, layout, nkv) for t in (k, v))
    if qb.shape[1] != heads:
        raise ValueError(f"{name}: num_heads {heads} does not match query's {qb.shape[1]} heads")
    check_heads(name, qb, kb)
    b, s1, s2 = qb.shape[0], qb.shape[2], kb.shape[2]
    if mode == 5:
        raise ValueError(f"{name}: sparse_mode must be 0, 1, 2, 3 or 4, got 5")
    user = None
    if attn_mask is not None and mode in (0, 1):
        user = bool_mask(name, attn_mask)
        if user.ndim == 3:  # (B, S1, S2) / (1, S1, S2): one mask for every head
            user = expand_dims(user, 1)
        elif user.ndim == 2 and s1 == 1 and tuple(user.shape) == (b, s2):  # decoding: (B, S2)
            user = reshape(user, (b, 1, 1, s2))
    static = sparse_mask(name, mode, s1, s2, pre, nxt, user is not None)
    kv_pad = length_mask(name, "actual_seq_lengths_kv", kv_lens, b, s2)
    if kv_pad is not None:
        static = kv_pad if static is None else (static | kv_pad)
    out, mx, total = attend(qb, kb, vb, scale, combine(user, static), None if pse is None else as_tensor(pse), stats)
    q_pad = length_mask(name, "actual_seq_lengths", q_lens, b, s1)
    if q_pad is not None:  # rows past a batch's prompt length are padding: 0, not attention over anything
        keep = Tensor(np.ascontiguousarray(~q_pad.transpose(0, 1, 3, 2)))
        out = select(broadcast_to(keep, tuple(out.shape)), out, zeros_like(out))
    return out, mx, total


def prompt_flash_attention(query: Any, key: Any, value: Any, attn_mask: Any = None, actual_seq_lengths: Any = None,
                           actual_seq_lengths_kv: Any = None, pse_shift: Any = None, deq_scale1: Any = None,
                           quant_scale1: Any = None, deq_scale2: Any = None, quant_scale2: Any = None,
                           quant_offset2: Any = None, num_heads: int = 1, scale_value: float = 1.0,
                           pre_tokens: int = INT_MAX, next_tokens: int = 0, input_layout: str = "BSH",
                           num_key_value_heads: int = 0, sparse_mode: int = 0, inner_precise: int = 1) -> Tensor:
    """``ops.prompt_flash_attention(query, key, value, attn_mask=None, ...)``: full-prompt (prefill) attention in
    ``input_layout`` BSH, BSND or BNSD with GQA (``num_key_value_heads``); ``attn_mask`` ((S1, S2), (B, S1, S2) or
    (B, 1, S1, S2)) True masks out; keys past ``actual_seq_lengths_kv`` are masked, and query rows past
    ``actual_seq_lengths`` give 0."""
    name = "prompt_flash_attention"
    refuse(name, **dict(zip(_QUANT, (deq_scale1, quant_scale1, deq_scale2, quant_scale2, quant_offset2))))
    q, k, v = float_qkv(name, query, key, value)
    if input_layout not in ("BSH", "BSND", "BNSD"):
        raise ValueError(f"{name}: input_layout must be 'BSH', 'BSND' or 'BNSD', got {input_layout!r}")
    out, _, _ = prefill(name, q, k, v, attn_mask, actual_seq_lengths, actual_seq_lengths_kv, pse_shift, num_heads,
                        num_key_value_heads, float(scale_value), as_int(name, "pre_tokens", pre_tokens),
                        as_int(name, "next_tokens", next_tokens), input_layout,
                        as_int(name, "sparse_mode", sparse_mode), False)
    return from_bnsd(out, input_layout)


def incre_flash_attention(query: Any, key: Any, value: Any, attn_mask: Any = None, actual_seq_lengths: Any = None,
                          pse_shift: Any = None, dequant_scale1: Any = None, quant_scale1: Any = None,
                          dequant_scale2: Any = None, quant_scale2: Any = None, quant_offset2: Any = None,
                          antiquant_scale: Any = None, antiquant_offset: Any = None, block_table: Any = None,
                          num_heads: int = 1, input_layout: str = "BSH", scale_value: float = 1.0,
                          num_key_value_heads: int = 0, block_size: int = 0, inner_precise: int = 1,
                          kv_padding_size: Any = None) -> Tensor:
    """``ops.incre_flash_attention(query, key, value, ...)``: one decoding step, a (B, 1, H) / (B, N, 1, D) query
    over the cached (B, S, kvH) / (B, kvN, S, D) key/value (a Tensor, or a list holding one), BSH or BNSD, GQA by
    ``num_key_value_heads``; keys past ``actual_seq_lengths`` and where ``attn_mask`` ((B, S), (B, 1, S) or
    (B, 1, 1, S)) is True are masked out."""
    name = "incre_flash_attention"
    refuse(name, dequant_scale1=dequant_scale1, quant_scale1=quant_scale1, dequant_scale2=dequant_scale2,
            quant_scale2=quant_scale2, quant_offset2=quant_offset2, antiquant_scale=antiquant_scale,
            antiquant_offset=antiquant_offset, block_table=block_table, kv_padding_size=kv_padding_size)
    key, value = (t[0] if isinstance(t, (list, tuple)) and len(t) == 1 else t for t in (key, value))
    q, k, v = float_qkv(name, query, key, value)
    if input_layout not in ("BSH", "BNSD"):
        raise ValueError(f"{name}: input_layout must be 'BSH' or 'BNSD', got {input_layout!r}")
    heads = as_int(name, "num_heads", num_heads)
    if heads <= 0:
        raise ValueError(f"{name}: num_heads must be > 0, got {heads}")
    qb = to_bnsd(name, q, input_layout, heads)
    if qb.shape[2] != 1 or qb.shape[1] != heads:
        raise ValueError(f"{name}: query must be (B, 1, H) / (B, num_heads={heads}, 1, D), got {tuple(q.shape)}")
    nkv = kv_heads(name, heads, num_key_value_heads, k, input_layout, qb.shape[-1])
    kb, vb = (to_bnsd(name, t, input_layout, nkv) for t in (k, v))
    check_heads(name, qb, kb)
    b, s = kb.shape[0], kb.shape[2]
    user = None
    if attn_mask is not None:
        user = bool_mask(name, attn_mask)
        if user.ndim > 4 or user.shape[0] != b or user.shape[-1] != s or int(np.prod(user.shape)) != b * s:
            raise ValueError(f"{name}: attn_mask must be (B, S), (B, 1, S) or (B, 1, 1, S) = ({b}, {s}), got "
                             f"{tuple(user.shape)}")
        user = reshape(user, (b, 1, 1, s))
    static = length_mask(name, "actual_seq_lengths", actual_seq_lengths, b, s)
    out, _, _ = attend(qb, kb, vb, float(scale_value), combine(user, static),
                       None if pse_shift is None else as_tensor(pse_shift), False)
    return from_bnsd(out, input_layout)

