"""The training family's GPU kernels (suite_gputrain.py: optimizer updates, losses, the fused GEMM, segment sums,
scatters, cumulative ops, TopK): NVRTC compiles them; run on the host (host_emulation.py: one thread, one block)
they compute what the CPU target's kernels compute on the same inputs, in-place updates both with the output at
the input's address (as the executor runs them) and with separate buffers; the in-place pointers are not
``__restrict__``; what the GPU target does not emit is refused naming the op and what is missing."""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest

from opbuild.core.ir import KernelSpec, TensorType
from opbuild.ops.registry import get as get_op
from opbuild.runtime.session import session
from opbuild.targets.cuda import CudaTarget, codegen, has_status, inplace_pairs

from .host_emulation import HostKernels, gxx
from .nvrtc_check import compile_specs
from .suite_gputrain import TrainCase, loss_specs, train_cases

pytestmark = pytest.mark.slow

TOL = {"float32": (1e-5, 1e-6), "float64": (1e-12, 1e-12)}
# Kernels whose additions may run in another order than the CPU's (a block tree, a BLAS): the CPU tests' rule
# for sums, rtol 1e-4 and atol 1e-4 * sqrt(terms) (float64 1e-10).
ACCUMULATING = ("SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits", "FusedMatMul",
                "FusedBatchMatMul")


def _tolerance(spec: KernelSpec, dtype: str) -> tuple[float, float]:
    if spec.op.startswith(ACCUMULATING):
        acc = 1e-4 if dtype == "float32" else 1e-10
        return acc, acc * max(spec.inputs[0].shape[-1], 1) ** 0.5
    return TOL[dtype]


