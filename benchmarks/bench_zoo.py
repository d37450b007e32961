"""A zoo of architectures from the transformers package, regenerated with random weights, exported to ONNX
and run on opbuild and onnxruntime side by side: does each load and match (rtol 1e-3 of each output's
largest magnitude), and its steady time per call against onnxruntime's, at 1 and at 2 threads (issues 25
and 26).

The models are the library's own definitions (no download): text encoders (BERT, RoBERTa, DistilBERT,
ALBERT, ELECTRA, DeBERTa-v2, MPNet, XLM-RoBERTa), decoders (GPT-2, GPT-Neo, OPT, BLOOM, Llama, Mistral,
Qwen2, Phi), vision transformers (ViT, DeiT, BEiT, Swin, DINOv2, LeViT, SegFormer, MobileViT) and CNNs
(ResNet, MobileNetV1/V2, ConvNeXt, ConvNeXtV2, EfficientNet, RegNet, BiT, PoolFormer), each in a small
configuration (hidden sizes 64-256, 2-4 layers or stages, images 64-96 px, sequences of 32) so the whole zoo
exports in minutes. torchvision and timm are not used: this project's CPU torch has no torchvision wheel whose
compiled operators load (``benchmarks/bench_cnn_zoo.py`` writes out torchvision's resnet18 and mobilenet_v2
instead).

Each thread count runs in its own child process (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS and onnxruntime's
``intra_op_num_threads`` set before anything loads). Per model: opbuild's first call (build) is excluded;
then opbuild and onnxruntime alternate ``--repeat`` rounds of calls lasting ``--min-time`` seconds, and the
best mean per call of each is kept. The machine may be shared: read the ratios, within one run.

Usage: ``python benchmarks/bench_zoo.py [--only a,b] [--threads 1,2] [--repeat R] [--min-time S] [--keep DIR]
[--clock wall|thread] [--src DIR] [--json PATH]``; results go to ``benchmarks/results/zoo.json``. Needs the
``bench`` extra (torch,
transformers, onnx, onnxruntime, onnxscript).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the sibling benchmark whose timing loop this one shares
from bench_cnn_zoo import CLOCKS, _per_call  # noqa: E402

SRC = HERE.parent / "src"
RESULTS = HERE / "results" / "zoo.json"
SEED = 0
SEQ = 32


def _text(tf, cls: str, cfg_cls: str, **cfg) -> Callable:
    def make():
        config = getattr(tf, cfg_cls)(**cfg)
        return getattr(tf, cls)(config), "text", config
    return make


def _image(tf, cls: str, cfg_cls: str, size: int, **cfg) -> Callable:
    def make():
        config = getattr(tf, cfg_cls)(**cfg)
        config.image_size_for_zoo = size
        return getattr(tf, cls)(config), "image", config
    return make


def models() -> dict[str, Callable]:
    """name -> a function returning (model, input kind, config); every model in a small configuration."""
    import transformers as tf

    enc = {"vocab_size": 512, "hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
           "intermediate_size": 256, "max_position_embeddings": 64}
    dec = {"vocab_size": 512, "hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
           "intermediate_size": 256, "max_position_embeddings": 64, "use_cache": False}
    vit = {"hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 256,
           "image_size": 64, "patch_size": 8}
    return {
        # text encoders
        "bert": _text(tf, "BertModel", "BertConfig", **enc),
        "roberta": _text(tf, "RobertaModel", "RobertaConfig", **enc),
        "distilbert": _text(tf, "DistilBertModel", "DistilBertConfig", vocab_size=512, dim=128, n_layers=2,
                            n_heads=4, hidden_dim=256, max_position_embeddings=64),
        "albert": _text(tf, "AlbertModel", "AlbertConfig", embedding_size=64, **enc),
        "electra": _text(tf, "ElectraModel", "ElectraConfig", embedding_size=64, **enc),
        "deberta_v2": _text(tf, "DebertaV2Model", "DebertaV2Config", **enc),
        "mpnet": _text(tf, "MPNetModel", "MPNetConfig", **enc),
        "xlm_roberta": _text(tf, "XLMRobertaModel", "XLMRobertaConfig", **enc),
        # decoders
        "gpt2": _text(tf, "GPT2Model", "GPT2Config", vocab_size=512, n_embd=128, n_layer=2, n_head=4,
                      n_inner=256, n_positions=64, use_cache=False),
        "gpt_neo": _text(tf, "GPTNeoModel", "GPTNeoConfig", vocab_size=512, hidden_size=128, num_layers=2,
                         num_heads=4, attention_types=[[["global", "local"], 1]], max_position_embeddings=64,
                         use_cache=False),
        "opt": _text(tf, "OPTModel", "OPTConfig", vocab_size=512, hidden_size=128, num_hidden_layers=2,
                     num_attention_heads=4, ffn_dim=256, max_position_embeddings=64, word_embed_proj_dim=128,
                     use_cache=False),
        "bloom": _text(tf, "BloomModel", "BloomConfig", vocab_size=512, hidden_size=128, n_layer=2, n_head=4,
                       use_cache=False),
        "llama": _text(tf, "LlamaModel", "LlamaConfig", num_key_value_heads=2, **dec),
        "mistral": _text(tf, "MistralModel", "MistralConfig", num_key_value_heads=2, sliding_window=None, **dec),
        "qwen2": _text(tf, "Qwen2Model", "Qwen2Config", num_key_value_heads=2, **dec),
        "phi": _text(tf, "PhiModel", "PhiConfig", **dec),
        # vision transformers
        "vit": _image(tf, "ViTModel", "ViTConfig", 64, **vit),
        "deit": _image(tf, "DeiTModel", "DeiTConfig", 64, **vit),
        "beit": _image(tf, "BeitModel", "BeitConfig", 64, use_relative_position_bias=True, **vit),
        "dinov2": _image(tf, "Dinov2Model", "Dinov2Config", 64, hidden_size=128, num_hidden_layers=2,
                         num_attention_heads=4, mlp_ratio=2, image_size=64, patch_size=8),
        "swin": _image(tf, "SwinModel", "SwinConfig", 64, image_size=64, patch_size=4, embed_dim=32,
                       depths=[2, 2], num_heads=[2, 4], window_size=4),
        "levit": _image(tf, "LevitModel", "LevitConfig", 64, image_size=64, hidden_sizes=[64, 96, 128],
                        num_attention_heads=[2, 3, 4], depths=[1, 1, 1], key_dim=[16, 16, 16]),
        "segformer": _image(tf, "SegformerModel", "SegformerConfig", 64, num_encoder_blocks=2, depths=[1, 1],
                            sr_ratios=[2, 1], hidden_sizes=[32, 64], num_attention_heads=[1, 2],
                            patch_sizes=[7, 3], strides=[4, 2], mlp_ratios=[2, 2]),
        "mobilevit": _image(tf, "MobileViTModel", "MobileViTConfig", 64, image_size=64,
                            hidden_sizes=[48, 64, 80], neck_hidden_sizes=[16, 24, 32, 48, 64, 80, 160]),
        # CNNs
        "resnet": _image(tf, "ResNetModel", "ResNetConfig", 96, embedding_size=32, hidden_sizes=[32, 64, 128, 256],
                         depths=[1, 1, 1, 1], layer_type="bottleneck"),
        "mobilenet_v1": _image(tf, "MobileNetV1Model", "MobileNetV1Config", 96, image_size=96,
                               depth_multiplier=0.5),
        "mobilenet_v2": _image(tf, "MobileNetV2Model", "MobileNetV2Config", 96, image_size=96,
                               depth_multiplier=0.5),
        "convnext": _image(tf, "ConvNextModel", "ConvNextConfig", 96, hidden_sizes=[32, 64, 128, 256],
                           depths=[1, 1, 2, 1]),
        "convnextv2": _image(tf, "ConvNextV2Model", "ConvNextV2Config", 96, hidden_sizes=[32, 64, 128, 256],
                             depths=[1, 1, 2, 1]),
        "efficientnet": _image(tf, "EfficientNetModel", "EfficientNetConfig", 96, image_size=96,
                               width_coefficient=0.5, depth_coefficient=0.5, hidden_dim=640),
        "regnet": _image(tf, "RegNetModel", "RegNetConfig", 96, embedding_size=16, hidden_sizes=[24, 56, 152, 368],
                         depths=[1, 1, 2, 1], groups_width=8),
        "bit": _image(tf, "BitModel", "BitConfig", 96, embedding_size=32, hidden_sizes=[64, 128, 256, 512],
                      depths=[1, 1, 1, 1], num_groups=8),
        "poolformer": _image(tf, "PoolFormerModel", "PoolFormerConfig", 96, hidden_sizes=[32, 64, 128, 256],
                             depths=[1, 1, 2, 1]),
    }


def _reinit(torch, model) -> None:
    """Random BatchNorm statistics and affine parameters away from the identity (freshly built models have
    mean 0, variance 1: folding them would be exercised by nothing)."""
    g = torch.Generator().manual_seed(SEED)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            c = m.num_features
            m.running_mean.data = torch.randn(c, generator=g) * 0.1
            m.running_var.data = 0.5 + torch.rand(c, generator=g)
            if m.weight is not None:
                m.weight.data = 0.5 + torch.rand(c, generator=g)
                m.bias.data = torch.randn(c, generator=g) * 0.1


def export(name: str, make: Callable, path: Path) -> dict:
    """Build ``name`` with random weights, export it to ``path``; returns the feeds (NumPy) and op types."""
    import numpy as np
    import onnx
    import torch

    torch.manual_seed(SEED)
    model, kind, config = make()
    model.eval()
    _reinit(torch, model)
    g = torch.Generator().manual_seed(SEED)
    if kind == "text":
        inputs = {"input_ids": torch.randint(0, config.vocab_size, (1, SEQ), generator=g)}
    else:
        size = config.image_size_for_zoo
        inputs = {"pixel_values": torch.randn(1, getattr(config, "num_channels", 3), size, size, generator=g)}

    class Plain(torch.nn.Module):
        """The model's first output (the last hidden state) as a plain tensor."""

        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, x):
            out = self.model(x, return_dict=True)
            return out[0]

    x, input_name = next(iter(inputs.values())), next(iter(inputs))
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        try:  # the TorchScript exporter: fast, and what most deployed models went through
            torch.onnx.export(Plain().eval(), (x,), str(path), input_names=[input_name], output_names=["output"],
                              dynamo=False, opset_version=17)
        except Exception:  # noqa: BLE001 -- decoders' causal masks (aten::diff) need the dynamo exporter
            program = torch.onnx.export(Plain().eval(), (x,), dynamo=True, verbose=False,
                                        input_names=[input_name], output_names=["output"])
            program.save(str(path))
    proto = onnx.load(str(path))
    return {"feeds": {k: v.numpy() for k, v in inputs.items()},
            "ops": sorted({n.op_type for n in proto.graph.node}), "nodes": len(proto.graph.node),
            "params": int(sum(np.prod(i.dims) for i in proto.graph.initializer))}


