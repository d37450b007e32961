#!/usr/bin/env python3
"""Zoo check: architectures that use Resize, CumSum, ScatterND, InstanceNormalization and ReduceL2, exported
with random weights by torch.onnx and run on opbuild and on onnxruntime; outputs compared at rtol 1e-3.

    python scripts/onnx_zoo_check.py                    # every model, a table, exit 1 on any mismatch
    python scripts/onnx_zoo_check.py --only fcn,roberta --keep DIR   # a subset; keep the .onnx files

If torchvision is importable, its real segmentation models (``fcn_resnet50``, ``deeplabv3_mobilenet_v3_large``,
``lraspp_mobilenet_v3_large``; random weights, small input) are exported too. Without it (the CPU torch of
this project's environment has no matching torchvision wheel), small models built here reproduce the heads
that made those models fail to load: FCN's and DeepLabV3's bilinear upsampling of the classifier output to
the input size (with DeepLabV3's ASPP pooling branch upsampled from 1x1), LR-ASPP's sigmoid-gated 1/8 and
1/16 branches joined by upsampling, SegFormer's MLP decoder upsampling every stage to one size, a RoBERTa
encoder whose position ids are a cumulative sum of the padding mask (CumSum), a Swin-style window
attention whose relative position table is written with index_put (ScatterND) and a wav2vec2-style feature
encoder (GroupNorm over time, exported as InstanceNormalization) with weight-normalised convolution
(ReduceL2). Every model checks that its graph really holds the operators it is about.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import torch
from torch import nn
from torch.nn import functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import opbuild.onnx  # noqa: E402

# ---- small stand-ins for the architectures ---------------------------------------------------------------


def _conv(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


class Backbone(nn.Module):
    """Four stages at strides 2, 4, 8, 16."""

    def __init__(self, widths=(8, 16, 24, 32)):
        super().__init__()
        chans = (3, *widths)
        self.stages = nn.ModuleList(_conv(chans[i], chans[i + 1], 2) for i in range(4))

    def forward(self, x):
        feats = []
        for stage in self.stages:
            x = stage(x)
            feats.append(x)
        return feats


class FCN(nn.Module):
    def __init__(self, classes: int = 5):
        super().__init__()
        self.backbone = Backbone()
        self.head = nn.Sequential(_conv(32, 16), nn.Dropout(0.1), nn.Conv2d(16, classes, 1))

    def forward(self, x):
        y = self.head(self.backbone(x)[-1])
        return F.interpolate(y, size=x.shape[-2:], mode="bilinear", align_corners=False)


class DeepLabV3(nn.Module):
    def __init__(self, classes: int = 5):
        super().__init__()
        self.backbone = Backbone()
        self.branches = nn.ModuleList([_conv(32, 16)] + [
            nn.Sequential(nn.Conv2d(32, 16, 3, padding=r, dilation=r, bias=False), nn.BatchNorm2d(16), nn.ReLU())
            for r in (2, 3)])
        self.pool = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(32, 16, 1, bias=False), nn.ReLU())
        self.project = nn.Sequential(_conv(64, 16), nn.Conv2d(16, classes, 1))

    def forward(self, x):
        f = self.backbone(x)[-1]
        outs = [b(f) for b in self.branches]
        outs.append(F.interpolate(self.pool(f), size=f.shape[-2:], mode="bilinear", align_corners=False))
        y = self.project(torch.cat(outs, 1))
        return F.interpolate(y, size=x.shape[-2:], mode="bilinear", align_corners=False)


class LRASPP(nn.Module):
    def __init__(self, classes: int = 5):
        super().__init__()
        self.backbone = Backbone()
        self.cbr = _conv(32, 16)
        self.scale = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(32, 16, 1), nn.Sigmoid())
        self.low = nn.Conv2d(24, classes, 1)
        self.high = nn.Conv2d(16, classes, 1)

    def forward(self, x):
        feats = self.backbone(x)
        low, high = feats[2], feats[3]
        y = self.cbr(high) * self.scale(high)
        y = F.interpolate(y, size=low.shape[-2:], mode="bilinear", align_corners=False)
        y = self.low(low) + self.high(y)
        return F.interpolate(y, size=x.shape[-2:], mode="bilinear", align_corners=False)


class SegFormerHead(nn.Module):
    def __init__(self, classes: int = 5):
        super().__init__()
        self.backbone = Backbone()
        self.mlps = nn.ModuleList(nn.Conv2d(c, 16, 1) for c in (8, 16, 24, 32))
        self.fuse = _conv(64, 16)
        self.cls = nn.Conv2d(16, classes, 1)

    def forward(self, x):
        feats = self.backbone(x)
        size = feats[0].shape[-2:]
        ups = [F.interpolate(m(f), size=size, mode="bilinear", align_corners=False) for m, f in zip(self.mlps, feats)]
        y = self.cls(self.fuse(torch.cat(ups[::-1], 1)))
        return F.interpolate(y, scale_factor=2.0, mode="nearest")


class RoBERTa(nn.Module):
    """Embeddings with RoBERTa's padding-aware position ids (CumSum), two encoder layers, a pooler."""

    def __init__(self, vocab: int = 50, dim: int = 32, heads: int = 4, pad: int = 1):
        super().__init__()
        self.pad = pad
        self.word = nn.Embedding(vocab, dim, padding_idx=pad)
        self.pos = nn.Embedding(40, dim, padding_idx=pad)
        self.norm = nn.LayerNorm(dim)
        layer = nn.TransformerEncoderLayer(dim, heads, 64, dropout=0.0, activation="gelu", batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.pool = nn.Linear(dim, dim)

    def forward(self, ids):
        mask = ids.ne(self.pad).int()
        positions = (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + self.pad
        h = self.norm(self.word(ids) + self.pos(positions))
        h = self.encoder(h, src_key_padding_mask=mask == 0)
        return torch.tanh(self.pool(h[:, 0])), h


class SwinWindowAttention(nn.Module):
    """Window attention whose relative-position bias table is assembled with index_put (ScatterND)."""

    def __init__(self, dim: int = 16, window: int = 4, heads: int = 2):
        super().__init__()
        self.window, self.heads = window, heads
        self.table = nn.Parameter(torch.randn((2 * window - 1) ** 2, heads) * 0.1)
        coords = torch.stack(torch.meshgrid(torch.arange(window), torch.arange(window), indexing="ij")).flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0) + window - 1
        self.register_buffer("index", rel[..., 0] * (2 * window - 1) + rel[..., 1], persistent=False)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        bias = torch.zeros(n, n, self.heads)
        rows = torch.arange(n)
        bias[rows[:, None], rows[None, :]] = self.table[self.index.reshape(-1)].reshape(n, n, self.heads)
        attn = (q @ k.transpose(-2, -1)) * (c // self.heads) ** -0.5 + bias.permute(2, 0, 1)
        return self.proj((attn.softmax(-1) @ v).transpose(1, 2).reshape(b, n, c))


class Wav2Vec2Features(nn.Module):
    """Feature encoder: a convolution with GroupNorm over time (InstanceNormalization), a weight-normed
    positional convolution (the exporter folds the weight's norm), LayerNorm, and the L2-normalised
    projection a contrastive head compares (ReduceL2 on activations)."""

    def __init__(self, dim: int = 16):
        super().__init__()
        self.conv0 = nn.Conv1d(1, dim, 10, 5, bias=False)
        self.norm0 = nn.GroupNorm(dim, dim)
        self.conv1 = nn.Conv1d(dim, dim, 3, 2, bias=False)
        self.g = nn.Parameter(torch.rand(dim, 1, 1) + 0.5)
        self.v = nn.Parameter(torch.randn(dim, dim, 5) * 0.2)
        self.out = nn.LayerNorm(dim)

    def forward(self, wave):
        h = F.gelu(self.norm0(self.conv0(wave[:, None])))
        h = F.gelu(self.conv1(h))
        w = self.g * self.v / torch.linalg.vector_norm(self.v, dim=(1, 2), keepdim=True)
        h = h + F.gelu(F.conv1d(h, w, padding=2))
        h = self.out(h.transpose(1, 2))
        return h / torch.linalg.vector_norm(h, dim=-1, keepdim=True)


def _torchvision() -> dict[str, Callable[[], tuple[nn.Module, tuple, set[str]]]]:
    try:
        from torchvision.models import segmentation as seg
    except Exception:  # not installed, or built for another torch
        return {}
    image = (torch.randn(1, 3, 64, 64),)
    return {
        "tv_fcn_resnet50": lambda: (seg.fcn_resnet50(weights=None, weights_backbone=None, num_classes=5,
                                                     aux_loss=False), image, {"Resize"}),
        "tv_deeplabv3": lambda: (seg.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None,
                                                                  num_classes=5), image, {"Resize"}),
        "tv_lraspp": lambda: (seg.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=5),
                              image, {"Resize"}),
    }


