"""CPU kernels of the in-place updates (ops/optim.py): Assign, AssignAdd, ApplyMomentum, SGD, Adam and
AdamWeightDecay.

An in-place output and its input hold the same address when the graph runs (the executor binds them); in
PyNative the session passes the input array as the output too. The body copies the input into the output
only when the addresses differ, then reads and writes the output alone, so the ``restrict`` views of the
kernel ABI never alias in an access. Half types load every state buffer and the gradient into float, compute
the update in float32 and round each buffer once when stored back."""

from __future__ import annotations

from collections.abc import Sequence

from ....core.ir import KernelSpec
from ..codegen import c_literal, compute_ctype, ctype, is_half, load, parallel_for, store
from .registry import register


def _update_body(k: KernelSpec, pairs: Sequence[tuple[int, int]], scalars: dict[str, int],
                 consts: dict[str, float], stmt: str, state: dict[str, int] | None = None,
                 reads: dict[str, int] | None = None, setup: str = "") -> str:
    """C body of an in-place update: copy-in where the buffers differ, read the scalar inputs, then per
    element ``j``: load the outputs named in ``state`` (local name -> output index) and the inputs named in
    ``reads`` (local name -> input index) into locals of the compute type, run ``stmt`` on the locals and the
    scalars and consts, and store each state local back once (the one rounding of a half type). ``setup``
    (C statements) runs once after the scalars are read, before the element loop."""
    dt = k.inputs[0].dtype
    st, ct, n = ctype(dt), compute_ctype(dt), k.inputs[0].size
    state, reads = state or {}, reads or {}
    lines = [f"if ((const void *)out{o} != (const void *)in{i}) memcpy(out{o}, in{i}, {n} * sizeof({st}));"
             for o, i in pairs]
    lines += [f"const {ct} {name} = {load(k.inputs[i].dtype, f'in{i}[0]')};" for name, i in scalars.items()]
    lit = "float32" if is_half(dt) else dt  # consts in the compute type
    lines += [f"const {ct} {name} = {c_literal(v, lit)};" for name, v in consts.items()]
    if setup:
        lines.append(setup)
    loads = " ".join([f"{ct} {name} = {load(dt, f'out{o}[j]')};" for name, o in state.items()]
                     + [f"const {ct} {name} = {load(dt, f'in{i}[j]')};" for name, i in reads.items()])
    stores = " ".join(f"out{o}[j] = {store(dt, name, ct)};" for name, o in state.items())
    lines.append(f"{parallel_for(n)}for (int64_t j = 0; j < {n}; j++) {{ {loads} {stmt} {stores} }}")
    return "\n".join(lines)


def _assign_emit(k: KernelSpec) -> str:
    return _update_body(k, [(0, 0)], {}, {}, "out0[j] = in1[j];")  # a copy of the stored bits, any dtype


def _assign_add_emit(k: KernelSpec) -> str:
    return _update_body(k, [(0, 0)], {}, {}, "v = v + x;", state={"v": 0}, reads={"x": 1})


def _momentum_emit(k: KernelSpec) -> str:
    step = "v -= lr * (g + a * mom);" if k.attrs["use_nesterov"] else "v -= lr * a;"
    return _update_body(k, [(0, 0), (1, 1)], {"lr": 2, "mom": 4}, {"gs": k.attrs["gradient_scale"]},
                        f"const {compute_ctype(k.inputs[0].dtype)} g = gin * gs; a = a * mom + g; {step}",
                        state={"v": 0, "a": 1}, reads={"gin": 3})


def _sgd_emit(k: KernelSpec) -> str:
    ct = compute_ctype(k.inputs[0].dtype)
    nesterov = "g = g + mom * acc;" if k.attrs["nesterov"] else "g = acc;"
    stmt = (f"{ct} g = gin + wd * p; "
            f"if (mom > 0) {{ if (stat > 0) {{ acc = g; stat = 0; }} "
            f"else acc = acc * mom + (1 - damp) * g; {nesterov} }} "
            f"p -= lr * g;")
    return _update_body(k, [(0, 0), (1, 3), (2, 5)], {"lr": 2, "mom": 4},
                        {"wd": k.attrs["weight_decay"], "damp": k.attrs["dampening"]}, stmt,
                        state={"p": 0, "acc": 1, "stat": 2}, reads={"gin": 1})


def _adam_emit(k: KernelSpec) -> str:
    num = "(m * b1 + (1 - b1) * g)" if k.attrs["use_nesterov"] else "m"
    ct = compute_ctype(k.inputs[0].dtype)
    stmt = ("m += (g - m) * (1 - b1); "
            "v += (g * g - v) * (1 - b2); w -= lr_t * " + num + " / (eps + sqrt(v));")
    body = _update_body(k, [(0, 0), (1, 1), (2, 2)],
                        {"b1p": 3, "b2p": 4, "lr": 5, "b1": 6, "b2": 7, "eps": 8}, {}, stmt,
                        state={"w": 0, "m": 1, "v": 2}, reads={"g": 9},
                        setup=f"const {ct} lr_t = lr * sqrt(1 - b2p) / (1 - b1p);")  # once per call
    return body


def _adamw_emit(k: KernelSpec) -> str:
    stmt = ("m = b1 * m + (1 - b1) * g; "
            "v = b2 * v + (1 - b2) * g * g; "
            "w -= lr * (m / (sqrt(v) + eps) + decay * w);")
    return _update_body(k, [(0, 0), (1, 1), (2, 2)],
                        {"lr": 3, "b1": 4, "b2": 5, "eps": 6, "decay": 7}, {}, stmt,
                        state={"w": 0, "m": 1, "v": 2}, reads={"g": 8})


register("Assign", _assign_emit)
register("AssignAdd", _assign_add_emit)
register("ApplyMomentum", _momentum_emit)
register("SGD", _sgd_emit)
register("Adam", _adam_emit)
register("AdamWeightDecay", _adamw_emit)
