"""``mindspore.numpy`` odds and ends: window functions, random tensors, dtype promotion queries, phase
unwrapping and ``array_str``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import ops as F
from ..core import config
from ..core.dtypes import DType, dtype_of
from ..core.dtypes import promote_types as _promote
from ..core.init_values import seed_epoch
from ..core.ms_random_streams import functional_seeds
from ..core.tensor import Tensor
from ._utils import as_float, check_dtype, norm_axis, shape_tuple, to_tensor

__all__ = ["hamming", "hanning", "bartlett", "blackman", "rand", "randn", "randint", "promote_types", "result_type",
           "unwrap", "array_str"]


def _window(M: int, values) -> Tensor:  # noqa: N803 - NumPy's name
    if isinstance(M, bool) or not isinstance(M, (int, np.integer)):
        raise TypeError(f"the window length M must be an int, got {type(M).__name__}")
    if M < 1:
        return Tensor(np.zeros(0, np.float32))
    if M == 1:
        return Tensor(np.ones(1, np.float32))
    n = np.arange(M, dtype=np.float64)
    return Tensor(values(n, M).astype(np.float32))


def hamming(M: int) -> Tensor:  # noqa: N803 - NumPy's name
    """``mindspore.numpy.hamming``: the Hamming window of ``M`` points (float32)."""
    return _window(M, lambda n, m: 0.54 - 0.46 * np.cos(2.0 * np.pi * n / (m - 1)))


def hanning(M: int) -> Tensor:  # noqa: N803 - NumPy's name
    """``mindspore.numpy.hanning``: the Hann window of ``M`` points (float32)."""
    return _window(M, lambda n, m: 0.5 - 0.5 * np.cos(2.0 * np.pi * n / (m - 1)))


def bartlett(M: int) -> Tensor:  # noqa: N803 - NumPy's name
    """``mindspore.numpy.bartlett``: the triangular (Bartlett) window of ``M`` points (float32)."""
    return _window(M, lambda n, m: 1.0 - np.abs(2.0 * n / (m - 1) - 1.0))


def blackman(M: int) -> Tensor:  # noqa: N803 - NumPy's name
    """``mindspore.numpy.blackman``: the Blackman window of ``M`` points (float32)."""
    return _window(M, lambda n, m: 0.42 - 0.5 * np.cos(2.0 * np.pi * n / (m - 1))
                   + 0.08 * np.cos(4.0 * np.pi * n / (m - 1)))


def _shape_arg(shape: Any) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        return shape_tuple(shape[0])
    return shape_tuple(tuple(shape))


def _kernel_seeds(kernel: str) -> dict:
    """The seeds of the sampling primitive ``kernel`` that ``mindspore.numpy``'s random functions make for one
    call: after a ``set_seed``, MindSpore's functional pair for the op seed equal to the global seed, counted
    under the kernel's name (so the calls draw MindSpore's values); before any (or for the pair (0, 0), which
    MindSpore leaves unseeded) none: a new primitive then draws opbuild's stream."""
    if seed_epoch() == 0:
        return {}
    pair = functional_seeds(kernel, int(config.get_context("seed")))
    return {} if pair is None else {"seed": pair[0], "seed2": pair[1]}


def rand(*shape: Any, dtype: Any = "float32") -> Tensor:
    """``mindspore.numpy.rand``: uniform samples in [0, 1) of ``shape``; after ``set_seed`` MindSpore's values
    (a ``UniformReal`` seeded as MindSpore's numpy does)."""
    dt = check_dtype(dtype)
    if dt is None or not dt.is_float:
        raise TypeError(f"rand: dtype must be a float type, got {dtype!r}")
    size = _shape_arg(shape)
    return F.cast(F.UniformReal(**_kernel_seeds("UniformReal"))(size), dt)


def randn(*shape: Any, dtype: Any = "float32") -> Tensor:
    """``mindspore.numpy.randn``: standard normal samples of ``shape``; after ``set_seed`` MindSpore's values
    (a ``StandardNormal`` seeded as MindSpore's numpy does)."""
    dt = check_dtype(dtype)
    if dt is None or not dt.is_float:
        raise TypeError(f"randn: dtype must be a float type, got {dtype!r}")
    size = _shape_arg(shape)
    return F.cast(F.StandardNormal(**_kernel_seeds("StandardNormal"))(size), dt)


