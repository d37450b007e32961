"""Operators: primitive classes (``ops.Square()``, ``ops.MatMul(transpose_b=True)``, ...), as in
``ops.operations`` (P), and the functional API (``ops.relu``, ``ops.matmul``, ...), as in ``ops.functional``
(F).

``ops.matmul`` is the function (MindSpore's name); the MatMul family's module stays importable as
``opbuild.ops.matmul`` for ``from opbuild.ops.matmul import MatMul`` (Python finds submodules in
``sys.modules``), but the package attribute is rebound to the function below.
"""

from __future__ import annotations

from types import SimpleNamespace as _SimpleNamespace

from ..core.tensor import Tensor as _Tensor
from . import functional, operations
from .api.indexing import getitem as _getitem
from .api.setitem import setitem as _setitem
from .api.tensor_math import tensor_std as _tensor_std
from .api.tensor_math import tensor_var as _tensor_var
from .functional import *  # noqa: F403
from .functional import API as _API
from .functional import clip_by_value
from .operations import *  # noqa: F403
from .operations import FAMILIES as _FAMILIES
from .operations import ReduceOp
from .primitive import Primitive, apply
from .primitive_api import constexpr, prim_arg_register, prim_attr_register
from .registry import REGISTRY

matmul = functional.matmul  # rebinds the attribute the `matmul` submodule import set (see the docstring)

# What Tensor's methods call: core/providers.py names this namespace and looks it up on first use (core/tensor.py
# importing ops would be an import cycle: ops imports tensor). Nothing is installed into core from here.
TENSOR_METHODS = _SimpleNamespace(**{n: getattr(functional, n) for n in dir(functional) if not n.startswith("__")},
                                  getitem=_getitem, setitem=_setitem, tensor_var=_tensor_var, tensor_std=_tensor_std)

# After the families: the autodiff pass it uses reads their gradient rules.
from ..autograd import GradOperation, get_grad, grad, value_and_grad  # noqa: E402
from ..transforms import derivative, jacfwd, jacrev, jet, jvp, linearize, vjp, vmap  # noqa: E402
from . import communication, composite, function  # noqa: E402 - ops.communication, ops.composite, ops.function

# MindSpore exports ops.communication's names from ops itself too (ops.all_reduce, ops.TCPStore, ...), but for
# gather and scatter (ops.gather is the array gather) and CommHandle.
_COMMUNICATION_NAMES = tuple(n for n in communication.__all__ if n not in ("gather", "scatter", "CommHandle"))
globals().update({_n: getattr(communication, _n) for _n in _COMMUNICATION_NAMES})
from .custom_ops import custom_info_register, kernel, op_info_register  # noqa: E402
from .printing import print_  # noqa: E402
from .python_calls import stop_gradient  # noqa: E402
from .vm_impl import get_vm_impl_fn, vm_impl_registry  # noqa: E402

# MindSpore's older name of the kernel decorator, and its flat-index take (also Tensor.take's function).
ms_kernel = kernel
take = functional.take


def matrix_exp(input: _Tensor) -> _Tensor:  # noqa: A002 - MindSpore's argument name
    """``ops.matrix_exp(input)``: the matrix exponential of each square matrix (``ops.MatrixExp``)."""
    return MatrixExp()(input)  # noqa: F405 - a primitive class of the families

__all__ = ["Primitive", "ReduceOp", "apply", "clip_by_value", "REGISTRY", "functional", "operations", "GradOperation",
           "communication", "composite", "constexpr", "prim_attr_register", "grad", "value_and_grad", "get_grad",
           "jvp", "vjp", "vmap", "jacfwd", "jacrev", "linearize", "derivative", "jet", "stop_gradient", "print_",
           "custom_info_register", "kernel", "op_info_register", "function", "prim_arg_register", "get_vm_impl_fn",
           "vm_impl_registry", "ms_kernel", "take", "matrix_exp", *_COMMUNICATION_NAMES,
           *dict.fromkeys(n for f in _FAMILIES for n in f.PRIMITIVES), *_API]
