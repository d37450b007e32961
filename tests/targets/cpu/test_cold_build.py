"""Cold-build choices (issue #15): optimisation class per kernel and prelude sections are in the key/source."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from opbuild.builder.requests import Namer
from opbuild.core.ir import KernelSpec, TensorType
from opbuild.ops.registry import get as get_op
from opbuild.targets.cpu import CpuTarget, codegen
from opbuild.targets.cpu.compilers.gcc import GccLike


def _file_digest(path: str) -> str:
    """The real digest of a source file: kernels.codegen_hash memoises the first value it computes per process,
    so a fake digest here would leak into every later test's keys (test_codegen_sources checks the memo)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _spec(op: str, attrs: dict, ins: list[TensorType]) -> KernelSpec:
    return get_op(op).spec(attrs, ins)


def _info(spec: KernelSpec, compiler: dict) -> dict:
    req = Namer().request(spec, compiler, CpuTarget(), _file_digest)
    return json.loads(req.info)


COMPILER = {"path": "/usr/bin/gcc", "version": "gcc 12", "flags": ["-O3"], "class_opt": dict(codegen.CLASS_OPT)}


@pytest.mark.parametrize("op, attrs, ins, expected", [
    ("MatMul", {}, [TensorType((4, 5), "float32"), TensorType((5, 3), "float32")], "glue"),
    ("MatMul", {}, [TensorType((4, 5), "int32"), TensorType((5, 3), "int32")], "compute"),
    ("Transpose", {"perm": (1, 0)}, [TensorType((4, 5), "float32")], "copy"),
    ("Exp", {}, [TensorType((8,), "float32")], "compute"),
])
def test_opt_class_is_in_the_descriptor(op, attrs, ins, expected):
    spec = _spec(op, attrs, ins)
    assert CpuTarget().opt_class(spec) == expected
    assert _info(spec, COMPILER)["opt_class"] == expected


def test_class_flags_are_in_the_key():
    spec = _spec("MatMul", {}, [TensorType((4, 5), "float32"), TensorType((5, 3), "float32")])
    other = {**COMPILER, "class_opt": {**codegen.CLASS_OPT, "glue": "O3"}}
    a = Namer().request(spec, COMPILER, CpuTarget(), _file_digest)
    b = Namer().request(spec, other, CpuTarget(), _file_digest)
    assert a.name != b.name
    assert GccLike("/usr/bin/cc").identity()["class_opt"] == codegen.CLASS_OPT


def _tu(op: str, attrs: dict, ins: list[TensorType]) -> str:
    spec = _spec(op, attrs, ins)
    target = CpuTarget()
    return target.translation_unit([("ob_k", spec, target.emit(spec))], target.needs_blas(op))


def test_copy_kernels_parse_no_math_headers_and_run_at_their_class_level():
    src = _tu("Transpose", {"perm": (1, 0)}, [TensorType((4, 5), "float32")])
    assert "<math.h>" not in src and "<tgmath.h>" not in src and "<stdlib.h>" not in src
    assert 'OB_OPT("O2")' in src


def test_math_kernels_keep_the_math_sections():
    src = _tu("Exp", {}, [TensorType((8,), "float32")])
    assert "<tgmath.h>" in src and "ob_expf" in src
    assert "OB_OPT(" not in src.split("OB_EXPORT", 2)[-1].split("{")[0]  # compute: the command line's -O3
    half = _tu("Neg", {}, [TensorType((8,), "float16")])
    assert "ob_f16_to_f32" in half and "<math.h>" in half


def test_prelude_for_detects_calls():
    assert "<math.h>" not in codegen.prelude_for(["void f(void){ memcpy(a, b, 4); for (;;) {} }"])
    assert "<math.h>" in codegen.prelude_for(["void f(void){ x = sqrt(y); }"])
    assert "<math.h>" in codegen.prelude_for(["void f(void){ x = INFINITY; }"])
    assert "<stdlib.h>" in codegen.prelude_for(["void f(void){ p = malloc(4); }"])


def test_body_takes_restrict_parameters_and_its_call_pulls_no_math():
    """kernel_function: the body is a static function whose buffers are restrict parameters (gcc drops the
    runtime alias checks it adds for restrict locals), called by the exported ABI function; the call of
    ``<symbol>_body`` is not mistaken for a math call by prelude_for."""
    src = _tu("Transpose", {"perm": (1, 0)}, [TensorType((4, 5), "float32")])
    assert 'static inline OB_OPT("O2") void ob_k_body(const float *restrict in0, float *restrict out0) {' in src
    assert 'OB_EXPORT OB_OPT("O2") void ob_k(void *const *args) {' in src
    assert "ob_k_body((const float *)args[0], (float *)args[1]);" in src
    assert "<math.h>" not in src


def _build_and_call(spec: KernelSpec, arrays: list, outs: list) -> None:
    import ctypes

    from opbuild.runtime.session import session

    (kernel,), _ = session().builder.build([spec])
    ptrs = (ctypes.c_void_p * (len(arrays) + len(outs)))(*[a.ctypes.data for a in (*arrays, *outs)])
    kernel.fn(ptrs)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_in_place_maps_stay_correct_with_restrict_parameters(tmp_path, monkeypatch, dtype):
    """Buffers may coincide where the memory plan runs a map in place (out0 over in0) or an update's value is
    its own variable: restrict parameters must not change those results (per-element reads before writes)."""
    import numpy as np

    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path))
    rng = np.random.default_rng(0)
    t = TensorType((3, 1000), dtype)
    x = (rng.normal(0, 10, (3, 1000))).astype(dtype)
    y = (rng.normal(0, 10, (1000,))).astype(dtype)
    want = x + y
    _build_and_call(_spec("Add", {}, [t, TensorType((1000,), dtype)]), [x, y], [x])  # out0 is in0
    np.testing.assert_array_equal(x, want)
    v = (rng.normal(0, 10, 4096)).astype(dtype)
    want = v + v
    _build_and_call(_spec("AssignAdd", {}, [TensorType((4096,), dtype)] * 2), [v, v], [v])  # all one buffer
    np.testing.assert_array_equal(v, want)