def _cpu_results(specs: list[KernelSpec], inputs: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
    """Each spec's CPU kernel (built in one batch) on copies of its inputs; an in-place output is its input's
    array, as PyNative runs it."""
    kernels, _ = session().builder.build(specs)
    results = []
    for kernel, spec, arrays in zip(kernels, specs, inputs, strict=True):
        args = [np.ascontiguousarray(a).copy() for a in arrays]
        outs = [np.zeros(t.shape, t.dtype) for t in spec.outputs]
        for o, i in get_op(spec.op).inplace:
            outs[o] = args[i]
        size = get_op(spec.op).workspace_bytes(spec.attrs, spec.inputs, spec.outputs)
        scratch = [np.zeros(size + 64, np.uint8)] if size else []
        addresses = [a.ctypes.data for a in (*args, *outs)] + [-(-s.ctypes.data // 64) * 64 for s in scratch]
        status = np.zeros(3, np.int64)  # the status words of an op that declares a status (kernel ABI 3)
        if get_op(spec.op).status is not None:
            addresses.append(status.ctypes.data)
        kernel.fn((ctypes.c_void_p * len(addresses))(*addresses))
        assert not status[0], f"{spec.op}: the CPU kernel reported an index out of range"
        results.append([np.array(o) for o in outs])
    return results


def _host_run(host: HostKernels, index: int, spec: KernelSpec, arrays: list[np.ndarray],
              aliased: bool) -> list[np.ndarray]:
    """Kernel ``index`` on the host; ``aliased``: each in-place output is its input's buffer."""
    args = [np.ascontiguousarray(a).copy() for a in arrays]
    outs = [np.full(t.shape, 77, t.dtype) for t in spec.outputs]  # garbage: every element must be written
    if aliased:
        for o, i in inplace_pairs(spec.op):
            outs[o] = args[i]
    fn = getattr(host.lib, host.symbols[index])
    fn.restype = None
    status = [np.zeros(3, np.int64)] if has_status(spec.op) else []  # the status words (GPU kernel ABI 2)
    fn(*[ctypes.c_void_p(a.ctypes.data) for a in (*args, *outs, *status)])
    assert not (status and status[0][0]), f"{spec.op}: the GPU kernel reported an index out of range"
    return [np.array(o) for o in outs]


def _differs(spec: KernelSpec, got: list[np.ndarray], want: list[np.ndarray]) -> str | None:
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        if g.dtype.kind == "f":
            rtol, atol = _tolerance(spec, g.dtype.name)
            if not np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True):
                return f"output {k}: max abs diff {np.nanmax(np.abs(g - w)):.3g}"
        elif not np.array_equal(g, w):
            return f"output {k}: {int((g != w).sum())} of {g.size} differ"
    return None


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    if gxx() is None:
        pytest.skip("no host C++ compiler (g++) to run the GPU kernels on the host")
    suite = train_cases()
    suite += [TrainCase(spec, 20_000 + i, names, hi) for i, (spec, names, hi) in enumerate(loss_specs("bad_label"))
              if spec.op.startswith("Sparse")]
    return suite, HostKernels([c.spec for c in suite], tmp_path_factory.mktemp("host"))


def test_host_emulation_equals_the_cpu_target(compiled):
    suite, host = compiled
    inputs = [c.inputs() for c in suite]
    want = _cpu_results([c.spec for c in suite], inputs)
    failures, inplace = [], 0
    # The inputs lie in the ops' domains: NaN only from a label out of range or a NaN input (no comparison is
    # vacuous).
    nan = [c.label for c, w in zip(suite, want, strict=True)
           if any(np.isnan(o).any() for o in w if o.dtype.kind == "f")]
    assert set(nan) <= {c.label for c in suite if {"bad_label", "with_nan"} & set(c.names)}, nan
    assert {c.label for c in suite if "bad_label" in c.names} <= set(nan)
    for i, (case, arrays, w) in enumerate(zip(suite, inputs, want, strict=True)):
        why = _differs(case.spec, _host_run(host, i, case.spec, arrays, aliased=False), w)
        if why:
            failures.append(f"{case.label} (separate buffers): {why}")
        if inplace_pairs(case.spec.op):
            inplace += 1
            why = _differs(case.spec, _host_run(host, i, case.spec, arrays, aliased=True), w)
            if why:
                failures.append(f"{case.label} (in place): {why}")
    assert not failures, failures
    assert inplace >= 30


def test_the_cases_exercise_the_special_paths(compiled):
    """Guards on the inputs themselves: a label out of range gives NaN, a repeated index is in the sparse
    cases, the SGD case has first and later steps, so the comparisons above cover those paths."""
    suite, _ = compiled
    by_op = {}
    for c in suite:
        by_op.setdefault(c.spec.op, c)
    bad = [c for c in suite if c.spec.op == "SparseSoftmaxCrossEntropyWithLogitsGrad" and "bad_label" in c.names]
    labels = bad[0].inputs()[1]
    assert (labels < 0).any() and (labels >= 0).sum() > 2
    idx = by_op["SparseApplyAdagrad"].inputs()[3]
    assert len(set(idx.tolist())) < idx.size and (idx >= 6).any()
    stat = by_op["SGD"].inputs()[5]
    assert 0 < stat.sum() < stat.size


def test_nvrtc_compiles_every_train_kernel(tmp_path):
    compile_specs([c.spec for c in train_cases() + _edge_cases()], tmp_path, "train")


def _types(*types: tuple[tuple[int, ...], str]) -> list[TensorType]:
    return [TensorType(s, d) for s, d in types]


def test_in_place_pairs_lose_restrict_and_nothing_else():
    spec = get_op("ApplyMomentum").spec({}, _types(((4,), "float32"), ((4,), "float32"), ((), "float32"),
                                                   ((4,), "float32"), ((), "float32")))
    source = CudaTarget().translation_unit([("ob_m", spec, CudaTarget().emit(spec))], False)
    signature = source[source.index("ob_m("):].split(")")[0]
    for name in ("in0", "in1", "out0", "out1"):
        assert f"*{name}" in signature and f"__restrict__ {name}" not in signature
    for name in ("in2", "in3", "in4"):
        assert f"*__restrict__ {name}" in signature
    add = get_op("Add").spec({}, _types(((4,), "float32"), ((4,), "float32")))
    assert codegen.params(add.inputs, add.outputs).count("__restrict__") == 3


@pytest.mark.parametrize("op,types,attrs,missing", [
    ("FusedMatMul", [((2, 3), "float32"), ((3, 4), "float32")],
     {"producer": {}, "views": [], "members": [{"op": "Cast", "attrs": {"dtype": "complex64"}, "args": ["i0"]},
                                               {"op": "Cast", "attrs": {"dtype": "float32"}, "args": ["t0"]}]},
     "FusedMatMul epilogue: .*Cast kernels for complex64"),
])
def test_unsupported_combinations_are_refused_by_name(op, types, attrs, missing):
    spec = get_op(op).spec(attrs, _types(*types))
    with pytest.raises(codegen.Unsupported, match=op) as err:
        CudaTarget().emit(spec)
    assert re.search(missing, str(err.value)), err.value


def test_half_types_are_refused_where_the_cpu_refuses_them():
    # The family's half kernels (optimizers, scatters, scans, TopK ...): test_half_families.py.
    for op in ("UnsortedSegmentSum", "Multinomial", "SoftmaxCrossEntropyWithLogits"):
        with pytest.raises(codegen.Unsupported, match=f"{op} kernels for float16"):
            codegen.check_dtypes(op, _types(((4, 3), "float16")))


def _train_step_specs(monkeypatch) -> list[KernelSpec]:
    """The kernels one GRAPH_MODE train step (sparse softmax cross-entropy, Momentum then Adam) of the example
    MLP and transformer encoder asks the builder for (recorded as the CPU target builds them)."""
    import opbuild as ms
    from opbuild import models, nn, ops

    recorded: list[KernelSpec] = []
    builder = session().builder
    build = builder.build

    def record(specs, *args, **kwargs):
        recorded.extend(specs)
        return build(specs, *args, **kwargs)

    monkeypatch.setattr(builder, "build", record)
    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
    try:
        tc = models.TransformerConfig(vocab_size=50, hidden=16, heads=2, layers=1, intermediate=32, seq_len=8,
                                      batch=2)

        class Pooled(nn.Cell):
            def __init__(self, enc):
                super().__init__()
                self.enc, self.mean = enc, ops.ReduceMean()

            def construct(self, ids):
                return self.mean(self.enc(ids), 1)

        for net, x, n in ((models.mlp(20, [16], 5), models.mlp_input(4, 20), 4),
                          (Pooled(models.transformer_encoder(tc)), models.transformer_input(tc), 2)):
            y = ms.Tensor((np.arange(n) % 5).astype(np.int32))
            loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
            for opt in (nn.Momentum(net.trainable_params(), 0.01, 0.9), nn.Adam(net.trainable_params(), 1e-3)):
                step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
                step.set_train()
                assert np.isfinite(float(step(x, y).asnumpy()))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return recorded


def test_the_example_train_steps_kernels_of_this_family_run_on_the_gpu_target(monkeypatch, tmp_path):
    """End to end: every kernel of the training family that the example networks' train steps build (their
    fused GEMMs, loss, segment sums, optimizer updates) is emitted, and on the host equals the CPU target's."""
    mine = {c.spec.op: c for c in train_cases()}
    seen: dict = {}
    for spec in _train_step_specs(monkeypatch):
        if spec.op in mine:
            seen.setdefault(spec.memo_key(), spec)
    ops_seen = {s.op for s in seen.values()}
    assert {"FusedMatMul", "SoftmaxCrossEntropyWithLogits", "UnsortedSegmentSum", "ApplyMomentum",
            "Adam"} <= ops_seen, ops_seen
    specs = list(seen.values())
    # Inputs drawn as the suite's case of the same op draws them (indices in range, positive second moments).
    suite = [TrainCase(s, 30_000 + i, mine[s.op].names,
                       s.attrs.get("num_segments", mine[s.op].hi)) for i, s in enumerate(specs)]
    host = HostKernels(specs, tmp_path)
    inputs = [c.inputs() for c in suite]
    want = _cpu_results(specs, inputs)
    failures = []
    for i, (case, arrays, w) in enumerate(zip(suite, inputs, want, strict=True)):
        for aliased in (False, True):
            why = _differs(case.spec, _host_run(host, i, case.spec, arrays, aliased=aliased), w)
            if why:
                failures.append(f"{case.label} (aliased={aliased}): {why}")
    assert not failures, failures


def test_the_modules_an_emitter_calls_are_in_its_key():
    """FusedMatMul's CUDA C comes from matmul.py's GEMM and the elementwise expressions, the losses' from the
    block reduction of reduction.py: an edit there must rekey those ops (Emitter.deps), and only those."""
    from opbuild.targets.cuda import kernels

    def files(op: str) -> set[str]:
        return {f.replace("\\", "/").split("src/opbuild/")[-1] for f in kernels.emitter(op).files()}

    assert {"targets/cuda/kernels/fused_gemm.py", "targets/cuda/kernels/matmul.py",
            "targets/cuda/kernels/elementwise.py", "ops/elementwise.py", "ops/fused.py",
            "ops/fused_gemm.py"} <= files("FusedMatMul")
    assert "targets/cuda/kernels/reduction.py" in files("SparseSoftmaxCrossEntropyWithLogits")
    assert "ops/optim_apply.py" in files("SparseApplyFtrl")
    assert "targets/cuda/kernels/matmul.py" not in files("ApplyMomentum")


def _edge_cases() -> list[TrainCase]:
    """Empty tensors and degenerate shapes: no segments, no rows, no index rows, k = 0, an empty scan, no
    sparse indices, a whole-tensor scatter (K = 0 index columns)."""
    def spec(op, attrs, *types):
        return get_op(op).spec(attrs, _types(*types))

    f32 = "float32"
    cases = [
        (spec("UnsortedSegmentSum", {"num_segments": 0}, ((3, 2), f32), ((3,), "int32")), ("", "index"), 1),
        (spec("UnsortedSegmentSum", {"num_segments": 3}, ((0, 2), f32), ((0,), "int32")), ("", "index"), 3),
        (spec("SoftmaxCrossEntropyWithLogits", {}, ((0, 4), f32), ((0, 4), f32)), (), 0),
        (spec("SoftmaxCrossEntropyWithLogits", {}, ((3, 0), f32), ((3, 0), f32)), (), 0),
        (spec("SparseSoftmaxCrossEntropyWithLogitsGrad", {}, ((1, 1), f32), ((1,), "int32")), ("", "label"), 1),
        (spec("TensorScatterAdd", {}, ((4, 3), f32), ((0, 1), "int32"), ((0, 3), f32)), ("", "index", ""), 4),
        (spec("TensorScatterMax", {}, ((4, 3), f32), ((2, 0), "int32"), ((2, 4, 3), f32)), ("", "index", ""), 4),
        (spec("ScatterNdUpdateInplace", {}, ((4, 3), f32), ((3, 2), "int64"), ((3,), f32)), ("", "index", ""), 3),
        (spec("TopK", {"k": 0}, ((3, 5), f32)), (), 0),
        (spec("TopK", {"k": 1}, ((1,), f32)), (), 0),
        (spec("CumSum", {"axis": 0, "exclusive": True}, ((0, 3), f32)), (), 0),
        (spec("CumProd", {"axis": 0}, ((), f32)), (), 0),
        (spec("Cummax", {"axis": 0}, ((1, 4), "int64")), (), 0),
        (spec("SparseApplyAdagrad", {"lr": 0.1}, ((4, 3), f32), ((4, 3), f32), ((0, 3), f32), ((0,), "int32")),
         ("var", "accum", "", "index"), 4),
        (spec("ApplyMomentum", {}, ((0,), f32), ((0,), f32), ((), f32), ((0,), f32), ((), f32)), (), 0),
        (spec("Dropout", {"keep_prob": 1.0}, ((7,), f32), ((2,), "int64")), ("", "state"), 0),
        (spec("GatherD", {"dim": 0}, ((3, 2), f32), ((0, 2), "int32")), ("", "signed_index"), 3),
        (spec("StridedSliceGrad", {"start": [0], "step": [1], "count": [0], "xshape": [4]}, ((0,), f32)), (), 0),
        (spec("Multinomial", {"num_samples": 2}, ((2,), "int64"), ((0, 3), f32)), ("state", "weights"), 0),
        (spec("RandpermV2", {"n": 1, "dtype": "int32"}, ((2,), "int64")), ("state",), 0),
    ]
    return [TrainCase(s, 40_000 + i, names, hi) for i, (s, names, hi) in enumerate(cases)]


def test_empty_and_degenerate_shapes(tmp_path):
    suite = _edge_cases()
    host = HostKernels([c.spec for c in suite], tmp_path)
    inputs = [c.inputs() for c in suite]
    want = _cpu_results([c.spec for c in suite], inputs)
    failures = []
    for i, (case, arrays, w) in enumerate(zip(suite, inputs, want, strict=True)):
        for aliased in (False, True):
            why = _differs(case.spec, _host_run(host, i, case.spec, arrays, aliased=aliased), w)
            if why:
                failures.append(f"{case.label} (aliased={aliased}): {why}")
    assert not failures, failures


class _ManyThreads:
    """The kernels compiled for the host with a launch of ``BLOCKS`` blocks of ``THREADS`` threads (``ob_at``
    sets a host thread's coordinates, thread-local; ``__syncthreads`` is a barrier of the block's threads;
    ``__shared__`` variables are statics, shared by the block's threads as on a GPU, blocks running one after
    another). :meth:`run` runs the threads either one after another (kernels without ``__syncthreads``: no
    thread waits for another, so this is one of their valid interleavings and checks that the work is split
    without gaps or overlaps) or concurrently, a block at a time (the block-wide reductions)."""

    BLOCKS, THREADS = 3, 8  # THREADS: a power of two, as the shared-memory trees need (OB_BLOCK)

    def __init__(self, specs: list[KernelSpec], workdir):
        import subprocess

        from .host_emulation import host_source

        target = CudaTarget()
        self.symbols = [f"ob_k{i}" for i in range(len(specs))]
        source = host_source([(s, spec, target.emit(spec)) for s, spec in zip(self.symbols, specs, strict=True)])
        single = ("static const ob_dim3 blockIdx = {0, 0, 0}, threadIdx = {0, 0, 0}, blockDim = {1, 1, 1}, "
                  "gridDim = {1, 1, 1};\nstatic inline void __syncthreads() {}")
        assert single in source and "#define OB_BLOCK 1\n" in source
        source = "#include <pthread.h>\n" + source.replace(single, (
            "static thread_local ob_dim3 blockIdx = {0, 0, 0}, threadIdx = {0, 0, 0};\n"
            f"static const ob_dim3 blockDim = {{{self.THREADS}, 1, 1}}, gridDim = {{{self.BLOCKS}, 1, 1}};\n"
            "static pthread_barrier_t ob_bar;\n"
            f'extern "C" void ob_init(void) {{ pthread_barrier_init(&ob_bar, 0, {self.THREADS}); }}\n'
            'extern "C" void ob_at(unsigned b, unsigned t) { blockIdx.x = b; threadIdx.x = t; }\n'
            "static inline void __syncthreads() { pthread_barrier_wait(&ob_bar); }"))
        source = source.replace("#define OB_BLOCK 1\n", f"#define OB_BLOCK {self.THREADS}\n")
        (workdir / "many.cpp").write_text(source)
        out = subprocess.run([gxx(), "-std=c++17", "-O1", "-fPIC", "-shared", "-fwrapv", "-w", "-pthread", "-o",
                              str(workdir / "many.so"), str(workdir / "many.cpp")], capture_output=True, text=True,
                             timeout=600)
        assert out.returncode == 0, out.stderr[-3000:]
        self.lib = ctypes.CDLL(str(workdir / "many.so"))
        self.lib.ob_init()

    def run(self, index: int, spec: KernelSpec, arrays: list[np.ndarray], aliased: bool,
            concurrent: bool = False) -> list[np.ndarray]:
        import threading

        args = [np.ascontiguousarray(a).copy() for a in arrays]
        outs = [np.full(t.shape, 77, t.dtype) for t in spec.outputs]
        if aliased:
            for o, i in inplace_pairs(spec.op):
                outs[o] = args[i]
        fn = getattr(self.lib, self.symbols[index])
        fn.restype = None
        ptrs = [ctypes.c_void_p(a.ctypes.data) for a in (*args, *outs)]

        def thread(b: int, t: int) -> None:
            self.lib.ob_at(b, t)  # ctypes releases the GIL: the block's threads run at once
            fn(*ptrs)

        for b in range(self.BLOCKS):
            if not concurrent:
                for t in range(self.THREADS):
                    thread(b, t)
                continue
            workers = [threading.Thread(target=thread, args=(b, t), daemon=True) for t in range(self.THREADS)]
            for w in workers:
                w.start()
            for w in workers:
                w.join(timeout=60)
                assert not w.is_alive(), f"{spec.op}: a thread of block {b} never finished (a barrier not reached)"
        return [np.array(o) for o in outs]


def test_grid_stride_kernels_split_their_work_over_many_threads(tmp_path):
    if gxx() is None:
        pytest.skip("no host C++ compiler (g++) to run the GPU kernels on the host")
    target = CudaTarget()
    suite = [c for c in train_cases() + _edge_cases() if "__syncthreads" not in target.emit(c.spec)]
    assert len(suite) > 80
    many = _ManyThreads([c.spec for c in suite], tmp_path)
    inputs = [c.inputs() for c in suite]
    want = _cpu_results([c.spec for c in suite], inputs)
    failures = []
    for i, (case, arrays, w) in enumerate(zip(suite, inputs, want, strict=True)):
        for aliased in (False, True) if inplace_pairs(case.spec.op) else (False,):
            why = _differs(case.spec, many.run(i, case.spec, arrays, aliased), w)
            if why:
                failures.append(f"{case.label} (aliased={aliased}): {why}")
    assert not failures, failures


def test_block_wide_kernels_with_concurrent_threads(tmp_path):
    """The kernels that reduce a row in one block (the losses' shared-memory trees, with __syncthreads) run by
    8 real threads per block, 3 blocks, against the CPU target."""
    if gxx() is None:
        pytest.skip("no host C++ compiler (g++) to run the GPU kernels on the host")
    target = CudaTarget()
    suite = [c for c in train_cases() + _edge_cases() if "__syncthreads" in target.emit(c.spec)]
    assert {c.spec.op for c in suite} >= {"SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits",
                                          "SparseSoftmaxCrossEntropyWithLogitsGrad"}
    many = _ManyThreads([c.spec for c in suite], tmp_path)
    inputs = [c.inputs() for c in suite]
    want = _cpu_results([c.spec for c in suite], inputs)
    failures = [f"{case.label}: {why}" for i, (case, arrays, w) in enumerate(zip(suite, inputs, want, strict=True))
                if (why := _differs(case.spec, many.run(i, case.spec, arrays, False, concurrent=True), w))]
    assert not failures, failures
