"""Record MindSpore 2.10's complex dtypes and FFT family into tests/fixtures/mindspore/complex_fft.npz.

Run with real MindSpore (its own virtualenv, numpy<2): ``/tmp/ms/bin/python scripts/record_complex_fft.py``.
Each case is a call on fixed inputs (:func:`inputs`); the fixture keeps its result (``<case>``), or the
error type when MindSpore refuses (``<case>__error``). tests/ops/test_fft.py and tests/core/test_complex.py
replay the same calls on opbuild.
"""

from __future__ import annotations

from pathlib import Path

import mindspore as ms
import numpy as np
from mindspore import Tensor, ops

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "mindspore" / "complex_fft.npz"
# MindSpore-written checkpoints of complex Parameters (``c`` of inputs()["c64"] / ["c128"], and a 0-d one).
CKPT_DIR = OUT.parent / "ckpt_complex"


def inputs() -> dict[str, np.ndarray]:
    """The named inputs every case draws from (the tests rebuild them with the same recipe)."""
    rng = np.random.default_rng(20261127)
    r = rng.standard_normal((3, 5)).astype(np.float32)
    i = rng.standard_normal((3, 5)).astype(np.float32)
    return {
        "f32": r,
        "f64": r.astype(np.float64) * 1.5,
        "i32": np.arange(15, dtype=np.int32).reshape(3, 5) % 7 - 3,
        "c64": (r + 1j * i).astype(np.complex64),
        "c128": (r.astype(np.float64) - 0.5j * i).astype(np.complex128),
        "v": np.array([1.0, 2.0, -3.0, 4.5, 0.25, -1.0, 2.0, 8.0], np.float32),
        "cube": rng.standard_normal((2, 3, 4)).astype(np.float32),
    }


ONE_D = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
N_D = ("fft2", "ifft2", "fftn", "ifftn", "rfft2", "irfft2", "rfftn", "irfftn", "hfft2", "ihfft2", "hfftn", "ihfftn")


def cases() -> dict[str, tuple]:
    """case name -> (function name, input name, keyword arguments)."""
    out: dict[str, tuple] = {}
    for fn in ONE_D:
        for x in ("f32", "f64", "i32", "c64", "c128"):
            out[f"{fn}.{x}"] = (fn, x, {})
        out[f"{fn}.v.n6"] = (fn, "v", {"n": 6})
        out[f"{fn}.v.n11"] = (fn, "v", {"n": 11})
        out[f"{fn}.c64.dim0"] = (fn, "c64", {"dim": 0})
        for norm in ("forward", "ortho", "backward"):
            out[f"{fn}.c64.{norm}"] = (fn, "c64", {"norm": norm})
    for fn in N_D:
        for x in ("f32", "f64", "c64", "cube"):
            out[f"{fn}.{x}"] = (fn, x, {})
        out[f"{fn}.cube.s"] = (fn, "cube", {"s": (4, 6)} if fn.endswith("2") else {"s": (3, 4, 6)})
        out[f"{fn}.cube.dim"] = (fn, "cube", {"dim": (0, 2)})
        out[f"{fn}.cube.ortho"] = (fn, "cube", {"norm": "ortho"})
    for fn in ("fftshift", "ifftshift"):
        for x in ("f32", "c64", "cube"):
            out[f"{fn}.{x}"] = (fn, x, {})
        out[f"{fn}.cube.dim"] = (fn, "cube", {"dim": 1})
    return out


