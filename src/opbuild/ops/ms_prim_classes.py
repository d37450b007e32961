"""MindSpore primitive classes that are thin objects over the functional API: the constructor takes
MindSpore 2.10's attributes (names, order and defaults as there) and ``__call__`` applies the function (or a
small composition of registered ops, for the ones with no lower-case function) with them. They are declared
from one table, :data:`TABLE`: ``name -> (constructor parameters, call, doc)``.

Checked against MindSpore's outputs in tests/compat/test_prim_classes.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.tensor import Tensor, as_tensor
from . import functional as _functional
from .primitive import Primitive

REQUIRED = object()  # a constructor parameter with no default


def _fn(name: str) -> Callable:
    """The functional API's ``name`` (``ops.functional`` gathers every family of ops/api/)."""
    return getattr(_functional, name)


def _with_value(fn_name: str) -> Callable:
    def call(a: dict, x: Any) -> tuple:
        values, index = _fn(fn_name)(x, a["axis"], a["keep_dims"])
        return index, values
    return call


def _lower(mode: str) -> str:
    return mode.lower() if isinstance(mode, str) else mode


def _reduce_std(a: dict, x: Any) -> tuple:
    axis = a["axis"]
    axis = None if axis in ((), []) else (tuple(axis) if isinstance(axis, (list, tuple)) else axis)
    std, mean = _fn("std_mean")(x, axis, 1 if a["unbiased"] else 0, a["keep_dims"])
    return std, mean


def _nll_loss(a: dict, logits: Any, labels: Any, weight: Any) -> tuple:
    loss = _fn("nll_loss")(logits, labels, weight, a["ignore_index"], a["reduction"])
    w = as_tensor(weight)
    picked = _fn("gather")(w, labels, 0)
    keep = _fn("not_equal")(labels, a["ignore_index"])
    total = _fn("sum")(_fn("where")(keep, picked, _fn("zeros_like")(picked)))
    return loss, total


def _binary_cross_entropy(a: dict, x: Any, y: Any, weight: Any = None) -> Tensor:
    if weight is not None:
        weight = _fn("broadcast_to")(as_tensor(weight), as_tensor(x).shape)
    return _fn("binary_cross_entropy")(x, y, weight, a["reduction"])


def _where_zero(y: Any, value: Any) -> Tensor:
    y = as_tensor(y)
    return _fn("where")(_fn("equal")(y, 0), _fn("zeros_like")(value), value)


def _l2_normalize(a: dict, x: Any) -> Tensor:
    x = as_tensor(x)
    axis = a["axis"]
    axis = tuple(axis) if isinstance(axis, (list, tuple)) else axis
    ss = _fn("sum")(_fn("square")(x), axis, True)
    return x / _fn("sqrt")(_fn("maximum")(ss, Tensor(np.array(a["epsilon"], x.dtype.np_dtype))))


def _eps(a: dict, x: Any) -> Tensor:
    x = as_tensor(x)
    tiny = np.finfo(x.dtype.np_dtype).tiny
    return _fn("zeros_like")(x) + Tensor(np.array(tiny, x.dtype.np_dtype))


