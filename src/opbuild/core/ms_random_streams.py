"""MindSpore 2.10's CPU random streams of ``UniformReal``, ``UniformInt`` and ``StandardNormal``, reproduced bit
for bit on the host (PYNATIVE_MODE; checked against tests/fixtures/mindspore/random_streams.json). In GRAPH_MODE
the compiled kernels of ops/ms_random_ops.py draw the same generators from :meth:`KernelStream.state`
(tests/fixtures/mindspore/random_graph.json).

What MindSpore does, found from its behaviour:

* seeds: a functional op (``ops.rand``, ``randn``, ...) takes a pair ``(seed1, seed2)`` per call:
  ``seed1`` is the global seed modulo ``2**31 - 1`` (a global seed 0 counts as 87654321; before any
  ``set_seed`` it is 0), ``seed2`` the op's ``seed`` (None: 0) plus 533697028 times the number of earlier
  calls with the same (function name, op seed) since the last ``set_seed``, modulo ``2**31 - 1``. A pair
  (0, 0) (no global seed and no op seed, or a global seed of ``2**31 - 1`` on a first call) leaves MindSpore's
  kernel unseeded: its values change every run, and opbuild keeps its own repeatable stream there. A
  primitive object's pair is its ``(seed, seed2)`` as given, whatever the global seed (both 0: unseeded);
* the pair is mixed into one 64-bit seed by one Philox-4x32-10 block (key ``(0x3EC8F720, 0x02461E29)``,
  counter = the two seeds as 64-bit halves; seed = word1 << 32 | word0). Its low 32 bits seed a
  ``std::mt19937`` (uniform ops); the whole seed modulo ``2**31 - 1`` seeds a ``std::minstd_rand0``
  (normal). The generator lives in the kernel: a functional op makes a new one at each call; a primitive
  object keeps one per output shape (PyNative's kernel cache), which goes on across its calls of that shape;
* ``UniformReal``: libstdc++'s ``uniform_real_distribution<double>``, two 32-bit words per value,
  ``(w1 + w2 * 2**32) / 2**64`` in double, then float32. ``UniformInt``: libstdc++'s older
  ``uniform_int_distribution`` (not Lemire's): with ``range = maxval - minval`` and
  ``scale = (2**32 - 1) // range``, words ``>= range * scale`` are dropped and the value is
  ``minval + w // scale``;
* ``StandardNormal``: libstdc++'s ``normal_distribution<float>`` polar method in float32, one float uniform
  per 31-bit word (``(w - 1) / 2**31``); each accepted pair gives ``y * mult`` then ``x * mult``; a pair's
  second value left over at the end of a call is lost. ``log`` is the C library's ``logf`` (glibc's, as
  MindSpore's Linux build calls), which is not always correctly rounded.
"""

from __future__ import annotations

import ctypes
import ctypes.util

import numpy as np

from . import config
from .init_values import seed_epoch

_MAXINT32 = 2**31 - 1
_SEED_STEP = 533697028  # MindSpore's per-call increment of an op seed
_DEFAULT_GLOBAL = 87654321  # what MindSpore uses for a global seed of 0
_MIX_KEY = (0x3EC8F720, 0x02461E29)
_PHILOX_M = (0xD2511F53, 0xCD9E8D57)
_PHILOX_W = (0x9E3779B9, 0xBB67AE85)
_M32 = 0xFFFFFFFF
_MINSTD_A, _MINSTD_M = 16807, 2**31 - 1
MT_STATE_SIZE = 625  # an mt19937's 624 words and its position, as int64 state data

_LIBM = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
_LIBM.logf.restype, _LIBM.logf.argtypes = ctypes.c_float, [ctypes.c_float]
_LIBM.expf.restype, _LIBM.expf.argtypes = ctypes.c_float, [ctypes.c_float]

# (function name, op seed) -> calls since the last set_seed, and the set_seed epoch they count in.
_calls: dict[tuple[str, int], int] = {}
_calls_epoch = [-1]


def mix_seeds(seed1: int, seed2: int) -> int:
    """The 64-bit kernel seed MindSpore makes from a seed pair: one Philox-4x32-10 block."""
    k0, k1 = _MIX_KEY
    c = [seed1 & _M32, (seed1 >> 32) & _M32, seed2 & _M32, (seed2 >> 32) & _M32]
    for _ in range(10):
        p0, p1 = _PHILOX_M[0] * c[0], _PHILOX_M[1] * c[2]
        c = [((p1 >> 32) ^ c[1] ^ k0) & _M32, p1 & _M32, ((p0 >> 32) ^ c[3] ^ k1) & _M32, p0 & _M32]
        k0, k1 = (k0 + _PHILOX_W[0]) & _M32, (k1 + _PHILOX_W[1]) & _M32
    return c[1] << 32 | c[0]


