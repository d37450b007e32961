"""float16/bfloat16 GPU kernels and reductions over any axes, without a GPU.

* The prelude's conversions (half.py), compiled for the host exactly as NVRTC compiles them for the device
  (integer code, no device intrinsic besides the bit casts): half -> float over all 65,536 patterns of both
  types, float32/float64 -> half over every half value, every rounding midpoint and its neighbours, the
  overflow threshold and random bit patterns, bit for bit against NumPy and ml_dtypes; NaN made quiet with
  its payload kept, as the CPU target's conversion does.
* NVRTC compiles every kernel of the half part of the GPU suite (suite_gpuhalf.py) for sm_90.
* Each of those kernels run on the host (host_emulation.py) gives the CPU target's kernel's result on the
  same inputs: bit for bit where both compute the same way (the half types' arithmetic, casts, moves,
  comparisons: every half output not produced by a math-library call or a sum), within the CPU float16
  tests' tolerances otherwise (docs/dtypes.md: one half ulp; sums by the sums' rule).
* The half types reach only emitters that opted in; other ops keep refusing them by name.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import opbuild as ms
from opbuild.core.ir import TensorType
from opbuild.ops.registry import get as get_op
from opbuild.runtime.session import session
from opbuild.targets.cuda import CudaTarget, codegen, half, kernels

from .half_conversions import HostConversions, conversion_functions
from .host_emulation import HostKernels, gxx
from .nvrtc_check import compile_specs
from .suite import Case
from .suite_gpuhalf import specs

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(gxx() is None, reason="no host C++ compiler (g++) to run the GPU code on the host")]

BF16 = ml_dtypes.bfloat16
ALL_BITS = np.arange(65536, dtype=np.uint32).astype(np.uint16)


@pytest.fixture(scope="module")
def conv(tmp_path_factory):
    return HostConversions(tmp_path_factory.mktemp("conv"))


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def test_half_to_float_is_exact_for_every_pattern(conv):
    assert np.array_equal(_bits(conv("f16_to_f32", ALL_BITS)), _bits(ALL_BITS.view(np.float16).astype(np.float32)))
    assert np.array_equal(_bits(conv("bf16_to_f32", ALL_BITS)), _bits(ALL_BITS.view(BF16).astype(np.float32)))


def _float32_probes() -> np.ndarray:
    """Every float16 value, every midpoint between neighbours and the floats either side of it, the overflow
    threshold 65520 and its neighbours, subnormals of both types, and 2^20 random float32 bit patterns."""
    h = ALL_BITS.view(np.float16).astype(np.float64)
    h = np.sort(h[np.isfinite(h)])
    mid = ((h[:-1] + h[1:]) / 2).astype(np.float32)
    edge = np.array([65504, 65519.996, 65520, 65520.004, 2 ** -24, 2 ** -25, 3 * 2 ** -26, 2 ** -149, 1e-40],
                    np.float32)
    rng = np.random.default_rng(27)
    rand = rng.integers(0, 2 ** 32, 2 ** 20, dtype=np.uint64).astype(np.uint32).view(np.float32)
    probes = [h.astype(np.float32), mid, np.nextafter(mid, np.float32(np.inf)), np.nextafter(mid, np.float32(-np.inf)),
              edge, rand]
    out = np.concatenate(probes)
    out = out[~np.isnan(out)]  # NaN: test_nan_becomes_a_quiet_nan_with_its_payload
    return np.concatenate([out, -out, np.array([np.inf, -np.inf], np.float32)])


def _nan_rule(bits: np.ndarray, shift: int, width: int) -> np.ndarray:
    """The CPU target's NaN conversion to float16: sign, quiet bit set, the payload's top ten bits kept."""
    sign = (bits >> (width - 1)) & 1
    payload = (bits >> shift) & 0x3FF
    return ((sign << 15) | 0x7E00 | payload).astype(np.uint16)


def test_float_to_half_rounds_to_nearest_even_as_numpy(conv):
    f = _float32_probes()
    with np.errstate(over="ignore", invalid="ignore"):
        assert np.array_equal(conv("f32_to_f16", f), _bits(f.astype(np.float16)))
        assert np.array_equal(conv("f32_to_bf16", f), _bits(f.astype(BF16)))
    d = np.concatenate([f.astype(np.float64),
                        np.random.default_rng(5).integers(0, 2 ** 64, 2 ** 18, dtype=np.uint64).view(np.float64),
                        np.array([1 + 2 ** -11 + 2 ** -40, 1 + 2 ** -11 - 2 ** -40, 65519.99999999, 2.0 ** -1070])])
    d = d[~np.isnan(d)]
    with np.errstate(over="ignore", invalid="ignore"):
        # double -> float16 rounds once (NumPy's and the CPU's _Float16), double -> bfloat16 through float32
        assert np.array_equal(conv("f64_to_f16", d), _bits(d.astype(np.float16)))
        assert np.array_equal(conv("f64_to_bf16", d), _bits(d.astype(BF16)))
    assert conv("f64_to_f16", np.array([1 + 2 ** -11 + 2 ** -40]))[0] == 0x3C01  # the one rounding, not two


def test_nan_becomes_a_quiet_nan_with_its_payload(conv):
    rng = np.random.default_rng(3)
    f_bits = np.concatenate([rng.integers(0x7F800001, 0x80000000, 4096, dtype=np.uint64),
                             rng.integers(0xFF800001, 0x100000000, 4096, dtype=np.uint64)]).astype(np.uint32)
    assert np.array_equal(conv("f32_to_f16", f_bits.view(np.float32)), _nan_rule(f_bits, 13, 32))
    d_bits = np.concatenate([rng.integers(0x7FF0000000000001, 0x7FFFFFFFFFFFFFFF, 4096, dtype=np.uint64),
                             rng.integers(0xFFF0000000000001, 0xFFFFFFFFFFFFFFFF, 4096, dtype=np.uint64)])
    assert np.array_equal(conv("f64_to_f16", d_bits.view(np.float64)), _nan_rule(d_bits, 42, 64))
    got = conv("f32_to_bf16", f_bits.view(np.float32))
    assert np.array_equal(got, ((f_bits >> 16) | 0x40).astype(np.uint16))  # the CPU's bfloat16 rule


def test_nvrtc_compiles_every_half_kernel_and_the_conversions(tmp_path):
    symbols = compile_specs(specs(), tmp_path, "half", conversion_functions(),
                            ["ob_conv_f16_to_f32", "ob_conv_f64_to_f16"])
    assert len(symbols) > 300


# Half outputs whose value may differ by one half ulp between the two targets: the CPU calls libmvec, its own
# expf/tanhf or sums in another order where the GPU code calls the device's math library or sums by a tree.
_MATH_ROWS = {"Exp", "Log", "Sin", "Cos", "Tan", "Tanh", "Sigmoid", "GeLU", "Erf", "Softplus", "Asin", "ACos", "Atan",
              "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Expm1", "Log1p", "Pow", "Atan2", "SigmoidGrad", "TanhGrad",
              "GeLUGrad", "SoftplusGrad", "Xlogy", "Xdivy"}
_SUMS = ("Reduce", "Softmax", "LogSoftmax", "MatMul", "BatchMatMul", "FusedRowReduce", "FusedMatMul",
         "FusedBatchMatMul")
_ULP = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 1e-4, "float64": 1e-10}


def _may_round_differently(spec) -> bool:
    if spec.op.startswith(_SUMS) or spec.op in _MATH_ROWS:
        return True
    members = [m["op"] for m in spec.attrs.get("members", [])] if spec.op == "FusedElementwise" else []
    return any(op in _MATH_ROWS for op in members)


def _compare(case: Case, got: np.ndarray, want: np.ndarray) -> str | None:
    w = np.asarray(want).reshape(got.shape)
    if got.dtype.kind in "iub":
        return None if np.array_equal(got, w) else f"{int((got != w).sum())} integers differ"
    g64, w64 = got.astype(np.float64), w.astype(np.float64)
    same = (_bits(got) == _bits(w)) | (np.isnan(g64) & np.isnan(w64))  # NaN: the device's default NaN differs
    if same.all():
        return None
    if got.dtype.name in ("float16", "bfloat16") and not _may_round_differently(case.spec):
        return f"{int((~same).sum())} of {got.size} differ from the CPU target's bits"
    tol = _ULP[got.dtype.name]
    terms = max(t.size for t in case.spec.inputs) / max(got.size, 1)
    atol = tol * max(terms, 1) ** 0.5 if case.spec.op.startswith(_SUMS) else 0.0
    if np.allclose(g64, w64, rtol=tol, atol=atol, equal_nan=True):
        return None
    return f"max abs diff {np.nanmax(np.abs(g64 - w64)):.3g} beyond rtol {tol:.3g} / atol {atol:.3g}"


def test_every_half_kernel_computes_what_the_cpu_target_does(tmp_path, monkeypatch):
    """The half part of the GPU suite on the host against the CPU target's kernels on the same inputs (every
    float16/bfloat16 result was bit-identical when this was written, transcendental rows and sums included)."""
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path / "cache"))
    suite = [Case(s, 500 + i) for i, s in enumerate(specs())]
    host = HostKernels([c.spec for c in suite], tmp_path)
    ms.set_device("CPU")
    session().builder.build([c.spec for c in suite])  # one batched CPU build; run_eager then loads them
    failures, exact_half = [], 0
    for i, case in enumerate(suite):
        arrays = case.inputs()
        got = host.run(i, case.spec, arrays)
        want = session().run_eager(case.spec, arrays)
        for g, w in zip(got, want, strict=True):
            problem = _compare(case, g, w)
            if problem:
                failures.append(f"{case.label} -> {g.dtype}: {problem}")
            elif g.dtype.name in ("float16", "bfloat16"):
                exact_half += bool(np.array_equal(_bits(g), _bits(np.asarray(w).reshape(g.shape))))
    assert not failures, "\n".join(failures)
    assert exact_half > 250


def test_any_axes_reductions_match_numpy(tmp_path):
    """Reductions over non-adjacent axes (gather form) against NumPy's reference, independent of the CPU
    target: float32 within the sums' rule, integers exactly."""
    chosen = [s for s in specs() if s.op.startswith("Reduce") and s.inputs[0].dtype in ("float32", "int32", "uint8",
                                                                                           "int64")
              and len(s.attrs["axis"]) > 1]
    assert len(chosen) >= 10
    host = HostKernels(chosen, tmp_path)
    for i, spec in enumerate(chosen):
        arrays = Case(spec, i).inputs()
        (got,) = host.run(i, spec, arrays)
        (want,) = get_op(spec.op).run_reference(spec, arrays)
        want = np.asarray(want).reshape(got.shape)
        if got.dtype.kind == "f":
            assert np.allclose(got, want, rtol=1e-5, atol=1e-5), spec.op
        else:
            assert np.array_equal(got, want), spec.op