def _depth_to_space(a: dict, x: Any) -> Tensor:
    x = as_tensor(x)
    bs = a["block_size"]
    n, c, h, w = x.shape
    if c % (bs * bs):
        raise ValueError(f"DepthToSpace: channels ({c}) must be divisible by block_size**2 ({bs * bs})")
    y = _fn("reshape")(x, (n, bs, bs, c // (bs * bs), h, w))
    y = _fn("transpose")(y, (0, 3, 4, 1, 5, 2))
    return _fn("reshape")(y, (n, c // (bs * bs), h * bs, w * bs))


def _space_to_depth(a: dict, x: Any) -> Tensor:
    x = as_tensor(x)
    bs = a["block_size"]
    n, c, h, w = x.shape
    if h % bs or w % bs:
        raise ValueError(f"SpaceToDepth: height {h} and width {w} must be divisible by block_size {bs}")
    y = _fn("reshape")(x, (n, c, h // bs, bs, w // bs, bs))
    y = _fn("transpose")(y, (0, 3, 5, 1, 2, 4))
    return _fn("reshape")(y, (n, c * bs * bs, h // bs, w // bs))


def _matrix_band_part(a: dict, x: Any, lower: int, upper: int) -> Tensor:
    x = as_tensor(x)
    m, n = x.shape[-2:]
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    lower, upper = int(lower), int(upper)
    band = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    return _fn("where")(Tensor(np.broadcast_to(band, x.shape).copy()), x, _fn("zeros_like")(x))


def _meshgrid(a: dict, inputs: Sequence[Any]) -> tuple:
    ts = [as_tensor(t) for t in inputs]
    sizes = [t.shape[0] for t in ts]
    if a["indexing"] == "xy" and len(ts) >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for k, t in enumerate(ts):
        axis = {0: 1, 1: 0}.get(k, k) if a["indexing"] == "xy" and len(ts) >= 2 else k
        shape = [1] * len(ts)
        shape[axis] = t.shape[0]
        out.append(_fn("broadcast_to")(_fn("reshape")(t, tuple(shape)), tuple(sizes)))
    return tuple(out)


def _reduce_all(a: dict, x: Any, axis: Any = ()) -> Tensor:
    x = as_tensor(x)
    axis = None if axis in ((), []) else (tuple(axis) if isinstance(axis, (list, tuple)) else axis)
    as_float = _fn("cast")(_fn("not_equal")(x, 0), "float32")
    return _fn("greater")(_fn("amin")(as_float, axis, a["keep_dims"]), 0)


def _reduce_any(a: dict, x: Any, axis: Any = ()) -> Tensor:
    x = as_tensor(x)
    axis = None if axis in ((), []) else (tuple(axis) if isinstance(axis, (list, tuple)) else axis)
    as_float = _fn("cast")(_fn("not_equal")(x, 0), "float32")
    return _fn("greater")(_fn("amax")(as_float, axis, a["keep_dims"]), 0)


def _linspace(a: dict, start: Any, stop: Any, num: int) -> Tensor:
    start, stop = as_tensor(start), as_tensor(stop)
    num = int(num.asnumpy()) if isinstance(num, Tensor) else int(num)
    if num < 1:
        raise ValueError(f"LinSpace: num must be positive, got {num}")
    steps = Tensor(np.arange(num, dtype=start.dtype.np_dtype))
    if num == 1:
        return _fn("reshape")(start, (1,)) + steps
    return start + (stop - start) * steps / Tensor(np.array(num - 1, start.dtype.np_dtype))


def _eye(a: dict, n: int, m: int, dtype: Any) -> Tensor:
    return _fn("cast")(Tensor(np.eye(int(n), int(m), dtype=np.float32)), dtype)


def _window(kind: str) -> Callable:
    def call(a: dict, window_length: Any) -> Tensor:
        n = int(np.asarray(window_length.asnumpy() if isinstance(window_length, Tensor) else window_length
                           ).reshape(-1)[0])
        if n < 0:
            raise ValueError(f"{kind}: window_length must be non-negative, got {n}")
        size = n + 1 if a["periodic"] and n > 1 else n
        k = np.arange(size, dtype=np.float64)
        d = max(size - 1, 1)
        if kind == "BartlettWindow":
            w = 1 - np.abs(2 * k / d - 1)
        elif kind == "BlackmanWindow":
            w = 0.42 - 0.5 * np.cos(2 * np.pi * k / d) + 0.08 * np.cos(4 * np.pi * k / d)
        else:
            w = a["alpha"] - a["beta"] * np.cos(2 * np.pi * k / d)
        w = w[:n] if size != n else w
        if n == 1:
            w = np.ones(1)
        return _fn("cast")(Tensor(w.astype(np.float32)), a["dtype"])
    return call


def _max_unpool(fn_name: str) -> Callable:
    def call(a: dict, x: Any, argmax: Any) -> Tensor:
        strides = a["strides"] or a["ksize"]
        out = tuple(a["output_shape"]) or None
        return _fn(fn_name)(x, argmax, a["ksize"], strides, a["pads"], out)
    return call


def _shape(a: dict, x: Any) -> tuple:
    return tuple(as_tensor(x).shape)


# name -> ((constructor parameters and defaults), call(attrs, *inputs), doc)
TABLE: dict[str, tuple[tuple[tuple[str, Any], ...], Callable, str]] = {
    "ArgMaxWithValue": ((("axis", 0), ("keep_dims", False)), _with_value("max"),
                        "(index int64, value) of the maximum along ``axis``."),
    "ArgMinWithValue": ((("axis", 0), ("keep_dims", False)), _with_value("min"),
                        "(index int64, value) of the minimum along ``axis``."),
    "AvgPool3D": ((("kernel_size", 1), ("strides", 1), ("pad_mode", "valid"), ("pad", 0), ("ceil_mode", False),
                   ("count_include_pad", True), ("divisor_override", 0), ("data_format", "NCDHW")),
                  lambda a, x: _fn("avg_pool3d")(x, a["kernel_size"], a["strides"], a["pad"], a["ceil_mode"],
                                                 a["count_include_pad"], a["divisor_override"],
                                                 pad_mode=_lower(a["pad_mode"])),
                  "3-D average pooling (``ops.avg_pool3d``)."),
    "AdaptiveAvgPool3D": ((("output_size", REQUIRED),), lambda a, x: _fn("adaptive_avg_pool3d")(x, a["output_size"]),
                          "3-D adaptive average pooling."),
    "BCEWithLogitsLoss": ((("reduction", "mean"),),
                          lambda a, x, y, weight=None, posWeight=None: _fn("binary_cross_entropy_with_logits")(
                              x, y, weight, posWeight, a["reduction"]),
                          "Binary cross entropy on logits (``weight``, ``posWeight`` inputs)."),
    "BinaryCrossEntropy": ((("reduction", "mean"),), _binary_cross_entropy,
                           "Binary cross entropy on probabilities (``weight`` broadcast to them)."),
    "ChannelShuffle": ((("group", REQUIRED),), lambda a, x: _fn("channel_shuffle")(x, a["group"]),
                       "Shuffles the channels in ``group`` groups."),
    "Fmax": ((), lambda a, x, y: _fn("fmax")(x, y), "Elementwise maximum ignoring NaN."),
    "GLU": ((("axis", -1),), lambda a, x: _fn("glu")(x, a["axis"]), "Gated linear unit along ``axis``."),
    "Heaviside": ((), lambda a, x, values: _fn("heaviside")(x, values), "The Heaviside step function."),
    "Hypot": ((), lambda a, x, y: _fn("hypot")(x, y), "sqrt(x^2 + y^2) elementwise."),
    "IndexFill": ((), lambda a, x, dim, index, value: _fn("index_fill")(x, int(dim), index, value),
                  "Fills the ``index`` entries along ``dim`` with ``value``."),
    "IsClose": ((("rtol", 1e-05), ("atol", 1e-08), ("equal_nan", False)),
                lambda a, x, y: _fn("isclose")(x, y, a["rtol"], a["atol"], a["equal_nan"]),
                "Elementwise |x - y| <= atol + rtol |y|."),
    "KLDivLoss": ((("reduction", "mean"),), lambda a, x, y: _fn("kl_div")(x, y, a["reduction"]),
                  "Kullback-Leibler divergence."),
    "LogicalXor": ((), lambda a, x, y: _fn("logical_xor")(x, y), "Elementwise logical xor."),
    "Logit": ((("eps", -1.0),), lambda a, x: _fn("logit")(x, a["eps"] if a["eps"] >= 0 else None),
              "log(x / (1 - x)), ``x`` clamped to [eps, 1 - eps] when ``eps`` >= 0."),
    "LRN": ((("depth_radius", 5), ("bias", 1.0), ("alpha", 1.0), ("beta", 0.5), ("norm_region", "ACROSS_CHANNELS")),
            lambda a, x: _fn("lrn")(x, a["depth_radius"], a["bias"], a["alpha"], a["beta"], a["norm_region"]),
            "Local response normalization."),
    "MaxPool3D": ((("kernel_size", 1), ("strides", 1), ("pad_mode", "VALID"), ("pad_list", 0), ("ceil_mode", None),
                   ("data_format", "NCDHW")),
                  lambda a, x: _fn("max_pool3d")(x, a["kernel_size"], a["strides"], a["pad_list"],
                                                 ceil_mode=bool(a["ceil_mode"]), pad_mode=_lower(a["pad_mode"])),
                  "3-D max pooling."),
    "Mish": ((), lambda a, x: _fn("mish")(x), "x tanh(softplus(x))."),
    "MultiMarginLoss": ((("p", 1), ("margin", 1.0), ("reduction", "mean")),
                        lambda a, x, target, weight=None: _fn("multi_margin_loss")(x, target, a["p"], a["margin"],
                                                                                   weight, a["reduction"]),
                        "Multi-class margin loss."),
    "Mvlgamma": ((("p", REQUIRED),), lambda a, x: _fn("mvlgamma")(x, a["p"]), "Multivariate log-gamma."),
    "NLLLoss": ((("reduction", "mean"), ("ignore_index", -100)), _nll_loss,
                "(loss, total_weight) of the negative log likelihood."),
    "Renorm": ((("p", REQUIRED), ("dim", REQUIRED), ("maxnorm", REQUIRED)),
               lambda a, x: _fn("renorm")(x, a["p"], a["dim"], a["maxnorm"]),
               "Rescales the slices along ``dim`` whose p-norm exceeds ``maxnorm``."),
    "SeLU": ((), lambda a, x: _fn("selu")(x), "Scaled exponential linear unit."),
    "SearchSorted": ((("dtype", "int64"), ("right", False)),
                     lambda a, seq, values, sorter=None: _fn("searchsorted")(
                         seq, values, out_int32=str(a["dtype"]).lower().endswith("int32"), right=a["right"],
                         sorter=sorter),
                     "Insertion indices of ``values`` into the sorted last axis of ``sorted_sequence``."),
    "Softsign": ((), lambda a, x: _fn("softsign")(x), "x / (1 + |x|)."),
    "Stack": ((("axis", 0),), lambda a, x: _fn("stack")(x, a["axis"]), "Stacks a tuple of tensors on a new axis."),
    "Tril": ((("diagonal", 0),), lambda a, x: _fn("tril")(x, a["diagonal"]), "The lower triangle."),
    "Xdivy": ((), lambda a, x, y: _fn("xdivy")(x, y), "x / y, 0 where x is 0."),
    "Xlogy": ((), lambda a, x, y: _fn("xlogy")(x, y), "x log(y), 0 where x is 0."),
    "ReduceStd": ((("axis", []), ("unbiased", True), ("keep_dims", False)), _reduce_std,
                  "(standard deviation, mean) over ``axis`` (all axes when empty)."),
    "MaxUnpool2D": ((("ksize", REQUIRED), ("strides", 0), ("pads", 0), ("output_shape", ()), ("data_format", "NCHW")),
                    _max_unpool("max_unpool2d"), "Inverse of 2-D max pooling from its argmax."),
    "MaxUnpool3D": ((("ksize", REQUIRED), ("strides", 0), ("pads", 0), ("output_shape", ()),
                     ("data_format", "NCDHW")), _max_unpool("max_unpool3d"), "Inverse of 3-D max pooling."),
    "SigmoidCrossEntropyWithLogits": ((), lambda a, x, y: _fn("binary_cross_entropy_with_logits")(
        x, y, reduction="none"), "Elementwise sigmoid cross entropy on logits."),
    "ApproximateEqual": ((("tolerance", 1e-05),),
                         lambda a, x, y: _fn("less")(_fn("abs")(as_tensor(x) - as_tensor(y)), a["tolerance"]),
                         "|x - y| < tolerance elementwise."),
    "DivNoNan": ((), lambda a, x, y: _where_zero(y, as_tensor(x) / as_tensor(y)), "x / y, 0 where y is 0."),
    "MulNoNan": ((), lambda a, x, y: _where_zero(y, as_tensor(x) * as_tensor(y)), "x * y, 0 where y is 0."),
    "TruncateDiv": ((), lambda a, x, y: _fn("div")(x, y, rounding_mode="trunc"), "x / y rounded toward zero."),
    "TruncateMod": ((), lambda a, x, y: _fn("fmod")(x, y), "The remainder of x / y rounded toward zero."),
    "Inv": ((), lambda a, x: _fn("inv")(x), "1 / x elementwise (int16/int32/int64 keep their dtype)."),
    "Rint": ((), lambda a, x: _fn("round")(x), "Rounds to the nearest integer, halves to even."),
    "SquaredDifference": ((), lambda a, x, y: _fn("square")(as_tensor(x) - as_tensor(y)), "(x - y)^2."),
    "SquareSumAll": ((), lambda a, x, y: (_fn("sum")(_fn("square")(x)), _fn("sum")(_fn("square")(y))),
                     "The sums of squares of both inputs."),
    "L2Loss": ((), lambda a, x: _fn("sum")(_fn("square")(x)) / 2, "sum(x^2) / 2."),
    "L2Normalize": ((("axis", 0), ("epsilon", 0.0001)), _l2_normalize,
                    "x / sqrt(max(sum(x^2, axis), epsilon))."),
    "Eps": ((), _eps, "A tensor like ``x`` filled with its dtype's smallest positive normal value."),
    "Rank": ((), lambda a, x: as_tensor(x).ndim, "The number of dimensions (a Python int)."),
    "Shape": ((), _shape, "The shape (a tuple of Python ints)."),
    "Size": ((), lambda a, x: int(np.prod(as_tensor(x).shape, dtype=np.int64)), "The element count (an int)."),
    "TensorShape": ((), lambda a, x: Tensor(np.array(as_tensor(x).shape, np.int64)), "The shape as an int64 Tensor."),
    "DType": ((), lambda a, x: as_tensor(x).dtype, "The dtype of ``x``."),
    "Depend": ((), lambda a, value, expr: value, "``value``, after ``expr`` (opbuild keeps program order)."),
    "Eye": ((), _eye, "The n x m identity matrix of ``dtype``."),
    "LinSpace": ((), _linspace, "``num`` evenly spaced values from ``start`` to ``stop``."),
    "DepthToSpace": ((("block_size", REQUIRED),), _depth_to_space, "Moves channel blocks into space (NCHW)."),
    "SpaceToDepth": ((("block_size", REQUIRED),), _space_to_depth, "Moves space blocks into channels (NCHW)."),
    "MatrixBandPart": ((), _matrix_band_part, "Zeroes what lies outside the band of each matrix."),
    "Meshgrid": ((("indexing", "xy"),), _meshgrid, "Coordinate grids from 1-D tensors."),
    "Ger": ((), lambda a, x, y: _fn("outer")(x, y), "The outer product of two vectors."),
    "ReduceAll": ((("keep_dims", False),), _reduce_all, "Logical and over ``axis`` (all axes when empty)."),
    "ReduceAny": ((("keep_dims", False),), _reduce_any, "Logical or over ``axis`` (all axes when empty)."),
    "ScalarToTensor": ((), lambda a, x, dtype="float32": _fn("cast")(Tensor(np.array(x, np.float64)), dtype),
                       "A 0-D tensor of ``dtype`` holding the scalar."),
    # a range is a tuple in MindSpore's graph syntax (YOLOX: tuple_to_array(range(grid_size[1])))
    "TupleToArray": ((), lambda a, *args: Tensor(np.array(args[0] if len(args) == 1 and isinstance(
        args[0], (tuple, list, range)) else args, np.float32 if any(isinstance(v, float) for v in np.ravel(
            args[0] if len(args) == 1 and isinstance(args[0], (tuple, list, range)) else args)) else np.int32)),
                     "A tensor from a tuple of numbers (float32 if any is a float, else int32)."),
    "BartlettWindow": ((("periodic", True), ("dtype", "float32")), _window("BartlettWindow"),
                       "The Bartlett (triangular) window."),
    "BlackmanWindow": ((("periodic", True), ("dtype", "float32")), _window("BlackmanWindow"),
                       "The Blackman window."),
    "HammingWindow": ((("periodic", True), ("alpha", 0.54), ("beta", 0.46), ("dtype", "float32")),
                      _window("HammingWindow"), "The generalized Hamming window."),
}


def make_primitive(name: str, params: tuple[tuple[str, Any], ...], call: Callable, doc: str) -> type[Primitive]:
    """A Primitive subclass ``name`` whose constructor takes ``params`` (names and defaults, REQUIRED for none)
    into its attributes and whose call is ``call(attrs, *inputs)``."""
    names = [p for p, _ in params]

    def __init__(self: Primitive, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(names):
            raise TypeError(f"{name}() takes at most {len(names)} arguments ({', '.join(names)}), got {len(args)}")
        attrs = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError(f"{name}() got an unexpected argument {k!r} (it takes {', '.join(names) or 'none'})")
            if k in attrs:
                raise TypeError(f"{name}() got argument {k!r} twice")
            attrs[k] = v
        for p, default in params:
            if p not in attrs:
                if default is REQUIRED:
                    raise TypeError(f"{name}() is missing its required argument {p!r}")
                attrs[p] = default
        Primitive.__init__(self, **{p: attrs[p] for p in names})

    def __call__(self: Primitive, *inputs: Any, **kw: Any) -> Any:
        return call(self.attrs, *inputs, **kw)

    sig = ", ".join(p if d is REQUIRED else f"{p}={d!r}" for p, d in params)
    return type(name, (Primitive,), {"__init__": __init__, "__call__": __call__, "op_name": "",
                                     "__doc__": f"``ops.{name}({sig})``: {doc}", "__module__": __name__})


PRIMITIVES: dict[str, type[Primitive]] = {n: make_primitive(n, *row) for n, row in TABLE.items()}
