"""MindSpore 2.10's CPU streams of ``Multinomial``, ``RandomShuffle``, ``StandardLaplace`` and ``RandpermV2``,
reproduced bit for bit on the host (PYNATIVE_MODE; checked against tests/fixtures/mindspore/random_streams.json).

What MindSpore's kernels do, found from their behaviour (and the generators of core/ms_random_streams.py):

* ``Multinomial``, ``RandomShuffle`` and ``StandardLaplace`` seed a ``std::minstd_rand0`` from the op's seed pair
  as ``StandardNormal`` does (Philox mix, modulo ``2**31 - 1``); a primitive object keeps one generator per
  kernel (input shape, and for ``Multinomial`` the sample count), continued across its calls;
* ``Multinomial``: per row, the running sum of the weights in their own dtype, divided by the row's total
  (when not 0); each sample draws one ``uniform_real_distribution<float>`` value (``float(w - 1) / 2**31``),
  cast to the weights' dtype, and takes the first category whose normalised running sum exceeds it (the last
  category if none among the others does), by binary search. Rows draw in order, a row's samples in order;
* ``RandomShuffle``: ``std::shuffle`` (libstdc++'s, which draws two swap positions from one integer while the
  generator's range allows it) of ``range(len(x))`` with the division-based ``uniform_int_distribution``;
  the output is ``x[perm]``. A first axis of length 0 or 1 copies ``x`` without drawing;
* ``StandardLaplace``: ``u = uniform_real_distribution<float>(nextafter(-1, 0), 1)`` (float32 arithmetic), then
  ``-sign(u) * log(1 - |u|)`` in double, rounded to float32;
* ``RandpermV2``: ``std::shuffle`` of ``range(n)`` with a ``std::mt19937`` seeded with ``offset`` when it is not
  0, else ``seed`` (modulo 2**32): a pure function of ``(n, seed, offset)``;
* ``RandomCategorical`` with a seed (not 0): a minstd_rand0 seeded from the pair ``(0, seed)``; per row
  ``cdf`` = running sums (logits' dtype) of ``expf(logit - row max)``; sample ``j`` draws one
  ``uniform_real_distribution<double>`` value, rounded to float, shared by every row, and takes the first
  category whose ``cdf`` reaches ``cdf[-1] * u``. A primitive object keeps one generator per kernel (logits'
  shape and dtype, sample count and seed), continued across its calls;
* ``Bernoulli`` with a seed (not -1): a Philox-4x32-10 stream keyed by the seed, counter high half 0, started
  afresh at every call (the same seed gives the same values; the ``offset`` attribute is not read); each value
  takes one word's 23 low bits as a float in [0, 1) and is 1 where that float is at most ``p``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .ms_random_streams import KernelStream, expf
from .philox_fill import philox_uint32

_MT_CHUNK = 4096


class _MtWords:
    """A ``std::mt19937`` seeded with ``seed`` (modulo 2**32), as a word source for :func:`shuffle_permutation`."""

    low, span = 0, 2**32 - 1  # the generator's min and max - min

    def __init__(self, seed: int):
        self._rs = np.random.RandomState(seed & 0xFFFFFFFF)
        self._buf: list[int] = []
        self._pos = 0

    def __call__(self) -> int:
        if self._pos == len(self._buf):
            self._buf = self._rs.randint(0, 2**32, size=_MT_CHUNK, dtype=np.uint64).tolist()
            self._pos = 0
        self._pos += 1
        return self._buf[self._pos - 1]


class _MinstdWords:
    """A KernelStream's ``std::minstd_rand0`` as a word source, advancing the stream word by word."""

    low, span = 1, 2**31 - 3

    def __init__(self, stream: KernelStream):
        self._next: Callable[[], int] = stream.minstd_next

    def __call__(self) -> int:
        return self._next()


class _StreamMtWords:
    """A KernelStream's mt19937 as a word source, drawing word by word (the stream's state follows exactly what
    was used: the reference of the compiled ``MsShufflePerm``)."""

    low, span = 0, 2**32 - 1

    def __init__(self, stream: KernelStream):
        self._next: Callable[[], int] = stream.mt_word

    def __call__(self) -> int:
        return self._next()


def stream_words(stream: KernelStream):
    """``stream``'s generator as a word source for :func:`shuffle_permutation`, advancing it word by word."""
    return _MinstdWords(stream) if stream.is_minstd else _StreamMtWords(stream)


def mt_state(seed: int) -> np.ndarray:
    """The int64 state (KernelStream.state's layout) of a ``std::mt19937`` seeded with ``seed`` modulo 2**32."""
    _, keys, pos = np.random.RandomState(seed & 0xFFFFFFFF).get_state()[:3]
    return np.concatenate([keys.astype(np.int64), [pos]]).astype(np.int64)


def randperm_seed(seed: int, offset: int) -> int:
    """The mt19937 seed of ``RandpermV2``: ``offset`` when it is not 0, else ``seed``."""
    return offset if offset != 0 else seed


