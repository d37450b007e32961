"""MindSpore primitive classes of the pooling, transposed-convolution and dropout family that are
compositions (the pattern of ms_prim_classes.py): ``MaxPool3DWithArgmax``, ``MaxPoolWithArgmaxV2``,
``FractionalMaxPoolWithFixedKsize``, ``FractionalMaxPool3DWithFixedKsize``, ``AdaptiveMaxPool2D/3D`` (the
windowed argmax of ops/api/pool_argmax.py), ``AdaptiveAvgPool2D`` (any output size), ``Conv2DTranspose`` (MindSpore's
``Conv2DBackpropInput`` with its ``input_size`` input), ``FractionalMaxPool``/``FractionalAvgPool``
(TensorFlow-style, NHWC), ``Dropout2D``/``Dropout3D`` (whole channels) and ``Dropout`` (MindSpore's one-input
call). Checked against MindSpore in tests/compat/test_pool_argmax.py."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.init_values import op_seed
from ..core.ir import TensorType
from ..core.tensor import Tensor, as_tensor
from .api import array as A
from .api import math as M
from .api.nn import _dropout_state, dropout
from .api.pool_argmax import max_pool_nd
from .api.pool_fractional import fractional_max_pool, fractional_pool_nhwc
from .api.pooling_adaptive import adaptive_avg_pool2d, adaptive_max_with_indices
from .convolution import AdaptiveAvgPool2D as _GlobalPoolPrim
from .ms_prim_classes import REQUIRED, make_primitive
from .primitive import Primitive, apply
from .random_ops import Dropout as _DropoutOp
from .registry import get


def _ints(name: str, v: Any, n: int, minimum: int = 1) -> tuple[int, ...]:
    t = (v,) * n if isinstance(v, int) and not isinstance(v, bool) else tuple(v)
    if len(t) == 1:
        t = t * n
    if len(t) != n or not all(isinstance(a, int) and not isinstance(a, bool) and a >= minimum for a in t):
        raise ValueError(f"{name} must be an int >= {minimum} or {n} of them, got {v!r}")
    return t


def _argmax_out(name: str, a: dict, values: Tensor, index: Tensor) -> tuple[Tensor, Tensor]:
    want = str(a["argmax_type"]).lower()
    if want not in ("int64", "int32"):
        raise ValueError(f"{name}: argmax_type must be int32 or int64, got {a['argmax_type']!r}")
    return values, (index if want == "int64" else M._cast(index, "int32"))


def _max_pool3d_with_argmax(a: dict, x: Any) -> tuple[Tensor, Tensor]:
    name = "MaxPool3DWithArgmax"
    if a["data_format"] != "NCDHW":
        raise ValueError(f"{name}: data_format must be 'NCDHW', got {a['data_format']!r}")
    k = _ints(f"{name}: ksize", a["ksize"], 3)
    s = _ints(f"{name}: strides", a["strides"], 3)
    p = _ints(f"{name}: pads", a["pads"], 3, 0)
    d = _ints(f"{name}: dilation", a["dilation"], 3)
    t = as_tensor(x)
    if t.ndim != 5:
        raise ValueError(f"{name}: x must be (N, C, D, H, W), got shape {t.shape}")
    values, index = max_pool_nd(name, t, 3, k, s, d, [(v, v) for v in p], bool(a["ceil_mode"]))
    return _argmax_out(name, a, values, index)


def _max_pool_with_argmax_v2(a: dict, x: Any) -> tuple[Tensor, Tensor]:
    name = "MaxPoolWithArgmaxV2"
    k = _ints(f"{name}: kernel_size", a["kernel_size"], 2)
    s = k if a["strides"] is None else _ints(f"{name}: strides", a["strides"], 2)
    p = _ints(f"{name}: pads", a["pads"], 2, 0)
    d = _ints(f"{name}: dilation", a["dilation"], 2)
    t = as_tensor(x)
    if t.ndim != 4:
        raise ValueError(f"{name}: x must be (N, C, H, W), got shape {t.shape}")
    values, index = max_pool_nd(name, t, 2, k, s, d, [(v, v) for v in p], bool(a["ceil_mode"]))
    return _argmax_out(name, a, values, index)


def _fractional(dims: int, fmt: str):
    name = "FractionalMaxPoolWithFixedKsize" if dims == 2 else "FractionalMaxPool3DWithFixedKsize"

    def call(a: dict, x: Any, random_samples: Any) -> tuple[Tensor, Tensor]:
        if a["data_format"] != fmt:
            raise ValueError(f"{name}: data_format must be {fmt!r}, got {a['data_format']!r}")
        t = as_tensor(x)
        if t.ndim != dims + 2:
            raise ValueError(f"{name}: x must have rank {dims + 2} ({fmt}), got shape {t.shape}")
        return fractional_max_pool(name, t, dims, a["ksize"], a["output_shape"], None, True, random_samples)

    return call


def _adaptive_max_pool2d(a: dict, x: Any) -> tuple[Tensor, Tensor]:
    return adaptive_max_with_indices("AdaptiveMaxPool2D", x, tuple(a["output_size"]), 2)


def _adaptive_max_pool3d(a: dict, x: Any, output_size: Any) -> tuple[Tensor, Tensor]:
    try:
        size = output_size.asnumpy() if isinstance(output_size, Tensor) else output_size
    except RuntimeError as exc:  # a graph input: the output shape must be known when the graph is built
        raise ValueError("AdaptiveMaxPool3D: output_size must be a constant (a tuple, or a Tensor made outside "
                         "the traced function)") from exc
    return adaptive_max_with_indices("AdaptiveMaxPool3D", x, tuple(int(v) for v in np.ravel(size)), 3)


def _conv2d_transpose(a: dict, dout: Any, weight: Any, input_size: Any) -> Tensor:
    size = [int(v) for v in (input_size.asnumpy() if isinstance(input_size, Tensor) else input_size)]
    if len(size) != 4:
        raise ValueError(f"Conv2DTranspose: input_size must be (N, C, H, W), got {input_size!r}")
    attrs = {k: v for k, v in a.items() if k != "pad_list"}
    if a["pad_list"] is not None and any(a["pad_list"]):
        attrs["pad"], attrs["pad_mode"] = list(a["pad_list"]), "pad"
    if attrs["pad_mode"].lower() == "pad" and isinstance(attrs["pad"], int):
        attrs["pad"] = [attrs["pad"]] * 4
    attrs["pad_mode"] = attrs["pad_mode"].lower()
    dy, w = as_tensor(dout), as_tensor(weight)
    # the forward Conv2D's normalized attributes, as Conv2D's own gradient passes them
    fwd = get("Conv2D").spec(attrs, [TensorType(tuple(size), dy.dtype.name), w._type]).attrs
    return apply("Conv2DBackpropInput", {**fwd, "input_size": size}, [dy, w])


def _channel_dropout(name: str, rank: int):
    def call(a: dict, x: Any) -> tuple[Tensor, Tensor]:
        t = as_tensor(x)
        kp = a["keep_prob"]
        if isinstance(kp, bool) or not isinstance(kp, (int, float)) or not 0.0 <= kp <= 1.0:
            raise ValueError(f"{name}: keep_prob must be a float in [0, 1], got {kp!r}")
        if t.ndim != rank:
            raise ValueError(f"{name}: x must have rank {rank}, got shape {t.shape}")
        if kp == 0.0:
            return M.mul(t, 0.0), Tensor(np.zeros(t.shape, np.bool_))
        # one draw per (n, c) through the Dropout kernel: 1 / keep_prob where kept, 0 elsewhere
        scale = dropout(A.ones((*t.shape[:2],) + (1,) * (rank - 2), t.dtype), 1.0 - float(kp), True)
        out = M.mul(t, scale)
        return out, A.broadcast_to(M.ne(scale, 0.0), t.shape)

    return call


TABLE = {
    "MaxPool3DWithArgmax": ((("ksize", REQUIRED), ("strides", REQUIRED), ("pads", REQUIRED), ("dilation", (1, 1, 1)),
                             ("ceil_mode", False), ("data_format", "NCDHW"), ("argmax_type", "int64")),
                            _max_pool3d_with_argmax,
                            "3-D max pooling of (N, C, D, H, W), also returning the flat index of each maximum "
                            "in its (D, H, W) volume."),
    "MaxPoolWithArgmaxV2": ((("kernel_size", REQUIRED), ("strides", None), ("pads", 0), ("dilation", (1, 1)),
                             ("ceil_mode", False), ("argmax_type", "int64")), _max_pool_with_argmax_v2,
                            "2-D max pooling of (N, C, H, W), also returning the flat index of each maximum in "
                            "its (H, W) plane."),
    "FractionalMaxPoolWithFixedKsize": ((("ksize", REQUIRED), ("output_shape", REQUIRED), ("data_format", "NCHW")),
                                        _fractional(2, "NCHW"),
                                        "Fractional max pooling of (N, C, H, W) with (N, C, 2) random samples: "
                                        "(y, argmax)."),
    "FractionalMaxPool3DWithFixedKsize": ((("ksize", REQUIRED), ("output_shape", REQUIRED),
                                           ("data_format", "NCDHW")), _fractional(3, "NCDHW"),
                                          "Fractional max pooling of (N, C, D, H, W) with (N, C, 3) random "
                                          "samples: (y, argmax)."),
    "AdaptiveMaxPool2D": ((("output_size", REQUIRED),), _adaptive_max_pool2d,
                          "Adaptive max pooling of the last two axes to ``output_size`` (H, W): (y, int64 argmax)."),
    "AdaptiveMaxPool3D": ((), _adaptive_max_pool3d,
                          "Adaptive max pooling of the last three axes to the ``output_size`` input (a 3-int "
                          "Tensor or tuple): (y, int32 argmax)."),
    "Conv2DTranspose": ((("out_channel", REQUIRED), ("kernel_size", REQUIRED), ("pad_mode", "valid"), ("pad", 0),
                         ("pad_list", None), ("mode", 1), ("stride", 1), ("dilation", 1), ("group", 1),
                         ("data_format", "NCHW")), _conv2d_transpose,
                        "The transposed 2-D convolution ``(dout, weight, input_size)``: Conv2D's input gradient."),
    "Dropout2D": ((("keep_prob", 0.5),), _channel_dropout("Dropout2D", 4),
                  "Zeroes whole channels of (N, C, H, W) with probability 1 - keep_prob and scales the rest by "
                  "1 / keep_prob: (output, bool mask)."),
    "Dropout3D": ((("keep_prob", 0.5),), _channel_dropout("Dropout3D", 5),
                  "Zeroes whole channels of (N, C, D, H, W) with probability 1 - keep_prob and scales the rest by "
                  "1 / keep_prob: (output, bool mask)."),
}

class AdaptiveAvgPool2D(_GlobalPoolPrim):
    """``AdaptiveAvgPool2D(output_size)(x)``: average pooling of the last two axes of (N, C, H, W) or
    (C, H, W) to ``output_size`` (an int or a pair, None keeping an axis) over MindSpore's adaptive windows;
    output 1 x 1 of a 4-D input is the GlobalAvgPool kernel."""

    def __init__(self, output_size=1) -> None:
        Primitive.__init__(self)
        self.output_size = output_size

    def __call__(self, x: Any) -> Tensor:
        t = as_tensor(x)
        if t.ndim == 4 and self.output_size in (1, (1, 1), [1, 1]):
            return apply("GlobalAvgPool", {}, [t])
        return adaptive_avg_pool2d(t, self.output_size)


class _FractionalPoolTF(Primitive):
    """MindSpore's ``FractionalMaxPool``/``FractionalAvgPool`` (TensorFlow's): see
    ops/api/pool_fractional.py ``pooling_sequence``. The sequences come from NumPy's generator: seeded by
    ``seed``/``seed2`` when either is non-zero (else by ``set_seed`` and the op's creation number), not
    MindSpore's bit stream; ``deterministic=True`` keeps the first call's windows for every later call."""

    _max = True

    def __init__(self, pooling_ratio, pseudo_random: bool = False, overlapping: bool = False,
                 deterministic: bool = False, seed: int = 0, seed2: int = 0) -> None:
        name = type(self).__name__
        if not isinstance(pooling_ratio, list) or not all(isinstance(v, float) for v in pooling_ratio):
            raise TypeError(f"{name}: pooling_ratio must be a list of floats, got {pooling_ratio!r}")
        for arg, v in (("pseudo_random", pseudo_random), ("overlapping", overlapping),
                       ("deterministic", deterministic)):
            if not isinstance(v, bool):
                raise TypeError(f"{name}: {arg} must be a bool, got {v!r}")
        if not deterministic and (seed != 0 or seed2 != 0):
            raise ValueError(f"{name}: seed and seed2 must both be 0 unless deterministic is True (MindSpore's "
                             f"rule), got seed={seed!r}, seed2={seed2!r}")
        super().__init__(pooling_ratio=pooling_ratio, pseudo_random=pseudo_random, overlapping=overlapping,
                         deterministic=deterministic, seed=seed, seed2=seed2)
        start = op_seed() if seed == 0 and seed2 == 0 else (int(seed) << 32) ^ int(seed2)
        self._rng = np.random.default_rng(start)
        self._fixed: tuple | None = None

    def __call__(self, x: Any) -> tuple[Tensor, Tensor, Tensor]:
        a = self.attrs
        rng = self._rng
        if a["deterministic"]:  # one generator state, replayed at every call: the same windows
            if self._fixed is None:
                self._fixed = rng.bit_generator.state
            rng = np.random.default_rng()
            rng.bit_generator.state = self._fixed
        return fractional_pool_nhwc(type(self).__name__, x, a["pooling_ratio"], a["pseudo_random"],
                                    a["overlapping"], rng, self._max)


class FractionalMaxPool(_FractionalPoolTF):
    __doc__ = ("``FractionalMaxPool(pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False, "
               "seed=0, seed2=0)(x) -> (y, row_pooling_sequence, col_pooling_sequence)``: max pooling of an "
               "NHWC ``x`` over windows of random sizes. " + (_FractionalPoolTF.__doc__ or ""))


class FractionalAvgPool(_FractionalPoolTF):
    __doc__ = ("``FractionalAvgPool(pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False, "
               "seed=0, seed2=0)(x) -> (y, row_pooling_sequence, col_pooling_sequence)``: average pooling of "
               "an NHWC ``x`` over windows of random sizes. " + (_FractionalPoolTF.__doc__ or ""))
    _max = False


class Dropout(_DropoutOp):
    """``ops.Dropout(keep_prob=0.5, Seed0=0, Seed1=0)(x) -> (output, mask)``, MindSpore 2.10's one-input
    form: ``mask`` (x's dtype) is 1 where an element is kept and ``output = x * mask / keep_prob``. The
    generator state is the one functional ``ops.dropout`` keeps per seed (Seed0/Seed1 both 0: the global
    seed's), advanced at every call; the two-input form ``(x, state)`` of the underlying op still works."""

    def __init__(self, keep_prob: float = 0.5, Seed0: int = 0, Seed1: int = 0) -> None:  # noqa: N803
        super().__init__(keep_prob=keep_prob)
        self.seed0, self.seed1 = int(Seed0), int(Seed1)

    def __call__(self, *inputs: Any) -> Any:
        if len(inputs) != 1:
            return super().__call__(*inputs)
        seed = None if self.seed0 == 0 and self.seed1 == 0 else self.seed0 * 1_000_003 + self.seed1
        state = _dropout_state(seed)
        out, mask = apply("Dropout", self.attrs, [as_tensor(inputs[0]), state])
        apply("Assign", {}, [state, state + Tensor(np.array([0, 1], np.int64))])
        return out, mask


PRIMITIVES: dict[str, type[Primitive]] = {n: make_primitive(n, *row) for n, row in TABLE.items()}
PRIMITIVES["Dropout"] = Dropout
PRIMITIVES["AdaptiveAvgPool2D"] = AdaptiveAvgPool2D
PRIMITIVES["FractionalMaxPool"] = FractionalMaxPool
PRIMITIVES["FractionalAvgPool"] = FractionalAvgPool
