"""ONNX random generators: ``RandomNormal``, ``RandomUniform``, their ``*Like`` forms and ``Multinomial``, as
the sampling primitives of ops/random_sample.py and ops/random_discrete.py with a generator state the model
keeps and advances at every run (so each run draws new values, as onnxruntime's do). A ``seed`` attribute
seeds the state (the same seed gives the same sequence of runs in every process); without one the state takes
the next op seed of ``set_seed``'s sequence. The values differ from onnxruntime's (another generator); the
distributions agree."""

from __future__ import annotations

import numpy as np

from ...ops.random_sample import draw, new_state, state_seed
from .core import Ctx, StaticValueError, Value, cast, converter, dtype, prim, shape
from .elementwise import onnx_dtype

_FLOATS = ("float16", "float32", "float64")


def _out_dtype(ctx: Ctx, like: Value | None) -> str:
    code = ctx.attr("dtype")
    dt = onnx_dtype(code) if code is not None else (dtype(like) if like is not None else "float32")
    if dt not in _FLOATS:
        raise StaticValueError(f"{ctx.op_type} (ONNX node {ctx.name!r}): dtype {dt} is not supported (float types)")
    return dt


def _state(ctx: Ctx):
    """The node's generator state, created at its first call and kept with the loaded model (``ctx.memo``),
    so that every run (traced once, or replayed in PyNative) continues the same sequence."""
    state = ctx.memo.get("rng_state")
    if state is None:
        seed = ctx.attr("seed")
        # ONNX's seed is a float: its bits are not a portable integer, so it is hashed through its value.
        start = state_seed() if seed is None else state_seed(abs(int(seed * 1_000_003)) + 1)
        state = ctx.memo.setdefault("rng_state", new_state(start))
    return state


def _sample(ctx: Ctx, op: str, dims, dt: str, a: float, b: float) -> Value:
    """``a + b * sample`` of shape ``dims`` in dtype ``dt`` (normal: mean, scale; uniform: low, high - low)."""
    z = draw(op, {"shape": tuple(int(d) for d in dims)}, _state(ctx))
    z = cast(z, dt)
    return prim("Add", {}, prim("Mul", {}, z, _scalar(b, dt)), _scalar(a, dt))


def _scalar(v: float, dt: str) -> np.ndarray:
    return np.asarray(v, dtype=dt)


@converter("RandomNormal", (1, 22), attrs=("dtype", "mean", "scale", "seed", "shape"))
def _random_normal(ctx: Ctx) -> Value:
    return _sample(ctx, "StandardNormal", ctx.attr("shape"), _out_dtype(ctx, None), ctx.attr("mean", 0.0),
                   ctx.attr("scale", 1.0))


@converter("RandomNormalLike", (1, 22), attrs=("dtype", "mean", "scale", "seed"))
def _random_normal_like(ctx: Ctx, x: Value) -> Value:
    return _sample(ctx, "StandardNormal", shape(x), _out_dtype(ctx, x), ctx.attr("mean", 0.0),
                   ctx.attr("scale", 1.0))


@converter("RandomUniform", (1, 22), attrs=("dtype", "high", "low", "seed", "shape"))
def _random_uniform(ctx: Ctx) -> Value:
    low, high = ctx.attr("low", 0.0), ctx.attr("high", 1.0)
    return _sample(ctx, "UniformReal", ctx.attr("shape"), _out_dtype(ctx, None), low, high - low)


@converter("RandomUniformLike", (1, 22), attrs=("dtype", "high", "low", "seed"))
def _random_uniform_like(ctx: Ctx, x: Value) -> Value:
    low, high = ctx.attr("low", 0.0), ctx.attr("high", 1.0)
    return _sample(ctx, "UniformReal", shape(x), _out_dtype(ctx, x), low, high - low)


@converter("Multinomial", (7, 22), attrs=("dtype", "sample_size", "seed"))
def _multinomial(ctx: Ctx, x: Value) -> Value:
    # ONNX gives unnormalised log-probabilities: the weights are their exponentials (shifted by the row max).
    code = ctx.attr("dtype")
    dt = "int32" if code is None else onnx_dtype(code)
    if dt not in ("int32", "int64"):
        raise StaticValueError(f"Multinomial (ONNX node {ctx.name!r}): dtype must be int32 or int64, got {dt}")
    if len(shape(x)) != 2 or dtype(x) not in ("float32", "float64"):
        raise StaticValueError(f"Multinomial (ONNX node {ctx.name!r}): input must be a 2-D float32/float64 "
                               f"tensor (batch, classes)")
    top = prim("ReduceMax", {"axis": [1], "keep_dims": True}, x)
    weights = prim("Exp", {}, prim("Sub", {}, x, top))
    return draw("Multinomial", {"num_samples": int(ctx.attr("sample_size", 1)), "replacement": True, "dtype": dt},
                _state(ctx), (weights,))
