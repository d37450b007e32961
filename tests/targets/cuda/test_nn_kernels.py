"""The GPU target's neural-network kernels (targets/cuda/kernels/conv.py, pooling.py, norm.py, grid_sample.py),
without a GPU:

* host emulation (host_emulation.py: the CUDA C compiled by g++, one thread, one block) of every case of
  suite_gpunn.py equals the op's NumPy reference within the CPU tests' tolerances (``NNCase.tolerance``);
* the same kernels launched as several blocks one after another (each block its share of the grid- and
  block-stride loops) give the one-block result exactly: every output is written, by its one owner;
* blocks of 8 concurrent threads (a barrier for ``__syncthreads``) are race-free under ThreadSanitizer and
  give the one-thread results within the tolerance of sums (the shared-memory trees add in another order);
* pooling and its backward equal the CPU target's kernels bit for bit on inputs with tied maxima and a NaN
  (MaxPoolGrad's rule for ties), and the training kernels equal the CPU's within tolerance;
* random small geometries (strides, dilations, groups, padding modes, ceil_mode) equal the references;
* edge shapes (empty batches and sums) equal the CPU's kernels; NVRTC compiles every kernel for sm_90;
* float16/bfloat16 where the CPU refuses them too (GridSampleGrad) are refused with codegen.Unsupported naming
  the op and the dtype (the half kernels: test_half_families.py);
* a GRAPH_MODE CNN builds its GPU kernels, inference (BatchNorm folded into FusedConv2D with a ``pre``
  recipe, as the epilogue pass writes it) and a training step (the backward kernels).
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import opbuild as ms
from opbuild.core.ir import TensorType
from opbuild.ops.registry import get as get_op
from opbuild.runtime.session import session
from opbuild.targets.cuda import CudaTarget, codegen
from opbuild.targets.cuda.errors import NvrtcNotFoundError
from opbuild.targets.cuda.kernels import conv, grid_sample, norm, pooling

from .host_emulation import HostKernels, gxx, host_source
from .suite_gpunn import NNCase, cases

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(gxx() is None, reason="no host C++ compiler (g++) to run the GPU kernels on")]

SUITE = cases()


@pytest.fixture(scope="module")
def host(tmp_path_factory) -> HostKernels:
    return HostKernels([c.spec for c in SUITE], tmp_path_factory.mktemp("nn_host"))


def _close(case: NNCase, got: list[np.ndarray], want: list[np.ndarray], against_cpu: bool = True) -> list[str]:
    bad = []
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        w = np.asarray(w).reshape(g.shape).astype(g.dtype)
        if g.dtype.kind == "f":
            rtol, atol = case.tolerance(g.dtype.name, against_cpu)
            if not np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True):
                bad.append(f"output {k}: max diff {np.nanmax(np.abs(g - w)):.3g} (rtol {rtol}, atol {atol:.2g})")
        elif not np.array_equal(g, w):
            bad.append(f"output {k}: {int((g != w).sum())} differ")
    return bad


def test_the_suite_covers_every_op_of_the_family():
    assert {c.spec.op for c in SUITE} == {*conv.OPS, *pooling.OPS, *norm.OPS, *grid_sample.OPS}


@pytest.mark.parametrize("index", range(len(SUITE)), ids=[c.label for c in SUITE])
def test_host_emulation_equals_the_reference(host, index):
    case = SUITE[index]
    arrays = case.inputs()
    got = host.run(index, case.spec, arrays)
    want = get_op(case.spec.op).run_reference(case.spec, arrays)
    # an output left zero where the reference is not (nearest sampling's d grid is zero)
    assert all(np.any(g != 0) or not np.any(w) for g, w in zip(got, want, strict=True))
    assert not _close(case, got, want, against_cpu=False)


# ---- several blocks: the grid- and block-stride loops split the work, each output has one owner -----------

_ONE_BLOCK = ("static const ob_dim3 blockIdx = {0, 0, 0}, threadIdx = {0, 0, 0}, blockDim = {1, 1, 1}, "
              "gridDim = {1, 1, 1};")
_BLOCKS = ("static ob_dim3 blockIdx = {0, 0, 0}, gridDim = {1, 1, 1};\n"
           "static const ob_dim3 threadIdx = {0, 0, 0}, blockDim = {1, 1, 1};\n"
           'extern "C" void ob_launch_as(unsigned b, unsigned g) { blockIdx.x = b; gridDim.x = g; }')


def test_several_blocks_compute_what_one_block_does(host, tmp_path):
    target = CudaTarget()
    source = host_source([(f"ob_k{i}", c.spec, target.emit(c.spec)) for i, c in enumerate(SUITE)])
    assert _ONE_BLOCK in source
    src, lib = tmp_path / "blocks.cpp", tmp_path / "blocks.so"
    src.write_text(source.replace(_ONE_BLOCK, _BLOCKS))
    subprocess.run([gxx(), "-std=c++17", "-O1", "-fPIC", "-shared", "-fwrapv", "-w", "-o", str(lib), str(src)],
                   check=True, timeout=600)
    so = ctypes.CDLL(str(lib))
    grid = 3
    for i, case in enumerate(SUITE):
        arrays = [np.ascontiguousarray(a) for a in case.inputs()]
        outs = [np.full(t.shape, 7, dtype=t.dtype) for t in case.spec.outputs]  # unwritten elements stay 7
        fn = getattr(so, f"ob_k{i}")
        fn.restype = None
        for b in range(grid):
            so.ob_launch_as(b, grid)
            fn(*[ctypes.c_void_p(a.ctypes.data) for a in (*arrays, *outs)])
        want = host.run(i, case.spec, arrays)
        for g, w in zip(outs, want, strict=True):
            np.testing.assert_array_equal(g, w, err_msg=case.label)


# ---- random geometries ------------------------------------------------------------------------------------

def _random_specs(seed: int = 7, count: int = 10) -> list:
    """Random small convolutions (every op of conv.py but the fused one) and poolings (with their backward
    ops): strides, dilations, groups, explicit, "same" and "valid" padding, ceil_mode, count_include_pad."""
    rng = np.random.default_rng(seed)
    specs = []
    for _ in range(count):
        g = int(rng.choice([1, 2, 3]))
        c, o = g * int(rng.integers(1, 3)), g * int(rng.integers(1, 3))
        kh, kw = (int(v) for v in rng.integers(1, 4, 2))
        attrs = {"out_channel": o, "kernel_size": [kh, kw], "stride": [int(v) for v in rng.integers(1, 3, 2)],
                 "dilation": [int(v) for v in rng.integers(1, 3, 2)], "group": g}
        mode = str(rng.choice(["pad", "same", "valid"]))
        attrs["pad_mode"] = mode
        if mode == "pad":
            attrs["pad"] = [int(v) for v in rng.integers(0, 3, 4)]
        x, w = _t((int(rng.integers(1, 3)), c, int(rng.integers(5, 9)), int(rng.integers(5, 9))), "float32"), \
            _t((o, c // g, kh, kw), "float32")
        fwd = get_op("Conv2D").spec(attrs, [x, w])
        base = {k: v for k, v in fwd.attrs.items() if k != "algo"}
        y = fwd.outputs[0]
        specs += [fwd, get_op("Conv2DBackpropInput").spec({**base, "input_size": list(x.shape)}, [y, w]),
                  get_op("Conv2DBackpropFilter").spec({**base, "filter_size": list(w.shape)}, [y, x])]
        k = [int(v) for v in rng.integers(1, 4, 2)]
        pool = {"kernel_size": k, "strides": [int(v) for v in rng.integers(1, 3, 2)], "pad_mode": "pad",
                "pad": [int(rng.integers(0, k[0] // 2 + 1)), int(rng.integers(0, k[0] // 2 + 1)),
                        int(rng.integers(0, k[1] // 2 + 1)), int(rng.integers(0, k[1] // 2 + 1))],
                "ceil_mode": bool(rng.integers(0, 2))}
        px = _t((1, 2, int(rng.integers(4, 9)), int(rng.integers(4, 9))), "float64")
        for op, extra in (("MaxPool", {}), ("AvgPool", {"count_include_pad": bool(rng.integers(0, 2))})):
            p = get_op(op).spec({**pool, **extra}, [px])
            specs += [p, get_op(op + "Grad").spec(p.attrs, [px, p.outputs[0], p.outputs[0]])]
    return specs


def test_random_geometries_equal_the_reference(tmp_path):
    specs = _random_specs()
    kernels = HostKernels(specs, tmp_path)
    for i, spec in enumerate(specs):
        case = NNCase(spec, i, ties="Pool" in spec.op)
        arrays = case.inputs()
        want = get_op(spec.op).run_reference(spec, arrays)
        assert not _close(case, kernels.run(i, spec, arrays), want, against_cpu=False), (spec.op, spec.attrs)


# ---- one block of many threads: the shared-memory trees under ThreadSanitizer ----------------------------

_THREADS = 8
_THREADED = """#include <thread>
#include <pthread.h>
#include <cstdio>
#include <cstdlib>
static thread_local ob_dim3 threadIdx = {0, 0, 0};
static ob_dim3 blockIdx = {0, 0, 0}, gridDim = {1, 1, 1};
static const ob_dim3 blockDim = {OB_THREADS, 1, 1};
static pthread_barrier_t ob_bar;
static struct ob_bar_init_t { ob_bar_init_t() { pthread_barrier_init(&ob_bar, 0, OB_THREADS); } } ob_bar_init;
static inline void __syncthreads() { pthread_barrier_wait(&ob_bar); }"""


def _threaded_program(specs) -> str:
    """A program running each kernel of ``specs`` as blocks of ``_THREADS`` concurrent threads (one block
    after another, the barrier standing for ``__syncthreads``) on the inputs ``k<i>_<j>.bin`` of the folder
    it is given, writing ``k<i>_out<j>.bin``."""
    target = CudaTarget()
    source = host_source([(f"ob_k{i}", s, target.emit(s)) for i, s in enumerate(specs)])
    assert _ONE_BLOCK in source and "static inline void __syncthreads() {}" in source
    source = (source.replace(_ONE_BLOCK, _THREADED.replace("OB_THREADS", str(_THREADS)))
              .replace("static inline void __syncthreads() {}", "")
              .replace("#define OB_BLOCK 1\n", f"#define OB_BLOCK {_THREADS}\n"))
    main = ["static void *ob_read(const char *dir, const char *name, size_t bytes) {",
            "  char path[4096]; snprintf(path, sizeof path, \"%s/%s\", dir, name);",
            "  void *p = calloc(bytes ? bytes : 1, 1); FILE *f = fopen(path, \"rb\");",
            "  if (bytes && fread(p, 1, bytes, f) != bytes) abort(); fclose(f); return p; }",
            "static void ob_write(const char *dir, const char *name, const void *p, size_t bytes) {",
            "  char path[4096]; snprintf(path, sizeof path, \"%s/%s\", dir, name);",
            "  FILE *f = fopen(path, \"wb\"); fwrite(p, 1, bytes, f); fclose(f); }",
            "int main(int argc, char **argv) {", "  const char *dir = argv[1]; const unsigned grid = atoi(argv[2]);"]
    for i, spec in enumerate(specs):
        ins = [f"(const {codegen.ctype(t.dtype)} *)ob_read(dir, \"k{i}_{j}.bin\", "
               f"{t.size * np.dtype(t.dtype).itemsize})" for j, t in enumerate(spec.inputs)]
        outs = [f"({codegen.ctype(t.dtype)} *)calloc({max(t.size, 1)}, {np.dtype(t.dtype).itemsize})"
                for t in spec.outputs]
        names = [f"i{j}" for j in range(len(ins))] + [f"r{j}" for j in range(len(outs))]
        decl = " ".join(f"auto {n} = {e};" for n, e in zip(names, ins + outs, strict=True))
        main += [f"  {{ {decl}",
                 "    for (unsigned b = 0; b < grid; b++) { blockIdx.x = b; gridDim.x = grid; "
                 f"std::thread th[{_THREADS}];",
                 f"      for (unsigned t = 0; t < {_THREADS}; t++) th[t] = std::thread([=]() {{ threadIdx.x = t; "
                 f"ob_k{i}({', '.join(names)}); }});",
                 "      for (auto &x : th) x.join(); }"]
        main += [f"    ob_write(dir, \"k{i}_out{j}.bin\", r{j}, {t.size * np.dtype(t.dtype).itemsize});"
                 for j, t in enumerate(spec.outputs)]
        main.append("  }")
    main += ["  return 0;", "}"]
    return source + "\n" + "\n".join(main) + "\n"


def test_blocks_of_many_threads_race_free_under_thread_sanitizer(tmp_path):
    """Each block's threads run concurrently (the shared-memory trees with 8 threads, three blocks): no data
    race that ThreadSanitizer sees, and the results equal the one-thread ones within the tolerance of sums
    (the tree adds in another order)."""
    src, exe = tmp_path / "threads.cpp", tmp_path / "threads"
    specs = [c.spec for c in SUITE]
    src.write_text(_threaded_program(specs))
    built = subprocess.run([gxx(), "-std=c++17", "-O1", "-g", "-fsanitize=thread", "-pthread", "-fwrapv", "-w",
                            "-o", str(exe), str(src)], capture_output=True, text=True, timeout=600)
    if built.returncode != 0 and "tsan" in built.stderr:
        pytest.skip(f"no ThreadSanitizer runtime: {built.stderr[-300:]}")
    assert built.returncode == 0, built.stderr[-3000:]
    arrays = [c.inputs() for c in SUITE]
    for i, ins in enumerate(arrays):
        for j, a in enumerate(ins):
            np.ascontiguousarray(a).tofile(tmp_path / f"k{i}_{j}.bin")
    run = subprocess.run([str(exe), str(tmp_path), "3"], capture_output=True, text=True, timeout=600,
                         env=dict(os.environ, TSAN_OPTIONS="halt_on_error=1 exitcode=66"))
    assert run.returncode == 0 and "ThreadSanitizer" not in run.stderr, run.stderr[-4000:]
    host = HostKernels(specs, tmp_path)
    for i, case in enumerate(SUITE):
        want = host.run(i, case.spec, arrays[i])
        got = [np.fromfile(tmp_path / f"k{i}_out{j}.bin", dtype=t.dtype).reshape(t.shape)
               for j, t in enumerate(case.spec.outputs)]
        assert not _close(case, got, want), case.label


# ---- the CPU target's kernels --------------------------------------------------------------------------

def _cpu(spec, arrays):
    ms.set_device("CPU")
    return session().run_eager(spec, arrays)


def _pool_cases() -> list[tuple[int, NNCase]]:
    return [(i, c) for i, c in enumerate(SUITE) if c.spec.op in ("MaxPool", "AvgPool", "MaxPoolGrad", "AvgPoolGrad")]


def test_pooling_equals_the_cpu_kernels_bit_for_bit_with_ties_and_nan(host):
    checked = 0
    for i, case in _pool_cases():
        arrays = case.inputs()
        x = arrays[0]
        if x.dtype.kind == "f":
            x.reshape(-1)[5] = np.nan  # a NaN wins its windows' max and takes their gradient
        flat = x.reshape(-1)
        assert len(np.unique(flat)) < flat.size / 2  # ties in plenty (NNCase rounds to halves)
        got = host.run(i, case.spec, arrays)
        want = _cpu(case.spec, arrays)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w, err_msg=case.label)
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize("op", ["BatchNormTraining", "BatchNormGrad", "BatchNorm", "LayerNorm", "BiasAddGrad",
                                "GlobalAvgPool", "Conv2DBackpropFilter", "FusedConv2D", "GridSample",
                                "GridSampleGrad"])
def test_equals_the_cpu_kernels(host, op):
    found = [(i, c) for i, c in enumerate(SUITE) if c.spec.op == op]
    assert found
    for i, case in found:
        arrays = case.inputs()
        assert not _close(case, host.run(i, case.spec, arrays), _cpu(case.spec, arrays)), case.label


# ---- NVRTC and refusals ----------------------------------------------------------------------------------

def test_nvrtc_compiles_every_nn_kernel(tmp_path, monkeypatch):
    from opbuild.targets.cuda.nvrtc import Nvrtc

    monkeypatch.setenv("OPBUILD_CUDA_ARCH", "sm_90")
    try:
        compiler = Nvrtc("sm_90")
    except NvrtcNotFoundError as e:
        pytest.skip(f"NVRTC is not installed (pip install 'opbuild[cuda]'): {e}")
    target = CudaTarget()
    specs = [c.spec for c in SUITE] + _edge_specs()
    items = [(f"ob_k{i}", spec, target.emit(spec)) for i, spec in enumerate(specs)]
    result = target.compile(compiler, target.translation_unit(items, False), tmp_path / "nn.cubin", tmp_path,
                            False, "nn")
    target.validate(result.binary.read_bytes(), [symbol for symbol, _, _ in items])


def _t(shape, dtype):
    return TensorType(tuple(shape), dtype)


_BACKPROP = {"out_channel": 4, "kernel_size": [3, 3], "pad_mode": "pad", "pad": [1, 1, 1, 1], "stride": [1, 1],
             "dilation": [1, 1], "group": 1, "mode": 1, "data_format": "NCHW"}


def _edge_specs():
    """Empty batches, empty sums and one-element channels: what the CPU's kernels special-case."""
    f = "float32"

    def s(op, attrs, *types):
        return get_op(op).spec(attrs, [_t(sh, d) for sh, d in types])

    p3 = ((3,), f)
    return [s("Conv2D", {"out_channel": 4, "kernel_size": 3, "pad_mode": "same"}, ((0, 3, 5, 5), f),
              ((4, 3, 3, 3), f)),
            s("Conv2D", {"out_channel": 4, "kernel_size": 3, "pad_mode": "same"}, ((2, 0, 5, 5), f),
              ((4, 0, 3, 3), f)),
            s("Conv2DBackpropFilter", {**_BACKPROP, "filter_size": [4, 3, 3, 3]}, ((0, 4, 5, 5), f),
              ((0, 3, 5, 5), f)),
            s("Conv2DBackpropInput", {**_BACKPROP, "input_size": [0, 3, 5, 5]}, ((0, 4, 5, 5), f),
              ((4, 3, 3, 3), f)),
            s("BatchNormTraining", {}, ((0, 3, 4, 4), f), p3, p3, p3, p3),
            s("BatchNormTraining", {}, ((1, 3, 1, 1), f), p3, p3, p3, p3),
            s("BatchNormGrad", {}, ((0, 3, 4, 4), f), ((0, 3, 4, 4), f), p3, p3, p3),
            s("LayerNorm", {"begin_norm_axis": 1}, ((3, 0), f), ((0,), f), ((0,), f)),
            s("BiasAddGrad", {}, ((0, 3, 2), f)),
            s("GlobalAvgPool", {}, ((0, 3, 2, 2), f)),
            s("MaxPool", {"kernel_size": 2, "strides": 2}, ((0, 3, 4, 4), f)),
            s("GridSampleGrad", {}, ((1, 0, 2, 2), f), ((1, 0, 3, 3), f), ((1, 2, 2, 2), f))]


