"""The programs of tests/compat/nn_surface_cases.py against MindSpore 2.10's ``str(result)``
(tests/fixtures/mindspore/nn_surface.json, recorded by scripts/record_nn_surface.py): the same text, or the same
nested numbers within float32 rounding, or the same error type where MindSpore refuses, in both execution
modes."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import opbuild as ms

from .nn_surface_cases import CASES

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "nn_surface.json").read_text())
# Lamb, LARS and the matrix cells: MindSpore 2.10 has no CPU kernel for them (the fixture records its
# RuntimeError), so opbuild's results are checked against NumPy's form of what its documentation states.
CPU_UNSUPPORTED_ON_MINDSPORE = {"lamb_plain", "lamb_decay", "lamb_groups", "lamb_dynamic_lr", "lamb_state",
                                "lars_momentum", "lars_sgd_coefficient", "lars_clip", "lars_filter",
                                "lars_loss_scale", "matrix_diag", "matrix_diag_int", "matrix_diag_part",
                                "matrix_diag_part_tall", "matrix_set_diag", "mat_det", "mat_inverse",
                                "embedding_lookup_thor_device"}
# The *Ext layers MindSpore 2.10 runs on Ascend only: compared with torch's functions of the same names.
EXT_ON_ASCEND_ONLY = {"avg_pool1d_ext", "avg_pool1d_ext_default_stride", "avg_pool2d_ext", "avg_pool2d_ext_ceil",
                      "avg_pool3d_ext", "max_pool2d_ext", "max_pool2d_ext_indices", "max_pool2d_ext_dilation",
                      "embedding_ext", "embedding_ext_max_norm", "l1_loss_ext", "log_softmax_ext",
                      "log_softmax_ext_2d"}


def _value(text: str) -> Any:
    """A recorded ``str(result)`` as Python values (dtype names as strings: ``mindspore.float16`` is
    ``'float16'``, as opbuild's ``Float16`` is)."""
    text = re.sub(r"\b(?:mindspore\.)?([Ff]loat\d+|[Ii]nt\d+|[Bb]ool_?)\b", lambda m: repr(m.group(1).lower()), text)
    return ast.literal_eval(text)


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return bool(np.isclose(a, b, rtol=1e-4, atol=2e-4))
    return a == b


# MindSpore's CPU result that is not its documented rule: opbuild refuses the argument (as EmbeddingLookup's).
REFUSED_BY_OPBUILD = {"multi_field_max_norm"}


@pytest.mark.parametrize("name", sorted(set(CASES) - CPU_UNSUPPORTED_ON_MINDSPORE - EXT_ON_ASCEND_ONLY
                                        - REFUSED_BY_OPBUILD))
def test_program_matches_mindspore(name: str, mode: str) -> None:
    env = {"ms": ms, "np": np}
    want = FIXTURE[name]
    if "error" in want:
        with pytest.raises(Exception) as info:  # noqa: B017 - MindSpore raises here; so must opbuild
            exec(CASES[name], env)  # noqa: S102 - the repository's own programs
        kind = want["error"].split(":")[0]
        assert kind in {c.__name__ for c in type(info.value).__mro__}, f"{type(info.value).__name__}: {info.value}"
        return
    exec(CASES[name], env)  # noqa: S102
    got = str(env["result"])
    assert got == want["str"] or _close(_value(got), _value(want["str"])), f"{got}\n!= {want['str']}"


@pytest.mark.parametrize("name", sorted(REFUSED_BY_OPBUILD))
def test_refused_where_mindspore_is_undocumented(name: str) -> None:
    assert "str" in FIXTURE[name]  # MindSpore computes something
    with pytest.raises(NotImplementedError, match="max_norm"):
        exec(CASES[name], {"ms": ms, "np": np})  # noqa: S102


def test_fixture_records_mindspore_2_10() -> None:
    assert FIXTURE["_meta"]["mindspore"] == "2.10.0"
    assert set(FIXTURE) - {"_meta"} == set(CASES)


# ---- Lamb and LARS against NumPy ----


def test_mindspore_cannot_run_these_on_its_cpu() -> None:
    refused = {k for k, v in FIXTURE.items() if "RuntimeError" in v.get("error", "")
               and not k.startswith("adasum_")}  # AdaSum's RuntimeErrors are its checks, compared as errors
    assert refused == CPU_UNSUPPORTED_ON_MINDSPORE | EXT_ON_ASCEND_ONLY


def _start() -> tuple[list[np.ndarray], list[str]]:
    return ([np.sin(np.arange(12, dtype=np.float32)).reshape(3, 4), np.cos(np.arange(4, dtype=np.float32)),
             np.ones(4, np.float32)], ["dense.weight", "dense.bias", "ln.gamma"])


def _grads(k: int, ws: list[np.ndarray]) -> list[np.ndarray]:
    return [(np.sin(np.arange(w.size, dtype=np.float32) * (k + 1.7)) * 0.5).reshape(w.shape) for w in ws]


def _lamb(lrs: Any, b1: float, b2: float, eps: float, decays: list[float]) -> list[np.ndarray]:
    ws, _ = _start()
    ws = [w.astype(np.float64) for w in ws]
    m, v = [np.zeros_like(w) for w in ws], [np.zeros_like(w) for w in ws]
    for k in range(3):
        for i, g in enumerate(_grads(k, ws)):
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            u = (m[i] / (1 - b1 ** (k + 1))) / (np.sqrt(v[i] / (1 - b2 ** (k + 1))) + eps) + decays[i] * ws[i]
            wn, un = np.linalg.norm(ws[i]), np.linalg.norm(u)
            trust = wn / un if wn > 0 and un > 0 else 1.0
            ws[i] = ws[i] - lrs(k, i) * trust * u
    return ws


def _lars(lr: float, momentum: float, decay: float, coefficient: float, epsilon: float, clip: bool,
          rewrite: list[bool]) -> list[np.ndarray]:
    ws, names = _start()
    ws = [w.astype(np.float64) for w in ws]
    acc = [np.zeros_like(w) for w in ws]
    decays = [0.0 if ("beta" in n or "gamma" in n) else decay for n in names]
    for k in range(3):
        for i, g in enumerate(_grads(k, ws)):
            if rewrite[i]:
                wn, gn = np.linalg.norm(ws[i]), np.linalg.norm(g)
                c = coefficient * wn / (gn + decays[i] * wn + epsilon) if wn > 0 and gn > 0 else 1.0
                c = min(c / lr, 1.0) if clip else c
                g = c * (g + decays[i] * ws[i])
            acc[i] = momentum * acc[i] + g
            ws[i] = ws[i] - lr * acc[i]
    return ws


_REFERENCES = {
    "lamb_plain": lambda: _lamb(lambda k, i: 0.1, 0.9, 0.999, 1e-6, [0, 0, 0]),
    "lamb_decay": lambda: _lamb(lambda k, i: 0.05, 0.8, 0.95, 1e-5, [0.1, 0.1, 0.0]),
    "lamb_groups": lambda: _lamb(lambda k, i: 0.02 if i == 0 else 0.1, 0.9, 0.999, 1e-6, [0.2, 0, 0]),
    "lamb_dynamic_lr": lambda: _lamb(lambda k, i: 0.1 * 0.5 ** k, 0.9, 0.999, 1e-6, [0, 0, 0]),
    "lars_momentum": lambda: _lars(0.1, 0.9, 0.01, 0.001, 1e-5, False, [True, False, True]),
    "lars_sgd_coefficient": lambda: _lars(0.2, 0.0, 0.0, 0.01, 1e-3, False, [True, False, True]),
    "lars_clip": lambda: _lars(0.1, 0.9, 0.0, 0.5, 1e-5, True, [True, False, True]),
    "lars_filter": lambda: _lars(0.1, 0.9, 0.05, 0.001, 1e-5, False, [True, False, False]),
    "lars_loss_scale": lambda: _lars(0.1, 0.9, 0.01, 0.001, 1e-5, False, [True, False, True]),
}


@pytest.mark.parametrize("name", sorted(_REFERENCES))
def test_lamb_and_lars_follow_the_documented_rules(name: str, mode: str) -> None:
    env = {"ms": ms, "np": np}
    code = CASES[name]
    if name == "lars_loss_scale":  # the gradients of a loss scaled by 4: LARS divides them back
        code = code.replace("* 0.5)", "* 2.0)")
    exec(code, env)  # noqa: S102 - the repository's own programs (in the mode the fixture set)
    got = [p.asnumpy() for p in env["ps"]]
    for g, w in zip(got, _REFERENCES[name]()):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def test_lamb_state_and_step(pynative_mode) -> None:
    env = {"ms": ms, "np": np}
    exec(CASES["lamb_state"], env)  # noqa: S102
    m_names, v_names, v0, step = env["result"]
    assert m_names == ["lamb_m.dense.weight", "lamb_m.dense.bias", "lamb_m.ln.gamma"]
    assert v_names == ["lamb_v.dense.weight", "lamb_v.dense.bias", "lamb_v.ln.gamma"]
    g0 = _grads(0, _start()[0])[0]
    np.testing.assert_allclose(v0, np.round(0.001 * g0 * g0, 5), atol=1e-6)
    assert step == [1]


# ---- the matrix cells against NumPy ----
def _run(name: str) -> Any:
    env = {"ms": ms, "np": np}
    exec(CASES[name], env)  # noqa: S102
    return env["result"]


def test_matrix_cells_follow_numpy(mode: str) -> None:
    x = np.array([[1, -2, 3], [4, 5, -6]], np.float32)
    assert _run("matrix_diag") == ((2, 3, 3), [np.diag(r).tolist() for r in x])
    assert _run("matrix_diag_int") == (ms.int32, [[1, 0], [0, 2]])
    cube = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    assert _run("matrix_diag_part") == ((2, 3), np.diagonal(cube, 0, -2, -1).tolist())
    assert _run("matrix_diag_part_tall") == ((3,), [0.0, 4.0, 8.0])
    want = cube.copy()
    for b in range(2):
        want[b][np.arange(3), np.arange(3)] = -np.arange(6, dtype=np.float32).reshape(2, 3)[b]
    assert _run("matrix_set_diag") == ((2, 3, 4), want.tolist())
    spd = np.array([[4, 1, 0.5], [1, 3, 0.2], [0.5, 0.2, 2]], np.float32)
    shape, dets = _run("mat_det")
    assert shape == (2,)
    np.testing.assert_allclose(dets, [np.linalg.det(spd), 10.0], rtol=1e-4)
    shape, inv = _run("mat_inverse")
    assert shape == (3, 3)
    np.testing.assert_allclose(inv, np.linalg.inv(spd), rtol=1e-3, atol=1e-4)


# ---- the *Ext layers against torch ----
def _torch_cases() -> dict[str, Any]:
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional

    def r(t: Any) -> list:
        return np.round(t.numpy(), 4).tolist()

    x3 = torch.arange(2 * 3 * 7, dtype=torch.float32).reshape(2, 3, 7)
    x4 = torch.sin(torch.arange(2 * 2 * 5 * 6, dtype=torch.float32) * 0.7).reshape(2, 2, 5, 6)
    x5 = torch.cos(torch.arange(2 * 1 * 4 * 4 * 5, dtype=torch.float32)).reshape(2, 1, 4, 4, 5)
    w = torch.arange(12, dtype=torch.float32).reshape(4, 3)
    a = torch.tensor([[1., 2.], [3., -4.]])
    b = torch.tensor([[0., 2.5], [1., 1.]])
    ls = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4) / 5

    def pooled(y: Any) -> tuple:
        return tuple(y.shape), r(y)

    y, i = tf.max_pool2d(x4, 2, return_indices=True, ceil_mode=True)
    return {
        "avg_pool1d_ext": pooled(tf.avg_pool1d(x3, 3, 2, 1, ceil_mode=True, count_include_pad=False)),
        "avg_pool1d_ext_default_stride": pooled(tf.avg_pool1d(x3, 2)),
        "avg_pool2d_ext": pooled(tf.avg_pool2d(x4, (2, 3), 2, 1, divisor_override=4)),
        "avg_pool2d_ext_ceil": pooled(tf.avg_pool2d(x4, 2, ceil_mode=True)),
        "avg_pool3d_ext": pooled(tf.avg_pool3d(x5, 2, (1, 2, 2), (0, 1, 1), count_include_pad=False)),
        "max_pool2d_ext": pooled(tf.max_pool2d(x4, 3, 2, 1)),
        "max_pool2d_ext_indices": (tuple(y.shape), r(y), ms.int64, i.numpy().tolist()),
        "max_pool2d_ext_dilation": pooled(tf.max_pool2d(x4, 2, 1, dilation=2)),
        "embedding_ext": ((2, 2, 3), r(tf.embedding(torch.tensor([[0, 3], [2, 2]]), w)), "weight", True),
        "embedding_ext_max_norm": (r(tf.embedding(torch.tensor([1, 3]), w.clone(), max_norm=2.0)), False),
        "l1_loss_ext": [r(tf.l1_loss(a, b, reduction=k)) for k in ("mean", "sum", "none")],
        "log_softmax_ext": [r(tf.log_softmax(ls, d)) for d in (0, 0, -1)],
        "log_softmax_ext_2d": r(tf.log_softmax(torch.arange(6, dtype=torch.float32).reshape(2, 3), 1)),
    }


