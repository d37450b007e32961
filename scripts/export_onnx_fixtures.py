#!/usr/bin/env python3
"""Export BERT, GPT-2, ViT, ResNet and MobileNetV2 from the transformers package (plain torch definitions,
random weights, no download) with ``torch.onnx.export(..., dynamo=True)``, with reference outputs from
onnxruntime.

    python scripts/export_onnx_fixtures.py                 # tiny configurations -> tests/fixtures/onnx/
    python scripts/export_onnx_fixtures.py --full          # full-size models -> benchmarks/models/ (not committed)
    python scripts/export_onnx_fixtures.py --only bert --out /tmp/x

Each model NAME gives NAME.onnx and NAME.npz, holding ``input:<name>`` and ``output:<name>`` arrays (the
reference outputs of onnxruntime for those inputs). Tiny configurations have 2 layers and hidden size 64
(ResNet and MobileNetV2: small widths and 32x32 images), so each fixture stays a few hundred KB.

Needs the ``bench`` extra (onnx, onnxruntime, transformers, onnxscript) and torch (the CPU build).
MobileNetV2's initial weights (std 0.02 normal, then 50 layers) shrink activations to ~1e-25, so its
convolution and batch-norm weights are re-initialised (He normal, random batch-norm statistics) to give
outputs of order one; otherwise any output would match "within 1e-4".
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
TINY_DIR = REPO / "tests" / "fixtures" / "onnx"
FULL_DIR = REPO / "benchmarks" / "models"
# onnxruntime reads ONNX IR versions up to 13; torch's exporter writes 10 today. Clamp, never raise.
MAX_IR_VERSION = 10
SEED = 0
QUANTIZED = ("resnet",)  # fixtures also written as NAME_int8 (quantize())


def _text_inputs(torch, vocab: int, batch: int, seq: int, mask: bool) -> dict:
    g = torch.Generator().manual_seed(SEED)
    inputs = {"input_ids": torch.randint(0, vocab, (batch, seq), generator=g)}
    if mask:  # the second sequence is padded: its last quarter is masked out
        m = torch.ones(batch, seq, dtype=torch.int64)
        m[1:, seq - seq // 4:] = 0
        inputs["attention_mask"] = m
    return inputs


def _image_inputs(torch, batch: int, size: int) -> dict:
    g = torch.Generator().manual_seed(SEED)
    return {"pixel_values": torch.randn(batch, 3, size, size, generator=g)}


def _reinit_cnn(torch, model) -> None:
    """He-normal convolutions and random batch-norm affine parameters and statistics (see the module doc)."""
    g = torch.Generator().manual_seed(SEED)
    for m in model.modules():
        if isinstance(m, torch.nn.Conv2d):
            fan_in = m.weight[0].numel()
            m.weight.data = torch.randn(m.weight.shape, generator=g) * (2.0 / fan_in) ** 0.5
            if m.bias is not None:
                m.bias.data = torch.randn(m.bias.shape, generator=g) * 0.1
        elif isinstance(m, torch.nn.BatchNorm2d):
            c = m.num_features
            m.weight.data = 0.5 + torch.rand(c, generator=g)
            m.bias.data = torch.randn(c, generator=g) * 0.1
            m.running_mean.data = torch.randn(c, generator=g) * 0.1
            m.running_var.data = 0.5 + torch.rand(c, generator=g)


class _Outputs:
    """Wraps a transformers model so the export returns plain tensors (no ModelOutput, no cache)."""

    def __init__(self, torch, model, names: tuple[str, ...]):
        class Wrapper(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.model = model

            def forward(self, *args, **kwargs):
                out = self.model(*args, **kwargs, return_dict=True)
                return tuple(getattr(out, n) for n in names)

        self.module = Wrapper().eval()


def build(name: str, full: bool) -> tuple[Callable, dict, tuple[str, ...]]:
    """(model, example inputs by name, output names) for one architecture."""
    import torch
    import transformers as tf

    torch.manual_seed(SEED)
    if name == "bert":
        cfg = tf.BertConfig() if full else tf.BertConfig(
            vocab_size=256, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
            max_position_embeddings=64)
        model = tf.BertModel(cfg)
        inputs = _text_inputs(torch, cfg.vocab_size, 2, 128 if full else 16, mask=True)
        outputs = ("last_hidden_state", "pooler_output")
    elif name == "gpt2":
        cfg = tf.GPT2Config(use_cache=False, bos_token_id=0, eos_token_id=0) if full else tf.GPT2Config(
            vocab_size=256, n_embd=64, n_layer=2, n_head=4, n_inner=128, n_positions=64, use_cache=False,
            bos_token_id=0, eos_token_id=0)
        model = tf.GPT2Model(cfg)
        inputs = _text_inputs(torch, cfg.vocab_size, 1, 128 if full else 16, mask=False)
        outputs = ("last_hidden_state",)
    elif name == "vit":
        cfg = tf.ViTConfig() if full else tf.ViTConfig(
            hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128, image_size=32,
            patch_size=8)
        model = tf.ViTModel(cfg)
        inputs = _image_inputs(torch, 1, cfg.image_size)
        outputs = ("last_hidden_state", "pooler_output")
    elif name == "resnet":
        cfg = tf.ResNetConfig() if full else tf.ResNetConfig(
            embedding_size=16, hidden_sizes=[16, 32, 64], depths=[1, 1, 1], layer_type="bottleneck")
        model = tf.ResNetModel(cfg)
        inputs = _image_inputs(torch, 1, 224 if full else 32)
        outputs = ("last_hidden_state", "pooler_output")
    elif name == "mobilenet":
        cfg = tf.MobileNetV2Config() if full else tf.MobileNetV2Config(
            image_size=32, depth_multiplier=0.15, finegrained_output=False)
        model = tf.MobileNetV2Model(cfg)
        _reinit_cnn(torch, model)
        inputs = _image_inputs(torch, 1, cfg.image_size)
        outputs = ("last_hidden_state", "pooler_output")
    else:
        raise SystemExit(f"unknown model {name!r}; choose from {', '.join(MODELS)}")
    return _Outputs(torch, model.eval(), outputs).module, inputs, outputs


MODELS = ("bert", "gpt2", "vit", "resnet", "mobilenet")


def _strip_metadata(proto) -> None:
    """Drop the exporter's per-node provenance (torch stack traces, FX node text): a third of a tiny model's
    bytes, and no part of what the model computes."""
    g = proto.graph
    for item in (*g.node, *g.value_info, *g.input, *g.output, *g.initializer):
        del item.metadata_props[:]
        if hasattr(item, "doc_string"):
            item.doc_string = ""
    del proto.metadata_props[:]


def export(name: str, full: bool, out_dir: Path) -> dict:
    """Export one model and its reference outputs; returns a summary row."""
    import onnx
    import onnxruntime as ort
    import torch

    module, inputs, out_names = build(name, full)
    t0 = time.perf_counter()
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        program = torch.onnx.export(module, (), kwargs=inputs, dynamo=True, verbose=False,
                                    input_names=list(inputs), output_names=list(out_names))
    proto = program.model_proto
    _strip_metadata(proto)
    proto.ir_version = min(proto.ir_version, MAX_IR_VERSION)
    proto.producer_name = f"opbuild scripts/export_onnx_fixtures.py ({proto.producer_name})"
    onnx.checker.check_model(proto)
    path = out_dir / f"{name}.onnx"
    onnx.save_model(proto, str(path))
    feeds = {k: v.numpy() for k, v in inputs.items()}
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    ref = session.run(None, feeds)
    with torch.no_grad():
        expect = module(**inputs)
    # The export is faithful to torch. Full-size networks (50+ layers) accumulate float32 rounding that differs
    # with the order of operations: 1e-3 relative there, 1e-4 for the tiny ones.
    tol = 2e-3 if full else 1e-4
    for o, t in zip(ref, expect, strict=True):
        np.testing.assert_allclose(o, t.numpy(), rtol=tol, atol=tol * max(1.0, float(np.abs(o).max())))
    np.savez(out_dir / f"{name}.npz", **{f"input:{k}": v for k, v in feeds.items()},
             **{f"output:{o.name}": r for o, r in zip(session.get_outputs(), ref, strict=True)})
    return {"model": name, "seconds": time.perf_counter() - t0, "bytes": path.stat().st_size,
            "ops": len({n.op_type for n in proto.graph.node}), "nodes": len(proto.graph.node),
            "output_scale": [float(np.abs(r).max()) for r in ref]}


class _Calibration:
    """onnxruntime's CalibrationDataReader protocol: a few fixed-seed inputs of the float model."""

    def __init__(self, feeds: dict[str, np.ndarray], count: int = 8):
        rng = np.random.default_rng(SEED)
        self.batches = [{k: rng.standard_normal(v.shape).astype(v.dtype) for k, v in feeds.items()}
                        for _ in range(count)]

    def get_next(self) -> dict | None:
        return self.batches.pop() if self.batches else None


