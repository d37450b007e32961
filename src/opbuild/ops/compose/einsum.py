"""Einstein summation as a composition of primitives, written once for ``ops.einsum``, the ``Einsum``
primitive class and ONNX Einsum; ``b`` is the builder (ops/compose/__init__.py).

The equation is parsed against the operands' static shapes (``...`` expands to the broadcast axes), then:
  * a letter repeated within one operand takes its diagonal (a constant flat-index Gather);
  * a letter that appears in one operand only and not in the output is summed out (ReduceSum);
  * operands are contracted pairwise, left to right, as one BatchMatMul each: the letters shared with the
    output or with later operands become batch axes, letters only this pair still needs are contracted;
  * the result is transposed to the output's order (and size-1 axes broadcast where an operand had them).
"""

from __future__ import annotations

import math
import string
from collections.abc import Sequence
from typing import Any

import numpy as np


class EinsumError(ValueError):
    """An equation that does not parse or does not match the operands."""


def parse(equation: str, shapes: Sequence[Sequence[int]]) -> tuple[list[str], str]:
    """(one letter string per operand, output letters) with ``...`` replaced by letters of its own."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise EinsumError(f"einsum: the equation {equation!r} names {len(terms)} operands, got {len(shapes)}")
    used = set(eq) - set(".,->")
    if any(c not in string.ascii_letters for c in used):
        raise EinsumError(f"einsum: equation {equation!r} may use letters, ',', '->' and '...' only")
    free = [c for c in string.ascii_letters if c not in used]
    ell_rank = max((len(s) - (len(t) - 3) for t, s in zip(terms, shapes, strict=True) if "..." in t), default=0)
    ell = "".join(free[:ell_rank])
    out_terms = []
    for t, s in zip(terms, shapes, strict=True):
        if "..." in t:
            n = len(s) - (len(t) - 3)
            t = t.replace("...", ell[ell_rank - n:] if n else "")
        if len(t) != len(s):
            raise EinsumError(f"einsum: term {t!r} has {len(t)} letters for an operand of rank {len(s)}")
        out_terms.append(t)
    if arrow:
        out = rhs.replace("...", ell)
    else:  # implicit output: the ellipsis axes, then letters used once, alphabetically
        counts = {c: sum(t.count(c) for t in out_terms) for c in used}
        out = ell + "".join(sorted(c for c in used if counts[c] == 1))
    if len(set(out)) != len(out) or any(c not in "".join(out_terms) for c in out):
        raise EinsumError(f"einsum: the output {rhs!r} repeats a letter or names one no operand has")
    return out_terms, out


def _diagonal(b, x: Any, term: str, shape: list[int]) -> tuple[Any, str, list[int]]:
    """Take the diagonal of every repeated letter of ``term``."""
    while len(set(term)) != len(term):
        c = next(c for c in term if term.count(c) > 1)
        where = [i for i, ch in enumerate(term) if ch == c]
        n = shape[where[0]]
        if any(shape[i] != n for i in where):
            raise EinsumError(f"einsum: letter {c!r} has sizes {[shape[i] for i in where]}")
        keep = [i for i in range(len(term)) if i not in where[1:]]
        new_shape = [shape[i] for i in keep]
        # Flat source index of every element of the result.
        grids = np.indices(new_shape).reshape(len(new_shape), -1)
        strides = [math.prod(shape[i + 1:]) for i in range(len(shape))]
        flat = np.zeros(grids.shape[1], np.int64)
        for k, i in enumerate(keep):
            step = sum(strides[j] for j in where) if i == where[0] else strides[i]
            flat += grids[k] * step
        x = b.op("Reshape", {"shape": new_shape},
               b.op("Gather", {"axis": 0}, b.op("Reshape", {"shape": [math.prod(shape)]}, x), flat))
        term, shape = "".join(term[i] for i in keep), new_shape
    return x, term, shape


def _sum_out(b, x: Any, term: str, shape: list[int], drop: set[str]) -> tuple[Any, str, list[int]]:
    axes = [i for i, c in enumerate(term) if c in drop]
    if not axes:
        return x, term, shape
    x = b.op("ReduceSum", {"axis": axes, "keep_dims": False}, x)
    keep = [i for i in range(len(term)) if i not in axes]
    return x, "".join(term[i] for i in keep), [shape[i] for i in keep]


def _transpose(b, x: Any, term: str, order: str) -> Any:
    perm = [term.index(c) for c in order]
    return x if perm == sorted(perm) else b.op("Transpose", {"perm": perm}, x)


def einsum(b, equation: str, operands: Sequence[Any], shapes: Sequence[Sequence[int]], dtype: str) -> Any:
    """``einsum(equation, *operands)`` with the operands' static ``shapes`` (see the module)."""
    terms, out = parse(equation, shapes)
    sizes: dict[str, int] = {}
    for t, s in zip(terms, shapes, strict=True):
        for c, n in zip(t, s, strict=True):
            if sizes.get(c, 1) not in (1, n) and n != 1:
                raise EinsumError(f"einsum: letter {c!r} has sizes {sizes[c]} and {n}")
            sizes[c] = max(sizes.get(c, 1), int(n))
    items = []
    for i, (x, t, s) in enumerate(zip(operands, terms, shapes, strict=True)):
        x, t, s = _diagonal(b, x, t, list(s))
        later = set(out) | {c for j, u in enumerate(terms) if j != i for c in u}
        x, t, s = _sum_out(b, x, t, s, set(t) - later)
        items.append((x, t, s))
    x, t, s = items[0]
    for k in range(1, len(items)):
        y, u, r = items[k]
        needed = set(out) | {c for _, v, _ in items[k + 1:] for c in v}
        x, t, s = _contract(b, x, t, s, y, u, r, needed, sizes)
    # Size-1 axes of an operand that the output has at full size (broadcast ellipsis axes).
    x, t, s = _sum_out(b, x, t, s, set(t) - set(out))
    x = _transpose(b, x, t, out)
    full = [sizes[c] for c in out]
    if [s[t.index(c)] for c in out] != full:
        x = b.op("BroadcastTo", {"shape": full}, x)
    return x


