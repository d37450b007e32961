"""The four benchmark networks as pure JAX functions ``fn(params, x)`` (jnp/lax, float32, random weights).

Same layer structure and shapes as ``opbuild.models``: NCHW convolutions without bias followed by inference
BatchNorm, TF-style 'SAME' padding (as opbuild's ``pad_mode="same"``), ResNet v1.5 bottlenecks, a post-LN
BERT encoder with tanh-approximated GELU and LayerNorm eps 1e-12. Parameters are a pytree passed to ``jit``
as an argument (not closed over), so XLA compiles the network, not 100 M constants.
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

Params = dict[str, Any]


class _Init:
    """Deterministic random parameters from one NumPy generator."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def normal(self, shape: tuple[int, ...], scale: float) -> jnp.ndarray:
        return jnp.asarray(self.rng.standard_normal(shape, dtype=np.float32) * np.float32(scale))

    def uniform(self, shape: tuple[int, ...], lo: float, hi: float) -> jnp.ndarray:
        return jnp.asarray(self.rng.uniform(lo, hi, shape).astype(np.float32))

    def conv(self, cin: int, cout: int, k: int) -> jnp.ndarray:
        return self.normal((cout, cin, k, k), math.sqrt(2.0 / (cin * k * k)))

    def bn(self, c: int) -> Params:
        return {"gamma": self.uniform((c,), 0.5, 1.5), "beta": self.uniform((c,), -0.2, 0.2),
                "mean": self.uniform((c,), -0.2, 0.2), "var": self.uniform((c,), 0.5, 2.0)}

    def dense(self, a: int, b: int) -> Params:
        return {"w": self.normal((a, b), math.sqrt(1.0 / a)), "b": self.uniform((b,), -0.1, 0.1)}


def _conv(x: jnp.ndarray, w: jnp.ndarray, stride: int) -> jnp.ndarray:
    return lax.conv_general_dilated(x, w, (stride, stride), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHW"))


def _bn(x: jnp.ndarray, p: Params, eps: float = 1e-5) -> jnp.ndarray:
    scale = p["gamma"] * lax.rsqrt(p["var"] + eps)
    shift = p["beta"] - p["mean"] * scale
    return x * scale[None, :, None, None] + shift[None, :, None, None]


def _dense(x: jnp.ndarray, p: Params) -> jnp.ndarray:
    return x @ p["w"] + p["b"]


def _layer_norm(x: jnp.ndarray, p: Params, eps: float = 1e-12) -> jnp.ndarray:
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + eps) * p["gamma"] + p["beta"]


# ---- MLP ----------------------------------------------------------------------------------------------------

def _mlp(cfg: dict[str, Any], init: _Init) -> tuple[Any, Params, jnp.ndarray]:
    sizes = [cfg["in_features"], *cfg["hidden"], cfg["classes"]]
    params = {"layers": [init.dense(a, b) for a, b in zip(sizes[:-1], sizes[1:])]}

    def fn(params: Params, x: jnp.ndarray) -> jnp.ndarray:
        x = x.reshape(x.shape[0], -1)
        *body, head = params["layers"]
        for p in body:
            x = jax.nn.relu(_dense(x, p))
        return _dense(x, head)

    return fn, params, init.normal((cfg["batch"], cfg["in_features"]), 1.0)


# ---- ResNet -------------------------------------------------------------------------------------------------

