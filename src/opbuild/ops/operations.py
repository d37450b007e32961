"""``opbuild.ops.operations`` (``import opbuild.ops.operations as P``): the primitive classes, MindSpore's
``mindspore.ops.operations`` path. Each op family module exports ``PRIMITIVES`` (its classes by name);
importing this module registers every family."""

from __future__ import annotations

from . import (
    bitshift,
    collective,
    complex_grads,  # noqa: F401 - the gradient rules of the complex ops and FFTN
    conv_grad,
    convolution,
    elementwise,
    elementwise_math_grads,  # noqa: F401 - the gradient rules of the elementwise math rows
    filling,
    fused,
    fused_gemm,
    fused_reduce,
    grid_sampling,
    image_ops,
    indexing,
    layout,
    linalg,
    linalg_factors,
    losses,
    matmul,
    ms_prim_classes,
    ms_prim_classes_more,
    ms_prim_pooling,
    ms_primitives,
    norm_train,
    normalization,
    optim,
    optim_apply,
    optim_sparse,
    primitive_api,
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
            ms_prim_pooling, ms_primitives)  # last: its MindSpore-semantics classes (GeLU, ...) replace the family ones

for _family in FAMILIES:
    for _name, _cls in _family.PRIMITIVES.items():
        globals()[_name] = _cls

__all__ = ["Primitive", "ReduceOp", *dict.fromkeys(n for f in FAMILIES for n in f.PRIMITIVES)]
