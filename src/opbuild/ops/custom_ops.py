"""``ops.Custom`` and the operator registration API (``CustomRegOp``, ``TBERegOp``, ``AiCPURegOp``,
``DataType``, ``op_info_register``, ``custom_info_register``, ``kernel``).

``Custom(func, out_shape, out_dtype, func_type="pyfunc")`` runs ``func`` on the inputs' NumPy arrays as a
``PyCall`` host node (ops/python_calls.py): at once in PyNative, when the graph runs in GRAPH_MODE, with
``bprop`` (if given) as its gradient. ``func_type="hybrid"`` with a ``@kernel`` function runs that function's
loops in Python (MindSpore's hybrid DSL interpreted, not compiled: correct, slow). The func types that compile
device code (``aot``, ``akg``, ``tbe``, ``aicpu``, ``julia``) are refused with a message saying what runs.

The registration builders record what they are given and ``get_op_info()`` returns it as MindSpore's dict;
``op_info_register``/``custom_info_register`` accept it and return the function unchanged (there is no
Ascend/AICPU kernel library for them to describe on opbuild).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import math
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.dtypes import dtype_of
from ..core.tensor import Tensor
from .python_calls import Callback, pycall

# ---- DataType ---------------------------------------------------------------------------------------------

_DTYPES = {"None": "", "BOOL": "bool", "I8": "int8", "I16": "int16", "I32": "int32", "I64": "int64",
           "U8": "uint8", "U16": "uint16", "U32": "uint32", "U64": "uint64", "F16": "float16",
           "F32": "float32", "F64": "float64", "BF16": "bfloat16", "C64": "complex64", "C128": "complex128"}
_FORMATS = {"None": ("",), "Default": ("DefaultFormat",), "Default_Tuple": ("DefaultFormat", "tuple"),
            "Default_List": ("DefaultFormat", "list"), "5HD": ("NC1HWC0",), "FracZ": ("FRACTAL_Z",),
            "FracNZ": ("FRACTAL_NZ",), "C1HWNCoC0": ("C1HWNCoC0",), "NCHW": ("NCHW",), "NHWC": ("NHWC",),
            "HWCN": ("HWCN",), "NDHWC": ("NDHWC",), "NCDHW": ("NCDHW",), "DHWCN": ("DHWCN",),
            "NDC1HWC0": ("NDC1HWC0",), "FRACTAL_Z_3D": ("FRACTAL_Z_3D",), "FracZNLSTM": ("FRACTAL_ZN_LSTM",),
            "FracZNRNN": ("FRACTAL_ZN_RNN",), "ND_RNNBIAS": ("ND_RNN_BIAS",), "ChannelLast": ("ChannelLast",)}

DataType = type("DataType", (), {
    "__doc__": "MindSpore's ``DataType``: ``<dtype>_<format>`` constants, each a (dtype, format[, kind]) tuple "
               "(``DataType.F32_Default == ('float32', 'DefaultFormat')``), used by the registration builders.",
    **{f"{d}_{f}": (dn, *fv) for d, dn in _DTYPES.items() for f, fv in _FORMATS.items()}})


# ---- registration builders --------------------------------------------------------------------------------

class RegOp:
    """The shared part of MindSpore's operator-information builders: each method records its arguments and
    returns the builder; :meth:`get_op_info` returns the record as a dict."""

    def __init__(self, op_name: str = ""):
        if not isinstance(op_name, str):
            raise TypeError(f"{type(self).__name__}: op_name must be a str, got {type(op_name).__name__}")
        self.info: dict[str, Any] = {"op_name": op_name, "inputs": [], "outputs": [], "attr": [],
                                     "fusion_type": "", "dtype_format": []}

    def input(self, index: int | None = None, name: str | None = None, param_type: str | None = None,
              *args: Any, **kwargs: Any) -> RegOp:
        """Describe input ``index`` (its name and ``param_type``: required, optional or dynamic)."""
        self.info["inputs"].append(self._io(index, name, param_type, args, kwargs))
        return self

    def output(self, index: int | None = None, name: str | None = None, *args: Any, **kwargs: Any) -> RegOp:
        """Describe output ``index``."""
        param_type = args[0] if args and isinstance(args[0], str) else kwargs.pop("param_type", None)
        self.info["outputs"].append(self._io(index, name, param_type, (), kwargs))
        return self

    @staticmethod
    def _io(index: Any, name: Any, param_type: Any, args: tuple, kwargs: dict) -> dict:
        if index is not None and (isinstance(index, bool) or not isinstance(index, int)):
            raise TypeError(f"index must be an int, got {type(index).__name__}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"name must be a str, got {type(name).__name__}")
        item: dict[str, Any] = {"index": index, "name": name, "paramType": param_type or "required"}
        item.update({k: v for k, v in kwargs.items() if v is not None})
        if args:
            item["extra"] = list(args)
        return item

    def attr(self, name: str | None = None, *args: Any, **kwargs: Any) -> RegOp:
        """Describe an attribute."""
        self.info["attr"].append({"name": name, "args": list(args), **kwargs})
        return self

    def dtype_format(self, *args: tuple) -> RegOp:
        """One supported combination: a :class:`DataType` per input and output, in order."""
        for a in args:
            if not isinstance(a, tuple) or not all(isinstance(x, str) for x in a):
                raise TypeError(f"dtype_format: each argument must be a DataType constant, got {a!r}")
        self.info["dtype_format"].append(tuple(args))
        return self

    def fusion_type(self, fusion_type: str) -> RegOp:
        """The fusion type (``ELEMWISE``, ``OPAQUE``, ...)."""
        self.info["fusion_type"] = fusion_type
        return self

    def get_op_info(self) -> dict:
        """The recorded information as a dict."""
        return {k: (list(v) if isinstance(v, list) else v) for k, v in self.info.items()}


class CustomRegOp(RegOp):
    """``ops.CustomRegOp(op_name="Custom")``: the information of a Custom operator (``.target(...)`` names
    its device)."""

    def __init__(self, op_name: str = "Custom"):
        super().__init__(op_name)

    def target(self, target: str | None = None) -> CustomRegOp:
        """The device the information is for: ``"Ascend"``, ``"GPU"`` or ``"CPU"``."""
        if target is not None and target not in ("Ascend", "GPU", "CPU"):
            raise ValueError(f"CustomRegOp.target: must be 'Ascend', 'GPU' or 'CPU', got {target!r}")
        self.info["target"] = target
        return self


class AiCPURegOp(RegOp):
    """``ops.AiCPURegOp(op_name)``: the information of an AICPU operator (Ascend)."""


def _recorder(key: str) -> Callable[..., Any]:
    def set_value(self: RegOp, value: Any = None) -> RegOp:
        self.info[key] = value
        return self

    set_value.__doc__ = f"Record ``{key}``; returns the builder."
    return set_value


TBERegOp = type("TBERegOp", (RegOp,), {
    "__doc__": "``ops.TBERegOp(op_name)``: the information of a TBE operator (Ascend); every setter records "
               "its value.",
    **{name: _recorder(name) for name in (
        "async_flag", "binfile_name", "compute_cost", "kernel_name", "partial_flag", "op_pattern",
        "need_check_supported", "dynamic_shape", "dynamic_rank_support", "dynamic_compile_static",
        "real_input_index", "input_to_attr_index", "unknown_shape_formats", "reshape_type",
        "is_dynamic_format")}})


def op_info_register(op_info: Any) -> Callable[[Callable], Callable]:
    """``@op_info_register(info)``: accept an operator's information (a dict or a JSON string) and return the
    decorated function unchanged."""
    if not isinstance(op_info, (dict, str)):
        raise TypeError(f"op_info_register: op_info must be a dict or a JSON str, got {type(op_info).__name__}")

    def register(fn: Callable) -> Callable:
        fn.op_info = op_info  # type: ignore[attr-defined]
        return fn

    return register


def custom_info_register(*reg_info: Any) -> Callable[[Callable], Callable]:
    """``@custom_info_register(info, ...)``: attach Custom operator information to the decorated function
    (``fn.reg_info``), as ``ops.Custom(fn)`` reads it."""
    for info in reg_info:
        if not isinstance(info, (dict, str)):
            raise TypeError(f"custom_info_register: each reg_info must be a dict or a JSON str, got "
                            f"{type(info).__name__}")

    def register(fn: Callable) -> Callable:
        fn.reg_info = list(reg_info)  # type: ignore[attr-defined]
        return fn

    return register


# ---- the hybrid DSL, interpreted ------------------------------------------------------------------------

def _loop(*extent: Any) -> range:
    return range(*(int(e) for e in extent))


def _grid(extents: Any) -> Any:
    return itertools.product(*(range(int(e)) for e in extents))


_DSL: dict[str, Any] = {
    "output_tensor": lambda shape, dtype: np.zeros(tuple(shape), np.dtype(str(dtype))),
    "allocate": lambda shape, dtype, *a: np.zeros(tuple(shape), np.dtype(str(dtype))),
    "block_realize": lambda *a: contextlib.nullcontext(),
    "serial": _loop, "parallel": _loop, "vectorize": _loop, "unroll": _loop, "reduce": _loop,
    "range": _loop, "grid": _grid,
    **{n: getattr(np, n) for n in ("exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "sign", "floor",
                                   "ceil", "power", "abs", "arcsin", "arccos", "arctan", "arctan2",
                                   "float16", "float32", "float64", "int8", "int16", "int32", "int64")},
    "rsqrt": lambda x: 1.0 / np.sqrt(x), "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "max": max, "min": min, "erf": np.vectorize(math.erf), "isnan": np.isnan, "isinf": np.isinf,
}


class HybridKernel:
    """A function written in MindSpore's hybrid DSL (``@kernel``): calling it runs its loops in Python on
    NumPy arrays (``output_tensor``, ``block_realize``, ``grid``... provided); ``ops.Custom`` runs it so."""

    def __init__(self, fn: Callable[..., Any], reg_info: Any = None, compile_attrs: dict | None = None):
        if not callable(fn):
            raise TypeError(f"kernel: fn must be a function, got {type(fn).__name__}")
        if compile_attrs is not None and not isinstance(compile_attrs, dict):
            raise TypeError(f"kernel: compile_attrs must be a dict, got {type(compile_attrs).__name__}")
        self.fn, self.reg_info, self.compile_attrs = fn, reg_info, compile_attrs or {}
        code = getattr(fn, "__code__", None)
        if code is None:
            raise TypeError("kernel: fn must be a Python function")
        self._run = types.FunctionType(code, {**fn.__globals__, **_DSL}, fn.__name__, fn.__defaults__,
                                       fn.__closure__)
        functools.update_wrapper(self, fn)

    def __call__(self, *args: Any) -> Any:
        arrays = [a.asnumpy() if isinstance(a, Tensor) else np.asarray(a) for a in args]
        return self._run(*arrays)


def kernel(fn: Callable[..., Any] | None = None, reg_info: Any = None,
           compile_attrs: dict | None = None) -> Any:
    """``@kernel`` / ``@kernel(reg_info=..., compile_attrs=...)``: mark a hybrid-DSL function
    (:class:`HybridKernel`)."""
    if fn is None:
        return lambda f: HybridKernel(f, reg_info, compile_attrs)
    return HybridKernel(fn, reg_info, compile_attrs)


# ---- Custom -------------------------------------------------------------------------------------------------

_RUNS = ("pyfunc", "hybrid")
_DEVICE_ONLY = ("aot", "akg", "tbe", "aicpu", "julia", "tbe_dsl", "ir_builder", "tvm_compute")


def _np_dtype(d: Any) -> str:
    return dtype_of(d).name


class Custom:
    """``ops.Custom(func, out_shape=None, out_dtype=None, func_type="pyfunc", bprop=None, reg_info=None)``
    (see the module docstring). ``out_shape``/``out_dtype``: the output's shape and dtype, or functions of
    the inputs' shapes/dtypes giving them (a list of them for several outputs); ``bprop(*inputs, out, dout)``
    gives the inputs' gradients."""

    def __init__(self, func: Any, out_shape: Any = None, out_dtype: Any = None, func_type: str = "pyfunc",
                 bprop: Callable[..., Any] | None = None, reg_info: Any = None):
        if func_type in _DEVICE_ONLY:
            raise NotImplementedError(
                f"Custom: func_type={func_type!r} compiles device code, which opbuild does not build; opbuild "
                "runs func_type='pyfunc' (a Python function on NumPy arrays) and 'hybrid' (a @kernel "
                "function, interpreted)")
        if func_type not in _RUNS:
            raise ValueError(f"Custom: func_type must be one of {_RUNS + _DEVICE_ONLY}, got {func_type!r}")
        if not callable(func):
            raise TypeError(f"Custom: func_type={func_type!r} needs a Python function as func, got "
                            f"{type(func).__name__}")
        if func_type == "hybrid" and not isinstance(func, HybridKernel):
            func = HybridKernel(func)
        self.func, self.func_type, self.bprop = func, func_type, bprop
        self.out_shape, self.out_dtype, self.reg_info = out_shape, out_dtype, reg_info

    def _out_types(self, tensors: Sequence[Tensor]) -> list[tuple[tuple[int, ...], str]]:
        shapes = [list(t.shape) for t in tensors]
        dtypes = [t.dtype for t in tensors]
        shape = self.out_shape(*shapes) if callable(self.out_shape) else self.out_shape
        dtype = self.out_dtype(*dtypes) if callable(self.out_dtype) else self.out_dtype
        if shape is None or dtype is None:
            if self.func_type != "hybrid":
                raise ValueError("Custom: func_type='pyfunc' needs out_shape and out_dtype")
            probe = self.func(*[np.zeros(s, np.dtype(t._type.dtype)) for s, t in zip(shapes, tensors)])
            outs = list(probe) if isinstance(probe, (tuple, list)) else [probe]
            return [(tuple(np.shape(o)), str(np.asarray(o).dtype)) for o in outs]
        several = isinstance(shape, (list, tuple)) and shape and isinstance(shape[0], (list, tuple))
        if several:
            dts = dtype if isinstance(dtype, (list, tuple)) else [dtype] * len(shape)
            return [(tuple(int(d) for d in s), _np_dtype(dt)) for s, dt in zip(shape, dts)]
        return [(tuple(int(d) for d in shape), _np_dtype(dtype))]

    def __call__(self, *args: Any) -> Any:
        tensors = [a if isinstance(a, Tensor) else Tensor(a) for a in args]
        outs = self._out_types(tensors)
        func = self.func

        def forward(arrays: list[np.ndarray]) -> list[Any]:
            got = func(*arrays)
            return list(got) if len(outs) > 1 else [got]

        grad = None
        if self.bprop is not None:
            bprop = self.bprop

            def grad(ins: list[np.ndarray], douts: list[np.ndarray]) -> list[Any]:
                out = forward(ins)
                out_t = [Tensor(np.asarray(o)) for o in out]
                got = bprop(*(Tensor(a) for a in ins), out_t[0] if len(out_t) == 1 else tuple(out_t),
                            Tensor(douts[0]) if len(douts) == 1 else tuple(Tensor(d) for d in douts))
                got = list(got) if isinstance(got, (tuple, list)) else [got]
                return [g.asnumpy() if isinstance(g, Tensor) else g for g in got]

        result = pycall(Callback(f"Custom[{getattr(func, '__name__', 'func')}]", forward, grad), tensors, outs)
        return result[0] if len(outs) == 1 else tuple(result)


