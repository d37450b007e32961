"""The tiled GEMM of the GPU target (targets/cuda/kernels/gemm_tiles.py) behind MatMul, BatchMatMul and the
fused GEMMs, checked without a GPU: NVRTC compiles it for sm_90; on the host (one thread) it equals the CPU
target's kernels and, bit for bit, the per-element kernel it replaces (same terms, same order, same types);
with several real threads per block and several blocks (host_threads.py: ``__shared__`` shared, barriers
real) it computes the same bits; the launch asks for one block per tile (the emulated device records it)."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import ops
from opbuild.core.ir import KernelSpec, TensorType
from opbuild.ops.registry import get as get_op
from opbuild.runtime.session import session
from opbuild.targets.cuda import CudaTarget, kernels
from opbuild.targets.cuda.codegen import BLOCK
from opbuild.targets.cuda.kernels import conv_tiles, gemm_tiles, matmul
from opbuild.targets.cuda.kernels.conv import Geometry

from .host_emulation import HostKernels, gxx, host_source
from .host_threads import ThreadedHostKernels
from .nvrtc_check import compile_specs
from .suite import Case
from .suite_gpugemm import cases

pytestmark = pytest.mark.slow

needs_gxx = pytest.mark.skipif(gxx() is None, reason="no host C++ compiler (g++) to run GPU kernels on the host")


def _edge_specs() -> list[KernelSpec]:
    """A reduction axis of length 0 (zeros), an empty batch, exactly one tile."""
    f32 = "float32"
    return [get_op("MatMul").spec({}, [TensorType((20, 0), f32), TensorType((0, 18), f32)]),
            get_op("BatchMatMul").spec({}, [TensorType((0, 20, 4), f32), TensorType((0, 4, 17), f32)]),
            get_op("MatMul").spec({}, [TensorType((64, 16), f32), TensorType((16, 64), f32)])]


def _all_cases() -> list[Case]:
    suite = cases()
    return suite + [Case(spec, 900 + i) for i, spec in enumerate(_edge_specs())]


def _cpu(specs: list[KernelSpec], inputs: list[list[np.ndarray]]) -> list[np.ndarray]:
    """Each spec's CPU-target kernel on its inputs (its one output)."""
    built, _ = session().builder.build(specs)
    results = []
    for kernel, spec, arrays in zip(built, specs, inputs, strict=True):
        args = [np.ascontiguousarray(a) for a in arrays]
        out = np.zeros(spec.outputs[0].shape, spec.outputs[0].dtype)
        size = get_op(spec.op).workspace_bytes(spec.attrs, spec.inputs, spec.outputs)
        scratch = [np.zeros(size + 64, np.uint8)] if size else []
        addresses = [a.ctypes.data for a in (*args, out)] + [-(-s.ctypes.data // 64) * 64 for s in scratch]
        kernel.fn((ctypes.c_void_p * len(addresses))(*addresses))
        results.append(out)
    return results


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint8)


@pytest.fixture(scope="module")
def one_thread(tmp_path_factory):
    if gxx() is None:
        pytest.skip("no host C++ compiler (g++) to run GPU kernels on the host")
    suite = _all_cases()
    return suite, HostKernels([c.spec for c in suite], tmp_path_factory.mktemp("gemm1"))


def test_every_case_is_tiled_and_launches_a_block_per_tile():
    for case in _all_cases():
        spec = case.spec
        if spec.op in matmul.OPS:
            assert matmul.is_tiled(spec), case.label
        if spec.op == "Conv2D":
            g = Geometry.of(spec.attrs, spec.inputs[0].shape, spec.inputs[1].shape, spec.outputs[0].shape)
            assert conv_tiles.is_tiled(g), case.label
        if spec.op == "Conv2DBackpropInput":
            g = Geometry.of(spec.attrs, spec.outputs[0].shape, spec.inputs[1].shape, spec.inputs[0].shape)
            assert conv_tiles.input_grad_tiled(g), case.label
        body = CudaTarget().emit(spec)
        assert "__syncthreads();" in body and "__shared__" in body, case.label
    spec = get_op("MatMul").spec({}, [TensorType((130, 70), "float32"), TensorType((70, 65), "float32")])
    assert kernels.launch_blocks(spec) == 3 * 2
    small = get_op("MatMul").spec({}, [TensorType((5, 70), "float32"), TensorType((70, 600), "float32")])
    assert not matmul.is_tiled(small) and kernels.launch_blocks(small) == -(-3000 // 256)
    vec = get_op("BatchMatMul").spec({}, [TensorType((3, 40, 50), "float32"), TensorType((50,), "float32")])
    assert not matmul.is_tiled(vec)


def test_nvrtc_compiles_the_tiled_kernels(tmp_path):
    compile_specs([c.spec for c in _all_cases()], tmp_path, "gemm")

def test_one_thread_equals_the_cpu_target(one_thread):
    suite, host = one_thread
    inputs = [c.inputs() for c in suite]
    want = _cpu([c.spec for c in suite], inputs)
    failures = []
    for i, (case, arrays, w) in enumerate(zip(suite, inputs, want, strict=True)):
        (g,) = host.run(i, case.spec, arrays)
        dt = g.dtype.name
        if dt in ("float16", "bfloat16", "float32", "float64"):
            rtol, atol = case.tolerance(dt, against_cpu=True) if hasattr(case, "tolerance") else (1e-4, 1e-4)
            ok = np.allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=atol)
        else:
            ok = np.array_equal(g, w)
        if not ok:
            failures.append(case.label)
    assert not failures, failures


@needs_gxx
def test_tiled_equals_the_per_element_kernel_bit_for_bit(one_thread, tmp_path, monkeypatch):
    """Every case against the same op's per-element (gather) kernel, emitted with the tiling switched off:
    the same terms in the same order in the same type, so identical bits (float32, float64, the half types,
    int32; the convolutions' padding and between-stride terms skipped as the gather forms skip them; the
    fused epilogues on the same values)."""
    suite, host = one_thread
    monkeypatch.setattr(matmul, "is_tiled", lambda *_: False)
    monkeypatch.setattr(conv_tiles, "is_tiled", lambda *_: False)
    monkeypatch.setattr(conv_tiles, "input_grad_tiled", lambda *_: False)
    target = CudaTarget()
    bodies = [(f"ob_p{i}", c.spec, target.emit(c.spec)) for i, c in enumerate(suite)]
    assert not any("__shared__" in body for _, _, body in bodies)
    src = host_source(bodies)
    (tmp_path / "plain.cpp").write_text(src)
    out = subprocess.run([gxx(), "-std=c++17", "-O1", "-fPIC", "-shared", "-fwrapv", "-w", "-o",
                          str(tmp_path / "plain.so"), str(tmp_path / "plain.cpp")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    lib = ctypes.CDLL(str(tmp_path / "plain.so"))
    for i, case in enumerate(suite):
        arrays = [np.ascontiguousarray(a) for a in case.inputs()]
        (tiled,) = host.run(i, case.spec, arrays)
        ref = np.zeros(case.spec.outputs[0].shape, case.spec.outputs[0].dtype)
        fn = getattr(lib, f"ob_p{i}")
        fn.restype = None
        fn(*[ctypes.c_void_p(a.ctypes.data) for a in (*arrays, ref)])
        assert np.array_equal(_bits(tiled), _bits(ref)), case.label


@needs_gxx
@pytest.mark.parametrize("threads,blocks", [(4, 3), (3, 2), (64, 2), (256, 2)])
def test_threads_and_blocks_compute_the_same_bits(one_thread, tmp_path, threads, blocks):
    """Several real threads per block staging the tiles in ``__shared__`` between barriers, several blocks
    taking tiles in turn, a block size that does not divide the tile's 256 register blocks, and the GPU's own
    256 (one register block per thread, one pass): the one-thread bits. Dropping either barrier of the K
    step makes every parametrisation fail (checked by hand)."""
    suite, host = one_thread
    picked = [(i, c) for i, c in enumerate(suite) if threads < 64 or c.spec.inputs[0].dtype == "float32"]
    many = ThreadedHostKernels([c.spec for _, c in picked], tmp_path, threads=threads, blocks=blocks)
    for j, (i, case) in enumerate(picked):
        arrays = case.inputs()
        (want,) = host.run(i, case.spec, arrays)
        (got,) = many.run(j, case.spec, arrays)
        assert np.array_equal(_bits(got), _bits(want)), f"{case.label}: {threads} threads x {blocks} blocks"


def test_tile_constants_fill_one_abi_block():
    assert gemm_tiles.THREADS == BLOCK == (gemm_tiles.TILE_M // gemm_tiles.REG) * (gemm_tiles.TILE_N // gemm_tiles.REG)


def test_the_emulated_device_launches_one_block_per_tile(gpu):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    rng = np.random.default_rng(3)
    a = rng.standard_normal((70, 33)).astype(np.float32)
    b = rng.standard_normal((33, 130)).astype(np.float32)
    got = ops.matmul(ms.Tensor(a), ms.Tensor(b)).asnumpy()
    assert gpu.grids[-1][1] == 2 * 3  # ceil(70 / 64) x ceil(130 / 64) tiles
    np.testing.assert_allclose(got, a @ b, rtol=1e-5, atol=1e-5)


def _tsan_runtime() -> str | None:
    compiler = gxx()
    if compiler is None:
        return None
    found = subprocess.run([compiler, "-print-file-name=libtsan.so"], capture_output=True, text=True).stdout.strip()
    return found if os.path.isabs(found) and os.path.exists(found) else None


@pytest.mark.skipif(_tsan_runtime() is None, reason="no ThreadSanitizer runtime (libtsan) for the host compiler")
def test_no_data_race_under_thread_sanitizer():
    """The tiles staged in ``__shared__`` between the two barriers of each K step, 4 threads per block under
    ThreadSanitizer (_tsan_gemm_worker.py): no race reported. Dropping either barrier makes it report races
    (checked by hand)."""
    env = dict(os.environ, LD_PRELOAD=_tsan_runtime(), TSAN_OPTIONS="halt_on_error=1 exitcode=66",
               OPBUILD_CUDA_ARCH="sm_90")
    run = subprocess.run([sys.executable, str(Path(__file__).with_name("_tsan_gemm_worker.py"))], env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0 and "ThreadSanitizer" not in run.stderr, run.stderr[-4000:]
    assert run.stdout.strip().splitlines()[-1].startswith("ran ")


def test_the_tiled_kernels_keep_their_accumulators_in_registers(monkeypatch):
    """ptxas' report (NVRTC, sm_90, the target's flags plus ``--ptxas-options=-v``) for ResNet- and
    BERT-sized products: no stack frame and no spills in any tiled kernel (the 4 x 4 accumulators and the
    register blocks stay in registers; a dynamically indexed accumulator would put them in local memory), and
    the shared memory is the two staged slices (plus the padding flags of the convolutions)."""
    try:
        from cuda.bindings import nvrtc
    except ImportError as e:
        pytest.skip(f"NVRTC is not installed (pip install 'opbuild[cuda]'): {e}")
    f32, f64 = "float32", "float64"
    conv = {"out_channel": 64, "kernel_size": [3, 3], "pad_mode": "pad", "pad": 1}
    xs, ws = TensorType((16, 64, 56, 56), f32), TensorType((64, 64, 3, 3), f32)
    fwd = get_op("Conv2D").spec(conv, [xs, ws])
    base = {k: v for k, v in fwd.attrs.items() if k != "algo"}
    specs = [get_op("MatMul").spec({}, [TensorType((1024, 1024), f32)] * 2),
             get_op("MatMul").spec({"transpose_a": True, "transpose_b": True}, [TensorType((512, 512), f64)] * 2),
             get_op("BatchMatMul").spec({"transpose_b": True}, [TensorType((48, 512, 64), "float16")] * 2),
             fwd, get_op("Conv2DBackpropInput").spec({**base, "input_size": list(xs.shape)}, [fwd.outputs[0], ws])]
    target = CudaTarget()
    src = target.translation_unit([(f"ob_r{i}", s, target.emit(s)) for i, s in enumerate(specs)], False)
    result, prog = nvrtc.nvrtcCreateProgram(src.encode(), b"tiles.cu", 0, [], [])
    opts = [b"--gpu-architecture=sm_90", b"--std=c++17", b"-default-device", b"--dopt=on", b"--ptxas-options=-v"]
    (status,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    _, size = nvrtc.nvrtcGetProgramLogSize(prog)
    log = b" " * size
    nvrtc.nvrtcGetProgramLog(prog, log)
    text = log.decode(errors="replace").replace("\0", "")
    nvrtc.nvrtcDestroyProgram(prog)
    assert int(status) == 0, text[-3000:]
    assert text.count("Function properties for ob_r") == len(specs), text
    assert text.count("0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads") == len(specs), text
    assert "8320 bytes smem" in text and "16640 bytes smem" in text and "9360 bytes smem" in text, text
