"""The CPU target's C emitters, registered by op name: what turns a :class:`KernelSpec` into a C body.

Operators (``ops/``) describe what an op is; this package says how the CPU computes it. Each family module
here registers the emitters of its ops with :func:`emits` (or :func:`register`, for table-driven families),
together with the two choices that belong to the target rather than to the op:

* ``blas``: the kernel calls the BLAS (its translation unit declares it and the compiler links it);
* ``copy``: the kernel only moves data (optimisation class ``copy``, see :func:`opt_class`).

The code-generator hash that goes into every kernel's key starts from the registered emitter
(:func:`codegen_files` walks its code, ``sources.py``), so editing an emitter changes exactly the keys of the
ops whose C it can shape. A second target keeps its own registry of the same shape in its own folder.
"""

from __future__ import annotations

from .registry import (  # noqa: F401 - the package's public names
    EMITTERS,
    Emitter,
    codegen_digest,
    codegen_files,
    codegen_hash,
    emit,
    emits,
    emitter,
    needs_blas,
    needs_kernel,
    opt_class,
    register,
)

__all__ = ["EMITTERS", "Emitter", "codegen_digest", "codegen_files", "codegen_hash", "emit", "emits", "emitter",
           "needs_blas", "needs_kernel", "opt_class", "register"]

# The families register their emitters on import (registry.py holds the registry).
from . import (  # noqa: E402, F401
    bitshift,
    conv_grad,
    convolution,
    elementwise,
    filling,
    fused,
    fused_gemm,
    fused_reduce,
    gradient_ops,
    grid_sampling,
    indexing,
    layout,
    linalg,
    linalg_eig,
    linalg_factors,
    losses,
    matmul,
    norm_train,
    normalization,
    optim,
    optim_apply,
    philox_fill,
    pooling,
    random_discrete,
    random_ops,
    random_sample,
    reduction,
    scan,
    scatters,
    slicing,
    sorting,
    special,
    special_incomplete,
    spectral,
)