def quantize(name: str, out_dir: Path) -> dict:
    """``NAME_int8.onnx``: the float fixture NAME quantised by onnxruntime.quantization.quantize_static in the
    QOperator format, Conv only (uint8 activations, int8 per-channel weights: QuantizeLinear -> QLinearConv ->
    DequantizeLinear; the other ops stay float), calibrated on fixed-seed inputs. The first QLinearConv's
    uint8 output is added as a second graph output, so the test can compare an integer tensor exactly.
    ``NAME_int8.npz`` holds the float fixture's inputs and onnxruntime's outputs of the quantised model."""
    import onnx
    import onnxruntime as ort
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static

    src = out_dir / f"{name}.onnx"
    data = np.load(out_dir / f"{name}.npz")
    feeds = {k.split(":", 1)[1]: data[k] for k in data.files if k.startswith("input:")}
    path = out_dir / f"{name}_int8.onnx"
    t0 = time.perf_counter()
    quantize_static(str(src), str(path), _Calibration(feeds), quant_format=QuantFormat.QOperator,
                    op_types_to_quantize=["Conv"], activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8, per_channel=True, reduce_range=True)
    proto = onnx.load(str(path))
    first = next(n for n in proto.graph.node if n.op_type == "QLinearConv")
    rank = len(feeds[proto.graph.input[0].name].shape)
    proto.graph.output.append(onnx.helper.make_tensor_value_info(first.output[0], onnx.TensorProto.UINT8,
                                                                 [None] * rank))
    _strip_metadata(proto)
    proto.producer_name = "opbuild scripts/export_onnx_fixtures.py (onnxruntime.quantization)"
    onnx.checker.check_model(proto)
    onnx.save_model(proto, str(path))
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    ref = session.run(None, feeds)
    np.savez(out_dir / f"{name}_int8.npz", **{f"input:{k}": v for k, v in feeds.items()},
             **{f"output:{o.name}": r for o, r in zip(session.get_outputs(), ref, strict=True)})
    return {"model": f"{name}_int8", "seconds": time.perf_counter() - t0, "bytes": path.stat().st_size,
            "ops": len({n.op_type for n in proto.graph.node}), "nodes": len(proto.graph.node),
            "output_scale": [float(np.abs(r).max()) for r in ref]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="full-size models (for benchmarks, not committed)")
    parser.add_argument("--only", action="append", choices=MODELS, help="export only this model (repeatable)")
    parser.add_argument("--out", type=Path, help=f"output directory (default {TINY_DIR.relative_to(REPO)}, "
                                                 f"or {FULL_DIR.relative_to(REPO)} with --full)")
    parser.add_argument("--quantize", action="store_true", help="only write the int8 fixture(s) from the already "
                                                                    f"exported {', '.join(QUANTIZED)}")
    args = parser.parse_args(argv)
    out_dir = args.out or (FULL_DIR if args.full else TINY_DIR)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = [quantize(name, out_dir) for name in QUANTIZED] if args.quantize else []
    for name in [] if args.quantize else args.only or MODELS:
        rows.append(export(name, args.full, out_dir))
    if not args.quantize and not args.full and not args.only:
        rows += [quantize(name, out_dir) for name in QUANTIZED]
    for row in rows:
        name = row["model"]
        print(f"{name:10s} {row['bytes'] / 1024:9.0f} KB  {row['nodes']:5d} nodes  {row['ops']:3d} op types  "
              f"max|output| {', '.join(f'{s:.3g}' for s in row['output_scale'])}  ({row['seconds']:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
