"""opbuild: run neural networks in graph mode, every operator compiled to a native CPU kernel and kept in an
incremental build cache (``rank_N/kernel_meta``) so that no kernel is ever built twice.

Public API re-exports only.
"""

from __future__ import annotations

from ._version import __version__
from .core import dtypes as _dtypes  # noqa: E402
from .core.config import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context, set_device  # noqa: E402
from .core.device import get_current_device, set_deterministic, set_recursion_limit  # noqa: E402
from .core.errors import CompileError, CompilerNotFoundError, OpbuildError, ShapeError  # noqa: E402
from .core.parameter import Parameter, ParameterTuple, initializer, set_seed  # noqa: E402
from .core.symbol import Symbol  # noqa: E402
from .core.tensor import Tensor, tensor  # noqa: E402
from .report import BuildReport  # noqa: E402
from .runtime.session import build_report  # noqa: E402

float16 = _dtypes.float16
bfloat16 = _dtypes.bfloat16
float32 = _dtypes.float32
float64 = _dtypes.float64
int8 = _dtypes.int8
int16 = _dtypes.int16
int32 = _dtypes.int32
int64 = _dtypes.int64
uint8 = _dtypes.uint8
uint16 = _dtypes.uint16
uint32 = _dtypes.uint32
uint64 = _dtypes.uint64
bool_ = _dtypes.bool_
bool = _dtypes.bool_  # noqa: A001 - MindSpore 2.x spells it mindspore.bool as well
complex64 = _dtypes.complex64  # named so programs import; data of it raises a TypeError saying why
complex128 = _dtypes.complex128

