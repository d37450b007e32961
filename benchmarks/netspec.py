"""The four benchmark networks as plain data, shared by the opbuild, torch.compile and jax.jit workers.

Each network has a full-size configuration (the default run) and a ``--quick`` one. The quick ResNet-50 and
BERT keep the structure (block counts, layer types, so nearly the same kernel count for opbuild) but shrink
widths, image size or depth so that torch.compile's and XLA's cold compiles take seconds instead of minutes.

``changed`` is the incremental-rebuild edit: the same network with ONE layer's width changed.
"""

from __future__ import annotations

import copy
from typing import Any

NET_NAMES = ("mlp", "resnet", "resnet50", "bert")

FULL: dict[str, dict[str, Any]] = {
    # The examples' MLP: 784 -> 256 -> 128 -> 10, batch 8.
    "mlp": {"kind": "mlp", "in_features": 784, "hidden": [256, 128], "classes": 10, "batch": 8},
    # The examples' ResNet-style CNN: 3x3 stem, three stages of two basic blocks, width 8, 16x16 images.
    "resnet": {"kind": "resnet", "block": "basic", "layers": [2, 2, 2], "width": 8, "classes": 10,
               "image": 16, "batch": 2, "stem_kernel": 3, "stem_stride": 1},
    # ResNet-50: bottleneck blocks [3, 4, 6, 3], width 64, 224x224, batch 1 (25.6 M parameters).
    "resnet50": {"kind": "resnet", "block": "bottleneck", "layers": [3, 4, 6, 3], "width": 64, "classes": 1000,
                 "image": 224, "batch": 1, "stem_kernel": 7, "stem_stride": 2},
    # BERT-base encoder: 12 layers, hidden 768, 12 heads, MLP 3072, sequence 128, batch 1 (no pooler/head).
    "bert": {"kind": "bert", "vocab": 30522, "hidden": 768, "heads": 12, "layers": 12, "intermediate": 3072,
             "seq": 128, "batch": 1},
}

# --quick: MLP and the small ResNet are already small; ResNet-50 keeps its 16 bottleneck blocks at width 16 on
# 64x64 images; BERT keeps sequence 128 but has 4 layers of hidden 256 (4 heads, MLP 1024).
QUICK: dict[str, dict[str, Any]] = {
    "mlp": FULL["mlp"],
    "resnet": FULL["resnet"],
    "resnet50": dict(FULL["resnet50"], width=16, image=64),
    "bert": dict(FULL["bert"], vocab=8000, hidden=256, heads=4, layers=4, intermediate=1024),
}


def config(net: str, quick: bool) -> dict[str, Any]:
    """The configuration of ``net`` (a copy: callers may edit it)."""
    if net not in FULL:
        raise SystemExit(f"unknown network {net!r}; choose from {', '.join(NET_NAMES)}")
    return copy.deepcopy((QUICK if quick else FULL)[net])


def changed(cfg: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """``cfg`` with one layer's width changed, and a sentence saying which."""
    cfg = copy.deepcopy(cfg)
    if cfg["kind"] == "mlp":
        old = cfg["hidden"][-1]
        cfg["hidden"][-1] = old * 3 // 4
        return cfg, f"last hidden Dense {old} -> {cfg['hidden'][-1]} units"
    if cfg["kind"] == "resnet":
        old = cfg["classes"]
        cfg["classes"] = old + old // 2
        return cfg, f"classifier Dense {old} -> {cfg['classes']} outputs"
    old = cfg["intermediate"]
    cfg["last_intermediate"] = old * 2 // 3
    return cfg, f"last encoder layer's MLP {old} -> {cfg['last_intermediate']} units"


def describe(cfg: dict[str, Any]) -> str:
    """A short human-readable summary of a configuration (for tables and docs)."""
    if cfg["kind"] == "mlp":
        return f"MLP {cfg['in_features']}-{'-'.join(map(str, cfg['hidden']))}-{cfg['classes']}, batch {cfg['batch']}"
    if cfg["kind"] == "resnet":
        return (f"{cfg['block']} blocks {cfg['layers']}, width {cfg['width']}, {cfg['image']}x{cfg['image']}, "
                f"batch {cfg['batch']}")
    return (f"{cfg['layers']} layers, hidden {cfg['hidden']}, {cfg['heads']} heads, MLP {cfg['intermediate']}, "
            f"seq {cfg['seq']}, batch {cfg['batch']}")
