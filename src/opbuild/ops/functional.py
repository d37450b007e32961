"""``opbuild.ops.functional`` (``import opbuild.ops.functional as F``): the functional API, MindSpore 2.x's
lower-case ``mindspore.ops`` functions, plus the helpers Tensor's operators use (``unary``, ``binary``,
``true_divide``). The functions live in ``ops/api/`` by family; this module only gathers them."""

from __future__ import annotations

from .api import activations as _activations
from .api import aliases as _aliases
from .api import array as _array
from .api import array_ext as _array_ext
from .api import boxes as _boxes
from .api import conv_transpose as _conv_transpose
from .api import ctc as _ctc
from .api import data_dependent as _data_dependent
from .api import deformable as _deformable
from .api import detection as _detection
from .api import ext_names as _ext_names
from .api import gather_more as _gather_more
from .api import graph_helpers as _graph_helpers
from .api import image as _image
from .api import inplace_ext as _inplace_ext
from .api import legacy_names as _legacy_names
from .api import linalg as _linalg
from .api import linalg_more as _linalg_more
from .api import llm_attention as _llm_attention
from .api import llm_fused as _llm_fused
from .api import llm_infer as _llm_infer
from .api import llm_moe as _llm_moe
from .api import math as _math
from .api import math_extra as _math_extra
from .api import math_misc as _math_misc
from .api import math_more as _math_more
from .api import math_tail as _math_tail
from .api import matrix_diag as _matrix_diag
from .api import misc_names as _misc_names
from .api import more_math as _more_math
from .api import nn as _nn
from .api import nn_losses as _nn_losses
from .api import nn_misc as _nn_misc
from .api import nn_more as _nn_more
from .api import normalization_fn as _normalization_fn
from .api import patches as _patches
from .api import pool_fractional as _pool_fractional
from .api import pooling_adaptive as _pooling_adaptive
from .api import random_ext as _random_ext
from .api import rows_update as _rows_update
from .api import sampling as _sampling
from .api import scatter_inplace as _scatter_inplace
from .api import sparse_fn as _sparse_fn
from .api import special as _special
from .api import special_incomplete as _special_incomplete
from .api import spectral as _spectral
from .api import stacking as _stacking
from .api import stft as _stft
from .api import tensor_math as _tensor_math
from .api import volumetric as _volumetric
from .api import windows as _windows
from .api.activations import *  # noqa: F403
from .api.aliases import *  # noqa: F403
from .api.array import *  # noqa: F403
from .api.array_ext import *  # noqa: F403
from .api.base import binary, clip_by_value, operator_binary, true_divide, unary
from .api.boxes import *  # noqa: F403
from .api.conv_transpose import *  # noqa: F403
from .api.ctc import *  # noqa: F403
from .api.data_dependent import *  # noqa: F403
from .api.deformable import *  # noqa: F403
from .api.detection import *  # noqa: F403
from .api.ext_names import *  # noqa: F403
from .api.gather_more import *  # noqa: F403
from .api.graph_helpers import *  # noqa: F403
from .api.image import *  # noqa: F403
from .api.inplace_ext import *  # noqa: F403
from .api.legacy_names import *  # noqa: F403
from .api.linalg import *  # noqa: F403
from .api.linalg_more import *  # noqa: F403
from .api.llm_attention import *  # noqa: F403
from .api.llm_fused import *  # noqa: F403
from .api.llm_infer import *  # noqa: F403
from .api.llm_moe import *  # noqa: F403
from .api.math import *  # noqa: F403
from .api.math_extra import *  # noqa: F403
from .api.math_misc import *  # noqa: F403
from .api.math_more import *  # noqa: F403
from .api.math_tail import *  # noqa: F403
from .api.matrix_diag import *  # noqa: F403
from .api.misc_names import *  # noqa: F403
from .api.more_math import *  # noqa: F403
from .api.more_math import ptp, take  # noqa: F401 - Tensor.ptp/take (MindSpore has no ops of those names)
from .api.nn import *  # noqa: F403
from .api.nn_losses import *  # noqa: F403
from .api.nn_misc import *  # noqa: F403
from .api.nn_more import *  # noqa: F403
from .api.normalization_fn import *  # noqa: F403
from .api.patches import *  # noqa: F403
from .api.pool_fractional import *  # noqa: F403
from .api.pooling_adaptive import *  # noqa: F403
from .api.random_ext import *  # noqa: F403
from .api.rows_update import *  # noqa: F403
from .api.sampling import *  # noqa: F403
from .api.scatter_inplace import *  # noqa: F403
from .api.sparse_fn import *  # noqa: F403
from .api.special import *  # noqa: F403
from .api.special_incomplete import *  # noqa: F403
from .api.spectral import *  # noqa: F403
from .api.stacking import *  # noqa: F403
from .api.stft import *  # noqa: F403
from .api.tensor_math import *  # noqa: F403
from .api.volumetric import *  # noqa: F403
from .api.windows import *  # noqa: F403

