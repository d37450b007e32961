"""The target seam: the registry feeds SUPPORTED_TARGETS, device_target selects the builder's target, and the
CPU target implements the Target interface (emit, compile, validate, load, allocate)."""

from __future__ import annotations

import ast
import ctypes
from pathlib import Path

import numpy as np
import pytest

import opbuild
from opbuild import targets
from opbuild.builder import Builder
from opbuild.core import config
from opbuild.core.ir import TensorType
from opbuild.ops import REGISTRY
from opbuild.targets.base import Target
from opbuild.targets.cpu import CpuTarget
from opbuild.targets.cpu.kernels import emit


def test_supported_targets_come_from_the_registry() -> None:
    assert config.SUPPORTED_TARGETS == targets.names() == ("CPU", "GPU")
    assert config.TARGETS is targets.REGISTRY  # one table, in core: config imports no target to check a name
    assert isinstance(targets.create("cpu"), CpuTarget)
    assert type(targets.create("gpu")).__name__ == "CudaTarget"  # one folder, one line (tests/targets/cuda)
    # Instances belong to their owner (the session's Builder), not to the targets package.
    assert targets.create("CPU") is not targets.create("CPU")


def test_device_target_selects_the_builders_target() -> None:
    before = opbuild.get_context("device_target")
    try:
        opbuild.set_context(device_target="cpu")
        assert config.device_target() == "CPU"
        builder = Builder()
        assert isinstance(builder.target, CpuTarget) and builder.target is builder.target
    finally:
        opbuild.set_context(device_target=before)


def test_cpu_target_round_trip(tmp_path) -> None:
    target: Target = targets.create("CPU")
    spec = REGISTRY["Square"].spec({}, [TensorType((4,), "float32")])
    source = target.translation_unit([("ob_sq", spec, emit(spec))], False)
    compiler = target.find_compiler()
    result = target.compile(compiler, source, tmp_path / ("sq" + target.binary_suffix), tmp_path, False, "sq")
    binary = result.binary.read_bytes()
    target.validate(binary, ["ob_sq"])
    with pytest.raises(ValueError):
        target.validate(binary, ["ob_missing"])
    kernel = target.load(result.binary, "square_x", "ob_sq")
    x = np.arange(4, dtype=np.float32)
    out = target.allocate((4,), "float32")
    kernel.fn((ctypes.c_void_p * 2)(x.ctypes.data, out.ctypes.data))
    assert np.array_equal(out, x * x)
    assert target.identity()["arch"]


def test_the_cache_imports_no_target() -> None:
    """The cache stores opaque binaries: no module of opbuild/cache imports opbuild.targets at module level."""
    cache = Path(opbuild.__file__).parent / "cache"
    for path in cache.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if isinstance(node, ast.ImportFrom):
                assert "targets" not in (node.module or ""), f"{path} imports {node.module}"
