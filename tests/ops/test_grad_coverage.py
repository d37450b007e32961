"""Every primitive with a gradient rule has a gradient check (the table in tests/ops/grad_cases.py).

Enumerates the registry at run time, so an op declared with a rule (``grad_rule`` in its family file) fails
here until it has a case in ``grad_cases.CASES`` (checked numerically by tests/ops/test_grad_checks.py), a
pointer in ``grad_cases.ELSEWHERE`` to the test that checks it, or a reasoned entry in ``grad_cases.EXEMPT``.
Fast on purpose (no kernel is built): it runs in the everyday ``-m "not slow"`` subset."""

from __future__ import annotations

import re

import pytest

from opbuild.ops.registry import NO_GRADIENT, REGISTRY
from tests.conftest import REPO
from tests.ops import grad_cases as G


def differentiable_ops() -> list[str]:
    """The registered primitives whose rule computes a gradient (NO_GRADIENT and rule-less ops left out)."""
    return sorted(n for n, d in REGISTRY.items() if d.grad is not None and d.grad is not NO_GRADIENT)


def test_every_rule_has_a_check():
    covered = set(G.CASES) | set(G.ELSEWHERE) | set(G.EXEMPT) | set(G.REFUSED)
    missing = [op for op in differentiable_ops() if op not in covered]
    assert missing == [], (
        f"{len(missing)} primitive(s) have a gradient rule but no gradient check: {', '.join(missing)}. Add one "
        "line per op to CASES in tests/ops/grad_cases.py (a torch reference, or torch=None for finite "
        "differences), or point ELSEWHERE at the test that checks it")


def test_tables_are_consistent():
    ops = set(differentiable_ops())
    tables = {"CASES": set(G.CASES), "ELSEWHERE": set(G.ELSEWHERE), "EXEMPT": set(G.EXEMPT),
              "REFUSED": set(G.REFUSED)}
    for name, keys in tables.items():
        stale = sorted(keys - ops)
        assert stale == [], f"{name} names ops that have no gradient rule (renamed? removed?): {stale}"
    names = list(tables)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert not tables[a] & tables[b], f"ops in both {a} and {b}: {sorted(tables[a] & tables[b])}"
    assert all(len(reason) > 40 for reason in G.EXEMPT.values()), "every exemption says why"


@pytest.mark.parametrize("op", sorted(G.ELSEWHERE))
def test_elsewhere_pointers_exist(op):
    """The named test exists and its file names the op (its primitive or its MindSpore name)."""
    path, func = G.ELSEWHERE[op].split("::")
    text = (REPO / path).read_text(encoding="utf-8")
    assert re.search(rf"^def {re.escape(func)}\(", text, re.M), f"{G.ELSEWHERE[op]} does not exist"
    assert op in text, f"{path} does not name {op}"