API: tuple[str, ...] = tuple(dict.fromkeys((*_math.__all__, *_array.__all__, *_nn.__all__, *_tensor_math.__all__,
                                          *_more_math.__all__, *_math_more.__all__, *_image.__all__,
                                          *_math_misc.__all__, *_linalg.__all__, *_sampling.__all__,
                                          *_scatter_inplace.__all__, *_special.__all__,
                                          *_gather_more.__all__, *_rows_update.__all__,
                                          *_spectral.__all__,
                                          *_nn_losses.__all__, *_activations.__all__, *_nn_misc.__all__,
                                          *_pooling_adaptive.__all__, *_normalization_fn.__all__,
                                          *_volumetric.__all__, *_conv_transpose.__all__, *_ctc.__all__,
                                          *_patches.__all__, *_nn_more.__all__,
                                          *_sparse_fn.__all__, *_windows.__all__, *_stacking.__all__,
                                          *_aliases.__all__, *_data_dependent.__all__, *_math_extra.__all__,
                                          *_math_tail.__all__, *_misc_names.__all__, *_array_ext.__all__,
                                          *_boxes.__all__, *_random_ext.__all__, *_detection.__all__,
                                          *_special_incomplete.__all__, *_matrix_diag.__all__,
                                          *_linalg_more.__all__, *_stft.__all__,
                                          *_pool_fractional.__all__, *_deformable.__all__,
                                          *_ext_names.__all__, *_legacy_names.__all__,
                                          *_graph_helpers.__all__, *_inplace_ext.__all__,
                                          *_llm_attention.__all__, *_llm_fused.__all__,
                                          *_llm_infer.__all__, *_llm_moe.__all__)))
"""The MindSpore functional names this module provides (docs/mindspore-compat.md is generated from it)."""

__all__ = ["binary", "operator_binary", "unary", "true_divide", "clip_by_value", *API]


# The function transforms of ``mindspore.ops.functional`` (``from mindspore.ops.functional import linearize``):
# they sit above ops (autograd.py, transforms/), so they are looked up on first use rather than imported here.
_TRANSFORM_NAMES = ("grad", "value_and_grad", "get_grad", "jvp", "vjp", "vmap", "jacfwd", "jacrev", "linearize",
                    "derivative", "jet")


_OPS_NAMES = ("P", "Primitive", "print_", "Roll", "Median", "AdaptiveMaxPool2D", "UniqueConsecutive", "matrix_exp")


def __getattr__(name: str):
    if name in _TRANSFORM_NAMES:
        import importlib

        return getattr(importlib.import_module("opbuild.ops"), name)
    if name == "stop_gradient":
        from .python_calls import stop_gradient

        return stop_gradient
    if name in _OPS_NAMES:  # MindSpore's functional module re-exports these of ops (P is ops.operations)
        import importlib

        ops = importlib.import_module("opbuild.ops")
        return ops.operations if name == "P" else getattr(ops, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