def child(models_dir: Path, threads: int, repeat: int, min_time: float, out: Path, clock: str = "wall") -> None:
    """Run every exported model at ``threads`` threads (the environment already says so): check, time."""
    import numpy as np
    import onnxruntime as ort

    import opbuild.onnx  # the tree the parent put first on PYTHONPATH (--src)

    rows = []
    for meta_path in sorted(models_dir.glob("*.json")):
        meta = json.loads(meta_path.read_text())
        name = meta["name"]
        path = models_dir / f"{name}.onnx"
        feeds = {k: np.load(models_dir / f"{name}.{k}.npy") for k in meta["feeds"]}
        row: dict = {"model": name, "threads": threads}
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        sess = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        ref = sess.run(None, feeds)[0]
        try:
            t0 = time.perf_counter()
            model = opbuild.onnx.load(str(path))
            got = model.run(feeds)
            got = np.asarray(got[0] if isinstance(got, (list, tuple)) else got)
            row["first_call_s"] = time.perf_counter() - t0
        except Exception as e:  # noqa: BLE001 -- a zoo row records why a model does not run
            row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
            rows.append(row)
            continue
        scale = max(1.0, float(np.abs(ref).max()))
        err = float(np.abs(got.astype(np.float64) - ref).max()) / scale
        row["rel_err"] = err
        row["match"] = bool(got.shape == ref.shape and err <= 1e-3)
        t_ob, t_ort = [], []
        ours, theirs = (lambda m=model, f=feeds: m.run(f)), (lambda s=sess, f=feeds: s.run(None, f))
        for _ in range(repeat):
            t_ob.append(_per_call(ours, min_time, CLOCKS[clock]))
            t_ort.append(_per_call(theirs, min_time, CLOCKS[clock]))
        row["opbuild_s"], row["ort_s"] = min(t_ob), min(t_ort)
        row["ratio"] = row["opbuild_s"] / row["ort_s"]
        rows.append(row)
        print(f"  {name:<14} {threads}T  {row['opbuild_s'] * 1e3:8.3f} ms  ort {row['ort_s'] * 1e3:8.3f} ms  "
              f"{row['ratio']:5.2f}x  err {err:.1e}", flush=True)
    out.write_text(json.dumps(rows, indent=2))