def models() -> dict[str, Callable[[], tuple[nn.Module, tuple, set[str]]]]:
    """name -> () -> (module with random weights, example inputs, ONNX operators its graph must contain)."""
    image = (torch.randn(2, 3, 48, 64),)
    ids = torch.tensor([[0, 7, 9, 12, 2, 1, 1, 1], [0, 4, 4, 2, 1, 1, 1, 1]])
    found = {
        "fcn": lambda: (FCN(), image, {"Resize"}),
        "deeplabv3": lambda: (DeepLabV3(), image, {"Resize"}),
        "lraspp": lambda: (LRASPP(), image, {"Resize"}),
        "segformer": lambda: (SegFormerHead(), image, {"Resize"}),
        "roberta": lambda: (RoBERTa(), (ids,), {"CumSum"}),
        "swin_window": lambda: (SwinWindowAttention(), (torch.randn(2, 16, 16),), {"ScatterND"}),
        "wav2vec2_features": lambda: (Wav2Vec2Features(), (torch.randn(2, 400),),
                                      {"InstanceNormalization", "ReduceL2"}),
    }
    found.update(_torchvision())
    return found


# ---- the check -----------------------------------------------------------------------------------------

def export(module: nn.Module, args: tuple) -> onnx.ModelProto:
    """The module exported by torch.onnx's TorchScript exporter (opset 17: Resize-13, ScatterND-16)."""
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module.eval(), args, buf, dynamo=False, opset_version=17)
    return onnx.load_from_string(buf.getvalue())


