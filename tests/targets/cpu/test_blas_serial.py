"""Small BLAS calls run on the calling thread alone (codegen.BLAS_PARALLEL_MIN_MACS, docs/threads.md): the
generated C brackets them with ob_blas_serial_begin/end, large calls keep the BLAS's threads, the compile
command names the provider's thread-count setters, and a kernel leaves the BLAS's thread count as it found it."""

from __future__ import annotations

import ctypes

import numpy as np

from opbuild import ops
from opbuild.core.ir import TensorType
from opbuild.ops.registry import get
from opbuild.targets.cpu.codegen import BLAS_PARALLEL_MIN_MACS
from opbuild.targets.cpu.compilers import blas
from opbuild.targets.cpu.kernels import emit
from tests.helpers import run_op


def _source(shapes, **attrs) -> str:
    return emit(get("MatMul").spec(attrs, [TensorType(s, "float32") for s in shapes]))


def test_small_products_run_serial_and_large_ones_keep_the_pool():
    # Products of fewer columns than a vector still call the BLAS: serially when small
    assert "ob_blas_serial_begin" in _source([(64, 784), (784, 8)])
    assert "ob_blas_serial_begin" in _source([(1, 1280), (1280, 1000)])  # a classifier head (gemv)
    side = round(BLAS_PARALLEL_MIN_MACS ** (1 / 2)) + 1
    assert "ob_blas_serial_begin" not in _source([(side, side), (side, 8)])  # large: the BLAS's pool
    # nn.Dense's layer at batch 8 (x @ W^T) and the same with W stored (K, N): the generated GEMM
    # (gemm_tiled.py), no BLAS call at all
    for shapes, tb in (([(8, 784), (256, 784)], True), ([(8, 784), (784, 256)], False)):
        src = _source(shapes, transpose_b=tb)
        assert "OB_BLAS" not in src and "ob_gv" in src and "omp parallel" not in src


def _thread_functions():
    """The provider's thread-count setter and getter, as the compile command names them."""
    identity = blas.find_blas()
    lib = ctypes.CDLL(blas.library_path(identity))
    flags = dict(f[2:].split("=", 1) for f in blas.defines(identity) if "=" in f)
    return getattr(lib, flags["OB_BLAS_SET_THREADS"]), getattr(lib, flags["OB_BLAS_GET_THREADS"])


def test_compile_command_names_the_thread_count_setters():
    setter, getter = _thread_functions()  # AttributeError if the provider's library lacks either symbol
    assert getter() >= 1


def test_a_small_kernel_leaves_the_thread_count_as_it_found_it():
    setter, getter = _thread_functions()
    before = getter()
    setter(2)  # a pool of two, whatever the machine: the kernel must lower it for its call and restore it
    try:
        a = np.random.default_rng(0).standard_normal((8, 64)).astype(np.float32)
        b = np.random.default_rng(1).standard_normal((64, 32)).astype(np.float32)
        np.testing.assert_allclose(run_op(ops.MatMul(), a, b), a @ b, rtol=1e-5, atol=1e-5)
        assert getter() == 2
    finally:
        setter(before)


def test_small_convolution_gemms_run_serial():
    def conv_source(x, w, **attrs):
        return emit(get("Conv2D").spec({"out_channel": w[0], "kernel_size": list(w[2:]), **attrs},
                                       [TensorType(x, "float32"), TensorType(w, "float32")]))

    # a 64-channel 3x3 convolution on an 8x8 map (im2col) and a 1x1 one (gemm): a few M multiply-adds each;
    # forced, as Conv2D itself chooses the BLAS-free tiled kernel (the backward ops keep these BLAS paths)
    assert "ob_blas_serial_begin" in conv_source((1, 64, 8, 8), (64, 64, 3, 3), pad_mode="same", algo="im2col")
    assert "ob_blas_serial_begin" in conv_source((1, 128, 6, 6), (256, 128, 1, 1), algo="gemm")
    assert "ob_blas_serial_begin" not in conv_source((1, 256, 56, 56), (256, 256, 3, 3), pad_mode="same",
                                                     algo="im2col")
