"""examples/train_lenet.py end to end, twice against one cache: the first process builds the kernels of its
train step, evaluation and prediction graphs, the second builds nothing and reuses every one of them."""

from __future__ import annotations

import os
import re

import pytest

from tests.conftest import REPO, run_python

pytestmark = pytest.mark.slow

_REPORT = re.compile(r"build report \(3 graphs: train step, eval, predict\): (\d+) kernels?: (\d+) reused, "
                     r"(\d+) built")


def _pythonpath() -> str:
    """This checkout's sources first: the script runs from another folder, where a relative PYTHONPATH or
    an editable install of another checkout would otherwise win."""
    return os.pathsep.join(p for p in (str(REPO / "src"), os.environ.get("PYTHONPATH", "")) if p)


def _run(tmp_path, cache):
    proc = run_python(str(REPO / "examples" / "train_lenet.py"), "--epochs", "2", "--out", str(tmp_path / "out"),
                      env={"OPBUILD_CACHE_PATH": str(cache), "PYTHONPATH": _pythonpath()}, cwd=tmp_path, timeout=400)
    out = proc.stdout
    accuracy = float(re.search(r"^test accuracy: ([0-9.]+)$", out, re.M).group(1))
    total, reused, built = map(int, _REPORT.search(out).groups())
    assert re.search(r"^epoch: 2 step: \d+, loss is [0-9.e-]+$", out, re.M), out
    return accuracy, total, reused, built


def test_lenet_example_trains_and_a_second_run_builds_nothing(tmp_path):
    cache = tmp_path / "cache"
    accuracy, total, reused, built = _run(tmp_path, cache)
    assert built == total > 0 and reused == 0
    # two epochs of the ten the example is tuned for: from MindSpore's initial weights for its seed, 0.79
    assert accuracy > 0.75
    assert (tmp_path / "out" / "lenet-2_44.ckpt").is_file()   # 1438 training images: 44 batches of 32
    assert (tmp_path / "out" / "lenet_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    kernels = list((cache / "rank_0" / "kernel_meta").glob("*.so"))
    assert len(kernels) > 0
    again = _run(tmp_path, cache)
    assert again == (accuracy, total, total, 0)     # same seed, same result; every kernel reused
    assert sorted((tmp_path / "out").glob("*.ckpt")) == [tmp_path / "out" / "lenet-2_44.ckpt"]
