"""The GPU prelude's half conversions compiled for the host (test helper): ``HostConversions(workdir)`` exposes
each conversion over arrays, the same C++ the device compiles (host_emulation.py's harness)."""

from __future__ import annotations

import ctypes
import subprocess
from pathlib import Path

import numpy as np

from .host_emulation import HARNESS, gxx, host_source

# extern "C" loops around each conversion: (name, source C type, destination C type, expression of x)
CONVERSIONS = (
    ("f16_to_f32", "uint16_t", "float", "ob_f16_to_f32(ob_f16_from_bits(x))"),
    ("bf16_to_f32", "uint16_t", "float", "ob_bf16_to_f32(ob_bf16_from_bits(x))"),
    ("f32_to_f16", "float", "uint16_t", "ob_f16_from_f32(x).bits"),
    ("f64_to_f16", "double", "uint16_t", "ob_f16_from_f64(x).bits"),
    ("f32_to_bf16", "float", "uint16_t", "ob_bf16_from_f32(x).bits"),
    ("f64_to_bf16", "double", "uint16_t", "ob_bf16_from_f64(x).bits"),
)
_NP = {"uint16_t": np.uint16, "float": np.float32, "double": np.float64}


def conversion_functions() -> str:
    """The extern "C" loops (C++, for the host or NVRTC: ``__global__`` is defined away on the host)."""
    return "\n".join(f'extern "C" __global__ void ob_conv_{name}(const {s} *in, {d} *out, int64_t n) '
                     f"{{ for (int64_t i = 0; i < n; i++) {{ const {s} x = in[i]; out[i] = {expr}; }} }}"
                     for name, s, d, expr in CONVERSIONS)


class HostConversions:
    """The conversions of the GPU prelude, compiled by g++ for the host."""

    def __init__(self, workdir: Path):
        src, lib = workdir / "conv.cpp", workdir / "conv.so"
        src.write_text(host_source([]) + "\n" + conversion_functions())
        out = subprocess.run([gxx(), "-std=c++17", "-O1", "-fPIC", "-shared", "-w", "-o", str(lib), str(src)],
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr[-4000:]
        assert HARNESS in src.read_text()
        self.lib = ctypes.CDLL(str(lib))

    def __call__(self, name: str, x: np.ndarray) -> np.ndarray:
        """Conversion ``name`` of CONVERSIONS over ``x`` (of its source type)."""
        _, s, d, _ = next(c for c in CONVERSIONS if c[0] == name)
        x = np.ascontiguousarray(x, dtype=_NP[s])
        out = np.zeros(x.shape, _NP[d])
        fn = getattr(self.lib, f"ob_conv_{name}")
        fn.restype = None
        fn(ctypes.c_void_p(x.ctypes.data), ctypes.c_void_p(out.ctypes.data), ctypes.c_int64(x.size))
        return out
