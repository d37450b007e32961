"""The random fills behind MindSpore 2.10's initializers, reproduced bit for bit in float32.

MindSpore's ``Normal``, ``Uniform``, ``TruncatedNormal``, He/Xavier, ``Orthogonal``, ``Sparse`` and
``VarianceScaling`` initializers take one 64-bit seed from NumPy's global generator
(``np.random.randint(1, 2**63, dtype=np.int64)``, which ``set_seed`` seeds) and fill the float32 buffer
natively. What those fills compute, found by reading MindSpore's behaviour and checked against its output
(tests/fixtures/mindspore/init_streams.json):

* the generator is Philox-4x32 with 10 rounds, key = the seed's two 32-bit halves and the counter starting at
  ``(0, 0, seed_lo, seed_hi)``; each block gives four uint32 in order, and the counter's low 64 bits count
  blocks. The fill is cut into tasks, but each task skips exactly the numbers before it, so the result is the
  single sequential stream whatever the thread count;
* uniform: ``u = r / 2**32`` (double), value ``(b - a) * u + a`` in double with ``a``/``b`` first rounded to
  float32 (the native call takes floats), then rounded to float32;
* normal: Box-Muller on consecutive pairs ``(r1, r2)``, each mapped to ``[0, 1)`` through the 23 mantissa bits
  (``float(0x3F800000 | r & 0x7FFFFF) - 1``) and raised to at least float32(1e-7); with
  ``x = sqrt(-2 log u1) * sigma`` and ``y = 2 * float32(3.1415926) * u2`` the pair gives
  ``mean + x cos y`` then ``mean + x sin y`` (double, then float32);
* truncated normal: inverse CDF, one uniform per value: ``p = cdf(alpha) + u (cdf(beta) - cdf(alpha))`` and
  ``x = -sqrt2 * erfc_inv(2p)`` with sqrt2 = float32(1.4142135) and erfc_inv the rational approximations of
  Boost's ``erf_inv`` (their published coefficients), all in double, then ``mean + x sigma`` to float32.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .providers import provider

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_K0, _K1 = 0x9E3779B9, 0xBB67AE85
_MASK32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
# Blocks per pass: the four counter words and three temporaries of a chunk (7 x 128 KiB) stay in the L2 cache,
# where whole-array passes streamed 10 rounds x ~10 operations through memory (4x slower on 4M values).
_CHUNK = 1 << 14


def philox_uint32(seed: int, count: int, start: int = 0, offset: int | None = None) -> np.ndarray:
    """``count`` uint32 of the Philox-4x32-10 stream of ``seed`` (64-bit), from position ``start``; the
    counter's high half is ``offset`` (None: the seed, as the initializers' fills have it)."""
    seed &= (1 << 64) - 1
    high = seed if offset is None else offset & ((1 << 64) - 1)
    first, last = start // 4, (start + count + 3) // 4
    nblocks = last - first
    out = np.empty((nblocks, 4), np.uint32)
    keys = []
    k0, k1 = seed & 0xFFFFFFFF, seed >> 32
    for _ in range(10):
        keys.append((np.uint64(k0), np.uint64(k1)))
        k0, k1 = (k0 + _K0) & 0xFFFFFFFF, (k1 + _K1) & 0xFFFFFFFF
    # The words are kept in uint64 so that each 32 x 32-bit product is exact and no pass converts dtypes.
    words = np.empty((4, min(_CHUNK, nblocks)), np.uint64)
    prod0, prod1, tmp = (np.empty(words.shape[1], np.uint64) for _ in range(3))
    for b0 in range(0, nblocks, _CHUNK):
        m = min(_CHUNK, nblocks - b0)
        c0, c1, c2, c3 = words[0, :m], words[1, :m], words[2, :m], words[3, :m]
        p0, p1, t = prod0[:m], prod1[:m], tmp[:m]
        block = np.arange(first + b0, first + b0 + m, dtype=np.uint64)
        np.bitwise_and(block, _MASK32, out=c0)
        np.right_shift(block, _S32, out=c1)
        c2.fill(high & 0xFFFFFFFF)
        c3.fill(high >> 32)
        for k0, k1 in keys:  # c0, c1, c2, c3 = hi(p1) ^ c1 ^ k0, lo(p1), hi(p0) ^ c3 ^ k1, lo(p0)
            np.multiply(c0, _M0, out=p0)
            np.multiply(c2, _M1, out=p1)
            np.right_shift(p1, _S32, out=t)
            np.bitwise_xor(t, c1, out=t)
            np.bitwise_xor(t, k0, out=c0)
            np.bitwise_and(p1, _MASK32, out=c1)
            np.right_shift(p0, _S32, out=t)
            np.bitwise_xor(t, c3, out=t)
            np.bitwise_xor(t, k1, out=c2)
            np.bitwise_and(p0, _MASK32, out=c3)
        out[b0:b0 + m] = words[:, :m].T
    flat = out.reshape(-1)
    skip = start - first * 4
    return flat[skip:skip + count]


def _f32(v: float) -> float:
    """A Python float rounded to float32, as the native fills receive their float arguments."""
    return float(np.float32(v))


# Values per pass of the fills: each chunk's draws and double temporaries (a few MiB) stay cached, and no
# array of the whole parameter in double is made (16.8M values: ~3x faster than whole-array passes).
_FILL_CHUNK = 1 << 18


def _fill(seed: int, shape: tuple[int, ...], values: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """float32 array of ``shape`` whose value ``i`` is ``values(r)`` of the stream's uint32 ``i`` (an even-length
    chunk ``r`` at a time, so that pairs of draws stay together), rounded once to float32."""
    n = math.prod(shape)
    out = np.empty(n, np.float32)
    for start in range(0, n, _FILL_CHUNK):
        m = min(_FILL_CHUNK, n - start)
        out[start:start + m] = values(philox_uint32(seed, m + (m & 1), start))[:m]
    return out.reshape(shape)


def unit(r: np.ndarray) -> np.ndarray:
    """``r / 2**32`` in double (exact)."""
    u = r.astype(np.float64)
    u *= 1.0 / 4294967296.0
    return u


def uniform_fill_numpy(seed: int, shape: tuple[int, ...], a: float, b: float) -> np.ndarray:
    """:func:`uniform_fill` in NumPy (the reference of the compiled fill)."""
    lo, hi = _f32(a), _f32(b)

    def values(r: np.ndarray) -> np.ndarray:
        u = unit(r)
        u *= hi - lo
        u += lo
        return u
    return _fill(seed, shape, values)


def uniform_fill(seed: int, shape: tuple[int, ...], a: float, b: float) -> np.ndarray:
    """MindSpore's ``_random_uniform``: float32 values in ``[a, b)`` of ``shape``."""
    fills = _compiled(math.prod(shape))
    if fills is None:
        return uniform_fill_numpy(seed, shape, a, b)
    lo, hi = _f32(a), _f32(b)
    return fills.uniform(seed, math.prod(shape), (hi - lo, lo)).reshape(shape)


