"""GPU kernels of the in-place state updates: Assign, AssignAdd, ApplyMomentum, SGD, Adam, AdamWeightDecay
(ops/optim.py), MindSpore's ``Apply*`` rows (ops/optim_apply.py) and the ``SparseApply*`` rows
(ops/optim_sparse.py). Each computes what the CPU's kernels compute (targets/cpu/kernels/optim.py and
optim_apply.py), with the same C statement per element for the table rows.

In place: the executor passes an updated output and its input at one address (``OpDef.inplace``), so their
pointers are not ``__restrict__`` (``codegen.params``). One thread owns each element: it loads every state
value and tensor element of ``j`` through the input pointers, runs the update on locals, then stores the state
through the output pointers, so a read always precedes the same thread's write and a separate output buffer
(PyNative, tests) gets the same values. The scalar inputs (learning rate, betas, ...) are read by every thread
before its loop; they never alias an output.

Sparse rows update the rows ``indices`` names. Where every output shares its input's address (the executor's
case) one thread per (index, column) updates the row of the first index naming it, summing the gradient slices
of every index naming it (``duplicates == "sum"``) or applying them one after another in index order
(``"sequential"``), as the CPU does; no other thread writes that element. With separate output buffers every
output element has its thread, which copies the old state of a row no index names.

float16 and bfloat16 (MindSpore's optimizers take float16 parameters) as the CPU's kernels: the state and the
tensors load into float, the scalars (of the variable's type or float32) too, the constants are float32, the
update runs in float and each state buffer rounds once per step; a sequential sparse row rounds the state
after each index's update, as the CPU stores it after each (half.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from ....core.ir import KernelSpec
from ....ops import optim_apply
from ....ops.optim_apply import BY_NAME, ApplyRow
from ....ops.optim_sparse import BY_NAME as SPARSE
from .. import half
from ..codegen import grid_loop
from .registry import register


def literal(value: float, dtype: str) -> str:
    """A CUDA C literal of float ``value`` in float ``dtype`` (inf and NaN as constant expressions: NVRTC has
    no ``<math.h>`` macros)."""
    v = float(value)
    single = half.compute_ctype(dtype) == "float"  # float32 and the half types
    one, zero = ("1.0f", "0.0f") if single else ("1.0", "0.0")
    if v != v:
        return f"({zero} / {zero})"
    if v in (float("inf"), float("-inf")):
        return f"({'-' if v < 0 else ''}{one} / {zero})"
    return repr(v) + ("f" if single else "")


def _scalars_and_consts(k: KernelSpec, scalars: dict[str, int], consts: dict[str, float]) -> list[str]:
    t = half.compute_ctype(k.inputs[0].dtype)
    return ([f"  const {t} {name} = ({t}){half.load(k.inputs[i].dtype, f'in{i}[0]')};"
             for name, i in scalars.items()]
            + [f"  const {t} {name} = {literal(v, k.inputs[0].dtype)};" for name, v in consts.items()])


def update_body(k: KernelSpec, pairs: Sequence[tuple[int, int]], scalars: dict[str, int],
                consts: dict[str, float], stmt: str, state: dict[str, int] | None = None,
                reads: dict[str, int] | None = None, setup: str = "") -> str:
    """CUDA C body of a dense in-place update (the module docstring): ``pairs`` ``(output, input)``; per
    element ``j`` the state locals (name -> output index) load from their paired input, the ``reads`` (name ->
    input index) from their input, ``stmt`` runs on them and the scalars and consts, and each state local is
    stored once. ``setup`` (C statements) runs once per thread before the loop."""
    dt, n = k.inputs[0].dtype, k.inputs[0].size
    t = half.compute_ctype(dt)
    state, reads = state or {}, reads or {}
    source = dict(pairs)
    lines = _scalars_and_consts(k, scalars, consts)
    if setup:
        lines.append(f"  {setup}")
    loads = " ".join([f"{t} {name} = {half.load(dt, f'in{source[o]}[j]')};" for name, o in state.items()]
                     + [f"const {t} {name} = {half.load(dt, f'in{i}[j]')};" for name, i in reads.items()])
    stores = " ".join(f"out{o}[j] = {half.store(dt, name, t)};" for name, o in state.items())
    lines.append(grid_loop(n, "j", f"{loads} {stmt} {stores}"))
    return "\n".join(lines)


def _assign(k: KernelSpec) -> str:
    return grid_loop(k.inputs[0].size, "j", "out0[j] = in1[j];")  # the stored bits, any dtype


def _assign_add(k: KernelSpec) -> str:
    return update_body(k, [(0, 0)], {}, {}, f"v = ({half.compute_ctype(k.inputs[0].dtype)})(v + x);", state={"v": 0},
                       reads={"x": 1})


def _momentum(k: KernelSpec) -> str:
    step = "v -= lr * (g + a * mom);" if k.attrs["use_nesterov"] else "v -= lr * a;"
    return update_body(k, [(0, 0), (1, 1)], {"lr": 2, "mom": 4}, {"gs": k.attrs["gradient_scale"]},
                       f"const {half.compute_ctype(k.inputs[0].dtype)} g = gin * gs; a = a * mom + g; {step}",
                       state={"v": 0, "a": 1}, reads={"gin": 3})


def _sgd(k: KernelSpec) -> str:
    t = half.compute_ctype(k.inputs[0].dtype)
    nesterov = "g = g + mom * acc;" if k.attrs["nesterov"] else "g = acc;"
    stmt = (f"{t} g = gin + wd * p; "
            f"if (mom > 0) {{ if (stat > 0) {{ acc = g; stat = 0; }} "
            f"else acc = acc * mom + (1 - damp) * g; {nesterov} }} "
            "p -= lr * g;")
    return update_body(k, [(0, 0), (1, 3), (2, 5)], {"lr": 2, "mom": 4},
                       {"wd": k.attrs["weight_decay"], "damp": k.attrs["dampening"]}, stmt,
                       state={"p": 0, "acc": 1, "stat": 2}, reads={"gin": 1})


def _adam(k: KernelSpec) -> str:
    num = "(m * b1 + (1 - b1) * g)" if k.attrs["use_nesterov"] else "m"
    t = half.compute_ctype(k.inputs[0].dtype)
    stmt = f"m += (g - m) * (1 - b1); v += (g * g - v) * (1 - b2); w -= lr_t * {num} / (eps + sqrt(v));"
    return update_body(k, [(0, 0), (1, 1), (2, 2)], {"b1p": 3, "b2p": 4, "lr": 5, "b1": 6, "b2": 7, "eps": 8}, {},
                       stmt, state={"w": 0, "m": 1, "v": 2}, reads={"g": 9},
                       setup=f"const {t} lr_t = lr * sqrt(1 - b2p) / (1 - b1p);")


def _adamw(k: KernelSpec) -> str:
    stmt = "m = b1 * m + (1 - b1) * g; v = b2 * v + (1 - b2) * g * g; w -= lr * (m / (sqrt(v) + eps) + decay * w);"
    return update_body(k, [(0, 0), (1, 1), (2, 2)], {"lr": 3, "b1": 4, "b2": 5, "eps": 6, "decay": 7}, {}, stmt,
                       state={"w": 0, "m": 1, "v": 2}, reads={"g": 8})


def numeric_consts(k: KernelSpec) -> dict[str, float]:
    """The numeric attributes of an update (constants of its statement); flags shape the statement."""
    return {n: v for n, v in k.attrs.items() if isinstance(v, float)}


def _row_emitter(row: ApplyRow):
    def emit(k: KernelSpec) -> str:
        idx = row.index
        return update_body(k, [(o, idx(n)) for o, n in enumerate(row.state)], {n: idx(n) for n in row.scalars},
                           numeric_consts(k), row.stmt(k.attrs, half.compute_ctype(k.inputs[0].dtype)),
                           state={n: o for o, n in enumerate(row.state)}, reads={n: idx(n) for n in row.tensors})

    return emit


def _sparse_update(row: ApplyRow, k: KernelSpec, width: int, n_idx: int) -> str:
    """Statements updating element ``j`` (row ``r``, column ``c``) from the first index ``q`` naming ``r``:
    load the state, fold in the slices of every index ``p >= q`` naming ``r``, store the state."""
    dt = k.inputs[0].dtype
    t = half.compute_ctype(dt)
    ix, g = f"in{row.index('indices')}", f"in{row.index('grad')}"
    loads = " ".join(f"{t} {n} = {half.load(dt, f'in{row.index(n)}[j]')};" for n in row.state)
    stores = " ".join(f"out{o}[j] = {half.store(dt, n, t)};" for o, n in enumerate(row.state))
    match = f"for (int64_t p = q; p < {n_idx}LL; p++) if ((int64_t){ix}[p] == r) "
    grad_at = half.load(dt, f"{g}[p * {width}LL + c]")
    if row.duplicates == "sum":
        fold = f"{t} grad = 0; {match}grad += {grad_at}; {{ {row.stmt(k.attrs, t)} }}"
    else:  # a half state rounds after each index's update, as the CPU stores it after each
        rounds = " ".join(f"{n} = {half.round_trip(dt, n, t)};" for n in row.state) if half.is_half(dt) else ""
        fold = f"{match}{{ const {t} grad = {grad_at}; {row.stmt(k.attrs, t)} {rounds} }}"
    return f"{loads} {fold} {stores}"


def _sparse_emitter(row: ApplyRow):
    def emit(k: KernelSpec) -> str:
        var = k.inputs[0]
        if var.size == 0:
            return "  /* empty */"
        n_rows, n_idx = var.shape[0], k.inputs[row.index("indices")].size
        width = var.size // max(n_rows, 1)
        ix = f"in{row.index('indices')}"
        lines = _scalars_and_consts(k, {n: row.index(n) for n in row.scalars}, numeric_consts(k))
        aliased = " && ".join(f"(const void *)out{o} == (const void *)in{row.index(n)}"
                              for o, n in enumerate(row.state))
        update = _sparse_update(row, k, width, n_idx)
        # The executor's case: only the named rows are touched, one thread per (index, column).
        by_index = (f"const int64_t q = e / {width}LL, c = e % {width}LL; const int64_t r = (int64_t){ix}[q]; "
                    f"if (r < 0 || r >= {n_rows}LL) continue; "
                    f"bool first = true; for (int64_t p = 0; p < q; p++) if ((int64_t){ix}[p] == r) "
                    "{ first = false; break; } "
                    f"if (!first) continue; const int64_t j = r * {width}LL + c; {update}")
        # Separate buffers: every output element has its thread (a copy where no index names its row).
        copy = " ".join(f"out{o}[j] = in{row.index(n)}[j];" for o, n in enumerate(row.state))  # the bits
        by_element = (f"const int64_t r = j / {width}LL, c = j % {width}LL; int64_t q = 0; "
                      f"while (q < {n_idx}LL && (int64_t){ix}[q] != r) q++; "
                      f"if (q == {n_idx}LL) {{ {copy} continue; }} {update}")
        lines.append(f"  if ({aliased}) {{\n{grid_loop(n_idx * width, 'e', by_index)}\n  }} else {{\n"
                     f"{grid_loop(var.size, 'j', by_element)}\n  }}")
        return "\n".join(lines)

    return emit


register("Assign", _assign)
register("AssignAdd", _assign_add)
register("ApplyMomentum", _momentum)
register("SGD", _sgd)
register("Adam", _adam)
register("AdamWeightDecay", _adamw)
for _row in BY_NAME.values():
    register(_row.name, _row_emitter(_row))
for _row in SPARSE.values():
    register(_row.name, _sparse_emitter(_row), deps=(optim_apply,))  # the dense rows' helpers (sgn)
half.allow("Assign", "AssignAdd", "ApplyMomentum", "SGD", "Adam", "AdamWeightDecay", *BY_NAME, *SPARSE)

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = ("Assign", "AssignAdd", "ApplyMomentum", "SGD", "Adam", "AdamWeightDecay", *BY_NAME, *SPARSE)

__all__ = ["OPS", "literal", "numeric_consts", "update_body"]
