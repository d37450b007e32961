"""``_place``, the memory plan's offset assignment, indexes placed buffers by time spans; it must give exactly
the offsets of the plain greedy rule it implements (largest first, each at the lowest offset free of every
placed buffer live at the same time), which the reference below states directly, and never overlap two
buffers that are live together."""

from __future__ import annotations

import random

import pytest

from opbuild.passes.memplan import _BUCKET, Buffer, _place


def _reference(specs: list[tuple[int, int, int]]) -> tuple[int, list[int]]:
    order = sorted(range(len(specs)), key=lambda i: (-specs[i][0], specs[i][1]))
    offsets, placed, top = [0] * len(specs), [], 0
    for i in order:
        size, start, end = specs[i]
        off = 0
        for j in sorted((j for j in placed if specs[j][1] <= end and start <= specs[j][2]), key=offsets.__getitem__):
            if off + size <= offsets[j]:
                break
            off = max(off, offsets[j] + specs[j][0])
        offsets[i] = off
        top = max(top, off + size)
        if size:
            placed.append(i)
    return top, offsets


@pytest.mark.parametrize("seed", range(40))
def test_place_is_the_greedy_rule(seed):
    rng = random.Random(seed)
    steps = rng.choice([3, _BUCKET - 1, _BUCKET, 5 * _BUCKET + 7])
    specs = []
    for _ in range(rng.randint(1, 250)):
        start = rng.randint(0, steps)
        end = min(steps, start + rng.choice([0, 1, 2, 9, _BUCKET, 3 * _BUCKET, 10 * _BUCKET]))
        specs.append((rng.choice([0, 4, 36, 64, 64, 100, 128, 4096]), start, end))
    buffers = [Buffer(*s) for s in specs]
    top = _place(buffers, True)
    assert (top, [b.offset for b in buffers]) == _reference(specs)
    for i, a in enumerate(buffers):
        for b in buffers[i + 1:]:
            if a.nbytes and b.nbytes and a.start <= b.end and b.start <= a.end:
                assert a.offset + a.nbytes <= b.offset or b.offset + b.nbytes <= a.offset


def test_place_without_sharing_stacks_the_buffers():
    buffers = [Buffer(64, 0, 1), Buffer(128, 5, 6), Buffer(64, 7, 9)]
    assert _place(buffers, False) == 256
    assert sorted(b.offset for b in buffers) == [0, 128, 192]