@pytest.mark.parametrize("name", sorted(EXT_ON_ASCEND_ONLY))
def test_ext_layers_match_torch(name: str, mode: str) -> None:
    want = _torch_cases()[name]
    got = _value(str(_run(name)))
    assert _close(got, _value(str(want))), f"{got}\n!= {want}"


def test_embedding_lookup_thor_device_counts_ids(mode: str) -> None:
    """target='DEVICE' (a MindSpore GPU/Ascend path): matrix_a holds the count of each id of the call."""
    y, matrix_a, g_shape, names, thor = _run("embedding_lookup_thor_device")
    assert y == [[[1.0] * 3] * 2] * 2 and matrix_a == [0.0, 1.0, 2.0, 0.0, 1.0]
    assert g_shape == (3, 3) and names == ["embedding_table", "matrix_a", "matrix_g"] and thor is True


def test_adasum_past_mindspore_checks_is_not_implemented() -> None:
    """16 ranks pass MindSpore's checks; opbuild then refuses rather than train without adaptive summation."""
    ms.set_auto_parallel_context(parallel_mode="data_parallel", device_num=16)
    try:
        w = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
        with pytest.raises(NotImplementedError, match="AdaSum"):
            ms.nn.AdaSumByDeltaWeightWrapCell(ms.nn.Momentum([w], 0.1, 0.9))
    finally:
        ms.reset_auto_parallel_context()
