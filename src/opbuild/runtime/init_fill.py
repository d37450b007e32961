"""The compiled initializer fills: core/philox_fill.py's uniform, normal and truncated normal values drawn by
the ``PhiloxFill`` kernels (ops/philox_fill_ops.py, targets/cpu/kernels/philox_fill.py), bit for bit the NumPy
path's, several times faster (docs/benchmarks.md, "Weight construction").

The kernels are ordinary entries of the kernel cache, built once for the CPU whatever ``device_target`` says
(the values are made on the host): the first process that draws a large parameter compiles them (one
compiler call), every later one loads them. A fill runs in chunks of :data:`CAPACITY` values: each kernel
call writes straight into the parameter's array; the normal and truncated normal fills call NumPy's ``log``
between their two stages (the module docstring of ops/philox_fill_ops.py says why).

Nothing here is required: without a compiler, with a build that fails, or with kernels whose values differ
from the NumPy path's on a probe (a compiler flag such as ``-ffast-math`` in ``OPBUILD_CFLAGS`` would change
them), the fills stay on the NumPy path, which gives the same values.
"""

from __future__ import annotations

import ctypes
import logging
import threading
from collections.abc import Callable, Sequence

import numpy as np

from ..builder import Builder
from ..core import philox_fill as F
from ..core.errors import OpbuildError
from ..core.ir import TensorType
from ..ops.philox_fill_ops import STAGES
from ..ops.registry import get as get_op
from ..targets import create as create_target
from ..targets.base import Target
from .addresses import data_address

log = logging.getLogger("opbuild")

#: Values per kernel call: the stages' float64 buffers (1 MiB) stay in the L2 cache between the two stages.
CAPACITY = 1 << 16
#: A fill of at least this many values builds (or loads) the kernels; smaller ones take them once loaded.
#: Small networks (most tests) never build them: NumPy is quick enough below this size.
FAST_MIN = 1 << 15


class _HostBuilder(Builder):
    """A Builder for the CPU target whatever ``device_target`` says: the fills run on the host."""

    def __init__(self) -> None:
        super().__init__()
        self._cpu = create_target("CPU")

    @property
    def target(self) -> Target:
        return self._cpu