class Morph:
    """``ops.Morph(fn, infer_shape, infer_dtype, bprop_fn=None)``: a primitive that is ``fn`` applied to its
    inputs (traced like any function, so its gradient comes from its ops). With ``bprop_fn(*inputs, out,
    dout)`` the gradient is that function's instead: ``fn`` then runs on concrete Tensors as a ``PyCall``
    host node whose output types ``infer_shape``/``infer_dtype`` give."""

    def __init__(self, fn: Callable[..., Any], infer_shape: Callable[..., Any], infer_dtype: Callable[..., Any],
                 bprop_fn: Callable[..., Any] | None = None):
        for name, f in (("fn", fn), ("infer_shape", infer_shape), ("infer_dtype", infer_dtype)):
            if not callable(f):
                raise TypeError(f"Morph: {name} must be callable, got {type(f).__name__}")
        if bprop_fn is not None and not callable(bprop_fn):
            raise TypeError(f"Morph: bprop_fn must be callable, got {type(bprop_fn).__name__}")
        self.fn, self.infer_shape, self.infer_dtype, self.bprop_fn = fn, infer_shape, infer_dtype, bprop_fn

    def __call__(self, *args: Any) -> Any:
        if self.bprop_fn is None:
            return self.fn(*args)
        fn = self.fn

        def on_arrays(*arrays: np.ndarray) -> Any:
            out = fn(*(Tensor(a) for a in arrays))
            return tuple(o.asnumpy() for o in out) if isinstance(out, (tuple, list)) else out.asnumpy()

        op = Custom(on_arrays, self.infer_shape, self.infer_dtype, "pyfunc", bprop=self.bprop_fn)
        return op(*args)


PRIMITIVES: dict[str, type] = {"Morph": Morph, "Custom": Custom, "CustomRegOp": CustomRegOp, "TBERegOp": TBERegOp,
                               "AiCPURegOp": AiCPURegOp, "DataType": DataType}