def unit23(r: np.ndarray) -> np.ndarray:
    """A uint32's 23 low bits as a float32 in [0, 1) (exact), as double."""
    bits = (r & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)
    return (bits.view(np.float32) - np.float32(1.0)).astype(np.float64)


_NORMAL_FLOOR = float(np.float32(1.0e-7))
_TURN = 2.0 * _f32(3.1415926)


def normal_fill_numpy(seed: int, shape: tuple[int, ...], mean: float, sigma: float) -> np.ndarray:
    """:func:`normal_fill` in NumPy (the reference of the compiled fill)."""
    floor, turn = _NORMAL_FLOOR, _TURN
    m, s = _f32(mean), _f32(sigma)

    def values(r: np.ndarray) -> np.ndarray:
        pairs = r.reshape(-1, 2)
        u1 = np.maximum(unit23(pairs[:, 0]), floor)
        u2 = np.maximum(unit23(pairs[:, 1]), floor)
        x = np.sqrt(-2.0 * np.log(u1)) * s
        y = turn * u2
        out = np.empty(pairs.shape)
        out[:, 0] = m + x * np.cos(y)
        out[:, 1] = m + x * np.sin(y)
        return out.reshape(-1)
    return _fill(seed, shape, values)


def normal_fill(seed: int, shape: tuple[int, ...], mean: float, sigma: float) -> np.ndarray:
    """MindSpore's ``_random_normal``: float32 N(mean, sigma^2) values of ``shape`` (Box-Muller pairs)."""
    fills = _compiled(math.prod(shape))
    if fills is None:
        return normal_fill_numpy(seed, shape, mean, sigma)
    return fills.normal(seed, math.prod(shape), (_NORMAL_FLOOR, _TURN), (_f32(mean), _f32(sigma))).reshape(shape)


# Boost's erf_inv rational approximations: (lower bound of sqrt(-log q) or None, Y (a float32), shift, P, Q).
# The first two ranges are keyed on p / q directly; see _erf_inv.
_P1 = (-0.000508781949658280665617, -0.00836874819741736770379, 0.0334806625409744615033,
       -0.0126926147662974029034, -0.0365637971411762664006, 0.0219878681111168899165,
       0.00822687874676915743155, -0.00538772965071242932965)
