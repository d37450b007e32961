"""CPU kernels of MindSpore's ``Apply*`` and ``SparseApply*`` optimizer primitives (ops/optim_apply.py,
ops/optim_sparse.py): one emitter for each table. Each row's C statement runs per element over locals named
like its inputs, inside the in-place update scaffold of kernels/optim.py (copy-in where the buffers differ,
scalars read once, each state buffer loaded into the compute type and stored back once)."""

from __future__ import annotations

from ....core.ir import KernelSpec
from ....ops.optim_apply import BY_NAME, ApplyRow
from ....ops.optim_sparse import BY_NAME as SPARSE
from ..codegen import c_literal, compute_ctype, ctype, is_half, load, parallel_for, store
from .optim import _update_body
from .registry import register


def numeric_consts(k: KernelSpec) -> dict[str, float]:
    """The numeric attributes of an update (its constants in the C statement); flags shape the statement."""
    return {n: v for n, v in k.attrs.items() if isinstance(v, float)}


def _emit(row: ApplyRow):
    def emit(k: KernelSpec) -> str:
        idx = row.index
        return _update_body(k, [(o, idx(n)) for o, n in enumerate(row.state)],
                            {n: idx(n) for n in row.scalars}, numeric_consts(k),
                            row.stmt(k.attrs, compute_ctype(k.inputs[0].dtype)),
                            state={n: o for o, n in enumerate(row.state)},
                            reads={n: idx(n) for n in row.tensors})

    return emit


for _row in BY_NAME.values():
    register(_row.name, _emit(_row))


def _sparse_body(k: KernelSpec, row: ApplyRow) -> str:
    """The in-place scaffold over the rows ``indices`` names. Summing duplicates: each distinct in-range row is
    updated once, by the first index naming it, with the sum of the gradient slices of every index naming it
    (so the outer loop's iterations write disjoint rows and split over threads). Sequential: one update per
    index, in order."""
    var = k.inputs[0]
    dt, idx_i, grad_i = var.dtype, row.index("indices"), row.index("grad")
    st, ct = ctype(dt), compute_ctype(dt)
    n_rows, width, n_idx = var.shape[0], var.size // max(var.shape[0], 1), k.inputs[idx_i].size
    lines = [f"if ((const void *)out{o} != (const void *)in{row.index(n)}) "
             f"memcpy(out{o}, in{row.index(n)}, {var.size} * sizeof({st}));" for o, n in enumerate(row.state)]
    lines += [f"const {ct} {n} = {load(k.inputs[row.index(n)].dtype, f'in{row.index(n)}[0]')};"
              for n in row.scalars]
    lit = "float32" if is_half(dt) else dt
    lines += [f"const {ct} {n} = {c_literal(v, lit)};" for n, v in numeric_consts(k).items()]
    loads = " ".join(f"{ct} {n} = {load(dt, f'out{o}[j]')};" for o, n in enumerate(row.state))
    stores = " ".join(f"out{o}[j] = {store(dt, n, ct)};" for o, n in enumerate(row.state))
    ix = f"in{idx_i}"
    if row.duplicates != "sum":  # index order matters: the indices in turn, each row's columns over threads
        lines.append(
            f"for (int64_t q = 0; q < {n_idx}; q++) {{\n"
            f"  const int64_t r = (int64_t){ix}[q];\n"
            f"  if (r < 0 || r >= {n_rows}) continue;\n"
            f"  {parallel_for(n_idx * width)}for (int64_t c = 0; c < {width}; c++) {{\n"
            f"    const int64_t j = r * {width} + c;\n"
            f"    const {ct} grad = {load(dt, f'in{grad_i}[q * {width} + c]')};\n"
            f"    {loads} {row.stmt(k.attrs, ct)} {stores}\n"
            f"  }}\n}}")
        return "\n".join(lines)
    lines.append(
        f"{parallel_for(n_idx * width)}for (int64_t q = 0; q < {n_idx}; q++) {{\n"
        f"  const int64_t r = (int64_t){ix}[q];\n"
        f"  if (r < 0 || r >= {n_rows}) continue;\n"
        f"  int first = 1; for (int64_t p = 0; p < q; p++) if ((int64_t){ix}[p] == r) {{ first = 0; break; }}\n"
        f"  if (!first) continue;\n"
        f"  for (int64_t c = 0; c < {width}; c++) {{\n"
        f"    const int64_t j = r * {width} + c;\n"
        f"    {ct} grad = 0; for (int64_t p = q; p < {n_idx}; p++) if ((int64_t){ix}[p] == r) "
        f"grad += {load(dt, f'in{grad_i}[p * {width} + c]')};\n"
        f"    {loads} {row.stmt(k.attrs, ct)} {stores}\n"
        f"  }}\n}}")
    return "\n".join(lines)


def _sparse_emit(row: ApplyRow):
    return lambda k: _sparse_body(k, row)


for _row in SPARSE.values():
    register(_row.name, _sparse_emit(_row))