from . import amp, common, communication, context, nn, ops  # noqa: E402
from . import numpy as numpy  # noqa: E402 - mindspore.numpy, imported with the package as in MindSpore
from . import top_names as _top_names  # noqa: E402 - runtime, dtype, context and training names
from .alias import alias_mindspore  # noqa: E402
from .alias import install_from_env as _install_alias_from_env  # noqa: E402
from .api_extras import (  # noqa: E402
    from_numpy,
    frombuffer,
    get_algo_parameters,
    get_level,
    get_log_config,
    get_ps_context,
    jit_class,
    merge_sliced_parameter,
    ms_memory_recycle,
    mutable,
    no_inline,
    recompute,
    reset_algo_parameters,
    set_algo_parameters,
    set_ps_context,
)
from .autograd import get_grad, grad, value_and_grad  # noqa: E402
from .common import dtype  # noqa: E402 - ``from mindspore import dtype as mstype``
from .common.dtype import (  # noqa: E402 - every name of mindspore.dtype is also top level, as in MindSpore
    Type,
    byte,
    cdouble,
    cfloat,
    double,
    dtype_to_nptype,
    dtype_to_pytype,
    float8_e4m3fn,
    float8_e5m2,
    float_,
    get_py_obj_dtype,
    half,
    hifloat8,
    int_,
    intc,
    intp,
    long,
    pytype_to_dtype,
    qint4x2,
    short,
    single,
    ubyte,
    uint,
    uintc,
    uintp,
    ushort,
)
from .communication import (  # noqa: E402
    get_auto_parallel_context,
    reset_auto_parallel_context,
    set_auto_parallel_context,
)
from .context import ParallelMode  # noqa: E402
from .graph import lazy_inline  # noqa: E402
from .install_check import run_check  # noqa: E402
from .jit import JitConfig, explain, jit  # noqa: E402
from .loss_scale import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager  # noqa: E402
from .ops.api.misc_names import is_tensor  # noqa: E402
from .ops.primitive_api import constexpr  # noqa: E402
from .parallel import Layout  # noqa: E402 - also mindspore.parallel.Layout
from .rng import (  # noqa: E402
    Generator,
    default_generator,
    get_rng_state,
    get_seed,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from .saved_hooks import register_saved_tensors_hooks, saved_tensors_hooks  # noqa: E402
from .sparse import COOTensor, CSRTensor  # noqa: E402
from .sparse_legacy import RowTensor, SparseTensor  # noqa: E402
from .top_names import LAZY as _TOP_LAZY  # noqa: E402
from .transforms import jacfwd, jacrev, jvp, vjp, vmap  # noqa: E402

globals().update({_n: getattr(_top_names, _n) for _n in _top_names.__all__})

_install_alias_from_env()  # OPBUILD_AS_MINDSPORE=1: `import mindspore` resolves to opbuild from here on

# Imported on first use: protobuf (checkpoints) is costly to import next to an inference-only process's warm
# start (docs/benchmarks.md), which would otherwise pay for it at import.
_LAZY = {"dataset": ("opbuild.dataset", None), "save_checkpoint": ("opbuild.checkpoint", "save_checkpoint"),
         "load_checkpoint": ("opbuild.checkpoint", "load_checkpoint"),
         "load_param_into_net": ("opbuild.checkpoint", "load_param_into_net"),
         "export": ("opbuild.train.serialization", "export"),
         "train": ("opbuild.train", None), "Model": ("opbuild.train.model", "Model"),
         "profiler": ("opbuild.profiler", None), "Profiler": ("opbuild.profiler", "Profiler"),
         "mint": ("opbuild.mint", None), "experimental": ("opbuild.experimental", None), **_TOP_LAZY}
# MindSpore re-exports everything of mindspore.train at the top level (``from mindspore import LossMonitor``).
_LAZY.update({name: ("opbuild.train", name) for name in (
    "Callback", "RunContext", "LossMonitor", "TimeMonitor", "ModelCheckpoint", "CheckpointConfig", "EarlyStopping",
    "ReduceLROnPlateau", "History", "LambdaCallback", "SummaryCollector", "Metric", "Accuracy", "Loss",
    "Precision", "Recall", "Fbeta", "F1", "TopKCategoricalAccuracy", "Top1CategoricalAccuracy",
    "Top5CategoricalAccuracy", "ConfusionMatrix", "MAE", "MSE", "ROC", "auc", "rearrange_inputs", "Dice",
    "CosineSimilarity", "Perplexity", "BleuScore", "get_metric_fn", "LearningRateScheduler",
    "DatasetHelper", "async_ckpt_thread_status", "HausdorffDistance", "MeanSurfaceDistance",
    "RootMeanSquareDistance", "ConfusionMatrixMetric", "OcclusionSensitivity", "SummaryRecord",
    "FlopsUtilizationCollector", "ConvertNetUtils", "ConvertModelUtils")})
_LAZY["log"] = ("opbuild.log", None)  # ``mindspore.log.get_level()`` after a bare ``import mindspore``
# And mindspore.rewrite's classes (``mindspore.SymbolTree``).
_LAZY["rewrite"] = ("opbuild.rewrite", None)
_LAZY.update({name: ("opbuild.rewrite", name) for name in ("SymbolTree", "Node", "NodeType", "ScopedValue",
                                                            "ValueType")})


def __getattr__(name: str):
    """Resolve the lazily imported public names of ``_LAZY`` (PEP 562)."""
    if name not in _LAZY:
        raise AttributeError(f"module 'opbuild' has no attribute {name!r}")
    import importlib

    module_name, attr = _LAZY[name]
    module = importlib.import_module(module_name)
    value = module if attr is None else getattr(module, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """Module attributes, the lazy ones included (so completion and dir() list them)."""
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "__version__", "GRAPH_MODE", "PYNATIVE_MODE", "set_context", "get_context", "set_device", "get_current_device",
    "set_deterministic", "set_recursion_limit", "Tensor", "tensor", "COOTensor", "CSRTensor", "JitConfig",
    "dtype", "bool", "complex64", "complex128", "dtype_to_nptype", "pytype_to_dtype", "dtype_to_pytype",
    "get_py_obj_dtype", "Type", "byte", "short", "intc", "long", "intp", "ubyte", "ushort", "uintc", "uintp", "cfloat",
    "cdouble", "float8_e4m3fn", "float8_e5m2", "hifloat8", "qint4x2", "half", "single", "double", "float_", "int_",
    "uint", "alias_mindspore", "Parameter", "Layout",
    "ParameterTuple", "ParallelMode", "set_auto_parallel_context", "get_auto_parallel_context",
    "reset_auto_parallel_context", "communication", "common", "context", "grad", "value_and_grad",
    "get_grad", "jvp", "vjp", "vmap", "jacfwd", "jacrev", "is_tensor", "saved_tensors_hooks",
    "register_saved_tensors_hooks", "jit",
    "explain",
    "initializer", "set_seed", "build_report", "BuildReport", "CompileError", "CompilerNotFoundError",
    "OpbuildError", "ShapeError", "float16", "bfloat16", "float32", "float64", "int8", "int16", "int32",
    "int64", "uint8", "uint16", "uint32", "uint64", "bool_", "amp", "nn", "ops", "dataset",
    "save_checkpoint", "load_checkpoint", "load_param_into_net", "export", "train", "Model",
    "LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager",
    "RowTensor", "SparseTensor", "Generator", "default_generator", "get_rng_state", "get_seed", "initial_seed",
    "manual_seed", "seed", "set_rng_state", "from_numpy", "frombuffer", "get_algo_parameters", "get_level",
    "get_log_config", "get_ps_context", "jit_class", "merge_sliced_parameter", "ms_memory_recycle", "mutable",
    "no_inline", "recompute", "reset_algo_parameters", "set_algo_parameters", "set_ps_context",
    "run_check", "lazy_inline", "Symbol",
    "constexpr", "rewrite", "SymbolTree", "Node", "NodeType", "ScopedValue", "ValueType",
    *_top_names.__all__, *_TOP_LAZY,
]