_Q1 = (1.0, -0.970005043303290640362, -1.56574558234175846809, 1.56221558398423026363,
       0.662328840472002992063, -0.71228902341542847553, -0.0527396382340099713954,
       0.0795283687341571680018, -0.00233393759374190016776, 0.000886216390456424707504)
_P2 = (-0.202433508355938759655, 0.105264680699391713268, 8.37050328343119927838, 17.6447298408374015486,
       -18.8510648058714251895, -44.6382324441786960818, 17.445385985570866523, 21.1294655448340526258,
       -3.67192254707729348546)
_Q2 = (1.0, 6.24264124854247537712, 3.9713437953343869095, -28.6608180499800029974, -20.1432634680485188801,
       48.5609213108739935468, 10.8268667355460159008, -22.6436933413139721736, 1.72114765761200282724)
# Tail ranges of x = sqrt(-log q): (upper bound of x, shift, Y, P, Q).
_TAILS = (
    (3.0, 1.125, 0.807220458984375,
     (-0.131102781679951906451, -0.163794047193317060787, 0.117030156341995252019, 0.387079738972604337464,
      0.337785538912035898924, 0.142869534408157156766, 0.0290157910005329060432, 0.00214558995388805277169,
      -0.679465575181126350155e-6, 0.285225331782217055858e-7, -0.681149956853776992068e-9),
     (1.0, 3.46625407242567245975, 5.38168345707006855425, 4.77846592945843778382, 2.59301921623620271374,
      0.848854343457902036425, 0.152264338295331783612, 0.01105924229346489121)),
    (6.0, 3.0, 0.93995571136474609375,
     (-0.0350353787183177984712, -0.00222426529213447927281, 0.0185573306514231072324,
      0.00950804701325919603619, 0.00187123492819559223345, 0.000157544617424960554631,
      0.460469890584317994083e-5, -0.230404776911882601748e-9, 0.266339227425782031962e-11),
     (1.0, 1.3653349817554063097, 0.762059164553623404043, 0.220091105764131249824,
      0.0341589143670947727934, 0.00263861676657015992959, 0.764675292302794483503e-4)),
    (18.0, 6.0, 0.98362827301025390625,
     (-0.0167431005076633737133, -0.00112951438745580278863, 0.00105628862152492910091,
      0.000209386317487588078668, 0.149624783758342370182e-4, 0.449696789927706453732e-6,
      0.462596163522878599135e-8, -0.281128735628831791805e-13, 0.99055709973310326855e-16),
     (1.0, 0.591429344886417493481, 0.138151865749083321638, 0.0160746087093676504695,
      0.000964011807005165528527, 0.275335474764726041141e-4, 0.282243172016108031869e-6)),
    (44.0, 18.0, 0.99714565277099609375,
     (-0.0024978212791898131227, -0.779190719229053954292e-5, 0.254723037413027451751e-4,
      0.162397777342510920873e-5, 0.396341011304801168516e-7, 0.411632831190944208473e-9,
      0.145596286718675035587e-11, -0.116765012397184275695e-17),
     (1.0, 0.207123112214422517181, 0.0169410838120975906478, 0.000690538265622684595676,
      0.145007359818232637924e-4, 0.144437756628144157666e-6, 0.509761276599778486139e-9)),
    (math.inf, 44.0, 0.99941349029541015625,
     (-0.000539042911019078575891, -0.28398759004727721098e-6, 0.899465114892291446442e-6,
      0.229345859265920864296e-7, 0.225561444863500149219e-9, 0.947846627503022684216e-12,
      0.135880130108924861008e-14, -0.348890393399948882918e-21),
     (1.0, 0.0845746234001899436914, 0.00282092984726264681981, 0.468292921940894236786e-4,
      0.399968812193862100054e-6, 0.161809290887904476097e-8, 0.231558608310259605225e-11)),
)


def _horner(coeffs: tuple[float, ...], x: np.ndarray) -> np.ndarray:
    """sum(c_i x^i) evaluated from the highest coefficient down, one multiply and one add per step."""
    acc = np.full_like(x, coeffs[-1])
    for c in reversed(coeffs[:-1]):
        acc = acc * x + c
    return acc