def test_half_types_reach_only_the_emitters_that_opted_in():
    for op in ("Add", "Exp", "Cast", "ReduceSum", "Softmax", "ArgMax", "MatMul", "FusedElementwise",
               "FusedRowReduce", "FusedMatMul", "Transpose", "Fill"):
        assert op in half.HALF_OPS, op
    assert set(half.HALF_OPS) <= set(kernels.EMITTERS)
    with pytest.raises(codegen.Unsupported, match="does not emit NotOptedIn kernels for float16"):
        codegen.check_dtypes("NotOptedIn", [TensorType((3,), "float16")])
    codegen.check_dtypes("Add", [TensorType((3,), "float16"), TensorType((3,), "bfloat16")])  # no error
    for op in ("Add", "MatMul", "Transpose"):  # half.py (prelude section, helpers) is in every op's key
        assert any(f.endswith("targets/cuda/half.py") for f in kernels.emitter(op).files()), op


def test_half_kernels_round_as_the_cpu_semantics_say():
    """The emitted code: loads convert into float, stores round once; a fused member rounds to its dtype;
    float16 Softmax rounds each step; bfloat16 Softmax rounds once."""
    target = CudaTarget()
    add = target.emit(get_op("Add").spec({}, [TensorType((4,), "float16")] * 2))
    assert "ob_f16_to_f32(in0[o])" in add and "ob_f16_from_f32(" in add
    f16 = target.emit(get_op("Softmax").spec({"axis": -1}, [TensorType((4, 8), "float16")]))
    bf16 = target.emit(get_op("Softmax").spec({"axis": -1}, [TensorType((4, 8), "bfloat16")]))
    assert f16.count("ob_f16_round(") >= 3 and "ob_bf16_round(" not in bf16
    cast = target.emit(get_op("Cast").spec({"dtype": "float16"}, [TensorType((4,), "float64")]))
    assert "ob_f16_from_f64(" in cast  # double -> float16 rounds once