def _global_seed() -> int:
    """The global seed as MindSpore's ops read it: 0 before any ``set_seed``, 87654321 for ``set_seed(0)``."""
    return 0 if seed_epoch() == 0 else int(config.get_context("seed")) or _DEFAULT_GLOBAL


def is_seeded(seed: int | None) -> bool:
    """Whether a functional op with op seed ``seed`` draws a seeded stream in MindSpore (a ``set_seed`` ran or
    ``seed`` is given), without counting a call as :func:`functional_seeds` does."""
    return bool(_global_seed() or seed)


def functional_seeds(name: str, seed: int | None) -> tuple[int, int] | None:
    """The seed pair MindSpore gives the ``name`` functional op's call with op seed ``seed`` (and counts the
    call), or None where MindSpore draws unseeded values (no ``set_seed`` and no op seed)."""
    epoch = seed_epoch()
    if _calls_epoch[0] != epoch:  # set_seed restarts every count, as MindSpore's
        _calls.clear()
        _calls_epoch[0] = epoch
    op_seed = int(seed or 0)
    global_seed = _global_seed()
    if global_seed == 0 and op_seed == 0:
        return None
    n = _calls.get((name, op_seed), 0)
    _calls[(name, op_seed)] = n + 1
    pair = global_seed % _MAXINT32, (op_seed + n * _SEED_STEP) % _MAXINT32
    return None if pair == (0, 0) else pair  # (0, 0) leaves MindSpore's kernel unseeded (still counted)


def logf(x: np.ndarray) -> np.ndarray:
    """The C library's float32 ``logf`` of each value, which MindSpore's kernel calls: glibc's is not always
    correctly rounded, so a double log rounded to float32 differs from it by one ulp now and then."""
    out = np.empty(x.shape, np.float32)
    flat_in, flat_out = x.reshape(-1), out.reshape(-1)
    for i in range(flat_in.size):
        flat_out[i] = _LIBM.logf(float(flat_in[i]))
    return out


def expf(x: np.ndarray) -> np.ndarray:
    """The C library's float32 ``expf`` of each value (what MindSpore's kernels call; see :func:`logf`)."""
    out = np.empty(x.shape, np.float32)
    flat_in, flat_out = x.reshape(-1), out.reshape(-1)
    for i in range(flat_in.size):
        flat_out[i] = _LIBM.expf(float(flat_in[i]))
    return out


def _minstd_powers(n: int) -> np.ndarray:
    """``16807**k mod (2**31 - 1)`` for k = 1..n (uint64; products of two 31-bit values fit)."""
    p = np.array([_MINSTD_A], np.uint64)
    m = np.uint64(_MINSTD_M)
    while p.size < n:
        p = np.concatenate([p, p * p[-1] % m])
    return p[:n]