def erf_inv(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """erf^-1(p) for p in [0, 1) with q = 1 - p, by the range of p (Boost's piecewise rational fits)."""
    out = np.empty_like(p)
    small = p <= 0.5
    if small.any():
        ps = p[small]
        g = ps * (ps + 10.0)
        out[small] = g * float(np.float32(0.0891314744949340820313)) + g * (_horner(_P1, ps) / _horner(_Q1, ps))
    mid = ~small & (q >= 0.25)
    if mid.any():
        qs = q[mid]
        g = np.sqrt(-2.0 * np.log(qs))
        xs = qs - 0.25
        out[mid] = g / (float(np.float32(2.249481201171875)) + _horner(_P2, xs) / _horner(_Q2, xs))
    tail = ~small & ~mid
    if tail.any():
        x = np.sqrt(-np.log(q[tail]))
        res = np.empty_like(x)
        done = np.zeros(x.shape, bool)
        for upper, shift, y, pc, qc in _TAILS:
            sel = ~done & (x < upper)
            xs = x[sel] - shift
            res[sel] = float(np.float32(y)) * x[sel] + (_horner(pc, xs) / _horner(qc, xs)) * x[sel]
            done |= sel
        out[tail] = res
    return out


# erfc_inv's argument is kept in the open interval (0, 2) by one float32 step at either end.
_TINY = float(np.nextafter(np.float32(0), np.float32(2)))
_BIG = float(np.nextafter(np.float32(2), np.float32(0)))


def clamp_open2(z: np.ndarray) -> np.ndarray:
    """``z`` with values at or below 0 raised to the smallest float32 above 0, and values at or above 2
    lowered to the largest float32 below 2."""
    z = np.where(z <= 0, _TINY, z)
    return np.where(z >= 2.0, _BIG, z)


def _erfc_inv(z: np.ndarray) -> np.ndarray:
    """erfc^-1(z), z clamped into the open interval (0, 2) by one float32 step."""
    z = clamp_open2(z)
    upper = z > 1.0
    q = np.where(upper, 2.0 - z, z)
    p = np.where(upper, 1.0 - q, 1.0 - z)
    return np.where(upper, -1.0, 1.0) * erf_inv(p, q)


def _truncated_args(a: float, b: float, mean: float, sigma: float) -> tuple[float, ...]:
    """(cdf(a), cdf(b), mean, sigma, sqrt2) of a truncated normal, its arguments first rounded to float32."""
    lo, hi, m, s = _f32(a), _f32(b), _f32(mean), _f32(sigma)
    if s <= 0:
        raise ValueError(f"TruncatedNormal: sigma must be > 0, got {sigma}")
    root2 = _f32(1.4142135)
    cdf_a = math.erfc(-(((lo - m) / s) / root2)) / 2.0
    cdf_b = math.erfc(-(((hi - m) / s) / root2)) / 2.0
    return cdf_a, cdf_b, m, s, root2


def truncated_normal_fill_numpy(seed: int, shape: tuple[int, ...], a: float, b: float, mean: float,
                                sigma: float) -> np.ndarray:
    """:func:`truncated_normal_fill` in NumPy (the reference of the compiled fill)."""
    cdf_a, cdf_b, m, s, root2 = _truncated_args(a, b, mean, sigma)

    def values(r: np.ndarray) -> np.ndarray:
        p = cdf_a + unit(r) * (cdf_b - cdf_a)
        x = -_erfc_inv(2.0 * p) * root2
        return m + x * s
    return _fill(seed, shape, values)


def truncated_normal_fill(seed: int, shape: tuple[int, ...], a: float, b: float, mean: float,
                          sigma: float) -> np.ndarray:
    """MindSpore's ``_truncated_normal``: float32 N(mean, sigma^2) restricted to [a, b] (inverse CDF)."""
    cdf_a, cdf_b, m, s, root2 = _truncated_args(a, b, mean, sigma)
    fills = _compiled(math.prod(shape))
    if fills is None:
        return truncated_normal_fill_numpy(seed, shape, a, b, mean, sigma)
    return fills.truncated(seed, math.prod(shape), (cdf_a, cdf_b - cdf_a, _TINY, _BIG),
                           (m, s, root2)).reshape(shape)


def _compiled(n: int):
    """The compiled fills (runtime/init_fill.py) when a fill of ``n`` values should take them and they are
    available, else None (the NumPy path: same values)."""
    fills = provider("init_fills")
    return fills if fills.usable(n) else None


__all__ = ["philox_uint32", "uniform_fill", "normal_fill", "truncated_normal_fill", "uniform_fill_numpy",
           "normal_fill_numpy", "truncated_normal_fill_numpy", "unit", "unit23", "erf_inv", "clamp_open2"]