def _geomean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main(argv: list[str] | None = None) -> int:
    """Export the zoo, run it at each thread count, print the table and write the JSON results."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default="", help="comma-separated model names (default: every model)")
    p.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--min-time", type=float, default=0.3)
    p.add_argument("--keep", type=Path, default=None, help="export into (and reuse) this folder")
    p.add_argument("--src", type=Path, default=SRC,
                   help="the opbuild source tree to time (default this checkout's src/; another checkout's src/ "
                        "measures an older version on the same exported models)")
    p.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                   help="wall clock, or the calling thread's CPU time (one thread only: both runtimes then run "
                        "on the calling thread, and a shared machine's other jobs inflate it far less)")
    p.add_argument("--json", type=Path, default=RESULTS)
    p.add_argument("--child", type=Path, default=None, help=argparse.SUPPRESS)
    p.add_argument("--child-out", type=Path, default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child is not None:
        child(args.child, int(os.environ["OMP_NUM_THREADS"]), args.repeat, args.min_time, args.child_out,
              args.clock)
        return 0

    import numpy as np

    zoo = models()
    names = [n.strip() for n in args.only.split(",") if n.strip()] or list(zoo)
    if unknown := [n for n in names if n not in zoo]:
        p.error(f"unknown model(s) {unknown}; choose from {', '.join(zoo)}")
    tmp = tempfile.TemporaryDirectory(prefix="opbuild-zoo-")
    folder = args.keep or Path(tmp.name)
    folder.mkdir(parents=True, exist_ok=True)
    exported: dict[str, dict] = {}
    failed: dict[str, str] = {}
    for name in names:
        meta_path = folder / f"{name}.json"
        if meta_path.is_file() and (folder / f"{name}.onnx").is_file():
            exported[name] = json.loads(meta_path.read_text())
            continue
        t0 = time.perf_counter()
        try:
            info = export(name, zoo[name], folder / f"{name}.onnx")
        except Exception as e:  # noqa: BLE001 -- a model transformers or the exporter cannot build is reported
            failed[name] = f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
            print(f"export {name}: FAILED ({failed[name]})", flush=True)
            continue
        for k, v in info.pop("feeds").items():
            np.save(folder / f"{name}.{k}.npy", v)
        meta = {"name": name, "feeds": [k for k in ("input_ids", "pixel_values")
                                        if (folder / f"{name}.{k}.npy").is_file()], **info}
        meta_path.write_text(json.dumps(meta))
        exported[name] = meta
        print(f"export {name}: {info['nodes']} nodes, {info['params']} parameters, "
              f"{time.perf_counter() - t0:.1f} s", flush=True)
    for stale in folder.glob("*.json"):  # a kept folder may hold models not asked for this time
        if stale.stem not in exported:
            stale.rename(stale.with_suffix(".skip"))

    rows: list[dict] = []
    thread_counts = [int(t) for t in args.threads.split(",")]
    if args.clock == "thread" and thread_counts != [1]:
        p.error("--clock thread measures one thread's CPU time: use it with --threads 1")
    for threads in thread_counts:
        env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
                   PYTHONPATH=os.pathsep.join([str(args.src), *filter(None, [os.environ.get("PYTHONPATH")])]))
        out = Path(tmp.name) / f"rows{threads}.json"
        print(f"-- {threads} thread(s)", flush=True)
        subprocess.run([sys.executable, __file__, "--child", str(folder), "--child-out", str(out),
                        "--repeat", str(args.repeat), "--min-time", str(args.min_time), "--clock", args.clock],
                       env=env, check=True)
        rows += json.loads(out.read_text())
    for skipped in folder.glob("*.skip"):
        skipped.rename(skipped.with_suffix(".json"))

    print(f"\n{'model':<14} {'threads':>7} {'opbuild':>10} {'ort':>10} {'ratio':>6} {'rel err':>8}  status")
    for r in rows:
        if "error" in r:
            print(f"{r['model']:<14} {r['threads']:>7} {'':>10} {'':>10} {'':>6} {'':>8}  {r['error']}")
        else:
            print(f"{r['model']:<14} {r['threads']:>7} {r['opbuild_s'] * 1e3:8.3f}ms {r['ort_s'] * 1e3:8.3f}ms "
                  f"{r['ratio']:6.2f} {r['rel_err']:8.1e}  {'ok' if r['match'] else 'MISMATCH'}")
    summary = {}
    for threads in sorted({r["threads"] for r in rows}):
        ok = [r for r in rows if r["threads"] == threads and r.get("match")]
        summary[str(threads)] = {"models": len(exported), "run_and_match": len(ok),
                                 "geomean_ratio": _geomean([r["ratio"] for r in ok]),
                                 "max_ratio": max((r["ratio"] for r in ok), default=float("nan"))}
        s = summary[str(threads)]
        print(f"{threads} thread(s): {s['run_and_match']}/{s['models']} run and match; geo-mean "
              f"{s['geomean_ratio']:.2f}x onnxruntime, worst {s['max_ratio']:.2f}x")
    for name, why in failed.items():
        print(f"not exported: {name}: {why}")
    result = {"src": str(args.src), "machine": platform.machine(), "cpu_count": os.cpu_count(),
              "load_avg": os.getloadavg(), "clock": args.clock, "repeat": args.repeat, "min_time": args.min_time,
              "exported": dict(exported), "export_failed": failed, "rows": rows, "summary": summary}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