def test_edge_shapes_compute_what_the_cpu_kernels_do(tmp_path):
    specs = _edge_specs()
    kernels = HostKernels(specs, tmp_path)
    rng = np.random.default_rng(0)
    for i, spec in enumerate(specs):
        arrays = [np.abs(rng.standard_normal(t.shape)).astype(t.dtype) for t in spec.inputs]
        for g, w in zip(kernels.run(i, spec, arrays), _cpu(spec, arrays), strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, equal_nan=True, err_msg=spec.op)


@pytest.mark.parametrize("op, types", [
    ("GridSampleGrad", [((1, 2, 3, 2), "float16"), ((1, 2, 4, 4), "float16"), ((1, 3, 2, 2), "float16")]),
])
def test_half_types_are_refused_naming_the_op_and_dtype(op, types):
    # The family's half kernels: tests/targets/cuda/test_half_families.py. GridSampleGrad takes none on the CPU
    # either (its gradient rule casts half operands to float32), so the GPU refuses it by name.
    with pytest.raises(codegen.Unsupported, match=f"{op} kernels for (float16|bfloat16)"):
        codegen.check_dtypes(op, [_t(s, d) for s, d in types])


CNN = """
import json, sys, numpy as np, opbuild as ms
from opbuild import nn, ops
from opbuild.targets.cuda.errors import CudaUnavailableError

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, pad_mode="same", has_bias=True)
        self.bn = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, stride=2, pad_mode="pad", padding=1, group=8)
        self.pool = nn.MaxPool2d(2, 2)
        self.avg = nn.AvgPool2d(2, 1)
        self.ln = nn.LayerNorm((8,), begin_norm_axis=-1, begin_params_axis=-1)

    def construct(self, x):
        y = self.conv(x)
        y = ops.relu(y if self.training else self.bn(y))  # training BatchNorm updates Parameters (Assign)
        y = self.avg(self.pool(self.conv2(y)))
        return self.ln(ops.mean(y, axis=(2, 3)))

ms.set_device("GPU")
ms.set_context(mode=ms.GRAPH_MODE)
net = Net()
net.set_train(sys.argv[1] == "train")
x = ms.Tensor(np.ones((2, 3, 12, 12), np.float32))
try:
    if sys.argv[1] == "train":
        ms.value_and_grad(lambda x: net(x).sum(), None, net.trainable_params())(x)
    else:
        net(x)
    ran = True
except CudaUnavailableError:
    ran = False
report = ms.build_report()
print(json.dumps({"ran": ran, "ops": sorted({k.op for k in report.kernels})}))
"""