def _contract(b, x: Any, t: str, s: list[int], y: Any, u: str, r: list[int], needed: set[str],
              sizes: dict[str, int]) -> tuple[Any, str, list[int]]:
    """One pairwise contraction as a BatchMatMul: (batch, left, k) @ (batch, k, right)."""
    batch = [c for c in t if c in u and c in needed]
    summed = [c for c in t if c in u and c not in needed]
    left = [c for c in t if c not in u]
    right = [c for c in u if c not in t]
    size = {c: n for c, n in zip(t, s, strict=True)}
    rsize = {c: n for c, n in zip(u, r, strict=True)}
    # Broadcast size-1 batch axes so both sides agree (contracted size-1 axes sum like any other).
    for c in batch + summed:
        if size[c] != rsize[c]:
            if size[c] == 1:
                x = b.op("BroadcastTo", {"shape": [rsize[c] if ch == c else size[ch] for ch in t]}, x)
                size[c] = rsize[c]
            else:
                y = b.op("BroadcastTo", {"shape": [size[c] if ch == c else rsize[ch] for ch in u]}, y)
                rsize[c] = size[c]
    nb, nl, nk, nr = (math.prod(size[c] for c in batch), math.prod(size[c] for c in left),
                      math.prod(size[c] for c in summed), math.prod(rsize[c] for c in right))
    lhs = b.op("Reshape", {"shape": [nb, nl, nk]}, _transpose(b, x, t, "".join(batch + left + summed)))
    rhs = b.op("Reshape", {"shape": [nb, nk, nr]}, _transpose(b, y, u, "".join(batch + summed + right)))
    z = b.op("BatchMatMul", {}, lhs, rhs)
    term = "".join(batch + left + right)
    shape = [size[c] for c in batch + left] + [rsize[c] for c in right]
    return b.op("Reshape", {"shape": shape}, z), term, shape


__all__ = ["EinsumError", "einsum", "parse"]
