"""The prelude section FFT kernels carry: pocketfft (C99, 3-clause BSD, vendored in third_party/pocketfft/ with
its licence) and opbuild's driver around it, ``ob_fft_run``, which the FFT emitter (kernels/fft.py) calls.

pocketfft is the library NumPy's FFTs used from 1.17 to 1.26 (docs/fft.md says why it, and not FFTW or MKL):
mixed-radix Cooley-Tukey for the sizes 2, 3, 4, 5, 7, 11 factor into, Bluestein's algorithm for large
prime factors, twiddles computed accurately in double precision. It computes in double; float32 and
complex64 data are widened on the way in and rounded once on the way out.

The vendored files are part of every FFT kernel's key: this module pins their sha256 (checked on import, so
an edited copy is a clear error, never a stale kernel), and this module's file is one of the generator files
(targets/cpu/sources.py) of every kernel.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

_DIR = Path(__file__).parent / "third_party" / "pocketfft"
# sha256 of the vendored pocketfft.h and pocketfft.c (from the PyPI sdist of cython-pocketfft 0.0.12, the
# upstream C release NumPy vendored): editing either file without updating these pins fails on import.
PINS = {
    "pocketfft.h": "8c12a7b2467a86c3f8818a5ab85cec2a8e90dfb2ff273cb8cf3ad937ea286ba3",
    "pocketfft.c": "2662f7b52e9ed7d63eaebe781e470d76a65f88ddb204480e5f1a351bfe13ab51",
}


def _read(name: str) -> str:
    data = (_DIR / name).read_bytes()
    if hashlib.sha256(data).hexdigest() != PINS[name]:
        raise RuntimeError(f"{_DIR / name} does not match its pinned sha256 in {__file__}: reinstall opbuild, or "
                           "update the pin if the vendored pocketfft was upgraded on purpose")
    return data.decode()


# The driver: ``w`` is a row-major array of ``rank`` dims (``shape``) of interleaved complex doubles; each axis
# in ``axes`` (``naxes`` of them) is transformed in place, line by line (a line gathered into a contiguous
# buffer, transformed, scattered back). Lines are independent, so OpenMP splits them; pocketfft keeps no
# global state and allocates its scratch per call, so one plan serves every thread. Those allocations (the
# plan, pocketfft's per-call scratch, each thread's line buffer) are the library's and sized inside it, so they
# cannot be planned workspaces: each is checked, and ``ob_fft_run`` returns 0, or 1 + the axis whose transform
# ran out of memory (the kernel reports it through its status words: ops/spectral.py ``FFTN``).
_DRIVER = r"""
static int ob_fft_axis(double *w, const int64_t *shape, int rank, int axis, int forward) {
  int64_t len = shape[axis], inner = 1, outer = 1;
  for (int d = axis + 1; d < rank; d++) inner *= shape[d];
  for (int d = 0; d < axis; d++) outer *= shape[d];
  if (len <= 1 || inner * outer == 0) return 0;
  cfft_plan plan = make_cfft_plan((size_t)len);
  if (!plan) return -1;
  int failed = 0;
  #pragma omp parallel reduction(|:failed) if (outer * inner * len > 32768)
  {
    double *buf = (double *)malloc((size_t)len * 2 * sizeof(double));
    if (!buf) failed = 1;
    #pragma omp for schedule(static)
    for (int64_t line = 0; line < outer * inner; line++) {
      if (!buf) continue;
      double *base = w + 2 * ((line / inner) * len * inner + line % inner);
      for (int64_t k = 0; k < len; k++) { buf[2 * k] = base[2 * k * inner]; buf[2 * k + 1] = base[2 * k * inner + 1]; }
      if ((forward ? cfft_forward(plan, buf, 1.0) : cfft_backward(plan, buf, 1.0)) != 0) { failed = 1; continue; }
      for (int64_t k = 0; k < len; k++) { base[2 * k * inner] = buf[2 * k]; base[2 * k * inner + 1] = buf[2 * k + 1]; }
    }
    free(buf);
  }
  destroy_cfft_plan(plan);
  return failed ? -1 : 0;
}

static int ob_fft_run(double *w, const int64_t *shape, int rank, const int *axes, int naxes, int forward) {
  for (int i = 0; i < naxes; i++)
    if (ob_fft_axis(w, shape, rank, axes[i], forward) != 0) return 1 + axes[i];
  return 0;
}

/* The Hermitian completion of axis ``axis`` (of length n) for a complex-to-real transform: the entries past
   n/2 become the conjugates of their mirrors, so the full transform is real (what a real backward transform
   assumes of its half spectrum). */
static void ob_fft_hermitian(double *w, const int64_t *shape, int rank, int axis) {
  int64_t n = shape[axis], inner = 1, outer = 1;
  for (int d = axis + 1; d < rank; d++) inner *= shape[d];
  for (int d = 0; d < axis; d++) outer *= shape[d];
  for (int64_t line = 0; line < outer * inner; line++) {
    double *base = w + 2 * ((line / inner) * n * inner + line % inner);
    for (int64_t k = n / 2 + 1; k < n; k++) {
      base[2 * k * inner] = base[2 * (n - k) * inner];
      base[2 * k * inner + 1] = -base[2 * (n - k) * inner + 1];
    }
  }
}
"""


def _section() -> str:
    header = _read("pocketfft.h")
    source = _read("pocketfft.c").replace('#include "pocketfft.h"', "")
    # The library's entry points become file-local: each kernel's shared object keeps its own copy hidden
    # (the compile flags already hide them; static also lets the compiler drop what a kernel does not call).
    source = re.sub(r"^(cfft_plan make_cfft_plan|void destroy_cfft_plan|int cfft_backward|int cfft_forward|"
                    r"size_t cfft_length|rfft_plan make_rfft_plan|void destroy_rfft_plan|int rfft_backward|"
                    r"int rfft_forward|size_t rfft_length)", r"static \1", source, flags=re.M)
    header = re.sub(r"^(cfft_plan |void |int |size_t |rfft_plan )", r"static \1", header, flags=re.M)
    return "\n/* pocketfft (3-clause BSD, Max-Planck-Society; third_party/pocketfft/LICENSE.md) */\n" + header + \
        source + _DRIVER


PRELUDE_FFT = _section()
USES_FFT = re.compile(r"\bob_fft_run\b")