def check(name: str, make: Callable, rtol: float, keep: Path | None) -> dict:
    """Export, run both runtimes, compare: one result row."""
    torch.manual_seed(0)
    module, args, needs = make()
    with torch.no_grad():  # random BatchNorm statistics, so normalisation does real work
        for m in module.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
    model = export(module, args)
    ops = {n.op_type for n in model.graph.node}
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        onnx.save(model, str(keep / f"{name}.onnx"))
    feeds = {i.name: a.numpy() for i, a in zip(model.graph.input, args, strict=False)}
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)
    t0 = time.perf_counter()
    row = {"model": name, "ops": sorted(needs), "missing_ops": sorted(needs - ops), "error": None, "max_rel": None}
    try:
        got = opbuild.onnx.load(model).run(feeds)
    except Exception as e:  # a model that does not load is a result of the check
        row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0]}"
        return row
    row["seconds"] = round(time.perf_counter() - t0, 2)
    rel = 0.0
    for g, w in zip(got, want, strict=True):
        if g.shape != w.shape:
            row["error"] = f"shape {g.shape} != onnxruntime's {w.shape}"
            return row
        scale = max(float(np.abs(w).max()), 1e-6)
        rel = max(rel, float(np.abs(g.astype(np.float64) - w).max()) / scale)
    row["max_rel"] = rel
    if rel > rtol:
        row["error"] = f"max relative difference {rel:.2e} > {rtol:g}"
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="comma-separated model names")
    parser.add_argument("--rtol", type=float, default=1e-3, help="relative to each output's largest magnitude")
    parser.add_argument("--keep", type=Path, help="save the exported models here")
    args = parser.parse_args(argv)
    zoo = models()
    names = args.only.split(",") if args.only else list(zoo)
    unknown = [n for n in names if n not in zoo]
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(zoo)}")
    failed = 0
    print(f"{'model':20s} {'operators':36s} {'max rel':>9s}  result")
    for name in names:
        row = check(name, zoo[name], args.rtol, args.keep)
        bad = row["error"] is not None or row["missing_ops"]
        failed += bool(bad)
        rel = "-" if row["max_rel"] is None else f"{row['max_rel']:.1e}"
        result = row["error"] or (f"export lacks {row['missing_ops']}" if row["missing_ops"] else "ok")
        print(f"{name:20s} {','.join(row['ops']):36s} {rel:>9s}  {result}")
    print(f"{len(names) - failed} of {len(names)} models match onnxruntime within rtol {args.rtol:g}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
