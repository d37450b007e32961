"""The GPU target's CUDA C emitters, registered by op name (the CPU's registry has the same shape:
``targets/cpu/kernels/__init__.py``). Operators (``ops/``) describe; these modules say how a GPU computes them.

The code-generator hash of an op (part of its key) is the digest of the files that shape its CUDA C: the
emitter's module, the registry (``registry.py``), ``codegen.py`` (prelude and ABI), and the file declaring the op
(its table row or constants: ``ops/elementwise.py`` for the elementwise family). Hashing whole files is
deliberately conservative: an edit there yields new keys, so a stale cubin is never reused.
"""

from __future__ import annotations

from .registry import (  # noqa: F401 - the package's public names
    EMITTERS,
    Emitter,
    codegen_files,
    codegen_hash,
    emit,
    emits,
    emitter,
    register,
)

__all__ = ["EMITTERS", "Emitter", "codegen_files", "codegen_hash", "emit", "emits", "emitter", "register"]

# The families register their emitters on import (registry.py holds the registry).
from . import elementwise, filling, fused, fused_reduce, layout, matmul, reduction  # noqa: E402, F401

# isort: split
from . import linalg, linalg_qr, linalg_svd, random_draws, special  # noqa: E402, F401 - special fns, random, linalg
