"""One NVRTC program of many GPU kernels, compiled for sm_90 and checked as the cache checks a cubin (an EM_CUDA
ELF defining every kernel's symbol): what each family's "NVRTC compiles every kernel" test does."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from opbuild.core.ir import KernelSpec
from opbuild.targets.cuda import CudaTarget
from opbuild.targets.cuda.errors import NvrtcNotFoundError
from opbuild.targets.cuda.nvrtc import Nvrtc


def compile_specs(specs: Sequence[KernelSpec], workdir: Path, label: str, extra_source: str = "",
                  extra_symbols: Sequence[str] = ()) -> list[str]:
    """Compile the GPU kernels of ``specs`` (plus ``extra_source`` defining ``extra_symbols``) as one program and
    validate the cubin; the kernels' symbols. Skips when NVRTC is not installed (the cuda extra)."""
    try:
        compiler = Nvrtc("sm_90")
    except NvrtcNotFoundError as e:
        pytest.skip(f"NVRTC is not installed (pip install 'opbuild[cuda]'): {e}")
    target = CudaTarget()
    items = [(f"ob_k{i}", spec, target.emit(spec)) for i, spec in enumerate(specs)]
    source = target.translation_unit(items, False) + ("\n" + extra_source if extra_source else "")
    result = target.compile(compiler, source, workdir / f"{label}.cubin", workdir, False, label)
    symbols = [symbol for symbol, _, _ in items]
    target.validate(result.binary.read_bytes(), symbols + list(extra_symbols))
    return symbols


__all__ = ["compile_specs"]
