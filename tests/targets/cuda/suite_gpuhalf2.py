"""The GPU suite's half-type cases of the neural-network, training and math families (suite.py's ``cases()``
appends them): each float case of suite_gpunn.py / suite_gputrain.py / suite_gpumath.py whose op's GPU emitter
handles the half types (``half.HALF_OPS``) again with its float inputs in float16 and in bfloat16, and, where
the op takes them, with only the inputs of the first input's shape in the half type (BatchNorm's float32
parameters beside a half x, as mixed precision keeps them). Same input draws as the float cases (per name,
positive, ties). A test helper, as suite.py."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from opbuild.core.errors import OpbuildError
from opbuild.core.ir import KernelSpec, TensorType
from opbuild.ops.registry import get as get_op
from opbuild.targets.cuda import half
from opbuild.targets.cuda.kernels import (
    conv,
    cumulative,
    dropout,
    grid_sample,
    linalg,
    linalg_qr,
    linalg_svd,
    losses,
    norm,
    optimizers,
    pooling,
    random_draws,
    scatter,
    segments,
    special,
    topk,
)

from .suite import Case

#: The ops of the families this part covers (the half cases are those of the ops among them that opted in).
FAMILY_OPS: frozenset[str] = frozenset(
    op for m in (conv, pooling, norm, grid_sample, optimizers, losses, segments, scatter, cumulative, topk, dropout,
                 special, random_draws, linalg, linalg_qr, linalg_svd) for op in m.OPS)

HALF = ("float16", "bfloat16")
_FLOATS = ("float32", "float64")


_ULP = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}


@dataclass(frozen=True)
class HalfCase(Case):
    """A half variant of ``base`` (a case of the float suites): ``base``'s input draws in this spec's dtypes,
    and the half types' tolerance rule."""

    base: Case | None = None

    def inputs(self) -> list[np.ndarray]:
        return dataclasses.replace(self.base, spec=self.spec, seed=self.seed).inputs()

    def tolerance(self, dtype: str, against_cpu: bool = False) -> tuple[float, float]:
        """(rtol, atol) of a float output against the CPU's kernel or the op's reference: two units in the
        last place of a half output (the float32 value may lie near a rounding boundary and sums run in
        another order), atol that unit times the square root of the terms summed into an element; a float32
        output (statistics kept in float32 beside a half x) by ``base``'s rule."""
        if dtype not in _ULP:
            return self.base.tolerance(dtype, against_cpu) if hasattr(self.base, "tolerance") else (1e-5, 1e-6)
        terms = max(t.size for t in self.spec.inputs) / max(min(t.size for t in self.spec.outputs), 1)
        return 2 * _ULP[dtype], _ULP[dtype] * max(terms, 1) ** 0.5


def _halved(spec: KernelSpec, dtype: str, data_only: bool) -> KernelSpec | None:
    """``spec`` with its float inputs (or only those of the first input's shape: the data beside per-channel
    parameters) in ``dtype``; None where the op refuses it."""
    first = spec.inputs[0].shape
    types = [TensorType(t.shape, dtype) if t.dtype in _FLOATS and (not data_only or t.shape == first) else t
             for t in spec.inputs]
    if types == list(spec.inputs):
        return None
    try:
        return get_op(spec.op).spec(spec.attrs, types)
    except (OpbuildError, ValueError, TypeError):
        return None


def _base_cases() -> list[Case]:
    from .suite_gpumath import cases as gpumath_cases
    from .suite_gpunn import cases as gpunn_cases
    from .suite_gputrain import train_cases

    return gpunn_cases(0) + train_cases() + gpumath_cases(0)


def cases(first_seed: int = 50_000, ops: set[str] | None = None) -> list[HalfCase]:
    """The half variants (see the module docstring) of the cases whose op is in ``ops`` (default: every op
    of the three families that opted in), each spec once, seeds from ``first_seed``."""
    chosen = (FAMILY_OPS & half.HALF_OPS) if ops is None else ops
    seen: dict = {}
    out: list[Case] = []
    for case in _base_cases():
        if case.spec.op not in chosen or not any(t.dtype in _FLOATS for t in case.spec.inputs):
            continue
        for dtype in HALF:
            for data_only in (False, True):
                spec = _halved(case.spec, dtype, data_only)
                if spec is None or spec.memo_key() in seen:
                    continue
                seen[spec.memo_key()] = spec
                out.append(HalfCase(spec, first_seed + len(out), base=case))
    return out


__all__ = ["FAMILY_OPS", "HALF", "HalfCase", "cases"]