def _resnet(cfg: dict[str, Any], init: _Init) -> tuple[Any, Params, jnp.ndarray]:
    bottleneck = cfg["block"] == "bottleneck"
    expansion = 4 if bottleneck else 1
    width = cfg["width"]
    params: Params = {"stem": {"w": init.conv(3, width, cfg["stem_kernel"]), "bn": init.bn(width)}, "blocks": []}
    strides: list[int] = []
    cin = width
    for i, n in enumerate(cfg["layers"]):
        channels = width * 2 ** i
        for j in range(n):
            stride = 2 if (i > 0 and j == 0) else 1
            cout = channels * expansion
            if bottleneck:
                convs = [(cin, channels, 1), (channels, channels, 3), (channels, cout, 1)]
            else:
                convs = [(cin, channels, 3), (channels, channels, 3)]
            block: Params = {"convs": [{"w": init.conv(a, b, k), "bn": init.bn(b)} for a, b, k in convs]}
            if stride != 1 or cin != cout:
                block["down"] = {"w": init.conv(cin, cout, 1), "bn": init.bn(cout)}
            params["blocks"].append(block)
            strides.append(stride)
            cin = cout
    params["fc"] = init.dense(cin, cfg["classes"])
    stem_stride = cfg["stem_stride"]

    def fn(params: Params, x: jnp.ndarray) -> jnp.ndarray:
        x = jax.nn.relu(_bn(_conv(x, params["stem"]["w"], stem_stride), params["stem"]["bn"]))
        x = lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 3, 3), (1, 1, 2, 2), "SAME")
        for block, stride in zip(params["blocks"], strides):
            identity = x if "down" not in block else _bn(_conv(x, block["down"]["w"], stride), block["down"]["bn"])
            convs = block["convs"]
            out = x
            for idx, c in enumerate(convs):
                # The strided conv is the first of a basic block, the 3x3 (second) of a bottleneck.
                s = stride if idx == (1 if bottleneck else 0) else 1
                out = _bn(_conv(out, c["w"], s), c["bn"])
                if idx < len(convs) - 1:
                    out = jax.nn.relu(out)
            x = jax.nn.relu(out + identity)
        x = jnp.mean(x, axis=(2, 3), keepdims=True).reshape(x.shape[0], -1)
        return _dense(x, params["fc"])

    return fn, params, init.normal((cfg["batch"], 3, cfg["image"], cfg["image"]), 1.0)


# ---- BERT-style encoder -------------------------------------------------------------------------------------

def _encoder(cfg: dict[str, Any], init: _Init) -> tuple[Any, Params, jnp.ndarray]:
    h, inter, heads, seq = cfg["hidden"], cfg["intermediate"], cfg["heads"], cfg["seq"]

    def ln() -> Params:
        return {"gamma": jnp.ones((h,), jnp.float32), "beta": jnp.zeros((h,), jnp.float32)}

    params: Params = {
        "words": init.normal((cfg["vocab"], h), 1.0), "positions": init.normal((seq, h), 1.0), "norm": ln(),
        "layers": [{"q": init.dense(h, h), "k": init.dense(h, h), "v": init.dense(h, h), "o": init.dense(h, h),
                    "norm1": ln(), "fc1": init.dense(h, inter), "fc2": init.dense(inter, h), "norm2": ln()}
                   for _ in range(cfg["layers"])],
    }
    head_dim = h // heads
    scale = 1.0 / math.sqrt(head_dim)

    def fn(params: Params, ids: jnp.ndarray) -> jnp.ndarray:
        b, s = ids.shape
        x = jnp.take(params["words"], ids, axis=0) + params["positions"][None, :s]
        x = _layer_norm(x, params["norm"])

        def split(t: jnp.ndarray) -> jnp.ndarray:
            return t.reshape(b, s, heads, head_dim).transpose(0, 2, 1, 3)

        for p in params["layers"]:
            q, k, v = split(_dense(x, p["q"])), split(_dense(x, p["k"])), split(_dense(x, p["v"]))
            probs = jax.nn.softmax(jnp.matmul(q, k.transpose(0, 1, 3, 2)) * scale, axis=-1)
            ctx = jnp.matmul(probs, v).transpose(0, 2, 1, 3).reshape(b, s, h)
            x = _layer_norm(x + _dense(ctx, p["o"]), p["norm1"])
            x = _layer_norm(x + _dense(jax.nn.gelu(_dense(x, p["fc1"]), approximate=True), p["fc2"]), p["norm2"])
        return x

    ids = jnp.asarray(init.rng.integers(0, cfg["vocab"], (cfg["batch"], seq)).astype(np.int32))
    return fn, params, ids


def build(cfg: dict[str, Any], seed: int = 0) -> tuple[Any, Params, jnp.ndarray]:
    """``(fn, params, x)`` for a netspec configuration: ``jax.jit(fn)(params, x)`` runs the network."""
    init = _Init(seed)
    if cfg["kind"] == "mlp":
        return _mlp(cfg, init)
    if cfg["kind"] == "resnet":
        return _resnet(cfg, init)
    return _encoder(cfg, init)
