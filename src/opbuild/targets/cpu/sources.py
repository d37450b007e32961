"""Which source files shape an op's generated C: the one definition of "what determines the generated code".

An op's C comes from:
  * its emitter (registered by op name in targets/cpu/kernels/, where every walk starts) and every function
    and class of opbuild the emitter reaches, transitively: the globals its code (and nested code) names
    (for a module of ours used as a namespace, its file and the attributes the code names), its closure
    cells, the classes' members, and the callables held by opbuild objects among them (a table row of
    ops/ reached from an emitter, with its reference, puts its family file in the hash);
  * the C code generator module (targets/cpu/codegen.py: the kernel ABI, loops, shared helpers), the C
    prelude every translation unit starts with (targets/cpu/prelude.py) and its FFT section (fft_prelude.py,
    which pins the sha256 of the vendored pocketfft it carries), the BLAS
    thread bridge every BLAS translation unit carries (targets/cpu/blas_threads.py) and the prelude section it
    takes from targets/cpu/f16_blocks.py (C text, which the walk cannot attribute);
  * dtypes.py, whose table gives the C type names: data, which the walk cannot attribute to a file;
  * the file declaring the op in ops/ (its ``infer``'s): the op's table row or constants there may shape the
    C as data (a row's C expression), which the walk cannot attribute either.

:func:`generator_files` returns those files. Both the per-kernel key (``kernels.codegen_hash``, recorded in every
``.info``) and the graph-manifest fingerprint (cache/manifest.py) hash exactly these files, so an edit to any
of them changes every key it can affect, and an edit elsewhere changes none.

The walk reads ``co_names`` (every global and attribute name a code object uses): a superset of the globals it
loads, so it may include a file that shapes nothing (a needless rebuild after an edit), never miss one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...core import dtypes
from ..code_reach import emitter_file, reached_files
from . import blas_threads as c_blas_threads
from . import codegen as c_codegen
from . import f16_blocks, fft_prelude
from . import prelude as c_prelude


def generator_files(*emitters: Callable, declared_in: Sequence[str] = ()) -> tuple[str, ...]:
    """Every source file whose code shapes the C that ``emitters`` generate (see the module), sorted.
    ``declared_in``: the files declaring the ops (ops/<family>.py), hashed too: an op's table row or constants
    there may shape its C as data, which no walk of code can attribute."""
    fixed = {c_codegen.__file__, c_prelude.__file__, c_blas_threads.__file__, f16_blocks.__file__, dtypes.__file__,
             fft_prelude.__file__}
    files = reached_files(*emitters) | {emitter_file(e) for e in emitters} | fixed | set(declared_in)
    return tuple(sorted(files))


__all__ = ["emitter_file", "generator_files", "reached_files"]
