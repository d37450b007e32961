"""The mindcv transformer / MLP-style models the zoo_vit tests run, shared with scripts/record_zoo_vit.py."""

from __future__ import annotations

import numpy as np

SEED = 1234

# Smallest registered variant of each family -> the square image size it is built for.
MODELS = {
    "vit_b_32_224": 224, "swin_tiny": 224, "swinv2_tiny_window8": 256, "pvt_tiny": 224, "pvt_v2_b0": 224,
    "xcit_tiny_12_p16_224": 224, "cait_xxs24_224": 224, "coat_lite_tiny": 224, "convit_tiny": 224,
    "crossvit_9": 240, "mobilevit_xx_small": 256, "poolformer_s12": 224, "pit_ti": 224, "visformer_tiny": 224,
    "volo_d1": 224, "edgenext_xx_small": 256, "halonet_50t": 256, "mlp_mixer_s_p32": 224,
    "repmlp_t224": 224, "cmt_tiny": 160, "mae_b_16_224_finetune": 224,
}

# The same models with their dropout and drop-path rates raised: in eval mode they must give the very logits
# MindSpore gives (its eval dropout is the identity). label -> (model name, create_model keyword arguments).
DROP = {"pvt_v2_b0+drop": ("pvt_v2_b0", {"drop_rate": 0.5, "attn_drop_rate": 0.5, "drop_path_rate": 0.5})}

# Further variants, structure and initial weights only (names, shapes, sums; no forward: construction is cheap,
# compiling their kernels is not). Chosen for code paths the smallest variants do not take (CoaT's parallel
# blocks, Visformer v2's stages, ConViT+, Swin V2's larger window) and cheap construction.
PARAMS_ONLY = ["coat_tiny", "pit_xs", "visformer_tiny_v2", "mobilevit_x_small", "edgenext_x_small",
               "mlp_mixer_s_p16", "pvt_v2_b1", "cmt_xsmall", "convit_tiny_plus", "swinv2_tiny_window16"]


def case(label: str) -> tuple[str, int, dict]:
    """(model name, image size, create_model keyword arguments) of a forward case."""
    if label in DROP:
        name, kwargs = DROP[label]
        return name, MODELS[name], kwargs
    return label, MODELS[label], {}


def make_input(size: int) -> np.ndarray:
    """The fixed image batch (1, 3, size, size) every model gets, the same on both sides."""
    return np.random.default_rng(SEED).standard_normal((1, 3, size, size)).astype(np.float32)


def pack_params(params) -> list[str]:
    """(name, shape, float64 sum) triples as compact strings ``"<k>|<name tail>|<shape>|<sum>"``, where ``k``
    characters of the name are shared with the previous name (keeps the fixture small)."""
    out, prev = [], ""
    for name, shape, total in params:
        k = 0
        while k < min(len(name), len(prev)) and name[k] == prev[k]:
            k += 1
        out.append(f"{k}|{name[k:]}|{'x'.join(str(int(d)) for d in shape)}|{float(total):.9g}")
        prev = name
    return out


def unpack_params(packed: list[str]) -> list[tuple[str, tuple[int, ...], float]]:
    """The inverse of :func:`pack_params`."""
    out, prev = [], ""
    for item in packed:
        k, tail, shape, total = item.split("|")
        name = prev[:int(k)] + tail
        out.append((name, tuple(int(d) for d in shape.split("x")) if shape else (), float(total)))
        prev = name
    return out