def _uniform_index(words, hi: int) -> int:
    """libstdc++'s (pre-Lemire) ``uniform_int_distribution`` on [0, hi] from ``words`` (``hi`` within its span)."""
    if hi == words.span:
        return words() - words.low
    bins = hi + 1
    scale = words.span // bins
    past = bins * scale
    while True:
        w = words() - words.low
        if w < past:
            return w // scale


def shuffle_permutation(words, n: int) -> np.ndarray:
    """libstdc++'s ``std::shuffle`` of ``range(n)`` drawing from ``words`` (int64 result)."""
    perm = list(range(n))
    if n <= 1:
        return np.asarray(perm, np.int64)
    if words.span // n >= n:  # two swap positions from one draw, as libstdc++ does while n * n fits the range
        i = 1
        if n % 2 == 0:
            j = _uniform_index(words, 1)
            perm[1], perm[j] = perm[j], perm[1]
            i = 2
        while i < n:
            bins = i + 1
            x = _uniform_index(words, bins * (bins + 1) - 1)
            j1, j2 = divmod(x, bins + 1)
            perm[i], perm[j1] = perm[j1], perm[i]
            perm[i + 1], perm[j2] = perm[j2], perm[i + 1]
            i += 2
        return np.asarray(perm, np.int64)
    for i in range(1, n):
        j = _uniform_index(words, i)
        perm[i], perm[j] = perm[j], perm[i]
    return np.asarray(perm, np.int64)


def randperm(n: int, seed: int, offset: int) -> np.ndarray:
    """``RandpermV2``'s permutation of ``range(n)`` for ``seed``/``offset`` (int64)."""
    return shuffle_permutation(_MtWords(randperm_seed(seed, offset)), n)


def random_shuffle(stream: KernelStream, x: np.ndarray) -> np.ndarray:
    """``RandomShuffle``'s output for ``x``, drawing from ``stream`` (a minstd_rand0 KernelStream)."""
    if x.ndim == 0 or x.shape[0] <= 1:
        return x.copy()
    return x[shuffle_permutation(_MinstdWords(stream), x.shape[0])]


def multinomial(stream: KernelStream, x: np.ndarray, num_samples: int) -> np.ndarray:
    """``Multinomial``'s int64 indices, shape ``x.shape[:-1] + (num_samples,)``, for the 1-D or 2-D float
    weights ``x``, drawing from ``stream`` (a minstd_rand0 KernelStream)."""
    rows = x.reshape(-1, x.shape[-1])
    u = stream.canonical_float(rows.shape[0] * num_samples).reshape(rows.shape[0], num_samples)
    out = np.zeros((rows.shape[0], num_samples), np.int64)
    for r, row in enumerate(rows):
        cum = np.add.accumulate(row, dtype=row.dtype)  # one add at a time, in the weights' dtype
        total = cum[-1]
        if total != 0:
            cum = (cum / total).astype(row.dtype)
        # the binary search over positions 0..ncol-2 finds the first running sum above the draw
        out[r] = np.searchsorted(cum[:-1], u[r].astype(row.dtype), side="right")
    return out.reshape((*x.shape[:-1], num_samples))


def standard_laplace(stream: KernelStream, n: int) -> np.ndarray:
    """``n`` float32 values of ``StandardLaplace``, drawing from ``stream`` (a minstd_rand0 KernelStream)."""
    low = np.nextafter(np.float32(-1), np.float32(0))
    u = (np.float32(1) - low) * stream.canonical_float(n) + low  # float32 steps, as the float distribution
    mag = np.log(1.0 - np.abs(u.astype(np.float64)))
    return (-np.copysign(1.0, u).astype(np.float64) * mag).astype(np.float32)


def bernoulli_uniforms(seed: int, n: int) -> np.ndarray:
    """The ``n`` float32 uniforms in [0, 1) that ``Bernoulli`` with ``seed`` compares with ``p``."""
    bits = (philox_uint32(seed, n, offset=0) & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)
    return bits.view(np.float32) - np.float32(1.0)


def random_categorical(stream: KernelStream, logits: np.ndarray, num_sample: int) -> np.ndarray:
    """``RandomCategorical``'s int64 indices, shape ``(batch, num_sample)``, for the 2-D float ``logits``,
    drawing from ``stream`` (a minstd_rand0 KernelStream)."""
    dt = logits.dtype
    u = stream.canonical_double(num_sample).astype(np.float32).astype(dt)
    out = np.zeros((logits.shape[0], num_sample), np.int64)
    for r, row in enumerate(logits):
        shifted = (row - row.max()).astype(np.float32)
        cdf = np.add.accumulate(expf(shifted).astype(dt), dtype=dt)
        out[r] = np.searchsorted(cdf, (cdf[-1] * u).astype(dt), side="left")
    return out
