"""Gradient rules of the scatters (ops/scatters.py), written with existing primitives.

An update that was skipped (its index out of range) gets a zero cotangent: the gathers below send such rows
to index -1, which Gather answers with zeros. ``Mul``/``Div`` follow MindSpore's rules (the update's
cotangent divides by the update, so a zero update gives inf/nan there, as in MindSpore); ``Max``/``Min``
send the cotangent to every candidate equal to the result.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.tensor import Tensor
from . import gradlib as G
from .primitive import apply
from .registry import grad_rule


def _valid_norm(index: Tensor, n) -> tuple[Tensor, Tensor]:
    """(index made non-negative, whether it is in range) for axis length(s) ``n`` (broadcast)."""
    dt = index._type.dtype
    size = Tensor(np.asarray(n, dt))
    zero = Tensor(np.zeros((), dt))
    idx = apply("Select", {}, [apply("Less", {}, [index, G.broadcast_to(zero, index.shape)]),
                               apply("Add", {}, [index, size]), index])
    ok = apply("LogicalAnd", {}, [apply("GreaterEqual", {}, [idx, G.broadcast_to(zero, index.shape)]),
                                  apply("Less", {}, [idx, G.broadcast_to(size, index.shape)])])
    return idx, ok


def gather_nd(t: Tensor, indices: Tensor) -> Tensor:
    """``t[indices[j]]`` per index row (rows out of range give zeros): the update-shaped cotangent."""
    dims = list(t.shape)
    k = indices.shape[-1]
    rows = math.prod(indices.shape[:-1])
    dt = indices._type.dtype
    idx, ok = _valid_norm(indices, np.asarray(dims[:k]))
    strides = np.asarray([math.prod(dims[d + 1:k]) for d in range(k)], dt)
    flat = G.reduce_sum(apply("Mul", {}, [idx, Tensor(strides)]), [len(indices.shape) - 1])
    all_ok = apply("ReduceMin", {"axis": [len(indices.shape) - 1], "keep_dims": False},
                   [G.cast(ok, "int32")])
    flat = apply("Select", {}, [apply("Equal", {}, [all_ok, Tensor(np.ones(all_ok.shape, np.int32))]), flat,
                                Tensor(np.full(flat.shape, -1, dt))])
    table = G.reshape(t, [math.prod(dims[:k])] + dims[k:])
    picked = apply("Gather", {"axis": 0}, [table, G.reshape(flat, [rows])])
    return G.reshape(picked, list(indices.shape[:-1]) + dims[k:])


def _equal_mask(a: Tensor, b: Tensor) -> Tensor:
    return G.mask(apply("Equal", {}, [a, b]), a)


def _ids(updates: Tensor, lead: int) -> np.ndarray:
    """int64 ids of the updates' rows (the first ``lead`` axes flattened), in the updates' shape."""
    shape = list(updates.shape)
    rows = np.arange(math.prod(shape[:lead]), dtype=np.int64).reshape(shape[:lead] + [1] * (len(shape) - lead))
    return np.broadcast_to(rows, shape).copy()


@grad_rule("TensorScatterUpdate")
def _update_grad(attrs, ins, outs, douts):
    """With repeated index rows only the last update stays in the output, so only it gets a cotangent: each
    row's id is scattered the same way, and a row is the winner where its id is what was kept."""
    x, indices, updates = ins
    dy = douts[0]
    dx = apply("TensorScatterUpdate", {}, [dy, indices, G.zeros_like(updates)])
    ids = _ids(updates, len(indices.shape) - 1)
    kept = apply("TensorScatterUpdate", {}, [Tensor(np.full(x.shape, -1, np.int64)), indices, Tensor(ids)])
    won = G.mask(apply("Equal", {}, [gather_nd(kept, indices), Tensor(ids)]), dy)
    return [dx, None, G.mul(gather_nd(dy, indices), won)]


@grad_rule("TensorScatterAdd")
def _add_grad(attrs, ins, outs, douts):
    return [douts[0], None, gather_nd(douts[0], ins[1])]


@grad_rule("TensorScatterSub")
def _sub_grad(attrs, ins, outs, douts):
    return [douts[0], None, G.neg(gather_nd(douts[0], ins[1]))]


@grad_rule("TensorScatterMul")
def _mul_grad(attrs, ins, outs, douts):
    x, indices, updates = ins
    dy = douts[0]
    dx = apply("TensorScatterMul", {}, [dy, indices, updates])
    du = G.div(gather_nd(G.mul(dy, outs[0]), indices), updates)
    return [dx, None, du]


@grad_rule("TensorScatterDiv")
def _div_grad(attrs, ins, outs, douts):
    x, indices, updates = ins
    dy = douts[0]
    dx = apply("TensorScatterDiv", {}, [dy, indices, updates])
    du = G.neg(G.div(gather_nd(G.mul(dy, outs[0]), indices), updates))
    return [dx, None, du]


@grad_rule("TensorScatterMax", "TensorScatterMin")
def _extreme_grad(attrs, ins, outs, douts):
    # The cotangent of each output element is shared equally by the values that tie for it (x and the
    # updates scattered there), as MindSpore 2.10's bprop splits it; a value that lost gets none.
    x, indices, updates = ins
    dy, out = douts[0], outs[0]
    in_x, in_u = _equal_mask(x, out), _equal_mask(updates, gather_nd(out, indices))
    count = G.add(in_x, apply("TensorScatterAdd", {}, [G.zeros_like(x), indices, in_u]))
    share = G.div(dy, apply("Maximum", {}, [count, G.const(1, count)]))
    return [G.mul(share, in_x), None, G.mul(gather_nd(share, indices), in_u)]


def _gather_elements(t: Tensor, axis: int, indices: Tensor) -> Tensor:
    """``t[p with p[axis] := indices[p]]`` for every position of ``indices`` (out of range: zero)."""
    dims = list(t.shape)
    ishape = list(indices.shape)
    if any(i != n for d, (i, n) in enumerate(zip(ishape, dims, strict=True)) if d != axis):
        end = [n if d == axis else i for d, (i, n) in enumerate(zip(ishape, dims, strict=True))]
        t = apply("StridedSlice", {"begin": [0] * len(dims), "end": end, "strides": [1] * len(dims)}, [t])
    return apply("GatherD", {"dim": axis}, [t, indices])


@grad_rule("TensorScatterElements")
def _elements_grad(attrs, ins, outs, douts):
    x, indices, updates = ins
    dy, out, axis, red = douts[0], outs[0], attrs["axis"], attrs["reduction"]
    if red == "none":  # only the last of repeated targets is kept (see _update_grad)
        dx = apply("TensorScatterElements", attrs, [dy, indices, G.zeros_like(updates)])
        ids = np.arange(math.prod(updates.shape), dtype=np.int64).reshape(updates.shape)
        kept = apply("TensorScatterElements", attrs, [Tensor(np.full(x.shape, -1, np.int64)), indices,
                                                      Tensor(ids)])
        won = G.mask(apply("Equal", {}, [_gather_elements(kept, axis, indices), Tensor(ids)]), dy)
        return [dx, None, G.mul(_gather_elements(dy, axis, indices), won)]
    if red == "add":
        return [dy, None, _gather_elements(dy, axis, indices)]
    if red == "mul":
        dx = apply("TensorScatterElements", attrs, [dy, indices, updates])
        return [dx, None, G.div(_gather_elements(G.mul(dy, out), axis, indices), updates)]
    dx = G.mul(dy, _equal_mask(x, out))
    du = G.mul(_gather_elements(dy, axis, indices), _equal_mask(updates, _gather_elements(out, axis, indices)))
    return [dx, None, du]