@pytest.mark.parametrize("mode, wanted", [
    ("infer", {"FusedConv2D", "MaxPool", "AvgPool", "LayerNorm"}),
    ("train", {"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "MaxPoolGrad", "AvgPoolGrad",
               "BiasAddGrad"}),
])
def test_a_graph_mode_cnn_builds_its_gpu_kernels(tmp_path, mode, wanted):
    script = tmp_path / "cnn.py"
    script.write_text(CNN)
    env = dict(os.environ, OPBUILD_CACHE_PATH=str(tmp_path), OPBUILD_PROGRESS="0", OPBUILD_CUDA_ARCH="sm_90")
    out = subprocess.run([sys.executable, str(script), mode], env=env, capture_output=True, text=True, timeout=300)
    if "NvrtcNotFoundError" in out.stderr:
        pytest.skip("NVRTC is not installed (pip install 'opbuild[cuda]')")
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert wanted <= set(result["ops"]), result
    assert len(list((tmp_path / "rank_0" / "kernel_meta").glob("*.cubin"))) >= len(result["ops"])


def test_a_fused_conv_member_the_gpu_cannot_compute_is_named():
    conv = {"out_channel": 4, "kernel_size": [3, 3]}
    members = [{"op": "Cast", "attrs": {"dtype": "complex64"}, "args": ["i0"]},
               {"op": "Cast", "attrs": {"dtype": "float32"}, "args": ["t0"]}]
    spec = get_op("FusedConv2D").spec({"producer": conv, "views": [], "members": members},
                                      [_t((1, 3, 5, 5), "float32"), _t((4, 3, 3, 3), "float32")])
    with pytest.raises(codegen.Unsupported, match="FusedConv2D epilogue: .*Cast kernels for complex64"):
        CudaTarget().emit(spec)
