#!/usr/bin/env python3
"""Float16 versions of the float32 ONNX fixtures (tests/fixtures/onnx/NAME.onnx -> NAME_fp16.onnx + .npz).

    python scripts/onnx_float16.py                  # every fixture of scripts/export_onnx_fixtures.py
    python scripts/onnx_float16.py --only bert

onnxconverter-common is not a dependency of this project, so the conversion is done here with onnx's own
helpers, following the same rules:

1. Every float32 initializer becomes float16, its finite values clipped to float16's range (+-65504): a
   float32 "minus infinity" mask constant such as ``finfo(float32).min`` would otherwise become -inf and turn
   ``0 * mask`` into NaN.
2. Float32 graph inputs and outputs become float16, as do the ``to`` of Cast nodes, Constant and
   ConstantOfShape values; the stale ``value_info`` is dropped (shape inference recomputes it).
3. Nodes whose operator onnxruntime's CPU provider has no float16 kernel for are kept in float32: their
   float16 inputs go through Cast(float32) and their outputs through Cast(float16). Which ones is found by
   asking onnxruntime (a session that fails with NOT_IMPLEMENTED names the operator), so the list follows the
   installed onnxruntime.

Reference outputs: onnxruntime on the float16 model with the fixture's inputs (float inputs rounded to
float16), stored as ``input:``/``output:`` arrays like the float32 fixtures.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "onnx"
MODELS = ("bert", "gpt2", "vit", "resnet", "mobilenet")
F16_MAX = 65504.0


def _to_f16_tensor(t):
    """A float32 TensorProto as float16, finite values clipped to float16's range."""
    from onnx import numpy_helper

    a = numpy_helper.to_array(t)
    finite = np.isfinite(a)
    a = np.where(finite, np.clip(a, -F16_MAX, F16_MAX), a).astype(np.float16)
    return numpy_helper.from_array(a, t.name)


def convert(proto, keep_float32: set[str]):
    """The model ``proto`` (modified in place) with float32 turned into float16 (rules 1-2 of the module doc)
    and the nodes whose op type is in ``keep_float32`` wrapped in Casts (rule 3)."""
    import onnx
    from onnx import TensorProto, helper

    f32, f16 = TensorProto.FLOAT, TensorProto.FLOAT16
    g = proto.graph
    for i, t in enumerate(g.initializer):
        if t.data_type == f32:
            g.initializer[i].CopyFrom(_to_f16_tensor(t))
    for v in (*g.input, *g.output):
        if v.type.tensor_type.elem_type == f32:
            v.type.tensor_type.elem_type = f16
    for node in g.node:
        for attr in node.attribute:
            if node.op_type == "Cast" and attr.name == "to" and attr.i == f32:
                attr.i = f16
            elif attr.type == onnx.AttributeProto.TENSOR and attr.t.data_type == f32:
                attr.t.CopyFrom(_to_f16_tensor(attr.t))
    del g.value_info[:]
    if not keep_float32:
        return proto
    inferred = onnx.shape_inference.infer_shapes(proto)
    types = {v.name: v.type.tensor_type.elem_type
             for v in (*inferred.graph.value_info, *inferred.graph.input, *inferred.graph.output)}
    types.update({t.name: t.data_type for t in g.initializer})
    nodes = []
    for k, node in enumerate(g.node):
        if node.op_type not in keep_float32:
            nodes.append(node)
            continue
        for j, name in enumerate(node.input):
            if name and types.get(name) == f16:
                cast = f"{name}__f32_{k}_{j}"
                nodes.append(helper.make_node("Cast", [name], [cast], to=f32, name=f"{cast}_cast"))
                node.input[j] = cast
        tail = []
        for j, name in enumerate(node.output):
            if name and types.get(name) == f16:
                wide = f"{name}__f32"
                tail.append(helper.make_node("Cast", [wide], [name], to=f16, name=f"{wide}_cast"))
                node.output[j] = wide
        nodes += [node, *tail]
    del g.node[:]
    g.node.extend(nodes)
    return proto


def _session(proto):
    import onnxruntime as ort

    return ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])


def convert_for_onnxruntime(path: Path):
    """(float16 model, op types kept in float32): converts, and while onnxruntime refuses a node for want of
    a float16 kernel, keeps that op type in float32 and converts again."""
    import onnx
    from onnxruntime.capi.onnxruntime_pybind11_state import NotImplemented as OrtNotImplemented

    keep: set[str] = set()
    while True:
        proto = convert(onnx.load(str(path)), keep)
        try:
            _session(proto)
            return proto, keep
        except OrtNotImplemented as e:
            m = re.search(r"implementation for (\w+)\(", str(e))
            if not m or m.group(1) in keep:
                raise
            keep.add(m.group(1))


def export(name: str, src: Path, out: Path) -> dict:
    """Write NAME_fp16.onnx and NAME_fp16.npz next to ``out``; returns a summary row."""
    import onnx

    proto, keep = convert_for_onnxruntime(src / f"{name}.onnx")
    onnx.checker.check_model(proto)
    path = out / f"{name}_fp16.onnx"
    onnx.save_model(proto, str(path))
    data = np.load(src / f"{name}.npz")
    feeds = {k.split(":", 1)[1]: (data[k].astype(np.float16) if data[k].dtype == np.float32 else data[k])
             for k in data.files if k.startswith("input:")}
    session = _session(proto)
    ref = session.run(None, feeds)
    np.savez(out / f"{name}_fp16.npz", **{f"input:{k}": v for k, v in feeds.items()},
             **{f"output:{o.name}": r for o, r in zip(session.get_outputs(), ref, strict=True)})
    f32 = [data[k] for k in data.files if k.startswith("output:")]
    err = [float(np.abs(r.astype(np.float32) - e).max() / max(1.0, float(np.abs(e).max())))
           for r, e in zip(ref, f32, strict=True)]
    return {"model": name, "bytes": path.stat().st_size, "kept_float32": sorted(keep), "rel_err_vs_fp32": err}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", choices=MODELS, help="convert only this model (repeatable)")
    parser.add_argument("--src", type=Path, default=FIXTURES, help="directory of the float32 fixtures")
    parser.add_argument("--out", type=Path, default=FIXTURES, help="output directory")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.only or MODELS:
        row = export(name, args.src, args.out)
        print(f"{name:10s} {row['bytes'] / 1024:7.0f} KB  kept in float32: {', '.join(row['kept_float32']) or '-'}"
              f"  max |fp16 - fp32| / max(1, |fp32|): {', '.join(f'{e:.2e}' for e in row['rel_err_vs_fp32'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