def test_cast_kernels_convert_every_pattern_as_the_cpu_target(tmp_path, monkeypatch):
    """Cast between each half type and float32/float64, both targets' kernels on the same arrays: every half
    pattern (NaNs, infinities, subnormals) and float NaN patterns give the CPU target's bits (NaN compared by
    its bits too: the conversions are integer code on both sides)."""
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path / "cache"))
    rng = np.random.default_rng(11)
    f32 = np.concatenate([_float32_probes()[::7], rng.integers(0x7F800001, 0x80000000, 2048, dtype=np.uint64)
                          .astype(np.uint32).view(np.float32)])
    with np.errstate(invalid="ignore"):  # signalling NaN patterns
        f64 = np.concatenate([f32.astype(np.float64), rng.standard_normal(4096) * 1e-5])
    arrays = {"float16": ALL_BITS.view(np.float16), "bfloat16": ALL_BITS.view(BF16), "float32": f32, "float64": f64}
    pairs = [("float16", "float32"), ("bfloat16", "float32"), ("float16", "float64"), ("bfloat16", "float64"),
             ("float32", "float16"), ("float32", "bfloat16"), ("float64", "float16"), ("float64", "bfloat16"),
             ("float16", "bfloat16"), ("bfloat16", "float16")]
    cast = get_op("Cast")
    specs_ = [cast.spec({"dtype": dst}, [TensorType(arrays[src].shape, src)]) for src, dst in pairs]
    host = HostKernels(specs_, tmp_path)
    ms.set_device("CPU")
    for i, (spec, (src, _)) in enumerate(zip(specs_, pairs, strict=True)):
        (got,) = host.run(i, spec, [arrays[src]])
        (want,) = session().run_eager(spec, [arrays[src]])
        if src in ("float16", "bfloat16"):
            # half -> wider: exact; the CPU's F16C quiets a signalling NaN where NumPy and the GPU keep it
            with np.errstate(invalid="ignore"):
                nan, want_nan = np.isnan(got.astype(np.float64)), np.isnan(want.astype(np.float64))
            assert np.array_equal(_bits(got)[~nan], _bits(want)[~nan]), spec.op + src
            assert np.array_equal(nan, want_nan)
        else:
            assert np.array_equal(_bits(got), _bits(want)), (src, spec.outputs[0].dtype)


