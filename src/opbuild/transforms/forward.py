"""Jacobian products: ``vjp``, ``jvp``, ``linearize``, ``jacrev`` and ``jacfwd`` with MindSpore 2.10's
signatures and return structures (see the package docstring for how forward mode is derived)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..autograd import _Differentiated, _positions, _weights_list, grad
from ..core.tensor import Tensor


def _tensors(inputs: Any, who: str, what: str = "inputs") -> tuple[Tensor, ...]:
    """``inputs`` (a Tensor or a tuple/list of them) as a tuple of Tensors; TypeError naming ``who`` else."""
    items = (inputs,) if isinstance(inputs, (Tensor, np.ndarray)) else inputs
    if not isinstance(items, (tuple, list)) or not all(isinstance(x, (Tensor, np.ndarray)) for x in items):
        raise TypeError(f"{who}: {what} must be a Tensor or a tuple of Tensors, got {type(inputs).__name__}")
    return tuple(Tensor(x) if isinstance(x, np.ndarray) else x for x in items)


def _split_aux(out: Any, has_aux: bool, who: str) -> tuple[Any, Any]:
    """(the differentiated outputs, the auxiliary ones: the second output alone, or a tuple of the others)."""
    if not has_aux:
        return out, None
    if not isinstance(out, tuple) or len(out) < 2:
        raise ValueError(f"{who}: has_aux=True needs a function with more than one output (the first is "
                         "differentiated, the others are returned as they are)")
    return out[0], (out[1] if len(out) == 2 else tuple(out[1:]))


def _first_output(fn: Callable[..., Any]) -> Callable[..., Any]:
    def first(*args: Any) -> Any:
        return fn(*args)[0]

    return first


def vjp(fn: Callable[..., Any], *inputs: Any, weights: Any = None, has_aux: bool = False) -> tuple:
    """``(outputs, vjp_fn)`` (``(outputs, vjp_fn, aux)`` with ``has_aux``): ``vjp_fn(*v)`` gives the
    gradients of every input (a tuple; with ``weights``, ``(inputs' gradients, weights' gradients)``) for
    the cotangents ``v`` of the outputs."""
    args = _tensors(inputs, "vjp")
    params, _ = _weights_list(weights)
    outputs, aux = _split_aux(fn(*args), has_aux, "vjp")
    target = _first_output(fn) if has_aux else fn
    diff = _Differentiated(target, tuple(range(len(args))), params, has_aux=False, sens_param=True)

    def vjp_fn(*v: Any) -> Any:
        sens = _tensors(v, "vjp_fn", "the cotangents")
        _, in_grads, w_grads = diff(*args, sens if len(sens) > 1 else sens[0])
        return (tuple(in_grads), tuple(w_grads)) if weights is not None else tuple(in_grads)

    return (outputs, vjp_fn, aux) if has_aux else (outputs, vjp_fn)


def _jvp_values(fn: Callable[..., Any], args: tuple[Tensor, ...], tangents: tuple[Tensor, ...],
                outputs: Any) -> Any:
    """``J v`` of ``fn`` at ``args`` for tangents ``tangents``, in the structure of ``outputs``: the gradient
    with respect to the cotangents ``u`` of ``sum_i <vjp(args, u)_i, v_i>``."""
    leaves = list(outputs) if isinstance(outputs, (tuple, list)) else [outputs]
    diff = _Differentiated(fn, tuple(range(len(args))), [], has_aux=False, sens_param=True)
    n = len(args)

    def pairing(*xs_vs_us: Tensor) -> Tensor:
        # The point and the tangents are arguments too: under an enclosing trace (nested transforms) they
        # are that trace's tensors, which this trace may read only as its own inputs.
        xs, vs, us = xs_vs_us[:n], xs_vs_us[n:2 * n], xs_vs_us[2 * n:]
        _, in_grads, _ = diff(*xs, us if len(us) > 1 else us[0])
        total = None
        for g, v in zip(in_grads, vs, strict=True):
            term = (g * v.astype(g.dtype)).sum()
            total = term if total is None else total + term
        return total

    zeros = tuple(Tensor(np.zeros(t.shape, np.dtype(t._type.dtype))) for t in leaves)
    out = grad(pairing, grad_position=tuple(range(2 * n, 2 * n + len(zeros))))(*args, *tangents, *zeros)
    return tuple(out) if isinstance(outputs, (tuple, list)) else out[0]


def jvp(fn: Callable[..., Any], inputs: Any, v: Any, has_aux: bool = False) -> tuple:
    """``(outputs, J v)`` (``(outputs, J v, aux)`` with ``has_aux``): the Jacobian of ``fn`` at ``inputs``
    times the tangents ``v`` (one per input)."""
    args = _tensors(inputs, "jvp")
    tangents = _tensors(v, "jvp", "v")
    if len(tangents) != len(args) or any(t.shape != a.shape for t, a in zip(tangents, args)):
        raise ValueError(f"jvp: v must hold one tangent of each input's shape, got shapes "
                         f"{[t.shape for t in tangents]} for inputs {[a.shape for a in args]}")
    outputs, aux = _split_aux(fn(*args), has_aux, "jvp")
    target = _first_output(fn) if has_aux else fn
    jv = _jvp_values(target, args, tangents, outputs)
    return (outputs, jv, aux) if has_aux else (outputs, jv)


def linearize(fn: Callable[..., Any], inputs: Any) -> tuple[Any, Callable[[Any], Any]]:
    """``(outputs, jvp_fn)``: ``jvp_fn(v)`` is the Jacobian-vector product of ``fn`` at ``inputs``."""
    args = _tensors(inputs, "linearize")
    outputs = fn(*args)

    def jvp_fn(v: Any) -> Any:
        tangents = _tensors(v, "linearize", "v")
        return _jvp_values(fn, args, tangents, outputs)

    return outputs, jvp_fn


def _jacobian(fn: Callable[..., Any], grad_position: Any, has_aux: bool, who: str) -> Callable[..., Any]:
    positions, _ = _positions(grad_position)
    if not positions:
        raise TypeError(f"{who}: grad_position must be an int or a tuple of ints, got {grad_position!r}")

    def jac_fn(*inputs: Any) -> Any:
        args = _tensors(inputs, who)
        outputs, aux = _split_aux(fn(*args), has_aux, who)
        outs = list(outputs) if isinstance(outputs, (tuple, list)) else [outputs]
        target = _first_output(fn) if has_aux else fn
        diff = _Differentiated(target, positions, [], has_aux=False, sens_param=True)
        rows = _rows(diff, args, outs)
        jac = _arrange_jacobian(rows, outs, [args[p] for p in positions])
        return (jac, aux) if has_aux else jac

    return jac_fn


def _rows(diff: _Differentiated, args: tuple[Tensor, ...], outs: Sequence[Tensor]) -> list[list[np.ndarray]]:
    """Per output, per differentiated input, the Jacobian block as an array of shape out.shape + in.shape:
    one vector-Jacobian product per output element with a one-hot cotangent."""
    blocks: list[list[np.ndarray]] = []
    zeros = [np.zeros(o.shape, np.dtype(o._type.dtype)) for o in outs]
    for k, o in enumerate(outs):
        per_input: list[list[np.ndarray]] = []
        for e in range(int(np.prod(o.shape, dtype=np.int64))):
            sens = [z.copy() for z in zeros]
            sens[k].reshape(-1)[e] = 1
            sens_t = tuple(Tensor(s) for s in sens)
            _, in_grads, _ = diff(*args, sens_t if len(sens_t) > 1 else sens_t[0])
            for i, g in enumerate(in_grads):
                if len(per_input) <= i:
                    per_input.append([])
                per_input[i].append(g.asnumpy())
        blocks.append([np.stack(rows).reshape(tuple(o.shape) + rows[0].shape) if rows else
                       np.zeros(tuple(o.shape), zeros[k].dtype) for rows in per_input])
    return blocks


def _arrange_jacobian(blocks: list[list[np.ndarray]], outs: Sequence[Tensor], ins: Sequence[Tensor]) -> Any:
    """MindSpore's structure: one block alone; a flat tuple when there is one output or one input; else a
    tuple per output of a tuple per input."""
    flat = [Tensor(b) for per_out in blocks for b in per_out]
    if len(flat) == 1:
        return flat[0]
    if len(outs) == 1 or len(ins) == 1:
        return tuple(flat)
    return tuple(tuple(Tensor(b) for b in per_out) for per_out in blocks)


def jacrev(fn: Callable[..., Any], grad_position: int | tuple[int, ...] = 0,
           has_aux: bool = False) -> Callable[..., Any]:
    """The function computing the Jacobian of ``fn`` with respect to the inputs at ``grad_position``
    (reverse mode: one vector-Jacobian product per output element); ``(jacobian, aux)`` with ``has_aux``."""
    return _jacobian(fn, grad_position, has_aux, "jacrev")


def jacfwd(fn: Callable[..., Any], grad_position: int | tuple[int, ...] = 0,
           has_aux: bool = False) -> Callable[..., Any]:
    """The Jacobian as :func:`jacrev` computes it (MindSpore computes it column by column in forward mode;
    the values are the same)."""
    return _jacobian(fn, grad_position, has_aux, "jacfwd")