def _specs() -> list:
    op = get_op("PhiloxFill")
    specs = []
    for stage, (extra, _) in STAGES.items():
        ins = [TensorType((3,), "int64"), TensorType((4,), "float64"),
               *(TensorType((CAPACITY // d,), t) for d, t in extra)]
        specs.append(op.spec({"stage": stage, "capacity": CAPACITY}, ins))
    return specs


def _int64(seed: int) -> int:
    """The 64-bit seed as the int64 the kernels read (two's complement)."""
    seed &= (1 << 64) - 1
    return seed - (1 << 64) if seed >= 1 << 63 else seed


class InitFills:
    """The process's compiled fills: :meth:`usable` loads them on first need, the fills run them."""

    def __init__(self) -> None:
        self._fns: dict[str, Callable] | None = None
        self._failed = False
        self._lock = threading.Lock()

    def usable(self, n: int) -> bool:
        """Whether a fill of ``n`` values takes the compiled kernels (loading them first if ``n`` is large)."""
        if self._fns is not None:
            return True
        if self._failed or n < FAST_MIN:
            return False
        return self.load()

    def load(self) -> bool:
        """Build or load the kernels and check them on a probe; False (and the NumPy path from then on) when
        either fails."""
        with self._lock:
            if self._fns is None and not self._failed:
                try:
                    kernels, _ = _HostBuilder().build(_specs())
                except (OpbuildError, OSError) as e:
                    log.info("initializer fills stay on NumPy: their kernels did not build (%s)", e)
                    self._failed = True
                    return False
                fns = {stage: k.fn for stage, k in zip(STAGES, kernels)}
                if not _probe(fns):
                    log.warning("initializer fills stay on NumPy: the compiled kernels' values differ from "
                                "NumPy's on the probe (a compiler flag changing floating-point results?)")
                    self._failed = True
                    return False
                self._fns = fns
            return self._fns is not None

    def uniform(self, seed: int, n: int, params: Sequence[float]) -> np.ndarray:
        """``n`` uniform values: ``params`` = (hi - lo, lo)."""
        return _run(self._fns, seed, n, ("uniform",), (params,), ())

    def normal(self, seed: int, n: int, draw: Sequence[float], finish: Sequence[float]) -> np.ndarray:
        """``n`` normal values: ``draw`` = (floor, turn), ``finish`` = (mean, sigma)."""
        return _run(self._fns, seed, n, ("normal_draw", "normal_finish"), (draw, finish), (2, 2))

    def truncated(self, seed: int, n: int, draw: Sequence[float], finish: Sequence[float]) -> np.ndarray:
        """``n`` truncated normal values: ``draw`` = (cdf(a), cdf(b) - cdf(a), tiny, big), ``finish`` =
        (mean, sigma, sqrt2)."""
        return _run(self._fns, seed, n, ("truncated_draw", "truncated_finish"), (draw, finish), (1, 1))


def _run(fns: dict[str, Callable] | None, seed: int, n: int, stages: tuple[str, ...],
         params: tuple[Sequence[float], ...], divisors: tuple[int, ...]) -> np.ndarray:
    """The float32 values ``[0, n)`` of ``stages`` (one, or a draw and a finish with NumPy's log of the second
    buffer between them), :data:`CAPACITY` at a time, each chunk written straight into the result."""
    if fns is None:
        raise RuntimeError("the compiled initializer fills are not loaded (InitFills.usable loads them)")
    out = np.empty(n, np.float32)
    if n == 0:
        return out
    pos = np.zeros(3, np.int64)
    prm = [np.zeros(4, np.float64) for _ in params]
    for p, given in zip(prm, params):
        p[:len(given)] = given
    bufs = [np.empty(CAPACITY // d, np.float64) for d in divisors]
    at = [data_address(a) for a in (pos, *prm, *bufs)]
    base = data_address(out)
    if len(stages) == 1:
        run = fns[stages[0]]
        for start in range(0, n, CAPACITY):
            pos[:] = (_int64(seed), start, min(CAPACITY, n - start))
            run((ctypes.c_void_p * 3)(at[0], at[1], base + 4 * start))
        return out
    draw, finish = fns[stages[0]], fns[stages[1]]
    logged = bufs[1]
    for start in range(0, n, CAPACITY):  # CAPACITY is even: a pair of draws never straddles two chunks
        count = min(CAPACITY, n - start)
        pos[:] = (_int64(seed), start, count)
        draw((ctypes.c_void_p * 4)(at[0], at[1], at[3], at[4]))
        used = logged[:(count + 1) // 2 if divisors[1] == 2 else count]
        np.log(used, out=used)
        finish((ctypes.c_void_p * 5)(at[0], at[2], at[3], at[4], base + 4 * start))
    return out


def _probe(fns: dict[str, Callable]) -> bool:
    """Whether the kernels give the NumPy path's values on a few hundred values of each fill (odd lengths, a
    large seed), and each stage its op's reference bit for bit, the draws' float64 buffers included (a
    contracted multiply-add changes a double's last bit long before it changes a float32)."""
    n, seed = 1001, (1 << 63) + 12345
    cdf_a, cdf_b, m, s, root2 = F._truncated_args(-3.0, 2.5, 0.1, 1.0)
    lo, hi = F._f32(-0.35), F._f32(0.25)
    draws = {"uniform": (hi - lo, lo), "normal_draw": (F._NORMAL_FLOOR, F._TURN),
             "truncated_draw": (cdf_a, cdf_b - cdf_a, F._TINY, F._BIG)}
    checks = [
        (_run(fns, seed, n, ("uniform",), (draws["uniform"],), ()), F.uniform_fill_numpy(seed, (n,), -0.35, 0.25)),
        (_run(fns, seed, n, ("normal_draw", "normal_finish"), (draws["normal_draw"], (0.5, 2.0)), (2, 2)),
         F.normal_fill_numpy(seed, (n,), 0.5, 2.0)),
        (_run(fns, seed, n, ("truncated_draw", "truncated_finish"), (draws["truncated_draw"], (m, s, root2)), (1, 1)),
         F.truncated_normal_fill_numpy(seed, (n,), -3.0, 2.5, 0.1, 1.0))]
    op = get_op("PhiloxFill")
    pos = np.array([_int64(seed), 6, n], np.int64)
    for stage, params in draws.items():
        prm = np.zeros(4, np.float64)
        prm[:len(params)] = params
        spec = op.spec({"stage": stage, "capacity": CAPACITY}, [TensorType((3,), "int64"), TensorType((4,), "float64")])
        outs = [np.zeros(t.shape, t.dtype) for t in spec.outputs]
        fns[stage]((ctypes.c_void_p * (2 + len(outs)))(*map(data_address, (pos, prm, *outs))))
        checks.extend(zip(outs, op.run_reference(spec, [pos, prm])))
    return all(a.dtype == b.dtype and np.array_equal(a.view(np.uint8), b.view(np.uint8)) for a, b in checks)


#: The process's compiled fills (core/providers.py's ``init_fills``).
FILLS = InitFills()

__all__ = ["CAPACITY", "FAST_MIN", "FILLS", "InitFills"]
