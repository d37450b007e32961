"""The GPU target's CUDA C emitters, registered by op name (the CPU's registry has the same shape:
``targets/cpu/kernels/__init__.py``). Operators (``ops/``) describe; these modules say how a GPU computes them.

The code-generator hash of an op (part of its key) is the digest of the files that shape its CUDA C: the
emitter's module, the registry (``registry.py``), ``codegen.py`` (prelude and ABI), and the file declaring the op
(its table row or constants: ``ops/elementwise.py`` for the elementwise family). Hashing whole files is
deliberately conservative: an edit there yields new keys, so a stale cubin is never reused.

Launch sizes (``registry.launch_blocks``): the blocks a spec's kernel wants, declared per op
(``registry.set_launch``: the GEMMs' tiles, ``launch_sizes.py``'s row families), else one thread per element
of the largest output. Only a performance choice (every body is correct for any grid), so not in the key.
"""

from __future__ import annotations

from .registry import (  # noqa: F401 - the package's public names
    EMITTERS,
    Emitter,
    codegen_files,
    codegen_hash,
    default_blocks,
    emit,
    emits,
    emitter,
    launch_blocks,
    register,
    set_launch,
)

__all__ = ["EMITTERS", "Emitter", "codegen_files", "codegen_hash", "default_blocks", "emit", "emits", "emitter",
           "launch_blocks", "register", "set_launch"]

# The families register their emitters on import (registry.py holds the registry).
# Elementwise, reductions, layout and fills, products, and the training family (optimizers, losses, scatters,
# scans, TopK, Dropout):
from . import (  # noqa: E402, F401
    cumulative,
    dropout,
    elementwise,
    filling,
    fused,
    fused_gemm,
    fused_reduce,
    layout,
    losses,
    matmul,
    optimizers,
    reduction,
    scatter,
    segments,
    topk,
)

# isort: split
# The neural-network family; special functions, random sampling, small linear algebra.
from . import (  # noqa: E402, F401
    conv,
    grid_sample,
    linalg,
    linalg_qr,
    linalg_svd,
    norm,
    pooling,
    random_draws,
    special,
)

# isort: split
# Launch sizes of the block-per-row families (a performance choice only; after every family registered).
from . import launch_sizes  # noqa: E402, F401