def randint(minval: int, maxval: int | None = None, shape: Any = None, dtype: Any = "int32") -> Tensor:
    """``mindspore.numpy.randint``: uniform integers in [minval, maxval) (in [0, minval) without maxval) of
    ``shape`` (None: ``(1,)``, as MindSpore's); after ``set_seed`` MindSpore's values (a ``UniformInt`` seeded
    as MindSpore's numpy does). The bounds must fit int32 (the kernel's)."""
    for v in (minval, maxval):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer))):
            raise TypeError(f"randint: minval and maxval must be ints, got {v!r}")
    if maxval is None:
        minval, maxval = 0, minval
    if not maxval > minval:
        raise ValueError(f"randint: maxval ({maxval}) must be larger than minval ({minval})")
    if minval < -2**31 or maxval > 2**31 - 1:
        raise ValueError(f"randint: minval and maxval must fit int32, got {minval} and {maxval}")
    dt = check_dtype(dtype)
    if dt is None or not dt.is_int:
        raise TypeError(f"randint: dtype must be an integer type, got {dtype!r}")
    size = (1,) if shape is None else shape_tuple(shape)
    bounds = (Tensor(np.asarray(v, np.int32)) for v in (minval, maxval))
    return F.cast(F.UniformInt(**_kernel_seeds("UniformInt"))(size, *bounds), dt)


def promote_types(type1: Any, type2: Any) -> DType:
    """``mindspore.numpy.promote_types``: the dtype both types convert to without losing precision."""
    return _promote(_as_dtype(type1), _as_dtype(type2))


def _as_dtype(x: Any) -> DType:
    if isinstance(x, Tensor):
        return x.dtype
    if isinstance(x, bool):
        return dtype_of("bool")
    if isinstance(x, int):
        return dtype_of("int32")
    if isinstance(x, float):
        return dtype_of("float32")
    dt = check_dtype(x)
    if dt is None:
        raise TypeError("result_type: None is not a dtype")
    return dt


def result_type(*arrays_and_dtypes: Any) -> DType:
    """``mindspore.numpy.result_type``: the dtype of combining all the arguments (tensors, dtypes, Python
    scalars: a bool is bool, an int int32, a float float32)."""
    if not arrays_and_dtypes:
        raise ValueError("result_type needs at least one argument")
    out = _as_dtype(arrays_and_dtypes[0])
    for x in arrays_and_dtypes[1:]:
        out = _promote(out, _as_dtype(x))
    return out


def unwrap(p: Any, discont: float = math.pi, axis: int = -1) -> Tensor:
    """``mindspore.numpy.unwrap``: phases with jumps larger than ``discont`` corrected by multiples of 2*pi
    along ``axis``."""
    t = as_float(to_tensor(p))
    ax = norm_axis(axis, t.ndim)
    n = t.shape[ax]
    if n < 2:
        return t
    dd = F.narrow(t, ax, 1, n - 1) - F.narrow(t, ax, 0, n - 1)
    two_pi = 2.0 * math.pi
    ddmod = F.remainder(dd + math.pi, F.full_like(dd, two_pi)) - math.pi
    fix = F.logical_and(F.equal(ddmod, F.full_like(ddmod, -math.pi)), F.greater(dd, F.zeros_like(dd)))
    ddmod = F.select(fix, F.full_like(ddmod, math.pi), ddmod)
    correct = ddmod - dd
    correct = F.select(F.less(F.abs(dd), F.full_like(dd, float(discont))), F.zeros_like(correct), correct)
    shifted = F.narrow(t, ax, 1, n - 1) + F.cumsum(correct, ax)
    return F.concat([F.narrow(t, ax, 0, 1), shifted], ax)


def array_str(a: Any) -> str:
    """``mindspore.numpy.array_str``: the values of ``a`` as ``print`` shows them."""
    return str(to_tensor(a))
