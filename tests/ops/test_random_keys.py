"""The random kernels' keys cover every file that shapes their C: the generator's constants (ops/random_ops.py)
and the stream's C (targets/cpu/kernels/random_sample.py) for every sampling and discrete op."""

from __future__ import annotations

import pytest

from opbuild.targets.cpu.kernels import emitter


@pytest.mark.parametrize("op", ["StandardNormal", "UniformReal", "StandardLaplace", "UniformInt", "Multinomial",
                                "RandomShuffle", "RandpermV2"])
def test_stream_sources_are_in_the_key(op):
    files = {f.replace("\\\\", "/") for f in emitter(op).files()}
    assert any(f.endswith("ops/random_ops.py") for f in files), files
    assert any(f.endswith("targets/cpu/kernels/random_sample.py") for f in files), files