class KernelStream:
    """One MindSpore random kernel's generator, seeded from the pair ``(seed1, seed2)``; ``normal`` picks the
    minstd_rand0 of ``StandardNormal`` (else the mt19937 of the uniform ops). Successive draws go on."""

    def __init__(self, seed1: int, seed2: int, normal: bool = False):
        seed = mix_seeds(seed1, seed2)
        # mt19937 keeps the seed's low 32 bits; minstd_rand0 takes the whole 64-bit seed modulo 2**31 - 1
        self._mt = None if normal else np.random.RandomState(seed & _M32)
        self._x = (seed % _MINSTD_M) or 1

    def state(self) -> np.ndarray:
        """The generator's state as int64 data, what GRAPH_MODE's kernels read and write (ops/ms_random_ops.py):
        the mt19937's 624 words and its position (625 values), or the minstd_rand0's one value."""
        if self._mt is None:
            return np.array([self._x], np.int64)
        _, keys, pos = self._mt.get_state()[:3]
        return np.concatenate([keys.astype(np.int64), [pos]]).astype(np.int64)

    @classmethod
    def from_state(cls, state: np.ndarray) -> KernelStream:
        """The generator whose :meth:`state` is ``state`` (625 values: mt19937, one: minstd_rand0)."""
        stream = cls.__new__(cls)
        flat = np.asarray(state, np.int64).reshape(-1)
        stream._mt, stream._x = None, int(flat[0])
        if flat.size == MT_STATE_SIZE:
            stream._mt = np.random.RandomState()
            stream._mt.set_state(("MT19937", flat[:-1].astype(np.uint32), int(flat[-1]), 0, 0.0))
        return stream

    @property
    def is_minstd(self) -> bool:
        """Whether this is a minstd_rand0 (StandardNormal's and the discrete ops'), not an mt19937."""
        return self._mt is None

    def load(self, state: np.ndarray) -> None:
        """Continue from ``state`` (this generator's :meth:`state` after a compiled kernel advanced it)."""
        other = KernelStream.from_state(state)
        if (other._mt is None) != (self._mt is None):
            raise ValueError("KernelStream.load: the state is of the other generator")
        self._mt, self._x = other._mt, other._x

    def mt_word(self) -> int:
        """The mt19937's next 32-bit output (one word, nothing drawn ahead)."""
        return int(self._words(1)[0])

    def _words(self, n: int) -> np.ndarray:
        """The next ``n`` 32-bit outputs of the mt19937, as uint64."""
        return self._mt.randint(0, 2**32, size=n, dtype=np.uint32).astype(np.uint64)

    def uniform_real(self, n: int) -> np.ndarray:
        """``n`` float32 values of ``UniformReal``."""
        w = self._words(2 * n).astype(np.float64)
        u = (w[0::2] + w[1::2] * 2.0**32) / 2.0**64
        u[u >= 1.0] = np.nextafter(1.0, 0.0)
        return u.astype(np.float32)

    def uniform_int(self, n: int, low: int, high: int) -> np.ndarray:
        """``n`` int32 values of ``UniformInt`` on [low, high)."""
        span = high - low
        scaling = _M32 // span
        past = np.uint64(span * scaling)
        out = []
        need = n
        while need:  # each word drawn is used (kept or dropped) before the call ends: no over-draw
            w = self._words(need)
            kept = w[w < past] // np.uint64(scaling)
            out.append(kept)
            need -= kept.size
        drawn = np.concatenate(out) if out else np.zeros(0, np.uint64)
        return (drawn.astype(np.int64) + low).astype(np.int32)

    def _minstd(self, n: int) -> np.ndarray:
        """The next ``n`` outputs of the minstd_rand0 (without advancing it)."""
        return np.uint64(self._x) * _minstd_powers(n) % np.uint64(_MINSTD_M)

    def minstd_next(self) -> int:
        """The minstd_rand0's next output (one 31-bit word, 1 <= w <= 2**31 - 2), advancing it."""
        self._x = self._x * _MINSTD_A % _MINSTD_M
        return self._x

    def canonical_float(self, n: int) -> np.ndarray:
        """The minstd_rand0's next ``n`` values of libstdc++'s ``uniform_real_distribution<float>(0, 1)``:
        ``float(w - 1) / 2**31`` in float32, kept below 1 (``Multinomial``'s and ``StandardLaplace``'s draws)."""
        if n == 0:
            return np.zeros(0, np.float32)
        draws = self._minstd(n)
        self._x = int(draws[-1])
        u = (draws - np.uint64(1)).astype(np.float32) / np.float32(2.0**31)
        u[u >= 1] = np.nextafter(np.float32(1), np.float32(0))
        return u

    def canonical_double(self, n: int) -> np.ndarray:
        """The minstd_rand0's next ``n`` values of libstdc++'s ``uniform_real_distribution<double>(0, 1)``: two
        words each, ``((w1 - 1) + (w2 - 1) * r) / r**2`` in double with ``r = 2**31 - 2``, kept below 1."""
        if n == 0:
            return np.zeros(0, np.float64)
        draws = self._minstd(2 * n)
        self._x = int(draws[-1])
        w = (draws - np.uint64(1)).astype(np.float64)
        r = float(_MINSTD_M - 1)
        u = (w[0::2] + w[1::2] * r) / float(r * r)
        u[u >= 1] = np.nextafter(1.0, 0.0)
        return u

    def standard_normal(self, n: int) -> np.ndarray:
        """``n`` float32 values of ``StandardNormal``."""
        pairs, got, used = (n + 1) // 2, [], 0
        while pairs > 0:
            draws = self._minstd(2 * max(pairs * 2, 8))
            u = (draws - np.uint64(1)).astype(np.float32) / np.float32(2.0**31)
            u[u >= 1] = np.nextafter(np.float32(1), np.float32(0))
            v = (2.0 * u.astype(np.float64) - 1.0).astype(np.float32)
            x, y = v[0::2], v[1::2]
            r2 = x * x + y * y
            ok = np.flatnonzero((r2 <= 1) & (r2 != 0))[:pairs]
            r = r2[ok]
            mult = np.sqrt(np.float32(-2) * logf(r) / r)
            got.append(np.stack([y[ok] * mult, x[ok] * mult], axis=1).reshape(-1))
            taken = int(ok[-1]) + 1 if ok.size == pairs else x.size
            self._x = int(draws[2 * taken - 1])
            used += taken
            pairs -= ok.size
        out = np.concatenate(got) if got else np.zeros(0, np.float32)
        return out[:n].astype(np.float32)
