"""``_place``, the memory plan's offset assignment, indexes placed buffers by time spans; it must give exactly
the offsets of the plain greedy rule it implements (largest first, each at the lowest offset free of every
placed buffer live at the same time), which the reference below states directly, and never overlap two
buffers that are live together."""

from __future__ import annotations

import random

import pytest

from opbuild.passes import memplan
from opbuild.passes.memplan import _BUCKET, Buffer, _overlapping_pairs, _place, _place_linear_scan


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


def _no_live_overlap(buffers: list[Buffer]) -> None:
    for i, a in enumerate(buffers):
        for b in buffers[i + 1:]:
            if a.nbytes and b.nbytes and a.start <= b.end and b.start <= a.end:
                assert a.offset + a.nbytes <= b.offset or b.offset + b.nbytes <= a.offset


def _train_shaped(rng: random.Random, steps: int) -> list[tuple[int, int, int]]:
    """A forward pass whose saved activations live until the mirrored backward step, and short temporaries."""
    specs = []
    for i in range(steps):
        specs.append((rng.choice([0, 64, 64, 128, 256]), i, 2 * steps - i if i % 3 == 0 else i + rng.randint(0, 3)))
    specs += [(rng.choice([64, 100, 4096]), i, i + rng.randint(0, 4)) for i in range(steps, 2 * steps)]
    return specs


@pytest.mark.parametrize("seed", range(12))
def test_overlapping_pairs_counts_the_pairs_live_together(seed):
    rng = random.Random(seed)
    specs = _train_shaped(rng, rng.randint(1, 60))
    want = sum(1 for i, a in enumerate(specs) for b in specs[i + 1:] if a[1] <= b[2] and b[1] <= a[2])
    assert _overlapping_pairs([Buffer(*s) for s in specs]) == want


@pytest.mark.parametrize("seed", range(12))
def test_linear_scan_keeps_live_buffers_apart(seed):
    rng = random.Random(seed)
    specs = _train_shaped(rng, rng.randint(1, 150))
    buffers = [Buffer(*s) for s in specs]
    top = _place_linear_scan(buffers)
    _no_live_overlap(buffers)
    assert top == max((b.offset + b.nbytes for b in buffers), default=0)
    # never below the bytes live at the busiest step
    assert top >= max(sum(b.nbytes for b in buffers if b.start <= t <= b.end) for t in range(2 * len(specs)))


def test_place_switches_to_the_linear_scan_above_the_pairs_limit(monkeypatch):
    specs = _train_shaped(random.Random(7), 120)
    pairs = _overlapping_pairs([Buffer(*s) for s in specs])
    monkeypatch.setattr(memplan, "_GREEDY_PAIRS", pairs - 1)
    buffers, scanned = [Buffer(*s) for s in specs], [Buffer(*s) for s in specs]
    top = _place(buffers, True)
    assert (top, [b.offset for b in buffers]) == (_place_linear_scan(scanned), [b.offset for b in scanned])
    _no_live_overlap(buffers)
    monkeypatch.setattr(memplan, "_GREEDY_PAIRS", pairs)  # at the limit: the greedy rule
    buffers = [Buffer(*s) for s in specs]
    assert (_place(buffers, True), [b.offset for b in buffers]) == _reference(specs)


def test_place_without_sharing_stacks_the_buffers():
    buffers = [Buffer(64, 0, 1), Buffer(128, 5, 6), Buffer(64, 7, 9)]
    assert _place(buffers, False) == 256
    assert sorted(b.offset for b in buffers) == [0, 128, 192]