@pytest.mark.parametrize("shape, axes", [((6, 5, 7), (0, 2)), ((6, 5, 7), (-1, 0)), ((3, 4, 5, 6), (1, 3)),
                                         ((2, 3, 1, 5, 4), (0, 2, 3)), ((4, 5), (1,)), ((2, 3, 4), (0, 1, 2))])
def test_gather_layout_visits_each_outputs_elements_in_numpys_order(shape, axes):
    """Each row's base and element offsets, evaluated in Python, are the elements NumPy reduces into that
    output element (kept axes in order, reduced axes in C order)."""
    from opbuild.targets.cuda.kernels.reduction import gather_layout

    rows = gather_layout(shape, axes)
    flat = np.arange(int(np.prod(shape))).reshape(shape)
    red = sorted(a % len(shape) for a in axes)
    kept = [a for a in range(len(shape)) if a not in red]
    want = flat.transpose(kept + red).reshape(rows.count, rows.length)
    py = lambda c: c.replace("LL", "").replace("/", "//")  # noqa: E731 - C's / on non-negative operands
    for row in range(rows.count):
        base = eval(py(rows.base), {"row": row})
        got = [eval(py(rows.at("j")), {"base": base, "j": j}) for j in range(rows.length)]
        assert got == list(want[row]), (shape, axes, row)
