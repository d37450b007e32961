"""``opbuild.ops.operations`` (``import opbuild.ops.operations as P``): the primitive classes, MindSpore's
``mindspore.ops.operations`` path. Each op family module exports ``PRIMITIVES`` (its classes by name);
importing this module registers every family."""

from __future__ import annotations

from . import (
    backward_grads,  # noqa: F401 - the gradient rules of the backward ops (second order) and AllGather
    bitshift,
    collective,
    complex_grads,  # noqa: F401 - the gradient rules of the complex ops and FFTN
    control_prims,
    conv_grad,
    convolution,
    custom_ops,
    elementwise,
    elementwise_math_grads,  # noqa: F401 - the gradient rules of the elementwise math rows
    filling,
    fused,
    fused_gemm,
    fused_reduce,
    grad_hooks,
    grid_sampling,
    image_ops,
    indexing,
    layout,
    linalg,
    linalg_eig,
    linalg_factors,
    losses,
    matmul,
    ms_prim_arrayops,
    ms_prim_classes,
    ms_prim_classes_linalg,
    ms_prim_classes_llm,
    ms_prim_classes_more,
    ms_prim_classes_zoo,
    ms_prim_classes_zoo2,
    ms_prim_classes_zoo3,
    ms_prim_detection,
    ms_prim_lstm,
    ms_prim_pooling,
    ms_prim_random,
    ms_primitives,
    norm_train,
    normalization,
    optim,
    optim_apply,
    optim_sparse,
    philox_fill_ops,  # noqa: F401 - registers the internal PhiloxFill (runtime/init_fill.py)
    primitive_api,
    printing,
    python_calls,
    random_discrete,
    random_ops,
    random_sample,
    reduction,
    scan,
    scatters,
    scatters_inplace,
    slicing,
    sorting,
    special,
    special_incomplete,
    spectral,
)
from .api import gather_more, rows_update
from .collective import ReduceOp
from .compose import primitives as composed_primitives
from .compose import resize, resize_prims
from .primitive import Primitive

FAMILIES = (elementwise, reduction, normalization, norm_train, layout, slicing, indexing, filling, matmul, convolution,
            conv_grad, losses, random_ops, optim, fused, fused_gemm, fused_reduce, collective, scan, scatters,
            sorting, resize, grid_sampling, composed_primitives, linalg, linalg_factors, random_sample,
            random_discrete, optim_apply, optim_sparse, image_ops, resize_prims, scatters_inplace, special,
            gather_more, bitshift, rows_update, spectral, primitive_api, ms_prim_classes, ms_prim_classes_more,
            python_calls, grad_hooks, printing, control_prims, custom_ops,
            ms_prim_arrayops, ms_prim_random, ms_prim_detection,
            special_incomplete, linalg_eig, ms_prim_classes_linalg, ms_prim_pooling, ms_prim_lstm,
            ms_prim_classes_zoo, ms_prim_classes_zoo2, ms_prim_classes_zoo3, ms_prim_classes_llm,
            ms_primitives)  # last: its MindSpore-semantics classes (GeLU, ...) replace the family ones

for _family in FAMILIES:
    for _name, _cls in _family.PRIMITIVES.items():
        globals()[_name] = _cls

__all__ = ["Primitive", "ReduceOp", *dict.fromkeys(n for f in FAMILIES for n in f.PRIMITIVES)]
