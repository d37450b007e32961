"""The GPU target's pieces that need neither NVRTC nor a GPU: the cubin check, the C++ rewrite of statement
expressions, broadcast offsets, the reduction layout, the registry, and that the CPU path imports nothing of
CUDA."""

from __future__ import annotations

import struct
import subprocess
import sys

import pytest

from opbuild.cache import binaries, cubin, elf
from opbuild.cache.admin.scan import scan
from opbuild.core import config
from opbuild.core.errors import ConfigError
from opbuild.core.ir import TensorType
from opbuild.ops.registry import get as get_op
from opbuild.targets.cuda import CudaTarget, codegen, device, kernels
from opbuild.targets.cuda.kernels.reduction import row_layout


def fake_cubin(symbols: dict[str, int], machine: int = cubin.EM_CUDA, e_type: int = cubin.ET_EXEC) -> bytes:
    """A minimal 64-bit ELF with a .symtab: ``symbols`` maps names to st_info (0x12: global function)."""
    strtab = b"\0" + b"".join(s.encode() + b"\0" for s in symbols)
    syms = [struct.pack("<IBBHQQ", 0, 0, 0, 0, 0, 0)]
    off = 1
    for name, info in symbols.items():
        syms.append(struct.pack("<IBBHQQ", off, info, 0, 1, 0, 0))
        off += len(name) + 1
    symtab = b"".join(syms)
    header_size = 64
    str_off, sym_off = header_size, header_size + len(strtab)
    sh_off = sym_off + len(symtab)
    shdrs = [struct.pack("<IIQQQQIIQQ", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
             struct.pack("<IIQQQQIIQQ", 0, 3, 0, 0, str_off, len(strtab), 0, 0, 1, 0),
             struct.pack("<IIQQQQIIQQ", 0, 2, 0, 0, sym_off, len(symtab), 1, 1, 8, 24)]
    ident = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    header = struct.pack("<16sHHIQQQIHHHHHH", ident, e_type, machine, 1, 0, 0, sh_off, 0, 64, 0, 0, 64,
                         len(shdrs), 0)
    return header + strtab + symtab + b"".join(shdrs)


def test_cubin_check_accepts_a_cubin_with_its_kernels_only():
    data = fake_cubin({"ob_aa": 0x12, "local_fn": 0x02, "gdata": 0x11})
    assert cubin.kernel_symbols(data) == {"ob_aa"}
    cubin.check(data, ["ob_aa"])
    with pytest.raises(elf.ElfError, match="does not define the kernel ob_bb"):
        cubin.check(data, ["ob_bb"])


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d[:40], "only|bad magic|past the end"),
    (lambda d: d[:-30], "past the end"),
    (lambda d: fake_cubin({"ob_aa": 0x12}, machine=62), "not a cubin"),
    (lambda d: fake_cubin({"ob_aa": 0x12}, e_type=3), "not a cubin"),
    (lambda d: b"junk" + d[4:], "bad magic"),
])
def test_cubin_check_rejects_what_the_driver_could_not_load(mutate, message):
    with pytest.raises(elf.ElfError, match=message):
        cubin.kernel_symbols(mutate(fake_cubin({"ob_aa": 0x12})))


def test_the_verifier_picks_the_check_by_suffix():
    data = fake_cubin({"ob_aa": 0x12})
    assert binaries.symbols_for(data, ".cubin") == {"ob_aa"}
    with pytest.raises(elf.ElfError):  # a cubin is no shared object of this machine
        binaries.symbols_for(data, ".so")


def test_statement_expressions_become_lambdas():
    assert codegen.cxx_expr("({ int a_ = 1; a_ + x; })") == "([&]() { int a_ = 1; return a_ + x; }())"
    loop = codegen.cxx_expr("({ int r_ = 1; while (e > 0) { r_ *= 2; e--; } r_; })")
    assert loop == "([&]() { int r_ = 1; while (e > 0) { r_ *= 2; e--; } return r_; }())"
    assert codegen.cxx_expr("a + b") == "a + b"


def test_broadcast_offsets_follow_numpy():
    import numpy as np

    out_shape, in_shapes = (3, 4, 5), [(4, 1), (3, 1, 5), (3, 4, 5), ()]
    offsets = codegen.broadcast_offsets(out_shape, in_shapes)
    for shape, expr in zip(in_shapes, offsets, strict=True):
        flat = np.arange(int(np.prod(shape))).reshape(shape)
        expected = np.broadcast_to(flat, out_shape).ravel()
        got = [eval(expr.replace("LL", "").replace("/", "//"), {"o": o}) for o in range(60)]
        assert got == list(expected), (shape, expr)


def test_reduction_layout_and_its_refusal():
    assert row_layout("ReduceSum", (2, 3, 4, 5), (1, 2)) == (2, 12, 5)
    assert row_layout("ReduceSum", (2, 1, 4), (1,)) == (8, 1, 1)
    assert row_layout("ReduceSum", (2, 1, 4), (0, 1)) == (1, 2, 4)
    with pytest.raises(codegen.Unsupported, match="adjacent axes"):
        row_layout("ReduceSum", (2, 3, 4), (0, 2))


def test_unsupported_ops_and_dtypes_are_named():
    target = CudaTarget()
    # An op no GPU emitter covers (GatherD was one until the training family gave it a kernel).
    with pytest.raises(codegen.Unsupported, match="no kernel for operator 'NoSuchGpuOp'"):
        kernels.emitter("NoSuchGpuOp")
    cplx = get_op("Exp").spec({}, [TensorType((4,), "complex64")])
    with pytest.raises(codegen.Unsupported, match="Exp kernels for complex64"):
        target.emit(cplx)
    # the half types reach only the emitters that opted in (half.allow): any other op names op and dtype
    with pytest.raises(codegen.Unsupported, match="Conv2DLike kernels for bfloat16"):
        codegen.check_dtypes("Conv2DLike", [TensorType((4,), "float32"), TensorType((4,), "bfloat16")])