def complex_cases() -> dict:
    """Elementwise, promotion and reduction results on complex tensors: case -> callable of the inputs."""
    def t(a):
        return Tensor(a)

    return {
        "add.c64_f32": lambda x: t(x["c64"]) + t(x["f32"]),
        "add.c64_f64": lambda x: t(x["c64"]) + t(x["f64"]),
        "add.c64_i32": lambda x: t(x["c64"]) + t(x["i32"]),
        "add.c64_c128": lambda x: t(x["c64"]) + t(x["c128"]),
        "sub.c64": lambda x: t(x["c64"]) - t(x["c64"]) * 2,
        "mul.c64": lambda x: t(x["c64"]) * t(x["c64"]),
        "mul.c128_scalar": lambda x: t(x["c128"]) * 2.5,
        "div.c64": lambda x: t(x["c64"]) / t(x["c64"] + 3),
        "neg.c64": lambda x: -t(x["c64"]),
        "abs.c64": lambda x: ops.abs(t(x["c64"])),
        "abs.c128": lambda x: ops.abs(t(x["c128"])),
        "real.c64": lambda x: ops.real(t(x["c64"])),
        "imag.c128": lambda x: ops.imag(t(x["c128"])),
        "real.f32": lambda x: ops.real(t(x["f32"])),
        "imag.f32": lambda x: ops.imag(t(x["f32"])),
        "conj.c64": lambda x: ops.conj(t(x["c64"])),
        "angle.c64": lambda x: ops.angle(t(x["c64"])),
        "Complex.f32": lambda x: ops.Complex()(t(x["f32"]), t(x["f32"] * 2)),
        "Complex.f64": lambda x: ops.Complex()(t(x["f64"]), t(x["f64"])),
        "exp.c64": lambda x: ops.exp(t(x["c64"])),
        "square.c64": lambda x: ops.square(t(x["c64"])),
        "sqrt.c64": lambda x: ops.sqrt(t(x["c64"])),
        "log.c64": lambda x: ops.log(t(x["c64"])),
        "pow.c64": lambda x: ops.pow(t(x["c64"]), 2.0),
        "sum.c64": lambda x: ops.sum(t(x["c64"])),
        "sum.c64.axis": lambda x: ops.sum(t(x["c64"]), 1),
        "mean.c128": lambda x: ops.mean(t(x["c128"])),
        "cast.c64_f32": lambda x: ops.cast(t(x["c64"]), ms.float32),
        "cast.f32_c128": lambda x: ops.cast(t(x["f32"]), ms.complex128),
        "equal.c64": lambda x: ops.equal(t(x["c64"]), t(x["c64"])),
        "reshape.c64": lambda x: ops.reshape(t(x["c64"]), (5, 3)),
        "transpose.c64": lambda x: ops.transpose(t(x["c64"]), (1, 0)),
        "concat.c64": lambda x: ops.concat((t(x["c64"]), t(x["c64"]))),
        "matmul.c64": lambda x: ops.matmul(t(x["c64"]), t(x["c64"]).T),
        "relu.c64": lambda x: ops.relu(t(x["c64"])),
        "max.c64": lambda x: ops.max(t(x["c64"])),
        "fftfreq.5": lambda x: ops.fftfreq(5),
        "fftfreq.8.d": lambda x: ops.fftfreq(8, 0.1),
        "fftfreq.5.f64": lambda x: ops.fftfreq(5, dtype=ms.float64),
        "rfftfreq.7": lambda x: ops.rfftfreq(7, 0.5),
        "rfftfreq.8": lambda x: ops.rfftfreq(8),
    }


def save_checkpoints(x: dict[str, np.ndarray]) -> None:
    """One checkpoint per complex dtype, as MindSpore writes it (its own load_checkpoint fails on these files in
    2.10; the bytes are what a MindSpore user has)."""
    CKPT_DIR.mkdir(parents=True, exist_ok=True)
    for name in ("c64", "c128"):
        params = [ms.Parameter(Tensor(x[name]), name="c"),
                  ms.Parameter(Tensor(np.array(1.5 - 2j, x[name].dtype)), name="scalar")]
        path = CKPT_DIR / f"{name}.ckpt"
        if path.exists():
            path.unlink()
        ms.save_checkpoint(params, str(path))
        path.chmod(0o644)


def main() -> None:
    ms.set_context(mode=ms.PYNATIVE_MODE, pynative_synchronize=True)
    x = inputs()
    save_checkpoints(x)
    out: dict[str, np.ndarray] = {}
    calls = {name: (lambda fn=fn, a=a, kw=kw: getattr(ops, fn)(Tensor(x[a]), **kw))
             for name, (fn, a, kw) in cases().items()}
    calls.update({name: (lambda f=f: f(x)) for name, f in complex_cases().items()})
    for name, call in calls.items():
        try:
            r = call()
            out[name] = r.asnumpy()
            out[name + "__dtype"] = np.array(str(r.dtype))
        except Exception as e:  # noqa: BLE001 - the refusal is what is recorded
            out[name + "__error"] = np.array(type(e).__name__)
        print(name, out.get(name, out.get(name + "__error")).dtype)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **out)
    OUT.chmod(0o644)
    print("wrote", OUT, len(out))


if __name__ == "__main__":
    main()