def test_every_elementwise_row_and_reduction_has_a_gpu_emitter():
    from opbuild.ops import elementwise as E

    for op in [*E.UNARY, *E.BINARY, *E.GRAD_BINARY, "Select", "ClipByValue", "Cast", "BroadcastTo", "ReduceSum",
               "ReduceMean", "ReduceMax", "Softmax", "LogSoftmax"]:
        assert op in kernels.EMITTERS, op


def test_codegen_hash_covers_the_op_table_and_the_emitter():
    files = kernels.emitter("Add").files()
    assert any(f.endswith("ops/elementwise.py") for f in files)
    assert any(f.endswith("targets/cuda/kernels/elementwise.py") for f in files)
    assert any(f.endswith("targets/cuda/codegen.py") for f in files)
    assert CudaTarget().codegen_hash("Add") != CudaTarget().codegen_hash("Sub")


@pytest.mark.parametrize("op, reached", [
    ("FusedElementwise", "targets/cuda/kernels/elementwise.py"),  # the members' expressions
    ("FusedMatMul", "targets/cuda/kernels/matmul.py"),  # the product
    ("Conv2DBackpropFilter", "targets/cuda/kernels/reduction.py"),  # the block's shared-memory tree
    ("SoftmaxCrossEntropyWithLogits", "targets/cuda/kernels/reduction.py"),
])
def test_codegen_hash_covers_the_modules_an_emitter_calls(op, reached):
    # The walk of targets/code_reach.py (the CPU's keys use it too): an edit of a module an emitter calls
    # changes that op's key, without the emitter having to list it.
    files = [f.replace("\\", "/") for f in kernels.EMITTERS[op].files()]
    assert any(f.endswith(reached) for f in files), files


def test_arch_comes_from_the_environment_without_a_gpu(monkeypatch):
    if device.probe().ok:
        pytest.skip("a GPU is present: the architecture comes from it")
    monkeypatch.setenv("OPBUILD_CUDA_ARCH", "sm_90")
    assert device.arch() == ("sm_90", "OPBUILD_CUDA_ARCH")
    monkeypatch.setenv("OPBUILD_CUDA_ARCH", "volta")
    with pytest.raises(ConfigError, match="OPBUILD_CUDA_ARCH='volta'"):
        device.arch()
    with pytest.raises(ConfigError, match="OPBUILD_CUDA_ARCH='volta'"):  # every build checks it up front
        config.validate_environment()
    monkeypatch.delenv("OPBUILD_CUDA_ARCH")
    with pytest.raises(device.CudaUnavailableError, match="set OPBUILD_CUDA_ARCH"):
        device.arch()


def test_a_cpu_scan_leaves_gpu_entries_alone(tmp_path):
    name = "exp_" + "a" * 32
    (tmp_path / f"{name}.info").write_text("{}")
    (tmp_path / f"{name}.json").write_text("{}")
    (tmp_path / f"{name}.cubin").write_bytes(fake_cubin({"ob_" + "a" * 32: 0x12}))
    cpu = scan(tmp_path, ".so")
    assert cpu.entries == [] and cpu.orphans == []
    gpu = scan(tmp_path, ".cubin")
    assert [e.name for e in gpu.entries] == [name]


def test_the_cpu_path_imports_nothing_of_cuda():
    code = ("import sys, numpy as np, opbuild as ms\n"
            "from opbuild import nn\n"
            "net = nn.Dense(3, 2)\n"
            "net(ms.Tensor(np.ones((4, 3), np.float32)))\n"
            "bad = sorted(m for m in sys.modules if m.startswith(('cuda', 'nvidia', 'opbuild.targets.cuda')))\n"
            "print('CUDA MODULES:', bad)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "CUDA MODULES: []" in out.stdout, out.stdout


def test_copy_kernels_move_the_elements_numpy_does():
    """The index arithmetic of every data-movement kernel, evaluated in Python over its loops (C's integer
    division and remainder agree with Python's on these non-negative operands), against the op's reference."""
    import re

    import numpy as np

    from opbuild.targets.cuda.kernels.layout import OPS

    from .suite import Case, layout_specs

    COPY_OPS = set(OPS) - {"Gather", "GatherNd"}  # the one-assignment loops; the gathers and the fill family are not

    loop = re.compile(r"e < (\d+)LL; [^{]*\{ (out\d)\[(.*?)\] = (in\d)\[(.*?)\]; \}")
    checked = 0
    for spec in layout_specs():
        if spec.op not in COPY_OPS:
            continue
        body = CudaTarget().emit(spec)
        arrays = Case(spec, 1).inputs()
        flat_in = {f"in{i}": a.ravel() for i, a in enumerate(arrays)}
        outs = {f"out{i}": np.zeros(t.size, t.dtype) for i, t in enumerate(spec.outputs)}
        loops = loop.findall(body)
        assert loops, body
        for n, dst, dst_off, src, src_off in loops:
            d_py, s_py = (c.replace("LL", "").replace("/", "//") for c in (dst_off, src_off))
            for e in range(int(n)):
                outs[dst][eval(d_py, {"e": e})] = flat_in[src][eval(s_py, {"e": e})]
        want = get_op(spec.op).run_reference(spec, arrays)
        for i, w in enumerate(want):
            assert np.array_equal(outs[f"out{i}"].reshape(w.shape), w), spec.op
        checked += 1
    assert checked >= 10
